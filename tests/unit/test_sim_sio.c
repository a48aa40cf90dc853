/* test_sim_sio: the SIO's divider, interpolators and inter-core FIFOs and spinlocks, and core
 * 1, with programs built at test time (tests/data/pico/sio_*.c) checked against the RP2040
 * datasheet: the divider's results against C division and its 8-cycle latency, DIRTY and the
 * save/restore sequence under interrupts (2.3.1.5); the interpolator examples of 2.3.1.6;
 * core 1 launched through the bootrom's FIFO handshake (2.8.2), FIFO traffic both ways in
 * SIO_IRQ_PROCn handlers, a contended spinlock, private SysTick and interpolators, WFE/SEV;
 * core 1's registers and DWT PCSR through the board's per-core debug interface; determinism
 * of two-core runs; SIO behaviour at register level from either core. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_pico_common.h"

#define BUDGET 400000000u

typedef struct run {
	xb_pico *p;
	xb_pico_summary s;
	const char *out;
} run;

/* Loads tests/data/pico/NAME.elf and runs it until core 0 halts (rt_exit's BKPT). */
static run run_program(const char *name)
{
	run r = {tp_pico(NULL, 0), {0}, NULL};
	char *path = tp_program_path(name, "elf");
	xb_err err;
	if (pico_load_file(r.p, path, XB_IMAGE_ELF, 0, NULL, &err))
		fail_msg("%s", err.msg);
	free(path);
	enum xb_pico_stop stop = pico_run(r.p, BUDGET);
	pico_summary(r.p, &r.s);
	r.out = pico_uart_output(r.p, NULL);
	if (stop != XB_PICO_HALTED)
		fail_msg("%s ended %s at 0x%08x; output: %s", name, pico_stop_name(stop), r.s.pc,
			 r.out ? r.out : "(none)");
	return r;
}

/* The number after `key` in out. */
static unsigned long number_after(const char *out, const char *key)
{
	const char *p = out ? strstr(out, key) : NULL;
	if (!p)
		fail_msg("no \"%s\" in the output:\n%s", key, out ? out : "(none)");
	return strtoul(p + strlen(key), NULL, 10);
}

/* ---- Divider (datasheet 2.3.1.5) ---- */

static void test_divider_program(void **state)
{
	(void)state;
	run r = run_program("sio_div");
	/* 4000 operand pairs, both signednesses, against libgcc's division. */
	tp_expect_line(r.out, "div bad 0\n");
	assert_true(number_after(r.out, "div zero divisors ") > 100);
	tp_expect_line(r.out, "div min/-1 80000000 00000000\n");
	tp_expect_line(r.out, "div -7/0 00000001 fffffff9\n");
	/* READY: reads in the 8 cycles after the divisor write see 0, the 9th cycle 1. */
	tp_expect_line(r.out, "csr 0 0 0 0 0 0 0 0 1 1\n");
	/* QUOTIENT read one cycle early still holds the previous result (100); on time the
	 * new one (77 / 7); the early read cleared DIRTY. */
	tp_expect_line(r.out, "quotient early 100 on time 11 csr 1\n");
	/* CSR: busy+dirty, ready+dirty, still dirty after REMAINDER, clean after QUOTIENT,
	 * ready+dirty after a result write. */
	tp_expect_line(r.out, "dirty 2 3 3 1 3\n");
	/* A QUOTIENT write cancels the calculation the operand writes started. */
	tp_expect_line(r.out, "cancel 42 5\n");
	/* Divides in SysTick handlers interrupting divides in main: the save/restore
	 * sequence keeps both right, and it did run. */
	tp_expect_line(r.out, "irq main bad 0\n");
	tp_expect_line(r.out, "irq handler bad 0\n");
	assert_true(number_after(r.out, "irq count ") > 1000);
	assert_true(number_after(r.out, "irq saves ") > 10);
	pico_free(r.p);
}

/* Register-level timing from the host side: an operand write at cycle T makes READY 0
 * until T + 9 (8 cycles of calculation, readable on the 9th); debug reads of QUOTIENT
 * leave DIRTY set. */
