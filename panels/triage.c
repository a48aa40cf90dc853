/* triage: why is the running image slow (core/triage.h): its findings, the most severe
 * first (severity, rule, summary), then the rules that could not look, dimmed; below the
 * list the selected finding's evidence, gain, fix and the workbench command that tries it
 * (enter: the same over the whole panel); `try` hands that command to the application. */
#include <stdlib.h>
#include <string.h>

#include "panel.h"
#include "widgets.h"

#define TRIAGE_LABEL_W 12   /* "not checked " */
#define TRIAGE_WRAP_MAX 40  /* lines one text may wrap to */
#define TRIAGE_SPLIT_MIN 8  /* rows below which the list has the panel to itself */

enum { COL_SEVERITY, COL_RULE, COL_SUMMARY, NCOLS };

static const wg_column triage_columns[NCOLS] = {
	[COL_SEVERITY] = {"severity", 8, 0, XB_ALIGN_LEFT, 0, NULL},
	[COL_RULE] = {"rule", 4, 0, XB_ALIGN_LEFT, 1, NULL}, /* as wide as the longest rule */
	[COL_SUMMARY] = {"summary", 0, 12, XB_ALIGN_LEFT, 0, NULL},
};

/* One line of a finding's detail: a label ("evidence", "" on a wrapped line) and len bytes
 * of text, with a hint after it (the try line's key). */
typedef struct triage_line {
	const char *label;
	const char *text;
	size_t len;
	int el;
	const char *hint;
} triage_line;

typedef struct triage_state {
	wg_list list;
	int detail;           /* enter: the selected row's detail fills the panel */
	size_t detail_top;    /* its first line shown */
	int detail_page;      /* its lines shown at the last draw */
	char filter[128], search[128];
	/* the rows: a finding's index, or n + a skipped rule's index */
	size_t *rows, nrows, rows_cap;
	/* the selection, kept by rule while a new triage comes: skipped or not, the rule,
	 * and the rank among that rule's rows */
	const xb_triage *seen;
	unsigned seen_version;
	int sel_skip;
	char sel_rule[64];
	size_t sel_rank;
	triage_line *lines;
	size_t nlines, lines_cap;
	xb_rect table;        /* where the list was last drawn (0 x 0: not shown) */
} triage_state;

static void *triage_create(void)
{
	return xcalloc(1, sizeof(triage_state));
}

static void triage_destroy(void *st)
{
	triage_state *s = st;
	if (!s)
		return;
	free(s->rows);
	free(s->lines);
	free(s);
}

static int triage_severity_el(enum xb_severity sev)
{
	switch (sev) {
	case XB_SEV_SEVERE:
		return XB_EL_SEV_SEVERE;
	case XB_SEV_WARNING:
		return XB_EL_SEV_WARNING;
	case XB_SEV_NOTE:
		return XB_EL_SEV_NOTE;
	default:
		return XB_EL_SEV_INFO;
	}
}

static int triage_is_skip(const xb_triage *t, size_t item)
{
	return item >= t->n;
}

static const char *triage_rule(const xb_triage *t, size_t item)
{
	const char *r = triage_is_skip(t, item) ? t->skipped[item - t->n].rule : t->f[item].rule;
	return r ? r : "";
}

static int triage_item_matches(const xb_triage *t, size_t item, const char *text)
{
	if (wg_match(triage_rule(t, item), text))
		return 1;
	if (triage_is_skip(t, item))
		return wg_match(t->skipped[item - t->n].why, text) || wg_match("not checked", text);
	const xb_finding *f = &t->f[item];
	return (f->summary && wg_match(f->summary, text)) ||
	       wg_match(triage_severity_name(f->severity), text);
}

/* The rank of a row among the rows of the same rule and kind before it. */
static size_t triage_rank(const xb_triage *t, size_t item)
{
	size_t rank = 0, from = triage_is_skip(t, item) ? t->n : 0;
	for (size_t i = from; i < item; i++)
		rank += strcmp(triage_rule(t, i), triage_rule(t, item)) == 0;
	return rank;
}

static void triage_remember(triage_state *s, const xb_model *m)
{
	if (!m->triage || s->list.sel >= s->nrows)
		return;
	size_t item = s->rows[s->list.sel];
	s->sel_skip = triage_is_skip(m->triage, item);
	snprintf(s->sel_rule, sizeof s->sel_rule, "%s", triage_rule(m->triage, item));
	s->sel_rank = triage_rank(m->triage, item);
}

