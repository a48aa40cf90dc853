/* plan: the layout planners (hot block, cache colouring, SRAM selection, name list) and the
 * predicted cost of a layout. */
#include "plan.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "plan_heat.h"
#include "plan_internal.h"
#include "snippet.h"

/* ---- planners ---- */

const char plan_why_unnamed[] = "no linker script rule can name its input section safely (a "
				"character GNU ld reads as a pattern or as script syntax, or an "
				"input it cannot tell apart); left out";

bool plan_nameable(const xb_image *img, const xb_function *f)
{
	xb_strbuf sb = {0};
	xb_err e;
	int rc = snippet_selector(img, f, &sb, &e);
	sb_free(&sb);
	return rc == 0;
}

typedef int (*plan_body)(const xb_plan_input *in, const xb_heat *h, const int *hot, size_t n,
			 xb_layout *out, xb_err *err);

static int run_planner(const xb_plan_input *in, const char *name, plan_body body,
		       xb_layout *out, xb_err *err)
{
	xb_heat h;
	if (heat_build(&h, in, err) != 0)
		return -1;
	int *hot;
	size_t n = heat_hot_functions(&h, &hot);
	xb_layout l;
	layout_init(&l);
	snprintf(l.strategy, sizeof l.strategy, "%s", name);
	/* a function no linker script rule can select is left out, with a note */
	size_t w = 0;
	int *unnamed = xmalloc((n + 1) * sizeof *unnamed);
	size_t nunnamed = 0;
	for (size_t k = 0; k < n; k++) {
		if (plan_nameable(in->img, &in->img->funcs[hot[k]]))
			hot[w++] = hot[k];
		else
			unnamed[nunnamed++] = hot[k];
	}
	n = w;
	int rc = body(in, &h, hot, n, &l, err);
	for (size_t k = 0; rc == 0 && k < nunnamed; k++)
		layout_refuse(&l, unnamed[k], plan_why_unnamed);
	free(unnamed);
	free(hot);
	heat_free(&h);
	if (rc != 0) {
		layout_free(&l);
		return -1;
	}
	layout_free(out);
	*out = l;
	return 0;
}

static int body_hot(const xb_plan_input *in, const xb_heat *h, const int *hot, size_t n,
		    xb_layout *out, xb_err *err)
{
	(void)in;
	(void)h;
	(void)err;
	for (size_t k = 0; k < n; k++)
		layout_add(out, hot[k], XB_PLACE_HOT, 0);
	return 0;
}

static int body_colour(const xb_plan_input *in, const xb_heat *h, const int *hot, size_t n,
		       xb_layout *out, xb_err *err)
{
	return plan_colour_or_pack(in, h, hot, n, out, err);
}

static int body_sram(const xb_plan_input *in, const xb_heat *h, const int *hot, size_t n,
		     xb_layout *out, xb_err *err)
{
	int8_t *in_sram = xcalloc(in->img->map.ninputs + 1, 1);
	int *rest = xmalloc((n + 1) * sizeof *rest);
	size_t nr = 0;
	int rc = plan_select_sram(in, h, hot, n, out, in_sram, err);
	for (size_t k = 0; rc == 0 && k < n; k++)
		if (!in_sram[in->img->funcs[hot[k]].input])
			rest[nr++] = hot[k];
	/* colouring makes a new layout: the refusals go over to it */
	xb_layout refused = *out;
	out->refused = NULL;
	out->nrefused = out->refused_cap = 0;
	if (rc == 0)
		rc = plan_colour_or_pack(in, h, rest, nr, out, err);
	free(out->refused);
	out->refused = refused.refused;
	out->nrefused = refused.nrefused;
	out->refused_cap = refused.refused_cap;
	free(rest);
	free(in_sram);
	return rc;
}

static int body_names(const xb_plan_input *in, const xb_heat *h, const int *hot, size_t n,
		      xb_layout *out, xb_err *err)
{
	int8_t *in_sram = xcalloc(in->img->map.ninputs + 1, 1);
	int rc = plan_select_sram(in, h, hot, n, out, in_sram, err);
	free(in_sram);
	return rc;
}

