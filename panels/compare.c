/* compare: the runs of the history as the study's two tables (layouts without extra RAM,
 * layouts with SRAM; the columns of core/export.h's exports) with each row's change against
 * a baseline run, and, for two runs chosen as A and B, what changed between them as
 * `perf diff` shows it: the share of samples per display group and per function, and the
 * cache sets by hot lines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/export.h"
#include "panel.h"
#include "widgets.h"

#define COMPARE_MODES "tables,diff"
enum { MODE_TABLES, MODE_DIFF };

/* The tables in the order they are drawn, and the most columns one has. */
static const unsigned compare_tables[2] = {EXPORT_TABLE_FLASH, EXPORT_TABLE_SRAM};
#define MAX_COLS 24

/* A run's key: its id in the history (every run the model holds has one); 0: none. */
typedef int64_t run_key;

/* One row of the tables: a run in one table (the baseline is in both). */
typedef struct entry {
	const xb_run *run;
	int table;           /* 0 or 1 */
} entry;

/* A row of the diff: a function (name, library) or a group (name), its share of the
 * samples in A and B (0..1; NaN: not in that run's profile). */
typedef struct diff_row {
	char *name, *library;
	double a, b;
} diff_row;

typedef struct compare_diff {
	/* what it was computed from */
	const xb_run *a, *b;
	int64_t aid, bid;
	const xb_run_func *af, *bf;
	size_t an, bn;
	diff_row *funcs, *groups;
	size_t nfuncs, ngroups;
} compare_diff;

typedef struct compare_state {
	int mode;
	wg_list list;          /* the cursor over the entries (both tables, in order) */
	size_t top[2];         /* each table's scroll */
	run_key sel;           /* the run under the cursor and its table, kept while runs come */
	int sel_table;
	run_key a, b;          /* chosen runs; 0: none */
	wg_list fl;            /* diff: the function rows' scroll */
	entry *ent;
	size_t nent, ent_cap, n1;
	const xb_run *baseline;
	compare_diff diff;
	xb_rect trect[2];      /* where each table was drawn (mouse) */
} compare_state;

static void diff_clear(compare_diff *d)
{
	for (size_t i = 0; i < d->nfuncs; i++) {
		free(d->funcs[i].name);
		free(d->funcs[i].library);
	}
	for (size_t i = 0; i < d->ngroups; i++) {
		free(d->groups[i].name);
		free(d->groups[i].library);
	}
	free(d->funcs);
	free(d->groups);
	memset(d, 0, sizeof *d);
}

static void *compare_create(void)
{
	return xcalloc(1, sizeof(compare_state));
}

static void compare_destroy(void *st)
{
	compare_state *s = st;
	if (!s)
		return;
	diff_clear(&s->diff);
	free(s->ent);
	free(s);
}

/* ---- runs ---- */

static run_key key_of(const xb_run *r)
{
	return r ? r->id : 0;
}

static int key_is(run_key k, const xb_run *r)
{
	return k && r->id == k;
}

/* The run of the history a key names, or NULL (none chosen, or no longer there). */
static const xb_run *run_find(const xb_model *m, run_key k)
{
	if (!k || !m->runs)
		return NULL;
	for (size_t i = 0; i < m->nruns; i++)
		if (m->runs[i] && key_is(k, m->runs[i]))
			return m->runs[i];
	return NULL;
}

/* The baseline (the first stock run, else the first run) and the tables' rows; the cursor
 * follows its run. */
static void compare_entries(compare_state *s, const xb_model *m)
{
	s->nent = s->n1 = 0;
	size_t n = m->runs ? m->nruns : 0;
	s->baseline = n ? export_default_baseline(m->runs, n) : NULL;
	if (!s->baseline && n)
		s->baseline = m->runs[0];
	xb_grow(&s->ent, &s->ent_cap, 2 * n + 1, sizeof *s->ent);
	for (int t = 0; t < 2; t++) {
		for (size_t i = 0; i < n; i++) {
			const xb_run *r = m->runs[i];
			if (r && (export_tables_of(r, s->baseline) & compare_tables[t]))
				s->ent[s->nent++] = (entry){r, t};
		}
		if (t == 0)
			s->n1 = s->nent;
	}
	if (s->sel)
		for (size_t k = 0; k < s->nent; k++)
			if (s->ent[k].table == s->sel_table && key_is(s->sel, s->ent[k].run)) {
				s->list.sel = k;
				break;
			}
	if (s->list.sel >= s->nent)
		s->list.sel = s->nent ? s->nent - 1 : 0;
	if (s->nent) {
		s->sel = key_of(s->ent[s->list.sel].run);
		s->sel_table = s->ent[s->list.sel].table;
	}
}

