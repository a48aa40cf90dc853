/* layout_calls: the Thumb code of a linked ARM ELF: its bytes, calls and return points. */
#include "layout_calls.h"

#include "image.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

void calls_init(xb_code *c)
{
	memset(c, 0, sizeof *c);
}

void calls_free(xb_code *c)
{
	free(c->v);
	free(c->ret);
	free(c->data);
	free(c->thumb);
	for (size_t i = 0; i < c->nsec; i++)
		free(c->sec[i].bytes);
	free(c->sec);
	free(c->inputs);
	memset(c, 0, sizeof *c);
}

void calls_add(xb_code *c, uint32_t site, uint32_t target)
{
	xb_grow(&c->v, &c->cap, c->n + 1, sizeof *c->v);
	c->v[c->n++] = (xb_call){.site = site, .target = target};
}

void calls_add_with_inputs(xb_code *c, uint32_t site, uint32_t target, long site_input,
			   long target_input)
{
	size_t cap = c->cap;
	calls_add(c, site, target);
	if (c->cap != cap || !c->inputs)
		c->inputs = xrealloc(c->inputs, 2 * (c->cap + 1) * sizeof *c->inputs);
	c->inputs[2 * (c->n - 1)] = site_input;
	c->inputs[2 * (c->n - 1) + 1] = target_input;
}

static void add_return_point(xb_code *c, uint32_t addr)
{
	xb_grow(&c->ret, &c->retcap, c->nret + 1, sizeof *c->ret);
	c->ret[c->nret++] = addr;
}

