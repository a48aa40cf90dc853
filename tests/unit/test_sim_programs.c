/* test_sim_programs: real programs built with arm-none-eabi-gcc (tests/data/sim) run to
 * completion on the virtual Pico with the expected results: CRC-32, sorting, 64-bit
 * arithmetic through libgcc, SysTick with WFI, a PendSV context switch; and two runs of the
 * same image give identical cycles and counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_sim_common.h"

static enum xb_run_result run(xb_board *b, uint64_t max)
{
	enum xb_run_result r = board_run(b, max);
	if (r != XB_RUN_HALTED) {
		xb_fault f;
		board_faults(b, &f);
		xb_strbuf sb = {0};
		board_format_fault(&f, &sb);
		fail_msg("run ended %s at pc 0x%08x (faults: %s)", board_run_result_name(r),
			 board_reg(b, XB_REG_PC), sb.len ? sb.buf : "none");
	}
	return r;
}

/* Reference CRC-32 of the buffer crc32.c builds. */
static uint32_t reference_crc(void)
{
	static uint32_t table[256];
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
		table[i] = c;
	}
	uint32_t x = 12345, crc = 0xFFFFFFFFu;
	for (int i = 0; i < 4096; i++) {
		x = x * 1103515245u + 12345u;
		crc = (crc >> 8) ^ table[(crc ^ (x >> 16)) & 0xFF];
	}
	return ~crc;
}

static void test_crc32(void **state)
{
	(void)state;
	sim_log log;
	xb_board *b = sim_board(&log);
	uint32_t rounds = 2;
	sim_load(b, "crc32", &rounds, 1);
	run(b, 100000000);
	assert_int_equal(sim_mailbox(b, 0), reference_crc());
	/* The program ends at program_end's BKPT, with nothing unmapped touched. */
	assert_int_equal(board_reg(b, XB_REG_PC), sim_symbol("crc32", "program_end"));
	assert_int_equal(log.lines, 0);
	xb_board_counters k;
	board_counters(b, &k);
	assert_true(k.instructions > 100000);
	assert_true(k.cycles > k.instructions);
	assert_true(k.xip_accesses > 0 && k.xip_hits <= k.xip_accesses);
	board_free(b);
}

static void test_sort(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	sim_load(b, "sort", NULL, 0);
	run(b, 100000000);
	uint32_t x = 2463534242u, sum = 0, v[512];
	for (int i = 0; i < 512; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		v[i] = x;
		sum += x;
	}
	for (int i = 1; i < 512; i++) /* insertion sort on the host */
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint32_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	uint32_t weighted = 0;
	for (int i = 0; i < 512; i++)
		weighted += (uint32_t)i * v[i];
	assert_int_equal(sim_mailbox(b, 0), sum);
	assert_int_equal(sim_mailbox(b, 1), 1);
	assert_int_equal(sim_mailbox(b, 2), weighted);
	board_free(b);
}

static uint64_t mailbox64(const xb_board *b, int i)
{
	return sim_mailbox(b, 1 + 2 * (unsigned)i) |
	       ((uint64_t)sim_mailbox(b, 2 + 2 * (unsigned)i) << 32);
}

static void check_arith64(uint64_t a, uint64_t bv, unsigned k)
{
	xb_board *b = sim_board(NULL);
	uint32_t in[5] = {(uint32_t)a, (uint32_t)(a >> 32), (uint32_t)bv, (uint32_t)(bv >> 32), k};
	sim_load(b, "arith64", in, 5);
	run(b, 10000000);
	assert_int_equal(mailbox64(b, 0), a * bv);
	assert_int_equal(mailbox64(b, 1), a / bv);
	assert_int_equal(mailbox64(b, 2), a % bv);
	assert_int_equal(mailbox64(b, 3), (uint64_t)((int64_t)a / (int64_t)bv));
	assert_int_equal(mailbox64(b, 4), (uint64_t)((int64_t)a % (int64_t)bv));
	assert_int_equal(mailbox64(b, 5), a << (k & 63));
	assert_int_equal(mailbox64(b, 6), a >> (k & 63));
	assert_int_equal(mailbox64(b, 7), (uint64_t)((int64_t)a >> (k & 63)));
	assert_int_equal(mailbox64(b, 8), a + bv);
	assert_int_equal(mailbox64(b, 9), a - bv);
	board_free(b);
}

