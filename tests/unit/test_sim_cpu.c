/* test_sim_cpu: the virtual Pico's core in small pieces: Cortex-M0+ cycle counts, the bus
 * (atomic aliases, narrow writes, unmapped reports, strict mode), what the CPU and the debug
 * port each see of the PPB, halting, stepping, core registers, breakpoints, PCSR, the event
 * scheduler, SysTick registers, resets, VTOR, sleep, and the deterministic choices for
 * UNPREDICTABLE encodings. Code is hand-encoded into SRAM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_sim_common.h"

#define CODE 0x20000000u
#define STACK 0x20030000u
#define BKPT 0xBE00

static void load(xb_board *b, const uint16_t *code, size_t n)
{
	xb_err err;
	assert_int_equal(board_load(b, CODE, code, 2 * n, &err), 0);
	board_set_reg(b, XB_REG_CONTROL_PRIMASK, 0);
	board_set_reg(b, XB_REG_XPSR, 1u << 24);
	board_set_reg(b, XB_REG_SP, STACK);
	board_set_reg(b, XB_REG_PC, CODE);
	board_debug_write(b, SIM_DHCSR, 4, 0xA05F0001u);
	board_resume(b);
}

/* Cycles from CODE to the final BKPT (which takes none). */
static uint64_t cycles_of(xb_board *b, const uint16_t *code, size_t n)
{
	load(b, code, n);
	uint64_t t = board_cycles(b);
	assert_int_equal(board_run(b, 100000), XB_RUN_HALTED);
	assert_int_equal(board_faults(b, NULL), 0);
	return board_cycles(b) - t;
}

/* A register block at a test address: plain RW registers that remember the last write. */
typedef struct tdev {
	uint32_t reg[16];
	uint32_t off, val, size;
	enum xb_alias_op op;
	int reads;
} tdev;

static uint32_t tdev_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	tdev *d = ctx;
	d->reads++;
	return d->reg[(off / 4) & 15];
}

static void tdev_write(void *ctx, uint32_t off, uint32_t v, unsigned size, enum xb_alias_op op)
{
	tdev *d = ctx;
	d->off = off;
	d->val = v;
	d->size = size;
	d->op = op;
	d->reg[(off / 4) & 15] = bus_alias_apply(d->reg[(off / 4) & 15], v, op);
}

static const xb_device_ops tdev_ops = {.read = tdev_read, .write = tdev_write};

