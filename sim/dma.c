/* dma: the RP2040's DMA controller on the virtual Pico (datasheet 2.5): 12 channels moving
 * data through the bus in virtual time, paced by DREQs, the four pacing timers or nothing;
 * chaining, the register aliases and their triggers, interrupts, the sniffer (CRC-32,
 * CRC-16-CCITT, parity, sum), aborts and the debug registers. */
#include <stdlib.h>

#include "periph.h"

#define DMA_CHANNELS 12
#define DMA_TIMERS 4
#define DMA_CH_STRIDE 0x40u
#define DMA_DBG_BASE 0x800u

enum {
	DMA_INTR = 0x400,
	DMA_INTE0 = 0x404,
	DMA_INTF0 = 0x408,
	DMA_INTS0 = 0x40C,
	DMA_INTE1 = 0x414,
	DMA_INTF1 = 0x418,
	DMA_INTS1 = 0x41C,
	DMA_TIMER0 = 0x420,
	DMA_TIMER3 = 0x42C,
	DMA_MULTI_CHAN_TRIGGER = 0x430,
	DMA_SNIFF_CTRL = 0x434,
	DMA_SNIFF_DATA = 0x438,
	DMA_FIFO_LEVELS = 0x440,
	DMA_CHAN_ABORT = 0x444,
	DMA_N_CHANNELS = 0x448,
};

/* CTRL (datasheet 2.5.7, CH0_CTRL_TRIG). */
#define DMA_CTRL_EN 0x1u
#define DMA_CTRL_HIGH_PRIORITY 0x2u
#define DMA_CTRL_DATA_SIZE_SHIFT 2
#define DMA_CTRL_INCR_READ 0x10u
#define DMA_CTRL_INCR_WRITE 0x20u
#define DMA_CTRL_RING_SIZE_SHIFT 6
#define DMA_CTRL_RING_SEL 0x400u
#define DMA_CTRL_CHAIN_TO_SHIFT 11
#define DMA_CTRL_TREQ_SHIFT 15
#define DMA_CTRL_IRQ_QUIET 0x200000u
#define DMA_CTRL_BSWAP 0x400000u
#define DMA_CTRL_SNIFF_EN 0x800000u
#define DMA_CTRL_RW_MASK 0x00FFFFFFu
#define DMA_CTRL_BUSY 0x01000000u
#define DMA_CTRL_WRITE_ERROR 0x20000000u
#define DMA_CTRL_READ_ERROR 0x40000000u
#define DMA_CTRL_AHB_ERROR 0x80000000u

#define DMA_TREQ_TIMER0 0x3Bu
#define DMA_TREQ_PERMANENT 0x3Fu
/* The channel's DREQ counter is 6 bits (CH0_DBG_CTDREQ). */
#define DMA_CREDIT_MAX 63u

#define DMA_SNIFF_EN 0x1u
#define DMA_SNIFF_BSWAP 0x200u
#define DMA_SNIFF_OUT_REV 0x400u
#define DMA_SNIFF_OUT_INV 0x800u
#define DMA_SNIFF_MASK 0xFFFu

enum { SNIFF_CRC32 = 0x0, SNIFF_CRC32R = 0x1, SNIFF_CRC16 = 0x2, SNIFF_CRC16R = 0x3,
       SNIFF_EVEN = 0xE, SNIFF_SUM = 0xF };

/* The register a channel-block word is (datasheet 2.5.2.1, the alias layouts): low two
 * bits the register (0 READ_ADDR, 1 WRITE_ADDR, 2 TRANS_COUNT, 3 CTRL), bit 2 a trigger. */