/* The rows the filter lets through; with a new triage the selection goes to the row of the
 * rule it was on (or stays in range). */
static void triage_rows(triage_state *s, const xb_model *m)
{
	const xb_triage *t = m->triage;
	s->nrows = 0;
	size_t n = t ? t->n + t->nskipped : 0;
	xb_grow(&s->rows, &s->rows_cap, n + 1, sizeof *s->rows);
	for (size_t i = 0; i < n; i++)
		if (!s->filter[0] || triage_item_matches(t, i, s->filter))
			s->rows[s->nrows++] = i;
	if (t != s->seen || m->triage_version != s->seen_version) {
		if (s->sel_rule[0] && t) {
			for (size_t r = 0; r < s->nrows; r++) {
				size_t item = s->rows[r];
				if (triage_is_skip(t, item) == s->sel_skip &&
				    strcmp(triage_rule(t, item), s->sel_rule) == 0 &&
				    triage_rank(t, item) == s->sel_rank) {
					s->list.sel = r;
					break;
				}
			}
		}
		s->seen = t;
		s->seen_version = m->triage_version;
		s->detail_top = 0;
	}
	if (s->list.sel >= s->nrows)
		s->list.sel = s->nrows ? s->nrows - 1 : 0;
	if (!s->nrows)
		s->detail = 0;
}

/* ---- The detail of a row ---- */

static void triage_push(triage_state *s, const char *label, const char *text, size_t len,
			int el, const char *hint)
{
	xb_grow(&s->lines, &s->lines_cap, s->nlines + 1, sizeof *s->lines);
	s->lines[s->nlines++] = (triage_line){label, text, len, el, hint};
}

/* text wrapped into lines of w - TRIAGE_LABEL_W columns, the label on the first. */
static void triage_wrap(triage_state *s, int w, const char *label, const char *text, int el,
			const char *hint)
{
	int room = w - TRIAGE_LABEL_W;
	size_t off = 0;
	for (int part = 0; part < TRIAGE_WRAP_MAX; part++) {
		int last = 1;
		size_t len = room > 0 ? wg_wrap(text + off, room, &last) : strlen(text + off);
		triage_push(s, part ? "" : label, text + off, len, el, NULL);
		off += len;
		while (text[off] == ' ')
			off++;
		if (last || !text[off] || room <= 0)
			break;
	}
	if (hint)
		s->lines[s->nlines - 1].hint = hint;
}

/* The detail lines of row `row` for width w (with_summary: the summary first, for the
 * drill-down). */
static void triage_detail(triage_state *s, const xb_triage *t, size_t row, int w,
			  int with_summary)
{
	s->nlines = 0;
	if (!t || row >= s->nrows)
		return;
	size_t item = s->rows[row];
	if (triage_is_skip(t, item)) {
		const xb_triage_skip *k = &t->skipped[item - t->n];
		triage_wrap(s, w, "not checked", k->why ? k->why : "", XB_EL_DIM, NULL);
		return;
	}
	const xb_finding *f = &t->f[item];
	if (with_summary)
		triage_wrap(s, w, "summary", f->summary ? f->summary : "", XB_EL_NORMAL, NULL);
	for (size_t k = 0; k < f->nevidence; k++)
		triage_wrap(s, w, "evidence", f->evidence[k] ? f->evidence[k] : "", XB_EL_NORMAL,
			    NULL);
	if (f->gain)
		triage_wrap(s, w, "gain", f->gain, XB_EL_GOOD, NULL);
	if (f->fix)
		triage_wrap(s, w, "fix", f->fix, XB_EL_NORMAL, NULL);
	if (f->action)
		triage_wrap(s, w, "try it", f->action, XB_EL_KEY, "  T: try it");
	else
		triage_wrap(s, w, "try it", "no workbench command tries this fix", XB_EL_DIM, NULL);
}

static void triage_draw_line(xb_canvas *c, xb_rect r, int row, const triage_line *l)
{
	wg_pen p = wg_pen_at(c, r, row);
	char label[TRIAGE_LABEL_W + 1];
	snprintf(label, sizeof label, "%-*s", TRIAGE_LABEL_W, l->label);
	wg_put(&p, XB_EL_DIM, label);
	char text[1024];
	snprintf(text, sizeof text, "%.*s", (int)l->len, l->text);
	wg_put(&p, l->el, text);
	if (l->hint && wg_room(&p) >= canvas_width(l->hint))
		wg_put(&p, XB_EL_DIM, l->hint);
}

