/* test_setmap: the set of an address against the RP2040 datasheet's formula, hot lines per
 * set from a live profile (three in a two-way set count as over; SRAM, ROM and bypassing
 * lines hold no set; a shared line counts once), a synthetic image against profile_build's
 * lines, and the per-set figures copied in (predicted from a trace replay, live, contents
 * from the cache model). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/synth.h"
#include "../../core/cache.h"
#include "../../core/opt.h"
#include "../../core/setmap.h"

#define MS 1000000ull

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

/* Sorted by address. s0a, s0b and s0c share set 0; fx and fy share one line; the others
 * sit behind each alias and in the other memories. */
static xb_function set_funcs[] = {
	{.name = "rom", .addr = 0x00000100, .size = 8, .alias_of = -1},
	{.name = "s0a", .addr = 0x10000000, .size = 8, .alias_of = -1},
	{.name = "two", .addr = 0x10000008, .size = 16, .alias_of = -1},
	{.name = "fx", .addr = 0x10000100, .size = 4, .alias_of = -1},
	{.name = "fy", .addr = 0x10000104, .size = 4, .alias_of = -1},
	{.name = "s0b", .addr = 0x10002000, .size = 8, .alias_of = -1},
	{.name = "s0c", .addr = 0x10004000, .size = 8, .alias_of = -1},
	{.name = "noalloc", .addr = 0x11000200, .size = 8, .alias_of = -1},
	{.name = "ualloc", .addr = 0x12000400, .size = 8, .alias_of = -1},
	{.name = "bypass", .addr = 0x13000300, .size = 8, .alias_of = -1},
	{.name = "xipsram", .addr = 0x15000000, .size = 8, .alias_of = -1},
	{.name = "sram", .addr = 0x20000000, .size = 8, .alias_of = -1},
};
static xb_library set_libs[] = {{.name = "app", .group = "app"}};

enum { F_ROM, F_S0A, F_TWO, F_FX, F_FY, F_S0B, F_S0C, F_NOALLOC, F_UALLOC, F_BYPASS,
       F_XIPSRAM, F_SRAM };

static xb_image set_image(void)
{
	xb_image img;
	memset(&img, 0, sizeof img);
	img.funcs = set_funcs;
	img.nfuncs = sizeof set_funcs / sizeof set_funcs[0];
	img.libraries = set_libs;
	img.nlibraries = 1;
	return img;
}

static void addn(xb_liveprof *p, uint32_t pc, uint32_t flags, uint64_t t, int n)
{
	xb_live_sample s = {.pc = pc, .flags = flags, .t_ns = t};
	for (int i = 0; i < n; i++)
		liveprof_add(p, &s, 1);
}

static void test_set_of_address(void **state)
{
	(void)state;
	xb_target tg;
	load_rp2040(&tg);
	xb_setmap m;
	setmap_init(&m, &tg);
	assert_int_equal(m.nsets, 1024);
	assert_int_equal(m.ways, 2);
	assert_int_equal(m.line_size, 8);
	uint64_t r = 1;
	for (int i = 0; i < 100000; i++) {
		uint32_t a = (uint32_t)(test_rand(&r) << 1 ^ test_rand(&r));
		if (i % 2)
			a = 0x10000000 + a % (2u << 20);
		/* RP2040 datasheet 2.6.3: 16 KB, two ways of 8-byte lines: 1,024 sets */
		uint32_t want = (a >> 3) % 1024;
		assert_int_equal(setmap_set_of(&m, a), want);
		assert_int_equal(target_set_of(&tg, a), want);
	}
	/* the aliases of one flash byte share its set */
	assert_int_equal(setmap_set_of(&m, 0x11001238), setmap_set_of(&m, 0x10001238));
	assert_int_equal(setmap_set_of(&m, 0x10002000), 0);
	assert_int_equal(setmap_set_of(&m, 0x10001ff8), 1023);
	setmap_free(&m);
}

