/* liveprof: the live profile: PC samples per function, line, library and group in time
 * buckets with running window sums, a per-library history and the idle recording. */
#include "liveprof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

#define LIVEPROF_HALTED 0xFFFFFFFFu
#define LIVEPROF_NONE UINT32_MAX
#define LIVEPROF_NS 1000000000ull
#define NW XB_WINDOW_COUNT
/* A corrupt image's giant symbols must not take all memory: lines beyond this many (16 MB
 * of code in 8-byte lines) get no per-line counts. */
#define LIVEPROF_MAX_LINES (1u << 21)

/* [start, end) of the address space belongs to func (the first of its aliases). */
typedef struct liveprof_range {
	uint32_t start, func;
	uint64_t end;
} liveprof_range;

/* What a sample needs of its function, in one place. */
typedef struct liveprof_func_info {
	uint32_t first;  /* first line address */
	uint32_t nslots; /* lines with counts (0: an alias, or no room) */
	uint32_t base;   /* its first slot in the line table */
	int32_t lib;     /* library index, -1 none */
} liveprof_func_info;

typedef struct liveprof_counts {
	uint64_t samples, busy, sleep, halted, unattributed;
} liveprof_counts;

struct xb_liveprof {
	const xb_image *img;
	uint32_t line_size, line_shift;
	int line_pow2;
	size_t nfuncs, nlibs, ngroups, nslots;

	liveprof_range *ranges;
	size_t nranges, last;
	/* Blocks of 2^block_shift bytes from block_base: block b's addresses lie in ranges
	 * block_first[b] .. block_first[b + 1] (inclusive), so a lookup searches a few. */
	uint32_t *block_first;
	uint64_t block_base, block_end;
	unsigned block_shift;
	liveprof_func_info *fi;
	uint32_t *line_func;  /* per slot: its function */
	uint32_t *line_order; /* slots in address order; NULL when the table already is */
	size_t *lib_group;
	const char **group_name;
	size_t *lib_first;    /* per library + 1: its functions in lib_funcs */
	uint32_t *lib_funcs;

	uint64_t bucket_ns, hist_ns;
	unsigned nbuckets, k1, nhist;

	int started, subtract;
	uint64_t origin, now, cur, hcur;
	uint64_t next_bucket, next_hist; /* times at which cur and hcur move on */
	size_t slot;                      /* cur % nbuckets */
	uint32_t *cur_bfunc, *cur_bline, *cur_hlib, *cur_hfunc;

	uint32_t *bfunc;      /* nbuckets x nfuncs */
	uint32_t *bline;      /* nbuckets x nslots */
	uint64_t *bmark;      /* nbuckets x nwords: bit per slot with a count, so that a
			       * bucket leaving visits only its lines */
	size_t nwords;
	uint64_t *cur_bmark;
	liveprof_counts *btot;
	liveprof_counts all;
	uint64_t *wfunc;      /* nfuncs x NW */
	uint64_t *wline;      /* nslots x NW */
	uint32_t *touched;    /* nfuncs x NW: slots with a busy sample */
	uint64_t *wlib;       /* nlibs x NW */
	uint32_t *hlib;       /* nhist x nlibs */
	uint32_t *hfunc;      /* nhist x nfuncs: for the history with the idle subtracted per
			       * function, as the window figures are */

	uint64_t *ifunc, *iline, *ilib;
	uint64_t idle_samples;
	double idle_seconds;
};

static const char *const liveprof_window_names[NW] = {"1s", "10s", "all"};

const char *liveprof_window_name(int window)
{
	return window >= 0 && window < NW ? liveprof_window_names[window] : "?";
}

int liveprof_window_find(const char *name)
{
	for (int i = 0; name && i < NW; i++)
		if (strcmp(name, liveprof_window_names[i]) == 0)
			return i;
	return -1;
}

/* ---- the tables made once ---- */

static long liveprof_first_alias(const xb_image *img, size_t i)
{
	int a = img->funcs[i].alias_of;
	return a >= 0 && (size_t)a < img->nfuncs ? a : (long)i;
}

static int liveprof_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

typedef struct liveprof_start {
	uint32_t addr, func;
} liveprof_start;

