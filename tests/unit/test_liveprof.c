/* test_liveprof: the live profile against profile_build on the same samples (a synthetic
 * image of a thousand functions and the fixture firmware), bucket rotation with shrunk
 * buckets, window lengths, idle subtraction, out-of-order samples, reset, history,
 * groups, nested and aliased functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/synth.h"
#include "../../core/liveprof.h"
#include "../../core/profile.h"

#define MS 1000000ull

static uint64_t test_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static void assert_close(double a, double b)
{
	double d = a > b ? a - b : b - a;
	if (d > 1e-9 * (1 + (a > 0 ? a : -a)))
		fail_msg("%.12g != %.12g", a, b);
}

/* fa and its alias share code; "label" is a zero-size symbol inside fb; "inner" is nested
 * in fb and, being later, holds its addresses (as in profile_build); fc starts mid-line;
 * fd runs from SRAM. Libraries 1 and 3 share the group "IP stack". */
static xb_function hand_funcs[] = {
	{.name = "fa", .addr = 0x10000100, .size = 0x20, .alias_of = -1, .library = 0},
	{.name = "fa_alias", .addr = 0x10000100, .size = 0x20, .alias_of = 0, .library = 0},
	{.name = "fb", .addr = 0x10000120, .size = 0x40, .alias_of = -1, .library = 1},
	{.name = "label", .addr = 0x10000130, .size = 0, .alias_of = -1, .library = 1},
	{.name = "inner", .addr = 0x10000138, .size = 0x8, .alias_of = -1, .library = 3},
	{.name = "fc", .addr = 0x10000163, .size = 0x10, .alias_of = -1, .library = 2},
	{.name = "fd", .addr = 0x20000000, .size = 0x10, .alias_of = -1, .library = 3},
};
static xb_library hand_libs[] = {
	{.name = "kernel", .group = "kernel"},
	{.name = "subsys/net/ip", .group = "IP stack"},
	{.name = "app", .group = "app"},
	{.name = "subsys/net/l2", .group = "IP stack"},
};

static xb_image hand_image(void)
{
	xb_image img;
	memset(&img, 0, sizeof img);
	img.funcs = hand_funcs;
	img.nfuncs = sizeof hand_funcs / sizeof hand_funcs[0];
	img.libraries = hand_libs;
	img.nlibraries = sizeof hand_libs / sizeof hand_libs[0];
	return img;
}

static void add1(xb_liveprof *p, uint32_t pc, uint32_t flags, uint64_t t)
{
	xb_live_sample s = {.pc = pc, .flags = flags, .t_ns = t};
	liveprof_add(p, &s, 1);
}

static void addn(xb_liveprof *p, uint32_t pc, uint32_t flags, uint64_t t, int n)
{
	for (int i = 0; i < n; i++)
		add1(p, pc, flags, t);
}

/* Feeds s to both: the live profile with times t0 + i * step. */
static void feed(xb_liveprof *lp, const xb_samples *s, uint64_t t0, uint64_t step)
{
	xb_live_sample *v = malloc((s->n + 1) * sizeof *v);
	for (size_t i = 0; i < s->n; i++)
		v[i] = (xb_live_sample){s->s[i].pc, s->s[i].flags, t0 + i * step};
	liveprof_add(lp, v, s->n);
	free(v);
}

typedef struct line_sum {
	uint32_t *line;
	double *value;
	size_t n, cap;
	uint32_t prev;
	size_t prev_func;
	int unordered;
} line_sum;

static void on_line(void *ctx, uint32_t line, size_t func, double value)
{
	line_sum *ls = ctx;
	if (ls->n && (line < ls->prev || (line == ls->prev && func <= ls->prev_func)))
		ls->unordered = 1;
	ls->prev = line;
	ls->prev_func = func;
	if (ls->n && ls->line[ls->n - 1] == line) {
		ls->value[ls->n - 1] += value;
		return;
	}
	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? 2 * ls->cap : 256;
		ls->line = realloc(ls->line, ls->cap * sizeof *ls->line);
		ls->value = realloc(ls->value, ls->cap * sizeof *ls->value);
	}
	ls->line[ls->n] = line;
	ls->value[ls->n++] = value;
}

