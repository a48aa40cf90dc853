/* opt: trace replay through a target's cache, Belady's OPT, fully associative LRU, 3C split. */
#include "opt.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"

/* Sentinels for next-use times and residency; traces are far shorter than 2^32 - 2. */
#define OPT_NEVER (UINT32_MAX - 1) /* not used again */
#define OPT_ABSENT UINT32_MAX     /* not in the cache */

/* Fetches through the normal alias go straight to the inline fast path; anything else
 * is decoded against the target's aliases. */
static void opt_replay_range(xb_cache *c, const xb_target *tg, const uint32_t *addr, size_t n)
{
	uint32_t base = tg->flash_base, size = tg->flash_size;
	uint32_t base_off = 1;
	enum xb_alias_mode base_mode = XB_ALIAS_UNCACHED_NOALLOC;
	int fast = target_decode_xip(tg, base, &base_off, &base_mode) && base_off == 0 &&
		   base_mode == XB_ALIAS_CACHED_ALLOC;
	for (size_t i = 0; i < n; i++) {
		uint32_t off = addr[i] - base;
		enum xb_alias_mode mode;
		if (fast && off < size)
			cache_fetch(c, off);
		else if (target_decode_xip(tg, addr[i], &off, &mode))
			cache_access(c, off, mode);
	}
}

/* The same one access at a time, for callers that want each miss: set_misses[set]++ and
 * on_miss(addr) for every counted access that went to flash. */
static void opt_replay_range_detail(xb_cache *c, const xb_target *tg, const uint32_t *addr,
				    size_t n, uint64_t *set_misses, xb_replay_miss_fn on_miss,
				    void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t off;
		enum xb_alias_mode mode;
		if (!target_decode_xip(tg, addr[i], &off, &mode) || cache_access(c, off, mode))
			continue;
		if (set_misses)
			set_misses[target_set_of(tg, off)]++;
		if (on_miss)
			on_miss(ctx, addr[i]);
	}
}

int replay_trace_detail(const xb_target *tg, const xb_trace *t, xb_replay *out,
			uint64_t *set_misses, uint32_t nsets, xb_replay_miss_fn on_miss, void *ctx,
			xb_err *err)
{
	memset(out, 0, sizeof *out);
	if (set_misses && nsets != target_sets(tg))
		return xb_fail(err, "per-set misses: %u entries given, the %s cache has %u sets",
			       nsets, tg->name, target_sets(tg));
	xb_cache *c = cache_new(&tg->cache, tg->flash_size, err);
	if (!c)
		return -1;
	if (set_misses)
		memset(set_misses, 0, nsets * sizeof *set_misses);
	size_t from = trace_counted_from(t);
	opt_replay_range(c, tg, t->addr, from);
	cache_reset_stats(c);
	if (set_misses || on_miss)
		opt_replay_range_detail(c, tg, t->addr + from, t->n - from, set_misses, on_miss,
					ctx);
	else
		opt_replay_range(c, tg, t->addr + from, t->n - from);
	out->fetches = t->n - from;
	out->accesses = cache_total_accesses(c);
	out->hits = cache_total_hits(c);
	out->misses = out->accesses - out->hits;
	out->echoes = trace_echo_count(t);
	out->misses_per_echo = (double)out->misses / (double)out->echoes;
	cache_free(c);
	return 0;
}

int replay_trace(const xb_target *tg, const xb_trace *t, xb_replay *out, xb_err *err)
{
	return replay_trace_detail(tg, t, out, NULL, 0, NULL, NULL, err);
}

/* Open-addressing map from block id to dense id (order of first appearance). */
typedef struct opt_map {
	uint32_t *keys, *vals; /* vals[i] == OPT_ABSENT: empty slot */
	size_t mask, count;
} opt_map;

static void opt_map_init(opt_map *m, size_t slots)
{
	m->mask = slots - 1;
	m->count = 0;
	m->keys = xmalloc(slots * sizeof *m->keys);
	m->vals = xmalloc(slots * sizeof *m->vals);
	memset(m->vals, 0xff, slots * sizeof *m->vals);
}

static void opt_map_free(opt_map *m)
{
	free(m->keys);
	free(m->vals);
}

static size_t opt_map_slot(const opt_map *m, uint32_t key)
{
	size_t i = (size_t)((key * 0x9E3779B1u) ^ (key >> 16)) & m->mask;
	while (m->vals[i] != OPT_ABSENT && m->keys[i] != key)
		i = (i + 1) & m->mask;
	return i;
}

static void opt_map_grow(opt_map *m)
{
	opt_map old = *m;
	opt_map_init(m, (old.mask + 1) * 2);
	for (size_t i = 0; i <= old.mask; i++) {
		if (old.vals[i] == OPT_ABSENT)
			continue;
		size_t s = opt_map_slot(m, old.keys[i]);
		m->keys[s] = old.keys[i];
		m->vals[s] = old.vals[i];
		m->count++;
	}
	opt_map_free(&old);
}