static void test_hot_lines_per_set(void **state)
{
	(void)state;
	xb_target tg;
	load_rp2040(&tg);
	xb_image img = set_image();
	xb_liveprof *p = liveprof_new(&img, 8, NULL);
	static const int counts[] = {1, 5, 0, 4, 6, 3, 2, 7, 8, 9, 2, 3};
	for (size_t f = 0; f < img.nfuncs; f++)
		addn(p, img.funcs[f].addr + 2, 0, 0, counts[f]);
	addn(p, 0x10000008, 0, 0, 1); /* two: one sample on each of its lines */
	addn(p, 0x10000010, 0, 0, 1);
	xb_setmap m;
	setmap_init(&m, &tg);
	setmap_update(&m, &tg, p, XB_WINDOW_ALL);

	/* set 0: three hot lines in two ways */
	assert_int_equal(m.hot[0], 3);
	assert_true(m.heat[0] == 10);
	assert_int_equal(m.hot[1], 1);
	assert_int_equal(m.hot[2], 1);
	assert_true(m.heat[1] == 1 && m.heat[2] == 1);
	/* fx and fy share line 0x10000100 (set 32): one line of the cache, two entries */
	assert_int_equal(m.hot[32], 1);
	assert_true(m.heat[32] == 10);
	/* behind the non-allocating and the uncached-allocating aliases: in the cache */
	assert_int_equal(m.hot[64], 1);
	assert_true(m.heat[64] == 7);
	assert_int_equal(m.hot[128], 1);
	assert_true(m.heat[128] == 8);
	/* the bypass alias, the XIP SRAM, SRAM and ROM hold no set */
	assert_int_equal(m.hot[96], 0);
	assert_int_equal(m.hot_lines, 8);
	assert_int_equal(m.nlines, 9);
	assert_int_equal(m.hot_max, 3);
	assert_int_equal(m.sets_over, 1);
	size_t total = 0;
	for (uint32_t s = 0; s < m.nsets; s++)
		total += m.hot[s];
	assert_int_equal(total, m.hot_lines);

	/* the lines by set then address, in the normal alias */
	assert_int_equal(m.first[0], 0);
	assert_int_equal(m.first[1], 3);
	static const uint32_t set0[] = {0x10000000, 0x10002000, 0x10004000};
	static const long set0_func[] = {F_S0A, F_S0B, F_S0C};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(m.lines[i].line, set0[i]);
		assert_int_equal(m.lines[i].func, set0_func[i]);
	}
	assert_true(m.lines[0].value == 5);
	assert_int_equal(m.first[33] - m.first[32], 2);
	assert_int_equal(m.lines[m.first[32]].func, F_FX);
	assert_int_equal(m.lines[m.first[32] + 1].func, F_FY);
	assert_int_equal(m.lines[m.first[64]].line, 0x10000200);
	assert_int_equal(m.lines[m.first[64]].func, F_NOALLOC);
	assert_int_equal(m.lines[m.first[128]].line, 0x10000400);
	assert_int_equal(m.first[m.nsets], m.nlines);
	for (size_t i = 0; i < m.nlines; i++) {
		uint32_t s = setmap_set_of(&m, m.lines[i].line);
		assert_true(m.first[s] <= i && i < m.first[s + 1]);
	}

	/* a line whose figure is 0 (all idle) is not hot */
	addn(p, 0x10004002, XB_SAMPLE_IDLE, 0, 50);
	liveprof_advance(p, 1000 * MS);
	liveprof_idle_window(p, 1);
	liveprof_set_subtract(p, 1);
	setmap_update(&m, &tg, p, XB_WINDOW_ALL);
	assert_int_equal(m.hot[0], 2);
	assert_int_equal(m.sets_over, 0);
	assert_int_equal(m.hot_max, 2);
	setmap_free(&m);
	liveprof_free(p);
}

/* A thousand functions: per set, the distinct sampled lines profile_build finds. */
static void test_against_profile(void **state)
{
	(void)state;
	xb_target tg;
	load_rp2040(&tg);
	xb_image img;
	synth_image(&img, 2000, 3);
	xb_samples s;
	samples_init(&s);
	synth_samples(&s, &img, 600, 30000, 8);
	xb_profile bp;
	profile_build(&bp, &img, &s, 8);
	xb_liveprof *p = liveprof_new(&img, 8, NULL);
	for (size_t i = 0; i < s.n; i++) {
		xb_live_sample v = {s.s[i].pc, s.s[i].flags, i * 1000};
		liveprof_add(p, &v, 1);
	}
	xb_setmap m;
	setmap_init(&m, &tg);
	setmap_update(&m, &tg, p, XB_WINDOW_ALL);
	uint32_t *hot = calloc(1024, sizeof *hot);
	double *heat = calloc(1024, sizeof *heat);
	for (size_t i = 0; i < bp.nlines; i++) {
		if (bp.lines[i].busy <= 0)
			continue;
		uint32_t set = (bp.lines[i].line >> 3) % 1024;
		hot[set]++;
		heat[set] += bp.lines[i].busy;
	}
	uint32_t over = 0, max = 0;
	for (uint32_t k = 0; k < 1024; k++) {
		assert_int_equal(m.hot[k], hot[k]);
		assert_true(m.heat[k] == heat[k]);
		over += hot[k] > 2;
		max = hot[k] > max ? hot[k] : max;
	}
	assert_true(over > 0);
	assert_int_equal(m.sets_over, over);
	assert_int_equal(m.hot_max, max);
	free(hot);
	free(heat);
	setmap_free(&m);
	liveprof_free(p);
	profile_free(&bp);
	samples_free(&s);
	synth_image_free(&img);
}

