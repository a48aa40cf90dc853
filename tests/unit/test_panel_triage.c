/* test_panel_triage: the triage panel drawn from a model with a known triage
 * (tests/common/triage_fixture.c): the findings most severe first with their severities'
 * elements, the rules not checked at the end and dimmed, the selected finding's evidence,
 * fix and command below the list and in the drill-down, the moves, filter, search, `try`
 * (the command, or why there is none), the selection kept by rule when a new triage comes,
 * the mouse, a failed run, and every size from 0x0 drawn inside its rectangle; goldens of
 * the list and the drill-down in tests/golden/panels/ (XB_GOLDEN_UPDATE=1 writes them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/triage_fixture.h"
#include "../../panels/panel.h"
#include "../../panels/theme.h"
#include "../../panels/widgets.h"

#define GOLDEN_DIR XB_SOURCE_DIR "/tests/golden/panels"

typedef struct fixture {
	xb_triage t, later;
	xb_model m;
	const xb_panel_ops *ops;
	void *st;
	xb_canvas *c;
	xb_panel_result res;
} fixture;

static void fx_open(fixture *fx, int w, int h)
{
	memset(fx, 0, sizeof *fx);
	triage_fixture(&fx->t, 0);
	triage_fixture(&fx->later, 1);
	model_init(&fx->m);
	fx->m.image = "build/zephyr/zephyr.elf";
	fx->m.triage = &fx->t;
	fx->m.triage_version = 1;
	fx->m.triage_samples = "live profile, last 10 s, idle subtracted";
	fx->m.triage_trace = "the planning profile's";
	fx->m.triage_config = "build/zephyr/.config";
	fx->ops = panel_find("triage");
	assert_non_null(fx->ops);
	fx->st = fx->ops->create();
	fx->c = canvas_new(w, h);
	fx->ops->draw(fx->st, &fx->m, fx->c, canvas_bounds(fx->c), 1);
}

static void fx_close(fixture *fx)
{
	fx->ops->destroy(fx->st);
	canvas_free(fx->c);
	triage_free(&fx->t);
	triage_free(&fx->later);
}

static void fx_draw(fixture *fx, int focused)
{
	canvas_clear(fx->c, XB_EL_NORMAL);
	fx->ops->draw(fx->st, &fx->m, fx->c, canvas_bounds(fx->c), focused);
}

static int fx_cmd(fixture *fx, const char *verb, const char *arg)
{
	memset(&fx->res, 0, sizeof fx->res);
	int flags = fx->ops->command(fx->st, &fx->m, verb, arg, &fx->res);
	assert_int_equal(flags, fx->res.flags);
	fx_draw(fx, 1);
	return flags;
}

static const char *row_text(const xb_canvas *c, int y, char *buf, size_t cap)
{
	size_t o = 0;
	for (int x = 0; x < c->w && o + 5 < cap; x++)
		o += (size_t)canvas_utf8(canvas_get(c, x, y).ch, buf + o);
	buf[o] = 0;
	return buf;
}

/* The first row holding text, or -1. */
static int find_row(const xb_canvas *c, const char *text)
{
	char buf[4096];
	for (int y = 0; y < c->h; y++)
		if (strstr(row_text(c, y, buf, sizeof buf), text))
			return y;
	return -1;
}

/* The column where text starts on row y, or -1. */
static int find_col(const xb_canvas *c, int y, const char *text)
{
	size_t n = strlen(text);
	for (int x = 0; x + (int)n <= c->w; x++) {
		size_t k = 0;
		while (k < n && canvas_get(c, x + (int)k, y).ch == (unsigned char)text[k])
			k++;
		if (k == n)
			return x;
	}
	return -1;
}

/* The row drawn selected (the focused panel styles the whole row), or -1. */
static int selected_row(const xb_canvas *c)
{
	for (int y = 1; y < c->h - 1; y++)
		if (canvas_get(c, 1, y).el == XB_EL_SELECTED &&
		    canvas_get(c, c->w - 2, y).el == XB_EL_SELECTED)
			return y;
	return -1;
}

