/* test_plan: layouts, placement as GNU ld does it, planners and predictions on synthetic
 * images. The GNU ld round trip itself is tests/integration/test_roundtrip.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/plan.h"
#include "../common/synth.h"

static xb_target tg;

static int setup(void **state)
{
	(void)state;
	xb_err err;
	if (target_load_file(&tg, "targets/rp2040.target", &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static uint32_t up(uint32_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

static uint32_t align_of(const xb_image *img, int f)
{
	return img->input_align[img->funcs[f].input];
}

static void test_place_hot_then_default_order(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 40, 7);
	xb_layout l;
	layout_init(&l);
	layout_add(&l, 10, XB_PLACE_HOT, 0);
	layout_add(&l, 3, XB_PLACE_HOT, 0);
	xb_placement p;
	xb_err err;
	assert_int_equal(layout_place(&img, &tg, &l, &p, &err), 0);
	/* the hot block starts at the marker, in layout order */
	uint32_t a10 = up(0x100001C0, align_of(&img, 10));
	assert_int_equal(p.new_addr[10], a10);
	uint32_t a3 = up(a10 + img.funcs[10].size, align_of(&img, 3));
	assert_int_equal(p.new_addr[3], a3);
	/* the rest follow in their original order, each at its own alignment */
	uint32_t cur = a3 + img.funcs[3].size;
	for (int i = 0; i < 40; i++) {
		if (i == 10 || i == 3)
			continue;
		cur = up(cur, align_of(&img, i));
		assert_int_equal(p.new_addr[i], cur);
		cur += img.funcs[i].size;
	}
	assert_int_equal(p.hot_start, 0x100001C0);
	assert_int_equal(p.hot_end, a3 + img.funcs[3].size);
	assert_int_equal(p.pad_bytes, 0);
	assert_int_equal(p.extra_ram, 0);
	placement_free(&p);
	layout_free(&l);
	synth_image_free(&img);
}

static void test_place_colour_and_sram(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 40, 9);
	xb_layout l;
	layout_init(&l);
	layout_add(&l, 5, XB_PLACE_COLOUR, 0x1a8);
	layout_add(&l, 6, XB_PLACE_HOT, 0);
	layout_add(&l, 7, XB_PLACE_SRAM, 0);
	layout_add(&l, 2, XB_PLACE_SRAM, 0);
	xb_placement p;
	xb_err err;
	assert_int_equal(layout_place(&img, &tg, &l, &p, &err), 0);
	assert_int_equal(p.new_addr[5] & 0x1fff, 0x1a8);
	assert_true(p.new_addr[5] >= 0x100001C0 && p.new_addr[5] < 0x100001C0 + 0x2000);
	assert_int_equal(p.pad_bytes, p.new_addr[5] - 0x100001C0);
	assert_int_equal(p.new_addr[6], up(p.new_addr[5] + img.funcs[5].size, align_of(&img, 6)));
	/* SRAM functions in order at the RAM function section; .data after them */
	assert_int_equal(p.new_addr[7], 0x20000000);
	assert_int_equal(p.new_addr[2], up(0x20000000 + img.funcs[7].size, align_of(&img, 2)));
	assert_int_equal(p.extra_ram, p.new_addr[2] + img.funcs[2].size - 0x20000000);
	placement_free(&p);
	layout_free(&l);
	synth_image_free(&img);
}

static void test_place_keeps_script_alignment_barrier(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 20, 11);
	/* pretend the script had `. = ALIGN(64)` before f12: move f12.. up to a 64-byte boundary */
	int in12 = img.funcs[12].input;
	uint32_t old = (uint32_t)img.map.inputs[in12].addr;
	uint32_t shift = up(old + 1, 64) - old;
	for (size_t i = 12; i < 20; i++) {
		img.funcs[i].addr += shift;
		img.map.inputs[img.funcs[i].input].addr += shift;
	}
	img.map.outputs[0].size += shift;
	xb_layout l;
	layout_init(&l);
	layout_add(&l, 15, XB_PLACE_HOT, 0);
	xb_placement p;
	xb_err err;
	assert_int_equal(layout_place(&img, &tg, &l, &p, &err), 0);
	assert_int_equal(p.new_addr[12] % 64, 0);
	assert_true(p.new_addr[12] > p.new_addr[11]);
	placement_free(&p);
	layout_free(&l);
	synth_image_free(&img);
}

static void test_place_refuses_linked_layout(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 10, 3);
	img.markers[1].addr += 0x40; /* hot_end != hot_start: a layout is linked in */
	xb_layout l;
	layout_init(&l);
	xb_placement p;
	xb_err err;
	assert_int_equal(layout_place(&img, &tg, &l, &p, &err), -1);
	assert_non_null(strstr(err.msg, "stock build"));
	layout_free(&l);
	synth_image_free(&img);
}

