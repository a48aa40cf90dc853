/* spi: SPI0 and SPI1 of the virtual Pico, Arm PrimeCell PL022 synchronous serial ports
 * (RP2040 datasheet 4.4) as masters. Frames written to SSPDR wait in the 8-entry TX FIFO
 * and leave one after the other at the bit rate clk_peri / (CPSDVSR x (1 + SCR)); each
 * frame shifted out brings one frame into the RX FIFO: the frame itself with loopback
 * (CR1.LBM), otherwise what the external device answers. The external device is a shift
 * register: it answers every frame with the one it received before (0 for the first one),
 * and the frames it receives are reported to the board log. */
#include <stdio.h>
#include <stdlib.h>

#include "periph.h"

enum {
	SSPCR0 = 0x00,
	SSPCR1 = 0x04,
	SSPDR = 0x08,
	SSPSR = 0x0C,
	SSPCPSR = 0x10,
	SSPIMSC = 0x14,
	SSPRIS = 0x18,
	SSPMIS = 0x1C,
	SSPICR = 0x20,
	SSPDMACR = 0x24,
	SSPPERIPHID0 = 0xFE0,
	SSPPCELLID3 = 0xFFC,
};

#define CR0_DSS 0x000Fu
#define CR0_FRF_SHIFT 4
#define CR0_SCR_SHIFT 8
#define CR1_LBM 0x1u
#define CR1_SSE 0x2u
#define CR1_MS 0x4u
#define SR_TFE 0x01u
#define SR_TNF 0x02u
#define SR_RNE 0x04u
#define SR_RFF 0x08u
#define SR_BSY 0x10u
#define INT_ROR 0x1u
#define INT_RT 0x2u
#define INT_RX 0x4u
#define INT_TX 0x8u
#define DMA_RXDMAE 0x1u
#define DMA_TXDMAE 0x2u
#define SPI_FIFO_DEPTH 8
#define SPI_LOG_LINES 100
#define SPI_LOG_FRAMES 32
/* The receive timeout (RTRIS) fires after 32 bit periods without a frame received while
 * the RX FIFO holds data (PL022 TRM, SSPRTINTR). */
#define SPI_RX_TIMEOUT_BITS 32

/* PERIPHID0-3 and PCELLID0-3 (pico-sdk hardware/regs/spi.h reset values). */
static const uint8_t spi_ids[8] = {0x22, 0x10, 0x34, 0x00, 0x0D, 0xF0, 0x05, 0xB1};

struct xb_spi {
	xb_board *board;
	unsigned index;
	xb_dreq_lines dreq; /* TX, RX */
	uint32_t cr0, cr1, cpsr, imsc, ris, dmacr;
	uint16_t tx[SPI_FIFO_DEPTH], rx[SPI_FIFO_DEPTH];
	unsigned tx_head, tx_count, rx_head, rx_count;
	int shifting;      /* a frame is on the wire */
	uint16_t cur;      /* that frame */
	uint64_t event, timeout_event;
	int irq_level;
	int slave_reported;
	/* the external device: the last frame it received */
	uint16_t device_last;
	/* the burst being reported */
	char line[200];
	size_t line_len;
	unsigned line_frames;
	unsigned log_lines;
};

static xb_bus *spi_bus(xb_spi *s)
{
	return board_bus(s->board);
}

static unsigned spi_bits(const xb_spi *s)
{
	unsigned dss = s->cr0 & CR0_DSS;
	return dss < 3 ? 4 : dss + 1; /* DSS 0-2 are reserved: taken as 4 bits */
}

/* CPU cycles per bit: clk_peri (clk_sys here, as the SDK sets it up) divided by
 * CPSDVSR x (1 + SCR) (4.4.3.3). CPSDVSR 0 is not a valid divisor: taken as 2. */
static uint64_t spi_bit_cycles(const xb_spi *s)
{
	unsigned cpsdvsr = s->cpsr & 0xFE;
	if (!cpsdvsr)
		cpsdvsr = 2;
	return (uint64_t)cpsdvsr * (1 + ((s->cr0 >> CR0_SCR_SHIFT) & 0xFF));
}

/* ---- Interrupts and DMA ---- */

static void spi_update(xb_spi *s)
{
	/* TXRIS: the TX FIFO is half empty or less; RXRIS: half full or more (4.4.3.12). */
	s->ris &= INT_ROR | INT_RT;
	if (s->tx_count <= SPI_FIFO_DEPTH / 2)
		s->ris |= INT_TX;
	if (s->rx_count >= SPI_FIFO_DEPTH / 2)
		s->ris |= INT_RX;
	int level = (s->ris & s->imsc) != 0;
	if (level != s->irq_level) {
		s->irq_level = level;
		board_irq_set(s->board, XB_IRQ_SPI0 + s->index, level);
	}
	dreq_lines_set(&s->dreq, 0, (s->dmacr & DMA_TXDMAE) && s->tx_count < SPI_FIFO_DEPTH);
	dreq_lines_set(&s->dreq, 1, (s->dmacr & DMA_RXDMAE) && s->rx_count > 0);
}

