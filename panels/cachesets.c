/* cachesets: the XIP cache's sets as a grid coloured by the hot lines each holds (with two
 * ways three hot lines miss on every access), by the misses the virtual bench counts per
 * set, by the misses a trace replay predicts, or by the hot lines the pending layout would
 * give the planning profile; the selected set's lines and what the cache holds in each way
 * beside or below it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "panel.h"
#include "widgets.h"

#define CACHESETS_MODES "occupancy,live,predicted,pending"
enum { MODE_OCCUPANCY, MODE_LIVE, MODE_PREDICTED, MODE_PENDING };

#define DETAIL_MIN_W 36 /* the narrowest detail column beside the grid */

typedef struct grid_layout {
	int cols;      /* cells per row */
	int cell_w;    /* columns per cell (2: a glyph and a blank) */
	int per;       /* sets per cell */
	int label_w;   /* row labels, a blank included */
	int rows;      /* rows all the cells need */
} grid_layout;

typedef struct cachesets_state {
	int mode, open;
	uint32_t sel;
	grid_layout g;     /* of the last draw */
	xb_rect grid;      /* where the cells were drawn */
	int top_row, shown_rows;
} cachesets_state;

static void *cachesets_create(void)
{
	return xcalloc(1, sizeof(cachesets_state));
}

static void cachesets_destroy(void *st)
{
	free(st);
}

/* The map a mode draws: the pending layout's in pending mode (its functions are indices
 * into m->base), else the flashed image's. */
static const xb_setmap *mode_map(const cachesets_state *s, const xb_model *m)
{
	return s->mode == MODE_PENDING ? m->pending_sets : m->sets;
}

/* ---- grid layout ---- */

static int digits(uint32_t v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static int grid_fits(const grid_layout *g, int w, int h)
{
	return g->label_w + g->cols * g->cell_w <= w && g->rows <= h;
}

static grid_layout grid_make(uint32_t nsets, int cols, int cell_w, int per)
{
	grid_layout g = {cols, cell_w, per, digits(nsets ? nsets - 1 : 0) + 1, 0};
	uint32_t cells = (nsets + (uint32_t)per - 1) / (uint32_t)per;
	g.rows = (int)((cells + (uint32_t)cols - 1) / (uint32_t)cols);
	return g;
}

/* The roomiest layout with `per` sets a cell that shows every set in w x h: 32 sets a row
 * with blanks between cells first, then denser rows. 0 when none fits. */
static int grid_choose(uint32_t nsets, int per, int w, int h, grid_layout *out)
{
	static const int tries[][2] = {
		{32, 2}, {32, 1}, {64, 1}, {128, 1}, {16, 2}, {16, 1}, {8, 1}, {256, 1},
	};
	for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
		grid_layout g = grid_make(nsets, tries[i][0], tries[i][1], per);
		if (grid_fits(&g, w, h)) {
			*out = g;
			return 1;
		}
	}
	return 0;
}

/* Nothing fits: as many sets a row as the width takes (a power of two), rows scrolled. */
static grid_layout grid_fallback(uint32_t nsets, int w)
{
	grid_layout g = grid_make(nsets, 1, 1, 1);
	int cols = 1;
	while (cols * 2 + g.label_w <= w && (uint32_t)cols * 2 <= nsets)
		cols *= 2;
	return grid_make(nsets, cols, 1, 1);
}

/* ---- cells ---- */

static double set_value(const cachesets_state *s, const xb_setmap *sm, uint32_t set)
{
	switch (s->mode) {
	case MODE_LIVE:
		return sm->live ? sm->live[set] : NAN;
	case MODE_PREDICTED:
		return sm->predicted ? sm->predicted[set] : NAN;
	}
	return sm->hot[set];
}

static double mode_max(const cachesets_state *s, const xb_setmap *sm)
{
	double mx = 0;
	for (uint32_t i = 0; i < sm->nsets; i++) {
		double v = set_value(s, sm, i);
		if (v > mx)
			mx = v;
	}
	return mx;
}

static int occupancy_el(const xb_setmap *sm, double hot)
{
	if (!(hot > 0))
		return XB_EL_SET_EMPTY;
	return hot < sm->ways ? XB_EL_SET_ONE : hot == sm->ways ? XB_EL_SET_TWO : XB_EL_SET_OVER;
}

static uint32_t occupancy_glyph(double hot)
{
	if (!(hot > 0))
		return 0x00B7;
	return hot > 9 ? '+' : '0' + (uint32_t)hot;
}

