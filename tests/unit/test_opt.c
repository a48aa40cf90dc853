/* test_opt: trace replay (and its per-set and per-miss detail), Belady's OPT against known
 * and brute-force results, FA LRU, 3C. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/cache.h"
#include "../../core/opt.h"

static uint64_t test_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static void load_rp2040(xb_target *t)
{
	xb_err err = {{0}};
	if (target_load_file(t, "targets/rp2040.target", &err))
		fail_msg("%s", err.msg);
}

/* The textbook reference string with three frames: OPT 9 faults, LRU 12. */
static void test_textbook_sequence(void **state)
{
	(void)state;
	static const uint32_t seq[] = {7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1};
	size_t n = sizeof seq / sizeof seq[0];
	assert_int_equal(opt_misses(seq, n, 3, 0), 9);
	assert_int_equal(fa_lru_misses(seq, n, 3, 0), 12);
	assert_int_equal(opt_misses(seq, n, 4, 0), 8);
	assert_int_equal(opt_misses(seq, n, 6, 0), 6); /* only the first touches */
	assert_int_equal(fa_lru_misses(seq, n, 6, 0), 6);
	assert_int_equal(opt_misses(seq, n, 0, 0), n);
	assert_int_equal(fa_lru_misses(seq, n, 0, 5), n - 5);
	assert_int_equal(opt_misses(seq, 0, 3, 0), 0);
	assert_int_equal(opt_misses(seq, n, 1, n), 0); /* nothing counted */
	/* Block ids are arbitrary 32-bit values. */
	static const uint32_t big[] = {0xffffffff, 0, 0x80000000, 0xffffffff, 0, 0x80000000};
	assert_int_equal(opt_misses(big, 6, 2, 0), 4);
	assert_int_equal(fa_lru_misses(big, 6, 2, 0), 6);
}

/* Minimum counted misses over every eviction choice (demand fills), by dynamic
 * programming over (position, cache contents). Blocks are 0..5. */
static int brute_min(const uint32_t *seq, int n, int pos, unsigned mask, int cap, int from,
		     int memo[][64])
{
	if (pos == n)
		return 0;
	if (memo[pos][mask] >= 0)
		return memo[pos][mask];
	unsigned bit = 1u << seq[pos];
	int best;
	if (mask & bit) {
		best = brute_min(seq, n, pos + 1, mask, cap, from, memo);
	} else {
		int cost = pos >= from;
		if (__builtin_popcount(mask) < cap) {
			best = cost + brute_min(seq, n, pos + 1, mask | bit, cap, from, memo);
		} else {
			best = 1 << 30;
			for (unsigned v = 0; v < 6; v++) {
				if (!(mask & (1u << v)))
					continue;
				int r = cost + brute_min(seq, n, pos + 1, (mask & ~(1u << v)) | bit,
							 cap, from, memo);
				if (r < best)
					best = r;
			}
		}
	}
	memo[pos][mask] = best;
	return best;
}

static void test_opt_matches_brute_force(void **state)
{
	(void)state;
	uint64_t s = 1;
	for (int round = 0; round < 3000; round++) {
		int n = 1 + (int)(test_rand(&s) % 16);
		int nvals = 2 + (int)(test_rand(&s) % 5);
		int cap = 1 + (int)(test_rand(&s) % 4);
		int from = (int)(test_rand(&s) % 4) == 0 ? (int)(test_rand(&s) % (unsigned)n) : 0;
		uint32_t seq[16];
		for (int i = 0; i < n; i++)
			seq[i] = (uint32_t)(test_rand(&s) % (unsigned)nvals);
		int memo[17][64];
		memset(memo, 0xff, sizeof memo);
		/* Warm-up misses are free: the counted part may start from any set of at
		 * most cap blocks that the warm-up touched. */
		unsigned warm = 0;
		for (int i = 0; i < from; i++)
			warm |= 1u << seq[i];
		int want = 1 << 30;
		if (from == 0) {
			want = brute_min(seq, n, 0, 0, cap, 0, memo);
		} else {
			for (unsigned m = 0; m < 64; m++) {
				if ((m & ~warm) || __builtin_popcount(m) > cap)
					continue;
				int r = brute_min(seq, n, from, m, cap, from, memo);
				if (r < want)
					want = r;
			}
		}
		uint64_t got = opt_misses(seq, (size_t)n, (size_t)cap, (size_t)from);
		if (got != (uint64_t)want)
			fail_msg("round %d: n %d cap %d from %d: OPT %llu, brute force %d", round, n,
				 cap, from, (unsigned long long)got, want);
		assert_true(got <= fa_lru_misses(seq, (size_t)n, (size_t)cap, (size_t)from));
	}
}