enum { R_READ = 0, R_WRITE = 1, R_COUNT = 2, R_CTRL = 3, R_TRIG = 4 };
static const uint8_t dma_alias_map[16] = {
	R_READ, R_WRITE, R_COUNT, R_CTRL | R_TRIG,  /* READ_ADDR WRITE_ADDR TRANS_COUNT CTRL_TRIG */
	R_CTRL, R_READ, R_WRITE, R_COUNT | R_TRIG,  /* AL1: CTRL READ WRITE TRANS_COUNT_TRIG */
	R_CTRL, R_COUNT, R_READ, R_WRITE | R_TRIG,  /* AL2: CTRL TRANS_COUNT READ WRITE_TRIG */
	R_CTRL, R_WRITE, R_COUNT, R_READ | R_TRIG,  /* AL3: CTRL WRITE TRANS_COUNT READ_TRIG */
};

typedef struct dma_channel {
	uint32_t read_addr, write_addr;
	uint32_t count;  /* the live transfer counter */
	uint32_t reload; /* TRANS_COUNT as last written (DBG_TCR) */
	uint32_t ctrl;   /* the read/write bits 23:0 */
	uint32_t errors; /* READ_ERROR | WRITE_ERROR */
	int busy;
	/* Pulse-paced channels (timers, PWM wraps): the pulses of the source this channel
	 * has used, in the source's count; transfers may happen while count > used. */
	int64_t used;
} dma_channel;

typedef struct dma_pulse_source {
	const xb_dreq_pulse_ops *ops;
	void *ctx;
} dma_pulse_source;

struct xb_dma {
	xb_board *board;
	dma_channel ch[DMA_CHANNELS];
	uint32_t intr, inte[2], intf[2];
	int irq_level[2];
	/* Pacing timers: X/Y per clk_sys cycle since timer_base (the last write). */
	uint32_t timer[DMA_TIMERS];
	uint64_t timer_base[DMA_TIMERS];
	uint32_t sniff_ctrl, sniff_data;
	uint8_t line[XB_DREQ_COUNT];     /* level DREQs as the devices last set them */
	uint8_t driven[XB_DREQ_COUNT];   /* a device ever reported this line */
	uint8_t reported[XB_DREQ_COUNT]; /* "nothing drives DREQ n" said once */
	dma_pulse_source pulse[XB_DREQ_COUNT];
	/* The engine: the cycle at which it can issue its next transfer, and its event. */
	uint64_t free_at, event_id, event_at;
	unsigned rr; /* round robin: the channel served last */
};

static unsigned dma_treq(const dma_channel *c)
{
	return (c->ctrl >> DMA_CTRL_TREQ_SHIFT) & 0x3F;
}

static unsigned dma_chain_to(const dma_channel *c)
{
	return (c->ctrl >> DMA_CTRL_CHAIN_TO_SHIFT) & 0xF;
}

/* ---- Interrupts ---- */

static uint32_t dma_ints(const xb_dma *d, unsigned i)
{
	return ((d->intr & d->inte[i]) | d->intf[i]) & 0xFFFF;
}

static void dma_update_irq(xb_dma *d)
{
	for (unsigned i = 0; i < 2; i++) {
		int level = dma_ints(d, i) != 0;
		if (level != d->irq_level[i]) {
			d->irq_level[i] = level;
			board_irq_set(d->board, XB_IRQ_DMA_0 + i, level);
		}
	}
}

/* ---- Pacing: timers and pulse sources ---- */

/* Pulses pacing timer k has produced up to cycle t: floor(elapsed * X / Y), at most one per
 * cycle (datasheet 2.5.5.1); none with X or Y zero (the reset value). */
static int64_t dma_timer_pulses(const xb_dma *d, unsigned k, uint64_t t)
{
	uint32_t x = d->timer[k] >> 16, y = d->timer[k] & 0xFFFF;
	if (!x || !y || t < d->timer_base[k])
		return 0;
	uint64_t elapsed = t - d->timer_base[k];
	if (x >= y)
		return (int64_t)elapsed;
	return (int64_t)periph_muldiv(elapsed, x, y);
}

/* The cycle at which timer k's count reaches n (n >= 1). */
static uint64_t dma_timer_cycle(const xb_dma *d, unsigned k, int64_t n)
{
	uint32_t x = d->timer[k] >> 16, y = d->timer[k] & 0xFFFF;
	if (!x || !y)
		return UINT64_MAX;
	if (n <= 0)
		return d->timer_base[k];
	if (x >= y)
		return d->timer_base[k] + (uint64_t)n;
	return d->timer_base[k] + periph_muldiv_ceil((uint64_t)n, y, x);
}

