/* libraries: the heat per display group or library (share, samples per second, a bar and a
 * heat strip over time), drilled down to the functions of one, then to the 8-byte lines of
 * one function with their source lines; sort, filter and search at every level. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "panel.h"
#include "widgets.h"

enum { LEVEL_TOP, LEVEL_FUNCS, LEVEL_LINES, NLEVELS };
enum { MODE_GROUPS, MODE_LIBRARIES };
#define LIBRARIES_MODES "groups,libraries"

/* Sort fields: the panel takes all of them, each level its own. */
#define LIBRARIES_SORTS "samples,share,bytes,density,name,address"
enum { S_SAMPLES, S_SHARE, S_BYTES, S_DENSITY, S_NAME, S_ADDRESS };
static const char *const level_sorts[NLEVELS] = {
	"samples,share,name",
	"samples,share,bytes,density,name,address",
	"address,samples",
};
static const int level_default_sort[NLEVELS] = {S_SAMPLES, S_SAMPLES, S_ADDRESS};

#define NAME_MAX_W 28 /* the widest name column at the top level */
#define BAR_W 12

typedef struct lib_level {
	wg_list list;
	int sort, ascending;
	char filter[128], search[128];
	long sel_id; /* the selected item (group, library, function, line), -1 none */
} lib_level;

typedef struct libraries_state {
	int mode, level;
	lib_level lv[NLEVELS];
	long item;   /* the group or library drilled into */
	long func;   /* the function drilled into */
	/* the rows of the current level (item ids) and each item's figure */
	size_t *rows, nrows, cap;
	double *fig;
	size_t nfig;
	double total, top_fig; /* the share denominator, the largest figure shown */
	/* top level: each item's history, and the total per history bucket */
	double *hist, *hist_sum;
	size_t hist_cap, sum_cap, hist_n, hist_real;
	double hist_max;       /* the largest share in any bucket (the strips' scale) */
	double seconds;        /* the window's length */
	xb_rect table;
	const xb_model *m;
} libraries_state;

static void *libraries_create(void)
{
	libraries_state *s = xcalloc(1, sizeof *s);
	for (int l = 0; l < NLEVELS; l++) {
		s->lv[l].sort = level_default_sort[l];
		s->lv[l].sel_id = -1;
	}
	s->item = s->func = -1;
	return s;
}

static void libraries_destroy(void *st)
{
	libraries_state *s = st;
	if (!s)
		return;
	free(s->rows);
	free(s->fig);
	free(s->hist);
	free(s->hist_sum);
	free(s);
}

/* ---- items of each level ---- */

static size_t top_items(const libraries_state *s, const xb_model *m)
{
	if (!m->prof || !m->img)
		return 0;
	return s->mode == MODE_GROUPS ? liveprof_groups(m->prof) : m->img->nlibraries;
}

static const char *top_name(const libraries_state *s, const xb_model *m, size_t id)
{
	const char *n = s->mode == MODE_GROUPS ? liveprof_group_name(m->prof, id)
					       : m->img->libraries[id].name;
	return n ? n : "?";
}

static double top_figure(const libraries_state *s, const xb_model *m, size_t id)
{
	return s->mode == MODE_GROUPS ? liveprof_group(m->prof, m->window, id)
				      : liveprof_library(m->prof, m->window, id);
}

/* The function belongs to the item drilled into. */
static int in_item(const libraries_state *s, const xb_model *m, const xb_function *f)
{
	if (f->library < 0)
		return 0;
	if (s->mode == MODE_LIBRARIES)
		return f->library == s->item;
	return (long)liveprof_group_of(m->prof, (size_t)f->library) == s->item;
}

static uint32_t line_size(const xb_model *m)
{
	return m->prof ? liveprof_line_size(m->prof) : 8;
}