/* "05-01 12:34" from "2024-05-01T12:34:56Z"; other text as it is. */
static const char *short_time(char *buf, size_t cap, const char *t)
{
	if (strlen(t) >= 16 && t[4] == '-' && t[10] == 'T')
		snprintf(buf, cap, "%.5s %.5s", t + 5, t + 11);
	else
		snprintf(buf, cap, "%s", t[0] ? t : "-");
	return buf;
}

/* "run 3 colour" */
static const char *run_name(char *buf, size_t cap, const xb_run *r)
{
	char label[96];
	export_run_label(r, label, sizeof label);
	snprintf(buf, cap, "run %lld %s", (long long)r->id, label);
	return buf;
}

/* ---- the tables ---- */

/* The columns of a table: mark, run, layout, time, then the export's columns, each that
 * has a change in the Markdown export followed by its change against the baseline. */
typedef struct table_cols {
	wg_column cols[MAX_COLS];
	int ncols;
	int export_col[MAX_COLS]; /* the export's column, -1 for the first four */
	int change[MAX_COLS];     /* a change column: -1 lower is better, 1 higher; 0 a value */
} table_cols;

enum { TC_MARK, TC_RUN, TC_LAYOUT, TC_TIME, TC_FIRST };

static void table_columns(unsigned table, table_cols *tc)
{
	static const wg_column fixed[TC_FIRST] = {
		[TC_MARK] = {"", 1, 0, XB_ALIGN_LEFT, 0, NULL},
		[TC_RUN] = {"run", 4, 0, XB_ALIGN_RIGHT, 0, NULL},
		[TC_LAYOUT] = {"layout", 0, 12, XB_ALIGN_LEFT, 0, NULL, 12},
		[TC_TIME] = {"time", 11, 0, XB_ALIGN_LEFT, 20, NULL},
	};
	memset(tc, 0, sizeof *tc);
	for (int i = 0; i < TC_FIRST; i++) {
		tc->cols[i] = fixed[i];
		tc->export_col[i] = -1;
	}
	int n = TC_FIRST;
	size_t ncols = export_table_columns(table, NULL);
	for (size_t k = 0; k < ncols && n + 2 <= MAX_COLS; k++) {
		int change;
		const char *head = export_table_head(table, k, &change);
		int w = canvas_width(head);
		/* the first column and those with a change stay; the others go first, the later
		 * ones before the earlier */
		tc->cols[n] = (wg_column){head, w > 8 ? w : 8, 0, XB_ALIGN_RIGHT,
					  k == 0 || change ? 0 : 10 + (int)k, NULL};
		tc->export_col[n++] = (int)k;
		if (change) {
			tc->cols[n] = (wg_column){"change", 7, 0, XB_ALIGN_RIGHT, 2 + (int)k, NULL};
			tc->export_col[n] = (int)k;
			tc->change[n++] = change;
		}
	}
	tc->ncols = n;
}

typedef struct table_ctx {
	const compare_state *s;
	const table_cols *tc;
	unsigned table;
	size_t first;         /* the table's first entry */
} table_ctx;

static void table_cell(void *ctx, size_t row, int col, char *buf, size_t cap, int *el)
{
	const table_ctx *x = ctx;
	const compare_state *s = x->s;
	const xb_run *r = s->ent[x->first + row].run;
	int k = x->tc->export_col[col];
	switch (col) {
	case TC_MARK:
		snprintf(buf, cap, "%s", key_is(s->a, r) ? "A" : key_is(s->b, r) ? "B" : "");
		*el = XB_EL_MATCH;
		return;
	case TC_RUN:
		snprintf(buf, cap, "%lld", (long long)r->id);
		return;
	case TC_LAYOUT:
		export_run_label(r, buf, cap);
		if (key_is(s->a, r) || key_is(s->b, r))
			*el = XB_EL_MATCH;
		return;
	case TC_TIME:
		short_time(buf, cap, r->time);
		*el = XB_EL_DIM;
		return;
	}
	if (!x->tc->change[col]) {
		double v = export_table_value(x->table, (size_t)k, r, buf, cap);
		if (isnan(v))
			*el = XB_EL_DIM;
		return;
	}
	if (r == s->baseline) {
		snprintf(buf, cap, "base");
		*el = XB_EL_DIM;
		return;
	}
	double v = export_table_value(x->table, (size_t)k, r, NULL, 0);
	double b = export_table_value(x->table, (size_t)k, s->baseline, NULL, 0);
	char c[WG_NUM];
	snprintf(buf, cap, "%s", wg_change(c, v, b, x->tc->change[col] < 0, el));
	if (strcmp(c, "-") == 0)
		*el = XB_EL_DIM;
}

