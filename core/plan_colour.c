/* plan_colour: cache colouring: candidate layouts from plan_colour_walk.c (windows of
 * sacrificed sets of several sizes, two priority orders), the best by exact trace replay or
 * by the sample model, and never one predicted worse than the packed hot block. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
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
int plan_replayed_misses(const xb_plan_input *in, const xb_placement *p, double *misses,
			 xb_err *err)
{
	xb_trace moved;
	layout_apply_trace(in->img, in->tg, p, in->trace, &moved);
	xb_replay r;
	int rc = replay_trace(in->tg, &moved, &r, err);
	trace_free(&moved);
	if (rc == 0)
		*misses = r.misses_per_echo;
	return rc;
}

int plan_hot_block_start(const xb_plan_input *in, uint32_t *start, xb_err *err)
{
	xb_layout empty;
	layout_init(&empty);
	xb_placement p;
	int rc = plan_place(in, &empty, &p, err);
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

/* ---- what is placed ---- */

/* The sections to place, one per input section, named by their hottest function. */
static size_t find_sections(const xb_plan_input *in, const xb_heat *h, const int *funcs,
			    size_t n, colour_section *sec)
{
	const xb_image *img = in->img;
	double *heat = xcalloc(img->map.ninputs + 1, sizeof *heat);
	for (size_t i = 0; i < img->nfuncs; i++)
		if (img->funcs[i].alias_of < 0 && img->funcs[i].input >= 0)
			heat[img->funcs[i].input] += h->func[i];
	int8_t *seen = xcalloc(img->map.ninputs + 1, 1);
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		int input = img->funcs[funcs[k]].input;
		if (seen[input])
			continue;
		seen[input] = 1;
		uint32_t size = (uint32_t)img->map.inputs[input].size;
		sec[m++] = (colour_section){
			.f = funcs[k],
			.input = input,
			.size = size,
			.align = img->input_align[input],
			.heat = heat[input],
			.density = heat[input] * h->line_size / (size ? size : 1),
		};
	}
	free(seen);
	free(heat);
	return m;
}

static const colour_section *sort_sec;
static int sort_by_heat;
static int higher_first(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = sort_by_heat ? sort_sec[i].heat : sort_sec[i].density;
	double y = sort_by_heat ? sort_sec[j].heat : sort_sec[j].density;
	if (x != y)
		return x > y ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int larger_first(const void *a, const void *b)
{
	const colour_filler *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->f - y->f;
}

/* Sections that never run, to lay where padding would go: in the output section that
 * holds the hot block, after its insertion point (so no earlier script rule claims them),
 * with no function placed, sampled or touched by the trace. */
static size_t find_fillers(const xb_plan_input *in, const xb_heat *h, const int *funcs,
			   size_t n, const xb_layout *head, colour_filler *fill)
{
	const xb_image *img = in->img;
	int64_t at = image_marker(img, "__xipbench_hot_start");
	if (at < 0)
		return 0;
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
		if (img->funcs[head->e[i].func].input >= 0)
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
	size_t m = 0;
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		if (f->alias_of >= 0 || f->input < 0 || skip[f->input])
			continue;
		const xb_map_input *mi = &img->map.inputs[f->input];
		if (mi->out_section != out || mi->addr < (uint64_t)at || !mi->size)
			continue;
		skip[f->input] = 1;
		fill[m++] = (colour_filler){.f = (int)i, .size = (uint32_t)mi->size,
					    .align = img->input_align[f->input]};
	}
	free(skip);
	qsort(fill, m, sizeof *fill, larger_first);
	return m;
}

/* ---- lines the walk does not place: in front of the hot block, veneers, behind it ---- */

/* The heat of a veneer's lines: the hottest line holding one of its calls (order inside
 * the stub section is unknown, so every veneer line gets the hottest). */
