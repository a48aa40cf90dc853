/* widgets: tables, strip charts, heat strips, bars and numbers for the panels (see
 * widgets.h). */
#include "widgets.h"

#include <math.h>

#include "../core/export.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- Numbers ---- */

const char *wg_count(char *buf, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, WG_NUM, "-");
		return buf;
	}
	const char *sign = v < 0 ? "-" : "";
	double a = fabs(v);
	static const char units[] = "kMGTP";
	if (a < 10 && fabs(a - round(a)) >= 0.05)
		snprintf(buf, WG_NUM, "%s%.1f", sign, a);
	else if (a < 9999.5)
		snprintf(buf, WG_NUM, "%s%.0f", sign, a);
	else {
		int u = 0;
		a /= 1000;
		while (a >= 999.5 && u < 4) {
			a /= 1000;
			u++;
		}
		if (a < 9.995 && u > 0)
			snprintf(buf, WG_NUM, "%s%.2f%c", sign, a, units[u]);
		else if (a < 99.95)
			snprintf(buf, WG_NUM, "%s%.1f%c", sign, a, units[u]);
		else
			snprintf(buf, WG_NUM, "%s%.0f%c", sign, a, units[u]);
	}
	return buf;
}

const char *wg_fixed(char *buf, double v, int decimals)
{
	if (!isfinite(v))
		snprintf(buf, WG_NUM, "-");
	else
		snprintf(buf, WG_NUM, "%.*f", decimals < 0 ? 0 : decimals > 9 ? 9 : decimals, v);
	return buf;
}

const char *wg_percent(char *buf, double pct)
{
	if (!isfinite(pct))
		snprintf(buf, WG_NUM, "-");
	else if (pct > 0 && pct < 0.05)
		snprintf(buf, WG_NUM, "<0.1 %%");
	else if (pct >= 99.95 && pct <= 100)
		snprintf(buf, WG_NUM, "100 %%");
	else
		snprintf(buf, WG_NUM, "%.1f %%", pct);
	return buf;
}

const char *wg_change(char *buf, double v, double base, int lower_better, int *el)
{
	export_change(v, base, buf, WG_NUM);
	if (el) {
		int changed = strcmp(buf, "-") != 0 && strcmp(buf, "0 %") != 0;
		*el = !changed ? XB_EL_NORMAL
		      : (v < base) == (lower_better != 0) ? XB_EL_GOOD
							    : XB_EL_ALERT;
	}
	return buf;
}

const char *wg_duration(char *buf, double seconds)
{
	if (!isfinite(seconds) || seconds < 0)
		snprintf(buf, WG_NUM, "-");
	else if (seconds < 90)
		snprintf(buf, WG_NUM, "%.0f s", seconds);
	else if (seconds < 5400)
		snprintf(buf, WG_NUM, fmod(seconds, 60) < 1 ? "%.0f min" : "%.1f min",
			 seconds / 60);
	else
		snprintf(buf, WG_NUM, "%.1f h", seconds / 3600);
	return buf;
}

const char *wg_clock(char *buf, uint64_t t_ns)
{
	uint64_t ms = t_ns / 1000000, s = ms / 1000;
	if (s < 3600)
		snprintf(buf, WG_NUM, "%02u:%02u.%03u", (unsigned)(s / 60), (unsigned)(s % 60),
			 (unsigned)(ms % 1000));
	else
		snprintf(buf, WG_NUM, "%llu:%02u:%02u", (unsigned long long)(s / 3600),
			 (unsigned)(s / 60 % 60), (unsigned)(s % 60));
	return buf;
}

/* ---- Heat ---- */

int wg_heat_level(double share)
{
	if (!(share > 0))
		return 0;
	return share >= 0.20 ? 5 : share >= 0.08 ? 4 : share >= 0.03 ? 3 : share >= 0.01 ? 2 : 1;
}

int wg_heat_el(double share)
{
	return XB_EL_HEAT_0 + wg_heat_level(share);
}

