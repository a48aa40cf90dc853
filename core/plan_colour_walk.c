/* plan_colour_walk: one colouring candidate: a walk through the address space that puts the
 * densest sections at most `ways` deep on ordinary sets and piles the rest onto a window of
 * sacrificed sets, with padding (or code that never runs) in between. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

#define LOOKAHEAD 64   /* sections tried at the walk's position */
#define SEARCH 64      /* sections looked for further ahead */

/* ---- the lines of each section that run ---- */

typedef struct hot_line {
	uint32_t j;        /* line index from the section's first line */
	double heat;
} hot_line;

/* Per section and offset of its start within a line, built on first use and shared by
 * every candidate: the lines of the whole input section (a section may hold several
 * functions, and code without a function symbol). */
struct colour_shapes {
	uint32_t line;
	size_t *at;                    /* per (section, offset): index into pool + 1; 0: not built */
	uint32_t *len;
	hot_line *pool;
	size_t npool, cap;
	double *vec;
};

void colour_job_init_shapes(colour_job *j)
{
	struct colour_shapes *s = xcalloc(1, sizeof *s);
	s->line = j->h->line_size;
	uint32_t longest = 0;
	for (size_t k = 0; k < j->n; k++)
		if (j->sec[k].size > longest)
			longest = j->sec[k].size;
	s->at = xcalloc(j->n * s->line + 1, sizeof *s->at);
	s->len = xcalloc(j->n * s->line + 1, sizeof *s->len);
	s->vec = xcalloc(longest / s->line + 3, sizeof *s->vec);
	j->shapes = s;
}

void colour_job_free_shapes(colour_job *j)
{
	struct colour_shapes *s = j->shapes;
	if (!s)
		return;
	free(s->at);
	free(s->len);
	free(s->pool);
	free(s->vec);
	free(s);
	j->shapes = NULL;
}

/* The lines of section k that run when it starts `offset` bytes into a line. */
static const hot_line *shape(const colour_job *j, size_t k, uint32_t offset, uint32_t *len)
{
	struct colour_shapes *s = j->shapes;
	size_t slot = k * s->line + offset;
	if (!s->at[slot]) {
		const colour_section *c = &j->sec[k];
		uint32_t base = (uint32_t)j->in->img->map.inputs[c->input].addr;
		size_t nl = heat_range_lines(j->h, base, c->size, offset, s->vec);
		uint32_t count = 0;
		for (size_t i = 0; i < nl; i++)
			count += s->vec[i] > 0;
		xb_grow(&s->pool, &s->cap, s->npool + count + 1, sizeof *s->pool);
		s->at[slot] = s->npool + 1;
		s->len[slot] = count;
		for (size_t i = 0; i < nl; i++)
			if (s->vec[i] > 0)
				s->pool[s->npool++] = (hot_line){.j = (uint32_t)i, .heat = s->vec[i]};
	}
	*len = s->len[slot];
	return &s->pool[s->at[slot] - 1];
}

/* ---- the walk ---- */

typedef struct walk {
	colour_job *job;
	const size_t *order;           /* sections by priority */
	size_t n;
	set_load s;
	uint32_t line, way, nsets;
	uint32_t win_first, win_sets;  /* the window: sets [win_first, win_first + win_sets) */
	uint32_t end;                  /* end of the last section or filler placed */
	uint32_t pos;                  /* where the walk looks next (>= end) */
	uint32_t pad_left, pad_used;
	uint32_t nfree;                /* ordinary sets with room for another line */
	uint32_t *start;               /* per order index: where it went */
	uint32_t *to_free;             /* see find_free_sets */
	uint32_t *no_fit_before;       /* per order index: it fits nowhere before this address */
	uint32_t quiet_until;          /* without a window: no search ahead before this address */
	size_t *fill_next;             /* see filler_unused */
	xb_layout *out;
} walk;

/* set_load_is_hot, here where the compiler can inline it */
static int is_hot(const set_load *s, double h)
{
	return h > 0 && h >= s->threshold;
}

static const hot_line *walk_shape(const walk *w, size_t k, uint32_t start, uint32_t *n)
{
	return shape(w->job, w->order[k], start & (w->line - 1), n);
}

