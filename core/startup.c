/* startup: the start-up path up to the copy of the RAM sections (startup.h). */
#include "startup.h"

#include <stdlib.h>
#include <string.h>

const char startup_why_reset[] = "the reset handler (the reset vector's target or the image's "
				 "entry point) runs before the start-up code copies the RAM "
				 "sections";
const char startup_why_before[] = "on the start-up path: runs before the start-up code has "
				  "copied the RAM sections";
const char startup_why_copy[] = "copies the RAM sections at start-up (or is called by the copy)";
const char startup_why_after[] = "the first function the start-up code calls after the copy; "
				 "kept in flash";
const char startup_why_called[] = "called by the reset handler; the start-up copy was not "
				  "found in the code, so every function it calls stays in flash";

typedef struct su_call {
	uint32_t site;
	long callee;
} su_call;

typedef struct su_state {
	const xb_image *img;
	const xb_code *c;
	const xb_target *tg;
	xb_startup *s;
	int8_t *reach;  /* per function: -1 unknown, 0 no, 1 yes, 2 being decided */
	int8_t *ref;    /* per function: -1 unknown, 0/1 holds a load address */
	uint8_t *seen;  /* per function: visited by the walk or a closure */
} su_state;

/* The function starting exactly at addr (Thumb bit ignored; size 0 allowed; the first of
 * aliases), or -1. */
static long startup_function_starting(const xb_image *img, uint32_t addr)
{
	addr &= ~1u;
	if (!img->nfuncs)
		return -1;
	size_t lo = sorted_lower_bound(&img->funcs->addr, img->nfuncs, sizeof *img->funcs, addr);
	for (size_t i = lo; i < img->nfuncs && img->funcs[i].addr == addr; i++)
		if (img->funcs[i].alias_of < 0)
			return (long)i;
	return lo < img->nfuncs && img->funcs[lo].addr == addr ? (long)lo : -1;
}

static const xb_code_bytes *section_of(const xb_code *c, uint32_t addr)
{
	for (size_t k = 0; k < c->nsec; k++)
		if (addr - c->sec[k].addr < c->sec[k].size)
			return &c->sec[k];
	return NULL;
}

/* [*lo, *hi): the code of function f (to the next function or its section's end when its
 * symbol has no size). */
static void extent(const su_state *st, long f, uint32_t *lo, uint32_t *hi)
{
	const xb_function *fn = &st->img->funcs[f];
	*lo = *hi = fn->addr;
	const xb_code_bytes *sec = section_of(st->c, fn->addr);
	if (!sec)
		return;
	uint32_t end = sec->addr + sec->size;
	if (fn->size) {
		*hi = fn->addr + fn->size < end ? fn->addr + fn->size : end;
		return;
	}
	for (size_t i = (size_t)f + 1; i < st->img->nfuncs; i++)
		if (st->img->funcs[i].addr > fn->addr) {
			if (st->img->funcs[i].addr < end)
				end = st->img->funcs[i].addr;
			break;
		}
	*hi = end;
}

/* Whether addr lies in data ($d) rather than Thumb code, from the mapping symbols. */
static bool in_data(const xb_code *c, uint32_t addr)
{
	if (!c->ndata)
		return false;
	size_t d = sorted_lower_bound(c->data, c->ndata, sizeof *c->data, addr + 1);
	if (d == 0)
		return false;
	uint32_t dm = c->data[d - 1];
	size_t t = sorted_lower_bound(c->thumb, c->nthumb / 2, 2 * sizeof *c->thumb, addr + 1);
	return t == 0 || c->thumb[2 * (t - 1)] < dm;
}

static bool is_load_address(const su_state *st, uint32_t w);
static su_call *calls_of_use(const su_state *st, long f, size_t *n, uint32_t *use);

/* Whether the table at addr (up to 16 words, within code bytes) holds a load address. */
static bool table_holds_load_address(const su_state *st, uint32_t addr)
{
	uint32_t w;
	for (int i = 0; i < 16 && code_word(st->c, addr + 4 * (uint32_t)i, &w); i++)
		if (is_load_address(st, w))
			return true;
	return false;
}

/* The calls in function f's code, in address order; *use gets the address of the last
 * instruction that loads a load address (LDR from a literal, ADR of a copy table), 0 if
 * none. */