static void test_opt_below_lru_on_random_traces(void **state)
{
	(void)state;
	uint64_t s = 7;
	for (int round = 0; round < 40; round++) {
		/* Flash offsets with locality: loops over a working set larger than the cache. */
		size_t n = 20000;
		uint32_t *off = malloc(n * sizeof *off), *lines = malloc(n * sizeof *lines);
		uint32_t span = 512 + (uint32_t)(test_rand(&s) % 4096), pc = 0;
		for (size_t i = 0; i < n; i++) {
			pc = test_rand(&s) % 6 ? pc + 2 : (uint32_t)(test_rand(&s) % span) * 2;
			pc %= 2 * span;
			off[i] = pc;
			lines[i] = pc / 8;
		}
		/* A small cache so that both capacity and conflicts matter. */
		uint32_t ways = 1u << (test_rand(&s) % 3);
		xb_cache_config cfg = {.size = 1024, .ways = ways, .line = 8, .fill = 8,
				       .policy = XB_POLICY_LRU};
		xb_cache *c = cache_new(&cfg, 1u << 20, NULL);
		size_t from = test_rand(&s) % 2 ? n / 3 : 0;
		for (size_t i = 0; i < n; i++) {
			if (i == from)
				cache_reset_stats(c);
			cache_fetch(c, off[i]);
		}
		uint64_t sa = cache_total_misses(c);
		uint64_t opt = opt_misses(lines, n, 128, from);
		uint64_t lru = fa_lru_misses(lines, n, 128, from);
		assert_true(opt <= lru);
		assert_true(opt <= sa);
		cache_free(c);

		/* A one-set cache of 128 ways is the fully associative LRU. */
		xb_cache_config fa = {.size = 1024, .ways = 128, .line = 8, .fill = 8,
				      .policy = XB_POLICY_LRU};
		c = cache_new(&fa, 1u << 20, NULL);
		for (size_t i = 0; i < n; i++) {
			if (i == from)
				cache_reset_stats(c);
			cache_fetch(c, off[i]);
		}
		assert_int_equal(cache_total_misses(c), lru);
		cache_free(c);
		free(off);
		free(lines);
	}
}

static void test_replay_counts_after_warmup(void **state)
{
	(void)state;
	xb_target tg;
	load_rp2040(&tg);
	xb_trace t;
	trace_init(&t);
	trace_push(&t, 0x10000000); /* warm-up */
	trace_mark_echo(&t);
	trace_push(&t, 0x10000000); /* hit */
	trace_push(&t, 0x10000002); /* hit */
	trace_push(&t, 0x20000000); /* SRAM: not a cache access */
	trace_push(&t, 0x10002000); /* miss, same set */
	trace_mark_echo(&t);
	trace_push(&t, 0x10004000); /* miss, evicts 0x10000000 */
	trace_push(&t, 0x10000000); /* miss */
	trace_push(&t, 0x13000000); /* bypass: an access that goes to flash */
	trace_push(&t, 0x11004000); /* non-allocating hit */
	xb_replay r;
	xb_err err = {{0}};
	assert_int_equal(replay_trace(&tg, &t, &r, &err), 0);
	assert_int_equal(r.fetches, 8);
	assert_int_equal(r.accesses, 7);
	assert_int_equal(r.hits, 3);
	assert_int_equal(r.misses, 4);
	assert_int_equal(r.echoes, 2);
	assert_true(r.misses_per_echo == 2.0);

	xb_miss_classes mc;
	assert_int_equal(classify_misses(&tg, &t, &mc, &err), 0);
	assert_int_equal(mc.replay.misses, 4);
	assert_int_equal(mc.compulsory, 2); /* 0x2000 and 0x4000 are new; 0x0 is not */
	assert_int_equal(mc.fa_lru_misses, 2);
	assert_int_equal(mc.opt_misses, 2);
	assert_int_equal(mc.capacity, 0);
	assert_int_equal(mc.conflict, 2);
	assert_true(mc.opt_misses_per_echo == 1.0);
	trace_free(&t);

	/* No boundary: the whole trace is one counted echo. */
	trace_push(&t, 0x10000000);
	trace_push(&t, 0x10000004);
	assert_int_equal(replay_trace(&tg, &t, &r, &err), 0);
	assert_int_equal(r.echoes, 1);
	assert_int_equal(r.misses, 1);
	assert_int_equal(r.hits, 1);
	trace_free(&t);

	/* A boundary at the very end: nothing counted. */
	trace_push(&t, 0x10000000);
	trace_mark_echo(&t);
	assert_int_equal(classify_misses(&tg, &t, &mc, &err), 0);
	assert_int_equal(mc.replay.fetches, 0);
	assert_int_equal(mc.replay.misses + mc.compulsory + mc.opt_misses, 0);
	trace_free(&t);
}

