/* flashchip: the Pico's QSPI NOR flash, a 2 MB part with the W25Q16JV's command set, clocked
 * by the SSI one SCK edge at a time: commands, addresses, mode bits, dummy clocks and data on
 * 1, 2 or 4 lanes, continuous-read mode, status registers, program/erase with busy time,
 * power-down. The array is the board's flash buffer: what loaders put there is the chip's
 * contents, and XIP reads read it. */
#include <stdlib.h>
#include <string.h>

#include "periph.h"

/*
 * Facts (Winbond W25Q16JV datasheet, section 8 "Instructions"; the Pico's flash):
 *  - JEDEC ID (9Fh): EF 40 15. Device ID (ABh, 90h): 14h. Unique ID (4Bh): four dummy
 *    bytes, then 64 bits.
 *  - SR1 (05h): BUSY bit 0, WEL bit 1, BP0-2, TB, SEC, SRP. SR2 (35h): SRL, QE bit 1, LB1-3,
 *    CMP, SUS. SR3 (15h): WPS, DRV. Written with 01h (SR1, and SR2 if a second byte
 *    follows), 31h (SR2), 11h (SR3) after 06h (or 50h for a volatile write).
 *  - Reads: 03h (24-bit address, data), 0Bh (+8 dummy clocks), 3Bh/6Bh (+8 dummy clocks,
 *    data on 2/4 lanes), BBh (address and 8 mode bits on 2 lanes, no dummy), EBh (address
 *    and mode bits on 4 lanes, 4 dummy clocks). With mode bits M5-4 = 10 after BBh/EBh
 *    the next transfer skips the instruction (continuous read); other mode bits end it.
 *    6Bh, EBh and 32h need QE.
 *  - 02h/32h program a page (the address wraps within the 256-byte page; of more than 256
 *    bytes the last 256 count), 20h/52h/D8h erase 4/32/64 KB, C7h/60h the chip, after 06h
 *    (WEL); each runs when /CS rises on a byte boundary and clears WEL. While BUSY only
 *    the status reads are accepted.
 *  - B9h powers down; in power-down only ABh is accepted, which releases it.
 *  - 66h then 99h: software reset (volatile state).
 * Timing: typical figures of the W25Q16JV's AC table (tW 10 ms, tPP 0.4 ms, tSE 45 ms,
 * tBE1 120 ms, tBE2 150 ms, tCE 5 s); UNVERIFIED against the datasheet here, the same ones
 * the bootrom's flash host calls use.
 */

#define FC_TW_US 10000u
#define FC_TPP_US 400u
#define FC_TSE_US 45000u
#define FC_TBE1_US 120000u
#define FC_TBE2_US 150000u
#define FC_TCE_US 5000000u

static const uint8_t fc_jedec[3] = {0xEF, 0x40, 0x15};
#define FC_DEVICE_ID 0x14u
/* The chip's 64-bit unique ID: "xipbench" in ASCII (a real part's is random). */
static const uint8_t fc_uid[8] = {'x', 'i', 'p', 'b', 'e', 'n', 'c', 'h'};

enum fc_phase { PH_IDLE, PH_CMD, PH_ADDR, PH_MODE, PH_DUMMY, PH_DATA, PH_IGNORE };
enum fc_src { SRC_NONE, SRC_ARRAY, SRC_SR1, SRC_SR2, SRC_SR3, SRC_JEDEC, SRC_UID,
	      SRC_DEVID, SRC_MFID, SRC_IN };

