/* test_plan_colour: the colouring planner on synthetic images and echo workloads: misses
 * against the hot block and OPT, the padding budget, code that never runs in place of
 * padding, alignment, determinism, the fallback to the packed block, the sample model and
 * another cache geometry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/plan.h"
#include "../common/synth.h"

static xb_target tg, tg4;

static int setup(void **state)
{
	(void)state;
	xb_err err;
	if (target_load_file(&tg, "targets/rp2040.target", &err) != 0 ||
	    target_load_file(&tg4, "targets/demo-32k-4way.target", &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double unit(uint64_t *s)
{
	return (double)(rng(s) >> 11) / 9007199254740992.0;
}

/* An echo workload like scripts/synth-trace.awk's: a fixed random path through a share
 * `frac` of the functions, each running a prefix (40-100 %) of its code, a few with a short
 * loop, 7 % skipped per echo; a share `rare` of the path runs only in 10-50 % of echoes. */
static void path_trace(xb_trace *t, const xb_image *img, double frac, double rare, int echoes,
		       uint64_t seed)
{
	uint64_t s = seed * 0x9E3779B97F4A7C15ull | 1;
	size_t n = img->nfuncs, m = 0;
	size_t *path = malloc((n + 1) * sizeof *path);
	uint32_t *cover = malloc((n + 1) * sizeof *cover);
	double *runs = malloc((n + 1) * sizeof *runs);
	int *loop = malloc((n + 1) * sizeof *loop);
	for (size_t i = 0; i < n; i++)
		if (unit(&s) < frac)
			path[m++] = i;
	for (size_t i = m; i > 1; i--) {
		size_t j = rng(&s) % i, x = path[i - 1];
		path[i - 1] = path[j];
		path[j] = x;
	}
	for (size_t k = 0; k < m; k++) {
		uint32_t size = img->funcs[path[k]].size;
		cover[k] = (uint32_t)(size * (0.4 + 0.6 * unit(&s))) & ~1u;
		cover[k] = cover[k] < 2 ? 2 : cover[k];
		loop[k] = unit(&s) < 0.2;
		runs[k] = unit(&s) < rare ? 0.1 + 0.4 * unit(&s) : 1;
	}
	trace_init(t);
	for (int e = 0; e < echoes; e++) {
		trace_mark_echo(t);
		for (size_t k = 0; k < m; k++) {
			if (unit(&s) < 0.07 || (runs[k] < 1 && unit(&s) >= runs[k]))
				continue;
			uint32_t a = img->funcs[path[k]].addr;
			for (uint32_t o = 0; o < cover[k]; o += 2)
				trace_push(t, a + o);
			if (loop[k] && cover[k] > 24)
				for (int r = 0; r < 3; r++)
					for (uint32_t o = 8; o < 24; o += 2)
						trace_push(t, a + o);
		}
	}
	free(path);
	free(cover);
	free(runs);
	free(loop);
}

typedef struct outcome {
	xb_prediction stock, hot, colour;
	xb_layout l;
} outcome;

/* Plans hot and colour for in and predicts them and the stock layout. */
static void plan_all(const xb_plan_input *in, outcome *o)
{
	xb_err err;
	xb_layout stock, hot;
	layout_init(&stock);
	layout_init(&hot);
	layout_init(&o->l);
	assert_int_equal(plan_hot.plan(in, &hot, &err), 0);
	assert_int_equal(plan_colour.plan(in, &o->l, &err), 0);
	assert_int_equal(plan_predict(in, &stock, &o->stock, &err), 0);
	assert_int_equal(plan_predict(in, &hot, &o->hot, &err), 0);
	assert_int_equal(plan_predict(in, &o->l, &o->colour, &err), 0);
	layout_free(&stock);
	layout_free(&hot);
}

/* What every colour layout must be: within the padding budget, each coloured function at
 * its offset in the way and each placed section at its own alignment, one entry per input
 * section. */
