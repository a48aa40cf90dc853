/* target: parses chip description files (targets/NAME.target) and answers address questions. */
#include "target.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The sections of a target file; see docs/formats-target-trace.md. */
enum target_section {
	SEC_TOP,
	SEC_REGION,
	SEC_ALIAS,
	SEC_CACHE,
	SEC_REGISTERS,
};

enum target_value_type { VAL_STR, VAL_U32, VAL_U64, VAL_KIND, VAL_MODE, VAL_POLICY, VAL_MPU };

/* One table drives key lookup, value parsing and the required-key checks. The order
 * matches enum target_key. */
enum target_key {
	K_NAME, K_DESCRIPTION, K_CPU_HZ, K_FLASH_SIZE, K_CODE_ALIGN, K_MPU,
	K_REGION_KIND, K_REGION_BASE, K_REGION_SIZE,
	K_ALIAS_BASE, K_ALIAS_MODE,
	K_CACHE_SIZE, K_CACHE_WAYS, K_CACHE_LINE, K_CACHE_FILL, K_CACHE_POLICY, K_CACHE_SEED,
	K_CACHE_SRAM_BASE, K_HIT_CYCLES, K_MISS_PENALTY, K_FLUSH_CYCLES,
	K_REG_CTRL, K_REG_FLUSH, K_REG_STAT, K_REG_CTR_HIT, K_REG_CTR_ACC,
	K_COUNT
};

static const struct target_key_def {
	enum target_section section;
	const char *name;
	enum target_value_type type;
	int required;
} target_keys[K_COUNT] = {
	[K_NAME] = {SEC_TOP, "name", VAL_STR, 1},
	[K_DESCRIPTION] = {SEC_TOP, "description", VAL_STR, 0},
	[K_CPU_HZ] = {SEC_TOP, "cpu_hz", VAL_U32, 1},
	[K_FLASH_SIZE] = {SEC_TOP, "flash_size", VAL_U32, 1},
	[K_CODE_ALIGN] = {SEC_TOP, "code_align", VAL_U32, 1},
	[K_MPU] = {SEC_TOP, "mpu", VAL_MPU, 0},
	[K_REGION_KIND] = {SEC_REGION, "kind", VAL_KIND, 1},
	[K_REGION_BASE] = {SEC_REGION, "base", VAL_U32, 1},
	[K_REGION_SIZE] = {SEC_REGION, "size", VAL_U32, 1},
	[K_ALIAS_BASE] = {SEC_ALIAS, "base", VAL_U32, 1},
	[K_ALIAS_MODE] = {SEC_ALIAS, "mode", VAL_MODE, 1},
	[K_CACHE_SIZE] = {SEC_CACHE, "size", VAL_U32, 1},
	[K_CACHE_WAYS] = {SEC_CACHE, "ways", VAL_U32, 1},
	[K_CACHE_LINE] = {SEC_CACHE, "line", VAL_U32, 1},
	[K_CACHE_FILL] = {SEC_CACHE, "fill", VAL_U32, 0},
	[K_CACHE_POLICY] = {SEC_CACHE, "policy", VAL_POLICY, 0},
	[K_CACHE_SEED] = {SEC_CACHE, "seed", VAL_U64, 0},
	[K_CACHE_SRAM_BASE] = {SEC_CACHE, "sram_base", VAL_U32, 0},
	[K_HIT_CYCLES] = {SEC_CACHE, "hit_cycles", VAL_U32, 1},
	[K_MISS_PENALTY] = {SEC_CACHE, "miss_penalty", VAL_U32, 1},
	[K_FLUSH_CYCLES] = {SEC_CACHE, "flush_cycles", VAL_U32, 1},
	/* Each register is optional: a key left out is a register the chip does not have
	 * (target_end_section checks the section as a whole). */
	[K_REG_CTRL] = {SEC_REGISTERS, "ctrl", VAL_U32, 0},
	[K_REG_FLUSH] = {SEC_REGISTERS, "flush", VAL_U32, 0},
	[K_REG_STAT] = {SEC_REGISTERS, "stat", VAL_U32, 0},
	[K_REG_CTR_HIT] = {SEC_REGISTERS, "ctr_hit", VAL_U32, 0},
	[K_REG_CTR_ACC] = {SEC_REGISTERS, "ctr_acc", VAL_U32, 0},
};

