/* plan_colour: cache colouring: hot functions placed, with padding, so that few sets hold
 * more often-executed lines than the cache has ways, and the lines that cannot fit piled
 * onto a few sacrificed sets. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include <time.h>
static double tnow(void){struct timespec ts;clock_gettime(CLOCK_MONOTONIC,&ts);return ts.tv_sec+ts.tv_nsec*1e-9;}
static double t_walk, t_place, t_score;
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

/* ---- set load ---- */

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

/* ---- what is placed: input sections and the shape of their executed lines ---- */

/* One input section to place, named by its hottest function. */
typedef struct colour_func {
	int f;
	int input;
	uint32_t size, align;
	double heat, density;  /* heat of its functions; heat per line of its size */
} colour_func;

/* A section that never runs, to put where padding would go. */
typedef struct colour_filler {
	int f;
	uint32_t size, align;
} colour_filler;

typedef struct hot_line {
	uint32_t j;            /* line index relative to the section's first line */
	double heat;
} hot_line;

/* The lines of each section that run, for each offset of its start within a line; built on
 * first use, shared by every candidate layout. */
typedef struct colour_shapes {
	const xb_plan_input *in;
	const xb_heat *h;
	const colour_func *cf;
	uint32_t line;
	int *first_func, *next_func;  /* functions of each input section, a list per section */
	size_t *at;                   /* per (section, offset): index into pool + 1, 0: not built */
	uint32_t *len;
	hot_line *pool;
	size_t npool, cap;
	double *vec, *one;
	colour_filler *fill;          /* largest first */
	size_t nfill;
} colour_shapes;

static void shapes_init(colour_shapes *s, const xb_plan_input *in, const xb_heat *h,
			const colour_func *cf, size_t n)
{
	const xb_image *img = in->img;
	memset(s, 0, sizeof *s);
	s->in = in;
	s->h = h;
	s->cf = cf;
	s->line = h->line_size;
	s->first_func = xmalloc((img->map.ninputs + 1) * sizeof *s->first_func);
	s->next_func = xmalloc((img->nfuncs + 1) * sizeof *s->next_func);
	for (size_t i = 0; i < img->map.ninputs; i++)
		s->first_func[i] = -1;
	size_t longest = 0;
	for (size_t i = img->nfuncs; i-- > 0;) {
		const xb_function *f = &img->funcs[i];
		if (f->alias_of >= 0 || f->input < 0)
			continue;
		s->next_func[i] = s->first_func[f->input];
		s->first_func[f->input] = (int)i;
	}
	for (size_t k = 0; k < n; k++)
		if (cf[k].size > longest)
			longest = cf[k].size;
	s->at = xcalloc(n * s->line + 1, sizeof *s->at);
	s->len = xcalloc(n * s->line + 1, sizeof *s->len);
	s->vec = xcalloc(longest / s->line + 3, sizeof *s->vec);
	s->one = xmalloc((longest / s->line + 3) * sizeof *s->one);
}

static void shapes_free(colour_shapes *s)
{
	free(s->first_func);
	free(s->next_func);
	free(s->at);
	free(s->len);
	free(s->pool);
	free(s->vec);
	free(s->one);
	free(s->fill);
}

/* The executed lines of section k when it starts `offset` bytes into a line: the lines of
 * all its functions (a section may hold several). */
static const hot_line *shape(colour_shapes *s, size_t k, uint32_t offset, uint32_t *len)
{
	size_t slot = k * s->line + offset;
	if (!s->at[slot]) {
		const colour_func *c = &s->cf[k];
		const xb_image *img = s->in->img;
		size_t nl = (offset + c->size + s->line - 1) / s->line + 1;
		memset(s->vec, 0, nl * sizeof *s->vec);
		uint32_t base = (uint32_t)img->map.inputs[c->input].addr;
		for (int g = s->first_func[c->input]; g >= 0; g = s->next_func[g]) {
			uint32_t start = offset + (img->funcs[g].addr - base);
			size_t m = heat_function_lines(s->h, g, start, s->one);
			size_t j0 = start / s->line;
			for (size_t j = 0; j < m && j0 + j < nl; j++)
				if (s->one[j] > s->vec[j0 + j])
					s->vec[j0 + j] = s->one[j];
		}
		uint32_t count = 0;
		for (size_t j = 0; j < nl; j++)
			count += s->vec[j] > 0;
		xb_grow(&s->pool, &s->cap, s->npool + count + 1, sizeof *s->pool);
		s->at[slot] = s->npool + 1;
		s->len[slot] = count;
		for (size_t j = 0; j < nl; j++)
			if (s->vec[j] > 0)
				s->pool[s->npool++] = (hot_line){.j = (uint32_t)j, .heat = s->vec[j]};
	}
	*len = s->len[slot];
	return &s->pool[s->at[slot] - 1];
}