static void check_layout(const xb_plan_input *in, const xb_layout *l)
{
	const xb_image *img = in->img;
	xb_placement p;
	xb_err err;
	assert_int_equal(layout_place(img, in->tg, l, &p, &err), 0);
	assert_true(p.pad_bytes <= in->pad_budget);
	int8_t *seen = calloc(img->map.ninputs + 1, 1);
	for (size_t i = 0; i < l->n; i++) {
		const xb_layout_entry *e = &l->e[i];
		const xb_function *f = &img->funcs[e->func];
		uint32_t start = p.new_addr[e->func] - (f->addr - (uint32_t)img->map.inputs[f->input].addr);
		assert_int_equal(start % img->input_align[f->input], 0);
		if (e->place == XB_PLACE_COLOUR) {
			assert_int_equal(start & (target_way_bytes(in->tg) - 1), e->way_offset);
			assert_true(e->way_offset < target_way_bytes(in->tg));
		}
		assert_int_equal(seen[f->input], 0);
		seen[f->input] = 1;
	}
	free(seen);
	placement_free(&p);
}

typedef struct workload {
	size_t nfuncs;
	double frac, rare;
	uint64_t seed;
} workload;

static void run_workload(const workload *w, uint32_t pad_budget, outcome *o, xb_image *img,
			 xb_trace *t)
{
	synth_image(img, w->nfuncs, w->seed);
	path_trace(t, img, w->frac, w->rare, 20, w->seed);
	xb_plan_input in = {.img = img, .tg = &tg, .trace = t, .pad_budget = pad_budget};
	plan_all(&in, o);
	check_layout(&in, &o->l);
	printf("# %zu functions, frac %.2f, rare %.2f, seed %llu, pad budget %u: stock %.1f, "
	       "hot %.1f, colour %.1f (%.3f x hot, padding %u), OPT %.1f misses/echo\n",
	       w->nfuncs, w->frac, w->rare, (unsigned long long)w->seed, pad_budget,
	       o->stock.misses_per_echo, o->hot.misses_per_echo, o->colour.misses_per_echo,
	       o->colour.misses_per_echo / o->hot.misses_per_echo, o->colour.pad_bytes,
	       o->colour.opt_bound_per_echo);
}

static void workload_free(outcome *o, xb_image *img, xb_trace *t)
{
	layout_free(&o->l);
	trace_free(t);
	synth_image_free(img);
}

/* More lines per echo than the cache holds (OPT misses hundreds per echo), among cold
 * code: the hot block gathers them, colouring keeps two ways' worth resident and piles the
 * rest on a few sets. */
static void test_colour_under_capacity_pressure(void **state)
{
	(void)state;
	static const workload cases[] = {
		{400, 0.25, 0, 2},
		{400, 0.30, 0.2, 2},
		{600, 0.20, 0.2, 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		outcome o;
		xb_image img;
		xb_trace t;
		run_workload(&cases[i], 32768, &o, &img, &t);
		assert_true(o.colour.misses_per_echo <= 0.85 * o.hot.misses_per_echo);
		assert_true(o.hot.misses_per_echo <= o.stock.misses_per_echo);
		assert_true(o.colour.misses_per_echo >= o.colour.opt_bound_per_echo);
		workload_free(&o, &img, &t);
	}
	/* every function runs (as in the demo): no cold code to lay instead of padding, and
	 * gathering them in a block gains nothing over stock, but colouring still does */
	static const workload all_run = {120, 1.00, 0, 2};
	outcome o;
	xb_image img;
	xb_trace t;
	run_workload(&all_run, 32768, &o, &img, &t);
	assert_true(o.colour.misses_per_echo <= 0.85 * o.hot.misses_per_echo);
	assert_true(o.colour.misses_per_echo >= o.colour.opt_bound_per_echo);
	workload_free(&o, &img, &t);
}

/* Whatever the workload, colour is never predicted worse than the packed hot block (the
 * fallback), nor better than OPT. */
static void test_colour_never_worse_than_hot(void **state)
{
	(void)state;
	static const workload cases[] = {
		{200, 0.30, 0, 1},     /* fits the cache */
		{120, 1.00, 0, 2},     /* all code runs: no cold code to spare */
		{300, 0.80, 0.5, 4},   /* far more than the cache */
		{60, 1.00, 0, 6},      /* tiny */
	};
	static const uint32_t budgets[] = {0, 32768};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
			outcome o;
			xb_image img;
			xb_trace t;
			run_workload(&cases[i], budgets[b], &o, &img, &t);
			assert_true(o.colour.misses_per_echo <= o.hot.misses_per_echo);
			assert_true(o.colour.misses_per_echo >= o.colour.opt_bound_per_echo);
			if (budgets[b] == 0)
				for (size_t k = 0; k < o.l.n; k++)
					assert_int_equal(o.l.e[k].place, XB_PLACE_HOT);
			workload_free(&o, &img, &t);
		}
}

