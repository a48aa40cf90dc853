/* layout: the workbench's screen: the status bar (bench, image, layout, rates), the panels'
 * tabs, one panel or every panel at once, and the message or ':' prompt line; a notice
 * when the terminal is too small to draw on. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../panels/widgets.h"
#include "app.h"

#define LAYOUT_OVERVIEW_W 160 /* the overview shows every panel from this size on */
#define LAYOUT_OVERVIEW_H 40

static void status_bar(xb_app *a, int y)
{
	xb_canvas *c = a->cv;
	const xb_model *m = &a->model;
	canvas_fill(c, (xb_rect){0, y, c->w, 1}, ' ', XB_EL_STATUS);
	char f[12][96];
	int n = 0;
	if (isfinite(m->speed))
		snprintf(f[n++], sizeof f[0], "%s %s%.2fx", m->bench, m->paused ? "paused " : "",
			 m->speed);
	else
		snprintf(f[n++], sizeof f[0], "%s", m->bench);
	const char *img = m->image ? strrchr(m->image, '/') : NULL;
	snprintf(f[n++], sizeof f[0], "%s", img ? img + 1 : m->image ? m->image : "no image");
	snprintf(f[n++], sizeof f[0], "%s", m->layout ? m->layout : "");
	char b1[32], b2[32];
	snprintf(f[n++], sizeof f[0], "%s ping/s %s udp/s", wg_count(b1, m->ping_rate),
		 wg_count(b2, m->udp_rate));
	snprintf(f[n++], sizeof f[0], "%s echo/s", wg_count(b1, m->echo_rate));
	if (isfinite(m->misses_per_echo))
		snprintf(f[n++], sizeof f[0], "%.0f miss/echo", m->misses_per_echo);
	else
		snprintf(f[n++], sizeof f[0], "- miss/echo");
	if (isfinite(m->turnaround_ms))
		snprintf(f[n++], sizeof f[0], "%.3f ms", m->turnaround_ms);
	else
		snprintf(f[n++], sizeof f[0], "- ms");
	if (isfinite(m->hit_rate))
		snprintf(f[n++], sizeof f[0], "%.1f%% hit", m->hit_rate);
	if (isfinite(m->ratio) && m->ratio < 0.95 && !m->paused)
		snprintf(f[n++], sizeof f[0], "running at %.2fx", m->ratio);
	/* the state last, so that it stays when the bar is narrow: drop from the middle */
	int x = 0;
	x += canvas_text(c, x, y, c->w, XB_EL_STATUS_VALUE, " xipbench ");
	int statew = canvas_width(m->state ? m->state : "") + 3;
	for (int i = 0; i < n; i++) {
		int w = canvas_width(f[i]) + 3;
		if (x + w > c->w - statew)
			break;
		x += canvas_text(c, x, y, -1, XB_EL_STATUS, "\xe2\x94\x82 "); /* "│ " */
		x += canvas_text(c, x, y, -1, i >= 4 ? XB_EL_STATUS_VALUE : XB_EL_STATUS, f[i]);
		x += canvas_text(c, x, y, -1, XB_EL_STATUS, " ");
	}
	if (m->state && *m->state) {
		/* the state's beginning says what it is: a long one is cut at its end */
		int w = canvas_width(m->state) + 1;
		int at = c->w - w > x ? c->w - w : x;
		canvas_field(c, at, y, c->w - at, m->alert ? XB_EL_ALERT : XB_EL_STATUS_VALUE,
			     XB_ALIGN_LEFT, m->state);
	}
}

static void tab_bar(xb_app *a, int y)
{
	xb_canvas *c = a->cv;
	canvas_fill(c, (xb_rect){0, y, c->w, 1}, ' ', XB_EL_TAB);
	int x = 1;
	for (size_t i = 0; i < a->npanels; i++) {
		char t[64];
		const char *key = strcmp(a->ops[i]->name, "help") == 0 ? "?" : NULL;
		char kb[24];
		if (!key) {
			snprintf(kb, sizeof kb, "%zu", i + 1);
			key = kb;
		}
		snprintf(t, sizeof t, " %s %s ", key, a->ops[i]->title);
		int w = canvas_width(t);
		if (x + w > c->w)
			break;
		canvas_text(c, x, y, w, i == a->focus ? XB_EL_TAB_ACTIVE : XB_EL_TAB, t);
		x += w + 1;
	}
}

static void message_line(xb_app *a, int y, int *cursor)
{
	xb_canvas *c = a->cv;
	canvas_fill(c, (xb_rect){0, y, c->w, 1}, ' ', XB_EL_MESSAGE);
	*cursor = -1;
	if (a->prompt.active) {
		*cursor = prompt_draw(&a->prompt, c, 0, y, c->w);
		return;
	}
	if (a->msg[0]) {
		canvas_field(c, 0, y, c->w, a->msg_error ? XB_EL_ALERT : XB_EL_MESSAGE, XB_ALIGN_LEFT,
			     a->msg);
		return;
	}
	int x = 0;
	static const char *const hints[][2] = {{"?", "help"},   {":", "command"}, {"Tab", "panels"},
					       {"w", "window"}, {"t", "theme"},   {"q", "quit"}};
	for (size_t i = 0; i < sizeof hints / sizeof *hints; i++) {
		if (x + (int)strlen(hints[i][0]) + (int)strlen(hints[i][1]) + 3 > c->w)
			break;
		x += canvas_text(c, x, y, -1, XB_EL_KEY, hints[i][0]);
		x += canvas_text(c, x, y, -1, XB_EL_DIM, " ");
		x += canvas_text(c, x, y, -1, XB_EL_DIM, hints[i][1]);
		x += canvas_text(c, x, y, -1, XB_EL_DIM, "  ");
	}
}

