/* ssi: the RP2040's SSI (DW_apb_ssi at 0x18000000) in front of the QSPI flash chip, IO_QSPI
 * and PADS_QSPI (the flash pins and the chip-select override), the XIP read format and its
 * miss cost, and the boot path: boot2 loaded and checked the way the bootrom does, or a
 * direct start in the state boot2 leaves. */
#include <stdlib.h>
#include <string.h>

#include "pico.h"
#include "periph.h"

/*
 * Register facts: RP2040 datasheet 4.10 (SSI), 2.19.6.2 (IO_QSPI), 2.19.6.4 (PADS_QSPI);
 * pico-sdk hardware/regs/ssi.h, io_qspi.h, pads_qspi.h. The SSI's configuration registers
 * cannot be written while it is enabled (datasheet 2.8.1.3.2: "the Synopsys SSI can not be
 * reconfigured at all without first disabling it"); SSIENR = 0 clears both FIFOs.
 *
 * Serial timing: one SCK is BAUDR.SCKDV clk_sys cycles. A TX entry starts shifting when the
 * shifter is free; /CS (ss_n, with SER bit 0 set) stays low while the TX FIFO holds the
 * next frame when one ends, and rises when it runs dry (which is why the SDK forces /CS
 * through IO_QSPI for commands longer than the FIFO). Received frames enter the RX FIFO as
 * their last bit arrives. Transfers are worked out lazily from virtual time.
 */

#define SSI_BASE 0x18000000u
#define IO_QSPI_BASE 0x40018000u
#define PADS_QSPI_BASE 0x40020000u
#define RESET_IO_QSPI 6u
#define RESET_PADS_QSPI 9u
#define SSI_FIFO 16u
#define SSI_UNITS 64u

/* Where the bootrom copies boot2 (the last 256 bytes of SRAM5) and its stack. */
#define BOOT2_SRAM 0x20041F00u
#define BOOT2_SP 0x20041F00u /* the real bootrom's initial SP: boot2 runs with its stack below itself */
/* A `wfi; b .` loop the board keeps at the end of the 16 KB ROM: where the core waits when
 * the chip would have entered USB boot. */
#define USB_BOOT_LOOP 0x3FF0u

enum { REG_CTRLR0 = 0x00, REG_CTRLR1 = 0x04, REG_SSIENR = 0x08, REG_MWCR = 0x0C,
       REG_SER = 0x10, REG_BAUDR = 0x14, REG_TXFTLR = 0x18, REG_RXFTLR = 0x1C,
       REG_TXFLR = 0x20, REG_RXFLR = 0x24, REG_SR = 0x28, REG_IMR = 0x2C, REG_ISR = 0x30,
       REG_RISR = 0x34, REG_TXOICR = 0x38, REG_RXOICR = 0x3C, REG_RXUICR = 0x40,
       REG_MSTICR = 0x44, REG_ICR = 0x48, REG_DMACR = 0x4C, REG_DMATDLR = 0x50,
       REG_DMARDLR = 0x54, REG_IDR = 0x58, REG_VERSION = 0x5C, REG_DR0 = 0x60,
       REG_DR35 = 0xEC, REG_RSD = 0xF0, REG_SPI_CTRLR0 = 0xF4, REG_TDE = 0xF8 };

/* SR and RISR bits. */
#define SR_BUSY 0x01u
#define SR_TFNF 0x02u
#define SR_TFE 0x04u
#define SR_RFNE 0x08u
#define SR_RFF 0x10u
#define RIS_TXE 0x01u
#define RIS_TXO 0x02u
#define RIS_RXU 0x04u
#define RIS_RXO 0x08u
#define RIS_RXF 0x10u

#define CTRLR0_TMOD(v) (((v) >> 8) & 3u)
#define CTRLR0_DFS32(v) (((v) >> 16) & 31u)
#define CTRLR0_FRF(v) (((v) >> 21) & 3u)
#define SPI_TRANS(v) ((v) & 3u)
#define SPI_ADDR_L(v) (((v) >> 2) & 15u)
#define SPI_INST_L(v) (((v) >> 8) & 3u)
#define SPI_WAIT(v) (((v) >> 11) & 31u)
#define SPI_XIP_CMD(v) ((v) >> 24)

enum { U_FRAME, U_RXPHASE, U_ENH };

typedef struct ssi_unit {
	int kind;
	int cont;            /* /CS stays low from the previous unit */
	uint64_t start, end;
	uint32_t value;      /* the TX frame; U_ENH: the address word */
	uint32_t inst;       /* U_ENH: the instruction */
	int has_inst;
	/* the configuration when it was queued */
	uint32_t ctrlr0, ctrlr1, spi, sckdv;
} ssi_unit;

struct xb_qspi {
	xb_board *board;
	xb_bus *bus;
	xb_flashchip *chip;
	/* SSI */
	uint32_t ctrlr0, ctrlr1, ssienr, mwcr, ser, baudr, txftlr, rxftlr, imr;
	uint32_t dmacr, dmatdlr, dmardlr, rsd, spi_ctrlr0, tde;
	uint32_t ris;        /* sticky TXO, RXU, RXO */
	ssi_unit units[SSI_UNITS];
	unsigned uhead, ucount;
	uint64_t last_end;
	uint32_t rx[SSI_FIFO];
	unsigned rx_head, rx_count;
	uint32_t pend_inst;
	int have_inst;
	int ss_active;       /* the SSI is in a transfer (its ss_n is low if SER is set) */
	int cs_low;          /* what the chip sees */
	unsigned reported;   /* report-once bits */
	/* IO_QSPI and PADS_QSPI */
	uint32_t io_ctrl[6];
	uint32_t io_intr, io_inte[3], io_intf[3];
	uint32_t pads[7];
	/* XIP */
	uint32_t penalty, ref_serial, target_penalty;
	/* boot */
	xb_boot_info boot;
};

