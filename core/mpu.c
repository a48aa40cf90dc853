/* mpu: parses an MPU register dump (docs/formats-mpu.md) and decodes the attributes an
 * instruction fetch gets at an address, per the ARMv7-M and ARMv8-M architecture manuals. */
#include "mpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- Register fields ---- */

/* MPU_TYPE (ARMv7-M B3.5.5, ARMv8-M MPU_TYPE): DREGION [15:8], SEPARATE [0] (0: one
 * unified map, the only kind either architecture has). */
#define TYPE_DREGION(v) (((v) >> 8) & 0xFFu)
#define TYPE_SEPARATE 0x1u

/* ARMv7-M MPU_RASR (B3.5.9; CMSIS MPU_RASR_*_Pos): XN [28], AP [26:24], TEX [21:19],
 * S [18], C [17], B [16], SRD [15:8], SIZE [5:1], ENABLE [0]. */
#define RASR_XN(v) (((v) >> 28) & 1u)
#define RASR_AP(v) (((v) >> 24) & 7u)
#define RASR_TEX(v) (((v) >> 19) & 7u)
#define RASR_S(v) (((v) >> 18) & 1u)
#define RASR_C(v) (((v) >> 17) & 1u)
#define RASR_B(v) (((v) >> 16) & 1u)
#define RASR_SRD(v) (((v) >> 8) & 0xFFu)
#define RASR_SIZE(v) (((v) >> 1) & 0x1Fu)
#define RASR_ENABLE(v) ((v) & 1u)

/* ARMv8-M MPU_RBAR: BASE [31:5], SH [4:3], AP [2:1] (bit 2 read-only, bit 1 unprivileged
 * access allowed: CMSIS ARM_MPU_AP_(RO, NP)), XN [0]. MPU_RLAR: LIMIT [31:5] (bits [4:0]
 * of the inclusive limit read as ones), AttrIndx [3:1], EN [0]. */
#define RBAR8_SH(v) (((v) >> 3) & 3u)
#define RBAR8_NP(v) (((v) >> 1) & 1u)
#define RBAR8_XN(v) ((v) & 1u)
#define RLAR_ATTRINDX(v) (((v) >> 1) & 7u)
#define RLAR_EN(v) ((v) & 1u)

const char *mpu_mem_type_name(enum xb_mem_type t)
{
	switch (t) {
	case XB_MEM_NORMAL: return "normal";
	case XB_MEM_DEVICE: return "device";
	case XB_MEM_STRONGLY_ORDERED: return "strongly-ordered";
	case XB_MEM_RESERVED: return "reserved encoding";
	}
	return "?";
}

const char *mpu_cache_policy_name(enum xb_cache_policy p)
{
	switch (p) {
	case XB_CP_NONE: return "non-cacheable";
	case XB_CP_WRITE_THROUGH: return "write-through";
	case XB_CP_WRITE_BACK: return "write-back";
	}
	return "?";
}

/* ---- Parsing ---- */

typedef struct mpu_parser {
	xb_mpu *m;
	const char *file;
	int line;
	xb_err *err;
	int type_line, ctrl_line, ccr_line, mair_line[2], arch_line, arch_key_line;
	int region_line[XB_MPU_MAX_REGIONS];
	/* The line that fixed the architecture and what fixed it, for conflict messages. */
	const char *arch_why;
} mpu_parser;

__attribute__((format(printf, 3, 4))) static int mpu_fail_at(mpu_parser *p, int line,
							      const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return xb_fail(p->err, "%s:%d: %s", p->file, line, msg);
}

#define MP_FAIL(p, ...) mpu_fail_at(p, (p)->line, __VA_ARGS__)

/* Splits s at white space into at most max tokens; returns the count, or max + 1 when
 * there are more. */
static int mpu_split(char *s, char **tok, int max)
{
	int n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (!*s)
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
		if (*s)
			*s++ = 0;
	}
}

static int mpu_is(const char *tok, const char *name)
{
	return strcasecmp(tok, name) == 0;
}

