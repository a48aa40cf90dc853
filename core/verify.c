/* verify: a relinked image against its plan: functions matched by name between the stock and
 * the built image, then each checked against the placement's prediction; veneers as a set. */
#include "verify.h"

#include "startup.h"

#include <stdlib.h>
#include <string.h>

typedef struct vctx {
	const xb_image *stock, *built;
	const xb_placement *p;
	const xb_target *tg;
	int *role;           /* per stock function */
	uint32_t *offset;    /* per stock function: planned way offset (COLOUR) */
	char *bad;           /* per stock function: a problem was reported */
	long *match;         /* per stock function: the built function, or -1 */
	long *back;          /* per built function: the stock function, or -1 */
	char *veneer;        /* per built function: made by the linker */
	char *startup;       /* per stock function: on the start-up path (code relocation
			      * route only; NULL otherwise) */
	size_t *built_by_name; /* built functions that are not veneers, by name */
	size_t nbuilt_by_name;
	xb_verify_result *r;
} vctx;

const char *verify_role_name(int role)
{
	static const char *const names[] = {"hot", "colour", "SRAM", "noalloc", "other", "veneer",
					    "missing", "new"};
	return role >= 0 && role <= XB_VERIFY_NEW ? names[role] : "?";
}

const char *verify_kind_name(int kind)
{
	static const char *const names[] = {"moved", "way", "not-sram", "resized", "absent",
					    "unexpected"};
	return kind >= 0 && kind <= XB_VERIFY_UNEXPECTED ? names[kind] : "?";
}

static xb_verify_problem *add_to(xb_verify_problem **v, size_t *n, size_t *cap, char *name,
				 int role, int kind, uint32_t expected, uint32_t found)
{
	xb_grow(v, cap, *n + 1, sizeof **v);
	xb_verify_problem *pr = &(*v)[(*n)++];
	memset(pr, 0, sizeof *pr);
	pr->name = name;
	pr->role = role;
	pr->kind = kind;
	pr->expected = expected;
	pr->found = found;
	return pr;
}

static xb_verify_problem *add_problem(vctx *c, char *name, int role, int kind, uint32_t expected,
				      uint32_t found)
{
	xb_verify_result *r = c->r;
	return add_to(&r->problems, &r->nproblems, &r->cap, name, role, kind, expected, found);
}

/* A veneer that is not as the placement modelled it: worth knowing, not a failure. */
static void add_note(vctx *c, char *name, int kind, uint32_t expected, uint32_t found)
{
	xb_verify_result *r = c->r;
	add_to(&r->notes, &r->nnotes, &r->notes_cap, name, XB_VERIFY_VENEER, kind, expected, found);
}

/* ---- matching ---- */

static int by_name(const void *a, const void *b, void *ctx)
{
	const xb_function *f = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int d = strcmp(f[x].name, f[y].name);
	return d ? d : (x < y ? -1 : x > y);
}

static void pair(vctx *c, size_t i, size_t j)
{
	c->match[i] = (long)j;
	c->back[j] = (long)i;
}

/* Pairs the unpaired functions of S and B whose keys are equal and unique on both sides. */
static void pair_unique_keys(vctx *c, const size_t *S, char **ks, size_t ns, const size_t *B,
			     char **kb, size_t nb)
{
	for (size_t a = 0; a < ns; a++) {
		if (c->match[S[a]] >= 0)
			continue;
		size_t in_s = 0, in_b = 0, hit = 0;
		for (size_t x = 0; x < ns; x++)
			in_s += c->match[S[x]] < 0 && strcmp(ks[x], ks[a]) == 0;
		for (size_t y = 0; y < nb; y++)
			if (c->back[B[y]] < 0 && strcmp(kb[y], ks[a]) == 0)
				in_b++, hit = y;
		if (in_s == 1 && in_b == 1)
			pair(c, S[a], B[hit]);
	}
}

static void free_keys(char **k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i]);
	free(k);
}

static char *file_key(const xb_image *img, const xb_function *f)
{
	return xasprintf("%s:%u", f->file >= 0 ? img->files[f->file] : "", f->size);
}

/* Functions sharing one name: told apart by object, then by file and size, then taken in
 * address order. */
