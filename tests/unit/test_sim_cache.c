/* test_sim_cache: the XIP cache as the virtual Pico's firmware sees it (tests/data/sim/
 * cachetest.c reads XIP_CTRL's counters from SRAM): three functions 8 KB apart thrash one
 * two-way set under LRU, FLUSH and writes to 0x10... invalidate, the counters clear on any
 * write and saturate, 0x13... never fills, 0x11... hits without allocating, SRAM code never
 * counts; and the board's own view (fetch trace, XIP_CTRL through the debug port,
 * cache-as-SRAM, ERR_BADWRITE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_sim_common.h"

#define XIP_CTRL 0x14000000u
#define XIP_FLUSH 0x14000004u
#define XIP_STAT 0x14000008u
#define XIP_CTR_HIT 0x1400000Cu
#define XIP_CTR_ACC 0x14000010u

static xb_board *run_mode(uint32_t mode, uint32_t n)
{
	xb_board *b = sim_board(NULL);
	uint32_t in[2] = {mode, n};
	sim_load(b, "cachetest", in, 2);
	assert_int_equal(board_run(b, 10000000), XB_RUN_HALTED);
	assert_int_equal(board_faults(b, NULL), 0);
	return b;
}

/* CTR_HIT and CTR_ACC recorded after step i. */
static void expect_step(const xb_board *b, unsigned i, uint32_t hit, uint32_t acc)
{
	uint32_t h = sim_mailbox(b, 1 + 2 * i), a = sim_mailbox(b, 2 + 2 * i);
	if (h != hit || a != acc)
		fail_msg("step %u: CTR_HIT %u CTR_ACC %u, expected %u %u", i, h, a, hit, acc);
}

static void test_three_in_one_set_thrash(void **state)
{
	(void)state;
	/* alias_a/b/c start 8 KB apart: one set, two ways, three lines. Under LRU each call
	 * evicts the line the next call needs: every fetch misses. */
	xb_board *b = run_mode(1, 50);
	expect_step(b, 0, 0, 150);
	uint32_t a = sim_symbol("cachetest", "alias_a"), c = sim_symbol("cachetest", "alias_c");
	const xb_target *t = board_target(b);
	assert_int_equal(target_set_of(t, a), target_set_of(t, c));
	board_free(b);

	/* Two of them fit the two ways: only the first calls miss. */
	b = run_mode(2, 50);
	expect_step(b, 0, 98, 100);
	board_free(b);
}

static void test_flush_invalidate_counters(void **state)
{
	(void)state;
	xb_board *b = run_mode(3, 0);
	expect_step(b, 0, 0, 1); /* first read misses */
	expect_step(b, 1, 1, 2); /* second hits */
	expect_step(b, 2, 1, 3); /* a write to 0x10... invalidated the line */
	expect_step(b, 3, 1, 4); /* FLUSH emptied the cache */
	expect_step(b, 4, 0, 4); /* any write clears CTR_HIT ... */
	expect_step(b, 5, 0, 0); /* ... and CTR_ACC */
	board_free(b);
}

static void test_uncached_alias_never_fills(void **state)
{
	(void)state;
	xb_board *b = run_mode(4, 20);
	expect_step(b, 0, 0, 20); /* counted, never a hit */
	expect_step(b, 1, 0, 21); /* so the first 0x10... call still misses */
	expect_step(b, 2, 1, 22);
	board_free(b);
}

static void test_noalloc_alias(void **state)
{
	(void)state;
	xb_board *b = run_mode(5, 0);
	expect_step(b, 0, 0, 1); /* miss, no fill */
	expect_step(b, 1, 0, 2); /* so it misses again */
	expect_step(b, 2, 0, 3); /* 0x10... fills */
	expect_step(b, 3, 1, 4); /* now 0x11... hits */
	board_free(b);
}

static void test_sram_code_not_counted(void **state)
{
	(void)state;
	xb_board *b = run_mode(6, 1000);
	expect_step(b, 0, 0, 0);
	board_free(b);
}

