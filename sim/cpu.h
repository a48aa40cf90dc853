/* cpu: the ARMv6-M core of the virtual Pico and its system state (NVIC, SCB, SysTick,
 * debug), shared by the sim/ files that implement it. Not for use outside sim/: the public
 * interface is board.h. */
#ifndef XB_CPU_H
#define XB_CPU_H

#include <setjmp.h>
#include <stdint.h>

#include "../core/cache.h"
#include "../core/trace.h"
#include "board.h"
#include "bus.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the virtual Pico reads emulated memory with host loads: it needs a little-endian host"
#endif

/* Cycle costs that the reference leaves open (reference/rp2040-peripherals.md section 7):
 * exception entry is 15 cycles; return and tail-chain costs are UNVERIFIED, so a return
 * costs nothing beyond the instruction that performs it and a tail-chain costs a full
 * entry. */
#define XB_CYCLES_EXC_ENTRY 15u
#define XB_CYCLES_TAIL_CHAIN 15u

/* Exception numbers. */
enum {
	XB_EXC_RESET = 1,
	XB_EXC_NMI = 2,
	XB_EXC_HARDFAULT = 3,
	XB_EXC_SVCALL = 11,
	XB_EXC_PENDSV = 14,
	XB_EXC_SYSTICK = 15,
	XB_EXC_IRQ0 = 16,
	XB_EXC_COUNT = 48,
};

/* Instruction classes, indexed by bits 15:6 of the first halfword (cpu->decode; set by
 * cpu_init in cpu_decode.c, executed by cpu_exec.c). */
enum xb_op {
	OP_UNDEF = 0,
	OP_LSL_IMM, OP_LSR_IMM, OP_ASR_IMM,
	OP_ADD_REG, OP_SUB_REG, OP_ADD_IMM3, OP_SUB_IMM3,
	OP_MOV_IMM, OP_CMP_IMM, OP_ADD_IMM8, OP_SUB_IMM8,
	OP_AND, OP_EOR, OP_LSL_REG, OP_LSR_REG, OP_ASR_REG, OP_ADC, OP_SBC, OP_ROR,
	OP_TST, OP_RSB, OP_CMP_REG, OP_CMN, OP_ORR, OP_MUL, OP_BIC, OP_MVN,
	OP_ADD_HI, OP_CMP_HI, OP_MOV_HI, OP_BX,
	OP_LDR_LIT,
	OP_STR_REG, OP_STRH_REG, OP_STRB_REG, OP_LDRSB_REG,
	OP_LDR_REG, OP_LDRH_REG, OP_LDRB_REG, OP_LDRSH_REG,
	OP_STR_IMM, OP_LDR_IMM, OP_STRB_IMM, OP_LDRB_IMM, OP_STRH_IMM, OP_LDRH_IMM,
	OP_STR_SP, OP_LDR_SP, OP_ADR, OP_ADD_SP_REG8,
	OP_ADD_SP_IMM7, OP_SUB_SP_IMM7, OP_SXTH, OP_SXTB, OP_UXTH, OP_UXTB,
	OP_PUSH, OP_POP, OP_CPS, OP_REV, OP_REV16, OP_REVSH, OP_BKPT, OP_HINT,
	OP_STM, OP_LDM, OP_BCOND, OP_UDF, OP_SVC, OP_B, OP_T32,
};

/* How fetches in the current code region are charged (cpu->code_kind). */
enum xb_code_kind {
	XB_CODE_PLAIN = 0,   /* SRAM, ROM, cache-as-SRAM: no cache, no counters */
	XB_CODE_XIP_FAST,    /* flash through the 0x10 alias with the cache on */
	XB_CODE_XIP,         /* flash through another alias, or with the cache off */
};

/* Sleep states. */
enum { XB_AWAKE = 0, XB_SLEEP_WFI = 1, XB_SLEEP_WFE = 2 };

/* SysTick: a down-counter evaluated lazily from (base_cycle, base_value). */
typedef struct xb_systick {
	uint32_t csr;      /* ENABLE, TICKINT, CLKSOURCE (COUNTFLAG kept in countflag) */
	uint32_t rvr;      /* 24 bits */
	uint32_t base_value;
	uint64_t base_edge; /* clock edges counted up to base */
	int countflag;
	uint64_t event;    /* scheduled wrap event id, 0 if none */
} xb_systick;

