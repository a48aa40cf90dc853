/* plan_heat: how often each flash line and function runs, from a trace or from samples. */
#include "plan_heat.h"

#include <stdlib.h>
#include <string.h>

/* Open-addressing map from a key (a line address, or a function index and a line address)
 * to the number of times the trace came back to it. */
typedef struct touch_slot {
	uint64_t key;
	uint32_t used;
	uint64_t visits;
	int64_t last;       /* index of the last fetch of it, -1 before the first */
} touch_slot;

/* A fetch this many trace entries after the last one of the same line is a new visit: it
 * misses in a set whose lines cannot all stay cached. A loop that runs through a few lines
 * many times visits each of them once. */
#define VISIT_GAP 512

typedef struct touch_map {
	touch_slot *s;
	size_t cap, n;
} touch_map;

static touch_slot *touch_get(touch_map *m, uint64_t key)
{
	if ((m->n + 1) * 2 > m->cap) {
		touch_map old = *m;
		m->cap = old.cap ? old.cap * 2 : 4096;
		m->s = xcalloc(m->cap, sizeof *m->s);
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.s[i].used)
				*touch_get(m, old.s[i].key) = old.s[i];
		free(old.s);
	}
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
	while (m->s[i].used && m->s[i].key != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->s[i].used) {
		m->s[i].used = 1;
		m->s[i].key = key;
		m->s[i].last = -1;
		m->n++;
	}
	return &m->s[i];
}

static void touch(touch_map *m, uint64_t key, int64_t i)
{
	touch_slot *s = touch_get(m, key);
	if (s->last < 0 || i - s->last > VISIT_GAP)
		s->visits++;
	s->last = i;
}

static int heat_line_cmp(const void *a, const void *b)
{
	const xb_heat_line *x = a, *y = b;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sorts the lines by address; lines made in address order (functions are) need no sort. */
static void sort_lines(xb_heat *h)
{
	size_t k = 1;
	while (k < h->nlines && h->lines[k - 1].line <= h->lines[k].line)
		k++;
	if (k < h->nlines)
		qsort(h->lines, h->nlines, sizeof *h->lines, heat_line_cmp);
}

static int first_of_alias(const xb_image *img, int i)
{
	return img->funcs[i].alias_of >= 0 ? img->funcs[i].alias_of : i;
}

/* Line heat: visits to the line per echo (a line every echo runs through once has heat 1, a
 * line each echo comes back to three times heat 3). Function heat: the same summed over the
 * lines its own fetches touch, so a tiny function sharing a line with a hot one stays
 * cold. */
static void heat_from_trace(xb_heat *h, const xb_plan_input *in)
{
	const xb_target *tg = in->tg;
	const xb_trace *t = in->trace;
	const xb_image *img = h->img;
	touch_map lines = {0}, own = {0};
	size_t from = trace_counted_from(t), echoes = trace_echo_count(t);
	int *first_in_input = xmalloc((img->map.ninputs + 1) * sizeof *first_in_input);
	for (size_t i = 0; i < img->map.ninputs; i++)
		first_in_input[i] = -1;
	for (size_t i = img->nfuncs; i-- > 0;)
		if (img->funcs[i].input >= 0 && img->funcs[i].alias_of < 0)
			first_in_input[img->funcs[i].input] = (int)i;
	const xb_function *f = NULL;
	int owner = -1;
	for (size_t i = from; i < t->n; i++) {
		uint32_t off;
		enum xb_alias_mode mode;
		if (!target_decode_xip(tg, t->addr[i], &off, &mode))
			continue;
		uint32_t a = tg->flash_base + off;
		uint32_t line = a & ~(h->line_size - 1);
		touch(&lines, line, (int64_t)i);
		if (!f || a - f->addr >= f->size) {
			/* the function whose symbol covers a, else the first function of the input
			 * section holding it (code without a sized symbol, such as an assembler
			 * routine, moves with its section) */
			f = image_function_at(img, a);
			long mi = !f && img->has_map ? mapfile_input_at(&img->map, a) : -1;
			owner = f ? first_of_alias(img, (int)(f - img->funcs))
				  : mi >= 0 ? first_in_input[mi] : -1;
		}
		if (owner >= 0)
			touch(&own, (uint64_t)owner << 32 | line, (int64_t)i);
	}
	free(first_in_input);
	h->lines = xmalloc((lines.n + 1) * sizeof *h->lines);
	for (size_t i = 0; i < lines.cap; i++)
		if (lines.s[i].used)
			h->lines[h->nlines++] = (xb_heat_line){
				.line = (uint32_t)lines.s[i].key,
				.heat = (double)lines.s[i].visits / (double)echoes,
			};
	for (size_t i = 0; i < own.cap; i++)
		if (own.s[i].used)
			h->func[own.s[i].key >> 32] += (double)own.s[i].visits / (double)echoes;
	free(lines.s);
	free(own.s);
	sort_lines(h);
	h->hot_threshold = 0.25;
}

static void heat_from_profile(xb_heat *h, const xb_plan_input *in)
{
	const xb_image *img = h->img;
	size_t cap = 0;
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		if (f->alias_of >= 0 || f->size == 0 || in->prof->func[i].net <= 0)
			continue;
		uint32_t first = f->addr & ~(h->line_size - 1);
		uint32_t last = (f->addr + f->size - 1) & ~(h->line_size - 1);
		size_t nl = (last - first) / h->line_size + 1;
		double each = in->prof->func[i].net / (double)nl;
		h->func[i] = in->prof->func[i].net;
		xb_grow(&h->lines, &cap, h->nlines + nl, sizeof *h->lines);
		for (uint32_t a = first; a <= last; a += h->line_size)
			h->lines[h->nlines++] = (xb_heat_line){.line = a, .heat = each};
	}
	sort_lines(h);
	/* functions sharing a line: keep one entry with the sum */
	size_t w = 0;
	for (size_t i = 0; i < h->nlines; i++) {
		if (w && h->lines[w - 1].line == h->lines[i].line)
			h->lines[w - 1].heat += h->lines[i].heat;
		else
			h->lines[w++] = h->lines[i];
	}
	h->nlines = w;
	h->hot_threshold = 0; /* every line of a sampled function */
}