static void test_per_set_figures(void **state)
{
	(void)state;
	xb_target tg;
	load_rp2040(&tg);
	xb_setmap m;
	setmap_init(&m, &tg);
	assert_null(m.predicted);
	assert_null(m.live);
	assert_null(m.contents);

	/* predicted: misses per echo per set from a trace replay; three lines in set 5 */
	xb_trace t;
	trace_init(&t);
	for (int e = 0; e < 4; e++) {
		trace_mark_echo(&t);
		for (uint32_t i = 0; i < 3; i++)
			trace_push(&t, 0x10000028 + i * 8192);
	}
	uint64_t *per_set = calloc(m.nsets, sizeof *per_set);
	xb_replay r;
	xb_err err = {{0}};
	if (replay_trace_detail(&tg, &t, &r, per_set, m.nsets, NULL, NULL, &err))
		fail_msg("%s", err.msg);
	double *pred = calloc(m.nsets, sizeof *pred);
	for (uint32_t s = 0; s < m.nsets; s++)
		pred[s] = (double)per_set[s] / (double)r.echoes;
	setmap_set_predicted(&m, pred, "trace t.trace, 4 echoes");
	pred[5] = -1; /* copied, not kept */
	assert_true(m.predicted[5] == 3);
	assert_true(m.predicted[4] == 0);
	assert_string_equal(m.predicted_from, "trace t.trace, 4 echoes");

	double *live = calloc(m.nsets, sizeof *live);
	live[1023] = 2.5;
	setmap_set_live(&m, live);
	live[1023] = 0;
	assert_true(m.live[1023] == 2.5);

	/* contents: what the cache model holds after the same fetches */
	xb_cache *c = cache_new(&tg.cache, tg.flash_size, &err);
	assert_non_null(c);
	for (uint32_t i = 0; i < 3; i++)
		cache_fetch(c, 0x28 + i * 8192);
	int64_t *tags = malloc((size_t)m.nsets * m.ways * sizeof *tags);
	for (uint32_t s = 0; s < m.nsets; s++)
		for (uint32_t w = 0; w < m.ways; w++)
			tags[s * m.ways + w] = cache_peek(c, s, w);
	setmap_set_contents(&m, tags);
	tags[5 * m.ways] = 7;
	assert_true(m.contents[5 * m.ways] == 0x28 + 2 * 8192); /* the most recent */
	assert_true(m.contents[5 * m.ways + 1] == 0x28 + 8192);
	assert_true(m.contents[4 * m.ways] == -1);

	/* an update keeps them; NULL clears them */
	xb_image img = set_image();
	xb_liveprof *p = liveprof_new(&img, 8, NULL);
	setmap_update(&m, &tg, p, XB_WINDOW_1S);
	assert_int_equal(m.nlines, 0);
	assert_true(m.predicted[5] == 3);
	assert_true(m.live[1023] == 2.5);
	setmap_set_predicted(&m, NULL, "ignored");
	assert_null(m.predicted);
	assert_string_equal(m.predicted_from, "");
	setmap_set_live(&m, NULL);
	setmap_set_contents(&m, NULL);
	assert_null(m.live);
	assert_null(m.contents);
	liveprof_free(p);
	cache_free(c);
	free(tags);
	free(live);
	free(pred);
	free(per_set);
	trace_free(&t);
	setmap_free(&m);
}

/* The map follows the profile's window: lines leave with their buckets. */
static void test_window_expires(void **state)
{
	(void)state;
	xb_target tg;
	load_rp2040(&tg);
	xb_image img = set_image();
	xb_liveprof_config cfg = {.bucket_ns = 10 * MS, .nbuckets = 4};
	xb_liveprof *p = liveprof_new(&img, 8, &cfg);
	addn(p, 0x10000002, 0, 0, 3);
	addn(p, 0x10002002, 0, 25 * MS, 3);
	xb_setmap m;
	setmap_init(&m, &tg);
	setmap_update(&m, &tg, p, XB_WINDOW_1S);
	assert_int_equal(m.hot[0], 2);
	liveprof_advance(p, 45 * MS);
	setmap_update(&m, &tg, p, XB_WINDOW_1S);
	assert_int_equal(m.hot[0], 1);
	assert_int_equal(m.lines[0].line, 0x10002000);
	liveprof_advance(p, 65 * MS);
	setmap_update(&m, &tg, p, XB_WINDOW_1S);
	assert_int_equal(m.hot_lines, 0);
	assert_int_equal(m.hot_max, 0);
	setmap_update(&m, &tg, p, XB_WINDOW_ALL);
	assert_int_equal(m.hot[0], 2);
	setmap_free(&m);
	liveprof_free(p);
}

/* A second geometry: a 32 KB four-way cache. */
static void test_other_geometry(void **state)
{
	(void)state;
	xb_target tg;
	xb_err err = {{0}};
	if (target_load_file(&tg, "targets/demo-32k-4way.target", &err))
		fail_msg("%s", err.msg);
	xb_setmap m;
	setmap_init(&m, &tg);
	assert_int_equal(m.nsets, target_sets(&tg));
	assert_int_equal(m.ways, 4);
	for (uint32_t a = tg.flash_base; a < tg.flash_base + 65536; a += 6)
		assert_int_equal(setmap_set_of(&m, a), target_set_of(&tg, a));
	setmap_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_of_address),
		cmocka_unit_test(test_hot_lines_per_set),
		cmocka_unit_test(test_against_profile),
		cmocka_unit_test(test_per_set_figures),
		cmocka_unit_test(test_window_expires),
		cmocka_unit_test(test_other_geometry),
	};
	return cmocka_run_group_tests_name("setmap", tests, NULL, NULL);
}