/* The study's non-allocating alias: the densest functions to SRAM within the budget, the
 * other sampled ones run through the alias that serves hits but never fills the cache,
 * so that they do not evict the dense code. */
static int body_noalloc(const xb_plan_input *in, const xb_heat *h, const int *hot, size_t n,
			xb_layout *out, xb_err *err)
{
	int8_t *in_sram = xcalloc(in->img->map.ninputs + 1, 1);
	int rc = plan_select_sram(in, h, hot, n, out, in_sram, err);
	/* a build whose script has no no-allocate section (Zephyr's, pico-sdk's) keeps the
	 * rest where it is, and the plan says why */
	bool have_alias = image_marker(in->img, "__xipbench_noalloc_start") >= 0;
	for (size_t k = 0; rc == 0 && k < n; k++) {
		const xb_function *f = &in->img->funcs[hot[k]];
		if (f->input >= 0 && !in_sram[f->input] && f->region == XB_REGION_FLASH) {
			in_sram[f->input] = 1; /* once per input section */
			if (have_alias)
				layout_add(out, hot[k], XB_PLACE_NOALLOC, 0);
			else
				layout_refuse(out, hot[k], "no no-allocate section in this build's "
							  "linker script (xipbench_noalloc.ld)");
		}
	}
	free(in_sram);
	return rc;
}

static int plan_run_hot(const xb_plan_input *in, xb_layout *out, xb_err *err)
{
	return run_planner(in, "hot", body_hot, out, err);
}

static int plan_run_colour(const xb_plan_input *in, xb_layout *out, xb_err *err)
{
	return run_planner(in, "colour", body_colour, out, err);
}

static int plan_run_sram(const xb_plan_input *in, xb_layout *out, xb_err *err)
{
	return run_planner(in, "sram", body_sram, out, err);
}

static int plan_run_names(const xb_plan_input *in, xb_layout *out, xb_err *err)
{
	return run_planner(in, "names", body_names, out, err);
}

static int plan_run_noalloc(const xb_plan_input *in, xb_layout *out, xb_err *err)
{
	return run_planner(in, "noalloc", body_noalloc, out, err);
}

const xb_planner plan_hot = {
	.name = "hot",
	.summary = "sampled functions in one block after the vector table, hottest first",
	.plan = plan_run_hot,
};
const xb_planner plan_colour = {
	.name = "colour",
	.summary = "each hot function padded to a start set so few sets hold more than "
		   "'ways' often-executed lines",
	.plan = plan_run_colour,
};
const xb_planner plan_sram = {
	.name = "sram",
	.summary = "densest functions (samples per byte) to SRAM within a budget, the rest coloured",
	.plan = plan_run_sram,
};
const xb_planner plan_names = {
	.name = "names",
	.summary = "only the SRAM name list (reusable across builds), no colouring",
	.plan = plan_run_names,
};

const xb_planner plan_noalloc = {
	.name = "noalloc",
	.summary = "densest functions to SRAM within a budget, the other sampled ones through "
		   "the non-allocating flash alias (needs the script's no-allocate section)",
	.plan = plan_run_noalloc,
};

const xb_planner *const planners[] = {&plan_hot, &plan_colour, &plan_sram, &plan_names,
				      &plan_noalloc, NULL};

const xb_planner *plan_find(const char *name)
{
	for (int i = 0; planners[i]; i++)
		if (strcmp(planners[i]->name, name) == 0)
			return planners[i];
	if (strcmp(name, "color") == 0)
		return &plan_colour;
	return NULL;
}

/* ---- prediction ---- */

double plan_conflict_score(const xb_plan_input *in, const xb_heat *h, const xb_placement *p,
			   uint32_t *sets_over_ways)
{
	return plan_conflict_sets(in, h, p, sets_over_ways, NULL, NULL);
}

