/* misc: the small RP2040 blocks SDK and Zephyr start-up code touches: ROSC (the ring
 * oscillator: control passwords, status, a deterministic RANDOMBIT, the COUNT down-counter),
 * TBMAN, VREG_AND_CHIP_RESET, SYSCFG, PSM and BUSCTRL. Register facts: RP2040 datasheet
 * 2.10-2.13, 2.17, 2.21, 2.22, 2.1.5 (BUSCTRL) and pico-sdk's hardware/regs headers. */
#include <stdlib.h>

#include "periph.h"

/* ---- ROSC (datasheet 2.17) ---- */

enum {
	ROSC_CTRL = 0x00,
	ROSC_FREQA = 0x04,
	ROSC_FREQB = 0x08,
	ROSC_DORMANT = 0x0C,
	ROSC_DIV = 0x10,
	ROSC_PHASE = 0x14,
	ROSC_STATUS = 0x18,
	ROSC_RANDOMBIT = 0x1C,
	ROSC_COUNT = 0x20,
	ROSC_SIZE = 0x24,
};

#define ROSC_ENABLE_SHIFT 12
#define ROSC_ENABLE_DISABLE 0xD1Eu
#define ROSC_ENABLE_ENABLE 0xFABu
#define ROSC_RANGE_RESET 0xAA0u /* what the chip powers up with (the LOW stages) */
#define ROSC_FREQ_PASS 0x9696u
#define ROSC_DORMANT_DORMANT 0x636F6D61u
#define ROSC_DORMANT_WAKE 0x77616B65u
#define ROSC_DIV_PASS 0xAA0u
#define ROSC_DIV_RESET (ROSC_DIV_PASS + 16) /* divide by 16 at power-up */
#define ROSC_PHASE_PASS 0xAAu
#define ROSC_PHASE_RESET 0x8u
#define ROSC_STATUS_STABLE 0x80000000u
#define ROSC_STATUS_BADWRITE 0x01000000u
#define ROSC_STATUS_DIV_RUNNING 0x00010000u
#define ROSC_STATUS_ENABLED 0x00001000u
/* The datasheet's typical boot frequency (2.17: 1.8 to 12 MHz, typically 6.5 MHz) is the
 * ring divided by the power-up divisor 16: the ring itself is taken as 16 x 6.5 MHz. */
#define ROSC_RING_HZ 104000000u

/* ---- TBMAN (2.22) ---- */
/* PLATFORM: ASIC (bit 0) set, FPGA (bit 1) clear; the datasheet's reset value. */
#define TBMAN_PLATFORM_VALUE 0x5u

/* ---- VREG_AND_CHIP_RESET (2.10, 2.12) ---- */
enum {
	VREG_VREG = 0x0,
	VREG_BOD = 0x4,
	VREG_CHIP_RESET = 0x8,
	VREG_SIZE = 0xC,
};
#define VREG_RESET 0xB1u /* VSEL 1.10 V, EN */
#define VREG_MASK 0xF3u
#define VREG_ROK 0x1000u
#define VREG_EN 0x1u
#define BOD_RESET 0x91u /* VSEL 0.86 V, EN */
#define BOD_MASK 0xF1u
#define CHIP_RESET_HAD_POR 0x100u
#define CHIP_RESET_PSM_RESTART_FLAG 0x01000000u

/* ---- SYSCFG (2.21) ---- */
enum {
	SYSCFG_PROC0_NMI_MASK = 0x00,
	SYSCFG_PROC1_NMI_MASK = 0x04,
	SYSCFG_PROC_CONFIG = 0x08,
	SYSCFG_PROC_IN_SYNC_BYPASS = 0x0C,
	SYSCFG_PROC_IN_SYNC_BYPASS_HI = 0x10,
	SYSCFG_DBGFORCE = 0x14,
	SYSCFG_MEMPOWERDOWN = 0x18,
	SYSCFG_SIZE = 0x1C,
};
#define SYSCFG_PROC_CONFIG_RESET 0x10000000u /* PROC1_DAP_INSTID 1 */
#define SYSCFG_PROC_CONFIG_INSTID 0xFF000000u
#define SYSCFG_PROC0_HALTED 0x1u
#define SYSCFG_PROC1_HALTED 0x2u
#define SYSCFG_DBGFORCE_RESET 0x66u
#define SYSCFG_DBGFORCE_SWDO 0x11u /* read-only: the debug port's output (idle low here) */

