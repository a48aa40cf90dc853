/* test_layout_edit: the layout editor's core on synthetic images: moves to every placement,
 * the hot block's order, pins and presets, library and group moves, undo and redo with its
 * bound, budgets, functions that cannot move, automatic colours, layout files with pins,
 * name lists, the comparison with another layout; and one layout made in the editor,
 * written as fragments, relinked by GNU ld and checked function by function. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../core/layout_edit.h"
#include "../../core/snippet.h"
#include "../common/synth.h"
#include "../common/testdir.h"

static xb_target tg;

static int setup(void **state)
{
	xb_err err;
	if (target_load_file(&tg, "targets/rp2040.target", &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return testdir_setup(state);
}

/* A synthetic image with samples on its first nhot functions, and an editor over it. */
typedef struct fixture {
	xb_image img;
	xb_samples s;
	xb_profile prof;
	xb_plan_input in;
	xb_editor *ed;
} fixture;

static void fixture_init(fixture *fx, size_t n, size_t nhot, uint32_t sram, uint32_t pad)
{
	synth_image(&fx->img, n, 21);
	samples_init(&fx->s);
	synth_samples(&fx->s, &fx->img, nhot, 100000, 4);
	profile_build(&fx->prof, &fx->img, &fx->s, tg.cache.line);
	fx->in = (xb_plan_input){.img = &fx->img, .tg = &tg, .prof = &fx->prof,
				 .sram_budget = sram, .pad_budget = pad};
	fx->ed = NULL;
}

static void fixture_open(fixture *fx)
{
	xb_err err;
	fx->ed = editor_new(&fx->in, NULL, &err);
	if (!fx->ed)
		fail_msg("%s", err.msg);
}

static void fixture_free(fixture *fx)
{
	editor_free(fx->ed);
	profile_free(&fx->prof);
	samples_free(&fx->s);
	synth_image_free(&fx->img);
}

static const xb_edit_place to_hot = {XB_PLACE_HOT, 0};
static const xb_edit_place to_sram = {XB_PLACE_SRAM, 0};
static const xb_edit_place to_auto = {XB_PLACE_COLOUR, XB_WAY_AUTO};

static xb_edit_place to_colour(uint32_t off)
{
	return (xb_edit_place){XB_PLACE_COLOUR, off};
}

/* Moves one function, failing the test on refusal. */
static void move(xb_editor *ed, int f, xb_edit_place to)
{
	xb_err err;
	if (editor_place(ed, &f, 1, to, NULL, &err) != 0)
		fail_msg("moving f%d: %s", f, err.msg);
}

static xb_edit_func func_of(const xb_editor *ed, int f)
{
	xb_edit_func out;
	editor_function(ed, f, &out);
	return out;
}

/* A copy of a layout's entries and pins, to compare a state before and after. */
static xb_layout copy_of(const xb_layout *l)
{
	xb_layout c;
	layout_init(&c);
	for (size_t i = 0; i < l->n; i++)
		layout_add(&c, l->e[i].func, l->e[i].place, l->e[i].way_offset);
	for (size_t i = 0; i < l->npins; i++)
		layout_add_pin(&c, l->pins[i]);
	memcpy(c.strategy, l->strategy, sizeof c.strategy);
	return c;
}

static void assert_same_layout(const xb_layout *a, const xb_layout *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_int_equal(a->e[i].func, b->e[i].func);
		assert_int_equal(a->e[i].place, b->e[i].place);
		assert_int_equal(a->e[i].way_offset, b->e[i].way_offset);
	}
	assert_int_equal(a->npins, b->npins);
	for (size_t i = 0; i < a->npins; i++)
		assert_int_equal(a->pins[i], b->pins[i]);
}

/* "21,344" */
static void grouped(char *buf, size_t cap, uint32_t v)
{
	char d[16];
	int n = snprintf(d, sizeof d, "%u", v), k = 0;
	for (int i = 0; i < n && (size_t)k + 2 < cap; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = d[i];
	}
	buf[k] = 0;
}

/* ---- moves ---- */

static void test_move_to_each_placement(void **state)
{
	(void)state;
	fixture fx;
	fixture_init(&fx, 40, 30, 8192, 16384);
	fixture_open(&fx);
	xb_editor *ed = fx.ed;
	assert_false(editor_can_undo(ed));
	move(ed, 5, to_hot);
	move(ed, 6, to_colour(0x100));
	move(ed, 7, to_auto);
	move(ed, 8, to_sram);
	assert_string_equal(editor_undo_label(ed), "moving f8 to SRAM");

	xb_edit_func f5 = func_of(ed, 5), f6 = func_of(ed, 6), f7 = func_of(ed, 7),
		     f8 = func_of(ed, 8), f9 = func_of(ed, 9);
	assert_int_equal(f5.place, XB_PLACE_HOT);
	assert_int_equal(f5.position, 0);
	assert_int_equal(f6.place, XB_PLACE_COLOUR);
	assert_false(f6.auto_colour);
	assert_int_equal(f6.way_offset, 0x100);
	assert_int_equal(f6.position, 1);
	assert_int_equal(f7.place, XB_PLACE_COLOUR);
	assert_true(f7.auto_colour);
	assert_int_equal(f7.position, 2);
	assert_int_equal(f8.place, XB_PLACE_SRAM);
	assert_int_equal(f8.position, 0);
	assert_int_equal(f9.place, XB_PLACE_DEFAULT);
	assert_int_equal(f9.position, -1);

	/* the layout: hot block in order, then SRAM; and where ld will put them */
	const xb_layout *l = editor_layout(ed);
	assert_int_equal(l->n, 4);
	assert_int_equal(l->e[0].func, 5);
	assert_int_equal(l->e[1].func, 6);
	assert_int_equal(l->e[2].func, 7);
	assert_int_equal(l->e[3].func, 8);
	assert_int_equal(l->e[3].place, XB_PLACE_SRAM);
	assert_string_equal(l->strategy, "edited");
	const xb_placement *p = editor_placement(ed);
	assert_int_equal(p->new_addr[5], 0x100001C0);
	assert_int_equal(p->new_addr[6] & 0x1fff, 0x100);
	/* the automatic colour the layout states, where the whole placement starts it */
	assert_int_equal(l->e[2].place, XB_PLACE_COLOUR);
	assert_int_equal(p->new_addr[7] & 0x1fff, l->e[2].way_offset);
	assert_true(p->new_addr[7] > p->new_addr[6]);
	assert_int_equal(p->new_addr[8], 0x20000000);

	xb_edit_usage u;
	editor_usage(ed, &u);
	assert_int_equal(u.functions[XB_PLACE_HOT], 1);
	assert_int_equal(u.functions[XB_PLACE_COLOUR], 2);
	assert_int_equal(u.functions[XB_PLACE_SRAM], 1);
	assert_int_equal(u.functions[XB_PLACE_DEFAULT], 36);
	assert_int_equal(u.auto_colours, 1);
	assert_int_equal(u.extra_ram, fx.img.funcs[8].size);
	assert_int_equal(u.pad_bytes, p->pad_bytes);
	assert_int_equal(u.hot_bytes, p->hot_end - p->hot_start);
	assert_int_equal(u.sram_budget, 8192);

	/* a hot function coloured keeps its place; SRAM to hot joins the end */
	move(ed, 5, to_colour(0x1c8));
	assert_int_equal(func_of(ed, 5).position, 0);
	assert_int_equal(editor_placement(ed)->new_addr[5] & 0x1fff, 0x1c8);
	move(ed, 8, to_hot);
	assert_int_equal(func_of(ed, 8).position, 3);
	editor_usage(ed, &u);
	assert_int_equal(u.extra_ram, 0);

	/* remove: back to default flash, the block closes up */
	xb_edit_result res;
	xb_err err;
	int f6i = 6;
	assert_int_equal(editor_remove(ed, &f6i, 1, &res, &err), 0);
	assert_int_equal(res.changed, 1);
	assert_int_equal(func_of(ed, 6).place, XB_PLACE_DEFAULT);
	assert_int_equal(func_of(ed, 7).position, 1);
	assert_string_equal(editor_undo_label(ed), "moving f6 to default flash");
	/* removing it again changes nothing and makes no step */
	assert_int_equal(editor_remove(ed, &f6i, 1, &res, &err), 0);
	assert_int_equal(res.changed, 0);
	assert_string_equal(editor_undo_label(ed), "moving f6 to default flash");

	/* colours outside the way or off the alignment are refused, nothing changes */
	xb_layout before = copy_of(editor_layout(ed));
	int f9i = 9, f15i = 15;
	assert_int_equal(editor_place(ed, &f9i, 1, to_colour(0x2000), NULL, &err), -1);
	assert_non_null(strstr(err.msg, "outside the cache way"));
	assert_int_equal(editor_place(ed, &f9i, 1, to_colour(0x101), NULL, &err), -1);
	assert_non_null(strstr(err.msg, "multiple of 2"));
	assert_int_equal(editor_place(ed, &f15i, 1, to_colour(0x104), NULL, &err), -1);
	assert_non_null(strstr(err.msg, "multiple of 8"));
	assert_non_null(strstr(err.msg, "f15"));
	assert_same_layout(&before, editor_layout(ed));
	layout_free(&before);
	fixture_free(&fx);
}

