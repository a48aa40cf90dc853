/* cpu_exc: ARMv6-M exceptions for the virtual Pico: priorities, entry and return with
 * stacking, tail-chaining, faults and lockup, special registers, debug halt. */
#include <stdio.h>
#include <string.h>

#include "cpu.h"
#include "ppb.h"

#define BIT(n) (1ull << (n))

int cpu_exc_priority(const xb_cpu *c, unsigned n)
{
	switch (n) {
	case XB_EXC_RESET:
		return -3;
	case XB_EXC_NMI:
		return -2;
	case XB_EXC_HARDFAULT:
		return -1;
	case XB_EXC_SVCALL:
		return (int)(c->shpr2 >> 24) & 0xC0;
	case XB_EXC_PENDSV:
		return (int)(c->shpr3 >> 16) & 0xC0;
	case XB_EXC_SYSTICK:
		return (int)(c->shpr3 >> 24) & 0xC0;
	default:
		if (n >= XB_EXC_IRQ0 && n < XB_EXC_COUNT)
			return c->irq_prio[n - XB_EXC_IRQ0] & 0xC0;
		return 256;
	}
}

/* Priority of the active exceptions alone (256 in thread mode with none active). */
static int cpu_active_priority(const xb_cpu *c)
{
	int p = 256;
	for (uint64_t a = c->active; a; a &= a - 1) {
		int q = cpu_exc_priority(c, (unsigned)__builtin_ctzll(a));
		if (q < p)
			p = q;
	}
	return p;
}

int cpu_exec_priority(const xb_cpu *c)
{
	int p = cpu_active_priority(c);
	if (c->primask && p > 0)
		p = 0;
	return p;
}

/* Pending exceptions that may be taken: system ones always, IRQs when enabled. */
static uint64_t cpu_pending_enabled(const xb_cpu *c)
{
	uint64_t mask = 0xFFFFull | ((uint64_t)c->irq_enable << XB_EXC_IRQ0);
	return c->pending & mask;
}

unsigned cpu_best_pending(const xb_cpu *c, int *prio)
{
	unsigned best = 0;
	int bp = 257;
	for (uint64_t p = cpu_pending_enabled(c); p; p &= p - 1) {
		unsigned n = (unsigned)__builtin_ctzll(p);
		int q = cpu_exc_priority(c, n);
		if (q < bp) { /* ties: the lower number came first and stays */
			bp = q;
			best = n;
		}
	}
	if (prio)
		*prio = bp;
	return best;
}

/* A WFI wakes for an exception that would preempt if PRIMASK were clear. */
static int cpu_wfi_wakes(const xb_cpu *c)
{
	int prio;
	return cpu_best_pending(c, &prio) && prio < cpu_active_priority(c);
}

static int cpu_can_take(const xb_cpu *c)
{
	int prio;
	return cpu_best_pending(c, &prio) && prio < cpu_exec_priority(c);
}

void cpu_irq_changed(xb_cpu *c)
{
	if (cpu_can_take(c) || (c->sleep && cpu_wfi_wakes(c)))
		c->stop_at = 0;
}

void cpu_set_pending(xb_cpu *c, unsigned n)
{
	if (n >= XB_EXC_COUNT)
		return;
	if (!(c->pending & BIT(n)) && (c->scr & 0x10)) /* SEVONPEND */
		c->event_reg = 1;
	c->pending |= BIT(n);
	cpu_irq_changed(c);
	if (c->sleep == XB_SLEEP_WFE && c->event_reg)
		c->stop_at = 0;
}

void cpu_clear_pending(xb_cpu *c, unsigned n)
{
	if (n >= XB_EXC_COUNT)
		return;
	c->pending &= ~BIT(n);
	/* A level-sensitive line that is still high pends again at once. */
	if (n >= XB_EXC_IRQ0 && (c->irq_line >> (n - XB_EXC_IRQ0)) & 1 && !(c->active & BIT(n)))
		c->pending |= BIT(n);
}

uint32_t cpu_xpsr(const xb_cpu *c)
{
	return (cpu_flag_n(c) << 31) | (cpu_flag_z(c) << 30) | (c->fc << 29) | (c->fv << 28) | (c->tbit << 24) |
	       c->ipsr;
}

void cpu_sync_sp(xb_cpu *c)
{
	int want_psp = c->ipsr == 0 && (c->control & 2);
	if (want_psp == c->sp_is_psp)
		return;
	if (c->sp_is_psp) {
		c->sp_process = c->r[13];
		c->r[13] = c->sp_main;
	} else {
		c->sp_main = c->r[13];
		c->r[13] = c->sp_process;
	}
	c->sp_is_psp = want_psp;
}

