/* sio: the RP2040's single-cycle I/O block (datasheet 2.3.1): CPUID, GPIO with its own
 * SET/CLR/XOR registers, the inter-core FIFOs, the 32 spinlocks, and per core the hardware
 * divider and two interpolators (sio_interp.c). Which core is asking comes from the board
 * (board_current_core): CPUID, FIFO_ST/WR/RD, the divider and the interpolators are that
 * core's; GPIO and the spinlocks are shared. */
#include <stdlib.h>

#include "periph.h"

enum {
	SIO_CPUID = 0x000,
	SIO_GPIO_IN = 0x004,
	SIO_GPIO_HI_IN = 0x008,
	SIO_GPIO_OUT = 0x010,   /* OUT, OUT_SET, OUT_CLR, OUT_XOR at 0x10-0x1C */
	SIO_GPIO_OE = 0x020,    /* OE and its SET/CLR/XOR at 0x20-0x2C */
	SIO_GPIO_HI_OUT = 0x030,
	SIO_GPIO_HI_OE = 0x040,
	SIO_FIFO_ST = 0x050,
	SIO_FIFO_WR = 0x054,
	SIO_FIFO_RD = 0x058,
	SIO_SPINLOCK_ST = 0x05C,
	SIO_DIV_UDIVIDEND = 0x060,
	SIO_DIV_UDIVISOR = 0x064,
	SIO_DIV_SDIVIDEND = 0x068,
	SIO_DIV_SDIVISOR = 0x06C,
	SIO_DIV_QUOTIENT = 0x070,
	SIO_DIV_REMAINDER = 0x074,
	SIO_DIV_CSR = 0x078,
	SIO_INTERP0 = 0x080, /* INTERP0 0x080-0x0BC, INTERP1 0x0C0-0x0FC */
	SIO_INTERP_SIZE = 0x040,
	SIO_SPINLOCK0 = 0x100,
	SIO_SPINLOCK31 = 0x17C,
	SIO_BLOCK_SIZE = 0x180,
};

#define SIO_GPIO_MASK 0x3FFFFFFFu
#define SIO_GPIO_HI_MASK 0x3Fu
/* QSPI_SS (GPIO_HI bit 1) is pulled up on a Pico, where it doubles as the BOOTSEL button
 * (not pressed): it reads 1 unless the SIO drives it. */
#define SIO_GPIO_HI_PULLUP 0x02u
#define SIO_FIFO_DEPTH 8
#define SIO_FIFO_ROE 0x8u
#define SIO_FIFO_WOF 0x4u
#define SIO_FIFO_RDY 0x2u
#define SIO_FIFO_VLD 0x1u
#define SIO_DIV_READY 0x1u
#define SIO_DIV_DIRTY 0x2u
/* 2.3.1.5: "The divider calculates the quotient / and remainder % of this division over
 * the next 8 cycles, and on the 9th cycle the results can be read". An access made by an
 * instruction that starts at cycle S happens at board_cycles() = S + 1; a read by an
 * instruction starting 9 cycles after the one that wrote the operand sees the results. */
#define SIO_DIV_CYCLES 9u

/* One direction of the inter-core FIFO pair: 8 words deep. */
typedef struct sio_fifo {
	uint32_t word[SIO_FIFO_DEPTH];
	unsigned head, count;
} sio_fifo;

/* A core's divider. The visible results change when a calculation completes. */
typedef struct sio_div {
	uint32_t dividend, divisor, quotient, remainder;
	uint32_t next_q, next_r; /* the calculation in progress */
	uint64_t ready_at;       /* board_cycles() from which it is complete */
	int busy, dirty;
} sio_div;

/* What belongs to each core. */
typedef struct sio_core {
	uint32_t fifo_flags; /* ROE, WOF (sticky, this core's FIFO_ST) */
	int irq_level;       /* SIO_IRQ_PROCn as last driven */
	sio_div div;
	xb_interp interp[2];
} sio_core;

struct xb_sio {
	xb_board *board;
	xb_gpio *gpio;
	uint32_t gpio_out, gpio_oe, hi_out, hi_oe;
	sio_fifo fifo[2]; /* fifo[n]: written by core n, read by the other core */
	sio_core core[2];
	uint32_t spinlocks;
};