static su_call *calls_of_use(const su_state *st, long f, size_t *n, uint32_t *use)
{
	*use = 0;
	uint32_t lo, hi;
	extent(st, f, &lo, &hi);
	su_call *v = NULL;
	size_t nv = 0, cap = 0;
	uint32_t reg[8];
	bool known[8] = {0};
	for (uint32_t a = lo; a + 2 <= hi;) {
		uint32_t hw, hw2;
		if (in_data(st->c, a) || !code_halfword(st->c, a, &hw)) {
			a += 2;
			continue;
		}
		long callee = -1;
		if (thumb_is_wide(hw)) {
			if (a + 4 <= hi && code_halfword(st->c, a + 2, &hw2) && thumb_is_bl(hw, hw2))
				callee = startup_function_starting(st->img, thumb_bl_target(a, hw, hw2));
			else if (a + 4 <= hi && (hw & 0xFF7F) == 0xF85F &&
				 code_halfword(st->c, a + 2, &hw2)) { /* LDR.W Rt, [PC, #+-imm12] */
				uint32_t base = (a + 4) & ~3u, w;
				uint32_t at = hw & 0x80 ? base + (hw2 & 0xFFF) : base - (hw2 & 0xFFF);
				if (code_word(st->c, at, &w) && is_load_address(st, w))
					*use = a;
			}
			if (callee >= 0) {
				memset(known, 0, sizeof known); /* a call clobbers the registers */
				xb_grow(&v, &cap, nv + 1, sizeof *v);
				v[nv++] = (su_call){.site = a, .callee = callee};
			}
			a += 4;
			continue;
		}
		if ((hw & 0xF800) == 0x4800) { /* LDR Rt, [PC, #imm8 * 4] */
			unsigned rt = (hw >> 8) & 7;
			known[rt] = code_word(st->c, ((a + 4) & ~3u) + (hw & 0xFF) * 4, &reg[rt]);
			if (known[rt] && is_load_address(st, reg[rt]))
				*use = a;
		} else if ((hw & 0xF800) == 0xA000) { /* ADR Rd, table */
			if (table_holds_load_address(st, ((a + 4) & ~3u) + (hw & 0xFF) * 4))
				*use = a;
		} else if ((hw & 0xFF87) == 0x4700 || (hw & 0xFF87) == 0x4780) { /* BX/BLX Rm */
			unsigned rm = (hw >> 3) & 0xF;
			if (rm < 8 && known[rm] && (reg[rm] & 1))
				callee = startup_function_starting(st->img, reg[rm]);
			if (callee >= 0) {
				xb_grow(&v, &cap, nv + 1, sizeof *v);
				v[nv++] = (su_call){.site = a, .callee = callee};
			}
			if ((hw & 0xFF87) == 0x4780)
				memset(known, 0, sizeof known);
		}
		a += 2;
	}
	*n = nv;
	return v;
}

static su_call *calls_of(const su_state *st, long f, size_t *n)
{
	uint32_t use;
	return calls_of_use(st, f, n, &use);
}

/* Whether f calls nothing. */
static bool is_leaf(const su_state *st, long f)
{
	size_t n;
	su_call *v = calls_of(st, f, &n);
	free(v);
	return n == 0;
}

/* Whether word w is the load address of a RAM section the start-up code copies (an output
 * section run in SRAM, loaded in flash). */
static bool is_load_address(const su_state *st, uint32_t w)
{
	const xb_map *m = &st->img->map;
	if (!st->img->has_map)
		return false;
	for (size_t o = 0; o < m->noutputs; o++) {
		const xb_map_output *mo = &m->outputs[o];
		if (mo->lma == mo->addr)
			continue;
		const xb_region *vr = target_region_of(st->tg, (uint32_t)mo->addr);
		const xb_region *lr = target_region_of(st->tg, (uint32_t)mo->lma);
		if (!vr || vr->kind != XB_REGION_SRAM || !lr || lr->kind != XB_REGION_FLASH)
			continue;
		if (w - (uint32_t)mo->lma <= (uint32_t)mo->size)
			return true;
	}
	return false;
}

static bool holds_load_address(su_state *st, long f)
{
	if (st->ref[f] < 0) {
		uint32_t lo, hi, w;
		extent(st, f, &lo, &hi);
		size_t n;
		uint32_t use;
		free(calls_of_use(st, f, &n, &use));
		st->ref[f] = use != 0;
		for (uint32_t a = (lo + 3) & ~3u; !st->ref[f] && a + 4 <= hi; a += 4)
			if (code_word(st->c, a, &w) && is_load_address(st, w)) {
				st->ref[f] = 1;
				break;
			}
	}
	return st->ref[f] == 1;
}

static bool reaches_copy(su_state *st, long f)
{
	if (st->reach[f] >= 0)
		return st->reach[f] == 1;
	st->reach[f] = 2; /* a cycle does not reach by itself */
	bool r = holds_load_address(st, f);
	size_t n;
	su_call *v = r ? NULL : calls_of(st, f, &n);
	for (size_t k = 0; v && k < n && !r; k++)
		if (st->reach[v[k].callee] != 2)
			r = reaches_copy(st, v[k].callee);
	free(v);
	st->reach[f] = r;
	return r;
}

static void keep(su_state *st, long f, const char *why)
{
	if (!st->s->why[f]) {
		st->s->why[f] = why;
		st->s->nstay++;
	}
}