/* Everything the live profile's ALL window shares with profile_build: per function busy,
 * idle and lines, per library, per line, totals; then, subtracting with an idle window as
 * long as the busy one, the net figures. */
static void compare_with_profile(const xb_image *img, const xb_samples *s, uint64_t step,
				 int all_attributed)
{
	xb_profile bp;
	profile_build(&bp, img, s, 8);
	xb_liveprof *lp = liveprof_new(img, 8, NULL);
	feed(lp, s, 5000, step);

	xb_liveprof_totals t;
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	/* the debug-state marker is busy and unattributed to profile_build, halted here */
	assert_true((double)(t.busy + t.halted) == bp.busy_total);
	assert_true((double)(t.unattributed + t.halted) == bp.unattributed);
	assert_true((double)liveprof_idle_samples(lp) == bp.idle_total);
	double *lib = calloc(img->nlibraries, sizeof *lib);
	for (size_t i = 0; i < img->nfuncs; i++) {
		if ((double)liveprof_func_busy(lp, XB_WINDOW_ALL, i) != bp.func[i].busy)
			fail_msg("function %zu (%s): live %llu busy, batch %g", i,
				 img->funcs[i].name,
				 (unsigned long long)liveprof_func_busy(lp, XB_WINDOW_ALL, i),
				 bp.func[i].busy);
		assert_true((double)liveprof_func_idle(lp, i) == bp.func[i].idle);
		assert_int_equal(liveprof_func_lines_touched(lp, XB_WINDOW_ALL, i),
				 bp.func[i].lines_sampled);
		assert_true(liveprof_func(lp, XB_WINDOW_ALL, i) == bp.func[i].busy);
		lib[img->funcs[i].library] += bp.func[i].busy;
	}
	for (size_t b = 0; b < img->nlibraries; b++)
		assert_true(liveprof_library(lp, XB_WINDOW_ALL, b) == lib[b]);

	/* per line: the functions' lines summed per address are the batch lines (when
	 * every sampled PC lies in a function) */
	line_sum ls = {0};
	liveprof_each_line(lp, XB_WINDOW_ALL, on_line, &ls);
	assert_false(ls.unordered);
	size_t k = 0;
	for (size_t i = 0; all_attributed && i < bp.nlines; i++) {
		if (bp.lines[i].busy == 0)
			continue;
		assert_true(k < ls.n);
		assert_int_equal(ls.line[k], bp.lines[i].line);
		assert_true(ls.value[k] == bp.lines[i].busy);
		k++;
	}
	if (all_attributed)
		assert_int_equal(k, ls.n);

	/* the study's method: an idle window as long as the busy one */
	liveprof_idle_window(lp, t.seconds);
	liveprof_set_subtract(lp, 1);
	double net = 0;
	for (size_t i = 0; i < img->nfuncs; i++) {
		assert_true(liveprof_func(lp, XB_WINDOW_ALL, i) == bp.func[i].net);
		net += bp.func[i].net;
	}
	for (size_t b = 0; b < img->nlibraries; b++)
		assert_true(liveprof_library(lp, XB_WINDOW_ALL, b) == bp.lib_net[b]);
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	assert_true(t.net == bp.net_total);
	assert_true(t.net == net);
	/* busy counts are never subtracted */
	for (size_t i = 0; i < img->nfuncs; i++)
		assert_true((double)liveprof_func_busy(lp, XB_WINDOW_ALL, i) == bp.func[i].busy);
	free(ls.line);
	free(ls.value);
	free(lib);
	liveprof_free(lp);
	profile_free(&bp);
}

static xb_library synth_libs[] = {
	{.name = "a", .group = "one"}, {.name = "b", .group = "two"}, {.name = "c", .group = "one"},
};