/* A 32-bit value: decimal or 0x-hex. */
static int mpu_value(mpu_parser *p, const char *what, const char *tok, uint32_t *out)
{
	uint64_t v;
	if (xb_parse_u64(tok, &v) != 0 || v > UINT32_MAX) {
		char q[48];
		xb_quote(q, sizeof q, tok, strlen(tok));
		return MP_FAIL(p, "bad value '%s' for %s (decimal or 0x hex, at most 0xffffffff)",
			       q, what);
	}
	*out = (uint32_t)v;
	return 0;
}

/* Fixes the architecture, or fails when a line contradicts the one fixed before. */
static int mpu_set_arch(mpu_parser *p, enum xb_mpu_arch a, const char *why)
{
	if (p->m->arch == XB_MPU_NONE) {
		p->m->arch = a;
		p->arch_line = p->line;
		p->arch_why = why;
		return 0;
	}
	if (p->m->arch == a)
		return 0;
	return MP_FAIL(p, "%s is %s, but line %d (%s) made this an %s dump", why,
		       a == XB_MPU_ARMV7M ? "ARMv7-M" : "ARMv8-M", p->arch_line, p->arch_why,
		       p->m->arch == XB_MPU_ARMV7M ? "ARMv7-M" : "ARMv8-M");
}

static int mpu_once(mpu_parser *p, int *seen_line, const char *name)
{
	if (*seen_line)
		return MP_FAIL(p, "second %s (the first is on line %d)", name, *seen_line);
	*seen_line = p->line;
	return 0;
}

static int mpu_parse_region(mpu_parser *p, char **tok, int n)
{
	xb_mpu *m = p->m;
	if (n != 6)
		return MP_FAIL(p, "expected 'REGION N RBAR VALUE RASR VALUE' (ARMv7-M) or 'REGION "
				  "N RBAR VALUE RLAR VALUE' (ARMv8-M)");
	uint32_t idx;
	if (mpu_value(p, "the region number", tok[1], &idx))
		return -1;
	if (idx >= XB_MPU_MAX_REGIONS)
		return MP_FAIL(p, "region number %u out of range (xipbench reads regions 0 to %d)",
			       idx, XB_MPU_MAX_REGIONS - 1);
	if (p->region_line[idx])
		return MP_FAIL(p, "second REGION %u (the first is on line %d)", idx,
			       p->region_line[idx]);
	if (!mpu_is(tok[2], "RBAR"))
		return MP_FAIL(p, "expected RBAR after 'REGION %u'", idx);
	xb_mpu_region *r = &m->region[idx];
	if (mpu_value(p, "RBAR", tok[3], &r->rbar))
		return -1;
	if (mpu_is(tok[4], "RASR")) {
		if (mpu_set_arch(p, XB_MPU_ARMV7M, "RASR"))
			return -1;
		if (mpu_value(p, "RASR", tok[5], &r->rasr))
			return -1;
		/* SIZE below 4 (32 bytes) is UNPREDICTABLE (ARMv7-M B3.5.9). */
		if (RASR_ENABLE(r->rasr) && RASR_SIZE(r->rasr) < 4)
			return MP_FAIL(p, "REGION %u is enabled with RASR.SIZE %u (the smallest "
					  "region is SIZE 4, 32 bytes)",
				       idx, RASR_SIZE(r->rasr));
	} else if (mpu_is(tok[4], "RLAR")) {
		if (mpu_set_arch(p, XB_MPU_ARMV8M, "RLAR"))
			return -1;
		if (mpu_value(p, "RLAR", tok[5], &r->rlar))
			return -1;
	} else {
		return MP_FAIL(p, "expected RASR (ARMv7-M) or RLAR (ARMv8-M) after the RBAR value");
	}
	r->given = 1;
	p->region_line[idx] = p->line;
	return 0;
}

