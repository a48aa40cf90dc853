/* plan_colour: cache colouring: each hot function padded to a start set so that few sets
 * hold more often-executed lines than the cache has ways. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

uint32_t plan_align_up(uint32_t v, uint32_t a)
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
int plan_hot_block_start(const xb_plan_input *in, uint32_t *start, xb_err *err)
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

void set_load_init(set_load *s, const xb_target *tg, double threshold)
{
	s->nsets = target_sets(tg);
	s->ways = tg->cache.ways;
	s->line_shift = log2u(tg->cache.line);
	s->count = xcalloc(s->nsets, sizeof *s->count);
	s->heat = xcalloc(s->nsets, sizeof *s->heat);
	s->threshold = threshold;
}

void set_load_free(set_load *s)
{
	free(s->count);
	free(s->heat);
}

int set_load_is_hot(const set_load *s, double h)
{
	return h > 0 && h >= s->threshold;
}

/* Added conflict cost of lines vec[0..n) starting at line number `line`; stops early once
 * the cost reaches `limit`. */
double set_load_cost(const set_load *s, uint32_t line, const double *vec, size_t n,
			    double limit)
{
	double cost = 0;
	for (size_t j = 0; j < n && cost < limit; j++) {
		if (!set_load_is_hot(s, vec[j]))
			continue;
		uint32_t set = (line + (uint32_t)j) & (s->nsets - 1);
		if (s->count[set] == s->ways)
			cost += s->heat[set] + vec[j];
		else if (s->count[set] > s->ways)
			cost += vec[j];
	}
	return cost;
}

void set_load_add(set_load *s, uint32_t line, const double *vec, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		if (!set_load_is_hot(s, vec[j]))
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
	colour_try t = {.start = plan_align_up(cur, img->input_align[fn->input])};
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
	if (plan_hot_block_start(in, &cur, err) != 0)
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
			uint32_t base = plan_align_up(cur, step);
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

/* Colours funcs into out; when the result is predicted no better than the same functions
 * packed in order (nothing to gain from padding, e.g. every line equally hot and more of
 * them than the cache holds), the packed order is kept instead. */
int plan_colour_or_pack(const xb_plan_input *in, const xb_heat *h, const int *funcs,
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