/* ---- FIFOs (2.3.1.3) ---- */

/* Core n's FIFO_ST: VLD = its RX FIFO (written by the other core) holds data, RDY = its TX
 * FIFO has room, WOF/ROE its sticky flags. */
static uint32_t sio_fifo_st(const xb_sio *s, unsigned n)
{
	uint32_t st = s->core[n].fifo_flags;
	if (s->fifo[n].count < SIO_FIFO_DEPTH)
		st |= SIO_FIFO_RDY;
	if (s->fifo[1 - n].count)
		st |= SIO_FIFO_VLD;
	return st;
}

/* SIO_IRQ_PROCn (15 + n) = core n's VLD | WOF | ROE. */
static void sio_update_irq(xb_sio *s, unsigned n)
{
	int level = (sio_fifo_st(s, n) & (SIO_FIFO_VLD | SIO_FIFO_WOF | SIO_FIFO_ROE)) != 0;
	if (level != s->core[n].irq_level) {
		s->core[n].irq_level = level;
		board_irq_set(s->board, XB_IRQ_SIO_PROC0 + n, level);
	}
}

static void sio_fifo_write(xb_sio *s, unsigned n, uint32_t value)
{
	sio_fifo *f = &s->fifo[n];
	if (f->count < SIO_FIFO_DEPTH)
		f->word[(f->head + f->count++) % SIO_FIFO_DEPTH] = value;
	else
		s->core[n].fifo_flags |= SIO_FIFO_WOF; /* full: the word is lost */
	sio_update_irq(s, n);
	sio_update_irq(s, 1 - n);
}

/* Core n pops its RX FIFO; reading it empty returns 0 and sets ROE. */
static uint32_t sio_fifo_read(xb_sio *s, unsigned n)
{
	sio_fifo *f = &s->fifo[1 - n];
	uint32_t v = 0;
	if (f->count) {
		v = f->word[f->head];
		f->head = (f->head + 1) % SIO_FIFO_DEPTH;
		f->count--;
	} else {
		s->core[n].fifo_flags |= SIO_FIFO_ROE;
	}
	sio_update_irq(s, n);
	sio_update_irq(s, 1 - n);
	return v;
}

static uint32_t sio_fifo_peek(const xb_sio *s, unsigned n)
{
	const sio_fifo *f = &s->fifo[1 - n];
	return f->count ? f->word[f->head] : 0;
}

/* ---- Divider (2.3.1.5) ---- */

/* Division by zero gives what rp2040js gives and the reference notes as UNVERIFIED against
 * silicon (the datasheet is silent): unsigned q = 0xFFFFFFFF; signed q = -1 for a dividend
 * >= 0 and +1 for a negative one; the remainder is the dividend. INT32_MIN / -1 wraps to
 * INT32_MIN, remainder 0. */
static void sio_div_compute(uint32_t n, uint32_t d, int is_signed, uint32_t *q, uint32_t *r)
{
	if (d == 0) {
		*r = n;
		*q = is_signed && (int32_t)n < 0 ? 1u : 0xFFFFFFFFu;
	} else if (!is_signed) {
		*q = n / d;
		*r = n % d;
	} else if (n == 0x80000000u && d == 0xFFFFFFFFu) {
		*q = 0x80000000u;
		*r = 0;
	} else {
		int32_t sn = (int32_t)n, sd = (int32_t)d;
		*q = (uint32_t)(sn / sd); /* C rounds toward zero, as the divider does */
		*r = (uint32_t)(sn % sd);
	}
}

/* Completes the calculation in progress once its 8 cycles have passed. */
static void sio_div_settle(sio_div *d, uint64_t now)
{
	if (d->busy && now >= d->ready_at) {
		d->quotient = d->next_q;
		d->remainder = d->next_r;
		d->busy = 0;
	}
}

/* An operand write starts a new calculation with both operands, squashing any in progress;
 * the alias written decides signedness. Until it completes the result registers keep their
 * previous values (the datasheet leaves them undefined while READY is 0). */