/* Report-once bits. */
enum { REP_CFG = 1, REP_TMOD = 2, REP_SCKDV = 4, REP_TXO = 8, REP_RXU = 16, REP_USB = 32,
       REP_DFS = 64 };

static void qspi_once(xb_qspi *q, unsigned bit, const char *msg)
{
	if (q->reported & bit)
		return;
	q->reported |= bit;
	bus_log(q->bus, "%s", msg);
}

/* ---- The pins: IO_QSPI's chip-select path ---- */

/* /CS as the chip sees it: FUNCSEL 0 routes the SSI's ss_n (low in a transfer when SER bit 0
 * is set); any other function leaves the pin to its pull-up (PADS_QSPI SS resets to PUE);
 * then OEOVER and OUTOVER (datasheet 2.19.6.2, GPIO_QSPI_SS_CTRL). */
static int qspi_cs_low(const xb_qspi *q)
{
	uint32_t ctrl = q->io_ctrl[1];
	int driven = (ctrl & 0x1F) == 0;
	int level = driven ? !(q->ss_active && (q->ser & 1)) : 1;
	switch ((ctrl >> 8) & 3) {
	case 1: level = !level; break;
	case 2: level = 0; driven = 1; break;
	case 3: level = 1; driven = 1; break;
	}
	switch ((ctrl >> 12) & 3) {
	case 1: driven = !driven; break;
	case 2: driven = 0; break;
	case 3: driven = 1; break;
	}
	if (!driven)
		level = 1;
	return !level;
}

static void qspi_update_cs(xb_qspi *q, uint64_t cycle)
{
	int low = qspi_cs_low(q);
	if (low != q->cs_low) {
		q->cs_low = low;
		flashchip_select(q->chip, low, cycle);
	}
}

/* ---- Clocking the chip ---- */

/* Shifts nbits (a multiple of lanes) MSB first on `lanes` lanes; drive = 0 for clocks where
 * the SSI drives nothing (dummy clocks, data phases). Returns the bits sampled on the same
 * lanes (one lane: DO, IO1). Undriven lanes read 1 (the W25Q16JV's /WP and /HOLD pull-ups;
 * a floating DO). */
static uint32_t qspi_shift(xb_qspi *q, uint32_t out, unsigned nbits, unsigned lanes, int drive,
			   uint64_t cycle, uint32_t sckdv)
{
	uint32_t in = 0, mask = (1u << lanes) - 1;
	for (unsigned i = 0; i < nbits; i += lanes) {
		unsigned shift = nbits - i - lanes;
		unsigned io = 0xF, oe = 0;
		if (drive) {
			unsigned v = (out >> shift) & mask;
			io = (io & ~mask) | v;
		}
		unsigned chip = flashchip_clock(q->chip, io, cycle, &oe);
		unsigned seen = (chip & oe) | (0xF & ~oe);
		unsigned got = lanes == 1 ? (seen >> 1) & 1 : seen & mask;
		in = in << lanes | got;
		cycle += sckdv;
	}
	return in;
}

static unsigned qspi_lanes(uint32_t ctrlr0)
{
	unsigned frf = CTRLR0_FRF(ctrlr0);
	return frf == 0 ? 1 : frf == 1 ? 2 : 4;
}

/* Clocks of an enhanced (dual/quad) read of `frames` frames with the given registers. */
static unsigned qspi_enh_clocks(uint32_t ctrlr0, uint32_t spi, unsigned frames)
{
	unsigned lanes = qspi_lanes(ctrlr0), tt = SPI_TRANS(spi);
	static const unsigned inst_bits[4] = {0, 4, 8, 16};
	unsigned ib = inst_bits[SPI_INST_L(spi)], ab = SPI_ADDR_L(spi) * 4;
	unsigned il = tt == 2 ? lanes : 1, al = tt >= 1 ? lanes : 1;
	return ib / il + ab / al + SPI_WAIT(spi) + frames * (CTRLR0_DFS32(ctrlr0) + 1) / lanes;
}

/* ---- The FIFOs and the transfer queue ---- */

static void qspi_rx_push(xb_qspi *q, uint32_t v)
{
	if (q->rx_count == SSI_FIFO) {
		q->ris |= RIS_RXO;
		return;
	}
	q->rx[(q->rx_head + q->rx_count++) % SSI_FIFO] = v;
}

static ssi_unit *qspi_unit_at(xb_qspi *q, unsigned i)
{
	return &q->units[(q->uhead + i) % SSI_UNITS];
}

static ssi_unit *qspi_append(xb_qspi *q)
{
	if (q->ucount == SSI_UNITS)
		return NULL;
	ssi_unit *u = qspi_unit_at(q, q->ucount++);
	memset(u, 0, sizeof *u);
	u->ctrlr0 = q->ctrlr0;
	u->ctrlr1 = q->ctrlr1;
	u->spi = q->spi_ctrlr0;
	u->sckdv = q->baudr & 0xFFFF;
	return u;
}

static uint64_t qspi_dur(uint32_t sckdv, unsigned clocks)
{
	return sckdv ? (uint64_t)sckdv * clocks : UINT64_MAX / 4;
}

/* EEPROM read in standard mode: the control frames are out, now NDF + 1 frames come in. */
static void qspi_add_rx_phase(xb_qspi *q, const ssi_unit *after)
{
	ssi_unit *u = qspi_append(q);
	if (!u)
		return;
	u->kind = U_RXPHASE;
	u->cont = 1;
	u->ctrlr0 = after->ctrlr0;
	u->ctrlr1 = after->ctrlr1;
	u->sckdv = after->sckdv;
	u->start = after->end;
	unsigned clocks = ((u->ctrlr1 & 0xFFFF) + 1) * (CTRLR0_DFS32(u->ctrlr0) + 1);
	u->end = u->start + qspi_dur(u->sckdv, clocks);
	q->last_end = u->end;
}