/* Table t (its title row, header and rows) in r. */
static void draw_table(compare_state *s, int t, xb_canvas *c, xb_rect r, int focused)
{
	s->trect[t] = (xb_rect){0, 0, 0, 0};
	if (r.h <= 0 || r.w <= 0)
		return;
	const char *title;
	export_table_columns(compare_tables[t], &title);
	size_t first = t ? s->n1 : 0, n = t ? s->nent - s->n1 : s->n1;
	wg_pen p = wg_pen_at(c, r, 0);
	wg_put(&p, XB_EL_TITLE, title);
	char v[32], b[160];
	snprintf(v, sizeof v, "%zu", n);
	wg_item(&p, v, n == 1 ? " run" : " runs");
	if (s->baseline) {
		char name[128];
		run_name(name, sizeof name, s->baseline);
		snprintf(b, sizeof b, "changes against %s", name);
		wg_item(&p, NULL, b);
	}
	xb_rect tr;
	rect_split_rows(r, 1, NULL, &tr);
	s->trect[t] = tr;
	table_cols tc;
	table_columns(compare_tables[t], &tc);
	for (size_t k = 0; k < n; k++) {
		char label[128];
		export_run_label(s->ent[first + k].run, label, sizeof label);
		int w = canvas_width(label);
		if (w > tc.cols[TC_LAYOUT].max)
			tc.cols[TC_LAYOUT].max = w < 60 ? w : 60;
	}
	table_ctx ctx = {s, &tc, compare_tables[t], first};
	int here = s->nent && s->list.sel >= first && s->list.sel < first + n;
	wg_list l = {here ? s->list.sel - first : s->top[t], s->top[t], 0};
	wg_table wt = {
		.cols = tc.cols,
		.ncols = tc.ncols,
		.nrows = n,
		.empty = t ? "no run with extra RAM" : "no run without extra RAM",
		.focused = focused,
		.no_selection = !here,
		.ctx = &ctx,
		.cell = table_cell,
	};
	wg_table_draw(c, tr, &wt, &l);
	s->top[t] = l.top;
	if (here)
		s->list.page = l.page;
}

/* ---- the diff ---- */

static int row_cmp_name(const void *pa, const void *pb)
{
	const diff_row *a = pa, *b = pb;
	int r = strcmp(a->name, b->name);
	return r ? r : strcmp(a->library, b->library);
}

/* The biggest change first; ties by name. */
static int row_cmp_change(const void *pa, const void *pb)
{
	const diff_row *a = pa, *b = pb;
	double da = fabs((isnan(a->b) ? 0 : a->b) - (isnan(a->a) ? 0 : a->a));
	double db = fabs((isnan(b->b) ? 0 : b->b) - (isnan(b->a) ? 0 : b->a));
	if (da != db)
		return da > db ? -1 : 1;
	return row_cmp_name(pa, pb);
}

static double run_total(const xb_run *r)
{
	double t = 0;
	for (size_t i = 0; i < r->nfuncs; i++)
		if (r->funcs[i].samples > 0)
			t += r->funcs[i].samples;
	return t;
}

/* One run's functions (or groups) as rows, the share in a or b, sorted by name and library;
 * the names are borrowed from the run (merge_rows copies what it keeps). */
static diff_row *run_rows(const xb_run *r, int side, int groups, size_t *n)
{
	double total = run_total(r);
	diff_row *rows = xcalloc(r->nfuncs + 1, sizeof *rows);
	for (size_t i = 0; i < r->nfuncs; i++) {
		const xb_run_func *f = &r->funcs[i];
		const char *name = groups ? (f->group ? f->group : f->library ? f->library
								       : "not known")
					  : f->name ? f->name : "?";
		double share = total > 0 && f->samples > 0 ? f->samples / total : 0;
		const char *lib = groups || !f->library ? "" : f->library;
		rows[i] = (diff_row){(char *)name, (char *)lib, side ? NAN : share,
				     side ? share : NAN};
	}
	qsort(rows, r->nfuncs, sizeof *rows, row_cmp_name);
	*n = r->nfuncs;
	return rows;
}

/* A and B's rows merged by name (the strings copied), the shares of equal names added,
 * sorted by the size of the change. */
static diff_row *merge_rows(const xb_run *a, const xb_run *b, int groups, size_t *n)
{
	size_t na, nb, k = 0;
	diff_row *ra = run_rows(a, 0, groups, &na), *rb = run_rows(b, 1, groups, &nb);
	diff_row *out = xcalloc(na + nb + 1, sizeof *out);
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		int c = i >= na ? 1 : j >= nb ? -1 : row_cmp_name(&ra[i], &rb[j]);
		const diff_row *x = c <= 0 ? &ra[i] : &rb[j];
		double va = c <= 0 ? ra[i].a : NAN, vb = c >= 0 ? rb[j].b : NAN;
		i += c <= 0;
		j += c >= 0;
		if (k && strcmp(out[k - 1].name, x->name) == 0 &&
		    strcmp(out[k - 1].library, x->library) == 0) {
			/* the same name again (a group's functions, a static function twice) */
			if (!isnan(va))
				out[k - 1].a = isnan(out[k - 1].a) ? va : out[k - 1].a + va;
			if (!isnan(vb))
				out[k - 1].b = isnan(out[k - 1].b) ? vb : out[k - 1].b + vb;
			continue;
		}
		out[k++] = (diff_row){xstrdup(x->name), xstrdup(x->library), va, vb};
	}
	free(ra);
	free(rb);
	qsort(out, k, sizeof *out, row_cmp_change);
	*n = k;
	return out;
}