static void draw_cell(const cachesets_state *s, const xb_setmap *sm, double mx, xb_canvas *c,
		      int x, int y, uint32_t first)
{
	double v = NAN;
	for (int k = 0; k < s->g.per && first + (uint32_t)k < sm->nsets; k++) {
		double w = set_value(s, sm, first + (uint32_t)k);
		if (isnan(v) || w > v)
			v = w;
	}
	uint32_t glyph;
	int el;
	if (s->mode == MODE_OCCUPANCY || s->mode == MODE_PENDING) {
		glyph = occupancy_glyph(v);
		el = occupancy_el(sm, v);
	} else if (isnan(v)) {
		glyph = ' ';
		el = XB_EL_NORMAL;
	} else {
		int l = wg_relative_level(v, mx);
		glyph = wg_heat_glyph(l);
		el = XB_EL_HEAT_0 + l;
	}
	int selected = s->sel >= first && s->sel < first + (uint32_t)s->g.per;
	canvas_put(c, x, y, glyph, selected ? XB_EL_SELECTED : el);
	if (s->g.cell_w > 1)
		canvas_put(c, x + 1, y, ' ', XB_EL_NORMAL);
}

static void draw_grid(cachesets_state *s, const xb_setmap *sm, xb_canvas *c, xb_rect area)
{
	double mx = mode_max(s, sm);
	int per_row = s->g.cols * s->g.per;
	int sel_row = (int)(s->sel / (uint32_t)per_row);
	s->shown_rows = s->g.rows < area.h ? s->g.rows : area.h;
	if (s->top_row > sel_row)
		s->top_row = sel_row;
	if (sel_row >= s->top_row + s->shown_rows)
		s->top_row = sel_row - s->shown_rows + 1;
	if (s->top_row + s->shown_rows > s->g.rows)
		s->top_row = s->g.rows - s->shown_rows;
	if (s->top_row < 0)
		s->top_row = 0;
	s->grid = (xb_rect){area.x + s->g.label_w, area.y, s->g.cols * s->g.cell_w, s->shown_rows};
	for (int r = 0; r < s->shown_rows; r++) {
		uint32_t first = (uint32_t)(s->top_row + r) * (uint32_t)per_row;
		char label[16];
		snprintf(label, sizeof label, "%u", first);
		wg_clip_field(c, area, area.x, area.y + r, s->g.label_w - 1, XB_EL_DIM,
			      XB_ALIGN_RIGHT, label);
		for (int k = 0; k < s->g.cols; k++) {
			uint32_t set = first + (uint32_t)(k * s->g.per);
			if (set >= sm->nsets || s->grid.x + (k + 1) * s->g.cell_w > area.x + area.w)
				break;
			draw_cell(s, sm, mx, c, s->grid.x + k * s->g.cell_w, area.y + r, set);
		}
	}
}

/* ---- text beside the grid ---- */

/* The name of a hot line's function. Lines of the pending map are where the pending layout
 * puts them: their functions are the base image's, and their addresses name nothing. */
static const char *func_name(const xb_model *m, int pending, long func, uint32_t addr)
{
	if (pending)
		return func >= 0 && m->base && (size_t)func < m->base->nfuncs
			       ? m->base->funcs[func].name
			       : "-";
	if (func < 0 && m->prof)
		func = liveprof_function_at(m->prof, addr);
	if (func < 0 && m->img) {
		const xb_function *f = image_function_at(m->img, addr);
		return f ? f->name : "-";
	}
	return func >= 0 && m->img && (size_t)func < m->img->nfuncs ? m->img->funcs[func].name
								    : "-";
}

/* The pending map's summary: what it is and the sets over the ways against now's. */
static void summary_pending(const xb_model *m, const xb_setmap *sm, xb_canvas *c, xb_rect in)
{
	wg_pen p = wg_pen_at(c, in, 0);
	char v[32], l[64];
	wg_put(&p, XB_EL_HEADER, "pending layout");
	snprintf(v, sizeof v, "%u", sm->sets_over);
	snprintf(l, sizeof l, " sets over %u ways", sm->ways);
	wg_item(&p, v, l);
	if (m->sets) {
		snprintf(v, sizeof v, "%u", m->sets->sets_over);
		wg_item(&p, v, " now");
	}
	snprintf(v, sizeof v, "%zu", sm->hot_lines);
	wg_item(&p, v, " hot lines of the planning profile");
	snprintf(v, sizeof v, "%u", sm->hot_max);
	wg_item(&p, v, " in the fullest set");
	snprintf(v, sizeof v, "%u", sm->nsets);
	snprintf(l, sizeof l, " sets \u00D7 %u ways", sm->ways);
	wg_item(&p, v, l);
}