static void too_small(xb_app *a)
{
	xb_canvas *c = a->cv;
	canvas_clear(c, XB_EL_NORMAL);
	char line[96];
	snprintf(line, sizeof line, "too small: %dx%d (xipbench needs %dx%d)", c->w, c->h,
		 XB_APP_MIN_W, XB_APP_MIN_H);
	/* as much of the notice as fits, from the top left, wrapped */
	int y = 0, x = 0;
	for (const char *p = line; *p && y < c->h; p++) {
		if (x == c->w) {
			x = 0;
			y++;
			if (y == c->h)
				break;
		}
		canvas_put(c, x++, y, (unsigned char)*p, XB_EL_WARNING);
	}
}

/* The panel rectangles of the overview: libraries and functions on the left, echoes,
 * cache sets and the log on the right; the help panel takes the whole area when shown. */
static void overview(xb_app *a, xb_rect area)
{
	xb_rect left, right, top, rest, mid, bottom;
	rect_split_cols(area, area.w * 11 / 20, &left, &right);
	for (size_t i = 0; i < a->npanels; i++)
		a->prect[i] = (xb_rect){0, 0, 0, 0};
	int lib = app_panel_index(a, "libraries"), fun = app_panel_index(a, "functions");
	int ech = app_panel_index(a, "echoes"), set = app_panel_index(a, "cachesets");
	int log = app_panel_index(a, "log");
	rect_split_rows(left, left.h / 2, &top, &rest);
	if (lib >= 0)
		a->prect[lib] = top;
	if (fun >= 0)
		a->prect[fun] = rest;
	rect_split_rows(right, right.h * 2 / 5, &top, &rest);
	rect_split_rows(rest, rest.h * 2 / 3, &mid, &bottom);
	if (ech >= 0)
		a->prect[ech] = top;
	if (set >= 0)
		a->prect[set] = mid;
	if (log >= 0)
		a->prect[log] = bottom;
}

int layout_draw(xb_app *a)
{
	xb_canvas *c = a->cv;
	a->too_small = c->w < XB_APP_MIN_W || c->h < XB_APP_MIN_H;
	if (a->too_small) {
		too_small(a);
		for (size_t i = 0; i < a->npanels; i++)
			a->prect[i] = (xb_rect){0, 0, 0, 0};
		return -1;
	}
	canvas_clear(c, XB_EL_NORMAL);
	status_bar(a, 0);
	tab_bar(a, 1);
	xb_rect area = {0, 2, c->w, c->h - 3};
	area.h -= caption_draw(a, area);
	int wide = c->w >= LAYOUT_OVERVIEW_W && c->h >= LAYOUT_OVERVIEW_H;
	int help = strcmp(a->ops[a->focus]->name, "help") == 0;
	a->view = a->view_option == 1 ? XB_VIEW_SINGLE
		  : a->view_option == 2 || wide ? XB_VIEW_OVERVIEW : XB_VIEW_SINGLE;
	if (a->view == XB_VIEW_OVERVIEW && !help) {
		overview(a, area);
		if (a->prect[a->focus].w == 0) /* a panel the overview has no room for */
			a->view = XB_VIEW_SINGLE;
	}
	if (a->view == XB_VIEW_SINGLE || help) {
		for (size_t i = 0; i < a->npanels; i++)
			a->prect[i] = (xb_rect){0, 0, 0, 0};
		a->prect[a->focus] = area;
	}
	for (size_t i = 0; i < a->npanels; i++)
		if (a->prect[i].w > 0 && a->prect[i].h > 0)
			a->ops[i]->draw(a->pst[i], &a->model, c, a->prect[i], i == a->focus);
	int cursor;
	message_line(a, c->h - 1, &cursor);
	return cursor;
}

int layout_panel_at(const xb_app *a, int x, int y, int *tab)
{
	*tab = 0;
	if (a->too_small)
		return -1;
	if (y == 1) {
		*tab = 1;
		int at = 1;
		for (size_t i = 0; i < a->npanels; i++) {
			int w = 2 + (int)strlen(a->ops[i]->title) + 2 + (i >= 9);
			if (x >= at && x < at + w)
				return (int)i;
			at += w + 1;
		}
		return -1;
	}
	for (size_t i = 0; i < a->npanels; i++) {
		xb_rect r = a->prect[i];
		if (r.w > 0 && x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h)
			return (int)i;
	}
	return -1;
}