/* ---- one candidate layout: a walk through the address space ---- */

/* What varies between candidate layouts. */
typedef struct colour_params {
	uint32_t window;    /* sets sacrificed in every way for what cannot fit; 0: none */
	int by_heat;        /* priority by heat, not by heat per line */
	double threshold;   /* a line at or above it takes a way */
} colour_params;

typedef struct colour_walk {
	colour_shapes *sh;
	const size_t *order;           /* sections by priority */
	size_t n;
	set_load s;
	uint32_t line, way, nsets;
	uint32_t win_first, win_sets;  /* sacrificed sets [win_first, win_first + win_sets) */
	uint32_t end;                  /* end of the last placed section */
	uint32_t pos;                  /* where the walk looks next (>= end) */
	uint32_t pad_left, pad_used;
	uint32_t *start;               /* per order index: where it went */
	uint32_t *to_free;             /* see find_free_sets */
	uint32_t nfree;                /* ordinary sets with room for another line */
	size_t *fill_next;             /* see filler_unused */
	xb_layout *out;
} colour_walk;

#define LOOKAHEAD 64   /* sections tried at the walk's position */
#define SEARCH 64      /* sections looked for further ahead */

static int in_window(const colour_walk *w, uint32_t set)
{
	return ((set - w->win_first) & (w->nsets - 1)) < w->win_sets;
}

static uint32_t set_at(const colour_walk *w, uint32_t a)
{
	return (a >> w->s.line_shift) & (w->nsets - 1);
}

/* The first address >= a in the window. */
static uint32_t next_window(const colour_walk *w, uint32_t a)
{
	uint32_t set = set_at(w, a);
	if (in_window(w, set))
		return a;
	return (a & ~(w->line - 1)) + ((w->win_first - set) & (w->nsets - 1)) * w->line;
}

/* The first address after the window that holds a. */
static uint32_t window_end(const colour_walk *w, uint32_t a)
{
	uint32_t d = (set_at(w, a) - w->win_first) & (w->nsets - 1);
	return (a & ~(w->line - 1)) + (w->win_sets - d) * w->line;
}

/* Can a line go to set: not sacrificed, and fewer than `ways` lines there. */
static int set_free(const colour_walk *w, uint32_t set)
{
	return !(w->win_sets && in_window(w, set)) && w->s.count[set] < w->s.ways;
}

/* Does section k fit at start: no executed line on a set that already holds `ways` of
 * them, and none on a sacrificed set unless `spill`. */
static int fits_at(colour_walk *w, size_t k, uint32_t start, int spill)
{
	uint32_t n;
	const hot_line *v = shape(w->sh, w->order[k], start & (w->line - 1), &n);
	uint32_t line = start >> w->s.line_shift;
	for (uint32_t i = 0; i < n; i++) {
		if (!set_load_is_hot(&w->s, v[i].heat))
			continue;
		uint32_t set = (line + v[i].j) & (w->nsets - 1);
		if (w->win_sets && in_window(w, set)) {
			if (!spill)
				return 0;
		} else if (w->s.count[set] >= w->s.ways) {
			return 0;
		}
	}
	return 1;
}

/* Added conflict of section k at start (the set_load cost), stopping at limit. */
static double cost_at(colour_walk *w, size_t k, uint32_t start, double limit)
{
	uint32_t n;
	const hot_line *v = shape(w->sh, w->order[k], start & (w->line - 1), &n);
	uint32_t line = start >> w->s.line_shift;
	double cost = 0;
	for (uint32_t i = 0; i < n && cost < limit; i++) {
		if (!set_load_is_hot(&w->s, v[i].heat))
			continue;
		uint32_t set = (line + v[i].j) & (w->nsets - 1);
		if (w->s.count[set] == w->s.ways)
			cost += w->s.heat[set] + v[i].heat;
		else if (w->s.count[set] > w->s.ways)
			cost += v[i].heat;
	}
	return cost;
}

