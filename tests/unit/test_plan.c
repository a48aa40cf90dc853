/* test_plan: layouts, placement as GNU ld does it, planners and predictions on synthetic
 * images; the Thumb calls of an image, the long-branch veneers of calls between flash and
 * SRAM (where ld puts them, how the trace goes through them), a trace of 32-bit word
 * fetches followed halfword by halfword, the measurement's idle and traffic windows, the
 * SRAM selection (whole libraries, code that runs before the start-up copy) and the visit
 * heat. The GNU ld round trip itself is tests/integration/test_roundtrip.sh. */
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
#include "../../core/plan_heat.h"
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

/* ---- what GNU ld and the core do that a prediction must follow ---- */

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* A Thumb BL at site (the bytes at p) to target. */
static void put_bl(uint8_t *p, uint32_t site, uint32_t target)
{
	uint32_t off = target - (site + 4);
	uint32_t s = (off >> 24) & 1;
	uint32_t j1 = (!((off >> 23) & 1)) ^ s, j2 = (!((off >> 22) & 1)) ^ s;
	put16(p, 0xF000 | s << 10 | ((off >> 12) & 0x3FF));
	put16(p + 2, 0xD000 | j1 << 13 | j2 << 11 | ((off >> 1) & 0x7FF));
}

/* The code of a synthetic image: NOPs (MOV R8, R8) everywhere, with BLs at the sites. */
static void synth_code(xb_code *c, const xb_image *img, const uint32_t *site,
		       const uint32_t *target, size_t n)
{
	uint32_t lo = 0x10000100, hi = (uint32_t)(img->map.outputs[0].addr + img->map.outputs[0].size);
	uint8_t *bytes = xmalloc(hi - lo);
	for (uint32_t a = lo; a < hi; a += 2)
		put16(bytes + (a - lo), 0x46C0);
	for (size_t k = 0; k < n; k++)
		put_bl(bytes + (site[k] - lo), site[k], target[k]);
	calls_init(c);
	calls_add_thumb(c, lo, bytes, hi - lo);
	calls_sort(c);
	free(bytes);
}

/* Places the synthetic image with f3 in SRAM, with the given calls. */
static void place_f3_in_sram(const xb_image *img, const uint32_t *site, const uint32_t *target,
			     size_t n, xb_code *c, xb_placement *p)
{
	synth_code(c, img, site, target, n);
	xb_layout l;
	layout_init(&l);
	layout_add(&l, 3, XB_PLACE_SRAM, 0);
	xb_err err;
	assert_int_equal(layout_place_calls(img, &tg, &l, c, p, &err), 0);
	layout_free(&l);
}

static void test_calls_decode(void **state)
{
	(void)state;
	uint8_t code[32];
	uint32_t base = 0x10001000;
	put_bl(code, base, base + 0x2468);          /* forward */
	put16(code + 4, 0x4798);                    /* BLX R3 */
	put_bl(code + 6, base + 6, base - 0x1000);  /* backward, starting at 2 mod 4 */
	put16(code + 10, 0xF380);                   /* MSR: 32-bit, not a call */
	put16(code + 12, 0x8808);
	put16(code + 14, 0x4770);                   /* BX LR */
	put16(code + 16, 0xE7FC);                   /* B . - 4 */
	put16(code + 18, 0xD1FE);                   /* BNE . */
	put16(code + 20, 0xBD10);                   /* POP {R4, PC} */
	put16(code + 22, 0x4687);                   /* MOV PC, R0 */
	put16(code + 24, 0x2001);                   /* MOVS R0, #1 */
	put16(code + 26, 0xDF00);                   /* SVC 0 */
	put16(code + 28, 0x46C0);
	put16(code + 30, 0x46C0);
	xb_code c;
	calls_init(&c);
	calls_add_thumb(&c, base, code, sizeof code);
	calls_sort(&c);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.v[0].site, base);
	assert_int_equal(c.v[0].target, base + 0x2468);
	assert_int_equal(c.v[1].site, base + 6);
	assert_int_equal(c.v[1].target, base - 0x1000);
	assert_true(code_is_return_point(&c, base + 4));   /* after the first BL */
	assert_true(code_is_return_point(&c, base + 6));   /* after BLX R3 */
	assert_true(code_is_return_point(&c, base + 10));  /* after the second BL */
	assert_false(code_is_return_point(&c, base + 14));
	assert_int_equal(calls_lower_bound(&c, base + 2), 1);
	uint32_t lo, hi;
	assert_true(code_thumb_span(&c, base + 30, &lo, &hi));
	assert_int_equal(lo, base);
	assert_int_equal(hi, base + 32);
	assert_false(code_thumb_span(&c, base + 32, &lo, &hi));
	xb_insn in;
	struct {
		uint32_t at;
		enum xb_flow flow;
		unsigned size;
		uint32_t target;
	} want[] = {
		{0, XB_FLOW_CALL, 4, base + 0x2468}, {4, XB_FLOW_INDIRECT, 2, 0},
		{6, XB_FLOW_CALL, 4, base - 0x1000}, {10, XB_FLOW_NEXT, 4, 0},
		{14, XB_FLOW_RETURN, 2, 0}, {16, XB_FLOW_JUMP, 2, base + 16 + 4 - 8},
		{18, XB_FLOW_COND, 2, base + 18}, {20, XB_FLOW_RETURN, 2, 0},
		{22, XB_FLOW_INDIRECT, 2, 0}, {24, XB_FLOW_NEXT, 2, 0},
		{26, XB_FLOW_INDIRECT, 2, 0},
	};
	for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
		assert_true(code_insn(&c, base + want[k].at, &in));
		assert_int_equal(in.flow, want[k].flow);
		assert_int_equal(in.size, want[k].size);
		if (want[k].target)
			assert_int_equal(in.target, want[k].target);
	}
	assert_false(code_insn(&c, base + 40, &in));
	calls_free(&c);
}