/* Rewrites blocks[0..n) in place as dense ids; returns the number of distinct blocks and
 * counts first touches at or after count_from in *first_touches. */
static uint32_t opt_compress(uint32_t *blocks, size_t n, size_t count_from,
			     uint64_t *first_touches)
{
	opt_map m;
	opt_map_init(&m, 1024);
	uint64_t firsts = 0;
	for (size_t i = 0; i < n; i++) {
		size_t s = opt_map_slot(&m, blocks[i]);
		if (m.vals[s] == OPT_ABSENT) {
			if (2 * (m.count + 1) > m.mask + 1) {
				opt_map_grow(&m);
				s = opt_map_slot(&m, blocks[i]);
			}
			m.keys[s] = blocks[i];
			m.vals[s] = (uint32_t)m.count++;
			firsts += i >= count_from;
		}
		blocks[i] = m.vals[s];
	}
	uint32_t distinct = (uint32_t)m.count;
	opt_map_free(&m);
	if (first_touches)
		*first_touches = firsts;
	return distinct;
}

/* Max-heap of (next use << 32 | id) with lazy deletion: an entry is live while
 * cur[id] still equals its next use. */
typedef struct opt_heap {
	uint64_t *v;
	size_t n, cap;
} opt_heap;

static void opt_heap_down(opt_heap *h, size_t i)
{
	uint64_t x = h->v[i];
	for (;;) {
		size_t l = 2 * i + 1;
		if (l >= h->n)
			break;
		size_t r = l + 1, big = r < h->n && h->v[r] > h->v[l] ? r : l;
		if (h->v[big] <= x)
			break;
		h->v[i] = h->v[big];
		i = big;
	}
	h->v[i] = x;
}

static void opt_heap_push(opt_heap *h, uint64_t x)
{
	if (h->n == h->cap)
		xb_grow(&h->v, &h->cap, h->n + 1, sizeof *h->v);
	size_t i = h->n++;
	while (i) {
		size_t p = (i - 1) / 2;
		if (h->v[p] >= x)
			break;
		h->v[i] = h->v[p];
		i = p;
	}
	h->v[i] = x;
}

static uint64_t opt_heap_pop(opt_heap *h)
{
	uint64_t top = h->v[0];
	h->v[0] = h->v[--h->n];
	if (h->n)
		opt_heap_down(h, 0);
	return top;
}

/* Drops dead entries so the heap stays O(capacity) and operations O(log capacity). */
static void opt_heap_compact(opt_heap *h, const uint32_t *cur)
{
	size_t k = 0;
	for (size_t i = 0; i < h->n; i++)
		if (cur[(uint32_t)h->v[i]] == (uint32_t)(h->v[i] >> 32))
			h->v[k++] = h->v[i];
	h->n = k;
	for (size_t i = k / 2; i-- > 0;)
		opt_heap_down(h, i);
}

static uint64_t opt_on_ids(const uint32_t *ids, size_t n, uint32_t distinct, size_t capacity,
			   size_t count_from)
{
	uint32_t *next = xmalloc((n ? n : 1) * sizeof *next);
	uint32_t *cur = xmalloc((size_t)(distinct ? distinct : 1) * sizeof *cur);
	for (uint32_t d = 0; d < distinct; d++)
		cur[d] = OPT_NEVER;
	for (size_t i = n; i-- > 0;) {
		next[i] = cur[ids[i]];
		cur[ids[i]] = (uint32_t)i;
	}
	for (uint32_t d = 0; d < distinct; d++)
		cur[d] = OPT_ABSENT;

	opt_heap h = {0};
	size_t resident = 0;
	uint64_t misses = 0;
	size_t start = 0;
	if (count_from > 0 && count_from < n) {
		/* Warm-up misses are free, so the best any policy can hold at the first counted
		 * fetch is the `capacity` warm-up blocks that are used again soonest: start
		 * there, which keeps OPT a lower bound for the counted part alone. */
		for (size_t i = count_from; i-- > 0;) {
			uint32_t id = ids[i];
			if (cur[id] == OPT_ABSENT) {
				cur[id] = next[i];
				opt_heap_push(&h, (uint64_t)next[i] << 32 | id);
			}
		}
		while (h.n > capacity)
			cur[(uint32_t)opt_heap_pop(&h)] = OPT_ABSENT;
		resident = h.n;
		start = count_from;
	}
	for (size_t i = start; i < n; i++) {
		uint32_t id = ids[i];
		if (cur[id] == OPT_ABSENT) {
			misses += i >= count_from;
			if (resident == capacity) {
				for (;;) {
					uint64_t e = opt_heap_pop(&h);
					uint32_t victim = (uint32_t)e;
					if (cur[victim] == (uint32_t)(e >> 32)) {
						cur[victim] = OPT_ABSENT;
						break;
					}
				}
			} else {
				resident++;
			}
		}
		cur[id] = next[i];
		opt_heap_push(&h, (uint64_t)next[i] << 32 | id);
		if (h.n > 2 * capacity + 64)
			opt_heap_compact(&h, cur);
	}
	free(h.v);
	free(next);
	free(cur);
	return misses;
}

