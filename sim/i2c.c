/* i2c: I2C0 and I2C1 of the virtual Pico, Synopsys DW_apb_i2c controllers in master mode
 * (RP2040 datasheet 4.3) driving a bus with one virtual target each. Commands written to
 * IC_DATA_CMD go through the 16-entry TX FIFO and take the bus time SCL gives them; the
 * target ACKs its address, takes written bytes into a 256-byte register file (the first
 * byte of a write sets its register pointer, as on an EEPROM) and answers reads from it;
 * every other address NAKs, which aborts the transfer as the datasheet's TX_ABRT_SOURCE
 * describes. Transfers are reported to the board log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "periph.h"

enum {
	IC_CON = 0x00,
	IC_TAR = 0x04,
	IC_SAR = 0x08,
	IC_DATA_CMD = 0x10,
	IC_SS_SCL_HCNT = 0x14,
	IC_SS_SCL_LCNT = 0x18,
	IC_FS_SCL_HCNT = 0x1C,
	IC_FS_SCL_LCNT = 0x20,
	IC_INTR_STAT = 0x2C,
	IC_INTR_MASK = 0x30,
	IC_RAW_INTR_STAT = 0x34,
	IC_RX_TL = 0x38,
	IC_TX_TL = 0x3C,
	IC_CLR_INTR = 0x40,
	IC_CLR_RX_UNDER = 0x44,
	IC_CLR_RX_OVER = 0x48,
	IC_CLR_TX_OVER = 0x4C,
	IC_CLR_RD_REQ = 0x50,
	IC_CLR_TX_ABRT = 0x54,
	IC_CLR_RX_DONE = 0x58,
	IC_CLR_ACTIVITY = 0x5C,
	IC_CLR_STOP_DET = 0x60,
	IC_CLR_START_DET = 0x64,
	IC_CLR_GEN_CALL = 0x68,
	IC_ENABLE = 0x6C,
	IC_STATUS = 0x70,
	IC_TXFLR = 0x74,
	IC_RXFLR = 0x78,
	IC_SDA_HOLD = 0x7C,
	IC_TX_ABRT_SOURCE = 0x80,
	IC_SLV_DATA_NACK_ONLY = 0x84,
	IC_DMA_CR = 0x88,
	IC_DMA_TDLR = 0x8C,
	IC_DMA_RDLR = 0x90,
	IC_SDA_SETUP = 0x94,
	IC_ACK_GENERAL_CALL = 0x98,
	IC_ENABLE_STATUS = 0x9C,
	IC_FS_SPKLEN = 0xA0,
	IC_CLR_RESTART_DET = 0xA8,
	IC_COMP_PARAM_1 = 0xF4,
	IC_COMP_VERSION = 0xF8,
	IC_COMP_TYPE = 0xFC,
	IC_SIZE = 0x100,
};

/* IC_CON */
#define CON_MASTER_MODE 0x001u
#define CON_SPEED_SHIFT 1
#define CON_10BITADDR_MASTER 0x010u
#define CON_SLAVE_DISABLE 0x040u
#define CON_TX_EMPTY_CTRL 0x100u
#define CON_RX_FIFO_FULL_HLD_CTRL 0x200u
#define CON_RESET 0x65u
#define CON_MASK 0x7FFu
/* IC_TAR */
#define TAR_RESET 0x055u
#define TAR_MASK 0xFFFu
#define TAR_GC_OR_START 0x400u
#define TAR_SPECIAL 0x800u
/* IC_DATA_CMD */
#define CMD_READ 0x100u
#define CMD_STOP 0x200u
#define CMD_RESTART 0x400u
/* interrupt bits (RAW_INTR_STAT, INTR_STAT, INTR_MASK) */
#define INT_RX_UNDER 0x001u
#define INT_RX_OVER 0x002u
#define INT_RX_FULL 0x004u
#define INT_TX_OVER 0x008u
#define INT_TX_EMPTY 0x010u
#define INT_TX_ABRT 0x040u
#define INT_ACTIVITY 0x100u
#define INT_STOP_DET 0x200u
#define INT_START_DET 0x400u
#define INT_MASK_RESET 0x8FFu
#define INT_ALL 0x1FFFu
/* IC_ENABLE */
#define EN_ENABLE 0x1u
#define EN_ABORT 0x2u
#define EN_TX_CMD_BLOCK 0x4u
/* IC_STATUS */
#define ST_ACTIVITY 0x01u
#define ST_TFNF 0x02u
#define ST_TFE 0x04u
#define ST_RFNE 0x08u
#define ST_RFF 0x10u
#define ST_MST_ACTIVITY 0x20u
/* IC_TX_ABRT_SOURCE */
#define ABRT_7B_ADDR_NOACK 0x00001u
#define ABRT_10ADDR1_NOACK 0x00002u
#define ABRT_GCALL_NOACK 0x00010u
#define ABRT_GCALL_READ 0x00020u
#define ABRT_SBYTE_NORSTRT 0x00200u
#define ABRT_USER_ABRT 0x10000u
#define ABRT_FLUSH_SHIFT 23
/* IC_DMA_CR */
#define DMA_RDMAE 0x1u
#define DMA_TDMAE 0x2u