/* Can one colour entry pad from the last section's end to start (less than a way)? */
/* The first filler at or after i not used yet (nfill if none). */
static size_t filler_unused(colour_walk *w, size_t i)
{
	while (w->fill_next[i] != i) {
		w->fill_next[i] = w->fill_next[w->fill_next[i]];
		i = w->fill_next[i];
	}
	return i;
}

/* Lays fillers from end towards start, largest that fits first, and returns where they
 * end; for real (entries made) when commit is set, else only to see what padding would
 * remain. */
static uint32_t fill_gap(colour_walk *w, uint32_t end, uint32_t start, int commit)
{
	const colour_filler *fill = w->sh->fill;
	size_t nfill = w->sh->nfill, from = 0;
	while (end < start) {
		size_t lo = from, hi = nfill;    /* first filler no larger than the gap */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (fill[mid].size > start - end)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t i = filler_unused(w, lo);
		uint32_t at = 0;
		for (; i < nfill; i = filler_unused(w, i + 1)) {
			at = plan_align_up(end, fill[i].align);
			if (at >= end && at + fill[i].size <= start)
				break;
		}
		if (i == nfill)
			break;
		if (commit) {
			w->fill_next[i] = i + 1;
			layout_add(w->out, fill[i].f, XB_PLACE_HOT, 0);
		}
		end = at + fill[i].size;
		from = i + 1;
	}
	return end;
}

/* Can one colour entry pad from the last section's end (after fillers) to start? */
static int can_reach(colour_walk *w, uint32_t start)
{
	if (start - w->end <= w->pad_left && start - w->end < w->way)
		return 1;
	if (!w->sh->nfill || start < w->end)
		return 0;
	uint32_t end = fill_gap(w, w->end, start, 0);
	return start - end <= w->pad_left && start - end < w->way;
}

static void walk_place(colour_walk *w, size_t k, uint32_t start)
{
	uint32_t n;
	const hot_line *v = shape(w->sh, w->order[k], start & (w->line - 1), &n);
	uint32_t line = start >> w->s.line_shift;
	for (uint32_t i = 0; i < n; i++) {
		if (!set_load_is_hot(&w->s, v[i].heat))
			continue;
		uint32_t set = (line + v[i].j) & (w->nsets - 1);
		if (w->s.count[set] + 1 == w->s.ways && set_free(w, set))
			w->nfree--;
		w->s.count[set]++;
		w->s.heat[set] += v[i].heat;
	}
	const colour_func *c = &w->sh->cf[w->order[k]];
	if (w->sh->nfill && start > plan_align_up(w->end, c->align))
		w->end = fill_gap(w, w->end, start, 1);
	int padded = start != plan_align_up(w->end, c->align);
	if (padded) {
		w->pad_left -= start - w->end;
		w->pad_used += start - w->end;
	}
	layout_add(w->out, c->f, padded ? XB_PLACE_COLOUR : XB_PLACE_HOT,
		   padded ? start & (w->way - 1) : 0);
	w->start[k] = start;
	w->end = start + c->size;
	w->pos = w->end;
}

static uint32_t align_of(const colour_walk *w, size_t k)
{
	return w->sh->cf[w->order[k]].align;
}

/* to_free[set]: how many sets on the next free one is (nsets: none is free). */
static void find_free_sets(colour_walk *w)
{
	uint32_t d = w->nsets;
	for (uint32_t pass = 0; pass < 2; pass++)
		for (uint32_t i = w->nsets; i-- > 0;) {
			d = set_free(w, i) ? 0 : (d < w->nsets ? d + 1 : d);
			w->to_free[i] = d;
		}
}

/* The first line-aligned start in [from, limit) where section k fits; limit if none. A
 * line that lands on a full set moves the search on to where that line would find a
 * free one (to_free, as find_free_sets left it). */
static uint32_t first_fit(colour_walk *w, size_t k, uint32_t from, uint32_t limit)
{
	uint32_t step = align_of(w, k) > w->line ? align_of(w, k) : w->line;
	uint32_t st = plan_align_up(from, step);
	uint32_t n;
	const hot_line *v = shape(w->sh, w->order[k], st & (w->line - 1), &n);
	while (st < limit) {
		uint32_t line = st >> w->s.line_shift, i = 0;
		for (; i < n; i++)
			if (set_load_is_hot(&w->s, v[i].heat) &&
			    !set_free(w, (line + v[i].j) & (w->nsets - 1)))
				break;
		if (i == n)
			return st;
		uint32_t d = w->to_free[(line + v[i].j) & (w->nsets - 1)];
		uint32_t next = plan_align_up(st + d * w->line, step);
		if (next <= st || d >= w->nsets)
			break;
		st = next;
	}
	return limit;
}