/* The no-allocate section: a function sent there runs at its flash offset in the 0x11
 * alias, after the text's load image; a call into it from flash goes through a veneer;
 * undo brings it back; the layout file keeps it. */
static void test_noalloc(void **state)
{
	fixture fx;
	fixture_init(&fx, 60, 30, 4096, 16384);
	fixture_open(&fx);
	xb_editor *ed = fx.ed;
	xb_err err;
	move(ed, 7, (xb_edit_place){XB_PLACE_NOALLOC, 0});
	move(ed, 3, (xb_edit_place){XB_PLACE_NOALLOC, 0});
	move(ed, 5, to_sram);
	assert_int_equal(func_of(ed, 7).place, XB_PLACE_NOALLOC);
	assert_int_equal(func_of(ed, 7).position, 0);
	assert_int_equal(func_of(ed, 3).position, 1);
	xb_edit_usage u;
	editor_usage(ed, &u);
	assert_int_equal(u.functions[XB_PLACE_NOALLOC], 2);
	xb_placement p;
	assert_int_equal(layout_place(&fx.img, &tg, editor_layout(ed), &p, &err), 0);
	/* the section's load image starts at ALIGN(8) after the text (which lost f3, f5, f7) */
	uint32_t text_end = 0;
	for (size_t i = 0; i < fx.img.nfuncs; i++)
		if (i != 3 && i != 5 && i != 7 && p.new_addr[i] + fx.img.funcs[i].size > text_end)
			text_end = p.new_addr[i] + fx.img.funcs[i].size;
	uint32_t load = (text_end + 7) & ~7u;
	assert_int_equal(p.new_addr[7], load + 0x01000000);
	assert_int_equal(p.new_addr[3] - p.new_addr[7] >= fx.img.funcs[7].size, 1);
	assert_true(p.new_addr[5] >= 0x20000000 && p.new_addr[5] < 0x20040000);
	placement_free(&p);
	/* the file keeps the section and its order */
	(void)state;
	char *path = xasprintf("%s/noalloc.txt", test_dir);
	assert_int_equal(layout_write_file(editor_layout(ed), &fx.img, path, &err), 0);
	xb_layout back;
	layout_init(&back);
	assert_int_equal(layout_read_file(&back, &fx.img, path, &err), 0);
	assert_same_layout(&back, editor_layout(ed));
	layout_free(&back);
	free(path);
	/* to SRAM from the section, then undo */
	move(ed, 7, to_sram);
	assert_int_equal(func_of(ed, 7).place, XB_PLACE_SRAM);
	assert_int_equal(func_of(ed, 3).position, 0);
	assert_int_equal(editor_undo(ed, &err), 0);
	assert_int_equal(func_of(ed, 7).place, XB_PLACE_NOALLOC);
	assert_int_equal(func_of(ed, 7).position, 0);
	fixture_free(&fx);
}

static void test_hot_block_order(void **state)
{
	(void)state;
	fixture fx;
	fixture_init(&fx, 40, 30, 8192, 8192);
	fixture_open(&fx);
	xb_editor *ed = fx.ed;
	int five[5] = {1, 2, 3, 4, 5};
	xb_err err;
	assert_int_equal(editor_place(ed, five, 5, to_hot, NULL, &err), 0);
	assert_string_equal(editor_undo_label(ed), "moving 5 functions to the hot block");
	assert_int_equal(editor_hot_move(ed, 5, 0, NULL, &err), 0);
	assert_int_equal(editor_hot_step(ed, 1, +1, NULL, &err), 0);
	assert_string_equal(editor_undo_label(ed), "moving f1 down in the hot block");
	int want[5] = {5, 2, 1, 3, 4};
	const xb_layout *l = editor_layout(ed);
	const xb_placement *p = editor_placement(ed);
	for (int k = 0; k < 5; k++) {
		assert_int_equal(l->e[k].func, want[k]);
		assert_int_equal(func_of(ed, want[k]).position, k);
		if (k)
			assert_true(p->new_addr[want[k]] > p->new_addr[want[k - 1]]);
	}
	xb_layout before = copy_of(l);
	assert_int_equal(editor_hot_step(ed, 5, -1, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "already the first"));
	assert_int_equal(editor_hot_step(ed, 4, +1, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "already the last"));
	assert_int_equal(editor_hot_move(ed, 3, 5, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "past the end"));
	assert_int_equal(editor_hot_move(ed, 20, 0, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "f20 is not in the hot block"));
	assert_same_layout(&before, editor_layout(ed));
	/* the last position */
	assert_int_equal(editor_hot_move(ed, 5, 4, NULL, &err), 0);
	assert_int_equal(editor_layout(ed)->e[4].func, 5);
	layout_free(&before);
	fixture_free(&fx);
}

/* ---- pins and presets ---- */

static int count_place(const xb_layout *l, enum xb_place place)
{
	int n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->e[i].place == place;
	return n;
}

