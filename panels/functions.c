/* functions: every function with samples in the window (and, while a filter or search
 * names them, any function): samples, share, size, samples per byte, lines touched, the
 * misses attributed to it and where it runs from; sortable, filterable, searchable. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "panel.h"
#include "widgets.h"

#define FUNCTIONS_SORTS "samples,share,bytes,density,lines,misses,name,address"
enum { SORT_SAMPLES, SORT_SHARE, SORT_BYTES, SORT_DENSITY, SORT_LINES, SORT_MISSES,
       SORT_NAME, SORT_ADDRESS };

enum { COL_NAME, COL_SAMPLES, COL_SHARE, COL_BYTES, COL_DENSITY, COL_LINES, COL_MISSES,
       COL_ADDRESS, COL_WHERE, COL_LIBRARY, NCOLS };

static const wg_column functions_columns[NCOLS] = {
	[COL_NAME] = {"function", 0, 16, XB_ALIGN_LEFT, 0, "name"},
	[COL_SAMPLES] = {"samples", 8, 0, XB_ALIGN_RIGHT, 0, "samples"},
	[COL_SHARE] = {"share", 7, 0, XB_ALIGN_RIGHT, 4, "share"},
	[COL_BYTES] = {"bytes", 6, 0, XB_ALIGN_RIGHT, 5, "bytes"},
	[COL_DENSITY] = {"per byte", 9, 0, XB_ALIGN_RIGHT, 6, "density"},
	[COL_LINES] = {"lines", 9, 0, XB_ALIGN_RIGHT, 8, "lines"},
	[COL_MISSES] = {"misses", 7, 0, XB_ALIGN_RIGHT, 3, "misses"},
	[COL_ADDRESS] = {"address", 11, 0, XB_ALIGN_LEFT, 7, "address"},
	[COL_WHERE] = {"where", 8, 0, XB_ALIGN_LEFT, 2, NULL},
	[COL_LIBRARY] = {"library", 18, 0, XB_ALIGN_LEFT, 9, NULL},
};

typedef struct functions_state {
	wg_ftable t;          /* rows, selection, sort, filter, search */
	double *fig;          /* per image function: its figure in the window */
	size_t nfig;
	double total;         /* the share denominator */
	const xb_model *m;    /* for the sort comparison and the rows a search makes again */
} functions_state;

static void *functions_create(void)
{
	functions_state *s = xcalloc(1, sizeof *s);
	wg_ftable_init(&s->t);
	return s;
}

static void functions_destroy(void *st)
{
	functions_state *s = st;
	if (!s)
		return;
	wg_ftable_free(&s->t);
	free(s->fig);
	free(s);
}

static double functions_misses(const xb_model *m, size_t f)
{
	return m->func_misses ? m->func_misses[f] : NAN;
}

static uint32_t functions_lines(const xb_model *m, size_t f)
{
	return m->prof ? liveprof_func_lines_touched(m->prof, m->window, f) : 0;
}

/* A row's sort key (wg_ftable_settle). */
static double functions_key_of(void *ctx, size_t i)
{
	const functions_state *s = ctx;
	const xb_model *m = s->m;
	const xb_function *f = &m->img->funcs[i];
	switch (s->t.sort) {
	case SORT_BYTES:
		return f->size;
	case SORT_DENSITY:
		return f->size ? s->fig[i] / f->size : 0;
	case SORT_LINES:
		return functions_lines(m, i);
	case SORT_MISSES:
		return functions_misses(m, i);
	case SORT_ADDRESS:
		return -(double)f->addr;
	}
	return s->fig[i];
}

/* The rows: functions (first aliases) with samples, and those the filter or the search
 * names; sorted; the selection follows its function. */
