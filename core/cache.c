/* cache: the set-associative XIP cache model (LRU, FIFO, random; whole or partial line fills). */
#include "cache.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Tags are stored way-major: way w of set s is tags[w * nsets + s], so the inline fast
 * path reads way 0 of a set as tags[s]. A tag is the line number + 1; 0 means empty.
 * Under LRU and FIFO the ways of a set are kept in replacement order, newest first, so
 * a hit on the most recent line touches nothing and a fill shifts the others down;
 * random keeps physical slots. */
struct xb_cache {
	xb_cache_fast fast; /* first: cache_fetch in cache.h reads it through a cast; holds
			     * tags, per-set accesses and the raw hit/access totals */
	xb_cache_config cfg;
	uint32_t flash_size;
	uint32_t nsets, ways, set_mask;
	unsigned line_shift, fill_shift;
	uint32_t chunk_mask; /* chunks per line - 1 */
	int partial;         /* fill < line: per-chunk valid bits in `valid` */
	uint32_t *tags;      /* == fast.tags */
	uint64_t *valid;
	uint64_t rng;
	/* The XIP counters and the reported totals are differences from a base taken when
	 * they were last cleared, so clearing costs nothing on the access path. */
	uint64_t ctr_hit_base, ctr_acc_base;
	uint64_t stats_hit_base, stats_acc_base;
	uint64_t *set_acc, *set_miss; /* set_acc == fast.set_acc */
	uint32_t *set_distinct;
	uint64_t *filled; /* bitmap over flash lines: ever filled since the last stats reset */
	size_t filled_words;
};

#define CACHE_DEFAULT_SEED 0x9E3779B97F4A7C15ull

static unsigned cache_log2(uint32_t v)
{
	unsigned s = 0;
	while ((1u << s) < v)
		s++;
	return s;
}

xb_cache *cache_new(const xb_cache_config *cfg, uint32_t flash_size, xb_err *err)
{
	if (target_cache_config_check(cfg, err))
		return NULL;
	if (flash_size == 0 || flash_size % cfg->line) {
		xb_fail(err, "flash size %u is not a positive multiple of the line size %u",
			flash_size, cfg->line);
		return NULL;
	}
	xb_cache *c = xcalloc(1, sizeof *c);
	c->cfg = *cfg;
	c->flash_size = flash_size;
	c->ways = cfg->ways;
	c->nsets = cfg->size / (cfg->ways * cfg->line);
	c->set_mask = c->nsets - 1;
	c->line_shift = cache_log2(cfg->line);
	c->fill_shift = cache_log2(cfg->fill);
	c->chunk_mask = (cfg->line / cfg->fill) - 1;
	c->partial = cfg->fill < cfg->line;
	c->rng = cfg->seed ? cfg->seed : CACHE_DEFAULT_SEED;
	size_t slots = (size_t)c->nsets * c->ways;
	c->tags = xcalloc(slots, sizeof *c->tags);
	if (c->partial)
		c->valid = xcalloc(slots, sizeof *c->valid);
	c->set_acc = xcalloc(c->nsets, sizeof *c->set_acc);
	c->set_miss = xcalloc(c->nsets, sizeof *c->set_miss);
	c->set_distinct = xcalloc(c->nsets, sizeof *c->set_distinct);
	c->filled_words = ((size_t)(flash_size >> c->line_shift) + 63) / 64;
	c->filled = xcalloc(c->filled_words, sizeof *c->filled);
	c->fast = (xb_cache_fast){.tags = c->tags, .set_acc = c->set_acc,
				  .line_shift = c->line_shift, .set_mask = c->set_mask,
				  .whole_lines = !c->partial};
	return c;
}

void cache_free(xb_cache *c)
{
	if (!c)
		return;
	free(c->tags);
	free(c->valid);
	free(c->set_acc);
	free(c->set_miss);
	free(c->set_distinct);
	free(c->filled);
	free(c);
}

static uint32_t cache_random_way(xb_cache *c)
{
	/* xorshift64: deterministic for a seed, cheap, and only drawn on an eviction. */
	uint64_t x = c->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	c->rng = x;
	return (uint32_t)(((x >> 32) * c->ways) >> 32);
}