/* The diff of A and B, again only when they changed. */
static const compare_diff *diff_of(compare_state *s, const xb_run *a, const xb_run *b)
{
	compare_diff *d = &s->diff;
	if (d->a && d->a == a && d->b == b && d->aid == a->id && d->bid == b->id &&
	    d->af == a->funcs && d->bf == b->funcs && d->an == a->nfuncs && d->bn == b->nfuncs)
		return d;
	diff_clear(d);
	*d = (compare_diff){.a = a, .b = b, .aid = a->id, .bid = b->id, .af = a->funcs,
			    .bf = b->funcs, .an = a->nfuncs, .bn = b->nfuncs};
	if (a->nfuncs && a->funcs && b->nfuncs && b->funcs) {
		d->funcs = merge_rows(a, b, 0, &d->nfuncs);
		d->groups = merge_rows(a, b, 1, &d->ngroups);
	}
	return d;
}

/* The change of a share in points: "+3.2 pts", "−0.4 pts", "0 pts" (a function missing
 * from one profile has none of its samples there). Not coloured: a share that grows is
 * neither good nor bad by itself (the idle loop's grows when the rest gets faster). */
static const char *points(char *buf, size_t cap, double a, double b)
{
	double d = ((isnan(b) ? 0 : b) - (isnan(a) ? 0 : a)) * 100;
	if (fabs(d) < 0.05)
		snprintf(buf, cap, "0 pts");
	else
		snprintf(buf, cap, "%s%.1f pts", d < 0 ? "\u2212" : "+", fabs(d));
	return buf;
}

typedef struct diff_ctx {
	const diff_row *rows;
} diff_ctx;

enum { DC_NAME, DC_LIBRARY, DC_A, DC_B, DC_CHANGE, NDC };

static const wg_column diff_columns[NDC] = {
	[DC_NAME] = {"function", 0, 12, XB_ALIGN_LEFT, 0, NULL},
	[DC_LIBRARY] = {"library", 0, 10, XB_ALIGN_LEFT, 2, NULL, 24},
	[DC_A] = {"A", 7, 0, XB_ALIGN_RIGHT, 0, NULL},
	[DC_B] = {"B", 7, 0, XB_ALIGN_RIGHT, 0, NULL},
	[DC_CHANGE] = {"change", 9, 0, XB_ALIGN_RIGHT, 0, NULL},
};

static void diff_cell(void *ctx, size_t row, int col, char *buf, size_t cap, int *el)
{
	const diff_ctx *x = ctx;
	const diff_row *r = &x->rows[row];
	char a[WG_NUM];
	switch (col) {
	case DC_NAME:
		snprintf(buf, cap, "%s", r->name);
		break;
	case DC_LIBRARY:
		snprintf(buf, cap, "%s", r->library);
		*el = XB_EL_DIM;
		break;
	case DC_A:
	case DC_B: {
		double v = col == DC_A ? r->a : r->b;
		snprintf(buf, cap, "%s", isnan(v) ? "-" : wg_percent(a, 100 * v));
		if (isnan(v))
			*el = XB_EL_DIM;
		break;
	}
	case DC_CHANGE:
		points(buf, cap, r->a, r->b);
		break;
	}
}

/* The function rows in r, from row `first` on (they scroll; no row is selected). */
static void draw_functions(xb_canvas *c, xb_rect r, const diff_row *rows, size_t n,
			   size_t *first)
{
	wg_column cols[NDC];
	memcpy(cols, diff_columns, sizeof cols);
	int wn = 0, wl = 0;
	for (size_t k = 0; k < n; k++) {
		int w = canvas_width(rows[k].name);
		wn = w > wn ? w : wn;
		w = canvas_width(rows[k].library);
		wl = w > wl ? w : wl;
	}
	cols[DC_NAME].max = wn > cols[DC_NAME].min ? wn : cols[DC_NAME].min;
	if (wl < cols[DC_LIBRARY].max)
		cols[DC_LIBRARY].max = wl > cols[DC_LIBRARY].min ? wl : cols[DC_LIBRARY].min;
	diff_ctx ctx = {rows};
	wg_list l = {*first, *first, 0};
	wg_table t = {
		.cols = cols,
		.ncols = NDC,
		.nrows = n,
		.empty = "no samples in either profile",
		.no_selection = 1,
		.ctx = &ctx,
		.cell = diff_cell,
	};
	wg_table_draw(c, r, &t, &l);
	*first = l.top;
}