/* 1 when treq is counted in pulses (timers, registered pulse sources). */
static int dma_treq_pulsed(const xb_dma *d, unsigned treq)
{
	if (treq >= DMA_TREQ_TIMER0 && treq < DMA_TREQ_PERMANENT)
		return 1;
	return treq < XB_DREQ_COUNT && d->pulse[treq].ops != NULL;
}

static int64_t dma_pulses_now(const xb_dma *d, unsigned treq)
{
	if (treq >= DMA_TREQ_TIMER0)
		return dma_timer_pulses(d, treq - DMA_TREQ_TIMER0, board_cycles(d->board));
	return (int64_t)d->pulse[treq].ops->count(d->pulse[treq].ctx);
}

/* The cycle at which a pulse-paced channel may make its next transfer. */
static uint64_t dma_pulse_cycle(const xb_dma *d, const dma_channel *c)
{
	unsigned treq = dma_treq(c);
	if (treq >= DMA_TREQ_TIMER0)
		return dma_timer_cycle(d, treq - DMA_TREQ_TIMER0, c->used + 1);
	const dma_pulse_source *s = &d->pulse[treq];
	return s->ops->cycle_of(s->ctx, (uint64_t)(c->used < 0 ? 0 : c->used) + 1);
}

/* The channel's DREQ counter holds at most 63 unused pulses. */
static void dma_clamp_credit(const xb_dma *d, dma_channel *c)
{
	int64_t now = dma_pulses_now(d, dma_treq(c));
	if (now - c->used > (int64_t)DMA_CREDIT_MAX)
		c->used = now - DMA_CREDIT_MAX;
}

/* 1 if channel n could issue a transfer at cycle t (t <= now). */
static int dma_ready(xb_dma *d, unsigned n, uint64_t t)
{
	dma_channel *c = &d->ch[n];
	if (!c->busy || !(c->ctrl & DMA_CTRL_EN))
		return 0;
	unsigned treq = dma_treq(c);
	if (treq == DMA_TREQ_PERMANENT || c->count == 0)
		return 1;
	if (dma_treq_pulsed(d, treq))
		return dma_pulse_cycle(d, c) <= t;
	return d->line[treq];
}

/* ---- The engine ---- */

static void dma_event(xb_board *b, void *ctx);

/* Schedules the engine's next event: at once when a channel can transfer now, at the next
 * pulse of a pulse-paced channel, or not at all (level DREQs call back). */
static void dma_kick(xb_dma *d)
{
	uint64_t now = board_cycles(d->board);
	uint64_t next = UINT64_MAX;
	for (unsigned n = 0; n < DMA_CHANNELS; n++) {
		dma_channel *c = &d->ch[n];
		if (!c->busy || !(c->ctrl & DMA_CTRL_EN))
			continue;
		uint64_t at;
		if (c->count && dma_treq_pulsed(d, dma_treq(c)))
			at = dma_pulse_cycle(d, c);
		else
			at = dma_ready(d, n, now) ? now : UINT64_MAX;
		if (at < next)
			next = at;
	}
	if (next != UINT64_MAX && next < d->free_at)
		next = d->free_at;
	if (next != UINT64_MAX && next < now)
		next = now;
	if (d->event_id) {
		if (next == d->event_at)
			return;
		board_cancel(d->board, d->event_id);
		d->event_id = 0;
	}
	if (next == UINT64_MAX)
		return;
	d->event_at = next;
	d->event_id = board_schedule(d->board, next, dma_event, d);
}

/* Starts channel n if it is enabled and idle (a trigger, a chain, MULTI_CHAN_TRIGGER). */
static void dma_complete(xb_dma *d, unsigned n);