static void test_apply_trace_moves_fetches(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 10, 5);
	xb_layout l;
	layout_init(&l);
	layout_add(&l, 4, XB_PLACE_HOT, 0);
	layout_add(&l, 8, XB_PLACE_SRAM, 0);
	xb_placement p;
	xb_err err;
	assert_int_equal(layout_place(&img, &tg, &l, &p, &err), 0);
	xb_trace t, m;
	trace_init(&t);
	trace_push(&t, img.funcs[4].addr + 6);
	trace_mark_echo(&t);
	trace_push(&t, 0x13000000 + (img.funcs[4].addr - 0x10000000) + 2); /* uncached alias */
	trace_push(&t, img.funcs[8].addr + 10);
	trace_push(&t, 0x00000100); /* ROM: not a function, kept */
	layout_apply_trace(&img, &tg, &p, &t, &m);
	assert_int_equal(m.n, 4);
	assert_int_equal(m.necho, 1);
	assert_int_equal(m.echo[0], 1);
	assert_int_equal(m.addr[0], p.new_addr[4] + 6);
	assert_int_equal(m.addr[1], 0x13000000 + (p.new_addr[4] - 0x10000000) + 2);
	assert_int_equal(m.addr[2], 0x20000000 + 10);
	assert_int_equal(m.addr[3], 0x100);
	trace_free(&t);
	trace_free(&m);
	placement_free(&p);
	layout_free(&l);
	synth_image_free(&img);
}

static void test_layout_file_round_trip(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 10, 5);
	xb_layout l, r;
	layout_init(&l);
	layout_init(&r);
	strcpy(l.strategy, "colour");
	layout_add(&l, 4, XB_PLACE_HOT, 0);
	layout_add(&l, 2, XB_PLACE_COLOUR, 0x123);
	layout_add(&l, 7, XB_PLACE_SRAM, 0);
	char path[] = "/tmp/xb-layout-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	xb_err err;
	assert_int_equal(layout_write_file(&l, &img, path, &err), 0);
	assert_int_equal(layout_read_file(&r, &img, path, &err), 0);
	assert_string_equal(r.strategy, "colour");
	assert_int_equal(r.n, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(r.e[i].func, l.e[i].func);
		assert_int_equal(r.e[i].place, l.e[i].place);
		assert_int_equal(r.e[i].way_offset, l.e[i].way_offset);
	}
	/* an unknown name is an error naming the line */
	FILE *f = fopen(path, "w");
	fputs("hot f1\nhot nosuch\n", f);
	fclose(f);
	assert_int_equal(layout_read_file(&r, &img, path, &err), -1);
	assert_non_null(strstr(err.msg, ":2:"));
	assert_non_null(strstr(err.msg, "nosuch"));
	unlink(path);
	layout_free(&l);
	layout_free(&r);
	synth_image_free(&img);
}

typedef struct planned {
	xb_image img;
	xb_samples s;
	xb_profile prof;
	xb_plan_input in;
} planned;

static void planned_init(planned *p, size_t n, size_t nhot)
{
	synth_image(&p->img, n, 21);
	samples_init(&p->s);
	synth_samples(&p->s, &p->img, nhot, 200000, 4);
	profile_build(&p->prof, &p->img, &p->s, tg.cache.line);
	p->in = (xb_plan_input){.img = &p->img, .tg = &tg, .prof = &p->prof,
				.sram_budget = 4096, .pad_budget = 32768};
}

static void planned_free(planned *p)
{
	profile_free(&p->prof);
	samples_free(&p->s);
	synth_image_free(&p->img);
}

static void test_planners_are_deterministic(void **state)
{
	(void)state;
	planned p;
	planned_init(&p, 300, 150);
	for (int k = 0; planners[k]; k++) {
		xb_layout a, b;
		layout_init(&a);
		layout_init(&b);
		xb_err err;
		assert_int_equal(planners[k]->plan(&p.in, &a, &err), 0);
		assert_int_equal(planners[k]->plan(&p.in, &b, &err), 0);
		assert_int_equal(a.n, b.n);
		assert_true(a.n > 0);
		assert_memory_equal(a.e, b.e, a.n * sizeof *a.e);
		layout_free(&a);
		layout_free(&b);
	}
	planned_free(&p);
}

static void test_colour_beats_hot_on_sample_model(void **state)
{
	(void)state;
	planned p;
	planned_init(&p, 300, 150); /* ~150 x 310 B hot: more than the 16 KB cache */
	xb_layout hot, col, stock;
	layout_init(&hot);
	layout_init(&col);
	layout_init(&stock);
	xb_err err;
	assert_int_equal(plan_hot.plan(&p.in, &hot, &err), 0);
	assert_int_equal(plan_colour.plan(&p.in, &col, &err), 0);
	xb_prediction ph, pc, ps;
	assert_int_equal(plan_predict(&p.in, &hot, &ph, &err), 0);
	assert_int_equal(plan_predict(&p.in, &col, &pc, &err), 0);
	assert_int_equal(plan_predict(&p.in, &stock, &ps, &err), 0);
	assert_string_equal(pc.model, "sample conflict model");
	assert_true(isnan(pc.misses_per_echo));
	assert_true(pc.conflict_score < ph.conflict_score);
	assert_true(pc.sets_over_ways <= ph.sets_over_ways);
	assert_true(pc.pad_bytes <= p.in.pad_budget);
	/* no padding budget: nothing can be coloured */
	p.in.pad_budget = 0;
	xb_layout nopad;
	layout_init(&nopad);
	assert_int_equal(plan_colour.plan(&p.in, &nopad, &err), 0);
	for (size_t i = 0; i < nopad.n; i++)
		assert_int_equal(nopad.e[i].place, XB_PLACE_HOT);
	layout_free(&nopad);
	layout_free(&hot);
	layout_free(&col);
	layout_free(&stock);
	planned_free(&p);
}