static inline void cache_note_fill(xb_cache *c, uint32_t set, uint32_t line)
{
	c->set_miss[set]++;
	uint64_t bit = 1ull << (line & 63);
	uint64_t *w = &c->filled[line >> 6];
	if (!(*w & bit)) {
		*w |= bit;
		c->set_distinct[set]++;
	}
}

/* A set's ways: tags t[0], t[stride], ... and, with partial fills, chunk masks v[...]. */
typedef struct cache_row {
	uint32_t *t;
	uint64_t *v; /* NULL with whole-line fills */
	size_t stride;
} cache_row;

static inline cache_row cache_row_of(const xb_cache *c, uint32_t set)
{
	return (cache_row){.t = c->tags + set, .v = c->valid ? c->valid + set : NULL,
			   .stride = c->nsets};
}

/* Moves way w to the front (most recent), keeping the order of the others. Plain
 * loops: sets have a few ways. */
static inline void cache_move_front(cache_row r, uint32_t w)
{
	uint32_t tag = r.t[w * r.stride];
	for (uint32_t i = w; i > 0; i--)
		r.t[i * r.stride] = r.t[(i - 1) * r.stride];
	r.t[0] = tag;
	if (r.v) {
		uint64_t v = r.v[w * r.stride];
		for (uint32_t i = w; i > 0; i--)
			r.v[i * r.stride] = r.v[(i - 1) * r.stride];
		r.v[0] = v;
	}
}

/* Puts a new line into a set, evicting per the policy. */
static void cache_insert(xb_cache *c, cache_row r, uint32_t tag, uint64_t chunks)
{
	uint32_t ways = c->ways, w;
	if (c->cfg.policy == XB_POLICY_RANDOM) {
		for (w = 0; w < ways && r.t[w * r.stride]; w++)
			;
		if (w == ways)
			w = cache_random_way(c);
	} else {
		/* LRU and FIFO: the last way is the victim (or empty); the new line is newest. */
		w = ways - 1;
	}
	r.t[w * r.stride] = tag;
	if (r.v)
		r.v[w * r.stride] = chunks;
	if (c->cfg.policy != XB_POLICY_RANDOM)
		cache_move_front(r, w);
}

static inline uint32_t cache_find(cache_row r, uint32_t ways, uint32_t tag)
{
	for (uint32_t w = 0; w < ways; w++)
		if (r.t[w * r.stride] == tag)
			return w;
	return ways;
}

/* A look-up through a cached alias; allocate says whether a miss fills. Returns 1 on a
 * hit. */
static int cache_lookup(xb_cache *c, uint32_t offset, int allocate)
{
	assert(offset < c->flash_size);
	uint32_t line = offset >> c->line_shift;
	uint32_t set = line & c->set_mask;
	cache_row r = cache_row_of(c, set);
	uint64_t bit = 1ull << ((offset >> c->fill_shift) & c->chunk_mask);
	uint32_t tag = line + 1;
	c->fast.accesses++;
	c->set_acc[set]++;

	uint32_t w = r.t[0] == tag ? 0 : cache_find(r, c->ways, tag);
	if (w < c->ways && (!r.v || (r.v[w * r.stride] & bit))) {
		c->fast.hits++;
		if (w && c->cfg.policy == XB_POLICY_LRU)
			cache_move_front(r, w);
		return 1;
	}
	if (!allocate) {
		c->set_miss[set]++;
		return 0;
	}
	cache_note_fill(c, set, line);
	if (w < c->ways) {
		/* The line is here but this chunk is not: fill the chunk, evict nothing. */
		r.v[w * r.stride] |= bit;
		if (w && c->cfg.policy == XB_POLICY_LRU)
			cache_move_front(r, w);
	} else {
		cache_insert(c, r, tag, bit);
	}
	return 0;
}

/* The 0x12 alias: no look-up, always a fill; a line already present is refreshed in its
 * way (under LRU it also becomes the most recent) rather than duplicated. */