#define I2C_FIFO_DEPTH 16
/* RP2040 configuration: TX and RX buffers of 16 (datasheet 4.3.2, IC_COMP_PARAM_1 fields
 * encode depth - 1). */
#define I2C_COMP_PARAM_1 0x000F0F00u
#define I2C_COMP_VERSION 0x3230312Au
#define I2C_COMP_TYPE 0x44570140u
#define I2C_LOG_LINES 100
#define I2C_LOG_BYTES 32

/* One command of the TX FIFO: IC_DATA_CMD bits 10:0. */
typedef uint16_t i2c_cmd;

struct xb_i2c {
	xb_board *board;
	unsigned index;
	xb_dreq_lines dreq; /* TX, RX */
	/* registers */
	uint32_t con, tar, sar, ss_hcnt, ss_lcnt, fs_hcnt, fs_lcnt, intr_mask, rx_tl, tx_tl;
	uint32_t enable, sda_hold, abrt_source, slv_data_nack, dma_cr, dma_tdlr, dma_rdlr;
	uint32_t sda_setup, ack_gen_call, fs_spklen;
	uint32_t raw; /* latched interrupt bits (RX_FULL and TX_EMPTY are computed) */
	/* FIFOs */
	i2c_cmd tx[I2C_FIFO_DEPTH];
	unsigned tx_head, tx_count;
	uint8_t rx[I2C_FIFO_DEPTH];
	unsigned rx_head, rx_count;
	/* the master's state on the bus */
	int bus_active;    /* between START and the end of STOP */
	int busy;          /* a popped command is on the bus */
	int last_read;     /* direction of the current transfer */
	int addr_acked;    /* the address of the current transfer was ACKed */
	i2c_cmd cur;       /* the command on the bus */
	int stopping;      /* the event pending ends a STOP */
	int aborting;      /* the pending STOP follows an abort */
	uint64_t event;
	int irq_level;
	/* the virtual target */
	unsigned target;
	uint8_t mem[256];
	uint8_t ptr;
	int ptr_set; /* the current write has set the register pointer */
	/* the transfer being reported */
	char line[160];
	size_t line_len;
	unsigned line_bytes;
	unsigned log_lines;
};

static xb_bus *i2c_bus(xb_i2c *i)
{
	return board_bus(i->board);
}

/* ---- Interrupts and DMA requests ---- */

/* TX_EMPTY (4.3.16): the TX FIFO is at or below IC_TX_TL; with IC_CON.TX_EMPTY_CTRL, also
 * the command last popped has finished on the bus. RX_FULL: the RX FIFO above IC_RX_TL. */
static uint32_t i2c_raw(const xb_i2c *i)
{
	uint32_t r = i->raw;
	if (i->enable & EN_ENABLE) {
		if (i->tx_count <= (i->tx_tl & 0xFF) &&
		    (!(i->con & CON_TX_EMPTY_CTRL) || !i->busy))
			r |= INT_TX_EMPTY;
		if (i->rx_count > (i->rx_tl & 0xFF))
			r |= INT_RX_FULL;
	}
	return r;
}

static void i2c_update(xb_i2c *i)
{
	int level = (i2c_raw(i) & i->intr_mask) != 0;
	if (level != i->irq_level) {
		i->irq_level = level;
		board_irq_set(i->board, XB_IRQ_I2C0 + i->index, level);
	}
	/* DMA requests (4.3.15): TX while the FIFO is at or below DMA_TDLR, RX while it holds
	 * more than DMA_RDLR. */
	dreq_lines_set(&i->dreq, 0,
		       (i->dma_cr & DMA_TDMAE) && (i->enable & EN_ENABLE) &&
			       i->tx_count <= i->dma_tdlr);
	dreq_lines_set(&i->dreq, 1, (i->dma_cr & DMA_RDMAE) && i->rx_count > i->dma_rdlr);
}