static uint32_t halfword(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

/* 0b11101, 0b11110, 0b11111 in the top five bits: the first half of a 32-bit instruction */
bool thumb_is_wide(uint32_t hw1)
{
	return (hw1 & 0xE000) == 0xE000 && (hw1 & 0x1800) != 0;
}

bool thumb_is_bl(uint32_t hw1, uint32_t hw2)
{
	return (hw1 & 0xF800) == 0xF000 && (hw2 & 0xD000) == 0xD000;
}

uint32_t thumb_bl_target(uint32_t site, uint32_t hw1, uint32_t hw2)
{
	uint32_t s = (hw1 >> 10) & 1;
	uint32_t i1 = !(((hw2 >> 13) & 1) ^ s), i2 = !(((hw2 >> 11) & 1) ^ s);
	uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (hw1 & 0x3FF) << 12 | (hw2 & 0x7FF) << 1;
	if (s)
		imm |= 0xFE000000u; /* sign of the 25-bit offset */
	return site + 4 + imm;
}

void calls_add_bytes(xb_code *c, uint32_t base, const uint8_t *code, size_t len)
{
	len &= ~(size_t)1;
	if (!len)
		return;
	xb_grow(&c->sec, &c->seccap, c->nsec + 1, sizeof *c->sec);
	uint8_t *copy = xmalloc(len);
	memcpy(copy, code, len);
	c->sec[c->nsec++] = (xb_code_bytes){.addr = base, .size = (uint32_t)len, .bytes = copy};
}

void calls_add_span(xb_code *c, uint32_t lo, uint32_t hi, const uint8_t *code)
{
	hi = lo + ((hi - lo) & ~1u);
	if (hi <= lo)
		return;
	xb_grow(&c->thumb, &c->thumbcap, c->nthumb + 2, sizeof *c->thumb);
	c->thumb[c->nthumb++] = lo;
	c->thumb[c->nthumb++] = hi;
	size_t len = hi - lo, i = 0;
	while (i + 2 <= len) {
		uint32_t hw1 = halfword(code + i), at = lo + (uint32_t)i;
		if (!thumb_is_wide(hw1)) {
			if ((hw1 & 0xFF80) == 0x4780) /* BLX register */
				add_return_point(c, at + 2);
			i += 2;
			continue;
		}
		if (i + 4 > len)
			break;
		uint32_t hw2 = halfword(code + i + 2);
		if (thumb_is_bl(hw1, hw2)) {
			calls_add(c, at, thumb_bl_target(at, hw1, hw2));
			add_return_point(c, at + 4);
		}
		i += 4;
	}
}

void calls_add_thumb(xb_code *c, uint32_t base, const uint8_t *code, size_t len)
{
	calls_add_bytes(c, base, code, len);
	calls_add_span(c, base, base + (uint32_t)len, code);
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int span_cmp(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int sec_cmp(const void *a, const void *b)
{
	const xb_code_bytes *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_site(const void *a, const void *b);

/* qsort, which must not see a NULL array even when it is empty */
static void sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(v, n, size, cmp);
}

void calls_sort(xb_code *c)
{
	free(c->inputs); /* they follow the calls' order: looked up again */
	c->inputs = NULL;
	sort(c->v, c->n, sizeof *c->v, by_site);
	sort(c->ret, c->nret, sizeof *c->ret, u32_cmp);
	sort(c->data, c->ndata, sizeof *c->data, u32_cmp);
	sort(c->thumb, c->nthumb / 2, 2 * sizeof *c->thumb, span_cmp);
	sort(c->sec, c->nsec, sizeof *c->sec, sec_cmp);
}

size_t sorted_lower_bound(const void *v, size_t n, size_t stride, uint32_t key)
{
	const unsigned char *b = v;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t k;
		memcpy(&k, b + mid * stride, sizeof k);
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the last record of v[0..n) whose key is <= key, or n. */
static size_t last_at_or_below(const void *v, size_t n, size_t stride, uint32_t key)
{
	size_t k = key == UINT32_MAX ? n : sorted_lower_bound(v, n, stride, key + 1);
	return k ? k - 1 : n;
}

bool code_thumb_span(const xb_code *c, uint32_t addr, uint32_t *lo, uint32_t *hi)
{
	size_t k = last_at_or_below(c->thumb, c->nthumb / 2, 2 * sizeof *c->thumb, addr);
	if (k >= c->nthumb / 2 || addr >= c->thumb[2 * k + 1])
		return false;
	*lo = c->thumb[2 * k];
	*hi = c->thumb[2 * k + 1];
	return true;
}

bool code_halfword(const xb_code *c, uint32_t addr, uint32_t *hw)
{
	size_t k = last_at_or_below(c->sec, c->nsec, sizeof *c->sec, addr);
	if (k == c->nsec || addr - c->sec[k].addr + 2 > c->sec[k].size)
		return false;
	*hw = halfword(c->sec[k].bytes + (addr - c->sec[k].addr));
	return true;
}

bool code_word(const xb_code *c, uint32_t addr, uint32_t *w)
{
	uint32_t lo, hi;
	if (!code_halfword(c, addr, &lo) || !code_halfword(c, addr + 2, &hi))
		return false;
	*w = lo | hi << 16;
	return true;
}

bool code_insn(const xb_code *c, uint32_t addr, xb_insn *out)
{
	uint32_t hw, hw2;
	if (!code_halfword(c, addr, &hw))
		return false;
	*out = (xb_insn){.flow = XB_FLOW_NEXT, .size = 2};
	if (thumb_is_wide(hw)) {
		out->size = 4;
		if (code_halfword(c, addr + 2, &hw2) && thumb_is_bl(hw, hw2)) {
			out->flow = XB_FLOW_CALL;
			out->target = thumb_bl_target(addr, hw, hw2);
		}
	} else if ((hw & 0xF800) == 0xE000) {
		out->flow = XB_FLOW_JUMP;
		out->target = addr + 4 + (((hw & 0x7FF) ^ 0x400) << 1) - 0x800;
	} else if ((hw & 0xF000) == 0xD000 && ((hw >> 8) & 0xF) < 0xE) {
		out->flow = XB_FLOW_COND;
		out->target = addr + 4 + (((hw & 0xFF) ^ 0x80) << 1) - 0x100;
	} else if (hw == 0x4770 || (hw & 0xFF00) == 0xBD00) {
		out->flow = XB_FLOW_RETURN;
	} else if ((hw & 0xFF00) == 0x4700 || (hw & 0xFF87) == 0x4687 || (hw & 0xFF87) == 0x4487 ||
		   (hw & 0xFE00) == 0xDE00) {
		out->flow = XB_FLOW_INDIRECT;
	}
	return true;
}

bool code_is_return_point(const xb_code *c, uint32_t addr)
{
	size_t k = last_at_or_below(c->ret, c->nret, sizeof *c->ret, addr);
	return k < c->nret && c->ret[k] == addr;
}

static int by_site(const void *a, const void *b)
{
	const xb_call *x = a, *y = b;
	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	return x->target < y->target ? -1 : x->target > y->target;
}

size_t calls_lower_bound(const xb_code *c, uint32_t site)
{
	return sorted_lower_bound(c->v, c->n, sizeof *c->v, site);
}

typedef struct mark {
	uint32_t addr;
	char kind;   /* 't', 'd', 'a' (mapping symbols); 'f' starts a function, 'e' ends one */
} mark;

static int by_addr(const void *a, const void *b)
{
	const mark *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

/* Decodes one section: from each $t to the next $d or $a (or the section's end) when the
 * file has mapping symbols, else within the function symbols. */
static void decode_section(xb_code *c, const GElf_Shdr *sh, const uint8_t *bytes,
			   const mark *m, size_t nm, int mapping)
{
	uint32_t lo = (uint32_t)sh->sh_addr, hi = (uint32_t)(sh->sh_addr + sh->sh_size);
	uint32_t start = lo;
	int depth = 0; /* > 0 inside code */
	for (size_t k = 0; k < nm; k++) {
		if (m[k].addr < lo || m[k].addr >= hi)
			continue;
		int was = depth > 0;
		if (mapping)
			depth = m[k].kind == 't';
		else
			depth += m[k].kind == 'f' ? 1 : -1;
		if (!was && depth > 0)
			start = m[k].addr;
		else if (was && depth <= 0 && m[k].addr > start)
			calls_add_span(c, start, m[k].addr, bytes + (start - lo));
	}
	if (depth > 0 && hi > start)
		calls_add_span(c, start, hi, bytes + (start - lo));
}

typedef struct veneer_sym {
	uint32_t addr, size;
} veneer_sym;

/* The mapping symbols ($t, $d, $a) of an ELF and its Thumb function symbols (as an 'f'
 * mark at the start and an 'e' mark at the end); *nmapping gets the number of mapping
 * symbols; *ven (*nven) the veneer symbols GNU ld made. */

static mark *read_marks(Elf *e, size_t *n, size_t *nmapping, veneer_sym **ven, size_t *nven)
{
	size_t vcap = 0;
	*ven = NULL;
	*nven = 0;
	mark *m = NULL;
	size_t nm = 0, cap = 0;
	*nmapping = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t nsym = d ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < nsym; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			uint32_t a = (uint32_t)s.st_value;
			if (name && GELF_ST_TYPE(s.st_info) == STT_FUNC && image_veneer_name(name, NULL)) {
				xb_grow(ven, &vcap, *nven + 1, sizeof **ven);
				(*ven)[(*nven)++] = (veneer_sym){.addr = a & ~1u,
								 .size = s.st_size ? (uint32_t)s.st_size : 16};
			}
			if (name && name[0] == '$' && name[1] && strchr("tda", name[1]) &&
			    (name[2] == 0 || name[2] == '.')) {
				xb_grow(&m, &cap, nm + 1, sizeof *m);
				m[nm++] = (mark){.addr = a, .kind = name[1]};
				(*nmapping)++;
			} else if (GELF_ST_TYPE(s.st_info) == STT_FUNC && (a & 1) && s.st_size) {
				xb_grow(&m, &cap, nm + 2, sizeof *m);
				m[nm++] = (mark){.addr = a & ~1u, .kind = 'f'};
				m[nm++] = (mark){.addr = (a & ~1u) + (uint32_t)s.st_size, .kind = 'e'};
			}
		}
	}
	*n = nm;
	return m;
}

/* The word at a as the Thumb address of a veneer's target (not the veneer at itself), or 0. */
static uint32_t veneer_dest(const xb_code *c, uint32_t a, uint32_t at)
{
	uint32_t w;
	return code_word(c, a, &w) && (w & 1) && (w & ~1u) != at ? w & ~1u : 0;
}

/* A call to a long-branch veneer GNU ld made (a FUNC symbol "__NAME_veneer") is a call of
 * the function the veneer branches to: the first Thumb address among the veneer's words
 * (ARMv6-M: the literal after PUSH/LDR/MOV/POP/BX; ARMv7-M: after LDR.W PC). A relink makes
 * its own veneers for the calls that need them (layout_place_calls). */
static void retarget_veneer_calls(xb_code *c, const veneer_sym *v, size_t nv)
{
	for (size_t i = 0; i < nv; i++) {
		uint32_t at = v[i].addr, dest = 0;
		/* the literal is the stub's last word (ARMv6-M: PUSH {r0}; LDR r0, [pc, #8];
		 * MOV ip, r0; POP {r0}; BX ip; NOP; .word; ARMv7-M: LDR.W pc, [pc, #-0]; .word);
		 * an instruction pair can look like a Thumb address too (B401 4802) */
		if (v[i].size >= 8)
			dest = veneer_dest(c, (at + v[i].size - 4) & ~3u, at);
		for (uint32_t a = (at + 3) & ~3u; !dest && a + 4 <= at + v[i].size; a += 4)
			dest = veneer_dest(c, a, at);
		for (size_t k = 0; dest && k < c->n; k++)
			if (c->v[k].target == at)
				c->v[k].target = dest;
	}
}

/* Reads the ELF held in buf[0..len) (taken over: freed before returning). */
static int load_elf_buf(xb_code *c, char *buf, size_t len, const char *name, xb_err *err)
{
	calls_init(c);
	elf_version(EV_CURRENT);
	Elf *e = elf_memory(buf, len);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		free(buf);
		return xb_fail(err, "%s: not an ELF file", name);
	}
	size_t nm, nmapping, nven;
	veneer_sym *ven;
	mark *m = read_marks(e, &nm, &nmapping, &ven, &nven);
	for (size_t i = 0; i < nm; i++)
		if (m[i].kind == 'd') {
			xb_grow(&c->data, &c->datacap, c->ndata + 1, sizeof *c->data);
			c->data[c->ndata++] = m[i].addr;
		}
	/* keep only the kind of marks used */
	size_t w = 0;
	for (size_t i = 0; i < nm; i++)
		if ((nmapping > 0) == (m[i].kind == 't' || m[i].kind == 'd' || m[i].kind == 'a'))
			m[w++] = m[i];
	nm = w;
	sort(m, nm, sizeof *m, by_addr);
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			continue;
		calls_add_bytes(c, (uint32_t)sh.sh_addr, d->d_buf, sh.sh_size);
		decode_section(c, &sh, d->d_buf, m, nm, nmapping > 0);
	}
	free(m);
	calls_sort(c);
	retarget_veneer_calls(c, ven, nven);
	free(ven);
	calls_sort(c);
	elf_end(e);
	free(buf);
	return 0;
}

int calls_load_elf(xb_code *c, const char *path, xb_err *err)
{
	char *buf;
	size_t len;
	calls_init(c);
	if (xb_read_file(path, &buf, &len, err) != 0)
		return -1;
	return load_elf_buf(c, buf, len, path, err);
}

int calls_load_elf_mem(xb_code *c, const uint8_t *data, size_t len, const char *name,
		       xb_err *err)
{
	char *buf = xmalloc(len ? len : 1);
	if (len)
		memcpy(buf, data, len);
	return load_elf_buf(c, buf, len, name, err);
}