static void dma_trigger(xb_dma *d, unsigned n)
{
	dma_channel *c = &d->ch[n];
	if (!(c->ctrl & DMA_CTRL_EN) || c->busy)
		return;
	c->busy = 1;
	c->count = c->reload;
	unsigned treq = dma_treq(c);
	if (dma_treq_pulsed(d, treq))
		c->used = dma_pulses_now(d, treq); /* a fresh handshake: wait for the next pulse */
	else if (treq < DMA_TREQ_TIMER0 && !d->driven[treq] && !d->reported[treq]) {
		d->reported[treq] = 1;
		bus_log(board_bus(d->board),
			"DMA channel %u waits for DREQ %u, which no modelled block drives", n, treq);
	}
	/* With nothing to move the channel still completes through the engine (a cycle
	 * later), so a loop of empty chained sequences keeps the DMA busy rather than
	 * spinning in no time. */
	dma_kick(d);
}

/* The end of a transfer sequence: BUSY falls, the IRQ flag rises (unless IRQ_QUIET) and
 * CHAIN_TO is triggered (datasheet 2.5.2.2, 2.5.4). */
static void dma_complete(xb_dma *d, unsigned n)
{
	dma_channel *c = &d->ch[n];
	c->busy = 0;
	if (!(c->ctrl & DMA_CTRL_IRQ_QUIET)) {
		d->intr |= 1u << n;
		dma_update_irq(d);
	}
	unsigned to = dma_chain_to(c);
	if (to != n && to < DMA_CHANNELS)
		dma_trigger(d, to);
}

/* A bus error stops the channel and raises its IRQ flag whatever IRQ_QUIET says. */
static void dma_error(xb_dma *d, unsigned n, uint32_t flag, uint32_t addr)
{
	dma_channel *c = &d->ch[n];
	c->errors |= flag;
	c->busy = 0;
	d->intr |= 1u << n;
	dma_update_irq(d);
	bus_log(board_bus(d->board), "DMA channel %u: %s bus error at 0x%08x", n,
		flag == DMA_CTRL_READ_ERROR ? "read" : "write", addr);
}

/* Bus cycles of one DMA access: the DMA's masters issue one read and one write per cycle
 * (datasheet 2.5) to SRAM, ROM, XIP and AHB devices; an APB access adds the bridge's wait
 * states (bus.h's table less the core's own cycle); XIP misses add their stall. */
static int dma_access(xb_dma *d, uint32_t addr, unsigned size, uint32_t *v, int write,
		      unsigned *cost)
{
	unsigned top = addr >> 28;
	/* The SIO and the Cortex-M0+ private bus are the processors' own (datasheet 2.1). */
	if ((addr & (size - 1)) || top == 0xD || top == 0xE)
		return -1;
	xb_bus *bus = board_bus(d->board);
	uint32_t held = bus_take_stall(bus);
	int rc = write ? bus_write(bus, addr, size, *v) : bus_read(bus, addr, size, v);
	unsigned c = bus_timing(addr, write) - 1 + bus_take_stall(bus);
	if (held)
		bus_stall(bus, held);
	if (c > *cost)
		*cost = c;
	return rc;
}

static uint32_t dma_bswap(uint32_t v, unsigned size)
{
	if (size == 2)
		return ((v & 0xFF) << 8) | ((v >> 8) & 0xFF);
	if (size == 4)
		return (v >> 24) | ((v >> 8) & 0xFF00) | ((v << 8) & 0xFF0000) | (v << 24);
	return v;
}

/* The sniffer sees each item the observed channel reads, after the channel's byte swap
 * (datasheet 2.5.5.2). CRCs shift data in most significant bit first; the "bit reversed"
 * modes reverse the item's bits before (so CRC32R over bytes or words is the reflected
 * CRC-32 of the memory bytes, as in zlib once OUT_REV and OUT_INV are applied). */