static void qspi_run_unit(xb_qspi *q, const ssi_unit *u)
{
	unsigned bits = CTRLR0_DFS32(u->ctrlr0) + 1;
	uint64_t t = u->start;
	switch (u->kind) {
	case U_FRAME: {
		uint32_t in = qspi_shift(q, u->value, bits, 1, 1, t, u->sckdv);
		if (CTRLR0_TMOD(u->ctrlr0) == 0)
			qspi_rx_push(q, in & (bits == 32 ? ~0u : (1u << bits) - 1));
		break;
	}
	case U_RXPHASE:
		for (unsigned i = 0; i <= (u->ctrlr1 & 0xFFFF); i++) {
			qspi_rx_push(q, qspi_shift(q, 0, bits, 1, 0, t, u->sckdv));
			t += (uint64_t)u->sckdv * bits;
		}
		break;
	case U_ENH: {
		unsigned lanes = qspi_lanes(u->ctrlr0), tt = SPI_TRANS(u->spi);
		static const unsigned inst_bits[4] = {0, 4, 8, 16};
		unsigned ib = inst_bits[SPI_INST_L(u->spi)], ab = SPI_ADDR_L(u->spi) * 4;
		if (u->has_inst && ib)
			qspi_shift(q, u->inst, ib, tt == 2 ? lanes : 1, 1, t, u->sckdv);
		if (ab)
			qspi_shift(q, u->value, ab, tt >= 1 ? lanes : 1, 1, t, u->sckdv);
		for (unsigned i = 0; i < SPI_WAIT(u->spi); i++)
			qspi_shift(q, 0, 1, 1, 0, t, u->sckdv);
		for (unsigned i = 0; i <= (u->ctrlr1 & 0xFFFF); i++)
			qspi_rx_push(q, qspi_shift(q, 0, bits, lanes, 0, t, u->sckdv));
		break;
	}
	}
}

static void qspi_xip_eval(xb_qspi *q);

/* Works out every transfer that has ended by `now`. */
static void qspi_advance(xb_qspi *q, uint64_t now)
{
	int ended = 0;
	while (q->ucount) {
		ssi_unit *u = qspi_unit_at(q, 0);
		if (u->end > now)
			break;
		if (!q->ss_active) {
			q->ss_active = 1;
			qspi_update_cs(q, u->start);
		}
		qspi_run_unit(q, u);
		ssi_unit done = *u;
		q->uhead = (q->uhead + 1) % SSI_UNITS;
		q->ucount--;
		if (q->ucount && qspi_unit_at(q, 0)->cont)
			continue;
		if (done.kind == U_FRAME && CTRLR0_TMOD(done.ctrlr0) == 3) {
			qspi_add_rx_phase(q, &done);
			continue;
		}
		q->ss_active = 0;
		qspi_update_cs(q, done.end);
		ended = 1;
	}
	if (ended)
		qspi_xip_eval(q);
}

/* TX entries not yet in the shifter. */
static unsigned qspi_txflr(const xb_qspi *q, uint64_t now)
{
	unsigned n = q->have_inst ? 1u : 0;
	for (unsigned i = 0; i < q->ucount; i++) {
		const ssi_unit *u = &q->units[(q->uhead + i) % SSI_UNITS];
		if (u->kind != U_RXPHASE && u->start > now)
			n += u->kind == U_ENH && u->has_inst ? 2 : 1;
	}
	return n;
}

static void qspi_clear_fifos(xb_qspi *q, uint64_t now)
{
	q->ucount = 0;
	q->rx_count = 0;
	q->have_inst = 0;
	q->last_end = now;
	if (q->ss_active) {
		q->ss_active = 0;
		qspi_update_cs(q, now);
	}
}

static void qspi_dr_write(xb_qspi *q, uint32_t v, uint64_t now)
{
	if (!(q->ssienr & 1))
		return; /* a disabled SSI takes no data */
	if (qspi_txflr(q, now) >= SSI_FIFO) {
		q->ris |= RIS_TXO;
		qspi_once(q, REP_TXO, "SSI: TX FIFO overflow (a DR write with 16 entries queued "
			  "is lost)");
		return;
	}
	unsigned tmod = CTRLR0_TMOD(q->ctrlr0), frf = CTRLR0_FRF(q->ctrlr0);
	uint32_t sckdv = q->baudr & 0xFFFF;
	if (sckdv == 0)
		qspi_once(q, REP_SCKDV, "SSI: BAUDR.SCKDV is 0: the serial clock is off and "
			  "transfers never end");
	if (frf == 0 && (tmod == 0 || tmod == 3)) {
		ssi_unit *u = qspi_append(q);
		if (!u)
			return;
		u->kind = U_FRAME;
		u->value = v;
		u->cont = q->ucount > 1 && now < q->last_end &&
			  qspi_unit_at(q, q->ucount - 2)->kind == U_FRAME;
		u->start = now > q->last_end ? now : q->last_end;
		u->end = u->start + qspi_dur(sckdv, CTRLR0_DFS32(q->ctrlr0) + 1);
		q->last_end = u->end;
		return;
	}
	if (frf != 0 && (tmod == 2 || tmod == 3)) {
		if (SPI_INST_L(q->spi_ctrlr0) && !q->have_inst) {
			q->pend_inst = v;
			q->have_inst = 1;
			return; /* the address that follows starts the transfer */
		}
		ssi_unit *u = qspi_append(q);
		if (!u)
			return;
		u->kind = U_ENH;
		u->value = v;
		u->inst = q->pend_inst;
		u->has_inst = q->have_inst;
		q->have_inst = 0;
		u->start = now > q->last_end ? now : q->last_end;
		unsigned clocks = qspi_enh_clocks(q->ctrlr0, q->spi_ctrlr0, (q->ctrlr1 & 0xFFFF) + 1);
		u->end = u->start + qspi_dur(sckdv, clocks) + (q->rsd & 0xFF);
		q->last_end = u->end;
		return;
	}
	qspi_once(q, REP_TMOD, "SSI: this frame format and transfer mode (CTRLR0 FRF/TMOD) are "
		  "not modelled; DR writes are dropped");
}

