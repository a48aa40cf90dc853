/* cortexm: Cortex-M (ARMv6-M / ARMv7-M) debug through a MEM-AP: halt, resume, step, core
 * registers through DCRSR/DCRDR, DHCSR status, DWT enable, reset with an optional halt,
 * and calling a function on the target. */
#ifndef XB_PROBE_CORTEXM_H
#define XB_PROBE_CORTEXM_H

#include <stdint.h>

#include "../core/util.h"
#include "adiv5.h"

#define CORTEXM_DHCSR 0xE000EDF0u
#define CORTEXM_DCRSR 0xE000EDF4u
#define CORTEXM_DCRDR 0xE000EDF8u
#define CORTEXM_DEMCR 0xE000EDFCu
#define CORTEXM_AIRCR 0xE000ED0Cu
#define CORTEXM_CPUID 0xE000ED00u
#define CORTEXM_DWT_CTRL 0xE0001000u
#define CORTEXM_DWT_PCSR 0xE000101Cu

/* DHCSR bits. */
#define CORTEXM_C_DEBUGEN (1u << 0)
#define CORTEXM_C_HALT (1u << 1)
#define CORTEXM_C_STEP (1u << 2)
#define CORTEXM_C_MASKINTS (1u << 3)
#define CORTEXM_S_REGRDY (1u << 16)
#define CORTEXM_S_HALT (1u << 17)
#define CORTEXM_S_SLEEP (1u << 18)
#define CORTEXM_S_LOCKUP (1u << 19)
#define CORTEXM_S_RETIRE_ST (1u << 24)
#define CORTEXM_S_RESET_ST (1u << 25)
#define CORTEXM_DBGKEY 0xA05F0000u

/* DEMCR bits. */
#define CORTEXM_VC_CORERESET (1u << 0)
#define CORTEXM_DWTENA (1u << 24)

/* Core registers as DCRSR.REGSEL numbers them. */
enum {
	CORTEXM_R0 = 0,
	CORTEXM_SP = 13,
	CORTEXM_LR = 14,
	CORTEXM_PC = 15,
	CORTEXM_XPSR = 16,
	CORTEXM_MSP = 17,
	CORTEXM_PSP = 18,
	CORTEXM_CONTROL_PRIMASK = 20, /* CONTROL[31:24], PRIMASK[7:0] on ARMv6-M */
};

/*
 * Waiting (halt, step, a called function) is bounded by timeout_ns of the transport's
 * clock: virtual time for the in-process virtual probe, the wall clock otherwise. Each
 * poll of DHCSR is one round trip through the probe. Errors say what did not happen
 * ("the core did not halt within 100 ms (DHCSR 0x01010001: running)").
 */

/* DHCSR as read now. */
int cortexm_status(xb_adi *a, uint32_t *dhcsr, xb_err *err);
/* One word describing DHCSR: "halted", "locked up", "sleeping", "running". */
const char *cortexm_state_name(uint32_t dhcsr);

/* Halts the core (C_HALT with C_DEBUGEN) and waits for S_HALT. */
int cortexm_halt(xb_adi *a, uint64_t timeout_ns, xb_err *err);
/* Resumes a halted core (C_DEBUGEN stays set, so BKPT halts it again); mask_interrupts
 * sets C_MASKINTS (for calling functions on the target). */
int cortexm_resume(xb_adi *a, int mask_interrupts, xb_err *err);
/* Executes one instruction of a halted core and waits until it halts again. */
int cortexm_step(xb_adi *a, uint64_t timeout_ns, xb_err *err);
/* Waits until S_HALT; *dhcsr (may be NULL) gets the last value read. */
int cortexm_wait_halt(xb_adi *a, uint64_t timeout_ns, uint32_t *dhcsr, xb_err *err);

/* Core registers of a halted core (DCRSR, then S_REGRDY, then DCRDR). */
int cortexm_read_reg(xb_adi *a, unsigned reg, uint32_t *v, xb_err *err);
int cortexm_write_reg(xb_adi *a, unsigned reg, uint32_t v, xb_err *err);

/* DEMCR.DWTENA on (DWT_PCSR reads 0 without it). */
int cortexm_enable_dwt(xb_adi *a, xb_err *err);

/* System reset through AIRCR.SYSRESETREQ. halt: DEMCR.VC_CORERESET first, so the core
 * halts before its first instruction (waited for; VC_CORERESET is cleared again);
 * otherwise the core runs the image. The debug port survives the reset (sticky errors the
 * reset causes are cleared). */
int cortexm_reset(xb_adi *a, int halt, uint64_t timeout_ns, xb_err *err);

/* A function call on a halted core. */
typedef struct xb_cortexm_call {
	uint32_t fn;          /* address (the Thumb bit is added) */
	uint32_t args[4];     /* r0 .. r3 */
	uint32_t trap;        /* address of a BKPT the function returns to (LR = trap | 1);
			       * the caller writes the BKPT there */
	uint32_t sp;          /* stack pointer for the call */
	uint64_t timeout_ns;
} xb_cortexm_call;

/* Sets r0-r3, SP, LR, xPSR (Thumb), PRIMASK, PC; resumes with interrupts masked; waits for
 * the halt; checks that the core stopped at the trap (else: where, and why if it locked
 * up); *r0 (may be NULL) gets the result. */
int cortexm_call(xb_adi *a, const xb_cortexm_call *call, uint32_t *r0, xb_err *err);

#endif
