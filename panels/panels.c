/* panels: the registry of panels in tab order, the frame they share, and an empty model. */
#include "panel.h"

#include <math.h>
#include <string.h>

const xb_panel_ops *const panels[] = {
	&panel_libraries, &panel_functions, &panel_cachesets, &panel_echoes,
	&panel_log,       &panel_layout,    &panel_compare,   &panel_triage,  &panel_help,
	NULL,
};

const xb_panel_ops *panel_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; panels[i]; i++)
		if (strcmp(panels[i]->name, name) == 0)
			return panels[i];
	return NULL;
}

xb_rect panel_frame(xb_canvas *c, xb_rect r, const char *title, int focused)
{
	r = rect_clip(r, canvas_bounds(c));
	canvas_fill(c, r, ' ', XB_EL_NORMAL);
	if (r.w < 2 || r.h < 2)
		return (xb_rect){r.x, r.y, 0, 0};
	canvas_box(c, r, focused ? XB_EL_BORDER_FOCUS : XB_EL_BORDER, title, XB_EL_TITLE);
	return rect_inset(r, 1);
}

void model_init(xb_model *m)
{
	memset(m, 0, sizeof *m);
	m->speed = m->ratio = m->bench_seconds = NAN;
	m->echo_rate = m->turnaround_ms = m->misses_per_echo = NAN;
	m->misses_per_s = m->idle_misses_per_s = m->hit_rate = m->loss = NAN;
	m->sample_rate = m->sweep_peak = NAN;
	m->flashed.measured = m->flashed.predicted = m->flashed.opt_bound = NAN;
	m->flashed.turnaround_ms = m->flashed.peak_udp = m->flashed.footprint = NAN;
	m->flashed.extra_ram = NAN;
	m->pending.misses_per_echo = m->pending.opt_bound_per_echo = NAN;
	m->pending.footprint_lines = NAN;
	m->loop_fraction = -1;
	m->loop_progress = m->loop_result = "";
	m->window = XB_WINDOW_10S;
}