static void test_conflict_and_capacity(void **state)
{
	(void)state;
	xb_target tg;
	load_rp2040(&tg);
	xb_trace t;
	xb_miss_classes mc;
	xb_err err = {{0}};
	/* Three lines in one two-way set: every access misses, all but the first touches
	 * are conflicts, OPT misses only the first touches. */
	trace_init(&t);
	for (int pass = 0; pass < 100; pass++)
		for (uint32_t i = 0; i < 3; i++)
			trace_push(&t, 0x10000000 + i * 8192);
	assert_int_equal(classify_misses(&tg, &t, &mc, &err), 0);
	assert_int_equal(mc.replay.misses, 300);
	assert_int_equal(mc.compulsory, 3);
	assert_int_equal(mc.capacity, 0);
	assert_int_equal(mc.conflict, 297);
	assert_int_equal(mc.opt_misses, 3);
	trace_free(&t);

	/* A sequential loop over 3,000 lines (24 KB) through 2,048 lines of cache: fully
	 * associative LRU misses everything, so capacity dominates. The two-way cache does
	 * better: sets 952..1023 hold only two of the lines, which hit after the first
	 * pass (72 sets x 2 lines x 4 passes = 576), so conflict is negative. */
	for (int pass = 0; pass < 5; pass++)
		for (uint32_t a = 0; a < 3000 * 8; a += 2)
			trace_push(&t, 0x10000000 + a);
	assert_int_equal(classify_misses(&tg, &t, &mc, &err), 0);
	assert_int_equal(mc.replay.misses, 15000 - 576);
	assert_int_equal(mc.compulsory, 3000);
	assert_int_equal(mc.fa_lru_misses, 15000);
	assert_int_equal(mc.capacity, 12000);
	assert_int_equal(mc.conflict, -576);
	/* Cyclic n over C: each later pass misses n - C + ... at least n - C. */
	assert_true(mc.opt_misses >= 3000 + 4 * (3000 - 2048));
	assert_true(mc.opt_misses < 15000);
	assert_int_equal((int64_t)(mc.compulsory + mc.capacity) + mc.conflict,
			 (int64_t)mc.replay.misses);
	trace_free(&t);
}

static void test_three_c_sums(void **state)
{
	(void)state;
	xb_target tg;
	load_rp2040(&tg);
	uint64_t s = 3;
	for (int round = 0; round < 12; round++) {
		tg.cache.fill = round % 3 == 0 ? 4 : 8;
		tg.cache.policy = (enum xb_policy)(round % 3);
		xb_trace t;
		trace_init(&t);
		uint32_t pc = 0x10000100, span = 8192 + (uint32_t)(test_rand(&s) % 40000);
		for (int i = 0; i < 100000; i++) {
			uint64_t k = test_rand(&s) % 100;
			if (i % 20000 == 5000)
				trace_mark_echo(&t);
			if (k < 80)
				pc += 2;
			else if (k < 95)
				pc = 0x10000000 + (uint32_t)(test_rand(&s) % span) * 2;
			if (k == 99)
				trace_push(&t, 0x20000000 + (uint32_t)k); /* SRAM */
			else if (k == 98)
				trace_push(&t, pc + 0x02000000); /* the 0x12 alias */
			else
				trace_push(&t, pc);
		}
		xb_miss_classes mc;
		xb_err err = {{0}};
		if (classify_misses(&tg, &t, &mc, &err))
			fail_msg("%s", err.msg);
		assert_int_equal((int64_t)(mc.compulsory + mc.capacity) + mc.conflict,
				 (int64_t)mc.replay.misses);
		assert_true(mc.compulsory <= mc.opt_misses);
		assert_true(mc.opt_misses <= mc.fa_lru_misses);
		assert_true(mc.opt_misses <= mc.replay.misses);
		assert_int_equal(mc.replay.echoes, 5);
		trace_free(&t);
	}
}