static uint32_t qspi_dr_read(xb_qspi *q, int debug)
{
	if (q->rx_count == 0) {
		if (!debug) {
			q->ris |= RIS_RXU;
			qspi_once(q, REP_RXU, "SSI: DR read with the RX FIFO empty (underflow) reads 0");
		}
		return 0;
	}
	uint32_t v = q->rx[q->rx_head];
	if (!debug) {
		q->rx_head = (q->rx_head + 1) % SSI_FIFO;
		q->rx_count--;
	}
	return v;
}

/* ---- XIP: the read the SSI issues on a cache miss ---- */

/* Runs one XIP read of flash address addr on a probe copy of the chip; 1 if the chip
 * answered it with array data from addr on the lanes the SSI samples. */
static int qspi_probe_read(xb_qspi *q, xb_flashchip **chip, uint32_t addr)
{
	xb_flashchip *real = q->chip;
	q->chip = *chip;
	uint32_t spi = q->spi_ctrlr0, sckdv = 1;
	unsigned lanes = qspi_lanes(q->ctrlr0), tt = SPI_TRANS(spi);
	static const unsigned inst_bits[4] = {0, 4, 8, 16};
	unsigned ib = inst_bits[SPI_INST_L(spi)], ab = SPI_ADDR_L(spi) * 4;
	/* INST_L = 0: {ADDR[23:0], XIP_CMD} (XIP_CMD as mode bits); else XIP_CMD is the
	 * instruction and the address goes right-aligned in ADDR_L * 4 bits (boot2_w25q080.S). */
	uint32_t word = ib ? addr : (addr << 8 | SPI_XIP_CMD(spi));
	uint64_t now = board_cycles(q->board);
	flashchip_select(*chip, 1, now);
	if (ib)
		qspi_shift(q, SPI_XIP_CMD(spi), ib, tt == 2 ? lanes : 1, 1, now, sckdv);
	if (ab)
		qspi_shift(q, ab >= 32 ? word : word & ((1u << ab) - 1), ab, tt >= 1 ? lanes : 1,
			   1, now, sckdv);
	for (unsigned i = 0; i < SPI_WAIT(spi); i++)
		qspi_shift(q, 0, 1, 1, 0, now, sckdv);
	qspi_shift(q, 0, 32, lanes, 0, now, sckdv);
	uint32_t after = 0;
	int ok = flashchip_read_reached(*chip, &after) && after == addr + 4;
	flashchip_select(*chip, 0, now);
	q->chip = real;
	return ok;
}

/* Serial clk_sys cycles of one miss: the transfer for a cache fill (target `fill` bytes, in
 * frames of DFS_32 + 1 bits) plus the RX sample delay. */
static uint32_t qspi_serial_cycles(const xb_qspi *q, uint32_t ctrlr0, uint32_t spi,
				   uint32_t sckdv, uint32_t rsd)
{
	const xb_target *t = board_target(q->board);
	unsigned fbits = CTRLR0_DFS32(ctrlr0) + 1;
	unsigned frames = (t->cache.fill * 8 + fbits - 1) / fbits;
	return sckdv * qspi_enh_clocks(ctrlr0, spi, frames) + (rsd & 0xFF);
}

/* Decides whether XIP reads work with the SSI and the chip as they are, and what a miss
 * costs; the chip's continuous-read state follows what XIP reads leave. */
static void qspi_xip_eval(xb_qspi *q)
{
	const char *why = NULL;
	int busy = 0;
	unsigned tmod = CTRLR0_TMOD(q->ctrlr0);
	if (!(q->ssienr & 1))
		why = "the SSI is disabled";
	else if (!(tmod == 3 || (tmod == 2 && CTRLR0_FRF(q->ctrlr0))))
		why = "the SSI is not in a read mode (CTRLR0.TMOD)";
	else if (CTRLR0_DFS32(q->ctrlr0) != 31)
		why = "the SSI's frames are not 32 bits (CTRLR0.DFS_32)";
	else if (!(q->ser & 1))
		why = "no slave is selected (SER)";
	else if ((q->io_ctrl[1] & 0x1F) != 0 || (q->io_ctrl[1] & 0x3300))
		why = "the chip select is not the SSI's (IO_QSPI GPIO_QSPI_SS_CTRL)";
	else if (q->ucount || q->have_inst)
		why = "the SSI is busy with a transfer";
	else if ((busy = flashchip_busy(q->chip, board_cycles(q->board))) != 0)
		why = "the flash is busy (erase, program or status write)";
	else if (flashchip_powered_down(q->chip))
		why = "the flash is powered down";
	if (!why) {
		xb_flashchip *probe = flashchip_probe_copy(q->chip);
		int ok = qspi_probe_read(q, &probe, 0x100) && qspi_probe_read(q, &probe, 0x1000);
		uint8_t cmd = 0;
		if (ok && flashchip_continuous(probe, &cmd) != flashchip_continuous(q->chip, NULL)) {
			if (flashchip_continuous(probe, &cmd))
				flashchip_set_continuous(q->chip, cmd);
			else
				flashchip_exit_continuous(q->chip);
		}
		flashchip_free(probe);
		if (!ok)
			why = "the flash does not answer the SSI's XIP read format with data "
			      "(SPI_CTRLR0 command, address, mode bits, lanes)";
	}
	if (!why) {
		uint32_t s = qspi_serial_cycles(q, q->ctrlr0, q->spi_ctrlr0, q->baudr & 0xFFFF,
						q->rsd);
		int64_t p = (int64_t)q->target_penalty + (int64_t)s - (int64_t)q->ref_serial;
		q->penalty = p < (int64_t)s ? s : (uint32_t)p;
		board_set_xip_miss_penalty(q->board, q->penalty);
	}
	/* A busy flash answers again when its operation ends; the rest until a register
	 * changes it. */
	board_set_xip_dead(q->board, why, busy ? flashchip_busy_until(q->chip) : UINT64_MAX);
}

/* ---- SSI registers ---- */

