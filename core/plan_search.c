/* plan_search: a local search that improves a coloured layout by exact replay of the trace.
 * The layout's hot-block sections get other start sets (a shift by whole lines, so that
 * every fetch keeps its place in its line) or another order in the block; each candidate
 * is placed as the linker will (plan_place: the padding budget is checked on the real
 * padding) and judged by its misses, which only the cache sets the moved sections leave or
 * enter can change: those sets alone are replayed (per-set LRU over the fetches that fall
 * in them, same-line runs collapsed; the first echoes of a long trace only, the result
 * judged on all of it). Moves are accepted by simulated annealing from a
 * PRNG seeded by in->search_seed, restarting from the best layout when a stretch brings
 * nothing; the search stops after in->search_moves candidates or in->search_seconds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opt.h"
#include "plan_internal.h"

/* Fetches of the trace the search replays: whole echoes up to this many (at least four). */
#define SEARCH_FETCHES (768u << 10)

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
	return n ? (uint32_t)(rng_next(s) % n) : 0;
}

static double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct idx_vec {
	uint32_t *v;
	size_t n, cap;
} idx_vec;

static void idx_push(idx_vec *x, uint32_t i)
{
	xb_grow(&x->v, &x->cap, x->n + 1, sizeof *x->v);
	x->v[x->n++] = i;
}

/* The trace as the cache sees it under the current layout. */
typedef struct model {
	uint32_t nsets, ways, line_shift;
	size_t n, from;          /* accesses; the first counted one */
	uint32_t *line;          /* per access: its line under the current layout */
	int32_t *sec;            /* per access: its map input, or -1 */
	uint8_t *mode;           /* per access: the alias mode */
	int modes;               /* some access is not through the cached, allocating alias */
	uint64_t fixed;          /* counted misses that no layout changes (bypassing fetches) */
	idx_vec *set;            /* per set: its accesses, in trace order */
	uint64_t *miss;          /* per set: counted misses */
	uint64_t total;
	/* per map input: its accesses (trace order) and its address under the layout */
	size_t ninputs;
	uint32_t *sec_start, *sec_acc, *addr;
	/* scratch */
	uint32_t *stamp, stamp_now;
	uint32_t *slot;
	idx_vec *tmp;
	size_t ntmp_cap;
	uint32_t *touched;
	uint64_t *tmp_miss;
	size_t *len0;
	uint32_t *scratch;
	size_t scratch_cap;
} model;

/* Merges the sorted runs v[0, mid) and v[mid, n). */
static void merge_runs(uint32_t *v, size_t mid, size_t n, uint32_t **scratch, size_t *cap)
{
	if (!mid || v[mid - 1] < v[mid])
		return;
	xb_grow(scratch, cap, mid, sizeof **scratch);
	memcpy(*scratch, v, mid * sizeof *v);
	size_t a = 0, b = mid, o = 0;
	const uint32_t *left = *scratch;
	while (a < mid && b < n)
		v[o++] = left[a] < v[b] ? left[a++] : v[b++];
	while (a < mid)
		v[o++] = left[a++];
}

/* Counted misses of the accesses acc[0..n) (trace order) of one set, with lines shifted by
 * dl for the accesses of inputs marked in moved. */