/* The title of a row's detail: severity and rule. */
static void triage_detail_title(xb_canvas *c, xb_rect r, const xb_triage *t, size_t item)
{
	wg_pen p = wg_pen_at(c, r, 0);
	canvas_fill(c, (xb_rect){r.x, p.y, r.w, r.h > 0 ? 1 : 0}, ' ', XB_EL_NORMAL);
	if (triage_is_skip(t, item)) {
		wg_putf(&p, XB_EL_HEADER, "not checked: %s", triage_rule(t, item));
		return;
	}
	const xb_finding *f = &t->f[item];
	wg_put(&p, triage_severity_el(f->severity), triage_severity_name(f->severity));
	wg_put(&p, XB_EL_HEADER, " ");
	wg_put(&p, XB_EL_HEADER, triage_rule(t, item));
}

/* The detail lines from s->detail_top in r (clamped so that the last page is full). */
static void triage_draw_detail(triage_state *s, xb_canvas *c, xb_rect r)
{
	if (r.h <= 0 || r.w <= 0)
		return;
	size_t page = (size_t)r.h;
	s->detail_page = r.h;
	if (s->detail_top + page > s->nlines)
		s->detail_top = s->nlines > page ? s->nlines - page : 0;
	for (int k = 0; k < r.h && s->detail_top + (size_t)k < s->nlines; k++)
		triage_draw_line(c, r, k, &s->lines[s->detail_top + (size_t)k]);
}

/* ---- Drawing ---- */

typedef struct triage_ctx {
	const triage_state *s;
	const xb_triage *t;
} triage_ctx;

static void triage_cell(void *ctx, size_t row, int col, char *buf, size_t cap, int *el)
{
	const triage_ctx *x = ctx;
	size_t item = x->s->rows[row];
	if (triage_is_skip(x->t, item)) {
		const xb_triage_skip *k = &x->t->skipped[item - x->t->n];
		*el = XB_EL_DIM;
		if (col == COL_RULE)
			snprintf(buf, cap, "%s", triage_rule(x->t, item));
		else if (col == COL_SUMMARY)
			snprintf(buf, cap, "not checked: %s", k->why ? k->why : "");
		return;
	}
	const xb_finding *f = &x->t->f[item];
	switch (col) {
	case COL_SEVERITY:
		snprintf(buf, cap, "%s", triage_severity_name(f->severity));
		*el = triage_severity_el(f->severity);
		break;
	case COL_RULE:
		snprintf(buf, cap, "%s", triage_rule(x->t, item));
		break;
	default:
		snprintf(buf, cap, "%s", f->summary ? f->summary : "");
	}
}

/* The line above the list: what was found and what the triage read. */
static void triage_header(const triage_state *s, const xb_model *m, xb_canvas *c, xb_rect in)
{
	wg_pen p = wg_pen_at(c, in, 0);
	const xb_triage *t = m->triage;
	if (!t) {
		wg_put(&p, XB_EL_DIM, m->img ? "no triage yet" : "no image loaded");
		return;
	}
	char a[WG_NUM], b[160];
	snprintf(a, sizeof a, "%zu", t->n);
	wg_item(&p, a, t->n == 1 ? " finding" : " findings");
	if (t->nskipped) {
		snprintf(a, sizeof a, "%zu", t->nskipped);
		wg_item(&p, a, " not checked");
	}
	if (s->filter[0]) {
		snprintf(a, sizeof a, "%zu", s->nrows);
		wg_item(&p, a, " match the filter");
	}
	if (m->triage_samples) {
		wg_item(&p, wg_count(a, t->busy_samples), " busy samples");
		wg_item(&p, NULL, m->triage_samples);
	} else {
		wg_item(&p, NULL, "no samples");
	}
	snprintf(b, sizeof b, "trace: %s",
		 m->triage_trace ? m->triage_trace : "none (P records one)");
	wg_item(&p, NULL, b);
	if (m->triage_config) {
		const char *slash = strrchr(m->triage_config, '/');
		snprintf(b, sizeof b, "configuration: %s", slash ? slash + 1 : m->triage_config);
		wg_item(&p, NULL, b);
	} else {
		wg_item(&p, NULL, "no build configuration");
	}
	if (m->triage_registers)
		wg_item(&p, NULL, m->triage_registers);
}