static int mpu_parse_line(mpu_parser *p, char *s)
{
	xb_mpu *m = p->m;
	char *hash = strchr(s, '#');
	if (hash)
		*hash = 0;
	char *tok[8];
	int n = mpu_split(s, tok, 7);
	if (n == 0)
		return 0;
	if (mpu_is(tok[0], "REGION"))
		return mpu_parse_region(p, tok, n);

	/* Every other line is NAME VALUE. */
	static const char *const names[] = {"ARCH", "MPU_TYPE", "MPU_CTRL", "CCR", "MPU_MAIR0",
					    "MPU_MAIR1"};
	int k;
	for (k = 0; k < 6; k++)
		if (mpu_is(tok[0], names[k]))
			break;
	if (k == 6) {
		char q[48];
		xb_quote(q, sizeof q, tok[0], strlen(tok[0]));
		return MP_FAIL(p, "unknown name '%s' (ARCH, MPU_TYPE, MPU_CTRL, CCR, MPU_MAIR0, "
				  "MPU_MAIR1 or REGION)",
			       q);
	}
	if (n != 2)
		return MP_FAIL(p, "expected '%s VALUE'", names[k]);
	switch (k) {
	case 0: {
		enum xb_mpu_arch a;
		if (target_mpu_parse(tok[1], &a) || a == XB_MPU_NONE) {
			char q[48];
			xb_quote(q, sizeof q, tok[1], strlen(tok[1]));
			return MP_FAIL(p, "bad ARCH '%s' (armv7m or armv8m)", q);
		}
		if (mpu_once(p, &p->arch_key_line, "ARCH"))
			return -1;
		return mpu_set_arch(p, a, "ARCH");
	}
	case 1:
		if (mpu_once(p, &p->type_line, "MPU_TYPE"))
			return -1;
		return mpu_value(p, "MPU_TYPE", tok[1], &m->type);
	case 2:
		if (mpu_once(p, &p->ctrl_line, "MPU_CTRL"))
			return -1;
		return mpu_value(p, "MPU_CTRL", tok[1], &m->ctrl);
	case 3:
		if (mpu_once(p, &p->ccr_line, "CCR"))
			return -1;
		m->have_ccr = 1;
		return mpu_value(p, "CCR", tok[1], &m->ccr);
	default: {
		int i = k - 4;
		if (mpu_once(p, &p->mair_line[i], names[k]))
			return -1;
		if (mpu_set_arch(p, XB_MPU_ARMV8M, names[k]))
			return -1;
		return mpu_value(p, names[k], tok[1], &m->mair[i]);
	}
	}
}

/* Whole-dump checks once every line is in. */
static int mpu_validate(mpu_parser *p)
{
	xb_mpu *m = p->m;
	if (!p->type_line)
		return mpu_fail_at(p, p->line, "missing MPU_TYPE");
	if (!p->ctrl_line)
		return mpu_fail_at(p, p->line, "missing MPU_CTRL");
	if (m->type & TYPE_SEPARATE)
		return mpu_fail_at(p, p->type_line,
				   "MPU_TYPE.SEPARATE is set: neither ARMv7-M nor ARMv8-M has "
				   "separate instruction and data regions");
	unsigned dregion = TYPE_DREGION(m->type);
	if (dregion > XB_MPU_MAX_REGIONS)
		return mpu_fail_at(p, p->type_line,
				   "MPU_TYPE.DREGION = %u: xipbench reads at most %d regions", dregion,
				   XB_MPU_MAX_REGIONS);
	m->nregions = (int)dregion;
	for (int i = m->nregions; i < XB_MPU_MAX_REGIONS; i++)
		if (p->region_line[i])
			return mpu_fail_at(p, p->region_line[i],
					   "REGION %d is beyond MPU_TYPE.DREGION (%u regions)", i,
					   dregion);
	if (m->arch == XB_MPU_NONE)
		return mpu_fail_at(p, p->line,
				   "cannot tell ARMv7-M from ARMv8-M: add 'ARCH armv7m' or 'ARCH "
				   "armv8m' (or a REGION line)");
	return 0;
}

static int mpu_line_cb(void *ctx, char *line, int lineno)
{
	mpu_parser *p = ctx;
	p->line = lineno;
	return mpu_parse_line(p, line);
}

static int mpu_nul_cb(void *ctx, int lineno)
{
	mpu_parser *p = ctx;
	p->line = lineno;
	return MP_FAIL(p, "NUL byte in a text file");
}

int mpu_parse(xb_mpu *m, const char *text, size_t len, const char *name_for_errors,
	      xb_err *err)
{
	memset(m, 0, sizeof *m);
	mpu_parser p = {.m = m, .file = name_for_errors, .err = err};
	int rc = xb_each_line(text, len, mpu_line_cb, mpu_nul_cb, &p);
	if (!rc)
		rc = mpu_validate(&p);
	if (rc)
		memset(m, 0, sizeof *m);
	return rc;
}