int i2c_dreq(const xb_i2c *i, unsigned dreq)
{
	return dreq_lines_level(&i->dreq, dreq);
}

void i2c_set_dreq(xb_i2c *i, xb_dreq_fn fn, void *ctx)
{
	i->dreq.fn = fn;
	i->dreq.ctx = ctx;
}

/* ---- The transfer log ---- */

static void i2c_log_flush(xb_i2c *i)
{
	if (!i->line_len)
		return;
	if (i->log_lines < I2C_LOG_LINES)
		bus_log(i2c_bus(i), "%s", i->line);
	else if (i->log_lines == I2C_LOG_LINES)
		bus_log(i2c_bus(i), "I2C%u: further transfers are not reported", i->index);
	i->log_lines++;
	i->line_len = 0;
}

static void i2c_log_start(xb_i2c *i, unsigned addr, int read, int acked)
{
	i2c_log_flush(i);
	i->line_bytes = 0;
	int n = snprintf(i->line, sizeof i->line, "I2C%u %s 0x%02x:%s", i->index,
			 read ? "read from" : "write to", addr, acked ? "" : " NAK (no target)");
	i->line_len = n > 0 ? (size_t)n : 0;
}

static void i2c_log_byte(xb_i2c *i, uint8_t byte)
{
	if (!i->line_len)
		return;
	i->line_bytes++;
	if (i->line_bytes <= I2C_LOG_BYTES) {
		size_t room = sizeof i->line - i->line_len;
		int n = snprintf(i->line + i->line_len, room, " %02x", byte);
		if (n > 0 && i->line_len + (size_t)n < sizeof i->line)
			i->line_len += (size_t)n;
	} else if (i->line_bytes == I2C_LOG_BYTES + 1 && i->line_len + 4 < sizeof i->line) {
		memcpy(i->line + i->line_len, " ...", 5);
		i->line_len += 4;
	}
}

/* ---- The bus ---- */

/* Cycles of one SCL period (4.3.14: high for HCNT + SPKLEN + 7 ic_clk cycles, low for
 * LCNT + 1; ic_clk is clk_sys, the CPU's clock here). SPEED 1 uses the SS counts, 2 and 3
 * the FS ones (the RP2040 has no high-speed mode). */
static uint64_t i2c_scl_cycles(const xb_i2c *i)
{
	unsigned speed = (i->con >> CON_SPEED_SHIFT) & 3;
	uint32_t h = speed == 1 ? i->ss_hcnt : i->fs_hcnt, l = speed == 1 ? i->ss_lcnt : i->fs_lcnt;
	return (uint64_t)h + (i->fs_spklen & 0xFF) + 7 + l + 1;
}

static void i2c_event(xb_board *b, void *ctx);

static void i2c_schedule(xb_i2c *i, uint64_t periods)
{
	i->event = board_schedule(i->board, board_cycles(i->board) + periods * i2c_scl_cycles(i),
				  i2c_event, i);
}

/* 1 when the address of the current TAR is ACKed: the 7-bit target only. */
static int i2c_acks(const xb_i2c *i, uint32_t *abrt)
{
	if (i->tar & TAR_SPECIAL) {
		/* General call (write to address 0) or START byte: the target ignores both. */
		*abrt = (i->tar & TAR_GC_OR_START) ? ABRT_SBYTE_NORSTRT : ABRT_GCALL_NOACK;
		if (!(i->tar & TAR_GC_OR_START) && (i->cur & CMD_READ))
			*abrt = ABRT_GCALL_READ;
		return 0;
	}
	if (i->con & CON_10BITADDR_MASTER) {
		*abrt = ABRT_10ADDR1_NOACK;
		return 0;
	}
	*abrt = ABRT_7B_ADDR_NOACK;
	return (i->tar & 0x7F) == i->target;
}

/* Starts the next command when the bus is free for it. Each phase takes whole SCL
 * periods: START or RESTART one, the address byte and every data byte nine (eight bits
 * and the ACK), STOP one. */