uint32_t wg_heat_glyph(int level)
{
	/* rising heights, so that a strip reads as a sparkline without colours */
	static const uint32_t glyphs[XB_HEAT_LEVELS] = {0x00B7, 0x2581, 0x2583, 0x2584, 0x2586,
							0x2588};
	return glyphs[level < 0 ? 0 : level >= XB_HEAT_LEVELS ? XB_HEAT_LEVELS - 1 : level];
}

int wg_relative_level(double v, double max)
{
	if (!(v > 0) || !(max > 0))
		return 0;
	int l = (int)ceil(v / max * 5 - 1e-9);
	return l < 1 ? 1 : l > 5 ? 5 : l;
}

void wg_heat_strip(xb_canvas *c, int x, int y, int w, const double *shares, size_t n,
		   size_t real, double max)
{
	for (int i = 0; i < w; i++) {
		/* column i shows value n - w + i */
		long k = (long)n - w + i;
		if (k < 0 || (size_t)k < n - (real < n ? real : n) || isnan(shares[k])) {
			canvas_put(c, x + i, y, ' ', XB_EL_NORMAL);
			continue;
		}
		int level = wg_relative_level(shares[k], max);
		canvas_put(c, x + i, y, wg_heat_glyph(level), XB_EL_HEAT_0 + level);
	}
}

void wg_bar(xb_canvas *c, int x, int y, int w, double fraction, int el)
{
	canvas_bar(c, x, y, w, fraction, el, XB_EL_NORMAL);
}

/* ---- Text ---- */

void wg_clip_field(xb_canvas *c, xb_rect r, int x, int y, int w, int el, enum xb_align align,
		   const char *s)
{
	if (y < r.y || y >= r.y + r.h || x < r.x || x >= r.x + r.w)
		return;
	if (x + w > r.x + r.w)
		w = r.x + r.w - x;
	canvas_field(c, x, y, w, el, align, s);
}

wg_pen wg_pen_at(xb_canvas *c, xb_rect r, int row)
{
	if (row < 0 || row >= r.h || r.w <= 0)
		return (wg_pen){c, 0, 0, 0, 0};
	return (wg_pen){c, r.x, r.y + row, r.x + r.w, r.x};
}

int wg_item(wg_pen *p, const char *value, const char *label)
{
	const char *sep = p->x > p->start ? " \u00B7 " : "";
	int need = canvas_width(sep) + (value ? canvas_width(value) : 0) +
		   (label ? canvas_width(label) : 0);
	if (need > wg_room(p))
		return 0;
	wg_put(p, XB_EL_DIM, sep);
	if (value)
		wg_put(p, XB_EL_NORMAL, value);
	if (label)
		wg_put(p, XB_EL_DIM, label);
	return 1;
}

void wg_put(wg_pen *p, int el, const char *s)
{
	if (p->x < p->end)
		p->x += canvas_text(p->c, p->x, p->y, p->end - p->x, el, s);
}

void wg_putf(wg_pen *p, int el, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	wg_put(p, el, buf);
}

int wg_room(const wg_pen *p)
{
	return p->end > p->x ? p->end - p->x : 0;
}

int wg_match(const char *s, const char *needle)
{
	if (!needle || !*needle)
		return 1;
	return s && strcasestr(s, needle) != NULL;
}

/* ---- Lists and tables ---- */

int wg_list_move(wg_list *l, size_t n, const char *verb)
{
	size_t page = l->page > 1 ? (size_t)l->page : 1;
	if (strcmp(verb, "up") == 0) {
		if (l->sel > 0)
			l->sel--;
	} else if (strcmp(verb, "down") == 0) {
		if (l->sel + 1 < n)
			l->sel++;
	} else if (strcmp(verb, "page-up") == 0) {
		l->sel = l->sel > page ? l->sel - page : 0;
	} else if (strcmp(verb, "page-down") == 0) {
		l->sel = l->sel + page < n ? l->sel + page : n ? n - 1 : 0;
	} else if (strcmp(verb, "home") == 0) {
		l->sel = 0;
	} else if (strcmp(verb, "end") == 0) {
		l->sel = n ? n - 1 : 0;
	} else {
		return 0;
	}
	return 1;
}

