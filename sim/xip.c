/* xip: the virtual Pico's XIP block: flash aliases through the cache model, the XIP_CTRL
 * registers (CTRL, FLUSH, STAT, CTR_HIT/CTR_ACC, a minimal stream) and cache-as-SRAM. */
#include "xip.h"

#include <stdlib.h>
#include <string.h>

/* XIP_CTRL register offsets (RP2040 datasheet 2.6.4). */
enum {
	XIP_CTRL = 0x00,
	XIP_FLUSH = 0x04,
	XIP_STAT = 0x08,
	XIP_CTR_HIT = 0x0C,
	XIP_CTR_ACC = 0x10,
	XIP_STREAM_ADDR = 0x14,
	XIP_STREAM_CTR = 0x18,
	XIP_STREAM_FIFO = 0x1C,
};

typedef struct xip_alias_ctx {
	xb_xip *xip;
	int index;
} xip_alias_ctx;

int xip_flash_access(xb_cpu *c, uint32_t off, enum xb_alias_mode mode)
{
	/* With the cache off, every alias goes straight to flash (and still counts). */
	if (!c->xip_cache_on)
		mode = XB_ALIAS_UNCACHED_NOALLOC;
	return cache_access(c->cache, off, mode);
}

void xip_unanswered(xb_cpu *c, uint32_t off)
{
	if (c->cycles >= c->xip_dead_until)
		return;
	c->xip_unanswered++;
	if (c->xip_dead_reported)
		return;
	c->xip_dead_reported = 1;
	bus_log(c->bus,
		"%sXIP read of flash offset 0x%06x (pc 0x%08x, cycle %llu) while the flash cannot answer it: %s; "
		"on the chip this read returns garbage or stalls (the firmware runs flash code or "
		"reads flash data while the flash interface is not in XIP mode)",
		c->core ? "core 1: " : "", off, c->cur_pc,
		(unsigned long long)c->cycles, c->xip_dead);
}

static void xip_state_changed(xb_xip *x)
{
	xb_cpu *c = x->cpu;
	int powered = !(x->ctrl & XB_XIP_CTRL_POWER_DOWN);
	c->xip_cache_on = (x->ctrl & XB_XIP_CTRL_EN) && powered;
	c->xip_sram_on = !(x->ctrl & XB_XIP_CTRL_EN) && powered && x->sram;
	cpu_forget_region(c);
}

static void xip_start_flush(xb_xip *x)
{
	xb_cpu *c = x->cpu;
	cache_flush(c->cache);
	c->xip_busy_until = c->cycles + x->flush_cycles;
	cpu_forget_region(c); /* the next flash fetch waits for the flush */
}

/* ---- The flash aliases (debugger and generic path; the CPU has its own fast path) ---- */

static uint32_t xip_alias_read(void *ctx, uint32_t off, unsigned size)
{
	xip_alias_ctx *a = ctx;
	xb_cpu *c = a->xip->cpu;
	if (!bus_access_is_debug(c->bus)) {
		if (c->cycles < c->xip_busy_until)
			bus_stall(c->bus, (uint32_t)(c->xip_busy_until - c->cycles));
	}
	if (!xip_flash_access(c, off, c->xip_alias_mode[a->index]) &&
	    !bus_access_is_debug(c->bus)) {
		bus_stall(c->bus, c->miss_penalty);
		if (c->xip_dead)
			xip_unanswered(c, off);
	}
	uint32_t v = 0;
	memcpy(&v, c->flash + off, size);
	return v;
}

static void xip_alias_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
			    enum xb_alias_op op)
{
	(void)value;
	(void)size;
	(void)op;
	xip_alias_ctx *a = ctx;
	xb_xip *x = a->xip;
	if (x->cpu->xip_alias_mode[a->index] == XB_ALIAS_CACHED_ALLOC) {
		cache_invalidate(x->cpu->cache, off); /* flash itself is not written */
		return;
	}
	if (x->ctrl & XB_XIP_CTRL_ERR_BADWRITE)
		bus_error(x->bus);
}

static const xb_device_ops xip_alias_ops = {
	.read = xip_alias_read,
	.write = xip_alias_write,
	.flags = XB_DEV_BYTES,
};

/* ---- XIP_CTRL ---- */

static uint32_t xip_ctrl_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_xip *x = ctx;
	xb_cpu *c = x->cpu;
	switch (off) {
	case XIP_CTRL:
		return x->ctrl;
	case XIP_FLUSH:
		if (!x->has_flush) {
			bus_report_hole(x->bus);
			return 0;
		}
		/* A read holds the bus until the flush is done. */
		if (!bus_access_is_debug(x->bus) && c->cycles < c->xip_busy_until)
			bus_stall(x->bus, (uint32_t)(c->xip_busy_until - c->cycles));
		return 0;
	case XIP_STAT:
		return (c->cycles >= c->xip_busy_until ? 1u : 0) |
		       (x->stream_ctr == 0 ? 2u : 0);
	case XIP_CTR_HIT:
		return cache_ctr_hit(c->cache);
	case XIP_CTR_ACC:
		return cache_ctr_acc(c->cache);
	case XIP_STREAM_ADDR:
		return x->stream_addr;
	case XIP_STREAM_CTR:
		return x->stream_ctr;
	case XIP_STREAM_FIFO: {
		/* Minimal streaming: each read pops the next flash word while STREAM_CTR
		 * counts; the stream goes around the cache and is not counted. */
		if (x->stream_ctr == 0)
			return 0;
		uint32_t a = x->stream_addr & 0x00FFFFFCu, v = 0;
		if (a + 4 <= c->flash_size)
			memcpy(&v, c->flash + a, 4);
		if (!bus_access_is_debug(x->bus)) {
			x->stream_addr += 4;
			x->stream_ctr--;
		}
		return v;
	}
	default:
		bus_report_hole(x->bus);
		return 0;
	}
}

