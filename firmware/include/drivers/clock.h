/* clock.h: RP2040 resets and clock bring-up (XOSC, PLL_SYS 125 MHz, PLL_USB 48 MHz, the
 * clock generators and the 1 us watchdog tick), in the order the SDK's runtime uses. */
#ifndef DRIVERS_CLOCK_H
#define DRIVERS_CLOCK_H

#include <stdint.h>

enum clock_id { CLK_REF, CLK_SYS, CLK_PERI, CLK_USB, CLK_ADC, CLK_RTC, CLK_COUNT };

/* Puts the blocks in mask into reset / takes them out and waits until they are. */
void reset_block(uint32_t mask);
void unreset_block_wait(uint32_t mask);

/* The whole early bring-up: resets every block the boot does not need, starts the
 * oscillator, both PLLs and every clock, starts the watchdog tick, then releases the
 * peripherals clocked by them. Returns 0, or -ETIMEDOUT when a status poll gave up (the
 * system then runs on whatever clock was reached; clock_init_error says where). */
int clock_init(void);
/* The frequency clock_init configured for id (0 before). */
uint32_t clock_get_hz(enum clock_id id);
/* NULL, or what timed out during clock_init. */
const char *clock_init_error(void);

#endif
