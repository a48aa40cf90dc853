/* uart: UART0 and UART1 of the virtual Pico (Arm PL011s): bytes written to DR leave at once
 * through a callback; the flags, baud, line and interrupt registers behave as registers.
 * Nothing is ever received. */
#include <stdlib.h>

#include "periph.h"

enum {
	UART_DR = 0x000,
	UART_RSR = 0x004,
	UART_FR = 0x018,
	UART_ILPR = 0x020,
	UART_IBRD = 0x024,
	UART_FBRD = 0x028,
	UART_LCR_H = 0x02C,
	UART_CR = 0x030,
	UART_IFLS = 0x034,
	UART_IMSC = 0x038,
	UART_RIS = 0x03C,
	UART_MIS = 0x040,
	UART_ICR = 0x044,
	UART_DMACR = 0x048,
	UART_PERIPHID0 = 0xFE0,
	UART_PCELLID3 = 0xFFC,
};

#define UART_FR_TXFE 0x80u
#define UART_FR_TXFF 0x20u
#define UART_FR_RXFE 0x10u
#define UART_FR_BUSY 0x08u
#define UART_LCR_H_FEN 0x10u
#define UART_CR_UARTEN 0x001u
#define UART_CR_TXE 0x100u
#define UART_CR_RESET 0x300u
#define UART_CR_MASK 0xFF87u
#define UART_IFLS_RESET 0x12u
#define UART_INT_MASK 0x7FFu
#define UART_INT_TX 0x20u
#define UART_FIFO_DEPTH 32

/* PERIPHID0-3 and PCELLID0-3 (pico-sdk hardware/regs/uart.h reset values). */
static const uint8_t uart_ids[8] = {0x11, 0x10, 0x34, 0x00, 0x0D, 0xF0, 0x05, 0xB1};

struct xb_uart {
	xb_board *board;
	unsigned index; /* UART0 or UART1 */
	xb_uart_byte_fn fn;
	void *ctx;
	uint32_t ilpr, ibrd, fbrd, lcr_h, cr, ifls, imsc, ris, dmacr;
	/* Bytes written while the transmitter is off wait here until it is enabled. */
	uint8_t fifo[UART_FIFO_DEPTH];
	unsigned fifo_count;
	uint64_t sent;
	int irq_level;
	/* DMA requests (DMACR.TXDMAE/RXDMAE): the listener and the levels it last heard. */
	xb_dreq_lines dreq;
};

uint64_t uart_tx_count(const xb_uart *u)
{
	return u->sent;
}

static int uart_tx_on(const xb_uart *u)
{
	return (u->cr & (UART_CR_UARTEN | UART_CR_TXE)) == (UART_CR_UARTEN | UART_CR_TXE);
}

static unsigned uart_fifo_depth(const xb_uart *u)
{
	return (u->lcr_h & UART_LCR_H_FEN) ? UART_FIFO_DEPTH : 1;
}

static void uart_update_irq(xb_uart *u)
{
	int level = (u->ris & u->imsc) != 0;
	if (level != u->irq_level) {
		u->irq_level = level;
		board_irq_set(u->board, XB_IRQ_UART0 + u->index, level);
	}
}

/* TX DREQ (20, UART1 22): TXDMAE and room in the FIFO; RX DREQ (21, 23): RXDMAE and data,
 * which never comes (UARTDMACR, datasheet 4.2). */
int uart_dreq(const xb_uart *u, unsigned dreq)
{
	if (dreq == XB_DREQ_UART0_TX + 2 * u->index)
		return (u->dmacr & 0x2) && u->fifo_count < uart_fifo_depth(u);
	return 0;
}

void uart_set_dreq(xb_uart *u, xb_dreq_fn fn, void *ctx)
{
	u->dreq.fn = fn;
	u->dreq.ctx = ctx;
}

/* Tells the listener of every change; call it after anything that moves the FIFO level or
 * DMACR. */
static void uart_update_dreq(xb_uart *u)
{
	for (unsigned i = 0; i < 2; i++)
		dreq_lines_set(&u->dreq, i, uart_dreq(u, u->dreq.base + i));
}

static void uart_send(xb_uart *u, uint8_t byte)
{
	u->sent++;
	if (u->fn)
		u->fn(u->ctx, byte);
}

/* An enabled transmitter empties the FIFO at once; the PL011 raises TXRIS when the FIFO
 * level drops through the trigger level, which an instant transmitter always does. */
static void uart_drain(xb_uart *u)
{
	if (!uart_tx_on(u) || !u->fifo_count)
		return;
	for (unsigned i = 0; i < u->fifo_count; i++)
		uart_send(u, u->fifo[i]);
	u->fifo_count = 0;
	u->ris |= UART_INT_TX;
	uart_update_irq(u);
}