typedef struct xb_cpu {
	/* ---- hot: the run loop ---- */
	uint32_t r[16];     /* r[13] is the SP in use; r[15] the next instruction while an
			     * instruction executes (PC reads give r[15] + 2) */
	/* APSR flags. N and Z share one value so that an instruction sets both with one store
	 * (cpu_flag_n, cpu_flag_z, cpu_make_nz): N is its sign, Z is 1 when its low 32 bits
	 * are zero. C and V are 0 or 1. */
	int64_t fnz;
	uint32_t fc, fv;
	uint64_t cycles;
	uint64_t stop_at;   /* the run loop returns when cycles >= stop_at; 0 forces it */
	uint32_t fetch_word; /* the 32-bit code word fetched last, ~0 when none */
	uint32_t code_lo, code_size; /* current code region */
	uintptr_t code_bias; /* host address of code byte a is code_bias + a */
	enum xb_code_kind code_kind;
	uint32_t code_flash_off; /* flash offset of code_lo (XIP kinds) */
	enum xb_alias_mode code_mode; /* alias mode (XB_CODE_XIP) */
	uint32_t cur_pc;    /* the instruction executing or executed last */
	uint32_t tbit;      /* EPSR.T */
	/* Retired instructions. Not beside cycles: the compiler would then add 1 to both with
	 * one 16-byte load and store, which cannot take its data from the 8-byte stores that
	 * instructions make to cycles (a store-forwarding stall per instruction). */
	uint64_t insns;
	xb_cache *cache;
	uint32_t miss_penalty;
	/* Why the flash cannot answer an XIP read now (NULL: it can), until xip_dead_until;
	 * misses meanwhile are counted and the first one reported (xip_unanswered). */
	const char *xip_dead;
	uint64_t xip_dead_until, xip_unanswered;
	int xip_dead_reported;
	uint8_t *sram;
	uint32_t sram_base, sram_size;
	int sram_unstriped; /* SRAM0-3 also appear at XB_SRAM_UNSTRIPED_BASE (RP2040) */
	uint8_t *flash;
	uint32_t flash_size;
	uint32_t xip_alias_base[XB_TARGET_MAX_ALIASES]; /* [base, base + flash_size) */
	enum xb_alias_mode xip_alias_mode[XB_TARGET_MAX_ALIASES];
	int xip_naliases;
	int xip_cache_on;   /* XIP_CTRL.EN and not POWER_DOWN */
	uint64_t xip_busy_until; /* a flush in progress stalls flash accesses until then */
	uint8_t *xip_sram;  /* cache-as-SRAM, usable while xip_sram_on */
	uint32_t xip_sram_base, xip_sram_size;
	int xip_sram_on;
	uint8_t *rom;
	uint32_t rom_base, rom_size;
	xb_trace_stream *trace;
	xb_bus *bus;
	xb_board *board;
	uint8_t decode[1024]; /* instruction class by bits 15:6 */
	jmp_buf fault_jmp;  /* a fault inside an instruction returns to the run loop */

	/* ---- exceptions ---- */
	uint32_t sp_main, sp_process; /* the banked SP not in r[13] is kept here */
	int sp_is_psp;      /* r[13] is currently the process stack pointer */
	uint32_t control;   /* bit 0 nPRIV, bit 1 SPSEL */
	uint32_t primask;
	uint32_t ipsr;      /* current exception number, 0 in thread mode */
	uint32_t vtor;
	uint64_t pending;   /* bit n: exception n pending (latched) */
	uint64_t active;
	uint32_t irq_enable; /* NVIC_ISER */
	uint32_t irq_line;  /* external interrupt line levels */
	uint8_t irq_prio[32]; /* IPR bytes (top 2 bits) */
	uint32_t shpr2, shpr3;
	uint32_t scr;
	int event_reg;
	int sleep;          /* XB_AWAKE, XB_SLEEP_WFI, XB_SLEEP_WFE */
	int lockup;
	uint32_t reset_vtor;
	uint64_t exceptions_taken;
	uint32_t mpu[5];    /* MPU CTRL, RNR, RBAR, RASR storage (not enforced) */

	/* ---- debug ---- */
	uint32_t dhcsr;     /* C_* control bits as written */
	int halted;
	int halt_pending_step; /* C_STEP: halt after the next instruction */
	int retired;        /* S_RETIRE_ST */
	int reset_st;       /* S_RESET_ST */
	uint32_t dfsr;
	uint32_t demcr;
	uint32_t dcrdr;
	uint32_t bp_ctrl;
	uint32_t bp_comp[4];
	uint32_t dwt_comp[2][3];
	int bp_active;      /* some breakpoint comparator is live */
	uint32_t until_pc;  /* board_run_until_pc target, ~0 when none */

	xb_systick systick;

	/* ---- faults ---- */
	uint64_t nfaults;
	xb_fault last_fault;
	uint64_t sleep_cycles, halted_cycles;
	int reset_requested; /* AIRCR.SYSRESETREQ, acted on between instructions */
	unsigned core;       /* 0 or 1 (RP2040 core number) */
} xb_cpu;

static inline uint32_t cpu_flag_n(const xb_cpu *c)
{
	return c->fnz < 0;
}

static inline uint32_t cpu_flag_z(const xb_cpu *c)
{
	return (uint32_t)c->fnz == 0;
}

/* The fnz value for flags n and z (0 or 1): every combination, N and Z both set included. */
static inline int64_t cpu_make_nz(uint32_t n, uint32_t z)
{
	return (n ? -((int64_t)1 << 32) : 0) + (z ? 0 : 1);
}

/* ---- cpu_decode.c ---- */
/* Sets up the decode table; the rest of the state is set by cpu_system_reset and the board. */
void cpu_init(xb_cpu *c);