static void test_matches_profile_synthetic(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 1000, 11);
	/* three libraries instead of synth's one */
	xb_library *own = img.libraries;
	size_t nown = img.nlibraries;
	img.libraries = synth_libs;
	img.nlibraries = 3;
	for (size_t i = 0; i < img.nfuncs; i++)
		img.funcs[i].library = (int)(i % 3);
	xb_samples s;
	samples_init(&s);
	synth_samples(&s, &img, 300, 60000, 5);
	compare_with_profile(&img, &s, 1000, 1);
	/* the same over several seconds: buckets rotate, ALL keeps everything */
	compare_with_profile(&img, &s, 200000, 1);
	/* and a few outside any function: the ROM, past the end, the debug state */
	samples_push(&s, 0x00000100, 0);
	samples_push(&s, 0x1fff0000, 0);
	samples_push(&s, 0xFFFFFFFF, 0);
	samples_push(&s, 0x00000100, XB_SAMPLE_IDLE);
	compare_with_profile(&img, &s, 1000, 0);
	samples_free(&s);
	for (size_t i = 0; i < img.nfuncs; i++)
		img.funcs[i].library = 0;
	img.libraries = own;
	img.nlibraries = nown;
	synth_image_free(&img);
}

static void test_matches_profile_fixture(void **state)
{
	(void)state;
	xb_target tg;
	xb_err err = {{0}};
	if (target_load_file(&tg, "targets/rp2040.target", &err))
		fail_msg("%s", err.msg);
	xb_image img;
	if (image_load_elf(&img, "tests/fuzz/corpus/elf/fixture.elf", &tg, &err))
		fail_msg("%s", err.msg);
	assert_true(img.nfuncs > 50);
	/* PCs in functions (any of them, aliases included) ... */
	xb_samples s;
	samples_init(&s);
	uint64_t r = 9;
	for (int i = 0; i < 40000; i++) {
		const xb_function *f = &img.funcs[test_rand(&r) % img.nfuncs];
		if (!f->size)
			continue;
		uint32_t pc = (f->addr + (uint32_t)(test_rand(&r) % f->size)) & ~1u;
		samples_push(&s, pc, i % 7 == 3 ? XB_SAMPLE_IDLE : 0);
	}
	compare_with_profile(&img, &s, 3000, 1);
	/* ... then anywhere from the first function to past the last */
	uint32_t lo = img.funcs[0].addr, hi = 0;
	for (size_t i = 0; i < img.nfuncs; i++)
		if (img.funcs[i].region == XB_REGION_FLASH &&
		    img.funcs[i].addr + img.funcs[i].size > hi)
			hi = img.funcs[i].addr + img.funcs[i].size;
	s.n = 0;
	for (int i = 0; i < 40000; i++) {
		uint32_t pc = (lo + (uint32_t)(test_rand(&r) % (hi - lo + 64))) & ~1u;
		samples_push(&s, pc, i % 7 == 3 ? XB_SAMPLE_IDLE : 0);
	}
	compare_with_profile(&img, &s, 3000, 0);

	/* the profile's own table agrees with the image's where functions do not nest */
	xb_liveprof *lp = liveprof_new(&img, 8, NULL);
	for (size_t i = 0; i < s.n; i++) {
		const xb_function *f = image_function_at(&img, s.s[i].pc);
		long want = f ? (long)(f - img.funcs) : -1;
		assert_int_equal(liveprof_function_at(lp, s.s[i].pc | 1), want);
	}
	liveprof_free(lp);
	samples_free(&s);
	image_free(&img);
}

