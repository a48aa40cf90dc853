/* board: the virtual Pico: a Cortex-M0+ with the RP2040 memory map, the XIP cache and its
 * counters, the system timer, interrupt controller and debug registers, in virtual time. */
#ifndef XB_BOARD_H
#define XB_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "../core/cache.h"
#include "../core/target.h"
#include "../core/trace.h"
#include "../core/util.h"
#include "bus.h"

/*
 * A board is built from a target (targets/rp2040.target): ROM, SRAM and flash sizes and
 * addresses, the four XIP aliases, the cache geometry and miss penalty, the XIP_CTRL
 * address and cpu_hz come from it. What the board adds itself: the ARMv6-M CPU, the PPB
 * at 0xE0000000 (SysTick, NVIC, SCB; DWT, debug and breakpoint registers for the debug
 * port only), the SRAM's non-striped alias at 0x21000000 (RP2040 SRAM0-3), the XIP_CTRL
 * block and the cache-as-SRAM window (sim/xip.c). Every other peripheral (SIO, RESETS,
 * CLOCKS, TIMER, UART0, USB ...) is a device that its own module maps on board_bus().
 *
 * Virtual time is counted in CPU cycles (cpu_hz per second) and only moves forward;
 * board_reset does not rewind it. Everything is deterministic: the same image, the same
 * calls and the same device inputs give bit-identical cycles and counters.
 *
 * Faults in the emulated program never crash the host: they become HardFaults inside the
 * board (recorded, see board_faults) or a lockup (board_run returns XB_RUN_LOCKUP).
 *
 * A board is used by one thread at a time. Nothing here is reentrant from device
 * callbacks except where it says so.
 */

typedef struct xb_board xb_board;

/* Makes a board for target t (copied). Memory is zero, flash is erased (0xFF), the CPU is
 * reset but has nothing to run until an image is loaded and board_reset is called. Fails
 * (NULL, err set) when the target lacks what a board needs: an SRAM region, at least one
 * flash alias, a valid cache geometry. */
xb_board *board_new(const xb_target *t, xb_err *err);
void board_free(xb_board *b);

const xb_target *board_target(const xb_board *b);
/* The bus, for devices to map themselves on (owned by the board). */
xb_bus *board_bus(xb_board *b);
/* The XIP cache model (owned by the board): per-set statistics, peeks, totals. */
xb_cache *board_cache(xb_board *b);

/* Reports (unmapped accesses, faults, lockup) go to fn (default stderr). */
void board_set_log(xb_board *b, xb_log_fn fn, void *ctx);
/* Strict mode: unmapped accesses are bus errors (HardFault) instead of reads as zero. */
void board_set_strict(xb_board *b, int strict);

/* ---- Memory ---- */

/* Copies len bytes to addr in ROM, SRAM (either alias), flash (through any XIP alias; the
 * cache is not touched: flush it as real firmware would after reprogramming) or the
 * cache-as-SRAM window. Fails, naming the first address concerned, when the range leaves
 * loadable memory. No cycles pass. */
int board_load(xb_board *b, uint32_t addr, const void *bytes, size_t len, xb_err *err);
/* Reads len bytes of the same memories without side effects (no cache access, no
 * counters, no device reads). Fails like board_load. */
int board_peek(const xb_board *b, uint32_t addr, void *out, size_t len, xb_err *err);
/* The flash contents (flash_size bytes), for loaders and flash programming. */
uint8_t *board_flash(xb_board *b, uint32_t *size);

/* ---- Reset ---- */

/* The vector table the core boots from: SP = word 0, PC = word 1, and VTOR reads this
 * value after reset (bits 7:0 are ignored, as in VTOR). Default: flash_base + 0x100 (after the 256-byte boot2), the state the
 * RP2040's bootrom and boot2 leave. A loader with its own boot path sets another (0 to
 * boot through a ROM vector table at address 0). */
void board_set_reset_vtor(xb_board *b, uint32_t vtor);

/* The CPU cycles an XIP cache miss costs (both cores), as the flash interface's read format
 * and clock divider imply (sim/ssi.c). Starts at the target's miss_penalty. */
void board_set_xip_miss_penalty(xb_board *b, uint32_t cycles);
/* The flash cannot answer XIP reads (why, a static string), until cycle until (UINT64_MAX:
 * until told otherwise); NULL: it can. Reads that reach the flash meanwhile are counted
 * (xip_unanswered in the counters) and the first of each period reported (sim/xip.h). */
void board_set_xip_dead(xb_board *b, const char *why, uint64_t until);