static uint32_t qspi_sr(xb_qspi *q, uint64_t now)
{
	unsigned tx = qspi_txflr(q, now);
	uint32_t sr = 0;
	if (q->ucount || q->have_inst)
		sr |= SR_BUSY;
	if (tx < SSI_FIFO)
		sr |= SR_TFNF;
	if (tx == 0)
		sr |= SR_TFE;
	if (q->rx_count)
		sr |= SR_RFNE;
	if (q->rx_count == SSI_FIFO)
		sr |= SR_RFF;
	return sr;
}

static uint32_t qspi_risr(xb_qspi *q, uint64_t now)
{
	uint32_t r = q->ris;
	if (qspi_txflr(q, now) <= (q->txftlr & 0xFF))
		r |= RIS_TXE;
	if (q->rx_count > (q->rxftlr & 0xFF))
		r |= RIS_RXF;
	return r;
}

static uint32_t ssi_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_qspi *q = ctx;
	uint64_t now = board_cycles(q->board);
	int debug = bus_access_is_debug(q->bus);
	qspi_advance(q, now);
	if (off >= REG_DR0 && off <= REG_DR35)
		return qspi_dr_read(q, debug);
	switch (off) {
	case REG_CTRLR0: return q->ctrlr0;
	case REG_CTRLR1: return q->ctrlr1;
	case REG_SSIENR: return q->ssienr;
	case REG_MWCR: return q->mwcr;
	case REG_SER: return q->ser;
	case REG_BAUDR: return q->baudr;
	case REG_TXFTLR: return q->txftlr;
	case REG_RXFTLR: return q->rxftlr;
	case REG_TXFLR: return qspi_txflr(q, now);
	case REG_RXFLR: return q->rx_count;
	case REG_SR: return qspi_sr(q, now);
	case REG_IMR: return q->imr;
	case REG_ISR: return qspi_risr(q, now) & q->imr;
	case REG_RISR: return qspi_risr(q, now);
	case REG_TXOICR: case REG_RXOICR: case REG_RXUICR: case REG_MSTICR: case REG_ICR: {
		/* Reading clears (ICR: all of them). */
		static const uint32_t bit[5] = {RIS_TXO, RIS_RXO, RIS_RXU, 0, RIS_TXO | RIS_RXO |
										    RIS_RXU};
		uint32_t b = bit[(off - REG_TXOICR) / 4], was = (q->ris & b) != 0;
		if (!debug)
			q->ris &= ~b;
		return was;
	}
	case REG_DMACR: return q->dmacr;
	case REG_DMATDLR: return q->dmatdlr;
	case REG_DMARDLR: return q->dmardlr;
	case REG_IDR: return 0x51535049u;
	case REG_VERSION: return 0x3430312Au;
	case REG_RSD: return q->rsd;
	case REG_SPI_CTRLR0: return q->spi_ctrlr0;
	case REG_TDE: return q->tde;
	default:
		bus_report_hole(q->bus);
		return 0;
	}
}

/* A configuration register: only while the SSI is disabled. */
static void qspi_cfg(xb_qspi *q, uint32_t *reg, uint32_t v, uint32_t mask, const char *name)
{
	if (q->ssienr & 1) {
		if (!(q->reported & REP_CFG)) {
			char msg[128];
			snprintf(msg, sizeof msg, "SSI: %s written while the SSI is enabled: ignored, "
				 "as on the chip (disable it through SSIENR first)", name);
			qspi_once(q, REP_CFG, msg);
		}
		return;
	}
	*reg = v & mask;
}

static void ssi_write(void *ctx, uint32_t off, uint32_t v, unsigned size, enum xb_alias_op op)
{
	(void)size;
	(void)op;
	xb_qspi *q = ctx;
	uint64_t now = board_cycles(q->board);
	if (bus_access_is_debug(q->bus) && off >= REG_DR0 && off <= REG_DR35)
		return; /* the debugger does not start transfers */
	qspi_advance(q, now);
	if (off >= REG_DR0 && off <= REG_DR35) {
		qspi_dr_write(q, v, now);
		return;
	}
	switch (off) {
	case REG_CTRLR0: qspi_cfg(q, &q->ctrlr0, v, 0x017FFFFFu, "CTRLR0"); break;
	case REG_CTRLR1: qspi_cfg(q, &q->ctrlr1, v, 0xFFFFu, "CTRLR1"); break;
	case REG_SSIENR: {
		uint32_t was = q->ssienr;
		q->ssienr = v & 1;
		if (!q->ssienr)
			qspi_clear_fifos(q, now);
		if (!was && q->ssienr)
			q->last_end = now;
		qspi_xip_eval(q);
		break;
	}
	case REG_MWCR: qspi_cfg(q, &q->mwcr, v, 7, "MWCR"); break;
	case REG_SER: q->ser = v & 1; break;
	case REG_BAUDR: qspi_cfg(q, &q->baudr, v, 0xFFFF, "BAUDR"); break;
	case REG_TXFTLR: qspi_cfg(q, &q->txftlr, v, 0xFF, "TXFTLR"); break;
	case REG_RXFTLR: qspi_cfg(q, &q->rxftlr, v, 0xFF, "RXFTLR"); break;
	case REG_IMR: q->imr = v & 0x3F; break;
	case REG_DMACR: q->dmacr = v & 3; break;
	case REG_DMATDLR: q->dmatdlr = v & 0xFF; break;
	case REG_DMARDLR: q->dmardlr = v & 0xFF; break;
	case REG_RSD: qspi_cfg(q, &q->rsd, v, 0xFF, "RX_SAMPLE_DLY"); break;
	case REG_SPI_CTRLR0: qspi_cfg(q, &q->spi_ctrlr0, v, 0xFF07FB3Fu, "SPI_CTRLR0"); break;
	case REG_TDE: qspi_cfg(q, &q->tde, v, 0xFF, "TXD_DRIVE_EDGE"); break;
	case REG_TXFLR: case REG_RXFLR: case REG_SR: case REG_ISR: case REG_RISR:
	case REG_TXOICR: case REG_RXOICR: case REG_RXUICR: case REG_MSTICR: case REG_ICR:
	case REG_IDR: case REG_VERSION:
		break; /* read-only */
	default:
		bus_report_hole(q->bus);
	}
}