/* More padding buys more room for the lines that cannot stay: misses fall (weakly) as the
 * budget grows, and the budget always holds. */
static void test_colour_uses_the_budget(void **state)
{
	(void)state;
	static const workload w = {400, 0.25, 0, 2};
	static const uint32_t budgets[] = {0, 8192, 32768, 65536};
	double prev = INFINITY;
	for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
		outcome o;
		xb_image img;
		xb_trace t;
		run_workload(&w, budgets[b], &o, &img, &t);
		assert_true(o.colour.pad_bytes <= budgets[b]);
		assert_true(o.colour.misses_per_echo <= prev * 1.02);
		prev = o.colour.misses_per_echo;
		workload_free(&o, &img, &t);
	}
}

/* Functions that never run take the place of padding: even without a padding budget the
 * layout interleaves them with the hot code, and only they (no function that ran) are
 * added to the block. */
static void test_colour_fills_with_cold_code(void **state)
{
	(void)state;
	static const workload w = {400, 0.25, 0, 2};
	outcome o;
	xb_image img;
	xb_trace t;
	run_workload(&w, 0, &o, &img, &t);
	int8_t *ran = calloc(img.nfuncs + 1, 1);
	for (size_t i = 0; i < t.n; i++) {
		const xb_function *f = image_function_at(&img, t.addr[i]);
		if (f)
			ran[f - img.funcs] = 1;
	}
	xb_layout hot;
	layout_init(&hot);
	xb_plan_input in = {.img = &img, .tg = &tg, .trace = &t};
	xb_err err;
	assert_int_equal(plan_hot.plan(&in, &hot, &err), 0);
	size_t fillers = 0;
	for (size_t i = 0; i < o.l.n; i++) {
		assert_int_equal(o.l.e[i].place, XB_PLACE_HOT);
		fillers += !ran[o.l.e[i].func];
	}
	printf("# no padding budget: %zu never-run functions among %zu entries (hot block: %zu)\n",
	       fillers, o.l.n, hot.n);
	assert_true(fillers > 0);
	assert_int_equal(o.l.n - fillers, hot.n);
	assert_true(o.colour.misses_per_echo <= 0.85 * o.hot.misses_per_echo);
	layout_free(&hot);
	free(ran);
	workload_free(&o, &img, &t);

	/* from samples: only functions without a single sample fill */
	synth_image(&img, 300, 21);
	xb_samples s;
	samples_init(&s);
	synth_samples(&s, &img, 150, 200000, 4);
	xb_profile prof;
	profile_build(&prof, &img, &s, tg.cache.line);
	xb_plan_input sin = {.img = &img, .tg = &tg, .prof = &prof, .pad_budget = 8192};
	layout_init(&o.l);
	assert_int_equal(plan_colour.plan(&sin, &o.l, &err), 0);
	fillers = 0;
	for (size_t i = 0; i < o.l.n; i++) {
		const xb_func_profile *fp = &prof.func[o.l.e[i].func];
		if (fp->net <= 0) {
			assert_true(fp->busy == 0 && fp->idle == 0);
			fillers++;
		}
	}
	assert_true(fillers > 0);
	layout_free(&o.l);
	profile_free(&prof);
	samples_free(&s);
	synth_image_free(&img);
}