static void test_divider_registers(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_idle(p);
	xb_board *b = pico_board(p);
	tp_write(p, 0xD0000060u, 100);
	tp_write(p, 0xD0000064u, 7); /* at board_cycles() = T: ready from T + 9 */
	assert_int_equal(tp_read(p, 0xD0000078u), 2); /* busy, dirty */
	board_run(b, 8);
	assert_int_equal(tp_read(p, 0xD0000078u), 2); /* T + 8: still busy */
	board_run(b, 1);
	assert_int_equal(tp_read(p, 0xD0000078u), 3); /* T + 9: ready */
	uint32_t q = 0;
	board_debug_read(b, 0xD0000070u, 4, &q);
	assert_int_equal(q, 14);
	assert_int_equal(tp_read(p, 0xD0000078u), 3); /* a debug read keeps DIRTY */
	assert_int_equal(tp_read(p, 0xD0000074u), 2);
	assert_int_equal(tp_read(p, 0xD0000070u), 14);
	assert_int_equal(tp_read(p, 0xD0000078u), 1);
	/* Signed through the S aliases; reading back the operands. */
	tp_write(p, 0xD0000068u, (uint32_t)-100);
	tp_write(p, 0xD000006Cu, 7);
	board_run(b, 9);
	assert_int_equal(tp_read(p, 0xD0000070u), (uint32_t)-14);
	assert_int_equal(tp_read(p, 0xD0000074u), (uint32_t)-2);
	assert_int_equal(tp_read(p, 0xD0000060u), (uint32_t)-100);
	assert_int_equal(tp_read(p, 0xD000006Cu), 7);
	pico_free(p);
}

/* ---- Interpolators (datasheet 2.3.1.6) ---- */

static void test_interpolator_program(void **state)
{
	(void)state;
	run r = run_program("sio_interp");
	/* 2.3.1.6.1: moving mask over 0x1234abcd, with sign extension; the worked example. */
	tp_expect_line(r.out, "mask 0000000d 000000c0 00000b00 0000a000 00040000 00300000 02000000 "
			   "10000000\n");
	tp_expect_line(r.out, "masksx fffffffd ffffffc0 fffffb00 ffffa000 00040000 00300000 "
			   "02000000 10000000\n");
	tp_expect_line(r.out, "deadbeef ffffffb0\n");
	/* Lane result crossover: PEEK0, POP1 pairs. */
	tp_expect_line(r.out, "cross 124,456 457,124 125,457 458,125 126,458 459,126 127,459 "
			   "460,127 128,460 461,128\n");
	/* 2.3.1.6.2: simple blends (the 255/256 gives 998, not 1000). */
	tp_expect_line(r.out, "blend1 500 582 666 748 832 914 998\n");
	tp_expect_line(r.out, "blend2s -1000 -672 -336 -8 328 656 992\n");
	tp_expect_line(r.out, "blend2u fffffc18 d5fffd60 aafffeb0 80fffff8 56000148 2c000290 "
			   "010003e0\n");
	/* Blend mode: PEEK0 = alpha (0x1C2 & 0xFF), FULL = BASE2 + lane 0 only. */
	tp_expect_line(r.out, "blendlanes 000000c2 1048\n");
	/* Linear interpolation of 16-bit samples (the datasheet's audio upscaling example). */
	tp_expect_line(r.out, "lerp 0@0 2@64 5@128 7@192 10@0 2@64 -5@128 -13@192 -20@0 -265@64 "
			   "-510@128 -755@192 -1000@0 -625@64 -250@128 125@192\n");
	/* 2.3.1.6.3: clamp of (i >> 2) signed to [0, 255] for i = -1024 .. 1024 step 256. */
	char line[160] = "clamp";
	for (int i = -1024; i <= 1024; i += 256) {
		int v = i / 4 < 0 ? 0 : i / 4 > 255 ? 255 : i / 4;
		snprintf(line + strlen(line), sizeof line - strlen(line), " %d", v);
	}
	strcat(line, "\n");
	tp_expect_line(r.out, line);
	tp_expect_line(r.out, "clampu 00000064 00000064 00003039 80000000 80000000\n");
	/* FORCE_MSB: bits 29:28 on the bus, not in the accumulator POP writes. */
	tp_expect_line(r.out, "forcemsb 20000104 20000104 00000104\n");
	/* ADD_RAW lane 1: BASE1 + ACCUM1; FULL = BASE2 + both shift-and-mask values. */
	tp_expect_line(r.out, "addraw 00001002 00002456 00003007\n");
	tp_expect_line(r.out, "popfull 00003007 00001002 00002456\n");
	tp_expect_line(r.out, "base10 fffffffe 00008001 fffffffe ffff8001\n");
	/* ACCUM0_ADD: 10 + 5 + 32; reads (47 >> 1) & 0xFF; PEEK0 adds BASE0. */
	tp_expect_line(r.out, "accumadd 47 23 1023\n");
	/* OVERF0 | OVERF with MASK 7:0 and ACCUM0 = 0x100; then OVERF1 | OVERF. */
	tp_expect_line(r.out, "overf 02801c00 03001c00 00003c00\n");
	tp_expect_line(r.out, "modes 00200000 00400000\n");
	pico_free(r.p);
}

/* ---- Core 1 ---- */