static void test_attribution_and_lines(void **state)
{
	(void)state;
	xb_image img = hand_image();
	xb_liveprof *lp = liveprof_new(&img, 0, NULL);
	assert_int_equal(liveprof_line_size(lp), 8);
	assert_true(liveprof_image(lp) == &img);
	addn(lp, 0x10000104, 0, 10, 3);   /* fa */
	addn(lp, 0x10000134, 0, 10, 2);   /* fb, after the zero-size label */
	addn(lp, 0x1000013a, 0, 10, 4);   /* inner, nested in fb */
	addn(lp, 0x10000150, 0, 10, 1);   /* fb again, after inner */
	addn(lp, 0x10000164, 0, 10, 1);   /* fc */
	addn(lp, 0x10000160, 0, 10, 1);   /* below fc, in its first line: no function */
	addn(lp, 0x20000004, 0, 10, 2);   /* fd in SRAM */
	addn(lp, 0xFFFFFFFF, 0, 10, 2);   /* halted */
	addn(lp, 0x10000104, XB_SAMPLE_SLEEP, 10, 5); /* sleeping: not busy */
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 0) == 3);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 1) == 0);
	assert_true(liveprof_func(lp, XB_WINDOW_ALL, 1) == 0);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 2) == 3);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 3) == 0);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 4) == 4);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 5) == 1);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 6) == 2);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 99) == 0);
	xb_liveprof_totals t;
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	assert_true(t.samples == 21 && t.busy == 14 && t.sleep == 5 && t.halted == 2);
	assert_true(t.unattributed == 1);
	assert_true(t.net == 13);
	assert_true(t.seconds == 0 && t.rate == 0);

	/* lines: fc at 0x163 of 16 bytes has the lines 0x160, 0x168, 0x170 */
	uint32_t first, count;
	liveprof_func_lines(lp, 5, &first, &count);
	assert_int_equal(first, 0x10000160);
	assert_int_equal(count, 3);
	liveprof_func_lines(lp, 2, &first, &count);
	assert_int_equal(first, 0x10000120);
	assert_int_equal(count, 8);
	liveprof_func_lines(lp, 3, &first, &count);
	assert_int_equal(count, 0);
	assert_true(liveprof_line(lp, XB_WINDOW_ALL, 2, 2) == 2);  /* 0x130 */
	assert_true(liveprof_line(lp, XB_WINDOW_ALL, 2, 3) == 0);  /* 0x138 is inner's */
	assert_true(liveprof_line(lp, XB_WINDOW_ALL, 2, 6) == 1);  /* 0x150 */
	assert_true(liveprof_line(lp, XB_WINDOW_ALL, 4, 0) == 4);
	assert_true(liveprof_line(lp, XB_WINDOW_ALL, 5, 0) == 1);
	assert_true(liveprof_line(lp, XB_WINDOW_ALL, 5, 9) == 0);
	assert_int_equal(liveprof_func_lines_touched(lp, XB_WINDOW_ALL, 2), 2);
	assert_int_equal(liveprof_func_lines_touched(lp, XB_WINDOW_ALL, 4), 1);

	/* address order across nested functions */
	line_sum ls = {0};
	liveprof_each_line(lp, XB_WINDOW_ALL, on_line, &ls);
	assert_false(ls.unordered);
	static const uint32_t want[] = {0x10000100, 0x10000130, 0x10000138, 0x10000150,
					0x10000160, 0x20000000};
	assert_int_equal(ls.n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < ls.n; i++)
		assert_int_equal(ls.line[i], want[i]);
	free(ls.line);
	free(ls.value);

	/* the table: first of aliases, nesting, Thumb bit, gaps */
	assert_int_equal(liveprof_function_at(lp, 0x10000101), 0);
	assert_int_equal(liveprof_function_at(lp, 0x1000013e), 4);
	assert_int_equal(liveprof_function_at(lp, 0x10000140), 2);
	assert_int_equal(liveprof_function_at(lp, 0x10000160), -1);
	assert_int_equal(liveprof_function_at(lp, 0x10000172), 5);
	assert_int_equal(liveprof_function_at(lp, 0x10000174), -1);
	assert_int_equal(liveprof_function_at(lp, 0x000000ff), -1);
	liveprof_free(lp);
}