static void sio_div_start(xb_sio *s, sio_div *d, int is_signed)
{
	sio_div_compute(d->dividend, d->divisor, is_signed, &d->next_q, &d->next_r);
	d->ready_at = board_cycles(s->board) + SIO_DIV_CYCLES;
	d->busy = 1;
	d->dirty = 1;
}

/* ---- Registers ---- */

static uint32_t sio_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_sio *s = ctx;
	int debug = bus_access_is_debug(board_bus(s->board));
	unsigned n = board_current_core(s->board);
	sio_core *k = &s->core[n];
	if (off >= SIO_SPINLOCK0 && off <= SIO_SPINLOCK31) {
		uint32_t bit = 1u << ((off - SIO_SPINLOCK0) / 4);
		if (s->spinlocks & bit)
			return 0;
		if (!debug)
			s->spinlocks |= bit; /* claimed */
		return bit;
	}
	if (off >= SIO_INTERP0 && off < SIO_INTERP0 + 2 * SIO_INTERP_SIZE) {
		unsigned i = (off - SIO_INTERP0) / SIO_INTERP_SIZE;
		return interp_read(&k->interp[i], (off - SIO_INTERP0) % SIO_INTERP_SIZE, debug);
	}
	if (off >= SIO_DIV_UDIVIDEND && off <= SIO_DIV_CSR)
		sio_div_settle(&k->div, board_cycles(s->board));
	switch (off) {
	case SIO_CPUID:
		return n;
	case SIO_GPIO_IN:
		return gpio_input(s->gpio);
	case SIO_GPIO_HI_IN:
		return ((s->hi_out & s->hi_oe) | (SIO_GPIO_HI_PULLUP & ~s->hi_oe)) &
		       SIO_GPIO_HI_MASK;
	case SIO_GPIO_OUT:
		return s->gpio_out;
	case SIO_GPIO_OE:
		return s->gpio_oe;
	case SIO_GPIO_HI_OUT:
		return s->hi_out;
	case SIO_GPIO_HI_OE:
		return s->hi_oe;
	case SIO_FIFO_ST:
		return sio_fifo_st(s, n);
	case SIO_FIFO_RD:
		return debug ? sio_fifo_peek(s, n) : sio_fifo_read(s, n);
	case SIO_SPINLOCK_ST:
		return s->spinlocks;
	case SIO_DIV_UDIVIDEND:
	case SIO_DIV_SDIVIDEND:
		return k->div.dividend;
	case SIO_DIV_UDIVISOR:
	case SIO_DIV_SDIVISOR:
		return k->div.divisor;
	case SIO_DIV_QUOTIENT:
		if (!debug)
			k->div.dirty = 0; /* even when read early */
		return k->div.quotient;
	case SIO_DIV_REMAINDER:
		return k->div.remainder;
	case SIO_DIV_CSR:
		return (k->div.busy ? 0 : SIO_DIV_READY) | (k->div.dirty ? SIO_DIV_DIRTY : 0);
	}
	/* GPIO *_SET/_CLR/_XOR are write-only, FIFO_WR too. */
	if ((off >= SIO_GPIO_OUT && off < SIO_FIFO_ST) || off == SIO_FIFO_WR)
		return 0;
	bus_report_hole(board_bus(s->board));
	return 0;
}

/* The GPIO register groups: value, SET, CLR, XOR at base, +4, +8, +12. */
static uint32_t sio_gpio_op(uint32_t old, uint32_t value, unsigned which, uint32_t mask)
{
	switch (which) {
	case 1: return (old | value) & mask;
	case 2: return old & ~value & mask;
	case 3: return (old ^ value) & mask;
	default: return value & mask;
	}
}