/* Without a window: the start of least added conflict within the next way. */
static uint32_t least_cost_start(colour_walk *w, size_t k)
{
	uint32_t start = plan_align_up(w->pos, align_of(w, k));
	double best = cost_at(w, k, start, INFINITY);
	uint32_t step = align_of(w, k) > w->line ? align_of(w, k) : w->line;
	for (uint32_t st = plan_align_up(w->pos, step);
	     best > 0 && st < w->pos + w->way && can_reach(w, st); st += step) {
		double c = cost_at(w, k, st, best);
		if (c < best) {
			best = c;
			start = st;
		}
	}
	return start;
}

/* The densest of the next LOOKAHEAD sections not done that fits at the walk's position
 * without touching the window; n if none. */
static size_t fit_here(colour_walk *w, const int8_t *done, size_t front, size_t back,
		       uint32_t *start)
{
	size_t tried = 0;
	for (size_t k = front; k < back && tried < LOOKAHEAD; k++) {
		if (done[k])
			continue;
		tried++;
		uint32_t st = plan_align_up(w->pos, align_of(w, k));
		if (can_reach(w, st) && fits_at(w, k, st, 0)) {
			*start = st;
			return k;
		}
	}
	return w->n;
}

/* In the window, of the LOOKAHEAD sparsest sections not done that fit at the walk's
 * position: the one reaching furthest past the window's end (its cold tail then lies on
 * ordinary sets, in room that would otherwise be padding), else the sparsest; n if none. */
static size_t fit_window(colour_walk *w, const int8_t *done, size_t front, size_t back,
			 uint32_t *start)
{
	size_t tried = 0, pick = w->n;
	uint32_t wend = window_end(w, w->pos), past = 0;
	for (size_t k = back; k-- > front && tried < LOOKAHEAD;) {
		if (done[k])
			continue;
		tried++;
		uint32_t st = plan_align_up(w->pos, align_of(w, k));
		if (!can_reach(w, st) || !fits_at(w, k, st, 1))
			continue;
		uint32_t end = st + w->sh->cf[w->order[k]].size;
		if (pick == w->n || (end > wend && end - wend > past)) {
			pick = k;
			*start = st;
			past = end > wend ? end - wend : 0;
		}
	}
	return pick;
}

/* The nearest start ahead, before the window, where one of the SEARCH densest sections
 * fits; n if none within reach. */
static size_t fit_ahead(colour_walk *w, const int8_t *done, size_t front, size_t back,
			uint32_t *start)
{
	uint32_t limit = w->win_sets ? next_window(w, w->pos + 1) : w->pos + w->way;
	uint32_t reach = w->end + (w->pad_left < w->way - 1 ? w->pad_left : w->way - 1);
	*start = limit < reach + 1 ? limit : reach + 1;
	find_free_sets(w);
	size_t tried = 0, pick = w->n;
	for (size_t k = front; k < back && tried < SEARCH; k++) {
		if (done[k])
			continue;
		tried++;
		uint32_t st = first_fit(w, k, w->pos, *start);
		if (st < *start) {
			*start = st;
			pick = k;
		}
	}
	return pick;
}

/* Places the sections (order[0..n) by priority) from the hot block's start. Ordinary sets
 * take the densest sections that fit, padding up to the nearest place where one fits; the
 * window (the sacrificed sets) takes the sparsest, whose lines miss there without evicting
 * lines that would hit; what the padding budget cannot place follows packed. */
