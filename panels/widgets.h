/* widgets: the shared renderers the panels draw their models with (htop's Bar, Graph and
 * Text meter modes): a table, a strip chart of a series, heat strips, bars, heat levels and
 * compact numbers; and the small helpers every panel's commands share (moving a selection,
 * choosing a sort field or a mode, matching names). Everything draws inside the rectangle
 * or width it is given, never outside, at any size (0 included). */
#ifndef XB_PANELS_WIDGETS_H
#define XB_PANELS_WIDGETS_H

#include <stddef.h>

#include "../core/series.h"
#include "canvas.h"
#include "model.h"
#include "panel.h"

/* ---- Numbers (each returns buf, which holds at least WG_NUM bytes) ---- */

#define WG_NUM 32

/* A count or rate in at most 6 columns: "-" for NaN (and infinities), "0", "2.5" (below 10
 * with a fraction), "9999", "12.3k", "123k", "1.23M", "12.3M", "123M", "1.23G" ... */
const char *wg_count(char *buf, double v);
/* A figure with a fixed number of decimals ("0.885"), "-" for NaN. */
const char *wg_fixed(char *buf, double v, int decimals);
/* A percentage (0..100): "12.5 %", "<0.1 %" for a share above 0 that rounds to 0, "100 %",
 * "-" for NaN. */
const char *wg_percent(char *buf, double pct);
/* The change from base to v as the exports write it (export_change: "−37 %", "+5.2 %",
 * "0 %", "-" when either is missing or base is 0), and in *el (may be NULL) how to draw it:
 * XB_EL_GOOD when it went the better way (down with lower_better, else up), XB_EL_ALERT
 * the other way, XB_EL_NORMAL for none ("0 %") or unknown. */
const char *wg_change(char *buf, double v, double base, int lower_better, int *el);
/* A span of time for axes: "45 s", "2 min", "1.5 h". */
const char *wg_duration(char *buf, double seconds);
/* A session time as "MM:SS.mmm" (under an hour) or "H:MM:SS". */
const char *wg_clock(char *buf, uint64_t t_ns);

/* ---- Heat ---- */

/* The heat level 0..5 of a share (0..1) of the busy samples: 0 for none (or NaN), 1 for
 * any, then 2 from 1 %, 3 from 3 %, 4 from 8 %, 5 from 20 %. */
int wg_heat_level(double share);
/* Its element, XB_EL_HEAT_0 + level. */
int wg_heat_el(double share);
/* The glyph of a level: '·' for 0, then blocks rising to a full one, so that levels read
 * without colours too. */
uint32_t wg_heat_glyph(int level);
/* The level 1..5 of a value above 0 relative to the largest one, 0 for none (or NaN):
 * for heat that is compared with its own kind (a strip over time, misses per set). */
int wg_relative_level(double v, double max);
/* A heat strip of n values (oldest first) in w columns at (x, y), the newest in the last
 * column: only the newest w when there are more; blank columns on the left when fewer.
 * Only the newest `real` values are known: older ones are drawn blank. NaN is blank.
 * Levels are relative to max (wg_relative_level). */
void wg_heat_strip(xb_canvas *c, int x, int y, int w, const double *values, size_t n,
		   size_t real, double max);

/* A horizontal bar of w columns filled to fraction (0..1) in element el (canvas_bar). */
void wg_bar(xb_canvas *c, int x, int y, int w, double fraction, int el);

/* ---- Text ---- */

/* canvas_field cut at the right edge of r (nothing outside r's columns or rows). */
void wg_clip_field(xb_canvas *c, xb_rect r, int x, int y, int w, int el, enum xb_align align,
		   const char *s);

/* A pen that writes runs of text in several elements along one row, stopping at the right
 * edge of the rectangle it was started in. */
typedef struct wg_pen {
	xb_canvas *c;
	int x, y, end; /* next column, row, first column past the edge */
	int start;     /* the first column (wg_item's separators) */
} wg_pen;

/* A pen at row `row` (0: the first) of r, at its left edge (no row of r: a pen that writes
 * nothing). */