static const xb_device_ops ssi_ops = {.read = ssi_read, .write = ssi_write};

/* ---- IO_QSPI and PADS_QSPI ---- */

static const uint32_t pads_reset[7] = {0x00, 0x56, 0x52, 0x52, 0x52, 0x52, 0x5A};

static void qspi_io_reset(xb_qspi *q)
{
	for (int i = 0; i < 6; i++)
		q->io_ctrl[i] = 0x1F;
	q->io_intr = 0;
	memset(q->io_inte, 0, sizeof q->io_inte);
	memset(q->io_intf, 0, sizeof q->io_intf);
}

static void qspi_pads_reset(xb_qspi *q)
{
	memcpy(q->pads, pads_reset, sizeof q->pads);
}

/* GPIO_QSPI_x_STATUS: SS's path is worked out; the clock and data pins report their
 * function's output enable only (the SSI drives SCLK). */
static uint32_t qspi_io_status(xb_qspi *q, unsigned pin)
{
	uint32_t ctrl = q->io_ctrl[pin], st = 0;
	if (pin == 1) {
		int xip = (ctrl & 0x1F) == 0;
		int out_peri = xip ? !(q->ss_active && (q->ser & 1)) : 0;
		int out_pad = !qspi_cs_low(q);
		st |= (uint32_t)out_peri << 8 | (uint32_t)out_pad << 9;
		st |= (xip ? 1u : 0) << 12 | (xip || ((ctrl >> 12) & 3) == 3 ? 1u : 0) << 13;
		st |= (uint32_t)out_pad << 17 | (uint32_t)out_pad << 19;
	} else if (pin == 0 && (ctrl & 0x1F) == 0) {
		st |= 1u << 12 | 1u << 13;
	}
	return st;
}

static uint32_t io_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_qspi *q = ctx;
	qspi_advance(q, board_cycles(q->board));
	if (off < 0x30)
		return (off & 4) ? q->io_ctrl[off / 8] : qspi_io_status(q, off / 8);
	if (off == 0x30)
		return q->io_intr;
	if (off < 0x58) {
		unsigned k = (off - 0x34) / 12, r = (off - 0x34) % 12;
		if (r == 0)
			return q->io_inte[k];
		if (r == 4)
			return q->io_intf[k];
		return (q->io_intr & q->io_inte[k]) | q->io_intf[k];
	}
	bus_report_hole(q->bus);
	return 0;
}

static void io_write(void *ctx, uint32_t off, uint32_t v, unsigned size, enum xb_alias_op op)
{
	(void)size;
	xb_qspi *q = ctx;
	uint64_t now = board_cycles(q->board);
	qspi_advance(q, now);
	if (off < 0x30) {
		if (off & 4) {
			uint32_t *r = &q->io_ctrl[off / 8];
			*r = periph_rw(*r, v, op, 0x3003331Fu);
			qspi_update_cs(q, now);
			qspi_xip_eval(q);
		}
		return; /* STATUS is read-only */
	}
	if (off == 0x30) {
		q->io_intr = periph_wc(q->io_intr, v); /* edges; no pin edges are generated */
		return;
	}
	if (off < 0x58) {
		unsigned k = (off - 0x34) / 12, r = (off - 0x34) % 12;
		if (r == 0)
			q->io_inte[k] = periph_rw(q->io_inte[k], v, op, 0xFFFFFF);
		else if (r == 4)
			q->io_intf[k] = periph_rw(q->io_intf[k], v, op, 0xFFFFFF);
		return;
	}
	bus_report_hole(q->bus);
}

static const xb_device_ops io_ops = {.read = io_read, .write = io_write};

static uint32_t pads_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_qspi *q = ctx;
	if (off < 0x1C)
		return q->pads[off / 4];
	bus_report_hole(q->bus);
	return 0;
}

static void pads_write(void *ctx, uint32_t off, uint32_t v, unsigned size, enum xb_alias_op op)
{
	(void)size;
	xb_qspi *q = ctx;
	if (off < 0x1C)
		q->pads[off / 4] = periph_rw(q->pads[off / 4], v, op, off == 0 ? 1u : 0xFFu);
	else
		bus_report_hole(q->bus);
}

static const xb_device_ops pads_ops = {.read = pads_read, .write = pads_write};

static void qspi_io_block(void *ctx, int held)
{
	xb_qspi *q = ctx;
	if (!held)
		return;
	qspi_io_reset(q);
	qspi_update_cs(q, board_cycles(q->board));
	qspi_xip_eval(q);
}

static void qspi_pads_block(void *ctx, int held)
{
	if (held)
		qspi_pads_reset(ctx);
}

/* ---- What the bootrom's flash functions do (called by its host calls) ---- */

static void qspi_ssi_reset(xb_qspi *q, uint64_t now)
{
	qspi_clear_fifos(q, now);
	q->ctrlr0 = q->ctrlr1 = q->ssienr = q->mwcr = q->ser = q->baudr = 0;
	q->txftlr = q->rxftlr = q->imr = q->dmacr = q->dmatdlr = q->dmardlr = 0;
	q->rsd = q->tde = 0;
	q->spi_ctrlr0 = 0x03000000u;
	q->ris = 0;
}

/* A serial command the way the bootrom sends one: /CS forced low, bytes on DI (8 bits per
 * DR write at the SSI's current divider), /CS released; rx may be NULL. Returns the
 * clk_sys cycles it took. */