static void test_arith64(void **state)
{
	(void)state;
	check_arith64(0x123456789ABCDEF0ull, 0x0FEDCBA987ull, 13);
	check_arith64(0xFFFFFFFFFFFFFFFFull, 3, 63);
	check_arith64(0x8000000000000000ull, 0xFFFFFFFFFFFFFFFFull - 6, 1);
	check_arith64(1000000007ull * 998244353ull, 1000000007ull, 32);
	check_arith64(0xDEADBEEFull, 0x100000000ull, 0);
}

static void test_systick_wfi(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	uint32_t in[2] = {5000, 10}; /* a tick every 5000 cycles, ten of them */
	sim_load(b, "systick", in, 2);
	uint64_t start = board_cycles(b);
	run(b, 10000000);
	assert_int_equal(sim_mailbox(b, 1), 10);
	assert_int_equal(sim_mailbox(b, 2), 10); /* each WFI woke for exactly one tick */
	assert_int_equal(sim_mailbox(b, 3), 0x101); /* COUNTFLAG was set after the first tick */
	xb_board_counters k;
	board_counters(b, &k);
	uint64_t elapsed = k.cycles - start;
	/* Ten periods, plus start-up and the last handler; time passed asleep, not spinning. */
	assert_true(elapsed >= 50000 && elapsed < 52000);
	assert_true(k.sleep_cycles > 40000);
	assert_true(k.instructions < 3000);
	assert_int_equal(k.exceptions, 10);
	board_free(b);
}

static void test_pendsv_threads(void **state)
{
	(void)state;
	xb_board *b = sim_board(NULL);
	sim_load(b, "pendsv", NULL, 0);
	run(b, 10000000);
	assert_int_equal(sim_mailbox(b, 1), 10);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(sim_mailbox(b, 2 + 2 * i), 0xA0 + i);
		assert_int_equal(sim_mailbox(b, 3 + 2 * i), 0xB0 + i);
	}
	assert_int_equal(sim_mailbox(b, 40), 2); /* thread 0 came back on the process stack */
	/* main went back to MSP; PSP is where thread 0 left it, inside its own area. */
	uint32_t area = sim_symbol("pendsv", "main_psp_area");
	assert_int_equal(board_reg(b, XB_REG_SP), board_reg(b, XB_REG_MSP));
	assert_int_equal(board_reg(b, XB_REG_PSP), sim_mailbox(b, 42));
	assert_true(sim_mailbox(b, 42) > area && sim_mailbox(b, 42) <= area + 512);
	xb_board_counters k;
	board_counters(b, &k);
	assert_int_equal(k.exceptions, 13); /* one PendSV per yield, done flags included */
	board_free(b);
}

static void run_crc_counters(xb_board_counters *k, uint64_t *set_acc, uint64_t *set_miss,
			     uint32_t *pcsr)
{
	xb_board *b = sim_board(NULL);
	uint32_t rounds = 1;
	sim_load(b, "crc32", &rounds, 1);
	/* Stop half-way once to sample PCSR, then finish. */
	assert_int_equal(board_run(b, 200000), XB_RUN_BUDGET);
	*pcsr = board_pcsr(b);
	run(b, 100000000);
	board_counters(b, k);
	xb_cache *c = board_cache(b);
	for (uint32_t s = 0; s < cache_nsets(c); s++) {
		xb_cache_set_stats st;
		cache_set_stats(c, s, &st);
		set_acc[s] = st.accesses;
		set_miss[s] = st.misses;
	}
	board_free(b);
}

static void test_deterministic(void **state)
{
	(void)state;
	xb_board_counters k1, k2;
	static uint64_t acc1[1024], acc2[1024], miss1[1024], miss2[1024];
	uint32_t pc1, pc2;
	run_crc_counters(&k1, acc1, miss1, &pc1);
	run_crc_counters(&k2, acc2, miss2, &pc2);
	assert_int_equal(k1.cycles, k2.cycles);
	assert_int_equal(k1.instructions, k2.instructions);
	assert_int_equal(k1.xip_accesses, k2.xip_accesses);
	assert_int_equal(k1.xip_hits, k2.xip_hits);
	assert_int_equal(k1.xip_misses, k2.xip_misses);
	assert_int_equal(pc1, pc2);
	assert_memory_equal(acc1, acc2, sizeof acc1);
	assert_memory_equal(miss1, miss2, sizeof miss1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32),        cmocka_unit_test(test_sort),
		cmocka_unit_test(test_arith64),      cmocka_unit_test(test_systick_wfi),
		cmocka_unit_test(test_pendsv_threads), cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