/* ---- PSM (2.13) ---- */
enum {
	PSM_FRCE_ON = 0x0,
	PSM_FRCE_OFF = 0x4,
	PSM_WDSEL = 0x8,
	PSM_DONE = 0xC,
	PSM_SIZE = 0x10,
};
#define PSM_MASK 0x1FFFFu
#define PSM_PROC1 0x10000u

/* ---- BUSCTRL (2.1.5) ---- */
enum {
	BUSCTRL_BUS_PRIORITY = 0x00,
	BUSCTRL_BUS_PRIORITY_ACK = 0x04,
	BUSCTRL_PERFCTR0 = 0x08, /* PERFCTRn at 8 + 8n, PERFSELn at 0xC + 8n */
	BUSCTRL_SIZE = 0x28,
};
#define BUSCTRL_PRIORITY_MASK 0x1111u
#define BUSCTRL_PERFSEL_RESET 0x1Fu

struct xb_misc {
	xb_board *board;
	/* ROSC */
	uint32_t rosc_ctrl, rosc_freqa, rosc_freqb, rosc_dormant, rosc_div, rosc_phase;
	uint32_t rosc_status;
	uint64_t rosc_seed, rosc_rand;
	uint8_t rosc_count_start;
	uint64_t rosc_count_cycle; /* when COUNT was written */
	int dormant_reported;
	/* VREG_AND_CHIP_RESET */
	uint32_t vreg, bod, chip_reset;
	/* SYSCFG */
	uint32_t nmi_mask[2], proc_config, sync_bypass, sync_bypass_hi, dbgforce, mempowerdown;
	/* PSM */
	uint32_t frce_on, frce_off, psm_wdsel;
	int psm_reported;
	/* BUSCTRL */
	uint32_t bus_priority, perfsel[4];
	/* UART1's output line being collected for the log */
	char uart1_line[121];
	unsigned uart1_len, uart1_lines;
};

static xb_bus *misc_bus(xb_misc *m)
{
	return board_bus(m->board);
}

/* ---- ROSC ---- */

static int rosc_enabled(const xb_misc *m)
{
	return ((m->rosc_ctrl >> ROSC_ENABLE_SHIFT) & 0xFFF) != ROSC_ENABLE_DISABLE;
}

/* The output divisor: DIV - 0xAA0, where 0 divides by 32. */
static unsigned rosc_divisor(const xb_misc *m)
{
	unsigned d = (m->rosc_div - ROSC_DIV_PASS) & 0x1F;
	return d ? d : 32;
}

uint32_t misc_rosc_hz(const xb_misc *m)
{
	return rosc_enabled(m) ? ROSC_RING_HZ / rosc_divisor(m) : 0;
}

/* COUNT counts down from the value written at the ROSC's output frequency, stopping at 0. */
static uint32_t rosc_count(const xb_misc *m)
{
	uint32_t hz = misc_rosc_hz(m);
	if (!hz || !m->rosc_count_start)
		return hz ? 0 : m->rosc_count_start;
	uint64_t ticks = periph_muldiv(board_cycles(m->board) - m->rosc_count_cycle, hz,
				       board_cpu_hz(m->board));
	return ticks >= m->rosc_count_start ? 0 : (uint32_t)(m->rosc_count_start - ticks);
}

/* RANDOMBIT samples the ring; here a xorshift64* sequence from the seed, one bit per read
 * (deterministic: the same reads give the same bits). */
static uint32_t rosc_random_bit(xb_misc *m, int advance)
{
	uint64_t x = m->rosc_rand;
	if (advance) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		m->rosc_rand = x;
	}
	return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 63);
}

void misc_set_rosc_seed(xb_misc *m, uint64_t seed)
{
	m->rosc_seed = seed ? seed : 1;
	m->rosc_rand = m->rosc_seed;
}

