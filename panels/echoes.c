/* echoes: the study's figures now (turnaround, echo rate, misses per echo, XIP hit rate,
 * loss, misses per second busy and idle), the traffic settings, and strip charts of the
 * figures over time with markers where the image changed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "panel.h"
#include "widgets.h"

/* How each series is charted, in enum xb_model_series order. */
static const struct {
	const char *title;
	int decimals, from_zero;
} echo_charts[XB_SERIES_COUNT] = {
	[XB_SERIES_TURNAROUND] = {"Turnaround", 3, 1},
	[XB_SERIES_ECHO_RATE] = {"Echo rate", -1, 1},
	[XB_SERIES_MISSES_PER_ECHO] = {"Misses per echo", -1, 1},
	[XB_SERIES_HIT_RATE] = {"XIP hit rate", 1, 0},
};

static void *echoes_create(void)
{
	return xcalloc(1, 1);
}

static void echoes_destroy(void *st)
{
	free(st);
}

/* Label-value pairs that flow along rows and wrap where the next one does not fit. */
typedef struct echo_flow {
	xb_canvas *c;
	xb_rect r;
	int row, x;
} echo_flow;

static void flow_item(echo_flow *f, const char *label, const char *value, int value_el)
{
	int need = canvas_width(label) + 1 + canvas_width(value);
	if (f->x > 0 && f->x + 3 + need > f->r.w) {
		f->row++;
		f->x = 0;
	}
	if (f->row >= f->r.h)
		return;
	wg_pen p = wg_pen_at(f->c, f->r, f->row);
	p.x += f->x;
	if (f->x > 0)
		wg_put(&p, XB_EL_NORMAL, "   ");
	wg_put(&p, XB_EL_DIM, label);
	wg_put(&p, XB_EL_NORMAL, " ");
	wg_put(&p, value_el, value);
	f->x = p.x - f->r.x;
}

static void flow_newline(echo_flow *f)
{
	if (f->x > 0) {
		f->row++;
		f->x = 0;
	}
}

/* "412/s", "0.885 ms": a figure and its unit, "-" alone when unknown. */
static const char *with_unit(char *buf, const char *num, const char *unit)
{
	int known = strcmp(num, "-") != 0;
	snprintf(buf, 64, "%s%s%s", num, known && *unit && *unit != '/' ? " " : "",
		 known ? unit : "");
	return buf;
}

static const char *traffic(char *buf, double rate, unsigned size)
{
	char a[WG_NUM];
	if (!(rate > 0))
		snprintf(buf, 64, "off");
	else
		snprintf(buf, 64, "%s/s \u00D7 %u B", wg_count(a, rate), size);
	return buf;
}

/* The figures and traffic rows; returns the rows used. */
static int echoes_figures(const xb_model *m, xb_canvas *c, xb_rect in)
{
	echo_flow f = {c, in, 0, 0};
	char a[WG_NUM], v[128];
	flow_item(&f, "turnaround", with_unit(v, wg_fixed(a, m->turnaround_ms, 3), "ms"),
		  XB_EL_NORMAL);
	flow_item(&f, "echo rate", with_unit(v, wg_count(a, m->echo_rate), "/s"), XB_EL_NORMAL);
	flow_item(&f, "misses/echo", wg_count(a, m->misses_per_echo), XB_EL_NORMAL);
	flow_item(&f, "XIP hit rate", wg_percent(a, m->hit_rate), XB_EL_NORMAL);
	flow_item(&f, "loss", wg_percent(a, m->loss), m->loss >= 1 ? XB_EL_WARNING : XB_EL_NORMAL);
	flow_newline(&f);
	flow_item(&f, "XIP misses", with_unit(v, wg_count(a, m->misses_per_s), "/s"),
		  XB_EL_NORMAL);
	flow_item(&f, "idle window", isnan(m->idle_misses_per_s) ? "not recorded"
				     : with_unit(v, wg_count(a, m->idle_misses_per_s), "/s"),
		  isnan(m->idle_misses_per_s) ? XB_EL_DIM : XB_EL_NORMAL);
	flow_item(&f, "PC samples", with_unit(v, wg_count(a, m->sample_rate), "/s"),
		  XB_EL_NORMAL);
	flow_item(&f, "echoes", wg_count(a, (double)m->echoes), XB_EL_NORMAL);
	flow_newline(&f);
	flow_item(&f, "ping", traffic(v, m->ping_rate, m->ping_size),
		  m->ping_rate > 0 ? XB_EL_NORMAL : XB_EL_DIM);
	flow_item(&f, "UDP", traffic(v, m->udp_rate, m->udp_size),
		  m->udp_rate > 0 ? XB_EL_NORMAL : XB_EL_DIM);
	if (m->sweep) {
		char b[WG_NUM], peak[64];
		snprintf(v, sizeof v, "step %u of %u, peak %s", m->sweep_step, m->sweep_steps,
			 with_unit(peak, wg_count(b, m->sweep_peak), "/s"));
		flow_item(&f, "sweep", v, XB_EL_NORMAL);
	}
	flow_newline(&f);
	return f.row < in.h ? f.row : in.h;
}

static void echoes_draw(void *st, const xb_model *m, xb_canvas *c, xb_rect r, int focused)
{
	(void)st;
	xb_rect in = panel_frame(c, r, "Echoes", focused);
	if (in.w <= 0 || in.h <= 0)
		return;
	int used = echoes_figures(m, c, in);
	xb_rect rest;
	rect_split_rows(in, used + (used < in.h), NULL, &rest);
	int which[XB_SERIES_COUNT], n = 0;
	for (int i = 0; i < XB_SERIES_COUNT; i++)
		if (m->series[i])
			which[n++] = i;
	if (rest.h <= 0)
		return;
	if (n == 0) {
		wg_pen p = wg_pen_at(c, rest, 0);
		wg_put(&p, XB_EL_DIM, "no figures over time yet");
		return;
	}
	/* two columns of charts when wide, each chart at least 3 rows when there is room */
	int cols = in.w >= 150 && n > 1 ? 2 : 1, rows = (n + cols - 1) / cols;
	int ch = rest.h / rows, cw = (rest.w - (cols - 1) * 2) / cols;
	for (int k = 0; k < n; k++) {
		int col = k % cols, row = k / cols;
		int gap = ch >= 5 && row < rows - 1; /* a blank row between charts */
		xb_rect cr = {rest.x + col * (cw + 2), rest.y + row * ch, cw, ch - gap};
		if (row == rows - 1)
			cr.h = rest.h - row * ch;
		if (cr.h <= 0 || cr.w <= 0)
			continue;
		int i = which[k];
		wg_chart chart = {m->series[i], echo_charts[i].title, echo_charts[i].decimals,
				  echo_charts[i].from_zero};
		wg_chart_draw(c, cr, &chart);
	}
}

static int echoes_command(void *st, const xb_model *m, const char *verb, const char *arg,
			  xb_panel_result *res)
{
	(void)st, (void)m, (void)verb, (void)arg;
	return res->flags = XB_PANEL_UNHANDLED;
}

static int echoes_mouse(void *st, const xb_model *m, xb_rect r, const xb_mouse *ev,
			xb_panel_result *res)
{
	(void)st, (void)m, (void)r, (void)ev;
	return res->flags = XB_PANEL_UNHANDLED;
}

const xb_panel_ops panel_echoes = {
	.name = "echoes",
	.title = "Echoes",
	.sorts = NULL,
	.modes = NULL,
	.create = echoes_create,
	.destroy = echoes_destroy,
	.draw = echoes_draw,
	.command = echoes_command,
	.mouse = echoes_mouse,
};