static void cache_fill_uncached(xb_cache *c, uint32_t offset)
{
	assert(offset < c->flash_size);
	uint32_t line = offset >> c->line_shift;
	uint32_t set = line & c->set_mask;
	cache_row r = cache_row_of(c, set);
	uint64_t bit = 1ull << ((offset >> c->fill_shift) & c->chunk_mask);
	c->fast.accesses++;
	c->set_acc[set]++;
	cache_note_fill(c, set, line);
	uint32_t w = cache_find(r, c->ways, line + 1);
	if (w < c->ways) {
		if (r.v)
			r.v[w * r.stride] |= bit;
		if (w && c->cfg.policy == XB_POLICY_LRU)
			cache_move_front(r, w);
	} else {
		cache_insert(c, r, line + 1, bit);
	}
}

/* cache_lookup(c, offset, 1) for whole-line fills, kept lean: trace replay spends its
 * time here whenever a fetch misses way 0. */
static int cache_fetch_whole(xb_cache *c, uint32_t offset)
{
	uint32_t line = offset >> c->line_shift, set = line & c->set_mask, tag = line + 1;
	uint32_t *t = c->tags + set;
	const size_t stride = c->nsets;
	const uint32_t ways = c->ways;
	c->fast.accesses++;
	c->set_acc[set]++;
	uint32_t w = 0;
	while (w < ways && t[w * stride] != tag)
		w++;
	if (w < ways) {
		c->fast.hits++;
		if (c->cfg.policy == XB_POLICY_LRU) {
			for (; w > 0; w--)
				t[w * stride] = t[(w - 1) * stride];
			t[0] = tag;
		}
		return 1;
	}
	assert(offset < c->flash_size);
	cache_note_fill(c, set, line);
	if (c->cfg.policy == XB_POLICY_RANDOM) {
		cache_insert(c, cache_row_of(c, set), tag, 1);
		return 0;
	}
	for (w = ways - 1; w > 0; w--)
		t[w * stride] = t[(w - 1) * stride];
	t[0] = tag;
	return 0;
}

int cache_fetch_lookup(xb_cache *c, uint32_t offset)
{
	return c->partial ? cache_lookup(c, offset, 1) : cache_fetch_whole(c, offset);
}

uint64_t cache_fetch_run(xb_cache *c, const uint32_t *offsets, size_t n)
{
	if (c->partial) {
		uint64_t hits = 0;
		for (size_t i = 0; i < n; i++)
			hits += (uint64_t)cache_lookup(c, offsets[i], 1);
		return hits;
	}
	/* cache_fetch with the geometry in registers. The common case, a hit on way 0,
	 * only counts its set; look-ups that go further are counted, and the fast hits
	 * are what remains of n. */
	const unsigned shift = c->line_shift;
	const uint32_t mask = c->set_mask;
	const uint32_t *way0 = c->tags;
	uint64_t *set_acc = c->set_acc;
	const uint64_t hits_before = c->fast.hits, acc_before = c->fast.accesses;
	for (size_t i = 0; i < n; i++) {
		uint32_t line = offsets[i] >> shift, set = line & mask;
		if (way0[set] == line + 1) {
			set_acc[set]++;
			continue;
		}
		cache_fetch_whole(c, offsets[i]);
	}
	uint64_t slow = c->fast.accesses - acc_before;
	uint64_t hits = (c->fast.hits - hits_before) + (n - slow);
	c->fast.hits += n - slow;
	c->fast.accesses += n - slow;
	return hits;
}

int cache_access(xb_cache *c, uint32_t offset, enum xb_alias_mode mode)
{
	switch (mode) {
	case XB_ALIAS_CACHED_ALLOC:
		return cache_fetch(c, offset);
	case XB_ALIAS_CACHED_NOALLOC:
		return cache_lookup(c, offset, 0);
	case XB_ALIAS_UNCACHED_ALLOC:
		cache_fill_uncached(c, offset);
		return 0;
	case XB_ALIAS_UNCACHED_NOALLOC:
		c->fast.accesses++;
		return 0;
	}
	assert(!"bad alias mode");
	return 0;
}

void cache_flush(xb_cache *c)
{
	size_t slots = (size_t)c->nsets * c->ways;
	memset(c->tags, 0, slots * sizeof *c->tags);
	if (c->valid)
		memset(c->valid, 0, slots * sizeof *c->valid);
}

