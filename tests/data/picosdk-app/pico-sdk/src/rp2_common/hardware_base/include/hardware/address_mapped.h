/* Register access helpers, with the RP2040's atomic set/clear/xor register aliases. */
#ifndef _HARDWARE_ADDRESS_MAPPED_H
#define _HARDWARE_ADDRESS_MAPPED_H

#include "pico.h"

typedef volatile uint32_t io_rw_32;
typedef const volatile uint32_t io_ro_32;
typedef volatile uint32_t io_wo_32;
typedef volatile uint16_t io_rw_16;
typedef volatile uint8_t io_rw_8;

#define hw_alias_check_addr(addr) ((uintptr_t)(addr))
#define hw_set_alias_untyped(addr) ((void *)(REG_ALIAS_SET_BITS + hw_alias_check_addr(addr)))
#define hw_clear_alias_untyped(addr) ((void *)(REG_ALIAS_CLR_BITS + hw_alias_check_addr(addr)))
#define hw_xor_alias_untyped(addr) ((void *)(REG_ALIAS_XOR_BITS + hw_alias_check_addr(addr)))

#define REG32(addr) (*(io_rw_32 *)(addr))

static __force_inline void hw_set_bits(io_rw_32 *addr, uint32_t mask)
{
    *(io_rw_32 *)hw_set_alias_untyped((volatile void *)addr) = mask;
}

static __force_inline void hw_clear_bits(io_rw_32 *addr, uint32_t mask)
{
    *(io_rw_32 *)hw_clear_alias_untyped((volatile void *)addr) = mask;
}

static __force_inline void hw_xor_bits(io_rw_32 *addr, uint32_t mask)
{
    *(io_rw_32 *)hw_xor_alias_untyped((volatile void *)addr) = mask;
}

static __force_inline void hw_write_masked(io_rw_32 *addr, uint32_t values, uint32_t write_mask)
{
    hw_xor_bits(addr, (*addr ^ values) & write_mask);
}

#endif