static void functions_rows(functions_state *s, const xb_model *m)
{
	s->t.nrows = 0;
	s->m = m;
	size_t n = m->img ? m->img->nfuncs : 0;
	xb_grow(&s->t.rows, &s->t.rows_cap, n + 1, sizeof *s->t.rows);
	if (s->nfig < n + 1) {
		free(s->fig);
		s->fig = xmalloc((n + 1) * sizeof *s->fig);
		s->nfig = n + 1;
	}
	s->total = wg_busy_total(m, NULL);
	for (size_t i = 0; i < n; i++) {
		const xb_function *f = &m->img->funcs[i];
		if (f->alias_of >= 0)
			continue;
		s->fig[i] = m->prof ? liveprof_func(m->prof, m->window, i) : 0;
		int keep = s->t.filter[0] ? wg_match(f->name, s->t.filter)
					: s->fig[i] > 0 ||
						  (s->t.search[0] && wg_match(f->name, s->t.search));
		if (keep)
			s->t.rows[s->t.nrows++] = i;
	}
	if (m->img)
		wg_ftable_settle(&s->t, m->img, s->t.sort == SORT_NAME, functions_key_of, s);
}

static void functions_cell(void *ctx, size_t row, int col, char *buf, size_t cap, int *el)
{
	const functions_state *s = ctx;
	const xb_model *m = s->m;
	size_t i = s->t.rows[row];
	const xb_function *f = &m->img->funcs[i];
	double v = s->fig[i];
	char a[WG_NUM];
	switch (col) {
	case COL_NAME:
		snprintf(buf, cap, "%s", f->name);
		if (!(v > 0))
			*el = XB_EL_DIM;
		break;
	case COL_SAMPLES:
		snprintf(buf, cap, "%s", wg_count(a, v));
		*el = wg_heat_el(s->total > 0 ? v / s->total : 0);
		break;
	case COL_SHARE:
		snprintf(buf, cap, "%s", wg_percent(a, s->total > 0 ? 100 * v / s->total : NAN));
		break;
	case COL_BYTES:
		snprintf(buf, cap, "%u", f->size);
		break;
	case COL_DENSITY:
		snprintf(buf, cap, "%s", f->size ? wg_fixed(a, v / f->size, 2) : "-");
		break;
	case COL_LINES: {
		uint32_t first = 0, count = 0;
		if (m->prof)
			liveprof_func_lines(m->prof, i, &first, &count);
		snprintf(buf, cap, "%u/%u", functions_lines(m, i), count);
		break;
	}
	case COL_MISSES:
		snprintf(buf, cap, "%s", wg_count(a, functions_misses(m, i)));
		break;
	case COL_ADDRESS:
		snprintf(buf, cap, "0x%08x", f->addr);
		break;
	case COL_WHERE:
		wg_placement(buf, cap, m, f->addr, f->region);
		if (f->region != XB_REGION_FLASH)
			*el = XB_EL_GOOD;
		break;
	case COL_LIBRARY:
		snprintf(buf, cap, "%s", f->library >= 0 && (size_t)f->library < m->img->nlibraries
						 ? m->img->libraries[f->library].group : "");
		*el = XB_EL_DIM;
		break;
	}
}

/* The line above the table: how many functions, which window, what the figures are. */
static void functions_header(const functions_state *s, const xb_model *m, xb_canvas *c,
			     xb_rect in)
{
	wg_pen p = wg_pen_at(c, in, 0);
	if (!m->img) {
		wg_put(&p, XB_EL_DIM, "no image loaded");
		return;
	}
	size_t sampled = 0, n = 0;
	for (size_t i = 0; i < m->img->nfuncs; i++)
		if (m->img->funcs[i].alias_of < 0) {
			n++;
			sampled += s->fig[i] > 0;
		}
	char a[WG_NUM], b[96], sub[96];
	snprintf(a, sizeof a, "%zu", sampled);
	snprintf(b, sizeof b, " of %zu functions with samples", n);
	wg_item(&p, a, b);
	if (s->t.filter[0]) {
		snprintf(a, sizeof a, "%zu", s->t.nrows);
		wg_item(&p, a, " match the filter");
	}
	wg_item(&p, wg_window_name(m->window), NULL);
	wg_item(&p, wg_count(a, s->total), " samples");
	if (!wg_item(&p, NULL, wg_subtract_text(sub, sizeof sub, m)))
		wg_item(&p, NULL, m->subtract ? "idle subtracted" : "idle not subtracted");
	if (m->func_misses) {
		snprintf(b, sizeof b, "misses per echo from %s",
			 m->func_misses_from ? m->func_misses_from : "?");
		wg_item(&p, NULL, b);
	}
	else
		wg_item(&p, NULL, "misses per echo not known");
}