static void test_presets_match_planners(void **state)
{
	(void)state;
	fixture fx;
	fixture_init(&fx, 120, 80, 4096, 16384);
	fixture_open(&fx);
	xb_editor *ed = fx.ed;
	xb_err err;
	for (int k = 0; planners[k]; k++) {
		xb_layout want;
		layout_init(&want);
		assert_int_equal(planners[k]->plan(&fx.in, &want, &err), 0);
		xb_edit_result res;
		if (editor_apply_preset(ed, planners[k]->name, XB_EDIT_BUDGET, &res, &err) != 0)
			fail_msg("%s: %s", planners[k]->name, err.msg);
		assert_int_equal(res.pinned_left, 0);
		assert_int_equal(res.skipped, 0);
		const xb_layout *l = editor_layout(ed);
		assert_string_equal(l->strategy, planners[k]->name);
		/* the planner's hot block, then its SRAM section, then its no-allocate
		 * section, entry for entry */
		size_t j = 0;
		for (int pass = 0; pass < 3; pass++)
			for (size_t i = 0; i < want.n; i++) {
				int part = want.e[i].place == XB_PLACE_SRAM	 ? 1
					   : want.e[i].place == XB_PLACE_NOALLOC ? 2
										 : 0;
				if (part != pass)
					continue;
				assert_true(j < l->n);
				assert_int_equal(l->e[j].func, want.e[i].func);
				assert_int_equal(l->e[j].place, want.e[i].place);
				assert_int_equal(l->e[j].way_offset, want.e[i].way_offset);
				j++;
			}
		assert_int_equal(j, l->n);
		assert_true(l->n > 0);
		char label[64];
		snprintf(label, sizeof label, "applying the %s preset", planners[k]->name);
		assert_string_equal(editor_undo_label(ed), label);
		layout_free(&want);
	}
	/* colour + 2 KB SRAM: the sram planner with that budget */
	xb_edit_result res;
	assert_int_equal(editor_apply_preset(ed, "sram", 2048, &res, &err), 0);
	xb_edit_usage u;
	editor_usage(ed, &u);
	assert_true(u.extra_ram > 0 && u.extra_ram <= 2048);
	assert_true(count_place(editor_layout(ed), XB_PLACE_COLOUR) +
			    count_place(editor_layout(ed), XB_PLACE_HOT) > 0);
	assert_string_equal(editor_undo_label(ed),
			    "applying the sram preset with 2,048 bytes of SRAM");
	/* more SRAM than the editor's budget: the budget holds */
	assert_int_equal(editor_apply_preset(ed, "names", 65536, &res, &err), 0);
	editor_usage(ed, &u);
	assert_true(u.extra_ram <= 4096);
	assert_int_equal(u.functions[XB_PLACE_HOT] + u.functions[XB_PLACE_COLOUR], 0);
	assert_int_equal(editor_apply_preset(ed, "best", XB_EDIT_BUDGET, &res, &err), -1);
	assert_non_null(strstr(err.msg, "no preset 'best'"));
	/* a preset is one step */
	xb_layout before = copy_of(editor_layout(ed));
	assert_int_equal(editor_apply_preset(ed, "colour", XB_EDIT_BUDGET, &res, &err), 0);
	assert_int_equal(editor_undo(ed, &err), 0);
	assert_same_layout(&before, editor_layout(ed));
	layout_free(&before);
	fixture_free(&fx);
}

static void test_pins_survive_presets(void **state)
{
	(void)state;
	fixture fx;
	fixture_init(&fx, 80, 60, 4096, 16384);
	fixture_open(&fx);
	xb_editor *ed = fx.ed;
	xb_err err;
	move(ed, 10, to_sram);
	move(ed, 12, to_colour(0x200));
	move(ed, 14, to_hot);
	int pins[3] = {3, 10, 12};
	xb_edit_result res;
	assert_int_equal(editor_pin(ed, pins, 3, true, &res, &err), 0);
	assert_int_equal(res.changed, 3);
	assert_string_equal(editor_undo_label(ed), "pinning 3 functions");
	assert_true(func_of(ed, 3).pinned && func_of(ed, 10).pinned && func_of(ed, 12).pinned);
	assert_false(func_of(ed, 14).pinned);

	for (int k = 0; planners[k]; k++) {
		if (editor_apply_preset(ed, planners[k]->name, XB_EDIT_BUDGET, &res, &err) != 0)
			fail_msg("%s: %s", planners[k]->name, err.msg);
		assert_int_equal(res.pinned_left, 3);
		assert_non_null(strstr(res.note, "left 3 pinned functions alone"));
		/* f3 is sampled, so every planner would take it; pinned, it stays */
		assert_int_equal(func_of(ed, 3).place, XB_PLACE_DEFAULT);
		xb_edit_func f10 = func_of(ed, 10), f12 = func_of(ed, 12);
		assert_int_equal(f10.place, XB_PLACE_SRAM);
		assert_int_equal(f10.position, 0);
		assert_int_equal(f12.place, XB_PLACE_COLOUR);
		assert_int_equal(f12.way_offset, 0x200);
		xb_edit_usage u;
		editor_usage(ed, &u);
		/* after the planner's block */
		assert_int_equal(f12.position,
				 (long)(u.functions[XB_PLACE_HOT] + u.functions[XB_PLACE_COLOUR]) - 1);
		assert_int_equal(editor_placement(ed)->new_addr[12] & 0x1fff, 0x200);
		assert_true(u.extra_ram <= 4096 && u.pad_bytes <= 16384);
		assert_int_equal(u.pinned, 3);
	}
	/* an explicit move leaves a pinned function alone, or is refused if that is all */
	assert_int_equal(editor_set_sram_budget(ed, 65536, &err), 0);
	int two[2] = {3, 4};
	assert_int_equal(editor_place(ed, two, 2, to_sram, &res, &err), 0);
	assert_int_equal(res.changed, 1);
	assert_int_equal(res.pinned_left, 1);
	assert_non_null(strstr(res.note, "pinned"));
	assert_int_equal(func_of(ed, 3).place, XB_PLACE_DEFAULT);
	assert_int_equal(func_of(ed, 4).place, XB_PLACE_SRAM);
	int three = 3;
	assert_int_equal(editor_place(ed, &three, 1, to_hot, &res, &err), -1);
	assert_non_null(strstr(err.msg, "f3 is pinned"));
	/* reordering moves a pinned function; unpinning frees it */
	assert_int_equal(editor_hot_move(ed, 12, 0, NULL, &err), 0);
	assert_int_equal(func_of(ed, 12).position, 0);
	assert_int_equal(editor_pin(ed, &three, 1, false, &res, &err), 0);
	assert_string_equal(editor_undo_label(ed), "unpinning f3");
	assert_int_equal(editor_place(ed, &three, 1, to_hot, &res, &err), 0);
	fixture_free(&fx);
}

/* ---- libraries and groups ---- */

static void three_libraries(xb_image *img)
{
	xb_library *libs = xcalloc(3, sizeof *libs);
	libs[0] = img->libraries[0];
	libs[1] = (xb_library){.name = xstrdup("net"), .group = xstrdup("IP stack")};
	libs[2] = (xb_library){.name = xstrdup("ip6"), .group = xstrdup("IP stack")};
	free(img->libraries);
	img->libraries = libs;
	img->nlibraries = 3;
	for (size_t i = 20; i < 40; i++)
		img->funcs[i].library = i < 30 ? 1 : 2;
}

static void free_extra_libraries(xb_image *img)
{
	for (size_t i = 1; i < img->nlibraries; i++) {
		free(img->libraries[i].name);
		free(img->libraries[i].group);
	}
	img->nlibraries = 1;
}

