/* test_target: target files load, answer address questions, and reject bad input with FILE:LINE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/target.h"

/* A small valid target; error cases below change one thing in it. */
#define T_TOP "name = tiny\ncpu_hz = 1000\nflash_size = 64K\ncode_align = 2\n"
#define T_REGION "[region flash]\nkind = flash\nbase = 0x10000000\nsize = 64K\n"
#define T_ALIAS "[alias]\nbase = 0x10000000\nmode = cached-alloc\n"
#define T_CACHE                                                                                    \
	"[cache]\nsize = 1K\nways = 2\nline = 8\nhit_cycles = 1\nmiss_penalty = 10\n"             \
	"flush_cycles = 64\n"

static int parse(xb_target *t, const char *text, xb_err *err)
{
	return target_parse(t, text, strlen(text), "t.target", err);
}

static void test_rp2040_loads(void **state)
{
	(void)state;
	xb_target t;
	xb_err err = {{0}};
	int rc = target_load_file(&t, "targets/rp2040.target", &err);
	if (rc)
		fail_msg("%s", err.msg);
	assert_string_equal(t.name, "rp2040");
	assert_int_equal(t.cpu_hz, 125000000);
	assert_int_equal(t.flash_size, 2u << 20);
	assert_int_equal(t.cache.size, 16384);
	assert_int_equal(t.cache.ways, 2);
	assert_int_equal(t.cache.line, 8);
	assert_int_equal(t.cache.fill, 8);
	assert_int_equal(t.cache.policy, XB_POLICY_LRU);
	assert_int_equal(target_sets(&t), 1024);
	assert_int_equal(target_way_bytes(&t), 8192);
	assert_int_equal(target_cache_lines(&t), 2048);
	assert_int_equal(t.hit_cycles, 1);
	assert_int_equal(t.miss_penalty, 70);
	assert_int_equal(t.flush_cycles, 1024);
	assert_int_equal(t.code_align, 2);
	assert_int_equal(t.flash_base, 0x10000000);
	assert_int_equal(t.cache_sram_base, 0x15000000);
	assert_int_equal(t.reg_ctrl, 0x14000000);
	assert_int_equal(t.reg_flush, 0x14000004);
	assert_int_equal(t.reg_stat, 0x14000008);
	assert_int_equal(t.reg_ctr_hit, 0x1400000c);
	assert_int_equal(t.reg_ctr_acc, 0x14000010);
	assert_int_equal(t.naliases, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(t.aliases[i].base, 0x10000000u + ((uint32_t)i << 24));
		assert_int_equal(t.aliases[i].mode, i);
	}
	const xb_region *r = target_region_of(&t, 0x00000010);
	assert_non_null(r);
	assert_int_equal(r->kind, XB_REGION_ROM);
	assert_int_equal(r->size, 16384);
	r = target_region_of(&t, 0x20041fff);
	assert_non_null(r);
	assert_int_equal(r->kind, XB_REGION_SRAM);
	assert_int_equal(r->size, 264 * 1024);
	assert_null(target_region_of(&t, 0x20042000));
	r = target_region_of(&t, 0x15003fff);
	assert_non_null(r);
	assert_int_equal(r->base, 0x15000000);
	assert_int_equal(r->size, 16384);
	r = target_region_of(&t, 0x40014000);
	assert_non_null(r);
	assert_int_equal(r->kind, XB_REGION_OTHER);
}

