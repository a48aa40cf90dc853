/* test_cache: the cache model against hand-computed cases and a slow reference model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/cache.h"

#define FLASH (2u << 20)
#define WAY_BYTES 8192u /* RP2040: sets repeat every 8 KB */

static xb_cache *new_cache(uint32_t size, uint32_t ways, uint32_t line, uint32_t fill,
			   enum xb_policy policy, uint64_t seed)
{
	xb_cache_config cfg = {.size = size, .ways = ways, .line = line, .fill = fill,
			       .policy = policy, .seed = seed};
	xb_err err = {{0}};
	xb_cache *c = cache_new(&cfg, FLASH, &err);
	if (!c)
		fail_msg("cache_new: %s", err.msg);
	return c;
}

static xb_cache *rp2040(enum xb_policy policy)
{
	return new_cache(16384, 2, 8, 8, policy, 1);
}

static void test_three_lines_two_ways_always_miss(void **state)
{
	(void)state;
	xb_cache *c = rp2040(XB_POLICY_LRU);
	const uint32_t lines[3] = {0x100, 0x100 + WAY_BYTES, 0x100 + 2 * WAY_BYTES};
	for (int pass = 0; pass < 50; pass++)
		for (int i = 0; i < 3; i++) {
			assert_int_equal(cache_fetch(c, lines[i]), 0);
			assert_int_equal(cache_fetch(c, lines[i] + 2), 1); /* same line */
		}
	assert_int_equal(cache_total_misses(c), 150);
	assert_int_equal(cache_total_hits(c), 150);
	assert_int_equal(cache_ctr_acc(c), 300);
	assert_int_equal(cache_ctr_hit(c), 150);
	cache_free(c);
}

static void test_five_lines_four_ways_always_miss(void **state)
{
	(void)state;
	/* The second geometry: 32 KB, 4 ways, 32-byte lines, 256 sets. */
	xb_cache *c = new_cache(32768, 4, 32, 32, XB_POLICY_LRU, 1);
	assert_int_equal(cache_nsets(c), 256);
	for (int pass = 0; pass < 20; pass++)
		for (uint32_t i = 0; i < 5; i++)
			assert_int_equal(cache_access(c, 0x40 + i * 8192, XB_ALIAS_CACHED_ALLOC), 0);
	assert_int_equal(cache_total_misses(c), 100);
	/* Four lines fit: after warm-up every access hits. */
	cache_flush(c);
	cache_reset_stats(c);
	for (int pass = 0; pass < 20; pass++)
		for (uint32_t i = 0; i < 4; i++)
			cache_fetch(c, 0x40 + i * 8192);
	assert_int_equal(cache_total_misses(c), 4);
	cache_free(c);
}

static void test_two_lines_hit_after_warmup(void **state)
{
	(void)state;
	xb_cache *c = rp2040(XB_POLICY_LRU);
	assert_int_equal(cache_fetch(c, 0x1000), 0);
	assert_int_equal(cache_fetch(c, 0x1000 + WAY_BYTES), 0);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(cache_fetch(c, 0x1000), 1);
		assert_int_equal(cache_fetch(c, 0x1004 + WAY_BYTES), 1);
	}
	assert_int_equal(cache_ctr_acc(c), 202);
	assert_int_equal(cache_ctr_hit(c), 200);
	/* Set 0x200 holds both; way 0 is the most recent. */
	assert_int_equal(cache_peek(c, 0x200, 0), 0x1000 + WAY_BYTES);
	assert_int_equal(cache_peek(c, 0x200, 1), 0x1000);
	assert_int_equal(cache_peek(c, 0x201, 0), -1);
	assert_int_equal(cache_peek(c, 1024, 0), -1); /* out of range */
	assert_int_equal(cache_peek(c, 0, 2), -1);
	cache_free(c);
}

