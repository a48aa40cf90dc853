/* log: the session's log (xipbench, the board's UART0, build and flash output), newest at
 * the bottom, following new lines until the user scrolls up. */
#include <stdlib.h>
#include <string.h>

#include "panel.h"
#include "widgets.h"

enum { LOG_FOLLOW = 0, LOG_SCROLL };

typedef struct log_state {
	int mode;          /* LOG_FOLLOW: the newest line is shown; LOG_SCROLL: sel_seq is */
	uint64_t sel_seq;  /* the selected line (scroll mode), by its sequence number */
	wg_list list;
	char filter[128], search[128];
	/* the lines shown (indices into the ring), rebuilt from the model when used */
	size_t *rows, nrows, cap;
	xb_rect table;     /* where the rows were last drawn */
} log_state;

static const wg_column log_columns[] = {
	{"time", 9, 0, XB_ALIGN_LEFT, 1, NULL},
	{"source", 8, 0, XB_ALIGN_LEFT, 2, NULL}, /* its colour stays on the message */
	{"message", 0, 24, XB_ALIGN_LEFT, 0, NULL},
};

static void *log_create(void)
{
	return xcalloc(1, sizeof(log_state));
}

static void log_destroy(void *st)
{
	log_state *s = st;
	if (!s)
		return;
	free(s->rows);
	free(s);
}

static int log_line_matches(const xb_log_line *l, const char *text)
{
	return wg_match(l->text, text) || wg_match(logring_source_name(l->source), text);
}

/* The rows the filter lets through, and the selection: the newest row when following, else
 * the row of sel_seq (or the nearest newer one when it left the ring). */
static void log_rows(log_state *s, const xb_model *m)
{
	s->nrows = 0;
	size_t n = m->log ? logring_count(m->log) : 0;
	xb_grow(&s->rows, &s->cap, n + 1, sizeof *s->rows);
	for (size_t i = 0; i < n; i++)
		if (!s->filter[0] || log_line_matches(logring_get(m->log, i), s->filter))
			s->rows[s->nrows++] = i;
	if (s->nrows == 0) {
		s->list.sel = 0;
		return;
	}
	if (s->mode == LOG_FOLLOW) {
		s->list.sel = s->nrows - 1;
		return;
	}
	size_t k = 0;
	while (k + 1 < s->nrows && logring_get(m->log, s->rows[k])->seq < s->sel_seq)
		k++;
	s->list.sel = k;
}

static const xb_log_line *log_row(const log_state *s, const xb_model *m, size_t row)
{
	return row < s->nrows ? logring_get(m->log, s->rows[row]) : NULL;
}

static void log_select(log_state *s, const xb_model *m, size_t row)
{
	const xb_log_line *l = log_row(s, m, row);
	if (!l)
		return;
	s->list.sel = row;
	s->sel_seq = l->seq;
}

typedef struct log_ctx {
	const log_state *s;
	const xb_model *m;
} log_ctx;

static int log_level_el(const xb_log_line *l)
{
	if (l->level == XB_LOG_ERROR)
		return XB_EL_ALERT;
	if (l->level == XB_LOG_WARN)
		return XB_EL_WARNING;
	return l->source == XB_LOG_UART ? XB_EL_LOG_UART
	       : l->source == XB_LOG_BUILD ? XB_EL_LOG_BUILD : XB_EL_LOG_INFO;
}

/* Tabs to the next multiple of 8 columns (the canvas draws control characters as '?'). */
static void log_expand_tabs(const char *in, char *out, size_t cap)
{
	size_t o = 0;
	int col = 0;
	for (const unsigned char *p = (const unsigned char *)in; *p && o + 1 < cap; p++) {
		if (*p == '\t') {
			do
				out[o++] = ' ';
			while (++col % 8 && o + 1 < cap);
			continue;
		}
		out[o++] = (char)*p;
		if ((*p & 0xC0) != 0x80)
			col++;
	}
	out[o] = 0;
}

static void log_cell(void *ctx, size_t row, int col, char *buf, size_t cap, int *el)
{
	const log_ctx *x = ctx;
	const xb_log_line *l = log_row(x->s, x->m, row);
	if (!l)
		return;
	char t[WG_NUM];
	switch (col) {
	case 0:
		snprintf(buf, cap, "%s", wg_clock(t, l->t_ns));
		*el = XB_EL_DIM;
		break;
	case 1:
		snprintf(buf, cap, "%s", logring_source_name(l->source));
		*el = l->source == XB_LOG_UART ? XB_EL_LOG_UART
		      : l->source == XB_LOG_BUILD ? XB_EL_LOG_BUILD : XB_EL_LOG_INFO;
		break;
	default:
		log_expand_tabs(l->text, buf, cap);
		*el = log_level_el(l);
	}
}

