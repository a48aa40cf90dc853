/* uart: UART0 and UART1 of the virtual Pico (Arm PL011s). Bytes written to DR queue in the
 * transmit FIFO (32 entries, or a one-byte holding register without FEN) and leave one after
 * the other through the shift register at the line rate: a frame of 1 start bit, 5 to 8 data
 * bits, a parity bit with PEN and 1 or 2 stop bits, each bit 16 periods of the baud clock
 * clk_peri / (IBRD + FBRD / 64) (RP2040 datasheet 4.2.7.1); the divisors take effect when
 * LCR_H is written, as the PL011 latches them. clk_peri is taken to be clk_sys, the CPU's
 * clock, as pico-sdk and Zephyr set it up. Each byte reaches the callback as its stop bits
 * end. Nothing is ever received. */
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
#define UART_LCR_H_PEN 0x02u
#define UART_LCR_H_STP2 0x08u
#define UART_LCR_H_FEN 0x10u
#define UART_LCR_H_WLEN_SHIFT 5
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
	/* The baud divisor in 1/64ths, as latched by the last LCR_H write. */
	uint32_t divisor;
	/* The transmit FIFO: fifo_count bytes from fifo_head (a ring). */
	uint8_t fifo[UART_FIFO_DEPTH];
	unsigned fifo_head, fifo_count;
	/* The shift register: the byte on the line and the event that ends its frame (0: idle). */
	uint8_t shift;
	uint64_t shift_event, shift_end;
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

/* Cycles one frame takes on the line: (1 start + 5..8 data + parity + 1..2 stop) bits of
 * 16 baud-clock periods each, a period being divisor / 64 cycles of clk_peri. A divisor
 * below 1 (IBRD 0, which the PL011 does not allow) is taken as 1. */
uint64_t uart_frame_cycles(const xb_uart *u)
{
	unsigned bits = 1 + 5 + ((u->lcr_h >> UART_LCR_H_WLEN_SHIFT) & 3) +
			((u->lcr_h & UART_LCR_H_PEN) ? 1 : 0) + ((u->lcr_h & UART_LCR_H_STP2) ? 2 : 1);
	uint64_t div = u->divisor < 64 ? 64 : u->divisor;
	return (bits * 16 * div + 63) / 64;
}

/* The FIFO level at or below which the transmit interrupt is raised: IFLS.TXIFLSEL's 1/8 to
 * 7/8 of 32 with FIFOs; without them, the holding register being empty. */
static unsigned uart_tx_trigger(const xb_uart *u)
{
	static const unsigned eighths[8] = {1, 2, 4, 6, 7, 4, 4, 4}; /* 5-7 reserved: 1/2 */
	if (!(u->lcr_h & UART_LCR_H_FEN))
		return 0;
	return UART_FIFO_DEPTH * eighths[u->ifls & 7] / 8;
}

int uart_busy(const xb_uart *u)
{
	return u->fifo_count || u->shift_event;
}

int uart_tx_enabled(const xb_uart *u)
{
	return uart_tx_on(u);
}

static void uart_send(xb_uart *u, uint8_t byte)
{
	u->sent++;
	if (u->fn)
		u->fn(u->ctx, byte);
}

static void uart_start(xb_uart *u, uint64_t at);

/* The stop bits of the byte in the shift register have ended: it has left; the next one
 * starts where this frame ended (the line's clock, not the instruction boundary the event
 * ran at). */
static void uart_frame_done(xb_board *b, void *ctx)
{
	(void)b;
	xb_uart *u = ctx;
	u->shift_event = 0;
	uart_send(u, u->shift);
	uart_start(u, u->shift_end);
}

/* An enabled transmitter with an idle shift register takes the oldest byte of the FIFO.
 * The PL011 raises TXRIS when the FIFO level drops through the trigger level (an edge, not
 * a level: a FIFO that is already low raises nothing until it has been filled past it). */
static void uart_start(xb_uart *u, uint64_t at)
{
	if (u->shift_event || !u->fifo_count || !uart_tx_on(u))
		return;
	u->shift = u->fifo[u->fifo_head];
	u->fifo_head = (u->fifo_head + 1) % UART_FIFO_DEPTH;
	u->fifo_count--;
	u->shift_end = at + uart_frame_cycles(u);
	u->shift_event = board_schedule(u->board, u->shift_end, uart_frame_done, u);
	if (u->fifo_count == uart_tx_trigger(u)) {
		u->ris |= UART_INT_TX;
		uart_update_irq(u);
	}
	uart_update_dreq(u);
}

static void uart_push(xb_uart *u, uint8_t byte)
{
	if (u->fifo_count < uart_fifo_depth(u)) {
		u->fifo[(u->fifo_head + u->fifo_count) % UART_FIFO_DEPTH] = byte;
		u->fifo_count++;
	}
	/* Filling the FIFO past the trigger level clears the transmit interrupt. */
	if (u->fifo_count > uart_tx_trigger(u)) {
		u->ris &= ~UART_INT_TX;
		uart_update_irq(u);
	}
	uart_start(u, board_cycles(u->board));
	uart_update_dreq(u);
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
		/* BUSY from the first byte in the FIFO to the last stop bit, enabled or not. */
		uint32_t fr = UART_FR_RXFE;
		if (!u->fifo_count)
			fr |= UART_FR_TXFE;
		if (uart_busy(u))
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
		uart_push(u, (uint8_t)bus_alias_apply(0, value, op));
		return;
	case UART_RSR:
		return; /* a write clears the (never set) receive errors */
	case UART_ILPR: u->ilpr = periph_rw(u->ilpr, value, op, 0xFF); return;
	case UART_IBRD: u->ibrd = periph_rw(u->ibrd, value, op, 0xFFFF); return;
	case UART_FBRD: u->fbrd = periph_rw(u->fbrd, value, op, 0x3F); return;
	case UART_LCR_H:
		u->lcr_h = periph_rw(u->lcr_h, value, op, 0xFF);
		u->divisor = (u->ibrd << 6) | u->fbrd;
		uart_update_dreq(u);
		return;
	case UART_CR:
		/* A transmitter switched off finishes the byte it is sending. */
		u->cr = periph_rw(u->cr, value, op, UART_CR_MASK);
		uart_start(u, board_cycles(u->board));
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
	u->ilpr = u->ibrd = u->fbrd = u->lcr_h = u->imsc = u->ris = u->dmacr = u->divisor = 0;
	u->cr = UART_CR_RESET;
	u->ifls = UART_IFLS_RESET;
	u->fifo_head = u->fifo_count = 0;
	if (u->shift_event)
		board_cancel(u->board, u->shift_event);
	u->shift_event = 0;
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

/* The board (and its event queue) is freed first. */
void uart_free(xb_uart *u)
{
	free(u);
}