static uint32_t line_addr(const libraries_state *s, const xb_model *m, size_t k)
{
	uint32_t first = 0, count = 0;
	liveprof_func_lines(m->prof, (size_t)s->func, &first, &count);
	return first + (uint32_t)k * line_size(m);
}

/* "ipv4.c:123" for a line address, "" when there are no line tables or no row. */
static const char *source_of(const xb_model *m, uint32_t addr, char *buf, size_t cap)
{
	const char *file;
	unsigned line;
	buf[0] = 0;
	if (m->src && srclines_find(m->src, addr, &file, &line) == 0)
		snprintf(buf, cap, "%s:%u", file, line);
	return buf;
}

/* The name a filter and a search look at. */
static const char *item_name(const libraries_state *s, const xb_model *m, size_t id, char *buf,
			     size_t cap)
{
	switch (s->level) {
	case LEVEL_TOP:
		return top_name(s, m, id);
	case LEVEL_FUNCS:
		return m->img->funcs[id].name;
	}
	uint32_t a = line_addr(s, m, id);
	char src[200];
	snprintf(buf, cap, "0x%08x %s", a, source_of(m, a, src, sizeof src));
	return buf;
}

/* ---- rows ---- */

static int cmp_num(double a, double b)
{
	return a > b ? -1 : a < b;
}

static int rows_cmp(const void *pa, const void *pb, void *ctx)
{
	const libraries_state *s = ctx;
	const xb_model *m = s->m;
	const lib_level *lv = &s->lv[s->level];
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	char x[256], y[256];
	int r = 0;
	switch (lv->sort) {
	case S_SAMPLES:
	case S_SHARE:
		r = cmp_num(s->fig[a], s->fig[b]);
		break;
	case S_BYTES:
		r = cmp_num(m->img->funcs[a].size, m->img->funcs[b].size);
		break;
	case S_DENSITY: {
		const xb_function *fa = &m->img->funcs[a], *fb = &m->img->funcs[b];
		r = cmp_num(fa->size ? s->fig[a] / fa->size : 0,
			    fb->size ? s->fig[b] / fb->size : 0);
		break;
	}
	case S_NAME:
		r = strcmp(item_name(s, m, a, x, sizeof x), item_name(s, m, b, y, sizeof y));
		break;
	case S_ADDRESS:
		r = s->level == LEVEL_FUNCS ? (m->img->funcs[a].addr < m->img->funcs[b].addr ? -1
					       : m->img->funcs[a].addr > m->img->funcs[b].addr)
					    : (a < b ? -1 : a > b);
		break;
	}
	if (lv->ascending)
		r = -r;
	return r ? r : a < b ? -1 : a > b;
}

static size_t level_items(const libraries_state *s, const xb_model *m)
{
	if (!m->prof || !m->img)
		return 0;
	if (s->level == LEVEL_TOP)
		return top_items(s, m);
	if (s->level == LEVEL_FUNCS)
		return m->img->nfuncs;
	uint32_t first, count;
	liveprof_func_lines(m->prof, (size_t)s->func, &first, &count);
	return count;
}

/* The rows of the current level, sorted, with the selection on its item. Lines are all
 * shown (the shape of a function matters); groups, libraries and functions when they have
 * samples or the filter or the search names them. */