/* System reset (also what AIRCR.SYSRESETREQ does): CPU registers, NVIC, SysTick, SCB,
 * XIP_CTRL (cache flushed, counters kept) and every device that registered a reset hook
 * go to their reset state; memory, flash and virtual time are kept; SP and PC are loaded
 * from the reset vector table. If DEMCR.VC_CORERESET is set with C_DEBUGEN, the core
 * halts before the first instruction. */
void board_reset(xb_board *b);

typedef void (*xb_reset_fn)(xb_board *b, void *ctx);
/* fn(b, ctx) runs at every board_reset, after the core's own state is reset (in
 * registration order). */
void board_on_reset(xb_board *b, xb_reset_fn fn, void *ctx);

/* ---- Time and events ---- */

uint64_t board_cycles(const xb_board *b);
uint32_t board_cpu_hz(const xb_board *b);

/* A scheduled event. It runs between instructions, at the first instruction boundary at
 * or after its cycle (instructions take 1 to 3+ cycles, so up to a few cycles late;
 * board_cycles(b) inside the callback tells when it actually runs). Events due at the
 * same time run in the order they were scheduled. A callback may schedule and cancel
 * events, raise IRQs, call board_stop; it must not call board_run or board_free. */
typedef void (*xb_event_fn)(xb_board *b, void *ctx);

/* Schedules fn(b, ctx) at cycle at (a past cycle means "as soon as possible"). Returns an
 * id (never 0) for board_cancel. */
uint64_t board_schedule(xb_board *b, uint64_t at, xb_event_fn fn, void *ctx);
/* Cancels a pending event; returns 1 if it was pending, 0 if it had run or was unknown. */
int board_cancel(xb_board *b, uint64_t id);
/* Cycle of the earliest pending event, or UINT64_MAX. */
uint64_t board_next_event(const xb_board *b);

/* ---- Interrupts ---- */

/* Drives external interrupt line irq (0..31) high (level 1) or low: RP2040 peripherals
 * hold their line high while INTS is non-zero. A high line makes the IRQ pending whenever
 * it is not active, so a handler that returns without clearing the cause runs again. */
void board_irq_set(xb_board *b, unsigned irq, int level);
/* Makes irq pending once, as a write to NVIC_ISPR does. */
void board_irq_pend(xb_board *b, unsigned irq);
/* Makes NMI pending (RP2040: PROC0_NMI_MASK routing is the caller's business). */
void board_nmi(xb_board *b);
/* Sets the event register and wakes a WFE (the other core's SEV, in RP2040 terms). */
void board_signal_event(xb_board *b);

/* ---- Running ---- */

enum xb_run_result {
	XB_RUN_BUDGET = 0, /* max_cycles passed (the core may be running or asleep) */
	XB_RUN_HALTED,     /* the core is in debug state: C_HALT, a breakpoint, BKPT,
			    * a vector catch, a finished C_STEP, board_run_until_pc */
	XB_RUN_LOCKUP,     /* the core locked up (a fault in HardFault or NMI) */
	XB_RUN_STOPPED,    /* board_stop was called (by a device, an event, a hook) */
};
const char *board_run_result_name(enum xb_run_result r);

/* Runs for max_cycles of virtual time or until something to report happens. A sleeping
 * core (WFI, WFE) jumps to the next event instead of spinning; a halted or locked-up core
 * executes nothing, but time passes and events run until the budget is spent (a run that
 * starts halted returns XB_RUN_HALTED after max_cycles). */
enum xb_run_result board_run(xb_board *b, uint64_t max_cycles);
/* Like board_run, but halts (XB_RUN_HALTED) before executing the instruction at pc
 * (Thumb bit ignored). Slower: for tests and tools, not for measurements. */
enum xb_run_result board_run_until_pc(xb_board *b, uint32_t pc, uint64_t max_cycles);
/* Asks the current board_run to return XB_RUN_STOPPED after the current instruction or
 * event (callable from device callbacks and events). */
void board_stop(xb_board *b);

/* ---- Core state ---- */

/* Core registers, numbered as DCRSR.REGSEL: 0-12 R0-R12, 13 SP (the current one), 14 LR,
 * 15 PC (the next instruction to execute), 16 xPSR, 17 MSP, 18 PSP, 20 CONTROL[31:24] |
 * PRIMASK[7:0]. Others read as 0 and ignore writes. Writable at any time by the host (the
 * debug port only while halted). */