static void dma_sniff(xb_dma *d, uint32_t data, unsigned size)
{
	unsigned bits = size * 8;
	if (d->sniff_ctrl & DMA_SNIFF_BSWAP)
		data = dma_bswap(data, size);
	uint32_t acc = d->sniff_data;
	switch ((d->sniff_ctrl >> 5) & 0xF) {
	case SNIFF_CRC32R:
		data = periph_bitrev(data) >> (32 - bits);
		/* fall through */
	case SNIFF_CRC32:
		for (unsigned i = bits; i-- > 0;) {
			uint32_t top = (acc >> 31) ^ ((data >> i) & 1u);
			acc <<= 1;
			if (top)
				acc ^= 0x04C11DB7u;
		}
		break;
	case SNIFF_CRC16R:
		data = periph_bitrev(data) >> (32 - bits);
		/* fall through */
	case SNIFF_CRC16:
		acc &= 0xFFFF;
		for (unsigned i = bits; i-- > 0;) {
			uint32_t top = ((acc >> 15) ^ (data >> i)) & 1u;
			acc = (acc << 1) & 0xFFFF;
			if (top)
				acc ^= 0x1021u;
		}
		break;
	case SNIFF_EVEN:
		acc ^= (uint32_t)__builtin_parity(data);
		break;
	case SNIFF_SUM:
		acc += data;
		break;
	default:
		return; /* reserved CALC values leave the accumulator alone */
	}
	d->sniff_data = acc;
}

static uint32_t dma_ring_step(uint32_t addr, unsigned size, unsigned ring)
{
	if (!ring)
		return addr + size;
	uint32_t mask = (1u << ring) - 1;
	return (addr & ~mask) | ((addr + size) & mask);
}

/* One transfer of channel n: read, swap, sniff, write, advance; returns its bus cycles. */
static unsigned dma_transfer(xb_dma *d, unsigned n)
{
	dma_channel *c = &d->ch[n];
	unsigned dsize = (c->ctrl >> DMA_CTRL_DATA_SIZE_SHIFT) & 3;
	unsigned size = dsize == 0 ? 1 : dsize == 1 ? 2 : 4; /* 3 is reserved: words */
	unsigned ring = (c->ctrl >> DMA_CTRL_RING_SIZE_SHIFT) & 0xF;
	int ring_write = (c->ctrl & DMA_CTRL_RING_SEL) != 0;
	unsigned cost = 1;
	if (c->count == 0) {
		dma_complete(d, n); /* an empty sequence */
		return cost;
	}
	unsigned treq = dma_treq(c);
	if (dma_treq_pulsed(d, treq)) {
		dma_clamp_credit(d, c);
		c->used++;
	}
	d->rr = n;
	uint32_t v = 0;
	if (dma_access(d, c->read_addr, size, &v, 0, &cost)) {
		dma_error(d, n, DMA_CTRL_READ_ERROR, c->read_addr);
		return cost;
	}
	if (c->ctrl & DMA_CTRL_BSWAP)
		v = dma_bswap(v, size);
	if ((d->sniff_ctrl & DMA_SNIFF_EN) && ((d->sniff_ctrl >> 1) & 0xF) == n &&
	    (c->ctrl & DMA_CTRL_SNIFF_EN))
		dma_sniff(d, v, size);
	if (c->ctrl & DMA_CTRL_INCR_READ)
		c->read_addr = dma_ring_step(c->read_addr, size, ring_write ? 0 : ring);
	if (dma_access(d, c->write_addr, size, &v, 1, &cost)) {
		dma_error(d, n, DMA_CTRL_WRITE_ERROR, c->write_addr);
		return cost;
	}
	if (c->ctrl & DMA_CTRL_INCR_WRITE)
		c->write_addr = dma_ring_step(c->write_addr, size, ring_write ? ring : 0);
	if (--c->count == 0)
		dma_complete(d, n);
	return cost;
}

/* Arbitration (CTRL.HIGH_PRIORITY, datasheet 2.5.7): channels that can transfer are served
 * round robin, high-priority ones before the others. */
static int dma_pick(xb_dma *d, uint64_t t)
{
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 1; i <= DMA_CHANNELS; i++) {
			unsigned n = (d->rr + i) % DMA_CHANNELS;
			int high = (d->ch[n].ctrl & DMA_CTRL_HIGH_PRIORITY) != 0;
			if (high == (pass == 0) && dma_ready(d, n, t))
				return (int)n;
		}
	}
	return -1;
}