static void log_draw(void *st, const xb_model *m, xb_canvas *c, xb_rect r, int focused)
{
	log_state *s = st;
	char title[200];
	int n = snprintf(title, sizeof title, "Log%s", s->mode == LOG_FOLLOW ? " (following)" : "");
	if (s->filter[0])
		snprintf(title + n, sizeof title - (size_t)n, " filter '%s'", s->filter);
	xb_rect in = panel_frame(c, r, title, focused);
	s->table = in;
	if (in.w <= 0 || in.h <= 0)
		return;
	log_rows(s, m);
	log_ctx ctx = {s, m};
	wg_table t = {
		.cols = log_columns,
		.ncols = 3,
		.nrows = s->nrows,
		.empty = !m->log ? "no log" : s->filter[0] ? "no line matches the filter"
							   : "no line yet",
		.focused = focused,
		.no_selection = s->mode == LOG_FOLLOW,
		.ctx = &ctx,
		.cell = log_cell,
	};
	wg_table_draw(c, in, &t, &s->list);
	if (s->mode == LOG_SCROLL)
		log_select(s, m, s->list.sel);
}

/* Searches from the selection towards older lines (dir -1, what `search` and `next` do:
 * the newest match first) or newer ones (+1), wrapping. */
static int log_search(log_state *s, const xb_model *m, int dir, int skip_current,
		      xb_panel_result *res)
{
	if (!s->search[0])
		return wg_message(res, 1, "no search yet: search TEXT");
	size_t n = s->nrows, start = skip_current ? 1 : 0;
	for (size_t k = start; k < start + n; k++) {
		size_t row = dir < 0 ? (s->list.sel + n - k % n) % n : (s->list.sel + k) % n;
		if (log_line_matches(log_row(s, m, row), s->search)) {
			s->mode = LOG_SCROLL;
			log_select(s, m, row);
			res->flags = XB_PANEL_REDRAW;
			return res->flags;
		}
	}
	return wg_message(res, 1, "'%s' not found in the log", s->search);
}

static int log_command(void *st, const xb_model *m, const char *verb, const char *arg,
		       xb_panel_result *res)
{
	log_state *s = st;
	res->flags = 0;
	log_rows(s, m);
	if (strcmp(verb, "end") == 0 || (strcmp(verb, "mode") == 0 && arg &&
					 strcmp(arg, "follow") == 0)) {
		s->mode = LOG_FOLLOW;
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "mode") == 0) {
		int k = wg_choose("follow,scroll", "mode", s->mode, arg, res);
		if (k < 0)
			return res->flags;
		if (k == LOG_SCROLL && s->mode == LOG_FOLLOW)
			log_select(s, m, s->nrows ? s->nrows - 1 : 0);
		s->mode = k;
		return wg_message(res, 0, "log: %s", k == LOG_FOLLOW ? "following new lines"
								    : "scrolling");
	}
	if (wg_list_move(&s->list, s->nrows, verb)) {
		/* moving up leaves follow mode; moving down while following changes nothing */
		if (s->mode == LOG_FOLLOW && strcmp(verb, "down") != 0 &&
		    strcmp(verb, "page-down") != 0)
			s->mode = LOG_SCROLL;
		if (s->mode == LOG_SCROLL)
			log_select(s, m, s->list.sel);
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "filter") == 0) {
		snprintf(s->filter, sizeof s->filter, "%s", arg ? arg : "");
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "search") == 0) {
		snprintf(s->search, sizeof s->search, "%s", arg ? arg : "");
		return log_search(s, m, -1, 0, res);
	}
	if (strcmp(verb, "next") == 0)
		return log_search(s, m, -1, 1, res);
	if (strcmp(verb, "prev") == 0)
		return log_search(s, m, 1, 1, res);
	return res->flags = XB_PANEL_UNHANDLED;
}

static int log_mouse(void *st, const xb_model *m, xb_rect r, const xb_mouse *ev,
		     xb_panel_result *res)
{
	log_state *s = st;
	(void)r;
	res->flags = 0;
	log_rows(s, m);
	if (ev->kind == XB_MOUSE_WHEEL_UP || ev->kind == XB_MOUSE_WHEEL_DOWN) {
		const char *verb = ev->kind == XB_MOUSE_WHEEL_UP ? "up" : "down";
		for (int i = 0; i < 3; i++)
			log_command(st, m, verb, NULL, res);
		return res->flags;
	}
	long row = wg_table_row_at(s->table, &s->list, s->nrows, ev->y);
	if (row < 0 || ev->x < s->table.x || ev->x >= s->table.x + s->table.w)
		return res->flags = XB_PANEL_UNHANDLED;
	s->mode = LOG_SCROLL;
	log_select(s, m, (size_t)row);
	return res->flags = XB_PANEL_REDRAW;
}

const xb_panel_ops panel_log = {
	.name = "log",
	.title = "Log",
	.sorts = NULL,
	.modes = "follow,scroll",
	.create = log_create,
	.destroy = log_destroy,
	.draw = log_draw,
	.command = log_command,
	.mouse = log_mouse,
};