static void test_list_and_detail(void **state)
{
	(void)state;
	fixture fx;
	fx_open(&fx, 140, 40);
	xb_canvas *c = fx.c;
	/* the header: the counts and what the triage read */
	assert_true(find_row(c, "5 findings") == 1);
	assert_true(find_row(c, "2 not checked") == 1);
	assert_true(find_row(c, "9368 busy samples") == 1);
	assert_true(find_row(c, "live profile, last 10 s, idle subtracted") == 1);
	assert_true(find_row(c, "trace: the planning profile's") == 1);
	/* the findings in the triage's order (most severe first), then the rules not checked */
	static const char *const order[] = {"cache-off", "capacity", "conflicting-sets",
					    "debug-features", "idle-and-interrupts",
					    "noalloc-reuse", "optimisation"};
	int y0 = find_row(c, "severity rule");
	assert_true(y0 == 2);
	for (int i = 0; i < 7; i++)
		assert_int_equal(find_row(c, order[i]), y0 + 1 + i);
	/* severities in their elements (the unfocused panel leaves the rows unstyled but the
	 * selected one's first cell) */
	fx_draw(&fx, 0);
	static const struct {
		const char *word;
		int el;
	} sev[] = {{"warning", XB_EL_SEV_WARNING}, {"note", XB_EL_SEV_NOTE},
		   {"info", XB_EL_SEV_INFO}};
	for (size_t i = 0; i < 3; i++) {
		int y = find_row(c, sev[i].word);
		assert_true(y > y0);
		assert_int_equal(canvas_get(c, find_col(c, y, sev[i].word), y).el, sev[i].el);
	}
	assert_int_equal(canvas_get(c, 1, y0 + 1).el, XB_EL_SELECTED);
	fx_cmd(&fx, "down", NULL);
	assert_int_equal(canvas_get(c, 1, y0 + 1).el, XB_EL_SEV_SEVERE);
	/* a rule not checked: dimmed, with why */
	int ys = find_row(c, "not checked: no trace (reuse");
	assert_int_equal(ys, y0 + 6);
	assert_int_equal(canvas_get(c, find_col(c, ys, "noalloc-reuse"), ys).el, XB_EL_DIM);
	/* the selected finding's detail below the list: capacity, with its command */
	assert_int_equal(selected_row(c), y0 + 2);
	int yd = find_row(c, "warning capacity");
	assert_true(yd > y0 + 7);
	assert_true(find_row(c, "evidence    capacity evidence line 1") == yd + 1);
	assert_true(find_row(c, "evidence    capacity evidence line 2") == yd + 2);
	assert_true(find_row(c, "fix         move at least 4.0 KB") == yd + 3);
	int yt = find_row(c, "try it      :preset sram 4K");
	assert_int_equal(yt, yd + 4);
	assert_int_equal(canvas_get(c, find_col(c, yt, ":preset"), yt).el, XB_EL_KEY);
	assert_true(find_row(c, "T: try it") == yt);
	/* down: the next finding's detail (the gain too) */
	fx_cmd(&fx, "down", NULL);
	assert_int_equal(selected_row(c), y0 + 3);
	assert_true(find_row(c, "warning conflicting-sets") > y0 + 7);
	assert_true(find_row(c, "gain        about 300 misses per echo fewer") > 0);
	assert_int_equal(find_row(c, "capacity evidence line 1"), -1);
	/* the end: a rule not checked, its reason as the detail */
	fx_cmd(&fx, "end", NULL);
	assert_int_equal(selected_row(c), y0 + 7);
	assert_true(find_row(c, "not checked: optimisation") > y0 + 7);
	assert_true(find_row(c, "not checked no DWARF producers in the image") > 0);
	fx_cmd(&fx, "home", NULL);
	assert_int_equal(selected_row(c), y0 + 1);
	assert_true(find_row(c, "try it      no workbench command tries this fix") > 0);
	fx_cmd(&fx, "page-down", NULL);
	assert_int_equal(selected_row(c), y0 + 7);
	fx_cmd(&fx, "page-up", NULL);
	assert_int_equal(selected_row(c), y0 + 1);
	fx_close(&fx);
}