static void test_rp2040_decode_and_sets(void **state)
{
	(void)state;
	xb_target t;
	assert_int_equal(target_load_file(&t, "targets/rp2040.target", NULL), 0);
	uint32_t off = 0;
	enum xb_alias_mode mode = XB_ALIAS_CACHED_ALLOC;
	assert_true(target_decode_xip(&t, 0x10001234, &off, &mode));
	assert_int_equal(off, 0x1234);
	assert_int_equal(mode, XB_ALIAS_CACHED_ALLOC);
	assert_true(target_decode_xip(&t, 0x11000010, &off, &mode));
	assert_int_equal(off, 0x10);
	assert_int_equal(mode, XB_ALIAS_CACHED_NOALLOC);
	assert_true(target_decode_xip(&t, 0x121ffffe, &off, &mode));
	assert_int_equal(off, 0x1ffffe);
	assert_int_equal(mode, XB_ALIAS_UNCACHED_ALLOC);
	assert_true(target_decode_xip(&t, 0x13000000, &off, &mode));
	assert_int_equal(mode, XB_ALIAS_UNCACHED_NOALLOC);
	assert_false(target_decode_xip(&t, 0x10200000, &off, &mode)); /* past 2 MB */
	assert_false(target_decode_xip(&t, 0x20000000, &off, &mode));
	assert_false(target_decode_xip(&t, 0x0fffffff, &off, &mode));
	/* Every alias of flash is flash. */
	for (uint32_t a = 0x10000000; a <= 0x13000000; a += 0x01000000)
		assert_int_equal(target_region_of(&t, a + 0x100)->kind, XB_REGION_FLASH);

	assert_int_equal(target_set_of(&t, 0x10000000), 0);
	assert_int_equal(target_set_of(&t, 0x10000007), 0);
	assert_int_equal(target_set_of(&t, 0x10000008), 1);
	assert_int_equal(target_set_of(&t, 0x10001ff8), 1023);
	assert_int_equal(target_set_of(&t, 0x10002000), 0); /* sets repeat every 8 KB */
	assert_int_equal(target_set_of(&t, 0x11000008), 1);
	assert_int_equal(target_set_of(&t, 0x2008), 1); /* a flash offset */
	assert_string_equal(target_policy_name(t.cache.policy), "lru");
	assert_string_equal(target_alias_mode_name(XB_ALIAS_UNCACHED_ALLOC), "uncached-alloc");
	assert_string_equal(target_region_kind_name(XB_REGION_SRAM), "sram");
}

static void test_second_geometry(void **state)
{
	(void)state;
	xb_target a, b;
	xb_err err = {{0}};
	assert_int_equal(target_load_file(&a, "targets/rp2040.target", &err), 0);
	if (target_load_file(&b, "targets/demo-32k-4way.target", &err))
		fail_msg("%s", err.msg);
	assert_string_equal(b.name, "demo-32k-4way");
	assert_int_equal(b.cache.size, 32768);
	assert_int_equal(b.cache.ways, 4);
	assert_int_equal(b.cache.line, 32);
	assert_int_equal(target_sets(&b), 256);
	assert_int_not_equal(target_sets(&a), target_sets(&b));
	assert_int_equal(target_way_bytes(&b), 8192);
	assert_int_equal(target_set_of(&b, 0x60000020), 1);
	assert_int_equal(target_set_of(&b, 0x60002000), 0);
	assert_int_equal(b.flash_base, 0x60000000);
	assert_int_equal(b.reg_ctr_hit, 0); /* no [registers] section */
	uint32_t off;
	enum xb_alias_mode mode;
	assert_true(target_decode_xip(&b, 0x70000040, &off, &mode));
	assert_int_equal(off, 0x40);
	assert_int_equal(mode, XB_ALIAS_UNCACHED_NOALLOC);
}