/* Transfers run at the engine's pace from the event's cycle, catching up to now (events
 * run at instruction boundaries), then the engine waits for the next one. */
static void dma_event(xb_board *b, void *ctx)
{
	xb_dma *d = ctx;
	d->event_id = 0;
	uint64_t now = board_cycles(b);
	uint64_t t = d->event_at > d->free_at ? d->event_at : d->free_at;
	while (t <= now) {
		int n = dma_pick(d, t);
		if (n < 0)
			break;
		t += dma_transfer(d, (unsigned)n);
		d->free_at = t;
	}
	dma_kick(d);
}

/* ---- DREQ inputs ---- */

void dma_dreq_line(void *ctx, unsigned dreq, int level)
{
	xb_dma *d = ctx;
	if (dreq >= XB_DREQ_COUNT)
		return;
	d->driven[dreq] = 1;
	int was = d->line[dreq];
	d->line[dreq] = level != 0;
	if (level && !was)
		dma_kick(d);
}

void dma_dreq_pulse_source(xb_dma *d, unsigned dreq, const xb_dreq_pulse_ops *ops, void *ctx)
{
	if (dreq >= DMA_TREQ_TIMER0)
		return;
	d->pulse[dreq] = (dma_pulse_source){ops, ctx};
	d->driven[dreq] = 1;
}

void dma_dreq_changed(xb_dma *d)
{
	dma_kick(d);
}

/* ---- Registers ---- */

static uint32_t dma_ctrl_read(const dma_channel *c)
{
	uint32_t v = c->ctrl | c->errors;
	if (c->busy)
		v |= DMA_CTRL_BUSY;
	if (c->errors)
		v |= DMA_CTRL_AHB_ERROR;
	return v;
}

static uint32_t dma_reg_read(const dma_channel *c, unsigned reg)
{
	switch (reg) {
	case R_READ: return c->read_addr;
	case R_WRITE: return c->write_addr;
	case R_COUNT: return c->count;
	default: return dma_ctrl_read(c);
	}
}

/* CHx_DBG_CTDREQ: the transfers the channel expects it may make now. */
static uint32_t dma_ctdreq(const xb_dma *d, const dma_channel *c)
{
	unsigned treq = dma_treq(c);
	if (treq == DMA_TREQ_PERMANENT)
		return 0;
	if (dma_treq_pulsed(d, treq)) {
		int64_t k = dma_pulses_now(d, treq) - c->used;
		return k <= 0 ? 0 : k > DMA_CREDIT_MAX ? DMA_CREDIT_MAX : (uint32_t)k;
	}
	return d->line[treq];
}

static uint32_t dma_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_dma *d = ctx;
	if (off < DMA_CHANNELS * DMA_CH_STRIDE) {
		const dma_channel *c = &d->ch[off / DMA_CH_STRIDE];
		return dma_reg_read(c, dma_alias_map[(off % DMA_CH_STRIDE) / 4] & 3);
	}
	if (off >= DMA_DBG_BASE && off < DMA_DBG_BASE + DMA_CHANNELS * DMA_CH_STRIDE) {
		const dma_channel *c = &d->ch[(off - DMA_DBG_BASE) / DMA_CH_STRIDE];
		switch ((off - DMA_DBG_BASE) % DMA_CH_STRIDE) {
		case 0: return dma_ctdreq(d, c);
		case 4: return c->reload;
		}
	}
	if (off >= DMA_TIMER0 && off <= DMA_TIMER3)
		return d->timer[(off - DMA_TIMER0) / 4];
	switch (off) {
	case DMA_INTR: return d->intr;
	case DMA_INTE0: return d->inte[0];
	case DMA_INTF0: return d->intf[0];
	case DMA_INTS0: return dma_ints(d, 0);
	case DMA_INTE1: return d->inte[1];
	case DMA_INTF1: return d->intf[1];
	case DMA_INTS1: return dma_ints(d, 1);
	case DMA_MULTI_CHAN_TRIGGER: return 0;
	case DMA_SNIFF_CTRL: return d->sniff_ctrl;
	case DMA_SNIFF_DATA: {
		uint32_t v = d->sniff_data;
		if (d->sniff_ctrl & DMA_SNIFF_OUT_REV)
			v = periph_bitrev(v);
		if (d->sniff_ctrl & DMA_SNIFF_OUT_INV)
			v = ~v;
		return v;
	}
	case DMA_FIFO_LEVELS: return 0; /* transfers are never left in flight */
	case DMA_CHAN_ABORT: return 0;  /* an abort completes at once */
	case DMA_N_CHANNELS: return DMA_CHANNELS;
	}
	bus_report_hole(board_bus(d->board));
	return 0;
}