static void i2c_kick(xb_i2c *i)
{
	if (i->busy || i->stopping || !(i->enable & EN_ENABLE) || (i->enable & EN_TX_CMD_BLOCK) ||
	    (i->raw & INT_TX_ABRT) || !i->tx_count)
		return;
	if (!(i->con & CON_MASTER_MODE) || !(i->con & CON_SLAVE_DISABLE))
		return; /* slave mode is not modelled (reported when enabled) */
	i->cur = i->tx[i->tx_head];
	i->tx_head = (i->tx_head + 1) % I2C_FIFO_DEPTH;
	i->tx_count--;
	i->busy = 1;
	int read = (i->cur & CMD_READ) != 0;
	uint64_t periods = 9;
	if (!i->bus_active || (i->cur & CMD_RESTART) || read != i->last_read) {
		/* START (or RESTART) and the address. */
		uint32_t abrt;
		i->addr_acked = i2c_acks(i, &abrt);
		i->bus_active = 1;
		i->last_read = read;
		i->ptr_set = 0;
		i->raw |= INT_START_DET | INT_ACTIVITY;
		i2c_log_start(i, i->tar & 0x3FF, read, i->addr_acked);
		if (!i->addr_acked) {
			i->abrt_source = abrt;
			i->aborting = 1;
			i2c_schedule(i, 10);
			i2c_update(i);
			return;
		}
		periods += 10;
	}
	if (i->cur & CMD_STOP)
		periods += 1;
	i2c_schedule(i, periods);
	i2c_update(i);
}

/* A STOP has ended: the bus is idle. */
static void i2c_stopped(xb_i2c *i)
{
	i->stopping = 0;
	i->bus_active = 0;
	i->raw |= INT_STOP_DET;
	i2c_log_flush(i);
}

static void i2c_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_i2c *i = ctx;
	i->event = 0;
	if (i->stopping) {
		i2c_stopped(i);
	} else if (i->aborting) {
		/* The address was not acknowledged (4.3.16, TX_ABRT): the TX FIFO is flushed
		 * and held flushed until IC_CLR_TX_ABRT is read; the master sends STOP. */
		i->aborting = 0;
		i->busy = 0;
		i->abrt_source |= (uint32_t)i->tx_count << ABRT_FLUSH_SHIFT;
		i->tx_count = 0;
		i->raw |= INT_TX_ABRT;
		i->stopping = 1;
		i2c_schedule(i, 1);
	} else if (i->busy) {
		i->busy = 0;
		if (i->cur & CMD_READ) {
			uint8_t byte = i->mem[i->ptr++];
			i2c_log_byte(i, byte);
			if (i->rx_count < I2C_FIFO_DEPTH) {
				i->rx[(i->rx_head + i->rx_count) % I2C_FIFO_DEPTH] = byte;
				i->rx_count++;
			} else {
				i->raw |= INT_RX_OVER; /* the byte is lost */
			}
		} else {
			uint8_t byte = (uint8_t)i->cur;
			i2c_log_byte(i, byte);
			if (!i->ptr_set) {
				i->ptr = byte;
				i->ptr_set = 1;
			} else {
				i->mem[i->ptr++] = byte;
			}
		}
		if (i->cur & CMD_STOP)
			i2c_stopped(i); /* the STOP period was part of the command's time */
	}
	i2c_kick(i);
	i2c_update(i);
}

/* Ends whatever is on the bus at once (disable, block reset): no STOP_DET. */
static void i2c_halt(xb_i2c *i)
{
	if (i->event)
		board_cancel(i->board, i->event);
	i->event = 0;
	i->busy = i->stopping = i->aborting = i->bus_active = 0;
	i->tx_count = i->rx_count = 0;
	i2c_log_flush(i);
}

/* ---- Registers ---- */

static uint32_t i2c_status(const xb_i2c *i)
{
	uint32_t s = 0;
	int active = i->bus_active || i->busy || i->stopping ||
		     ((i->enable & EN_ENABLE) && i->tx_count && !(i->raw & INT_TX_ABRT));
	if (active)
		s |= ST_ACTIVITY | ST_MST_ACTIVITY;
	if (i->tx_count < I2C_FIFO_DEPTH)
		s |= ST_TFNF;
	if (!i->tx_count)
		s |= ST_TFE;
	if (i->rx_count)
		s |= ST_RFNE;
	if (i->rx_count == I2C_FIFO_DEPTH)
		s |= ST_RFF;
	return s;
}