static double veneer_heat(const xb_heat *h, const xb_placement *p, const xb_target *tg)
{
	double best = 0;
	for (size_t k = 0; k < p->nvcalls; k++) {
		const xb_region *r = target_region_of(tg, p->veneers[p->vcalls[k].veneer].addr);
		if (!r || r->kind != XB_REGION_FLASH)
			continue;
		for (uint32_t a = p->vcalls[k].site; a <= p->vcalls[k].site + 2; a += 2) {
			uint32_t line = a & ~(h->line_size - 1);
			size_t lo = sorted_lower_bound(h->lines, h->nlines, sizeof *h->lines, line);
			if (lo < h->nlines && h->lines[lo].line == line && h->lines[lo].heat > best)
				best = h->lines[lo].heat;
		}
	}
	return best;
}

/* The flash stub section of a placement: [*lo, *hi), empty when it has none. */
static void flash_stubs(const xb_placement *p, const xb_target *tg, uint32_t *lo, uint32_t *hi)
{
	*lo = UINT32_MAX;
	*hi = 0;
	for (size_t k = 0; k < p->nveneers; k++) {
		const xb_region *r = target_region_of(tg, p->veneers[k].addr);
		if (!r || r->kind != XB_REGION_FLASH)
			continue;
		*lo = p->veneers[k].addr < *lo ? p->veneers[k].addr : *lo;
		*hi = p->veneers[k].addr + XB_VENEER_BYTES > *hi ? p->veneers[k].addr + XB_VENEER_BYTES
								  : *hi;
	}
	if (*hi == 0)
		*lo = 0;
}

/* The lines that take a way before the walk: the hot lines in front of the hot block (they
 * stay), and as many lines as the flash veneers need just in front of the hot block's first
 * set, where anchor_tail will move the stub section. */
static int find_preload(const xb_plan_input *in, const xb_heat *h, const xb_layout *head,
			const int *funcs, size_t n, uint32_t start, xb_heat_line **out,
			size_t *nout, xb_err *err)
{
	size_t cap = 0;
	*out = NULL;
	*nout = 0;
	for (size_t k = 0; k < h->nlines && h->lines[k].line < start; k++) {
		const xb_region *r = target_region_of(in->tg, h->lines[k].line);
		if (!r || r->kind != XB_REGION_FLASH)
			continue;
		xb_grow(out, &cap, *nout + 1, sizeof **out);
		(*out)[(*nout)++] = h->lines[k];
	}
	/* the veneers: the same with every function hot in flash, packed */
	xb_layout packed;
	layout_init(&packed);
	for (size_t i = 0; i < head->n; i++)
		layout_add(&packed, head->e[i].func, head->e[i].place, head->e[i].way_offset);
	for (size_t k = 0; k < n; k++)
		layout_add(&packed, funcs[k], XB_PLACE_HOT, 0);
	xb_placement p;
	int rc = plan_place(in, &packed, &p, err);
	layout_free(&packed);
	if (rc != 0)
		return -1;
	uint32_t lo, hi, L = h->line_size;
	flash_stubs(&p, in->tg, &lo, &hi);
	double heat = veneer_heat(h, &p, in->tg);
	if (hi > lo && heat > 0) {
		uint32_t lines = (hi - lo + L - 1) / L + 1;
		xb_grow(out, &cap, *nout + lines, sizeof **out);
		uint32_t first = (start & ~(L - 1)) - lines * L;
		for (uint32_t k = 0; k < lines; k++)
			(*out)[(*nout)++] = (xb_heat_line){.line = first + k * L, .heat = heat};
	}
	placement_free(&p);
	return 0;
}

/* Conflict that lines (address, heat) add to the load s when moved by shift. */
static double tail_cost(const set_load *s, const xb_heat_line *t, size_t n, uint32_t shift,
			uint32_t *count, double *heat, uint32_t *touched)
{
	size_t nt = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t set = ((t[k].line + shift) >> s->line_shift) & (s->nsets - 1);
		if (!count[set]++)
			touched[nt++] = set;
		heat[set] += t[k].heat;
	}
	double cost = 0;
	for (size_t k = 0; k < nt; k++) {
		uint32_t set = touched[k];
		double before = s->count[set] > s->ways ? s->heat[set] : 0;
		double after = s->count[set] + count[set] > s->ways ? s->heat[set] + heat[set] : 0;
		cost += after - before;
		count[set] = 0;
		heat[set] = 0;
	}
	return cost;
}