static uint64_t replay_set(const model *m, const uint32_t *acc, size_t n, const int32_t *dl,
			   const uint8_t *moved)
{
	uint32_t tag[16];
	uint32_t ways = m->ways, used = 0;
	uint64_t misses = 0;
	if (ways == 2 && !m->modes) {
		/* two ways, every fetch cached and allocating: the RP2040's case, kept lean */
		uint32_t t0 = 0, t1 = 0; /* 0: empty */
		for (size_t k = 0; k < n; k++) {
			uint32_t i = acc[k];
			int32_t s = m->sec[i];
			uint32_t t = m->line[i] + (s >= 0 && moved && moved[s] ? (uint32_t)dl[s] : 0) + 1;
			if (t == t0)
				continue;
			if (t != t1)
				misses += i >= m->from;
			t1 = t0;
			t0 = t;
		}
		return misses;
	}
	for (size_t k = 0; k < n; k++) {
		uint32_t i = acc[k];
		int32_t s = m->sec[i];
		uint32_t t = m->line[i] + (s >= 0 && moved && moved[s] ? (uint32_t)dl[s] : 0) + 1;
		uint32_t w = 0;
		while (w < used && tag[w] != t)
			w++;
		int hit = w < used;
		if (m->mode[i] == XB_ALIAS_UNCACHED_ALLOC)
			hit = 0;
		if (!hit && i >= m->from)
			misses++;
		if (w < used) {
			for (; w > 0; w--)
				tag[w] = tag[w - 1];
			tag[0] = t;
		} else if (m->mode[i] != XB_ALIAS_CACHED_NOALLOC) {
			if (used < ways)
				used++;
			for (w = used - 1; w > 0; w--)
				tag[w] = tag[w - 1];
			tag[0] = t;
		}
	}
	return misses;
}

static void model_free(model *m)
{
	for (uint32_t s = 0; m->set && s < m->nsets; s++)
		free(m->set[s].v);
	for (size_t k = 0; k < m->ntmp_cap; k++)
		free(m->tmp[k].v);
	free(m->set);
	free(m->tmp);
	free(m->miss);
	free(m->line);
	free(m->sec);
	free(m->mode);
	free(m->sec_start);
	free(m->sec_acc);
	free(m->addr);
	free(m->stamp);
	free(m->slot);
	free(m->touched);
	free(m->tmp_miss);
	free(m->len0);
	free(m->scratch);
	memset(m, 0, sizeof *m);
}

/* The map input holding flash address a under p, or -1: inputs sorted by address. */
static int32_t input_of(const uint32_t *order, size_t n, const xb_placement *p,
			const xb_image *img, uint32_t a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->input_addr[order[mid]] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	uint32_t i = order[lo - 1];
	return a - p->input_addr[i] < img->map.inputs[i].size ? (int32_t)i : -1;
}

static const xb_placement *sort_place;
static int lower_addr_first(const void *a, const void *b)
{
	uint32_t x = sort_place->input_addr[*(const uint32_t *)a];
	uint32_t y = sort_place->input_addr[*(const uint32_t *)b];
	return x < y ? -1 : x > y;
}

