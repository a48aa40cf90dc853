/* clocks: the RP2040's clock generators on the virtual Pico: CLOCKS (muxes and dividers,
 * with the glitchless SELECTED registers firmware polls), XOSC and the two PLLs. The CPU's
 * speed does not follow them: the board runs at the target's cpu_hz from power-on. */
#include <stdlib.h>

#include "periph.h"

/* ---- CLOCKS ---- */

enum {
	CLK_REF_CTRL = 0x30,
	CLK_REF_SELECTED = 0x38,
	CLK_SYS_CTRL = 0x3C,
	CLK_SYS_SELECTED = 0x44,
	CLK_FC0_STATUS = 0x98,
	CLK_FC0_RESULT = 0x9C,
	CLK_ENABLED0 = 0xB0,
	CLK_ENABLED1 = 0xB4,
	CLK_INTR = 0xB8,
	CLK_INTE = 0xBC,
	CLK_INTF = 0xC0,
	CLK_INTS = 0xC4,
	CLK_BLOCK_SIZE = 0xC8,
};

#define CLK_NREGS (CLK_BLOCK_SIZE / 4)

/* One register of the block: its reset value and its writable bits. Registers not in the
 * table are holes; read-only ones have mask 0. */
typedef struct clk_reg {
	uint16_t off;
	uint32_t reset, mask;
} clk_reg;

/* Reset values and field masks from pico-sdk's hardware/regs/clocks.h. The *_SELECTED
 * registers, FC0 results, ENABLED and the interrupt status are computed on read. */
static const clk_reg clk_regs[] = {
	{0x00, 0, 0x00131DE0}, {0x04, 0x100, 0xFFFFFFFF}, {0x08, 1, 0}, /* GPOUT0 */
	{0x0C, 0, 0x00131DE0}, {0x10, 0x100, 0xFFFFFFFF}, {0x14, 1, 0}, /* GPOUT1 */
	{0x18, 0, 0x00131DE0}, {0x1C, 0x100, 0xFFFFFFFF}, {0x20, 1, 0}, /* GPOUT2 */
	{0x24, 0, 0x00131DE0}, {0x28, 0x100, 0xFFFFFFFF}, {0x2C, 1, 0}, /* GPOUT3 */
	{0x30, 0, 0x00000063}, {0x34, 0x100, 0x00000300}, {0x38, 1, 0}, /* REF */
	{0x3C, 0, 0x000000E1}, {0x40, 0x100, 0xFFFFFFFF}, {0x44, 1, 0}, /* SYS */
	{0x48, 0, 0x00000CE0}, {0x50, 1, 0},                            /* PERI (no DIV) */
	{0x54, 0, 0x00130CE0}, {0x58, 0x100, 0x00000300}, {0x5C, 1, 0}, /* USB */
	{0x60, 0, 0x00130CE0}, {0x64, 0x100, 0x00000300}, {0x68, 1, 0}, /* ADC */
	{0x6C, 0, 0x00130CE0}, {0x70, 0x100, 0xFFFFFFFF}, {0x74, 1, 0}, /* RTC */
	{0x78, 0xFF, 0x000111FF},                                       /* SYS_RESUS_CTRL */
	{0x7C, 0, 0},                                                   /* SYS_RESUS_STATUS */
	{0x80, 0, 0x000FFFFF}, {0x84, 0, 0x01FFFFFF},                   /* FC0_REF/MIN_KHZ */
	{0x88, 0x01FFFFFF, 0x01FFFFFF}, {0x8C, 1, 0x7}, {0x90, 8, 0xF}, /* FC0_MAX/DELAY/INTERVAL */
	{0x94, 0, 0xFF}, {0x98, 0, 0}, {0x9C, 0, 0},                    /* FC0_SRC/STATUS/RESULT */
	{0xA0, 0xFFFFFFFF, 0xFFFFFFFF}, {0xA4, 0x7FFF, 0x7FFF},         /* WAKE_EN0/1 */
	{0xA8, 0xFFFFFFFF, 0xFFFFFFFF}, {0xAC, 0x7FFF, 0x7FFF},         /* SLEEP_EN0/1 */
	{0xB0, 0, 0}, {0xB4, 0, 0},                                     /* ENABLED0/1 */
	{0xB8, 0, 0}, {0xBC, 0, 1}, {0xC0, 0, 1}, {0xC4, 0, 0},         /* INTR/E/F/S */
};