static void cpu_log(xb_cpu *c, const char *msg)
{
	bus_log(c->bus, "%s", msg);
}

static void cpu_record_fault(xb_cpu *c, enum xb_fault_kind kind, uint32_t addr, int lockup)
{
	xb_fault *f = &c->last_fault;
	memset(f, 0, sizeof *f);
	f->kind = kind;
	f->pc = c->cur_pc;
	f->addr = addr;
	memcpy(f->r, c->r, sizeof f->r);
	f->r[15] = c->cur_pc;
	f->xpsr = cpu_xpsr(c);
	f->msp = c->sp_is_psp ? c->sp_main : c->r[13];
	f->psp = c->sp_is_psp ? c->r[13] : c->sp_process;
	f->exception = c->ipsr;
	f->lockup = lockup;
	f->cycle = c->cycles;
	c->nfaults++;
	xb_strbuf sb = {0};
	if (c->core)
		sb_printf(&sb, "core %u: ", c->core);
	board_format_fault(f, &sb);
	cpu_log(c, sb.buf);
	sb_free(&sb);
}

static void cpu_lock_up(xb_cpu *c, enum xb_fault_kind kind, uint32_t addr)
{
	cpu_record_fault(c, kind, addr, 1);
	c->lockup = 1;
	c->sleep = XB_AWAKE;
	c->r[15] = 0xFFFFFFFEu;
	cpu_invalidate_code(c);
	c->stop_at = 0;
}

/* Pushes the 8-word frame on the current stack; returns -1 if a write fails. */
static int cpu_push_frame(xb_cpu *c, uint32_t ret_addr)
{
	uint32_t sp = c->r[13];
	uint32_t pad = (sp >> 2) & 1;
	uint32_t frame = (sp - 0x20) & ~4u;
	uint32_t words[8] = {c->r[0],  c->r[1],  c->r[2],  c->r[3],
			     c->r[12], c->r[14], ret_addr, cpu_xpsr(c) | (pad << 9)};
	for (int i = 0; i < 8; i++)
		if (cpu_write_word(c, frame + 4u * (uint32_t)i, words[i]))
			return -1;
	c->r[13] = frame;
	return 0;
}

static uint32_t cpu_exc_return_value(const xb_cpu *c)
{
	if (c->ipsr)
		return 0xFFFFFFF1u;
	return c->sp_is_psp ? 0xFFFFFFFDu : 0xFFFFFFF9u;
}

/* Activates exception n once its frame is on the stack: mode, vector, cycles. */
static void cpu_activate(xb_cpu *c, unsigned n, uint32_t exc_return, uint32_t cycles)
{
	uint32_t vector;
	if (cpu_read_word(c, c->vtor + 4 * n, &vector)) {
		if (n == XB_EXC_HARDFAULT || n == XB_EXC_NMI) {
			cpu_lock_up(c, XB_FAULT_VECTOR, c->vtor + 4 * n);
			return;
		}
		/* The frame is already stacked: escalate without stacking again. */
		cpu_record_fault(c, XB_FAULT_VECTOR, c->vtor + 4 * n, 0);
		n = XB_EXC_HARDFAULT;
		if (cpu_read_word(c, c->vtor + 4 * n, &vector)) {
			cpu_lock_up(c, XB_FAULT_VECTOR, c->vtor + 4 * n);
			return;
		}
	}
	c->r[14] = exc_return;
	c->ipsr = n;
	c->control &= ~2u;
	cpu_sync_sp(c);
	c->active |= BIT(n);
	c->pending &= ~BIT(n);
	c->tbit = vector & 1;
	c->r[15] = vector & ~1u;
	cpu_invalidate_code(c);
	c->cycles += cycles;
	c->exceptions_taken++;
	c->sleep = XB_AWAKE;
	c->stop_at = 0;
	if (n == XB_EXC_HARDFAULT && (c->demcr & (1u << 10)) && (c->dhcsr & 1))
		cpu_halt(c, 1u << 3); /* VC_HARDERR: vector catch */
}