static void test_sram_budget_and_busy_wait(void **state)
{
	(void)state;
	planned p;
	planned_init(&p, 200, 100);
	xb_layout l, names;
	layout_init(&l);
	layout_init(&names);
	xb_err err;
	assert_int_equal(plan_sram.plan(&p.in, &l, &err), 0);
	assert_int_equal(plan_names.plan(&p.in, &names, &err), 0);
	size_t nsram = 0;
	for (size_t i = 0; i < l.n; i++) {
		if (l.e[i].place != XB_PLACE_SRAM)
			continue;
		nsram++;
		assert_int_not_equal(l.e[i].func, 0); /* f0 is the idle loop */
	}
	assert_true(nsram > 0);
	xb_prediction pr;
	assert_int_equal(plan_predict(&p.in, &l, &pr, &err), 0);
	assert_true(pr.extra_ram > 0 && pr.extra_ram <= p.in.sram_budget);
	/* names: the same SRAM list and nothing else */
	size_t k = 0;
	for (size_t i = 0; i < names.n; i++) {
		assert_int_equal(names.e[i].place, XB_PLACE_SRAM);
		while (k < l.n && l.e[k].place != XB_PLACE_SRAM)
			k++;
		assert_true(k < l.n);
		assert_int_equal(names.e[i].func, l.e[k].func);
		k++;
	}
	assert_int_equal(names.n, nsram);
	layout_free(&l);
	layout_free(&names);
	planned_free(&p);
}

/* A trace that walks the first nhot functions every echo. */
static void cyclic_trace(xb_trace *t, const xb_image *img, size_t nhot, int echoes)
{
	trace_init(t);
	for (int e = 0; e < echoes; e++) {
		trace_mark_echo(t);
		for (size_t i = 0; i < nhot; i++)
			for (uint32_t a = 0; a < img->funcs[i].size; a += 2)
				trace_push(t, img->funcs[i].addr + a);
	}
}

static void test_trace_prediction_orders_layouts(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 200, 33);
	xb_trace t;
	cyclic_trace(&t, &img, 60, 6); /* about 18 KB a pass: just over the cache */
	xb_plan_input in = {.img = &img, .tg = &tg, .trace = &t, .sram_budget = 4096,
			    .pad_budget = 32768};
	xb_layout stock, hot, col, sram;
	layout_init(&stock);
	layout_init(&hot);
	layout_init(&col);
	layout_init(&sram);
	xb_err err;
	assert_int_equal(plan_hot.plan(&in, &hot, &err), 0);
	assert_int_equal(plan_colour.plan(&in, &col, &err), 0);
	assert_int_equal(plan_sram.plan(&in, &sram, &err), 0);
	xb_prediction ps, ph, pc, pr;
	assert_int_equal(plan_predict(&in, &stock, &ps, &err), 0);
	assert_int_equal(plan_predict(&in, &hot, &ph, &err), 0);
	assert_int_equal(plan_predict(&in, &col, &pc, &err), 0);
	assert_int_equal(plan_predict(&in, &sram, &pr, &err), 0);
	assert_string_equal(pc.model, "trace replay");
	assert_true(pc.misses_per_echo <= ph.misses_per_echo);
	assert_true(pr.misses_per_echo < pc.misses_per_echo);
	assert_true(pc.opt_bound_per_echo <= pc.misses_per_echo);
	assert_true(ps.opt_bound_per_echo <= ps.misses_per_echo);
	trace_free(&t);
	layout_free(&stock);
	layout_free(&hot);
	layout_free(&col);
	layout_free(&sram);
	synth_image_free(&img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_hot_then_default_order),
		cmocka_unit_test(test_place_colour_and_sram),
		cmocka_unit_test(test_place_keeps_script_alignment_barrier),
		cmocka_unit_test(test_place_refuses_linked_layout),
		cmocka_unit_test(test_apply_trace_moves_fetches),
		cmocka_unit_test(test_layout_file_round_trip),
		cmocka_unit_test(test_planners_are_deterministic),
		cmocka_unit_test(test_colour_beats_hot_on_sample_model),
		cmocka_unit_test(test_sram_budget_and_busy_wait),
		cmocka_unit_test(test_trace_prediction_orders_layouts),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