/* Slides what follows the hot block (the cold code, the stub section of veneers, the
 * read-only data) to where its hot lines (veneers, data reads) add the least conflict to
 * the hot block's sets: pads in front of the first section after the block (a colour entry
 * for it). *pad gets the padding added. */
static int anchor_tail(const colour_job *j, xb_layout *l, uint32_t pad_left, uint32_t *pad,
		       xb_err *err)
{
	const xb_plan_input *in = j->in;
	const xb_image *img = in->img;
	const xb_map *m = &img->map;
	xb_placement p;
	*pad = 0;
	if (plan_place(in, l, &p, err) != 0)
		return -1;
	set_load s;
	set_load_init(&s, in->tg, j->h->hot_threshold);
	xb_heat_line *tail = xmalloc((j->h->nlines + 1) * sizeof *tail);
	size_t nt = 0;
	long hint = -1; /* the lines come in address order */
	for (size_t k = 0; k < j->h->nlines; k++) {
		if (!set_load_is_hot(&s, j->h->lines[k].heat))
			continue;
		/* a line shared with a section in the block counts as the block's */
		uint32_t last = j->h->lines[k].line + j->h->line_size - 2;
		uint32_t a = placement_move_near(img, &p, j->h->lines[k].line, &hint);
		uint32_t b = placement_move_near(img, &p, last, &hint) - (j->h->line_size - 2);
		const xb_region *r = target_region_of(in->tg, a);
		if (!r || r->kind != XB_REGION_FLASH)
			continue;
		if (a >= p.hot_end && b >= p.hot_end)
			tail[nt++] = (xb_heat_line){.line = a, .heat = j->h->lines[k].heat};
		else
			set_load_add(&s, (a < p.hot_end ? a : b) >> s.line_shift, &j->h->lines[k].heat, 1);
	}
	uint32_t lo, hi, L = j->h->line_size;
	flash_stubs(&p, in->tg, &lo, &hi);
	double vh = veneer_heat(j->h, &p, in->tg);
	if (hi > lo && vh > 0 && set_load_is_hot(&s, vh)) {
		tail = xrealloc(tail, (nt + (hi - lo) / L + 3) * sizeof *tail);
		for (uint32_t a = lo & ~(L - 1); a < hi; a += L)
			tail[nt++] = (xb_heat_line){.line = a, .heat = vh};
	}
	/* the first section after the block (in the block's output section), and the step
	 * that keeps every section behind it at its alignment */
	long first = -1, block = mapfile_input_at(m, p.hot_start);
	uint32_t step = L;
	for (size_t i = 0; i < m->ninputs; i++) {
		const xb_region *r = target_region_of(in->tg, p.input_addr[i]);
		if (!r || r->kind != XB_REGION_FLASH || p.input_addr[i] < p.hot_end)
			continue;
		if (img->input_align[i] > step)
			step = img->input_align[i];
		if (block >= 0 && m->inputs[i].out_section == m->inputs[block].out_section &&
		    (first < 0 || p.input_addr[i] < p.input_addr[first]))
			first = (long)i;
	}
	int f = -1;
	for (size_t i = 0; first >= 0 && i < img->nfuncs && f < 0; i++)
		if (img->funcs[i].input == first && img->funcs[i].alias_of < 0)
			f = (int)i;
	uint32_t way = target_way_bytes(in->tg), best_shift = 0;
	if (f >= 0 && nt && step < way) {
		uint32_t *count = xcalloc(s.nsets, sizeof *count), *touched = xmalloc((nt + 1) * sizeof *touched);
		double *heat = xcalloc(s.nsets, sizeof *heat);
		uint32_t gap = p.input_addr[first] - p.hot_end;
		double best = tail_cost(&s, tail, nt, 0, count, heat, touched);
		for (uint32_t shift = step; best > 0 && shift < way - gap && gap + shift <= pad_left;
		     shift += step) {
			double c = tail_cost(&s, tail, nt, shift, count, heat, touched);
			if (c < best) {
				best = c;
				best_shift = shift;
			}
		}
		free(count);
		free(touched);
		free(heat);
		if (best_shift) {
			layout_add(l, f, XB_PLACE_COLOUR,
				   (p.input_addr[first] + best_shift) & (way - 1));
			*pad = gap + best_shift;
		}
	}
	free(tail);
	set_load_free(&s);
	placement_free(&p);
	return 0;
}