static int liveprof_start_cmp(const void *a, const void *b)
{
	const liveprof_start *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static uint64_t liveprof_func_end(const xb_function *f)
{
	return (uint64_t)f->addr + f->size;
}

/* Max-heap of function indices: where ranges overlap, the later function (in the image's
 * address-then-name order) holds the address, as profile_build decides. */
static void liveprof_heap_push(uint32_t *h, size_t *n, uint32_t v)
{
	size_t i = (*n)++;
	while (i && h[(i - 1) / 2] < v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void liveprof_heap_pop(uint32_t *h, size_t *n)
{
	uint32_t v = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1;
		if (l >= *n)
			break;
		size_t big = l + 1 < *n && h[l + 1] > h[l] ? l + 1 : l;
		if (h[big] <= v)
			break;
		h[i] = h[big];
		i = big;
	}
	if (*n)
		h[i] = v;
}

static void liveprof_build_ranges(xb_liveprof *p)
{
	const xb_image *img = p->img;
	size_t n = p->nfuncs, m = 0, nb = 0;
	liveprof_start *st = xmalloc((n + 1) * sizeof *st);
	uint64_t *bounds = xmalloc((2 * n + 1) * sizeof *bounds);
	for (size_t i = 0; i < n; i++) {
		if (!img->funcs[i].size)
			continue;
		st[m++] = (liveprof_start){img->funcs[i].addr, (uint32_t)i};
		bounds[nb++] = img->funcs[i].addr;
		bounds[nb++] = liveprof_func_end(&img->funcs[i]);
	}
	qsort(st, m, sizeof *st, liveprof_start_cmp);
	qsort(bounds, nb, sizeof *bounds, liveprof_u64_cmp);
	size_t nu = 0;
	for (size_t i = 0; i < nb; i++)
		if (!nu || bounds[nu - 1] != bounds[i])
			bounds[nu++] = bounds[i];
	p->ranges = xmalloc((nu + 1) * sizeof *p->ranges);
	uint32_t *heap = xmalloc((m + 1) * sizeof *heap);
	size_t nh = 0, k = 0;
	for (size_t i = 0; i + 1 < nu; i++) {
		while (k < m && st[k].addr <= bounds[i])
			liveprof_heap_push(heap, &nh, st[k++].func);
		while (nh && liveprof_func_end(&img->funcs[heap[0]]) <= bounds[i])
			liveprof_heap_pop(heap, &nh);
		if (!nh)
			continue;
		uint32_t f = (uint32_t)liveprof_first_alias(img, heap[0]);
		liveprof_range *prev = p->nranges ? &p->ranges[p->nranges - 1] : NULL;
		if (prev && prev->end == bounds[i] && prev->func == f)
			prev->end = bounds[i + 1];
		else
			p->ranges[p->nranges++] = (liveprof_range){(uint32_t)bounds[i], f,
								   bounds[i + 1]};
	}
	free(heap);
	free(bounds);
	free(st);
}

/* Most lookups then search a range or two instead of the whole table. The table covers
 * at most 2^20 blocks of 64 bytes or more. */
static void liveprof_build_blocks(xb_liveprof *p)
{
	if (!p->nranges)
		return;
	p->block_base = p->ranges[0].start;
	p->block_end = p->ranges[p->nranges - 1].end;
	p->block_shift = 6;
	while ((p->block_end - p->block_base) >> p->block_shift > (1u << 20))
		p->block_shift++;
	size_t nb = (size_t)((p->block_end - p->block_base) >> p->block_shift) + 1;
	p->block_first = xmalloc((nb + 1) * sizeof *p->block_first);
	size_t k = 0;
	for (size_t b = 0; b < nb; b++) {
		uint64_t start = p->block_base + ((uint64_t)b << p->block_shift);
		while (k < p->nranges && p->ranges[k].end <= start)
			k++;
		p->block_first[b] = (uint32_t)k;
	}
	p->block_first[nb] = (uint32_t)p->nranges;
}

typedef struct liveprof_slot_key {
	uint32_t addr, func, slot;
} liveprof_slot_key;

static int liveprof_slot_cmp(const void *a, const void *b)
{
	const liveprof_slot_key *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static uint32_t liveprof_slot_addr(const xb_liveprof *p, size_t slot)
{
	const liveprof_func_info *fi = &p->fi[p->line_func[slot]];
	return fi->first + (uint32_t)(slot - fi->base) * p->line_size;
}

/* Each function's lines, one after the other; aliases share their first's. */
static void liveprof_build_lines(xb_liveprof *p)
{
	const xb_image *img = p->img;
	size_t total = 0;
	for (size_t i = 0; i < p->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		liveprof_func_info *fi = &p->fi[i];
		fi->first = f->addr - f->addr % p->line_size;
		int lib = f->library;
		fi->lib = lib >= 0 && (size_t)lib < p->nlibs ? lib : -1;
		fi->base = 0;
		fi->nslots = 0;
		if (liveprof_first_alias(img, i) != (long)i || !f->size)
			continue;
		uint64_t end = liveprof_func_end(f);
		uint64_t count = (end - fi->first + p->line_size - 1) / p->line_size;
		if (count > LIVEPROF_MAX_LINES - total)
			continue;
		fi->base = (uint32_t)total;
		fi->nslots = (uint32_t)count;
		total += count;
	}
	p->nslots = total;
	p->line_func = xmalloc((total ? total : 1) * sizeof *p->line_func);
	for (size_t i = 0; i < p->nfuncs; i++)
		for (uint32_t k = 0; k < p->fi[i].nslots; k++)
			p->line_func[p->fi[i].base + k] = (uint32_t)i;
	int sorted = 1;
	for (size_t l = 1; l < total && sorted; l++) {
		uint32_t a = liveprof_slot_addr(p, l - 1), b = liveprof_slot_addr(p, l);
		sorted = a < b || (a == b && p->line_func[l - 1] < p->line_func[l]);
	}
	if (sorted)
		return;
	liveprof_slot_key *keys = xmalloc(total * sizeof *keys);
	for (size_t l = 0; l < total; l++)
		keys[l] = (liveprof_slot_key){liveprof_slot_addr(p, l), p->line_func[l],
					      (uint32_t)l};
	qsort(keys, total, sizeof *keys, liveprof_slot_cmp);
	p->line_order = xmalloc(total * sizeof *p->line_order);
	for (size_t l = 0; l < total; l++)
		p->line_order[l] = keys[l].slot;
	free(keys);
}

static const char *liveprof_lib_group_name(const xb_library *l)
{
	if (l->group)
		return l->group;
	return l->name ? l->name : "unknown";
}

static void liveprof_build_libraries(xb_liveprof *p)
{
	const xb_image *img = p->img;
	size_t nl = p->nlibs;
	p->lib_group = xcalloc(nl + 1, sizeof *p->lib_group);
	p->group_name = xcalloc(nl + 1, sizeof *p->group_name);
	for (size_t i = 0; i < nl; i++) {
		const char *g = liveprof_lib_group_name(&img->libraries[i]);
		size_t k = 0;
		while (k < p->ngroups && strcmp(p->group_name[k], g) != 0)
			k++;
		if (k == p->ngroups)
			p->group_name[p->ngroups++] = g;
		p->lib_group[i] = k;
	}
	p->lib_first = xcalloc(nl + 2, sizeof *p->lib_first);
	p->lib_funcs = xmalloc((p->nfuncs + 1) * sizeof *p->lib_funcs);
	for (size_t i = 0; i < p->nfuncs; i++)
		if (p->fi[i].lib >= 0 && liveprof_first_alias(img, i) == (long)i)
			p->lib_first[p->fi[i].lib + 2]++;
	for (size_t i = 0; i < nl; i++)
		p->lib_first[i + 2] += p->lib_first[i + 1];
	for (size_t i = 0; i < p->nfuncs; i++)
		if (p->fi[i].lib >= 0 && liveprof_first_alias(img, i) == (long)i)
			p->lib_funcs[p->lib_first[p->fi[i].lib + 1]++] = (uint32_t)i;
}

xb_liveprof *liveprof_new(const xb_image *img, uint32_t line_size, const xb_liveprof_config *cfg)
{
	xb_liveprof *p = xcalloc(1, sizeof *p);
	p->img = img;
	p->line_size = line_size ? line_size : 8;
	p->line_pow2 = (p->line_size & (p->line_size - 1)) == 0;
	while (p->line_pow2 && (1u << p->line_shift) < p->line_size)
		p->line_shift++;
	p->nfuncs = img->nfuncs;
	p->nlibs = img->libraries ? img->nlibraries : 0;
	p->bucket_ns = cfg && cfg->bucket_ns ? cfg->bucket_ns : 250000000ull;
	p->nbuckets = cfg && cfg->nbuckets ? cfg->nbuckets : 40;
	p->hist_ns = cfg && cfg->history_ns ? cfg->history_ns : LIVEPROF_NS;
	p->nhist = cfg && cfg->history ? cfg->history : 120;
	uint64_t k1 = (LIVEPROF_NS + p->bucket_ns - 1) / p->bucket_ns;
	p->k1 = k1 < p->nbuckets ? (unsigned)k1 : p->nbuckets;

	size_t nf = p->nfuncs ? p->nfuncs : 1;
	p->fi = xcalloc(nf, sizeof *p->fi);
	liveprof_build_ranges(p);
	liveprof_build_blocks(p);
	liveprof_build_lines(p);
	liveprof_build_libraries(p);
	size_t ns = p->nslots ? p->nslots : 1, nl = p->nlibs ? p->nlibs : 1;
	p->bfunc = xcalloc((size_t)p->nbuckets * nf, sizeof *p->bfunc);
	p->bline = xcalloc((size_t)p->nbuckets * ns, sizeof *p->bline);
	p->nwords = (ns + 63) / 64;
	p->bmark = xcalloc((size_t)p->nbuckets * p->nwords, sizeof *p->bmark);
	p->btot = xcalloc(p->nbuckets, sizeof *p->btot);
	p->wfunc = xcalloc(nf * NW, sizeof *p->wfunc);
	p->wline = xcalloc(ns * NW, sizeof *p->wline);
	p->touched = xcalloc(nf * NW, sizeof *p->touched);
	p->wlib = xcalloc(nl * NW, sizeof *p->wlib);
	p->hlib = xcalloc((size_t)p->nhist * nl, sizeof *p->hlib);
	p->hfunc = xcalloc((size_t)p->nhist * (p->nfuncs ? p->nfuncs : 1), sizeof *p->hfunc);
	p->ifunc = xcalloc(nf, sizeof *p->ifunc);
	p->iline = xcalloc(ns, sizeof *p->iline);
	p->ilib = xcalloc(nl, sizeof *p->ilib);
	p->cur_bfunc = p->bfunc;
	p->cur_bline = p->bline;
	p->cur_bmark = p->bmark;
	p->cur_hlib = p->hlib;
	return p;
}

void liveprof_free(xb_liveprof *p)
{
	if (!p)
		return;
	free(p->ranges);
	free(p->block_first);
	free(p->fi);
	free(p->line_func);
	free(p->line_order);
	free(p->lib_group);
	free(p->group_name);
	free(p->lib_first);
	free(p->lib_funcs);
	free(p->bfunc);
	free(p->bline);
	free(p->bmark);
	free(p->btot);
	free(p->wfunc);
	free(p->wline);
	free(p->touched);
	free(p->wlib);
	free(p->hlib);
	free(p->hfunc);
	free(p->ifunc);
	free(p->iline);
	free(p->ilib);
	free(p);
}

const xb_image *liveprof_image(const xb_liveprof *p)
{
	return p->img;
}

uint32_t liveprof_line_size(const xb_liveprof *p)
{
	return p->line_size;
}

/* ---- time ---- */

static uint64_t liveprof_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t liveprof_boundary(const xb_liveprof *p, uint64_t index, uint64_t len)
{
	if (index >= UINT64_MAX / len)
		return UINT64_MAX;
	return liveprof_sat_add(p->origin, index * len);
}

static void liveprof_point_at_current(xb_liveprof *p)
{
	size_t nf = p->nfuncs ? p->nfuncs : 1, ns = p->nslots ? p->nslots : 1;
	size_t nl = p->nlibs ? p->nlibs : 1;
	p->slot = (size_t)(p->cur % p->nbuckets);
	p->cur_bfunc = p->bfunc + p->slot * nf;
	p->cur_bline = p->bline + p->slot * ns;
	p->cur_bmark = p->bmark + p->slot * p->nwords;
	p->cur_hlib = p->hlib + (size_t)(p->hcur % p->nhist) * nl;
	p->cur_hfunc = p->hfunc + (size_t)(p->hcur % p->nhist) * nf;
	p->next_bucket = liveprof_boundary(p, p->cur + 1, p->bucket_ns);
	p->next_hist = liveprof_boundary(p, p->hcur + 1, p->hist_ns);
}

/* Takes bucket `index` out of the windows in mask (bits 1 << XB_WINDOW_*); zero: it leaves
 * the ring too. Only functions with samples in the bucket have lines to visit. */
static void liveprof_leave(xb_liveprof *p, uint64_t index, unsigned mask, int zero)
{
	size_t nf = p->nfuncs ? p->nfuncs : 1, ns = p->nslots ? p->nslots : 1;
	size_t slot = (size_t)(index % p->nbuckets);
	liveprof_counts *bt = &p->btot[slot];
	if (bt->busy > bt->unattributed) {
		uint32_t *bf = p->bfunc + slot * nf, *bl = p->bline + slot * ns;
		for (size_t f = 0; f < p->nfuncs; f++) {
			uint32_t c = bf[f];
			if (!c)
				continue;
			int lib = p->fi[f].lib;
			for (int w = 0; w < NW; w++) {
				if (!(mask >> w & 1))
					continue;
				p->wfunc[f * NW + w] -= c;
				if (lib >= 0)
					p->wlib[(size_t)lib * NW + w] -= c;
			}
			if (zero)
				bf[f] = 0;
		}
		uint64_t *mark = p->bmark + slot * p->nwords;
		for (size_t k = 0; k < p->nwords; k++) {
			for (uint64_t bits = mark[k]; bits; bits &= bits - 1) {
				size_t l = k * 64 + (size_t)__builtin_ctzll(bits);
				uint32_t lc = bl[l];
				size_t f = p->line_func[l];
				for (int w = 0; w < NW; w++)
					if (mask >> w & 1 && (p->wline[l * NW + w] -= lc) == 0)
						p->touched[f * NW + w]--;
				if (zero)
					bl[l] = 0;
			}
			if (zero)
				mark[k] = 0;
		}
	}
	if (zero)
		memset(bt, 0, sizeof *bt);
}

/* Every bucket leaves at once (a jump longer than the ring). */
static void liveprof_clear_buckets(xb_liveprof *p)
{
	size_t nf = p->nfuncs ? p->nfuncs : 1, ns = p->nslots ? p->nslots : 1;
	memset(p->bfunc, 0, (size_t)p->nbuckets * nf * sizeof *p->bfunc);
	memset(p->bline, 0, (size_t)p->nbuckets * ns * sizeof *p->bline);
	memset(p->bmark, 0, (size_t)p->nbuckets * p->nwords * sizeof *p->bmark);
	memset(p->btot, 0, p->nbuckets * sizeof *p->btot);
	for (int w = 0; w < XB_WINDOW_ALL; w++) {
		for (size_t f = 0; f < p->nfuncs; f++) {
			p->wfunc[f * NW + w] = 0;
			p->touched[f * NW + w] = 0;
		}
		for (size_t l = 0; l < p->nslots; l++)
			p->wline[l * NW + w] = 0;
		for (size_t b = 0; b < p->nlibs; b++)
			p->wlib[b * NW + w] = 0;
	}
}

static void liveprof_rotate(xb_liveprof *p, uint64_t t)
{
	uint64_t el = t - p->origin;
	uint64_t cur = el / p->bucket_ns, h = el / p->hist_ns;
	if (cur - p->cur >= p->nbuckets) {
		liveprof_clear_buckets(p);
		p->cur = cur;
	}
	while (p->cur < cur) {
		uint64_t c = ++p->cur;
		uint64_t b1 = c >= p->k1 ? c - p->k1 : UINT64_MAX;
		uint64_t b10 = c >= p->nbuckets ? c - p->nbuckets : UINT64_MAX;
		if (b1 == b10) {
			if (b1 != UINT64_MAX)
				liveprof_leave(p, b1, 1u << XB_WINDOW_1S | 1u << XB_WINDOW_10S, 1);
			continue;
		}
		if (b1 != UINT64_MAX)
			liveprof_leave(p, b1, 1u << XB_WINDOW_1S, 0);
		if (b10 != UINT64_MAX)
			liveprof_leave(p, b10, 1u << XB_WINDOW_10S, 1);
	}
	size_t nl = p->nlibs ? p->nlibs : 1;
	size_t nfh = p->nfuncs ? p->nfuncs : 1;
	if (h - p->hcur >= p->nhist) {
		memset(p->hlib, 0, (size_t)p->nhist * nl * sizeof *p->hlib);
		memset(p->hfunc, 0, (size_t)p->nhist * nfh * sizeof *p->hfunc);
		p->hcur = h;
	}
	while (p->hcur < h) {
		p->hcur++;
		memset(p->hlib + (size_t)(p->hcur % p->nhist) * nl, 0, nl * sizeof *p->hlib);
		memset(p->hfunc + (size_t)(p->hcur % p->nhist) * nfh, 0, nfh * sizeof *p->hfunc);
	}
	liveprof_point_at_current(p);
}

static void liveprof_start_at(xb_liveprof *p, uint64_t t)
{
	p->started = 1;
	p->origin = p->now = t;
	p->cur = p->hcur = 0;
	liveprof_point_at_current(p);
}

static void liveprof_move_to(xb_liveprof *p, uint64_t t)
{
	if (t <= p->now)
		return;
	if (t >= p->next_bucket || t >= p->next_hist)
		liveprof_rotate(p, t);
	p->now = t;
}

void liveprof_advance(xb_liveprof *p, uint64_t now_ns)
{
	if (p->started)
		liveprof_move_to(p, now_ns);
}

uint64_t liveprof_now(const xb_liveprof *p)
{
	return p->now;
}

void liveprof_reset(xb_liveprof *p, uint64_t now_ns)
{
	size_t nf = p->nfuncs ? p->nfuncs : 1, ns = p->nslots ? p->nslots : 1;
	size_t nl = p->nlibs ? p->nlibs : 1;
	memset(p->bfunc, 0, (size_t)p->nbuckets * nf * sizeof *p->bfunc);
	memset(p->bline, 0, (size_t)p->nbuckets * ns * sizeof *p->bline);
	memset(p->bmark, 0, (size_t)p->nbuckets * p->nwords * sizeof *p->bmark);
	memset(p->btot, 0, p->nbuckets * sizeof *p->btot);
	memset(&p->all, 0, sizeof p->all);
	memset(p->wfunc, 0, nf * NW * sizeof *p->wfunc);
	memset(p->wline, 0, ns * NW * sizeof *p->wline);
	memset(p->touched, 0, nf * NW * sizeof *p->touched);
	memset(p->wlib, 0, nl * NW * sizeof *p->wlib);
	memset(p->hlib, 0, (size_t)p->nhist * nl * sizeof *p->hlib);
	memset(p->hfunc, 0, (size_t)p->nhist * nf * sizeof *p->hfunc);
	liveprof_idle_clear(p);
	liveprof_start_at(p, now_ns);
}

/* ---- ingest ---- */

static long liveprof_find_range(const xb_liveprof *p, uint32_t pc)
{
	size_t lo = 0, hi = p->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->ranges[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= p->ranges[lo - 1].end)
		return -1;
	return (long)(lo - 1);
}

/* The range holding pc, through the block table, or -1. */
static inline long liveprof_find_block(const xb_liveprof *p, uint32_t pc)
{
	if (pc < p->block_base || pc >= p->block_end)
		return -1;
	size_t b = (size_t)((pc - p->block_base) >> p->block_shift);
	size_t lo = p->block_first[b], hi = (size_t)p->block_first[b + 1] + 1;
	if (hi > p->nranges)
		hi = p->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->ranges[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= p->ranges[lo - 1].end || pc < p->ranges[lo - 1].start)
		return -1;
	return (long)(lo - 1);
}

/* Consecutive samples often fall in the same function: try the last range first. */
static inline long liveprof_lookup(xb_liveprof *p, uint32_t pc)
{
	if (!p->nranges)
		return -1;
	const liveprof_range *r = &p->ranges[p->last];
	if (pc >= r->start && pc < r->end)
		return r->func;
	long k = liveprof_find_block(p, pc);
	if (k < 0)
		return -1;
	p->last = (size_t)k;
	return p->ranges[k].func;
}

static inline uint32_t liveprof_line_index(const xb_liveprof *p, const liveprof_func_info *fi,
					   uint32_t pc)
{
	uint32_t d = pc - fi->first;
	return p->line_pow2 ? d >> p->line_shift : d / p->line_size;
}

static inline void liveprof_add_busy(xb_liveprof *p, uint32_t pc)
{
	liveprof_counts *bt = &p->btot[p->slot];
	bt->samples++;
	bt->busy++;
	p->all.samples++;
	p->all.busy++;
	long f = liveprof_lookup(p, pc);
	if (f < 0) {
		bt->unattributed++;
		p->all.unattributed++;
		return;
	}
	const liveprof_func_info *fi = &p->fi[f];
	p->cur_bfunc[f]++;
	uint64_t *wf = &p->wfunc[(size_t)f * NW];
	wf[0]++;
	wf[1]++;
	wf[2]++;
	uint32_t k = liveprof_line_index(p, fi, pc);
	if (k < fi->nslots) {
		size_t l = (size_t)fi->base + k;
		if (p->cur_bline[l]++ == 0)
			p->cur_bmark[l / 64] |= 1ull << (l % 64);
		uint64_t *wl = &p->wline[l * NW];
		uint32_t *tc = &p->touched[(size_t)f * NW];
		tc[0] += wl[0]++ == 0;
		tc[1] += wl[1]++ == 0;
		tc[2] += wl[2]++ == 0;
	}
	if (fi->lib >= 0) {
		uint64_t *wb = &p->wlib[(size_t)fi->lib * NW];
		wb[0]++;
		wb[1]++;
		wb[2]++;
		p->cur_hlib[fi->lib]++;
	}
	p->cur_hfunc[f]++;
}

static void liveprof_add_idle(xb_liveprof *p, uint32_t pc)
{
	p->idle_samples++;
	long f = liveprof_lookup(p, pc);
	if (f < 0)
		return;
	const liveprof_func_info *fi = &p->fi[f];
	p->ifunc[f]++;
	uint32_t k = liveprof_line_index(p, fi, pc);
	if (k < fi->nslots)
		p->iline[fi->base + k]++;
	if (fi->lib >= 0)
		p->ilib[fi->lib]++;
}

void liveprof_add(xb_liveprof *p, const xb_live_sample *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!p->started)
			liveprof_start_at(p, s[i].t_ns);
		else if (s[i].t_ns > p->now)
			liveprof_move_to(p, s[i].t_ns);
		uint32_t pc = s[i].pc, flags = s[i].flags;
		if (pc == LIVEPROF_HALTED) {
			p->btot[p->slot].samples++;
			p->btot[p->slot].halted++;
			p->all.samples++;
			p->all.halted++;
		} else if (flags & XB_SAMPLE_SLEEP) {
			p->btot[p->slot].samples++;
			p->btot[p->slot].sleep++;
			p->all.samples++;
			p->all.sleep++;
		} else if (flags & XB_SAMPLE_IDLE) {
			liveprof_add_idle(p, pc);
		} else {
			liveprof_add_busy(p, pc);
		}
	}
}

/* ---- idle recording ---- */

void liveprof_idle_window(xb_liveprof *p, double seconds)
{
	if (isfinite(seconds) && seconds > 0)
		p->idle_seconds += seconds;
}

void liveprof_idle_clear(xb_liveprof *p)
{
	size_t nf = p->nfuncs ? p->nfuncs : 1, ns = p->nslots ? p->nslots : 1;
	size_t nl = p->nlibs ? p->nlibs : 1;
	memset(p->ifunc, 0, nf * sizeof *p->ifunc);
	memset(p->iline, 0, ns * sizeof *p->iline);
	memset(p->ilib, 0, nl * sizeof *p->ilib);
	p->idle_samples = 0;
	p->idle_seconds = 0;
}

double liveprof_idle_seconds(const xb_liveprof *p)
{
	return p->idle_seconds;
}

uint64_t liveprof_idle_samples(const xb_liveprof *p)
{
	return p->idle_samples;
}

void liveprof_set_subtract(xb_liveprof *p, int on)
{
	p->subtract = on != 0;
}

int liveprof_subtract(const xb_liveprof *p)
{
	return p->subtract;
}

/* ---- queries ---- */

static int liveprof_window_ok(int window)
{
	return window >= 0 && window < NW;
}

static double liveprof_seconds(const xb_liveprof *p, int window)
{
	if (!p->started || !liveprof_window_ok(window))
		return 0;
	uint64_t el = p->now - p->origin;
	if (window == XB_WINDOW_ALL)
		return (double)el / 1e9;
	uint64_t k = window == XB_WINDOW_1S ? p->k1 : p->nbuckets;
	uint64_t s = liveprof_sat_add((k - 1) * p->bucket_ns, el % p->bucket_ns);
	return (double)(s < el ? s : el) / 1e9;
}

/* The factor on idle counts in a window: its seconds over the idle recording's; 0 when
 * not subtracting or nothing was recorded. */
static double liveprof_idle_ratio(const xb_liveprof *p, int window)
{
	if (!p->subtract || !(p->idle_seconds > 0))
		return 0;
	return liveprof_seconds(p, window) / p->idle_seconds;
}

static double liveprof_figure(uint64_t busy, uint64_t idle, double ratio)
{
	if (ratio == 0)
		return (double)busy;
	double v = (double)busy - (double)idle * ratio;
	return v > 0 ? v : 0;
}

static int liveprof_is_first(const xb_liveprof *p, size_t func)
{
	return func < p->nfuncs && liveprof_first_alias(p->img, func) == (long)func;
}

void liveprof_totals(const xb_liveprof *p, int window, xb_liveprof_totals *out)
{
	memset(out, 0, sizeof *out);
	if (!liveprof_window_ok(window))
		return;
	liveprof_counts c = {0};
	if (window == XB_WINDOW_ALL) {
		c = p->all;
	} else {
		uint64_t k = window == XB_WINDOW_1S ? p->k1 : p->nbuckets;
		for (uint64_t j = 0; j < k && j <= p->cur; j++) {
			const liveprof_counts *b = &p->btot[(p->cur - j) % p->nbuckets];
			c.samples += b->samples;
			c.busy += b->busy;
			c.sleep += b->sleep;
			c.halted += b->halted;
			c.unattributed += b->unattributed;
		}
	}
	out->seconds = liveprof_seconds(p, window);
	out->samples = c.samples;
	out->busy = c.busy;
	out->sleep = c.sleep;
	out->halted = c.halted;
	out->unattributed = c.unattributed;
	double ratio = liveprof_idle_ratio(p, window);
	if (ratio == 0) {
		out->net = (double)(c.busy - c.unattributed);
	} else {
		for (size_t f = 0; f < p->nfuncs; f++)
			if (liveprof_is_first(p, f))
				out->net += liveprof_figure(p->wfunc[f * NW + window], p->ifunc[f],
							    ratio);
	}
	out->rate = out->seconds > 0 ? (double)out->samples / out->seconds : 0;
}

double liveprof_func(const xb_liveprof *p, int window, size_t func)
{
	if (!liveprof_window_ok(window) || !liveprof_is_first(p, func))
		return 0;
	return liveprof_figure(p->wfunc[func * NW + window], p->ifunc[func],
			       liveprof_idle_ratio(p, window));
}

uint64_t liveprof_func_busy(const xb_liveprof *p, int window, size_t func)
{
	if (!liveprof_window_ok(window) || !liveprof_is_first(p, func))
		return 0;
	return p->wfunc[func * NW + window];
}

uint64_t liveprof_func_idle(const xb_liveprof *p, size_t func)
{
	return liveprof_is_first(p, func) ? p->ifunc[func] : 0;
}

uint32_t liveprof_func_lines_touched(const xb_liveprof *p, int window, size_t func)
{
	if (!liveprof_window_ok(window) || !liveprof_is_first(p, func))
		return 0;
	return p->touched[func * NW + window];
}

void liveprof_func_lines(const xb_liveprof *p, size_t func, uint32_t *first, uint32_t *count)
{
	*first = 0;
	*count = 0;
	if (func >= p->nfuncs)
		return;
	const xb_function *f = &p->img->funcs[func];
	*first = p->fi[func].first;
	if (!f->size)
		return;
	uint64_t end = liveprof_func_end(f);
	uint64_t n = (end - *first + p->line_size - 1) / p->line_size;
	*count = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

double liveprof_line(const xb_liveprof *p, int window, size_t func, uint32_t k)
{
	if (!liveprof_window_ok(window) || func >= p->nfuncs || k >= p->fi[func].nslots)
		return 0;
	size_t l = (size_t)p->fi[func].base + k;
	return liveprof_figure(p->wline[l * NW + window], p->iline[l],
			       liveprof_idle_ratio(p, window));
}

static double liveprof_library_figure(const xb_liveprof *p, int window, size_t lib, double ratio)
{
	if (ratio == 0)
		return (double)p->wlib[lib * NW + window];
	double sum = 0;
	for (size_t k = p->lib_first[lib]; k < p->lib_first[lib + 1]; k++) {
		uint32_t f = p->lib_funcs[k];
		sum += liveprof_figure(p->wfunc[(size_t)f * NW + window], p->ifunc[f], ratio);
	}
	return sum;
}

double liveprof_library(const xb_liveprof *p, int window, size_t lib)
{
	if (!liveprof_window_ok(window) || lib >= p->nlibs)
		return 0;
	return liveprof_library_figure(p, window, lib, liveprof_idle_ratio(p, window));
}

size_t liveprof_groups(const xb_liveprof *p)
{
	return p->ngroups;
}

const char *liveprof_group_name(const xb_liveprof *p, size_t group)
{
	return group < p->ngroups ? p->group_name[group] : NULL;
}

size_t liveprof_group_of(const xb_liveprof *p, size_t lib)
{
	return lib < p->nlibs ? p->lib_group[lib] : p->ngroups;
}

double liveprof_group(const xb_liveprof *p, int window, size_t group)
{
	if (!liveprof_window_ok(window) || group >= p->ngroups)
		return 0;
	double ratio = liveprof_idle_ratio(p, window), sum = 0;
	for (size_t b = 0; b < p->nlibs; b++)
		if (p->lib_group[b] == group)
			sum += liveprof_library_figure(p, window, b, ratio);
	return sum;
}

uint64_t liveprof_history_ns(const xb_liveprof *p)
{
	return p->hist_ns;
}

/* Adds lib's history to out[0..n); returns the number of real buckets. */
static size_t liveprof_history_add(const xb_liveprof *p, size_t lib, double *out, size_t n)
{
	if (!p->started)
		return 0;
	double secs = (double)p->hist_ns / 1e9;
	int subtract = p->subtract && p->idle_seconds > 0;
	double ratio = subtract ? secs / p->idle_seconds : 0;
	size_t nl = p->nlibs ? p->nlibs : 1, nf = p->nfuncs ? p->nfuncs : 1, real = 0;
	for (size_t j = 0; j < n; j++) {
		uint64_t age = n - 1 - j;
		if (age > p->hcur || age >= p->nhist)
			continue;
		size_t row = (size_t)((p->hcur - age) % p->nhist);
		double v = 0;
		if (!subtract) {
			v = (double)p->hlib[row * nl + lib];
		} else {
			/* busy minus idle per function, summed: what the window figures do */
			const uint32_t *hf = p->hfunc + row * nf;
			for (size_t k = p->lib_first[lib]; k < p->lib_first[lib + 1]; k++) {
				uint32_t f = p->lib_funcs[k];
				double d = (double)hf[f] - (double)p->ifunc[f] * ratio;
				if (d > 0)
					v += d;
			}
		}
		out[j] += v / secs;
		real++;
	}
	return real;
}

/* Buckets of out[0..n) that are kept and not before the start. */
static size_t liveprof_history_real(const xb_liveprof *p, size_t n)
{
	if (!p->started)
		return 0;
	uint64_t real = p->hcur + 1 < p->nhist ? p->hcur + 1 : p->nhist;
	return real < n ? (size_t)real : n;
}

size_t liveprof_library_history(const xb_liveprof *p, size_t lib, double *out, size_t n)
{
	for (size_t j = 0; j < n; j++)
		out[j] = 0;
	if (lib >= p->nlibs)
		return 0;
	return liveprof_history_add(p, lib, out, n);
}

size_t liveprof_group_history(const xb_liveprof *p, size_t group, double *out, size_t n)
{
	for (size_t j = 0; j < n; j++)
		out[j] = 0;
	if (group >= p->ngroups)
		return 0;
	for (size_t b = 0; b < p->nlibs; b++)
		if (p->lib_group[b] == group)
			liveprof_history_add(p, b, out, n);
	return liveprof_history_real(p, n);
}

void liveprof_each_line(const xb_liveprof *p, int window, xb_liveprof_line_fn fn, void *ctx)
{
	if (!liveprof_window_ok(window))
		return;
	double ratio = liveprof_idle_ratio(p, window);
	for (size_t i = 0; i < p->nslots; i++) {
		size_t l = p->line_order ? p->line_order[i] : i;
		uint64_t busy = p->wline[l * NW + window];
		if (busy)
			fn(ctx, liveprof_slot_addr(p, l), p->line_func[l],
			   liveprof_figure(busy, p->iline[l], ratio));
	}
}

long liveprof_function_at(const xb_liveprof *p, uint32_t addr)
{
	long k = liveprof_find_range(p, addr & ~1u);
	return k < 0 ? -1 : (long)p->ranges[k].func;
}