struct xb_flashchip {
	xb_board *board;
	uint8_t *mem;
	uint32_t size;
	int dry;                  /* a probe copy: runs no command that changes anything */
	int cs_low;
	enum fc_phase phase;
	unsigned clocks;          /* clocks since /CS fell */
	unsigned got, need;       /* bits of the current address/mode/data-in phase */
	uint32_t sh;
	unsigned dummy;           /* dummy clocks left */
	/* the command being decoded */
	uint8_t cmd, mode;
	uint32_t addr;
	unsigned addr_lanes, mode_lanes, dummy_clocks, data_lanes;
	enum fc_src src;
	unsigned out_index, out_bits;
	uint8_t out_byte;
	unsigned in_count;
	uint8_t page[256];
	uint16_t page_set[256];   /* which page bytes were sent (generation counter) */
	uint16_t page_gen;
	int data_reached;         /* the data phase started (reads: the first byte went out) */
	int rejected;             /* the command was not accepted (busy, power-down, unknown) */
	/* state */
	uint8_t sr1, sr2, sr3;    /* SR1's BUSY and WEL live in busy_until and wel */
	int wel, vwen, reset_enabled, powered_down;
	int cont;                 /* continuous read: the next transfer starts at the address */
	uint8_t cont_cmd;
	uint64_t busy_until;
	uint64_t now;
	uint32_t reported[8];     /* commands already reported (bitmap) */
};

static void fc_report(xb_flashchip *f, uint8_t cmd, const char *fmt, unsigned a)
{
	if (f->dry || (f->reported[cmd >> 5] & 1u << (cmd & 31)))
		return;
	f->reported[cmd >> 5] |= 1u << (cmd & 31);
	char msg[160];
	snprintf(msg, sizeof msg, fmt, a);
	bus_log(board_bus(f->board), "flash: %s", msg);
}

xb_flashchip *flashchip_new(xb_board *b)
{
	xb_flashchip *f = xcalloc(1, sizeof *f);
	f->board = b;
	f->mem = board_flash(b, &f->size);
	f->sr2 = 0x02; /* QE set, as a Pico whose boot2 has run once leaves it (non-volatile) */
	return f;
}

void flashchip_free(xb_flashchip *f)
{
	free(f);
}

xb_flashchip *flashchip_probe_copy(const xb_flashchip *f)
{
	xb_flashchip *c = xmalloc(sizeof *c);
	*c = *f;
	c->dry = 1;
	return c;
}

uint64_t flashchip_busy_until(const xb_flashchip *f)
{
	return f->busy_until;
}

int flashchip_busy(const xb_flashchip *f, uint64_t cycle)
{
	return cycle < f->busy_until;
}

static uint64_t fc_us(const xb_flashchip *f, uint64_t us)
{
	return periph_muldiv(us, board_cpu_hz(f->board), 1000000u);
}

uint8_t flashchip_status(const xb_flashchip *f, unsigned n, uint64_t cycle)
{
	if (n == 2)
		return f->sr2;
	if (n == 3)
		return f->sr3;
	return (uint8_t)((f->sr1 & 0xFC) | (f->wel ? 2 : 0) | (cycle < f->busy_until ? 1 : 0));
}

void flashchip_set_status(xb_flashchip *f, unsigned n, uint8_t v)
{
	if (n == 1)
		f->sr1 = v & 0xFC;
	else if (n == 2)
		f->sr2 = v;
	else
		f->sr3 = v;
}

int flashchip_continuous(const xb_flashchip *f, uint8_t *cmd)
{
	if (cmd)
		*cmd = f->cont_cmd;
	return f->cont;
}

int flashchip_powered_down(const xb_flashchip *f)
{
	return f->powered_down;
}

void flashchip_set_continuous(xb_flashchip *f, uint8_t cmd)
{
	f->cont = cmd == 0xBB || cmd == 0xEB;
	f->cont_cmd = cmd;
}

/* The bootrom's XIP exit sequence (and a power cycle) leaves continuous-read mode. */
void flashchip_exit_continuous(xb_flashchip *f)
{
	f->cont = 0;
}

static void fc_set_cont(xb_flashchip *f, uint8_t cmd, uint8_t mode)
{
	f->cont = (mode & 0x30) == 0x20;
	f->cont_cmd = cmd;
}

/* Geometry of a read that continuous mode repeats. */
static void fc_read_geometry(xb_flashchip *f, uint8_t cmd)
{
	f->addr_lanes = cmd == 0xEB ? 4 : 2;
	f->mode_lanes = f->addr_lanes;
	f->dummy_clocks = cmd == 0xEB ? 4 : 0;
	f->data_lanes = f->addr_lanes;
	f->src = SRC_ARRAY;
}

static void fc_next_phase(xb_flashchip *f);