static void test_replay_bad_geometry(void **state)
{
	(void)state;
	xb_target tg;
	load_rp2040(&tg);
	tg.cache.ways = 3;
	xb_trace t;
	trace_init(&t);
	trace_push(&t, 0x10000000);
	xb_replay r;
	xb_miss_classes mc;
	xb_err err = {{0}};
	assert_int_equal(replay_trace(&tg, &t, &r, &err), -1);
	assert_non_null(strstr(err.msg, "sets"));
	assert_int_equal(classify_misses(&tg, &t, &mc, &err), -1);
	trace_free(&t);
}

static void test_second_target_replay(void **state)
{
	(void)state;
	xb_target tg;
	xb_err err = {{0}};
	if (target_load_file(&tg, "targets/demo-32k-4way.target", &err))
		fail_msg("%s", err.msg);
	xb_trace t;
	trace_init(&t);
	/* Five lines in one four-way set, cyclically: all miss. */
	for (int pass = 0; pass < 10; pass++)
		for (uint32_t i = 0; i < 5; i++)
			trace_push(&t, 0x60000000 + i * 8192);
	xb_miss_classes mc;
	assert_int_equal(classify_misses(&tg, &t, &mc, &err), 0);
	assert_int_equal(mc.replay.misses, 50);
	assert_int_equal(mc.compulsory, 5);
	assert_int_equal(mc.opt_misses, 5);
	assert_int_equal(mc.conflict, 45);
	trace_free(&t);
}

typedef struct miss_log {
	uint32_t addr[16];
	size_t n;
} miss_log;

static void log_miss(void *ctx, uint32_t addr)
{
	miss_log *m = ctx;
	if (m->n < 16)
		m->addr[m->n] = addr;
	m->n++;
}

static void count_miss(void *ctx, uint32_t addr)
{
	(void)addr;
	++*(uint64_t *)ctx;
}