enum {
	XB_REG_SP = 13,
	XB_REG_LR = 14,
	XB_REG_PC = 15,
	XB_REG_XPSR = 16,
	XB_REG_MSP = 17,
	XB_REG_PSP = 18,
	XB_REG_CONTROL_PRIMASK = 20,
};
uint32_t board_reg(const xb_board *b, unsigned reg);
void board_set_reg(xb_board *b, unsigned reg, uint32_t value);

int board_halted(const xb_board *b);
int board_sleeping(const xb_board *b);
int board_locked_up(const xb_board *b);
/* Debug halt and resume, as DHCSR writes with C_DEBUGEN set would do. */
void board_halt(xb_board *b);
void board_resume(xb_board *b);

/* ---- Debug port ---- */

/* A memory access by the debugger (the SWD MEM-AP): reaches everything the CPU reaches
 * plus DWT (0xE0001000), the breakpoint unit (0xE0002000) and DHCSR/DCRSR/DCRDR/DEMCR
 * (0xE000EDF0-0xE000EDFC), which the CPU itself cannot see. Takes no cycles (the probe
 * model charges its own time). Flash reads through 0x10/0x12 aliases go through the cache
 * and count, as on the chip. Returns 0, or -1 for a bus error (the AP answers FAULT). */
int board_debug_read(xb_board *b, uint32_t addr, unsigned size, uint32_t *value);
int board_debug_write(xb_board *b, uint32_t addr, unsigned size, uint32_t value);

/* What DWT_PCSR would return now (DEMCR.DWTENA aside): the address of the instruction
 * the core executed last (while asleep: the WFI/WFE), 0xFFFFFFFF in debug state or
 * lockup. board_debug_read of DWT_PCSR gives the same when DWTENA is set, 0 when not. */
uint32_t board_pcsr(const xb_board *b);

/* ---- Faults ---- */

enum xb_fault_kind {
	XB_FAULT_NONE = 0,
	XB_FAULT_BUS_READ,   /* load from nowhere (strict), or a device bus error */
	XB_FAULT_BUS_WRITE,  /* store to nowhere (strict), read-only memory, bad XIP write */
	XB_FAULT_FETCH,      /* instruction fetch from no memory */
	XB_FAULT_XN,         /* instruction fetch from an execute-never region (0x4...,
			      * 0x5..., 0xA...-0xF...) */
	XB_FAULT_UNALIGNED,  /* halfword or word access not aligned to its size */
	XB_FAULT_UNDEFINED,  /* UDF or an undefined encoding */
	XB_FAULT_INVSTATE,   /* branch to an address with bit 0 clear (Thumb bit) */
	XB_FAULT_EXC_RETURN, /* bad EXC_RETURN value or return from an inactive exception */
	XB_FAULT_SVC,        /* SVC at or above SVCall's priority (or with PRIMASK set) */
	XB_FAULT_BKPT,       /* BKPT with the debugger off */
	XB_FAULT_STACKING,   /* exception entry or return could not use the stack */
	XB_FAULT_VECTOR,     /* the vector table could not be read */
};
const char *board_fault_kind_name(enum xb_fault_kind k);

/* One fault, as the board saw it when it happened. */
typedef struct xb_fault {
	enum xb_fault_kind kind;
	uint32_t pc;       /* the instruction that faulted (or whose exception entry did) */
	uint32_t addr;     /* data address for bus/alignment faults, target for fetches */
	uint32_t r[16];    /* registers at the fault, r[13] the SP in use, r[15] = pc */
	uint32_t xpsr, msp, psp;
	uint32_t exception; /* the exception active when it happened (0: thread mode) */
	int lockup;        /* 1 if it locked the core up rather than entering HardFault */
	uint64_t cycle;
} xb_fault;

/* Number of faults since board_new; *last (if not NULL) gets the latest (zeroed when
 * none). */
uint64_t board_faults(const xb_board *b, xb_fault *last);
/* One line: "HardFault: unaligned access at 0x20000001, pc 0x10000124 ...". */
void board_format_fault(const xb_fault *f, xb_strbuf *out);

/* ---- Counters ---- */

typedef struct xb_board_counters {
	uint64_t cycles;        /* virtual time */
	uint64_t instructions;  /* retired instructions */
	uint64_t sleep_cycles;  /* cycles spent in WFI/WFE */
	uint64_t halted_cycles; /* cycles spent halted or locked up */
	uint64_t exceptions;    /* exception entries (tail-chains included) */
	uint64_t xip_accesses;  /* cache model totals (cache_total_accesses ...) */
	uint64_t xip_hits;
	uint64_t xip_misses;
	uint64_t xip_unanswered; /* flash reads (both cores) while the flash could not answer */
	uint64_t core1_instructions; /* core 1's retired instructions */
	uint64_t core1_sleep_cycles; /* core 1's cycles asleep (WFI/WFE) */
} xb_board_counters;
void board_counters(const xb_board *b, xb_board_counters *out);