int mpu_load_file(xb_mpu *m, const char *path, xb_err *err)
{
	char *text;
	size_t len;
	if (xb_read_file(path, &text, &len, err))
		return -1;
	int rc = mpu_parse(m, text, len, path, err);
	free(text);
	return rc;
}

/* ---- Decoding ---- */

/* The default memory map (ARMv7-M ARM B3.1, Table B3-1; the Cortex-M7 Devices Generic User
 * Guide, Table 2.12, "Memory region shareability and cache policies"). ARMv8-M keeps these
 * ranges, types and policies for the regions code runs from. */
static const struct mpu_default {
	uint32_t lo, hi;
	const char *name;
	enum xb_mem_type type;
	enum xb_cache_policy policy;
	int write_alloc, shareable, xn;
} mpu_default_map[] = {
	{0x00000000u, 0x1FFFFFFFu, "Code", XB_MEM_NORMAL, XB_CP_WRITE_THROUGH, 0, 0, 0},
	{0x20000000u, 0x3FFFFFFFu, "SRAM", XB_MEM_NORMAL, XB_CP_WRITE_BACK, 1, 0, 0},
	{0x40000000u, 0x5FFFFFFFu, "Peripheral", XB_MEM_DEVICE, XB_CP_NONE, 0, 0, 1},
	{0x60000000u, 0x7FFFFFFFu, "RAM", XB_MEM_NORMAL, XB_CP_WRITE_BACK, 1, 0, 0},
	{0x80000000u, 0x9FFFFFFFu, "RAM", XB_MEM_NORMAL, XB_CP_WRITE_THROUGH, 0, 0, 0},
	{0xA0000000u, 0xBFFFFFFFu, "Device", XB_MEM_DEVICE, XB_CP_NONE, 0, 1, 1},
	{0xC0000000u, 0xDFFFFFFFu, "Device", XB_MEM_DEVICE, XB_CP_NONE, 0, 0, 1},
	{0xE0000000u, 0xE00FFFFFu, "PPB", XB_MEM_STRONGLY_ORDERED, XB_CP_NONE, 0, 1, 1},
	{0xE0100000u, 0xFFFFFFFFu, "Vendor_SYS", XB_MEM_DEVICE, XB_CP_NONE, 0, 0, 1},
};

static const struct mpu_default *mpu_default_of(uint32_t addr)
{
	for (size_t i = 0; i < sizeof mpu_default_map / sizeof mpu_default_map[0]; i++)
		if (addr >= mpu_default_map[i].lo && addr <= mpu_default_map[i].hi)
			return &mpu_default_map[i];
	return &mpu_default_map[0]; /* not reached: the table covers the address space */
}

static void mpu_apply_default(xb_mpu_attr *a, uint32_t addr)
{
	const struct mpu_default *d = mpu_default_of(addr);
	a->base = d->lo;
	a->limit = d->hi;
	a->type = d->type;
	a->inner = a->outer = d->policy;
	a->read_alloc = d->policy != XB_CP_NONE; /* cacheable Normal memory read-allocates */
	a->write_alloc = d->write_alloc;
	a->shareable = d->shareable;
	a->xn = d->xn;
	a->readable = 1;
}

/* One level of the ARMv7-M TEX[2]=1 encoding (Table B3-14, "cache policy for memory
 * attribute encoding"): 00 non-cacheable, 01 write-back write-allocate, 10 write-through
 * no write-allocate, 11 write-back no write-allocate. */
static enum xb_cache_policy mpu_v7_policy(unsigned aa, int *wa)
{
	*wa = aa == 1;
	switch (aa) {
	case 1:
	case 3: return XB_CP_WRITE_BACK;
	case 2: return XB_CP_WRITE_THROUGH;
	default: return XB_CP_NONE;
	}
}