static void sio_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		      enum xb_alias_op op)
{
	(void)size;
	(void)op; /* the SIO has no atomic aliases */
	xb_sio *s = ctx;
	unsigned n = board_current_core(s->board);
	sio_core *k = &s->core[n];
	if (off >= SIO_SPINLOCK0 && off <= SIO_SPINLOCK31) {
		s->spinlocks &= ~(1u << ((off - SIO_SPINLOCK0) / 4)); /* any write releases */
		return;
	}
	if (off >= SIO_INTERP0 && off < SIO_INTERP0 + 2 * SIO_INTERP_SIZE) {
		unsigned i = (off - SIO_INTERP0) / SIO_INTERP_SIZE;
		interp_write(&k->interp[i], (off - SIO_INTERP0) % SIO_INTERP_SIZE, value);
		return;
	}
	if (off >= SIO_GPIO_OUT && off < SIO_FIFO_ST) {
		unsigned which = (off / 4) & 3;
		switch (off & ~0xFu) {
		case SIO_GPIO_OUT:
			s->gpio_out = sio_gpio_op(s->gpio_out, value, which, SIO_GPIO_MASK);
			break;
		case SIO_GPIO_OE:
			s->gpio_oe = sio_gpio_op(s->gpio_oe, value, which, SIO_GPIO_MASK);
			break;
		case SIO_GPIO_HI_OUT:
			s->hi_out = sio_gpio_op(s->hi_out, value, which, SIO_GPIO_HI_MASK);
			return;
		case SIO_GPIO_HI_OE:
			s->hi_oe = sio_gpio_op(s->hi_oe, value, which, SIO_GPIO_HI_MASK);
			return;
		}
		gpio_set_sio(s->gpio, s->gpio_out, s->gpio_oe);
		return;
	}
	sio_div *d = &k->div;
	if (off >= SIO_DIV_UDIVIDEND && off <= SIO_DIV_CSR)
		sio_div_settle(d, board_cycles(s->board)); /* a finished calculation first */
	switch (off) {
	case SIO_CPUID:
	case SIO_GPIO_IN:
	case SIO_GPIO_HI_IN:
	case SIO_SPINLOCK_ST:
	case SIO_FIFO_RD:
		return; /* read-only */
	case SIO_FIFO_ST:
		k->fifo_flags &= ~(value & (SIO_FIFO_ROE | SIO_FIFO_WOF));
		sio_update_irq(s, n);
		return;
	case SIO_FIFO_WR:
		sio_fifo_write(s, n, value);
		return;
	case SIO_DIV_UDIVIDEND:
	case SIO_DIV_SDIVIDEND:
		d->dividend = value;
		sio_div_start(s, d, off == SIO_DIV_SDIVIDEND);
		return;
	case SIO_DIV_UDIVISOR:
	case SIO_DIV_SDIVISOR:
		d->divisor = value;
		sio_div_start(s, d, off == SIO_DIV_SDIVISOR);
		return;
	case SIO_DIV_QUOTIENT: /* save/restore: ends the calculation, READY and DIRTY */
	case SIO_DIV_REMAINDER:
		*(off == SIO_DIV_QUOTIENT ? &d->quotient : &d->remainder) = value;
		d->busy = 0;
		d->dirty = 1;
		return;
	case SIO_DIV_CSR:
		return; /* read-only */
	}
	bus_report_hole(board_bus(s->board));
}

static const xb_device_ops sio_ops = {
	.read = sio_read,
	.write = sio_write,
};

static void sio_system_reset(xb_board *b, void *ctx)
{
	(void)b;
	xb_sio *s = ctx;
	xb_gpio *g = s->gpio;
	int level[2] = {s->core[0].irq_level, s->core[1].irq_level};
	*s = (xb_sio){.board = s->board, .gpio = g};
	for (unsigned n = 0; n < 2; n++) {
		s->core[n].irq_level = level[n];
		interp_reset(&s->core[n].interp[0], 0);
		interp_reset(&s->core[n].interp[1], 1);
		sio_update_irq(s, n);
	}
	gpio_set_sio(g, 0, 0);
}

xb_sio *sio_new(xb_board *b, xb_gpio *g)
{
	xb_sio *s = xcalloc(1, sizeof *s);
	s->board = b;
	s->gpio = g;
	for (unsigned n = 0; n < 2; n++) {
		interp_reset(&s->core[n].interp[0], 0);
		interp_reset(&s->core[n].interp[1], 1);
	}
	if (bus_map(board_bus(b), XB_SIO_BASE, SIO_BLOCK_SIZE, "SIO", &sio_ops, s)) {
		free(s);
		return NULL;
	}
	board_on_reset(b, sio_system_reset, s);
	board_core1_enable(b); /* CPUID now tells the cores apart: core 1 can boot */
	return s;
}

void sio_free(xb_sio *s)
{
	free(s);
}