static void summary(const cachesets_state *s, const xb_model *m, const xb_setmap *sm,
		    xb_canvas *c, xb_rect in, int per)
{
	if (s->mode == MODE_PENDING) {
		summary_pending(m, sm, c, in);
		return;
	}
	wg_pen p = wg_pen_at(c, in, 0);
	char v[32], l[64];
	snprintf(v, sizeof v, "%u", sm->nsets);
	snprintf(l, sizeof l, " sets \u00D7 %u ways", sm->ways);
	wg_item(&p, v, l);
	if (per > 1) {
		snprintf(v, sizeof v, "%d", per);
		wg_item(&p, v, " sets a cell");
	}
	snprintf(v, sizeof v, "%u", sm->sets_over);
	snprintf(l, sizeof l, " sets over %u ways", sm->ways);
	wg_item(&p, v, l);
	snprintf(v, sizeof v, "%zu", sm->hot_lines);
	wg_item(&p, v, " hot lines");
	snprintf(v, sizeof v, "%u", sm->hot_max);
	wg_item(&p, v, " in the fullest set");
	wg_item(&p, wg_window_name(m->window), NULL);
}

static void legend(const cachesets_state *s, const xb_setmap *sm, xb_canvas *c, xb_rect in)
{
	wg_pen p = wg_pen_at(c, in, 1);
	char a[WG_NUM], b[96];
	if (s->mode == MODE_OCCUPANCY || s->mode == MODE_PENDING) {
		wg_put(&p, XB_EL_DIM, "hot lines per set: ");
		wg_put(&p, XB_EL_SET_EMPTY, "\u00B7");
		wg_put(&p, XB_EL_DIM, " none  ");
		wg_put(&p, XB_EL_SET_ONE, "1");
		wg_put(&p, XB_EL_DIM, "  ");
		wg_putf(&p, XB_EL_SET_TWO, "%u", sm->ways);
		wg_put(&p, XB_EL_DIM, " ways full  ");
		wg_putf(&p, XB_EL_SET_OVER, "%u+", sm->ways + 1);
		if (wg_room(&p) >= 22)
			wg_put(&p, XB_EL_DIM, " every access can miss");
		else
			wg_put(&p, XB_EL_DIM, " over");
		return;
	}
	const double *v = s->mode == MODE_LIVE ? sm->live : sm->predicted;
	if (!v) {
		wg_put(&p, XB_EL_WARNING, s->mode == MODE_LIVE
				 ? "live misses per set: only the virtual bench can count them"
				 : "predicted misses per set: no trace (record one to predict)");
		return;
	}
	wg_put(&p, XB_EL_DIM,
	       s->mode == MODE_LIVE ? "misses/s per set " : "predicted misses per echo ");
	for (int l = 0; l < XB_HEAT_LEVELS; l++) {
		char g[8];
		canvas_utf8(wg_heat_glyph(l), g);
		wg_put(&p, XB_EL_HEAT_0 + l, g);
	}
	snprintf(b, sizeof b, " up to %s%s", wg_count(a, mode_max(s, sm)),
		 s->mode == MODE_LIVE ? "/s" : "");
	wg_put(&p, XB_EL_DIM, b);
	if (s->mode == MODE_LIVE)
		wg_item(&p, NULL, "only the virtual bench counts misses per set");
	else if (sm->predicted_from[0]) {
		snprintf(b, sizeof b, "from %s", sm->predicted_from);
		wg_item(&p, NULL, b);
	}
}

/* The hot lines of one set as a table. */
typedef struct set_lines {
	const xb_model *m;
	const xb_setmap_line *lines;
	int pending;
} set_lines;

static const wg_column set_columns[] = {
	{"line", 10, 0, XB_ALIGN_LEFT, 0, NULL},
	{"function", 0, 8, XB_ALIGN_LEFT, 0, NULL},
	{"samples", 8, 0, XB_ALIGN_RIGHT, 1, NULL},
};

static void set_cell(void *ctx, size_t row, int col, char *buf, size_t cap, int *el)
{
	const set_lines *x = ctx;
	const xb_setmap_line *l = &x->lines[row];
	char a[WG_NUM];
	(void)el;
	if (col == 0)
		snprintf(buf, cap, "0x%08x", l->line);
	else if (col == 1)
		snprintf(buf, cap, "%s", func_name(x->m, x->pending, l->func, l->line));
	else
		snprintf(buf, cap, "%s", wg_count(a, l->value));
}