/* Builds the model of in->trace under placement p. */
static void model_build(model *m, const xb_plan_input *in, const xb_placement *p)
{
	const xb_target *tg = in->tg;
	const xb_image *img = in->img;
	memset(m, 0, sizeof *m);
	m->nsets = target_sets(tg);
	m->ways = tg->cache.ways;
	for (uint32_t l = tg->cache.line; l > 1; l >>= 1)
		m->line_shift++;
	m->ninputs = img->map.ninputs;
	uint32_t *order = xmalloc((m->ninputs + 1) * sizeof *order);
	size_t nord = 0;
	for (size_t i = 0; i < m->ninputs; i++) {
		const xb_region *r = target_region_of(tg, p->input_addr[i]);
		if (r && r->kind == XB_REGION_FLASH && img->map.inputs[i].size)
			order[nord++] = (uint32_t)i;
	}
	sort_place = p;
	qsort(order, nord, sizeof *order, lower_addr_first);
	sort_place = NULL;
	xb_trace moved;
	layout_apply_trace(img, tg, p, in->trace, &moved);
	size_t from = trace_counted_from(&moved);
	m->line = xmalloc((moved.n + 1) * sizeof *m->line);
	m->sec = xmalloc((moved.n + 1) * sizeof *m->sec);
	m->mode = xmalloc(moved.n + 1);
	m->from = SIZE_MAX;
	int32_t hint_sec = -1;
	uint32_t prev_line = UINT32_MAX;
	for (size_t i = 0; i < moved.n; i++) {
		uint32_t off;
		enum xb_alias_mode mode;
		if (!target_decode_xip(tg, moved.addr[i], &off, &mode))
			continue;
		if (mode == XB_ALIAS_UNCACHED_NOALLOC) {
			m->fixed += i >= from;
			continue;
		}
		uint32_t a = tg->flash_base + off, line = off >> m->line_shift;
		int32_t s = hint_sec >= 0 && a - p->input_addr[hint_sec] < img->map.inputs[hint_sec].size
			? hint_sec
			: input_of(order, nord, p, img, a);
		hint_sec = s;
		/* a run in one line of one input: only its first fetch can miss */
		if (m->n && mode == XB_ALIAS_CACHED_ALLOC && m->mode[m->n - 1] == XB_ALIAS_CACHED_ALLOC &&
		    line == prev_line && m->sec[m->n - 1] == s && (i < from || m->from != SIZE_MAX))
			continue;
		if (i >= from && m->from == SIZE_MAX)
			m->from = m->n;
		m->line[m->n] = line;
		m->sec[m->n] = s;
		m->mode[m->n] = (uint8_t)mode;
		m->modes |= mode != XB_ALIAS_CACHED_ALLOC;
		m->n++;
		prev_line = line;
	}
	if (m->from == SIZE_MAX)
		m->from = m->n;
	trace_free(&moved);
	free(order);
	/* per input, per set */
	m->sec_start = xcalloc(m->ninputs + 2, sizeof *m->sec_start);
	m->sec_acc = xmalloc((m->n + 1) * sizeof *m->sec_acc);
	for (size_t i = 0; i < m->n; i++)
		if (m->sec[i] >= 0)
			m->sec_start[m->sec[i] + 1]++;
	for (size_t s = 0; s < m->ninputs; s++)
		m->sec_start[s + 1] += m->sec_start[s];
	uint32_t *fillp = xmalloc((m->ninputs + 1) * sizeof *fillp);
	memcpy(fillp, m->sec_start, m->ninputs * sizeof *fillp);
	for (size_t i = 0; i < m->n; i++)
		if (m->sec[i] >= 0)
			m->sec_acc[fillp[m->sec[i]]++] = (uint32_t)i;
	free(fillp);
	m->addr = xmalloc((m->ninputs + 1) * sizeof *m->addr);
	memcpy(m->addr, p->input_addr, m->ninputs * sizeof *m->addr);
	m->set = xcalloc(m->nsets, sizeof *m->set);
	m->miss = xcalloc(m->nsets, sizeof *m->miss);
	for (size_t i = 0; i < m->n; i++)
		idx_push(&m->set[m->line[i] & (m->nsets - 1)], (uint32_t)i);
	m->total = m->fixed;
	for (uint32_t s = 0; s < m->nsets; s++) {
		m->miss[s] = replay_set(m, m->set[s].v, m->set[s].n, NULL, NULL);
		m->total += m->miss[s];
	}
	m->stamp = xcalloc(m->nsets, sizeof *m->stamp);
	m->slot = xcalloc(m->nsets, sizeof *m->slot);
	m->touched = xmalloc((m->nsets + 1) * sizeof *m->touched);
	m->tmp_miss = xmalloc((m->nsets + 1) * sizeof *m->tmp_miss);
	m->len0 = xmalloc((m->nsets + 1) * sizeof *m->len0);
}

/* A candidate: the inputs that move (by whole lines, dl[s] lines; moved[s] set) and the
 * misses it gives. Evaluates into the scratch (m->tmp per touched set). Returns the new
 * total, or UINT64_MAX when a move is not by whole lines (not modelled). */