static const char *const target_kind_names[] = {
	[XB_REGION_FLASH] = "flash", [XB_REGION_SRAM] = "sram",
	[XB_REGION_ROM] = "rom",     [XB_REGION_OTHER] = "other",
};
static const char *const target_mode_names[] = {
	[XB_ALIAS_CACHED_ALLOC] = "cached-alloc",
	[XB_ALIAS_CACHED_NOALLOC] = "cached-noalloc",
	[XB_ALIAS_UNCACHED_ALLOC] = "uncached-alloc",
	[XB_ALIAS_UNCACHED_NOALLOC] = "uncached-noalloc",
};
static const char *const target_policy_names[] = {
	[XB_POLICY_LRU] = "lru", [XB_POLICY_FIFO] = "fifo", [XB_POLICY_RANDOM] = "random",
};
static const char *const target_mpu_names[] = {
	[XB_MPU_NONE] = "none", [XB_MPU_ARMV7M] = "armv7m", [XB_MPU_ARMV8M] = "armv8m",
};

#define TARGET_MAX_CACHE_SIZE (64u << 20)
#define TARGET_DEFAULT_SEED 0x9E3779B97F4A7C15ull

const char *target_region_kind_name(enum xb_region_kind k)
{
	return (unsigned)k < 4 ? target_kind_names[k] : "?";
}

const char *target_policy_name(enum xb_policy p)
{
	return (unsigned)p < 3 ? target_policy_names[p] : "?";
}

const char *target_alias_mode_name(enum xb_alias_mode m)
{
	return (unsigned)m < 4 ? target_mode_names[m] : "?";
}