/* Reading a CLR register clears its bits (not through the debug port). */
static uint32_t i2c_clear(xb_i2c *i, uint32_t bits)
{
	if (bus_access_is_debug(i2c_bus(i)))
		return (i->raw & bits) != 0;
	uint32_t was = i->raw & bits;
	i->raw &= ~bits;
	if (bits & INT_TX_ABRT) {
		/* Clearing TX_ABRT also clears TX_ABRT_SOURCE and releases the TX FIFO. */
		i->abrt_source = 0;
		i2c_kick(i);
	}
	i2c_update(i);
	return was != 0;
}

static uint32_t i2c_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_i2c *i = ctx;
	switch (off) {
	case IC_CON: return i->con;
	case IC_TAR: return i->tar;
	case IC_SAR: return i->sar;
	case IC_DATA_CMD: {
		if (!i->rx_count) {
			if (!bus_access_is_debug(i2c_bus(i))) {
				i->raw |= INT_RX_UNDER;
				i2c_update(i);
			}
			return 0;
		}
		uint8_t v = i->rx[i->rx_head];
		if (!bus_access_is_debug(i2c_bus(i))) {
			i->rx_head = (i->rx_head + 1) % I2C_FIFO_DEPTH;
			i->rx_count--;
			i2c_update(i);
		}
		return v;
	}
	case IC_SS_SCL_HCNT: return i->ss_hcnt;
	case IC_SS_SCL_LCNT: return i->ss_lcnt;
	case IC_FS_SCL_HCNT: return i->fs_hcnt;
	case IC_FS_SCL_LCNT: return i->fs_lcnt;
	case IC_INTR_STAT: return i2c_raw(i) & i->intr_mask;
	case IC_INTR_MASK: return i->intr_mask;
	case IC_RAW_INTR_STAT: return i2c_raw(i);
	case IC_RX_TL: return i->rx_tl;
	case IC_TX_TL: return i->tx_tl;
	case IC_CLR_INTR:
		/* Every software-clearable interrupt and TX_ABRT_SOURCE. */
		return i2c_clear(i, INT_ALL & ~(INT_RX_FULL | INT_TX_EMPTY));
	case IC_CLR_RX_UNDER: return i2c_clear(i, INT_RX_UNDER);
	case IC_CLR_RX_OVER: return i2c_clear(i, INT_RX_OVER);
	case IC_CLR_TX_OVER: return i2c_clear(i, INT_TX_OVER);
	case IC_CLR_RD_REQ: return i2c_clear(i, 0x020);
	case IC_CLR_TX_ABRT: return i2c_clear(i, INT_TX_ABRT);
	case IC_CLR_RX_DONE: return i2c_clear(i, 0x080);
	case IC_CLR_ACTIVITY: return i2c_clear(i, INT_ACTIVITY);
	case IC_CLR_STOP_DET: return i2c_clear(i, INT_STOP_DET);
	case IC_CLR_START_DET: return i2c_clear(i, INT_START_DET);
	case IC_CLR_GEN_CALL: return i2c_clear(i, 0x800);
	case IC_CLR_RESTART_DET: return i2c_clear(i, 0x1000);
	case IC_ENABLE: return i->enable;
	case IC_STATUS: return i2c_status(i);
	case IC_TXFLR: return i->tx_count;
	case IC_RXFLR: return i->rx_count;
	case IC_SDA_HOLD: return i->sda_hold;
	case IC_TX_ABRT_SOURCE: return i->abrt_source;
	case IC_SLV_DATA_NACK_ONLY: return i->slv_data_nack;
	case IC_DMA_CR: return i->dma_cr;
	case IC_DMA_TDLR: return i->dma_tdlr;
	case IC_DMA_RDLR: return i->dma_rdlr;
	case IC_SDA_SETUP: return i->sda_setup;
	case IC_ACK_GENERAL_CALL: return i->ack_gen_call;
	case IC_ENABLE_STATUS: return i->enable & EN_ENABLE;
	case IC_FS_SPKLEN: return i->fs_spklen;
	case IC_COMP_PARAM_1: return I2C_COMP_PARAM_1;
	case IC_COMP_VERSION: return I2C_COMP_VERSION;
	case IC_COMP_TYPE: return I2C_COMP_TYPE;
	}
	bus_report_hole(i2c_bus(i));
	return 0;
}

