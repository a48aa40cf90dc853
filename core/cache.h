/* cache: the parametric set-associative XIP cache model. The virtual Pico calls it for
 * every fetch and read of flash, and trace replay uses it to predict a layout's misses, so
 * it is exact (same inputs, same hits, bit for bit) and fast. */
#ifndef XB_CACHE_H
#define XB_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "target.h"

typedef struct xb_cache xb_cache;

/* The part of a cache that the inline fast path of cache_fetch uses; it is the first
 * member of struct xb_cache. Not for use outside cache.h and cache.c. */
typedef struct xb_cache_fast {
	uint32_t *tags;       /* way-major: way w of set s at [w * nsets + s]; line + 1, 0 = empty */
	uint64_t *set_acc;    /* per-set look-ups */
	uint64_t hits, accesses; /* raw totals since creation */
	uint32_t line_shift, set_mask;
	uint32_t whole_lines; /* fill == line: a tag match is a hit */
} xb_cache_fast;

typedef struct xb_cache_set_stats {
	uint64_t accesses;      /* cacheable look-ups that mapped to this set */
	uint64_t misses;        /* of those, misses (including fills by the 0x12 alias) */
	uint32_t distinct_lines; /* distinct line addresses that were ever filled into this set */
} xb_cache_set_stats;

/* Creates a cache. flash_size bounds the offsets passed in (used for the per-set
 * distinct-line statistic); offsets at or above it are a programming error (asserted).
 * Returns NULL with err set when the geometry is invalid (sizes not powers of two, fill
 * not dividing line, more than 64 fill chunks per line, ways * line > size ...). */
xb_cache *cache_new(const xb_cache_config *cfg, uint32_t flash_size, xb_err *err);
void cache_free(xb_cache *c);

/* One access to flash offset `offset` with the alias semantics of `mode`. Returns 1 on a
 * hit, 0 when the access went to flash (a miss, or any uncached access). Updates the hit
 * and access counters (CTR_HIT counts hits; CTR_ACC counts every access, including
 * non-cacheable ones) and per-set statistics. Per mode:
 *   cached-alloc     look up; a miss fills (only the accessed chunk when fill < line; a
 *                    line present without that chunk gets it, evicting nothing).
 *   cached-noalloc   look up; a hit is served and counts as a use (LRU: most recent); a
 *                    miss (also a present line without the chunk) fills nothing.
 *   uncached-alloc   no look-up, never a hit: counted as a miss and filled; a line
 *                    already present is refreshed in its way, not duplicated (LRU: it
 *                    becomes most recent; FIFO and random: unchanged position).
 *   uncached-noalloc counted in CTR_ACC and the totals only; the cache is untouched and
 *                    per-set statistics do not see it. */
int cache_access(xb_cache *c, uint32_t offset, enum xb_alias_mode mode);

/* The common case, equivalent to cache_access(c, offset, XB_ALIAS_CACHED_ALLOC). Inline:
 * a hit on way 0 of its set (the most recent line under LRU and FIFO) changes nothing but
 * the counters under every policy, so it is counted here; everything else goes to
 * cache_fetch_lookup. */
int cache_fetch_lookup(xb_cache *c, uint32_t offset); /* the out-of-line part; use cache_fetch */
static inline int cache_fetch(xb_cache *c, uint32_t offset)
{
	xb_cache_fast *f = (xb_cache_fast *)c;
	uint32_t line = offset >> f->line_shift, set = line & f->set_mask;
	if (f->tags[set] == line + 1 && f->whole_lines) {
		f->set_acc[set]++;
		f->hits++;
		f->accesses++;
		return 1;
	}
	return cache_fetch_lookup(c, offset);
}

/* cache_fetch for each of offsets[0..n) in order; returns the number of hits. The fast
 * way to replay a stream of normal fetches. */
uint64_t cache_fetch_run(xb_cache *c, const uint32_t *offsets, size_t n);

/* Invalidate every line (XIP_CTRL FLUSH). Statistics and counters are kept. */
void cache_flush(xb_cache *c);

/* A write through the normal alias invalidates a matching line. */
void cache_invalidate(xb_cache *c, uint32_t offset);

/* XIP_CTRL counters: 32-bit saturating, cleared by any write. */
uint32_t cache_ctr_hit(const xb_cache *c);
uint32_t cache_ctr_acc(const xb_cache *c);
void cache_clear_ctr_hit(xb_cache *c);
void cache_clear_ctr_acc(xb_cache *c);

/* Exact 64-bit totals since creation or cache_reset_stats. */
uint64_t cache_total_hits(const xb_cache *c);
uint64_t cache_total_accesses(const xb_cache *c);
/* Accesses that went to flash (misses + uncached accesses). */
uint64_t cache_total_misses(const xb_cache *c);

uint32_t cache_nsets(const xb_cache *c);
const xb_cache_config *cache_config(const xb_cache *c);
void cache_set_stats(const xb_cache *c, uint32_t set, xb_cache_set_stats *out);
/* Clears totals and per-set statistics (not the XIP counters, not the contents). */
void cache_reset_stats(xb_cache *c);

/* The line address (offset & ~(line-1)) held in (set, way), or -1 if that way is empty
 * (or set/way is out of range). For the cache-set occupancy view and for tests. Ways are
 * kept in replacement order: under LRU way 0 is the most recently used and the last way
 * the next victim; under FIFO way 0 is the newest; under random the ways are physical
 * slots. Empty ways come last under LRU and FIFO. */
int64_t cache_peek(const xb_cache *c, uint32_t set, uint32_t way);

/* Valid fill chunks of (set, way): bit i set when bytes [i*fill, (i+1)*fill) of the line
 * are present. 0 for an empty way; bit 0 alone when fill == line. */
uint64_t cache_peek_chunks(const xb_cache *c, uint32_t set, uint32_t way);

/* For tests only: sets CTR_HIT and CTR_ACC as if hit and acc accesses had been counted
 * since they were last cleared, so that saturation at 0xFFFFFFFF can be checked without
 * 2^32 accesses. Totals and per-set statistics are not changed. */
void cache_test_set_counters(xb_cache *c, uint64_t hit, uint64_t acc);

/* The cache's data RAM seen as SRAM when the cache is disabled (0x15000000 on the
 * RP2040) is modelled by the board, not here. */

#endif
