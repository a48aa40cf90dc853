/* ppb: the Cortex-M0+ private peripheral bus of the virtual Pico: SysTick, NVIC, SCB (CPU and
 * debugger), DWT, breakpoint unit, debug control registers and ROM table (debugger only). */
#include "ppb.h"

#include <string.h>

#define SCS_BASE 0xE000E000u
#define DWT_BASE 0xE0001000u
#define BPU_BASE 0xE0002000u
#define ROMTABLE_BASE 0xE00FF000u

#define CPUID_VALUE 0x410CC601u
#define CCR_VALUE 0x00000208u  /* STKALIGN, UNALIGN_TRP: fixed on ARMv6-M */
#define MPU_TYPE_VALUE 0x00000800u /* 8 regions (storage only: not enforced) */

/* SYST_CSR bits */
#define ST_ENABLE 0x1u
#define ST_TICKINT 0x2u
#define ST_CLKSOURCE 0x4u

/* ---- SysTick ----
 * The counter moves on clock edges: every cycle with CLKSOURCE = 1 (processor clock), or
 * every cpu_hz / 1 MHz cycles with CLKSOURCE = 0 (the RP2040's external reference is the
 * 1 us watchdog tick; the watchdog tick configuration itself is not modelled here). Each
 * edge: a zero counter reloads from RVR, any other value counts down, and reaching zero
 * sets COUNTFLAG and pends SysTick when TICKINT is set. */

static uint64_t systick_period(const xb_cpu *c)
{
	if (c->systick.csr & ST_CLKSOURCE)
		return 1;
	uint64_t p = board_cpu_hz(c->board) / 1000000u;
	return p ? p : 1;
}

static uint64_t systick_edges(const xb_cpu *c, uint64_t cycle)
{
	return cycle / systick_period(c);
}

/* The counter value after `edges` edges (absolute count). */
static uint32_t systick_value_at(const xb_cpu *c, uint64_t edges)
{
	const xb_systick *s = &c->systick;
	if (!(s->csr & ST_ENABLE) || edges <= s->base_edge)
		return s->base_value;
	uint64_t n = edges - s->base_edge;
	if (n <= s->base_value)
		return s->base_value - (uint32_t)n;
	uint64_t m = n - s->base_value;
	if (s->rvr == 0)
		return 0;
	uint64_t k = m % ((uint64_t)s->rvr + 1);
	return k == 0 ? 0 : s->rvr - (uint32_t)(k - 1);
}

/* Edge at which the counter next reaches zero from a non-zero value, or 0 for never. */
static uint64_t systick_next_zero(const xb_cpu *c)
{
	const xb_systick *s = &c->systick;
	if (!(s->csr & ST_ENABLE))
		return 0;
	if (s->base_value)
		return s->base_edge + s->base_value;
	if (s->rvr == 0)
		return 0;
	return s->base_edge + s->rvr + 1;
}

static void systick_event(xb_board *b, void *ctx);

static void systick_schedule(xb_cpu *c)
{
	xb_systick *s = &c->systick;
	if (s->event) {
		board_cancel(c->board, s->event);
		s->event = 0;
	}
	uint64_t z = systick_next_zero(c);
	if (z)
		s->event = board_schedule(c->board, z * systick_period(c), systick_event, c);
}

static void systick_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_cpu *c = ctx;
	xb_systick *s = &c->systick;
	s->event = 0;
	uint64_t z = systick_next_zero(c);
	if (!z)
		return;
	s->base_edge = z;
	s->base_value = 0;
	s->countflag = 1;
	if (s->csr & ST_TICKINT)
		cpu_set_pending(c, XB_EXC_SYSTICK);
	systick_schedule(c);
}

/* Folds the elapsed edges into the base, so that a register change applies from now. */
static void systick_rebase(xb_cpu *c)
{
	xb_systick *s = &c->systick;
	uint64_t e = systick_edges(c, c->cycles);
	s->base_value = systick_value_at(c, e);
	s->base_edge = e;
}

static uint32_t systick_read(xb_cpu *c, uint32_t off, int debug)
{
	xb_systick *s = &c->systick;
	switch (off) {
	case 0x10: {
		uint32_t v = s->csr | (s->countflag ? 1u << 16 : 0);
		if (!debug)
			s->countflag = 0;
		return v;
	}
	case 0x14:
		return s->rvr;
	case 0x18:
		return systick_value_at(c, systick_edges(c, c->cycles));
	default: /* 0x1C CALIB: 0 on the RP2040 */
		return 0;
	}
}