static void build_rows(libraries_state *s, const xb_model *m)
{
	lib_level *lv = &s->lv[s->level];
	s->m = m;
	s->nrows = 0;
	s->top_fig = 0;
	size_t n = level_items(s, m);
	xb_grow(&s->rows, &s->cap, n + 1, sizeof *s->rows);
	if (s->nfig < n + 1) {
		free(s->fig);
		s->nfig = n + 1;
		s->fig = xmalloc(s->nfig * sizeof *s->fig);
	}
	xb_liveprof_totals t;
	s->total = wg_busy_total(m, &t);
	s->seconds = t.seconds;
	char buf[256];
	for (size_t i = 0; i < n; i++) {
		double v;
		if (s->level == LEVEL_TOP) {
			v = top_figure(s, m, i);
		} else if (s->level == LEVEL_FUNCS) {
			const xb_function *f = &m->img->funcs[i];
			if (f->alias_of >= 0 || !in_item(s, m, f))
				continue;
			v = liveprof_func(m->prof, m->window, i);
		} else {
			v = liveprof_line(m->prof, m->window, (size_t)s->func, (uint32_t)i);
		}
		s->fig[i] = v;
		const char *name =
			lv->filter[0] || lv->search[0] ? item_name(s, m, i, buf, sizeof buf) : "";
		int keep = lv->filter[0] ? wg_match(name, lv->filter)
			   : s->level == LEVEL_LINES || v > 0 ||
				     (lv->search[0] && wg_match(name, lv->search));
		if (!keep)
			continue;
		s->rows[s->nrows++] = i;
		if (v > s->top_fig)
			s->top_fig = v;
	}
	qsort_r(s->rows, s->nrows, sizeof *s->rows, rows_cmp, s);
	if (lv->sel_id >= 0)
		for (size_t r = 0; r < s->nrows; r++)
			if ((long)s->rows[r] == lv->sel_id) {
				lv->list.sel = r;
				break;
			}
	if (lv->list.sel >= s->nrows)
		lv->list.sel = s->nrows ? s->nrows - 1 : 0;
	lv->sel_id = s->nrows ? (long)s->rows[lv->list.sel] : -1;
}

/* The history of every top-level item over n buckets, and the total per bucket, for the
 * heat strips (a share of all attributed samples in that bucket). */
static void build_history(libraries_state *s, const xb_model *m, size_t n)
{
	size_t items = top_items(s, m);
	xb_grow(&s->hist, &s->hist_cap, items * n + 1, sizeof *s->hist);
	xb_grow(&s->hist_sum, &s->sum_cap, n + 1, sizeof *s->hist_sum);
	s->hist_n = n;
	s->hist_real = 0;
	for (size_t j = 0; j < n; j++)
		s->hist_sum[j] = 0;
	for (size_t i = 0; i < items; i++) {
		double *h = s->hist + i * n;
		size_t real = s->mode == MODE_GROUPS ? liveprof_group_history(m->prof, i, h, n)
						     : liveprof_library_history(m->prof, i, h, n);
		if (real > s->hist_real)
			s->hist_real = real;
		for (size_t j = 0; j < n; j++)
			s->hist_sum[j] += h[j];
	}
	s->hist_max = 0;
	for (size_t i = 0; i < items; i++)
		for (size_t j = 0; j < n; j++) {
			double *h = s->hist + i * n + j;
			*h = s->hist_sum[j] > 0 ? *h / s->hist_sum[j] : 0;
			if (*h > s->hist_max)
				s->hist_max = *h;
		}
}

/* ---- columns ---- */

enum { T_NAME, T_SAMPLES, T_SHARE, T_RATE, T_BAR, T_STRIP, T_NCOLS };
static const wg_column top_columns[T_NCOLS] = {
	[T_NAME] = {"group", NAME_MAX_W, 0, XB_ALIGN_LEFT, 0, "name"},
	[T_SAMPLES] = {"samples", 8, 0, XB_ALIGN_RIGHT, 3, "samples"},
	[T_SHARE] = {"share", 7, 0, XB_ALIGN_RIGHT, 0, "share"},
	[T_RATE] = {"samples/s", 9, 0, XB_ALIGN_RIGHT, 2, NULL},
	[T_BAR] = {"", BAR_W, 0, XB_ALIGN_LEFT, 4, NULL},
	[T_STRIP] = {"over time", 0, 10, XB_ALIGN_LEFT, 1, NULL},
};