static void test_library_and_group_moves(void **state)
{
	(void)state;
	fixture fx;
	fixture_init(&fx, 50, 40, 65536, 16384);
	three_libraries(&fx.img);
	fx.img.entry = fx.img.funcs[20].addr; /* the reset handler is in "net" */
	fixture_open(&fx);
	xb_editor *ed = fx.ed;
	xb_edit_result res;
	xb_err err;
	assert_int_equal(editor_place_library(ed, 1, to_sram, &res, &err), 0);
	assert_string_equal(editor_undo_label(ed), "moving library net to SRAM");
	assert_int_equal(res.changed, 9);
	assert_int_equal(res.skipped, 1);
	assert_non_null(strstr(res.note, "f20"));
	assert_non_null(strstr(res.note, "reset handler"));
	for (int f = 0; f < 50; f++)
		assert_int_equal(func_of(ed, f).place,
				 f > 20 && f < 30 ? XB_PLACE_SRAM : XB_PLACE_DEFAULT);
	/* in address order */
	for (int f = 21; f < 30; f++)
		assert_int_equal(func_of(ed, f).position, f - 21);

	/* the group: both libraries to the hot block, f20 included */
	assert_int_equal(editor_place_group(ed, "IP stack", to_hot, &res, &err), 0);
	assert_string_equal(editor_undo_label(ed), "moving the IP stack to the hot block");
	assert_int_equal(res.changed, 20);
	for (int f = 0; f < 50; f++)
		assert_int_equal(func_of(ed, f).place,
				 f >= 20 && f < 40 ? XB_PLACE_HOT : XB_PLACE_DEFAULT);
	/* joined in address order */
	assert_int_equal(func_of(ed, 20).position, 0);
	assert_int_equal(func_of(ed, 39).position, 19);

	assert_int_equal(editor_place_group(ed, "USB", to_hot, &res, &err), -1);
	assert_non_null(strstr(err.msg, "no display group 'USB'"));
	assert_non_null(strstr(err.msg, "IP stack"));
	assert_int_equal(editor_place_library(ed, 3, to_hot, &res, &err), -1);
	assert_non_null(strstr(err.msg, "library index 3"));
	/* a library of which nothing can go: refused, naming why */
	for (int f = 30; f < 40; f++)
		assert_int_equal(editor_remove(ed, &f, 1, NULL, &err), 0);
	int f20 = 20;
	assert_int_equal(editor_remove(ed, &f20, 1, NULL, &err), 0);
	fx.img.funcs[20].library = 2;
	for (int f = 30; f < 40; f++)
		fx.img.funcs[f].library = 1;
	assert_int_equal(editor_place_library(ed, 2, to_sram, &res, &err), -1);
	assert_non_null(strstr(err.msg, "nothing of library ip6 can go to SRAM"));
	assert_non_null(strstr(err.msg, "reset handler"));
	free_extra_libraries(&fx.img);
	fixture_free(&fx);
}

/* ---- undo and redo ---- */

static void test_undo_redo(void **state)
{
	(void)state;
	fixture fx;
	fixture_init(&fx, 40, 30, 8192, 8192);
	fixture_open(&fx);
	xb_editor *ed = fx.ed;
	xb_err err;
	assert_int_equal(editor_undo(ed, &err), -1);
	assert_non_null(strstr(err.msg, "nothing to undo"));
	assert_null(editor_undo_label(ed));
	xb_layout s0 = copy_of(editor_layout(ed));
	move(ed, 1, to_hot);
	xb_layout s1 = copy_of(editor_layout(ed));
	move(ed, 2, to_sram);
	xb_layout s2 = copy_of(editor_layout(ed));
	move(ed, 3, to_colour(0x40));
	xb_layout s3 = copy_of(editor_layout(ed));

	assert_int_equal(editor_undo(ed, &err), 0);
	assert_same_layout(&s2, editor_layout(ed));
	assert_string_equal(editor_redo_label(ed), "moving f3 to colour 0x0040");
	assert_string_equal(editor_undo_label(ed), "moving f2 to SRAM");
	assert_int_equal(editor_undo(ed, &err), 0);
	assert_int_equal(editor_undo(ed, &err), 0);
	assert_same_layout(&s0, editor_layout(ed));
	assert_false(editor_can_undo(ed));
	assert_int_equal(editor_redo(ed, &err), 0);
	assert_same_layout(&s1, editor_layout(ed));
	assert_int_equal(editor_redo(ed, &err), 0);
	assert_same_layout(&s2, editor_layout(ed));
	assert_true(editor_can_redo(ed));
	/* a new edit drops what could be redone */
	move(ed, 4, to_hot);
	assert_false(editor_can_redo(ed));
	assert_int_equal(editor_redo(ed, &err), -1);
	assert_non_null(strstr(err.msg, "nothing to redo"));
	assert_int_equal(editor_undo(ed, &err), 0);
	assert_same_layout(&s2, editor_layout(ed));
	assert_int_equal(editor_redo(ed, &err), 0);
	assert_int_equal(func_of(ed, 4).place, XB_PLACE_HOT);
	assert_int_equal(func_of(ed, 3).place, XB_PLACE_DEFAULT);

	/* the bound: the oldest steps are forgotten */
	const int edits = XB_EDIT_HISTORY + 44;
	for (int k = 1; k <= edits; k++)
		assert_int_equal(editor_set_sram_budget(ed, 8192 + (uint32_t)k, &err), 0);
	int undone = 0;
	while (editor_undo(ed, &err) == 0)
		undone++;
	assert_int_equal(undone, XB_EDIT_HISTORY);
	xb_edit_usage u;
	editor_usage(ed, &u);
	assert_int_equal(u.sram_budget, 8192 + edits - XB_EDIT_HISTORY);
	int redone = 0;
	while (editor_redo(ed, &err) == 0)
		redone++;
	assert_int_equal(redone, XB_EDIT_HISTORY);
	editor_usage(ed, &u);
	assert_int_equal(u.sram_budget, 8192 + edits);
	layout_free(&s0);
	layout_free(&s1);
	layout_free(&s2);
	layout_free(&s3);
	fixture_free(&fx);
}

/* ---- budgets ---- */