void wg_list_clamp(wg_list *l, size_t n, int rows)
{
	if (rows < 1)
		rows = 1;
	l->page = rows;
	if (n == 0) {
		l->sel = l->top = 0;
		return;
	}
	if (l->sel >= n)
		l->sel = n - 1;
	if (l->sel < l->top)
		l->top = l->sel;
	if (l->sel >= l->top + (size_t)rows)
		l->top = l->sel - (size_t)rows + 1;
	if (l->top + (size_t)rows > n)
		l->top = n > (size_t)rows ? n - (size_t)rows : 0;
}

void wg_table_layout(const wg_column *cols, int n, int w, int *x, int *wd)
{
	int shown[64];
	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++)
		shown[i] = 1;
	for (;;) {
		int need = -1, worst = -1;
		for (int i = 0; i < n; i++) {
			if (!shown[i])
				continue;
			need += (cols[i].width ? cols[i].width : cols[i].min) + 1;
			if (cols[i].drop > 0 && (worst < 0 || cols[i].drop >= cols[worst].drop))
				worst = i;
		}
		if (need <= w || worst < 0)
			break;
		shown[worst] = 0;
	}
	int need = -1, nflex = 0;
	for (int i = 0; i < n; i++)
		if (shown[i]) {
			need += (cols[i].width ? cols[i].width : cols[i].min) + 1;
			nflex += cols[i].width == 0;
		}
	/* the room left goes to the flexible columns in turns, each up to its limit */
	int extra = w - need > 0 ? w - need : 0, grow[64] = {0};
	while (extra > 0 && nflex > 0) {
		int open = 0;
		for (int i = 0; i < n; i++)
			if (shown[i] && cols[i].width == 0 &&
			    (cols[i].max <= 0 || cols[i].min + grow[i] < cols[i].max))
				open++;
		if (open == 0)
			break;
		int share = extra / open > 0 ? extra / open : 1;
		for (int i = 0; i < n && extra > 0; i++)
			if (shown[i] && cols[i].width == 0 &&
			    (cols[i].max <= 0 || cols[i].min + grow[i] < cols[i].max)) {
				int g = share;
				if (cols[i].max > 0 && cols[i].min + grow[i] + g > cols[i].max)
					g = cols[i].max - cols[i].min - grow[i];
				if (g > extra)
					g = extra;
				grow[i] += g;
				extra -= g;
			}
	}
	int at = 0;
	for (int i = 0; i < n; i++) {
		x[i] = at;
		wd[i] = 0;
		if (!shown[i])
			continue;
		int cw = cols[i].width ? cols[i].width : cols[i].min + grow[i];
		if (at + cw > w)
			cw = w - at > 0 ? w - at : 0;
		wd[i] = cw;
		at += cw + 1;
	}
}

void wg_table_draw(xb_canvas *c, xb_rect r, const wg_table *t, wg_list *l)
{
	if (r.w <= 0 || r.h <= 0)
		return;
	int x[64], wd[64], n = t->ncols < 64 ? t->ncols : 64;
	wg_table_layout(t->cols, n, r.w, x, wd);
	canvas_fill(c, (xb_rect){r.x, r.y, r.w, 1}, ' ', XB_EL_HEADER);
	for (int i = 0; i < n; i++) {
		if (!wd[i])
			continue;
		const wg_column *col = &t->cols[i];
		char title[96];
		int marked = col->sort && t->sort && strcmp(col->sort, t->sort) == 0;
		snprintf(title, sizeof title, "%s%s", col->title ? col->title : "",
			 marked ? (t->ascending ? "\u25B2" : "\u25BC") : "");
		canvas_field(c, r.x + x[i], r.y, wd[i], XB_EL_HEADER, col->align, title);
	}
	int rows = r.h - 1;
	wg_list_clamp(l, t->nrows, rows);
	if (rows <= 0)
		return;
	canvas_fill(c, (xb_rect){r.x, r.y + 1, r.w, rows}, ' ', XB_EL_NORMAL);
	if (t->nrows == 0) {
		if (t->empty)
			canvas_text(c, r.x + 1 < r.x + r.w ? r.x + 1 : r.x, r.y + 1,
				    r.w > 1 ? r.w - 1 : r.w, XB_EL_DIM, t->empty);
		return;
	}
	for (int k = 0; k < rows; k++) {
		size_t row = l->top + (size_t)k;
		if (row >= t->nrows)
			break;
		int y = r.y + 1 + k;
		int first = -1;
		for (int i = 0; i < n; i++) {
			if (!wd[i])
				continue;
			if (first < 0)
				first = i;
			if (t->draw && t->draw(t->ctx, row, i, c, r.x + x[i], y, wd[i]))
				continue;
			char buf[512];
			int el = XB_EL_NORMAL;
			buf[0] = 0;
			if (t->cell)
				t->cell(t->ctx, row, i, buf, sizeof buf, &el);
			canvas_field(c, r.x + x[i], y, wd[i], el, t->cols[i].align, buf);
		}
		if (row == l->sel && !t->no_selection) {
			if (t->focused)
				canvas_style(c, (xb_rect){r.x, y, r.w, 1}, XB_EL_SELECTED);
			else if (first >= 0)
				canvas_style(c, (xb_rect){r.x + x[first], y, wd[first], 1},
					     XB_EL_SELECTED);
		}
	}
}