static uint32_t rosc_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_misc *m = ctx;
	switch (off) {
	case ROSC_CTRL: return m->rosc_ctrl;
	case ROSC_FREQA: return m->rosc_freqa;
	case ROSC_FREQB: return m->rosc_freqb;
	case ROSC_DORMANT: return m->rosc_dormant;
	case ROSC_DIV: return m->rosc_div;
	case ROSC_PHASE: return m->rosc_phase;
	case ROSC_STATUS: {
		uint32_t s = m->rosc_status | ROSC_STATUS_DIV_RUNNING;
		if (rosc_enabled(m))
			s |= ROSC_STATUS_ENABLED | ROSC_STATUS_STABLE;
		return s;
	}
	case ROSC_RANDOMBIT:
		return rosc_random_bit(m, !bus_access_is_debug(misc_bus(m)));
	case ROSC_COUNT: return rosc_count(m);
	}
	bus_report_hole(misc_bus(m));
	return 0;
}

static void rosc_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		       enum xb_alias_op op)
{
	(void)size;
	xb_misc *m = ctx;
	switch (off) {
	case ROSC_CTRL: {
		uint32_t v = periph_rw(m->rosc_ctrl, value, op, 0x00FFFFFFu);
		unsigned en = (v >> ROSC_ENABLE_SHIFT) & 0xFFF, range = v & 0xFFF;
		/* An invalid ENABLE code enables the oscillator; an invalid range is flagged. */
		if (en != ROSC_ENABLE_ENABLE && en != ROSC_ENABLE_DISABLE) {
			m->rosc_status |= ROSC_STATUS_BADWRITE;
			v = (v & 0xFFF) | ROSC_ENABLE_ENABLE << ROSC_ENABLE_SHIFT;
		}
		if (range != ROSC_RANGE_RESET && (range & ~3u) != 0xFA4u)
			m->rosc_status |= ROSC_STATUS_BADWRITE;
		if (en == ROSC_ENABLE_DISABLE && rosc_enabled(m))
			bus_log(misc_bus(m), "ROSC disabled (no modelled clock depends on it)");
		m->rosc_ctrl = v;
		return;
	}
	case ROSC_FREQA:
	case ROSC_FREQB: {
		uint32_t *r = off == ROSC_FREQA ? &m->rosc_freqa : &m->rosc_freqb;
		uint32_t v = periph_rw(*r, value, op, 0xFFFF7777u);
		/* Without the password the drive strengths go to 0. */
		if (v >> 16 != ROSC_FREQ_PASS)
			v &= 0xFFFF0000u;
		*r = v;
		return;
	}
	case ROSC_DORMANT: {
		uint32_t v = bus_alias_apply(m->rosc_dormant, value, op);
		if (v == ROSC_DORMANT_DORMANT) {
			/* DORMANT stops every clock until a wake-up interrupt (2.11.3): not
			 * modelled, the core keeps running and the oscillator reads awake. */
			if (!m->dormant_reported)
				bus_log(misc_bus(m), "ROSC DORMANT is not modelled: the chip keeps "
						     "running");
			m->dormant_reported = 1;
		} else if (v != ROSC_DORMANT_WAKE) {
			m->rosc_status |= ROSC_STATUS_BADWRITE;
		}
		m->rosc_dormant = ROSC_DORMANT_WAKE;
		return;
	}
	case ROSC_DIV: {
		uint32_t v = periph_rw(m->rosc_div, value, op, 0xFFF);
		if (v < ROSC_DIV_PASS || v > ROSC_DIV_PASS + 31) {
			m->rosc_status |= ROSC_STATUS_BADWRITE;
			v = ROSC_DIV_PASS + 31;
		}
		m->rosc_div = v;
		return;
	}
	case ROSC_PHASE: {
		uint32_t v = periph_rw(m->rosc_phase, value, op, 0xFFF);
		if ((v >> 4) != ROSC_PHASE_PASS) {
			m->rosc_status |= ROSC_STATUS_BADWRITE;
			v = (v & ~3u) | 0x8u; /* the output enabled with shift 0 */
		}
		m->rosc_phase = v;
		return;
	}
	case ROSC_STATUS:
		m->rosc_status = periph_wc(m->rosc_status, value & ROSC_STATUS_BADWRITE);
		return;
	case ROSC_RANDOMBIT:
		return;
	case ROSC_COUNT:
		m->rosc_count_start = (uint8_t)periph_rw(rosc_count(m), value, op, 0xFF);
		m->rosc_count_cycle = board_cycles(m->board);
		return;
	}
	bus_report_hole(misc_bus(m));
}

static const xb_device_ops rosc_ops = {.read = rosc_read, .write = rosc_write};