/* ARMv7-M TEX, C, B and S (Table B3-13, "TEX, C, B, and S encoding"). */
static void mpu_v7_type(xb_mpu_attr *a, uint32_t rasr)
{
	unsigned tex = RASR_TEX(rasr), c = RASR_C(rasr), b = RASR_B(rasr), cb = c << 1 | b;
	int s = (int)RASR_S(rasr), wa = 0;
	a->type = XB_MEM_NORMAL;
	a->shareable = s;
	if (tex & 4) { /* 1BB AA: cached memory, BB outer and AA inner policy */
		a->inner = mpu_v7_policy(cb, &wa);
		a->write_alloc = wa;
		a->outer = mpu_v7_policy(tex & 3, &wa);
	} else if (tex == 0) {
		switch (cb) {
		case 0: /* strongly-ordered, shareable */
			a->type = XB_MEM_STRONGLY_ORDERED;
			a->shareable = 1;
			break;
		case 1: /* shareable device */
			a->type = XB_MEM_DEVICE;
			a->shareable = 1;
			break;
		case 2: /* outer and inner write-through, no write allocate */
			a->inner = a->outer = XB_CP_WRITE_THROUGH;
			break;
		default: /* outer and inner write-back, no write allocate */
			a->inner = a->outer = XB_CP_WRITE_BACK;
			break;
		}
	} else if (tex == 1) {
		if (cb == 0) { /* outer and inner non-cacheable */
			a->inner = a->outer = XB_CP_NONE;
		} else if (cb == 3) { /* outer and inner write-back, write and read allocate */
			a->inner = a->outer = XB_CP_WRITE_BACK;
			a->write_alloc = 1;
		} else { /* 01 reserved, 10 implementation defined */
			a->type = XB_MEM_RESERVED;
		}
	} else if (tex == 2 && cb == 0) { /* non-shareable device */
		a->type = XB_MEM_DEVICE;
		a->shareable = 0;
	} else { /* TEX 010 with C or B set, TEX 011: reserved */
		a->type = XB_MEM_RESERVED;
	}
	if (a->type != XB_MEM_NORMAL) {
		a->inner = a->outer = XB_CP_NONE;
		a->write_alloc = 0;
	}
	/* Every cacheable location is read-allocate (ARMv7-M B3.5 note; Cortex-M7 TRM 5.9). */
	a->read_alloc = a->inner != XB_CP_NONE;
}

/* ARMv7-M AP (Table B3-15, "Access permissions field encoding"): whether a read is
 * permitted. 000 none; 001 privileged RW; 010 privileged RW, unprivileged RO; 011 RW;
 * 100 reserved; 101 privileged RO; 110 and 111 RO. */
static int mpu_v7_readable(unsigned ap, int privileged)
{
	static const unsigned char priv[8] = {0, 1, 1, 1, 0, 1, 1, 1};
	static const unsigned char unpriv[8] = {0, 0, 1, 1, 0, 0, 1, 1};
	return privileged ? priv[ap & 7] : unpriv[ap & 7];
}

/* One nibble of an ARMv8-M MAIR attribute for Normal memory (ARMv8-M MAIR_ATTR; CMSIS
 * ARM_MPU_ATTR_MEMORY_(NT, WB, RA, WA)): 0100 non-cacheable; 00RW write-through transient
 * and 01RW write-back transient (RW not 00); 10RW write-through and 11RW write-back,
 * non-transient. Returns 0, or -1 for the UNPREDICTABLE 0000 (and 00RW/01RW with RW = 00
 * other than 0100). */
static int mpu_v8_nibble(unsigned n, enum xb_cache_policy *pol, int *ra, int *wa)
{
	*ra = (n >> 1) & 1;
	*wa = n & 1;
	if (n == 4) {
		*pol = XB_CP_NONE;
		*ra = *wa = 0;
		return 0;
	}
	if (!(n & 8) && !(n & 3))
		return -1; /* 0000 */
	*pol = (n & 4) ? XB_CP_WRITE_BACK : XB_CP_WRITE_THROUGH;
	return 0;
}

/* ARMv8-M memory attributes from MAIR: Attr[7:4] = 0000 is Device, with Attr[3:2] the
 * Device kind (nGnRnE, nGnRE, nGRE, GRE) and Attr[1:0] 00; otherwise Normal with Attr[7:4]
 * the outer and Attr[3:0] the inner policy. */