static uint64_t fa_lru_on_ids(const uint32_t *ids, size_t n, uint32_t distinct,
			      size_t capacity, size_t count_from)
{
	/* A doubly linked recency list threaded through arrays indexed by id. */
	size_t slots = (size_t)distinct + 1;
	uint32_t *prev = xmalloc(slots * sizeof *prev), *next = xmalloc(slots * sizeof *next);
	uint8_t *in = xcalloc(slots, 1);
	const uint32_t head = distinct; /* sentinel */
	prev[head] = next[head] = head;
	size_t resident = 0;
	uint64_t misses = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		if (in[id]) {
			if (next[head] == id)
				continue;
			next[prev[id]] = next[id];
			prev[next[id]] = prev[id];
		} else {
			misses += i >= count_from;
			if (resident == capacity) {
				uint32_t victim = prev[head];
				next[prev[victim]] = head;
				prev[head] = prev[victim];
				in[victim] = 0;
			} else {
				resident++;
			}
			in[id] = 1;
		}
		next[id] = next[head];
		prev[id] = head;
		prev[next[head]] = id;
		next[head] = id;
	}
	free(prev);
	free(next);
	free(in);
	return misses;
}

/* Counts that need no simulation: every counted access misses in an empty cache, and
 * only first touches miss when everything fits. */
static int opt_trivial(const uint32_t *ids, size_t n, uint32_t distinct, size_t capacity,
		       size_t count_from, uint64_t firsts, uint64_t *misses)
{
	(void)ids;
	if (capacity == 0) {
		*misses = n > count_from ? n - count_from : 0;
		return 1;
	}
	if (capacity >= distinct) {
		*misses = firsts;
		return 1;
	}
	return 0;
}

static uint64_t opt_run(const uint32_t *blocks, size_t n, size_t capacity, size_t count_from,
			int belady)
{
	assert(n < OPT_NEVER);
	uint32_t *ids = xmalloc((n ? n : 1) * sizeof *ids);
	memcpy(ids, blocks, n * sizeof *ids);
	uint64_t firsts, misses;
	uint32_t distinct = opt_compress(ids, n, count_from, &firsts);
	if (!opt_trivial(ids, n, distinct, capacity, count_from, firsts, &misses))
		misses = belady ? opt_on_ids(ids, n, distinct, capacity, count_from)
				: fa_lru_on_ids(ids, n, distinct, capacity, count_from);
	free(ids);
	return misses;
}

uint64_t opt_misses(const uint32_t *blocks, size_t n, size_t capacity, size_t count_from)
{
	return opt_run(blocks, n, capacity, count_from, 1);
}

uint64_t fa_lru_misses(const uint32_t *blocks, size_t n, size_t capacity, size_t count_from)
{
	return opt_run(blocks, n, capacity, count_from, 0);
}

int classify_misses(const xb_target *tg, const xb_trace *t, xb_miss_classes *out, xb_err *err)
{
	memset(out, 0, sizeof *out);
	if (replay_trace(tg, t, &out->replay, err))
		return -1;

	/* The fully associative models see every flash access, in fill-sized blocks. A
	 * repeat of the previous block cannot miss in any of them, so repeats are dropped
	 * (a third or more of a Thumb fetch stream). */
	unsigned shift = 0;
	while ((1u << shift) < tg->cache.fill)
		shift++;
	size_t from = trace_counted_from(t);
	uint32_t *ids = xmalloc((t->n ? t->n : 1) * sizeof *ids);
	size_t n = 0, count_from = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (i == from)
			count_from = n;
		uint32_t off;
		if (!target_decode_xip(tg, t->addr[i], &off, NULL))
			continue;
		uint32_t b = off >> shift;
		if (n && ids[n - 1] == b)
			continue;
		ids[n++] = b;
	}
	if (from >= t->n)
		count_from = n;
	assert(n < OPT_NEVER);

	size_t capacity = tg->cache.size >> shift;
	uint64_t firsts;
	uint32_t distinct = opt_compress(ids, n, count_from, &firsts);
	out->compulsory = firsts;
	if (!opt_trivial(ids, n, distinct, capacity, count_from, firsts, &out->fa_lru_misses))
		out->fa_lru_misses = fa_lru_on_ids(ids, n, distinct, capacity, count_from);
	if (!opt_trivial(ids, n, distinct, capacity, count_from, firsts, &out->opt_misses))
		out->opt_misses = opt_on_ids(ids, n, distinct, capacity, count_from);
	free(ids);

	out->capacity = out->fa_lru_misses - out->compulsory;
	out->conflict = (int64_t)out->replay.misses - (int64_t)out->fa_lru_misses;
	out->opt_misses_per_echo = (double)out->opt_misses / (double)out->replay.echoes;
	return 0;
}