long wg_table_row_at(xb_rect r, const wg_list *l, size_t nrows, int y)
{
	if (y <= r.y || y >= r.y + r.h)
		return -1;
	size_t row = l->top + (size_t)(y - r.y - 1);
	return row < nrows ? (long)row : -1;
}

/* ---- Fields ---- */

const char *wg_field(const char *list, int i, char *buf, size_t cap)
{
	buf[0] = 0;
	if (!list || i < 0)
		return buf;
	const char *p = list;
	for (int k = 0; k < i; k++) {
		p = strchr(p, ',');
		if (!p)
			return buf;
		p++;
	}
	while (*p == ' ')
		p++;
	size_t n = strcspn(p, ",");
	while (n > 0 && p[n - 1] == ' ')
		n--;
	snprintf(buf, cap, "%.*s", (int)n, p);
	return buf;
}

int wg_field_count(const char *list)
{
	if (!list || !*list)
		return 0;
	int n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	return n;
}

int wg_message(xb_panel_result *res, int error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->msg, sizeof res->msg, fmt, ap);
	va_end(ap);
	res->flags = error ? XB_PANEL_ERROR | XB_PANEL_MESSAGE : XB_PANEL_MESSAGE | XB_PANEL_REDRAW;
	return res->flags;
}

int wg_choose(const char *list, const char *what, int cur, const char *arg,
	      xb_panel_result *res)
{
	int n = wg_field_count(list);
	if (n == 0) {
		wg_message(res, 1, "no %s here", what);
		return -1;
	}
	if (!arg || !*arg)
		return cur + 1 >= 0 && cur + 1 < n ? cur + 1 : 0;
	char f[64];
	for (int i = 0; i < n; i++)
		if (strcasecmp(wg_field(list, i, f, sizeof f), arg) == 0)
			return i;
	char q[48], all[200] = "";
	xb_quote(q, sizeof q, arg, strlen(arg));
	for (int i = 0; i < n; i++) {
		size_t k = strlen(all);
		snprintf(all + k, sizeof all - k, "%s%s", i ? ", " : "",
			 wg_field(list, i, f, sizeof f));
	}
	wg_message(res, 1, "no %s '%s'; %ss: %s", what, q, what, all);
	return -1;
}

/* ---- Profile figures ---- */

const char *wg_window_name(int window)
{
	switch (window) {
	case XB_WINDOW_1S:
		return "last 1 s";
	case XB_WINDOW_10S:
		return "last 10 s";
	case XB_WINDOW_ALL:
		return "since the start";
	}
	return "?";
}

const char *wg_subtract_text(char *buf, size_t cap, const xb_model *m)
{
	double idle = m->prof ? liveprof_idle_seconds(m->prof) : 0;
	if (!m->subtract)
		snprintf(buf, cap, "idle not subtracted");
	else if (idle > 0)
		snprintf(buf, cap, "idle subtracted (%.1f s recorded)", idle);
	else
		snprintf(buf, cap, "idle subtraction on, no idle window recorded");
	return buf;
}