/* ---- cpu_exec.c ---- */
/* Executes instructions while c->cycles < c->stop_at (at least one if the core can run).
 * Returns when the limit is reached, an exception needs taking, the core halts, sleeps,
 * locks up or a stop was requested (all of which set stop_at to 0). */
void cpu_run(xb_cpu *c);
/* Forgets the current code region and fetched word: the next instruction is fetched
 * again (after a branch with the Thumb bit clear, an exception, a register write). */
void cpu_invalidate_code(xb_cpu *c);
/* Forgets only the current code region (after a change of XIP state): the word already
 * fetched stays, the next word is looked up again under the new state. */
void cpu_forget_region(xb_cpu *c);

/* ---- cpu_exc.c ---- */
/* Core reset: registers, NVIC, SCB, SysTick control, debug (keeps DHCSR.C_DEBUGEN and
 * DEMCR as a debugger set them: they reset only on power-on). Loads SP and PC from
 * reset_vtor. */
void cpu_system_reset(xb_cpu *c);
/* Priority of exception n (-3..192, 256 for none). */
int cpu_exc_priority(const xb_cpu *c, unsigned n);
/* Execution priority (with PRIMASK). */
int cpu_exec_priority(const xb_cpu *c);
/* The highest-priority pending, enabled exception number, or 0. */
unsigned cpu_best_pending(const xb_cpu *c, int *prio);
/* Re-evaluates interrupts after a change of pending, enable, priority, PRIMASK or active
 * state: stops the run loop if one must be taken or a sleep must end. */
void cpu_irq_changed(xb_cpu *c);
/* Makes exception n pending (and re-evaluates). */
void cpu_set_pending(xb_cpu *c, unsigned n);
void cpu_clear_pending(xb_cpu *c, unsigned n);
/* Takes the best pending exception if it preempts; returns 1 if one was taken. Called
 * between instructions. */
int cpu_take_pending(xb_cpu *c);
/* Wakes a sleeping core if a wake-up condition holds; returns 1 if it is (now) awake. */
int cpu_try_wake(xb_cpu *c);
/* Exception return: called by BX/POP when they load an EXC_RETURN value in handler
 * mode. May longjmp (fault). */
void cpu_exception_return(xb_cpu *c, uint32_t exc_return);
/* Records a fault and enters HardFault with return address ret_addr, or locks up when
 * already in HardFault or NMI. Does not jump: for use between instructions. */
void cpu_raise_hardfault(xb_cpu *c, enum xb_fault_kind kind, uint32_t addr, uint32_t ret_addr);
/* Raises a synchronous fault in the instruction at c->cur_pc: records it, enters
 * HardFault (or locks up) and longjmps back into cpu_run. */
_Noreturn void cpu_fault(xb_cpu *c, enum xb_fault_kind kind, uint32_t addr);
/* SVC, BKPT and UDF. */
_Noreturn void cpu_svc(xb_cpu *c);
_Noreturn void cpu_bkpt(xb_cpu *c);
/* MRS / MSR. */
uint32_t cpu_read_special(xb_cpu *c, unsigned sysm);
void cpu_write_special(xb_cpu *c, unsigned sysm, uint32_t value);
/* Switches r[13] between MSP and PSP to match mode and CONTROL.SPSEL. */
void cpu_sync_sp(xb_cpu *c);
uint32_t cpu_xpsr(const xb_cpu *c);
/* Debug halt / resume (DHCSR semantics); halting stops the run loop. */
void cpu_halt(xb_cpu *c, uint32_t dfsr_reason);
void cpu_resume(xb_cpu *c);
/* Core register access by DCRSR number (board_reg numbering). */
uint32_t cpu_get_reg(const xb_cpu *c, unsigned reg);
void cpu_set_reg(xb_cpu *c, unsigned reg, uint32_t value);

/* RP2040: SRAM0-3 also appear unstriped at 0x21000000 (64 KB per bank); the striped
 * range interleaves the four banks word by word. Offset in the striped range of byte
 * alias_off of the unstriped alias (alias_off < 0x40000). */
static inline uint32_t cpu_sram_unstriped(uint32_t alias_off)
{
	uint32_t bank = alias_off >> 16, word = (alias_off & 0xFFFF) >> 2;
	return (((word << 2) | bank) << 2) | (alias_off & 3);
}
#define XB_SRAM_UNSTRIPED_BASE 0x21000000u
#define XB_SRAM_UNSTRIPED_SIZE 0x40000u

/* ---- memory (cpu_exec.c): slow paths, also used by exception stacking ---- */
/* Word read/write for stacking and vector fetches; return -1 on a bus error. They charge
 * flash miss penalties but not the access itself. */
int cpu_read_word(xb_cpu *c, uint32_t addr, uint32_t *value);
int cpu_write_word(xb_cpu *c, uint32_t addr, uint32_t value);

/* ---- board.c: the two cores ---- */
/* The core executing now (or whose debug port is accessing): PPB registers are its own. */
xb_cpu *board_cur_cpu(xb_board *b);
/* SEV by core c (after its own event register is set): signals the other core. */
void board_cpu_sev(xb_cpu *c);

#endif
