/* cortexm: halting, stepping, registers, reset and function calls on a Cortex-M core
 * through DHCSR, DCRSR/DCRDR, DEMCR and AIRCR. */
#include "cortexm.h"

#include <stdio.h>

#define AIRCR_VECTKEY 0x05FA0000u
#define AIRCR_SYSRESETREQ (1u << 2)
#define DCRSR_REGWNR (1u << 16)
#define REGRDY_TRIES 10
#define RESET_SETTLE_US 2000u

const char *cortexm_state_name(uint32_t dhcsr)
{
	if (dhcsr & CORTEXM_S_LOCKUP)
		return "locked up";
	if (dhcsr & CORTEXM_S_HALT)
		return "halted";
	if (dhcsr & CORTEXM_S_SLEEP)
		return "sleeping";
	return "running";
}

int cortexm_status(xb_adi *a, uint32_t *dhcsr, xb_err *err)
{
	return adi_mem_read32(a, CORTEXM_DHCSR, dhcsr, err);
}

int cortexm_wait_halt(xb_adi *a, uint64_t timeout_ns, uint32_t *dhcsr, xb_err *err)
{
	xb_dap_client *c = adi_client(a);
	uint64_t start = dap_client_now_ns(c);
	uint32_t v = 0;
	for (;;) {
		if (cortexm_status(a, &v, err))
			return -1;
		if (dhcsr)
			*dhcsr = v;
		if (v & CORTEXM_S_HALT)
			return 0;
		uint64_t spent = dap_client_now_ns(c) - start;
		if (spent > timeout_ns)
			return xb_fail(err, "%s: the core did not halt within %.0f ms (DHCSR 0x%08x: %s)",
				       adi_name(a), (double)timeout_ns / 1e6, v,
				       cortexm_state_name(v));
	}
}

int cortexm_halt(xb_adi *a, uint64_t timeout_ns, xb_err *err)
{
	if (adi_mem_write32(a, CORTEXM_DHCSR, CORTEXM_DBGKEY | CORTEXM_C_HALT | CORTEXM_C_DEBUGEN,
			    err))
		return -1;
	return cortexm_wait_halt(a, timeout_ns, NULL, err);
}

int cortexm_resume(xb_adi *a, int mask_interrupts, xb_err *err)
{
	uint32_t mask = mask_interrupts ? CORTEXM_C_MASKINTS : 0;
	/* C_MASKINTS may only change while halted: set it first, then clear C_HALT. */
	xb_mem_access m[2] = {
		{.addr = CORTEXM_DHCSR,
		 .value = CORTEXM_DBGKEY | CORTEXM_C_HALT | CORTEXM_C_DEBUGEN | mask,
		 .write = 1},
		{.addr = CORTEXM_DHCSR, .value = CORTEXM_DBGKEY | CORTEXM_C_DEBUGEN | mask, .write = 1},
	};
	return mask ? adi_mem_access(a, m, 2, err) : adi_mem_access(a, m + 1, 1, err);
}

int cortexm_step(xb_adi *a, uint64_t timeout_ns, xb_err *err)
{
	uint32_t v = 0;
	if (cortexm_status(a, &v, err))
		return -1;
	if (!(v & CORTEXM_S_HALT))
		return xb_fail(err, "%s: cannot step: the core is %s, not halted", adi_name(a),
			       cortexm_state_name(v));
	/* Interrupts stay masked: the step executes the next instruction, not a handler. */
	uint32_t base = CORTEXM_DBGKEY | CORTEXM_C_DEBUGEN | CORTEXM_C_MASKINTS;
	xb_mem_access m[2] = {{.addr = CORTEXM_DHCSR, .value = base | CORTEXM_C_HALT, .write = 1},
			      {.addr = CORTEXM_DHCSR, .value = base | CORTEXM_C_STEP, .write = 1}};
	if (adi_mem_access(a, m, 2, err))
		return -1;
	return cortexm_wait_halt(a, timeout_ns, NULL, err);
}

/* ---- Registers ---- */

int cortexm_read_reg(xb_adi *a, unsigned reg, uint32_t *v, xb_err *err)
{
	xb_mem_access m[3] = {
		{.addr = CORTEXM_DCRSR, .value = reg & 0x7Fu, .write = 1},
		{.addr = CORTEXM_DHCSR},
		{.addr = CORTEXM_DCRDR},
	};
	if (adi_mem_access(a, m, 3, err))
		return -1;
	if (!(m[1].value & CORTEXM_S_HALT))
		return xb_fail(err, "%s: cannot read core register %u: the core is %s, not halted",
			       adi_name(a), reg, cortexm_state_name(m[1].value));
	for (int i = 0; !(m[1].value & CORTEXM_S_REGRDY); i++) {
		if (i == REGRDY_TRIES)
			return xb_fail(err, "%s: core register %u: S_REGRDY never set", adi_name(a),
				       reg);
		if (adi_mem_access(a, m + 1, 2, err))
			return -1;
	}
	*v = m[2].value;
	return 0;
}