/* ---- Fetch trace ---- */

/* Sends every instruction fetch (one per aligned 32-bit word, as the core fetches, flash
 * and SRAM alike) and every data read of flash to s, in order, as full bus addresses
 * (word-aligned for fetches). NULL stops tracing. The caller owns s. */
void board_set_trace(xb_board *b, xb_trace_stream *s);
/* Puts a window mark (XB_TRACE_MARK_IDLE, _TRAFFIC, _END of core/trace.h) in the trace
 * (no-op without one). */
void board_trace_mark(xb_board *b, uint32_t mark);
/* Marks an echo boundary in the trace (no-op without one). */
void board_trace_mark_echo(xb_board *b);

/* ---- Core 1 ----
 *
 * The RP2040's second Cortex-M0+ has its own registers, NVIC, SysTick, SCB, debug registers
 * and DWT (a second core in the board); memories, the bus, the cache and every device are
 * shared, and every external interrupt line reaches both NVICs. Core 1 exists once
 * board_core1_enable was called (the SIO does it: CPUID is what sends core 1 down the
 * bootrom's wait_for_vector path, RP2040 datasheet 2.8.2); from then on every reset starts
 * it at the bootrom's reset vector, like core 0 on the chip, and it waits there for core 0's
 * FIFO handshake (pico-sdk's multicore_launch_core1).
 *
 * Scheduling (deterministic): while core 1 is awake, the board alternates the cores in
 * quanta of XB_CORE_QUANTUM cycles: core 0 runs to the end of a quantum (or the next event),
 * then core 1 runs up to the time core 0 reached; events run between quanta. What one core
 * does (a FIFO word, a spinlock, a SEV) is thus seen by the other up to one quantum late,
 * and events scheduled by core 1 run up to a quantum late. While core 1 is asleep (WFE in
 * the bootrom, WFI/WFE in firmware), halted, locked up or held in reset, core 0 runs as on a
 * one-core board, without quanta; a sleeping core 1 wakes at the instant core 0's stretch
 * ends (a SEV or an interrupt for core 1 ends the stretch at once). board_cycles is the
 * clock of the core executing (core 0's between instructions and in events). */
#define XB_CORE_QUANTUM 64u

/* Gives the board its core 1 (idempotent): it starts now at the ROM's reset vector. */
void board_core1_enable(xb_board *b);
/* The core whose instruction or debug access is in progress (0 or 1); 0 elsewhere. */
unsigned board_current_core(const xb_board *b);
/* 1 while core 1 executes (enabled and not held in reset). */
int board_core1_running(const xb_board *b);
/* Core 1 held in reset (held = 1: it stops at once; PSM FRCE_OFF.PROC1 in RP2040 terms,
 * pico-sdk's multicore_reset_core1) or released (held = 0: it restarts at the bootrom's
 * reset vector). board_reset releases it. */
void board_core1_reset(xb_board *b, int held);

/* Per-core views of the debug interface: core 0 is what the functions above give; core 1
 * has its own PPB (SysTick, NVIC, SCB, DWT, breakpoints, DHCSR ...), and SIO CPUID reads 1
 * through its accesses. */
int board_core_halted(const xb_board *b, unsigned core);
int board_core_sleeping(const xb_board *b, unsigned core);
int board_core_debug_read(xb_board *b, unsigned core, uint32_t addr, unsigned size,
			  uint32_t *value);
int board_core_debug_write(xb_board *b, unsigned core, uint32_t addr, unsigned size,
			   uint32_t value);
/* board_pcsr for either core (core 1 not running: 0xFFFFFFFF). */
uint32_t board_core_pcsr(const xb_board *b, unsigned core);
/* board_faults for either core. */
uint64_t board_core_faults(const xb_board *b, unsigned core, xb_fault *last);
/* board_reg for either core. */
uint32_t board_core_reg(const xb_board *b, unsigned core, unsigned reg);
/* What a core is doing: "running", "asleep" (WFI/WFE), "halted", "lockup"; core 1 also
 * "absent" (never started: the firmware did not read SIO CPUID) and "reset" (held). */
const char *board_core_state(const xb_board *b, unsigned core);

#endif