static void i2c_push_cmd(xb_i2c *i, uint32_t v)
{
	if (!(i->enable & EN_ENABLE) || (i->raw & INT_TX_ABRT))
		return; /* a disabled or aborted controller's FIFO is held flushed */
	if (i->tx_count >= I2C_FIFO_DEPTH) {
		i->raw |= INT_TX_OVER;
		return;
	}
	i->tx[(i->tx_head + i->tx_count) % I2C_FIFO_DEPTH] = (i2c_cmd)(v & 0x7FF);
	i->tx_count++;
	i2c_kick(i);
}

static void i2c_set_enable(xb_i2c *i, uint32_t v)
{
	uint32_t old = i->enable;
	i->enable = v & (EN_ENABLE | EN_ABORT | EN_TX_CMD_BLOCK);
	if ((old & EN_ENABLE) && !(i->enable & EN_ENABLE)) {
		/* Disabling flushes both FIFOs; the model ends a transfer in progress at once
		 * (the chip finishes the byte and sends STOP first). */
		i2c_halt(i);
		i->raw &= ~INT_ACTIVITY;
		i->enable &= ~EN_ABORT;
	}
	if (!(old & EN_ENABLE) && (i->enable & EN_ENABLE) &&
	    (!(i->con & CON_MASTER_MODE) || !(i->con & CON_SLAVE_DISABLE)))
		bus_log(i2c_bus(i), "I2C%u: slave mode is not modelled", i->index);
	if ((i->enable & EN_ABORT) && (i->enable & EN_ENABLE)) {
		/* ABORT (4.3.17 IC_ENABLE): the master flushes the TX FIFO, sends STOP and
		 * reports ABRT_USER_ABRT; the bit clears when that is done. */
		if (i->event)
			board_cancel(i->board, i->event);
		i->event = 0;
		i->abrt_source = ABRT_USER_ABRT | (uint32_t)i->tx_count << ABRT_FLUSH_SHIFT;
		i->tx_count = 0;
		i->busy = i->aborting = 0;
		i->raw |= INT_TX_ABRT;
		i->enable &= ~EN_ABORT;
		if (i->bus_active) {
			i->stopping = 1;
			i2c_schedule(i, 1);
		}
	}
	i2c_kick(i);
}

static void i2c_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		      enum xb_alias_op op)
{
	(void)size;
	xb_i2c *i = ctx;
	/* These take writes only while the controller is disabled (4.3.17). */
	int locked = (i->enable & EN_ENABLE) != 0;
	switch (off) {
	case IC_CON:
		if (!locked)
			i->con = periph_rw(i->con, value, op, CON_MASK);
		break;
	case IC_TAR:
		if (!locked)
			i->tar = periph_rw(i->tar, value, op, TAR_MASK);
		break;
	case IC_SAR:
		if (!locked)
			i->sar = periph_rw(i->sar, value, op, 0x3FF);
		break;
	case IC_DATA_CMD: i2c_push_cmd(i, bus_alias_apply(0, value, op)); break;
	case IC_SS_SCL_HCNT:
		if (!locked)
			i->ss_hcnt = periph_rw(i->ss_hcnt, value, op, 0xFFFF);
		break;
	case IC_SS_SCL_LCNT:
		if (!locked)
			i->ss_lcnt = periph_rw(i->ss_lcnt, value, op, 0xFFFF);
		break;
	case IC_FS_SCL_HCNT:
		if (!locked)
			i->fs_hcnt = periph_rw(i->fs_hcnt, value, op, 0xFFFF);
		break;
	case IC_FS_SCL_LCNT:
		if (!locked)
			i->fs_lcnt = periph_rw(i->fs_lcnt, value, op, 0xFFFF);
		break;
	case IC_FS_SPKLEN:
		if (!locked)
			i->fs_spklen = periph_rw(i->fs_spklen, value, op, 0xFF);
		break;
	case IC_INTR_MASK: i->intr_mask = periph_rw(i->intr_mask, value, op, INT_ALL); break;
	case IC_RX_TL: i->rx_tl = periph_rw(i->rx_tl, value, op, 0xFF); break;
	case IC_TX_TL: i->tx_tl = periph_rw(i->tx_tl, value, op, 0xFF); break;
	case IC_ENABLE: i2c_set_enable(i, periph_rw(i->enable, value, op, 0x7)); break;
	case IC_SDA_HOLD: i->sda_hold = periph_rw(i->sda_hold, value, op, 0x00FFFFFF); break;
	case IC_SLV_DATA_NACK_ONLY:
		i->slv_data_nack = periph_rw(i->slv_data_nack, value, op, 1);
		break;
	case IC_DMA_CR: i->dma_cr = periph_rw(i->dma_cr, value, op, 3); break;
	case IC_DMA_TDLR: i->dma_tdlr = periph_rw(i->dma_tdlr, value, op, 0xF); break;
	case IC_DMA_RDLR: i->dma_rdlr = periph_rw(i->dma_rdlr, value, op, 0xF); break;
	case IC_SDA_SETUP:
		if (!locked)
			i->sda_setup = periph_rw(i->sda_setup, value, op, 0xFF);
		break;
	case IC_ACK_GENERAL_CALL:
		i->ack_gen_call = periph_rw(i->ack_gen_call, value, op, 1);
		break;
	case IC_INTR_STAT:
	case IC_RAW_INTR_STAT:
	case IC_STATUS:
	case IC_TXFLR:
	case IC_RXFLR:
	case IC_TX_ABRT_SOURCE:
	case IC_ENABLE_STATUS:
	case IC_COMP_PARAM_1:
	case IC_COMP_VERSION:
	case IC_COMP_TYPE:
		return; /* read-only */
	default:
		if (off >= IC_CLR_INTR && off <= IC_CLR_GEN_CALL)
			return; /* cleared by reads */
		if (off == IC_CLR_RESTART_DET)
			return;
		bus_report_hole(i2c_bus(i));
		return;
	}
	i2c_update(i);
}