/* Sets with none, 1, 2, 3+ hot lines and over the ways. */
static void set_classes(const xb_run *r, unsigned ways, size_t out[5])
{
	memset(out, 0, 5 * sizeof *out);
	for (size_t i = 0; i < r->nsets; i++) {
		unsigned h = r->set_hot[i];
		out[h < 3 ? h : 3]++;
		out[4] += h > ways;
	}
}

/* The set maps of A and B: a header row and one row each (3 rows), or one row. */
static int draw_setmaps(const xb_model *m, const xb_run *a, const xb_run *b, xb_canvas *c,
			xb_rect r, int rows)
{
	unsigned ways = m->tg && m->tg->cache.ways ? m->tg->cache.ways : 2;
	size_t ca[5], cb[5];
	int ha = a->set_hot && a->nsets, hb = b->set_hot && b->nsets;
	if (ha)
		set_classes(a, ways, ca);
	if (hb)
		set_classes(b, ways, cb);
	char v[64];
	if (rows < 3) {
		wg_pen p = wg_pen_at(c, r, 0);
		snprintf(v, sizeof v, "sets over %u ways ", ways);
		wg_put(&p, XB_EL_DIM, v);
		if (ha)
			wg_putf(&p, ca[4] ? XB_EL_SET_OVER : XB_EL_NORMAL, "%zu", ca[4]);
		else
			wg_put(&p, XB_EL_DIM, "not recorded");
		wg_put(&p, XB_EL_DIM, " \u2192 ");
		if (hb)
			wg_putf(&p, cb[4] ? XB_EL_SET_OVER : XB_EL_NORMAL, "%zu", cb[4]);
		else
			wg_put(&p, XB_EL_DIM, "not recorded");
		if (ha && hb) {
			wg_put(&p, XB_EL_DIM, " \u00B7 sets with 0/1/2/3+ hot lines ");
			wg_putf(&p, XB_EL_NORMAL, "%zu/%zu/%zu/%zu", ca[0], ca[1], ca[2], ca[3]);
			wg_put(&p, XB_EL_DIM, " \u2192 ");
			wg_putf(&p, XB_EL_NORMAL, "%zu/%zu/%zu/%zu", cb[0], cb[1], cb[2], cb[3]);
		}
		return 1;
	}
	static const char *const heads[5] = {"none", "1", "2", "3+", NULL};
	static const int els[5] = {XB_EL_SET_EMPTY, XB_EL_SET_ONE, XB_EL_SET_TWO, XB_EL_SET_OVER,
				   XB_EL_SET_OVER};
	enum { LABEL_W = 30, CELL_W = 8 };
	wg_clip_field(c, r, r.x, r.y, LABEL_W, XB_EL_HEADER, XB_ALIGN_LEFT,
		      "cache sets by hot lines");
	for (int k = 0; k < 5; k++) {
		snprintf(v, sizeof v, "over %u", ways);
		wg_clip_field(c, r, r.x + LABEL_W + k * CELL_W, r.y, k == 4 ? CELL_W + 8 : CELL_W,
			      XB_EL_HEADER, XB_ALIGN_RIGHT, heads[k] ? heads[k] : v);
	}
	for (int side = 0; side < 2; side++) {
		const xb_run *x = side ? b : a;
		const size_t *cnt = side ? cb : ca;
		int y = r.y + 1 + side;
		char name[128], lab[140];
		run_name(name, sizeof name, x);
		snprintf(lab, sizeof lab, "%s %s", side ? "B" : "A", name);
		wg_clip_field(c, r, r.x, y, LABEL_W, XB_EL_NORMAL, XB_ALIGN_LEFT, lab);
		if (!(side ? hb : ha)) {
			wg_clip_field(c, r, r.x + LABEL_W, y, 5 * CELL_W, XB_EL_DIM, XB_ALIGN_RIGHT,
				      "set map not recorded");
			continue;
		}
		for (int k = 0; k < 5; k++) {
			snprintf(v, sizeof v, "%zu", cnt[k]);
			wg_clip_field(c, r, r.x + LABEL_W + k * CELL_W, y,
				      k == 4 ? CELL_W + 8 : CELL_W, cnt[k] ? els[k] : XB_EL_DIM,
				      XB_ALIGN_RIGHT, v);
		}
	}
	return 3;
}