static uint32_t align_of(const walk *w, size_t k)
{
	return w->job->sec[w->order[k]].align;
}

static uint32_t set_at(const walk *w, uint32_t a)
{
	return (a >> w->s.line_shift) & (w->nsets - 1);
}

static int in_window(const walk *w, uint32_t set)
{
	return ((set - w->win_first) & (w->nsets - 1)) < w->win_sets;
}

/* Can another line go to set: an ordinary set with fewer than `ways` lines. */
static int set_free(const walk *w, uint32_t set)
{
	return !in_window(w, set) && w->s.count[set] < w->s.ways;
}

/* The first address >= a in the window. */
static uint32_t next_window(const walk *w, uint32_t a)
{
	uint32_t set = set_at(w, a);
	if (in_window(w, set))
		return a;
	return (a & ~(w->line - 1)) + ((w->win_first - set) & (w->nsets - 1)) * w->line;
}

/* The first address after the window that holds a. */
static uint32_t window_end(const walk *w, uint32_t a)
{
	uint32_t d = (set_at(w, a) - w->win_first) & (w->nsets - 1);
	return (a & ~(w->line - 1)) + (w->win_sets - d) * w->line;
}

/* Does section k fit at start: no line that runs on an ordinary set that is full, and
 * none in the window unless `spill`. */
static int fits_at(const walk *w, size_t k, uint32_t start, int spill)
{
	uint32_t n;
	const hot_line *v = walk_shape(w, k, start, &n);
	uint32_t line = start >> w->s.line_shift;
	for (uint32_t i = 0; i < n; i++) {
		if (!is_hot(&w->s, v[i].heat))
			continue;
		uint32_t set = (line + v[i].j) & (w->nsets - 1);
		if (in_window(w, set) ? !spill : w->s.count[set] >= w->s.ways)
			return 0;
	}
	return 1;
}

/* Conflict that section k would add at start: a line in a full set costs the whole set,
 * in an over-full one itself (as set_load_cost); stops at limit. */
static double cost_at(const walk *w, size_t k, uint32_t start, double limit)
{
	uint32_t n;
	const hot_line *v = walk_shape(w, k, start, &n);
	uint32_t line = start >> w->s.line_shift;
	double cost = 0;
	for (uint32_t i = 0; i < n && cost < limit; i++) {
		if (!is_hot(&w->s, v[i].heat))
			continue;
		uint32_t set = (line + v[i].j) & (w->nsets - 1);
		if (w->s.count[set] == w->s.ways)
			cost += w->s.heat[set] + v[i].heat;
		else if (w->s.count[set] > w->s.ways)
			cost += v[i].heat;
	}
	return cost;
}

/* ---- fillers: code that never runs, where padding would go ---- */

/* The first filler at or after i not used yet (nfill if none). */
static size_t filler_unused(walk *w, size_t i)
{
	while (w->fill_next[i] != i) {
		w->fill_next[i] = w->fill_next[w->fill_next[i]];
		i = w->fill_next[i];
	}
	return i;
}

/* Lays fillers from end towards start, the largest that fits first, and returns where they
 * end; with commit, for real (entries made), else only to see what padding would remain. */
