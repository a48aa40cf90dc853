/* gpio: the RP2040's user bank of pins on the virtual Pico: IO_BANK0 (function select,
 * overrides, status, edge and level interrupts) and PADS_BANK0 (pulls, input enable,
 * output disable). Pins are driven by the SIO, PIO0/PIO1 or UART0's idle TX line;
 * nothing outside the chip drives them. */
#include <stdlib.h>

#include "periph.h"

#define GPIO_PINS 30
#define GPIO_PIN_MASK 0x3FFFFFFFu

/* IO_BANK0 */
enum {
	IO_STATUS_CTRL_END = 8 * GPIO_PINS, /* GPIOn_STATUS at 8n, GPIOn_CTRL at 8n + 4 */
	IO_INTR0 = 0x0F0,
	IO_PROC0_INTE0 = 0x100,
	IO_PROC0_INTF0 = 0x110,
	IO_PROC0_INTS0 = 0x120,
	IO_GROUPS_END = 0x190, /* PROC1 and DORMANT_WAKE follow PROC0 in groups of 0x30 */
};

#define IO_CTRL_FUNCSEL 0x1Fu
#define IO_CTRL_MASK 0x3003331Fu
#define IO_CTRL_RESET 0x1Fu
#define IO_FUNC_UART 2u
#define IO_FUNC_SIO 5u
#define IO_FUNC_PIO0 6u /* PIO1 is 7 */
#define IO_FUNC_PIO1 7u
#define IO_STATUS_OUTFROMPERI 0x00000100u
#define IO_STATUS_OUTTOPAD 0x00000200u
#define IO_STATUS_OEFROMPERI 0x00001000u
#define IO_STATUS_OETOPAD 0x00002000u
#define IO_STATUS_INFROMPAD 0x00020000u
#define IO_STATUS_INTOPERI 0x00080000u
#define IO_STATUS_IRQFROMPAD 0x01000000u
#define IO_STATUS_IRQTOPROC 0x04000000u
/* Pins where FUNCSEL 2 is UART0 TX, and UART1 TX (RP2040 datasheet 2.19.2). */
#define IO_UART0_TX_PINS ((1u << 0) | (1u << 12) | (1u << 16) | (1u << 28))
#define IO_UART1_TX_PINS ((1u << 4) | (1u << 8) | (1u << 20) | (1u << 24))

/* INTR nibble per pin. */
#define IO_INT_LEVEL_LOW 0x1u
#define IO_INT_LEVEL_HIGH 0x2u
#define IO_INT_EDGE_LOW 0x4u
#define IO_INT_EDGE_HIGH 0x8u

/* PADS_BANK0 */
enum {
	PADS_VOLTAGE_SELECT = 0x00,
	PADS_GPIO0 = 0x04,
	PADS_SWCLK = 0x7C,
	PADS_SWD = 0x80,
	PADS_BLOCK_SIZE = 0x84,
};

#define PAD_OD 0x80u
#define PAD_IE 0x40u
#define PAD_PUE 0x08u
#define PAD_PDE 0x04u
#define PAD_GPIO_RESET 0x56u
#define PAD_SWCLK_RESET 0xDAu
#define PAD_SWD_RESET 0x5Au

/* The interrupt enables and forces of one destination (PROC0, PROC1, DORMANT_WAKE). */
typedef struct io_irq_group {
	uint32_t inte[4], intf[4];
} io_irq_group;

struct xb_gpio {
	xb_board *board;
	uint32_t ctrl[GPIO_PINS];
	uint32_t pad[GPIO_PINS];
	uint32_t voltage_select, swclk, swd;
	uint32_t sio_out, sio_oe;
	uint32_t pio_out[2], pio_oe[2]; /* what PIO0/PIO1 drive (gpio_set_pio) */
	struct {
		void (*fn)(void *ctx);
		void *ctx;
	} input_hooks[2]; /* gpio_on_input */
	io_irq_group groups[3];
	/* pin state after the last update, one bit per pin */
	uint32_t out_peri, oe_peri, out_pad, oe_pad, level, in_pad, in_peri;
	uint32_t edge_low, edge_high;
	int irq_level;
};