static void mpu_v8_type(xb_mpu_attr *a, unsigned attr)
{
	unsigned outer = attr >> 4, inner = attr & 0xF;
	a->inner = a->outer = XB_CP_NONE;
	if (outer == 0) {
		a->type = (inner & 3) ? XB_MEM_RESERVED : XB_MEM_DEVICE;
		return;
	}
	int ra, wa, ra_o, wa_o;
	enum xb_cache_policy pi, po;
	if (mpu_v8_nibble(inner, &pi, &ra, &wa) || mpu_v8_nibble(outer, &po, &ra_o, &wa_o)) {
		a->type = XB_MEM_RESERVED;
		return;
	}
	a->type = XB_MEM_NORMAL;
	a->inner = pi;
	a->outer = po;
	a->read_alloc = ra;
	a->write_alloc = wa;
}

static const char *mpu_source_note(enum xb_mpu_source s)
{
	switch (s) {
	case XB_MPU_SRC_DISABLED: return " (MPU off: default memory map)";
	case XB_MPU_SRC_BACKGROUND: return " (no region: default map as background, PRIVDEFENA)";
	default: return "";
	}
}

static void mpu_describe(const xb_mpu *m, uint32_t addr, xb_mpu_attr *a)
{
	char *d = a->desc;
	size_t cap = sizeof a->desc;
	int n;
	if (a->source == XB_MPU_SRC_NONE) {
		snprintf(d, cap,
			 "no enabled MPU region covers 0x%08x and the default map is not a "
			 "background (MPU on, %s): an instruction fetch faults",
			 addr,
			 (m->ctrl & XB_MPU_CTRL_PRIVDEFENA) ? "unprivileged" : "PRIVDEFENA = 0");
		return;
	}
	if (a->source == XB_MPU_SRC_OVERLAP) {
		snprintf(d, cap,
			 "regions %d and %d both cover 0x%08x: an ARMv8-M MPU faults on an access "
			 "that matches more than one region",
			 a->other_region, a->region, addr);
		return;
	}
	if (a->source == XB_MPU_SRC_REGION)
		n = snprintf(d, cap, "region %d 0x%08x-0x%08x: ", a->region, a->base, a->limit);
	else
		n = snprintf(d, cap, "default map 0x%08x-0x%08x%s: ", a->base, a->limit,
			     mpu_source_note(a->source));
	if (n < 0 || (size_t)n >= cap)
		return;
	if (a->type != XB_MEM_NORMAL)
		n += snprintf(d + n, cap - (size_t)n, "%s", mpu_mem_type_name(a->type));
	else if (a->inner == XB_CP_NONE)
		n += snprintf(d + n, cap - (size_t)n, "normal, non-cacheable");
	else
		n += snprintf(d + n, cap - (size_t)n, "normal, %s%s%s",
			      mpu_cache_policy_name(a->inner),
			      a->write_alloc ? " write-allocate" : " no write-allocate",
			      a->read_alloc ? "" : " no read-allocate");
	if ((size_t)n >= cap)
		return;
	if (a->fault)
		n += snprintf(d + n, cap - (size_t)n, ", %s: an instruction fetch faults",
			      !a->readable ? "no read access at this privilege" : "execute-never");
	else
		n += snprintf(d + n, cap - (size_t)n, ", executable");
	if ((size_t)n >= cap)
		return;
	if (a->srd_skipped)
		n += snprintf(d + n, cap - (size_t)n, " (a higher region's subregion is disabled)");
	if ((size_t)n < cap && a->cacheable && a->icache == 0)
		snprintf(d + n, cap - (size_t)n, "; instruction cache off (CCR.IC = 0)");
}

/* ARMv7-M: the highest-numbered enabled region that contains addr, skipping a region whose
 * subregion holding addr is disabled (B3.5.3 region priority, B3.5.9 SRD). */
static int mpu_v7_find(const xb_mpu *m, uint32_t addr, xb_mpu_attr *a)
{
	for (int i = m->nregions - 1; i >= 0; i--) {
		const xb_mpu_region *r = &m->region[i];
		if (!r->given || !RASR_ENABLE(r->rasr) || RASR_SIZE(r->rasr) < 4)
			continue;
		uint64_t size = 1ull << (RASR_SIZE(r->rasr) + 1);
		/* The comparison uses address bits [31:N], N = log2(size): the base's bits
		 * below N take no part. */
		uint32_t base = (uint32_t)(r->rbar & ~(uint32_t)(size - 1) & 0xFFFFFFE0u);
		if ((uint64_t)(addr - base) >= size)
			continue;
		int sub = -1;
		if (size >= 256) { /* SRD applies to regions of 256 bytes and more */
			sub = (int)((uint64_t)(addr - base) / (size / 8));
			if (RASR_SRD(r->rasr) & (1u << sub)) {
				a->srd_skipped = 1;
				continue;
			}
		}
		a->region = i;
		a->subregion = sub;
		a->base = base;
		a->limit = (uint32_t)(base + size - 1);
		return i;
	}
	return -1;
}