enum { F_NAME, F_SAMPLES, F_SHARE, F_BYTES, F_DENSITY, F_WHERE, F_BAR, F_NCOLS };
static const wg_column func_columns[F_NCOLS] = {
	[F_NAME] = {"function", 0, 16, XB_ALIGN_LEFT, 0, "name"},
	[F_SAMPLES] = {"samples", 8, 0, XB_ALIGN_RIGHT, 0, "samples"},
	[F_SHARE] = {"share", 7, 0, XB_ALIGN_RIGHT, 3, "share"},
	[F_BYTES] = {"bytes", 6, 0, XB_ALIGN_RIGHT, 4, "bytes"},
	[F_DENSITY] = {"per byte", 9, 0, XB_ALIGN_RIGHT, 5, "density"},
	[F_WHERE] = {"where", 8, 0, XB_ALIGN_LEFT, 2, NULL},
	[F_BAR] = {"", BAR_W + 8, 0, XB_ALIGN_LEFT, 6, NULL},
};

enum { L_ADDR, L_SAMPLES, L_SHARE, L_SET, L_BAR, L_SOURCE, L_NCOLS };
static const wg_column line_columns[L_NCOLS] = {
	[L_ADDR] = {"line", 11, 0, XB_ALIGN_LEFT, 0, "address"},
	[L_SAMPLES] = {"samples", 8, 0, XB_ALIGN_RIGHT, 0, "samples"},
	[L_SHARE] = {"of func", 7, 0, XB_ALIGN_RIGHT, 3, NULL},
	[L_SET] = {"where", 8, 0, XB_ALIGN_LEFT, 2, NULL},
	[L_BAR] = {"", BAR_W + 8, 0, XB_ALIGN_LEFT, 4, NULL},
	[L_SOURCE] = {"source", 0, 12, XB_ALIGN_LEFT, 1, NULL},
};

static double share_of(const libraries_state *s, double v)
{
	return s->total > 0 ? v / s->total : NAN;
}

static void cell(void *ctx, size_t row, int col, char *buf, size_t cap, int *el)
{
	const libraries_state *s = ctx;
	const xb_model *m = s->m;
	size_t id = s->rows[row];
	double v = s->fig[id];
	char a[WG_NUM];
	if (col == 1) { /* samples, at every level */
		snprintf(buf, cap, "%s", wg_count(a, v));
		*el = v > 0 ? wg_heat_el(share_of(s, v)) : XB_EL_DIM;
		return;
	}
	if (s->level == LEVEL_TOP) {
		switch (col) {
		case T_NAME:
			snprintf(buf, cap, "%s", top_name(s, m, id));
			break;
		case T_SHARE:
			snprintf(buf, cap, "%s", wg_percent(a, 100 * share_of(s, v)));
			break;
		case T_RATE:
			snprintf(buf, cap, "%s",
				 wg_count(a, s->seconds > 0 ? v / s->seconds : NAN));
			break;
		}
		return;
	}
	if (s->level == LEVEL_FUNCS) {
		const xb_function *f = &m->img->funcs[id];
		switch (col) {
		case F_NAME:
			snprintf(buf, cap, "%s", f->name);
			break;
		case F_SHARE:
			snprintf(buf, cap, "%s", wg_percent(a, 100 * share_of(s, v)));
			break;
		case F_BYTES:
			snprintf(buf, cap, "%u", f->size);
			break;
		case F_DENSITY:
			snprintf(buf, cap, "%s", f->size ? wg_fixed(a, v / f->size, 2) : "-");
			break;
		case F_WHERE:
			wg_placement(buf, cap, m, f->addr, f->region);
			if (f->region != XB_REGION_FLASH)
				*el = XB_EL_GOOD;
			break;
		}
		return;
	}
	uint32_t addr = line_addr(s, m, id);
	double fsum = liveprof_func(m->prof, m->window, (size_t)s->func);
	switch (col) {
	case L_ADDR:
		snprintf(buf, cap, "0x%08x", addr);
		break;
	case L_SHARE:
		snprintf(buf, cap, "%s", wg_percent(a, fsum > 0 ? 100 * v / fsum : NAN));
		break;
	case L_SET:
		wg_placement(buf, cap, m, addr, m->img->funcs[s->func].region);
		break;
	}
}