/* ---- candidates and the choice among them ---- */

/* With a trace, candidates are compared by exact replay while this budget of replayed
 * fetches lasts (fetches, not time: a long trace keeps `plan` interactive and the choice
 * deterministic); the rest, and every candidate without a trace, by the sample model. */
#define REPLAY_BUDGET (256u << 20)

typedef struct candidate {
	colour_params p;
	xb_layout l;
	double score;      /* sample model */
	double misses;     /* trace replay; NaN if not replayed */
	uint32_t pad;
	int checked;       /* placed by layout_place */
	int dropped;       /* its placement differed from the walk's (not expected) */
} candidate;

typedef struct search {
	colour_job job;
	const xb_layout *head;        /* entries made before (SRAM) */
	candidate *c;
	size_t nc, cap;
	uint64_t replay_left;
	xb_err *err;
} search;

static int search_build(search *s, colour_params p)
{
	candidate c = {.p = p, .misses = NAN};
	layout_init(&c.l);
	memcpy(c.l.strategy, s->head->strategy, sizeof c.l.strategy);
	for (size_t i = 0; i < s->head->n; i++)
		layout_add(&c.l, s->head->e[i].func, s->head->e[i].place, s->head->e[i].way_offset);
	c.score = colour_walk(&s->job, p, s->job.in->pad_budget, &c.l, &c.pad);
	uint32_t more;
	if (anchor_tail(&s->job, &c.l, s->job.in->pad_budget - c.pad, &more, s->err) != 0) {
		layout_free(&c.l);
		return -1;
	}
	c.pad += more;
	xb_grow(&s->c, &s->cap, s->nc + 1, sizeof *s->c);
	s->c[s->nc++] = c;
	return 0;
}

/* Places candidate i as the linker will and drops it if its padding is not the walk's;
 * replays the trace on it when asked and the budget allows. */
static int search_check(search *s, size_t i, int replay)
{
	const xb_plan_input *in = s->job.in;
	candidate *c = &s->c[i];
	int want = replay && in->trace && isnan(c->misses) && s->replay_left >= in->trace->n;
	if (c->dropped || (c->checked && !want))
		return 0;
	xb_placement pl;
	if (plan_place(in, &c->l, &pl, s->err) != 0)
		return -1;
	c->checked = 1;
	int rc = 0;
	if (pl.pad_bytes != c->pad || pl.pad_bytes > in->pad_budget) {
		c->dropped = 1;
	} else if (want) {
		s->replay_left -= in->trace->n;
		rc = plan_replayed_misses(in, &pl, &c->misses, s->err);
	}
	placement_free(&pl);
	return rc;
}

/* Kept before dropped, replayed before not; then fewer misses, a lower score, less
 * padding. */
static int better(const candidate *a, const candidate *b)
{
	if (a->dropped != b->dropped)
		return !a->dropped;
	if (isnan(a->misses) != isnan(b->misses))
		return !isnan(a->misses);
	if (!isnan(a->misses) && a->misses != b->misses)
		return a->misses < b->misses;
	if (a->score != b->score)
		return a->score < b->score;
	return a->pad < b->pad;
}

static size_t search_best(const search *s)
{
	size_t best = 0;
	for (size_t i = 1; i < s->nc; i++)
		if (better(&s->c[i], &s->c[best]))
			best = i;
	return best;
}