static void test_drill_down(void **state)
{
	(void)state;
	fixture fx;
	fx_open(&fx, 80, 12);
	xb_canvas *c = fx.c;
	fx_cmd(&fx, "down", NULL);
	fx_cmd(&fx, "down", NULL); /* conflicting-sets: 12 evidence lines */
	assert_int_equal(fx_cmd(&fx, "enter", NULL), XB_PANEL_REDRAW);
	assert_true(find_row(c, "Triage · conflicting-sets") == 0);
	assert_true(find_row(c, "warning conflicting-sets") == 2);
	assert_true(find_row(c, "summary     12 cache sets hold more hot lines") == 3);
	assert_true(find_row(c, "conflicting-sets evidence line 1:") == 4);
	/* a long line wraps under its text, without its label */
	assert_true(find_row(c, "│            net_ipv4_input, z_swap and memcpy") == 5);
	assert_true(find_row(c, "conflicting-sets evidence line 2:") == 6);
	assert_int_equal(find_row(c, "severity rule"), -1);
	/* down scrolls the detail; end shows its last lines, the command */
	fx_cmd(&fx, "down", NULL);
	assert_true(find_row(c, "conflicting-sets evidence line 1:") == 3);
	assert_true(find_row(c, "conflicting-sets evidence line 2:") == 5);
	assert_int_equal(find_row(c, "summary "), -1);
	fx_cmd(&fx, "end", NULL);
	assert_true(find_row(c, "try it      :preset colour") == 10);
	assert_int_equal(find_row(c, "evidence line 1:"), -1);
	fx_cmd(&fx, "home", NULL);
	assert_true(find_row(c, "summary ") == 3);
	/* right and left: the next and previous findings, in the drill-down */
	fx_cmd(&fx, "right", NULL);
	assert_true(find_row(c, "Triage · debug-features") == 0);
	fx_cmd(&fx, "left", NULL);
	fx_cmd(&fx, "left", NULL);
	assert_true(find_row(c, "Triage · capacity") == 0);
	/* try works in the drill-down too */
	assert_int_equal(fx_cmd(&fx, "try", NULL), XB_PANEL_RUN | XB_PANEL_REDRAW);
	assert_string_equal(fx.res.msg, ":preset sram 4K");
	/* back: the list again, the selection where it was */
	fx_cmd(&fx, "back", NULL);
	assert_true(find_row(c, "severity rule") == 2);
	assert_int_equal(selected_row(c), 4);
	assert_true(find_row(c, "┤ Triage ├") == 0);
	fx_close(&fx);
}

static void test_try(void **state)
{
	(void)state;
	fixture fx;
	fx_open(&fx, 80, 24);
	/* cache-off has no command: said, nothing to run */
	int flags = fx_cmd(&fx, "try", NULL);
	assert_int_equal(flags, XB_PANEL_ERROR | XB_PANEL_MESSAGE);
	assert_non_null(strstr(fx.res.msg, "cache-off: no workbench command tries this fix"));
	fx_cmd(&fx, "down", NULL);
	assert_int_equal(fx_cmd(&fx, "try", NULL), XB_PANEL_RUN | XB_PANEL_REDRAW);
	assert_string_equal(fx.res.msg, ":preset sram 4K");
	fx_cmd(&fx, "down", NULL);
	assert_int_equal(fx_cmd(&fx, "try", NULL), XB_PANEL_RUN | XB_PANEL_REDRAW);
	assert_string_equal(fx.res.msg, ":preset colour");
	fx_cmd(&fx, "end", NULL);
	assert_true(fx_cmd(&fx, "try", NULL) & XB_PANEL_ERROR);
	assert_non_null(strstr(fx.res.msg, "optimisation was not checked"));
	/* no triage yet */
	fx.m.triage = NULL;
	assert_true(fx_cmd(&fx, "try", NULL) & XB_PANEL_ERROR);
	assert_non_null(strstr(fx.res.msg, "has not run yet"));
	assert_true(find_row(fx.c, "the triage runs when this panel is shown") == -1);
	fx.m.img = (const xb_image *)&fx; /* any image: the panel says the triage is to come */
	fx_draw(&fx, 1);
	assert_true(find_row(fx.c, "no triage yet") == 1);
	assert_true(find_row(fx.c, "the triage runs when this panel is shown") == 3);
	assert_true(fx_cmd(&fx, "enter", NULL) & XB_PANEL_ERROR);
	/* a run that failed: said above the last good triage */
	fx.m.triage = &fx.t;
	fx.m.triage_error = "build/zephyr/zephyr.elf: No such file or directory";
	fx_draw(&fx, 1);
	assert_true(find_row(fx.c, "the last triage failed: build/zephyr/zephyr.elf: No") == 2);
	assert_true(find_row(fx.c, "severity rule") == 3);
	/* commands the panel does not take */
	assert_int_equal(fx_cmd(&fx, "sort", NULL), XB_PANEL_UNHANDLED);
	assert_int_equal(fx_cmd(&fx, "mode", NULL), XB_PANEL_UNHANDLED);
	assert_int_equal(fx_cmd(&fx, "tag", NULL), XB_PANEL_UNHANDLED);
	fx_close(&fx);
}