/* The trace of test_replay_counts_after_warmup, miss by miss. */
static void test_replay_detail_small(void **state)
{
	(void)state;
	xb_target tg;
	load_rp2040(&tg);
	xb_trace t;
	trace_init(&t);
	trace_push(&t, 0x10000000);
	trace_mark_echo(&t);
	trace_push(&t, 0x10000000);
	trace_push(&t, 0x10000002);
	trace_push(&t, 0x20000000);
	trace_push(&t, 0x10002000);
	trace_mark_echo(&t);
	trace_push(&t, 0x10004000);
	trace_push(&t, 0x10000000);
	trace_push(&t, 0x13000000);
	trace_push(&t, 0x11004000);
	trace_push(&t, 0x10000008); /* set 1 */
	uint64_t *sets = malloc(1024 * sizeof *sets);
	memset(sets, 0xff, 1024 * sizeof *sets); /* cleared by the replay */
	miss_log log = {0};
	xb_replay r, plain;
	xb_err err = {{0}};
	assert_int_equal(replay_trace_detail(&tg, &t, &r, sets, 1024, log_miss, &log, &err), 0);
	assert_int_equal(replay_trace(&tg, &t, &plain, &err), 0);
	assert_int_equal(r.misses, 5);
	assert_true(memcmp(&r, &plain, sizeof r) == 0);
	static const uint32_t want[] = {0x10002000, 0x10004000, 0x10000000, 0x13000000,
					0x10000008};
	assert_int_equal(log.n, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(log.addr[i], want[i]);
	assert_int_equal(sets[0], 4); /* the bypassing fetch counts in its offset's set */
	assert_int_equal(sets[1], 1);
	for (uint32_t k = 2; k < 1024; k++)
		assert_int_equal(sets[k], 0);
	/* either output alone; a wrong size is refused */
	log.n = 0;
	assert_int_equal(replay_trace_detail(&tg, &t, &r, NULL, 0, log_miss, &log, &err), 0);
	assert_int_equal(log.n, 5);
	assert_int_equal(replay_trace_detail(&tg, &t, &r, sets, 1024, NULL, NULL, &err), 0);
	assert_int_equal(sets[0], 4);
	assert_int_equal(replay_trace_detail(&tg, &t, &r, sets, 512, NULL, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "1024"));
	free(sets);
	trace_free(&t);
}

/* Random traces through every alias, policy and fill: the detail's counts are
 * replay_trace's, and per set they are the cache model's own per-set misses. */
static void test_replay_detail_matches(void **state)
{
	(void)state;
	xb_target tg;
	load_rp2040(&tg);
	uint32_t nsets = target_sets(&tg);
	uint64_t *sets = malloc(nsets * sizeof *sets);
	uint64_t s = 21;
	for (int round = 0; round < 12; round++) {
		tg.cache.fill = round % 3 == 0 ? 4 : 8;
		tg.cache.policy = (enum xb_policy)(round % 3);
		int bypass = round % 2; /* the per-set statistics do not see the 0x13 alias */
		xb_trace t;
		trace_init(&t);
		uint32_t pc = 0x10000100, span = 8192 + (uint32_t)(test_rand(&s) % 40000);
		for (int i = 0; i < 60000; i++) {
			uint64_t k = test_rand(&s) % 100;
			if (i % 15000 == 3000)
				trace_mark_echo(&t);
			if (k < 80)
				pc += 2;
			else if (k < 95)
				pc = 0x10000000 + (uint32_t)(test_rand(&s) % span) * 2;
			uint32_t a = pc;
			if (k == 99)
				a = 0x20000000 + (uint32_t)k;
			else if (k == 98)
				a = pc + 0x02000000;
			else if (k == 97)
				a = pc + 0x01000000;
			else if (k == 96 && bypass)
				a = pc + 0x03000000;
			trace_push(&t, a);
		}
		xb_replay r, plain;
		xb_err err = {{0}};
		uint64_t calls = 0;
		assert_int_equal(replay_trace_detail(&tg, &t, &r, sets, nsets, count_miss, &calls,
						     &err), 0);
		assert_int_equal(replay_trace(&tg, &t, &plain, &err), 0);
		assert_true(memcmp(&r, &plain, sizeof r) == 0);
		assert_true(r.misses > 1000);
		assert_int_equal(calls, r.misses);
		uint64_t sum = 0;
		for (uint32_t k = 0; k < nsets; k++)
			sum += sets[k];
		assert_int_equal(sum, r.misses);
		if (!bypass) {
			/* the same fetches straight into a cache model */
			xb_cache *c = cache_new(&tg.cache, tg.flash_size, &err);
			size_t from = trace_counted_from(&t);
			for (size_t i = 0; i < t.n; i++) {
				uint32_t off;
				enum xb_alias_mode mode;
				if (i == from)
					cache_reset_stats(c);
				if (target_decode_xip(&tg, t.addr[i], &off, &mode))
					cache_access(c, off, mode);
			}
			for (uint32_t k = 0; k < nsets; k++) {
				xb_cache_set_stats st;
				cache_set_stats(c, k, &st);
				assert_int_equal(sets[k], st.misses);
			}
			cache_free(c);
		}
		trace_free(&t);
	}
	free(sets);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_textbook_sequence),
		cmocka_unit_test(test_opt_matches_brute_force),
		cmocka_unit_test(test_opt_below_lru_on_random_traces),
		cmocka_unit_test(test_replay_counts_after_warmup),
		cmocka_unit_test(test_conflict_and_capacity),
		cmocka_unit_test(test_three_c_sums),
		cmocka_unit_test(test_replay_bad_geometry),
		cmocka_unit_test(test_second_target_replay),
		cmocka_unit_test(test_replay_detail_small),
		cmocka_unit_test(test_replay_detail_matches),
	};
	return cmocka_run_group_tests_name("opt", tests, NULL, NULL);
}