/* "misses/echo 1154.0 → 742.1 −36 %" for the figures both runs may have. */
static void draw_summary(const xb_run *a, const xb_run *b, xb_canvas *c, xb_rect r, int row)
{
	static const struct {
		const char *label;
		int metric, decimals, lower_better;
		const char *unit;
	} figs[] = {
		{"misses/echo ", XB_METRIC_MISSES, 1, 1, ""},
		{"turnaround ", XB_METRIC_TURNAROUND, 3, 1, " ms"},
		{"peak UDP echo ", XB_METRIC_PEAK_UDP, 0, 0, "/s"},
		{"footprint ", XB_METRIC_FOOTPRINT, 0, 1, " lines"},
		{"extra RAM ", XB_METRIC_EXTRA_RAM_KB, 1, 1, " KB"},
	};
	wg_pen p = wg_pen_at(c, r, row);
	for (size_t k = 0; k < sizeof figs / sizeof figs[0]; k++) {
		double va = export_metric(a, figs[k].metric), vb = export_metric(b, figs[k].metric);
		if (isnan(va) && isnan(vb))
			continue;
		char x[WG_NUM], y[WG_NUM], ch[WG_NUM], text[128];
		int el;
		wg_change(ch, vb, va, figs[k].lower_better, &el);
		if (strcmp(ch, "-") == 0)
			ch[0] = 0;
		/* the unit once after both figures, else after the one known ("1.747 ms \u2192 -") */
		int both = !isnan(va) && !isnan(vb);
		snprintf(text, sizeof text, "%s%s \u2192 %s%s%s", wg_fixed(x, va, figs[k].decimals),
			 both || isnan(va) ? "" : figs[k].unit, wg_fixed(y, vb, figs[k].decimals),
			 isnan(vb) ? "" : figs[k].unit, ch[0] ? " " : "");
		int need = (p.x > p.start ? 3 : 0) + canvas_width(figs[k].label) +
			   canvas_width(text) + canvas_width(ch);
		if (need > wg_room(&p))
			break;
		if (p.x > p.start)
			wg_put(&p, XB_EL_DIM, " \u00B7 ");
		wg_put(&p, XB_EL_DIM, figs[k].label);
		wg_put(&p, XB_EL_NORMAL, text);
		wg_put(&p, el, ch);
	}
}

/* The group rows: the function table's columns but the library. */
static const int group_cols[] = {DC_NAME, DC_A, DC_B, DC_CHANGE};
#define NGC ((int)(sizeof group_cols / sizeof group_cols[0]))

static void group_cell(void *ctx, size_t row, int col, char *buf, size_t cap, int *el)
{
	diff_cell(ctx, row, group_cols[col], buf, cap, el);
}

static void draw_groups(xb_canvas *c, xb_rect r, const diff_row *rows, size_t n)
{
	wg_column cols[NGC];
	for (int k = 0; k < NGC; k++)
		cols[k] = diff_columns[group_cols[k]];
	cols[0].title = "display group";
	int wn = 0;
	for (size_t k = 0; k < n; k++) {
		int w = canvas_width(rows[k].name);
		wn = w > wn ? w : wn;
	}
	cols[0].max = wn > cols[0].min ? wn : cols[0].min;
	diff_ctx ctx = {rows};
	wg_list l = {0};
	wg_table t = {
		.cols = cols,
		.ncols = NGC,
		.nrows = n,
		.empty = "",
		.no_selection = 1,
		.ctx = &ctx,
		.cell = group_cell,
	};
	wg_table_draw(c, r, &t, &l);
}