static int target_lookup_name(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

int target_policy_parse(const char *s, enum xb_policy *out)
{
	int i = target_lookup_name(target_policy_names, 3, s);
	if (i < 0)
		return -1;
	*out = (enum xb_policy)i;
	return 0;
}

const char *target_mpu_name(enum xb_mpu_arch a)
{
	return (unsigned)a < 3 ? target_mpu_names[a] : "?";
}

int target_mpu_parse(const char *s, enum xb_mpu_arch *out)
{
	int i = target_lookup_name(target_mpu_names, 3, s);
	if (i < 0)
		return -1;
	*out = (enum xb_mpu_arch)i;
	return 0;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int target_cache_config_check(const xb_cache_config *cfg, xb_err *err)
{
	if (!is_pow2(cfg->size))
		return xb_fail(err, "cache size %u is not a power of two", cfg->size);
	if (cfg->size > TARGET_MAX_CACHE_SIZE)
		return xb_fail(err, "cache size %u is larger than %u", cfg->size,
			       TARGET_MAX_CACHE_SIZE);
	if (!is_pow2(cfg->line))
		return xb_fail(err, "line size %u is not a power of two", cfg->line);
	if (cfg->ways == 0)
		return xb_fail(err, "ways must be at least 1");
	if ((uint64_t)cfg->ways * cfg->line > cfg->size)
		return xb_fail(err, "%u ways of %u-byte lines do not fit in %u bytes", cfg->ways,
			       cfg->line, cfg->size);
	uint64_t way_group = (uint64_t)cfg->ways * cfg->line;
	if (cfg->size % way_group || !is_pow2(cfg->size / way_group))
		return xb_fail(err, "%u bytes / (%u ways x %u-byte lines) is not a power-of-two "
				    "number of sets",
			       cfg->size, cfg->ways, cfg->line);
	if (!is_pow2(cfg->fill) || cfg->fill > cfg->line)
		return xb_fail(err, "fill %u must be a power of two no larger than the line (%u)",
			       cfg->fill, cfg->line);
	if (cfg->line / cfg->fill > 64)
		return xb_fail(err, "fill %u splits a %u-byte line into more than 64 chunks",
			       cfg->fill, cfg->line);
	if ((unsigned)cfg->policy > XB_POLICY_RANDOM)
		return xb_fail(err, "unknown replacement policy %d", (int)cfg->policy);
	return 0;
}

/* Parser state. */
typedef struct target_parser {
	xb_target *t;
	const char *file;
	int line;
	enum target_section section;
	int section_line;
	uint32_t seen; /* keys seen in the current section instance (bit per enum target_key) */
	int cache_line, registers_line, have_cache, have_registers;
	int region_lines[XB_TARGET_MAX_REGIONS];
	int alias_lines[XB_TARGET_MAX_ALIASES];
	xb_err *err;
} target_parser;

#define TP_FAIL(p, ...) target_fail_at(p, (p)->line, __VA_ARGS__)

__attribute__((format(printf, 3, 4))) static int target_fail_at(target_parser *p, int line,
								    const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return xb_fail(p->err, "%s:%d: %s", p->file, line, msg);
}

/* Decimal or 0x-hex, with an optional K/M/G suffix (powers of 1024), at most max. */
static int target_parse_number(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	int base = 10, digits = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (;; s++) {
		int d = xb_hex_digit((unsigned char)*s);
		if (d < 0 || d >= base)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
		digits++;
	}
	if (!digits)
		return -1;
	int shift = 0;
	if (*s == 'K' || *s == 'k')
		shift = 10;
	else if (*s == 'M')
		shift = 20;
	else if (*s == 'G')
		shift = 30;
	if (shift) {
		s++;
		if (v > (UINT64_MAX >> shift))
			return -1;
		v <<= shift;
	}
	if (*s || v > max)
		return -1;
	*out = v;
	return 0;
}

static int target_valid_name(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n == 0 || n >= max || s[0] == '.')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.'))
			return 0;
	return 1;
}

/* Checks the required keys of the section that just ended. */
static int target_end_section(target_parser *p)
{
	if (p->section == SEC_REGISTERS) {
		const uint32_t all = (1u << K_REG_CTRL) | (1u << K_REG_FLUSH) | (1u << K_REG_STAT) |
				     (1u << K_REG_CTR_HIT) | (1u << K_REG_CTR_ACC);
		const uint32_t ctrs = (1u << K_REG_CTR_HIT) | (1u << K_REG_CTR_ACC);
		if (!(p->seen & all))
			return target_fail_at(p, p->section_line,
					      "empty [registers] section (leave it out when the "
					      "chip has no such registers)");
		/* A hit rate needs both counters. */
		if ((p->seen & ctrs) && (p->seen & ctrs) != ctrs)
			return target_fail_at(p, p->section_line,
					      "[registers] gives %s without %s (both counters or "
					      "neither)",
					      (p->seen & (1u << K_REG_CTR_HIT)) ? "ctr_hit" : "ctr_acc",
					      (p->seen & (1u << K_REG_CTR_HIT)) ? "ctr_acc" : "ctr_hit");
	}
	for (int k = 0; k < K_COUNT; k++) {
		const struct target_key_def *d = &target_keys[k];
		if (d->section != p->section || !d->required || (p->seen & (1u << k)))
			continue;
		if (p->section == SEC_TOP)
			return target_fail_at(p, p->section_line,
					      "missing required key '%s' (before the first "
					      "section)",
					      d->name);
		return target_fail_at(p, p->section_line, "section misses required key '%s'",
				      d->name);
	}
	return 0;
}

static int target_begin_section(target_parser *p, char *head)
{
	xb_target *t = p->t;
	char *label = head + strcspn(head, " \t");
	if (*label) {
		*label++ = 0;
		label += strspn(label, " \t");
	}
	if (strcmp(head, "region") == 0) {
		if (!*label)
			return TP_FAIL(p, "[region] needs a name: [region NAME]");
		if (!target_valid_name(label, sizeof t->regions[0].name))
			return TP_FAIL(p, "bad region name '%s' (letters, digits, '_', '-', '.', "
					  "up to %zu characters)",
				       label, sizeof t->regions[0].name - 1);
		for (int i = 0; i < t->nregions; i++)
			if (strcmp(t->regions[i].name, label) == 0)
				return TP_FAIL(p, "region '%s' already defined on line %d", label,
					       p->region_lines[i]);
		if (t->nregions == XB_TARGET_MAX_REGIONS)
			return TP_FAIL(p, "too many regions (at most %d)", XB_TARGET_MAX_REGIONS);
		p->region_lines[t->nregions] = p->line;
		strcpy(t->regions[t->nregions++].name, label);
		p->section = SEC_REGION;
		return 0;
	}
	if (*label)
		return TP_FAIL(p, "section [%s] takes no name (got '%s')", head, label);
	if (strcmp(head, "alias") == 0) {
		if (t->naliases == XB_TARGET_MAX_ALIASES)
			return TP_FAIL(p, "too many aliases (at most %d)", XB_TARGET_MAX_ALIASES);
		p->alias_lines[t->naliases++] = p->line;
		p->section = SEC_ALIAS;
	} else if (strcmp(head, "cache") == 0) {
		if (p->have_cache)
			return TP_FAIL(p, "second [cache] section (the first is on line %d)",
				       p->cache_line);
		p->have_cache = 1;
		p->cache_line = p->line;
		p->section = SEC_CACHE;
	} else if (strcmp(head, "registers") == 0) {
		if (p->have_registers)
			return TP_FAIL(p, "second [registers] section (the first is on line %d)",
				       p->registers_line);
		p->have_registers = 1;
		p->registers_line = p->line;
		p->section = SEC_REGISTERS;
	} else {
		return TP_FAIL(p, "unknown section [%s] (known: region, alias, cache, registers)",
			       head);
	}
	return 0;
}

static int target_set_key(target_parser *p, const char *key, const char *value)
{
	xb_target *t = p->t;
	int k;
	for (k = 0; k < K_COUNT; k++)
		if (target_keys[k].section == p->section && strcmp(target_keys[k].name, key) == 0)
			break;
	if (k == K_COUNT)
		return TP_FAIL(p, "unknown key '%s' here", key);
	if (p->seen & (1u << k))
		return TP_FAIL(p, "duplicate key '%s'", key);
	p->seen |= 1u << k;

	const struct target_key_def *d = &target_keys[k];
	uint64_t v = 0;
	int idx = 0;
	switch (d->type) {
	case VAL_STR:
		break;
	case VAL_U32:
	case VAL_U64:
		if (target_parse_number(value, d->type == VAL_U32 ? UINT32_MAX : UINT64_MAX, &v))
			return TP_FAIL(p, "bad number '%s' for '%s' (decimal or 0x hex, optional "
					  "K/M/G suffix%s)",
				       value, key, d->type == VAL_U32 ? ", at most 0xffffffff" : "");
		break;
	case VAL_KIND:
		idx = target_lookup_name(target_kind_names, 4, value);
		if (idx < 0)
			return TP_FAIL(p, "bad region kind '%s' (flash, sram, rom or other)", value);
		break;
	case VAL_MODE:
		idx = target_lookup_name(target_mode_names, 4, value);
		if (idx < 0)
			return TP_FAIL(p, "bad alias mode '%s' (cached-alloc, cached-noalloc, "
					  "uncached-alloc or uncached-noalloc)",
				       value);
		break;
	case VAL_POLICY:
		idx = target_lookup_name(target_policy_names, 3, value);
		if (idx < 0)
			return TP_FAIL(p, "bad policy '%s' (lru, fifo or random)", value);
		break;
	case VAL_MPU:
		idx = target_lookup_name(target_mpu_names, 3, value);
		if (idx < 0)
			return TP_FAIL(p, "bad mpu '%s' (armv7m, armv8m or none)", value);
		break;
	}
	/* A register at address 0 would read as "absent": refuse it. */
	if (d->section == SEC_REGISTERS && v == 0)
		return TP_FAIL(p, "register '%s' at address 0 (leave the key out when the chip "
				  "has no such register)",
			       key);

	xb_region *r = t->nregions ? &t->regions[t->nregions - 1] : NULL;
	xb_alias *a = t->naliases ? &t->aliases[t->naliases - 1] : NULL;
	uint32_t v32 = (uint32_t)v;
	switch ((enum target_key)k) {
	case K_NAME:
		if (!target_valid_name(value, sizeof t->name))
			return TP_FAIL(p, "bad name '%s' (letters, digits, '_', '-', '.', up to "
					  "%zu characters)",
				       value, sizeof t->name - 1);
		strcpy(t->name, value);
		break;
	case K_DESCRIPTION:
		if (strlen(value) >= sizeof t->description)
			return TP_FAIL(p, "description longer than %zu characters",
				       sizeof t->description - 1);
		strcpy(t->description, value);
		break;
	case K_CPU_HZ:
		if (!v32)
			return TP_FAIL(p, "cpu_hz must not be 0");
		t->cpu_hz = v32;
		break;
	case K_FLASH_SIZE:
		if (!v32)
			return TP_FAIL(p, "flash_size must not be 0");
		t->flash_size = v32;
		break;
	case K_CODE_ALIGN:
		if (!is_pow2(v32))
			return TP_FAIL(p, "code_align %u is not a power of two", v32);
		t->code_align = v32;
		break;
	case K_MPU: t->mpu = (enum xb_mpu_arch)idx; break;
	case K_REGION_KIND: r->kind = (enum xb_region_kind)idx; break;
	case K_REGION_BASE: r->base = v32; break;
	case K_REGION_SIZE:
		if (!v32)
			return TP_FAIL(p, "region size must not be 0");
		r->size = v32;
		break;
	case K_ALIAS_BASE: a->base = v32; break;
	case K_ALIAS_MODE: a->mode = (enum xb_alias_mode)idx; break;
	case K_CACHE_SIZE: t->cache.size = v32; break;
	case K_CACHE_WAYS: t->cache.ways = v32; break;
	case K_CACHE_LINE: t->cache.line = v32; break;
	case K_CACHE_FILL: t->cache.fill = v32; break;
	case K_CACHE_POLICY: t->cache.policy = (enum xb_policy)idx; break;
	case K_CACHE_SEED: t->cache.seed = v; break;
	case K_CACHE_SRAM_BASE: t->cache_sram_base = v32; break;
	case K_HIT_CYCLES: t->hit_cycles = v32; break;
	case K_MISS_PENALTY: t->miss_penalty = v32; break;
	case K_FLUSH_CYCLES: t->flush_cycles = v32; break;
	case K_REG_CTRL: t->reg_ctrl = v32; break;
	case K_REG_FLUSH: t->reg_flush = v32; break;
	case K_REG_STAT: t->reg_stat = v32; break;
	case K_REG_CTR_HIT: t->reg_ctr_hit = v32; break;
	case K_REG_CTR_ACC: t->reg_ctr_acc = v32; break;
	case K_COUNT: break;
	}
	return 0;
}

static char *target_trim(char *s)
{
	s += strspn(s, " \t\r");
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = 0;
	return s;
}

static int target_parse_line(target_parser *p, char *s)
{
	/* '#' starts a comment at the start of a line or after white space, so values such
	 * as descriptions may still contain '#'. */
	for (char *c = s; *c; c++)
		if (*c == '#' && (c == s || c[-1] == ' ' || c[-1] == '\t')) {
			*c = 0;
			break;
		}
	s = target_trim(s);
	if (!*s)
		return 0;
	if (*s == '[') {
		char *end = strchr(s, ']');
		if (!end || *target_trim(end + 1))
			return TP_FAIL(p, "bad section header (expected [NAME] alone on the line)");
		*end = 0;
		if (target_end_section(p))
			return -1;
		p->seen = 0;
		p->section_line = p->line;
		return target_begin_section(p, target_trim(s + 1));
	}
	char *eq = strchr(s, '=');
	if (!eq)
		return TP_FAIL(p, "expected 'key = value' or '[section]'");
	*eq = 0;
	char *key = target_trim(s), *value = target_trim(eq + 1);
	if (!*key)
		return TP_FAIL(p, "missing key before '='");
	if (!*value)
		return TP_FAIL(p, "missing value for '%s'", key);
	return target_set_key(p, key, value);
}

static int target_ranges_overlap(uint32_t a, uint64_t alen, uint32_t b, uint64_t blen)
{
	return (uint64_t)a < (uint64_t)b + blen && (uint64_t)b < (uint64_t)a + alen;
}

/* Whole-file checks once every section is in. */
static int target_validate(target_parser *p)
{
	xb_target *t = p->t;
	if (!p->have_cache)
		return target_fail_at(p, p->line, "missing [cache] section");
	if (!t->cache.fill)
		t->cache.fill = t->cache.line;
	xb_err gerr;
	if (target_cache_config_check(&t->cache, &gerr))
		return target_fail_at(p, p->cache_line, "invalid cache geometry: %s", gerr.msg);
	if (t->flash_size % t->cache.line)
		return target_fail_at(p, 1, "flash_size %u is not a multiple of the line size %u",
				      t->flash_size, t->cache.line);

	int nflash = 0;
	for (int i = 0; i < t->nregions; i++) {
		const xb_region *r = &t->regions[i];
		if ((uint64_t)r->base + r->size > (1ull << 32))
			return target_fail_at(p, p->region_lines[i],
					      "region '%s' runs past the end of the address space",
					      r->name);
		for (int j = 0; j < i; j++)
			if (target_ranges_overlap(r->base, r->size, t->regions[j].base,
						  t->regions[j].size))
				return target_fail_at(p, p->region_lines[i],
						      "region '%s' overlaps region '%s'", r->name,
						      t->regions[j].name);
		nflash += r->kind == XB_REGION_FLASH;
	}
	if (nflash == 0)
		return target_fail_at(p, p->line, "no region of kind flash");
	if (t->naliases == 0)
		return target_fail_at(p, p->line, "no [alias] section: flash needs at least one");

	uint32_t way_bytes = target_way_bytes(t);
	int normal = -1;
	for (int i = 0; i < t->naliases; i++) {
		const xb_alias *a = &t->aliases[i];
		if ((uint64_t)a->base + t->flash_size > (1ull << 32))
			return target_fail_at(p, p->alias_lines[i],
					      "alias 0x%08x + flash_size runs past the end of the "
					      "address space",
					      a->base);
		/* Aligned bases make an XIP address and its flash offset share a set. */
		if (a->base % way_bytes)
			return target_fail_at(p, p->alias_lines[i],
					      "alias base 0x%08x is not a multiple of the cache way "
					      "size (%u bytes)",
					      a->base, way_bytes);
		for (int j = 0; j < i; j++)
			if (target_ranges_overlap(a->base, t->flash_size, t->aliases[j].base,
						  t->flash_size))
				return target_fail_at(p, p->alias_lines[i],
						      "alias 0x%08x overlaps alias 0x%08x", a->base,
						      t->aliases[j].base);
		if (a->mode == XB_ALIAS_CACHED_ALLOC && normal < 0)
			normal = i;
	}
	t->flash_base = t->aliases[normal < 0 ? 0 : normal].base;
	if (!t->cache.seed)
		t->cache.seed = TARGET_DEFAULT_SEED;
	return 0;
}

static int target_line_cb(void *ctx, char *line, int lineno)
{
	target_parser *p = ctx;
	p->line = lineno;
	return target_parse_line(p, line);
}

static int target_nul_cb(void *ctx, int lineno)
{
	target_parser *p = ctx;
	p->line = lineno;
	return TP_FAIL(p, "NUL byte in a text file");
}

int target_parse(xb_target *t, const char *text, size_t len, const char *name_for_errors,
		 xb_err *err)
{
	memset(t, 0, sizeof *t);
	target_parser p = {.t = t, .file = name_for_errors, .section = SEC_TOP,
			   .section_line = 1, .err = err};
	int rc = xb_each_line(text, len, target_line_cb, target_nul_cb, &p);
	if (!rc)
		rc = target_end_section(&p);
	if (!rc)
		rc = target_validate(&p);
	if (rc)
		memset(t, 0, sizeof *t);
	return rc;
}

int target_load_file(xb_target *t, const char *path, xb_err *err)
{
	char *text;
	size_t len;
	if (xb_read_file(path, &text, &len, err))
		return -1;
	int rc = target_parse(t, text, len, path, err);
	free(text);
	return rc;
}

static int target_is_path(const char *s)
{
	size_t n = strlen(s);
	return strchr(s, '/') || (n >= 7 && strcmp(s + n - 7, ".target") == 0);
}

int target_load(xb_target *t, const char *name_or_path, xb_err *err)
{
	if (target_is_path(name_or_path))
		return target_load_file(t, name_or_path, err);
	if (!target_valid_name(name_or_path, 256))
		return xb_fail(err, "bad target name '%s' (give a name such as rp2040, or a path)",
			       name_or_path);

	const char *env = getenv("XIPBENCH_TARGETS");
	if (env && *env) {
		char *path = xasprintf("%s/%s.target", env, name_or_path);
		if (access(path, R_OK) == 0) {
			int rc = target_load_file(t, path, err);
			free(path);
			return rc;
		}
		free(path);
	}
	char *rel = xasprintf("targets/%s.target", name_or_path);
	char *path = xb_data_path(rel);
	free(rel);
	if (!path)
		return xb_fail(err,
			       "target '%s' not found (no targets/%s.target in $XIPBENCH_TARGETS, "
			       "$XIPBENCH_DATA, next to the program or in the source tree; or give a "
			       "path)",
			       name_or_path, name_or_path);
	int rc = target_load_file(t, path, err);
	free(path);
	return rc;
}

int target_decode_xip(const xb_target *t, uint32_t addr, uint32_t *offset,
		      enum xb_alias_mode *mode)
{
	for (int i = 0; i < t->naliases; i++) {
		uint32_t off = addr - t->aliases[i].base;
		if (off < t->flash_size) {
			if (offset)
				*offset = off;
			if (mode)
				*mode = t->aliases[i].mode;
			return 1;
		}
	}
	return 0;
}

const xb_region *target_region_of(const xb_target *t, uint32_t addr)
{
	if (target_decode_xip(t, addr, NULL, NULL)) {
		for (int i = 0; i < t->nregions; i++)
			if (t->regions[i].kind == XB_REGION_FLASH)
				return &t->regions[i];
	}
	for (int i = 0; i < t->nregions; i++)
		if (addr - t->regions[i].base < t->regions[i].size)
			return &t->regions[i];
	return NULL;
}

uint32_t target_sets(const xb_target *t)
{
	return t->cache.size / (t->cache.ways * t->cache.line);
}

uint32_t target_way_bytes(const xb_target *t)
{
	return t->cache.size / t->cache.ways;
}

uint32_t target_cache_lines(const xb_target *t)
{
	return t->cache.size / t->cache.line;
}

uint32_t target_set_of(const xb_target *t, uint32_t addr)
{
	return (addr / t->cache.line) & (target_sets(t) - 1);
}
