/* layout_calls: facts from the code of a linked ARM image.
 *   Its direct calls (Thumb BL): a call between flash and SRAM is out of BL's reach, so GNU
 *   ld routes it through a long-branch veneer; layout_place needs the calls to know which
 *   veneers a layout makes.
 *   Its Thumb code, so that a trace of 32-bit word fetches can be followed halfword by
 *   halfword (a function moved by 2 bytes mod 4 fetches other words).
 *   Its data marks: code with a literal pool was aligned to 4 bytes. */
#ifndef XB_LAYOUT_CALLS_H
#define XB_LAYOUT_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct xb_call {
	uint32_t site;     /* address of the BL's first halfword */
	uint32_t target;   /* where it branches to */
} xb_call;

typedef struct xb_code_bytes {
	uint32_t addr, size;
	uint8_t *bytes;
} xb_code_bytes;

typedef struct xb_code {
	xb_call *v;            /* BL calls, sorted by site */
	size_t n, cap;
	uint32_t *ret;         /* where calls return: after every BL and BLX, sorted */
	size_t nret, retcap;
	uint32_t *data;        /* where data starts inside sections ($d mapping symbols:
				* literal pools, switch tables), sorted */
	size_t ndata, datacap;
	uint32_t *thumb;       /* Thumb code stretches [thumb[2k], thumb[2k + 1]), sorted */
	size_t nthumb, thumbcap;
	xb_code_bytes *sec;    /* the contents of the executable sections */
	size_t nsec, seccap;
	long *inputs;          /* NULL, or per call the map inputs of its site and target
				* (2k, 2k + 1; -1: none), as calls_add_with_inputs gave them */
} xb_code;

/* The calls of an image are its code's. */
typedef xb_code xb_calls;

void calls_init(xb_code *c);
void calls_free(xb_code *c);
void calls_add(xb_code *c, uint32_t site, uint32_t target);
/* The same with the map inputs of site and target, which the layout then need not look up;
 * a list takes either calls_add or this, not both. */
void calls_add_with_inputs(xb_code *c, uint32_t site, uint32_t target, long site_input,
			   long target_input);

/* Records Thumb code at addresses [base, base + len): a copy of its bytes, the stretch, its
 * BL calls and the return points of its BL and BLX instructions, decoded from the first
 * halfword on. Call calls_sort when done. */
void calls_add_thumb(xb_code *c, uint32_t base, const uint8_t *code, size_t len);
/* The two halves of it: the bytes of a section, and a stretch of Thumb code in bytes
 * already added (code points at lo's byte). */
void calls_add_bytes(xb_code *c, uint32_t base, const uint8_t *code, size_t len);
void calls_add_span(xb_code *c, uint32_t lo, uint32_t hi, const uint8_t *code);
void calls_sort(xb_code *c);

/* Thumb decoding: the first halfword of a 32-bit instruction; a BL (both halfwords); where
 * the BL at site branches to. */
bool thumb_is_wide(uint32_t hw1);
bool thumb_is_bl(uint32_t hw1, uint32_t hw2);
uint32_t thumb_bl_target(uint32_t site, uint32_t hw1, uint32_t hw2);

/* Reads an ARM ELF: every executable section with contents, decoded where the mapping
 * symbols ($t) say Thumb code starts and up to the next $d or $a (or, in a file without
 * mapping symbols, within the function symbols); and its $d marks. */
int calls_load_elf(xb_code *c, const char *path, xb_err *err);
/* The same on an ELF held in memory (named name in messages). Any bytes are safe input. */
int calls_load_elf_mem(xb_code *c, const uint8_t *data, size_t len, const char *name,
		       xb_err *err);

/* Index of the first record of v[0..n) (stride bytes apart, each starting with a uint32_t
 * key, sorted by it) whose key is >= key; n if none. v may point at the key field of the
 * first of larger records (&funcs->addr). */
size_t sorted_lower_bound(const void *v, size_t n, size_t stride, uint32_t key);

/* Index of the first call whose site is >= site (n if none). */
size_t calls_lower_bound(const xb_code *c, uint32_t site);
/* Whether addr is in Thumb code, and the stretch [*lo, *hi) holding it; the halfword there
 * (false when not). */
bool code_thumb_span(const xb_code *c, uint32_t addr, uint32_t *lo, uint32_t *hi);
bool code_halfword(const xb_code *c, uint32_t addr, uint32_t *hw);
/* The little-endian word of two halfwords at addr (false when either is not code bytes). */
bool code_word(const xb_code *c, uint32_t addr, uint32_t *w);
/* What a Thumb instruction does to the flow of control. */
enum xb_flow {
	XB_FLOW_NEXT,      /* goes on to the next instruction */
	XB_FLOW_JUMP,      /* B: to target */
	XB_FLOW_COND,      /* B<cond>: to target or on */
	XB_FLOW_CALL,      /* BL: to target */
	XB_FLOW_RETURN,    /* BX LR, POP {..., PC} */
	XB_FLOW_INDIRECT,  /* BX/BLX register, MOV/ADD PC, SVC, UDF: somewhere else */
};

typedef struct xb_insn {
	enum xb_flow flow;
	unsigned size;     /* 2 or 4 */
	uint32_t target;
} xb_insn;

/* Decodes the instruction at addr; false when no code is known there. */
bool code_insn(const xb_code *c, uint32_t addr, xb_insn *out);

/* Whether a call returns to addr. */
bool code_is_return_point(const xb_code *c, uint32_t addr);

#endif