/* ---- Pin evaluation ---- */

static int io_override(unsigned over, int v)
{
	switch (over & 3) {
	case 1: return !v;
	case 2: return 0;
	case 3: return 1;
	default: return v;
	}
}

static uint32_t io_intr(const xb_gpio *g, unsigned k)
{
	uint32_t v = 0;
	for (unsigned j = 0; j < 8; j++) {
		unsigned n = 8 * k + j;
		if (n >= GPIO_PINS)
			break;
		uint32_t bit = 1u << n;
		uint32_t nib = (g->in_pad & bit) ? IO_INT_LEVEL_HIGH : IO_INT_LEVEL_LOW;
		if (g->edge_low & bit)
			nib |= IO_INT_EDGE_LOW;
		if (g->edge_high & bit)
			nib |= IO_INT_EDGE_HIGH;
		v |= nib << (4 * j);
	}
	return v;
}

static uint32_t io_ints(const xb_gpio *g, const io_irq_group *grp, unsigned k)
{
	return (io_intr(g, k) & grp->inte[k]) | grp->intf[k];
}

/* 1 when pin n's PROC0 interrupt reaches the processor (after IRQOVER); *raw before. */
static int io_pin_irq(const xb_gpio *g, unsigned n, int *raw)
{
	uint32_t nib = (io_ints(g, &g->groups[0], n / 8) >> (4 * (n % 8))) & 0xF;
	*raw = nib != 0;
	return io_override(g->ctrl[n] >> 28, *raw);
}

/* Recomputes every pin from the SIO, the function selects, overrides and pads; latches
 * edges; drives IO_IRQ_BANK0. */
static void gpio_update(xb_gpio *g)
{
	uint32_t out_peri = 0, oe_peri = 0, out_pad = 0, oe_pad = 0, level = 0, in_peri = 0;
	for (unsigned n = 0; n < GPIO_PINS; n++) {
		uint32_t bit = 1u << n, ctrl = g->ctrl[n], pad = g->pad[n];
		int out = 0, oe = 0;
		unsigned func = ctrl & IO_CTRL_FUNCSEL;
		if (func == IO_FUNC_SIO) {
			out = (g->sio_out & bit) != 0;
			oe = (g->sio_oe & bit) != 0;
		} else if (func == IO_FUNC_PIO0 || func == IO_FUNC_PIO1) {
			out = (g->pio_out[func - IO_FUNC_PIO0] & bit) != 0;
			oe = (g->pio_oe[func - IO_FUNC_PIO0] & bit) != 0;
		} else if (func == IO_FUNC_UART && ((IO_UART0_TX_PINS | IO_UART1_TX_PINS) & bit)) {
			out = oe = 1; /* an idle TX line is high */
		}
		int o = io_override(ctrl >> 8, out), e = io_override(ctrl >> 12, oe);
		int lv;
		if (e && !(pad & PAD_OD))
			lv = o;
		else if ((pad & PAD_PUE) && (pad & PAD_PDE))
			lv = (g->level & bit) != 0; /* bus keeper */
		else
			lv = (pad & PAD_PUE) != 0; /* pull-up, pull-down or floating (reads 0) */
		out_peri |= out ? bit : 0;
		oe_peri |= oe ? bit : 0;
		out_pad |= o ? bit : 0;
		oe_pad |= e ? bit : 0;
		level |= lv ? bit : 0;
		int in = lv && (pad & PAD_IE);
		in_peri |= io_override(ctrl >> 16, in) ? bit : 0;
	}
	uint32_t in_pad = level;
	for (unsigned n = 0; n < GPIO_PINS; n++)
		if (!(g->pad[n] & PAD_IE))
			in_pad &= ~(1u << n);
	g->edge_high |= in_pad & ~g->in_pad;
	g->edge_low |= ~in_pad & g->in_pad & GPIO_PIN_MASK;
	g->out_peri = out_peri;
	g->oe_peri = oe_peri;
	g->out_pad = out_pad;
	g->oe_pad = oe_pad;
	g->level = level;
	g->in_pad = in_pad;
	uint32_t in_changed = g->in_peri ^ in_peri;
	g->in_peri = in_peri;
	int line = 0;
	for (unsigned n = 0; n < GPIO_PINS && !line; n++) {
		int raw;
		line = io_pin_irq(g, n, &raw);
	}
	if (line != g->irq_level) {
		g->irq_level = line;
		board_irq_set(g->board, XB_IRQ_IO_BANK0, line);
	}
	for (unsigned i = 0; i < 2 && in_changed; i++)
		if (g->input_hooks[i].fn)
			g->input_hooks[i].fn(g->input_hooks[i].ctx);
}