/* ARMv8-M: the enabled region with BASE <= addr <= LIMIT; two of them is an overlap. */
static int mpu_v8_find(const xb_mpu *m, uint32_t addr, xb_mpu_attr *a)
{
	int found = -1;
	for (int i = 0; i < m->nregions; i++) {
		const xb_mpu_region *r = &m->region[i];
		if (!r->given || !RLAR_EN(r->rlar))
			continue;
		uint32_t base = r->rbar & 0xFFFFFFE0u, limit = r->rlar | 0x1Fu;
		if (addr < base || addr > limit)
			continue;
		if (found >= 0) {
			a->other_region = found;
			a->region = i;
			return -2;
		}
		found = i;
		a->region = i;
		a->base = base;
		a->limit = limit;
	}
	return found;
}

int mpu_attr_at(const xb_mpu *m, uint32_t addr, int privileged, xb_mpu_attr *out)
{
	xb_mpu_attr *a = out;
	memset(a, 0, sizeof *a);
	a->region = a->other_region = a->subregion = -1;
	a->icache = m->have_ccr ? ((m->ccr & XB_SCB_CCR_IC) != 0) : -1;
	if (m->arch != XB_MPU_ARMV7M && m->arch != XB_MPU_ARMV8M) {
		snprintf(a->desc, sizeof a->desc, "no MPU registers to decode");
		a->source = XB_MPU_SRC_NONE;
		return -1;
	}

	int found = -1;
	if (!(m->ctrl & XB_MPU_CTRL_ENABLE)) {
		a->source = XB_MPU_SRC_DISABLED;
	} else {
		found = m->arch == XB_MPU_ARMV7M ? mpu_v7_find(m, addr, a) : mpu_v8_find(m, addr, a);
		if (found == -2)
			a->source = XB_MPU_SRC_OVERLAP;
		else if (found >= 0)
			a->source = XB_MPU_SRC_REGION;
		else if (privileged && (m->ctrl & XB_MPU_CTRL_PRIVDEFENA))
			a->source = XB_MPU_SRC_BACKGROUND;
		else
			a->source = XB_MPU_SRC_NONE;
	}

	switch (a->source) {
	case XB_MPU_SRC_DISABLED:
	case XB_MPU_SRC_BACKGROUND:
		mpu_apply_default(a, addr);
		break;
	case XB_MPU_SRC_REGION: {
		const xb_mpu_region *r = &m->region[found];
		if (m->arch == XB_MPU_ARMV7M) {
			mpu_v7_type(a, r->rasr);
			a->xn = (int)RASR_XN(r->rasr);
			a->readable = mpu_v7_readable(RASR_AP(r->rasr), privileged);
		} else {
			unsigned idx = RLAR_ATTRINDX(r->rlar);
			unsigned attr = (m->mair[idx >> 2] >> ((idx & 3) * 8)) & 0xFFu;
			mpu_v8_type(a, attr);
			/* SH: 00 non-shareable, 01 reserved, 10 outer, 11 inner shareable. */
			a->shareable = RBAR8_SH(r->rbar) >= 2;
			a->xn = (int)RBAR8_XN(r->rbar);
			a->readable = privileged || RBAR8_NP(r->rbar);
		}
		break;
	}
	case XB_MPU_SRC_NONE:
	case XB_MPU_SRC_OVERLAP:
		a->type = XB_MEM_RESERVED;
		a->fault = 1;
		a->xn = 1;
		break;
	}
	if (!a->fault)
		a->fault = !a->readable || a->xn;
	a->executable = !a->fault;
	a->cacheable = a->type == XB_MEM_NORMAL && a->inner != XB_CP_NONE;
	a->cached_fetch = a->cacheable && a->executable && a->icache != 0;
	mpu_describe(m, addr, a);
	return 0;
}