/* ---- XOSC ---- */

enum {
	XOSC_CTRL = 0x00,
	XOSC_STATUS = 0x04,
	XOSC_DORMANT = 0x08,
	XOSC_STARTUP = 0x0C,
	XOSC_COUNT = 0x1C,
};

#define XOSC_ENABLE_SHIFT 12
#define XOSC_ENABLE_DISABLE 0xD1Eu
#define XOSC_ENABLE_ENABLE 0xFABu
#define XOSC_FREQ_RANGE_1_15MHZ 0xAA0u
#define XOSC_STATUS_STABLE 0x80000000u
#define XOSC_STATUS_BADWRITE 0x01000000u
#define XOSC_STATUS_ENABLED 0x00001000u
#define XOSC_DORMANT_DORMANT 0x636F6D61u
#define XOSC_DORMANT_WAKE 0x77616B65u
#define XOSC_STARTUP_RESET 0xC4u /* "approx 50 000 cycles" (datasheet) */
#define XOSC_STARTUP_MASK 0x00103FFFu

/* ---- PLL ---- */

enum {
	PLL_CS = 0x0,
	PLL_PWR = 0x4,
	PLL_FBDIV_INT = 0x8,
	PLL_PRIM = 0xC,
};

#define PLL_CS_LOCK 0x80000000u
#define PLL_CS_MASK 0x0000013Fu /* BYPASS 8, REFDIV 5:0 */
#define PLL_CS_RESET 0x1u
#define PLL_PWR_PD 0x01u
#define PLL_PWR_VCOPD 0x20u
#define PLL_PWR_MASK 0x2Du
#define PLL_FBDIV_MASK 0xFFFu
#define PLL_FBDIV_MIN 16u
#define PLL_FBDIV_MAX 320u
#define PLL_PRIM_MASK 0x00077000u

typedef struct clk_pll {
	struct xb_clocks *clocks;
	uint32_t cs, pwr, fbdiv, prim;
} clk_pll;

struct xb_clocks {
	xb_board *board;
	uint32_t reg[CLK_NREGS];
	int8_t index[CLK_NREGS]; /* clk_regs entry of each word, -1 for holes */
	int irq_level;
	uint32_t xosc_ctrl, xosc_status, xosc_dormant, xosc_startup;
	uint32_t xosc_count;
	uint64_t xosc_count_cycle;
	clk_pll pll[2]; /* PLL_SYS, PLL_USB */
};

/* ---- CLOCKS registers ---- */

static void clocks_update_irq(xb_clocks *c)
{
	int level = ((c->reg[CLK_INTR / 4] & c->reg[CLK_INTE / 4]) | c->reg[CLK_INTF / 4]) != 0;
	if (level != c->irq_level) {
		c->irq_level = level;
		board_irq_set(c->board, XB_IRQ_CLOCKS, level);
	}
}

static uint32_t clocks_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_clocks *c = ctx;
	if (off >= CLK_BLOCK_SIZE || c->index[off / 4] < 0) {
		bus_report_hole(board_bus(c->board));
		return 0;
	}
	switch (off) {
	case CLK_REF_SELECTED: /* one-hot of the glitchless mux's SRC, switched at once */
		return 1u << (c->reg[CLK_REF_CTRL / 4] & 3);
	case CLK_SYS_SELECTED:
		return 1u << (c->reg[CLK_SYS_CTRL / 4] & 1);
	case CLK_INTS:
		return (c->reg[CLK_INTR / 4] & c->reg[CLK_INTE / 4]) | c->reg[CLK_INTF / 4];
	}
	return c->reg[off / 4];
}