void gpio_set_sio(xb_gpio *g, uint32_t out, uint32_t oe)
{
	g->sio_out = out & GPIO_PIN_MASK;
	g->sio_oe = oe & GPIO_PIN_MASK;
	gpio_update(g);
}

void gpio_on_input(xb_gpio *g, void (*fn)(void *ctx), void *ctx)
{
	for (unsigned i = 0; i < 2; i++)
		if (!g->input_hooks[i].fn) {
			g->input_hooks[i].fn = fn;
			g->input_hooks[i].ctx = ctx;
			return;
		}
}

void gpio_set_pio(xb_gpio *g, unsigned n, uint32_t out, uint32_t oe)
{
	out &= GPIO_PIN_MASK;
	oe &= GPIO_PIN_MASK;
	if (n > 1 || (g->pio_out[n] == out && g->pio_oe[n] == oe))
		return;
	g->pio_out[n] = out;
	g->pio_oe[n] = oe;
	gpio_update(g);
}

uint32_t gpio_input(const xb_gpio *g)
{
	return g->in_peri;
}

/* ---- IO_BANK0 registers ---- */

static uint32_t io_status(const xb_gpio *g, unsigned n)
{
	uint32_t bit = 1u << n, s = 0;
	s |= (g->out_peri & bit) ? IO_STATUS_OUTFROMPERI : 0;
	s |= (g->out_pad & bit) ? IO_STATUS_OUTTOPAD : 0;
	s |= (g->oe_peri & bit) ? IO_STATUS_OEFROMPERI : 0;
	s |= (g->oe_pad & bit) ? IO_STATUS_OETOPAD : 0;
	s |= (g->in_pad & bit) ? IO_STATUS_INFROMPAD : 0;
	s |= (g->in_peri & bit) ? IO_STATUS_INTOPERI : 0;
	int raw;
	s |= io_pin_irq(g, n, &raw) ? IO_STATUS_IRQTOPROC : 0;
	s |= raw ? IO_STATUS_IRQFROMPAD : 0;
	return s;
}

static uint32_t io_group_mask(unsigned k)
{
	return k == 3 ? 0x00FFFFFFu : 0xFFFFFFFFu; /* INTR3 covers GPIO24-29 */
}

static uint32_t io_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_gpio *g = ctx;
	if (off < IO_STATUS_CTRL_END)
		return (off & 4) ? g->ctrl[off / 8] : io_status(g, off / 8);
	if (off >= IO_INTR0 && off < IO_PROC0_INTE0)
		return io_intr(g, (off - IO_INTR0) / 4);
	if (off >= IO_PROC0_INTE0 && off < IO_GROUPS_END) {
		unsigned rel = off - IO_PROC0_INTE0;
		const io_irq_group *grp = &g->groups[rel / 0x30];
		unsigned k = (rel % 0x30) / 4;
		switch (k / 4) {
		case 0: return grp->inte[k % 4];
		case 1: return grp->intf[k % 4];
		default: return io_ints(g, grp, k % 4);
		}
	}
	bus_report_hole(board_bus(g->board));
	return 0;
}