static void test_colour_is_deterministic(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 300, 3);
	xb_trace t;
	path_trace(&t, &img, 0.4, 0.2, 20, 3);
	xb_samples s;
	samples_init(&s);
	synth_samples(&s, &img, 120, 100000, 5);
	xb_profile prof;
	profile_build(&prof, &img, &s, tg.cache.line);
	xb_plan_input with_trace = {.img = &img, .tg = &tg, .trace = &t, .pad_budget = 32768};
	xb_plan_input with_samples = {.img = &img, .tg = &tg, .prof = &prof, .pad_budget = 32768};
	const xb_plan_input *ins[] = {&with_trace, &with_samples};
	for (int i = 0; i < 2; i++) {
		xb_layout a, b;
		layout_init(&a);
		layout_init(&b);
		xb_err err;
		assert_int_equal(plan_colour.plan(ins[i], &a, &err), 0);
		assert_int_equal(plan_colour.plan(ins[i], &b, &err), 0);
		assert_int_equal(a.n, b.n);
		assert_true(a.n > 0);
		assert_memory_equal(a.e, b.e, a.n * sizeof *a.e);
		assert_string_equal(a.strategy, "colour");
		layout_free(&a);
		layout_free(&b);
	}
	profile_free(&prof);
	samples_free(&s);
	trace_free(&t);
	synth_image_free(&img);
}

/* Without a trace the sample model decides: fewer sets hold more sampled lines than ways. */
static void test_colour_on_samples(void **state)
{
	(void)state;
	static const struct {
		size_t n, nhot;
		uint32_t budget;
	} cases[] = {{300, 60, 8192}, {300, 150, 32768}, {400, 100, 32768}, {1000, 200, 65536}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		xb_image img;
		synth_image(&img, cases[i].n, 21);
		xb_samples s;
		samples_init(&s);
		synth_samples(&s, &img, cases[i].nhot, 200000, 4);
		xb_profile prof;
		profile_build(&prof, &img, &s, tg.cache.line);
		xb_plan_input in = {.img = &img, .tg = &tg, .prof = &prof, .pad_budget = cases[i].budget};
		outcome o;
		plan_all(&in, &o);
		check_layout(&in, &o.l);
		printf("# samples: %zu functions, %zu sampled, pad budget %u: conflict score hot %.0f, "
		       "colour %.0f (%.3f x hot); sets over ways %u -> %u\n",
		       cases[i].n, cases[i].nhot, cases[i].budget, o.hot.conflict_score,
		       o.colour.conflict_score, o.colour.conflict_score / o.hot.conflict_score,
		       o.hot.sets_over_ways, o.colour.sets_over_ways);
		assert_true(isnan(o.colour.misses_per_echo));
		assert_true(o.colour.conflict_score < 0.9 * o.hot.conflict_score);
		layout_free(&o.l);
		profile_free(&prof);
		samples_free(&s);
		synth_image_free(&img);
	}
}

/* Several functions in one input section move together: one entry, the section's lines
 * all counted, and each function keeps its offset in the section. */
static void test_colour_shared_sections(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 200, 13);
	/* f11 joins f10's section (they are adjacent: f11 is 2-byte aligned) */
	xb_map_input *a = &img.map.inputs[img.funcs[10].input];
	a->size = img.funcs[11].addr + img.funcs[11].size - a->addr;
	img.map.inputs[img.funcs[11].input].size = 0;
	img.funcs[11].input = img.funcs[10].input;
	xb_trace t;
	path_trace(&t, &img, 0.6, 0, 20, 13);
	xb_plan_input in = {.img = &img, .tg = &tg, .trace = &t, .pad_budget = 32768};
	outcome o;
	plan_all(&in, &o);
	check_layout(&in, &o.l);
	xb_placement p;
	xb_err err;
	assert_int_equal(layout_place(&img, &tg, &o.l, &p, &err), 0);
	assert_int_equal(p.new_addr[11] - p.new_addr[10], img.funcs[11].addr - img.funcs[10].addr);
	assert_true(o.colour.misses_per_echo <= o.hot.misses_per_echo);
	placement_free(&p);
	layout_free(&o.l);
	trace_free(&t);
	synth_image_free(&img);
}