/* Bars (relative to the hottest row shown), heat strips and source paths draw themselves. */
static int draw_cell(void *ctx, size_t row, int col, xb_canvas *c, int x, int y, int w)
{
	const libraries_state *s = ctx;
	size_t id = s->rows[row];
	double v = s->fig[id];
	int bar = (s->level == LEVEL_TOP && col == T_BAR) ||
		  (s->level == LEVEL_FUNCS && col == F_BAR) ||
		  (s->level == LEVEL_LINES && col == L_BAR);
	if (bar) {
		wg_bar(c, x, y, w, s->top_fig > 0 ? v / s->top_fig : 0, wg_heat_el(share_of(s, v)));
		return 1;
	}
	if (s->level == LEVEL_TOP && col == T_STRIP) {
		/* as wide as the history goes back, from the left of its column */
		size_t n = s->hist_n;
		int shown = s->hist_real < (size_t)w ? (int)s->hist_real : w;
		canvas_fill(c, (xb_rect){x, y, w, 1}, ' ', XB_EL_NORMAL);
		wg_heat_strip(c, x, y, shown, s->hist + id * n, n, s->hist_real, s->hist_max);
		return 1;
	}
	if (s->level == LEVEL_LINES && col == L_SOURCE) {
		char src[256];
		source_of(s->m, line_addr(s, s->m, id), src, sizeof src);
		/* a path's end matters: cut at the left when it does not fit */
		canvas_field(c, x, y, w, *src ? XB_EL_NORMAL : XB_EL_DIM,
			     canvas_width(src) > w ? XB_ALIGN_RIGHT : XB_ALIGN_LEFT,
			     *src ? src : "-");
		return 1;
	}
	return 0;
}

/* ---- drawing ---- */

static const char *item_label(const libraries_state *s, const xb_model *m)
{
	size_t n = top_items(s, m);
	return s->item >= 0 && (size_t)s->item < n ? top_name(s, m, (size_t)s->item) : "?";
}

static int lv_filtered(const libraries_state *s)
{
	return s->lv[s->level].filter[0] != 0;
}

static void header_line(const libraries_state *s, const xb_model *m, xb_canvas *c, xb_rect in)
{
	wg_pen p = wg_pen_at(c, in, 0);
	if (!m->img || !m->prof) {
		wg_put(&p, XB_EL_DIM, m->img ? "no profile yet" : "no image loaded");
		return;
	}
	xb_liveprof_totals t;
	double total = wg_busy_total(m, &t);
	char a[WG_NUM], b[64], sub[96];
	if (s->level == LEVEL_TOP) {
		wg_item(&p, NULL, s->mode == MODE_GROUPS ? "by display group" : "by library");
	} else if (s->level == LEVEL_FUNCS) {
		snprintf(b, sizeof b, "%zu", s->nrows);
		wg_item(&p, b, lv_filtered(s) ? " functions match" : " functions with samples");
	} else {
		const xb_function *f = &m->img->funcs[s->func];
		uint32_t first, count;
		liveprof_func_lines(m->prof, (size_t)s->func, &first, &count);
		snprintf(b, sizeof b, "0x%08x", f->addr);
		wg_item(&p, b, NULL);
		snprintf(b, sizeof b, "%u", f->size);
		wg_item(&p, b, " bytes");
		snprintf(b, sizeof b, "%u of %u",
			 liveprof_func_lines_touched(m->prof, m->window, (size_t)s->func), count);
		wg_item(&p, b, " lines touched");
	}
	wg_item(&p, wg_window_name(m->window), NULL);
	wg_item(&p, wg_count(a, total), " samples");
	if (t.seconds > 0) {
		snprintf(b, sizeof b, "%s/s", wg_count(a, total / t.seconds));
		wg_item(&p, b, NULL);
	}
	if (!wg_item(&p, NULL, wg_subtract_text(sub, sizeof sub, m)))
		wg_item(&p, NULL, m->subtract ? "idle subtracted" : "idle not subtracted");
	if (s->level == LEVEL_TOP && total > 0 && t.unattributed)
		wg_item(&p, wg_percent(a, 100.0 * (double)t.unattributed / total),
			" outside functions");
}

