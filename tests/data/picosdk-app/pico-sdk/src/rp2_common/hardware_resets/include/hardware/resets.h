/* Peripheral resets (RESETS block). */
#ifndef _HARDWARE_RESETS_H
#define _HARDWARE_RESETS_H

#include "pico.h"
#include "hardware/address_mapped.h"

#define RESETS_RESET_OFFSET 0x0
#define RESETS_RESET_DONE_OFFSET 0x8

#define RESET_ADC 0
#define RESET_IO_BANK0 5
#define RESET_PADS_BANK0 8
#define RESET_PLL_SYS 12
#define RESET_PLL_USB 13
#define RESET_TIMER 21
#define RESET_UART0 22
#define RESET_UART1 23
#define RESET_USBCTRL 24

static inline void reset_block(uint32_t bits)
{
    hw_set_bits(&REG32(RESETS_BASE + RESETS_RESET_OFFSET), bits);
}

static inline void unreset_block(uint32_t bits)
{
    hw_clear_bits(&REG32(RESETS_BASE + RESETS_RESET_OFFSET), bits);
}

static inline void unreset_block_wait(uint32_t bits)
{
    hw_clear_bits(&REG32(RESETS_BASE + RESETS_RESET_OFFSET), bits);
    while (~REG32(RESETS_BASE + RESETS_RESET_DONE_OFFSET) & bits)
        __compiler_memory_barrier();
}

static inline void reset_unreset_block_num_wait_blocking(uint block_num)
{
    reset_block(1u << block_num);
    unreset_block_wait(1u << block_num);
}

#endif