int heat_build(xb_heat *h, const xb_plan_input *in, xb_err *err)
{
	memset(h, 0, sizeof *h);
	if (!in->trace && !in->prof)
		return xb_fail(err, "planning needs PC samples (--samples) or a trace (--trace)");
	h->img = in->img;
	h->line_size = in->tg->cache.line;
	h->func = xcalloc(in->img->nfuncs + 1, sizeof *h->func);
	if (in->trace) {
		h->from_trace = 1;
		heat_from_trace(h, in);
	} else {
		heat_from_profile(h, in);
	}
	return 0;
}

void heat_free(xb_heat *h)
{
	free(h->func);
	free(h->lines);
	memset(h, 0, sizeof *h);
}

static const xb_heat *sort_heat;
static int hotter_first(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	double hx = sort_heat->func[x], hy = sort_heat->func[y];
	if (hx != hy)
		return hx > hy ? -1 : 1;
	return x - y; /* functions are sorted by address */
}

size_t heat_hot_functions(const xb_heat *h, int **out)
{
	const xb_image *img = h->img;
	int *v = xmalloc((img->nfuncs + 1) * sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		if (f->alias_of >= 0 || f->input < 0 || f->region != XB_REGION_FLASH ||
		    f->is_veneer || h->func[i] <= 0)
			continue;
		v[n++] = (int)i;
	}
	sort_heat = h;
	qsort(v, n, sizeof *v, hotter_first);
	sort_heat = NULL;
	/* layouts move input sections: keep the hottest function of each */
	int8_t *seen = xcalloc(img->map.ninputs + 1, 1);
	size_t w = 0;
	for (size_t k = 0; k < n; k++) {
		int in = img->funcs[v[k]].input;
		if (seen[in])
			continue;
		seen[in] = 1;
		v[w++] = v[k];
	}
	free(seen);
	*out = v;
	return w;
}

static size_t first_line_at_or_after(const xb_heat *h, uint32_t line)
{
	size_t lo = 0, hi = h->nlines;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (h->lines[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t heat_range_lines(const xb_heat *h, uint32_t addr, uint32_t size, uint32_t start,
			double *out)
{
	uint32_t L = h->line_size;
	if (size == 0)
		return 0;
	size_t n = ((start & (L - 1)) + size - 1) / L + 1;
	memset(out, 0, n * sizeof *out);
	uint32_t first = addr & ~(L - 1);
	for (size_t k = first_line_at_or_after(h, first);
	     k < h->nlines && h->lines[k].line < addr + size; k++) {
		/* the bytes of this original line inside the range, moved to start */
		uint32_t lo = h->lines[k].line > addr ? h->lines[k].line - addr : 0;
		uint32_t hi = h->lines[k].line + L - addr;
		if (hi > size)
			hi = size;
		size_t j0 = ((start & (L - 1)) + lo) / L, j1 = ((start & (L - 1)) + hi - 1) / L;
		for (size_t j = j0; j <= j1 && j < n; j++)
			if (h->lines[k].heat > out[j])
				out[j] = h->lines[k].heat;
	}
	return n;
}