static void test_load_by_name(void **state)
{
	(void)state;
	xb_target t;
	xb_err err = {{0}};
	setenv("XIPBENCH_TARGETS", "targets", 1);
	if (target_load(&t, "demo-32k-4way", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(target_sets(&t), 256);
	assert_int_equal(target_load(&t, "targets/rp2040.target", &err), 0);
	assert_string_equal(t.name, "rp2040");
	assert_int_equal(target_load(&t, "rp2040.target", &err), -1); /* a path, relative */
	assert_int_equal(target_load(&t, "no-such-chip", &err), -1);
	assert_non_null(strstr(err.msg, "no-such-chip"));
	assert_non_null(strstr(err.msg, "not found"));
	assert_int_equal(target_load(&t, "..", &err), -1);
	assert_int_equal(target_load_file(&t, "targets/missing.target", &err), -1);
	assert_non_null(strstr(err.msg, "targets/missing.target"));
	unsetenv("XIPBENCH_TARGETS");
}

static void test_minimal_and_defaults(void **state)
{
	(void)state;
	xb_target t;
	xb_err err = {{0}};
	const char *text = "# comment\n  name = tiny   # trailing comment\r\n"
			   "description = chip#1 of 2 # with a comment\n"
			   "cpu_hz = 1000\nflash_size = 0x10000\ncode_align = 4\n" T_REGION T_ALIAS
			   "[cache]\nsize = 1K\nways = 2\nline = 8\npolicy = random\nseed = 42\n"
			   "hit_cycles = 1\nmiss_penalty = 10\nflush_cycles = 64\n";
	if (parse(&t, text, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(t.name, "tiny");
	assert_string_equal(t.description, "chip#1 of 2");
	assert_int_equal(t.flash_size, 65536);
	assert_int_equal(t.cache.fill, 8); /* defaults to the line */
	assert_int_equal(t.cache.policy, XB_POLICY_RANDOM);
	assert_int_equal(t.cache.seed, 42);
	assert_int_equal(target_sets(&t), 64);
	assert_int_equal(t.cache_sram_base, 0);
	/* No trailing newline, K suffix. */
	assert_int_equal(parse(&t, T_TOP T_REGION T_ALIAS T_CACHE "fill = 4", &err), 0);
	assert_int_equal(t.cache.fill, 4);
}

struct error_case {
	const char *text;
	const char *expect; /* substring of the message */
};

static void test_errors_name_file_and_line(void **state)
{
	(void)state;
	static const struct error_case cases[] = {
		{T_TOP "foo = 1\n" T_REGION T_ALIAS T_CACHE, "t.target:5: unknown key 'foo'"},
		{T_TOP T_REGION T_ALIAS T_CACHE "colour = red\n", "t.target:19: unknown key 'colour'"},
		{"name = tiny\ncpu_hz = 12x\n", "t.target:2: bad number '12x'"},
		{"name = tiny\ncpu_hz = \n", "t.target:2: missing value"},
		{"name = tiny\nflash_size = 0x100000000\n", "t.target:2: bad number"},
		{"name = tiny\nflash_size = 99999999999999999999999\n", "t.target:2: bad number"},
		{"name = tiny\nflash_size = 4G\n", "t.target:2: bad number"},
		{"name = tiny\nflash_size = 0x\n", "t.target:2: bad number"},
		{"name = tiny\nflash_size = -1\n", "t.target:2: bad number"},
		{"name = tiny\nflash_size = 0\n", "t.target:2: flash_size must not be 0"},
		{"name = tiny\nflash_size = 64K\ncode_align = 3\n", "t.target:3: code_align 3"},
		{"name = tiny\nflash_size = 64K\n" T_REGION T_ALIAS T_CACHE,
		 "t.target:1: missing required key 'cpu_hz'"},
		{"cpu_hz = 1\n", "t.target:1: missing required key 'name'"},
		{T_TOP "[region flash]\nkind = flash\nbase = 0\n" T_ALIAS T_CACHE,
		 "t.target:5: section misses required key 'size'"},
		{T_TOP T_REGION "[alias]\nbase = 0x10000000\n" T_CACHE,
		 "t.target:9: section misses required key 'mode'"},
		{T_TOP T_REGION T_ALIAS "[cache]\nsize = 1K\nways = 2\nline = 8\n",
		 "t.target:12: section misses required key 'hit_cycles'"},
		{T_TOP T_REGION T_ALIAS, "t.target:11: missing [cache] section"},
		{T_TOP T_REGION T_ALIAS T_CACHE "ways = 4\n", "t.target:19: duplicate key 'ways'"},
		{T_TOP T_REGION T_ALIAS T_CACHE "[cache]\n", "t.target:19: second [cache] section"},
		{T_TOP "[colour]\n", "t.target:5: unknown section [colour]"},
		{T_TOP "[region]\n", "t.target:5: [region] needs a name"},
		{T_TOP "[alias x]\n", "t.target:5: section [alias] takes no name"},
		{T_TOP "[cache\n", "t.target:5: bad section header"},
		{T_TOP "just words\n", "t.target:5: expected 'key = value'"},
		{T_TOP " = 3\n", "t.target:5: missing key"},
		{T_TOP "[region flash]\nkind = disk\n", "t.target:6: bad region kind 'disk'"},
		{T_TOP T_REGION "[alias]\nmode = sometimes\n", "t.target:10: bad alias mode"},
		{T_TOP T_REGION T_ALIAS "[cache]\npolicy = plru\n", "t.target:13: bad policy 'plru'"},
		{"name = a b\n", "t.target:1: bad name 'a b'"},
		/* geometry, reported at the [cache] header */
		{T_TOP T_REGION T_ALIAS
		 "[cache]\nsize = 1K\nways = 3\nline = 8\nhit_cycles = 1\nmiss_penalty = 1\n"
		 "flush_cycles = 1\n",
		 "t.target:12: invalid cache geometry"},
		{T_TOP T_REGION T_ALIAS
		 "[cache]\nsize = 1K\nways = 2\nline = 12\nhit_cycles = 1\nmiss_penalty = 1\n"
		 "flush_cycles = 1\n",
		 "t.target:12: invalid cache geometry: line size 12"},
		{T_TOP T_REGION T_ALIAS
		 "[cache]\nsize = 1000\nways = 2\nline = 8\nhit_cycles = 1\nmiss_penalty = 1\n"
		 "flush_cycles = 1\n",
		 "invalid cache geometry: cache size 1000"},
		{T_TOP T_REGION T_ALIAS
		 "[cache]\nsize = 1K\nways = 0\nline = 8\nhit_cycles = 1\nmiss_penalty = 1\n"
		 "flush_cycles = 1\n",
		 "invalid cache geometry: ways"},
		{T_TOP T_REGION T_ALIAS
		 "[cache]\nsize = 1K\nways = 256\nline = 8\nhit_cycles = 1\nmiss_penalty = 1\n"
		 "flush_cycles = 1\n",
		 "invalid cache geometry"},
		{T_TOP T_REGION T_ALIAS T_CACHE "fill = 16\n", "t.target:12: invalid cache geometry: fill 16"},
		{T_TOP T_REGION T_ALIAS T_CACHE "fill = 3\n", "invalid cache geometry: fill 3"},
		{T_TOP T_REGION T_ALIAS
		 "[cache]\nsize = 64K\nways = 1\nline = 128\nfill = 1\nhit_cycles = 1\n"
		 "miss_penalty = 1\nflush_cycles = 1\n",
		 "more than 64 chunks"},
		{T_TOP T_REGION T_ALIAS
		 "[cache]\nsize = 128M\nways = 1\nline = 8\nhit_cycles = 1\n"
		 "miss_penalty = 1\nflush_cycles = 1\n",
		 "larger than"},
		/* whole-file checks */
		{T_TOP T_REGION T_ALIAS "[alias]\nbase = 0x10008000\nmode = cached-noalloc\n" T_CACHE,
		 "t.target:12: alias 0x10008000 overlaps alias 0x10000000"},
		{T_TOP T_REGION "[alias]\nbase = 0x10000100\nmode = cached-alloc\n" T_CACHE,
		 "t.target:9: alias base 0x10000100 is not a multiple"},
		{T_TOP T_REGION "[alias]\nbase = 0xffff8000\nmode = cached-alloc\n" T_CACHE,
		 "runs past the end"},
		{T_TOP T_REGION "[region sram]\nkind = sram\nbase = 0x1000f000\nsize = 8K\n" T_ALIAS
		 T_CACHE,
		 "t.target:9: region 'sram' overlaps region 'flash'"},
		{T_TOP T_REGION "[region flash]\n", "t.target:9: region 'flash' already defined on line 5"},
		{T_TOP "[region flash]\nkind = sram\nbase = 0\nsize = 1\n" T_ALIAS T_CACHE,
		 "no region of kind flash"},
		{T_TOP T_REGION T_CACHE, "no [alias] section"},
		{"name = tiny\ncpu_hz = 1000\nflash_size = 12\ncode_align = 2\n" T_REGION T_ALIAS T_CACHE,
		 "t.target:1: flash_size 12 is not a multiple of the line size 8"},
		/* [registers]: each key optional, but not an empty section, not one counter
		 * alone, not address 0 */
		{T_TOP T_REGION T_ALIAS T_CACHE "[registers]\n",
		 "t.target:19: empty [registers] section"},
		{T_TOP T_REGION T_ALIAS T_CACHE "[registers]\nctrl = 0x14000000\nctr_hit = 0x1400000c\n",
		 "t.target:19: [registers] gives ctr_hit without ctr_acc"},
		{T_TOP T_REGION T_ALIAS T_CACHE "[registers]\nctr_acc = 0x14000010\n",
		 "t.target:19: [registers] gives ctr_acc without ctr_hit"},
		{T_TOP T_REGION T_ALIAS T_CACHE "[registers]\nctrl = 0x14000000\nflush = 0\n",
		 "t.target:21: register 'flush' at address 0"},
		/* mpu */
		{"mpu = armv7m\n" T_TOP T_REGION T_ALIAS T_CACHE "mpu = armv6m\n",
		 "t.target:20: unknown key 'mpu' here"},
		{"mpu = armv6m\n" T_TOP T_REGION T_ALIAS T_CACHE,
		 "t.target:1: bad mpu 'armv6m' (armv7m, armv8m or none)"},
		{"mpu = ARMv7-M\n" T_TOP T_REGION T_ALIAS T_CACHE, "t.target:1: bad mpu 'ARMv7-M'"},
		{"mpu = none\nmpu = armv8m\n" T_TOP T_REGION T_ALIAS T_CACHE,
		 "t.target:2: duplicate key 'mpu'"},
		{"", "t.target:1: missing required key 'name'"},
		{"\n\n", "t.target:1: missing required key 'name'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		xb_target t;
		xb_err err = {{0}};
		int rc = parse(&t, cases[i].text, &err);
		if (rc != -1)
			fail_msg("case %zu parsed but should fail with '%s'", i, cases[i].expect);
		if (!strstr(err.msg, cases[i].expect))
			fail_msg("case %zu: got '%s', expected '%s'", i, err.msg, cases[i].expect);
		assert_int_equal(t.name[0], 0); /* zeroed on error */
	}
}

static void test_nul_and_binary_input(void **state)
{
	(void)state;
	xb_target t;
	xb_err err = {{0}};
	static const char bin[] = "name = x\n\0\x01\x02\xff";
	assert_int_equal(target_parse(&t, bin, sizeof bin - 1, "b.target", &err), -1);
	assert_non_null(strstr(err.msg, "b.target:2: NUL byte"));
	assert_int_equal(target_parse(&t, "\xff\xfe[", 3, "c.target", &err), -1);
	assert_non_null(strstr(err.msg, "c.target:1:"));
	/* A NULL err is allowed. */
	assert_int_equal(target_parse(&t, "x", 1, "d.target", NULL), -1);
}

static void test_cache_config_check(void **state)
{
	(void)state;
	xb_cache_config ok = {.size = 16384, .ways = 2, .line = 8, .fill = 4};
	assert_int_equal(target_cache_config_check(&ok, NULL), 0);
	xb_cache_config full = {.size = 16384, .ways = 2048, .line = 8, .fill = 8};
	assert_int_equal(target_cache_config_check(&full, NULL), 0); /* fully associative */
	xb_cache_config bad = ok;
	bad.fill = 0;
	assert_int_equal(target_cache_config_check(&bad, NULL), -1);
	bad = ok;
	bad.policy = (enum xb_policy)7;
	assert_int_equal(target_cache_config_check(&bad, NULL), -1);
	bad = ok;
	bad.ways = 4096;
	assert_int_equal(target_cache_config_check(&bad, NULL), -1);
	enum xb_policy p;
	assert_int_equal(target_policy_parse("fifo", &p), 0);
	assert_int_equal(p, XB_POLICY_FIFO);
	assert_int_equal(target_policy_parse("LRU", &p), -1);
}

/* targets/rp2350.target against the RP2350 datasheet (chapter 4) and pico-sdk headers. */
static void test_rp2350_loads(void **state)
{
	(void)state;
	xb_target t;
	xb_err err = {{0}};
	if (target_load_file(&t, "targets/rp2350.target", &err))
		fail_msg("%s", err.msg);
	assert_string_equal(t.name, "rp2350");
	assert_int_equal(t.cpu_hz, 150000000);      /* chapter 1: 150 MHz */
	assert_int_equal(t.flash_size, 4u << 20);   /* pico2.h: PICO_FLASH_SIZE_BYTES */
	assert_int_equal(t.mpu, XB_MPU_ARMV8M);     /* Cortex-M33, Armv8-M (10.2.1) */
	/* 4.4.1: 16 kB, two-way; 4.4.1.1: 8-byte lines, 2048 lines, bits 12:3 pick the set */
	assert_int_equal(t.cache.size, 16384);
	assert_int_equal(t.cache.ways, 2);
	assert_int_equal(t.cache.line, 8);
	assert_int_equal(target_sets(&t), 16384 / 2 / 8);
	assert_int_equal(target_sets(&t), 1024);
	assert_int_equal(target_cache_lines(&t), 2048);
	assert_int_equal(target_way_bytes(&t), 8192); /* bit 13 selects the way */
	assert_int_equal(t.cache.policy, XB_POLICY_RANDOM); /* 4.4.1.3: eviction is random */
	assert_int_equal(t.hit_cycles, 1);                  /* 4.4.1: 1 cycle hit */
	assert_int_equal(t.cache_sram_base, 0);             /* no cache-as-SRAM window */
	/* 4.4.5: XIP_CTRL at 0x400c8000: CTRL 0x00, STAT 0x08, CTR_HIT 0x0c, CTR_ACC 0x10, no
	 * FLUSH */
	assert_int_equal(t.reg_ctrl, 0x400c8000);
	assert_int_equal(t.reg_flush, 0);
	assert_int_equal(t.reg_stat, 0x400c8008);
	assert_int_equal(t.reg_ctr_hit, 0x400c800c);
	assert_int_equal(t.reg_ctr_acc, 0x400c8010);
	/* 4.4.1: 0x10 cached, 0x14 uncached, 0x1c uncached untranslated */
	assert_int_equal(t.naliases, 3);
	assert_int_equal(t.aliases[0].base, 0x10000000);
	assert_int_equal(t.aliases[0].mode, XB_ALIAS_CACHED_ALLOC);
	assert_int_equal(t.aliases[1].base, 0x14000000);
	assert_int_equal(t.aliases[1].mode, XB_ALIAS_UNCACHED_NOALLOC);
	assert_int_equal(t.aliases[2].base, 0x1c000000);
	assert_int_equal(t.aliases[2].mode, XB_ALIAS_UNCACHED_NOALLOC);
	assert_int_equal(t.flash_base, 0x10000000);
	uint32_t off = 0;
	enum xb_alias_mode mode = XB_ALIAS_CACHED_ALLOC;
	assert_true(target_decode_xip(&t, 0x1c001234, &off, &mode));
	assert_int_equal(off, 0x1234);
	assert_int_equal(mode, XB_ALIAS_UNCACHED_NOALLOC);
	/* the maintenance window is not an alias */
	assert_false(target_decode_xip(&t, 0x18000000, NULL, NULL));
	const xb_region *r = target_region_of(&t, 0x18000007);
	assert_non_null(r);
	assert_int_equal(r->kind, XB_REGION_OTHER);
	/* 4.1: 32 kB ROM at 0; 4.2: 520 kB SRAM from 0x20000000 */
	r = target_region_of(&t, 0x00007fff);
	assert_non_null(r);
	assert_int_equal(r->kind, XB_REGION_ROM);
	assert_int_equal(r->size, 32 * 1024);
	r = target_region_of(&t, 0x20081fff);
	assert_non_null(r);
	assert_int_equal(r->kind, XB_REGION_SRAM);
	assert_int_equal(r->size, 520 * 1024);
	assert_null(target_region_of(&t, 0x20082000)); /* SRAM_END */
	r = target_region_of(&t, 0x400c8000);
	assert_non_null(r);
	assert_int_equal(r->kind, XB_REGION_OTHER);
	/* flash offset 0x2000 is set 0 again: 8 KB per way */
	assert_int_equal(target_set_of(&t, 0x10002000), 0);
	assert_int_equal(target_set_of(&t, 0x10001ff8), 1023);
}

/* targets/imxrt1062.target: the Cortex-M7 L1 I-cache of a Teensy 4.1. */
static void test_imxrt1062_loads(void **state)
{
	(void)state;
	xb_target t;
	xb_err err = {{0}};
	if (target_load_file(&t, "targets/imxrt1062.target", &err))
		fail_msg("%s", err.msg);
	assert_string_equal(t.name, "imxrt1062");
	assert_int_equal(t.cpu_hz, 600000000);
	assert_int_equal(t.flash_size, 8u << 20);
	assert_int_equal(t.mpu, XB_MPU_ARMV7M);
	/* AN12042: 32K I-cache; Cortex-M7: 2-way, 32-byte lines: 32768 / 2 / 32 = 512 sets */
	assert_int_equal(t.cache.size, 32768);
	assert_int_equal(t.cache.ways, 2);
	assert_int_equal(t.cache.line, 32);
	assert_int_equal(t.cache.fill, 32);
	assert_int_equal(target_sets(&t), 512);
	assert_int_equal(target_way_bytes(&t), 16384);
	/* no counters, no XIP control block */
	assert_int_equal(t.reg_ctrl, 0);
	assert_int_equal(t.reg_flush, 0);
	assert_int_equal(t.reg_ctr_hit, 0);
	assert_int_equal(t.reg_ctr_acc, 0);
	assert_int_equal(t.naliases, 1);
	assert_int_equal(t.aliases[0].base, 0x60000000); /* FlexSPI_AMBA_BASE */
	assert_int_equal(t.aliases[0].mode, XB_ALIAS_CACHED_ALLOC);
	const xb_region *r = target_region_of(&t, 0x607fffff);
	assert_non_null(r);
	assert_int_equal(r->kind, XB_REGION_FLASH);
	assert_null(target_region_of(&t, 0x60800000)); /* past the 8 MB */
	/* ITCM 0, DTCM 0x20000000, OCRAM2 0x20200000: 512K each (imxrt1062_t41.ld) */
	static const uint32_t ram[3] = {0x00000000, 0x20000000, 0x20200000};
	for (int i = 0; i < 3; i++) {
		r = target_region_of(&t, ram[i] + 0x7ffff);
		assert_non_null(r);
		assert_int_equal(r->kind, XB_REGION_SRAM);
		assert_int_equal(r->base, ram[i]);
		assert_int_equal(r->size, 512 * 1024);
	}
	assert_null(target_region_of(&t, 0x20280000));
	assert_int_equal(target_set_of(&t, 0x60004000), 0);
	assert_int_equal(target_set_of(&t, 0x60003fe0), 511);
}

/* [registers] without flush (the RP2350's case): each register is optional. */
static void test_registers_without_flush(void **state)
{
	(void)state;
	xb_target t;
	xb_err err = {{0}};
	const char *text = T_TOP T_REGION T_ALIAS T_CACHE
		"[registers]\nctrl = 0x400c8000\nctr_hit = 0x400c800c\nctr_acc = 0x400c8010\n";
	if (parse(&t, text, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.reg_ctrl, 0x400c8000);
	assert_int_equal(t.reg_flush, 0);
	assert_int_equal(t.reg_stat, 0);
	assert_int_equal(t.reg_ctr_hit, 0x400c800c);
	assert_int_equal(t.reg_ctr_acc, 0x400c8010);
	/* only a flush register, no counters */
	text = T_TOP T_REGION T_ALIAS T_CACHE "[registers]\nflush = 0x14000004\n";
	if (parse(&t, text, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.reg_flush, 0x14000004);
	assert_int_equal(t.reg_ctrl, 0);
	assert_int_equal(t.reg_ctr_hit, 0);
}

/* The top-level mpu key: absent means none; each spelling maps to its value. */
static void test_mpu_key(void **state)
{
	(void)state;
	xb_target t;
	xb_err err = {{0}};
	if (parse(&t, T_TOP T_REGION T_ALIAS T_CACHE, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.mpu, XB_MPU_NONE);
	static const char *const names[3] = {"none", "armv7m", "armv8m"};
	for (int i = 0; i < 3; i++) {
		char text[512];
		snprintf(text, sizeof text, "mpu = %s\n%s", names[i], T_TOP T_REGION T_ALIAS T_CACHE);
		if (parse(&t, text, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(t.mpu, i);
		assert_string_equal(target_mpu_name(t.mpu), names[i]);
		enum xb_mpu_arch a = XB_MPU_NONE;
		assert_int_equal(target_mpu_parse(names[i], &a), 0);
		assert_int_equal(a, i);
	}
	enum xb_mpu_arch a = XB_MPU_ARMV7M;
	assert_int_equal(target_mpu_parse("v7", &a), -1);
	assert_int_equal(a, XB_MPU_ARMV7M);
	/* rp2040.target says none */
	if (target_load_file(&t, "targets/rp2040.target", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.mpu, XB_MPU_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rp2040_loads),
		cmocka_unit_test(test_rp2040_decode_and_sets),
		cmocka_unit_test(test_second_geometry),
		cmocka_unit_test(test_load_by_name),
		cmocka_unit_test(test_minimal_and_defaults),
		cmocka_unit_test(test_errors_name_file_and_line),
		cmocka_unit_test(test_nul_and_binary_input),
		cmocka_unit_test(test_cache_config_check),
		cmocka_unit_test(test_rp2350_loads),
		cmocka_unit_test(test_imxrt1062_loads),
		cmocka_unit_test(test_registers_without_flush),
		cmocka_unit_test(test_mpu_key),
	};
	return cmocka_run_group_tests_name("target", tests, NULL, NULL);
}