static void test_alias_noalloc(void **state)
{
	(void)state;
	xb_cache *c = rp2040(XB_POLICY_LRU);
	/* 0x11: a miss goes to flash and fills nothing. */
	for (int i = 0; i < 3; i++)
		assert_int_equal(cache_access(c, 0x40, XB_ALIAS_CACHED_NOALLOC), 0);
	assert_int_equal(cache_peek(c, 8, 0), -1);
	assert_int_equal(cache_ctr_acc(c), 3);
	assert_int_equal(cache_ctr_hit(c), 0);
	/* Once 0x10 filled it, 0x11 hits. */
	assert_int_equal(cache_access(c, 0x40, XB_ALIAS_CACHED_ALLOC), 0);
	assert_int_equal(cache_access(c, 0x44, XB_ALIAS_CACHED_NOALLOC), 1);
	assert_int_equal(cache_ctr_hit(c), 1);
	assert_int_equal(cache_ctr_acc(c), 5);
	/* A 0x11 hit is a use: under LRU it protects the line. */
	cache_fetch(c, 0x40 + WAY_BYTES);
	assert_int_equal(cache_access(c, 0x40, XB_ALIAS_CACHED_NOALLOC), 1);
	cache_fetch(c, 0x40 + 2 * WAY_BYTES); /* evicts 0x40 + WAY_BYTES, not 0x40 */
	assert_int_equal(cache_peek(c, 8, 0), 0x40 + 2 * WAY_BYTES);
	assert_int_equal(cache_peek(c, 8, 1), 0x40);
	xb_cache_set_stats st;
	cache_set_stats(c, 8, &st);
	assert_int_equal(st.accesses, 8);
	assert_int_equal(st.misses, 6); /* 3 non-allocating misses + 3 fills */
	assert_int_equal(st.distinct_lines, 3);
	cache_free(c);
}

static void test_alias_uncached_alloc(void **state)
{
	(void)state;
	xb_cache *c = rp2040(XB_POLICY_LRU);
	/* 0x12: never a hit, always a fill, one copy of the line. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(cache_access(c, 0x80, XB_ALIAS_UNCACHED_ALLOC), 0);
	assert_int_equal(cache_peek(c, 16, 0), 0x80);
	assert_int_equal(cache_peek(c, 16, 1), -1);
	assert_int_equal(cache_ctr_hit(c), 0);
	assert_int_equal(cache_ctr_acc(c), 4);
	assert_int_equal(cache_fetch(c, 0x84), 1); /* the normal alias now hits */
	/* Refreshing a present line makes it most recent under LRU. */
	cache_fetch(c, 0x80 + WAY_BYTES);
	assert_int_equal(cache_access(c, 0x80, XB_ALIAS_UNCACHED_ALLOC), 0);
	assert_int_equal(cache_peek(c, 16, 0), 0x80);
	assert_int_equal(cache_peek(c, 16, 1), 0x80 + WAY_BYTES);
	xb_cache_set_stats st;
	cache_set_stats(c, 16, &st);
	assert_int_equal(st.accesses, 7);
	assert_int_equal(st.misses, 6);
	assert_int_equal(st.distinct_lines, 2);
	assert_int_equal(cache_total_misses(c), 6);
	cache_free(c);
}