static void make_title(const libraries_state *s, const xb_model *m, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "Libraries");
	if (s->level >= LEVEL_FUNCS && n >= 0 && (size_t)n < cap)
		n += snprintf(buf + n, cap - (size_t)n, " > %s", item_label(s, m));
	if (s->level >= LEVEL_LINES && n >= 0 && (size_t)n < cap)
		n += snprintf(buf + n, cap - (size_t)n, " > %s", m->img->funcs[s->func].name);
	const lib_level *lv = &s->lv[s->level];
	if (lv->filter[0] && n >= 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, " filter '%s'", lv->filter);
}

/* A level drilled into can lose its item (a new image): go back to the top. */
static void check_level(libraries_state *s, const xb_model *m)
{
	if (s->level >= LEVEL_FUNCS && (s->item < 0 || (size_t)s->item >= top_items(s, m)))
		s->level = LEVEL_TOP;
	if (s->level == LEVEL_LINES &&
	    (!m->img || s->func < 0 || (size_t)s->func >= m->img->nfuncs))
		s->level = LEVEL_FUNCS;
}

static void libraries_draw(void *st, const xb_model *m, xb_canvas *c, xb_rect r, int focused)
{
	libraries_state *s = st;
	check_level(s, m);
	char title[400];
	make_title(s, m, title, sizeof title);
	xb_rect in = panel_frame(c, r, title, focused);
	s->table = (xb_rect){0, 0, 0, 0};
	if (in.w <= 0 || in.h <= 0)
		return;
	build_rows(s, m);
	header_line(s, m, c, in);
	xb_rect tr;
	rect_split_rows(in, 1, NULL, &tr);
	s->table = tr;
	lib_level *lv = &s->lv[s->level];
	wg_column cols[8]; /* the most columns of any level */
	int ncols;
	char strip_title[64];
	if (s->level == LEVEL_TOP) {
		memcpy(cols, top_columns, sizeof top_columns);
		ncols = T_NCOLS;
		int w = 8;
		for (size_t k = 0; k < s->nrows; k++) {
			int nw = canvas_width(top_name(s, m, s->rows[k]));
			w = nw > w ? nw : w;
		}
		cols[T_NAME].width = w < NAME_MAX_W ? w : NAME_MAX_W;
		cols[T_NAME].title = s->mode == MODE_GROUPS ? "group" : "library";
		int xs[T_NCOLS], ws[T_NCOLS];
		wg_table_layout(cols, ncols, tr.w, xs, ws);
		size_t n = ws[T_STRIP] > 0 ? (size_t)ws[T_STRIP] : 1;
		if (m->prof)
			build_history(s, m, n);
		char d[WG_NUM];
		uint64_t hns = m->prof ? liveprof_history_ns(m->prof) : 0;
		size_t span = s->hist_real < n ? s->hist_real : n;
		cols[T_STRIP].max = s->hist_real > 10 ? (int)s->hist_real : 10;
		int room = (int)n < cols[T_STRIP].max ? (int)n : cols[T_STRIP].max;
		if (span == 0)
			snprintf(strip_title, sizeof strip_title, "over time");
		else
			snprintf(strip_title, sizeof strip_title, "share, last %s",
				 wg_duration(d, (double)span * (double)hns / 1e9));
		if (span && canvas_width(strip_title) > room) /* "last 15 s" */
			memmove(strip_title, strip_title + 7, strlen(strip_title + 7) + 1);
		cols[T_STRIP].title = strip_title;
	} else if (s->level == LEVEL_FUNCS) {
		memcpy(cols, func_columns, sizeof func_columns);
		ncols = F_NCOLS;
		for (size_t k = 0; k < s->nrows; k++) {
			int w = canvas_width(m->img->funcs[s->rows[k]].name);
			cols[F_NAME].max = w > cols[F_NAME].max ? w : cols[F_NAME].max;
		}
	} else {
		memcpy(cols, line_columns, sizeof line_columns);
		ncols = L_NCOLS;
	}
	char sortname[32], empty[200];
	wg_field(LIBRARIES_SORTS, lv->sort, sortname, sizeof sortname);
	if (!m->prof)
		snprintf(empty, sizeof empty, "%s", "");
	else if (lv->filter[0])
		snprintf(empty, sizeof empty, "nothing matches the filter");
	else if (s->level == LEVEL_FUNCS)
		snprintf(empty, sizeof empty, "no function of %s has samples in this window",
			 item_label(s, m));
	else
		snprintf(empty, sizeof empty, "no samples in this window");
	wg_table t = {
		.cols = cols,
		.ncols = ncols,
		.nrows = s->nrows,
		.sort = sortname,
		.ascending = lv->ascending ^ (lv->sort == S_NAME || lv->sort == S_ADDRESS),
		.empty = empty,
		.focused = focused,
		.ctx = s,
		.cell = cell,
		.draw = draw_cell,
	};
	wg_table_draw(c, tr, &t, &lv->list);
	lv->sel_id = s->nrows ? (long)s->rows[lv->list.sel] : -1;
}

