/* sio: the RP2040's single-cycle I/O block as core 0 sees it on the virtual Pico: CPUID,
 * GPIO with its own SET/CLR/XOR registers, the inter-core FIFOs with core 1 held in reset,
 * the 32 spinlocks and the hardware divider. */
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
	SIO_INTERP0 = 0x080, /* INTERP0 and INTERP1 up to 0x0FC: not modelled */
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

struct xb_sio {
	xb_board *board;
	xb_gpio *gpio;
	uint32_t gpio_out, gpio_oe, hi_out, hi_oe;
	/* FIFO to core 1: core 1 is held in reset and never reads it */
	uint32_t fifo_tx[SIO_FIFO_DEPTH];
	unsigned fifo_tx_count;
	uint32_t fifo_flags; /* ROE, WOF (sticky) */
	int irq_level;
	uint32_t spinlocks;
	uint32_t dividend, divisor, quotient, remainder, div_csr;
};

/* ---- FIFO ---- */

static uint32_t sio_fifo_st(const xb_sio *s)
{
	uint32_t st = s->fifo_flags;
	if (s->fifo_tx_count < SIO_FIFO_DEPTH)
		st |= SIO_FIFO_RDY;
	return st; /* VLD never: nothing ever arrives from core 1 */
}

/* SIO_IRQ_PROC0 = VLD | WOF | ROE. */
static void sio_update_irq(xb_sio *s)
{
	int level = (sio_fifo_st(s) & (SIO_FIFO_VLD | SIO_FIFO_WOF | SIO_FIFO_ROE)) != 0;
	if (level != s->irq_level) {
		s->irq_level = level;
		board_irq_set(s->board, XB_IRQ_SIO_PROC0, level);
	}
}

/* ---- Divider ---- */

/* Computes at once (READY is never 0). Division by zero gives what the silicon gives
 * (measured on an RP2040, reference section 5 notes): unsigned q = 0xFFFFFFFF; signed
 * q = -1 for a dividend >= 0 and +1 for a negative one; the remainder is the dividend.
 * INT32_MIN / -1 wraps to INT32_MIN, remainder 0. */
static void sio_divide(xb_sio *s, int is_signed)
{
	uint32_t n = s->dividend, d = s->divisor;
	if (d == 0) {
		s->remainder = n;
		if (is_signed)
			s->quotient = (int32_t)n < 0 ? 1u : 0xFFFFFFFFu;
		else
			s->quotient = 0xFFFFFFFFu;
	} else if (!is_signed) {
		s->quotient = n / d;
		s->remainder = n % d;
	} else if (n == 0x80000000u && d == 0xFFFFFFFFu) {
		s->quotient = 0x80000000u;
		s->remainder = 0;
	} else {
		int32_t sn = (int32_t)n, sd = (int32_t)d;
		s->quotient = (uint32_t)(sn / sd); /* C rounds toward zero, as the divider does */
		s->remainder = (uint32_t)(sn % sd);
	}
	s->div_csr = SIO_DIV_READY | SIO_DIV_DIRTY;
}

/* ---- Registers ---- */

static uint32_t sio_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_sio *s = ctx;
	int debug = bus_access_is_debug(board_bus(s->board));
	if (off >= SIO_SPINLOCK0 && off <= SIO_SPINLOCK31) {
		uint32_t bit = 1u << ((off - SIO_SPINLOCK0) / 4);
		if (s->spinlocks & bit)
			return 0;
		if (!debug)
			s->spinlocks |= bit; /* claimed */
		return bit;
	}
	switch (off) {
	case SIO_CPUID:
		return 0; /* core 0; core 1 never runs */
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
		return sio_fifo_st(s);
	case SIO_FIFO_RD:
		/* Always empty: the read sets ROE and returns 0. */
		if (!debug) {
			s->fifo_flags |= SIO_FIFO_ROE;
			sio_update_irq(s);
		}
		return 0;
	case SIO_SPINLOCK_ST:
		return s->spinlocks;
	case SIO_DIV_UDIVIDEND:
	case SIO_DIV_SDIVIDEND:
		return s->dividend;
	case SIO_DIV_UDIVISOR:
	case SIO_DIV_SDIVISOR:
		return s->divisor;
	case SIO_DIV_QUOTIENT:
		if (!debug)
			s->div_csr &= ~SIO_DIV_DIRTY;
		return s->quotient;
	case SIO_DIV_REMAINDER:
		return s->remainder;
	case SIO_DIV_CSR:
		return s->div_csr;
	}
	/* GPIO *_SET/_CLR/_XOR are write-only, FIFO_WR too; INTERP is not modelled. */
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
	if (off >= SIO_SPINLOCK0 && off <= SIO_SPINLOCK31) {
		s->spinlocks &= ~(1u << ((off - SIO_SPINLOCK0) / 4)); /* any write releases */
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
	switch (off) {
	case SIO_CPUID:
	case SIO_GPIO_IN:
	case SIO_GPIO_HI_IN:
	case SIO_SPINLOCK_ST:
	case SIO_FIFO_RD:
		return; /* read-only */
	case SIO_FIFO_ST:
		s->fifo_flags &= ~(value & (SIO_FIFO_ROE | SIO_FIFO_WOF));
		sio_update_irq(s);
		return;
	case SIO_FIFO_WR:
		if (s->fifo_tx_count < SIO_FIFO_DEPTH)
			s->fifo_tx[s->fifo_tx_count++] = value;
		else
			s->fifo_flags |= SIO_FIFO_WOF; /* full: the word is lost */
		sio_update_irq(s);
		return;
	case SIO_DIV_UDIVIDEND:
	case SIO_DIV_SDIVIDEND:
		s->dividend = value;
		sio_divide(s, off == SIO_DIV_SDIVIDEND);
		return;
	case SIO_DIV_UDIVISOR:
	case SIO_DIV_SDIVISOR:
		s->divisor = value;
		sio_divide(s, off == SIO_DIV_SDIVISOR);
		return;
	case SIO_DIV_QUOTIENT: /* save/restore: stops the divide, READY and DIRTY */
		s->quotient = value;
		s->div_csr = SIO_DIV_READY | SIO_DIV_DIRTY;
		return;
	case SIO_DIV_REMAINDER:
		s->remainder = value;
		s->div_csr = SIO_DIV_READY | SIO_DIV_DIRTY;
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
	int level = s->irq_level;
	*s = (xb_sio){.board = s->board, .gpio = g, .irq_level = level};
	s->div_csr = SIO_DIV_READY;
	sio_update_irq(s);
	gpio_set_sio(g, 0, 0);
}

xb_sio *sio_new(xb_board *b, xb_gpio *g)
{
	xb_sio *s = xcalloc(1, sizeof *s);
	s->board = b;
	s->gpio = g;
	s->div_csr = SIO_DIV_READY;
	if (bus_map(board_bus(b), XB_SIO_BASE, SIO_BLOCK_SIZE, "SIO", &sio_ops, s)) {
		free(s);
		return NULL;
	}
	board_on_reset(b, sio_system_reset, s);
	return s;
}

void sio_free(xb_sio *s)
{
	free(s);
}