static void test_alias_bypass(void **state)
{
	(void)state;
	xb_cache *c = rp2040(XB_POLICY_LRU);
	cache_fetch(c, 0xc0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(cache_access(c, 0xc0 + WAY_BYTES, XB_ALIAS_UNCACHED_NOALLOC), 0);
	/* Even a line that is present is not served through 0x13. */
	assert_int_equal(cache_access(c, 0xc0, XB_ALIAS_UNCACHED_NOALLOC), 0);
	assert_int_equal(cache_peek(c, 24, 0), 0xc0);
	assert_int_equal(cache_peek(c, 24, 1), -1);
	assert_int_equal(cache_ctr_acc(c), 7);
	assert_int_equal(cache_ctr_hit(c), 0);
	assert_int_equal(cache_total_misses(c), 7);
	xb_cache_set_stats st;
	cache_set_stats(c, 24, &st);
	assert_int_equal(st.accesses, 1); /* not a cacheable look-up */
	assert_int_equal(st.misses, 1);
	cache_free(c);
}

static void test_counters_saturate_and_clear(void **state)
{
	(void)state;
	xb_cache *c = rp2040(XB_POLICY_LRU);
	cache_fetch(c, 0);
	cache_test_set_counters(c, 0xfffffffe, 0xfffffffd);
	assert_int_equal(cache_ctr_hit(c), 0xfffffffe);
	assert_int_equal(cache_ctr_acc(c), 0xfffffffd);
	cache_fetch(c, 2);
	assert_int_equal(cache_ctr_hit(c), 0xffffffff);
	assert_int_equal(cache_ctr_acc(c), 0xfffffffe);
	for (int i = 0; i < 10; i++)
		cache_fetch(c, 4);
	cache_access(c, 0x1000, XB_ALIAS_UNCACHED_NOALLOC);
	assert_int_equal(cache_ctr_hit(c), 0xffffffff); /* saturated, not wrapped */
	assert_int_equal(cache_ctr_acc(c), 0xffffffff);
	/* The exact totals are untouched by the counter registers. */
	assert_int_equal(cache_total_hits(c), 11);
	assert_int_equal(cache_total_accesses(c), 13);
	/* A write clears one counter, not the other. */
	cache_clear_ctr_hit(c);
	assert_int_equal(cache_ctr_hit(c), 0);
	assert_int_equal(cache_ctr_acc(c), 0xffffffff);
	cache_fetch(c, 6);
	assert_int_equal(cache_ctr_hit(c), 1);
	cache_clear_ctr_acc(c);
	assert_int_equal(cache_ctr_acc(c), 0);
	cache_fetch(c, 0x10);
	assert_int_equal(cache_ctr_acc(c), 1);
	assert_int_equal(cache_ctr_hit(c), 1);
	/* Far past 2^32 still reads saturated. */
	cache_test_set_counters(c, 1ull << 40, 5ull << 33);
	assert_int_equal(cache_ctr_hit(c), 0xffffffff);
	assert_int_equal(cache_ctr_acc(c), 0xffffffff);
	/* Resetting statistics leaves the counters alone. */
	cache_clear_ctr_hit(c);
	cache_fetch(c, 0x10);
	cache_reset_stats(c);
	assert_int_equal(cache_ctr_hit(c), 1);
	assert_int_equal(cache_total_hits(c), 0);
	assert_int_equal(cache_total_accesses(c), 0);
	cache_free(c);
}

static void test_half_line_fills(void **state)
{
	(void)state;
	xb_cache *c = new_cache(16384, 2, 8, 4, XB_POLICY_LRU, 1);
	assert_int_equal(cache_fetch(c, 0x200), 0);
	assert_int_equal(cache_fetch(c, 0x202), 1);
	assert_int_equal(cache_peek_chunks(c, 64, 0), 1);
	assert_int_equal(cache_fetch(c, 0x204), 0); /* the other half: a second miss */
	assert_int_equal(cache_fetch(c, 0x206), 1);
	assert_int_equal(cache_fetch(c, 0x200), 1);
	assert_int_equal(cache_total_misses(c), 2);
	/* Both halves share one way: nothing was evicted or duplicated. */
	assert_int_equal(cache_peek(c, 64, 0), 0x200);
	assert_int_equal(cache_peek(c, 64, 1), -1);
	assert_int_equal(cache_peek_chunks(c, 64, 0), 3);
	xb_cache_set_stats st;
	cache_set_stats(c, 64, &st);
	assert_int_equal(st.misses, 2);
	assert_int_equal(st.distinct_lines, 1);

	/* A tag match with the chunk missing through 0x11: a miss that fills nothing. */
	cache_fetch(c, 0x208);
	assert_int_equal(cache_access(c, 0x20c, XB_ALIAS_CACHED_NOALLOC), 0);
	assert_int_equal(cache_peek_chunks(c, 65, 0), 1);
	assert_int_equal(cache_access(c, 0x20c, XB_ALIAS_UNCACHED_ALLOC), 0);
	assert_int_equal(cache_peek_chunks(c, 65, 0), 3);
	assert_int_equal(cache_fetch(c, 0x20e), 1);

	/* Whole-line fills for comparison: one miss per line. */
	xb_cache *w = rp2040(XB_POLICY_LRU);
	cache_fetch(w, 0x200);
	assert_int_equal(cache_fetch(w, 0x204), 1);
	assert_int_equal(cache_peek_chunks(w, 64, 0), 1);
	cache_free(w);
	cache_free(c);
}

static void test_flush_and_invalidate(void **state)
{
	(void)state;
	xb_cache *c = rp2040(XB_POLICY_LRU);
	for (uint32_t a = 0; a < 16384; a += 8)
		cache_fetch(c, a);
	assert_int_equal(cache_peek(c, 5, 0), 5 * 8 + WAY_BYTES);
	assert_int_equal(cache_peek(c, 5, 1), 5 * 8);
	cache_flush(c);
	for (uint32_t s = 0; s < 1024; s++)
		for (uint32_t w = 0; w < 2; w++)
			assert_int_equal(cache_peek(c, s, w), -1);
	assert_int_equal(cache_fetch(c, 0x28), 0); /* the memo of the last fetch is gone too */
	assert_int_equal(cache_fetch(c, 0x28), 1);
	assert_int_equal(cache_total_misses(c), 2049);
	assert_int_equal(cache_ctr_acc(c), 2050);

	/* Invalidate one line: the other stays, the empty way is filled next. */
	cache_fetch(c, 0x28 + WAY_BYTES);
	cache_invalidate(c, 0x2c + WAY_BYTES);
	assert_int_equal(cache_peek(c, 5, 0), 0x28);
	assert_int_equal(cache_peek(c, 5, 1), -1);
	assert_int_equal(cache_fetch(c, 0x28 + WAY_BYTES), 0);
	assert_int_equal(cache_fetch(c, 0x28), 1);
	cache_invalidate(c, 0x28);
	assert_int_equal(cache_fetch(c, 0x28), 0);
	cache_invalidate(c, 0x5000); /* not present: nothing happens */
	cache_invalidate(c, FLASH + 8);
	cache_free(c);
}

static int run_sequence(xb_cache *c, const uint32_t *offs, int n)
{
	int misses = 0;
	for (int i = 0; i < n; i++)
		misses += !cache_fetch(c, offs[i]);
	return misses;
}

static void test_fifo_differs_from_lru(void **state)
{
	(void)state;
	/* A B A C A in one 2-way set. LRU evicts B for C and keeps A; FIFO evicts A. */
	const uint32_t a = 0x10, b = 0x10 + WAY_BYTES, cc = 0x10 + 2 * WAY_BYTES;
	const uint32_t seq[] = {a, b, a, cc, a};
	xb_cache *lru = rp2040(XB_POLICY_LRU), *fifo = rp2040(XB_POLICY_FIFO);
	assert_int_equal(run_sequence(lru, seq, 5), 3);
	assert_int_equal(run_sequence(fifo, seq, 5), 4);
	assert_int_equal(cache_peek(fifo, 2, 0), a);
	assert_int_equal(cache_peek(fifo, 2, 1), cc);
	assert_int_equal(cache_peek(lru, 2, 0), a);
	assert_int_equal(cache_peek(lru, 2, 1), cc);
	cache_free(lru);
	cache_free(fifo);
}

static uint64_t test_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static void test_random_is_deterministic(void **state)
{
	(void)state;
	uint32_t *offs = malloc(20000 * sizeof *offs);
	uint64_t r = 5;
	for (int i = 0; i < 20000; i++)
		offs[i] = (uint32_t)(test_rand(&r) % 8) * WAY_BYTES + (uint32_t)(test_rand(&r) % 64) * 8;
	xb_cache *a = rp2040(XB_POLICY_RANDOM), *b = rp2040(XB_POLICY_RANDOM);
	xb_cache *d = new_cache(16384, 2, 8, 8, XB_POLICY_RANDOM, 2);
	int differ = 0;
	for (int i = 0; i < 20000; i++) {
		int ha = cache_fetch(a, offs[i]);
		assert_int_equal(ha, cache_fetch(b, offs[i]));
		differ |= ha != cache_fetch(d, offs[i]);
	}
	assert_true(differ); /* another seed picks other victims */
	assert_int_equal(cache_total_hits(a), cache_total_hits(b));
	for (uint32_t s = 0; s < 1024; s++)
		for (uint32_t w = 0; w < 2; w++)
			assert_int_equal(cache_peek(a, s, w), cache_peek(b, s, w));
	cache_free(a);
	cache_free(b);
	cache_free(d);
	free(offs);
}

static void test_per_set_stats(void **state)
{
	(void)state;
	xb_cache *c = rp2040(XB_POLICY_LRU);
	/* Set 0: three lines cyclically, 3 passes. Set 1: one line, 4 fetches. */
	for (int pass = 0; pass < 3; pass++)
		for (uint32_t i = 0; i < 3; i++)
			cache_fetch(c, i * WAY_BYTES);
	for (int i = 0; i < 4; i++)
		cache_fetch(c, 8 + (uint32_t)(i % 4) * 2);
	xb_cache_set_stats st;
	cache_set_stats(c, 0, &st);
	assert_int_equal(st.accesses, 9);
	assert_int_equal(st.misses, 9);
	assert_int_equal(st.distinct_lines, 3);
	cache_set_stats(c, 1, &st); /* includes hits counted by the inline fast path */
	assert_int_equal(st.accesses, 4);
	assert_int_equal(st.misses, 1);
	assert_int_equal(st.distinct_lines, 1);
	cache_set_stats(c, 2, &st);
	assert_int_equal(st.accesses, 0);
	cache_set_stats(c, 5000, &st);
	assert_int_equal(st.accesses, 0);
	uint64_t sum = 0;
	for (uint32_t s = 0; s < cache_nsets(c); s++) {
		cache_set_stats(c, s, &st);
		sum += st.accesses;
	}
	assert_int_equal(sum, cache_total_accesses(c));
	/* A flush keeps statistics; distinct lines count lines, not fills. */
	cache_flush(c);
	cache_fetch(c, 8);
	cache_set_stats(c, 1, &st);
	assert_int_equal(st.misses, 2);
	assert_int_equal(st.distinct_lines, 1);
	cache_reset_stats(c);
	cache_set_stats(c, 0, &st);
	assert_int_equal(st.accesses + st.misses + st.distinct_lines, 0);
	cache_fetch(c, 8);
	cache_set_stats(c, 1, &st);
	assert_int_equal(st.accesses, 1);
	assert_int_equal(st.misses, 0);
	cache_free(c);
}

static void test_bad_geometry(void **state)
{
	(void)state;
	xb_err err = {{0}};
	xb_cache_config cfg = {.size = 16384, .ways = 3, .line = 8, .fill = 8};
	assert_null(cache_new(&cfg, FLASH, &err));
	assert_non_null(strstr(err.msg, "sets"));
	cfg.ways = 2;
	cfg.fill = 16;
	assert_null(cache_new(&cfg, FLASH, &err));
	cfg.fill = 8;
	assert_null(cache_new(&cfg, 0, &err));
	assert_null(cache_new(&cfg, 1001, &err));
	xb_cache *c = cache_new(&cfg, FLASH, NULL);
	assert_non_null(c);
	assert_int_equal(cache_config(c)->ways, 2);
	cache_free(c);
	cache_free(NULL);
}

/* A deliberately plain model: per-way stamps, no reordering, no fast path. */
typedef struct ref_way {
	uint32_t line;
	uint64_t chunks, used, born;
} ref_way;

typedef struct ref_cache {
	uint32_t nsets, ways, line, fill;
	enum xb_policy policy;
	uint64_t rng, now, hits, acc;
	ref_way *w;
	uint64_t *set_acc, *set_miss;
} ref_cache;

static void ref_init(ref_cache *r, uint32_t size, uint32_t ways, uint32_t line, uint32_t fill,
		     enum xb_policy policy, uint64_t seed)
{
	memset(r, 0, sizeof *r);
	r->nsets = size / (ways * line);
	r->ways = ways;
	r->line = line;
	r->fill = fill;
	r->policy = policy;
	r->rng = seed;
	r->w = calloc((size_t)r->nsets * ways, sizeof *r->w);
	r->set_acc = calloc(r->nsets, sizeof *r->set_acc);
	r->set_miss = calloc(r->nsets, sizeof *r->set_miss);
}

static void ref_free(ref_cache *r)
{
	free(r->w);
	free(r->set_acc);
	free(r->set_miss);
}

static ref_way *ref_victim(ref_cache *r, ref_way *row)
{
	for (uint32_t i = 0; i < r->ways; i++)
		if (!row[i].chunks)
			return &row[i];
	if (r->policy == XB_POLICY_RANDOM) {
		uint64_t x = r->rng;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r->rng = x;
		return &row[((x >> 32) * r->ways) >> 32];
	}
	ref_way *v = &row[0];
	for (uint32_t i = 1; i < r->ways; i++) {
		uint64_t a = r->policy == XB_POLICY_LRU ? row[i].used : row[i].born;
		uint64_t b = r->policy == XB_POLICY_LRU ? v->used : v->born;
		if (a < b)
			v = &row[i];
	}
	return v;
}

static int ref_access(ref_cache *r, uint32_t off, enum xb_alias_mode mode)
{
	r->acc++;
	r->now++;
	if (mode == XB_ALIAS_UNCACHED_NOALLOC)
		return 0;
	uint32_t line = off / r->line, set = line % r->nsets;
	uint64_t bit = 1ull << ((off % r->line) / r->fill);
	ref_way *row = &r->w[(size_t)set * r->ways], *found = NULL;
	r->set_acc[set]++;
	for (uint32_t i = 0; i < r->ways; i++)
		if (row[i].chunks && row[i].line == line)
			found = &row[i];
	if (mode != XB_ALIAS_UNCACHED_ALLOC && found && (found->chunks & bit)) {
		found->used = r->now;
		r->hits++;
		return 1;
	}
	r->set_miss[set]++;
	if (mode == XB_ALIAS_CACHED_NOALLOC)
		return 0;
	if (found) {
		found->chunks |= bit;
		found->used = r->now;
		return 0;
	}
	ref_way *v = ref_victim(r, row);
	*v = (ref_way){.line = line, .chunks = bit, .used = r->now, .born = r->now};
	return 0;
}

static void ref_invalidate(ref_cache *r, uint32_t off)
{
	uint32_t line = off / r->line, set = line % r->nsets;
	ref_way *row = &r->w[(size_t)set * r->ways];
	for (uint32_t i = 0; i < r->ways; i++)
		if (row[i].chunks && row[i].line == line)
			row[i].chunks = 0;
}

static void compare_with_reference(uint32_t size, uint32_t ways, uint32_t line, uint32_t fill,
				   enum xb_policy policy, uint64_t seed)
{
	xb_cache *c = new_cache(size, ways, line, fill, policy, seed);
	ref_cache r;
	ref_init(&r, size, ways, line, fill, policy, seed);
	uint64_t s = seed * 77 + ways;
	uint32_t pc = 0;
	/* Mostly sequential 2-byte fetches over a few times the cache size, with jumps, the
	 * other aliases, and the odd flush or invalidate. */
	for (int i = 0; i < 200000; i++) {
		uint64_t k = test_rand(&s) % 1000;
		if (k < 850)
			pc += 2;
		else if (k < 950)
			pc = (uint32_t)(test_rand(&s) % (size * 3)) & ~1u;
		else if (k < 960 || k >= 990)
			pc -= (uint32_t)(test_rand(&s) % 64) & ~1u;
		pc %= FLASH;
		enum xb_alias_mode mode = XB_ALIAS_CACHED_ALLOC;
		if (k >= 990)
			mode = (enum xb_alias_mode)(1 + k % 3);
		if (k == 989) {
			cache_flush(c);
			for (size_t j = 0; j < (size_t)r.nsets * r.ways; j++)
				r.w[j].chunks = 0;
		} else if (k == 988) {
			cache_invalidate(c, pc);
			ref_invalidate(&r, pc);
		}
		int want = ref_access(&r, pc, mode);
		int got;
		if (mode != XB_ALIAS_CACHED_ALLOC || i % 3 == 0)
			got = cache_access(c, pc, mode);
		else if (i % 3 == 1)
			got = cache_fetch(c, pc);
		else
			got = (int)cache_fetch_run(c, &pc, 1);
		if (got != want)
			fail_msg("access %d (offset 0x%x, mode %d): model %d, reference %d", i, pc,
				 mode, got, want);
	}
	assert_int_equal(cache_total_hits(c), r.hits);
	assert_int_equal(cache_total_accesses(c), r.acc);
	assert_int_equal(cache_ctr_hit(c), r.hits);
	assert_int_equal(cache_ctr_acc(c), r.acc);
	for (uint32_t set = 0; set < r.nsets; set++) {
		xb_cache_set_stats st;
		cache_set_stats(c, set, &st);
		assert_int_equal(st.accesses, r.set_acc[set]);
		assert_int_equal(st.misses, r.set_miss[set]);
	}
	ref_free(&r);
	cache_free(c);
}

static void test_matches_reference_model(void **state)
{
	(void)state;
	static const enum xb_policy policies[] = {XB_POLICY_LRU, XB_POLICY_FIFO, XB_POLICY_RANDOM};
	for (int p = 0; p < 3; p++) {
		compare_with_reference(16384, 2, 8, 8, policies[p], 3);
		compare_with_reference(16384, 2, 8, 4, policies[p], 4);
		compare_with_reference(32768, 4, 32, 32, policies[p], 5);
		compare_with_reference(32768, 4, 32, 8, policies[p], 6);
		compare_with_reference(1024, 1, 16, 16, policies[p], 7); /* direct mapped */
		compare_with_reference(2048, 16, 8, 2, policies[p], 8);
		compare_with_reference(4096, 64, 64, 1, policies[p], 9); /* one set, 64 chunks */
	}
}

static void test_fetch_run(void **state)
{
	(void)state;
	uint32_t offs[5000];
	uint64_t s = 11;
	uint32_t pc = 0;
	for (int i = 0; i < 5000; i++) {
		pc = test_rand(&s) % 8 ? pc + 2 : (uint32_t)(test_rand(&s) % 65536) & ~1u;
		offs[i] = pc % FLASH;
	}
	xb_cache *a = rp2040(XB_POLICY_LRU), *b = rp2040(XB_POLICY_LRU);
	uint64_t hits = 0;
	for (int i = 0; i < 5000; i++)
		hits += (uint64_t)cache_access(a, offs[i], XB_ALIAS_CACHED_ALLOC);
	assert_int_equal(cache_fetch_run(b, offs, 5000), hits);
	assert_int_equal(cache_total_hits(b), hits);
	assert_int_equal(cache_fetch_run(b, offs, 0), 0);
	cache_free(a);
	cache_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_lines_two_ways_always_miss),
		cmocka_unit_test(test_five_lines_four_ways_always_miss),
		cmocka_unit_test(test_two_lines_hit_after_warmup),
		cmocka_unit_test(test_alias_noalloc),
		cmocka_unit_test(test_alias_uncached_alloc),
		cmocka_unit_test(test_alias_bypass),
		cmocka_unit_test(test_counters_saturate_and_clear),
		cmocka_unit_test(test_half_line_fills),
		cmocka_unit_test(test_flush_and_invalidate),
		cmocka_unit_test(test_fifo_differs_from_lru),
		cmocka_unit_test(test_random_is_deterministic),
		cmocka_unit_test(test_per_set_stats),
		cmocka_unit_test(test_bad_geometry),
		cmocka_unit_test(test_matches_reference_model),
		cmocka_unit_test(test_fetch_run),
	};
	return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