static void xip_ctrl_write(void *ctx, uint32_t off, uint32_t v, unsigned size,
			   enum xb_alias_op op)
{
	(void)size;
	(void)op;
	xb_xip *x = ctx;
	switch (off) {
	case XIP_CTRL:
		x->ctrl = v & (XB_XIP_CTRL_EN | XB_XIP_CTRL_ERR_BADWRITE | XB_XIP_CTRL_POWER_DOWN);
		if (x->ctrl & XB_XIP_CTRL_POWER_DOWN)
			x->ctrl &= ~XB_XIP_CTRL_EN;
		xip_state_changed(x);
		break;
	case XIP_FLUSH:
		if (!x->has_flush)
			bus_report_hole(x->bus); /* a target without a FLUSH register */
		else if (v & 1)
			xip_start_flush(x);
		break;
	case XIP_CTR_HIT:
		cache_clear_ctr_hit(x->cpu->cache);
		break;
	case XIP_CTR_ACC:
		cache_clear_ctr_acc(x->cpu->cache);
		break;
	case XIP_STREAM_ADDR:
		x->stream_addr = v & ~3u;
		break;
	case XIP_STREAM_CTR:
		x->stream_ctr = v & 0x3FFFFF;
		break;
	case XIP_STAT:
	case XIP_STREAM_FIFO:
		break; /* read-only */
	default:
		bus_report_hole(x->bus);
		break;
	}
}

static const xb_device_ops xip_ctrl_ops = {
	.read = xip_ctrl_read,
	.write = xip_ctrl_write,
};

/* ---- Cache as SRAM ---- */

static uint32_t xip_sram_read(void *ctx, uint32_t off, unsigned size)
{
	xb_xip *x = ctx;
	if (!x->cpu->xip_sram_on) { /* cache on or powered down: bus error */
		bus_error(x->bus);
		return 0;
	}
	uint32_t v = 0;
	memcpy(&v, x->sram + off, size);
	return v;
}

static void xip_sram_write(void *ctx, uint32_t off, uint32_t v, unsigned size,
			   enum xb_alias_op op)
{
	(void)op;
	xb_xip *x = ctx;
	if (!x->cpu->xip_sram_on) {
		bus_error(x->bus);
		return;
	}
	memcpy(x->sram + off, &v, size);
}

static const xb_device_ops xip_sram_ops = {
	.read = xip_sram_read,
	.write = xip_sram_write,
	.flags = XB_DEV_BYTES,
};

int xip_init(xb_xip *x, xb_cpu *c, const xb_target *t, xb_err *err)
{
	memset(x, 0, sizeof *x);
	x->cpu = c;
	x->bus = c->bus;
	x->flush_cycles = t->flush_cycles;
	static const char *names[4] = {"XIP (cached)", "XIP (no allocate)", "XIP (no cache check)",
				       "XIP (uncached)"};
	for (int i = 0; i < c->xip_naliases; i++) {
		xip_alias_ctx *a = xcalloc(1, sizeof *a);
		a->xip = x;
		a->index = i;
		x->alias_ctx[i] = a;
		if (bus_map(c->bus, c->xip_alias_base[i], c->flash_size, names[c->xip_alias_mode[i] & 3],
			    &xip_alias_ops, a))
			return xb_fail(err, "target %s: flash alias at 0x%08x overlaps another region",
				       t->name, c->xip_alias_base[i]);
	}
	if (t->reg_ctrl) {
		x->ctrl_base = t->reg_ctrl & ~0xFFFu;
		x->has_flush = t->reg_flush != 0;
		if (bus_map(c->bus, x->ctrl_base, 0x20, "XIP_CTRL", &xip_ctrl_ops, x))
			return xb_fail(err, "target %s: XIP_CTRL at 0x%08x overlaps another region",
				       t->name, x->ctrl_base);
	}
	if (t->cache_sram_base) {
		x->sram_base = t->cache_sram_base;
		x->sram_size = t->cache.size;
		x->sram = xcalloc(1, x->sram_size);
		if (bus_map(c->bus, x->sram_base, x->sram_size, "XIP cache as SRAM", &xip_sram_ops,
			    x))
			return xb_fail(err, "target %s: cache-as-SRAM at 0x%08x overlaps another region",
				       t->name, x->sram_base);
		c->xip_sram = x->sram;
		c->xip_sram_base = x->sram_base;
		c->xip_sram_size = x->sram_size;
	}
	xip_reset(x);
	return 0;
}

void xip_free(xb_xip *x)
{
	for (int i = 0; i < XB_TARGET_MAX_ALIASES; i++)
		free(x->alias_ctx[i]);
	free(x->sram);
	memset(x, 0, sizeof *x);
}

void xip_reset(xb_xip *x)
{
	x->ctrl = XB_XIP_CTRL_EN | XB_XIP_CTRL_ERR_BADWRITE;
	x->stream_addr = 0;
	x->stream_ctr = 0;
	xip_state_changed(x);
	/* Reset flushes the cache; on the chip the bootrom and boot2 run far longer than the
	 * flush, so nothing waits for it here. */
	cache_flush(x->cpu->cache);
	x->cpu->xip_busy_until = 0;
}