static void walk_run(colour_walk *w)
{
	size_t n = w->n, front = 0, back = n, left = n;
	int8_t *done = xcalloc(n + 1, 1);
	while (left) {
		while (done[front])
			front++;
		while (done[back - 1])
			back--;
		uint32_t start = 0;
		size_t pick = n;
		if (w->win_sets && in_window(w, set_at(w, w->pos))) {
			pick = fit_window(w, done, front, back, &start);
			if (pick == n) {
				uint32_t next = window_end(w, w->pos);
				if (!can_reach(w, next))
					break;
				w->pos = next;
				continue;
			}
		} else if (w->nfree) {
			pick = fit_here(w, done, front, back, &start);
			if (pick == n)
				pick = fit_ahead(w, done, front, back, &start);
		}
		if (pick == n && w->win_sets) {
			uint32_t next = next_window(w, w->pos + 1);
			if (!can_reach(w, next))
				break;
			w->pos = next;
			continue;
		}
		if (pick == n) {
			/* no window: some conflict is the price of placing at all (with every set
			 * full, each start costs the same) */
			pick = front;
			start = w->nfree ? least_cost_start(w, pick)
					 : plan_align_up(w->pos, align_of(w, pick));
			if (!can_reach(w, start))
				start = plan_align_up(w->end, align_of(w, pick));
		}
		walk_place(w, pick, start);
		done[pick] = 1;
		left--;
	}
	/* out of padding: the rest packed, in priority order */
	for (size_t k = 0; k < n; k++)
		if (!done[k])
			walk_place(w, k, plan_align_up(w->end, align_of(w, k)));
	free(done);
}

/* ---- candidate layouts and the choice among them ---- */

typedef struct colour_candidate {
	colour_params p;
	xb_layout l;
	double score;      /* sample model: heat of the sets holding more lines than ways */
	double misses;     /* trace replay, when there is a trace */
	uint32_t pad;
} colour_candidate;

/* The sample model's score of the walk's placement: the heat of the sets that hold more
 * lines than ways, at the heat's own threshold. */
static double walk_score(colour_walk *w, double threshold)
{
	set_load s = w->s;
	if (threshold != w->s.threshold) {
		s.threshold = threshold;
		s.count = xcalloc(w->nsets, sizeof *s.count);
		s.heat = xcalloc(w->nsets, sizeof *s.heat);
		for (size_t k = 0; k < w->n; k++) {
			uint32_t n;
			const hot_line *v = shape(w->sh, w->order[k], w->start[k] & (w->line - 1), &n);
			uint32_t line = w->start[k] >> w->s.line_shift;
			for (uint32_t i = 0; i < n; i++) {
				if (!set_load_is_hot(&s, v[i].heat))
					continue;
				uint32_t set = (line + v[i].j) & (w->nsets - 1);
				s.count[set]++;
				s.heat[set] += v[i].heat;
			}
		}
	}
	double score = 0;
	for (uint32_t i = 0; i < w->nsets; i++)
		if (s.count[i] > s.ways)
			score += s.heat[i];
	if (threshold != w->s.threshold)
		set_load_free(&s);
	return score;
}

static const colour_func *sort_cf;
static int sort_by_heat;
static int priority_cmp(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = sort_by_heat ? sort_cf[i].heat : sort_cf[i].density;
	double y = sort_by_heat ? sort_cf[j].heat : sort_cf[j].density;
	if (x != y)
		return x > y ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* The sections to place, one per input section, named by their hottest function. */
static size_t colour_funcs(const xb_plan_input *in, const xb_heat *h, const int *funcs,
			   size_t n, colour_func *cf)
{
	const xb_image *img = in->img;
	int8_t *seen = xcalloc(img->map.ninputs + 1, 1);
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		const xb_function *fn = &img->funcs[funcs[k]];
		if (seen[fn->input])
			continue;
		seen[fn->input] = 1;
		colour_func *c = &cf[m++];
		c->f = funcs[k];
		c->input = fn->input;
		c->size = (uint32_t)img->map.inputs[fn->input].size;
		c->align = img->input_align[fn->input];
		c->heat = 0;
	}
	/* a section's heat is that of all its functions */
	double *sec = xcalloc(img->map.ninputs + 1, sizeof *sec);
	for (size_t i = 0; i < img->nfuncs; i++)
		if (img->funcs[i].alias_of < 0 && img->funcs[i].input >= 0)
			sec[img->funcs[i].input] += h->func[i];
	for (size_t k = 0; k < m; k++) {
		cf[k].heat = sec[cf[k].input];
		cf[k].density = cf[k].heat * h->line_size / (cf[k].size ? cf[k].size : 1);
	}
	free(sec);
	free(seen);
	return m;
}

/* Candidates are compared by trace replay while the replay budget lasts (counted in
 * fetches, not time, so that a long trace keeps `plan` interactive and the choice stays
 * deterministic), the others by the sample model. */