static void test_budgets_refuse_what_does_not_fit(void **state)
{
	(void)state;
	fixture fx;
	fixture_init(&fx, 40, 30, 1024, 64);
	fixture_open(&fx);
	xb_editor *ed = fx.ed;
	xb_err err;
	int six[6] = {1, 2, 3, 4, 5, 6};
	/* what ld would use for them */
	xb_layout want;
	layout_init(&want);
	for (int k = 0; k < 6; k++)
		layout_add(&want, six[k], XB_PLACE_SRAM, 0);
	xb_placement p;
	assert_int_equal(layout_place(&fx.img, &tg, &want, &p, &err), 0);
	assert_true(p.extra_ram > 1024);
	char need[32], msg[160];
	grouped(need, sizeof need, p.extra_ram);
	snprintf(msg, sizeof msg, "moving 6 functions to SRAM needs %s bytes of SRAM; the budget "
		 "is 1,024 (set it with :budget sram %uK)", need, (p.extra_ram + 4095) / 4096 * 4);
	placement_free(&p);
	layout_free(&want);
	xb_layout before = copy_of(editor_layout(ed));
	assert_int_equal(editor_place(ed, six, 6, to_sram, NULL, &err), -1);
	assert_string_equal(err.msg, msg);
	assert_same_layout(&before, editor_layout(ed));
	assert_false(editor_can_undo(ed));

	/* a library move refused the same way */
	assert_int_equal(editor_place_library(ed, 0, to_sram, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "moving library synth to SRAM needs"));
	assert_same_layout(&before, editor_layout(ed));

	/* with a budget it fits; a budget below what is used is refused */
	assert_int_equal(editor_set_sram_budget(ed, 16384, &err), 0);
	assert_int_equal(editor_place(ed, six, 6, to_sram, NULL, &err), 0);
	xb_edit_usage u;
	editor_usage(ed, &u);
	char used[32];
	grouped(used, sizeof used, u.extra_ram);
	assert_int_equal(editor_set_sram_budget(ed, 1024, &err), -1);
	snprintf(msg, sizeof msg, "the pending layout uses %s bytes of SRAM, more than a budget of "
		 "1,024 (take functions out of SRAM first)", used);
	assert_string_equal(err.msg, msg);
	editor_usage(ed, &u);
	assert_int_equal(u.sram_budget, 16384);
	assert_int_equal(editor_set_sram_budget(ed, u.extra_ram, &err), 0);

	/* padding: a colour that needs more than the budget of 64 bytes */
	int f10 = 10;
	uint32_t start = 0x100001C0 & 0x1fff;
	layout_free(&before);
	before = copy_of(editor_layout(ed));
	assert_int_equal(editor_place(ed, &f10, 1, to_colour((start + 0x100) & 0x1fff), NULL, &err),
			 -1);
	assert_string_equal(err.msg, "moving f10 to colour 0x02c0 needs 256 bytes of padding; the "
				     "padding budget is 64 (set it with :budget pad 1K)");
	assert_same_layout(&before, editor_layout(ed));
	assert_int_equal(editor_place(ed, &f10, 1, to_colour((start + 0x40) & 0x1fff), NULL, &err),
			 0);
	editor_usage(ed, &u);
	assert_int_equal(u.pad_bytes, 64);
	assert_int_equal(editor_set_pad_budget(ed, 32, &err), -1);
	assert_non_null(strstr(err.msg, "needs 64 bytes of padding, more than a budget of 32"));
	/* an automatic colour stays within what the budget leaves */
	int f11 = 11;
	assert_int_equal(editor_place(ed, &f11, 1, to_auto, NULL, &err), 0);
	editor_usage(ed, &u);
	assert_true(u.pad_bytes <= 64);
	layout_free(&before);
	fixture_free(&fx);
}

/* ---- what cannot move ---- */

static void test_refuses_functions_that_cannot_move(void **state)
{
	(void)state;
	fixture fx;
	fixture_init(&fx, 40, 30, 65536, 8192);
	xb_image *img = &fx.img;
	img->entry = img->funcs[0].addr;            /* the reset handler */
	img->funcs[3].input = -1;                   /* no input section */
	int in4 = img->funcs[4].input;
	free(img->map.inputs[in4].section);         /* a name ld would read as a pattern */
	img->map.inputs[in4].section = xstrdup(".text.f4*");
	img->funcs[6].region = XB_REGION_SRAM;      /* not in flash */
	fixture_open(&fx);
	xb_editor *ed = fx.ed;
	xb_err err;
	xb_layout before = copy_of(editor_layout(ed));
	int f;
	f = 0;
	assert_int_equal(editor_place(ed, &f, 1, to_sram, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "f0 cannot go to SRAM"));
	assert_non_null(strstr(err.msg, "reset handler"));
	assert_int_equal(editor_can_place(ed, 0, XB_PLACE_SRAM, &err), -1);
	assert_int_equal(editor_can_place(ed, 0, XB_PLACE_HOT, &err), 0);
	f = 3;
	assert_int_equal(editor_place(ed, &f, 1, to_hot, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "f3 has no input section"));
	f = 4;
	assert_int_equal(editor_place(ed, &f, 1, to_colour(0x40), NULL, &err), -1);
	assert_non_null(strstr(err.msg, "f4"));
	assert_non_null(strstr(err.msg, "wildcard"));
	f = 6;
	assert_int_equal(editor_place(ed, &f, 1, to_sram, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "f6 is not in flash"));
	/* one of a list refuses the whole list */
	int list[3] = {7, 8, 0};
	assert_int_equal(editor_place(ed, list, 3, to_sram, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "f0 cannot go to SRAM"));
	assert_same_layout(&before, editor_layout(ed));
	assert_false(editor_can_undo(ed));
	/* a library move leaves them and says so */
	xb_edit_result res;
	assert_int_equal(editor_place_library(ed, 0, to_sram, &res, &err), 0);
	assert_int_equal(res.skipped, 3);           /* f0, f3, f4; f6 is not in flash */
	assert_non_null(strstr(res.note, "3 functions cannot go to SRAM (f0, f3, f4)"));
	assert_int_equal(func_of(ed, 0).place, XB_PLACE_DEFAULT);
	assert_int_equal(func_of(ed, 7).place, XB_PLACE_SRAM);
	/* a layout that puts one in SRAM is refused */
	xb_layout bad;
	layout_init(&bad);
	layout_add(&bad, 9, XB_PLACE_HOT, 0);
	layout_add(&bad, 0, XB_PLACE_SRAM, 0);
	assert_int_equal(editor_load_layout(ed, &bad, "bad layout", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "f0 cannot go to SRAM"));
	/* ... but an editor can start from it: it is what the board runs */
	xb_editor *flashed = editor_new(&fx.in, &bad, &err);
	assert_non_null(flashed);
	assert_int_equal(func_of(flashed, 0).place, XB_PLACE_SRAM);
	editor_free(flashed);
	layout_add(&bad, 3, XB_PLACE_HOT, 0);
	assert_null(editor_new(&fx.in, &bad, &err));
	assert_non_null(strstr(err.msg, "f3 has no input section"));
	layout_free(&bad);
	layout_free(&before);
	fixture_free(&fx);
}

/* ---- automatic colours ---- */

static double conflict_of(const fixture *fx, const xb_layout *l)
{
	xb_prediction pr;
	xb_err err;
	if (plan_predict(&fx->in, l, &pr, &err) != 0)
		fail_msg("%s", err.msg);
	return pr.conflict_score;
}