/* The selected set: its figures, its hot lines and what each way holds. */
static void detail_open(const cachesets_state *s, const xb_model *m, const xb_setmap *sm,
			xb_canvas *c, xb_rect d)
{
	int pending = s->mode == MODE_PENDING;
	uint32_t set = s->sel;
	char a[WG_NUM], b[64];
	wg_pen p = wg_pen_at(c, d, 0);
	snprintf(b, sizeof b, "set %u", set);
	wg_put(&p, XB_EL_HEADER, b);
	char ways[32];
	snprintf(b, sizeof b, "%u hot line%s", sm->hot[set], sm->hot[set] == 1 ? "" : "s");
	snprintf(ways, sizeof ways, " in %u ways", sm->ways);
	wg_item(&p, b, ways);
	wg_item(&p, wg_count(a, sm->heat[set]), " samples");
	if (sm->live)
		wg_item(&p, wg_count(a, sm->live[set]), " misses/s");
	if (sm->predicted)
		wg_item(&p, wg_fixed(a, sm->predicted[set], 1), " predicted per echo");
	int top = 1;
	if (sm->hot[set] > sm->ways && d.h >= 6) {
		p = wg_pen_at(c, d, top++);
		wg_put(&p, XB_EL_SET_OVER,
		       "more hot lines than ways: under LRU they evict each other");
	}
	int ways_rows = sm->contents && !pending ? (int)sm->ways + 2 : 0;
	if (d.h - top - ways_rows < 2)
		ways_rows = 0;
	xb_rect lr = {d.x, d.y + top, d.w, d.h - top - ways_rows};
	set_lines ctx = {m, sm->lines + sm->first[set], pending};
	wg_list list = {0};
	wg_column cols[3];
	memcpy(cols, set_columns, sizeof cols);
	for (size_t k = sm->first[set]; k < sm->first[set + 1]; k++) {
		int w = canvas_width(func_name(m, pending, sm->lines[k].func, sm->lines[k].line));
		cols[1].max = w > cols[1].max ? w : cols[1].max;
	}
	wg_table t = {
		.cols = cols,
		.ncols = 3,
		.nrows = sm->first[set + 1] - sm->first[set],
		.empty = "no hot line in this set",
		.no_selection = 1,
		.ctx = &ctx,
		.cell = set_cell,
	};
	wg_table_draw(c, lr, &t, &list);
	if (ways_rows == 0)
		return;
	xb_rect wr = {d.x, d.y + d.h - ways_rows, d.w, ways_rows};
	p = wg_pen_at(c, wr, 1);
	wg_put(&p, XB_EL_HEADER, "the cache holds");
	wg_put(&p, XB_EL_DIM, " (way 0 most recently used)");
	for (uint32_t w = 0; w < sm->ways; w++) {
		int64_t tag = sm->contents[(size_t)set * sm->ways + w];
		p = wg_pen_at(c, wr, 2 + (int)w);
		wg_putf(&p, XB_EL_DIM, "way %u  ", w);
		if (tag < 0) {
			wg_put(&p, XB_EL_DIM, "empty");
			continue;
		}
		wg_putf(&p, XB_EL_NORMAL, "0x%08llx  ", (unsigned long long)tag);
		wg_put(&p, XB_EL_NORMAL, func_name(m, 0, -1, (uint32_t)tag));
	}
}