void cache_invalidate(xb_cache *c, uint32_t offset)
{
	if (offset >= c->flash_size)
		return;
	uint32_t line = offset >> c->line_shift;
	uint32_t set = line & c->set_mask;
	cache_row r = cache_row_of(c, set);
	uint32_t w = cache_find(r, c->ways, line + 1);
	if (w == c->ways)
		return;
	if (c->cfg.policy != XB_POLICY_RANDOM) {
		/* Keep the replacement order: the empty way goes last, to be filled first. */
		for (; w + 1 < c->ways; w++) {
			r.t[w * r.stride] = r.t[(w + 1) * r.stride];
			if (r.v)
				r.v[w * r.stride] = r.v[(w + 1) * r.stride];
		}
	}
	r.t[w * r.stride] = 0;
	if (r.v)
		r.v[w * r.stride] = 0;
}

static uint64_t cache_raw_hits(const xb_cache *c)
{
	return c->fast.hits;
}

static uint64_t cache_raw_accesses(const xb_cache *c)
{
	return c->fast.accesses;
}

static uint32_t cache_saturate(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

uint32_t cache_ctr_hit(const xb_cache *c)
{
	return cache_saturate(cache_raw_hits(c) - c->ctr_hit_base);
}

uint32_t cache_ctr_acc(const xb_cache *c)
{
	return cache_saturate(cache_raw_accesses(c) - c->ctr_acc_base);
}

void cache_clear_ctr_hit(xb_cache *c)
{
	c->ctr_hit_base = cache_raw_hits(c);
}

void cache_clear_ctr_acc(xb_cache *c)
{
	c->ctr_acc_base = cache_raw_accesses(c);
}

void cache_test_set_counters(xb_cache *c, uint64_t hit, uint64_t acc)
{
	/* Unsigned wrap-around makes raw - base == value even when value > raw. */
	c->ctr_hit_base = cache_raw_hits(c) - hit;
	c->ctr_acc_base = cache_raw_accesses(c) - acc;
}

uint64_t cache_total_hits(const xb_cache *c)
{
	return cache_raw_hits(c) - c->stats_hit_base;
}

uint64_t cache_total_accesses(const xb_cache *c)
{
	return cache_raw_accesses(c) - c->stats_acc_base;
}

uint64_t cache_total_misses(const xb_cache *c)
{
	return cache_total_accesses(c) - cache_total_hits(c);
}

uint32_t cache_nsets(const xb_cache *c)
{
	return c->nsets;
}

const xb_cache_config *cache_config(const xb_cache *c)
{
	return &c->cfg;
}

void cache_set_stats(const xb_cache *c, uint32_t set, xb_cache_set_stats *out)
{
	memset(out, 0, sizeof *out);
	if (set >= c->nsets)
		return;
	out->accesses = c->set_acc[set];
	out->misses = c->set_miss[set];
	out->distinct_lines = c->set_distinct[set];
}

void cache_reset_stats(xb_cache *c)
{
	c->stats_hit_base = c->fast.hits;
	c->stats_acc_base = c->fast.accesses;
	memset(c->set_acc, 0, c->nsets * sizeof *c->set_acc);
	memset(c->set_miss, 0, c->nsets * sizeof *c->set_miss);
	memset(c->set_distinct, 0, c->nsets * sizeof *c->set_distinct);
	memset(c->filled, 0, c->filled_words * sizeof *c->filled);
}

int64_t cache_peek(const xb_cache *c, uint32_t set, uint32_t way)
{
	if (set >= c->nsets || way >= c->ways)
		return -1;
	uint32_t tag = c->tags[(size_t)way * c->nsets + set];
	return tag ? (int64_t)((uint64_t)(tag - 1) << c->line_shift) : -1;
}

uint64_t cache_peek_chunks(const xb_cache *c, uint32_t set, uint32_t way)
{
	if (set >= c->nsets || way >= c->ways)
		return 0;
	size_t i = (size_t)way * c->nsets + set;
	if (!c->tags[i])
		return 0;
	return c->valid ? c->valid[i] : 1;
}
