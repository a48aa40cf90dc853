/* plan_search: a local search that improves a coloured layout by exact replay of the trace.
 * The layout's hot-block sections get other start sets (each keeping its offset in a line,
 * so that every fetch keeps its place in its line) or another order in the block, and an
 * SRAM section changes places with a flash one; each candidate is placed as the linker will
 * (plan_place: the padding and SRAM budgets are checked on the real placement) and judged
 * by its misses, which only the cache sets the moved sections leave or enter can change:
 * those sets alone are replayed (per-set LRU over the fetches that fall in them, same-line
 * runs collapsed; the first echoes of a long trace only, the result judged on all of it).
 * Moves are accepted by simulated annealing from a PRNG seeded by in->search_seed,
 * restarting from the best layout when a stretch brings nothing; the search stops after
 * in->search_moves moves or in->search_seconds. Before the moves and after them, SRAM
 * sections are exchanged by the misses they save (sram_exchange). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opt.h"
#include "plan_internal.h"

/* Candidates in a hundred that trade an SRAM section for a flash one. */
#define TRADE_SHARE 4u
/* The SRAM exchange: rounds at most, and candidates counted anew per round at most. */
#define EXCHANGE_ROUNDS 32
#define EXCHANGE_CHECKS 2u

/* SRAM sections drawn for a trade, the sparsest taken. */
#define TRADE_TOURNAMENT 4

/* Fetches of the trace the search replays: whole echoes up to this many (at least four). */
#define SEARCH_FETCHES (512u << 10)

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
	/* per map input: its accesses (trace order), its address under the layout (for one
	 * out of flash, the flash address its lines are counted from) and whether it is out of
	 * flash (its accesses in no set) */
	size_t ninputs, nsec;     /* nsec: the inputs, then the flash veneers */
	uint32_t *sec_start, *sec_acc, *addr;
	uint8_t *out;
	uint64_t *ven_key;        /* per flash veneer (after the inputs): its stub section's
				   * output << 32 | its target; sorted */
	size_t nven;
	const xb_target *tg;
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
	free(m->out);
	free(m->ven_key);
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

static int lower_addr_first(const void *a, const void *b, void *place)
{
	const xb_placement *p = place;
	uint32_t x = p->input_addr[*(const uint32_t *)a];
	uint32_t y = p->input_addr[*(const uint32_t *)b];
	return x < y ? -1 : x > y;
}

/* Whether a is in the target's flash. */
static int in_flash(const xb_target *tg, uint32_t a)
{
	const xb_region *r = target_region_of(tg, a);
	return r && r->kind == XB_REGION_FLASH;
}

/* The input of ram[0..nram) whose SRAM range under p holds a, or -1. */
static int32_t ram_input_of(const uint32_t *ram, size_t nram, const xb_placement *p,
			    const xb_image *img, uint32_t a)
{
	for (size_t k = 0; k < nram; k++)
		if (a - p->input_addr[ram[k]] < img->map.inputs[ram[k]].size)
			return (int32_t)ram[k];
	return -1;
}

static uint64_t veneer_key(const xb_veneer *v)
{
	return (uint64_t)(uint32_t)v->out << 32 | v->target;
}

typedef struct addr_index {
	uint32_t addr, index;
} addr_index;