/* A write to one of channel n's sixteen words (the register and its aliases). */
static void dma_channel_write(xb_dma *d, unsigned n, unsigned word, uint32_t value,
			      enum xb_alias_op op)
{
	dma_channel *c = &d->ch[n];
	unsigned reg = dma_alias_map[word] & 3;
	int trig = (dma_alias_map[word] & R_TRIG) != 0;
	uint32_t nv = bus_alias_apply(dma_reg_read(c, reg), value, op);
	switch (reg) {
	case R_READ:
		c->read_addr = nv;
		break;
	case R_WRITE:
		c->write_addr = nv;
		break;
	case R_COUNT:
		c->reload = nv; /* the live counter takes it at the next trigger */
		break;
	case R_CTRL: {
		int was_en = (c->ctrl & DMA_CTRL_EN) != 0;
		c->errors = periph_wc(c->errors, value & (DMA_CTRL_READ_ERROR | DMA_CTRL_WRITE_ERROR));
		c->ctrl = nv & DMA_CTRL_RW_MASK;
		nv &= DMA_CTRL_RW_MASK;
		if (!was_en && (c->ctrl & DMA_CTRL_EN) && c->busy)
			dma_kick(d); /* a paused channel resumes */
		break;
	}
	}
	if (!trig)
		return;
	if (nv == 0) {
		/* A null trigger ends a control-block chain: with IRQ_QUIET it raises the IRQ
		 * (datasheet 2.5.4). */
		if (c->ctrl & DMA_CTRL_IRQ_QUIET) {
			d->intr |= 1u << n;
			dma_update_irq(d);
		}
		return;
	}
	dma_trigger(d, n);
}

static void dma_timer_write(xb_dma *d, unsigned k, uint32_t value)
{
	uint64_t now = board_cycles(d->board);
	unsigned treq = DMA_TREQ_TIMER0 + k;
	/* Keep each channel's unused pulses across the restart of the fraction. */
	int64_t owed[DMA_CHANNELS];
	for (unsigned n = 0; n < DMA_CHANNELS; n++)
		owed[n] = dma_timer_pulses(d, k, now) - d->ch[n].used;
	d->timer[k] = value;
	d->timer_base[k] = now;
	for (unsigned n = 0; n < DMA_CHANNELS; n++) {
		if (dma_treq(&d->ch[n]) != treq)
			continue;
		int64_t o = owed[n] < 0 ? 0 : owed[n] > DMA_CREDIT_MAX ? DMA_CREDIT_MAX : owed[n];
		d->ch[n].used = -o;
	}
	dma_kick(d);
}

