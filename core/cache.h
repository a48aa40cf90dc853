/* cache: the parametric set-associative XIP cache model. The virtual Pico calls it for
 * every fetch and read of flash, and trace replay uses it to predict a layout's misses, so
 * it is exact (same inputs, same hits, bit for bit) and fast. */
#ifndef XB_CACHE_H
#define XB_CACHE_H

#include <stdint.h>

#include "target.h"

typedef struct xb_cache xb_cache;

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
 * non-cacheable ones) and per-set statistics. */
int cache_access(xb_cache *c, uint32_t offset, enum xb_alias_mode mode);

/* The common case, equivalent to cache_access(c, offset, XB_ALIAS_CACHED_ALLOC). */
int cache_fetch(xb_cache *c, uint32_t offset);

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

/* The line address (offset & ~(line-1)) held in (set, way), or -1 if that way is empty.
 * For the cache-set occupancy view and for tests. */
int64_t cache_peek(const xb_cache *c, uint32_t set, uint32_t way);

/* The cache's data RAM seen as SRAM when the cache is disabled (0x15000000 on the
 * RP2040) is modelled by the board, not here. */

#endif