/* f and everything it calls run at (or before) the copy. */
static void closure(su_state *st, long f, const char *why)
{
	long *stack = xmalloc(sizeof *stack * (st->img->nfuncs + 1));
	size_t sp = 0;
	if (!st->seen[f]) {
		st->seen[f] = 1;
		stack[sp++] = f;
	}
	while (sp) {
		long g = stack[--sp];
		keep(st, g, why);
		size_t n;
		su_call *v = calls_of(st, g, &n);
		for (size_t k = 0; k < n; k++)
			if (!st->seen[v[k].callee]) {
				st->seen[v[k].callee] = 1;
				stack[sp++] = v[k].callee;
			}
		free(v);
	}
	free(stack);
}

/* f is on the path to the copy. Its calls up to the copy run before it (or are the copy);
 * after the copy, calls of leaf routines may still be the copy's (memcpy, data_cpy), and
 * the first other call starts what runs after it: that function is kept itself, not
 * followed. */
static void walk(su_state *st, long f, const char *why)
{
	if (st->seen[f] == 2)
		return;
	st->seen[f] = 2;
	keep(st, f, why);
	size_t n;
	uint32_t use = 0;
	su_call *v = calls_of_use(st, f, &n, &use);
	bool holds = holds_load_address(st, f);
	if (holds && st->s->copy < 0)
		st->s->copy = f;
	if (holds && !use)
		use = UINT32_MAX; /* the load address is used from elsewhere: every call counts */
	size_t boundary = 0; /* calls [0, boundary) run before or during the copy */
	for (size_t k = n; k-- > 0;)
		if (v[k].site < use || reaches_copy(st, v[k].callee)) {
			boundary = k + 1;
			break;
		}
	for (size_t k = 0; k < boundary; k++) {
		if (reaches_copy(st, v[k].callee))
			walk(st, v[k].callee, startup_why_before);
		else
			closure(st, v[k].callee, holds ? startup_why_copy : startup_why_before);
	}
	for (size_t k = boundary; k < n; k++) {
		if (!is_leaf(st, v[k].callee)) {
			keep(st, v[k].callee, startup_why_after);
			break;
		}
		closure(st, v[k].callee, holds ? startup_why_copy : startup_why_before);
	}
	free(v);
}

/* The reset vector's target: the first vector table found. */
static long reset_handler(const su_state *st)
{
	uint32_t cand[64];
	size_t nc = 0;
	for (size_t k = 0; k < st->c->nsec && nc < 63; k++)
		cand[nc++] = st->c->sec[k].addr;
	if (st->tg)
		cand[nc++] = st->tg->flash_base + 0x100; /* after an RP2040 boot2 */
	for (size_t i = 0; i < nc; i++) {
		uint32_t sp, pc;
		if (!code_word(st->c, cand[i], &sp) || !code_word(st->c, cand[i] + 4, &pc) || !(pc & 1))
			continue;
		const xb_region *r = st->tg ? target_region_of(st->tg, sp ? sp - 1 : 0) : NULL;
		if (!r || r->kind != XB_REGION_SRAM || (sp & 3))
			continue;
		long f = startup_function_starting(st->img, pc);
		if (f >= 0)
			return f;
	}
	return -1;
}

void startup_find(xb_startup *s, const xb_image *img, const xb_code *c, const xb_target *tg)
{
	memset(s, 0, sizeof *s);
	size_t n = img->nfuncs;
	s->why = xcalloc(n + 1, sizeof *s->why);
	s->reset = s->copy = -1;
	if (!n || !c)
		return;
	su_state st = {.img = img, .c = c, .tg = tg, .s = s};
	st.reach = xmalloc(n);
	st.ref = xmalloc(n);
	st.seen = xcalloc(n, 1);
	memset(st.reach, -1, n);
	memset(st.ref, -1, n);
	long roots[2] = {reset_handler(&st), startup_function_starting(img, img->entry)};
	s->reset = roots[0] >= 0 ? roots[0] : roots[1];
	for (int i = 0; i < 2; i++)
		if (roots[i] >= 0 && reaches_copy(&st, roots[i]))
			walk(&st, roots[i], startup_why_reset);
	for (int i = 0; i < 2; i++) {
		if (roots[i] < 0 || st.seen[roots[i]] == 2)
			continue;
		/* no copy found from this root: keep it and what it calls directly */
		keep(&st, roots[i], startup_why_reset);
		if (s->copy >= 0)
			continue;
		size_t nv;
		su_call *v = calls_of(&st, roots[i], &nv);
		for (size_t k = 0; k < nv; k++)
			keep(&st, v[k].callee, startup_why_called);
		free(v);
	}
	free(st.reach);
	free(st.ref);
	free(st.seen);
}

void startup_free(xb_startup *s)
{
	free(s->why);
	memset(s, 0, sizeof *s);
}