/* What changed from A to B in r. */
static void draw_diff(compare_state *s, const xb_model *m, xb_canvas *c, xb_rect r)
{
	if (r.w <= 0 || r.h <= 0)
		return;
	const xb_run *a = run_find(m, s->a), *b = run_find(m, s->b);
	wg_pen p = wg_pen_at(c, r, 0);
	if (!a || !b) {
		wg_put(&p, XB_EL_DIM, a ? "choose run B: enter on another run"
					: "choose two runs: enter on a run makes it A, the next B; "
					  "back clears them");
		if (s->mode == MODE_DIFF) {
			p = wg_pen_at(c, r, 1);
			wg_put(&p, XB_EL_DIM, "(the runs are in mode tables)");
		}
		return;
	}
	char na[128], nb[128];
	wg_put(&p, XB_EL_MATCH, "A ");
	wg_put(&p, XB_EL_HEADER, run_name(na, sizeof na, a));
	wg_put(&p, XB_EL_DIM, " \u2192 ");
	wg_put(&p, XB_EL_MATCH, "B ");
	wg_put(&p, XB_EL_HEADER, run_name(nb, sizeof nb, b));
	char ta[32], tb[32];
	wg_putf(&p, XB_EL_DIM, "  (%s, %s)", short_time(ta, sizeof ta, a->time),
		short_time(tb, sizeof tb, b->time));
	if (r.h < 2)
		return;
	draw_summary(a, b, c, r, 1);
	int roomy = r.h >= 14;
	int y = roomy ? 3 : 2;
	if (y >= r.h)
		return;
	xb_rect sr = {r.x, r.y + y, r.w, r.h - y};
	y += draw_setmaps(m, a, b, c, sr, roomy ? 3 : 1) + roomy;
	if (y >= r.h)
		return;
	xb_rect rest = {r.x, r.y + y, r.w, r.h - y};
	const compare_diff *d = diff_of(s, a, b);
	if (!d->funcs) {
		p = wg_pen_at(c, rest, 0);
		wg_putf(&p, XB_EL_DIM, "profile not recorded for %s",
			!(a->nfuncs && a->funcs) && !(b->nfuncs && b->funcs) ? "either run"
			: !(a->nfuncs && a->funcs)                             ? "run A"
										 : "run B");
		wg_put(&p, XB_EL_DIM, ": no share of samples to compare");
		return;
	}
	xb_rect gr = {0, 0, 0, 0}, fr = rest;
	if (rest.w >= 120) {
		int gw = rest.w * 2 / 5;
		rect_split_cols(rest, gw, &gr, &fr);
		gr.w -= 2;
	} else if (roomy && rest.h >= 10) {
		int gh = (int)d->ngroups + 1;
		if (gh > rest.h / 3)
			gh = rest.h / 3;
		rect_split_rows(rest, gh, &gr, &fr);
		rect_split_rows(fr, 1, NULL, &fr);
	}
	if (gr.w > 0 && gr.h > 0)
		draw_groups(c, gr, d->groups, d->ngroups);
	/* fl.sel is the first function row shown: the rows scroll, none is selected */
	draw_functions(c, fr, d->funcs, d->nfuncs, &s->fl.sel);
	s->fl.page = fr.h > 1 ? fr.h - 1 : 1;
}

/* ---- the panel ---- */

/* No runs: how runs are made. */
static void draw_no_runs(const xb_model *m, xb_canvas *c, xb_rect in)
{
	wg_pen p = wg_pen_at(c, in, 0);
	wg_put(&p, XB_EL_DIM, "no runs yet");
	p = wg_pen_at(c, in, 1);
	wg_put(&p, XB_EL_DIM, "a run is recorded each time an image is measured:");
	p = wg_pen_at(c, in, 2);
	wg_put(&p, XB_EL_DIM, "measure (M) the flashed image, or loop (R) the pending layout");
	p = wg_pen_at(c, in, 3);
	wg_put(&p, XB_EL_DIM, "(relink, verify, flash, measure)");
	p = wg_pen_at(c, in, 4);
	if (m->history)
		wg_putf(&p, XB_EL_DIM, "runs are kept in %s (xipbench experiment adds its own)",
			m->history);
	else
		wg_put(&p, XB_EL_WARNING, "runs are not recorded: no run history");
}

static void compare_draw(void *st, const xb_model *m, xb_canvas *c, xb_rect r, int focused)
{
	compare_state *s = st;
	xb_rect in = panel_frame(c, r, s->mode == MODE_DIFF ? "Compare: what changed" : "Compare",
				 focused);
	s->trect[0] = s->trect[1] = (xb_rect){0, 0, 0, 0};
	if (in.w <= 0 || in.h <= 0)
		return;
	compare_entries(s, m);
	if (s->nent == 0) {
		draw_no_runs(m, c, in);
		return;
	}
	if (s->mode == MODE_DIFF) {
		draw_diff(s, m, c, in);
		return;
	}
	/* the tables as tall as their rows (a blank row between), each at least a row when
	 * short of room; the diff or a hint below */
	int chosen = run_find(m, s->a) && run_find(m, s->b);
	int n2 = (int)(s->nent - s->n1), n1 = (int)s->n1;
	int need1 = 2 + (n1 ? n1 : 1), need2 = 2 + (n2 ? n2 : 1);
	int room = in.h - 1 - (chosen ? (in.h >= 20 ? in.h / 2 : in.h / 3) : 1);
	if (room < 6)
		room = in.h - (chosen ? 0 : 1);
	int h1 = need1, h2 = need2;
	if (h1 + 1 + h2 > room) {
		h1 = room / 2 < need1 ? room / 2 : need1;
		h2 = room - 1 - h1;
		if (h2 > need2)
			h2 = need2;
		if (h1 < 0)
			h1 = 0;
		if (h2 < 0)
			h2 = 0;
	}
	xb_rect r1 = {in.x, in.y, in.w, h1};
	xb_rect r2 = {in.x, in.y + h1 + 1, in.w, h2};
	r1 = rect_clip(r1, in);
	r2 = rect_clip(r2, in);
	draw_table(s, 0, c, r1, focused);
	draw_table(s, 1, c, r2, focused);
	int below = h1 + 1 + h2 + 1;
	if (below >= in.h)
		return;
	xb_rect dr = {in.x, in.y + below, in.w, in.h - below};
	if (!chosen) {
		/* the hint at the bottom */
		draw_diff(s, m, c, (xb_rect){in.x, in.y + in.h - 1, in.w, 1});
		return;
	}
	canvas_hline(c, dr.x, dr.y, dr.w, XB_EL_BORDER);
	rect_split_rows(dr, 1, NULL, &dr);
	draw_diff(s, m, c, dr);
}

