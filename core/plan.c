/* plan: the layout planners (hot block, cache colouring, SRAM selection, name list) and the
 * predicted cost of a layout. */
#include "plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "plan_heat.h"

static uint32_t align_up(uint32_t v, uint32_t a)
{
	return a > 1 ? (v + a - 1) & ~(a - 1) : v;
}

static uint32_t log2u(uint32_t v)
{
	uint32_t r = 0;
	while (v > 1) {
		v >>= 1;
		r++;
	}
	return r;
}

/* Where the hot block starts: the placement of an empty layout says it. */
static int hot_block_start(const xb_plan_input *in, uint32_t *start, xb_err *err)
{
	xb_layout empty;
	layout_init(&empty);
	xb_placement p;
	int rc = layout_place(in->img, in->tg, &empty, &p, err);
	if (rc == 0) {
		*start = p.hot_start;
		placement_free(&p);
	}
	layout_free(&empty);
	return rc;
}

/* ---- cache colouring ---- */

/* How many often-executed lines each set holds, and their heat. Under LRU a set with more
 * such lines than ways misses on every one of them; one more line in a full set costs the
 * whole set, a line in an already thrashing set costs itself. */
typedef struct set_load {
	uint32_t nsets, ways, line_shift;
	uint32_t *count;
	double *heat;
	double threshold;
} set_load;

static void set_load_init(set_load *s, const xb_target *tg, double threshold)
{
	s->nsets = target_sets(tg);
	s->ways = tg->cache.ways;
	s->line_shift = log2u(tg->cache.line);
	s->count = xcalloc(s->nsets, sizeof *s->count);
	s->heat = xcalloc(s->nsets, sizeof *s->heat);
	s->threshold = threshold;
}

static void set_load_free(set_load *s)
{
	free(s->count);
	free(s->heat);
}

static int is_hot(const set_load *s, double h)
{
	return h > 0 && h >= s->threshold;
}

/* Added conflict cost of lines vec[0..n) starting at line number `line`; stops early once
 * the cost reaches `limit`. */
static double set_load_cost(const set_load *s, uint32_t line, const double *vec, size_t n,
			    double limit)
{
	double cost = 0;
	for (size_t j = 0; j < n && cost < limit; j++) {
		if (!is_hot(s, vec[j]))
			continue;
		uint32_t set = (line + (uint32_t)j) & (s->nsets - 1);
		if (s->count[set] == s->ways)
			cost += s->heat[set] + vec[j];
		else if (s->count[set] > s->ways)
			cost += vec[j];
	}
	return cost;
}

static void set_load_add(set_load *s, uint32_t line, const double *vec, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		if (!is_hot(s, vec[j]))
			continue;
		uint32_t set = (line + (uint32_t)j) & (s->nsets - 1);
		s->count[set]++;
		s->heat[set] += vec[j];
	}
}

/* The planning state of one function at the cursor: where it would start and its cost. */
typedef struct colour_try {
	uint32_t start;
	double cost;
	size_t nlines;
} colour_try;

/* Cost of placing funcs[k] right after the cursor, without colouring padding. */
static colour_try try_at_cursor(const xb_plan_input *in, const xb_heat *h, const set_load *s,
				int f, uint32_t cur, double *vec)
{
	const xb_image *img = in->img;
	const xb_function *fn = &img->funcs[f];
	const xb_map_input *mi = &img->map.inputs[fn->input];
	uint32_t fofs = fn->addr - (uint32_t)mi->addr;
	colour_try t = {.start = align_up(cur, img->input_align[fn->input])};
	t.nlines = heat_function_lines(h, f, t.start + fofs, vec);
	t.cost = set_load_cost(s, (t.start + fofs) >> s->line_shift, vec, t.nlines, INFINITY);
	return t;
}

/* Places funcs[0..n) (hottest first) one after another from the hot block's start. At the
 * cursor it takes the hottest of the next few functions that adds no conflict there; when
 * none does, the hottest one goes to the line start of the next way (within the padding
 * budget) where it adds the least conflict cost. Under LRU a set holding more often-executed
 * lines than ways misses on all of them, so the cost of a line in a full set is the whole
 * set, in an already thrashing set only the line itself. */