static uint64_t model_try(model *m, const xb_placement *p, int32_t *dl, uint8_t *moved,
			  uint32_t *list, size_t *nlist, size_t *ntouched)
{
	uint32_t L = 1u << m->line_shift, mask = m->nsets - 1;
	*nlist = 0;
	for (size_t s = 0; s < m->ninputs; s++) {
		if (m->sec_start[s + 1] == m->sec_start[s] || p->input_addr[s] == m->addr[s])
			continue;
		uint32_t d = p->input_addr[s] - m->addr[s];
		if (d & (L - 1)) {
			for (size_t k = 0; k < *nlist; k++)
				moved[list[k]] = 0;
			*nlist = 0;
			return UINT64_MAX;
		}
		dl[s] = (int32_t)d >> m->line_shift;
		/* 2: by whole ways, its sets and their misses stay (only its lines' tags change) */
		moved[s] = ((uint32_t)dl[s] & mask) ? 1 : 2;
		list[(*nlist)++] = (uint32_t)s;
	}
	if (++m->stamp_now == 0) {
		memset(m->stamp, 0, m->nsets * sizeof *m->stamp);
		m->stamp_now = 1;
	}
	size_t nt = 0;
	for (size_t k = 0; k < *nlist; k++) {
		uint32_t s = list[k];
		for (uint32_t j = m->sec_start[s]; j < m->sec_start[s + 1] && moved[s] == 1; j++) {
			uint32_t i = m->sec_acc[j];
			uint32_t sets[2] = {m->line[i] & mask, (m->line[i] + (uint32_t)dl[s]) & mask};
			for (int q = 0; q < 2; q++) {
				if (m->stamp[sets[q]] == m->stamp_now)
					continue;
				m->stamp[sets[q]] = m->stamp_now;
				m->slot[sets[q]] = (uint32_t)nt;
				m->touched[nt++] = sets[q];
			}
		}
	}
	if (nt > m->ntmp_cap) {
		m->tmp = xrealloc(m->tmp, nt * sizeof *m->tmp);
		memset(m->tmp + m->ntmp_cap, 0, (nt - m->ntmp_cap) * sizeof *m->tmp);
		m->ntmp_cap = nt;
	}
	for (size_t t = 0; t < nt; t++) {
		idx_vec *x = &m->tmp[t];
		const idx_vec *old = &m->set[m->touched[t]];
		x->n = 0;
		for (size_t k = 0; k < old->n; k++) {
			int32_t s = m->sec[old->v[k]];
			if (s < 0 || moved[s] != 1)
				idx_push(x, old->v[k]);
		}
	}
	/* each input's accesses come in trace order: merged into each set's list */
	for (size_t t = 0; t < nt; t++)
		m->len0[t] = m->tmp[t].n;
	for (size_t k = 0; k < *nlist; k++) {
		uint32_t s = list[k];
		if (moved[s] != 1)
			continue;
		for (uint32_t j = m->sec_start[s]; j < m->sec_start[s + 1]; j++) {
			uint32_t i = m->sec_acc[j];
			idx_push(&m->tmp[m->slot[(m->line[i] + (uint32_t)dl[s]) & mask]], i);
		}
		for (size_t t = 0; t < nt; t++) {
			idx_vec *x = &m->tmp[t];
			if (x->n > m->len0[t]) {
				merge_runs(x->v, m->len0[t], x->n, &m->scratch, &m->scratch_cap);
				m->len0[t] = x->n;
			}
		}
	}
	uint64_t total = m->total;
	for (size_t t = 0; t < nt; t++) {
		idx_vec *x = &m->tmp[t];
		m->tmp_miss[t] = replay_set(m, x->v, x->n, dl, moved);
		total += m->tmp_miss[t];
		total -= m->miss[m->touched[t]];
	}
	*ntouched = nt;
	return total;
}

/* Takes the candidate model_try evaluated last. */
static void model_accept(model *m, const xb_placement *p, const int32_t *dl,
			 const uint32_t *list, size_t nlist, size_t nt, uint64_t total)
{
	for (size_t k = 0; k < nlist; k++) {
		uint32_t s = list[k];
		for (uint32_t j = m->sec_start[s]; j < m->sec_start[s + 1]; j++)
			m->line[m->sec_acc[j]] += (uint32_t)dl[s];
	}
	for (size_t t = 0; t < nt; t++) {
		idx_vec x = m->set[m->touched[t]];
		m->set[m->touched[t]] = m->tmp[t];
		m->tmp[t] = x;
		m->miss[m->touched[t]] = m->tmp_miss[t];
	}
	memcpy(m->addr, p->input_addr, m->ninputs * sizeof *m->addr);
	m->total = total;
}

/* An entry (index into mov) whose section takes part in a miss, chosen with the misses'
 * weight: a set by its misses, then one of its accesses; dflt when it is none of them. */