static void test_auto_colour(void **state)
{
	(void)state;
	/* 62 sampled functions (f0..f61, about 19 KB: more than the cache) in the hot block,
	 * the last one coloured automatically */
	fixture a, b;
	fixture_init(&a, 120, 62, 4096, 16384);
	fixture_init(&b, 120, 62, 4096, 16384);
	fixture_open(&a);
	fixture_open(&b);
	int hot[61];
	for (int k = 0; k < 61; k++)
		hot[k] = k;
	xb_err err;
	int f = 61;
	for (fixture *fx = &a; fx; fx = fx == &a ? &b : NULL) {
		assert_int_equal(editor_place(fx->ed, hot, 61, to_hot, NULL, &err), 0);
		assert_int_equal(editor_place(fx->ed, &f, 1, to_auto, NULL, &err), 0);
	}
	/* deterministic */
	assert_same_layout(editor_layout(a.ed), editor_layout(b.ed));
	const xb_layout *l = editor_layout(a.ed);
	assert_int_equal(l->n, 62);
	assert_int_equal(l->e[61].func, 61);
	/* here the packed place conflicts: the editor pads, within the budget, and gains */
	assert_int_equal(l->e[61].place, XB_PLACE_COLOUR);
	xb_edit_usage u;
	editor_usage(a.ed, &u);
	assert_true(u.pad_bytes > 0 && u.pad_bytes <= 16384);
	xb_edit_func fi = func_of(a.ed, 61);
	assert_true(fi.auto_colour);
	assert_int_equal(fi.way_offset, l->e[61].way_offset);
	assert_int_equal(editor_placement(a.ed)->new_addr[61] & 0x1fff, l->e[61].way_offset);
	xb_layout packed = copy_of(l);
	packed.e[61].place = XB_PLACE_HOT;
	packed.e[61].way_offset = 0;
	assert_true(conflict_of(&a, l) < conflict_of(&a, &packed));
	layout_free(&packed);

	/* a smaller padding budget: another choice within it; none: packed */
	assert_int_equal(editor_set_pad_budget(a.ed, 24, &err), 0);
	editor_usage(a.ed, &u);
	assert_true(u.pad_bytes <= 24);
	assert_int_equal(editor_set_pad_budget(a.ed, 0, &err), 0);
	editor_usage(a.ed, &u);
	assert_int_equal(u.pad_bytes, 0);
	assert_int_equal(editor_layout(a.ed)->e[61].place, XB_PLACE_HOT);
	assert_true(func_of(a.ed, 61).auto_colour);
	/* undo gives the padded choice back */
	assert_int_equal(editor_undo(a.ed, &err), 0);
	assert_int_equal(editor_undo(a.ed, &err), 0);
	assert_same_layout(editor_layout(a.ed), editor_layout(b.ed));

	/* without samples or a trace there is no automatic colour */
	xb_plan_input bare = a.in;
	bare.prof = NULL;
	xb_editor *ed = editor_new(&bare, NULL, &err);
	assert_non_null(ed);
	assert_int_equal(editor_place(ed, &f, 1, to_auto, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "automatic colours need"));
	assert_int_equal(editor_apply_preset(ed, "hot", XB_EDIT_BUDGET, NULL, &err), -1);
	/* new heat brings them */
	assert_int_equal(editor_update_heat(ed, &a.prof, NULL, &err), 0);
	assert_int_equal(editor_place(ed, &f, 1, to_auto, NULL, &err), 0);
	editor_free(ed);
	fixture_free(&a);
	fixture_free(&b);
}

/* ---- files ---- */

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_layout_file_round_trip_with_pins(void **state)
{
	(void)state;
	fixture fx;
	fixture_init(&fx, 40, 30, 8192, 16384);
	fixture_open(&fx);
	xb_editor *ed = fx.ed;
	move(ed, 4, to_hot);
	move(ed, 5, to_colour(0x300));
	move(ed, 6, to_auto);
	move(ed, 9, to_sram);
	int pins[3] = {2, 5, 9};
	xb_err err;
	assert_int_equal(editor_pin(ed, pins, 3, true, NULL, &err), 0);
	char path[128];
	snprintf(path, sizeof path, "%s/layout.txt", test_dir);
	assert_int_equal(editor_save_layout(ed, path, &err), 0);
	char *text;
	size_t len;
	assert_int_equal(xb_read_file(path, &text, &len, &err), 0);
	assert_non_null(strstr(text, "\npin f2\n"));
	assert_non_null(strstr(text, "\ncolour f5 0x0300\n"));
	assert_non_null(strstr(text, "\nsram f9\n"));
	free(text);

	/* into a fresh editor: the same layout and pins; the automatic colour comes back as
	 * the colour it resolved to */
	fixture other;
	fixture_init(&other, 40, 30, 8192, 16384);
	fixture_open(&other);
	xb_edit_result res;
	assert_int_equal(editor_load_layout_file(other.ed, path, &res, &err), 0);
	assert_same_layout(editor_layout(ed), editor_layout(other.ed));
	for (int f = 0; f < 40; f++) {
		xb_edit_func x = func_of(ed, f), y = func_of(other.ed, f);
		assert_int_equal(x.pinned, y.pinned);
		assert_int_equal(x.place == XB_PLACE_DEFAULT, y.place == XB_PLACE_DEFAULT);
		assert_int_equal(editor_placement(ed)->new_addr[f],
				 editor_placement(other.ed)->new_addr[f]);
	}
	assert_true(func_of(other.ed, 2).pinned);
	assert_false(func_of(other.ed, 6).auto_colour);
	assert_non_null(strstr(editor_undo_label(other.ed), "loading the layout"));
	/* a pinned function stays through a preset after the round trip too */
	assert_int_equal(editor_apply_preset(other.ed, "hot", XB_EDIT_BUDGET, &res, &err), 0);
	assert_int_equal(func_of(other.ed, 2).place, XB_PLACE_DEFAULT);
	assert_int_equal(func_of(other.ed, 9).place, XB_PLACE_SRAM);

	/* a file without pins (the format before them) still reads; bad pin lines do not */
	xb_layout l;
	layout_init(&l);
	static const char old[] = "# xipbench layout\nstrategy colour\nhot f1\ncolour f2 0x40\n"
				  "sram f3\n";
	assert_int_equal(layout_parse(&l, &fx.img, old, sizeof old - 1, "old.txt", &err), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.npins, 0);
	static const char two[] = "pin f1\npin f1\npin f7 # kept\n";
	assert_int_equal(layout_parse(&l, &fx.img, two, sizeof two - 1, "two.txt", &err), 0);
	assert_int_equal(l.npins, 2);
	assert_int_equal(l.n, 0);
	static const char bad[] = "hot f1\npin f1 f2\n";
	assert_int_equal(layout_parse(&l, &fx.img, bad, sizeof bad - 1, "bad.txt", &err), -1);
	assert_non_null(strstr(err.msg, "bad.txt:2:"));
	static const char unknown[] = "pin nosuch\n";
	assert_int_equal(layout_parse(&l, &fx.img, unknown, sizeof unknown - 1, "u.txt", &err), -1);
	assert_non_null(strstr(err.msg, "nosuch"));
	layout_free(&l);
	fixture_free(&other);
	fixture_free(&fx);
}

static void rename_function(xb_image *img, int f, const char *name, const char *base)
{
	free(img->funcs[f].name);
	free(img->funcs[f].base_name);
	img->funcs[f].name = xstrdup(name);
	img->funcs[f].base_name = xstrdup(base);
}