static void triage_draw(void *st, const xb_model *m, xb_canvas *c, xb_rect r, int focused)
{
	triage_state *s = st;
	triage_rows(s, m);
	const xb_triage *t = m->triage;
	char title[200];
	int k = snprintf(title, sizeof title, "Triage");
	if (s->detail && s->nrows)
		k += snprintf(title + k, sizeof title - (size_t)k, " · %s",
			      triage_rule(t, s->rows[s->list.sel]));
	if (s->filter[0])
		snprintf(title + k, sizeof title - (size_t)k, " filter '%s'", s->filter);
	xb_rect in = panel_frame(c, r, title, focused);
	s->table = (xb_rect){0, 0, 0, 0};
	if (in.w <= 0 || in.h <= 0)
		return;
	triage_header(s, m, c, in);
	xb_rect body;
	rect_split_rows(in, 1, NULL, &body);
	if (m->triage_error && body.h > 0) {
		xb_rect err;
		rect_split_rows(body, 1, &err, &body);
		char msg[300];
		snprintf(msg, sizeof msg, "the last triage failed: %s%s", m->triage_error,
			 t ? " (below: the last good one)" : "");
		wg_clip_field(c, err, err.x, err.y, err.w, XB_EL_WARNING, XB_ALIGN_LEFT, msg);
	}
	if (body.h <= 0)
		return;
	if (s->detail && t && s->nrows) {
		xb_rect head, rest;
		rect_split_rows(body, 1, &head, &rest);
		triage_detail_title(c, head, t, s->rows[s->list.sel]);
		triage_detail(s, t, s->list.sel, rest.w, 1);
		triage_draw_detail(s, c, rest);
		return;
	}
	/* the list, and the selected row's detail below it when there is room */
	xb_rect list = body, below = {0, 0, 0, 0};
	if (t && s->nrows && body.h >= TRIAGE_SPLIT_MIN) {
		triage_detail(s, t, s->list.sel, body.w, 0);
		int need_list = (int)(s->nrows < 1000 ? s->nrows : 1000) + 1;
		int need_detail = (int)(s->nlines < 1000 ? s->nlines : 1000) + 1;
		int list_h = body.h - need_detail > body.h / 2 ? body.h - need_detail : body.h / 2;
		if (list_h > need_list)
			list_h = need_list;
		rect_split_rows(body, list_h, &list, &below);
	}
	wg_column cols[NCOLS];
	memcpy(cols, triage_columns, sizeof cols);
	for (size_t i = 0; i < s->nrows; i++) {
		int w = canvas_width(triage_rule(t, s->rows[i]));
		cols[COL_RULE].width = w > cols[COL_RULE].width ? w : cols[COL_RULE].width;
	}
	triage_ctx ctx = {s, t};
	wg_table tb = {
		.cols = cols,
		.ncols = NCOLS,
		.nrows = s->nrows,
		.empty = !t ? (m->img ? "the triage runs when this panel is shown" : "")
			 : s->filter[0] ? "no finding matches the filter"
					: "nothing found and nothing skipped",
		.focused = focused,
		.ctx = &ctx,
		.cell = triage_cell,
	};
	s->table = list;
	wg_table_draw(c, list, &tb, &s->list);
	if (below.h > 0) {
		xb_rect head, rest;
		rect_split_rows(below, 1, &head, &rest);
		triage_detail_title(c, head, t, s->rows[s->list.sel]);
		s->detail_top = 0;
		triage_draw_detail(s, c, rest);
	}
	triage_remember(s, m);
}

/* ---- Commands ---- */

/* Selects the next row (dir 1) or the previous (-1) that matches the search, wrapping. */
static int triage_search(triage_state *s, const xb_model *m, int dir, int skip_current,
			 xb_panel_result *res)
{
	if (!s->search[0])
		return wg_message(res, 1, "no search yet: search TEXT");
	size_t n = s->nrows, start = skip_current ? 1 : 0;
	for (size_t k = start; k < start + n; k++) {
		size_t row = dir > 0 ? (s->list.sel + k) % n : (s->list.sel + n - k % n) % n;
		if (triage_item_matches(m->triage, s->rows[row], s->search)) {
			s->list.sel = row;
			s->detail_top = 0;
			triage_remember(s, m);
			return res->flags = XB_PANEL_REDRAW;
		}
	}
	return wg_message(res, 1, "'%s' is in no finding", s->search);
}