static int over_cmp(const void *pa, const void *pb, void *ctx)
{
	const xb_setmap *sm = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	if (sm->hot[a] != sm->hot[b])
		return sm->hot[a] > sm->hot[b] ? -1 : 1;
	if (sm->heat[a] != sm->heat[b])
		return sm->heat[a] > sm->heat[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Nothing opened: the sets with more hot lines than ways, the worst first. */
static void detail_over(const xb_model *m, const xb_setmap *sm, int pending, xb_canvas *c,
			xb_rect d)
{
	wg_pen p = wg_pen_at(c, d, 0);
	wg_putf(&p, XB_EL_HEADER, "sets over %u ways, the worst first", sm->ways);
	wg_item(&p, NULL, "enter: the selected set's lines");
	uint32_t *over = xmalloc((sm->nsets + 1) * sizeof *over), n = 0;
	for (uint32_t i = 0; i < sm->nsets; i++)
		if (sm->hot[i] > sm->ways)
			over[n++] = i;
	qsort_r(over, n, sizeof *over, over_cmp, (void *)sm);
	if (n == 0) {
		p = wg_pen_at(c, d, 1);
		wg_put(&p, XB_EL_GOOD, "none: no set holds more hot lines than it has ways");
	}
	for (uint32_t k = 0; k < n && (int)k + 1 < d.h; k++) {
		uint32_t set = over[k];
		p = wg_pen_at(c, d, 1 + (int)k);
		wg_putf(&p, XB_EL_NORMAL, "set %-5u", set);
		wg_putf(&p, XB_EL_SET_OVER, "%u", sm->hot[set]);
		wg_put(&p, XB_EL_DIM, "  ");
		for (size_t j = sm->first[set]; j < sm->first[set + 1] && wg_room(&p) > 0; j++) {
			const xb_setmap_line *l = &sm->lines[j];
			if (j > sm->first[set])
				wg_put(&p, XB_EL_DIM, ", ");
			wg_put(&p, XB_EL_NORMAL, func_name(m, pending, l->func, l->line));
		}
	}
	free(over);
}

/* How many sets hold none, 1, 2 ... hot lines, in one row. */
static void histogram(const xb_setmap *sm, xb_canvas *c, xb_rect r)
{
	uint32_t count[6] = {0};
	for (uint32_t i = 0; i < sm->nsets; i++)
		count[sm->hot[i] < 5 ? sm->hot[i] : 5]++;
	wg_pen p = wg_pen_at(c, r, 0);
	wg_put(&p, XB_EL_DIM, "sets by hot lines  ");
	for (int k = 0; k < 6; k++) {
		static const char *const names[6] = {"none", "1", "2", "3", "4", "5+"};
		char v[16];
		snprintf(v, sizeof v, " %u  ", count[k]);
		wg_put(&p, occupancy_el(sm, k), names[k]);
		wg_put(&p, XB_EL_NORMAL, v);
	}
}

static void cachesets_draw(void *st, const xb_model *m, xb_canvas *c, xb_rect r, int focused)
{
	cachesets_state *s = st;
	static const char *const mode_titles[] = {"Cache sets", "Cache sets: live misses",
						  "Cache sets: predicted misses",
						  "Cache sets: pending layout"};
	xb_rect in = panel_frame(c, r, mode_titles[s->mode], focused);
	s->grid = (xb_rect){0, 0, 0, 0};
	s->shown_rows = 0;
	if (in.w <= 0 || in.h <= 0)
		return;
	const xb_setmap *sm = mode_map(s, m);
	if (!sm || sm->nsets == 0) {
		wg_pen p = wg_pen_at(c, in, 0);
		if (s->mode != MODE_PENDING) {
			wg_put(&p, XB_EL_DIM,
			       "no cache-set map yet (it needs an image and a profile)");
			return;
		}
		wg_put(&p, XB_EL_DIM, "no pending layout to show: record a planning profile (P)");
		p = wg_pen_at(c, in, 1);
		wg_put(&p, XB_EL_DIM, "and edit the layout (6)");
		return;
	}
	if (s->sel >= sm->nsets)
		s->sel = sm->nsets - 1;
	legend(s, sm, c, in);
	xb_rect body;
	rect_split_rows(in, in.h > 24 ? 3 : in.h > 2 ? 2 : 1, NULL, &body);
	if (body.h <= 0) {
		summary(s, m, sm, c, in, 1);
		return;
	}
	/* every set at one a cell, the details beside the grid or below it; then two sets a
	 * cell; else as many rows as fit, scrolled, saying how many sets are not shown */
	grid_layout g;
	xb_rect gridr = body, detail = {0, 0, 0, 0};
	int hidden_line = 0, placed = 0;
	for (int per = 1; per <= 2 && !placed; per++) {
		if (grid_choose(sm->nsets, per, body.w - DETAIL_MIN_W - 2, body.h, &g)) {
			rect_split_cols(body, g.label_w + g.cols * g.cell_w + 2, &gridr, &detail);
			placed = 1;
		} else if (grid_choose(sm->nsets, per, body.w, body.h, &g)) {
			rect_split_rows(body, g.rows, &gridr, &detail);
			if (detail.h > 5)
				rect_split_rows(detail, 1, NULL, &detail); /* a blank row between */
			placed = 1;
		}
	}
	if (!placed) {
		g = grid_fallback(sm->nsets, body.w);
		hidden_line = body.h > 1;
		rect_split_rows(body, body.h - hidden_line, &gridr, NULL);
	}
	s->g = g;
	summary(s, m, sm, c, in, g.per);
	draw_grid(s, sm, c, gridr);
	if (hidden_line) {
		int per_row = g.cols * g.per;
		uint32_t shown = (uint32_t)(s->shown_rows * per_row);
		if (shown > sm->nsets)
			shown = sm->nsets;
		wg_pen p = wg_pen_at(c, body, body.h - 1);
		wg_putf(&p, XB_EL_WARNING, "%u of %u sets not shown (up/down scroll)",
			sm->nsets - shown, sm->nsets);
	}
	if (detail.x == gridr.x + gridr.w && gridr.h > s->shown_rows + 1)
		histogram(sm, c, (xb_rect){gridr.x, gridr.y + s->shown_rows + 1, gridr.w, 1});
	if (detail.w <= 0 || detail.h <= 0)
		return;
	if (s->open)
		detail_open(s, m, sm, c, detail);
	else
		detail_over(m, sm, s->mode == MODE_PENDING, c, detail);
}

static int cachesets_command(void *st, const xb_model *m, const char *verb, const char *arg,
			     xb_panel_result *res)
{
	cachesets_state *s = st;
	res->flags = 0;
	if (strcmp(verb, "mode") == 0) {
		int k = wg_choose(CACHESETS_MODES, "mode", s->mode, arg, res);
		if (k < 0)
			return res->flags;
		s->mode = k;
		char f[32];
		return wg_message(res, 0, "cache sets: %s",
				  wg_field(CACHESETS_MODES, k, f, sizeof f));
	}
	const xb_setmap *sm = mode_map(s, m);
	uint32_t n = sm ? sm->nsets : 0;
	int step = s->g.cols > 0 ? s->g.cols * s->g.per : 32;
	int page = step * (s->shown_rows > 1 ? s->shown_rows : 1);
	long sel = s->sel;
	if (strcmp(verb, "left") == 0)
		sel--;
	else if (strcmp(verb, "right") == 0)
		sel++;
	else if (strcmp(verb, "up") == 0)
		sel -= step;
	else if (strcmp(verb, "down") == 0)
		sel += step;
	else if (strcmp(verb, "page-up") == 0)
		sel -= page;
	else if (strcmp(verb, "page-down") == 0)
		sel += page;
	else if (strcmp(verb, "home") == 0)
		sel = 0;
	else if (strcmp(verb, "end") == 0)
		sel = (long)n - 1;
	else if (strcmp(verb, "enter") == 0)
		s->open = 1;
	else if (strcmp(verb, "back") == 0) {
		if (!s->open)
			return res->flags = XB_PANEL_UNHANDLED;
		s->open = 0;
	} else
		return res->flags = XB_PANEL_UNHANDLED;
	if (n == 0)
		sel = 0;
	else if (sel < 0)
		sel = 0;
	else if (sel >= (long)n)
		sel = (long)n - 1;
	s->sel = (uint32_t)sel;
	return res->flags = XB_PANEL_REDRAW;
}

static int cachesets_mouse(void *st, const xb_model *m, xb_rect r, const xb_mouse *ev,
			   xb_panel_result *res)
{
	cachesets_state *s = st;
	(void)r;
	res->flags = XB_PANEL_UNHANDLED;
	if (ev->kind == XB_MOUSE_WHEEL_UP || ev->kind == XB_MOUSE_WHEEL_DOWN)
		return cachesets_command(st, m, ev->kind == XB_MOUSE_WHEEL_UP ? "up" : "down", NULL,
					 res);
	xb_rect g = s->grid;
	const xb_setmap *sm = mode_map(s, m);
	if (!sm || ev->x < g.x || ev->x >= g.x + g.w || ev->y < g.y || ev->y >= g.y + g.h)
		return res->flags;
	int col = (ev->x - g.x) / (s->g.cell_w > 0 ? s->g.cell_w : 1);
	uint32_t set =
		(uint32_t)((s->top_row + ev->y - g.y) * s->g.cols + col) * (uint32_t)s->g.per;
	if (set >= sm->nsets)
		return res->flags;
	s->sel = set;
	s->open = 1;
	return res->flags = XB_PANEL_REDRAW;
}

const xb_panel_ops panel_cachesets = {
	.name = "cachesets",
	.title = "Cache sets",
	.sorts = NULL,
	.modes = CACHESETS_MODES,
	.create = cachesets_create,
	.destroy = cachesets_destroy,
	.draw = cachesets_draw,
	.command = cachesets_command,
	.mouse = cachesets_mouse,
};