/* ---- commands ---- */

static int enter(libraries_state *s, const xb_model *m, xb_panel_result *res)
{
	lib_level *lv = &s->lv[s->level];
	if (s->nrows == 0)
		return wg_message(res, 1, "nothing selected");
	long id = (long)s->rows[lv->list.sel];
	if (s->level == LEVEL_TOP) {
		s->item = id;
	} else if (s->level == LEVEL_FUNCS) {
		s->func = id;
	} else {
		char src[200];
		uint32_t a = line_addr(s, m, (size_t)id);
		return wg_message(res, 0, "line 0x%08x%s%s", a, m->src ? " " : "",
				  m->src ? source_of(m, a, src, sizeof src) : ": no line tables");
	}
	s->level++;
	lib_level *next = &s->lv[s->level];
	memset(&next->list, 0, sizeof next->list);
	next->sel_id = -1;
	next->filter[0] = next->search[0] = 0;
	return res->flags = XB_PANEL_REDRAW;
}

static int search(libraries_state *s, const xb_model *m, int dir, int skip, xb_panel_result *res)
{
	lib_level *lv = &s->lv[s->level];
	if (!lv->search[0])
		return wg_message(res, 1, "no search yet: search TEXT");
	build_rows(s, m);
	size_t n = s->nrows;
	char buf[256];
	for (size_t k = skip ? 1 : 0; k < n + (size_t)skip; k++) {
		size_t row = dir > 0 ? (lv->list.sel + k) % n : (lv->list.sel + n - k % n) % n;
		if (wg_match(item_name(s, m, s->rows[row], buf, sizeof buf), lv->search)) {
			lv->list.sel = row;
			lv->sel_id = (long)s->rows[row];
			return res->flags = XB_PANEL_REDRAW;
		}
	}
	return wg_message(res, 1, "nothing here matches '%s'", lv->search);
}

