/* xip: the XIP block of the virtual Pico: flash behind the four aliases through the cache
 * model, XIP_CTRL (counters, flush, stream) and the cache-as-SRAM window. Internal to sim/;
 * the CPU reads flash through its own fast path and the same rules (cpu_exec.c). */
#ifndef XB_XIP_H
#define XB_XIP_H

#include <stdint.h>

#include "../core/target.h"
#include "cpu.h"

/* XIP_CTRL.CTRL bits (RP2040 datasheet 2.6.3). */
#define XB_XIP_CTRL_EN 0x1u
#define XB_XIP_CTRL_ERR_BADWRITE 0x2u
#define XB_XIP_CTRL_POWER_DOWN 0x8u

typedef struct xb_xip {
	xb_cpu *cpu;
	xb_bus *bus;
	uint32_t ctrl;
	uint32_t stream_addr, stream_ctr;
	uint32_t flush_cycles;
	uint32_t ctrl_base;     /* XIP_CTRL block, 0 when the target has none */
	int has_flush;          /* the target has a FLUSH register (RP2040); else offset 0x04
	                         * is a hole, as on the RP2350 */
	uint32_t sram_base;     /* cache-as-SRAM window, 0 when none */
	uint32_t sram_size;
	uint8_t *sram;          /* the cache's data RAM seen as SRAM */
	void *alias_ctx[XB_TARGET_MAX_ALIASES];
} xb_xip;

/* Maps the flash aliases, XIP_CTRL and the cache-as-SRAM window on the CPU's bus. The CPU
 * must already hold the flash, cache and alias layout. */
int xip_init(xb_xip *x, xb_cpu *c, const xb_target *t, xb_err *err);
void xip_free(xb_xip *x);
/* XIP block reset: CTRL = 0x3, cache flushed (at once), stream idle; counters kept. */
void xip_reset(xb_xip *x);

/* One access to flash offset off through an alias of mode: the cache look-up the current
 * XIP_CTRL state implies, counters included. Returns 1 on a hit. */
int xip_flash_access(xb_cpu *c, uint32_t off, enum xb_alias_mode mode);
/* A read of flash offset off went past the cache (a miss, or an uncached alias) while
 * c->xip_dead says the flash cannot answer: counted, and the first one of each such
 * period reported. On the chip the read returns what the bus happens to hold or stalls;
 * here it returns the flash's contents, so that the run can go on and say so. */
void xip_unanswered(xb_cpu *c, uint32_t off);

#endif