static void systick_write(xb_cpu *c, uint32_t off, uint32_t v)
{
	xb_systick *s = &c->systick;
	systick_rebase(c);
	switch (off) {
	case 0x10:
		s->csr = v & (ST_ENABLE | ST_TICKINT | ST_CLKSOURCE);
		s->base_edge = systick_edges(c, c->cycles); /* the clock may have changed */
		break;
	case 0x14:
		s->rvr = v & 0xFFFFFF;
		break;
	case 0x18:
		s->base_value = 0;
		s->countflag = 0;
		break;
	default:
		return;
	}
	systick_schedule(c);
}

void ppb_reset(xb_cpu *c)
{
	xb_systick *s = &c->systick;
	if (s->event)
		board_cancel(c->board, s->event);
	memset(s, 0, sizeof *s);
	/* SYST_CSR resets to 0: disabled, external (1 us) clock selected. */
}

/* ---- NVIC and SCB ---- */

static uint32_t scs_icsr(const xb_cpu *c)
{
	int prio;
	unsigned best = cpu_best_pending(c, &prio);
	uint32_t v = c->ipsr & 0x3F;
	v |= (best & 0x3F) << 12;
	if (c->pending & (0xFFFFFFFFull << XB_EXC_IRQ0))
		v |= 1u << 22; /* ISRPENDING */
	if (c->pending & (1ull << XB_EXC_SYSTICK))
		v |= 1u << 26;
	if (c->pending & (1ull << XB_EXC_PENDSV))
		v |= 1u << 28;
	if (c->pending & (1ull << XB_EXC_NMI))
		v |= 1u << 31;
	return v;
}

static void scs_write_icsr(xb_cpu *c, uint32_t v)
{
	if (v & (1u << 31))
		cpu_set_pending(c, XB_EXC_NMI);
	if (v & (1u << 27))
		cpu_clear_pending(c, XB_EXC_PENDSV);
	else if (v & (1u << 28))
		cpu_set_pending(c, XB_EXC_PENDSV);
	if (v & (1u << 25))
		cpu_clear_pending(c, XB_EXC_SYSTICK);
	else if (v & (1u << 26))
		cpu_set_pending(c, XB_EXC_SYSTICK);
}