double wg_busy_total(const xb_model *m, xb_liveprof_totals *t)
{
	xb_liveprof_totals tmp;
	if (!t)
		t = &tmp;
	memset(t, 0, sizeof *t);
	if (!m->prof)
		return 0;
	liveprof_totals(m->prof, m->window, t);
	return t->net + (double)t->unattributed;
}

const char *wg_placement(char *buf, size_t cap, const xb_model *m, uint32_t addr, int kind)
{
	switch (kind) {
	case XB_REGION_FLASH:
		if (m->sets)
			snprintf(buf, cap, "set %u", setmap_set_of(m->sets, addr));
		else if (m->tg && m->tg->cache.line)
			snprintf(buf, cap, "set %u", target_set_of(m->tg, addr));
		else
			snprintf(buf, cap, "flash");
		break;
	case XB_REGION_SRAM:
		snprintf(buf, cap, "SRAM");
		break;
	case XB_REGION_ROM:
		snprintf(buf, cap, "ROM");
		break;
	default:
		snprintf(buf, cap, "other");
	}
	return buf;
}

/* ---- Strip charts ---- */

/* A figure of the chart in its style. */
static const char *chart_num(char *buf, const wg_chart *ch, double v)
{
	return ch->decimals < 0 ? wg_count(buf, v) : wg_fixed(buf, v, ch->decimals);
}

/* The column (counted back from the newest point) of a marker, or -1 when it is not among
 * the n points shown. */
static long chart_marker_back(const xb_series *s, size_t n, uint64_t t)
{
	if (s->head == 0 || t < s->first_ns)
		return -1;
	uint64_t k = (t - s->first_ns) / s->period_ns;
	if (k >= s->head)
		return -1;
	uint64_t back = s->head - 1 - k;
	return back < n ? (long)back : -1;
}

/* Eighths of the bar of v in a plot of rows rows scaled lo..hi (a value always shows). */
static int chart_eighths(double v, double lo, double hi, int rows)
{
	double f = (v - lo) / (hi - lo);
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	int e = (int)lround(f * rows * 8);
	return e < 1 ? 1 : e;
}

static void chart_scale(const xb_series *s, size_t n, int from_zero, double *lo, double *hi)
{
	if (!series_range(s, n, lo, hi)) {
		*lo = 0;
		*hi = 1;
		return;
	}
	if (from_zero) {
		if (*lo > 0)
			*lo = 0;
		if (*hi < 0)
			*hi = 0;
	}
	if (*hi - *lo <= 1e-12 * (fabs(*hi) + 1)) {
		double d = *lo == 0 ? 1 : fabs(*lo) * 0.05;
		if (from_zero && *lo == 0)
			*hi = 1;
		else {
			*lo -= d;
			*hi += d;
		}
	}
}

/* The title row: title, newest value and unit, and (room permitting) min and max. */
static void chart_title(xb_canvas *c, xb_rect r, const wg_chart *ch, size_t n, wg_pen *p)
{
	const xb_series *s = ch->s;
	*p = wg_pen_at(c, r, 0);
	wg_put(p, XB_EL_HEADER, ch->title ? ch->title : s ? s->name : "");
	if (!s) {
		wg_put(p, XB_EL_DIM, "  no data");
		return;
	}
	char a[WG_NUM], b[WG_NUM];
	double v = series_latest(s, NULL);
	wg_put(p, XB_EL_NORMAL, "  ");
	wg_put(p, isnan(v) ? XB_EL_DIM : XB_EL_NORMAL, chart_num(a, ch, v));
	if (s->unit[0] && !isnan(v))
		wg_putf(p, XB_EL_DIM, "%s%s", s->unit[0] == '/' ? "" : " ", s->unit);
	double lo, hi;
	if (series_range(s, n, &lo, &hi)) {
		char line[96];
		snprintf(line, sizeof line, "  min %s  max %s", chart_num(a, ch, lo),
			 chart_num(b, ch, hi));
		if (canvas_width(line) <= wg_room(p))
			wg_put(p, XB_EL_CHART_AXIS, line);
	}
}