static void test_windows_expire(void **state)
{
	(void)state;
	xb_image img = hand_image();
	xb_liveprof_config cfg = {.bucket_ns = 10 * MS, .nbuckets = 4};
	xb_liveprof *lp = liveprof_new(&img, 8, &cfg);
	uint64_t t0 = 1000 * MS;
	for (int ms = 0; ms < 35; ms++)
		add1(lp, 0x10000104, 0, t0 + (uint64_t)ms * MS);
	assert_true(liveprof_now(lp) == t0 + 34 * MS);
	/* 35 samples, one per ms: the windows keep 4 buckets of 10 ms, all of them so far */
	for (int w = 0; w < XB_WINDOW_COUNT; w++) {
		assert_true(liveprof_func_busy(lp, w, 0) == 35);
		assert_int_equal(liveprof_func_lines_touched(lp, w, 0), 1);
	}
	add1(lp, 0x10000114, 0, t0 + 45 * MS); /* bucket 4: bucket 0 leaves */
	assert_true(liveprof_func_busy(lp, XB_WINDOW_1S, 0) == 26);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_10S, 0) == 26);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 0) == 36);
	assert_int_equal(liveprof_func_lines_touched(lp, XB_WINDOW_1S, 0), 2);
	assert_true(liveprof_line(lp, XB_WINDOW_1S, 0, 0) == 25);
	assert_true(liveprof_library(lp, XB_WINDOW_1S, 0) == 26);
	xb_liveprof_totals t;
	liveprof_totals(lp, XB_WINDOW_1S, &t);
	assert_true(t.samples == 26 && t.busy == 26);
	assert_close(t.seconds, 0.035);
	assert_close(t.rate, 26 / 0.035);
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	assert_close(t.seconds, 0.045);

	/* samples stop: the bucket windows fall back to 0 as time moves on */
	liveprof_advance(lp, t0 + 74 * MS);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_1S, 0) == 1); /* bucket 4 is left */
	assert_int_equal(liveprof_func_lines_touched(lp, XB_WINDOW_1S, 0), 1);
	liveprof_advance(lp, t0 + 80 * MS);
	for (int w = 0; w < XB_WINDOW_ALL; w++) {
		assert_true(liveprof_func_busy(lp, w, 0) == 0);
		assert_true(liveprof_func(lp, w, 0) == 0);
		assert_int_equal(liveprof_func_lines_touched(lp, w, 0), 0);
		assert_true(liveprof_library(lp, w, 0) == 0);
		assert_true(liveprof_group(lp, w, 0) == 0);
		liveprof_totals(lp, w, &t);
		assert_true(t.samples == 0 && t.busy == 0 && t.net == 0);
		line_sum ls = {0};
		liveprof_each_line(lp, w, on_line, &ls);
		assert_int_equal(ls.n, 0);
	}
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 0) == 36);
	assert_int_equal(liveprof_func_lines_touched(lp, XB_WINDOW_ALL, 0), 2);

	/* a jump far past the ring, then samples again */
	addn(lp, 0x10000124, 0, t0 + 10000 * MS, 3);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_1S, 2) == 3);
	liveprof_advance(lp, t0 + 10039 * MS);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_10S, 2) == 3);
	liveprof_advance(lp, t0 + 10040 * MS);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_10S, 2) == 0);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 2) == 3);
	liveprof_free(lp);
}

/* Windows of different lengths: 1 s is four 250 ms buckets of the eight kept (2 s). */
static void test_window_seconds(void **state)
{
	(void)state;
	xb_image img = hand_image();
	xb_liveprof_config cfg = {.nbuckets = 8};
	xb_liveprof *lp = liveprof_new(&img, 8, &cfg);
	xb_liveprof_totals t;
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	assert_true(t.seconds == 0); /* not started */
	liveprof_advance(lp, 5000 * MS);
	assert_true(liveprof_now(lp) == 0); /* the clock starts with the first sample */
	uint64_t t0 = 7000 * MS;
	addn(lp, 0x10000104, 0, t0, 2);          /* bucket 0 */
	addn(lp, 0x10000104, 0, t0 + 1300 * MS, 5); /* bucket 5 */
	liveprof_advance(lp, t0 + 100 * MS);     /* ignored: earlier */
	assert_true(liveprof_now(lp) == t0 + 1300 * MS);
	liveprof_totals(lp, XB_WINDOW_1S, &t);
	assert_close(t.seconds, 0.8);            /* 3 x 0.25 + 0.05 */
	assert_true(t.busy == 5);
	liveprof_totals(lp, XB_WINDOW_10S, &t);
	assert_close(t.seconds, 1.3);            /* not 1.8: the start was 1.3 s ago */
	assert_true(t.busy == 7);
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	assert_close(t.seconds, 1.3);
	liveprof_advance(lp, t0 + 3050 * MS);
	liveprof_totals(lp, XB_WINDOW_1S, &t);
	assert_close(t.seconds, 0.8);
	assert_true(t.busy == 0);                /* bucket 5 left 1 s at bucket 9 */
	liveprof_totals(lp, XB_WINDOW_10S, &t);
	assert_close(t.seconds, 1.8);
	assert_true(t.busy == 5);                /* bucket 0 left at bucket 8 */
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	assert_close(t.seconds, 3.05);
	assert_true(t.busy == 7);
	assert_close(t.rate, 7 / 3.05);
	liveprof_free(lp);
}