#define REPLAY_BUDGET (48u << 20)

typedef struct colour_search {
	colour_shapes *sh;
	size_t *order[2];             /* by heat per line, by heat */
	size_t n;
	uint32_t start;               /* where the walk starts: the end of the head's block */
	uint32_t budget;              /* padding left after the head's */
	const xb_layout *head;        /* entries made before (SRAM ...) */
	colour_candidate *c;
	size_t nc, cap;
	uint64_t replay_left;
	xb_err *err;
} colour_search;

/* Builds the candidate of params p: the head's entries, then the walk's. Returns -1 on a
 * placement error, 1 if the linker would not place it as the walk did (not expected; the
 * candidate is dropped), 0 when kept. */
static int search_build(colour_search *s, colour_params p)
{
	const xb_plan_input *in = s->sh->in;
	const xb_target *tg = in->tg;
	colour_candidate c = {.p = p, .misses = NAN};
	layout_init(&c.l);
	memcpy(c.l.strategy, s->head->strategy, sizeof c.l.strategy);
	for (size_t i = 0; i < s->head->n; i++)
		layout_add(&c.l, s->head->e[i].func, s->head->e[i].place, s->head->e[i].way_offset);
	colour_walk w = {.sh = s->sh, .order = s->order[p.by_heat], .n = s->n,
			 .line = tg->cache.line, .way = target_way_bytes(tg), .nsets = target_sets(tg),
			 .end = s->start, .pos = s->start, .pad_left = s->budget, .out = &c.l};
	set_load_init(&w.s, tg, p.threshold);
	w.win_first = set_at(&w, s->start);
	w.win_sets = p.window < w.nsets ? p.window : w.nsets - 1;
	w.nfree = w.nsets - w.win_sets;
	w.start = xmalloc((s->n + 1) * sizeof *w.start);
	w.to_free = xmalloc(w.nsets * sizeof *w.to_free);
	w.fill_next = xmalloc((s->sh->nfill + 1) * sizeof *w.fill_next);
	for (size_t i = 0; i <= s->sh->nfill; i++)
		w.fill_next[i] = i;
	double t0 = tnow();
	walk_run(&w);
	double t1 = tnow();
	free(w.fill_next);
	c.score = walk_score(&w, s->sh->h->hot_threshold);
	double t2 = tnow(); t_walk += t1 - t0; t_score += t2 - t1;
	c.pad = w.pad_used;
	free(w.start);
	free(w.to_free);
	set_load_free(&w.s);

	xb_placement pl;
	if (layout_place(in->img, tg, &c.l, &pl, s->err) != 0) {
		layout_free(&c.l);
		return -1;
	}
	t_place += tnow() - t2;
	int strayed = pl.pad_bytes != in->pad_budget - s->budget + c.pad ||
		      pl.pad_bytes > in->pad_budget;
	placement_free(&pl);
	if (strayed) {
		layout_free(&c.l);
		return 1;
	}
	xb_grow(&s->c, &s->cap, s->nc + 1, sizeof *s->c);
	s->c[s->nc++] = c;
	return 0;
}

/* Replays candidate i if the budget allows. */
static int search_replay(colour_search *s, size_t i)
{
	const xb_plan_input *in = s->sh->in;
	if (!in->trace || !isnan(s->c[i].misses) || s->replay_left < in->trace->n)
		return 0;
	s->replay_left -= in->trace->n;
	xb_placement pl;
	if (layout_place(in->img, in->tg, &s->c[i].l, &pl, s->err) != 0)
		return -1;
	xb_trace moved;
	layout_apply_trace(in->img, in->tg, &pl, in->trace, &moved);
	xb_replay r;
	int rc = replay_trace(in->tg, &moved, &r, s->err);
	trace_free(&moved);
	placement_free(&pl);
	if (rc == 0)
		s->c[i].misses = r.misses_per_echo;
	return rc;
}

/* Replayed candidates before the others; then fewer misses, lower score, less padding. */
static int candidate_better(const colour_candidate *a, const colour_candidate *b)
{
	if (isnan(a->misses) != isnan(b->misses))
		return !isnan(a->misses);
	if (!isnan(a->misses) && a->misses != b->misses)
		return a->misses < b->misses;
	if (a->score != b->score)
		return a->score < b->score;
	return a->pad < b->pad;
}