static void test_cycle_counts(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	static tdev apb, sio;
	assert_int_equal(bus_map(board_bus(b), 0x40080000u, 0x100, "test APB", &tdev_ops, &apb), 0);
	assert_int_equal(bus_map(board_bus(b), 0xD0000000u, 0x100, "test SIO", &tdev_ops, &sio), 0);
	struct {
		const char *what;
		uint16_t code[8];
		size_t n;
		uint64_t cycles;
		uint32_t r1, r2;
	} cases[] = {
		{"movs", {0x2001, BKPT}, 2, 1, 0, 0},
		{"muls", {0x4348, BKPT}, 2, 1, 3, 0},
		{"ldr sram", {0x6808, BKPT}, 2, 2, 0x20010000, 0},
		{"str sram", {0x6008, BKPT}, 2, 2, 0x20010000, 0},
		{"ldr sio", {0x6808, BKPT}, 2, 1, 0xD0000000, 0},
		{"ldr apb", {0x6808, BKPT}, 2, 3, 0x40080000, 0},
		{"str apb", {0x6008, BKPT}, 2, 4, 0x40080000, 0},
		{"b", {0xE000, 0xBF00, BKPT}, 3, 2, 0, 0},
		{"bne not taken", {0x2000, 0xD100, 0xBF00, BKPT}, 4, 3, 0, 0},
		{"beq taken", {0x2000, 0xD000, 0xBF00, BKPT}, 4, 3, 0, 0},
		{"bl", {0xF000, 0xF800, BKPT}, 3, 3, 0, 0},
		{"bx", {0x4708, BKPT}, 2, 2, CODE + 3, 0},
		{"blx", {0x4788, BKPT}, 2, 2, CODE + 3, 0},
		{"mov pc", {0x468F, BKPT}, 2, 2, CODE + 2, 0},
		{"push 4", {0xB40F, BKPT}, 2, 5, 0, 0},
		{"push 4 + pop 4", {0xB40F, 0xBC0F, BKPT}, 3, 10, 0, 0},
		{"push lr + pop pc", {0xB500, 0xBD00, BKPT}, 3, 2 + 4, 0, 0},
		{"stm 3", {0xC10D, BKPT}, 2, 4, 0x20010000, 0},
		{"ldm 3", {0xC90D, BKPT}, 2, 4, 0x20010000, 0},
		{"mrs", {0xF3EF, 0x8000, BKPT}, 3, 3, 0, 0},
		{"msr", {0xF381, 0x8800, BKPT}, 3, 3, 0, 0},
		{"dmb", {0xF3BF, 0x8F5F, BKPT}, 3, 3, 0, 0},
		{"adds, cmp, rev", {0x1c40, 0x4288, 0xBA00, BKPT}, 4, 3, 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		board_set_reg(b, 1, cases[i].r1);
		board_set_reg(b, 2, cases[i].r2);
		board_set_reg(b, XB_REG_LR, (CODE + 4) | 1); /* for pop {pc}: the BKPT */
		uint64_t got = cycles_of(b, cases[i].code, cases[i].n);
		if (got != cases[i].cycles)
			fail_msg("%s: %llu cycles, expected %llu", cases[i].what,
				 (unsigned long long)got, (unsigned long long)cases[i].cycles);
	}
	board_free(b);
}

static void test_exception_entry_cycles(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	/* A vector table in SRAM whose SVC handler is a BKPT. */
	uint32_t table[16] = {STACK, CODE | 1};
	table[11] = (CODE + 0x100) | 1;
	xb_err err;
	assert_int_equal(board_load(b, 0x20002000u, table, sizeof table, &err), 0);
	assert_int_equal(board_debug_write(b, 0xE000ED08u, 4, 0x20002000u), 0);
	static const uint16_t handler[] = {BKPT};
	assert_int_equal(board_load(b, CODE + 0x100, handler, 2, &err), 0);
	static const uint16_t code[] = {0xDF07, BKPT}; /* svc #7 */
	uint64_t c = cycles_of(b, code, 2);
	assert_int_equal(c, 1 + 15);
	assert_int_equal(board_reg(b, XB_REG_PC), CODE + 0x100);
	assert_int_equal(board_reg(b, XB_REG_XPSR) & 0x3F, 11);
	assert_int_equal(board_reg(b, XB_REG_LR), 0xFFFFFFF9u);
	assert_int_equal(board_reg(b, XB_REG_SP), STACK - 32);
	/* The stacked frame: return address after the SVC, xPSR with T. */
	assert_int_equal(sim_word(b, STACK - 32 + 24), CODE + 2);
	assert_int_equal(sim_word(b, STACK - 32 + 28) & (1u << 24), 1u << 24);
	/* Stack alignment: from SP = ...4 the frame is padded and xPSR bit 9 says so. A new
	 * board: the SVC above is still active on this one. */
	board_free(b);
	b = sim_board(NULL);
	assert_int_equal(board_load(b, 0x20002000u, table, sizeof table, &err), 0);
	assert_int_equal(board_debug_write(b, 0xE000ED08u, 4, 0x20002000u), 0);
	assert_int_equal(board_load(b, CODE + 0x100, handler, 2, &err), 0);
	load(b, code, 2);
	board_set_reg(b, XB_REG_SP, STACK - 4);
	assert_int_equal(board_run(b, 1000), XB_RUN_HALTED);
	assert_int_equal(board_reg(b, XB_REG_SP), STACK - 40);
	assert_int_equal(sim_word(b, STACK - 40 + 28) & (1u << 9), 1u << 9);
	board_free(b);
}

static void test_bus_aliases_and_narrow_writes(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	xb_bus *bus = board_bus(b);
	static tdev d;
	memset(&d, 0, sizeof d);
	assert_int_equal(bus_map(bus, 0x40080000u, 0x40, "test", &tdev_ops, &d), 0);
	/* Peripheral blocks must sit on 16 KB boundaries; overlaps are refused. */
	assert_int_equal(bus_map(bus, 0x40081000u, 0x40, "bad", &tdev_ops, &d), -1);
	assert_int_equal(bus_map(bus, 0x40080000u, 0x40, "again", &tdev_ops, &d), -1);
	assert_int_equal(bus_alias_apply(0xF0, 0x3C, XB_OP_RW), 0x3C);
	assert_int_equal(bus_alias_apply(0xF0, 0x3C, XB_OP_XOR), 0xCC);
	assert_int_equal(bus_alias_apply(0xF0, 0x3C, XB_OP_SET), 0xFC);
	assert_int_equal(bus_alias_apply(0xF0, 0x3C, XB_OP_CLR), 0xC0);
	/* CPU stores through the four aliases of register 1 (offset 4). */
	static const uint16_t code[] = {
		0x6048,         /* str r0, [r1, #4]      RW   */
		0x6054,         /* str r4, [r2, #4]      XOR  */
		0x605D,         /* str r5, [r3, #4]      SET  */
		0x6076,         /* str r6, [r6, #4]?     (patched below) */
		BKPT,
	};
	uint16_t prog[5];
	memcpy(prog, code, sizeof prog);
	prog[3] = 0x607C; /* str r4, [r7, #4]: CLR */
	board_set_reg(b, 0, 0xF0F0);
	board_set_reg(b, 1, 0x40080000u);
	board_set_reg(b, 2, 0x40081000u);
	board_set_reg(b, 3, 0x40082000u);
	board_set_reg(b, 7, 0x40083000u);
	board_set_reg(b, 4, 0x00FF);
	board_set_reg(b, 5, 0x0F00);
	cycles_of(b, prog, 5);
	/* 0xF0F0 ^ 0xFF = 0xF00F; | 0xF00 = 0xFF0F; & ~0xFF = 0xFF00 */
	assert_int_equal(d.reg[1], 0xFF00);
	assert_int_equal(d.op, XB_OP_CLR);
	assert_int_equal(d.off, 4);
	/* Reads through an alias read the register. */
	uint32_t v;
	assert_int_equal(board_debug_read(b, 0x40082004u, 4, &v), 0);
	assert_int_equal(v, 0xFF00);
	/* A byte store replicates across the lanes and reaches the word-aligned register. */
	assert_int_equal(bus_write(bus, 0x40080009u, 1, 0xA5), 0);
	assert_int_equal(d.off, 8);
	assert_int_equal(d.val, 0xA5A5A5A5u);
	assert_int_equal(d.size, 1);
	assert_int_equal(bus_write(bus, 0x4008000Eu, 2, 0x1234), 0);
	assert_int_equal(d.off, 12);
	assert_int_equal(d.val, 0x12341234u);
	/* Narrow reads pick their lanes out of the whole register. */
	d.reg[4] = 0xDEADBEEF;
	assert_int_equal(bus_read(bus, 0x40080011u, 1, &v), 0);
	assert_int_equal(v, 0xBE);
	assert_int_equal(bus_read(bus, 0x40080012u, 2, &v), 0);
	assert_int_equal(v, 0xDEAD);
	/* Outside the peripheral space there are no aliases: SIO-like blocks see RW only. */
	static tdev s;
	assert_int_equal(bus_map(bus, 0xD0000000u, 0x100, "sio", &tdev_ops, &s), 0);
	assert_int_equal(bus_write(bus, 0xD0000010u, 4, 7), 0);
	assert_int_equal(s.op, XB_OP_RW);
	assert_int_equal(bus_read(bus, 0xD0001010u, 4, &v), 0); /* not an alias: unmapped */
	assert_int_equal(v, 0);
	board_free(b);
}

static void test_unmapped_reports(void **state)
{
	(void)state;
	sim_log log;
	xb_board *b = sim_board(&log);
	/* ldr r0, [r1]; ldr r0, [r1]; ldr r0, [r2]; str r0, [r2]; bkpt */
	static const uint16_t code[] = {0x6808, 0x6808, 0x6810, 0x6010, BKPT};
	board_set_reg(b, 1, 0x30000000u);
	board_set_reg(b, 2, 0x30000010u);
	cycles_of(b, code, 5);
	assert_int_equal(log.lines, 2); /* once per address */
	assert_string_equal(log.all,
			    "unmapped read of 4 bytes at 0x30000000 (pc 0x20000000)\n"
			    "unmapped read of 4 bytes at 0x30000010 (pc 0x20000004)\n");
	assert_int_equal(bus_unmapped_count(board_bus(b)), 4);
	assert_int_equal(board_reg(b, 0), 0);
	/* Debugger accesses are reported as the debugger's. */
	uint32_t v;
	assert_int_equal(board_debug_read(b, 0x30000100u, 4, &v), 0);
	assert_non_null(strstr(log.last, "(debugger)"));
	/* Strict: a bus error for the debugger, a HardFault for the CPU. */
	board_set_strict(b, 1);
	assert_int_equal(board_debug_read(b, 0x30000200u, 4, &v), -1);
	/* ROM is read-only. */
	board_set_strict(b, 0);
	assert_int_equal(board_debug_write(b, 0x00000100u, 4, 1), 0);
	assert_non_null(strstr(log.last, "ROM"));
	board_free(b);
}

static void test_ppb_visibility(void **state)
{
	(void)state;
	sim_log log;
	xb_board *b = sim_board(&log);
	/* The CPU reads CPUID, but DHCSR and DWT_CTRL read as zero and are reported. */
	static const uint16_t code[] = {0x6808, 0x6814, 0x681D, BKPT};
	board_set_reg(b, 1, 0xE000ED00u);
	board_set_reg(b, 2, SIM_DHCSR);
	board_set_reg(b, 3, 0xE0001000u);
	cycles_of(b, code, 4);
	assert_int_equal(board_reg(b, 0), 0x410CC601u);
	assert_int_equal(board_reg(b, 4), 0);
	assert_int_equal(board_reg(b, 5), 0);
	assert_int_equal(log.lines, 2);
	/* The debugger sees them. */
	uint32_t v;
	assert_int_equal(board_debug_read(b, SIM_DHCSR, 4, &v), 0);
	assert_true(v & 1);                  /* C_DEBUGEN */
	assert_true(v & (1u << 17));         /* S_HALT */
	assert_int_equal(board_debug_write(b, 0xE000EDFCu, 4, 1u << 24), 0); /* DWTENA */
	assert_int_equal(board_debug_read(b, 0xE0001000u, 4, &v), 0);
	assert_int_equal(v >> 28, 2); /* NUMCOMP */
	assert_int_equal(board_debug_read(b, 0xE00FF000u, 4, &v), 0); /* ROM table: SCS */
	assert_int_equal(v, 0xFFF0F003u);
	/* Word access only to the SCS. */
	assert_int_equal(board_debug_read(b, 0xE000ED00u, 1, &v), 0);
	assert_int_equal(v, 0);
	board_free(b);
}

static void test_halt_step_registers(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	/* adds r0, #1; b . */
	static const uint16_t code[] = {0x3001, 0xE7FD};
	load(b, code, 2);
	board_set_reg(b, 0, 0);
	board_set_reg(b, XB_REG_PC, CODE);
	board_debug_write(b, SIM_DHCSR, 4, 0xA05F0001u); /* run */
	assert_int_equal(board_run(b, 1000), XB_RUN_BUDGET);
	uint32_t pcsr = board_pcsr(b);
	assert_true(pcsr == CODE || pcsr == CODE + 2);
	/* DWT_PCSR through the debug port is 0 until DWTENA is set. */
	uint32_t v;
	board_debug_read(b, 0xE000101Cu, 4, &v);
	assert_int_equal(v, 0);
	board_debug_write(b, 0xE000EDFCu, 4, 1u << 24);
	board_debug_read(b, 0xE000101Cu, 4, &v);
	assert_int_equal(v, pcsr);
	/* Halt: PCSR reads all ones, registers through DCRSR/DCRDR. */
	board_debug_write(b, SIM_DHCSR, 4, 0xA05F0003u);
	assert_true(board_halted(b));
	assert_int_equal(board_pcsr(b), 0xFFFFFFFFu);
	board_debug_write(b, 0xE000EDF4u, 4, 0); /* read r0 */
	board_debug_read(b, 0xE000EDF8u, 4, &v);
	uint32_t r0 = v;
	assert_true(r0 > 10);
	board_debug_write(b, 0xE000EDF8u, 4, 1000);
	board_debug_write(b, 0xE000EDF4u, 4, (1u << 16) | 0); /* write r0 */
	assert_int_equal(board_reg(b, 0), 1000);
	board_debug_write(b, 0xE000EDF8u, 4, CODE);
	board_debug_write(b, 0xE000EDF4u, 4, (1u << 16) | 15); /* PC */
	/* Step: one instruction, then halted again. */
	uint64_t n0;
	xb_board_counters k;
	board_counters(b, &k);
	n0 = k.instructions;
	board_debug_write(b, SIM_DHCSR, 4, 0xA05F0005u); /* C_STEP, not C_HALT */
	assert_int_equal(board_run(b, 1000), XB_RUN_HALTED);
	board_counters(b, &k);
	assert_int_equal(k.instructions, n0 + 1);
	assert_int_equal(board_reg(b, 0), 1001);
	assert_int_equal(board_reg(b, XB_REG_PC), CODE + 2);
	board_debug_read(b, SIM_DHCSR, 4, &v);
	assert_true(v & (1u << 24)); /* S_RETIRE_ST */
	assert_true(v & (1u << 16)); /* S_REGRDY */
	board_debug_read(b, SIM_DHCSR, 4, &v);
	assert_false(v & (1u << 24)); /* cleared by the read */
	/* A halted board lets time pass and stays halted. */
	uint64_t t = board_cycles(b);
	assert_int_equal(board_run(b, 500), XB_RUN_HALTED);
	assert_int_equal(board_cycles(b), t + 500);
	/* Writes without the key are ignored. */
	board_debug_write(b, SIM_DHCSR, 4, 0x00000001u);
	assert_true(board_halted(b));
	board_free(b);
}

static void test_breakpoints(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	/* movs r0, #1; movs r1, #2; movs r2, #3; movs r3, #4; b . */
	static const uint16_t code[] = {0x2001, 0x2102, 0x2203, 0x2304, 0xE7FE};
	load(b, code, 5);
	/* The breakpoint unit covers code below 0x20000000 only: run_until_pc stops in SRAM,
	 * a comparator on flash code below. */
	assert_int_equal(board_run_until_pc(b, CODE + 6, 1000), XB_RUN_HALTED);
	assert_int_equal(board_reg(b, XB_REG_PC), CODE + 6);
	assert_int_equal(board_reg(b, 2), 3);
	assert_int_not_equal(board_reg(b, 3), 4);
	/* A comparator on a flash address, upper halfword. */
	static const uint16_t fcode[] = {0x2001, 0x2102, 0x2203, 0x2304, 0xE7FE};
	xb_err err;
	assert_int_equal(board_load(b, 0x10000200u, fcode, sizeof fcode, &err), 0);
	board_set_reg(b, XB_REG_PC, 0x10000200u);
	board_debug_write(b, 0xE0002000u, 4, 3); /* BP_CTRL: KEY | ENABLE */
	board_debug_write(b, 0xE0002008u, 4, (2u << 30) | 0x10000204u | 1);
	board_resume(b);
	assert_int_equal(board_run(b, 1000), XB_RUN_HALTED);
	assert_int_equal(board_reg(b, XB_REG_PC), 0x10000206u);
	uint32_t dfsr;
	board_debug_read(b, 0xE000ED30u, 4, &dfsr);
	assert_true(dfsr & 2); /* BKPT */
	board_free(b);
}

typedef struct order {
	int seq[8];
	int n;
	uint64_t when[8];
} order;

static order ord;

static void ev_a(xb_board *b, void *ctx)
{
	ord.when[ord.n] = board_cycles(b);
	ord.seq[ord.n++] = (int)(intptr_t)ctx;
}

static void test_scheduler(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	memset(&ord, 0, sizeof ord);
	static const uint16_t code[] = {0xE7FE}; /* b . */
	load(b, code, 1);
	uint64_t t = board_cycles(b);
	board_schedule(b, t + 300, ev_a, (void *)3);
	board_schedule(b, t + 100, ev_a, (void *)1);
	uint64_t id = board_schedule(b, t + 200, ev_a, (void *)9);
	board_schedule(b, t + 100, ev_a, (void *)2); /* same time: after the first */
	assert_int_equal(board_next_event(b), t + 100);
	assert_int_equal(board_cancel(b, id), 1);
	assert_int_equal(board_cancel(b, id), 0);
	assert_int_equal(board_run(b, 1000), XB_RUN_BUDGET);
	assert_int_equal(ord.n, 3);
	assert_int_equal(ord.seq[0], 1);
	assert_int_equal(ord.seq[1], 2);
	assert_int_equal(ord.seq[2], 3);
	/* At the first instruction boundary at or after the cycle (b . takes 2). */
	assert_true(ord.when[0] >= t + 100 && ord.when[0] <= t + 101);
	assert_true(ord.when[2] >= t + 300 && ord.when[2] <= t + 301);
	assert_int_equal(board_cycles(b), t + 1000);
	board_free(b);
}

static void stop_board(xb_board *b, void *ctx)
{
	(void)ctx;
	board_stop(b);
}

static void test_wfe_sev_and_stop(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	/* sev; wfe (does not sleep: the event register was set); yield; wfe (sleeps); bkpt */
	static const uint16_t code[] = {0xBF40, 0xBF20, 0xBF10, 0xBF20, BKPT};
	load(b, code, 5);
	assert_int_equal(board_run(b, 1000), XB_RUN_BUDGET);
	assert_true(board_sleeping(b));
	assert_int_equal(board_reg(b, XB_REG_PC), CODE + 8);
	assert_int_equal(board_pcsr(b), CODE + 6); /* the WFE it sleeps in */
	uint32_t v;
	board_debug_read(b, SIM_DHCSR, 4, &v);
	assert_true(v & (1u << 18)); /* S_SLEEP */
	board_signal_event(b);
	assert_int_equal(board_run(b, 1000), XB_RUN_HALTED);
	/* board_stop from an event ends a run early. */
	static const uint16_t spin[] = {0xE7FE};
	load(b, spin, 1);
	uint64_t t = board_cycles(b);
	board_schedule(b, t + 50, stop_board, NULL);
	assert_int_equal(board_run(b, 100000), XB_RUN_STOPPED);
	assert_true(board_cycles(b) < t + 60);
	board_free(b);
}

static void test_systick_registers(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	static const uint16_t spin[] = {0xE7FE};
	load(b, spin, 1);
	board_halt(b); /* time passes cycle by cycle (SysTick keeps counting while halted) */
	uint32_t v;
	board_debug_write(b, 0xE000E014u, 4, 99);  /* RVR */
	board_debug_write(b, 0xE000E018u, 4, 1234); /* CVR: any write clears it */
	board_debug_read(b, 0xE000E018u, 4, &v);
	assert_int_equal(v, 0);
	board_debug_write(b, 0xE000E010u, 4, 5); /* processor clock, enabled, no interrupt */
	assert_int_equal(board_run(b, 1), XB_RUN_HALTED);
	board_debug_read(b, 0xE000E018u, 4, &v);
	assert_int_equal(v, 99); /* reloaded on the first edge */
	assert_int_equal(board_run(b, 98), XB_RUN_HALTED);
	board_debug_read(b, 0xE000E018u, 4, &v);
	assert_int_equal(v, 1);
	board_debug_read(b, 0xE000E010u, 4, &v);
	assert_false(v & (1u << 16));
	assert_int_equal(board_run(b, 1), XB_RUN_HALTED);
	board_debug_read(b, 0xE000E018u, 4, &v);
	assert_int_equal(v, 0);
	board_debug_read(b, 0xE000E010u, 4, &v);
	assert_true(v & (1u << 16)); /* COUNTFLAG; debugger reads leave it */
	board_debug_read(b, 0xE000E010u, 4, &v);
	assert_true(v & (1u << 16));
	/* A CPU read clears it. */
	static const uint16_t rd[] = {0x6808, 0x6809, BKPT}; /* ldr r0,[r1]; ldr r1,[r1] */
	board_set_reg(b, 1, 0xE000E010u);
	load(b, rd, 3);
	assert_int_equal(board_run(b, 100), XB_RUN_HALTED);
	assert_true(board_reg(b, 0) & (1u << 16));
	assert_false(board_reg(b, 1) & (1u << 16));
	board_free(b);
}

static int hook_calls;

static void on_reset(xb_board *b, void *ctx)
{
	(void)b;
	(void)ctx;
	hook_calls++;
}

static void test_sysresetreq_and_vtor(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	board_on_reset(b, on_reset, NULL);
	hook_calls = 0;
	/* Reset vector table in SRAM: SP, then PC = the code below. */
	uint32_t table[2] = {STACK, (CODE + 0x40) | 1};
	xb_err err;
	assert_int_equal(board_load(b, 0x20002000u, table, sizeof table, &err), 0);
	board_set_reset_vtor(b, 0x20002000u);
	/* At CODE: AIRCR = 0x05FA0004; at CODE+0x40: movs r7, #7; bkpt */
	static const uint16_t code[] = {0x6008, 0xE7FE}; /* str r0, [r1]; b . */
	static const uint16_t after[] = {0x2707, BKPT};
	assert_int_equal(board_load(b, CODE + 0x40, after, sizeof after, &err), 0);
	board_set_reg(b, 0, 0x05FA0004u);
	board_set_reg(b, 1, 0xE000ED0Cu);
	load(b, code, 2);
	assert_int_equal(board_run(b, 1000), XB_RUN_HALTED);
	assert_int_equal(hook_calls, 1);
	assert_int_equal(board_reg(b, 7), 7);
	assert_int_equal(board_reg(b, XB_REG_SP), STACK);
	uint32_t v;
	board_debug_read(b, 0xE000ED08u, 4, &v);
	assert_int_equal(v, 0x20002000u); /* VTOR reads the boot vector table */
	board_debug_read(b, SIM_DHCSR, 4, &v);
	assert_true(v & (1u << 25)); /* S_RESET_ST */
	/* A write without VECTKEY does nothing. */
	board_set_reg(b, 0, 0x00000004u);
	load(b, code, 2);
	assert_int_equal(board_run(b, 100), XB_RUN_BUDGET);
	assert_int_equal(hook_calls, 1);
	board_free(b);
}

static void test_unpredictable_choices(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	/* Empty register lists, CBZ (ARMv7-M), UDF and a 32-bit encoding ARMv6-M lacks all
	 * fault as undefined instructions. */
	static const uint16_t bad[][2] = {{0xB400, 0}, {0xBC00, 0}, {0xC800, 0}, {0xC000, 0},
					  {0xB100, 0}, {0xDE00, 0}, {0xE800, 0x0000},
					  {0xF7F0, 0xA000}, {0xBF01, 0}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint16_t code[3] = {bad[i][0], bad[i][1], BKPT};
		uint32_t table[4] = {STACK, CODE | 1, CODE | 1, (CODE + 0x80) | 1};
		xb_err err;
		board_load(b, 0x20002000u, table, sizeof table, &err);
		board_debug_write(b, 0xE000ED08u, 4, 0x20002000u);
		static const uint16_t hf[] = {BKPT};
		board_load(b, CODE + 0x80, hf, 2, &err);
		load(b, code, 3);
		uint64_t nf = board_faults(b, NULL);
		assert_int_equal(board_run(b, 100), XB_RUN_HALTED);
		xb_fault f;
		assert_int_equal(board_faults(b, &f), nf + 1);
		if (f.kind != XB_FAULT_UNDEFINED)
			fail_msg("%04x %04x: %s", bad[i][0], bad[i][1], board_fault_kind_name(f.kind));
		assert_int_equal(f.pc, CODE);
		assert_int_equal(board_reg(b, XB_REG_PC), CODE + 0x80);
		/* Leave HardFault for the next case. */
		board_set_reg(b, XB_REG_XPSR, 1u << 24);
		board_free(b);
		b = sim_board(NULL);
	}
	board_free(b);
}

/* A vector table in SRAM at 0x20002000 whose handlers (HardFault, SVC, IRQ0) each log their
 * exception number into r7 and return: "mrs r7, ipsr; bx lr". */
static void vector_table(xb_board *b)
{
	uint32_t table[17] = {STACK, CODE | 1};
	table[3] = (CODE + 0x100) | 1;
	table[11] = (CODE + 0x100) | 1;
	table[16] = (CODE + 0x100) | 1;
	static const uint16_t handler[] = {0xF3EF, 0x8705, 0x4770};
	xb_err err;
	assert_int_equal(board_load(b, 0x20002000u, table, sizeof table, &err), 0);
	assert_int_equal(board_load(b, CODE + 0x100, handler, sizeof handler, &err), 0);
	assert_int_equal(board_debug_write(b, 0xE000ED08u, 4, 0x20002000u), 0);
}

static void pend_irq0(xb_board *b, void *ctx)
{
	(void)ctx;
	board_irq_pend(b, 0);
}

static void test_primask_wfi_and_escalation(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	vector_table(b);
	assert_int_equal(board_debug_write(b, 0xE000E100u, 4, 1), 0); /* enable IRQ0 */
	/* cpsid i; wfi; movs r6, #1; cpsie i; movs r5, #2; bkpt */
	static const uint16_t code[] = {0xB672, 0xBF30, 0x2601, 0xB662, 0x2502, BKPT};
	load(b, code, 6);
	board_set_reg(b, 7, 0);
	board_schedule(b, board_cycles(b) + 1000, pend_irq0, NULL);
	assert_int_equal(board_run(b, 500), XB_RUN_BUDGET);
	assert_true(board_sleeping(b));
	/* PRIMASK set: the pending IRQ wakes WFI but is taken only after CPSIE. */
	assert_int_equal(board_run(b, 2000), XB_RUN_HALTED);
	assert_int_equal(board_reg(b, 6), 1);
	assert_int_equal(board_reg(b, 5), 2);
	assert_int_equal(board_reg(b, 7), 16);
	board_free(b);

	/* SVC with PRIMASK set cannot be taken: it escalates to HardFault. */
	b = sim_board(NULL);
	vector_table(b);
	static const uint16_t svc[] = {0xB672, 0xDF00, BKPT};
	load(b, svc, 3);
	assert_int_equal(board_run(b, 1000), XB_RUN_HALTED);
	assert_int_equal(board_reg(b, 7), 3);
	xb_fault f;
	assert_int_equal(board_faults(b, &f), 1);
	assert_int_equal(f.kind, XB_FAULT_SVC);
	board_free(b);
}

static void test_vector_catch_and_sleep_on_exit(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	vector_table(b);
	/* VC_HARDERR: halt on HardFault entry, at the handler's first instruction. */
	board_debug_write(b, 0xE000EDFCu, 4, 1u << 10);
	static const uint16_t udf[] = {0xDE00};
	load(b, udf, 1);
	assert_int_equal(board_run(b, 1000), XB_RUN_HALTED);
	assert_int_equal(board_reg(b, XB_REG_PC), CODE + 0x100);
	assert_int_equal(board_reg(b, XB_REG_XPSR) & 0x3F, 3);
	uint32_t dfsr;
	board_debug_read(b, 0xE000ED30u, 4, &dfsr);
	assert_true(dfsr & 8); /* VCATCH */
	/* VC_CORERESET: halt before the first instruction after a reset. */
	board_debug_write(b, 0xE000EDFCu, 4, 1);
	uint32_t table[2] = {STACK, CODE | 1};
	xb_err err;
	board_load(b, 0x20003000u, table, sizeof table, &err);
	board_set_reset_vtor(b, 0x20003000u);
	board_reset(b);
	assert_true(board_halted(b));
	assert_int_equal(board_reg(b, XB_REG_PC), CODE);
	board_free(b);

	/* SLEEPONEXIT: after the IRQ handler returns to thread mode the core sleeps again. */
	b = sim_board(NULL);
	vector_table(b);
	board_debug_write(b, 0xE000E100u, 4, 1);
	board_debug_write(b, 0xE000ED10u, 4, 2);
	static const uint16_t idle[] = {0xBF30, 0x2401, BKPT}; /* wfi; movs r4, #1; bkpt */
	load(b, idle, 3);
	board_set_reg(b, 4, 0);
	board_schedule(b, board_cycles(b) + 100, pend_irq0, NULL);
	assert_int_equal(board_run(b, 1000), XB_RUN_BUDGET);
	assert_int_equal(board_reg(b, 7), 16); /* the handler ran */
	assert_true(board_sleeping(b));        /* and the core went back to sleep */
	assert_int_equal(board_reg(b, 4), 0);
	board_free(b);
}

static void test_sram_alias_and_peek(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	uint32_t w = 0x11223344, v;
	xb_err err;
	assert_int_equal(board_load(b, 0x20000004u, &w, 4, &err), 0);
	/* Striped word 1 is bank 1, word 0: 0x21010000 in the unstriped alias. */
	assert_int_equal(board_debug_read(b, 0x21010000u, 4, &v), 0);
	assert_int_equal(v, w);
	assert_int_equal(board_peek(b, 0x21010000u, &v, 4, &err), 0);
	assert_int_equal(v, w);
	/* board_load names the first address it cannot place. */
	assert_int_equal(board_load(b, 0x30000000u, &w, 4, &err), -1);
	assert_non_null(strstr(err.msg, "0x30000000"));
	uint32_t fsize;
	assert_non_null(board_flash(b, &fsize));
	assert_int_equal(fsize, 2u << 20);
	board_free(b);
}

/* A board from the second geometry (targets/demo-32k-4way.target: flash at 0x60000000,
 * a 32 KB four-way cache, no XIP_CTRL): code runs from flash and the cache counts. */
static void test_other_target(void **state)
{
	(void)state;
	xb_target t;
	xb_err err;
	assert_int_equal(target_load_file(&t, "targets/demo-32k-4way.target", &err), 0);
	xb_board *b = board_new(&t, &err);
	assert_non_null(b);
	board_set_log(b, NULL, NULL);
	uint32_t vt[2] = {0x20010000u, 0x60000201u};
	static const uint16_t code[] = {0x2005, 0x3801, 0xD1FD, BKPT}; /* r0 = 5; loop */
	assert_int_equal(board_load(b, 0x60000100u, vt, sizeof vt, &err), 0);
	assert_int_equal(board_load(b, 0x60000200u, code, sizeof code, &err), 0);
	board_reset(b);
	board_debug_write(b, SIM_DHCSR, 4, 0xA05F0001u);
	assert_int_equal(board_run(b, 10000), XB_RUN_HALTED);
	assert_int_equal(board_reg(b, 0), 0);
	xb_board_counters k;
	board_counters(b, &k);
	assert_true(k.xip_accesses >= 6 && k.xip_hits >= 4);
	uint32_t v;
	assert_int_equal(board_debug_read(b, 0x21000000u, 4, &v), 0); /* no RP2040 alias */
	board_free(b);
}

/* Random code and vectors, with interrupts thrown in: faults and lockups, never a crash. */
static void test_random_code_never_crashes(void **state)
{
	(void)state;
	uint64_t x = 88172645463325252ull;
	for (int it = 0; it < 40; it++) {
		xb_board *b = sim_board(NULL);
		board_set_strict(b, it & 1);
		uint16_t code[2048];
		uint32_t vt[48];
		for (int i = 0; i < 2048; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			code[i] = (uint16_t)x;
		}
		vt[0] = 0x20040000u;
		for (int i = 1; i < 48; i++)
			vt[i] = (0x20000000u + ((uint32_t)(x >> (i % 32)) & 0xFFE)) | 1;
		xb_err err;
		assert_int_equal(board_load(b, CODE, code, sizeof code, &err), 0);
		assert_int_equal(board_load(b, 0x10000000u, code, sizeof code, &err), 0);
		assert_int_equal(board_load(b, 0x10000100u, vt, sizeof vt, &err), 0);
		board_reset(b);
		for (unsigned r = 0; r < 13; r++)
			board_set_reg(b, r, 0x20000000u + (uint32_t)((x >> r) & 0x3FFFF));
		for (int k = 0; k < 4; k++) {
			enum xb_run_result rr = board_run(b, 5000);
			if (rr == XB_RUN_LOCKUP)
				break;
			board_irq_pend(b, (unsigned)k * 7 % 32);
		}
		board_free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycle_counts),
		cmocka_unit_test(test_exception_entry_cycles),
		cmocka_unit_test(test_bus_aliases_and_narrow_writes),
		cmocka_unit_test(test_unmapped_reports),
		cmocka_unit_test(test_ppb_visibility),
		cmocka_unit_test(test_halt_step_registers),
		cmocka_unit_test(test_breakpoints),
		cmocka_unit_test(test_scheduler),
		cmocka_unit_test(test_wfe_sev_and_stop),
		cmocka_unit_test(test_systick_registers),
		cmocka_unit_test(test_sysresetreq_and_vtor),
		cmocka_unit_test(test_unpredictable_choices),
		cmocka_unit_test(test_sram_alias_and_peek),
		cmocka_unit_test(test_primask_wfi_and_escalation),
		cmocka_unit_test(test_vector_catch_and_sleep_on_exit),
		cmocka_unit_test(test_other_target),
		cmocka_unit_test(test_random_code_never_crashes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
