/* ppb: the Cortex-M0+ private peripheral bus of the virtual Pico: SysTick, NVIC and SCB for
 * the CPU; DWT, the breakpoint unit, the debug registers and the ROM table for the debug
 * port only. Internal to sim/. */
#ifndef XB_PPB_H
#define XB_PPB_H

#include <stdint.h>

#include "cpu.h"

/* Maps the system control space (0xE000E000) on the CPU's bus. */
int ppb_init(xb_cpu *c);
/* Resets SysTick (disabled, cancelling its event). */
void ppb_reset(xb_cpu *c);

/* 1 when addr belongs to a register only the debug port sees (DWT, breakpoint unit,
 * SHCSR, DFSR, DHCSR, DCRSR, DCRDR, DEMCR, the ROM table). */
int ppb_debug_only(uint32_t addr);
/* Debug-port accesses to those registers (size must be 4; -1 otherwise). */
int ppb_debug_read(xb_cpu *c, uint32_t addr, unsigned size, uint32_t *value);
int ppb_debug_write(xb_cpu *c, uint32_t addr, unsigned size, uint32_t value);

/* Breakpoint unit: 1 if the instruction at pc matches an enabled comparator. */
int ppb_breakpoint_hit(const xb_cpu *c, uint32_t pc);

/* DWT_PCSR as the debug port reads it (0 while DEMCR.DWTENA is clear). */
uint32_t ppb_pcsr(const xb_cpu *c);

#endif
