/* RP2040 platform definitions (macros usable from assembly; the rest for C). */
#ifndef _PICO_PLATFORM_H
#define _PICO_PLATFORM_H

#include "hardware/regs/addressmap.h"

#define NUM_CORES 2
#define NUM_DMA_CHANNELS 12
#define NUM_IRQS 32
#define NUM_USER_IRQS 6
#define NUM_SPIN_LOCKS 32
#define NUM_BANK0_GPIOS 30
#define NUM_UARTS 2
#define NUM_GENERIC_TIMERS 1
#define NUM_ALARMS 4

#define XOSC_HZ 12000000u
#define SYS_CLK_HZ 125000000u

#ifndef __ASSEMBLER__
#include "pico/platform/compiler.h"
#include "pico/platform/sections.h"
#include "pico/platform/panic.h"

static __force_inline void __breakpoint(void)
{
    __asm volatile("bkpt #0" : : : "memory");
}

static __force_inline uint __get_current_exception(void)
{
    uint exception;
    __asm volatile("mrs %0, ipsr" : "=l"(exception));
    return exception;
}

static __force_inline uint get_core_num(void)
{
    return (*(uint32_t *)(SIO_BASE + 0x000));
}

static __force_inline void busy_wait_at_least_cycles(uint32_t minimum_cycles)
{
    __asm volatile(".syntax unified\n"
                   "1: subs %0, #3\n"
                   "bcs 1b\n"
                   : "+l"(minimum_cycles)
                   :
                   : "cc", "memory");
}

uint8_t rp2040_chip_version(void);
uint8_t rp2040_rom_version(void);
#endif

#endif