static void dma_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		      enum xb_alias_op op)
{
	(void)size;
	xb_dma *d = ctx;
	if (off < DMA_CHANNELS * DMA_CH_STRIDE) {
		dma_channel_write(d, off / DMA_CH_STRIDE, (off % DMA_CH_STRIDE) / 4, value, op);
		return;
	}
	if (off >= DMA_DBG_BASE && off < DMA_DBG_BASE + DMA_CHANNELS * DMA_CH_STRIDE) {
		dma_channel *c = &d->ch[(off - DMA_DBG_BASE) / DMA_CH_STRIDE];
		unsigned reg = (off - DMA_DBG_BASE) % DMA_CH_STRIDE;
		if (reg == 0) {
			/* Any write clears the DREQ counter and restarts the handshake. */
			unsigned treq = dma_treq(c);
			if (dma_treq_pulsed(d, treq))
				c->used = dma_pulses_now(d, treq);
			dma_kick(d);
			return;
		}
		if (reg == 4)
			return; /* DBG_TCR is read-only */
	}
	if (off >= DMA_TIMER0 && off <= DMA_TIMER3) {
		unsigned k = (off - DMA_TIMER0) / 4;
		dma_timer_write(d, k, bus_alias_apply(d->timer[k], value, op));
		return;
	}
	switch (off) {
	case DMA_INTR:
	case DMA_INTS0:
	case DMA_INTS1:
		d->intr = periph_wc(d->intr, value & 0xFFFF);
		break;
	case DMA_INTE0: d->inte[0] = periph_rw(d->inte[0], value, op, 0xFFFF); break;
	case DMA_INTF0: d->intf[0] = periph_rw(d->intf[0], value, op, 0xFFFF); break;
	case DMA_INTE1: d->inte[1] = periph_rw(d->inte[1], value, op, 0xFFFF); break;
	case DMA_INTF1: d->intf[1] = periph_rw(d->intf[1], value, op, 0xFFFF); break;
	case DMA_MULTI_CHAN_TRIGGER:
		for (unsigned n = 0; n < DMA_CHANNELS; n++)
			if ((value >> n) & 1)
				dma_trigger(d, n);
		return;
	case DMA_SNIFF_CTRL:
		d->sniff_ctrl = periph_rw(d->sniff_ctrl, value, op, DMA_SNIFF_MASK);
		return;
	case DMA_SNIFF_DATA:
		d->sniff_data = bus_alias_apply(d->sniff_data, value, op);
		return;
	case DMA_CHAN_ABORT:
		/* Nothing is ever in flight, so the abort is done when the write is: no IRQ, no
		 * chain (erratum RP2040-E13's spurious IRQ needs in-flight transfers). */
		for (unsigned n = 0; n < DMA_CHANNELS; n++)
			if ((value >> n) & 1)
				d->ch[n].busy = 0;
		dma_kick(d);
		return;
	case DMA_FIFO_LEVELS:
	case DMA_N_CHANNELS:
		return; /* read-only */
	default:
		bus_report_hole(board_bus(d->board));
		return;
	}
	dma_update_irq(d);
}

static const xb_device_ops dma_ops = {
	.read = dma_read,
	.write = dma_write,
};

/* RESETS bit 2 (and a system reset): every channel idle with its reset values. */
static void dma_block_reset(void *ctx, int held)
{
	xb_dma *d = ctx;
	if (!held)
		return;
	if (d->event_id)
		board_cancel(d->board, d->event_id);
	d->event_id = 0;
	for (unsigned n = 0; n < DMA_CHANNELS; n++)
		d->ch[n] = (dma_channel){.ctrl = 0};
	d->intr = d->inte[0] = d->inte[1] = d->intf[0] = d->intf[1] = 0;
	for (unsigned k = 0; k < DMA_TIMERS; k++) {
		d->timer[k] = 0;
		d->timer_base[k] = board_cycles(d->board);
	}
	d->sniff_ctrl = d->sniff_data = 0;
	d->free_at = 0;
	d->rr = DMA_CHANNELS - 1;
	dma_update_irq(d);
}

xb_dma *dma_new(xb_board *b, xb_resets *r)
{
	xb_dma *d = xcalloc(1, sizeof *d);
	d->board = b;
	dma_block_reset(d, 1);
	if (bus_map(board_bus(b), XB_DMA_BASE, DMA_DBG_BASE + DMA_CHANNELS * DMA_CH_STRIDE, "DMA",
		    &dma_ops, d)) {
		free(d);
		return NULL;
	}
	resets_on_block(r, XB_RESET_DMA, dma_block_reset, d);
	return d;
}

void dma_free(xb_dma *d)
{
	free(d);
}