static size_t search_best(const colour_search *s)
{
	size_t best = 0;
	for (size_t i = 1; i < s->nc; i++)
		if (candidate_better(&s->c[i], &s->c[best]))
			best = i;
	return best;
}

static const colour_search *sort_search;
static int lower_score_first(const void *a, const void *b)
{
	const colour_candidate *x = &sort_search->c[*(const size_t *)a];
	const colour_candidate *y = &sort_search->c[*(const size_t *)b];
	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Windows of several sizes, both priority orders and (with a trace) two thresholds for a
 * line to take a way; with a trace, replays them, the best by the model first; then
 * refines the window of the best. Leaves the best layout in out. */
static int search_run(colour_search *s, xb_layout *out)
{
	static const uint32_t windows[] = {0, 64, 128, 192, 256, 384, 512};
	const xb_heat *h = s->sh->h;
	const double thresholds[2] = {h->hot_threshold, 0};
	int nthr = h->hot_threshold > 0 ? 2 : 1, rc = 0;
	for (size_t i = 0; i < sizeof windows / sizeof windows[0] && rc >= 0; i++)
		for (int o = 0; o < 2 && rc >= 0; o++)
			for (int t = 0; t < nthr && rc >= 0; t++)
				rc = search_build(s, (colour_params){.window = windows[i], .by_heat = o,
								     .threshold = thresholds[t]});
	size_t *rank = xmalloc((s->nc + 1) * sizeof *rank);
	for (size_t i = 0; i < s->nc; i++)
		rank[i] = i;
	sort_search = s;
	qsort(rank, s->nc, sizeof *rank, lower_score_first);
	sort_search = NULL;
	for (size_t i = 0; i < s->nc && rc >= 0; i++)
		rc = search_replay(s, rank[i]);
	free(rank);
	for (uint32_t step = 32; step >= 16 && s->nc && rc >= 0; step /= 2) {
		colour_params best = s->c[search_best(s)].p;
		for (int dir = -1; dir <= 1 && rc >= 0; dir += 2) {
			colour_params p = best;
			if ((dir < 0 && p.window < step) || (dir > 0 && p.window + step > 512))
				continue;
			p.window = dir < 0 ? p.window - step : p.window + step;
			size_t before = s->nc;
			rc = search_build(s, p);
			if (rc >= 0 && s->nc > before)
				rc = search_replay(s, before);
		}
	}
	if (rc < 0)
		return -1;
	if (!s->nc) {
		/* not expected: every candidate strayed from the linker's placement */
		for (size_t k = 0; k < s->n; k++)
			layout_add(out, s->sh->cf[k].f, XB_PLACE_HOT, 0);
		return 0;
	}
	size_t best = search_best(s);
	if (getenv("XB_COLOUR_DEBUG"))
		for (size_t i = 0; i < s->nc; i++)
			fprintf(stderr, "window %3u %s thr %.2f: score %10.2f misses %8.2f pad %u\n",
				s->c[i].p.window, s->c[i].p.by_heat ? "heat   " : "density",
				s->c[i].p.threshold, s->c[i].score, s->c[i].misses, s->c[i].pad);
	layout_free(out);
	*out = s->c[best].l;
	s->c[best].l = (xb_layout){0};
	return 0;
}

static int larger_filler_first(const void *a, const void *b)
{
	const colour_filler *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->f - y->f;
}

/* Sections that never run, to lay where padding would go: in the output section that holds
 * the hot block, after its insertion point (so that no earlier script rule claims them),
 * none of their functions placed, sampled or touched by the trace. */
static void find_fillers(colour_shapes *sh, const xb_plan_input *in, const xb_heat *h,
			 const int *funcs, size_t n, const xb_layout *head)
{
	const xb_image *img = in->img;
	int64_t at = image_marker(img, "__xipbench_hot_start");
	if (at < 0)
		return;
	int out = -1;
	for (size_t i = 0; i < img->map.noutputs; i++) {
		const xb_map_output *o = &img->map.outputs[i];
		if ((uint64_t)at >= o->addr && (uint64_t)at <= o->addr + o->size)
			out = (int)i;
	}
	int8_t *skip = xcalloc(img->map.ninputs + 1, 1);
	for (size_t k = 0; k < n; k++)
		skip[img->funcs[funcs[k]].input] = 1;
	for (size_t i = 0; i < head->n; i++)
		skip[img->funcs[head->e[i].func].input] = 1;
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		if (f->alias_of >= 0 || f->input < 0)
			continue;
		int ran = h->func[i] > 0 ||
			  (in->prof && (in->prof->func[i].busy > 0 || in->prof->func[i].idle > 0));
		if (ran || f->region != XB_REGION_FLASH)
			skip[f->input] = 1;
	}
	sh->fill = xmalloc((img->nfuncs + 1) * sizeof *sh->fill);
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		if (f->alias_of >= 0 || f->input < 0 || skip[f->input])
			continue;
		const xb_map_input *mi = &img->map.inputs[f->input];
		if (mi->out_section != out || mi->addr < (uint64_t)at || !mi->size)
			continue;
		skip[f->input] = 1;
		sh->fill[sh->nfill++] = (colour_filler){.f = (int)i, .size = (uint32_t)mi->size,
							.align = img->input_align[f->input]};
	}
	qsort(sh->fill, sh->nfill, sizeof *sh->fill, larger_filler_first);
	free(skip);
}

