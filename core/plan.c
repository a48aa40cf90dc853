/* plan: the layout planners (hot block, cache colouring, SRAM selection, name list) and the
 * predicted cost of a layout. */
#include "plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "plan_heat.h"
#include "plan_internal.h"

/* ---- SRAM selection ---- */

/* A function that runs without doing the work (an idle or busy-wait loop) gains nothing in
 * SRAM: it is hot in the idle window, or nearly all its samples sit on two lines. */
static int is_busy_wait(const xb_plan_input *in, int f)
{
	if (!in->prof)
		return 0;
	const xb_func_profile *fp = &in->prof->func[f];
	if (fp->busy <= 0)
		return 0;
	if (fp->idle >= 0.5 * fp->busy)
		return 1;
	return fp->lines_sampled <= 2 && fp->top2_share >= 0.9 &&
	       fp->busy >= 0.005 * in->prof->busy_total;
}

static const xb_heat *density_heat;
static const xb_image *density_img;
static int denser_first(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	double dx = density_heat->func[x] / (density_img->funcs[x].size ? density_img->funcs[x].size : 1);
	double dy = density_heat->func[y] / (density_img->funcs[y].size ? density_img->funcs[y].size : 1);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x - y;
}

/* Moves the densest functions (heat per byte) to SRAM within the budget; marks them in
 * in_sram. */
static void select_sram(const xb_plan_input *in, const xb_heat *h, const int *hot, size_t n,
			xb_layout *out, int8_t *in_sram)
{
	int *v = xmalloc((n + 1) * sizeof *v);
	memcpy(v, hot, n * sizeof *v);
	density_heat = h;
	density_img = in->img;
	qsort(v, n, sizeof *v, denser_first);
	density_heat = NULL;
	density_img = NULL;
	uint32_t used = 0;
	for (size_t k = 0; k < n; k++) {
		const xb_function *f = &in->img->funcs[v[k]];
		if (is_busy_wait(in, v[k]))
			continue;
		const xb_map_input *mi = &in->img->map.inputs[f->input];
		uint32_t end = plan_align_up(used, in->img->input_align[f->input]) + (uint32_t)mi->size;
		if (end > in->sram_budget)
			continue;
		used = end;
		in_sram[v[k]] = 1;
		layout_add(out, v[k], XB_PLACE_SRAM, 0);
	}
	free(v);
}

/* ---- planners ---- */

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
	int rc = body(in, &h, hot, n, &l, err);
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
	int8_t *in_sram = xcalloc(in->img->nfuncs + 1, 1);
	select_sram(in, h, hot, n, out, in_sram);
	int *rest = xmalloc((n + 1) * sizeof *rest);
	size_t nr = 0;
	for (size_t k = 0; k < n; k++)
		if (!in_sram[hot[k]])
			rest[nr++] = hot[k];
	int rc = plan_colour_or_pack(in, h, rest, nr, out, err);
	free(rest);
	free(in_sram);
	return rc;
}

static int body_names(const xb_plan_input *in, const xb_heat *h, const int *hot, size_t n,
		      xb_layout *out, xb_err *err)
{
	(void)err;
	int8_t *in_sram = xcalloc(in->img->nfuncs + 1, 1);
	select_sram(in, h, hot, n, out, in_sram);
	free(in_sram);
	return 0;
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

const xb_planner *const planners[] = {&plan_hot, &plan_colour, &plan_sram, &plan_names, NULL};

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
	set_load s;
	set_load_init(&s, in->tg, h->hot_threshold);
	const xb_function *f = NULL;
	for (size_t k = 0; k < h->nlines; k++) {
		if (!set_load_is_hot(&s, h->lines[k].heat))
			continue;
		uint32_t a = h->lines[k].line;
		if (!f || a + h->line_size <= f->addr || a >= f->addr + f->size) {
			f = image_function_at(in->img, a);
			if (!f)
				f = image_function_at(in->img, a + h->line_size - 2);
		}
		/* unsigned wrap-around keeps the line's offset from the function even when the
		 * line starts a little before it */
		uint32_t moved = f ? p->new_addr[f - in->img->funcs] + (a - f->addr) : a;
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
	set_load_free(&s);
	return score;
}

int plan_predict(const xb_plan_input *in, const xb_layout *l, xb_prediction *out, xb_err *err)
{
	memset(out, 0, sizeof *out);
	out->misses_per_echo = NAN;
	out->opt_bound_per_echo = NAN;
	out->conflict_score = NAN;
	xb_placement p;
	if (layout_place(in->img, in->tg, l, &p, err) != 0)
		return -1;
	out->extra_ram = p.extra_ram;
	out->pad_bytes = p.pad_bytes;
	out->hot_bytes = p.hot_end - p.hot_start;
	int rc = 0;
	if (in->trace) {
		out->model = "trace replay";
		xb_trace moved;
		layout_apply_trace(in->img, in->tg, &p, in->trace, &moved);
		xb_miss_classes mc;
		rc = classify_misses(in->tg, &moved, &mc, err);
		trace_free(&moved);
		if (rc == 0) {
			out->misses_per_echo = mc.replay.misses_per_echo;
			out->opt_bound_per_echo = mc.opt_misses_per_echo;
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
			out->conflict_score = plan_conflict_score(in, &h, &p, &out->sets_over_ways);
			heat_free(&h);
		}
	}
	placement_free(&p);
	return rc;
}