/* Exception entry with return address ret_addr. */
static void cpu_enter(xb_cpu *c, unsigned n, uint32_t ret_addr)
{
	uint32_t exc_return = cpu_exc_return_value(c);
	if (cpu_push_frame(c, ret_addr)) {
		if (n == XB_EXC_HARDFAULT || n == XB_EXC_NMI || cpu_active_priority(c) < 0) {
			cpu_lock_up(c, XB_FAULT_STACKING, c->r[13]);
			return;
		}
		c->pending |= BIT(n); /* not taken: it stays pending */
		cpu_raise_hardfault(c, XB_FAULT_STACKING, c->r[13], ret_addr);
		return;
	}
	cpu_activate(c, n, exc_return, XB_CYCLES_EXC_ENTRY);
}

void cpu_raise_hardfault(xb_cpu *c, enum xb_fault_kind kind, uint32_t addr, uint32_t ret_addr)
{
	if (cpu_active_priority(c) < 0) { /* in HardFault or NMI already */
		cpu_lock_up(c, kind, addr);
		return;
	}
	cpu_record_fault(c, kind, addr, 0);
	uint32_t exc_return = cpu_exc_return_value(c);
	if (cpu_push_frame(c, ret_addr)) {
		cpu_lock_up(c, XB_FAULT_STACKING, c->r[13]);
		return;
	}
	cpu_activate(c, XB_EXC_HARDFAULT, exc_return, XB_CYCLES_EXC_ENTRY);
}

_Noreturn void cpu_fault(xb_cpu *c, enum xb_fault_kind kind, uint32_t addr)
{
	if (kind == XB_FAULT_UNDEFINED && addr == 0)
		addr = c->cur_pc;
	cpu_raise_hardfault(c, kind, addr, c->cur_pc);
	c->stop_at = 0;
	longjmp(c->fault_jmp, 1);
}

_Noreturn void cpu_svc(xb_cpu *c)
{
	if (cpu_exc_priority(c, XB_EXC_SVCALL) < cpu_exec_priority(c)) {
		c->pending |= BIT(XB_EXC_SVCALL);
		c->stop_at = 0;
		longjmp(c->fault_jmp, 1);
	}
	/* SVC that cannot be taken escalates; it has completed, so return after it. */
	cpu_raise_hardfault(c, XB_FAULT_SVC, c->cur_pc, c->r[15]);
	c->stop_at = 0;
	longjmp(c->fault_jmp, 1);
}

_Noreturn void cpu_bkpt(xb_cpu *c)
{
	if (c->dhcsr & 1) { /* C_DEBUGEN: halt on the BKPT itself */
		c->r[15] = c->cur_pc;
		c->insns--; /* it did not retire, and takes no time */
		c->cycles--;
		cpu_halt(c, 1u << 1);
		longjmp(c->fault_jmp, 1);
	}
	cpu_fault(c, XB_FAULT_BKPT, c->cur_pc);
}

int cpu_take_pending(xb_cpu *c)
{
	int prio;
	unsigned n = cpu_best_pending(c, &prio);
	if (!n || prio >= cpu_exec_priority(c))
		return 0;
	c->sleep = XB_AWAKE;
	c->pending &= ~BIT(n);
	cpu_enter(c, n, c->r[15]);
	return 1;
}

int cpu_try_wake(xb_cpu *c)
{
	if (c->sleep == XB_AWAKE)
		return 1;
	if (c->sleep == XB_SLEEP_WFE && c->event_reg) {
		c->event_reg = 0;
		c->sleep = XB_AWAKE;
		return 1;
	}
	if (c->sleep == XB_SLEEP_WFI ? cpu_wfi_wakes(c) : cpu_can_take(c)) {
		c->sleep = XB_AWAKE;
		return 1;
	}
	return 0;
}

