/* caption: the demo's captions: text whose {placeholders} are replaced by figures measured
 * (or predicted) on the bench at the moment the caption is drawn, so that a caption never
 * states a number that was not measured; and the box that shows it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

/* The latest run named `layout`, or NULL. */
static const xb_run *run_named(const xb_model *m, const char *layout)
{
	for (size_t i = m->nruns; i-- > 0;)
		if (m->runs[i]->layout && strcmp(m->runs[i]->layout, layout) == 0)
			return m->runs[i];
	return NULL;
}

/* A run's figure by name, NaN when unknown. */
static double run_field(const xb_run *r, const char *f)
{
	if (!r)
		return NAN;
	if (strcmp(f, "misses_per_echo") == 0)
		return r->misses_per_echo;
	if (strcmp(f, "predicted") == 0)
		return r->predicted_misses_per_echo;
	if (strcmp(f, "opt_bound") == 0)
		return r->opt_bound_misses_per_echo;
	if (strcmp(f, "turnaround") == 0)
		return r->turnaround_ms;
	if (strcmp(f, "peak_udp") == 0)
		return r->peak_udp_echo_per_s;
	if (strcmp(f, "footprint") == 0)
		return r->footprint_lines;
	if (strcmp(f, "extra_ram_kb") == 0)
		return r->extra_ram_bytes < 0 ? NAN : (double)r->extra_ram_bytes / 1024;
	return NAN;
}

static uint32_t sets_over(const xb_setmap *s)
{
	return s ? s->sets_over : 0;
}

/* One placeholder's value as text; 0 when the name is not known. */
static int value(const xb_model *m, const char *name, char *out, size_t cap)
{
	double v = NAN;
	int decimals = 0;
	if (strncmp(name, "run:", 4) == 0) {
		char layout[64];
		const char *dot = strrchr(name, '.');
		if (!dot || dot - name - 4 >= (long)sizeof layout)
			return 0;
		snprintf(layout, sizeof layout, "%.*s", (int)(dot - name - 4), name + 4);
		v = run_field(run_named(m, layout), dot + 1);
		decimals = strcmp(dot + 1, "turnaround") == 0 ? 3 : strstr(dot + 1, "_kb") ? 1 : 0;
	} else if (strcmp(name, "cache.lines") == 0) {
		v = m->tg ? (double)m->tg->cache.size / m->tg->cache.line : NAN;
	} else if (strcmp(name, "cache.kb") == 0) {
		v = m->tg ? (double)m->tg->cache.size / 1024 : NAN;
	} else if (strcmp(name, "sets.over") == 0) {
		v = m->sets ? sets_over(m->sets) : NAN;
	} else if (strcmp(name, "pending.sets_over") == 0) {
		v = m->pending_sets ? sets_over(m->pending_sets) : NAN;
	} else if (strcmp(name, "pending.misses_per_echo") == 0) {
		v = m->pending.model ? m->pending.misses_per_echo : NAN;
	} else if (strcmp(name, "pending.extra_ram_kb") == 0) {
		v = m->pending.model ? m->pending.extra_ram / 1024.0 : NAN;
		decimals = 1;
	} else if (strcmp(name, "live.misses_per_echo") == 0) {
		v = m->misses_per_echo;
	} else if (strcmp(name, "live.turnaround") == 0) {
		v = m->turnaround_ms;
		decimals = 3;
	} else {
		return 0;
	}
	if (isnan(v))
		snprintf(out, cap, "?");
	else if (!decimals && fabs(v) >= 1000)
		snprintf(out, cap, "%.0f,%03.0f", floor(v / 1000), fmod(round(v), 1000));
	else
		snprintf(out, cap, "%.*f", decimals, v);
	return 1;
}

void caption_expand(const xb_model *m, const char *text, char *out, size_t cap)
{
	size_t k = 0;
	for (const char *p = text; *p && k + 1 < cap;) {
		const char *end = *p == '{' ? strchr(p, '}') : NULL;
		if (end && end - p - 1 < 64) {
			char name[64], v[32];
			snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
			if (value(m, name, v, sizeof v)) {
				k += (size_t)snprintf(out + k, cap - k, "%s", v);
				if (k >= cap)
					k = cap - 1;
				p = end + 1;
				continue;
			}
		}
		out[k++] = *p++;
	}
	out[k] = 0;
}

int caption_check(const char *text, char *why, size_t cap)
{
	static const xb_model empty;
	for (const char *p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
		const char *end = strchr(p, '}');
		char name[64], v[32];
		if (!end || end - p - 1 >= 64) {
			snprintf(why, cap, "a '{' without its '}'");
			return -1;
		}
		snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
		if (!value(&empty, name, v, sizeof v)) {
			snprintf(why, cap, "no figure '{%s}' (run:NAME.misses_per_echo, .predicted, "
				 ".opt_bound, .turnaround, .peak_udp, .footprint, .extra_ram_kb; "
				 "cache.lines, cache.kb, sets.over, pending.sets_over, "
				 "pending.misses_per_echo, pending.extra_ram_kb, live.misses_per_echo, "
				 "live.turnaround)", name);
			return -1;
		}
	}
	return 0;
}

int caption_draw(xb_app *a, xb_rect area)
{
	if (!a->caption[0] || area.h < 8)
		return 0;
	char text[1024];
	caption_expand(&a->model, a->caption, text, sizeof text);
	int inner = area.w - 4 > 10 ? area.w - 4 : 10;
	int lines = (int)(strlen(text) / (size_t)inner) + 1;
	if (lines > 3)
		lines = 3;
	int h = lines + 2;
	xb_rect r = {area.x, area.y + area.h - h, area.w, h};
	canvas_fill(a->cv, r, ' ', XB_EL_NORMAL);
	canvas_box(a->cv, r, XB_EL_BORDER_FOCUS, a->script_paused ? "Demo (paused: Space goes "
			 "on, n steps)" : "Demo (Space pauses)", XB_EL_TITLE);
	const char *p = text;
	for (int y = 0; y < lines && *p; y++) {
		size_t n = strlen(p);
		if ((int)n > inner) { /* break at a space */
			n = (size_t)inner;
			while (n > 0 && p[n] != ' ')
				n--;
			if (n == 0)
				n = (size_t)inner;
		}
		char line[1024];
		snprintf(line, sizeof line, "%.*s", (int)n, p);
		canvas_text(a->cv, r.x + 2, r.y + 1 + y, inner, XB_EL_NORMAL, line);
		p += n;
		while (*p == ' ')
			p++;
	}
	return h;
}