static void match_group(vctx *c, const size_t *S, size_t ns, const size_t *B, size_t nb)
{
	if (ns == 1 && nb == 1) {
		pair(c, S[0], B[0]);
		return;
	}
	char **ks = xcalloc(ns, sizeof *ks), **kb = xcalloc(nb, sizeof *kb);
	if (c->stock->has_map && c->built->has_map) {
		for (size_t a = 0; a < ns; a++)
			ks[a] = image_qualified_name(c->stock, &c->stock->funcs[S[a]]);
		for (size_t b = 0; b < nb; b++)
			kb[b] = image_qualified_name(c->built, &c->built->funcs[B[b]]);
		pair_unique_keys(c, S, ks, ns, B, kb, nb);
		for (size_t a = 0; a < ns; a++)
			free(ks[a]);
		for (size_t b = 0; b < nb; b++)
			free(kb[b]);
	}
	for (size_t a = 0; a < ns; a++)
		ks[a] = file_key(c->stock, &c->stock->funcs[S[a]]);
	for (size_t b = 0; b < nb; b++)
		kb[b] = file_key(c->built, &c->built->funcs[B[b]]);
	pair_unique_keys(c, S, ks, ns, B, kb, nb);
	free_keys(ks, ns);
	free_keys(kb, nb);
	/* what is left: the k-th by predicted address with the k-th by address */
	size_t *rest = xmalloc((ns + 1) * sizeof *rest), nrest = 0;
	for (size_t a = 0; a < ns; a++) {
		if (c->match[S[a]] >= 0)
			continue;
		size_t at = nrest++;
		while (at > 0 && c->p->new_addr[rest[at - 1]] > c->p->new_addr[S[a]]) {
			rest[at] = rest[at - 1];
			at--;
		}
		rest[at] = S[a];
	}
	size_t b = 0; /* B is in address order */
	for (size_t a = 0; a < nrest; a++) {
		while (b < nb && c->back[B[b]] >= 0)
			b++;
		if (b == nb)
			break;
		pair(c, rest[a], B[b]);
	}
	free(rest);
}

static void match_by_name(vctx *c)
{
	const xb_image *s = c->stock, *b = c->built;
	size_t *S = xmalloc((s->nfuncs + 1) * sizeof *S);
	for (size_t i = 0; i < s->nfuncs; i++)
		S[i] = i;
	qsort_r(S, s->nfuncs, sizeof *S, by_name, s->funcs);
	size_t *B = c->built_by_name, nb = c->nbuilt_by_name;
	/* within a name, the sort keeps index (address) order: match_group relies on it */
	size_t i = 0, j = 0;
	while (i < s->nfuncs && j < nb) {
		int d = strcmp(s->funcs[S[i]].name, b->funcs[B[j]].name);
		if (d < 0) {
			i++;
		} else if (d > 0) {
			j++;
		} else {
			size_t i1 = i, j1 = j;
			while (i1 < s->nfuncs && strcmp(s->funcs[S[i1]].name, s->funcs[S[i]].name) == 0)
				i1++;
			while (j1 < nb && strcmp(b->funcs[B[j1]].name, b->funcs[B[j]].name) == 0)
				j1++;
			match_group(c, S + i, i1 - i, B + j, j1 - j);
			i = i1;
			j = j1;
		}
	}
	free(S);
}

/* An LTO or clone suffix renumbered between the links: the same base name and size. */
static void match_renamed(vctx *c)
{
	const xb_image *s = c->stock, *b = c->built;
	for (size_t i = 0; i < s->nfuncs; i++) {
		if (c->match[i] >= 0)
			continue;
		const xb_function *f = &s->funcs[i];
		for (size_t j = 0; j < b->nfuncs; j++) {
			const xb_function *g = &b->funcs[j];
			if (c->back[j] >= 0 || c->veneer[j] || g->size != f->size ||
			    (!*f->suffix && !*g->suffix) || strcmp(g->base_name, f->base_name) != 0)
				continue;
			pair(c, i, j);
			break;
		}
	}
}

/* ---- checks ---- */

static int in_sram(const vctx *c, uint32_t addr)
{
	const xb_region *r = target_region_of(c->tg, addr);
	return r && r->kind == XB_REGION_SRAM;
}