/* Moves a synthetic image's flash contents to base (another target's flash). */
static void rebase_flash(xb_image *img, uint32_t base)
{
	uint32_t d = base - 0x10000000;
	for (size_t i = 0; i < img->nfuncs; i++)
		img->funcs[i].addr += d;
	for (size_t i = 0; i < img->map.ninputs; i++)
		if (img->map.inputs[i].out_section == 0)
			img->map.inputs[i].addr += d;
	img->map.outputs[0].addr += d;
	img->map.outputs[0].lma += d;
	img->map.outputs[1].lma += d;
	img->sections[0].addr += d;
	img->markers[0].addr += d;
	img->markers[1].addr += d;
}

/* Nothing assumes the RP2040's geometry: four ways of 32-byte lines, another flash base. */
static void test_colour_other_geometry(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 600, 7);
	rebase_flash(&img, 0x60000000);
	xb_trace t;
	path_trace(&t, &img, 0.35, 0.2, 20, 7);
	xb_plan_input in = {.img = &img, .tg = &tg4, .trace = &t, .pad_budget = 32768};
	outcome o;
	plan_all(&in, &o);
	check_layout(&in, &o.l);
	printf("# 4 ways, 32-byte lines: stock %.1f, hot %.1f, colour %.1f (%.3f x hot, padding %u), "
	       "OPT %.1f misses/echo\n", o.stock.misses_per_echo, o.hot.misses_per_echo,
	       o.colour.misses_per_echo, o.colour.misses_per_echo / o.hot.misses_per_echo,
	       o.colour.pad_bytes, o.colour.opt_bound_per_echo);
	assert_true(o.colour.misses_per_echo <= o.hot.misses_per_echo);
	assert_true(o.colour.misses_per_echo >= o.colour.opt_bound_per_echo);
	layout_free(&o.l);
	trace_free(&t);
	synth_image_free(&img);
}

/* The SRAM planner colours what stays in flash after its SRAM entries. */
static void test_colour_after_sram(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 300, 3);
	xb_trace t;
	path_trace(&t, &img, 0.4, 0, 30, 3);
	xb_plan_input in = {.img = &img, .tg = &tg, .trace = &t, .sram_budget = 4096,
			    .pad_budget = 32768};
	xb_layout l;
	layout_init(&l);
	xb_err err;
	assert_int_equal(plan_sram.plan(&in, &l, &err), 0);
	check_layout(&in, &l);
	size_t k = 0;
	while (k < l.n && l.e[k].place == XB_PLACE_SRAM)
		k++;
	assert_true(k > 0);
	for (; k < l.n; k++)
		assert_int_not_equal(l.e[k].place, XB_PLACE_SRAM);
	xb_prediction pr;
	assert_int_equal(plan_predict(&in, &l, &pr, &err), 0);
	assert_true(pr.extra_ram <= in.sram_budget && pr.pad_bytes <= in.pad_budget);
	layout_free(&l);
	trace_free(&t);
	synth_image_free(&img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colour_under_capacity_pressure),
		cmocka_unit_test(test_colour_never_worse_than_hot),
		cmocka_unit_test(test_colour_uses_the_budget),
		cmocka_unit_test(test_colour_fills_with_cold_code),
		cmocka_unit_test(test_colour_is_deterministic),
		cmocka_unit_test(test_colour_on_samples),
		cmocka_unit_test(test_colour_shared_sections),
		cmocka_unit_test(test_colour_after_sram),
		cmocka_unit_test(test_colour_other_geometry),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