static uint32_t fill_gap(walk *w, uint32_t end, uint32_t start, int commit)
{
	const colour_filler *fill = w->job->fill;
	size_t nfill = w->job->nfill, from = 0;
	while (end < start) {
		size_t lo = from, hi = nfill;
		while (lo < hi) {      /* the first no larger than the gap */
			size_t mid = (lo + hi) / 2;
			if (fill[mid].size > start - end)
				lo = mid + 1;
			else
				hi = mid;
		}
		uint32_t at = 0;
		size_t i = filler_unused(w, lo);
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

/* Can the walk get to start: what fillers leave of the gap within the padding budget, and
 * less than a way (one colour entry pads less). */
static int can_reach(walk *w, uint32_t start)
{
	if (start - w->end <= w->pad_left && start - w->end < w->way)
		return 1;
	if (!w->job->nfill || start < w->end)
		return 0;
	uint32_t end = fill_gap(w, w->end, start, 0);
	return start - end <= w->pad_left && start - end < w->way;
}

static void walk_place(walk *w, size_t k, uint32_t start)
{
	uint32_t n;
	const hot_line *v = walk_shape(w, k, start, &n);
	uint32_t line = start >> w->s.line_shift;
	for (uint32_t i = 0; i < n; i++) {
		if (!is_hot(&w->s, v[i].heat))
			continue;
		uint32_t set = (line + v[i].j) & (w->nsets - 1);
		if (w->s.count[set] + 1 == w->s.ways && !in_window(w, set))
			w->nfree--;
		w->s.count[set]++;
		w->s.heat[set] += v[i].heat;
	}
	const colour_section *c = &w->job->sec[w->order[k]];
	if (w->job->nfill && start > plan_align_up(w->end, c->align))
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

/* ---- where the next section goes ---- */

/* to_free[set]: how many sets further the next free one is (nsets: none is). */
static void find_free_sets(walk *w)
{
	uint32_t d = w->nsets;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = w->nsets; i-- > 0;) {
			d = set_free(w, i) ? 0 : (d < w->nsets ? d + 1 : d);
			w->to_free[i] = d;
		}
}

/* The first line-aligned start in [from, limit) where section k fits, or limit. A line on
 * a full set moves the search on to where that line would find a free one. */
static uint32_t first_fit(const walk *w, size_t k, uint32_t from, uint32_t limit)
{
	uint32_t step = align_of(w, k) > w->line ? align_of(w, k) : w->line;
	uint32_t st = plan_align_up(from, step), n;
	const hot_line *v = walk_shape(w, k, st, &n);   /* the same for every aligned start */
	while (st < limit) {
		uint32_t line = st >> w->s.line_shift, i = 0;
		for (; i < n; i++)
			if (is_hot(&w->s, v[i].heat) &&
			    !set_free(w, (line + v[i].j) & (w->nsets - 1)))
				break;
		if (i == n)
			return st;
		uint32_t d = w->to_free[(line + v[i].j) & (w->nsets - 1)];
		uint32_t next = plan_align_up(st + d * w->line, step);
		if (d >= w->nsets || next <= st)
			break;
		st = next;
	}
	return limit;
}

/* The densest of the next LOOKAHEAD sections that fits at the walk's position off the
 * window; n if none. */
static size_t fit_here(walk *w, const int8_t *done, size_t front, size_t back,
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

/* In the window, of the LOOKAHEAD sparsest sections that fit at the walk's position: the
 * one reaching furthest past the window's end (its cold tail then lies where padding would
 * go), else the sparsest; n if none. */
static size_t fit_window(walk *w, const int8_t *done, size_t front, size_t back,
			 uint32_t *start)
{
	size_t tried = 0, pick = w->n;
	uint32_t wend = window_end(w, w->pos), past = 0;
	for (size_t k = back; k-- > front && tried < LOOKAHEAD;) {
		if (done[k])
			continue;
		tried++;
		uint32_t st = plan_align_up(w->pos, align_of(w, k));
		uint32_t end = st + w->job->sec[w->order[k]].size;
		int further = end > wend && end - wend > past;
		if ((pick != w->n && !further) || !can_reach(w, st) || !fits_at(w, k, st, 1))
			continue;
		pick = k;
		*start = st;
		past = end > wend ? end - wend : 0;
	}
	return pick;
}

/* The nearest start ahead, before the window, where one of the SEARCH densest sections
 * fits; n if none within reach. */
static size_t fit_ahead(walk *w, const int8_t *done, size_t front, size_t back,
			uint32_t *start)
{
	uint32_t limit = w->win_sets ? next_window(w, w->pos + 1) : w->pos + w->way;
	uint32_t reach = w->end + (w->pad_left < w->way - 1 ? w->pad_left : w->way - 1);
	if (w->job->nfill && limit > reach + 1)
		reach = limit - 1;      /* fillers may take part of the gap; can_reach decides */
	*start = limit < reach + 1 ? limit : reach + 1;
	find_free_sets(w);
	size_t tried = 0, pick = w->n;
	for (size_t k = front; k < back && tried < SEARCH; k++) {
		if (done[k])
			continue;
		tried++;
		/* sets only fill up: where a section did not fit, it never will */
		uint32_t from = w->no_fit_before[k] > w->pos ? w->no_fit_before[k] : w->pos;
		uint32_t st = first_fit(w, k, from, *start);
		w->no_fit_before[k] = st;
		if (st < *start && can_reach(w, st)) {
			*start = st;
			pick = k;
		}
	}
	return pick;
}

/* Without a window: the start of least added conflict within the next way. */
static uint32_t least_cost_start(walk *w, size_t k)
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

/* Places the sections, order[0..n) by priority. Ordinary sets take the densest that fit,
 * with padding up to the nearest place where one fits; the window takes the sparsest,
 * whose lines miss there without evicting lines that would hit; what the padding budget
 * cannot place follows packed. */
static void walk_run(walk *w)
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
		int searched = 0;
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
			if (pick == n && w->pos >= w->quiet_until) {
				pick = fit_ahead(w, done, front, back, &start);
				searched = 1;
				/* nothing within a way: the next steps would not find a place either */
				if (pick == n && !w->win_sets)
					w->quiet_until = w->pos + w->way;
			}
		}
		if (pick == n && w->win_sets) {
			uint32_t next = next_window(w, w->pos + 1);
			if (!can_reach(w, next))
				break;
			w->pos = next;
			continue;
		}
		if (pick == n) {
			/* no window: conflict is the price of placing at all (with every set
			 * full, each start costs the same) */
			pick = front;
			start = searched ? least_cost_start(w, pick)
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

/* Adds the lines placed before the walk (in front of the hot block, the veneers) to s. */
static void preload(const colour_job *j, set_load *s)
{
	for (size_t k = 0; k < j->npre; k++)
		set_load_add(s, j->pre[k].line >> s->line_shift, &j->pre[k].heat, 1);
}

/* The heat of the sets that hold more lines than ways, at the heat's own threshold. */
static double walk_score(const walk *w)
{
	set_load s = w->s;
	double threshold = w->job->h->hot_threshold;
	if (threshold != w->s.threshold) {
		set_load_init(&s, w->job->in->tg, threshold);
		preload(w->job, &s);
		for (size_t k = 0; k < w->n; k++) {
			uint32_t n;
			const hot_line *v = walk_shape(w, k, w->start[k], &n);
			uint32_t line = w->start[k] >> w->s.line_shift;
			for (uint32_t i = 0; i < n; i++) {
				if (!is_hot(&s, v[i].heat))
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

double colour_walk(colour_job *j, colour_params p, uint32_t pad_budget, xb_layout *out,
		   uint32_t *pad)
{
	const xb_target *tg = j->in->tg;
	walk w = {.job = j, .order = j->order[p.by_heat ? 1 : 0], .n = j->n,
		  .line = tg->cache.line, .way = target_way_bytes(tg), .nsets = target_sets(tg),
		  .end = j->start, .pos = j->start, .pad_left = pad_budget, .out = out};
	set_load_init(&w.s, tg, p.threshold);
	w.win_first = set_at(&w, j->start);
	w.win_sets = p.window < w.nsets ? p.window : w.nsets - 1;
	preload(j, &w.s);
	w.nfree = 0;
	for (uint32_t i = 0; i < w.nsets; i++)
		w.nfree += set_free(&w, i);
	w.start = xmalloc((j->n + 1) * sizeof *w.start);
	w.to_free = xmalloc(w.nsets * sizeof *w.to_free);
	w.no_fit_before = xcalloc(j->n + 1, sizeof *w.no_fit_before);
	w.fill_next = xmalloc((j->nfill + 1) * sizeof *w.fill_next);
	for (size_t i = 0; i <= j->nfill; i++)
		w.fill_next[i] = i;
	walk_run(&w);
	double score = walk_score(&w);
	*pad = w.pad_used;
	free(w.start);
	free(w.to_free);
	free(w.no_fit_before);
	free(w.fill_next);
	set_load_free(&w.s);
	return score;
}