static uint32_t uart_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_uart *u = ctx;
	if (off >= UART_PERIPHID0 && off <= UART_PCELLID3)
		return uart_ids[(off - UART_PERIPHID0) / 4];
	switch (off) {
	case UART_DR:
		return 0; /* the receive FIFO is always empty */
	case UART_RSR:
		return 0;
	case UART_FR: {
		uint32_t fr = UART_FR_RXFE;
		if (!u->fifo_count)
			fr |= UART_FR_TXFE;
		else
			fr |= UART_FR_BUSY;
		if (u->fifo_count >= uart_fifo_depth(u))
			fr |= UART_FR_TXFF;
		return fr;
	}
	case UART_ILPR: return u->ilpr;
	case UART_IBRD: return u->ibrd;
	case UART_FBRD: return u->fbrd;
	case UART_LCR_H: return u->lcr_h;
	case UART_CR: return u->cr;
	case UART_IFLS: return u->ifls;
	case UART_IMSC: return u->imsc;
	case UART_RIS: return u->ris;
	case UART_MIS: return u->ris & u->imsc;
	case UART_ICR: return 0;
	case UART_DMACR: return u->dmacr;
	}
	bus_report_hole(board_bus(u->board));
	return 0;
}

static void uart_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		       enum xb_alias_op op)
{
	(void)size;
	xb_uart *u = ctx;
	switch (off) {
	case UART_DR:
		/* Writing DR also clears the transmit interrupt. */
		u->ris &= ~UART_INT_TX;
		if (u->fifo_count < uart_fifo_depth(u))
			u->fifo[u->fifo_count++] = (uint8_t)bus_alias_apply(0, value, op);
		uart_drain(u);
		uart_update_irq(u);
		uart_update_dreq(u);
		return;
	case UART_RSR:
		return; /* a write clears the (never set) receive errors */
	case UART_ILPR: u->ilpr = periph_rw(u->ilpr, value, op, 0xFF); return;
	case UART_IBRD: u->ibrd = periph_rw(u->ibrd, value, op, 0xFFFF); return;
	case UART_FBRD: u->fbrd = periph_rw(u->fbrd, value, op, 0x3F); return;
	case UART_LCR_H:
		u->lcr_h = periph_rw(u->lcr_h, value, op, 0xFF);
		uart_update_dreq(u);
		return;
	case UART_CR:
		u->cr = periph_rw(u->cr, value, op, UART_CR_MASK);
		uart_drain(u);
		uart_update_dreq(u);
		return;
	case UART_IFLS: u->ifls = periph_rw(u->ifls, value, op, 0x3F); return;
	case UART_IMSC:
		u->imsc = periph_rw(u->imsc, value, op, UART_INT_MASK);
		uart_update_irq(u);
		return;
	case UART_ICR:
		u->ris = periph_wc(u->ris, value & UART_INT_MASK);
		uart_update_irq(u);
		return;
	case UART_DMACR:
		u->dmacr = periph_rw(u->dmacr, value, op, 0x7);
		uart_update_dreq(u);
		return;
	case UART_FR:
	case UART_RIS:
	case UART_MIS:
		return; /* read-only */
	}
	if (off >= UART_PERIPHID0 && off <= UART_PCELLID3)
		return;
	bus_report_hole(board_bus(u->board));
}

static const xb_device_ops uart_ops = {
	.read = uart_read,
	.write = uart_write,
};

/* RESETS bit 22 (and a system reset): registers to their reset values, queued bytes lost. */
static void uart_block_reset(void *ctx, int held)
{
	xb_uart *u = ctx;
	if (!held)
		return;
	u->ilpr = u->ibrd = u->fbrd = u->lcr_h = u->imsc = u->ris = u->dmacr = 0;
	u->cr = UART_CR_RESET;
	u->ifls = UART_IFLS_RESET;
	u->fifo_count = 0;
	uart_update_irq(u);
	uart_update_dreq(u);
}

xb_uart *uart_new_index(xb_board *b, xb_resets *r, unsigned index, xb_uart_byte_fn fn,
			void *ctx)
{
	if (index > 1)
		return NULL;
	xb_uart *u = xcalloc(1, sizeof *u);
	u->board = b;
	u->index = index;
	u->dreq = (xb_dreq_lines){.base = XB_DREQ_UART0_TX + 2 * index, .n = 2};
	u->fn = fn;
	u->ctx = ctx;
	uart_block_reset(u, 1);
	if (bus_map(board_bus(b), index ? XB_UART1_BASE : XB_UART0_BASE, 0x1000,
		    index ? "UART1" : "UART0", &uart_ops, u)) {
		free(u);
		return NULL;
	}
	resets_on_block(r, index ? XB_RESET_UART1 : XB_RESET_UART0, uart_block_reset, u);
	return u;
}

xb_uart *uart_new(xb_board *b, xb_resets *r, xb_uart_byte_fn fn, void *ctx)
{
	return uart_new_index(b, r, 0, fn, ctx);
}

void uart_free(xb_uart *u)
{
	free(u);
}