static void test_name_lists(void **state)
{
	(void)state;
	fixture fx;
	fixture_init(&fx, 40, 30, 8192, 8192);
	rename_function(&fx.img, 10, "dup", "dup");
	rename_function(&fx.img, 11, "dup", "dup");
	fx.img.funcs[10].same_name = fx.img.funcs[11].same_name = 2;
	rename_function(&fx.img, 12, "g.lto_priv.0", "g");
	fixture_open(&fx);
	xb_editor *ed = fx.ed;
	xb_err err;
	move(ed, 3, to_sram);
	move(ed, 11, to_sram);
	move(ed, 5, to_hot);
	char path[128];
	snprintf(path, sizeof path, "%s/names.txt", test_dir);
	assert_int_equal(editor_save_names(ed, path, &err), 0);
	char *text;
	size_t len;
	assert_int_equal(xb_read_file(path, &text, &len, &err), 0);
	assert_non_null(strstr(text, "\nf3\nlibsynth.a:f11.o(.text.f11)\n"));
	assert_null(strstr(text, "f5"));
	free(text);

	fixture other;
	fixture_init(&other, 40, 30, 8192, 8192);
	rename_function(&other.img, 10, "dup", "dup");
	rename_function(&other.img, 11, "dup", "dup");
	other.img.funcs[10].same_name = other.img.funcs[11].same_name = 2;
	rename_function(&other.img, 12, "g.lto_priv.0", "g");
	fixture_open(&other);
	xb_edit_result res;
	assert_int_equal(editor_load_names_file(other.ed, path, &res, &err), 0);
	assert_int_equal(res.changed, 2);
	assert_int_equal(res.unknown, 0);
	assert_int_equal(func_of(other.ed, 3).place, XB_PLACE_SRAM);
	assert_int_equal(func_of(other.ed, 11).place, XB_PLACE_SRAM);
	assert_int_equal(func_of(other.ed, 10).place, XB_PLACE_DEFAULT);
	assert_int_equal(func_of(other.ed, 5).place, XB_PLACE_DEFAULT);

	/* names of another build: unknown ones reported, LTO suffixes followed, plain names
	 * several objects define reported, qualified ones found */
	write_text(path, "# kept from another build\nf7\nfoo\n  bar  \n\nbaz # gone\n"
			 "g.lto_priv.3\ndup\nlibsynth.a:f10.o(.text.f10)\n");
	assert_int_equal(editor_load_names_file(other.ed, path, &res, &err), 0);
	assert_int_equal(res.unknown, 4);
	assert_int_equal(res.changed, 3);
	assert_non_null(strstr(res.note, "3 names of the list are not in this image: foo, bar, baz"));
	assert_non_null(strstr(res.note, "1 name of the list matches several functions"));
	assert_non_null(strstr(res.note, "dup"));
	assert_int_equal(func_of(other.ed, 7).place, XB_PLACE_SRAM);
	assert_int_equal(func_of(other.ed, 12).place, XB_PLACE_SRAM);
	assert_int_equal(func_of(other.ed, 10).place, XB_PLACE_SRAM);
	assert_non_null(strstr(editor_undo_label(other.ed), "moving the name list"));
	/* within the budget */
	xb_edit_usage u;
	editor_usage(other.ed, &u);
	assert_int_equal(editor_set_sram_budget(other.ed, u.extra_ram, &err), 0);
	write_text(path, "f20\nf21\nf22\nf23\nf24\nf25\nf26\nf27\nf28\nf29\nf30\nf31\nf32\nf33\n"
			 "f34\nf35\nf36\nf37\nf38\nf39\nnothere\n");
	assert_int_equal(editor_load_names_file(other.ed, path, &res, &err), -1);
	assert_non_null(strstr(err.msg, "bytes of SRAM; the budget is"));
	assert_non_null(strstr(err.msg, "1 name of the list is not in this image: nothere"));
	assert_int_equal(func_of(other.ed, 20).place, XB_PLACE_DEFAULT);

	/* the parser: bad input is an error, not a crash */
	xb_name_list nl;
	static const char two_words[] = "f1\nf2 f3\n";
	assert_int_equal(layout_names_parse(&nl, &fx.img, two_words, sizeof two_words - 1, "n.txt",
					    &err), -1);
	assert_non_null(strstr(err.msg, "n.txt:2:"));
	static const char binary[] = "f1\n\0f2\n";
	assert_int_equal(layout_names_parse(&nl, &fx.img, binary, sizeof binary - 1, "b.txt",
					    &err), -1);
	static const char dups[] = "f1\nf1\nlibsynth.a:f1.o(.text.f1)\nf1.o(.text.f1)\nx(y)\n";
	assert_int_equal(layout_names_parse(&nl, &fx.img, dups, sizeof dups - 1, "d.txt", &err), 0);
	assert_int_equal(nl.n, 1);
	assert_int_equal(nl.func[0], 1);
	assert_int_equal(nl.nunknown, 2); /* f1.o is in an archive; x(y) is nothing */
	layout_names_free(&nl);
	fixture_free(&other);
	fixture_free(&fx);
}

/* ---- pending against flashed ---- */

static void test_compare_with_flashed(void **state)
{
	(void)state;
	fixture fx;
	fixture_init(&fx, 40, 30, 8192, 16384);
	xb_layout flashed;
	layout_init(&flashed);
	layout_add(&flashed, 1, XB_PLACE_HOT, 0);
	layout_add(&flashed, 2, XB_PLACE_COLOUR, 0x100);
	layout_add(&flashed, 4, XB_PLACE_HOT, 0);
	layout_add(&flashed, 3, XB_PLACE_SRAM, 0);
	layout_add_pin(&flashed, 4);
	xb_err err;
	fx.ed = editor_new(&fx.in, &flashed, &err);
	assert_non_null(fx.ed);
	xb_editor *ed = fx.ed;
	assert_false(editor_can_undo(ed));
	uint8_t marks[40];
	assert_int_equal(editor_compare(ed, &flashed, marks), 0);
	for (int f = 0; f < 40; f++)
		assert_int_equal(marks[f], 0);
	assert_true(func_of(ed, 4).pinned);

	move(ed, 2, to_colour(0x200)); /* another offset */
	move(ed, 7, to_sram);          /* another placement */
	int f4 = 4;
	assert_int_equal(editor_pin(ed, &f4, 1, false, NULL, &err), 0);
	assert_int_equal(editor_hot_step(ed, 4, -1, NULL, &err), 0); /* f4 before f2 */
	assert_int_equal(editor_compare(ed, &flashed, marks), 3);
	assert_int_equal(marks[1], 0);
	assert_int_equal(marks[2], XB_EDIT_DIFF_OFFSET | XB_EDIT_DIFF_ORDER);
	assert_int_equal(marks[4], XB_EDIT_DIFF_ORDER | XB_EDIT_DIFF_PIN);
	assert_int_equal(marks[7], XB_EDIT_DIFF_PLACE);
	assert_int_equal(marks[3], 0);
	assert_int_equal(marks[9], 0);
	/* back to the flashed layout by undo */
	while (editor_can_undo(ed))
		assert_int_equal(editor_undo(ed, &err), 0);
	assert_int_equal(editor_compare(ed, &flashed, NULL), 0);
	layout_free(&flashed);
	fixture_free(&fx);
}

/* ---- GNU ld ---- */

/* Runs argv (no shell) with its output in log; its exit status. */
static int run(char *const argv[], const char *log)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void show_log(const char *log)
{
	char *text;
	size_t len;
	if (xb_read_file(log, &text, &len, NULL) == 0) {
		fprintf(stderr, "%s\n", text);
		free(text);
	}
}

/* The function of img2 that is f of img (the same name, and the same file if static). */
static const xb_function *same_function(const xb_image *img, const xb_function *f,
					const xb_image *img2)
{
	for (size_t i = 0; i < img2->nfuncs; i++) {
		const xb_function *g = &img2->funcs[i];
		if (strcmp(g->name, f->name) != 0 || g->is_local != f->is_local)
			continue;
		if (f->is_local && (f->file < 0) != (g->file < 0))
			continue;
		if (f->is_local && f->file >= 0 &&
		    strcmp(img->files[f->file], img2->files[g->file]) != 0)
			continue;
		return g;
	}
	return NULL;
}