static void test_filter_search_and_new_triage(void **state)
{
	(void)state;
	fixture fx;
	fx_open(&fx, 100, 30);
	xb_canvas *c = fx.c;
	/* filter: rule, summary, severity or reason */
	fx_cmd(&fx, "filter", "warning");
	assert_true(find_row(c, "Triage filter 'warning'") == 0);
	assert_true(find_row(c, "2 match the filter") == 1);
	assert_true(find_row(c, "capacity") == 3);
	assert_true(find_row(c, "conflicting-sets") == 4);
	assert_int_equal(find_row(c, "cache-off"), -1);
	fx_cmd(&fx, "filter", "DWARF");
	assert_true(find_row(c, "optimisation") == 3);
	fx_cmd(&fx, "filter", "nothing like this");
	assert_true(find_row(c, "no finding matches the filter") == 3);
	assert_true(fx_cmd(&fx, "try", NULL) & XB_PANEL_ERROR);
	fx_cmd(&fx, "filter", NULL);
	assert_true(find_row(c, "cache-off") == 3);
	/* search, next, prev, wrapping */
	fx_cmd(&fx, "search", "debug");
	assert_int_equal(selected_row(c), find_row(c, "debug-features"));
	fx_cmd(&fx, "search", "preset");
	assert_int_equal(fx_cmd(&fx, "search", "evidence"), XB_PANEL_ERROR | XB_PANEL_MESSAGE);
	fx_cmd(&fx, "search", "cache");
	int first = selected_row(c);
	assert_int_equal(first, find_row(c, "cache-off"));
	fx_cmd(&fx, "next", NULL);
	assert_int_equal(selected_row(c), find_row(c, "capacity")); /* "cache lines" */
	fx_cmd(&fx, "prev", NULL);
	assert_int_equal(selected_row(c), first);
	fx_cmd(&fx, "prev", NULL); /* wraps to the last match */
	assert_true(selected_row(c) > first);
	/* a new triage with the findings in another order: the selection stays on its rule */
	fx_cmd(&fx, "search", "conflicting");
	int before = selected_row(c);
	fx.m.triage = &fx.later;
	fx.m.triage_version = 2;
	fx_draw(&fx, 1);
	assert_true(find_row(c, "4 findings") == 1);
	assert_int_equal(selected_row(c), find_row(c, "conflicting-sets"));
	assert_true(selected_row(c) != before);
	assert_true(find_row(c, "warning conflicting-sets") > selected_row(c));
	/* a rule that is gone: the selection stays in range */
	fx.m.triage = &fx.t;
	fx.m.triage_version = 3;
	fx_cmd(&fx, "home", NULL); /* cache-off */
	fx.m.triage = &fx.later;
	fx.m.triage_version = 4;
	fx_draw(&fx, 1);
	assert_true(selected_row(c) >= 3);
	fx_close(&fx);
}

static void test_mouse(void **state)
{
	(void)state;
	fixture fx;
	fx_open(&fx, 100, 30);
	xb_canvas *c = fx.c;
	int y = find_row(c, "debug-features");
	xb_mouse ev = {XB_MOUSE_CLICK, 10, y};
	assert_int_equal(fx.ops->mouse(fx.st, &fx.m, canvas_bounds(c), &ev, &fx.res),
			 XB_PANEL_REDRAW);
	fx_draw(&fx, 1);
	assert_int_equal(selected_row(c), y);
	ev = (xb_mouse){XB_MOUSE_WHEEL_DOWN, 10, y};
	fx.ops->mouse(fx.st, &fx.m, canvas_bounds(c), &ev, &fx.res);
	fx_draw(&fx, 1);
	assert_int_equal(selected_row(c), y + 3);
	ev = (xb_mouse){XB_MOUSE_DOUBLE, 10, find_row(c, "capacity")};
	fx.ops->mouse(fx.st, &fx.m, canvas_bounds(c), &ev, &fx.res);
	fx_draw(&fx, 1);
	assert_true(find_row(c, "Triage · capacity") == 0);
	ev = (xb_mouse){XB_MOUSE_CLICK, 10, 0};
	assert_int_equal(fx.ops->mouse(fx.st, &fx.m, canvas_bounds(c), &ev, &fx.res),
			 XB_PANEL_UNHANDLED);
	fx_close(&fx);
}

/* Draws in r of a canvas filled with a sentinel: every cell of r drawn, none outside. */
static void draw_in_sentinel(fixture *fx, xb_canvas *c, xb_rect r, int focused)
{
	canvas_fill(c, canvas_bounds(c), '#', XB_EL_MATCH);
	fx->ops->draw(fx->st, &fx->m, c, r, focused);
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < c->w; x++) {
			xb_cell cell = canvas_get(c, x, y);
			int inside = x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
			int sentinel = cell.ch == '#' && cell.el == XB_EL_MATCH;
			if (inside == sentinel)
				fail_msg("triage %dx%d: cell %d,%d %s", r.w, r.h, x, y,
					 inside ? "not drawn" : "drawn outside");
		}
}