/* One row: the title, then a sparkline of the newest points in the room left. */
static void chart_one_row(xb_canvas *c, xb_rect r, const wg_chart *ch)
{
	wg_pen p;
	chart_title(c, r, ch, (size_t)r.w, &p);
	const xb_series *s = ch->s;
	if (!s || wg_room(&p) < 4)
		return;
	wg_put(&p, XB_EL_NORMAL, " ");
	size_t n = (size_t)wg_room(&p), count = series_count(s);
	if (n > count)
		n = count;
	double lo, hi;
	chart_scale(s, n, ch->from_zero, &lo, &hi);
	for (size_t k = 0; k < n; k++) {
		double v = series_back(s, n - 1 - k);
		uint32_t g = isnan(v) ? ' ' : canvas_spark(chart_eighths(v, lo, hi, 1));
		canvas_put(c, p.x + (int)k, p.y, g, XB_EL_CHART);
	}
}

void wg_chart_draw(xb_canvas *c, xb_rect r, const wg_chart *ch)
{
	if (r.w <= 0 || r.h <= 0)
		return;
	canvas_fill(c, r, ' ', XB_EL_NORMAL);
	if (r.h == 1) {
		chart_one_row(c, r, ch);
		return;
	}
	const xb_series *s = ch->s;
	int axis = r.h >= 3, rows = r.h - 1 - axis;
	/* the y scale's labels set the gutter; the points shown depend on the width left, so
	 * the scale is found for the widest plot first and once more for the real one */
	size_t count = s ? series_count(s) : 0;
	double lo = 0, hi = 1;
	char top[WG_NUM], bottom[WG_NUM];
	int gutter = 0;
	size_t n = 0;
	if (s) {
		chart_scale(s, (size_t)r.w, ch->from_zero, &lo, &hi);
		chart_num(top, ch, hi);
		chart_num(bottom, ch, lo);
		int gw = canvas_width(top) > canvas_width(bottom) ? canvas_width(top)
								  : canvas_width(bottom);
		gutter = gw + 2 < r.w / 3 ? gw + 2 : 0;
		n = (size_t)(r.w - gutter) < count ? (size_t)(r.w - gutter) : count;
		chart_scale(s, n, ch->from_zero, &lo, &hi);
		chart_num(top, ch, hi);
		chart_num(bottom, ch, lo);
	}
	wg_pen p;
	chart_title(c, r, ch, n, &p);
	if (!s)
		return;
	int px = r.x + gutter, pw = r.w - gutter, y0 = r.y + 1;
	if (gutter) {
		for (int k = 0; k < rows; k++) {
			const char *label = k == 0 ? top : k == rows - 1 ? bottom : "";
			canvas_field(c, r.x, y0 + k, gutter - 2, XB_EL_CHART_AXIS, XB_ALIGN_RIGHT,
				     label);
			canvas_put(c, r.x + gutter - 1, y0 + k, *label ? 0x2524 : 0x2502,
				   XB_EL_CHART_AXIS);
		}
	}
	for (size_t i = 0; i < n; i++) {
		double v = series_back(s, i);
		if (isnan(v))
			continue;
		int x = px + pw - 1 - (int)i, e = chart_eighths(v, lo, hi, rows);
		for (int k = 0; k < rows && e > 0; k++, e -= 8)
			canvas_put(c, x, y0 + rows - 1 - k, e >= 8 ? 0x2588 : canvas_spark(e),
				   XB_EL_CHART);
	}
	for (size_t m = 0; m < s->nmarkers; m++) {
		long back = chart_marker_back(s, n, s->markers[m].t_ns);
		if (back < 0)
			continue;
		int x = px + pw - 1 - (int)back;
		for (int k = 0; k < rows; k++)
			if (canvas_get(c, x, y0 + k).ch == ' ')
				canvas_put(c, x, y0 + k, 0x250A, XB_EL_CHART_MARKER);
	}
	if (!axis)
		return;
	int ya = r.y + r.h - 1;
	if (gutter)
		canvas_put(c, r.x + gutter - 1, ya, 0x2514, XB_EL_CHART_AXIS);
	canvas_hline(c, px, ya, pw, XB_EL_CHART_AXIS);
	char span[WG_NUM + 2], d[WG_NUM];
	snprintf(span, sizeof span, "-%s", wg_duration(d, (double)pw * (double)s->period_ns / 1e9));
	/* the span's label only where no marker is */
	int first_marker = px + pw;
	for (size_t m = 0; m < s->nmarkers; m++) {
		long back = chart_marker_back(s, n, s->markers[m].t_ns);
		if (back >= 0 && px + pw - 1 - (int)back < first_marker)
			first_marker = px + pw - 1 - (int)back;
	}
	if (canvas_width(span) + 5 <= pw && px + canvas_width(span) < first_marker)
		canvas_text(c, px, ya, pw, XB_EL_CHART_AXIS, span);
	if (canvas_width(span) + 5 <= pw)
		canvas_text(c, px + pw - 3, ya, 3, XB_EL_CHART_AXIS, "now");
	/* markers last, each label up to the next marker or "now" */
	for (size_t m = 0; m < s->nmarkers; m++) {
		long back = chart_marker_back(s, n, s->markers[m].t_ns);
		if (back < 0)
			continue;
		int x = px + pw - 1 - (int)back, end = px + pw;
		for (size_t k = m + 1; k < s->nmarkers; k++) {
			long b2 = chart_marker_back(s, n, s->markers[k].t_ns);
			if (b2 >= 0 && px + pw - 1 - (int)b2 > x) {
				end = px + pw - 1 - (int)b2;
				break;
			}
		}
		canvas_put(c, x, ya, 0x25B2, XB_EL_CHART_MARKER);
		if (end - x - 2 > 0)
			canvas_text(c, x + 1, ya, end - x - 2, XB_EL_CHART_MARKER,
				    s->markers[m].label);
	}
}