/* Colours funcs after the entries already in out (see search_run). */
static int colour_functions(const xb_plan_input *in, const xb_heat *h, const int *funcs,
			    size_t n, xb_layout *out, xb_err *err)
{
	colour_search s = {.head = out, .replay_left = REPLAY_BUDGET, .err = err};
	/* the walk starts where the head's block ends (SRAM functions may have left it) */
	xb_placement pl;
	if (layout_place(in->img, in->tg, out, &pl, err) != 0)
		return -1;
	s.start = pl.hot_end;
	s.budget = pl.pad_bytes < in->pad_budget ? in->pad_budget - pl.pad_bytes : 0;
	placement_free(&pl);
	colour_func *cf = xmalloc((n + 1) * sizeof *cf);
	s.n = colour_funcs(in, h, funcs, n, cf);
	for (int o = 0; o < 2; o++) {
		s.order[o] = xmalloc((s.n + 1) * sizeof *s.order[o]);
		for (size_t k = 0; k < s.n; k++)
			s.order[o][k] = k;
		sort_cf = cf;
		sort_by_heat = o;
		qsort(s.order[o], s.n, sizeof *s.order[o], priority_cmp);
		sort_cf = NULL;
	}
	colour_shapes sh;
	shapes_init(&sh, in, h, cf, s.n);
	s.sh = &sh;
	if (!getenv("XB_NOFILL"))
		find_fillers(&sh, in, h, funcs, n, out);
	int rc = search_run(&s, out);
	for (size_t i = 0; i < s.nc; i++)
		layout_free(&s.c[i].l);
	free(s.c);
	shapes_free(&sh);
	free(s.order[0]);
	free(s.order[1]);
	free(cf);
	return rc;
}

/* The better of two layouts by the prediction: trace replay when there is a trace, else
 * the conflict model; on a tie, the one with less padding. Keeps *a (returns 0) or takes
 * *b (returns 1). */
static int prefer_better(const xb_plan_input *in, xb_layout *a, xb_layout *b, xb_err *err)
{
	xb_prediction pa, pb;
	if (plan_predict(in, a, &pa, err) != 0 || plan_predict(in, b, &pb, err) != 0)
		return -1;
	double ca = in->trace ? pa.misses_per_echo : pa.conflict_score;
	double cb = in->trace ? pb.misses_per_echo : pb.conflict_score;
	if (cb < ca || (cb == ca && pb.pad_bytes < pa.pad_bytes)) {
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
	memcpy(packed.strategy, out->strategy, sizeof packed.strategy);
	for (size_t i = 0; i < keep; i++)
		layout_add(&packed, out->e[i].func, out->e[i].place, out->e[i].way_offset);
	for (size_t k = 0; k < n; k++)
		layout_add(&packed, funcs[k], XB_PLACE_HOT, 0);
	double t0 = tnow(); t_walk = t_place = t_score = 0;
	int rc = colour_functions(in, h, funcs, n, out, err);
	double t1 = tnow();
	if (rc == 0 && prefer_better(in, out, &packed, err) < 0)
		rc = -1;
	if (getenv("XB_TIME")) fprintf(stderr, "colour %.1f (walk %.1f score %.1f place %.1f) prefer %.1f ms\n", (t1-t0)*1e3, t_walk*1e3, t_score*1e3, t_place*1e3, (tnow()-t1)*1e3);
	layout_free(&packed);
	return rc;
}