#define COLOUR_WINDOW 32
static int colour_functions(const xb_plan_input *in, const xb_heat *h, const int *funcs,
			    size_t n, xb_layout *out, xb_err *err)
{
	const xb_image *img = in->img;
	const xb_target *tg = in->tg;
	uint32_t cur;
	if (hot_block_start(in, &cur, err) != 0)
		return -1;
	uint32_t L = tg->cache.line, way = target_way_bytes(tg);
	set_load s;
	set_load_init(&s, tg, h->hot_threshold);
	size_t vcap = 0;
	double *vec = NULL;
	uint32_t budget = in->pad_budget;
	int8_t *done = xcalloc(n + 1, 1);
	int8_t *seen = xcalloc(img->map.ninputs + 1, 1);
	for (size_t k = 0; k < n; k++) {
		uint32_t need = (uint32_t)img->map.inputs[img->funcs[funcs[k]].input].size / L + 3;
		if (need > vcap)
			vcap = need;
		if (seen[img->funcs[funcs[k]].input])
			done[k] = 1; /* placed with another function of its input section */
		seen[img->funcs[funcs[k]].input] = 1;
	}
	vec = xmalloc((vcap + 1) * sizeof *vec);
	size_t first = 0;
	for (;;) {
		while (first < n && done[first])
			first++;
		if (first == n)
			break;
		/* a function that fits at the cursor as it is */
		size_t pick = n, seen_window = 0;
		colour_try t = {0};
		for (size_t k = first; k < n && seen_window < COLOUR_WINDOW; k++) {
			if (done[k])
				continue;
			seen_window++;
			t = try_at_cursor(in, h, &s, funcs[k], cur, vec);
			if (t.cost == 0) {
				pick = k;
				break;
			}
		}
		int f;
		uint32_t start;
		enum xb_place place = XB_PLACE_HOT;
		if (pick < n) {
			f = funcs[pick];
			start = t.start;
		} else {
			/* none fits: the hottest goes where it costs least */
			pick = first;
			f = funcs[pick];
			colour_try best = try_at_cursor(in, h, &s, f, cur, vec);
			start = best.start;
			const xb_function *fn = &img->funcs[f];
			uint32_t a = img->input_align[fn->input];
			uint32_t fofs = fn->addr - (uint32_t)img->map.inputs[fn->input].addr;
			uint32_t step = a > L ? a : L;
			uint32_t base = align_up(cur, step);
			size_t na = heat_function_lines(h, f, base + fofs, vec);
			for (uint32_t st = base; st < cur + way && st - cur <= budget; st += step) {
				double c = set_load_cost(&s, (st + fofs) >> s.line_shift, vec, na, best.cost);
				if (c < best.cost) {
					best.cost = c;
					start = st;
					if (c == 0)
						break;
				}
			}
			if (start != best.start) {
				place = XB_PLACE_COLOUR;
				budget -= start - cur;
			}
		}
		const xb_function *fn = &img->funcs[f];
		uint32_t fofs = fn->addr - (uint32_t)img->map.inputs[fn->input].addr;
		size_t nl = heat_function_lines(h, f, start + fofs, vec);
		set_load_add(&s, (start + fofs) >> s.line_shift, vec, nl);
		layout_add(out, f, place, place == XB_PLACE_COLOUR ? start & (way - 1) : 0);
		done[pick] = 1;
		cur = start + (uint32_t)img->map.inputs[fn->input].size;
	}
	free(done);
	free(seen);
	free(vec);
	set_load_free(&s);
	return 0;
}

/* The better of two layouts by the prediction: trace replay when there is a trace, else
 * the conflict model. Keeps *a (returns 0) or takes *b (returns 1). */
static int prefer_better(const xb_plan_input *in, xb_layout *a, xb_layout *b, xb_err *err)
{
	xb_prediction pa, pb;
	if (plan_predict(in, a, &pa, err) != 0 || plan_predict(in, b, &pb, err) != 0)
		return -1;
	double ca = in->trace ? pa.misses_per_echo : pa.conflict_score;
	double cb = in->trace ? pb.misses_per_echo : pb.conflict_score;
	if (cb < ca) {
		xb_layout t = *a;
		*a = *b;
		*b = t;
		return 1;
	}
	return 0;
}

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
		uint32_t end = align_up(used, in->img->input_align[f->input]) + (uint32_t)mi->size;
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

/* Colours funcs into out; when the result is predicted no better than the same functions
 * packed in order (nothing to gain from padding, e.g. every line equally hot and more of
 * them than the cache holds), the packed order is kept instead. */
static int colour_or_pack(const xb_plan_input *in, const xb_heat *h, const int *funcs,
			  size_t n, xb_layout *out, xb_err *err)
{
	size_t keep = out->n;
	xb_layout packed;
	layout_init(&packed);
	for (size_t i = 0; i < keep; i++)
		layout_add(&packed, out->e[i].func, out->e[i].place, out->e[i].way_offset);
	for (size_t k = 0; k < n; k++)
		layout_add(&packed, funcs[k], XB_PLACE_HOT, 0);
	int rc = colour_functions(in, h, funcs, n, out, err);
	if (rc == 0 && prefer_better(in, out, &packed, err) < 0)
		rc = -1;
	layout_free(&packed);
	return rc;
}

static int body_colour(const xb_plan_input *in, const xb_heat *h, const int *hot, size_t n,
		       xb_layout *out, xb_err *err)
{
	return colour_or_pack(in, h, hot, n, out, err);
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
	int rc = colour_or_pack(in, h, rest, nr, out, err);
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

/* The sample (or trace) conflict model at the layout's addresses. */
static void conflict_model(const xb_plan_input *in, const xb_heat *h, const xb_placement *p,
			   xb_prediction *out)
{
	set_load s;
	set_load_init(&s, in->tg, h->hot_threshold);
	double score = 0;
	const xb_function *f = NULL;
	for (size_t k = 0; k < h->nlines; k++) {
		if (!is_hot(&s, h->lines[k].heat))
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
	uint32_t over = 0;
	for (uint32_t i = 0; i < s.nsets; i++)
		if (s.count[i] > s.ways) {
			over++;
			score += s.heat[i];
		}
	out->sets_over_ways = over;
	out->conflict_score = score;
	set_load_free(&s);
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
			conflict_model(in, &h, &p, out);
			heat_free(&h);
		}
	}
	placement_free(&p);
	return rc;
}