static void functions_draw(void *st, const xb_model *m, xb_canvas *c, xb_rect r, int focused)
{
	functions_state *s = st;
	char title[200];
	int k = snprintf(title, sizeof title, "Functions");
	if (s->t.filter[0])
		snprintf(title + k, sizeof title - (size_t)k, " filter '%s'", s->t.filter);
	xb_rect in = panel_frame(c, r, title, focused);
	s->t.table = (xb_rect){0, 0, 0, 0};
	if (in.w <= 0 || in.h <= 0)
		return;
	functions_rows(s, m);
	functions_header(s, m, c, in);
	xb_rect tr;
	rect_split_rows(in, 1, NULL, &tr);
	s->t.table = tr;
	/* the name column as wide as the longest name, the rest blank at the right */
	wg_column cols[NCOLS];
	memcpy(cols, functions_columns, sizeof cols);
	if (m->img)
		wg_ftable_name_width(&s->t, m->img, &cols[COL_NAME]);
	char f[32];
	wg_table t = {
		.cols = cols,
		.ncols = NCOLS,
		.nrows = s->t.nrows,
		.sort = wg_field(FUNCTIONS_SORTS, s->t.sort, f, sizeof f),
		.ascending = s->t.ascending ^ (s->t.sort == SORT_NAME || s->t.sort == SORT_ADDRESS),
		.empty = !m->img ? "" : s->t.filter[0] ? "no function matches the filter"
				      : "no samples in this window",
		.focused = focused,
		.ctx = s,
		.cell = functions_cell,
	};
	wg_table_draw(c, tr, &t, &s->t.list);
	s->t.sel_func = s->t.nrows ? (long)s->t.rows[s->t.list.sel] : -1;
}

/* Selects the next row (dir 1) or previous (-1) whose name holds the search text. */
static void functions_rows_again(void *st)
{
	functions_state *s = st;
	functions_rows(s, s->m);
}

static int functions_command(void *st, const xb_model *m, const char *verb, const char *arg,
			     xb_panel_result *res)
{
	functions_state *s = st;
	res->flags = 0;
	functions_rows(s, m);
	s->m = m;
	return wg_ftable_command(&s->t, m->img, FUNCTIONS_SORTS, "functions", functions_rows_again,
				 s, verb, arg, res);
}

static int functions_mouse(void *st, const xb_model *m, xb_rect r, const xb_mouse *ev,
			   xb_panel_result *res)
{
	functions_state *s = st;
	(void)r;
	res->flags = 0;
	if (ev->kind == XB_MOUSE_WHEEL_UP || ev->kind == XB_MOUSE_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			functions_command(st, m, ev->kind == XB_MOUSE_WHEEL_UP ? "up" : "down",
					  NULL, res);
		return res->flags;
	}
	functions_rows(s, m);
	if (wg_ftable_click(&s->t, ev) < 0)
		return res->flags = XB_PANEL_UNHANDLED;
	return res->flags = XB_PANEL_REDRAW;
}

const xb_panel_ops panel_functions = {
	.name = "functions",
	.title = "Functions",
	.sorts = FUNCTIONS_SORTS,
	.modes = NULL,
	.create = functions_create,
	.destroy = functions_destroy,
	.draw = functions_draw,
	.command = functions_command,
	.mouse = functions_mouse,
};