static void test_idle_subtraction(void **state)
{
	(void)state;
	xb_image img = hand_image();
	xb_liveprof *lp = liveprof_new(&img, 8, NULL);
	addn(lp, 0x10000104, 0, 0, 10);                /* fa: 10 busy over 1 s */
	addn(lp, 0x10000124, 0, 0, 1);                 /* fb: 1 busy */
	addn(lp, 0x10000104, XB_SAMPLE_IDLE, 500 * MS, 4); /* fa idles 4 in 0.5 s */
	addn(lp, 0x10000124, XB_SAMPLE_IDLE, 500 * MS, 2);
	addn(lp, 0x00000200, XB_SAMPLE_IDLE, 500 * MS, 1); /* idle in no function */
	liveprof_advance(lp, 750 * MS);
	assert_int_equal(liveprof_idle_samples(lp), 7);
	assert_true(liveprof_func_idle(lp, 0) == 4);
	assert_true(liveprof_func_idle(lp, 1) == 0);
	/* idle samples never count as busy */
	xb_liveprof_totals t;
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	assert_true(t.samples == 11 && t.busy == 11);
	/* subtraction without an idle recording changes nothing */
	liveprof_set_subtract(lp, 1);
	assert_true(liveprof_subtract(lp));
	assert_true(liveprof_func(lp, XB_WINDOW_ALL, 0) == 10);
	liveprof_idle_window(lp, 0.25);
	liveprof_idle_window(lp, 0.25);
	liveprof_idle_window(lp, -1); /* ignored */
	assert_true(liveprof_idle_seconds(lp) == 0.5);
	/* over 0.75 s, fa: 10 - 4 / 0.5 * 0.75 = 4; fb: max(0, 1 - 2 / 0.5 * 0.75) = 0 */
	assert_close(liveprof_func(lp, XB_WINDOW_ALL, 0), 4);
	assert_true(liveprof_func(lp, XB_WINDOW_ALL, 2) == 0);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 0) == 10);
	assert_close(liveprof_line(lp, XB_WINDOW_ALL, 0, 0), 4);
	assert_close(liveprof_library(lp, XB_WINDOW_ALL, 0), 4);
	assert_true(liveprof_library(lp, XB_WINDOW_ALL, 1) == 0);
	assert_close(liveprof_group(lp, XB_WINDOW_ALL, 0), 4);
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	assert_close(t.net, 4);
	/* the 1 s window covers the same 0.75 s so far */
	assert_close(liveprof_func(lp, XB_WINDOW_1S, 0), 4);
	/* 0.25 s later the busy samples have left it: nothing stays, nothing goes negative */
	liveprof_advance(lp, 1000 * MS);
	assert_true(liveprof_func(lp, XB_WINDOW_1S, 0) == 0);
	assert_close(liveprof_func(lp, XB_WINDOW_ALL, 0), 2);
	liveprof_set_subtract(lp, 0);
	assert_true(liveprof_func(lp, XB_WINDOW_ALL, 0) == 10);
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	assert_true(t.net == 11);
	liveprof_set_subtract(lp, 1);
	liveprof_idle_clear(lp);
	assert_true(liveprof_idle_seconds(lp) == 0);
	assert_int_equal(liveprof_idle_samples(lp), 0);
	assert_true(liveprof_func(lp, XB_WINDOW_ALL, 0) == 10);
	liveprof_free(lp);
}