static void rosc_power_on(xb_misc *m)
{
	m->rosc_ctrl = ROSC_ENABLE_ENABLE << ROSC_ENABLE_SHIFT | ROSC_RANGE_RESET;
	m->rosc_freqa = m->rosc_freqb = 0;
	m->rosc_dormant = ROSC_DORMANT_WAKE;
	m->rosc_div = ROSC_DIV_RESET;
	m->rosc_phase = ROSC_PHASE_RESET;
	m->rosc_status = 0;
	m->rosc_count_start = 0;
	m->rosc_count_cycle = board_cycles(m->board);
	m->rosc_rand = m->rosc_seed;
}

/* ---- TBMAN ---- */

static uint32_t tbman_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_misc *m = ctx;
	if (off == 0)
		return TBMAN_PLATFORM_VALUE;
	bus_report_hole(misc_bus(m));
	return 0;
}

static void tbman_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
			enum xb_alias_op op)
{
	(void)value;
	(void)size;
	(void)op;
	xb_misc *m = ctx;
	if (off != 0)
		bus_report_hole(misc_bus(m)); /* PLATFORM is read-only */
}

static const xb_device_ops tbman_ops = {.read = tbman_read, .write = tbman_write};

/* ---- VREG_AND_CHIP_RESET ---- */

static uint32_t vreg_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_misc *m = ctx;
	switch (off) {
	case VREG_VREG:
		/* ROK: the regulator output is in regulation whenever it is enabled. */
		return m->vreg | ((m->vreg & VREG_EN) ? VREG_ROK : 0);
	case VREG_BOD: return m->bod;
	case VREG_CHIP_RESET: return m->chip_reset;
	}
	bus_report_hole(misc_bus(m));
	return 0;
}

static void vreg_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		       enum xb_alias_op op)
{
	(void)size;
	xb_misc *m = ctx;
	switch (off) {
	case VREG_VREG: m->vreg = periph_rw(m->vreg, value, op, VREG_MASK); return;
	case VREG_BOD: m->bod = periph_rw(m->bod, value, op, BOD_MASK); return;
	case VREG_CHIP_RESET:
		/* PSM_RESTART_FLAG is write-1-to-clear; the HAD_* bits are read-only. */
		m->chip_reset = periph_wc(m->chip_reset, value & CHIP_RESET_PSM_RESTART_FLAG);
		return;
	}
	bus_report_hole(misc_bus(m));
}

static const xb_device_ops vreg_ops = {.read = vreg_read, .write = vreg_write};

/* ---- SYSCFG ---- */

static uint32_t syscfg_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_misc *m = ctx;
	switch (off) {
	case SYSCFG_PROC0_NMI_MASK: return m->nmi_mask[0];
	case SYSCFG_PROC1_NMI_MASK: return m->nmi_mask[1];
	case SYSCFG_PROC_CONFIG:
		/* PROCn_HALTED follow the cores' debug halts. */
		return m->proc_config |
		       (board_core_halted(m->board, 0) ? SYSCFG_PROC0_HALTED : 0) |
		       (board_core_halted(m->board, 1) ? SYSCFG_PROC1_HALTED : 0);
	case SYSCFG_PROC_IN_SYNC_BYPASS: return m->sync_bypass;
	case SYSCFG_PROC_IN_SYNC_BYPASS_HI: return m->sync_bypass_hi;
	case SYSCFG_DBGFORCE: return m->dbgforce;
	case SYSCFG_MEMPOWERDOWN: return m->mempowerdown;
	}
	bus_report_hole(misc_bus(m));
	return 0;
}