double plan_conflict_sets(const xb_plan_input *in, const xb_heat *h, const xb_placement *p,
			  uint32_t *sets_over_ways, uint32_t *count, double *heat)
{
	long hint = -1; /* the lines come in address order */
	set_load s;
	set_load_init(&s, in->tg, h->hot_threshold);
	for (size_t k = 0; k < h->nlines; k++) {
		if (!set_load_is_hot(&s, h->lines[k].heat))
			continue;
		/* a line that starts in a gap moves with the section it ends in */
		uint32_t a = h->lines[k].line;
		long mi = mapfile_input_near(&in->img->map, a, &hint);
		uint32_t moved = mi >= 0 || mapfile_input_near(&in->img->map, a + h->line_size - 2,
							       &hint) < 0
			? placement_move_near(in->img, p, a, &hint)
			: placement_move_near(in->img, p, a + h->line_size - 2, &hint) -
				  (h->line_size - 2);
		const xb_region *r = target_region_of(in->tg, moved);
		if (!r || r->kind != XB_REGION_FLASH)
			continue;
		uint32_t set = target_set_of(in->tg, moved);
		s.count[set]++;
		s.heat[set] += h->lines[k].heat;
	}
	double score = 0;
	uint32_t over = 0;
	for (uint32_t i = 0; i < s.nsets; i++)
		if (s.count[i] > s.ways) {
			over++;
			score += s.heat[i];
		}
	if (sets_over_ways)
		*sets_over_ways = over;
	if (count)
		memcpy(count, s.count, s.nsets * sizeof *count);
	if (heat)
		memcpy(heat, s.heat, s.nsets * sizeof *heat);
	set_load_free(&s);
	return score;
}

/* Misses in addr[from, to) of t after a warm-up of addr[0, from). */
static int misses_between(const xb_target *tg, const xb_trace *t, size_t from, size_t to,
			  uint64_t *misses, xb_err *err)
{
	xb_trace view = {.addr = t->addr, .n = to, .echo = &from, .necho = 1};
	xb_replay r;
	if (replay_trace(tg, &view, &r, err) != 0)
		return -1;
	*misses = r.misses;
	return 0;
}

int plan_window_misses(const xb_target *tg, const xb_trace *t, double *per_echo, xb_err *err)
{
	size_t idle = SIZE_MAX, traffic = SIZE_MAX, e = 0;
	uint64_t misses = 0, echoes = 0;
	int64_t idle_misses = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->addr[i] == XB_TRACE_MARK_IDLE) {
			idle = i;
		} else if (t->addr[i] == XB_TRACE_MARK_TRAFFIC) {
			traffic = i;
		} else if (t->addr[i] == XB_TRACE_MARK_END && traffic != SIZE_MAX) {
			uint64_t m, q = 0;
			if (misses_between(tg, t, traffic, i, &m, err) != 0 ||
			    (idle != SIZE_MAX && misses_between(tg, t, idle, traffic, &q, err) != 0))
				return -1;
			misses += m;
			idle_misses += (int64_t)q;
			while (e < t->necho && t->echo[e] < traffic)
				e++;
			for (; e < t->necho && t->echo[e] < i; e++)
				echoes++;
			idle = traffic = SIZE_MAX;
		}
	}
	if (!echoes)
		return 1;
	*per_echo = ((double)misses - (double)idle_misses) / (double)echoes;
	return 0;
}

int plan_place(const xb_plan_input *in, const xb_layout *l, xb_placement *p, xb_err *err)
{
	return layout_place_calls(in->img, in->tg, l, in->calls, p, err);
}