static void clocks_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
			 enum xb_alias_op op)
{
	(void)size;
	xb_clocks *c = ctx;
	if (off >= CLK_BLOCK_SIZE || c->index[off / 4] < 0) {
		bus_report_hole(board_bus(c->board));
		return;
	}
	const clk_reg *r = &clk_regs[c->index[off / 4]];
	c->reg[off / 4] = periph_rw(c->reg[off / 4], value, op, r->mask);
	if (off == CLK_INTE || off == CLK_INTF)
		clocks_update_irq(c);
}

static const xb_device_ops clocks_ops = {
	.read = clocks_read,
	.write = clocks_write,
};

/* ---- XOSC registers ---- */

static uint32_t xosc_count_now(const xb_clocks *c)
{
	uint64_t elapsed = periph_muldiv(board_cycles(c->board) - c->xosc_count_cycle,
					 XB_CLK_REF_HZ, board_cpu_hz(c->board));
	return elapsed >= c->xosc_count ? 0 : c->xosc_count - (uint32_t)elapsed;
}

static uint32_t xosc_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_clocks *c = ctx;
	switch (off) {
	case XOSC_CTRL:
		return c->xosc_ctrl;
	case XOSC_STATUS: {
		uint32_t enable = (c->xosc_ctrl >> XOSC_ENABLE_SHIFT) & 0xFFF;
		uint32_t s = c->xosc_status; /* BADWRITE */
		/* Stable as soon as it is enabled: the start-up delay is not modelled. */
		if (enable != XOSC_ENABLE_DISABLE)
			s |= XOSC_STATUS_ENABLED | XOSC_STATUS_STABLE;
		return s;
	}
	case XOSC_DORMANT:
		return c->xosc_dormant;
	case XOSC_STARTUP:
		return c->xosc_startup;
	case XOSC_COUNT:
		return xosc_count_now(c);
	}
	bus_report_hole(board_bus(c->board));
	return 0;
}

static void xosc_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		       enum xb_alias_op op)
{
	(void)size;
	xb_clocks *c = ctx;
	switch (off) {
	case XOSC_CTRL: {
		uint32_t v = bus_alias_apply(c->xosc_ctrl, value, op);
		uint32_t enable = (v >> XOSC_ENABLE_SHIFT) & 0xFFF;
		uint32_t range = v & 0xFFF;
		if (enable != XOSC_ENABLE_DISABLE && enable != XOSC_ENABLE_ENABLE)
			c->xosc_status |= XOSC_STATUS_BADWRITE; /* and it enables */
		if ((range & ~3u) != XOSC_FREQ_RANGE_1_15MHZ) {
			c->xosc_status |= XOSC_STATUS_BADWRITE; /* the old range stays */
			range = c->xosc_ctrl & 0xFFF;
		}
		c->xosc_ctrl = enable << XOSC_ENABLE_SHIFT | range;
		return;
	}
	case XOSC_STATUS:
		c->xosc_status = periph_wc(c->xosc_status, value & XOSC_STATUS_BADWRITE);
		return;
	case XOSC_DORMANT: {
		uint32_t v = bus_alias_apply(c->xosc_dormant, value, op);
		if (v != XOSC_DORMANT_DORMANT && v != XOSC_DORMANT_WAKE) {
			c->xosc_status |= XOSC_STATUS_BADWRITE;
			v = XOSC_DORMANT_WAKE;
		}
		c->xosc_dormant = v; /* dormant mode itself is not modelled */
		return;
	}
	case XOSC_STARTUP:
		c->xosc_startup = periph_rw(c->xosc_startup, value, op, XOSC_STARTUP_MASK);
		return;
	case XOSC_COUNT:
		c->xosc_count = bus_alias_apply(xosc_count_now(c), value, op) & 0xFF;
		c->xosc_count_cycle = board_cycles(c->board);
		return;
	}
	bus_report_hole(board_bus(c->board));
}

static const xb_device_ops xosc_ops = {
	.read = xosc_read,
	.write = xosc_write,
};

/* ---- PLL registers ---- */

/* Locked once powered (PD and VCOPD clear) with a valid REFDIV and FBDIV, at once. */
static int pll_locked(const clk_pll *p)
{
	return !(p->pwr & (PLL_PWR_PD | PLL_PWR_VCOPD)) && (p->cs & 0x3F) != 0 &&
	       p->fbdiv >= PLL_FBDIV_MIN && p->fbdiv <= PLL_FBDIV_MAX;
}