/* f3 to SRAM, called from f1 and f5 (one veneer in flash) and calling f7 and f9 (two
 * veneers in SRAM). */
static void test_veneers_placed_like_ld(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 20, 3);
	uint32_t site[4] = {up(img.funcs[1].addr, 4), up(img.funcs[5].addr, 4) + 4,
			    up(img.funcs[3].addr, 4), up(img.funcs[3].addr, 4) + 4};
	uint32_t target[4] = {img.funcs[3].addr, img.funcs[3].addr, img.funcs[9].addr,
			      img.funcs[7].addr};
	xb_code c;
	xb_placement p;
	place_f3_in_sram(&img, site, target, 4, &c, &p);
	assert_int_equal(p.nveneers, 3);
	assert_int_equal(p.veneer_bytes_flash, 16);
	assert_int_equal(p.veneer_bytes_ram, 32);
	/* flash: the stub section after the last input of .text */
	uint32_t last_end = p.new_addr[19] + img.funcs[19].size;
	assert_int_equal(p.veneers[0].target, img.funcs[3].addr);
	assert_int_equal(p.veneers[0].addr, up(last_end, 4));
	/* SRAM: after the last RAM function, by target address; .data behind them */
	assert_int_equal(p.new_addr[3], 0x20000000);
	uint32_t stub = up(0x20000000 + img.funcs[3].size, 4);
	assert_int_equal(p.veneers[1].target, img.funcs[7].addr);
	assert_int_equal(p.veneers[1].addr, stub);
	assert_int_equal(p.veneers[2].target, img.funcs[9].addr);
	assert_int_equal(p.veneers[2].addr, stub + 16);
	assert_int_equal(p.input_addr[img.map.ninputs - 1], stub + 32);
	assert_int_equal(p.extra_ram, stub + 32 - 0x20000000);
	/* every call between flash and SRAM goes through its veneer */
	assert_int_equal(p.nvcalls, 4);
	for (size_t k = 0; k < 4; k++)
		assert_int_equal(p.vcalls[k].veneer,
				 p.vcalls[k].target == img.funcs[3].addr ? 0
				 : p.vcalls[k].target == img.funcs[7].addr ? 1 : 2);
	/* the load image of .data follows the text in flash, grown by the veneers */
	assert_int_equal(p.output_load[1], up(p.veneers[0].addr + 16, 1));
	/* without the calls, no veneer */
	placement_free(&p);
	calls_free(&c);
	place_f3_in_sram(&img, NULL, NULL, 0, &c, &p);
	assert_int_equal(p.nveneers, 0);
	placement_free(&p);
	calls_free(&c);
	synth_image_free(&img);
}

static int first_at_2_mod_4(const xb_image *img, uint32_t min_size)
{
	for (size_t i = 1; i < img->nfuncs; i++)
		if ((img->funcs[i].addr & 3) == 2 && img->funcs[i].size >= min_size)
			return (int)i;
	return -1;
}

/* A function at 2 mod 4 moved to 0 mod 4: the stock word holding its first halfword also
 * holds the previous function's last, and each later word's two halfwords land in two
 * words. */
