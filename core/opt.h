/* opt: replay a trace through a target's cache, Belady's OPT lower bound for a fully
 * associative cache of the same number of lines, and the 3C classification of misses. */
#ifndef XB_OPT_H
#define XB_OPT_H

#include <stddef.h>
#include <stdint.h>

#include "target.h"
#include "trace.h"

/* Result of replaying a trace. Counts cover the counted part of the trace (from the first
 * echo boundary on; the warm-up before it fills the cache but is not counted). Only
 * fetches through a flash alias reach the cache; SRAM and ROM fetches are ignored. */
typedef struct xb_replay {
	uint64_t fetches;        /* all counted fetches (any address) */
	uint64_t accesses;       /* counted accesses through a flash alias (CTR_ACC) */
	uint64_t hits;           /* counted hits (CTR_HIT) */
	uint64_t misses;         /* accesses - hits */
	size_t echoes;
	double misses_per_echo;
} xb_replay;

/* Replays t through a fresh cache built from the target's configuration (fails only
 * when that geometry is invalid). */
int replay_trace(const xb_target *tg, const xb_trace *t, xb_replay *out, xb_err *err);

/* replay_trace with what it counts laid out: set_misses (may be NULL; nsets entries, which
 * must be the target's number of sets) gets the counted misses per cache set, and on_miss
 * (may be NULL) is called with the bus address of every counted miss, in trace order, to
 * attribute misses to lines and functions. A bypassing access (the uncached,
 * non-allocating alias) counts as a miss, as in replay_trace, in the set of its flash
 * offset. The counts equal replay_trace's: the per-set sums and the calls are `misses`. */
typedef void (*xb_replay_miss_fn)(void *ctx, uint32_t addr);
int replay_trace_detail(const xb_target *tg, const xb_trace *t, xb_replay *out,
			uint64_t *set_misses, uint32_t nsets, xb_replay_miss_fn on_miss, void *ctx,
			xb_err *err);

/* 3C classification (Hill): compulsory = misses of an infinite cache (first touch of a
 * line in the whole trace that falls in the counted part); capacity = misses of a fully
 * associative LRU cache of the same number of lines minus compulsory; conflict = the
 * target cache's misses minus the fully associative LRU misses (can be negative when the
 * set-associative cache happens to beat LRU). opt = Belady's OPT misses for the fully
 * associative cache: no layout of the same code in flash can miss less, up to line
 * alignment. All counts use the target's fill granularity as the unit of a miss: blocks
 * are flash offset / fill and the fully associative models hold cache size / fill
 * blocks. They see every fetch through any flash alias as an ordinary cached fetch (the
 * same code, laid out normally), so the effect of the 0x11/0x12/0x13 aliases shows up
 * in conflict. OPT never bypasses the cache, so a trace that uses the non-allocating
 * alias can in rare cases beat it. */
typedef struct xb_miss_classes {
	xb_replay replay;        /* the target cache itself */
	uint64_t compulsory;
	uint64_t capacity;
	int64_t conflict;
	uint64_t fa_lru_misses;
	uint64_t opt_misses;
	double opt_misses_per_echo;
} xb_miss_classes;

int classify_misses(const xb_target *tg, const xb_trace *t, xb_miss_classes *out, xb_err *err);

/* Belady's OPT on a sequence of block ids with a fully associative cache of `capacity`
 * blocks. Misses at indices >= count_from are counted. Since warm-up misses cost nothing,
 * the counted part starts from the best state the warm-up allows (the `capacity` blocks
 * it touched that are used again soonest), so the result is a lower bound on the counted
 * misses of any cache of that capacity, whatever it did during warm-up. O(n log capacity)
 * time after an O(n) hash pass; memory about 12 bytes per access. n < 2^32 - 2. */
uint64_t opt_misses(const uint32_t *blocks, size_t n, size_t capacity, size_t count_from);

/* LRU with a fully associative cache, same contract (warm-up runs as plain LRU). O(n). */
uint64_t fa_lru_misses(const uint32_t *blocks, size_t n, size_t capacity, size_t count_from);

#endif