static int lower_first(const void *a, const void *b)
{
	const addr_index *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The flash veneer (index into by_addr's entries) holding a, or -1. */
static int32_t veneer_at(const addr_index *by_addr, size_t n, uint32_t a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (by_addr[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && a - by_addr[lo - 1].addr < XB_VENEER_BYTES ? (int32_t)by_addr[lo - 1].index : -1;
}

/* Builds the model of in->trace under placement p. The inputs ram[0..nram) are in SRAM
 * under p: their fetches are kept (in no set) with lines counted from a flash address of
 * the same offset in a line, so that a move back into flash puts them in their sets.
 * Each veneer in flash is a section of its own, which the layout moves with its stub
 * section. (GNU ld orders the veneers in a stub section its own way, by a hash of their
 * names: the model has them in the placement's order, so which set each one takes is a
 * guess, but which sets the stub section takes, and how often its lines are fetched,
 * are not.) */
static void model_build(model *m, const xb_plan_input *in, const xb_placement *p,
			const uint32_t *ram, size_t nram)
{
	const xb_target *tg = in->tg;
	const xb_image *img = in->img;
	memset(m, 0, sizeof *m);
	m->tg = tg;
	m->nsets = target_sets(tg);
	m->ways = tg->cache.ways;
	for (uint32_t l = tg->cache.line; l > 1; l >>= 1)
		m->line_shift++;
	size_t ninputs = img->map.ninputs;
	uint32_t *order = xmalloc((ninputs + 1) * sizeof *order);
	size_t nord = 0;
	for (size_t i = 0; i < ninputs; i++) {
		const xb_region *r = target_region_of(tg, p->input_addr[i]);
		if (r && r->kind == XB_REGION_FLASH && img->map.inputs[i].size)
			order[nord++] = (uint32_t)i;
	}
	qsort_r(order, nord, sizeof *order, lower_addr_first, (void *)p);
	xb_trace moved;
	layout_apply_trace(img, tg, p, in->trace, &moved);
	size_t from = trace_counted_from(&moved);
	m->line = xmalloc((moved.n + 1) * sizeof *m->line);
	m->sec = xmalloc((moved.n + 1) * sizeof *m->sec);
	m->mode = xmalloc(moved.n + 1);
	m->from = SIZE_MAX;
	m->ninputs = img->map.ninputs;
	m->ven_key = xmalloc((p->nveneers + 1) * sizeof *m->ven_key);
	addr_index *ven = xmalloc((p->nveneers + 1) * sizeof *ven);
	for (size_t k = 0; k < p->nveneers; k++)
		if (in_flash(tg, p->veneers[k].addr)) {
			ven[m->nven] = (addr_index){p->veneers[k].addr, (uint32_t)m->nven};
			m->ven_key[m->nven++] = veneer_key(&p->veneers[k]);
		}
	m->nsec = m->ninputs + m->nven;
	m->addr = xmalloc((m->nsec + 1) * sizeof *m->addr);
	memcpy(m->addr, p->input_addr, m->ninputs * sizeof *m->addr);
	for (size_t k = 0; k < m->nven; k++)
		m->addr[m->ninputs + ven[k].index] = ven[k].addr;
	qsort(ven, m->nven, sizeof *ven, lower_first);
	m->out = xcalloc(m->nsec + 1, 1);
	uint32_t L = 1u << m->line_shift;
	for (size_t k = 0; k < nram; k++) {
		m->out[ram[k]] = 1;
		m->addr[ram[k]] = tg->flash_base + (p->input_addr[ram[k]] & (L - 1));
	}
	int32_t hint_sec = -1;
	uint32_t prev_line = UINT32_MAX;
	for (size_t i = 0; i < moved.n; i++) {
		uint32_t off, a;
		int32_t s;
		enum xb_alias_mode mode;
		if (!target_decode_xip(tg, moved.addr[i], &off, &mode)) {
			s = nram ? ram_input_of(ram, nram, p, img, moved.addr[i]) : -1;
			if (s < 0)
				continue;
			mode = XB_ALIAS_CACHED_ALLOC;
			a = m->addr[s] + (moved.addr[i] - p->input_addr[s]);
			off = a - tg->flash_base;
		} else {
			if (mode == XB_ALIAS_UNCACHED_NOALLOC) {
				m->fixed += i >= from;
				continue;
			}
			a = tg->flash_base + off;
			s = hint_sec >= 0 && (size_t)hint_sec < m->ninputs &&
					    a - p->input_addr[hint_sec] < img->map.inputs[hint_sec].size
				? hint_sec
				: input_of(order, nord, p, img, a);
			if (s < 0 && m->nven) {
				int32_t v = veneer_at(ven, m->nven, a);
				s = v >= 0 ? (int32_t)m->ninputs + v : -1;
			}
		}
		uint32_t line = off >> m->line_shift;
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
	free(ven);
	/* per input, per set */
	m->sec_start = xcalloc(m->nsec + 2, sizeof *m->sec_start);
	m->sec_acc = xmalloc((m->n + 1) * sizeof *m->sec_acc);
	for (size_t i = 0; i < m->n; i++)
		if (m->sec[i] >= 0)
			m->sec_start[m->sec[i] + 1]++;
	for (size_t s = 0; s < m->nsec; s++)
		m->sec_start[s + 1] += m->sec_start[s];
	uint32_t *fillp = xmalloc((m->nsec + 1) * sizeof *fillp);
	memcpy(fillp, m->sec_start, m->nsec * sizeof *fillp);
	for (size_t i = 0; i < m->n; i++)
		if (m->sec[i] >= 0)
			m->sec_acc[fillp[m->sec[i]]++] = (uint32_t)i;
	free(fillp);
	m->set = xcalloc(m->nsets, sizeof *m->set);
	m->miss = xcalloc(m->nsets, sizeof *m->miss);
	for (size_t i = 0; i < m->n; i++)
		if (m->sec[i] < 0 || !m->out[m->sec[i]])
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

/* How an input moves in a candidate (moved[s]). */
enum {
	MOVE_NONE,
	MOVE_SETS,    /* in flash, to other sets */
	MOVE_WAYS,    /* in flash, by whole ways: its sets and their misses stay, its tags
		       * change (and no other input's line can take them) */
	MOVE_OUT,     /* out of flash: its fetches leave their sets */
	MOVE_IN,      /* into flash: its fetches enter their sets */
};

/* A candidate: the inputs that move (by whole lines, dl[s] lines; moved[s] says how) and
 * the misses it gives. Evaluates into the scratch (m->tmp per touched set). Returns the
 * new total, or UINT64_MAX when a move is not by whole lines (not modelled). */
static uint64_t model_eval(model *m, const int32_t *dl, const uint8_t *moved,
			   const uint32_t *list, size_t nlist, size_t *ntouched);

/* Lists section s (an input or a veneer) as moved by d bytes (into flash when it was out
 * of it), or, when d is not whole lines (and not approx: rounded to the nearest), clears
 * the list and returns 0. */
static int shift_by_lines(const model *m, size_t s, uint32_t d, int approx, int32_t *dl,
			  uint8_t *moved, uint32_t *list, size_t *nlist)
{
	uint32_t L = 1u << m->line_shift;
	if (approx)
		d = (d + L / 2) & ~(L - 1);
	if (d & (L - 1)) {
		for (size_t k = 0; k < *nlist; k++)
			moved[list[k]] = 0;
		*nlist = 0;
		return 0;
	}
	dl[s] = (int32_t)d >> m->line_shift;
	moved[s] = m->out[s] ? MOVE_IN : ((uint32_t)dl[s] & (m->nsets - 1)) ? MOVE_SETS : MOVE_WAYS;
	list[(*nlist)++] = (uint32_t)s;
	return 1;
}

static uint64_t model_try(model *m, const xb_placement *p, int32_t *dl, uint8_t *moved,
			  uint32_t *list, size_t *nlist, size_t *ntouched, int approx)
{
	*nlist = 0;
	for (size_t s = 0; s < m->ninputs; s++) {
		if (m->sec_start[s + 1] == m->sec_start[s] ||
		    (!m->out[s] && p->input_addr[s] == m->addr[s]))
			continue;
		int flash = in_flash(m->tg, p->input_addr[s]);
		if (!flash) {
			if (m->out[s])
				continue;
			dl[s] = 0;
			moved[s] = MOVE_OUT;
			list[(*nlist)++] = (uint32_t)s;
			continue;
		}
		if (!shift_by_lines(m, s, p->input_addr[s] - m->addr[s], approx, dl, moved, list, nlist))
			return UINT64_MAX;
	}
	/* the flash veneers the model knows (a new one, or one gone, it does not see) */
	for (size_t k = 0; k < p->nveneers && m->nven; k++) {
		uint64_t key = veneer_key(&p->veneers[k]);
		size_t lo = 0, hi = m->nven;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (m->ven_key[mid] < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t s = m->ninputs + lo;
		if (lo == m->nven || m->ven_key[lo] != key || m->sec_start[s + 1] == m->sec_start[s] ||
		    p->veneers[k].addr == m->addr[s])
			continue;
		if (!shift_by_lines(m, s, p->veneers[k].addr - m->addr[s], approx, dl, moved, list,
				    nlist))
			return UINT64_MAX;
	}
	return model_eval(m, dl, moved, list, *nlist, ntouched);
}

/* The misses with the inputs list[0..nlist) moved as moved[] and dl[] say. */
static uint64_t model_eval(model *m, const int32_t *dl, const uint8_t *moved,
			   const uint32_t *list, size_t nlist, size_t *ntouched)
{
	uint32_t mask = m->nsets - 1;
	if (++m->stamp_now == 0) {
		memset(m->stamp, 0, m->nsets * sizeof *m->stamp);
		m->stamp_now = 1;
	}
	size_t nt = 0;
	for (size_t k = 0; k < nlist; k++) {
		uint32_t s = list[k];
		if (moved[s] == MOVE_WAYS)
			continue;
		int q0 = moved[s] == MOVE_IN, q1 = moved[s] == MOVE_OUT ? 1 : 2;
		for (uint32_t j = m->sec_start[s]; j < m->sec_start[s + 1]; j++) {
			uint32_t i = m->sec_acc[j];
			uint32_t sets[2] = {m->line[i] & mask, (m->line[i] + (uint32_t)dl[s]) & mask};
			for (int q = q0; q < q1; q++) {
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
			if (s < 0 || (moved[s] != MOVE_SETS && moved[s] != MOVE_OUT))
				idx_push(x, old->v[k]);
		}
	}
	/* each input's accesses come in trace order: merged into each set's list */
	for (size_t t = 0; t < nt; t++)
		m->len0[t] = m->tmp[t].n;
	for (size_t k = 0; k < nlist; k++) {
		uint32_t s = list[k];
		if (moved[s] != MOVE_SETS && moved[s] != MOVE_IN)
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
			 const uint8_t *moved, const uint32_t *list, size_t nlist, size_t nt,
			 uint64_t total)
{
	for (size_t k = 0; k < nlist; k++) {
		uint32_t s = list[k];
		for (uint32_t j = m->sec_start[s]; j < m->sec_start[s + 1]; j++)
			m->line[m->sec_acc[j]] += (uint32_t)dl[s];
		m->out[s] = moved[s] == MOVE_OUT;
		if (s >= m->ninputs)
			m->addr[s] += (uint32_t)dl[s] << m->line_shift; /* a veneer */
	}
	for (size_t t = 0; t < nt; t++) {
		idx_vec x = m->set[m->touched[t]];
		m->set[m->touched[t]] = m->tmp[t];
		m->tmp[t] = x;
		m->miss[m->touched[t]] = m->tmp_miss[t];
	}
	for (size_t s = 0; s < m->ninputs; s++)
		if (!m->out[s])
			m->addr[s] = p->input_addr[s];
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

/* The first address from `from` at the offset in a line of `like` (and aligned to align):
 * a section moved there keeps each fetch at its place in its line. */
static uint32_t in_line_at(uint32_t from, uint32_t like, uint32_t align, uint32_t L)
{
	uint32_t step = align > L ? align : L;
	return from + ((like - from) & (step - 1));
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

/* Every call of the image with the map inputs of its site and target looked up. */
static void calls_looked_up(const xb_plan_input *in, xb_calls *all)
{
	calls_init(all);
	for (size_t k = 0; in->calls && k < in->calls->n; k++)
		calls_add_with_inputs(all, in->calls->v[k].site, in->calls->v[k].target,
				      mapfile_input_at(&in->img->map, in->calls->v[k].site),
				      mapfile_input_at(&in->img->map, in->calls->v[k].target));
}

/* The calls of all (calls_looked_up) that make veneers under l: to or from a section out
 * of flash (SRAM, the non-allocating alias). A candidate that keeps those sections where
 * they are needs only these placed, not every call of the image. */
static void calls_off_flash(const xb_image *img, const xb_calls *all, const xb_layout *l,
			    xb_calls *few)
{
	calls_free(few);
	calls_init(few);
	int8_t *off = xcalloc(img->map.ninputs + 1, 1);
	for (size_t k = 0; k < l->n; k++) {
		int input = img->funcs[l->e[k].func].input;
		if (input >= 0 && (l->e[k].place == XB_PLACE_SRAM || l->e[k].place == XB_PLACE_NOALLOC))
			off[input] = 1;
	}
	for (size_t k = 0; k < all->n; k++) {
		long a = all->inputs[2 * k], b = all->inputs[2 * k + 1];
		if ((a >= 0 && off[a]) || (b >= 0 && off[b]))
			calls_add_with_inputs(few, all->v[k].site, all->v[k].target, a, b);
	}
	free(off);
}

/* The inputs of l's SRAM entries ram[0..nram) into out. */
static void ram_inputs(const xb_image *img, const xb_layout *l, const uint32_t *ram, size_t nram,
		       uint32_t *out)
{
	for (size_t k = 0; k < nram; k++)
		out[k] = (uint32_t)img->funcs[l->e[ram[k]].func].input;
}

/* Whether a and b have the same functions in the SRAM entries ram[0..nram). */
static int same_sram(const xb_layout *a, const xb_layout *b, const uint32_t *ram, size_t nram)
{
	for (size_t k = 0; k < nram; k++)
		if (a->e[ram[k]].func != b->e[ram[k]].func)
			return 0;
	return 1;
}

/* Whether function f's section has fewer replayed fetches per byte than g's. */
static int sparser(const model *m, const xb_image *img, int f, int g)
{
	int sf = img->funcs[f].input, sg = img->funcs[g].input;
	uint64_t nf = m->sec_start[sf + 1] - m->sec_start[sf], ng = m->sec_start[sg + 1] - m->sec_start[sg];
	return nf * img->map.inputs[sg].size < ng * img->map.inputs[sf].size;
}

/* ---- SRAM by exact gain ---- */

/* What the exchange of SRAM sections works on: plan_search's state. */
typedef struct exchange {
	const xb_plan_input *in, *sin;
	const xb_plan_input *exact; /* in with the calls' inputs looked up once */
	model *m;
	xb_layout *cur;
	uint32_t *mov, *ram, *ram_in;
	size_t *nmov, *nram;
	const uint32_t *per_input;
	const char **stay;
	uint32_t ram_cap, way, L;
	int32_t *dl;
	uint8_t *moved;
	uint32_t *list;
} exchange;

/* Flash sections one candidate of the exchange sends to SRAM at most. */
#define SWAP_MAX 4

/* A candidate of the exchange: the flash entries mov[a[0..na)] to SRAM and the SRAM entry
 * ram[x] (or none, x = -1) into the hot block at address at: in mov[a[0]]'s place, or
 * (at_end) after the block's last entry. */
typedef struct swap {
	uint64_t total;
	uint32_t a[SWAP_MAX];
	int na;
	int32_t x;
	uint32_t at;
	int at_end;
} swap;

static int fewer_misses(const void *p, const void *q)
{
	const swap *a = p, *b = q;
	if (a->total != b->total)
		return a->total < b->total ? -1 : 1;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	return (a->a[0] > b->a[0]) - (a->a[0] < b->a[0]);
}

/* Whether flash entry e may go to SRAM. */
static int may_leave(const exchange *x, const xb_layout_entry *e)
{
	int input = x->in->img->funcs[e->func].input;
	return input >= 0 && x->per_input[input] == 1 && !x->stay[e->func] &&
	       !plan_is_busy_wait(x->in, (int)e->func);
}

/* The model's misses with flash entry mov[a] out of the cache and nothing else moved. */
static uint64_t alone_misses(exchange *x, uint32_t a)
{
	int sy = x->in->img->funcs[x->cur->e[x->mov[a]].func].input;
	size_t nt;
	x->moved[sy] = MOVE_OUT;
	x->dl[sy] = 0;
	x->list[0] = (uint32_t)sy;
	uint64_t t = model_eval(x->m, x->dl, x->moved, x->list, 1, &nt);
	x->moved[sy] = MOVE_NONE;
	return t;
}

/* The entries of the hot block (mov, in block order) and the SRAM entries the exchange may
 * send back (ram) of layout l. */
static void exchange_entries(exchange *x, const xb_layout *l)
{
	const xb_image *img = x->in->img;
	*x->nmov = *x->nram = 0;
	for (size_t k = 0; k < l->n; k++) {
		int input = img->funcs[l->e[k].func].input;
		if (input < 0)
			continue;
		if (l->e[k].place == XB_PLACE_COLOUR)
			x->mov[(*x->nmov)++] = (uint32_t)k;
		else if (l->e[k].place == XB_PLACE_SRAM && x->per_input[input] == 1)
			x->ram[(*x->nram)++] = (uint32_t)k;
	}
}

/* Where candidate c's SRAM entry goes: in the place of mov[c->a[0]] when it fits there,
 * else after the block's last entry; at the same offset in a line as its fetches. */
static void swap_at(const exchange *x, swap *c)
{
	const xb_image *img = x->in->img;
	const model *m = x->m;
	const xb_function *fx = &img->funcs[x->cur->e[x->ram[c->x]].func];
	const xb_function *fy = &img->funcs[x->cur->e[x->mov[c->a[0]]].func];
	const xb_function *fl = &img->funcs[x->cur->e[x->mov[*x->nmov - 1]].func];
	uint32_t xsize = (uint32_t)img->map.inputs[fx->input].size, align = img->input_align[fx->input];
	uint32_t end = c->a[0] + 1 < *x->nmov
		? m->addr[img->funcs[x->cur->e[x->mov[c->a[0] + 1]].func].input]
		: UINT32_MAX;
	c->at = plan_align_up(m->addr[fy->input], align);
	c->at += (m->addr[fx->input] - c->at) & (x->L - 1);
	c->at_end = c->at + xsize > end;
	if (c->at_end) {
		c->at = plan_align_up(m->addr[fl->input] + (uint32_t)img->map.inputs[fl->input].size, align);
		c->at += (m->addr[fx->input] - c->at) & (x->L - 1);
	}
}

/* The layout of candidate c. */
static void swap_layout(const exchange *x, const swap *c, xb_layout *cand)
{
	const xb_image *img = x->in->img;
	layout_copy(cand, x->cur);
	for (int k = c->x >= 0; k < c->na; k++) {
		cand->e[x->mov[c->a[k]]].place = XB_PLACE_SRAM;
		cand->e[x->mov[c->a[k]]].way_offset = 0;
	}
	if (c->x < 0)
		return;
	xb_layout_entry *e = &cand->e[x->mov[c->a[0]]];
	xb_layout_entry *r = &cand->e[x->ram[c->x]];
	const xb_function *fx = &img->funcs[r->func];
	int yf = e->func;
	e->func = r->func;
	e->way_offset = (c->at + func_offset(img, fx)) & (x->way - 1);
	r->func = yf;
	r->way_offset = 0;
	if (c->at_end) {
		xb_layout_entry t = *e;
		for (size_t q = c->a[0]; q + 1 < *x->nmov; q++)
			cand->e[x->mov[q]] = cand->e[x->mov[q + 1]];
		cand->e[x->mov[*x->nmov - 1]] = t;
	}
}

/* Takes candidate c when a model of its own placement (every call placed, its code read:
 * the veneers count) has fewer misses than now. 1: taken, 0: not, -1: error. */
static int swap_take(exchange *x, const swap *c, xb_err *err)
{
	xb_layout cand;
	layout_init(&cand);
	swap_layout(x, c, &cand);
	xb_placement np;
	if (plan_place(x->in, &cand, &np, err) != 0) {
		layout_free(&cand);
		return -1;
	}
	exchange_entries(x, &cand);
	model fresh;
	ram_inputs(x->in->img, &cand, x->ram, *x->nram, x->ram_in);
	model_build(&fresh, x->sin, &np, x->ram_in, *x->nram);
	placement_free(&np);
	int took = fresh.total < x->m->total;
	if (took) {
		model_free(x->m);
		*x->m = fresh;
		layout_copy(x->cur, &cand);
	} else {
		model_free(&fresh);
		exchange_entries(x, x->cur);
	}
	layout_free(&cand);
	return took;
}

typedef struct gain {
	uint32_t a, bytes;
	uint64_t saved;
} gain;

static int more_per_byte(const void *p, const void *q)
{
	const gain *a = p, *b = q;
	uint64_t x = a->saved * b->bytes, y = b->saved * a->bytes;
	if (x != y)
		return x > y ? -1 : 1;
	return (a->a > b->a) - (a->a < b->a);
}

/* SRAM by the misses each section saves, measured on the trace. Each round the model
 * measures every flash section of the hot block (that may go) out of the cache alone.
 * The candidates: one of them into SRAM when it fits; and for each SRAM section, that
 * one back into the block (in the place of the first that leaves when it fits there,
 * else after the block) and into the room it leaves, with the room left over, the flash
 * sections that save the most per byte. Each is placed (every call: the veneers too)
 * and ranked by the model with all that moves; the best are modelled anew from their
 * placement and one is taken when that is better too. Ends when a round takes nothing,
 * or after EXCHANGE_ROUNDS. Returns the exchanges taken, or -1. */
static int sram_exchange(exchange *x, xb_err *err)
{
	const xb_plan_input *in = x->in;
	const xb_image *img = in->img;
	int taken = 0;
	swap *c = NULL;
	gain *g = NULL;
	size_t cap = 0, gcap = 0;
	for (int round = 0; round < EXCHANGE_ROUNDS && *x->nmov > 1; round++) {
		xb_placement cp;
		if (plan_place(x->exact, x->cur, &cp, err) != 0)
			goto fail;
		uint32_t used = cp.extra_ram, room = x->ram_cap > used ? x->ram_cap - used : 0;
		placement_free(&cp);
		model *m = x->m;
		size_t ng = 0, nc = 0;
		for (uint32_t a = 0; a < *x->nmov; a++) {
			if (!may_leave(x, &x->cur->e[x->mov[a]]))
				continue;
			uint64_t t = alone_misses(x, a);
			if (t >= m->total)
				continue;
			int input = img->funcs[x->cur->e[x->mov[a]].func].input;
			xb_grow(&g, &gcap, ng + 1, sizeof *g);
			g[ng++] = (gain){.a = a, .saved = m->total - t,
					 .bytes = plan_align_up((uint32_t)img->map.inputs[input].size, 4)};
		}
		qsort(g, ng, sizeof *g, more_per_byte);
		for (size_t k = 0; k < ng; k++)
			if (g[k].bytes <= room) {
				xb_grow(&c, &cap, nc + 1, sizeof *c);
				c[nc++] = (swap){.a = {g[k].a}, .na = 1, .x = -1};
			}
		for (size_t r = 0; r < *x->nram; r++) {
			const xb_function *fx = &img->funcs[x->cur->e[x->ram[r]].func];
			if (!m->out[fx->input])
				continue;
			uint32_t xsize = (uint32_t)img->map.inputs[fx->input].size;
			uint32_t left = plan_align_up(xsize, 4) + room;
			swap sw = {.x = (int32_t)r};
			for (size_t k = 0; k < ng && sw.na < SWAP_MAX; k++)
				if (g[k].bytes <= left) {
					sw.a[sw.na++] = g[k].a;
					left -= g[k].bytes;
				}
			if (!sw.na)
				continue;
			swap_at(x, &sw);
			xb_grow(&c, &cap, nc + 1, sizeof *c);
			c[nc++] = sw;
		}
		/* each placed: all that moves counted */
		for (size_t k = 0; k < nc; k++) {
			xb_layout cand;
			layout_init(&cand);
			swap_layout(x, &c[k], &cand);
			xb_placement pl;
			if (plan_place(x->exact, &cand, &pl, err) != 0) {
				layout_free(&cand);
				goto fail;
			}
			size_t nl = 0, nt;
			c[k].total = pl.pad_bytes <= in->pad_budget && pl.extra_ram <= x->ram_cap
				? model_try(m, &pl, x->dl, x->moved, x->list, &nl, &nt, 1)
				: UINT64_MAX;
			for (size_t q = 0; q < nl; q++)
				x->moved[x->list[q]] = MOVE_NONE;
			placement_free(&pl);
			layout_free(&cand);
		}
		qsort(c, nc, sizeof *c, fewer_misses);
		int took = 0;
		for (size_t k = 0; k < nc && k < EXCHANGE_CHECKS && c[k].total < m->total && !took; k++)
			if ((took = swap_take(x, &c[k], err)) < 0)
				goto fail;
		if (!took)
			break;
		taken++;
	}
	free(c);
	free(g);
	return taken;
fail:
	free(c);
	free(g);
	return -1;
}

/* Full replay of l: misses per echo (counted as the planners compare candidates). */
static int full_misses(const xb_plan_input *in, const xb_layout *l, double *out, xb_err *err)
{
	xb_placement p;
	if (plan_place(in, l, &p, err) != 0)
		return -1;
	int rc = plan_replayed_misses(in, &p, out, err);
	placement_free(&p);
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
	/* the SRAM entries the search may trade for flash ones: a section of one function,
	 * moved whole; one that must stay in flash, or a busy-wait loop, never comes in */
	const xb_image *img = in->img;
	size_t ninputs = img->map.ninputs;
	uint32_t *ram = xmalloc((l->n + 1) * sizeof *ram), *ram_in = xmalloc((l->n + 1) * sizeof *ram_in);
	size_t nram = 0;
	uint32_t *per_input = xcalloc(ninputs + 1, sizeof *per_input);
	for (size_t i = 0; i < img->nfuncs; i++)
		if (img->funcs[i].input >= 0 && img->funcs[i].alias_of < 0)
			per_input[img->funcs[i].input]++;
	const char **stay = NULL;
	if (in->sram_budget && !in->sram_libraries) {
		for (size_t k = 0; k < l->n; k++) {
			int input = img->funcs[l->e[k].func].input;
			if (l->e[k].place == XB_PLACE_SRAM && input >= 0 && per_input[input] == 1 &&
			    !in_flash(in->tg, p.input_addr[input])) {
				ram_in[nram] = (uint32_t)input;
				ram[nram++] = (uint32_t)k;
			}
		}
		if (nram)
			stay = plan_stay_in_flash(in);
	}
	uint32_t ram_cap = in->sram_budget > p.extra_ram ? in->sram_budget : p.extra_ram;
	model m;
	model_build(&m, &sin, &p, ram_in, nram);
	size_t echoes = trace_echo_count(&view);
	double per_echo = echoes ? 1.0 / (double)echoes : 1.0;
	uint32_t way = target_way_bytes(in->tg), L = in->tg->cache.line;
	uint32_t block_start = p.hot_start;
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
	/* a candidate that trades no SRAM section places only the calls that make veneers */
	xb_plan_input fast = *in, exact = *in;
	xb_calls few, allc;
	calls_init(&few);
	calls_looked_up(in, &allc);
	exact.calls = allc.n ? &allc : NULL;
	calls_off_flash(img, &allc, &cur, &few);
	fast.calls = few.n ? &few : NULL;
	/* the model's sections: the inputs and at most a veneer per call */
	size_t nsec_max = m.ninputs + (in->calls ? in->calls->n : 0) + 1;
	int32_t *dl = xcalloc(nsec_max, sizeof *dl);
	uint8_t *moved = xcalloc(nsec_max, 1);
	uint32_t *list = xmalloc(nsec_max * sizeof *list);
	st.model_start = (double)m.total * per_echo;
	exchange xch = {.in = in, .sin = &sin, .exact = &exact, .m = &m, .cur = &cur, .mov = mov,
			.ram = ram, .ram_in = ram_in, .nmov = &nmov, .nram = &nram,
			.per_input = per_input, .stay = stay, .ram_cap = ram_cap, .way = way, .L = L,
			.dl = dl, .moved = moved, .list = list};
	if (nram && rc == 0) {
		int n = sram_exchange(&xch, err);
		if (n < 0)
			rc = -1;
		else
			st.exchanges = (uint32_t)n;
		calls_off_flash(img, &allc, &cur, &few);
		fast.calls = few.n ? &few : NULL;
	}
	layout_copy(&best, &cur);
	uint64_t best_total = m.total, seed = in->search_seed;
	uint32_t limit = in->search_moves ? in->search_moves : UINT32_MAX;
	double temp0 = 0.002 * (double)m.total, since_best = 0;
	for (uint32_t it = 0; it < limit && nmov && rc == 0; it++) {
		if (in->search_seconds > 0 && (it & 15) == 0 && now_seconds() - t0 > in->search_seconds) {
			st.timed_out = 1;
			break;
		}
		layout_copy(&cand, &cur);
		uint32_t r = rng_below(&seed, 100), a = rng_below(&seed, (uint32_t)nmov);
		if (rng_below(&seed, 2))
			a = where_misses(&m, &cand, in->img, mov, nmov, &seed, a);
		xb_layout_entry *e = &cand.e[mov[a]];
		const xb_function *f = &in->img->funcs[e->func];
		uint32_t step = in->img->input_align[f->input] > L ? in->img->input_align[f->input] : L;
		uint32_t start = m.addr[f->input], size = (uint32_t)in->img->map.inputs[f->input].size;
		int trade = 0;
		swap sw;
		if (nram && r >= 100 - TRADE_SHARE) {
			/* an SRAM section and a flash one change places: the flash one's start, at
			 * the SRAM one's offset in a line, takes the other's code. The flash one
			 * is where misses are; the SRAM one the sparsest of a few (fetches per
			 * byte in the replayed echoes) */
			a = where_misses(&m, &cand, in->img, mov, nmov, &seed, a);
			uint32_t pick = rng_below(&seed, (uint32_t)nram);
			for (int q = 1; q < TRADE_TOURNAMENT; q++) {
				uint32_t o = rng_below(&seed, (uint32_t)nram);
				if (sparser(&m, img, cur.e[ram[o]].func, cur.e[ram[pick]].func))
					pick = o;
			}
			if (!may_leave(&xch, &cur.e[mov[a]]) ||
			    !m.out[img->funcs[cur.e[ram[pick]].func].input])
				continue;
			sw = (swap){.a = {a}, .na = 1, .x = (int32_t)pick};
			swap_at(&xch, &sw);
			swap_layout(&xch, &sw, &cand);
			trade = 1;
		} else if (r < 30 && nmov > 1) {
			/* two neighbours in the block change places: the second starts where the
			 * first did, the first right after it (each at its offset in a line, so
			 * that the model follows its fetches), when both fit before the next */
			uint32_t b = a + 1 < nmov ? a + 1 : a - 1, lo = a < b ? a : b, hi = a < b ? b : a;
			xb_layout_entry *x = &cand.e[mov[lo]], *y = &cand.e[mov[hi]];
			const xb_function *fx = &in->img->funcs[x->func], *fy = &in->img->funcs[y->func];
			uint32_t at = m.addr[fx->input];
			uint32_t ay = in_line_at(at, m.addr[fy->input], in->img->input_align[fy->input], L);
			uint32_t ax = in_line_at(ay + (uint32_t)in->img->map.inputs[fy->input].size,
						 m.addr[fx->input], in->img->input_align[fx->input], L);
			if (hi + 1 < nmov &&
			    ax + in->img->map.inputs[fx->input].size >
				    m.addr[in->img->funcs[cand.e[mov[hi + 1]].func].input])
				continue;
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
			lo = in_line_at(lo, start, step, L);
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
			/* another start set: mostly within the room around it, so that the
			 * others stay where they are (and the padding with them); now and then
			 * anywhere, the ones after it pushed on */
			uint32_t steps = way / step, na;
			if (r < 64) {
				na = start + (rng_below(&seed, steps - 1) + 1) * step;
			} else {
				uint32_t lo = a ? m.addr[in->img->funcs[cand.e[mov[a - 1]].func].input] +
					(uint32_t)in->img->map.inputs[in->img->funcs[cand.e[mov[a - 1]].func].input].size
					: block_start;
				uint32_t hi = a + 1 < nmov
					? m.addr[in->img->funcs[cand.e[mov[a + 1]].func].input]
					: start + size + way;
				lo = in_line_at(lo, start, step, L);
				if (hi > lo + way)
					hi = lo + way;
				if (lo > start || hi < start + size)
					continue;
				uint32_t n = (hi - size - lo) / step + 1;
				if (n < 2)
					continue;
				uint32_t k = rng_below(&seed, n - 1), here = (start - lo) / step;
				k += k >= here;
				na = lo + k * step;
			}
			e->way_offset = (na + func_offset(in->img, f)) & (way - 1);
		}
		xb_placement cp;
		if (plan_place(trade ? &exact : &fast, &cand, &cp, err) != 0) {
			rc = -1;
			break;
		}
		st.moves++;
		size_t nlist = 0, nt = 0;
		uint64_t total = cp.pad_bytes <= in->pad_budget && cp.extra_ram <= ram_cap
			? model_try(&m, &cp, dl, moved, list, &nlist, &nt, trade)
			: UINT64_MAX;
		if (total != UINT64_MAX && trade) {
			/* the model counted the sections that move by a part of a line as if by
			 * the nearest whole line, and veneers new to it not at all: a trade it
			 * finds better is modelled anew from its placement (every call, its code
			 * read) and taken only when that is better too */
			for (size_t k = 0; k < nlist; k++)
				moved[list[k]] = 0;
			int took = 0;
			if (total < m.total) {
				st.trade_checks++;
				took = swap_take(&xch, &sw, err);
			}
			if (took < 0) {
				placement_free(&cp);
				rc = -1;
				break;
			}
			if (took) {
				st.accepted++;
				st.trades++;
				calls_off_flash(img, &allc, &cur, &few);
				fast.calls = few.n ? &few : NULL;
				if (m.total < best_total) {
					best_total = m.total;
					layout_copy(&best, &cur);
					since_best = 0;
				}
			}
		} else if (total != UINT64_MAX) {
			double temp = temp0 * (1.0 - (double)it / (double)(limit == UINT32_MAX ? 100000 : limit));
			double delta = (double)total - (double)m.total;
			int take = delta <= 0 || (temp > 0 && rng_unit(&seed) < exp(-delta / temp));
			if (take) {
				model_accept(&m, &cp, dl, moved, list, nlist, nt, total);
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
			size_t nl = 0, ntt;
			if (same_sram(&cur, &best, ram, nram)) {
				uint64_t t = model_try(&m, &bp, dl, moved, list, &nl, &ntt, 0);
				if (t != UINT64_MAX) {
					model_accept(&m, &bp, dl, moved, list, nl, ntt, t);
					layout_copy(&cur, &best);
				}
			} else {
				/* back to the best's SRAM sections: its own model, veneers and all */
				model_free(&m);
				ram_inputs(img, &best, ram, nram, ram_in);
				model_build(&m, &sin, &bp, ram_in, nram);
				layout_copy(&cur, &best);
				calls_off_flash(img, &allc, &cur, &few);
				fast.calls = few.n ? &few : NULL;
			}
			for (size_t k = 0; k < nl; k++)
				moved[list[k]] = 0;
			placement_free(&bp);
			since_best = 0;
			st.restarts++;
		}
	}
	if (nram && rc == 0) {
		/* SRAM by exact gain again, from the best layout */
		xb_placement tp;
		if (plan_place(in, &best, &tp, err) != 0) {
			rc = -1;
		} else {
			layout_copy(&cur, &best);
			exchange_entries(&xch, &cur);
			model_free(&m);
			ram_inputs(img, &cur, ram, nram, ram_in);
			model_build(&m, &sin, &tp, ram_in, nram);
			placement_free(&tp);
			int n = sram_exchange(&xch, err);
			if (n < 0)
				rc = -1;
			else
				st.exchanges += (uint32_t)n;
			if (n > 0 && m.total < best_total) {
				best_total = m.total;
				layout_copy(&best, &cur);
			}
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
	free(ram);
	free(ram_in);
	free(per_input);
	free((void *)stay);
	calls_free(&few);
	calls_free(&allc);
	model_free(&m);
	placement_free(&p);
	return rc;
}