static int libraries_command(void *st, const xb_model *m, const char *verb, const char *arg,
			     xb_panel_result *res)
{
	libraries_state *s = st;
	res->flags = 0;
	check_level(s, m);
	build_rows(s, m);
	lib_level *lv = &s->lv[s->level];
	if (wg_list_move(&lv->list, s->nrows, verb)) {
		lv->sel_id = s->nrows ? (long)s->rows[lv->list.sel] : -1;
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "enter") == 0)
		return enter(s, m, res);
	if (strcmp(verb, "back") == 0) {
		if (s->level == LEVEL_TOP)
			return res->flags = XB_PANEL_UNHANDLED;
		s->level--;
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "mode") == 0) {
		int k = wg_choose(LIBRARIES_MODES, "mode", s->mode, arg, res);
		if (k < 0)
			return res->flags;
		if (k != s->mode) {
			s->mode = k;
			s->level = LEVEL_TOP;
			memset(&s->lv[LEVEL_TOP].list, 0, sizeof s->lv[LEVEL_TOP].list);
			s->lv[LEVEL_TOP].sel_id = -1;
		}
		return wg_message(res, 0, "libraries: by %s",
				  k == MODE_GROUPS ? "display group" : "library");
	}
	if (strcmp(verb, "sort") == 0) {
		const char *list = level_sorts[s->level];
		char cur[32], f[32];
		wg_field(LIBRARIES_SORTS, lv->sort, cur, sizeof cur);
		int at = 0;
		while (at < wg_field_count(list) && strcmp(wg_field(list, at, f, sizeof f), cur))
			at++;
		int k = wg_choose(list, "sort field", at, arg, res);
		if (k < 0)
			return res->flags;
		wg_field(list, k, f, sizeof f);
		int field = 0;
		while (strcmp(wg_field(LIBRARIES_SORTS, field, cur, sizeof cur), f))
			field++;
		lv->ascending = arg && *arg && field == lv->sort ? !lv->ascending : 0;
		lv->sort = field;
		lv->list.sel = lv->list.top = 0; /* a new order starts at its top */
		lv->sel_id = -1;
		return wg_message(res, 0, "sorted by %s%s", f, lv->ascending ? ", reversed" : "");
	}
	if (strcmp(verb, "filter") == 0) {
		snprintf(lv->filter, sizeof lv->filter, "%s", arg ? arg : "");
		lv->list.sel = lv->list.top = 0;
		lv->sel_id = -1;
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "search") == 0) {
		snprintf(lv->search, sizeof lv->search, "%s", arg ? arg : "");
		return search(s, m, 1, 0, res);
	}
	if (strcmp(verb, "next") == 0 || strcmp(verb, "prev") == 0)
		return search(s, m, verb[0] == 'n' ? 1 : -1, 1, res);
	return res->flags = XB_PANEL_UNHANDLED;
}

static int libraries_mouse(void *st, const xb_model *m, xb_rect r, const xb_mouse *ev,
			   xb_panel_result *res)
{
	libraries_state *s = st;
	(void)r;
	res->flags = 0;
	if (ev->kind == XB_MOUSE_WHEEL_UP || ev->kind == XB_MOUSE_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			libraries_command(st, m, ev->kind == XB_MOUSE_WHEEL_UP ? "up" : "down",
					  NULL, res);
		return res->flags;
	}
	check_level(s, m);
	build_rows(s, m);
	lib_level *lv = &s->lv[s->level];
	long row = wg_table_row_at(s->table, &lv->list, s->nrows, ev->y);
	if (row < 0 || ev->x < s->table.x || ev->x >= s->table.x + s->table.w)
		return res->flags = XB_PANEL_UNHANDLED;
	lv->list.sel = (size_t)row;
	lv->sel_id = (long)s->rows[row];
	if (ev->kind == XB_MOUSE_DOUBLE && s->level < LEVEL_LINES)
		return enter(s, m, res);
	return res->flags = XB_PANEL_REDRAW;
}

const xb_panel_ops panel_libraries = {
	.name = "libraries",
	.title = "Libraries",
	.sorts = LIBRARIES_SORTS,
	.modes = LIBRARIES_MODES,
	.create = libraries_create,
	.destroy = libraries_destroy,
	.draw = libraries_draw,
	.command = libraries_command,
	.mouse = libraries_mouse,
};
