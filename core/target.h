/* target: a chip description loaded from a data file (targets/NAME.target). Everything
 * chip-specific lives in that file: memory regions, XIP aliases, cache geometry, counter
 * registers, miss penalty. Nothing else in xipbench hard-codes an RP2040 fact. */
#ifndef XB_TARGET_H
#define XB_TARGET_H

#include <stdint.h>

#include "util.h"

enum xb_region_kind {
	XB_REGION_FLASH, /* external flash behind the XIP cache */
	XB_REGION_SRAM,
	XB_REGION_ROM,
	XB_REGION_OTHER,
};

/* How an access through an alias of flash uses the cache (RP2040 datasheet 2.6.3). */
enum xb_alias_mode {
	XB_ALIAS_CACHED_ALLOC = 0,   /* 0x10...: look up, fill on miss */
	XB_ALIAS_CACHED_NOALLOC = 1, /* 0x11...: a hit is served, a miss does not fill */
	XB_ALIAS_UNCACHED_ALLOC = 2, /* 0x12...: never checks for a hit, always fills */
	XB_ALIAS_UNCACHED_NOALLOC = 3, /* 0x13...: bypasses the cache */
};

enum xb_policy {
	XB_POLICY_LRU = 0,
	XB_POLICY_FIFO = 1,
	XB_POLICY_RANDOM = 2,
};

/* The MPU of the core that fetches from flash, as far as cacheability goes: the register
 * layout xipbench decodes (core/mpu.h). */
enum xb_mpu_arch {
	XB_MPU_NONE = 0,   /* no MPU, or one whose attributes no cache on the fetch path uses */
	XB_MPU_ARMV7M = 1, /* PMSAv7: RBAR/RASR with TEX/C/B (ARMv7-M ARM B3.5) */
	XB_MPU_ARMV8M = 2, /* PMSAv8: RBAR/RLAR with MAIR attributes (ARMv8-M ARM B3.5) */
};

#define XB_TARGET_MAX_REGIONS 16
#define XB_TARGET_MAX_ALIASES 8

typedef struct xb_region {
	char name[32];
	uint32_t base, size;
	enum xb_region_kind kind;
} xb_region;

/* [base, base + flash_size) reaches flash offset 0.. through this alias. */
typedef struct xb_alias {
	uint32_t base;
	enum xb_alias_mode mode;
} xb_alias;

typedef struct xb_cache_config {
	uint32_t size;      /* bytes, a power of two */
	uint32_t ways;      /* >= 1; size / (ways * line) sets, a power of two */
	uint32_t line;      /* bytes, a power of two */
	uint32_t fill;      /* bytes fetched per miss: == line, or line / 2^k (half-line fills) */
	enum xb_policy policy;
	uint64_t seed;      /* for XB_POLICY_RANDOM */
} xb_cache_config;

typedef struct xb_target {
	char name[32];
	char description[128];
	uint32_t cpu_hz;
	xb_region regions[XB_TARGET_MAX_REGIONS];
	int nregions;
	uint32_t flash_size;               /* bytes of flash behind each alias */
	xb_alias aliases[XB_TARGET_MAX_ALIASES];
	int naliases;
	uint32_t flash_base;               /* the normal (cached, allocating) alias */
	uint32_t cache_sram_base;          /* the cache as SRAM when disabled, 0 if none */
	xb_cache_config cache;
	uint32_t hit_cycles, miss_penalty, flush_cycles;
	/* XIP_CTRL register addresses (absolute). 0 means the chip has no such register: all
	 * are 0 without a [registers] section (a chip without readable counters); reg_flush
	 * alone is 0 on a chip that flushes by other means (the RP2350's maintenance writes).
	 * ctr_hit and ctr_acc are both set or both 0. */
	uint32_t reg_ctrl, reg_flush, reg_stat, reg_ctr_hit, reg_ctr_acc;
	uint32_t code_align; /* default alignment of a function's input section when unknown */
	enum xb_mpu_arch mpu; /* top-level key mpu; XB_MPU_NONE when absent */
} xb_target;

/* Parses target text (format: docs/formats-target-trace.md). name_for_errors is used in
 * messages ("rp2040.target:12: unknown key 'foo' here"): every error names a line. On
 * error *t is zeroed. Never crashes on any input. */
int target_parse(xb_target *t, const char *text, size_t len, const char *name_for_errors,
		 xb_err *err);

/* Loads a target file by path. */
int target_load_file(xb_target *t, const char *path, xb_err *err);

/* Loads a target by name ("rp2040") or path. An argument containing '/' or ending in
 * ".target" is a path. A name (letters, digits, '_', '-', '.', not starting with '.') is
 * looked up as NAME.target in $XIPBENCH_TARGETS, then $XIPBENCH_DATA/targets, then the
 * targets folder next to the program (<exe dir>/../targets, <exe dir>/targets,
 * <exe dir>/../share/xipbench/targets), then the source tree's targets/ when built with
 * XB_SOURCE_DIR. Fails with a message listing where it looked. */
int target_load(xb_target *t, const char *name_or_path, xb_err *err);

/* The region containing addr, or NULL. Aliases of flash are flash. */
const xb_region *target_region_of(const xb_target *t, uint32_t addr);

/* If addr is in one of the flash aliases, sets *offset (into flash) and *mode and returns
 * 1; otherwise returns 0. */
int target_decode_xip(const xb_target *t, uint32_t addr, uint32_t *offset,
		      enum xb_alias_mode *mode);

/* Derived geometry. */
uint32_t target_sets(const xb_target *t);
/* Bytes after which the set index repeats: size / ways. */
uint32_t target_way_bytes(const xb_target *t);
uint32_t target_cache_lines(const xb_target *t);
/* Set of a flash offset or XIP address. */
uint32_t target_set_of(const xb_target *t, uint32_t addr);

const char *target_region_kind_name(enum xb_region_kind k);
const char *target_policy_name(enum xb_policy p);
/* "cached-alloc", "cached-noalloc", "uncached-alloc", "uncached-noalloc": the spelling
 * used in target files. */
const char *target_alias_mode_name(enum xb_alias_mode m);
/* Parses "lru", "fifo" or "random" into *out; returns 0, or -1 for anything else. */
int target_policy_parse(const char *s, enum xb_policy *out);
/* "none", "armv7m", "armv8m": the spelling of the mpu key. */
const char *target_mpu_name(enum xb_mpu_arch a);
/* Parses one of those into *out; returns 0, or -1 for anything else. */
int target_mpu_parse(const char *s, enum xb_mpu_arch *out);

/* Checks a cache geometry: size, line and fill powers of two, fill dividing line with at
 * most 64 fill chunks per line, 1 <= ways, ways * line <= size, a power-of-two number of
 * sets, size at most 64 MB, a known policy. Returns 0, or -1 with the reason in err.
 * target_parse and cache_new both use it, so a target that loads always makes a cache. */
int target_cache_config_check(const xb_cache_config *cfg, xb_err *err);

#endif