/* Chooses the run under the cursor as A, then B; a third choice starts again at A. */
static int compare_choose(compare_state *s, const xb_model *m, xb_panel_result *res)
{
	if (!s->nent)
		return wg_message(res, 1, "no run to choose");
	const xb_run *r = s->ent[s->list.sel].run;
	char name[128];
	run_name(name, sizeof name, r);
	const xb_run *a = run_find(m, s->a), *b = run_find(m, s->b);
	if (!a || b) {
		s->a = key_of(r);
		s->b = 0;
		return wg_message(res, 0, "A: %s; enter on another run makes it B", name);
	}
	if (a == r)
		return wg_message(res, 1, "%s is A already: choose another run as B", name);
	s->b = key_of(r);
	s->fl = (wg_list){0};
	return wg_message(res, 0, "B: %s; mode diff shows what changed from A", name);
}

static int compare_command(void *st, const xb_model *m, const char *verb, const char *arg,
			   xb_panel_result *res)
{
	compare_state *s = st;
	res->flags = 0;
	compare_entries(s, m);
	if (strcmp(verb, "mode") == 0) {
		int k = wg_choose(COMPARE_MODES, "mode", s->mode, arg, res);
		if (k < 0)
			return res->flags;
		s->mode = k;
		char f[32];
		return wg_message(res, 0, "compare: %s", wg_field(COMPARE_MODES, k, f, sizeof f));
	}
	if (strcmp(verb, "back") == 0) {
		if (!run_find(m, s->a) && !run_find(m, s->b))
			return res->flags = XB_PANEL_UNHANDLED;
		s->a = s->b = 0;
		return wg_message(res, 0, "runs A and B cleared");
	}
	if (s->mode == MODE_DIFF) {
		/* the function rows scroll */
		const xb_run *a = run_find(m, s->a), *b = run_find(m, s->b);
		size_t n = a && b ? diff_of(s, a, b)->nfuncs : 0;
		if (wg_list_move(&s->fl, n, verb))
			return res->flags = XB_PANEL_REDRAW;
		return res->flags = XB_PANEL_UNHANDLED;
	}
	if (wg_list_move(&s->list, s->nent, verb)) {
		if (s->nent) {
			s->sel = key_of(s->ent[s->list.sel].run);
			s->sel_table = s->ent[s->list.sel].table;
		}
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "enter") == 0)
		return compare_choose(s, m, res);
	return res->flags = XB_PANEL_UNHANDLED;
}

static int compare_mouse(void *st, const xb_model *m, xb_rect r, const xb_mouse *ev,
			 xb_panel_result *res)
{
	compare_state *s = st;
	(void)r;
	res->flags = 0;
	if (ev->kind == XB_MOUSE_WHEEL_UP || ev->kind == XB_MOUSE_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			compare_command(st, m, ev->kind == XB_MOUSE_WHEEL_UP ? "up" : "down", NULL,
					res);
		return res->flags;
	}
	compare_entries(s, m);
	for (int t = 0; t < 2 && s->mode == MODE_TABLES; t++) {
		xb_rect tr = s->trect[t];
		size_t first = t ? s->n1 : 0, n = t ? s->nent - s->n1 : s->n1;
		wg_list l = {0, s->top[t], 0};
		long row = wg_table_row_at(tr, &l, n, ev->y);
		if (row < 0 || ev->x < tr.x || ev->x >= tr.x + tr.w)
			continue;
		s->list.sel = first + (size_t)row;
		s->sel = key_of(s->ent[s->list.sel].run);
		s->sel_table = t;
		if (ev->kind == XB_MOUSE_DOUBLE)
			return compare_choose(s, m, res);
		return res->flags = XB_PANEL_REDRAW;
	}
	return res->flags = XB_PANEL_UNHANDLED;
}

const xb_panel_ops panel_compare = {
	.name = "compare",
	.title = "Compare",
	.sorts = NULL,
	.modes = COMPARE_MODES,
	.create = compare_create,
	.destroy = compare_destroy,
	.draw = compare_draw,
	.command = compare_command,
	.mouse = compare_mouse,
};