void wg_ftable_init(wg_ftable *t)
{
	memset(t, 0, sizeof *t);
	t->sel_func = -1;
}

void wg_ftable_free(wg_ftable *t)
{
	free(t->rows);
	free(t->keys);
}

/* A row's sort key, made once per sort so that comparisons stay cheap. */
typedef struct wg_fkey {
	double key;       /* descending (negated for ascending); NaN last */
	uint32_t addr;    /* ties: by address */
	uint32_t func;
	const char *name; /* by name */
} wg_fkey;

static int fkey_cmp(const void *pa, const void *pb)
{
	const wg_fkey *a = pa, *b = pb;
	int r;
	if (a->name)
		r = strcmp(a->name, b->name);
	else if (isnan(a->key) || isnan(b->key))
		r = isnan(a->key) - isnan(b->key);
	else
		r = a->key > b->key ? -1 : a->key < b->key;
	if (r == 0)
		r = a->addr < b->addr ? -1 : a->addr > b->addr ? 1 : a->func < b->func ? -1 : 1;
	return r;
}

void wg_ftable_settle(wg_ftable *t, const xb_image *img, int by_name,
		      double (*key)(void *ctx, size_t func), void *ctx)
{
	size_t n = t->nrows;
	xb_grow(&t->keys, &t->keys_cap, n + 1, sizeof *t->keys);
	for (size_t r = 0; r < n; r++) {
		size_t i = t->rows[r];
		const xb_function *f = &img->funcs[i];
		double k = by_name ? 0 : key(ctx, i);
		t->keys[r] = (wg_fkey){t->ascending && !isnan(k) ? -k : k, f->addr, (uint32_t)i,
				       by_name ? f->name : NULL};
	}
	qsort(t->keys, n, sizeof *t->keys, fkey_cmp);
	for (size_t r = 0; r < n; r++)
		t->rows[r] = t->keys[by_name && t->ascending ? n - 1 - r : r].func;
	if (t->sel_func >= 0)
		for (size_t r = 0; r < n; r++)
			if ((long)t->rows[r] == t->sel_func) {
				t->list.sel = r;
				break;
			}
	if (t->list.sel >= n)
		t->list.sel = n ? n - 1 : 0;
	t->sel_func = n ? (long)t->rows[t->list.sel] : -1;
}