static const search *sort_search;
static int lower_score_first(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = sort_search->c[i].score, y = sort_search->c[j].score;
	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Windows of several sizes, both priority orders and, with a trace, two thresholds for a
 * line to take a way (the trace's own, and any line that ran); replays them, best by the
 * model first, while the budget lasts; refines the window of the best. The best (checked
 * against the linker's placement) goes to out, its replayed misses (or NaN) to *misses. */
static int search_run(search *s, xb_layout *out, double *misses)
{
	/* the replay tells apart more candidates than the model can */
	static const uint32_t with_trace[] = {0, 64, 128, 192, 256, 384, 512};
	static const uint32_t with_samples[] = {0, 96, 192, 320, 512};
	const xb_plan_input *in = s->job.in;
	const uint32_t *windows = in->trace ? with_trace : with_samples;
	size_t nwin = in->trace ? sizeof with_trace / sizeof *with_trace
				: sizeof with_samples / sizeof *with_samples;
	const double thresholds[2] = {s->job.h->hot_threshold, 0};
	int nthr = s->job.h->hot_threshold > 0 ? 2 : 1, rc = 0;
	for (size_t i = 0; i < nwin && rc == 0; i++)
		for (int o = 0; o < 2 && rc == 0; o++)
			for (int t = 0; t < nthr && rc == 0; t++)
				rc = search_build(s, (colour_params){.window = windows[i], .by_heat = o,
								     .threshold = thresholds[t]});
	size_t *rank = xmalloc((s->nc + 1) * sizeof *rank);
	for (size_t i = 0; i < s->nc; i++)
		rank[i] = i;
	sort_search = s;
	qsort(rank, s->nc, sizeof *rank, lower_score_first);
	sort_search = NULL;
	for (size_t i = 0; i < s->nc && rc == 0; i++)
		rc = search_check(s, rank[i], 1);
	free(rank);
	for (uint32_t step = 32; step >= 16 && rc == 0; step /= 2) {
		colour_params best = s->c[search_best(s)].p;
		for (int dir = -1; dir <= 1 && rc == 0; dir += 2) {
			colour_params p = best;
			if (dir < 0 ? p.window < step : p.window + step > 512)
				continue;
			p.window = dir < 0 ? p.window - step : p.window + step;
			rc = search_build(s, p);
			if (rc == 0)
				rc = search_check(s, s->nc - 1, 1);
		}
	}
	/* without a trace only the best need be checked */
	size_t best = search_best(s);
	while (rc == 0 && !s->c[best].dropped && !s->c[best].checked) {
		rc = search_check(s, best, 0);
		best = search_best(s);
	}
	if (rc != 0)
		return -1;
	*misses = NAN;
	if (s->c[best].dropped) {
		/* not expected: no candidate is placed as planned */
		for (size_t k = 0; k < s->job.n; k++)
			layout_add(out, s->job.sec[k].f, XB_PLACE_HOT, 0);
		return 0;
	}
	layout_free(out);
	*out = s->c[best].l;
	s->c[best].l = (xb_layout){0};
	*misses = s->c[best].misses;
	return 0;
}

/* Colours funcs after the entries already in out (see search_run). */
static int colour_functions(const xb_plan_input *in, const xb_heat *h, const int *funcs,
			    size_t n, xb_layout *out, double *misses, xb_err *err)
{
	search s = {.job = {.in = in, .h = h}, .head = out, .replay_left = REPLAY_BUDGET,
		    .err = err};
	if (plan_hot_block_start(in, &s.job.start, err) != 0)
		return -1;
	colour_section *sec = xmalloc((n + 1) * sizeof *sec);
	colour_filler *fill = xmalloc((in->img->nfuncs + 1) * sizeof *fill);
	size_t *order[2];
	s.job.sec = sec;
	s.job.n = find_sections(in, h, funcs, n, sec);
	for (int o = 0; o < 2; o++) {
		order[o] = xmalloc((s.job.n + 1) * sizeof *order[o]);
		for (size_t k = 0; k < s.job.n; k++)
			order[o][k] = k;
		sort_sec = sec;
		sort_by_heat = o;
		qsort(order[o], s.job.n, sizeof *order[o], higher_first);
		sort_sec = NULL;
		s.job.order[o] = order[o];
	}
	s.job.fill = fill;
	s.job.nfill = find_fillers(in, h, funcs, n, out, fill);
	xb_heat_line *pre;
	int rc = find_preload(in, h, out, funcs, n, s.job.start, &pre, &s.job.npre, err);
	s.job.pre = pre;
	colour_job_init_shapes(&s.job);
	if (rc == 0)
		rc = search_run(&s, out, misses);
	for (size_t i = 0; i < s.nc; i++)
		layout_free(&s.c[i].l);
	free(s.c);
	colour_job_free_shapes(&s.job);
	free(pre);
	free(order[0]);
	free(order[1]);
	free(fill);
	free(sec);
	return rc;
}

/* What plan_predict says of l (misses per echo by trace replay with a trace, else the
 * conflict score), from the heat at hand and without OPT, and its padding. A replay is
 * skipped when *cost already holds its result. */
static int predicted_cost(const xb_plan_input *in, const xb_heat *h, const xb_layout *l,
			  double *cost, uint32_t *pad, xb_err *err)
{
	xb_placement p;
	if (plan_place(in, l, &p, err) != 0)
		return -1;
	int rc = 0;
	*pad = p.pad_bytes;
	if (in->trace && !isnan(*cost)) {
		/* replayed already */
	} else if (in->trace) {
		rc = plan_replayed_misses(in, &p, cost, err);
	} else {
		*cost = plan_conflict_score(in, h, &p, NULL);
	}
	placement_free(&p);
	return rc;
}

/* The better of two layouts by the prediction (ca: a's replayed misses, or NaN); on a
 * tie, the one with less padding. Keeps *a (returns 0) or takes *b (returns 1). */
static int prefer_better(const xb_plan_input *in, const xb_heat *h, xb_layout *a, double ca,
			 xb_layout *b, xb_err *err)
{
	double cb = NAN;
	uint32_t pa, pb;
	if (predicted_cost(in, h, a, &ca, &pa, err) != 0 ||
	    predicted_cost(in, h, b, &cb, &pb, err) != 0)
		return -1;
	if (cb < ca || (cb == ca && pb < pa)) {
		xb_layout t = *a;
		*a = *b;
		*b = t;
		return 1;
	}
	return 0;
}

/* Candidates are told apart by replaying a stretch of the trace, not all of it: whole
 * echoes from the first (which only warms the cache) until PLAN_TRACE_FETCHES fetches, at
 * least two counted echoes. The echoes of one workload repeat, so a few dozen rank the
 * candidates as all of them would, at a fraction of the time; the prediction afterwards
 * (plan_predict) replays the whole trace. Window marks are left out: candidates are
 * compared on their misses per echo alone. */
#define PLAN_TRACE_FETCHES (2u << 20)

static const xb_trace *planning_trace(const xb_trace *t, xb_trace *buf)
{
	if (!t || t->n <= PLAN_TRACE_FETCHES || t->necho < 4)
		return t;
	trace_init(buf);
	for (size_t i = 0; i < t->necho; i++) {
		size_t b, e;
		trace_echo_range(t, i, &b, &e);
		if (i >= 3 && buf->n + (e - b) > PLAN_TRACE_FETCHES)
			break;
		if (i > 0)
			trace_mark_echo(buf);
		for (size_t k = b; k < e; k++)
			if (t->addr[k] < XB_TRACE_MARK_IDLE || t->addr[k] > XB_TRACE_MARK_END)
				trace_push(buf, t->addr[k]);
	}
	return buf;
}

/* Colours funcs into out; when the result is predicted no better than the same functions
 * packed in order (nothing to gain from padding, e.g. every line equally hot and far more
 * of them than the cache holds), the packed order is kept instead. */
int plan_colour_or_pack(const xb_plan_input *in, const xb_heat *h, const int *funcs,
			size_t n, xb_layout *out, xb_err *err)
{
	xb_layout packed;
	layout_init(&packed);
	memcpy(packed.strategy, out->strategy, sizeof packed.strategy);
	for (size_t i = 0; i < out->n; i++)
		layout_add(&packed, out->e[i].func, out->e[i].place, out->e[i].way_offset);
	for (size_t k = 0; k < n; k++)
		layout_add(&packed, funcs[k], XB_PLACE_HOT, 0);
	xb_trace stretch;
	xb_plan_input pin = *in;
	pin.trace = planning_trace(in->trace, &stretch);
	double misses;
	int rc = colour_functions(&pin, h, funcs, n, out, &misses, err);
	if (rc == 0 && pin.trace)
		rc = plan_search(&pin, out, &misses, err);
	if (rc == 0 && prefer_better(&pin, h, out, misses, &packed, err) < 0)
		rc = -1;
	if (pin.trace != in->trace)
		trace_free(&stretch);
	layout_free(&packed);
	return rc;
}