static void check_function(vctx *c, size_t i, uint32_t way)
{
	const xb_function *f = &c->stock->funcs[i];
	xb_verify_result *r = c->r;
	if (f->is_veneer)
		return; /* the relink makes its own veneers: check_veneers checks those */
	int counted = f->alias_of < 0;
	r->functions += counted;
	uint32_t expected = c->p->new_addr[i];
	long j = c->match[i];
	if (j < 0) {
		c->bad[i] = 1;
		add_problem(c, image_qualified_name(c->stock, f), XB_VERIFY_MISSING,
			    XB_VERIFY_ABSENT, expected, 0);
		return;
	}
	const xb_function *g = &c->built->funcs[j];
	int role = c->role[i], kind = -1;
	if (g->size != f->size)
		kind = XB_VERIFY_RESIZED;
	else if (role == XB_VERIFY_COLOUR && g->addr % way != c->offset[i])
		kind = XB_VERIFY_WAY;
	else if (g->addr != expected)
		kind = XB_VERIFY_MOVED;
	else if (role == XB_VERIFY_SRAM && !in_sram(c, g->addr))
		kind = XB_VERIFY_NOT_SRAM;
	if (kind >= 0 && f->alias_of >= 0 && c->bad[f->alias_of])
		return; /* the same code: its first function's problem says it */
	if (kind >= 0 && c->startup && c->startup[i] && role == XB_VERIFY_OTHER &&
	    (kind == XB_VERIFY_MOVED || kind == XB_VERIFY_RESIZED) && !in_sram(c, g->addr)) {
		/* the code relocation route adds the copy to the start-up path: it grows
		 * and moves, in flash, as planned */
		xb_verify_problem *pr = add_to(&r->notes, &r->nnotes, &r->notes_cap,
					       image_qualified_name(c->stock, f), role, kind,
					       expected, g->addr);
		pr->expected_size = f->size;
		pr->found_size = g->size;
		if (counted)
			r->placed++;
		return;
	}
	if (kind >= 0) {
		c->bad[i] = 1;
		xb_verify_problem *pr = add_problem(c, image_qualified_name(c->stock, f), role, kind,
						    expected, g->addr);
		pr->expected_size = f->size;
		pr->found_size = g->size;
		pr->way_offset = c->offset[i];
		pr->found_offset = g->addr % way;
		return;
	}
	if (!counted)
		return;
	r->placed++;
	r->hot += role == XB_VERIFY_HOT;
	r->coloured += role == XB_VERIFY_COLOUR;
	r->sram += role == XB_VERIFY_SRAM;
	r->noalloc += role == XB_VERIFY_NOALLOC;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int name_key_cmp(const void *key, const void *elem, void *ctx)
{
	const char *k = key;
	const xb_function *f = ctx;
	return strcmp(k, f[*(const size_t *)elem].name);
}

/* Whether the built veneer v calls the stock function at target: a built function of the
 * name in its own name is the one matched to it (aliases share the address). */
static int veneer_calls(const vctx *c, size_t v, uint32_t target)
{
	size_t len;
	const char *vn = c->built->funcs[v].name;
	image_veneer_name(vn, &len);
	char *name = xstrndup(vn + 2, len);
	int hit = 0, seen = 0;
	size_t n = c->nbuilt_by_name;
	const size_t *B = c->built_by_name;
	/* the first of the name, then the rest of its run */
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (name_key_cmp(name, &B[mid], c->built->funcs) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < n && !hit && strcmp(c->built->funcs[B[k]].name, name) == 0; k++) {
		seen = 1;
		long i = c->back[B[k]];
		hit = i >= 0 && c->stock->funcs[i].addr == target;
	}
	if (!seen) { /* not a function of the built image: the stock function's own name */
		const xb_function *f = image_function_at(c->stock, target);
		hit = f && f->addr == target && strcmp(f->name, name) == 0;
	}
	free(name);
	return hit;
}

typedef struct vslot {
	uint32_t addr;
	size_t veneer;       /* the built function */
} vslot;

static int cmp_slot(const void *a, const void *b)
{
	const vslot *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One stub section: its predicted veneer addresses (sorted) against those of the built
 * veneers paired with them; which veneer takes which slot is ld's hash order. */
static void check_stub_section(vctx *c, const uint32_t *pred, vslot *got, size_t n)
{
	qsort(got, n, sizeof *got, cmp_slot);
	for (size_t i = 0; i < n; i++) {
		if (got[i].addr == pred[i])
			c->r->veneers++;
		else
			add_note(c, xstrdup(c->built->funcs[got[i].veneer].name), XB_VERIFY_MOVED,
				 pred[i], got[i].addr);
	}
}

static void check_veneers(vctx *c)
{
	const xb_placement *p = c->p;
	const xb_image *b = c->built;
	size_t np = p->nveneers;
	c->r->veneers_predicted = np;
	long *used = xmalloc((np + 1) * sizeof *used); /* the built veneer paired, or -1 */
	long *paired = xmalloc((b->nfuncs + 1) * sizeof *paired);
	for (size_t k = 0; k < np; k++)
		used[k] = -1;
	for (size_t v = 0; v < b->nfuncs; v++)
		paired[v] = -1;
	/* per predicted veneer: the addresses its stub section spans */
	uint32_t *lo = xmalloc((np + 1) * sizeof *lo), *hi = xmalloc((np + 1) * sizeof *hi);
	for (size_t g0 = 0, g1; g0 < np; g0 = g1) {
		for (g1 = g0; g1 < np && p->veneers[g1].out == p->veneers[g0].out; g1++)
			;
		for (size_t k = g0; k < g1; k++) {
			lo[k] = p->veneers[g0].addr;
			hi[k] = p->veneers[g1 - 1].addr + XB_VENEER_BYTES;
		}
	}
	/* by the function called (several stub sections may each hold a veneer to it): first
	 * at the predicted address, then in the predicted stub section, then anywhere */
	for (int pass = 0; pass < 3; pass++) {
		for (size_t v = 0; v < b->nfuncs; v++) {
			if (!c->veneer[v] || paired[v] >= 0)
				continue;
			uint32_t at = b->funcs[v].addr;
			for (size_t k = 0; k < np; k++) {
				if (used[k] >= 0 || (pass == 0 && p->veneers[k].addr != at) ||
				    (pass == 1 && (at < lo[k] || at >= hi[k])) ||
				    !veneer_calls(c, v, p->veneers[k].target))
					continue;
				used[k] = (long)v;
				paired[v] = (long)k;
				break;
			}
		}
	}
	/* the placement lists veneers by stub section */
	uint32_t *pred = xmalloc((np + 1) * sizeof *pred);
	vslot *got = xmalloc((np + 1) * sizeof *got);
	for (size_t g0 = 0; g0 < np;) {
		size_t g1 = g0, n = 0;
		while (g1 < np && p->veneers[g1].out == p->veneers[g0].out)
			g1++;
		for (size_t k = g0; k < g1; k++) {
			if (used[k] < 0)
				continue;
			pred[n] = p->veneers[k].addr;
			got[n++] = (vslot){.addr = b->funcs[used[k]].addr, .veneer = (size_t)used[k]};
		}
		qsort(pred, n, sizeof *pred, cmp_u32);
		if (n)
			check_stub_section(c, pred, got, n);
		g0 = g1;
	}
	free(pred);
	free(got);
	c->r->veneer_built = xcalloc(np + 1, sizeof *c->r->veneer_built);
	for (size_t k = 0; k < np; k++)
		c->r->veneer_built[k] = used[k] >= 0 ? b->funcs[used[k]].addr : 0;
	for (size_t v = 0; v < b->nfuncs; v++) {
		c->r->veneers_built += c->veneer[v];
		if (c->veneer[v] && paired[v] < 0)
			add_note(c, xstrdup(b->funcs[v].name), XB_VERIFY_UNEXPECTED, 0,
				 b->funcs[v].addr);
	}
	for (size_t k = 0; k < np; k++) {
		if (used[k] >= 0)
			continue;
		const xb_function *f = image_function_at(c->stock, p->veneers[k].target);
		char *name = f ? xasprintf("__%s_veneer", f->name)
			       : xasprintf("veneer to 0x%08x", p->veneers[k].target);
		add_note(c, name, XB_VERIFY_ABSENT, p->veneers[k].addr, 0);
	}
	free(paired);
	free(used);
	free(lo);
	free(hi);
}

int verify_relink_predict(const xb_plan_input *in, const xb_layout *l,
			  const xb_image_open *built, xb_verify_result *out, xb_prediction *pred,
			  xb_err *err)
{
	xb_image b;
	if (image_open(&b, built, in->tg, err) != 0)
		return -1;
	xb_placement pl;
	int rc = plan_place(in, l, &pl, err);
	if (rc == 0) {
		rc = verify_image(in->img, in->tg, l, &pl, &b, out, err);
		if (rc == 0 && pred && verify_ok(out)) {
			for (size_t k = 0; k < pl.nveneers; k++)
				if (out->veneer_built[k])
					pl.veneers[k].addr = out->veneer_built[k];
			rc = plan_predict_placed(in, &pl, pred, err);
		}
		placement_free(&pl);
	}
	image_free(&b);
	return rc;
}

int verify_relink(const xb_plan_input *in, const xb_layout *l, const xb_image_open *built,
		  xb_verify_result *out, xb_err *err)
{
	return verify_relink_predict(in, l, built, out, NULL, err);
}

int verify_image(const xb_image *stock, const xb_target *tg, const xb_layout *l,
		 const xb_placement *p, const xb_image *built, xb_verify_result *out,
		 xb_err *err)
{
	memset(out, 0, sizeof *out);
	if (!tg)
		return xb_fail(err, "verify: no target (the cache way and SRAM come from it)");
	if (p->n != stock->nfuncs)
		return xb_fail(err, "verify: the placement has %zu functions, %s has %zu: it was "
				    "computed for another image",
			       p->n, stock->path ? stock->path : "the stock image", stock->nfuncs);
	uint32_t way = target_way_bytes(tg);
	if (!way)
		return xb_fail(err, "verify: target %s has no cache way size", tg->name);
	vctx c = {.stock = stock, .built = built, .p = p, .tg = tg, .r = out};
	size_t ns = stock->nfuncs, nb = built->nfuncs;
	c.role = xmalloc((ns + 1) * sizeof *c.role);
	c.offset = xcalloc(ns + 1, sizeof *c.offset);
	c.bad = xcalloc(ns + 1, 1);
	c.match = xmalloc((ns + 1) * sizeof *c.match);
	c.back = xmalloc((nb + 1) * sizeof *c.back);
	c.veneer = xcalloc(nb + 1, 1);
	c.built_by_name = xmalloc((nb + 1) * sizeof *c.built_by_name);
	for (size_t i = 0; i < ns; i++) {
		c.role[i] = XB_VERIFY_OTHER;
		c.match[i] = -1;
	}
	for (size_t k = 0; k < l->n; k++) {
		const xb_layout_entry *e = &l->e[k];
		if (e->func < 0 || (size_t)e->func >= ns)
			continue;
		c.role[e->func] = e->place == XB_PLACE_HOT      ? XB_VERIFY_HOT
				  : e->place == XB_PLACE_COLOUR ? XB_VERIFY_COLOUR
				  : e->place == XB_PLACE_SRAM   ? XB_VERIFY_SRAM
				  : e->place == XB_PLACE_NOALLOC ? XB_VERIFY_NOALLOC
								: XB_VERIFY_OTHER;
		c.offset[e->func] = e->way_offset;
	}
	for (size_t i = 0; i < ns; i++) {
		int a = stock->funcs[i].alias_of;
		if (a >= 0 && (size_t)a < ns) { /* aliases go where their first goes */
			c.role[i] = c.role[a];
			c.offset[i] = c.offset[a];
		}
	}
	for (size_t j = 0; j < nb; j++) {
		c.back[j] = -1;
		c.veneer[j] = built->funcs[j].is_veneer;
		if (!c.veneer[j])
			c.built_by_name[c.nbuilt_by_name++] = j;
	}
	qsort_r(c.built_by_name, c.nbuilt_by_name, sizeof *c.built_by_name, by_name, built->funcs);

	if (p->code_relocation) {
		/* the start-up path: what the code relocation route changes */
		xb_startup su;
		startup_find(&su, stock, p->code, tg);
		c.startup = xcalloc(ns + 1, 1);
		for (size_t i = 0; i < ns; i++)
			c.startup[i] = su.why[i] != NULL;
		startup_free(&su);
	}
	match_by_name(&c);
	match_renamed(&c);
	for (size_t i = 0; i < ns; i++)
		check_function(&c, i, way);
	check_veneers(&c);
	for (size_t j = 0; j < nb; j++) {
		if (c.veneer[j] || c.back[j] >= 0)
			continue;
		const char *nm = built->funcs[j].name;
		if (p->code_relocation && (strcmp(nm, "data_copy_xip_relocation") == 0 ||
					   strcmp(nm, "bss_zeroing_relocation") == 0))
			/* the copy the code relocation route adds (code_relocation.c) */
			add_to(&out->notes, &out->nnotes, &out->notes_cap, xstrdup(nm),
			       XB_VERIFY_NEW, XB_VERIFY_UNEXPECTED, 0, built->funcs[j].addr);
		else
			add_problem(&c, image_qualified_name(built, &built->funcs[j]), XB_VERIFY_NEW,
				    XB_VERIFY_UNEXPECTED, 0, built->funcs[j].addr);
	}
	free(c.startup);

	free(c.role);
	free(c.offset);
	free(c.bad);
	free(c.match);
	free(c.back);
	free(c.veneer);
	free(c.built_by_name);
	return 0;
}

void verify_free(xb_verify_result *r)
{
	for (size_t i = 0; i < r->nproblems; i++)
		free(r->problems[i].name);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i].name);
	free(r->problems);
	free(r->notes);
	free(r->veneer_built);
	memset(r, 0, sizeof *r);
}