static void syscfg_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
			 enum xb_alias_op op)
{
	(void)size;
	xb_misc *m = ctx;
	switch (off) {
	case SYSCFG_PROC0_NMI_MASK:
	case SYSCFG_PROC1_NMI_MASK: {
		uint32_t *r = &m->nmi_mask[off / 4];
		*r = periph_rw(*r, value, op, 0xFFFFFFFFu);
		return;
	}
	case SYSCFG_PROC_CONFIG:
		m->proc_config = periph_rw(m->proc_config, value, op, SYSCFG_PROC_CONFIG_INSTID);
		return;
	case SYSCFG_PROC_IN_SYNC_BYPASS:
		m->sync_bypass = periph_rw(m->sync_bypass, value, op, 0x3FFFFFFFu);
		return;
	case SYSCFG_PROC_IN_SYNC_BYPASS_HI:
		m->sync_bypass_hi = periph_rw(m->sync_bypass_hi, value, op, 0x3F);
		return;
	case SYSCFG_DBGFORCE:
		m->dbgforce = periph_rw(m->dbgforce, value, op, 0xFF & ~SYSCFG_DBGFORCE_SWDO);
		return;
	case SYSCFG_MEMPOWERDOWN: {
		uint32_t v = periph_rw(m->mempowerdown, value, op, 0xFF);
		if (v & ~m->mempowerdown)
			bus_log(misc_bus(m), "SYSCFG MEMPOWERDOWN 0x%02x: powered-down memories "
					     "keep working here", v);
		m->mempowerdown = v;
		return;
	}
	}
	bus_report_hole(misc_bus(m));
}

static const xb_device_ops syscfg_ops = {.read = syscfg_read, .write = syscfg_write};

/* RESETS bit 18. */
static void syscfg_block_reset(void *ctx, int held)
{
	xb_misc *m = ctx;
	if (!held)
		return;
	m->nmi_mask[0] = m->nmi_mask[1] = 0;
	m->proc_config = SYSCFG_PROC_CONFIG_RESET;
	m->sync_bypass = m->sync_bypass_hi = 0;
	m->dbgforce = SYSCFG_DBGFORCE_RESET;
	m->mempowerdown = 0;
}

/* ---- PSM ---- */

static uint32_t psm_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_misc *m = ctx;
	switch (off) {
	case PSM_FRCE_ON: return m->frce_on;
	case PSM_FRCE_OFF: return m->frce_off;
	case PSM_WDSEL: return m->psm_wdsel;
	case PSM_DONE:
		/* Every domain is powered and out of reset unless forced off. */
		return PSM_MASK & ~m->frce_off;
	}
	bus_report_hole(misc_bus(m));
	return 0;
}

static void psm_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		      enum xb_alias_op op)
{
	(void)size;
	xb_misc *m = ctx;
	switch (off) {
	case PSM_FRCE_ON: m->frce_on = periph_rw(m->frce_on, value, op, PSM_MASK); return;
	case PSM_FRCE_OFF: {
		uint32_t v = periph_rw(m->frce_off, value, op, PSM_MASK);
		/* Forcing PROC1 off holds core 1 in reset until it is released
		 * (multicore_reset_core1); anything else forced off would stop the chip,
		 * which is not modelled. */
		if ((v ^ m->frce_off) & PSM_PROC1)
			board_core1_reset(m->board, (v & PSM_PROC1) != 0);
		if ((v & ~m->frce_off & ~PSM_PROC1) && !m->psm_reported) {
			bus_log(misc_bus(m), "PSM FRCE_OFF 0x%05x: powering domains off is not "
					     "modelled", v);
			m->psm_reported = 1;
		}
		m->frce_off = v;
		return;
	}
	case PSM_WDSEL: m->psm_wdsel = periph_rw(m->psm_wdsel, value, op, PSM_MASK); return;
	case PSM_DONE: return;
	}
	bus_report_hole(misc_bus(m));
}

static const xb_device_ops psm_ops = {.read = psm_read, .write = psm_write};

/* ---- BUSCTRL ---- */

static uint32_t busctrl_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_misc *m = ctx;
	if (off == BUSCTRL_BUS_PRIORITY)
		return m->bus_priority;
	if (off == BUSCTRL_BUS_PRIORITY_ACK)
		return 1; /* a single master: the new priorities apply at once */
	if (off >= BUSCTRL_PERFCTR0 && off < BUSCTRL_SIZE)
		/* The performance counters do not count here (see docs). */
		return ((off - BUSCTRL_PERFCTR0) & 4) ? m->perfsel[(off - BUSCTRL_PERFCTR0) / 8]
						       : 0;
	bus_report_hole(misc_bus(m));
	return 0;
}