static uint32_t scs_ipr(const xb_cpu *c, uint32_t idx)
{
	const uint8_t *p = c->irq_prio + 4 * idx;
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static uint32_t scs_read(void *ctx, uint32_t off, unsigned size)
{
	xb_cpu *c = board_cur_cpu(((xb_cpu *)ctx)->board); /* each core has its own SCS */
	int debug = bus_access_is_debug(c->bus);
	if (size != 4) { /* the SCS is word-access only */
		bus_report_hole(c->bus);
		return 0;
	}
	if (off >= 0x10 && off < 0x20)
		return systick_read(c, off, debug);
	if (off >= 0x400 && off < 0x420)
		return scs_ipr(c, (off - 0x400) / 4);
	switch (off) {
	case 0x100:
		return c->irq_enable;
	case 0x180:
		return c->irq_enable;
	case 0x200:
	case 0x280:
		return (uint32_t)(c->pending >> XB_EXC_IRQ0);
	case 0xD00:
		return CPUID_VALUE;
	case 0xD04:
		return scs_icsr(c);
	case 0xD08:
		return c->vtor;
	case 0xD0C:
		return 0xFA050000u;
	case 0xD10:
		return c->scr;
	case 0xD14:
		return CCR_VALUE;
	case 0xD1C:
		return c->shpr2;
	case 0xD20:
		return c->shpr3;
	case 0xD90:
		return MPU_TYPE_VALUE;
	case 0xD94:
		return c->mpu[0];
	case 0xD98:
		return c->mpu[1];
	case 0xD24: /* SHCSR and DFSR: the debugger's; the M0+ core reads them as zero */
	case 0xD30:
		return 0;
	case 0xD9C:
	case 0xDA0:
		return 0; /* RBAR / RASR: the MPU is not modelled beyond CTRL and RNR */
	default:
		bus_report_hole(c->bus);
		return 0;
	}
}

static void scs_write(void *ctx, uint32_t off, uint32_t v, unsigned size, enum xb_alias_op op)
{
	(void)op;
	xb_cpu *c = board_cur_cpu(((xb_cpu *)ctx)->board); /* each core has its own SCS */
	if (size != 4) {
		bus_report_hole(c->bus);
		return;
	}
	if (off >= 0x10 && off < 0x20) {
		systick_write(c, off, v);
		return;
	}
	if (off >= 0x400 && off < 0x420) {
		uint8_t *p = c->irq_prio + (off - 0x400);
		for (int i = 0; i < 4; i++)
			p[i] = (uint8_t)((v >> (8 * i)) & 0xC0);
		cpu_irq_changed(c);
		return;
	}
	switch (off) {
	case 0x100:
		c->irq_enable |= v;
		cpu_irq_changed(c);
		break;
	case 0x180:
		c->irq_enable &= ~v;
		break;
	case 0x200:
		for (unsigned i = 0; i < 32; i++)
			if (v & (1u << i))
				cpu_set_pending(c, XB_EXC_IRQ0 + i);
		break;
	case 0x280:
		for (unsigned i = 0; i < 32; i++)
			if (v & (1u << i))
				cpu_clear_pending(c, XB_EXC_IRQ0 + i);
		break;
	case 0xD04:
		scs_write_icsr(c, v);
		break;
	case 0xD08:
		c->vtor = v & 0xFFFFFF00u;
		break;
	case 0xD0C:
		if ((v >> 16) == 0x05FA && (v & 4)) {
			c->reset_requested = 1;
			c->stop_at = 0;
		}
		break;
	case 0xD10:
		c->scr = v & 0x16;
		cpu_irq_changed(c);
		break;
	case 0xD1C:
		c->shpr2 = v & 0xC0000000u;
		cpu_irq_changed(c);
		break;
	case 0xD20:
		c->shpr3 = v & 0xC0C00000u;
		cpu_irq_changed(c);
		break;
	case 0xD94:
		c->mpu[0] = v & 7;
		break;
	case 0xD98:
		c->mpu[1] = v & 0xFF;
		break;
	case 0xD9C:
	case 0xDA0:
		break; /* not kept: the MPU is not enforced */
	case 0xD00:
	case 0xD14:
	case 0xD90:
		break; /* read-only */
	case 0xD24:
	case 0xD30:
		break; /* debugger only: ignored from the CPU */
	default:
		bus_report_hole(c->bus);
		break;
	}
}

static const xb_device_ops scs_ops = {
	.read = scs_read,
	.write = scs_write,
};

int ppb_init(xb_cpu *c)
{
	return bus_map(c->bus, SCS_BASE, 0x1000, "SCS (SysTick, NVIC, SCB)", &scs_ops, c);
}

/* ---- Debug-only registers ---- */

int ppb_debug_only(uint32_t addr)
{
	if (addr >> 12 == DWT_BASE >> 12 || addr >> 12 == BPU_BASE >> 12 ||
	    addr >> 12 == ROMTABLE_BASE >> 12)
		return 1;
	return addr == 0xE000ED24u || addr == 0xE000ED30u ||
	       (addr >= 0xE000EDF0u && addr < 0xE000EE00u);
}

uint32_t ppb_pcsr(const xb_cpu *c)
{
	if (!(c->demcr & (1u << 24)))
		return 0;
	return board_core_pcsr(c->board, c->core);
}

static void ppb_update_bp(xb_cpu *c)
{
	int any = 0;
	if (c->bp_ctrl & 1)
		for (int i = 0; i < 4; i++)
			if ((c->bp_comp[i] & 1) && (c->bp_comp[i] >> 30))
				any = 1;
	c->bp_active = any;
	c->stop_at = 0;
}

int ppb_breakpoint_hit(const xb_cpu *c, uint32_t pc)
{
	if (!(c->bp_ctrl & 1) || pc >= 0x20000000u)
		return 0;
	for (int i = 0; i < 4; i++) {
		uint32_t comp = c->bp_comp[i];
		if (!(comp & 1) || (comp & 0x1FFFFFFCu) != (pc & ~3u))
			continue;
		unsigned match = comp >> 30;
		if ((pc & 2) ? (match & 2) : (match & 1))
			return 1;
	}
	return 0;
}

static uint32_t ppb_dhcsr(xb_cpu *c)
{
	uint32_t v = c->dhcsr & 0xDu; /* C_DEBUGEN, C_STEP, C_MASKINTS as written */
	if (c->halted)
		v |= 2u | (1u << 17);
	v |= 1u << 16; /* S_REGRDY: register transfers complete at once */
	if (c->sleep)
		v |= 1u << 18;
	if (c->lockup)
		v |= 1u << 19;
	if (c->retired)
		v |= 1u << 24;
	if (c->reset_st)
		v |= 1u << 25;
	c->retired = 0;
	c->reset_st = 0;
	return v;
}

static void ppb_write_dhcsr(xb_cpu *c, uint32_t v)
{
	if ((v >> 16) != 0xA05F)
		return;
	if (!(v & 1)) {
		c->dhcsr = 0;
		if (c->halted)
			cpu_resume(c);
		return;
	}
	c->dhcsr = v & 0xF;
	if (v & 2) {
		cpu_halt(c, 1u); /* DFSR.HALTED */
	} else if (c->halted) {
		c->halt_pending_step = (v & 4) != 0;
		cpu_resume(c);
	}
}

static const uint32_t romtable_entries[] = {
	0xFFF0F003u, /* SCS */
	0xFFF02003u, /* DWT */
	0xFFF03003u, /* BPU */
	0,
};

int ppb_debug_read(xb_cpu *c, uint32_t addr, unsigned size, uint32_t *value)
{
	*value = 0;
	if (size != 4 || (addr & 3))
		return -1;
	if (addr >> 12 == DWT_BASE >> 12) {
		uint32_t off = addr - DWT_BASE;
		if (off == 0)
			*value = (c->demcr & (1u << 24)) ? 2u << 28 : 0;
		else if (off == 0x1C)
			*value = ppb_pcsr(c);
		else if (off >= 0x20 && off < 0x40 && (off & 0xF) < 0xC)
			*value = c->dwt_comp[(off - 0x20) >> 4][(off & 0xF) >> 2];
		return 0;
	}
	if (addr >> 12 == BPU_BASE >> 12) {
		uint32_t off = addr - BPU_BASE;
		if (off == 0)
			*value = (c->bp_ctrl & 1) | (4u << 4);
		else if (off >= 8 && off < 0x18)
			*value = c->bp_comp[(off - 8) / 4];
		return 0;
	}
	if (addr >> 12 == ROMTABLE_BASE >> 12) {
		uint32_t off = addr - ROMTABLE_BASE;
		static const uint32_t cidr[4] = {0x0D, 0x10, 0x05, 0xB1};
		if (off < sizeof romtable_entries)
			*value = romtable_entries[off / 4];
		else if (off == 0xFCC)
			*value = 1; /* MEMTYPE: system memory present */
		else if (off >= 0xFF0)
			*value = cidr[(off - 0xFF0) / 4];
		return 0;
	}
	switch (addr) {
	case 0xE000ED24u: /* SHCSR: SVCALLPENDED */
		*value = (c->pending & (1ull << XB_EXC_SVCALL)) ? 1u << 15 : 0;
		return 0;
	case 0xE000ED30u:
		*value = c->dfsr;
		return 0;
	case 0xE000EDF0u:
		*value = ppb_dhcsr(c);
		return 0;
	case 0xE000EDF4u:
		return 0; /* DCRSR is write-only */
	case 0xE000EDF8u:
		*value = c->dcrdr;
		return 0;
	case 0xE000EDFCu:
		*value = c->demcr;
		return 0;
	default:
		return 0;
	}
}

int ppb_debug_write(xb_cpu *c, uint32_t addr, unsigned size, uint32_t v)
{
	if (size != 4 || (addr & 3))
		return -1;
	if (addr >> 12 == DWT_BASE >> 12) {
		uint32_t off = addr - DWT_BASE;
		if (off >= 0x20 && off < 0x40 && (off & 0xF) < 0xC)
			c->dwt_comp[(off - 0x20) >> 4][(off & 0xF) >> 2] = v;
		return 0;
	}
	if (addr >> 12 == BPU_BASE >> 12) {
		uint32_t off = addr - BPU_BASE;
		if (off == 0 && (v & 2)) /* KEY must be set for the write to count */
			c->bp_ctrl = v & 1;
		else if (off >= 8 && off < 0x18)
			c->bp_comp[(off - 8) / 4] = v & 0xDFFFFFFDu;
		ppb_update_bp(c);
		return 0;
	}
	switch (addr) {
	case 0xE000ED24u:
		if (v & (1u << 15))
			cpu_set_pending(c, XB_EXC_SVCALL);
		else
			cpu_clear_pending(c, XB_EXC_SVCALL);
		return 0;
	case 0xE000ED30u:
		c->dfsr &= ~(v & 0x1F);
		return 0;
	case 0xE000EDF0u:
		ppb_write_dhcsr(c, v);
		return 0;
	case 0xE000EDF4u: {
		unsigned sel = v & 0x1F;
		if (!c->halted)
			return 0; /* register transfers need debug state */
		if (v & (1u << 16))
			cpu_set_reg(c, sel, c->dcrdr);
		else
			c->dcrdr = cpu_get_reg(c, sel);
		return 0;
	}
	case 0xE000EDF8u:
		c->dcrdr = v;
		return 0;
	case 0xE000EDFCu:
		c->demcr = v & ((1u << 24) | (1u << 10) | 1u);
		return 0;
	default:
		return 0;
	}
}