static uint32_t pll_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	clk_pll *p = ctx;
	switch (off) {
	case PLL_CS:
		return p->cs | (pll_locked(p) ? PLL_CS_LOCK : 0);
	case PLL_PWR:
		return p->pwr;
	case PLL_FBDIV_INT:
		return p->fbdiv;
	case PLL_PRIM:
		return p->prim;
	}
	bus_report_hole(board_bus(p->clocks->board));
	return 0;
}

static void pll_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		      enum xb_alias_op op)
{
	(void)size;
	clk_pll *p = ctx;
	switch (off) {
	case PLL_CS:
		p->cs = periph_rw(p->cs, value, op, PLL_CS_MASK);
		return;
	case PLL_PWR:
		p->pwr = periph_rw(p->pwr, value, op, PLL_PWR_MASK);
		return;
	case PLL_FBDIV_INT:
		p->fbdiv = periph_rw(p->fbdiv, value, op, PLL_FBDIV_MASK);
		return;
	case PLL_PRIM:
		p->prim = periph_rw(p->prim, value, op, PLL_PRIM_MASK);
		return;
	}
	bus_report_hole(board_bus(p->clocks->board));
}

static const xb_device_ops pll_ops = {
	.read = pll_read,
	.write = pll_write,
};

static void pll_reset(clk_pll *p)
{
	p->cs = PLL_CS_RESET;
	p->pwr = PLL_PWR_MASK;
	p->fbdiv = 0;
	p->prim = PLL_PRIM_MASK;
}

/* RESETS bits 12 (PLL_SYS) and 13 (PLL_USB). */
static void pll_block_reset(void *ctx, int held)
{
	if (held)
		pll_reset(ctx);
}

/* ---- Reset and creation ---- */

static void clocks_system_reset(xb_board *b, void *ctx)
{
	(void)b;
	xb_clocks *c = ctx;
	for (size_t i = 0; i < sizeof clk_regs / sizeof clk_regs[0]; i++)
		c->reg[clk_regs[i].off / 4] = clk_regs[i].reset;
	clocks_update_irq(c);
	c->xosc_ctrl = XOSC_ENABLE_DISABLE << XOSC_ENABLE_SHIFT | XOSC_FREQ_RANGE_1_15MHZ;
	c->xosc_status = 0;
	c->xosc_dormant = XOSC_DORMANT_WAKE;
	c->xosc_startup = XOSC_STARTUP_RESET;
	c->xosc_count = 0;
}

xb_clocks *clocks_new(xb_board *b, xb_resets *r)
{
	xb_clocks *c = xcalloc(1, sizeof *c);
	c->board = b;
	for (int i = 0; i < CLK_NREGS; i++)
		c->index[i] = -1;
	for (size_t i = 0; i < sizeof clk_regs / sizeof clk_regs[0]; i++)
		c->index[clk_regs[i].off / 4] = (int8_t)i;
	for (int i = 0; i < 2; i++) {
		c->pll[i].clocks = c;
		pll_reset(&c->pll[i]);
	}
	clocks_system_reset(b, c);
	xb_bus *bus = board_bus(b);
	if (bus_map(bus, XB_CLOCKS_BASE, CLK_BLOCK_SIZE, "CLOCKS", &clocks_ops, c) ||
	    bus_map(bus, XB_XOSC_BASE, 0x20, "XOSC", &xosc_ops, c) ||
	    bus_map(bus, XB_PLL_SYS_BASE, 0x10, "PLL_SYS", &pll_ops, &c->pll[0]) ||
	    bus_map(bus, XB_PLL_USB_BASE, 0x10, "PLL_USB", &pll_ops, &c->pll[1])) {
		free(c);
		return NULL;
	}
	board_on_reset(b, clocks_system_reset, c);
	resets_on_block(r, XB_RESET_PLL_SYS, pll_block_reset, &c->pll[0]);
	resets_on_block(r, XB_RESET_PLL_USB, pll_block_reset, &c->pll[1]);
	return c;
}

void clocks_free(xb_clocks *c)
{
	free(c);
}