static uint64_t qspi_rom_cmd(xb_qspi *q, const uint8_t *tx, size_t ntx, uint8_t *rx, size_t nrx,
			     uint64_t now)
{
	uint32_t sckdv = (q->baudr & 0xFFFF) ? q->baudr & 0xFFFF : 6;
	flashchip_select(q->chip, 1, now);
	uint64_t t = now;
	for (size_t i = 0; i < ntx + nrx; i++) {
		uint32_t in = qspi_shift(q, i < ntx ? tx[i] : 0, 8, 1, 1, t, sckdv);
		if (i >= ntx && rx)
			rx[i - ntx] = (uint8_t)in;
		t += 8u * sckdv;
	}
	flashchip_select(q->chip, 0, t);
	q->cs_low = 0;
	return t - now;
}

/* connect_internal_flash: IO_QSPI and PADS_QSPI to their reset state, every QSPI pin to
 * its XIP function (FUNCSEL 0). */
static void qspi_rom_connect(xb_qspi *q, uint64_t now)
{
	qspi_advance(q, now);
	qspi_io_reset(q);
	qspi_pads_reset(q);
	for (int i = 0; i < 6; i++)
		q->io_ctrl[i] = 0;
	qspi_update_cs(q, now);
}

/* flash_exit_xip: the SSI to standard SPI, 8-bit frames, TX and RX, SCKDV 6, SER 1; then the
 * XIP exit sequence (32 clocks with /CS high, 32 clocks with /CS low and every data line
 * pulled high, then FFh FFh), which takes a chip out of continuous read; /CS override off.
 * Time: two ~6000-cycle delays for the pulls to settle plus the serial clocks. */
static uint64_t qspi_rom_exit_xip(xb_qspi *q, uint64_t now)
{
	qspi_advance(q, now);
	qspi_ssi_reset(q, now);
	q->baudr = 6;
	q->ctrlr0 = 7u << 16;
	q->ser = 1;
	q->ssienr = 1;
	q->last_end = now;
	uint64_t t = now + 6144;
	flashchip_select(q->chip, 1, t);
	for (int i = 0; i < 4; i++)
		qspi_shift(q, 0xFFFFFFFFu, 32, 4, 1, t, 6); /* 32 clocks, IO3:0 high */
	flashchip_select(q->chip, 0, t + 32 * 6);
	t += 32 * 6 + 6144;
	static const uint8_t ff[2] = {0xFF, 0xFF};
	t += qspi_rom_cmd(q, ff, 2, NULL, 0, t);
	flashchip_exit_continuous(q->chip);
	q->io_ctrl[1] = 0;
	q->cs_low = 0;
	qspi_update_cs(q, t);
	qspi_xip_eval(q);
	return t - now + 32 * 6;
}

/* flash_enter_cmd_xip: XIP reads as 03h commands (standard SPI, 8-bit instruction, 24-bit
 * address, 32-bit frames). */
static void qspi_rom_enter_cmd_xip(xb_qspi *q, uint64_t now)
{
	qspi_advance(q, now);
	qspi_clear_fifos(q, now);
	q->ssienr = 0;
	q->ctrlr0 = 31u << 16 | 3u << 8;
	q->spi_ctrlr0 = 0x03u << 24 | 2u << 8 | 6u << 2;
	q->ssienr = 1;
	qspi_xip_eval(q);
}

void qspi_rom_call(xb_qspi *q, enum xb_rom_flash call)
{
	uint64_t now = board_cycles(q->board), took = 0;
	switch (call) {
	case XB_ROM_FLASH_CONNECT:
		qspi_rom_connect(q, now);
		break;
	case XB_ROM_FLASH_EXIT_XIP:
		took = qspi_rom_exit_xip(q, now);
		break;
	case XB_ROM_FLASH_ENTER_CMD_XIP:
		qspi_rom_enter_cmd_xip(q, now);
		break;
	case XB_ROM_FLASH_FLUSH:
		/* flash_flush_cache also takes the /CS override off. */
		qspi_advance(q, now);
		q->io_ctrl[1] &= ~0x300u;
		qspi_update_cs(q, now);
		qspi_xip_eval(q);
		break;
	}
	if (took)
		bus_stall(q->bus, took > UINT32_MAX ? UINT32_MAX : (uint32_t)took);
}

/* ---- Boot ---- */

/* The bootrom's CRC-32 of boot2 (datasheet 2.8.1.3.1): polynomial 0x04C11DB7, initial value
 * 0xFFFFFFFF, no input or output reflection, no final XOR. */
uint32_t qspi_boot2_crc(const uint8_t *data, size_t len)
{
	uint32_t crc = 0xFFFFFFFFu;
	for (size_t i = 0; i < len; i++) {
		crc ^= (uint32_t)data[i] << 24;
		for (int k = 0; k < 8; k++)
			crc = crc & 0x80000000u ? crc << 1 ^ 0x04C11DB7u : crc << 1;
	}
	return crc;
}

static int qspi_boot2_check(xb_qspi *q, const uint8_t *img)
{
	q->boot.crc_computed = qspi_boot2_crc(img, 252);
	q->boot.crc_image = (uint32_t)img[252] | (uint32_t)img[253] << 8 |
			    (uint32_t)img[254] << 16 | (uint32_t)img[255] << 24;
	q->boot.boot2_valid = q->boot.crc_computed == q->boot.crc_image;
	return q->boot.boot2_valid;
}

/* The state pico-sdk's boot2_w25q080 (PICO_FLASH_SPI_CLKDIV 2, the Pico's) leaves after the
 * bootrom: pins on XIP, SCLK 8 mA fast slew, SDx without Schmitt triggers, the SSI reading
 * EBh in continuous mode (address and mode bits A0h on four lanes, 4 wait clocks, 32-bit
 * frames), SCKDV 2, RX sample delay 1, the chip in continuous read with QE set. */