static const xb_device_ops i2c_ops = {.read = i2c_read, .write = i2c_write};

/* ---- Life cycle ---- */

void i2c_set_target(xb_i2c *i, unsigned addr7)
{
	i->target = addr7 & 0x7F;
}

/* RESETS bit 3 or 4 (and a system reset): registers to their reset values (datasheet
 * 4.3.17), FIFOs and the bus idle. The target keeps its memory. */
static void i2c_block_reset(void *ctx, int held)
{
	xb_i2c *i = ctx;
	if (!held)
		return;
	i2c_halt(i);
	i->con = CON_RESET;
	i->tar = TAR_RESET;
	i->sar = 0x055;
	i->ss_hcnt = 0x28;
	i->ss_lcnt = 0x2F;
	i->fs_hcnt = 0x06;
	i->fs_lcnt = 0x0D;
	i->intr_mask = INT_MASK_RESET;
	i->rx_tl = i->tx_tl = 0;
	i->enable = 0;
	i->sda_hold = 0x1;
	i->abrt_source = 0;
	i->slv_data_nack = 0;
	i->dma_cr = i->dma_tdlr = i->dma_rdlr = 0;
	i->sda_setup = 0x64;
	i->ack_gen_call = 1;
	i->fs_spklen = 0x07;
	i->raw = 0;
	i->tx_head = i->rx_head = 0;
	i2c_update(i);
}

/* The target's memory when the board is made: byte k reads k XOR 0xA5. The target is
 * outside the chip, so resets of the chip leave it as it is. */
static void i2c_target_power_on(xb_i2c *i)
{
	for (unsigned k = 0; k < sizeof i->mem; k++)
		i->mem[k] = (uint8_t)(k ^ 0xA5);
	i->ptr = 0;
	i->log_lines = 0;
}

xb_i2c *i2c_new(xb_board *b, xb_resets *r, unsigned index)
{
	if (index > 1)
		return NULL;
	xb_i2c *i = xcalloc(1, sizeof *i);
	i->board = b;
	i->index = index;
	i->dreq = (xb_dreq_lines){.base = XB_DREQ_I2C0_TX + 2 * index, .n = 2};
	i->target = XB_I2C_TARGET_DEFAULT;
	i2c_target_power_on(i);
	i2c_block_reset(i, 1);
	if (bus_map(board_bus(b), index ? XB_I2C1_BASE : XB_I2C0_BASE, IC_SIZE,
		    index ? "I2C1" : "I2C0", &i2c_ops, i)) {
		free(i);
		return NULL;
	}
	resets_on_block(r, index ? XB_RESET_I2C1 : XB_RESET_I2C0, i2c_block_reset, i);
	return i;
}

void i2c_free(xb_i2c *i)
{
	free(i);
}