int spi_dreq(const xb_spi *s, unsigned dreq)
{
	return dreq_lines_level(&s->dreq, dreq);
}

void spi_set_dreq(xb_spi *s, xb_dreq_fn fn, void *ctx)
{
	s->dreq.fn = fn;
	s->dreq.ctx = ctx;
}

/* ---- The report of frames sent to the external device ---- */

static void spi_log_flush(xb_spi *s)
{
	if (!s->line_len)
		return;
	if (s->log_lines < SPI_LOG_LINES)
		bus_log(spi_bus(s), "%s", s->line);
	else if (s->log_lines == SPI_LOG_LINES)
		bus_log(spi_bus(s), "SPI%u: further frames are not reported", s->index);
	s->log_lines++;
	s->line_len = 0;
}

static void spi_log_frame(xb_spi *s, uint16_t frame)
{
	if (!s->line_len) {
		int n = snprintf(s->line, sizeof s->line, "SPI%u sent %u-bit frames:", s->index,
				 spi_bits(s));
		s->line_len = n > 0 ? (size_t)n : 0;
		s->line_frames = 0;
	}
	if (++s->line_frames > SPI_LOG_FRAMES) {
		spi_log_flush(s);
		spi_log_frame(s, frame);
		return;
	}
	int n = snprintf(s->line + s->line_len, sizeof s->line - s->line_len,
			 spi_bits(s) > 8 ? " %04x" : " %02x", frame);
	if (n > 0 && s->line_len + (size_t)n < sizeof s->line)
		s->line_len += (size_t)n;
}

/* ---- Shifting ---- */

static void spi_event(xb_board *b, void *ctx);
static void spi_timeout(xb_board *b, void *ctx);

/* Starts the next frame if the port is enabled, idle and has one. */
static void spi_kick(xb_spi *s)
{
	if (s->shifting || !(s->cr1 & CR1_SSE) || !s->tx_count)
		return;
	if (s->cr1 & CR1_MS) {
		/* Slave mode would wait for an external clock: nothing is shifted. */
		if (!s->slave_reported)
			bus_log(spi_bus(s), "SPI%u: slave mode is not modelled", s->index);
		s->slave_reported = 1;
		return;
	}
	s->cur = s->tx[s->tx_head];
	s->tx_head = (s->tx_head + 1) % SPI_FIFO_DEPTH;
	s->tx_count--;
	s->shifting = 1;
	uint64_t end = board_cycles(s->board) + spi_bits(s) * spi_bit_cycles(s);
	s->event = board_schedule(s->board, end, spi_event, s);
}

static void spi_event(xb_board *b, void *ctx)
{
	xb_spi *s = ctx;
	s->event = 0;
	s->shifting = 0;
	uint16_t mask = (uint16_t)((1u << spi_bits(s)) - 1), in;
	if (s->cr1 & CR1_LBM) {
		in = s->cur & mask;
	} else {
		in = s->device_last & mask;
		s->device_last = s->cur & mask;
		spi_log_frame(s, s->cur & mask);
	}
	if (s->rx_count < SPI_FIFO_DEPTH) {
		s->rx[(s->rx_head + s->rx_count) % SPI_FIFO_DEPTH] = in;
		s->rx_count++;
	} else {
		s->ris |= INT_ROR; /* overrun: the frame is lost */
	}
	if (s->timeout_event)
		board_cancel(b, s->timeout_event);
	uint64_t timeout = board_cycles(b) + SPI_RX_TIMEOUT_BITS * spi_bit_cycles(s);
	s->timeout_event = board_schedule(b, timeout, spi_timeout, s);
	spi_kick(s);
	if (!s->shifting)
		spi_log_flush(s); /* the burst has ended */
	spi_update(s);
}

static void spi_timeout(xb_board *b, void *ctx)
{
	(void)b;
	xb_spi *s = ctx;
	s->timeout_event = 0;
	if (s->rx_count && !s->shifting) {
		s->ris |= INT_RT;
		spi_update(s);
	}
}

static void spi_halt(xb_spi *s)
{
	if (s->event)
		board_cancel(s->board, s->event);
	if (s->timeout_event)
		board_cancel(s->board, s->timeout_event);
	s->event = s->timeout_event = 0;
	s->shifting = 0;
	spi_log_flush(s);
}

/* ---- Registers ---- */