wg_pen wg_pen_at(xb_canvas *c, xb_rect r, int row);
void wg_put(wg_pen *p, int el, const char *s);
void wg_putf(wg_pen *p, int el, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* One item of a header line: " · " (not before the first item of the row), then value
 * (XB_EL_NORMAL) and label (XB_EL_DIM), either may be NULL; written only when it fits
 * whole, so that a narrow line loses its last items rather than a word cut in two.
 * Returns 1 when written. */
int wg_item(wg_pen *p, const char *value, const char *label);
/* Columns left before the edge. */
int wg_room(const wg_pen *p);

/* s contains needle, ASCII case ignored; an empty or NULL needle matches everything. */
int wg_match(const char *s, const char *needle);

/* ---- Lists and tables ---- */

/* The selection and scroll of a list of rows. */
typedef struct wg_list {
	size_t sel, top;
	int page; /* rows shown at the last draw (page-up/page-down); 0 before one */
} wg_list;

/* up, down, page-up, page-down, home, end: moves the selection within n rows and returns
 * 1; 0 for any other verb. */
int wg_list_move(wg_list *l, size_t n, const char *verb);
/* Keeps sel below n and top such that sel is among the `rows` rows shown. */
void wg_list_clamp(wg_list *l, size_t n, int rows);

/* A table of an image's functions (the functions and layout panels): its rows (function
 * indices, which the panel makes), the selection kept by function while rows move, a sort
 * field, a filter and a search. */
typedef struct wg_ftable {
	wg_list list;
	int sort, ascending;
	char filter[128], search[128];
	long sel_func;        /* the selected function (kept while rows move), -1 none */
	size_t *rows, nrows, rows_cap;
	struct wg_fkey *keys; /* wg_ftable_settle's sort keys */
	size_t keys_cap;
	xb_rect table;        /* where the table was last drawn (for clicks) */
} wg_ftable;

void wg_ftable_init(wg_ftable *t);
void wg_ftable_free(wg_ftable *t);

/* Puts rows just made in order and keeps the selection on its function (or in range).
 * by_name: by name, A to Z (Z to A when ascending); else by key(ctx, function) from the
 * largest (the smallest when ascending), NaN last; ties by address. */
void wg_ftable_settle(wg_ftable *t, const xb_image *img, int by_name,
		      double (*key)(void *ctx, size_t func), void *ctx);

/* The row at a click (ev in t->table), selected; -1 when the click is not on a row. */
long wg_ftable_click(wg_ftable *t, const xb_mouse *ev);

/* The verbs such tables share, on rows made up to date by the caller: the moves, sort
 * [FIELD] (one of sorts, comma-separated; the same field again reverses the order), filter
 * [TEXT], search TEXT, next, prev (names from img; noun names the table in messages).
 * rows(ctx) makes the rows again (a search may show functions the rows did not hold).
 * Returns the flags; XB_PANEL_UNHANDLED (in res->flags too) for another verb. */
int wg_ftable_command(wg_ftable *t, const xb_image *img, const char *sorts, const char *noun,
		      void (*rows)(void *ctx), void *ctx, const char *verb, const char *arg,
		      xb_panel_result *res);

typedef struct wg_column {
	const char *title;
	int width;          /* columns; 0: flexible (takes the room the others leave) */
	int min;            /* a flexible column's narrowest */
	enum xb_align align;
	int drop;           /* when the table is too narrow, columns with the highest drop go
			     * first; 0 never goes */
	const char *sort;   /* the sort field this column shows (NULL: none) */
	int max;            /* a flexible column's widest (0: no limit); room beyond every
			     * column's limit stays blank at the right */
} wg_column;

typedef struct wg_table {
	const wg_column *cols;
	int ncols;
	size_t nrows;
	const char *sort;   /* the sort field in effect, marked in the header (NULL: none) */
	int ascending;      /* its direction, for the mark */
	const char *empty;  /* shown below the header when there is no row */
	int focused;        /* selection drawn as XB_EL_SELECTED (else only its first column) */
	int no_selection;   /* no row is drawn selected (a log that follows its newest line) */
	void *ctx;
	/* Writes the text of cell (row, col) into buf (cap bytes); may set *el (it comes in as
	 * XB_EL_NORMAL). */
	void (*cell)(void *ctx, size_t row, int col, char *buf, size_t cap, int *el);
	/* Draws cell (row, col) itself in w columns at (x, y) (bars, heat strips) and returns
	 * 1, or returns 0 to use cell(). May be NULL. */
	int (*draw)(void *ctx, size_t row, int col, xb_canvas *c, int x, int y, int w);
} wg_table;

/* Lays out the columns in width w: x[i] and wd[i] for each column (wd 0 for one that was
 * dropped). Columns are separated by one blank; flexible ones share what is left. */
void wg_table_layout(const wg_column *cols, int n, int w, int *x, int *wd);
/* Draws the header row and as many rows as fit in r, scrolled so that the selection is
 * shown (l->top and l->page are updated). */
void wg_table_draw(xb_canvas *c, xb_rect r, const wg_table *t, wg_list *l);
/* The row drawn at canvas row y by the last wg_table_draw in r, or -1 (the header, below
 * the last row, outside r). */
long wg_table_row_at(xb_rect r, const wg_list *l, size_t nrows, int y);

/* Byte length of the longest start of p that fits in w columns, broken at a blank when
 * there is one; *last: all of p fits. */
size_t wg_wrap(const char *p, int w, int *last);

/* Widens col, the name column of a table of img's functions, to its longest row's name. */
void wg_ftable_name_width(const wg_ftable *t, const xb_image *img, wg_column *col);

/* ---- Fields (sort fields, modes) ---- */

/* Field i of a comma-separated list into buf ("" past the end); and the number of them. */
const char *wg_field(const char *list, int i, char *buf, size_t cap);
int wg_field_count(const char *list);
/* For `sort` and `mode`: the index of the field arg names in list, or with arg NULL or ""
 * the one after cur. An unknown name gives -1 and an error in res ("no sort field 'foo';
 * fields: samples, share, bytes"); what names the kind ("sort field", "mode"). */
int wg_choose(const char *list, const char *what, int cur, const char *arg,
	      xb_panel_result *res);
/* Sets res to a message (flags MESSAGE | REDRAW, or ERROR | MESSAGE when error), and
 * returns the flags. */
int wg_message(xb_panel_result *res, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- Profile figures ---- */

/* "last 1 s", "last 10 s", "since the start" (a window of core/liveprof.h). */
const char *wg_window_name(int window);
/* What the figures are, for header lines: "idle subtracted (3.0 s recorded)", "idle not
 * subtracted", "idle subtraction on, no idle window recorded". */
const char *wg_subtract_text(char *buf, size_t cap, const xb_model *m);
/* The samples shares are taken of: the window's busy samples as the profile counts them
 * (the functions' figures plus the unattributed ones; busy minus idle when subtracting).
 * t gets the window's totals (may be NULL). 0 without a profile. */
double wg_busy_total(const xb_model *m, xb_liveprof_totals *t);
/* Where code at addr in a region of kind k runs from: "set 582" (flash: the cache set of
 * its first line, from model->sets or model->tg), "SRAM", "ROM", "other". */
const char *wg_placement(char *buf, size_t cap, const xb_model *m, uint32_t addr, int kind);

/* ---- Strip charts ---- */

typedef struct wg_chart {
	const xb_series *s; /* NULL: "no data" */
	const char *title;  /* NULL: the series' name */
	int decimals;       /* decimals of the figures; -1: compact counts (wg_count) */
	int from_zero;      /* the scale starts at 0 (else at the smallest value shown) */
} wg_chart;

/*
 * A strip chart in r: the first row gives the title, the newest value with its unit and
 * the minimum and maximum of what is shown; below, one column per point (the newest at the
 * right) as bars of eighths over the rows left, a y scale on the left, gaps (NaN) blank;
 * the last row is the time axis with the series' markers (XB_EL_CHART_MARKER) at their
 * columns, which are also drawn down the chart. With 1 row: the title row and a sparkline
 * after it; with 2: no axis row.
 */
void wg_chart_draw(xb_canvas *c, xb_rect r, const wg_chart *ch);

#endif
