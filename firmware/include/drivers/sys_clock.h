/* sys_clock.h: the contract between the kernel's timeouts and the system clock driver
 * (drivers/sys_clock.c, the RP2040 TIMER): tickless, in kernel ticks of 100 us. */
#ifndef DRIVERS_SYS_CLOCK_H
#define DRIVERS_SYS_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/kernel.h"

/* Starts the TIMER alarm interrupt. The counter itself runs from the watchdog tick. */
void sys_clock_driver_init(void);
/* Asks for an announcement within ticks ticks of now (K_TICKS_FOREVER: none needed);
 * idle says the caller is the idle thread about to sleep. The driver may announce earlier. */
void sys_clock_set_timeout(k_ticks_t ticks, bool idle);
/* Whole ticks since the last announcement. */
uint32_t sys_clock_elapsed(void);
/* The free-running 1 MHz counter, low 32 bits. */
uint32_t sys_clock_cycle_get_32(void);
/* The 64-bit microsecond counter. */
uint64_t sys_clock_cycle_get_64(void);

/* Implemented by the kernel: ticks have passed since the previous call. ISR context. */
void sys_clock_announce(int32_t ticks);

#endif