static uint32_t spi_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_spi *s = ctx;
	if (off >= SSPPERIPHID0 && off <= SSPPCELLID3)
		return spi_ids[(off - SSPPERIPHID0) / 4];
	switch (off) {
	case SSPCR0: return s->cr0;
	case SSPCR1: return s->cr1;
	case SSPDR: {
		if (!s->rx_count)
			return 0;
		uint16_t v = s->rx[s->rx_head];
		if (!bus_access_is_debug(spi_bus(s))) {
			s->rx_head = (s->rx_head + 1) % SPI_FIFO_DEPTH;
			s->rx_count--;
			spi_update(s);
		}
		return v;
	}
	case SSPSR: {
		uint32_t sr = 0;
		if (!s->tx_count)
			sr |= SR_TFE;
		if (s->tx_count < SPI_FIFO_DEPTH)
			sr |= SR_TNF;
		if (s->rx_count)
			sr |= SR_RNE;
		if (s->rx_count == SPI_FIFO_DEPTH)
			sr |= SR_RFF;
		if (s->shifting || (s->tx_count && (s->cr1 & CR1_SSE) && !(s->cr1 & CR1_MS)))
			sr |= SR_BSY;
		return sr;
	}
	case SSPCPSR: return s->cpsr;
	case SSPIMSC: return s->imsc;
	case SSPRIS: return s->ris;
	case SSPMIS: return s->ris & s->imsc;
	case SSPICR: return 0;
	case SSPDMACR: return s->dmacr;
	}
	bus_report_hole(spi_bus(s));
	return 0;
}

static void spi_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		      enum xb_alias_op op)
{
	(void)size;
	xb_spi *s = ctx;
	switch (off) {
	case SSPCR0:
		s->cr0 = periph_rw(s->cr0, value, op, 0xFFFF);
		if (((s->cr0 >> CR0_FRF_SHIFT) & 3) == 2)
			bus_log(spi_bus(s), "SPI%u: the Microwire format is not modelled (frames "
					    "are shifted as in Motorola format)", s->index);
		break;
	case SSPCR1: {
		uint32_t old = s->cr1;
		s->cr1 = periph_rw(s->cr1, value, op, 0xF);
		if ((old & CR1_SSE) && !(s->cr1 & CR1_SSE) && s->shifting) {
			/* Disabling stops the port; the frame on the wire is lost. */
			spi_halt(s);
		}
		spi_kick(s);
		break;
	}
	case SSPDR:
		/* A write to a full TX FIFO is lost (the PL022 has no TX overrun flag). */
		if (s->tx_count < SPI_FIFO_DEPTH) {
			s->tx[(s->tx_head + s->tx_count) % SPI_FIFO_DEPTH] =
				(uint16_t)bus_alias_apply(0, value, op);
			s->tx_count++;
		}
		spi_kick(s);
		break;
	case SSPCPSR: s->cpsr = periph_rw(s->cpsr, value, op, 0xFE); break;
	case SSPIMSC: s->imsc = periph_rw(s->imsc, value, op, 0xF); break;
	case SSPICR: s->ris = periph_wc(s->ris, value & (INT_ROR | INT_RT)); break;
	case SSPDMACR: s->dmacr = periph_rw(s->dmacr, value, op, 0x3); break;
	case SSPSR:
	case SSPRIS:
	case SSPMIS:
		return; /* read-only */
	default:
		if (off >= SSPPERIPHID0 && off <= SSPPCELLID3)
			return;
		bus_report_hole(spi_bus(s));
		return;
	}
	spi_update(s);
}

static const xb_device_ops spi_ops = {.read = spi_read, .write = spi_write};

/* RESETS bit 16 or 17 (and a system reset): registers to their reset values, FIFOs empty.
 * The external device keeps its last frame. */
static void spi_block_reset(void *ctx, int held)
{
	xb_spi *s = ctx;
	if (!held)
		return;
	spi_halt(s);
	s->cr0 = s->cr1 = s->cpsr = s->imsc = s->ris = s->dmacr = 0;
	s->tx_head = s->tx_count = s->rx_head = s->rx_count = 0;
	spi_update(s);
}

xb_spi *spi_new(xb_board *b, xb_resets *r, unsigned index)
{
	if (index > 1)
		return NULL;
	xb_spi *s = xcalloc(1, sizeof *s);
	s->board = b;
	s->index = index;
	s->dreq = (xb_dreq_lines){.base = XB_DREQ_SPI0_TX + 2 * index, .n = 2};
	spi_block_reset(s, 1);
	if (bus_map(board_bus(b), index ? XB_SPI1_BASE : XB_SPI0_BASE, 0x1000,
		    index ? "SPI1" : "SPI0", &spi_ops, s)) {
		free(s);
		return NULL;
	}
	resets_on_block(r, index ? XB_RESET_SPI1 : XB_RESET_SPI0, spi_block_reset, s);
	return s;
}

void spi_free(xb_spi *s)
{
	free(s);
}