void cpu_exception_return(xb_cpu *c, uint32_t exc_return)
{
	unsigned n = c->ipsr;
	unsigned kind = exc_return & 0xF;
	if ((exc_return & 0x0FFFFFF0u) != 0x0FFFFFF0u || !(c->active & BIT(n)) ||
	    (kind != 0x1 && kind != 0x9 && kind != 0xD))
		cpu_fault(c, XB_FAULT_EXC_RETURN, exc_return);
	int to_thread = kind != 0x1;
	uint64_t others = c->active & ~BIT(n);
	if (to_thread ? others != 0 : others == 0)
		cpu_fault(c, XB_FAULT_EXC_RETURN, exc_return); /* inconsistent nesting */
	c->active &= ~BIT(n);
	if (n >= XB_EXC_IRQ0 && (c->irq_line >> (n - XB_EXC_IRQ0)) & 1)
		c->pending |= BIT(n);
	c->event_reg = 1;

	/* Tail-chain: a pending exception that preempts the context we would return to is
	 * taken at once, on the same frame. */
	int prio;
	unsigned next = cpu_best_pending(c, &prio);
	int ret_prio = cpu_active_priority(c);
	if (c->primask && ret_prio > 0)
		ret_prio = 0;
	if (next && prio < ret_prio) {
		cpu_activate(c, next, exc_return, XB_CYCLES_TAIL_CHAIN);
		return;
	}

	/* Handler mode always runs on MSP (r[13]); the process stack waits in sp_process. */
	uint32_t frame = kind == 0xD ? c->sp_process : c->r[13];
	uint32_t w[8];
	for (int i = 0; i < 8; i++) {
		if (cpu_read_word(c, frame + 4u * (uint32_t)i, &w[i])) {
			c->active |= BIT(n); /* the return did not happen */
			cpu_fault(c, XB_FAULT_STACKING, frame + 4u * (uint32_t)i);
		}
	}
	uint32_t xpsr = w[7];
	unsigned stacked_ipsr = xpsr & 0x3F;
	if (!to_thread && (stacked_ipsr == 0 || !(c->active & BIT(stacked_ipsr)))) {
		c->active |= BIT(n);
		cpu_fault(c, XB_FAULT_EXC_RETURN, exc_return);
	}
	c->r[0] = w[0];
	c->r[1] = w[1];
	c->r[2] = w[2];
	c->r[3] = w[3];
	c->r[12] = w[4];
	c->r[14] = w[5];
	uint32_t new_sp = (frame + 0x20) | ((xpsr >> 9) & 1 ? 4u : 0);
	if (to_thread) {
		c->ipsr = 0;
		c->control = (c->control & ~2u) | (kind == 0xD ? 2u : 0);
	} else {
		c->ipsr = stacked_ipsr;
	}
	/* Put new_sp in the bank the frame came from, then select the bank for the mode. */
	if (kind == 0xD)
		c->sp_process = new_sp;
	else
		c->r[13] = new_sp;
	cpu_sync_sp(c);
	c->fnz = cpu_make_nz(xpsr >> 31, (xpsr >> 30) & 1);
	c->fc = (xpsr >> 29) & 1;
	c->fv = (xpsr >> 28) & 1;
	c->tbit = (xpsr >> 24) & 1;
	c->r[15] = w[6] & ~1u;
	cpu_invalidate_code(c);
	c->stop_at = 0;
	if (to_thread && (c->scr & 0x2)) /* SLEEPONEXIT */
		c->sleep = XB_SLEEP_WFI;
}

/* ---- Special registers ---- */

static int cpu_privileged(const xb_cpu *c)
{
	return c->ipsr != 0 || !(c->control & 1);
}

uint32_t cpu_read_special(xb_cpu *c, unsigned sysm)
{
	uint32_t apsr = (cpu_flag_n(c) << 31) | (cpu_flag_z(c) << 30) | (c->fc << 29) | (c->fv << 28);
	switch (sysm) {
	case 0: case 2:
		return apsr;
	case 1: case 3:
		return apsr | c->ipsr;
	case 5: case 7:
		return c->ipsr;
	case 6:
		return 0; /* EPSR reads as zero through MRS */
	case 8:
		return c->sp_is_psp ? c->sp_main : c->r[13];
	case 9:
		return c->sp_is_psp ? c->r[13] : c->sp_process;
	case 16:
		return c->primask;
	case 20:
		return c->control;
	default:
		return 0;
	}
}

void cpu_write_special(xb_cpu *c, unsigned sysm, uint32_t v)
{
	if (sysm < 8) {
		if (!(sysm & 4)) { /* the APSR part of APSR, IAPSR, EAPSR, XPSR */
			c->fnz = cpu_make_nz(v >> 31, (v >> 30) & 1);
			c->fc = (v >> 29) & 1;
			c->fv = (v >> 28) & 1;
		}
		return;
	}
	if (!cpu_privileged(c))
		return;
	switch (sysm) {
	case 8:
		if (c->sp_is_psp)
			c->sp_main = v & ~3u;
		else
			c->r[13] = v & ~3u;
		break;
	case 9:
		if (c->sp_is_psp)
			c->r[13] = v & ~3u;
		else
			c->sp_process = v & ~3u;
		break;
	case 16:
		c->primask = v & 1;
		cpu_irq_changed(c);
		break;
	case 20:
		c->control = (c->control & ~1u) | (v & 1);
		if (c->ipsr == 0) /* SPSEL is writable in thread mode only */
			c->control = (c->control & ~2u) | (v & 2);
		cpu_sync_sp(c);
		break;
	default:
		break;
	}
}