static uint32_t where_misses(const model *m, const xb_layout *l, const xb_image *img,
			     const uint32_t *mov, size_t nmov, uint64_t *seed, uint32_t dflt)
{
	uint64_t total = m->total - m->fixed;
	if (!total)
		return dflt;
	uint64_t pick = rng_next(seed) % total;
	uint32_t s = 0;
	for (; s + 1 < m->nsets && pick >= m->miss[s]; s++)
		pick -= m->miss[s];
	const idx_vec *x = &m->set[s];
	if (!x->n)
		return dflt;
	int32_t input = m->sec[x->v[rng_below(seed, (uint32_t)x->n)]];
	for (size_t a = 0; input >= 0 && a < nmov; a++)
		if (img->funcs[l->e[mov[a]].func].input == input)
			return (uint32_t)a;
	return dflt;
}

/* Where f starts in its input section. */
static uint32_t func_offset(const xb_image *img, const xb_function *f)
{
	return (uint32_t)(f->addr - img->map.inputs[f->input].addr);
}

static void layout_copy(xb_layout *dst, const xb_layout *src)
{
	dst->n = 0;
	for (size_t i = 0; i < src->n; i++)
		layout_add(dst, src->e[i].func, src->e[i].place, src->e[i].way_offset);
}

/* Full replay of l: misses per echo (counted as the planners compare candidates). */
static int full_misses(const xb_plan_input *in, const xb_layout *l, double *out, xb_err *err)
{
	xb_placement p;
	if (plan_place(in, l, &p, err) != 0)
		return -1;
	xb_trace moved;
	layout_apply_trace(in->img, in->tg, &p, in->trace, &moved);
	xb_replay r;
	int rc = replay_trace(in->tg, &moved, &r, err);
	trace_free(&moved);
	placement_free(&p);
	if (rc == 0)
		*out = r.misses_per_echo;
	return rc;
}

