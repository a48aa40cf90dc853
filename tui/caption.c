/* caption: the demo's captions: text whose {placeholders} are replaced by figures measured
 * (or predicted) on the bench at the moment the caption is drawn, so that a caption never
 * states a number that was not measured; and the box that shows it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../panels/widgets.h"
#include "app.h"

/* The latest run named `layout`, or NULL. */
static const xb_run *run_named(const xb_model *m, const char *layout)
{
	for (size_t i = m->nruns; i-- > 0;)
		if (m->runs[i]->layout && strcmp(m->runs[i]->layout, layout) == 0)
			return m->runs[i];
	return NULL;
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
		int k = export_metric_find(dot + 1);
		if (k < 0)
			return 0;
		const xb_run *r = run_named(m, layout);
		v = r ? export_metric(r, k) : NAN;
		/* counts as whole numbers, times in ms to the µs, sizes in KB to a tenth */
		decimals = k == XB_METRIC_TURNAROUND ? 3 : k == XB_METRIC_EXTRA_RAM_KB ? 1 : 0;
	} else if (strcmp(name, "cache.lines") == 0) {
		v = m->tg ? (double)target_cache_lines(m->tg) : NAN;
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
		xb_grouped(out, cap, v);
	else
		snprintf(out, cap, "%.*f", decimals, v);
	return 1;
}

/* The placeholder "{NAME}" at p: its closing '}' with NAME in name, or NULL (no '}', or a
 * name too long). */
static const char *placeholder(const char *p, char name[64])
{
	const char *end = strchr(p, '}');
	if (!end || end - p - 1 >= 64)
		return NULL;
	snprintf(name, 64, "%.*s", (int)(end - p - 1), p + 1);
	return end;
}

void caption_expand(const xb_model *m, const char *text, char *out, size_t cap)
{
	size_t k = 0;
	for (const char *p = text; *p && k + 1 < cap;) {
		char name[64], v[32];
		const char *end = *p == '{' ? placeholder(p, name) : NULL;
		if (end) {
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
		char name[64], v[32];
		if (!placeholder(p, name)) {
			snprintf(why, cap, "a '{' without its '}'");
			return -1;
		}
		if (!value(&empty, name, v, sizeof v)) {
			char keys[256];
			size_t k = 0;
			for (int i = 0; i < XB_METRICS && k < sizeof keys; i++)
				k += (size_t)snprintf(keys + k, sizeof keys - k, "%s.%s",
						      i ? ", " : "run:NAME", export_metric_key(i));
			snprintf(why, cap, "no figure '{%s}' (%s; cache.lines, cache.kb, sets.over, "
				 "pending.sets_over, pending.misses_per_echo, pending.extra_ram_kb, "
				 "live.misses_per_echo, live.turnaround)", name, keys);
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
	/* at most 3 lines, broken at blanks */
	const char *start[3];
	size_t len[3];
	int lines = 0;
	for (const char *p = text; *p && lines < 3;) {
		int last;
		size_t n = wg_wrap(p, inner, &last);
		start[lines] = p;
		len[lines++] = n;
		p += n;
		while (*p == ' ')
			p++;
	}
	int h = (lines ? lines : 1) + 2;
	xb_rect r = {area.x, area.y + area.h - h, area.w, h};
	canvas_fill(a->cv, r, ' ', XB_EL_NORMAL);
	canvas_box(a->cv, r, XB_EL_BORDER_FOCUS, a->script_paused ? "Demo (paused: Space goes "
			 "on, n steps)" : "Demo (Space pauses)", XB_EL_TITLE);
	for (int y = 0; y < lines; y++) {
		char line[1024];
		snprintf(line, sizeof line, "%.*s", (int)len[y], start[y]);
		canvas_text(a->cv, r.x + 2, r.y + 1 + y, inner, XB_EL_NORMAL, line);
	}
	return h;
}