static void busctrl_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
			  enum xb_alias_op op)
{
	(void)size;
	xb_misc *m = ctx;
	if (off == BUSCTRL_BUS_PRIORITY) {
		m->bus_priority = periph_rw(m->bus_priority, value, op, BUSCTRL_PRIORITY_MASK);
		return;
	}
	if (off == BUSCTRL_BUS_PRIORITY_ACK)
		return;
	if (off >= BUSCTRL_PERFCTR0 && off < BUSCTRL_SIZE) {
		unsigned n = (off - BUSCTRL_PERFCTR0) / 8;
		if ((off - BUSCTRL_PERFCTR0) & 4)
			m->perfsel[n] = periph_rw(m->perfsel[n], value, op, 0x1F);
		return; /* a PERFCTR write clears it: it stays 0 */
	}
	bus_report_hole(misc_bus(m));
}

static const xb_device_ops busctrl_ops = {.read = busctrl_read, .write = busctrl_write};

/* RESETS bit 1. */
static void busctrl_block_reset(void *ctx, int held)
{
	xb_misc *m = ctx;
	if (!held)
		return;
	m->bus_priority = 0;
	for (int i = 0; i < 4; i++)
		m->perfsel[i] = BUSCTRL_PERFSEL_RESET;
}

/* ---- UART1's output ---- */

#define UART1_LOG_LINES 200

static void uart1_flush(xb_misc *m)
{
	if (m->uart1_lines < UART1_LOG_LINES) {
		m->uart1_line[m->uart1_len] = 0;
		bus_log(misc_bus(m), "UART1: %s", m->uart1_line);
	} else if (m->uart1_lines == UART1_LOG_LINES) {
		bus_log(misc_bus(m), "UART1: further output is not reported");
	}
	m->uart1_lines++;
	m->uart1_len = 0;
}

/* Text lines (120 characters at most, control characters as '.'), so a console on UART1
 * shows up in the report. */
void misc_uart1_byte(void *ctx, uint8_t byte)
{
	xb_misc *m = ctx;
	if (byte == '\r')
		return;
	if (byte == '\n') {
		uart1_flush(m);
		return;
	}
	m->uart1_line[m->uart1_len++] = byte >= 0x20 && byte < 0x7F ? (char)byte : '.';
	if (m->uart1_len == sizeof m->uart1_line - 1)
		uart1_flush(m);
}

/* ---- The whole ---- */

/* A system reset releases core 1 (board_reset does), so PSM's forces go back to 0 with it.
 * The other chip-level blocks (ROSC, VREG) are reset only at power-on (2.12, 2.13), which
 * misc_new does; SYSCFG and BUSCTRL follow their RESETS bits. */
static void misc_system_reset(xb_board *b, void *ctx)
{
	(void)b;
	xb_misc *m = ctx;
	m->frce_on = m->frce_off = 0;
}

xb_misc *misc_new(xb_board *b, xb_resets *r)
{
	xb_misc *m = xcalloc(1, sizeof *m);
	m->board = b;
	misc_set_rosc_seed(m, XB_ROSC_SEED_DEFAULT);
	rosc_power_on(m);
	m->vreg = VREG_RESET;
	m->bod = BOD_RESET;
	m->chip_reset = CHIP_RESET_HAD_POR; /* the last chip-level reset was power-on */
	syscfg_block_reset(m, 1);
	busctrl_block_reset(m, 1);
	xb_bus *bus = board_bus(b);
	if (bus_map(bus, XB_ROSC_BASE, ROSC_SIZE, "ROSC", &rosc_ops, m) ||
	    bus_map(bus, XB_TBMAN_BASE, 4, "TBMAN", &tbman_ops, m) ||
	    bus_map(bus, XB_VREG_BASE, VREG_SIZE, "VREG_AND_CHIP_RESET", &vreg_ops, m) ||
	    bus_map(bus, XB_SYSCFG_BASE, SYSCFG_SIZE, "SYSCFG", &syscfg_ops, m) ||
	    bus_map(bus, XB_PSM_BASE, PSM_SIZE, "PSM", &psm_ops, m) ||
	    bus_map(bus, XB_BUSCTRL_BASE, BUSCTRL_SIZE, "BUSCTRL", &busctrl_ops, m)) {
		free(m);
		return NULL;
	}
	board_on_reset(b, misc_system_reset, m);
	resets_on_block(r, XB_RESET_SYSCFG, syscfg_block_reset, m);
	resets_on_block(r, XB_RESET_BUSCTRL, busctrl_block_reset, m);
	return m;
}

void misc_free(xb_misc *m)
{
	free(m);
}