static void test_counters_saturate_via_debug(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	cache_test_set_counters(board_cache(b), 0x100000005ull, 0x1FFFFFFFFull);
	uint32_t v;
	assert_int_equal(board_debug_read(b, XIP_CTR_HIT, 4, &v), 0);
	assert_int_equal(v, 0xFFFFFFFFu);
	assert_int_equal(board_debug_read(b, XIP_CTR_ACC, 4, &v), 0);
	assert_int_equal(v, 0xFFFFFFFFu);
	assert_int_equal(board_debug_write(b, XIP_CTR_HIT, 4, 0), 0);
	assert_int_equal(board_debug_read(b, XIP_CTR_HIT, 4, &v), 0);
	assert_int_equal(v, 0);
	/* Debugger reads of flash through 0x10 count and fill; through 0x13 they count only. */
	assert_int_equal(board_debug_write(b, XIP_CTR_ACC, 4, 0), 0);
	assert_int_equal(board_debug_read(b, 0x13000100u, 4, &v), 0);
	assert_int_equal(board_debug_read(b, 0x10000100u, 4, &v), 0);
	assert_int_equal(board_debug_read(b, 0x10000104u, 4, &v), 0);
	assert_int_equal(board_debug_read(b, XIP_CTR_HIT, 4, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(board_debug_read(b, XIP_CTR_ACC, 4, &v), 0);
	assert_int_equal(v, 3);
	/* CTRL resets to 0x3; STAT shows FLUSH_READY and FIFO_EMPTY. */
	assert_int_equal(board_debug_read(b, XIP_CTRL, 4, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(board_debug_read(b, XIP_STAT, 4, &v), 0);
	assert_int_equal(v, 3);
	board_free(b);
}

/* Hand-encoded code in SRAM: flash reads and XIP_CTRL writes with cycle checks. */
static void load_code(xb_board *b, uint32_t addr, const uint16_t *code, size_t n)
{
	xb_err err;
	assert_int_equal(board_load(b, addr, code, 2 * n, &err), 0);
	board_set_reg(b, XB_REG_PC, addr);
	board_set_reg(b, XB_REG_XPSR, 1u << 24);
	board_set_reg(b, XB_REG_SP, 0x20040000u);
}

static void test_flush_stall_and_ready(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	/* r0 = XIP_CTRL base, r1 = 1: str r1, [r0, #4] (FLUSH); ldr r2, [r0, #8] (STAT);
	 * ldr r3, [r0, #4] (stalls until the flush ends); ldr r4, [r0, #8]; bkpt */
	static const uint16_t code[] = {0x6041, 0x6882, 0x6843, 0x6884, 0xBE00};
	load_code(b, 0x20000000u, code, 5);
	board_set_reg(b, 0, XIP_CTRL);
	board_set_reg(b, 1, 1);
	board_debug_write(b, SIM_DHCSR, 4, 0xA05F0001u);
	uint64_t t0 = board_cycles(b);
	assert_int_equal(board_run(b, 100000), XB_RUN_HALTED);
	uint64_t dt = board_cycles(b) - t0;
	assert_int_equal(board_reg(b, 2) & 1, 0); /* flush in progress */
	assert_int_equal(board_reg(b, 4) & 1, 1); /* done after the FLUSH read */
	const xb_target *t = board_target(b);
	assert_true(dt >= t->flush_cycles && dt < t->flush_cycles + 20);
	board_free(b);
}

static void test_miss_penalty_and_trace(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	/* In SRAM: ldr r1, [r0] (flash, miss); ldr r2, [r0] (hit); ldr r3, [r0, #8] (the next
	 * line: miss); bkpt. */
	static const uint16_t code[] = {0x6801, 0x6802, 0x6883, 0xBE00};
	load_code(b, 0x20000000u, code, 4);
	board_set_reg(b, 0, 0x10000200u);
	board_debug_write(b, SIM_DHCSR, 4, 0xA05F0001u);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	xb_trace_stream ts;
	assert_int_equal(trace_stream_open(&ts, f), 0);
	board_set_trace(b, &ts);
	uint64_t t0 = board_cycles(b);
	assert_int_equal(board_run(b, 100000), XB_RUN_HALTED);
	uint64_t dt = board_cycles(b) - t0;
	const xb_target *t = board_target(b);
	assert_int_equal(dt, 3 * 2 + 2 * t->miss_penalty);
	board_set_trace(b, NULL);
	assert_int_equal(trace_stream_close(&ts), 0);
	fclose(f);
	xb_trace tr;
	xb_err err;
	assert_int_equal(trace_parse(&tr, (const uint8_t *)buf, len, "mem", &err), 0);
	/* Code words of SRAM (two of them, the first holding two loads), with each flash
	 * read in between. */
	static const uint32_t want[] = {0x20000000u, 0x10000200u, 0x10000200u, 0x20000004u,
					0x10000208u};
	assert_int_equal(tr.n, 5);
	for (size_t i = 0; i < tr.n; i++)
		assert_int_equal(tr.addr[i], want[i]);
	trace_free(&tr);
	free(buf);
	board_free(b);
}

static void test_cache_off_sram_window_and_badwrite(void **state)
{
	(void)state;
	sim_log log;
	xb_board *b = sim_board(&log);
	uint32_t v;
	/* With the cache on, the cache-as-SRAM window answers with bus errors. */
	assert_int_equal(board_debug_write(b, 0x15000000u, 4, 0x1234), -1);
	/* Off: it is RAM, and flash reads go around the cache (counted, never hits). */
	assert_int_equal(board_debug_write(b, XIP_CTRL, 4, 0x2), 0);
	assert_int_equal(board_debug_write(b, 0x15000010u, 4, 0xCAFEF00Du), 0);
	assert_int_equal(board_debug_read(b, 0x15000010u, 4, &v), 0);
	assert_int_equal(v, 0xCAFEF00Du);
	board_debug_write(b, XIP_CTR_HIT, 4, 0);
	board_debug_write(b, XIP_CTR_ACC, 4, 0);
	board_debug_read(b, 0x10000100u, 4, &v);
	board_debug_read(b, 0x10000100u, 4, &v);
	board_debug_read(b, XIP_CTR_HIT, 4, &v);
	assert_int_equal(v, 0);
	board_debug_read(b, XIP_CTR_ACC, 4, &v);
	assert_int_equal(v, 2);
	/* POWER_DOWN forces EN off and takes the window away. */
	assert_int_equal(board_debug_write(b, XIP_CTRL, 4, 0x9), 0);
	board_debug_read(b, XIP_CTRL, 4, &v);
	assert_int_equal(v, 0x8);
	assert_int_equal(board_debug_read(b, 0x15000010u, 4, &v), -1);
	/* Writes to 0x11... fault while ERR_BADWRITE is set, are ignored when it is clear;
	 * writes to 0x10... never fault (they invalidate). */
	assert_int_equal(board_debug_write(b, XIP_CTRL, 4, 0x3), 0);
	assert_int_equal(board_debug_write(b, 0x11000100u, 4, 0), -1);
	assert_int_equal(board_debug_write(b, 0x10000100u, 4, 0), 0);
	assert_int_equal(board_debug_write(b, XIP_CTRL, 4, 0x1), 0);
	assert_int_equal(board_debug_write(b, 0x11000100u, 4, 0), 0);
	/* Flash itself never changes through a write. */
	assert_int_equal(board_debug_read(b, 0x13000100u, 4, &v), 0);
	assert_int_equal(v, 0xFFFFFFFFu);
	board_free(b);
}

static void test_cache_off_code_runs_uncached(void **state)
{
	(void)state;
	/* The CRC program with the cache disabled from the start: same result, every flash
	 * fetch counted and none a hit, and far more cycles. */
	xb_board *on = sim_board(NULL), *off = sim_board(NULL);
	uint32_t rounds = 1;
	sim_load(on, "crc32", &rounds, 1);
	sim_load(off, "crc32", &rounds, 1);
	board_debug_write(off, XIP_CTRL, 4, 0x2);
	assert_int_equal(board_run(on, 100000000), XB_RUN_HALTED);
	assert_int_equal(board_run(off, 1000000000), XB_RUN_HALTED);
	assert_int_equal(sim_mailbox(on, 0), sim_mailbox(off, 0));
	xb_board_counters kon, koff;
	board_counters(on, &kon);
	board_counters(off, &koff);
	assert_int_equal(koff.xip_hits, 0);
	assert_true(koff.xip_accesses > 0);
	assert_int_equal(kon.instructions, koff.instructions);
	assert_true(koff.cycles > 10 * kon.cycles);
	board_free(on);
	board_free(off);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_in_one_set_thrash),
		cmocka_unit_test(test_flush_invalidate_counters),
		cmocka_unit_test(test_uncached_alias_never_fills),
		cmocka_unit_test(test_noalloc_alias),
		cmocka_unit_test(test_sram_code_not_counted),
		cmocka_unit_test(test_counters_saturate_via_debug),
		cmocka_unit_test(test_flush_stall_and_ready),
		cmocka_unit_test(test_miss_penalty_and_trace),
		cmocka_unit_test(test_cache_off_sram_window_and_badwrite),
		cmocka_unit_test(test_cache_off_code_runs_uncached),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