/* ---- Debug ---- */

void cpu_halt(xb_cpu *c, uint32_t dfsr_reason)
{
	if (!c->halted) {
		c->halted = 1;
		c->dfsr |= dfsr_reason;
	}
	c->sleep = XB_AWAKE;
	c->stop_at = 0;
}

void cpu_resume(xb_cpu *c)
{
	c->halted = 0;
	c->stop_at = 0;
}

uint32_t cpu_get_reg(const xb_cpu *c, unsigned reg)
{
	if (reg <= 15)
		return c->r[reg];
	switch (reg) {
	case XB_REG_XPSR:
		return cpu_xpsr(c);
	case XB_REG_MSP:
		return c->sp_is_psp ? c->sp_main : c->r[13];
	case XB_REG_PSP:
		return c->sp_is_psp ? c->r[13] : c->sp_process;
	case XB_REG_CONTROL_PRIMASK:
		return (c->control << 24) | c->primask;
	default:
		return 0;
	}
}

void cpu_set_reg(xb_cpu *c, unsigned reg, uint32_t v)
{
	if (reg <= 15) {
		if (reg == 13)
			v &= ~3u;
		if (reg == 15) {
			v &= ~1u;
			cpu_invalidate_code(c);
		}
		c->r[reg] = v;
		return;
	}
	switch (reg) {
	case XB_REG_XPSR:
		c->fnz = cpu_make_nz(v >> 31, (v >> 30) & 1);
		c->fc = (v >> 29) & 1;
		c->fv = (v >> 28) & 1;
		c->tbit = (v >> 24) & 1;
		c->ipsr = v & 0x3F;
		cpu_sync_sp(c);
		cpu_invalidate_code(c);
		break;
	case XB_REG_MSP:
		if (c->sp_is_psp)
			c->sp_main = v & ~3u;
		else
			c->r[13] = v & ~3u;
		break;
	case XB_REG_PSP:
		if (c->sp_is_psp)
			c->r[13] = v & ~3u;
		else
			c->sp_process = v & ~3u;
		break;
	case XB_REG_CONTROL_PRIMASK:
		c->primask = v & 1;
		c->control = (v >> 24) & 3;
		cpu_sync_sp(c);
		cpu_irq_changed(c);
		break;
	default:
		break;
	}
}

/* ---- Reset ---- */

void cpu_system_reset(xb_cpu *c)
{
	memset(c->r, 0, sizeof c->r);
	c->fnz = cpu_make_nz(0, 0);
	c->fc = c->fv = 0;
	c->control = 0;
	c->primask = 0;
	c->ipsr = 0;
	c->sp_is_psp = 0;
	c->sp_main = c->sp_process = 0;
	c->pending = 0;
	c->active = 0;
	c->irq_enable = 0;
	memset(c->irq_prio, 0, sizeof c->irq_prio);
	c->shpr2 = c->shpr3 = 0;
	c->scr = 0;
	c->event_reg = 0;
	c->sleep = XB_AWAKE;
	c->lockup = 0;
	c->halted = 0;
	c->halt_pending_step = 0;
	c->reset_requested = 0;
	c->vtor = c->reset_vtor;
	memset(c->mpu, 0, sizeof c->mpu);
	c->dhcsr &= 1u; /* C_DEBUGEN survives a system reset */
	c->reset_st = 1;
	c->xip_busy_until = 0;
	uint32_t sp = 0, pc = 0;
	/* Reset reads the vector table without touching the cache or counters. */
	xb_err err;
	if (board_peek(c->board, c->reset_vtor, &sp, 4, &err) ||
	    board_peek(c->board, c->reset_vtor + 4, &pc, 4, &err))
		bus_log(c->bus, "reset: no vector table at 0x%08x", c->reset_vtor);
	c->r[13] = sp & ~3u;
	c->r[14] = 0xFFFFFFFFu;
	c->tbit = pc & 1;
	c->r[15] = pc & ~1u;
	c->cur_pc = c->r[15];
	cpu_invalidate_code(c);
	c->stop_at = 0;
	if ((c->demcr & 1u) && (c->dhcsr & 1u))
		cpu_halt(c, 1u << 3); /* VC_CORERESET */
}