size_t wg_wrap(const char *p, int w, int *last)
{
	size_t n = strlen(p);
	if (canvas_width(p) <= w) {
		*last = 1;
		return n;
	}
	*last = 0;
	size_t cut = 0, blank = 0;
	int col = 0;
	while (cut < n && col < w) {
		if (p[cut] == ' ')
			blank = cut;
		cut++;
		while (cut < n && ((unsigned char)p[cut] & 0xC0) == 0x80)
			cut++;
		col++;
	}
	return blank > 0 ? blank : cut;
}

void wg_ftable_name_width(const wg_ftable *t, const xb_image *img, wg_column *col)
{
	for (size_t row = 0; row < t->nrows; row++) {
		int w = canvas_width(img->funcs[t->rows[row]].name);
		col->max = w > col->max ? w : col->max;
	}
}

long wg_ftable_click(wg_ftable *t, const xb_mouse *ev)
{
	long row = wg_table_row_at(t->table, &t->list, t->nrows, ev->y);
	if (row < 0 || ev->x < t->table.x || ev->x >= t->table.x + t->table.w)
		return -1;
	t->list.sel = (size_t)row;
	t->sel_func = (long)t->rows[row];
	return row;
}

/* The next row (dir 1) or the previous one (-1) whose function's name holds the search,
 * from the selected row (skip: not the selected row itself). */
static int ftable_search(wg_ftable *t, const xb_image *img, int dir, int skip,
			 xb_panel_result *res)
{
	if (!t->search[0])
		return wg_message(res, 1, "no search yet: search TEXT");
	size_t n = t->nrows;
	for (size_t k = skip ? 1 : 0; img && k < n + (size_t)skip; k++) {
		size_t row = dir > 0 ? (t->list.sel + k) % n : (t->list.sel + n - k % n) % n;
		if (t->rows[row] < img->nfuncs && wg_match(img->funcs[t->rows[row]].name, t->search)) {
			t->list.sel = row;
			t->sel_func = (long)t->rows[row];
			return res->flags = XB_PANEL_REDRAW;
		}
	}
	return wg_message(res, 1, "no function matches '%s'", t->search);
}

int wg_ftable_command(wg_ftable *t, const xb_image *img, const char *sorts, const char *noun,
		      void (*rows)(void *ctx), void *ctx, const char *verb, const char *arg,
		      xb_panel_result *res)
{
	res->flags = 0;
	if (wg_list_move(&t->list, t->nrows, verb)) {
		t->sel_func = t->nrows ? (long)t->rows[t->list.sel] : -1;
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "sort") == 0) {
		int k = wg_choose(sorts, "sort field", t->sort, arg, res);
		if (k < 0)
			return res->flags;
		/* the same field again turns the order round */
		t->ascending = arg && *arg && k == t->sort ? !t->ascending : 0;
		t->sort = k;
		/* a new order starts at its top */
		t->list.sel = t->list.top = 0;
		t->sel_func = -1;
		char f[32];
		return wg_message(res, 0, "%s sorted by %s%s", noun, wg_field(sorts, k, f, sizeof f),
				  t->ascending ? ", reversed" : "");
	}
	if (strcmp(verb, "filter") == 0) {
		snprintf(t->filter, sizeof t->filter, "%s", arg ? arg : "");
		t->list.sel = t->list.top = 0;
		t->sel_func = -1;
		return res->flags = XB_PANEL_REDRAW;
	}
	if (strcmp(verb, "search") == 0) {
		snprintf(t->search, sizeof t->search, "%s", arg ? arg : "");
		rows(ctx);
		return ftable_search(t, img, 1, 0, res);
	}
	if (strcmp(verb, "next") == 0 || strcmp(verb, "prev") == 0)
		return ftable_search(t, img, verb[0] == 'n' ? 1 : -1, 1, res);
	return res->flags = XB_PANEL_UNHANDLED;
}