/* The first functions in flash of a library that may go anywhere. */
static size_t pick(xb_editor *ed, const xb_image *img, const char *lib, int *out, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < img->nfuncs && k < n; i++) {
		const xb_function *f = &img->funcs[i];
		if (f->alias_of < 0 && strcmp(img->libraries[f->library].name, lib) == 0 &&
		    editor_can_place(ed, (int)i, XB_PLACE_SRAM, NULL) == 0 && f->size >= 16)
			out[k++] = (int)i;
	}
	return k;
}

static void test_relink_matches_prediction(void **state)
{
	(void)state;
	if (system("command -v arm-none-eabi-gcc >/dev/null 2>&1") != 0)
		skip();
	char out[160], lay[160], elf[200], log[200];
	snprintf(out, sizeof out, "%s/fw", test_dir);
	snprintf(lay, sizeof lay, "%s/edited", test_dir);
	snprintf(elf, sizeof elf, "%s/edited/fw.elf", test_dir);
	snprintf(log, sizeof log, "%s/build.log", test_dir);
	char *build[] = {"sh", "tests/data/build-fixture.sh", out, NULL};
	if (run(build, log) != 0) {
		show_log(log);
		fail_msg("the fixture does not build");
	}
	xb_target t;
	xb_err err;
	assert_int_equal(target_load(&t, "rp2040", &err), 0);
	char stock[200];
	snprintf(stock, sizeof stock, "%s/fw.elf", out);
	xb_image img;
	xb_image_open io = {.elf = stock, .need_map = 1};
	if (image_open(&img, &io, &t, &err) != 0)
		fail_msg("%s", err.msg);
	xb_calls calls;
	assert_int_equal(calls_load_elf(&calls, stock, &err), 0);
	/* samples on all the code but libgcc's */
	xb_samples s;
	samples_init(&s);
	for (size_t i = 0; i < img.nfuncs; i++) {
		const xb_function *f = &img.funcs[i];
		if (f->region != XB_REGION_FLASH ||
		    strcmp(img.libraries[f->library].name, "libgcc") == 0)
			continue;
		for (uint32_t a = 0; a < f->size; a += 2)
			for (uint32_t r = 0; r < 1 + i % 3; r++)
				samples_push(&s, f->addr + a, 0);
	}
	xb_profile prof;
	profile_build(&prof, &img, &s, t.cache.line);
	xb_plan_input in = {.img = &img, .tg = &t, .prof = &prof, .calls = &calls,
			    .sram_budget = 20480, .pad_budget = 16384};
	xb_editor *ed = editor_new(&in, NULL, &err);
	if (!ed)
		fail_msg("%s", err.msg);

	/* the USB stack, the kernel, the application and the drivers (more than the cache
	 * holds) in the hot block, the last four drivers' functions coloured automatically,
	 * one kernel function at a chosen colour; the IP stack in SRAM */
	int usb[3], drv[64], kern[1];
	assert_int_equal(pick(ed, &img, "usb", usb, 3), 3);
	size_t ndrv = pick(ed, &img, "drivers", drv, 64);
	assert_true(ndrv > 8);
	assert_int_equal(pick(ed, &img, "kernel", kern, 1), 1);
	static const char *const libs[] = {"usb", "kernel", "app"};
	xb_edit_result res;
	for (size_t k = 0; k < 3; k++) {
		int lib = -1;
		for (size_t i = 0; i < img.nlibraries; i++)
			if (strcmp(img.libraries[i].name, libs[k]) == 0)
				lib = (int)i;
		if (editor_place_library(ed, lib, to_hot, &res, &err) != 0)
			fail_msg("%s", err.msg);
	}
	assert_int_equal(editor_place(ed, drv, ndrv - 4, to_hot, &res, &err), 0);
	assert_int_equal(editor_place(ed, drv + ndrv - 4, 4, to_auto, &res, &err), 0);
	assert_int_equal(editor_place(ed, kern, 1, to_colour(0x1000), &res, &err), 0);
	if (editor_place_group(ed, "IP stack", to_sram, &res, &err) != 0)
		fail_msg("%s", err.msg);
	assert_true(res.changed > 10);
	assert_int_equal(editor_pin(ed, usb, 1, true, &res, &err), 0);
	assert_int_equal(editor_hot_step(ed, usb[2], -1, &res, &err), 0);
	xb_edit_usage u;
	editor_usage(ed, &u);
	const xb_placement *p = editor_placement(ed);
	/* the layout has every kind of entry, and calls between flash and SRAM */
	assert_true(u.functions[XB_PLACE_HOT] >= 3 && u.functions[XB_PLACE_SRAM] > 10);
	assert_true(u.auto_colours == 4);
	assert_true(count_place(editor_layout(ed), XB_PLACE_COLOUR) >= 2);
	assert_true(p->nveneers > 0);

	assert_int_equal(snippet_write_all(&img, &t, editor_layout(ed), lay, &err), 0);
	char *relink[] = {"sh", "tests/data/build-fixture.sh", "--relink", out, lay, elf, NULL};
	if (run(relink, log) != 0) {
		show_log(log);
		fail_msg("the relink failed");
	}
	xb_image moved;
	if (image_load_elf(&moved, elf, &t, &err) != 0)
		fail_msg("%s", err.msg);
	size_t checked = 0, wrong = 0;
	for (size_t i = 0; i < img.nfuncs; i++) {
		const xb_function *g = same_function(&img, &img.funcs[i], &moved);
		if (!g) {
			fprintf(stderr, "# %s is not in the relinked image\n", img.funcs[i].name);
			wrong++;
			continue;
		}
		checked++;
		if (g->addr != p->new_addr[i]) {
			fprintf(stderr, "# %s at 0x%08x, predicted 0x%08x\n", img.funcs[i].name,
				g->addr, p->new_addr[i]);
			wrong++;
		}
	}
	assert_int_equal(checked, img.nfuncs);
	assert_int_equal(wrong, 0);
	/* and where the layout asked: colours at the offsets its entries state, SRAM in SRAM */
	const xb_layout *el = editor_layout(ed);
	for (size_t k = 0; k < el->n; k++) {
		const xb_layout_entry *e = &el->e[k];
		const xb_function *g = same_function(&img, &img.funcs[e->func], &moved);
		assert_non_null(g);
		if (e->place == XB_PLACE_COLOUR)
			assert_int_equal(g->addr & 0x1fff, e->way_offset);
		if (e->place == XB_PLACE_SRAM)
			assert_int_equal(g->addr >> 28, 2);
	}
	image_free(&moved);
	editor_free(ed);
	profile_free(&prof);
	samples_free(&s);
	calls_free(&calls);
	image_free(&img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_move_to_each_placement),
		cmocka_unit_test(test_noalloc),
		cmocka_unit_test(test_hot_block_order),
		cmocka_unit_test(test_presets_match_planners),
		cmocka_unit_test(test_pins_survive_presets),
		cmocka_unit_test(test_library_and_group_moves),
		cmocka_unit_test(test_undo_redo),
		cmocka_unit_test(test_budgets_refuse_what_does_not_fit),
		cmocka_unit_test(test_refuses_functions_that_cannot_move),
		cmocka_unit_test(test_auto_colour),
		cmocka_unit_test(test_layout_file_round_trip_with_pins),
		cmocka_unit_test(test_name_lists),
		cmocka_unit_test(test_compare_with_flashed),
		cmocka_unit_test(test_relink_matches_prediction),
	};
	return cmocka_run_group_tests(tests, setup, testdir_teardown);
}