static void fc_begin(xb_flashchip *f, enum fc_phase p)
{
	f->phase = p;
	f->got = 0;
	f->sh = 0;
	if (p == PH_ADDR)
		f->need = 24;
	else if (p == PH_MODE)
		f->need = 8;
	else if (p == PH_DUMMY)
		f->dummy = f->dummy_clocks;
	else if (p == PH_DATA)
		f->need = 8;
}

/* After the command (or at /CS low in continuous mode): address, mode, dummy, data. */
static void fc_next_phase(xb_flashchip *f)
{
	switch (f->phase) {
	case PH_CMD:
		if (f->addr_lanes) {
			fc_begin(f, PH_ADDR);
			return;
		}
		/* fall through */
	case PH_ADDR:
		if (f->mode_lanes) {
			fc_begin(f, PH_MODE);
			return;
		}
		/* fall through */
	case PH_MODE:
		if (f->dummy_clocks) {
			fc_begin(f, PH_DUMMY);
			return;
		}
		/* fall through */
	case PH_DUMMY:
		fc_begin(f, f->src == SRC_NONE ? PH_IGNORE : PH_DATA);
		return;
	default:
		fc_begin(f, PH_IGNORE);
	}
}

static void fc_decode(xb_flashchip *f, uint8_t cmd)
{
	f->cmd = cmd;
	f->addr_lanes = f->mode_lanes = f->dummy_clocks = 0;
	f->data_lanes = 1;
	f->src = SRC_NONE;
	f->rejected = 1;
	if (f->reset_enabled && cmd != 0x99)
		f->reset_enabled = 0;
	if (f->powered_down && cmd != 0xAB) {
		fc_report(f, cmd, "command 0x%02x in power-down is ignored (only 0xAB is accepted)",
			  cmd);
		fc_begin(f, PH_IGNORE);
		return;
	}
	if (f->now < f->busy_until && cmd != 0x05 && cmd != 0x35 && cmd != 0x15) {
		fc_report(f, cmd, "command 0x%02x while an erase, program or status write is "
			  "in progress (BUSY) is ignored", cmd);
		fc_begin(f, PH_IGNORE);
		return;
	}
	int quad = cmd == 0x6B || cmd == 0xEB || cmd == 0x32;
	if (quad && !(f->sr2 & 0x02)) {
		fc_report(f, cmd, "quad command 0x%02x with QE (status register 2 bit 1) clear is "
			  "ignored", cmd);
		fc_begin(f, PH_IGNORE);
		return;
	}
	switch (cmd) {
	case 0x06: case 0x04: case 0x50: case 0x66: case 0x99: case 0xB9:
	case 0xC7: case 0x60:
		break; /* run at /CS high */
	case 0xFF:
		break; /* mode bit reset (the bootrom's XIP exit sequence sends it): nothing */
	case 0x05: f->src = SRC_SR1; break;
	case 0x35: f->src = SRC_SR2; break;
	case 0x15: f->src = SRC_SR3; break;
	case 0x01: case 0x31: case 0x11: f->src = SRC_IN; break;
	case 0x03: f->addr_lanes = 1; f->src = SRC_ARRAY; break;
	case 0x0B: f->addr_lanes = 1; f->dummy_clocks = 8; f->src = SRC_ARRAY; break;
	case 0x3B: f->addr_lanes = 1; f->dummy_clocks = 8; f->data_lanes = 2; f->src = SRC_ARRAY;
		break;
	case 0x6B: f->addr_lanes = 1; f->dummy_clocks = 8; f->data_lanes = 4; f->src = SRC_ARRAY;
		break;
	case 0xBB: case 0xEB: fc_read_geometry(f, cmd); break;
	case 0x9F: f->src = SRC_JEDEC; break;
	case 0x4B: f->dummy_clocks = 32; f->src = SRC_UID; break;
	case 0xAB: f->dummy_clocks = 24; f->src = SRC_DEVID; break;
	case 0x90: f->addr_lanes = 1; f->src = SRC_MFID; break;
	case 0x02: f->addr_lanes = 1; f->src = SRC_IN; break;
	case 0x32: f->addr_lanes = 1; f->data_lanes = 4; f->src = SRC_IN; break;
	case 0x20: case 0x52: case 0xD8: f->addr_lanes = 1; break;
	default:
		fc_report(f, cmd, "unknown command 0x%02x ignored", cmd);
		fc_begin(f, PH_IGNORE);
		return;
	}
	f->rejected = 0;
	f->out_index = 0;
	f->out_bits = 0;
	f->in_count = 0;
	f->page_gen++;
	fc_next_phase(f);
}