static void test_multicore_program(void **state)
{
	(void)state;
	run r = run_program("sio_multicore");
	xb_board *b = pico_board(r.p);
	tp_expect_line(r.out, "core0 cpuid 0\n");
	/* The handshake took the SDK's six words (0, 0, 1, VTOR, SP, entry). */
	tp_expect_line(r.out, "launch words 6 core1 cpuid 1\n");
	tp_expect_line(r.out, "fifo received 2000 bad 0\n");
	tp_expect_line(r.out, "spinlock counter 6000 waits 1 1 free 00000000\n");
	tp_expect_line(r.out, "systick core1 1 core0 csr 0 interp c0de0001 00000000\n");
	tp_expect_line(r.out, "core1 spinning at ");
	assert_true(board_core1_running(b));
	xb_board_counters k;
	board_counters(b, &k);
	assert_true(k.core1_instructions > 10000);
	assert_true(k.core1_sleep_cycles > 0); /* WFE in the bootrom and in core1_main */

	/* Core 1 keeps running while core 0 is halted: its PC is in core1_spin (a loop of
	 * five instructions), which the sampler reads through core 1's own DWT PCSR. */
	const char *at = strstr(r.out, "core1 spinning at ");
	assert_non_null(at);
	uint32_t spin = (uint32_t)strtoul(at + strlen("core1 spinning at "), NULL, 16);
	assert_true(spin >= 0x20000000u && spin < 0x20042000u); /* from SRAM */
	for (unsigned i = 0; i < 20; i++) {
		board_run(b, 7);
		assert_true(board_halted(b));
		assert_false(board_core_halted(b, 1));
		uint32_t pc = board_core_pcsr(b, 1);
		assert_true(pc >= spin && pc < spin + 12);
	}
	assert_int_equal(board_core_pcsr(b, 0), 0xFFFFFFFFu); /* core 0 halted */
	uint32_t v = 0;
	assert_int_equal(board_core_debug_write(b, 1, 0xE000EDFCu, 4, 1u << 24), 0); /* DWTENA */
	assert_int_equal(board_core_debug_read(b, 1, 0xE000101Cu, 4, &v), 0);
	assert_int_equal(v, board_core_pcsr(b, 1));
	assert_int_equal(board_core_debug_read(b, 0, 0xE000101Cu, 4, &v), 0);
	assert_int_equal(v, 0); /* core 0's DWTENA is clear */
	/* CPUID through each core's debug port. */
	assert_int_equal(board_core_debug_read(b, 1, 0xD0000000u, 4, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(board_core_debug_read(b, 0, 0xD0000000u, 4, &v), 0);
	assert_int_equal(v, 0);
	/* Core 1's VTOR is the table the handshake sent, core 0's its own. */
	uint32_t vt1 = 0, vt0 = 0;
	board_core_debug_read(b, 1, 0xE000ED08u, 4, &vt1);
	board_core_debug_read(b, 0, 0xE000ED08u, 4, &vt0);
	assert_true(vt1 >= 0x20000000u && vt1 != vt0 && (vt1 & 0xFF) == 0);
	/* Halting core 1 through its DHCSR. */
	assert_int_equal(board_core_debug_write(b, 1, 0xE000EDF0u, 4, 0xA05F0003u), 0);
	assert_true(board_core_halted(b, 1));
	assert_int_equal(board_core_pcsr(b, 1), 0xFFFFFFFFu);
	pico_free(r.p);
}

static void test_multicore_deterministic(void **state)
{
	(void)state;
	run a = run_program("sio_multicore");
	run c = run_program("sio_multicore");
	assert_int_equal(a.s.cycles, c.s.cycles);
	assert_int_equal(a.s.instructions, c.s.instructions);
	assert_string_equal(a.out, c.out);
	xb_board_counters ka, kc;
	board_counters(pico_board(a.p), &ka);
	board_counters(pico_board(c.p), &kc);
	assert_int_equal(ka.core1_instructions, kc.core1_instructions);
	assert_int_equal(ka.xip_accesses, kc.xip_accesses);
	pico_free(a.p);
	pico_free(c.p);
}

/* Without any launch, core 1 sleeps in the bootrom (WFE) and costs core 0 nothing: a
 * one-core program's cycle and instruction counts are those of core 0 alone. */
static void test_core1_waits_in_bootrom(void **state)
{
	(void)state;
	run r = run_program("crc32");
	xb_board *b = pico_board(r.p);
	assert_true(board_core1_running(b));
	assert_true(board_core_sleeping(b, 1));
	uint32_t pc = board_core_pcsr(b, 1);
	assert_true(pc < 0x4000u); /* in the bootrom */
	xb_board_counters k;
	board_counters(b, &k);
	assert_true(k.core1_instructions < 100);
	assert_true(k.core1_sleep_cycles > k.cycles / 2);
	pico_free(r.p);
}

/* Core 1 locks up (a HardFault vector without its Thumb bit, taken on an undefined
 * instruction); core 0 goes on to its end, and the summary says what core 1 did. */
static void test_core1_lockup(void **state)
{
	(void)state;
	tp_log log;
	run r = {tp_pico(&log, 0), {0}, NULL};
	char *path = tp_program_path("core1_fault", "elf");
	xb_err err;
	if (pico_load_file(r.p, path, XB_IMAGE_ELF, 0, NULL, &err))
		fail_msg("%s", err.msg);
	free(path);
	assert_int_equal(pico_run(r.p, BUDGET), XB_PICO_HALTED);
	pico_summary(r.p, &r.s);
	r.out = pico_uart_output(r.p, NULL);
	tp_expect_line(r.out, "core0 goes on\nexit 0\n");
	unsigned long steps = number_after(r.out, "core1 steps ");
	assert_int_equal(steps, 1000);
	assert_int_equal(number_after(r.out, " then "), steps);
	assert_int_equal(r.s.faults, 0);
	assert_string_equal(r.s.core1_state, "lockup");
	assert_int_equal(r.s.core1_faults, 2);
	assert_true(r.s.core1_last_fault.lockup);
	assert_int_equal(r.s.core1_last_fault.pc, 0x10000200u);
	assert_int_equal(r.s.core1_last_fault.exception, 3);
	assert_true(r.s.core1_instructions > 1000);
	assert_true(log.lines >= 2); /* the HardFault, then the lockup, each naming core 1 */
	assert_non_null(strstr(log.last, "core 1: lockup: "));
	/* A one-core program leaves core 1 asleep in the bootrom, and says so. */
	run c = run_program("crc32");
	assert_string_equal(c.s.core1_state, "asleep");
	assert_int_equal(c.s.core1_faults, 0);
	pico_free(c.p);
	pico_free(r.p);
}

/* FIFO registers from both cores' point of view, through the debug ports (no CPU). */
static void test_fifo_registers(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_idle(p);
	xb_board *b = pico_board(p);
	board_core1_reset(b, 1); /* hold core 1: the test plays both sides */
	uint32_t st = 0;
	board_core_debug_read(b, 0, 0xD0000050u, 4, &st);
	assert_int_equal(st, 2); /* RDY only */
	for (uint32_t i = 0; i < 9; i++) /* the 9th word is lost: WOF */
		tp_write(p, 0xD0000054u, 100 + i);
	board_core_debug_read(b, 0, 0xD0000050u, 4, &st);
	assert_int_equal(st, 4); /* full: not RDY; WOF */
	board_core_debug_read(b, 1, 0xD0000050u, 4, &st);
	assert_int_equal(st, 3); /* core 1: VLD and RDY */
	/* SIO_IRQ_PROC0 (15) follows WOF; SIO_IRQ_PROC1 (16) follows core 1's VLD. */
	uint32_t ispr = 0;
	board_core_debug_read(b, 0, 0xE000E200u, 4, &ispr);
	assert_true(ispr & (1u << 15));
	assert_true(ispr & (1u << 16));
	uint32_t v = 0;
	board_core_debug_read(b, 1, 0xD0000058u, 4, &v); /* a debug read does not pop */
	assert_int_equal(v, 100);
	board_core_debug_read(b, 1, 0xD0000058u, 4, &v);
	assert_int_equal(v, 100);
	tp_write(p, 0xD0000050u, 0xC); /* clear WOF */
	board_core_debug_read(b, 0, 0xD0000050u, 4, &st);
	assert_int_equal(st, 0);
	board_core1_reset(b, 0);
	pico_free(p);
}

/* Spinlocks are one set for both cores. */
static void test_spinlocks_shared(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_idle(p);
	xb_board *b = pico_board(p);
	assert_int_equal(tp_read(p, 0xD0000100u + 4 * 3), 1u << 3); /* core 0 claims lock 3 */
	uint32_t v = 1;
	board_core_debug_read(b, 1, 0xD000005Cu, 4, &v);
	assert_int_equal(v, 1u << 3);
	assert_int_equal(tp_read(p, 0xD0000100u + 4 * 3), 0); /* taken */
	tp_write(p, 0xD0000100u + 4 * 3, 0);
	assert_int_equal(tp_read(p, 0xD000005Cu), 0);
	pico_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_divider_program),
		cmocka_unit_test(test_divider_registers),
		cmocka_unit_test(test_interpolator_program),
		cmocka_unit_test(test_multicore_program),
		cmocka_unit_test(test_multicore_deterministic),
		cmocka_unit_test(test_core1_waits_in_bootrom),
		cmocka_unit_test(test_core1_lockup),
		cmocka_unit_test(test_fifo_registers),
		cmocka_unit_test(test_spinlocks_shared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