int cortexm_write_reg(xb_adi *a, unsigned reg, uint32_t v, xb_err *err)
{
	xb_mem_access m[3] = {
		{.addr = CORTEXM_DCRDR, .value = v, .write = 1},
		{.addr = CORTEXM_DCRSR, .value = (reg & 0x7Fu) | DCRSR_REGWNR, .write = 1},
		{.addr = CORTEXM_DHCSR},
	};
	if (adi_mem_access(a, m, 3, err))
		return -1;
	if (!(m[2].value & CORTEXM_S_HALT))
		return xb_fail(err, "%s: cannot write core register %u: the core is %s, not halted",
			       adi_name(a), reg, cortexm_state_name(m[2].value));
	for (int i = 0; !(m[2].value & CORTEXM_S_REGRDY); i++) {
		if (i == REGRDY_TRIES)
			return xb_fail(err, "%s: core register %u: S_REGRDY never set", adi_name(a),
				       reg);
		if (cortexm_status(a, &m[2].value, err))
			return -1;
	}
	return 0;
}

static int cortexm_demcr_update(xb_adi *a, uint32_t set, uint32_t clear, xb_err *err)
{
	uint32_t v = 0;
	if (adi_mem_read32(a, CORTEXM_DEMCR, &v, err))
		return -1;
	uint32_t nv = (v | set) & ~clear;
	return nv == v ? 0 : adi_mem_write32(a, CORTEXM_DEMCR, nv, err);
}

int cortexm_enable_dwt(xb_adi *a, xb_err *err)
{
	return cortexm_demcr_update(a, CORTEXM_DWTENA, 0, err);
}

/* ---- Reset ---- */

int cortexm_reset(xb_adi *a, int halt, uint64_t timeout_ns, xb_err *err)
{
	xb_dap_client *c = adi_client(a);
	/* C_DEBUGEN on, so that a vector catch (or a later BKPT) halts instead of faulting. */
	uint32_t v = 0;
	if (cortexm_status(a, &v, err))
		return -1;
	if (!(v & CORTEXM_C_DEBUGEN) &&
	    adi_mem_write32(a, CORTEXM_DHCSR, CORTEXM_DBGKEY | CORTEXM_C_DEBUGEN, err))
		return -1;
	if (cortexm_demcr_update(a, halt ? CORTEXM_VC_CORERESET : 0,
				 halt ? 0 : CORTEXM_VC_CORERESET, err))
		return -1;
	/* The reset may cut the write's acknowledgement short: its answer does not count. */
	xb_err ignored;
	adi_mem_write32(a, CORTEXM_AIRCR, AIRCR_VECTKEY | AIRCR_SYSRESETREQ, &ignored);
	if (dap_client_delay(c, RESET_SETTLE_US, err))
		return -1;
	adi_forget(a);
	dap_client_write_abort(c, ADI_ABORT_CLEAR_STICKY, NULL);
	/* S_RESET_ST says the reset happened (reading DHCSR clears it). */
	if (cortexm_status(a, &v, err))
		return -1;
	if (halt) {
		if (cortexm_wait_halt(a, timeout_ns, &v, err))
			return -1;
		if (cortexm_demcr_update(a, 0, CORTEXM_VC_CORERESET, err))
			return -1;
	}
	return 0;
}

/* ---- Calling a function ---- */

int cortexm_call(xb_adi *a, const xb_cortexm_call *call, uint32_t *r0, xb_err *err)
{
	static const unsigned regs[] = {0, 1, 2, 3, CORTEXM_SP, CORTEXM_LR, CORTEXM_XPSR,
					CORTEXM_CONTROL_PRIMASK, CORTEXM_PC};
	uint32_t values[] = {call->args[0], call->args[1], call->args[2], call->args[3],
			     call->sp,      call->trap | 1u,   1u << 24, /* Thumb */
			     1u, /* PRIMASK: no interrupt handler runs during the call */
			     call->fn & ~1u};
	/* One batch: per register DCRDR, DCRSR; one DHCSR read at the end for S_REGRDY. */
	xb_mem_access m[2 * 9 + 1];
	size_t n = 0;
	for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
		m[n++] = (xb_mem_access){.addr = CORTEXM_DCRDR, .value = values[i], .write = 1};
		m[n++] = (xb_mem_access){
			.addr = CORTEXM_DCRSR, .value = regs[i] | DCRSR_REGWNR, .write = 1};
	}
	m[n++] = (xb_mem_access){.addr = CORTEXM_DHCSR};
	if (adi_mem_access(a, m, n, err))
		return -1;
	if (!(m[n - 1].value & CORTEXM_S_HALT))
		return xb_fail(err, "%s: cannot call 0x%08x: the core is %s, not halted", adi_name(a),
			       call->fn, cortexm_state_name(m[n - 1].value));
	if (cortexm_resume(a, 1, err))
		return -1;
	uint32_t dhcsr = 0, pc = 0;
	if (cortexm_wait_halt(a, call->timeout_ns, &dhcsr, err))
		return -1;
	if (cortexm_read_reg(a, CORTEXM_PC, &pc, err))
		return -1;
	if (pc != (call->trap & ~1u))
		return xb_fail(err,
			       "%s: the function at 0x%08x stopped at 0x%08x, not at the return "
			       "trap 0x%08x (DHCSR 0x%08x: %s)",
			       adi_name(a), call->fn, pc, call->trap & ~1u, dhcsr,
			       cortexm_state_name(dhcsr));
	if (r0 && cortexm_read_reg(a, 0, r0, err))
		return -1;
	return 0;
}