static int triage_try(triage_state *s, const xb_model *m, xb_panel_result *res)
{
	const xb_triage *t = m->triage;
	if (!t || !s->nrows)
		return wg_message(res, 1, "no finding to try%s",
				  t ? "" : ": the triage has not run yet");
	size_t item = s->rows[s->list.sel];
	if (triage_is_skip(t, item))
		return wg_message(res, 1, "%s was not checked: nothing to try",
				  triage_rule(t, item));
	const xb_finding *f = &t->f[item];
	if (!f->action || !f->action[0])
		return wg_message(res, 1, "%s: no workbench command tries this fix (the fix is in "
				  "its detail)", triage_rule(t, item));
	snprintf(res->msg, sizeof res->msg, "%s", f->action);
	return res->flags = XB_PANEL_RUN | XB_PANEL_REDRAW;
}

/* In the drill-down the moves scroll the detail; left and right go to the previous and
 * next row. */
static int triage_detail_move(triage_state *s, const xb_model *m, const char *verb)
{
	size_t page = s->detail_page > 1 ? (size_t)s->detail_page : 1;
	if (strcmp(verb, "left") == 0 || strcmp(verb, "right") == 0) {
		wg_list_move(&s->list, s->nrows, strcmp(verb, "left") == 0 ? "up" : "down");
		s->detail_top = 0;
		triage_remember(s, m);
		return 1;
	}
	if (strcmp(verb, "up") == 0)
		s->detail_top = s->detail_top ? s->detail_top - 1 : 0;
	else if (strcmp(verb, "down") == 0)
		s->detail_top++; /* clamped at the draw */
	else if (strcmp(verb, "page-up") == 0)
		s->detail_top = s->detail_top > page ? s->detail_top - page : 0;
	else if (strcmp(verb, "page-down") == 0)
		s->detail_top += page;
	else if (strcmp(verb, "home") == 0)
		s->detail_top = 0;
	else if (strcmp(verb, "end") == 0)
		s->detail_top = (size_t)-1 / 2;
	else
		return 0;
	return 1;
}

static int triage_command(void *st, const xb_model *m, const char *verb, const char *arg,
			  xb_panel_result *res)
{
	triage_state *s = st;
	res->flags = 0;
	triage_rows(s, m);
	if (s->detail && triage_detail_move(s, m, verb))
		return res->flags = XB_PANEL_REDRAW;
	if (wg_list_move(&s->list, s->nrows, verb)) {
		triage_remember(s, m);
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "left") == 0 || strcmp(verb, "right") == 0)
		return res->flags = XB_PANEL_REDRAW;
	if (strcmp(verb, "enter") == 0) {
		if (!s->nrows)
			return wg_message(res, 1, "no finding to open");
		s->detail = 1;
		s->detail_top = 0;
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "back") == 0) {
		s->detail = 0;
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "try") == 0)
		return triage_try(s, m, res);
	if (strcmp(verb, "filter") == 0) {
		snprintf(s->filter, sizeof s->filter, "%s", arg ? arg : "");
		s->seen = NULL; /* the selection goes back to its rule */
		triage_rows(s, m);
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "search") == 0) {
		snprintf(s->search, sizeof s->search, "%s", arg ? arg : "");
		return triage_search(s, m, 1, 0, res);
	}
	if (strcmp(verb, "next") == 0)
		return triage_search(s, m, 1, 1, res);
	if (strcmp(verb, "prev") == 0)
		return triage_search(s, m, -1, 1, res);
	return res->flags = XB_PANEL_UNHANDLED;
}

static int triage_mouse(void *st, const xb_model *m, xb_rect r, const xb_mouse *ev,
			xb_panel_result *res)
{
	triage_state *s = st;
	(void)r;
	res->flags = 0;
	if (ev->kind == XB_MOUSE_WHEEL_UP || ev->kind == XB_MOUSE_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			triage_command(st, m, ev->kind == XB_MOUSE_WHEEL_UP ? "up" : "down", NULL,
				       res);
		return res->flags;
	}
	triage_rows(s, m);
	long row = wg_table_row_at(s->table, &s->list, s->nrows, ev->y);
	if (row < 0 || ev->x < s->table.x || ev->x >= s->table.x + s->table.w)
		return res->flags = XB_PANEL_UNHANDLED;
	s->list.sel = (size_t)row;
	triage_remember(s, m);
	if (ev->kind == XB_MOUSE_DOUBLE) {
		s->detail = 1;
		s->detail_top = 0;
	}
	return res->flags = XB_PANEL_REDRAW;
}

const xb_panel_ops panel_triage = {
	.name = "triage",
	.title = "Triage",
	.sorts = NULL,
	.modes = NULL,
	.create = triage_create,
	.destroy = triage_destroy,
	.draw = triage_draw,
	.command = triage_command,
	.mouse = triage_mouse,
};