static void test_out_of_order(void **state)
{
	(void)state;
	xb_image img = hand_image();
	xb_liveprof_config cfg = {.bucket_ns = 10 * MS, .nbuckets = 4};
	xb_liveprof *lp = liveprof_new(&img, 8, &cfg);
	add1(lp, 0x10000104, 0, 100 * MS);
	add1(lp, 0x10000104, 0, 135 * MS);
	add1(lp, 0x10000104, 0, 101 * MS); /* late: counts in the newest bucket */
	add1(lp, 0x10000104, 0, 50 * MS);  /* before the start too */
	assert_true(liveprof_now(lp) == 135 * MS);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_1S, 0) == 4);
	liveprof_advance(lp, 139 * MS);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_1S, 0) == 4);
	liveprof_advance(lp, 140 * MS); /* bucket 0 leaves: the late ones stay */
	assert_true(liveprof_func_busy(lp, XB_WINDOW_1S, 0) == 3);
	liveprof_advance(lp, 170 * MS);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_1S, 0) == 0);
	assert_true(liveprof_func_busy(lp, XB_WINDOW_ALL, 0) == 4);
	liveprof_free(lp);
}

static void test_reset(void **state)
{
	(void)state;
	xb_image img = hand_image();
	xb_liveprof *lp = liveprof_new(&img, 8, NULL);
	addn(lp, 0x10000104, 0, 10 * MS, 5);
	addn(lp, 0x10000104, XB_SAMPLE_IDLE, 10 * MS, 5);
	addn(lp, 0xFFFFFFFF, 0, 2000 * MS, 1);
	liveprof_idle_window(lp, 1);
	liveprof_set_subtract(lp, 1);
	liveprof_reset(lp, 3000 * MS);
	assert_true(liveprof_now(lp) == 3000 * MS);
	assert_true(liveprof_subtract(lp)); /* a setting, not a sample */
	assert_true(liveprof_idle_seconds(lp) == 0);
	assert_int_equal(liveprof_idle_samples(lp), 0);
	for (int w = 0; w < XB_WINDOW_COUNT; w++) {
		xb_liveprof_totals t;
		liveprof_totals(lp, w, &t);
		assert_true(t.samples == 0 && t.halted == 0 && t.seconds == 0);
		assert_true(liveprof_func_busy(lp, w, 0) == 0);
		assert_int_equal(liveprof_func_lines_touched(lp, w, 0), 0);
		assert_true(liveprof_line(lp, w, 0, 0) == 0);
	}
	double h[4];
	assert_int_equal(liveprof_library_history(lp, 0, h, 4), 1);
	assert_true(h[3] == 0);
	/* the clock starts again at the reset */
	addn(lp, 0x10000104, 0, 3500 * MS, 2);
	xb_liveprof_totals t;
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	assert_close(t.seconds, 0.5);
	assert_true(t.busy == 2);
	liveprof_free(lp);
}