static uint8_t fc_out_next(xb_flashchip *f)
{
	unsigned i = f->out_index++;
	switch (f->src) {
	case SRC_ARRAY: {
		uint8_t v = f->mem[f->addr % f->size];
		f->addr = (f->addr + 1) % f->size;
		return v;
	}
	case SRC_SR1: return flashchip_status(f, 1, f->now);
	case SRC_SR2: return f->sr2;
	case SRC_SR3: return f->sr3;
	case SRC_JEDEC: return fc_jedec[i % 3];
	case SRC_UID: return i < 8 ? fc_uid[i] : 0xFF;
	case SRC_DEVID: return FC_DEVICE_ID;
	case SRC_MFID: return ((i + (f->addr & 1)) & 1) ? FC_DEVICE_ID : 0xEF;
	default: return 0xFF;
	}
}

/* One data byte received (program data, status register values). */
static void fc_in_byte(xb_flashchip *f, uint8_t v)
{
	unsigned i = f->in_count++;
	if (f->cmd == 0x02 || f->cmd == 0x32) {
		unsigned k = (f->addr + i) & 0xFF;
		f->page[k] = v;
		f->page_set[k] = f->page_gen;
	} else if (i < 2) {
		f->page[i] = v;
	}
}

/* Lanes in `io` and what the master drives: the lanes the chip drives back (*oe). */
unsigned flashchip_clock(xb_flashchip *f, unsigned io, uint64_t cycle, unsigned *oe)
{
	*oe = 0;
	f->now = cycle;
	if (!f->cs_low)
		return 0;
	f->clocks++;
	switch (f->phase) {
	case PH_CMD:
		f->sh = f->sh << 1 | (io & 1);
		if (++f->got == 8)
			fc_decode(f, (uint8_t)f->sh);
		return 0;
	case PH_ADDR:
	case PH_MODE: {
		unsigned w = f->phase == PH_ADDR ? f->addr_lanes : f->mode_lanes;
		f->sh = f->sh << w | (io & ((1u << w) - 1));
		f->got += w;
		if (f->got < f->need)
			return 0;
		if (f->phase == PH_ADDR) {
			f->addr = f->sh & 0xFFFFFF;
		} else {
			f->mode = (uint8_t)f->sh;
			fc_set_cont(f, f->cmd, f->mode);
		}
		fc_next_phase(f);
		return 0;
	}
	case PH_DUMMY:
		if (--f->dummy == 0)
			fc_next_phase(f);
		return 0;
	case PH_DATA: {
		unsigned w = f->data_lanes, mask = (1u << w) - 1;
		if (f->src == SRC_IN) {
			f->sh = f->sh << w | (io & mask);
			f->got += w;
			if (f->got == 8) {
				fc_in_byte(f, (uint8_t)f->sh);
				f->got = 0;
				f->sh = 0;
			}
			return 0;
		}
		if (f->out_bits == 0) {
			f->out_byte = fc_out_next(f);
			f->out_bits = 8;
			f->data_reached = 1;
		}
		f->out_bits -= w;
		unsigned bits = (f->out_byte >> f->out_bits) & mask;
		/* One lane: the chip drives DO (IO1); two or four: IO1:0 or IO3:0. */
		*oe = w == 1 ? 2u : mask;
		return w == 1 ? bits << 1 : bits;
	}
	default:
		return 0;
	}
}

static void fc_erase(xb_flashchip *f, uint32_t addr, uint32_t size, unsigned us)
{
	uint32_t base = (addr % f->size) & ~(size - 1);
	memset(f->mem + base, 0xFF, size > f->size ? f->size : size);
	f->busy_until = f->now + fc_us(f, us);
}