int plan_search(const xb_plan_input *in, xb_layout *l, double *misses, xb_err *err)
{
	xb_plan_search_stats st = {.start_misses = *misses, .end_misses = *misses};
	double t0 = now_seconds();
	if (!in->trace || (!in->search_moves && in->search_seconds <= 0) ||
	    in->tg->cache.policy != XB_POLICY_LRU || in->tg->cache.fill != in->tg->cache.line ||
	    in->tg->cache.ways > 16) {
		if (in->search_stats)
			*in->search_stats = st;
		return 0;
	}
	xb_placement p;
	if (plan_place(in, l, &p, err) != 0)
		return -1;
	/* the search replays the first echoes only (they repeat); the result is judged on all */
	xb_trace view = *in->trace;
	for (size_t k = 4; k < view.necho; k++)
		if (view.echo[k] > SEARCH_FETCHES) {
			view.n = view.echo[k];
			view.necho = k;
			break;
		}
	xb_plan_input sin = *in;
	sin.trace = &view;
	model m;
	model_build(&m, &sin, &p);
	size_t echoes = trace_echo_count(&view);
	double per_echo = echoes ? 1.0 / (double)echoes : 1.0;
	uint32_t way = target_way_bytes(in->tg), L = in->tg->cache.line;
	int rc = 0;
	/* the entries of the hot block, each given the start set it has (the same placement),
	 * so that a move of one leaves the others where they are */
	uint32_t *mov = xmalloc((l->n + 1) * sizeof *mov);
	size_t nmov = 0;
	xb_layout cur, cand, best;
	layout_init(&cur);
	layout_init(&cand);
	layout_init(&best);
	layout_copy(&cur, l);
	for (size_t k = 0; k < l->n; k++) {
		const xb_function *f = &in->img->funcs[l->e[k].func];
		if ((l->e[k].place == XB_PLACE_COLOUR || l->e[k].place == XB_PLACE_HOT) && f->input >= 0) {
			mov[nmov++] = (uint32_t)k;
			cur.e[k].place = XB_PLACE_COLOUR;
			cur.e[k].way_offset = (p.input_addr[f->input] + func_offset(in->img, f)) & (way - 1);
		}
	}
	xb_placement pc;
	if (plan_place(in, &cur, &pc, err) != 0) {
		nmov = 0;
		rc = -1;
	} else {
		/* the same addresses; the padding may count alignment gaps it did not */
		if (pc.pad_bytes > in->pad_budget ||
		    memcmp(pc.input_addr, p.input_addr, m.ninputs * sizeof *p.input_addr) != 0)
			layout_copy(&cur, l); /* not expected: search the layout as it is */
		placement_free(&pc);
	}
	/* the calls only place veneers, and a layout all in flash makes none */
	/* the calls only place veneers, and only a call to or from a section out of flash
	 * makes one: those stay the same while the search runs, and the others need not be
	 * looked at for every candidate */
	xb_plan_input fast = *in;
	xb_calls few;
	calls_init(&few);
	if (in->calls) {
		int8_t *off = xcalloc(m.ninputs + 1, 1);
		for (size_t k = 0; k < l->n; k++) {
			int input = in->img->funcs[l->e[k].func].input;
			if (input >= 0 && (l->e[k].place == XB_PLACE_SRAM || l->e[k].place == XB_PLACE_NOALLOC))
				off[input] = 1;
		}
		for (size_t k = 0; k < in->calls->n; k++) {
			long a = mapfile_input_at(&in->img->map, in->calls->v[k].site);
			long b = mapfile_input_at(&in->img->map, in->calls->v[k].target);
			if ((a >= 0 && off[a]) || (b >= 0 && off[b]))
				calls_add(&few, in->calls->v[k].site, in->calls->v[k].target);
		}
		free(off);
		fast.calls = few.n ? &few : NULL;
	}
	int32_t *dl = xcalloc(m.ninputs + 1, sizeof *dl);
	uint8_t *moved = xcalloc(m.ninputs + 1, 1);
	uint32_t *list = xmalloc((m.ninputs + 1) * sizeof *list);
	layout_copy(&best, &cur);
	uint64_t best_total = m.total, seed = in->search_seed;
	st.model_start = (double)m.total * per_echo;
	uint32_t limit = in->search_moves ? in->search_moves : UINT32_MAX;
	double temp0 = 0.002 * (double)m.total, since_best = 0;
	for (uint32_t it = 0; it < limit && nmov && rc == 0; it++) {
		if (in->search_seconds > 0 && (it & 15) == 0 && now_seconds() - t0 > in->search_seconds)
			break;
		layout_copy(&cand, &cur);
		uint32_t r = rng_below(&seed, 100), a = rng_below(&seed, (uint32_t)nmov);
		if (rng_below(&seed, 2))
			a = where_misses(&m, &cand, in->img, mov, nmov, &seed, a);
		xb_layout_entry *e = &cand.e[mov[a]];
		const xb_function *f = &in->img->funcs[e->func];
		uint32_t step = in->img->input_align[f->input] > L ? in->img->input_align[f->input] : L;
		uint32_t start = m.addr[f->input], size = (uint32_t)in->img->map.inputs[f->input].size;
		if (r < 30 && nmov > 1) {
			/* two neighbours in the block change places: the second starts where the
			 * first did, the first right after it */
			uint32_t b = a + 1 < nmov ? a + 1 : a - 1, lo = a < b ? a : b, hi = a < b ? b : a;
			xb_layout_entry *x = &cand.e[mov[lo]], *y = &cand.e[mov[hi]];
			const xb_function *fx = &in->img->funcs[x->func], *fy = &in->img->funcs[y->func];
			uint32_t at = m.addr[fx->input];
			uint32_t ay = plan_align_up(at, in->img->input_align[fy->input]);
			uint32_t ax = plan_align_up(ay + (uint32_t)in->img->map.inputs[fy->input].size,
						    in->img->input_align[fx->input]);
			y->way_offset = (ay + func_offset(in->img, fy)) & (way - 1);
			x->way_offset = (ax + func_offset(in->img, fx)) & (way - 1);
			xb_layout_entry t = *x;
			*x = *y;
			*y = t;
		} else if (r < 60 && nmov > 2) {
			/* one section moves into the room in front of another */
			uint32_t b = rng_below(&seed, (uint32_t)nmov);
			if (b == a || b == a + 1 || b == 0)
				continue;
			const xb_function *fb = &in->img->funcs[cand.e[mov[b]].func];
			const xb_function *fp = &in->img->funcs[cand.e[mov[b - 1]].func];
			uint32_t lo = m.addr[fp->input] + (uint32_t)in->img->map.inputs[fp->input].size;
			uint32_t hi = m.addr[fb->input];
			lo = plan_align_up(lo, step);
			if (hi < lo + size)
				continue;
			uint32_t room = (hi - size - lo) / step;
			uint32_t at = lo + rng_below(&seed, room + 1) * step;
			e->way_offset = (at + func_offset(in->img, f)) & (way - 1);
			xb_layout_entry t = *e;
			uint32_t to = a < b ? b - 1 : b;
			for (; a < to; a++)
				cand.e[mov[a]] = cand.e[mov[a + 1]];
			for (; a > to; a--)
				cand.e[mov[a]] = cand.e[mov[a - 1]];
			cand.e[mov[to]] = t;
		} else {
			/* another start set: a few lines either way, or anywhere */
			uint32_t steps = way / step;
			uint32_t d = r < 65 ? rng_below(&seed, steps - 1) + 1
				     : (rng_below(&seed, 2) ? rng_below(&seed, 8) + 1
							    : steps - 1 - rng_below(&seed, 8));
			e->way_offset = (start + func_offset(in->img, f) + d * step) & (way - 1);
		}
		xb_placement cp;
		if (plan_place(&fast, &cand, &cp, err) != 0) {
			rc = -1;
			break;
		}
		st.moves++;
		size_t nlist = 0, nt = 0;
		uint64_t total = cp.pad_bytes <= in->pad_budget
			? model_try(&m, &cp, dl, moved, list, &nlist, &nt)
			: UINT64_MAX;
		if (total != UINT64_MAX) {
			double temp = temp0 * (1.0 - (double)it / (double)(limit == UINT32_MAX ? 100000 : limit));
			double delta = (double)total - (double)m.total;
			int take = delta <= 0 || (temp > 0 && rng_unit(&seed) < exp(-delta / temp));
			if (take) {
				model_accept(&m, &cp, dl, list, nlist, nt, total);
				layout_copy(&cur, &cand);
				st.accepted++;
				if (total < best_total) {
					best_total = total;
					layout_copy(&best, &cur);
					since_best = 0;
				}
			}
			for (size_t k = 0; k < nlist; k++)
				moved[list[k]] = 0;
		}
		placement_free(&cp);
		if (++since_best > 2000 && m.total > best_total) {
			/* restart from the best */
			xb_placement bp;
			if (plan_place(in, &best, &bp, err) != 0) {
				rc = -1;
				break;
			}
			size_t nl, ntt;
			uint64_t t = model_try(&m, &bp, dl, moved, list, &nl, &ntt);
			if (t != UINT64_MAX) {
				model_accept(&m, &bp, dl, list, nl, ntt, t);
				layout_copy(&cur, &best);
			}
			for (size_t k = 0; k < nl; k++)
				moved[list[k]] = 0;
			placement_free(&bp);
			since_best = 0;
			st.restarts++;
		}
	}
	st.model_end = (double)best_total * per_echo;
	double after = NAN;
	if (rc == 0 && best_total < st.model_start / per_echo)
		rc = full_misses(in, &best, &after, err);
	if (rc == 0 && !isnan(after) && !(after >= *misses)) {
		layout_copy(l, &best);
		*misses = after;
		st.end_misses = after;
	}
	st.seconds = now_seconds() - t0;
	if (in->search_stats)
		*in->search_stats = st;
	layout_free(&cur);
	layout_free(&cand);
	layout_free(&best);
	free(dl);
	free(moved);
	free(list);
	free(mov);
	calls_free(&few);
	model_free(&m);
	placement_free(&p);
	return rc;
}