static void test_history(void **state)
{
	(void)state;
	xb_image img = hand_image();
	xb_liveprof_config cfg = {.bucket_ns = 10 * MS, .nbuckets = 4, .history_ns = 100 * MS,
				  .history = 5};
	xb_liveprof *lp = liveprof_new(&img, 8, &cfg);
	assert_true(liveprof_history_ns(lp) == 100 * MS);
	double h[8];
	assert_int_equal(liveprof_library_history(lp, 0, h, 8), 0); /* not started */
	addn(lp, 0x10000104, 0, 0, 3);          /* kernel, history bucket 0 */
	addn(lp, 0x10000124, 0, 150 * MS, 2);   /* subsys/net/ip, bucket 1 */
	addn(lp, 0x1000013a, 0, 160 * MS, 1);   /* subsys/net/l2 (inner), bucket 1 */
	addn(lp, 0x10000104, 0, 320 * MS, 4);   /* kernel, bucket 3 */
	assert_int_equal(liveprof_library_history(lp, 0, h, 6), 4);
	double want[6] = {0, 0, 30, 0, 0, 40};
	for (int i = 0; i < 6; i++)
		assert_close(h[i], want[i]);
	/* the IP stack group: libraries 1 and 3 */
	assert_int_equal(liveprof_groups(lp), 3);
	assert_string_equal(liveprof_group_name(lp, 0), "kernel");
	assert_string_equal(liveprof_group_name(lp, 1), "IP stack");
	assert_string_equal(liveprof_group_name(lp, 2), "app");
	assert_null(liveprof_group_name(lp, 3));
	assert_int_equal(liveprof_group_of(lp, 3), 1);
	assert_int_equal(liveprof_group_of(lp, 2), 2);
	assert_int_equal(liveprof_group_history(lp, 1, h, 3), 3);
	assert_close(h[0], 30);
	assert_close(h[1], 0);
	assert_close(h[2], 0);
	assert_true(liveprof_group(lp, XB_WINDOW_ALL, 1) == 3);
	assert_true(liveprof_group(lp, XB_WINDOW_ALL, 0) == 7);
	assert_true(liveprof_group(lp, XB_WINDOW_ALL, 2) == 0);
	/* five kept: after bucket 6, bucket 1 is gone */
	liveprof_advance(lp, 650 * MS);
	assert_int_equal(liveprof_group_history(lp, 1, h, 8), 5);
	for (int i = 0; i < 8; i++)
		assert_true(h[i] == 0);
	assert_int_equal(liveprof_library_history(lp, 0, h, 5), 5);
	assert_close(h[1], 40);
	/* subtraction: kernel idles 2 samples per second (0.2 per bucket) */
	addn(lp, 0x10000104, XB_SAMPLE_IDLE, 650 * MS, 2);
	liveprof_idle_window(lp, 1);
	liveprof_set_subtract(lp, 1);
	liveprof_library_history(lp, 0, h, 5);
	assert_close(h[1], 38);
	assert_true(h[0] == 0);
	assert_int_equal(liveprof_library_history(lp, 99, h, 5), 0);
	liveprof_free(lp);
}

static void test_window_names(void **state)
{
	(void)state;
	for (int w = 0; w < XB_WINDOW_COUNT; w++)
		assert_int_equal(liveprof_window_find(liveprof_window_name(w)), w);
	assert_string_equal(liveprof_window_name(XB_WINDOW_10S), "10s");
	assert_int_equal(liveprof_window_find("5s"), -1);
	assert_int_equal(liveprof_window_find(NULL), -1);
	/* a bad window reads as nothing */
	xb_image img = hand_image();
	xb_liveprof *lp = liveprof_new(&img, 8, NULL);
	addn(lp, 0x10000104, 0, 0, 2);
	assert_true(liveprof_func(lp, 7, 0) == 0);
	assert_true(liveprof_func(lp, -1, 0) == 0);
	xb_liveprof_totals t;
	liveprof_totals(lp, 3, &t);
	assert_true(t.samples == 0);
	liveprof_free(lp);
}

/* An image with no functions and no libraries takes samples too. */
static void test_empty_image(void **state)
{
	(void)state;
	xb_image img;
	memset(&img, 0, sizeof img);
	xb_liveprof *lp = liveprof_new(&img, 8, NULL);
	addn(lp, 0x10000104, 0, 0, 3);
	addn(lp, 0x10000104, XB_SAMPLE_IDLE, 0, 1);
	xb_liveprof_totals t;
	liveprof_totals(lp, XB_WINDOW_ALL, &t);
	assert_true(t.busy == 3 && t.unattributed == 3 && t.net == 0);
	assert_int_equal(liveprof_function_at(lp, 0x10000104), -1);
	assert_int_equal(liveprof_groups(lp), 0);
	line_sum ls = {0};
	liveprof_each_line(lp, XB_WINDOW_ALL, on_line, &ls);
	assert_int_equal(ls.n, 0);
	liveprof_free(lp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_profile_synthetic),
		cmocka_unit_test(test_matches_profile_fixture),
		cmocka_unit_test(test_attribution_and_lines),
		cmocka_unit_test(test_windows_expire),
		cmocka_unit_test(test_window_seconds),
		cmocka_unit_test(test_idle_subtraction),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_window_names),
		cmocka_unit_test(test_empty_image),
	};
	return cmocka_run_group_tests_name("liveprof", tests, NULL, NULL);
}