static void test_trace_followed_by_halfword(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 30, 5);
	int k = first_at_2_mod_4(&img, 32);
	assert_true(k > 0);
	xb_code c;
	synth_code(&c, &img, NULL, NULL, 0);
	xb_layout l;
	layout_init(&l);
	layout_add(&l, k, XB_PLACE_HOT, 0);
	xb_placement p;
	xb_err err;
	assert_int_equal(layout_place_calls(&img, &tg, &l, &c, &p, &err), 0);
	uint32_t start = img.funcs[k].addr, n = p.new_addr[k];
	assert_int_equal(n & 3, 0);
	xb_trace t, m;
	trace_init(&t);
	trace_mark_echo(&t);
	for (uint32_t w = start - 2; w <= start + 6; w += 4)
		trace_push(&t, w);
	trace_push(&t, img.funcs[0].addr); /* a jump elsewhere */
	layout_apply_trace(&img, &tg, &p, &t, &m);
	/* start .. start + 8 ran: words n, n + 4, n + 8 */
	assert_true(m.n >= 4);
	assert_int_equal(m.addr[0], n);
	assert_int_equal(m.addr[1], n + 4);
	assert_int_equal(m.addr[2], n + 8);
	assert_int_equal(m.addr[3], p.new_addr[0] & ~3u);
	trace_free(&m);

	/* a trace of every instruction's address is moved address by address */
	trace_free(&t);
	trace_init(&t);
	for (uint32_t h = start; h < start + 10; h += 2)
		trace_push(&t, h);
	layout_apply_trace(&img, &tg, &p, &t, &m);
	assert_int_equal(m.n, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(m.addr[i], n + 2 * i);
	trace_free(&m);
	trace_free(&t);
	placement_free(&p);
	layout_free(&l);
	calls_free(&c);
	synth_image_free(&img);
}

/* f1 calls f3, which goes to SRAM: the moved trace runs through the veneer. */
static void test_trace_goes_through_veneer(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 20, 3);
	uint32_t site = up(img.funcs[1].addr, 4), target = img.funcs[3].addr;
	assert_true(site + 4 <= img.funcs[1].addr + img.funcs[1].size);
	xb_code c;
	xb_placement p;
	place_f3_in_sram(&img, &site, &target, 1, &c, &p);
	assert_int_equal(p.nveneers, 1);
	uint32_t v = p.veneers[0].addr;
	xb_trace t, m;
	trace_init(&t);
	trace_mark_echo(&t);
	trace_push(&t, site);          /* the BL */
	trace_push(&t, target & ~3u);  /* f3's first word */
	layout_apply_trace(&img, &tg, &p, &t, &m);
	assert_int_equal(m.n, 6);
	assert_int_equal(m.addr[0], p.new_addr[1] + (site - img.funcs[1].addr));
	assert_int_equal(m.addr[1], v);
	assert_int_equal(m.addr[2], v + 12); /* the literal */
	assert_int_equal(m.addr[3], v + 4);
	assert_int_equal(m.addr[4], v + 8);
	assert_int_equal(m.addr[5], 0x20000000);
	trace_free(&m);
	trace_free(&t);
	placement_free(&p);
	calls_free(&c);
	synth_image_free(&img);
}

/* Misses per echo as measured: the traffic window's minus the idle window's. */
static void test_window_misses(void **state)
{
	(void)state;
	xb_trace t;
	trace_init(&t);
	trace_push(&t, XB_TRACE_MARK_IDLE);
	trace_push(&t, 0x10000100); /* A: miss */
	trace_push(&t, 0x10000200); /* B: miss */
	trace_push(&t, XB_TRACE_MARK_TRAFFIC);
	trace_mark_echo(&t);
	trace_push(&t, 0x10000100); /* A: hit */
	trace_push(&t, 0x10000300); /* C: miss */
	trace_mark_echo(&t);
	trace_push(&t, 0x10000400); /* D: miss */
	trace_push(&t, 0x10000500); /* E: miss */
	trace_push(&t, XB_TRACE_MARK_END);
	trace_push(&t, 0x10000600); /* after the window */
	trace_mark_echo(&t);
	double per_echo;
	xb_err err;
	assert_int_equal(plan_window_misses(&tg, &t, &per_echo, &err), 0);
	assert_true(per_echo > 0.499 && per_echo < 0.501); /* (3 - 2) / 2 */
	trace_free(&t);
	trace_init(&t);
	trace_mark_echo(&t);
	trace_push(&t, 0x10000100);
	assert_int_equal(plan_window_misses(&tg, &t, &per_echo, &err), 1);
	trace_free(&t);
}

/* f0 is the reset handler, f1 runs before the start-up copy reads the load image of .data;
 * f0..f5 run in every echo. */
static void boot_trace(xb_trace *t, const xb_image *img)
{
	trace_init(t);
	trace_push(t, img->funcs[0].addr);
	trace_push(t, img->funcs[1].addr);
	trace_push(t, (uint32_t)img->map.outputs[1].lma + 4);
	trace_push(t, img->funcs[0].addr + 2);
	for (int e = 0; e < 4; e++) {
		trace_mark_echo(t);
		for (int f = 0; f < 6; f++)
			for (uint32_t o = 0; o < 16; o += 4)
				trace_push(t, (img->funcs[f].addr & ~3u) + o);
	}
}