static void test_sizes(void **state)
{
	(void)state;
	static const int ws[] = {0, 1, 2, 3, 5, 8, 13, 14, 20, 33, 47, 80, 121, 200};
	static const int hs[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 24, 37, 60};
	/* the list, the drill-down scrolled to its end, a failed run, no triage at all */
	static const char *const setups[][3] = {{NULL}, {"down", "down", "enter"},
						{"end", NULL}, {"filter", NULL}};
	for (int v = 0; v < 6; v++) {
		fixture fx;
		fx_open(&fx, 10, 10);
		if (v < 4)
			for (int k = 0; k < 3 && setups[v][k]; k++)
				fx.ops->command(fx.st, &fx.m, setups[v][k],
						strcmp(setups[v][k], "filter") ? NULL : "zzz",
						&fx.res);
		if (v == 1)
			fx.ops->command(fx.st, &fx.m, "end", NULL, &fx.res);
		if (v == 4)
			fx.m.triage_error = "a very long reason why the triage could not run, "
					    "longer than any panel is wide at its smallest sizes";
		if (v == 5)
			fx.m.triage = NULL;
		xb_canvas *c = canvas_new(210, 66);
		for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
			for (size_t j = 0; j < sizeof hs / sizeof hs[0]; j++)
				draw_in_sentinel(&fx, c, (xb_rect){4, 3, ws[i], hs[j]},
						 (int)(i % 2));
		canvas_free(c);
		static const int whole[][2] = {{20, 5}, {1, 1}, {0, 0}};
		for (size_t k = 0; k < 3; k++) {
			xb_canvas *s = canvas_new(whole[k][0], whole[k][1]);
			fx.ops->draw(fx.st, &fx.m, s, canvas_bounds(s), 1);
			canvas_free(s);
		}
		fx_close(&fx);
	}
}

/* ---- goldens ---- */

static int golden_failures;

static void golden(const char *name, const xb_canvas *c, const xb_theme *t, int colours)
{
	xb_strbuf sb = {0};
	canvas_dump(c, t, colours, &sb);
	char path[512];
	snprintf(path, sizeof path, "%s/%s.txt", GOLDEN_DIR, name);
	const char *update = getenv("XB_GOLDEN_UPDATE");
	xb_err err;
	if (update && strcmp(update, "1") == 0) {
		assert_int_equal(xb_write_file_atomic(path, sb.buf, sb.len, &err), 0);
		printf("# wrote %s\n", path);
		sb_free(&sb);
		return;
	}
	char *want = NULL;
	size_t len = 0;
	if (xb_read_file(path, &want, &len, &err) != 0) {
		printf("# %s: missing golden (%s); XB_GOLDEN_UPDATE=1 writes it\n", name, err.msg);
		golden_failures++;
	} else if (len != sb.len || memcmp(want, sb.buf, len) != 0) {
		printf("# %s: differs from its golden\n", name);
		golden_failures++;
	}
	free(want);
	sb_free(&sb);
}

static void test_goldens(void **state)
{
	(void)state;
	static const struct {
		const char *suffix, *theme;
		int w, h;
		const char *cmds[4];
	} cases[] = {
		{"known", "dark", 80, 24, {"down"}},
		{"known", "dark", 200, 60, {"down"}},
		{"known", "mono", 80, 24, {"down"}},
		{"drill-down", "dark", 80, 24, {"down", "down", "enter"}},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		fixture fx;
		fx_open(&fx, cases[k].w, cases[k].h);
		for (size_t i = 0; i < 4 && cases[k].cmds[i]; i++)
			fx_cmd(&fx, cases[k].cmds[i], NULL);
		xb_theme th;
		xb_err err;
		assert_int_equal(theme_load(&th, cases[k].theme, &err), 0);
		char name[128];
		snprintf(name, sizeof name, "triage-%s-%dx%d-%s", cases[k].theme, cases[k].w,
			 cases[k].h, cases[k].suffix);
		golden(name, fx.c, &th, strcmp(cases[k].theme, "mono") ? 256 : 0);
		fx_close(&fx);
	}
	assert_int_equal(golden_failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_and_detail),
		cmocka_unit_test(test_drill_down),
		cmocka_unit_test(test_try),
		cmocka_unit_test(test_filter_search_and_new_triage),
		cmocka_unit_test(test_mouse),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_goldens),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
