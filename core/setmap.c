/* setmap: the cache sets of the current layout: hot lines per set from the live profile,
 * with the predicted, live and contents figures a view shows beside them. */
#include "setmap.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void setmap_init(xb_setmap *m, const xb_target *tg)
{
	memset(m, 0, sizeof *m);
	m->line_size = tg->cache.line ? tg->cache.line : 8;
	m->ways = tg->cache.ways ? tg->cache.ways : 1;
	m->nsets = tg->cache.size / m->line_size / m->ways;
	if (!m->nsets)
		m->nsets = 1;
	m->hot = xcalloc(m->nsets, sizeof *m->hot);
	m->heat = xcalloc(m->nsets, sizeof *m->heat);
	m->first = xcalloc(m->nsets + 1, sizeof *m->first);
}

void setmap_free(xb_setmap *m)
{
	free(m->hot);
	free(m->heat);
	free(m->lines);
	free(m->first);
	free(m->predicted);
	free(m->live);
	free(m->contents);
	memset(m, 0, sizeof *m);
}

uint32_t setmap_set_of(const xb_setmap *m, uint32_t addr)
{
	return addr / m->line_size % m->nsets;
}

typedef struct setmap_collect {
	xb_setmap *m;
	const xb_target *tg;
} setmap_collect;

/* Lines fetched through an alias that looks the cache up or fills it take a way; the
 * bypass alias (uncached, no allocation), SRAM and ROM take none. */
static void setmap_take_line(void *ctx, uint32_t line, size_t func, double value)
{
	setmap_collect *c = ctx;
	xb_setmap *m = c->m;
	uint32_t off;
	enum xb_alias_mode mode;
	if (!(value > 0) || !target_decode_xip(c->tg, line, &off, &mode) ||
	    mode == XB_ALIAS_UNCACHED_NOALLOC)
		return;
	xb_grow(&m->lines, &m->cap, m->nlines + 1, sizeof *m->lines);
	m->lines[m->nlines++] = (xb_setmap_line){
		.line = c->tg->flash_base + (off - off % m->line_size),
		.func = (long)func,
		.value = value,
	};
}

/* A hot line with its set, for sorting. */
typedef struct setmap_key {
	uint32_t set;
	xb_setmap_line l;
} setmap_key;

static int setmap_key_cmp(const void *a, const void *b)
{
	const setmap_key *x = a, *y = b;
	if (x->set != y->set)
		return x->set < y->set ? -1 : 1;
	if (x->l.line != y->l.line)
		return x->l.line < y->l.line ? -1 : 1;
	return x->l.func < y->l.func ? -1 : x->l.func > y->l.func;
}

static void setmap_begin(xb_setmap *m)
{
	memset(m->hot, 0, m->nsets * sizeof *m->hot);
	memset(m->heat, 0, m->nsets * sizeof *m->heat);
	memset(m->first, 0, (m->nsets + 1) * sizeof *m->first);
	m->nlines = 0;
	m->hot_max = m->sets_over = 0;
	m->hot_lines = 0;
}

static void setmap_finish(xb_setmap *m);

void setmap_update(xb_setmap *m, const xb_target *tg, const xb_liveprof *p, int window)
{
	setmap_begin(m);
	setmap_collect c = {m, tg};
	liveprof_each_line(p, window, setmap_take_line, &c);
	setmap_finish(m);
}

void setmap_update_moved(xb_setmap *m, const xb_target *tg, const xb_profile *p,
			 const xb_placement *pl)
{
	setmap_begin(m);
	setmap_collect c = {m, tg};
	long hint = -1;
	for (size_t i = 0; i < p->nlines; i++) {
		const xb_line_count *lc = &p->lines[i];
		const xb_function *f = image_function_at(p->img, lc->line);
		if (!f || !(lc->net > 0))
			continue;
		uint32_t to = pl ? placement_move_near(p->img, pl, lc->line, &hint) : lc->line;
		setmap_take_line(&c, to, (size_t)(f - p->img->funcs), lc->net);
	}
	setmap_finish(m);
}

/* Sorts the collected lines by set and counts each set's. */
static void setmap_finish(xb_setmap *m)
{
	setmap_key *keys = xmalloc((m->nlines + 1) * sizeof *keys);
	for (size_t i = 0; i < m->nlines; i++)
		keys[i] = (setmap_key){setmap_set_of(m, m->lines[i].line), m->lines[i]};
	qsort(keys, m->nlines, sizeof *keys, setmap_key_cmp);
	/* A profile line smaller than the cache's maps several onto one: one entry each. */
	size_t n = 0;
	for (size_t i = 0; i < m->nlines; i++) {
		if (n && m->lines[n - 1].line == keys[i].l.line &&
		    m->lines[n - 1].func == keys[i].l.func)
			m->lines[n - 1].value += keys[i].l.value;
		else
			m->lines[n++] = keys[i].l;
	}
	m->nlines = n;
	free(keys);

	/* A line two functions share is one line of the cache: counted once per set. */
	for (size_t i = 0; i < n; i++) {
		uint32_t s = setmap_set_of(m, m->lines[i].line);
		m->first[s + 1]++;
		m->heat[s] += m->lines[i].value;
		if (i == 0 || m->lines[i - 1].line != m->lines[i].line) {
			m->hot[s]++;
			m->hot_lines++;
		}
	}
	for (uint32_t s = 0; s < m->nsets; s++) {
		m->first[s + 1] += m->first[s];
		if (m->hot[s] > m->hot_max)
			m->hot_max = m->hot[s];
		if (m->hot[s] > m->ways)
			m->sets_over++;
	}
}

/* Replaces *dst by a copy of n values of src (NULL: none). */
static void setmap_copy(void **dst, const void *src, size_t n, size_t elem)
{
	if (!src) {
		free(*dst);
		*dst = NULL;
		return;
	}
	if (!*dst)
		*dst = xmalloc(n * elem);
	memcpy(*dst, src, n * elem);
}

void setmap_set_predicted(xb_setmap *m, const double *per_set, const char *from)
{
	setmap_copy((void **)&m->predicted, per_set, m->nsets, sizeof *m->predicted);
	snprintf(m->predicted_from, sizeof m->predicted_from, "%s",
		 per_set && from ? from : "");
}

void setmap_set_live(xb_setmap *m, const double *misses_per_s)
{
	setmap_copy((void **)&m->live, misses_per_s, m->nsets, sizeof *m->live);
}

void setmap_set_contents(xb_setmap *m, const int64_t *tags)
{
	setmap_copy((void **)&m->contents, tags, (size_t)m->nsets * m->ways, sizeof *m->contents);
}