static int in_sram(const xb_layout *l, int f)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].func == f && l->e[i].place == XB_PLACE_SRAM)
			return 1;
	return 0;
}

static void test_sram_keeps_boot_code_and_takes_libraries(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 20, 7);
	img.entry = img.funcs[0].addr;
	xb_trace t;
	boot_trace(&t, &img);
	xb_plan_input in = {.img = &img, .tg = &tg, .trace = &t, .sram_budget = 65536,
			    .pad_budget = 8192};
	xb_layout l;
	layout_init(&l);
	xb_err err;
	assert_int_equal(plan_sram.plan(&in, &l, &err), 0);
	assert_false(in_sram(&l, 0));
	assert_false(in_sram(&l, 1));
	for (int f = 2; f < 6; f++)
		assert_true(in_sram(&l, f));
	assert_int_equal(l.nrefused, 2);
	assert_int_equal(l.refused[0].func + l.refused[1].func, 1);
	for (size_t i = 0; i < 2; i++)
		assert_non_null(strstr(l.refused[i].why, l.refused[i].func == 0 ? "reset handler"
										: "before"));
	layout_free(&l);

	/* whole libraries: every function but the boot code, whatever the budget */
	in.sram_libraries = "synth";
	in.sram_budget = 16;
	layout_init(&l);
	assert_int_equal(plan_names.plan(&in, &l, &err), 0);
	size_t n = 0;
	for (size_t f = 0; f < img.nfuncs; f++)
		n += in_sram(&l, (int)f);
	assert_int_equal(n, img.nfuncs - 2);
	layout_free(&l);
	in.sram_libraries = "synth,nope";
	layout_init(&l);
	assert_int_equal(plan_sram.plan(&in, &l, &err), -1);
	assert_non_null(strstr(err.msg, "no library 'nope'"));
	layout_free(&l);

	/* without a trace from reset: the reset handler and what it calls stay */
	trace_free(&t);
	trace_init(&t);
	trace_mark_echo(&t);
	for (int f = 0; f < 6; f++)
		trace_push(&t, img.funcs[f].addr & ~3u);
	uint32_t site = up(img.funcs[0].addr, 4), target = img.funcs[4].addr;
	xb_code c;
	synth_code(&c, &img, &site, &target, 1);
	in.calls = &c;
	in.sram_libraries = NULL;
	in.sram_budget = 65536;
	layout_init(&l);
	assert_int_equal(plan_names.plan(&in, &l, &err), 0);
	assert_false(in_sram(&l, 0));
	assert_false(in_sram(&l, 4));
	assert_true(in_sram(&l, 1));
	layout_free(&l);
	calls_free(&c);
	trace_free(&t);
	synth_image_free(&img);
}

/* Heat counts visits: a line the echo comes back to after a long stretch counts twice, a
 * loop through it once. */
static void test_heat_counts_visits(void **state)
{
	(void)state;
	xb_image img;
	synth_image(&img, 40, 9);
	uint32_t a = img.funcs[2].addr & ~7u, b = img.funcs[30].addr & ~7u;
	xb_trace t;
	trace_init(&t);
	trace_mark_echo(&t);
	for (int r = 0; r < 50; r++) { /* a loop over a and a + 8 */
		trace_push(&t, a);
		trace_push(&t, a + 8);
	}
	for (int r = 0; r < 600; r++)
		trace_push(&t, b + (uint32_t)(r % 64) * 8);
	trace_push(&t, a); /* back to a after a long stretch */
	xb_plan_input in = {.img = &img, .tg = &tg, .trace = &t};
	xb_heat h;
	xb_err err;
	assert_int_equal(heat_build(&h, &in, &err), 0);
	double ha = -1, ha8 = -1;
	for (size_t k = 0; k < h.nlines; k++) {
		if (h.lines[k].line == a)
			ha = h.lines[k].heat;
		if (h.lines[k].line == a + 8)
			ha8 = h.lines[k].heat;
	}
	assert_true(ha > 1.99 && ha < 2.01);
	assert_true(ha8 > 0.99 && ha8 < 1.01);
	heat_free(&h);
	trace_free(&t);
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
		cmocka_unit_test(test_calls_decode),
		cmocka_unit_test(test_veneers_placed_like_ld),
		cmocka_unit_test(test_trace_followed_by_halfword),
		cmocka_unit_test(test_trace_goes_through_veneer),
		cmocka_unit_test(test_window_misses),
		cmocka_unit_test(test_sram_keeps_boot_code_and_takes_libraries),
		cmocka_unit_test(test_heat_counts_visits),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