int verify_ok(const xb_verify_result *r)
{
	return r->nproblems == 0;
}

void verify_problem_text(const xb_verify_problem *pr, xb_strbuf *out)
{
	const char *role = verify_role_name(pr->role);
	switch (pr->kind) {
	case XB_VERIFY_WAY:
		sb_printf(out, "%s (%s: expected at way offset 0x%04x, found 0x%04x at 0x%08x)",
			  pr->name, role, pr->way_offset, pr->found_offset, pr->found);
		break;
	case XB_VERIFY_NOT_SRAM:
		sb_printf(out, "%s (%s: found 0x%08x, outside SRAM)", pr->name, role, pr->found);
		break;
	case XB_VERIFY_RESIZED:
		sb_printf(out, "%s (%s: %u bytes, %u in the stock image)", pr->name, role,
			  pr->found_size, pr->expected_size);
		break;
	case XB_VERIFY_ABSENT:
		sb_printf(out, "%s (%s: expected at 0x%08x, not in the built image)", pr->name,
			  role, pr->expected);
		break;
	case XB_VERIFY_UNEXPECTED:
		sb_printf(out, "%s (%s: at 0x%08x, %s)", pr->name, role, pr->found,
			  pr->role == XB_VERIFY_VENEER ? "not predicted" : "not in the stock image");
		break;
	default:
		sb_printf(out, "%s (%s: expected 0x%08x, found 0x%08x)", pr->name, role,
			  pr->expected, pr->found);
	}
}

void verify_summary(const xb_verify_result *r, xb_strbuf *out)
{
	if (verify_ok(r)) {
		sb_printf(out, "%zu functions where the plan put them: %zu in the hot block, %zu "
			       "coloured, %zu in SRAM",
			  r->placed, r->hot, r->coloured, r->sram);
		if (r->noalloc)
			sb_printf(out, ", %zu in the no-allocate section", r->noalloc);
		if (r->veneers_built && r->veneers == r->veneers_built && !r->nnotes)
			sb_printf(out, "; %zu veneers where predicted", r->veneers);
		else if (r->veneers_built || r->nnotes)
			sb_printf(out, "; %zu of %zu veneers where predicted (%zu predicted)",
				  r->veneers, r->veneers_built, r->veneers_predicted);
		return;
	}
	size_t n = r->nproblems;
	sb_printf(out, "verification failed: %zu %s not where the plan put %s: ", n,
		  n == 1 ? "function is" : "functions are", n == 1 ? "it" : "them");
	size_t show = n < 3 ? n : 3;
	for (size_t i = 0; i < show; i++) {
		if (i)
			sb_puts(out, ", ");
		verify_problem_text(&r->problems[i], out);
	}
	if (n > show)
		sb_printf(out, " and %zu more", n - show);
}