double plan_footprint(const xb_target *tg, const xb_trace *t)
{
	uint32_t line = tg->cache.line ? tg->cache.line : 8;
	size_t nlines = tg->flash_size / line + 1;
	uint32_t *stamp = xcalloc(nlines, sizeof *stamp); /* the last echo that touched a line */
	int marks = 0, in_traffic = 0;
	for (size_t i = 0; i < t->n && !marks; i++)
		marks = t->addr[i] == XB_TRACE_MARK_TRAFFIC;
	double lines = 0;
	size_t echoes = 0, at = 0;
	for (size_t e = 0; e < trace_echo_count(t); e++) {
		size_t b, end;
		trace_echo_range(t, e, &b, &end);
		for (; at < b; at++) /* the window marks before the echo */
			if (t->addr[at] == XB_TRACE_MARK_TRAFFIC || t->addr[at] == XB_TRACE_MARK_IDLE ||
			    t->addr[at] == XB_TRACE_MARK_END)
				in_traffic = t->addr[at] == XB_TRACE_MARK_TRAFFIC;
		int counted = !marks || in_traffic;
		size_t distinct = 0;
		for (size_t i = b; i < end; i++) {
			uint32_t a = t->addr[i], off;
			enum xb_alias_mode mode;
			if (a == XB_TRACE_MARK_TRAFFIC || a == XB_TRACE_MARK_IDLE || a == XB_TRACE_MARK_END) {
				in_traffic = a == XB_TRACE_MARK_TRAFFIC;
				continue;
			}
			if (!counted || !target_decode_xip(tg, a, &off, &mode) ||
			    mode == XB_ALIAS_UNCACHED_NOALLOC || off / line >= nlines)
				continue;
			if (stamp[off / line] != e + 1) {
				stamp[off / line] = (uint32_t)e + 1;
				distinct++;
			}
		}
		at = end;
		if (counted) {
			lines += (double)distinct;
			echoes++;
		}
	}
	free(stamp);
	return echoes ? lines / (double)echoes : NAN;
}

static void prediction_clear(xb_prediction *out)
{
	memset(out, 0, sizeof *out);
	out->misses_per_echo = NAN;
	out->opt_bound_per_echo = NAN;
	out->conflict_score = NAN;
	out->footprint_lines = NAN;
}

int plan_predict(const xb_plan_input *in, const xb_layout *l, xb_prediction *out, xb_err *err)
{
	prediction_clear(out);
	xb_placement p;
	if (plan_place(in, l, &p, err) != 0)
		return -1;
	int rc = plan_predict_placed(in, &p, out, err);
	placement_free(&p);
	return rc;
}

int plan_predict_placed(const xb_plan_input *in, const xb_placement *pl, xb_prediction *out,
			xb_err *err)
{
	prediction_clear(out);
	const xb_placement *p = pl;
	out->extra_ram = p->extra_ram;
	out->pad_bytes = p->pad_bytes;
	out->hot_bytes = p->hot_end - p->hot_start;
	out->veneer_bytes_flash = p->veneer_bytes_flash;
	out->veneer_bytes_ram = p->veneer_bytes_ram;
	int rc = 0;
	if (in->trace) {
		out->model = "trace replay";
		xb_trace moved;
		layout_apply_trace(in->img, in->tg, p, in->trace, &moved);
		out->footprint_lines = plan_footprint(in->tg, &moved);
		xb_miss_classes mc;
		rc = classify_misses(in->tg, &moved, &mc, err);
		double windowed;
		int w = rc == 0 ? plan_window_misses(in->tg, &moved, &windowed, err) : 0;
		if (w < 0)
			rc = -1;
		trace_free(&moved);
		if (rc == 0) {
			out->misses_per_echo = w == 0 ? windowed : mc.replay.misses_per_echo;
			out->opt_bound_per_echo = mc.opt_misses_per_echo;
			if (w == 0) {
				/* counted as measured (idle windows subtracted): the misses OPT
				 * saves over the echoes come off the prediction */
				out->model = "trace replay, measurement windows";
				double saved = mc.replay.misses_per_echo - mc.opt_misses_per_echo;
				out->opt_bound_per_echo = windowed - saved > 0 ? windowed - saved : 0;
			}
			out->compulsory = mc.compulsory;
			out->capacity = mc.capacity;
			out->conflict = mc.conflict;
		}
	} else {
		out->model = "sample conflict model";
	}
	if (rc == 0 && (in->trace || in->prof)) {
		xb_heat h;
		rc = heat_build(&h, in, err);
		if (rc == 0) {
			out->conflict_score = plan_conflict_score(in, &h, p, &out->sets_over_ways);
			heat_free(&h);
		}
	}
	return rc;
}