static void qspi_direct_state(xb_qspi *q, uint64_t now)
{
	for (int i = 0; i < 6; i++)
		q->io_ctrl[i] = 0;
	q->pads[1] = 0x21;
	for (int i = 2; i < 6; i++)
		q->pads[i] = 0x50;
	q->baudr = 2;
	q->rsd = 1;
	q->ser = 1;
	q->ctrlr0 = 2u << 21 | 31u << 16 | 3u << 8;
	q->ctrlr1 = 0;
	q->spi_ctrlr0 = 0xA0u << 24 | 4u << 11 | 8u << 2 | 2u;
	q->ssienr = 1;
	q->last_end = now;
	flashchip_set_status(q->chip, 2, (uint8_t)(flashchip_status(q->chip, 2, now) | 0x02));
	flashchip_set_continuous(q->chip, 0xEB);
}

/* The bootrom's flash boot (datasheet 2.8.1): pins to XIP, the XIP exit sequence, 256 bytes
 * read with 03h into the top of SRAM5, the CRC checked; a match enters boot2 at 0x20041F00
 * with LR = 0 (boot2 then jumps to the vector table). A mismatch is where the real chip,
 * after about 0.5 s of retries, enters USB boot: reported, and the core waits in a WFI loop
 * in the ROM. The bootrom's own time (about 0.2 ms) is not charged. */
static void qspi_boot2_path(xb_qspi *q, uint64_t now)
{
	qspi_rom_connect(q, now);
	qspi_rom_exit_xip(q, now);
	uint8_t img[256];
	static const uint8_t rd[4] = {0x03, 0, 0, 0};
	qspi_rom_cmd(q, rd, 4, img, sizeof img, now);
	xb_err err;
	xb_board *b = q->board;
	if (qspi_boot2_check(q, img) && board_load(b, BOOT2_SRAM, img, sizeof img, &err) == 0) {
		q->boot.usb_boot = 0;
		board_set_reg(b, XB_REG_SP, BOOT2_SP);
		board_set_reg(b, XB_REG_LR, 0);
		board_set_reg(b, XB_REG_PC, BOOT2_SRAM);
		return;
	}
	q->boot.usb_boot = 1;
	bus_log(q->bus, "boot2 CRC mismatch (computed 0x%08x, image 0x%08x): the RP2040 would "
		"enter USB boot (BOOTSEL mode); the core waits in the ROM", q->boot.crc_computed,
		q->boot.crc_image);
	board_set_reg(b, XB_REG_SP, BOOT2_SP);
	board_set_reg(b, XB_REG_PC, USB_BOOT_LOOP);
}

static void qspi_reset(xb_board *b, void *ctx)
{
	xb_qspi *q = ctx;
	uint64_t now = board_cycles(b);
	qspi_ssi_reset(q, now);
	qspi_io_reset(q);
	qspi_pads_reset(q);
	q->reported &= REP_USB;
	q->cs_low = 0;
	flashchip_select(q->chip, 0, now);
	if (q->boot.used == XB_BOOT_BOOT2)
		qspi_boot2_path(q, now);
	else
		qspi_direct_state(q, now);
	qspi_update_cs(q, now);
	qspi_xip_eval(q);
}

void qspi_select_boot(xb_qspi *q, enum xb_boot_mode want, uint32_t loader_vtor)
{
	xb_board *b = q->board;
	uint32_t size;
	const uint8_t *flash = board_flash(b, &size);
	uint32_t flash_vectors = board_target(b)->flash_base + 0x100;
	q->boot.requested = want;
	q->boot.usb_boot = 0;
	int valid = size >= 256 && qspi_boot2_check(q, flash);
	enum xb_boot_mode used = want;
	if (want == XB_BOOT_AUTO)
		used = valid && loader_vtor == flash_vectors ? XB_BOOT_BOOT2 : XB_BOOT_DIRECT;
	q->boot.used = used;
	board_set_reset_vtor(b, used == XB_BOOT_BOOT2 ? 0 : loader_vtor);
}

void qspi_boot_info(const xb_qspi *q, xb_boot_info *out)
{
	*out = q->boot;
}

xb_qspi *qspi_new(xb_board *b, xb_resets *r, xb_err *err)
{
	xb_qspi *q = xcalloc(1, sizeof *q);
	q->board = b;
	q->bus = board_bus(b);
	q->chip = flashchip_new(b);
	const xb_target *t = board_target(b);
	q->target_penalty = t->miss_penalty;
	/* The reference: the direct start's configuration, for which the target's
	 * miss_penalty was measured. */
	q->ref_serial = qspi_serial_cycles(q, 2u << 21 | 31u << 16 | 3u << 8,
					   0xA0u << 24 | 4u << 11 | 8u << 2 | 2u, 2, 1);
	q->penalty = t->miss_penalty;
	q->boot.requested = XB_BOOT_AUTO;
	q->boot.used = XB_BOOT_DIRECT;
	if (bus_map(q->bus, SSI_BASE, 0x1000, "XIP_SSI", &ssi_ops, q) ||
	    bus_map(q->bus, IO_QSPI_BASE, 0x1000, "IO_QSPI", &io_ops, q) ||
	    bus_map(q->bus, PADS_QSPI_BASE, 0x1000, "PADS_QSPI", &pads_ops, q)) {
		xb_fail(err, "target %s: the SSI, IO_QSPI or PADS_QSPI address is already taken",
			t->name);
		qspi_free(q);
		return NULL;
	}
	static const uint8_t loop[4] = {0x30, 0xBF, 0xFD, 0xE7}; /* wfi; b . - 2 */
	xb_err e2;
	board_load(b, USB_BOOT_LOOP, loop, sizeof loop, &e2);
	if (r) {
		resets_on_block(r, RESET_IO_QSPI, qspi_io_block, q);
		resets_on_block(r, RESET_PADS_QSPI, qspi_pads_block, q);
	}
	board_on_reset(b, qspi_reset, q);
	qspi_ssi_reset(q, 0);
	qspi_io_reset(q);
	qspi_pads_reset(q);
	qspi_direct_state(q, 0);
	qspi_xip_eval(q);
	return q;
}

void qspi_free(xb_qspi *q)
{
	if (!q)
		return;
	flashchip_free(q->chip);
	free(q);
}