static void io_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		     enum xb_alias_op op)
{
	(void)size;
	xb_gpio *g = ctx;
	if (off < IO_STATUS_CTRL_END) {
		if (off & 4)
			g->ctrl[off / 8] = periph_rw(g->ctrl[off / 8], value, op, IO_CTRL_MASK);
	} else if (off >= IO_INTR0 && off < IO_PROC0_INTE0) {
		unsigned k = (off - IO_INTR0) / 4;
		for (unsigned j = 0; j < 8 && 8 * k + j < GPIO_PINS; j++) {
			uint32_t nib = value >> (4 * j), bit = 1u << (8 * k + j);
			if (nib & IO_INT_EDGE_LOW)
				g->edge_low &= ~bit;
			if (nib & IO_INT_EDGE_HIGH)
				g->edge_high &= ~bit;
		}
	} else if (off >= IO_PROC0_INTE0 && off < IO_GROUPS_END) {
		unsigned rel = off - IO_PROC0_INTE0;
		io_irq_group *grp = &g->groups[rel / 0x30];
		unsigned k = (rel % 0x30) / 4, w = k % 4;
		if (k / 4 == 0)
			grp->inte[w] = periph_rw(grp->inte[w], value, op, io_group_mask(w));
		else if (k / 4 == 1)
			grp->intf[w] = periph_rw(grp->intf[w], value, op, io_group_mask(w));
	} else {
		bus_report_hole(board_bus(g->board));
		return;
	}
	gpio_update(g);
}

static const xb_device_ops io_ops = {
	.read = io_read,
	.write = io_write,
};

/* ---- PADS_BANK0 registers ---- */

static uint32_t *pads_reg(xb_gpio *g, uint32_t off)
{
	if (off == PADS_VOLTAGE_SELECT)
		return &g->voltage_select;
	if (off >= PADS_GPIO0 && off < PADS_SWCLK)
		return &g->pad[(off - PADS_GPIO0) / 4];
	if (off == PADS_SWCLK)
		return &g->swclk;
	if (off == PADS_SWD)
		return &g->swd;
	return NULL;
}

static uint32_t pads_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_gpio *g = ctx;
	uint32_t *r = pads_reg(g, off);
	if (!r) {
		bus_report_hole(board_bus(g->board));
		return 0;
	}
	return *r;
}

static void pads_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		       enum xb_alias_op op)
{
	(void)size;
	xb_gpio *g = ctx;
	uint32_t *r = pads_reg(g, off);
	if (!r) {
		bus_report_hole(board_bus(g->board));
		return;
	}
	*r = periph_rw(*r, value, op, off == PADS_VOLTAGE_SELECT ? 1u : 0xFFu);
	gpio_update(g);
}

static const xb_device_ops pads_ops = {
	.read = pads_read,
	.write = pads_write,
};

/* ---- Resets ---- */

/* RESETS bit 5. */
static void io_block_reset(void *ctx, int held)
{
	xb_gpio *g = ctx;
	if (!held)
		return;
	for (unsigned n = 0; n < GPIO_PINS; n++)
		g->ctrl[n] = IO_CTRL_RESET;
	for (int i = 0; i < 3; i++)
		g->groups[i] = (io_irq_group){{0}, {0}};
	g->edge_low = g->edge_high = 0;
	gpio_update(g);
	g->edge_low = g->edge_high = 0;
}

/* RESETS bit 8. */
static void pads_block_reset(void *ctx, int held)
{
	xb_gpio *g = ctx;
	if (!held)
		return;
	for (unsigned n = 0; n < GPIO_PINS; n++)
		g->pad[n] = PAD_GPIO_RESET;
	g->voltage_select = 0;
	g->swclk = PAD_SWCLK_RESET;
	g->swd = PAD_SWD_RESET;
	gpio_update(g);
}

xb_gpio *gpio_new(xb_board *b, xb_resets *r)
{
	xb_gpio *g = xcalloc(1, sizeof *g);
	g->board = b;
	pads_block_reset(g, 1);
	io_block_reset(g, 1);
	xb_bus *bus = board_bus(b);
	if (bus_map(bus, XB_IO_BANK0_BASE, IO_GROUPS_END, "IO_BANK0", &io_ops, g) ||
	    bus_map(bus, XB_PADS_BANK0_BASE, PADS_BLOCK_SIZE, "PADS_BANK0", &pads_ops, g)) {
		free(g);
		return NULL;
	}
	resets_on_block(r, XB_RESET_IO_BANK0, io_block_reset, g);
	resets_on_block(r, XB_RESET_PADS_BANK0, pads_block_reset, g);
	return g;
}

void gpio_free(xb_gpio *g)
{
	free(g);
}