/* /CS rose: commands that act on it run now. */
static void fc_end(xb_flashchip *f)
{
	int whole = f->clocks % 8 == 0;
	uint8_t cmd = f->cmd;
	enum fc_phase was = f->phase;
	f->phase = PH_IDLE;
	if (was == PH_IDLE || was == PH_CMD || f->rejected || f->dry)
		return;
	/* Instructions without arguments run only when /CS rises right after their 8 bits. */
	int noarg = cmd == 0x06 || cmd == 0x04 || cmd == 0x50 || cmd == 0x66 || cmd == 0x99 ||
		    cmd == 0xB9 || cmd == 0xC7 || cmd == 0x60;
	if (noarg && f->clocks != 8)
		return;
	int wen = f->wel;
	switch (cmd) {
	case 0x06: f->wel = 1; break;
	case 0x04: f->wel = 0; break;
	case 0x50: f->vwen = 1; break;
	case 0x66: f->reset_enabled = 1; break;
	case 0x99:
		if (f->reset_enabled) {
			f->wel = f->vwen = f->cont = f->reset_enabled = 0;
		}
		break;
	case 0xB9: f->powered_down = 1; break;
	case 0xAB: f->powered_down = 0; break;
	case 0x01: case 0x31: case 0x11:
		if (!(wen || f->vwen) || f->in_count == 0 || !whole)
			break;
		if (cmd == 0x01) {
			f->sr1 = f->page[0] & 0xFC;
			if (f->in_count >= 2)
				f->sr2 = (uint8_t)((f->sr2 & 0x3C) | (f->page[1] & 0xC3));
		} else if (cmd == 0x31) {
			f->sr2 = (uint8_t)((f->sr2 & 0x3C) | (f->page[0] & 0xC3));
		} else {
			f->sr3 = f->page[0] & 0x64;
		}
		if (wen)
			f->busy_until = f->now + fc_us(f, FC_TW_US);
		f->wel = 0;
		f->vwen = 0;
		break;
	case 0x02: case 0x32:
		if (!wen || f->in_count == 0 || !whole)
			break;
		for (unsigned k = 0; k < 256; k++)
			if (f->page_set[k] == f->page_gen)
				f->mem[((f->addr & ~0xFFu) | k) % f->size] &= f->page[k];
		f->busy_until = f->now + fc_us(f, FC_TPP_US);
		f->wel = 0;
		break;
	case 0x20: case 0x52: case 0xD8:
		if (!wen || f->clocks != 32)
			break;
		fc_erase(f, f->addr, cmd == 0x20 ? 4096u : cmd == 0x52 ? 32768u : 65536u,
			 cmd == 0x20 ? FC_TSE_US : cmd == 0x52 ? FC_TBE1_US : FC_TBE2_US);
		f->wel = 0;
		break;
	case 0xC7: case 0x60:
		if (!wen || f->clocks != 8)
			break;
		fc_erase(f, 0, f->size, FC_TCE_US);
		f->wel = 0;
		break;
	default:
		break;
	}
}

void flashchip_select(xb_flashchip *f, int low, uint64_t cycle)
{
	f->now = cycle;
	if (low == f->cs_low)
		return;
	f->cs_low = low;
	if (!low) {
		fc_end(f);
		return;
	}
	f->clocks = 0;
	f->data_reached = 0;
	if (f->cont && !f->powered_down && cycle >= f->busy_until) {
		/* Continuous read: this transfer starts at the address. */
		f->cmd = f->cont_cmd;
		f->rejected = 0;
		fc_read_geometry(f, f->cmd);
		f->out_bits = 0;
		f->out_index = 0;
		f->phase = PH_CMD;
		fc_next_phase(f);
		return;
	}
	f->cont = 0; /* busy or powered down: the chip ignores the transfer */
	fc_begin(f, PH_CMD);
}

/* For probes of a read's shape: the address the last transfer read from, 1 if its data
 * phase was reached. */
int flashchip_read_reached(const xb_flashchip *f, uint32_t *addr)
{
	if (addr)
		*addr = f->addr;
	return f->data_reached && f->src == SRC_ARRAY;
}
