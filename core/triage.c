/* triage: the rules (one table) and the findings they make. */
#include "triage.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildsys.h"
#include "mpu.h"
#include "opt.h"
#include "segments.h"
#include "trace.h"

const char *triage_severity_name(enum xb_severity s)
{
	switch (s) {
	case XB_SEV_INFO: return "info";
	case XB_SEV_NOTE: return "note";
	case XB_SEV_WARNING: return "warning";
	case XB_SEV_SEVERE: return "severe";
	}
	return "?";
}

/* ---- What the rules share ---- */

/* A trace's echoes (trace_lines): the median of the distinct cache lines each fetches
 * through the allocating alias (foot) and of the lines it fetches more than once through
 * the non-allocating one (reuse); that alias's fetches, and those of a line the same echo
 * had fetched before. */
typedef struct echo_lines {
	size_t echoes;
	double foot, reuse, reuse_fetches, noalloc_fetches;
} echo_lines;

typedef struct tctx {
	const xb_triage_in *in;
	xb_triage *out;
	int have_prof;
	xb_profile prof;      /* busy, awake samples against the image */
	xb_samples awake;     /* the samples without the sleeping ones */
	double busy;          /* busy-window samples, awake */
	double busy_all;      /* busy-window samples, asleep or not */
	double sleeping;      /* busy-window samples taken asleep */
	echo_lines el;        /* the trace's per-echo lines (el.echoes 0: no trace) */
	double by_mode[4];    /* busy, awake samples per flash alias mode (xb_alias_mode) */
	double bytes_total, bytes_word_path; /* byte-loops: shares in all loops, in loops of
					      * routines that have a word path */
	int misaligned_buffers; /* buffers: a pool off a word boundary */
	const char *fetch_bound; /* why every fetch goes to the flash (the cache off, hot code in
				  * aliases that do not fill it), or NULL: the shares of the code
				  * rules are then distorted */
} tctx;

static char *vfmt(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	char *s = xmalloc((size_t)(n > 0 ? n : 0) + 1);
	vsnprintf(s, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
	return s;
}

static xb_finding *finding(tctx *c, const char *rule, enum xb_severity sev, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static xb_finding *finding(tctx *c, const char *rule, enum xb_severity sev, const char *fmt, ...)
{
	xb_triage *t = c->out;
	t->f = xrealloc(t->f, (t->n + 1) * sizeof *t->f);
	xb_finding *f = &t->f[t->n++];
	memset(f, 0, sizeof *f);
	f->rule = rule;
	f->severity = sev;
	va_list ap;
	va_start(ap, fmt);
	f->summary = vfmt(fmt, ap);
	va_end(ap);
	return f;
}

static void evidence(xb_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void evidence(xb_finding *f, const char *fmt, ...)
{
	f->evidence = xrealloc(f->evidence, (f->nevidence + 1) * sizeof *f->evidence);
	va_list ap;
	va_start(ap, fmt);
	f->evidence[f->nevidence++] = vfmt(fmt, ap);
	va_end(ap);
}

static void skip(tctx *c, const char *rule, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void skip(tctx *c, const char *rule, const char *fmt, ...)
{
	xb_triage *t = c->out;
	t->skipped = xrealloc(t->skipped, (t->nskipped + 1) * sizeof *t->skipped);
	xb_triage_skip *s = &t->skipped[t->nskipped++];
	s->rule = rule;
	va_list ap;
	va_start(ap, fmt);
	s->why = vfmt(fmt, ap);
	va_end(ap);
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* Severity of a share of the busy time: >= severe_at severe, >= warn_at warning, >=
 * note_at note, else none (-1). */
static int share_severity(double share_pct, double note_at, double warn_at, double severe_at)
{
	if (share_pct >= severe_at)
		return XB_SEV_SEVERE;
	if (share_pct >= warn_at)
		return XB_SEV_WARNING;
	if (share_pct >= note_at)
		return XB_SEV_NOTE;
	return -1;
}

/* Functions by net samples, the busiest first (aliases left out). */
static size_t *funcs_by_samples(const tctx *c, size_t *n)
{
	const xb_image *img = c->in->img;
	size_t *ix = xmalloc((img->nfuncs + 1) * sizeof *ix);
	size_t k = 0;
	for (size_t i = 0; i < img->nfuncs; i++)
		if (img->funcs[i].alias_of < 0 && c->prof.func[i].net > 0)
			ix[k++] = i;
	for (size_t i = 1; i < k; i++) { /* insertion sort: stable, n is small */
		size_t v = ix[i], j = i;
		while (j > 0 && c->prof.func[ix[j - 1]].net < c->prof.func[v].net) {
			ix[j] = ix[j - 1];
			j--;
		}
		ix[j] = v;
	}
	*n = k;
	return ix;
}

static int name_has(const char *name, const char *const *words)
{
	for (size_t i = 0; words[i]; i++)
		if (strstr(name, words[i]))
			return 1;
	return 0;
}

/* ---- 1. The cache off or bypassed ---- */

#define XIP_CTRL_EN 0x1u         /* RP2040 XIP_CTRL bit 0 (datasheet 2.6.3.1) */
#define XIP_CTRL_POWER_DOWN 0x8u /* bit 3 */

/* Evidence for the samples in alias modes m1 and m2: samples per alias, then the busiest
 * functions that run there. */
static void alias_evidence(tctx *c, xb_finding *f, enum xb_alias_mode m1, enum xb_alias_mode m2)
{
	const xb_target *tg = c->in->tg;
	size_t fi = (size_t)(f - c->out->f);
	for (int m = 0; m < 4; m++)
		if ((m == (int)m1 || m == (int)m2) && c->by_mode[m] > 0)
			evidence(&c->out->f[fi], "%.0f samples (%.1f %%) in the %s alias", c->by_mode[m],
				 pct(c->by_mode[m], c->busy),
				 target_alias_mode_name((enum xb_alias_mode)m));
	size_t n, shown = 0;
	size_t *ix = funcs_by_samples(c, &n);
	for (size_t k = 0; k < n && shown < 5; k++) {
		const xb_function *fn = &c->in->img->funcs[ix[k]];
		uint32_t off;
		enum xb_alias_mode m;
		if (target_decode_xip(tg, fn->addr, &off, &m) && (m == m1 || m == m2)) {
			evidence(&c->out->f[fi], "%s at 0x%08x: %.1f %%", fn->name, fn->addr,
				 pct(c->prof.func[ix[k]].net, c->busy));
			shown++;
		}
	}
	free(ix);
}

/* On an ARMv7-M/ARMv8-M part the MPU decides whether flash is cacheable: the hot
 * functions' addresses (or, without samples, the start of each flash alias) looked up in
 * the registers; code fetched from a non-cacheable region, or the I-cache off in CCR,
 * misses on every fetch. */
static void mpu_check(tctx *c)
{
	const xb_target *tg = c->in->tg;
	const xb_mpu *m = c->in->mpu;
	uint32_t at[8];
	double share[8];
	const char *who[8];
	size_t n = 0;
	if (c->have_prof && c->busy > 0) {
		size_t nf;
		size_t *ix = funcs_by_samples(c, &nf);
		for (size_t k = 0; k < nf && n < 8; k++) {
			const xb_function *fn = &c->in->img->funcs[ix[k]];
			uint32_t off;
			enum xb_alias_mode mode;
			if (fn->region != XB_REGION_FLASH && !target_decode_xip(tg, fn->addr, &off, &mode))
				continue; /* SRAM and ROM code: the MPU's flash attributes do not apply */
			at[n] = fn->addr;
			share[n] = pct(c->prof.func[ix[k]].net, c->busy);
			who[n++] = fn->name;
		}
		free(ix);
	}
	for (int i = 0; i < tg->naliases && n < 8 && !c->have_prof; i++) {
		at[n] = tg->aliases[i].base;
		share[n] = -1;
		who[n++] = target_alias_mode_name(tg->aliases[i].mode);
	}
	xb_finding *f = NULL;
	size_t fi = 0;
	double total = 0;
	int icache_off = 0;
	for (size_t i = 0; i < n; i++) {
		xb_mpu_attr a;
		if (mpu_attr_at(m, at[i], 1, &a) != 0 || a.cached_fetch)
			continue;
		icache_off |= a.icache == 0;
		if (!f) {
			f = finding(c, "cache-off", XB_SEV_SEVERE, "code runs from memory the MPU makes "
				    "non-cacheable");
			fi = (size_t)(f - c->out->f);
		}
		if (share[i] >= 0) {
			total += share[i];
			evidence(&c->out->f[fi], "%s at 0x%08x (%.1f %%): %s", who[i], at[i], share[i],
				 a.desc);
		} else {
			evidence(&c->out->f[fi], "the %s alias at 0x%08x: %s", who[i], at[i], a.desc);
		}
	}
	if (!f)
		return;
	f = &c->out->f[fi];
	free(f->summary);
	if (icache_off)
		f->summary = xasprintf("the instruction cache is off (CCR.IC = 0): every fetch from "
				       "flash misses");
	else if (c->have_prof)
		f->summary = xasprintf("%.1f %% of the busy time runs from flash the MPU maps "
				       "non-cacheable", total);
	else
		f->summary = xasprintf("the MPU maps the flash non-cacheable");
	if (!c->have_prof && !icache_off)
		f->severity = XB_SEV_WARNING; /* not weighed: no samples */
	f->fix = xasprintf(icache_off ? "enable the instruction cache (SCB_EnableICache) early in "
					"start-up"
				      : "give the flash region Normal, cacheable attributes "
					"(ARMv7-M: TEX=001 C=1 B=1, write-back; ARMv8-M: a MAIR "
					"entry with inner write-back) and keep it executable");
	if (f->severity == XB_SEV_SEVERE && !c->fetch_bound)
		c->fetch_bound = icache_off ? "the instruction cache is off"
					    : "the MPU maps the hot code non-cacheable";
}

static void rule_cache_off(tctx *c)
{
	const xb_target *tg = c->in->tg;
	const char *rule = "cache-off";
	int looked = 0;
	if (c->in->have_xip_ctrl && tg->reg_ctrl) {
		looked = 1;
		uint32_t v = c->in->xip_ctrl;
		if (!(v & XIP_CTRL_EN) || (v & XIP_CTRL_POWER_DOWN)) {
			xb_finding *f = finding(c, rule, XB_SEV_SEVERE,
						"the flash cache is %s: every fetch from flash waits "
						"for the flash",
						!(v & XIP_CTRL_EN) ? "off" : "powered down");
			evidence(f, "XIP_CTRL (0x%08x) = 0x%08x: EN = %u, POWER_DOWN = %u", tg->reg_ctrl,
				 v, v & XIP_CTRL_EN, (v & XIP_CTRL_POWER_DOWN) ? 1u : 0u);
			c->fetch_bound = !(v & XIP_CTRL_EN) ? "the flash cache is off"
							    : "the flash cache is powered down";
			f->fix = xasprintf("set XIP_CTRL.EN and clear POWER_DOWN (boot2 and the SDKs leave "
				      "the cache on: look for start-up code or a debugger script "
				      "that turns it off)");
		}
	}
	if (c->have_prof && c->busy > 0) {
		looked = 1;
		/* the uncached aliases bypass the cache; the cached, non-allocating one is
		 * the noalloc-reuse rule's */
		double bypass = c->by_mode[XB_ALIAS_UNCACHED_ALLOC] +
				c->by_mode[XB_ALIAS_UNCACHED_NOALLOC];
		int sev = share_severity(pct(bypass, c->busy), 1, 5, 20);
		if (sev >= 0) {
			xb_finding *f = finding(c, rule, (enum xb_severity)sev,
						"%.1f %% of the busy time runs from uncached flash "
						"aliases: those fetches bypass the cache",
						pct(bypass, c->busy));
			alias_evidence(c, f, XB_ALIAS_UNCACHED_ALLOC, XB_ALIAS_UNCACHED_NOALLOC);
			f->fix = xasprintf("link hot code at the cached, allocating alias (0x%08x) or put it "
				      "in SRAM: an uncached alias is for code that must not disturb the "
				      "cache, not for the hot path",
				      tg->flash_base);
			if (sev == XB_SEV_SEVERE)
				c->fetch_bound = "most of the busy time runs from uncached aliases";
		}
	}

	if (c->in->mpu && tg->mpu != XB_MPU_NONE) {
		looked = 1;
		mpu_check(c);
	}
	if (!looked)
		skip(c, rule, "no XIP_CTRL or MPU registers from a bench and no samples");
}

/* ---- 3. Conflicting hot sets ---- */

static void rule_conflicts(tctx *c)
{
	const char *rule = "conflicting-sets";
	if (!c->have_prof || c->busy <= 0) {
		skip(c, rule, "no samples");
		return;
	}
	const xb_target *tg = c->in->tg;
	uint32_t nsets = target_sets(tg);
	/* A hot line: at least 0.1 % of the busy samples (and 2 samples). */
	double hot_at = c->busy * 0.001 < 2 ? 2 : c->busy * 0.001;
	unsigned *count = xcalloc(nsets, sizeof *count);
	double *samples = xcalloc(nsets, sizeof *samples);
	for (size_t i = 0; i < c->prof.nlines; i++) {
		const xb_line_count *l = &c->prof.lines[i];
		uint32_t off;
		enum xb_alias_mode m;
		if (l->net < hot_at || !target_decode_xip(tg, l->line, &off, &m) ||
		    m != XB_ALIAS_CACHED_ALLOC)
			continue;
		uint32_t set = target_set_of(tg, l->line);
		count[set]++;
		samples[set] += l->net;
	}
	unsigned over = 0;
	double over_samples = 0;
	for (uint32_t s = 0; s < nsets; s++)
		if (count[s] > tg->cache.ways) {
			over++;
			over_samples += samples[s];
		}
	int sev = share_severity(pct(over_samples, c->busy), 2, 10, 101);
	if (over && sev >= 0) {
		xb_finding *f = finding(c, rule, (enum xb_severity)sev,
					"%u cache sets hold more hot lines than the %u ways: %.1f %% of "
					"the busy time is on lines that evict each other",
					over, tg->cache.ways, pct(over_samples, c->busy));
		evidence(f, "hot line: at least %.0f samples (0.1 %% of %.0f busy samples)", hot_at,
			 c->busy);
		for (unsigned shown = 0; shown < 5; shown++) { /* the busiest such sets */
			uint32_t best = nsets;
			for (uint32_t s = 0; s < nsets; s++)
				if (count[s] > tg->cache.ways && (best == nsets || samples[s] > samples[best]))
					best = s;
			if (best == nsets)
				break;
			char names[200] = "";
			size_t len = 0;
			const char *last = NULL;
			for (size_t i = 0; i < c->prof.nlines; i++) {
				const xb_line_count *l = &c->prof.lines[i];
				if (l->net < hot_at || target_set_of(tg, l->line) != best)
					continue;
				const xb_function *fn = image_function_at(c->in->img, l->line);
				const char *nm = fn ? fn->name : "?";
				if (last && strcmp(last, nm) == 0)
					continue;
				last = nm;
				int w = snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
						 nm);
				if (w < 0 || (size_t)w >= sizeof names - len)
					break;
				len += (size_t)w;
			}
			evidence(f, "set %u: %u hot lines, %.1f %%: %s", best, count[best],
				 pct(samples[best], c->busy), names);
			count[best] = 0; /* shown */
		}
		f->fix = xasprintf("give the hot functions their own cache colours (xipbench plan "
			      "--strategy colour), or move the most contended ones to SRAM");
		f->action = xasprintf(":preset colour");
	}
	free(count);
	free(samples);
}

/* ---- 4. Generic copy and checksum loops ---- */

/* The code bytes of [addr, addr + size) from the ELF's loadable segments, or NULL. */
static const uint8_t *code_bytes(const xb_segments *seg, uint32_t addr, uint32_t size)
{
	for (size_t i = 0; i < seg->n; i++) {
		const xb_segment *s = &seg->s[i];
		if (addr >= s->vaddr && size <= s->filesz && addr - s->vaddr <= s->filesz - size)
			return s->bytes + (addr - s->vaddr);
		if (addr >= s->paddr && size <= s->filesz && addr - s->paddr <= s->filesz - size)
			return s->bytes + (addr - s->paddr);
	}
	return NULL;
}

typedef struct loop_scan {
	uint32_t from, to;       /* the loop: [from, to] (addresses of its first and last
				  * instruction, the backward branch) */
	unsigned insns, ldrb, strb, wordmem, adds;
	int word_path;           /* the function also moves words elsewhere (LDM/STM, LDR/STR):
				  * its byte loop is the path for short or differently aligned
				  * buffers */
} loop_scan;

enum { TH_OTHER, TH_LDRB, TH_STRB, TH_WORD, TH_ADD };

/* What a 16-bit Thumb instruction does, as far as the byte-loop scan cares (ARMv6-M ARM
 * A6.2: load/store byte, the other loads and stores, ADD/ADC). */
static int thumb_class(uint16_t g)
{
	if ((g & 0xF800u) == 0x7800u || (g & 0xFE00u) == 0x5C00u)
		return TH_LDRB;
	if ((g & 0xF800u) == 0x7000u || (g & 0xFE00u) == 0x5400u)
		return TH_STRB;
	if ((g & 0xF000u) == 0x6000u || (g & 0xF000u) == 0x8000u || (g & 0xF000u) == 0xC000u ||
	    (g & 0xFC00u) == 0x5000u || (g & 0xFE00u) == 0x5A00u || (g & 0xFE00u) == 0x5E00u ||
	    (g & 0xFE00u) == 0x5600u || (g & 0xFE00u) == 0x5800u)
		return TH_WORD;
	if ((g & 0xFE00u) == 0x1800u || (g & 0xFF00u) == 0x4400u || (g & 0xFFC0u) == 0x4140u)
		return TH_ADD;
	return TH_OTHER;
}

static int thumb32_prefix(uint16_t h)
{
	return (h & 0xF800u) == 0xE800u || (h & 0xF000u) == 0xF000u;
}

/* Finds the smallest loop (a backward branch inside the function) that moves or sums one
 * byte per iteration: LDRB/STRB (or an add of loaded bytes), no word or halfword access,
 * at most 20 instructions. Thumb (ARMv6-M) encodings, ARM ARM A6.2. */
static int find_byte_loop(const uint8_t *code, uint32_t addr, uint32_t size, loop_scan *out)
{
	int found = 0, word_loop = 0;
	for (uint32_t o = 0; o + 2 <= size; o += 2) {
		uint16_t h = (uint16_t)(code[o] | code[o + 1] << 8);
		if (thumb32_prefix(h)) {
			o += 2;
			continue;
		}
		int32_t disp;
		if ((h & 0xF000u) == 0xD000u && (h & 0x0F00u) < 0x0E00u)
			disp = (int32_t)(int8_t)(h & 0xFF) * 2;
		else if ((h & 0xF800u) == 0xE000u)
			disp = ((int32_t)((h & 0x7FFu) << 21) >> 20);
		else
			continue;
		int64_t target = (int64_t)o + 4 + disp;
		if (disp >= 0 || target < 0)
			continue;
		loop_scan l = {addr + (uint32_t)target, addr + o, 0, 0, 0, 0, 0};
		for (uint32_t p = (uint32_t)target; p <= o; p += 2) {
			uint16_t g = (uint16_t)(code[p] | code[p + 1] << 8);
			l.insns++;
			if (thumb32_prefix(g)) {
				p += 2;
				continue;
			}
			switch (thumb_class(g)) {
			case TH_LDRB: l.ldrb++; break;
			case TH_STRB: l.strb++; break;
			case TH_WORD: l.wordmem++; break;
			case TH_ADD: l.adds++; break;
			}
		}
		int bytewise = l.ldrb + l.strb > 0 && !l.wordmem && l.insns <= 32 &&
			       (l.strb || l.adds);
		/* a loop of its own that moves words and no bytes: the routine's word path */
		if (l.wordmem && !l.ldrb && !l.strb && l.insns <= 32)
			word_loop = 1;
		if (bytewise && (!found || l.insns < out->insns)) {
			*out = l;
			found = 1;
		}
	}
	if (found)
		out->word_path = word_loop;
	return found;
}

static void rule_byte_loops(tctx *c)
{
	const char *rule = "byte-loops";
	if (!c->have_prof || c->busy <= 0) {
		skip(c, rule, "no samples");
		return;
	}
	if (!c->in->elf) {
		skip(c, rule, "no code (the ELF's bytes were not given)");
		return;
	}
	xb_segments seg = {0};
	xb_err err;
	if (segments_read_elf(&seg, c->in->elf, c->in->elf_len, c->in->img->path, &err) != 0) {
		segments_free(&seg);
		skip(c, rule, "%s", err.msg);
		return;
	}
	static const char *const hint[] = {"memcpy", "memmove", "memset", "chksum", "checksum", "csum",
					   "cksum", "crc", "copy", NULL};
	size_t n;
	size_t *ix = funcs_by_samples(c, &n);
	xb_finding *f = NULL;
	double total = 0;
	size_t fi = 0;
	for (size_t k = 0; k < n; k++) {
		const xb_function *fn = &c->in->img->funcs[ix[k]];
		double share = pct(c->prof.func[ix[k]].net, c->busy);
		if (share < 1.0)
			break;
		const uint8_t *code = code_bytes(&seg, fn->addr, fn->size);
		loop_scan l = {0};
		if (!code || !find_byte_loop(code, fn->addr, fn->size, &l))
			continue;
		/* the time is in the loop itself, not elsewhere in a busy function */
		uint32_t ls = c->prof.line_size;
		double in_loop = 0;
		for (uint32_t a = l.from & ~(ls - 1); a <= l.to; a += ls)
			in_loop += profile_line_net(&c->prof, a);
		if (pct(in_loop, c->busy) < 1.0 || in_loop < 0.3 * c->prof.func[ix[k]].net)
			continue;
		share = pct(in_loop, c->busy);
		total += share;
		if (l.word_path)
			c->bytes_word_path += share;
		if (!f) {
			f = finding(c, rule, XB_SEV_NOTE, "byte-at-a-time loops are hot");
			fi = (size_t)(f - c->out->f);
		}
		f = &c->out->f[fi];
		evidence(f, "%s: %.1f %% of the busy time in its loop at 0x%08x-0x%08x: %u "
			 "instructions, %u LDRB, %u STRB%s, no word access%s",
			 fn->name, share, l.from, l.to, l.insns, l.ldrb, l.strb,
			 l.adds ? ", adds" : "", name_has(fn->name, hint) ? " (a copy, fill or "
			 "checksum routine by its name)" : "");
		if (l.word_path)
			evidence(&c->out->f[fi], "%s also has a word loop: its byte loop runs for short "
				 "buffers and for buffers whose alignments differ", fn->name);
	}
	free(ix);
	c->bytes_total = total;
	if (f) {
		int sev = share_severity(total, 0, 5, 25);
		f->severity = (enum xb_severity)(sev < 0 ? XB_SEV_NOTE : sev);
		free(f->summary);
		f->summary = xasprintf("%.1f %% of the busy time is in loops that move or sum one byte "
				  "per iteration",
				  total);
		f->fix = xasprintf("use word-at-a-time or assembler versions (the C library's optimised "
			      "memcpy/memset, the SDK's ROM or assembler routines, the stack's "
			      "assembler checksum), or put the routine in SRAM");
	}
	segments_free(&seg);
}

/* ---- 5. Optimisation level ---- */

/* The last -O option of a GCC producer string ("GNU C11 12.2.1 ... -mthumb -Os -g"): "0",
 * "1", "2", "3", "s", "z", "g", "fast"; NULL when it has none. */
static const char *producer_opt(const char *producer, char *buf, size_t n)
{
	const char *best = NULL;
	for (const char *p = producer; (p = strstr(p, " -O")) != NULL; p += 3)
		best = p + 3;
	if (!best)
		return NULL;
	size_t k = 0;
	while (best[k] && best[k] != ' ' && k + 1 < n)
		k++;
	memcpy(buf, best, k);
	buf[k] = 0;
	if (k == 0) /* "-O" alone is -O1 */
		snprintf(buf, n, "1");
	return buf;
}

static int is_toolchain(const xb_library *l)
{
	static const char *const groups[] = {"GCC runtime", "C library", NULL};
	for (size_t i = 0; groups[i]; i++)
		if (l->group && !strcmp(l->group, groups[i]))
			return 1;
	return !strncmp(l->name, "libgcc", 6) || !strncmp(l->name, "libc", 4) ||
	       !strncmp(l->name, "libm", 4) || !strncmp(l->name, "libnosys", 8);
}

static void rule_opt_level(tctx *c)
{
	const char *rule = "optimisation";
	if (!c->in->elf) {
		skip(c, rule, "no ELF bytes");
		return;
	}
	/* libelf may write into the memory it reads: give it a copy */
	char *copy = xmalloc(c->in->elf_len ? c->in->elf_len : 1);
	memcpy(copy, c->in->elf, c->in->elf_len);
	Elf *e = elf_version(EV_CURRENT) != EV_NONE ? elf_memory(copy, c->in->elf_len) : NULL;
	Dwarf *dw = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
	if (!dw) {
		skip(c, rule, "no DWARF debug information (build with -g to see each object's "
			      "compiler options)");
		if (e)
			elf_end(e);
		free(copy);
		return;
	}
	const xb_image *img = c->in->img;
	const xb_target *tg = c->in->tg;
	/* per library: bytes and samples at each level (0, 1, 2, 3, s, other, unknown) */
	enum { L0, L1, L2, L3, LS, LOTHER, LNONE, NL };
	static const char *const lname[NL] = {"-O0", "-O1", "-O2", "-O3", "-Os", "other", "none"};
	double(*bytes)[NL] = xcalloc(img->nlibraries + 1, sizeof *bytes);
	double(*net)[NL] = xcalloc(img->nlibraries + 1, sizeof *net);
	size_t with_producer = 0;
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *fn = &img->funcs[i];
		if (fn->alias_of >= 0 || !fn->size)
			continue;
		Dwarf_Die cu;
		int lv = LNONE;
		if (dwarf_addrdie(dw, fn->addr, &cu) != NULL) {
			Dwarf_Attribute a;
			const char *prod = dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &a));
			char o[16];
			const char *opt = prod ? producer_opt(prod, o, sizeof o) : NULL;
			if (prod)
				with_producer++;
			if (opt)
				lv = !strcmp(opt, "0") ? L0 : !strcmp(opt, "1") ? L1 : !strcmp(opt, "2") ? L2
				     : !strcmp(opt, "3") || !strcmp(opt, "fast") ? L3
				     : !strcmp(opt, "s") || !strcmp(opt, "z") ? LS : LOTHER;
		}
		bytes[fn->library][lv] += fn->size;
		if (c->have_prof)
			net[fn->library][lv] += c->prof.func[i].net;
	}
	dwarf_end(dw);
	elf_end(e);
	free(copy);
	if (!with_producer) {
		skip(c, rule, "the DWARF has no DW_AT_producer with the compiler's options (GCC "
			      "records them unless -gno-record-gcc-switches)");
		free(bytes);
		free(net);
		return;
	}
	uint32_t line = tg->cache.line ? tg->cache.line : 1;
	for (int lv = L0; lv <= L3; lv++) {
		if (lv == L1)
			continue;
		double b = 0, s = 0;
		for (size_t l = 0; l < img->nlibraries; l++) {
			b += bytes[l][lv];
			s += net[l][lv];
		}
		if (b <= 0)
			continue;
		/* the toolchain's own runtime (libgcc, the C library) comes prebuilt: not the
		 * build's choice, so its level weighs as information only */
		double own = 0;
		for (size_t l = 0; l < img->nlibraries; l++)
			if (!is_toolchain(&img->libraries[l]))
				own += net[l][lv];
		double share = pct(s, c->busy), own_share = pct(own, c->busy);
		enum xb_severity sev = lv == L0   ? (own_share >= 5 ? XB_SEV_SEVERE : XB_SEV_WARNING)
				       : own_share >= 25 ? XB_SEV_WARNING
				       : own_share >= 5  ? XB_SEV_NOTE
							 : XB_SEV_INFO;
		xb_finding *f = finding(c, rule, sev,
					"%s code: %.0f bytes (%.0f cache lines)%s", lname[lv], b,
					b / line, c->have_prof ? "" : ", no samples to weigh it");
		size_t fi = (size_t)(f - c->out->f);
		for (size_t l = 0; l < img->nlibraries; l++) {
			if (!(bytes[l][lv] > 0))
				continue;
			if (c->have_prof)
				evidence(&c->out->f[fi], "%s: %.0f bytes (%.0f lines), %.1f %% of the "
					 "busy time",
					 img->libraries[l].name, bytes[l][lv], bytes[l][lv] / line,
					 pct(net[l][lv], c->busy));
			else
				evidence(&c->out->f[fi], "%s: %.0f bytes (%.0f lines)",
					 img->libraries[l].name, bytes[l][lv], bytes[l][lv] / line);
		}
		f = &c->out->f[fi];
		if (c->have_prof) {
			free(f->summary);
			f->summary = xasprintf("%s code: %.0f bytes (%.0f cache lines), %.1f %% of the busy "
					  "time",
					  lname[lv], b, b / line, share);
		}
		f->fix = xasprintf(lv == L0 ? "build with -Os (or -O2 where measured faster): -O0 code "
					 "is several times larger and slower"
				       : "-Os keeps the hot path smaller: the study measured -O2 "
					 "growing the code and the misses; compare both on the bench");
	}
	free(bytes);
	free(net);
}

/* ---- 6. Buffers ---- */

/* A network or USB buffer pool by its symbol's name: Zephyr's net_buf and net_pkt pools
 * (net_buf_data_rx_bufs, rx_pkts), lwIP's memp and heap (memp_memory_PBUF_POOL_base,
 * ram_heap), TinyUSB's and CherryUSB's endpoint and class buffers (_usbd_ctrl_buf,
 * g_cdc_ecm_rx_buffer), drivers' DMA rings. */
static int buffer_name(const char *name)
{
	static const char *const direct[] = {"net_buf", "net_pkt", "pkt_slab", "pbuf", "memp_memory",
					     "ram_heap", "rx_buf", "tx_buf", "rxbuf", "txbuf",
					     "ep_buf", "epbuf", "_pkts", NULL};
	static const char *const owner[] = {"usb", "udc", "dcd", "cdc", "ecm", "ncm", "rndis", "eth",
					    "enet", "mac", "dma", "net", NULL};
	static const char *const kind[] = {"buf", "pool", "ring", "storage", "blocks", "desc", NULL};
	char low[96];
	size_t i = 0;
	for (; name[i] && i < sizeof low - 1; i++)
		low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
	low[i] = 0;
	return name_has(low, direct) || (name_has(low, owner) && name_has(low, kind));
}

static void rule_buffers(tctx *c)
{
	const char *rule = "buffers";
	if (!c->in->elf) {
		skip(c, rule, "no ELF bytes");
		return;
	}
	const xb_target *tg = c->in->tg;
	char *copy = xmalloc(c->in->elf_len ? c->in->elf_len : 1);
	memcpy(copy, c->in->elf, c->in->elf_len);
	Elf *e = elf_version(EV_CURRENT) != EV_NONE ? elf_memory(copy, c->in->elf_len) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr = 0;
	while (e && (scn = elf_nextscn(e, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	if (!scn || elf_getshdrstrndx(e, &shstr) != 0) {
		skip(c, rule, "no symbol table");
		if (e)
			elf_end(e);
		free(copy);
		return;
	}
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t nsym = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
	size_t found = 0, bad = 0;
	xb_finding *f = NULL;
	size_t fi = 0;
	char seen[8][96];
	size_t nseen = 0;
	for (size_t i = 0; i < nsym; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
		    sym.st_size < 64 || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
		if (!name || !buffer_name(name))
			continue;
		uint32_t addr = (uint32_t)sym.st_value;
		GElf_Shdr ssh;
		Elf_Scn *sec = elf_getscn(e, sym.st_shndx);
		if (!sec || !gelf_getshdr(sec, &ssh) || !(ssh.sh_flags & SHF_WRITE))
			continue; /* a buffer is written: constant tables are not pools */
		const char *secname = elf_strptr(e, shstr, ssh.sh_name);
		found++;
		if (nseen < 8)
			snprintf(seen[nseen++], sizeof seen[0], "%s (0x%08x, %llu bytes)", name,
				 (uint32_t)sym.st_value, (unsigned long long)sym.st_size);
		const xb_region *r = target_region_of(tg, addr);
		char why[160] = "";
		if (addr % 4)
			snprintf(why, sizeof why, "%u byte%s past a word boundary", addr % 4,
				 addr % 4 == 1 ? "" : "s");
		if (!r || r->kind != XB_REGION_SRAM)
			snprintf(why + strlen(why), sizeof why - strlen(why), "%sin %s%s%s%s, not SRAM",
				 *why ? "; " : "", r ? "region " : "",
				 r ? r->name : "memory the target does not list", r ? ", " : "",
				 r ? target_region_kind_name(r->kind) : "");
		if (!*why)
			continue;
		bad++;
		if (addr % 4)
			c->misaligned_buffers = 1;
		if (!f) {
			f = finding(c, rule, XB_SEV_WARNING, "buffers");
			fi = (size_t)(f - c->out->f);
		}
		if (c->out->f[fi].nevidence < 12)
			evidence(&c->out->f[fi], "%s at 0x%08x, %llu bytes in %s: %s", name, addr,
				 (unsigned long long)sym.st_size, secname ? secname : "?", why);
	}
	elf_end(e);
	free(copy);
	if (!found) {
		skip(c, rule, "no network or USB buffer pool found by its symbol's name");
		return;
	}
	if (!f) {
		f = finding(c, rule, XB_SEV_INFO, "%zu network and USB buffer pools, all word aligned "
			    "in SRAM", found);
		for (size_t i = 0; i < nseen; i++)
			evidence(f, "%s", seen[i]);
		return;
	}
	f = &c->out->f[fi];
	free(f->summary);
	f->summary = xasprintf("%zu of %zu network and USB buffer pools are misaligned or outside "
			       "SRAM", bad, found);
	f->fix = xasprintf("align packet buffers to at least 4 bytes (8 for 64-bit buses and DMA; "
			   "Zephyr: __net_buf_align, lwIP: MEM_ALIGNMENT, __aligned(4) on byte "
			   "arrays) and keep them in fast SRAM: word copies and checksums need "
			   "buffers that share their alignment, otherwise they fall back to bytes");
}

/* ---- 7. Debug features on the hot path ---- */

/* The source file a function was compiled from: the map's input object (its member name
 * in an archive), else the ELF's STT_FILE symbol; NULL when neither is known. Only the last
 * path component. */
static const char *source_of(const xb_image *img, const xb_function *fn)
{
	const char *p = NULL;
	if (img->has_map && fn->input >= 0 && (size_t)fn->input < img->map.ninputs)
		p = img->map.inputs[fn->input].member;
	else if (fn->file >= 0 && (size_t)fn->file < img->nfiles)
		p = img->files[fn->file];
	if (!p)
		return NULL;
	const char *slash = strrchr(p, '/');
	return slash ? slash + 1 : p;
}

/* A logging, formatting, assertion or statistics source file by its name: log.c,
 * log_core.c.obj, cbprintf_complete.c, printk.c, format.c, assert.c, net_stats.c. */
static int debug_source(const char *file)
{
	static const char *const words[] = {"printf", "printk", "format", "assert", "stats", NULL};
	return file && (strncmp(file, "log", 3) == 0 || name_has(file, words));
}

static void rule_debug(tctx *c)
{
	const char *rule = "debug-features";
	static const char *const words[] = {"assert", "z_log_", "log_msg", "log_process", "printk",
					    "vprintk", "cbvprintf", "printf", "net_stats", "_stats_",
					    "log_output", NULL};
	double total = 0;
	xb_finding *f = NULL;
	size_t fi = 0;
	if (c->have_prof && c->busy > 0) {
		/* by source file where it is known (a logging call spends most of its time in
		 * the formatter and the output, not in the function with the telling name),
		 * else by the function's name */
		const xb_image *img = c->in->img;
		typedef struct {
			const char *what;
			double net;
			const char *top;
			double top_net;
		} origin;
		origin *o = xcalloc(img->nfuncs + 1, sizeof *o);
		size_t no = 0;
		size_t n;
		size_t *ix = funcs_by_samples(c, &n);
		for (size_t k = 0; k < n; k++) {
			const xb_function *fn = &img->funcs[ix[k]];
			const char *file = source_of(img, fn);
			const char *what = debug_source(file) ? file : name_has(fn->name, words) ? fn->name
												    : NULL;
			if (!what)
				continue;
			size_t j = 0;
			while (j < no && strcmp(o[j].what, what) != 0)
				j++;
			if (j == no)
				o[no++] = (origin){what, 0, fn->name, c->prof.func[ix[k]].net};
			o[j].net += c->prof.func[ix[k]].net;
		}
		free(ix);
		for (size_t i = 1; i < no; i++) { /* the busiest first */
			origin v = o[i];
			size_t j = i;
			while (j > 0 && o[j - 1].net < v.net) {
				o[j] = o[j - 1];
				j--;
			}
			o[j] = v;
		}
		for (size_t j = 0; j < no; j++) {
			double share = pct(o[j].net, c->busy);
			if (share < 0.2)
				continue;
			total += share;
			if (!f) {
				f = finding(c, rule, XB_SEV_NOTE, "debug code on the hot path");
				fi = (size_t)(f - c->out->f);
			}
			if (strcmp(o[j].what, o[j].top) == 0)
				evidence(&c->out->f[fi], "%s: %.1f %% of the busy time", o[j].what, share);
			else
				evidence(&c->out->f[fi], "%s: %.1f %% of the busy time (the busiest: %s)",
					 o[j].what, share, o[j].top);
		}
		free(o);
	}
	static const struct {
		const char *key, *bad, *what;
	} cfgs[] = {
		{"CONFIG_ASSERT", "y", "assertions"},
		{"CONFIG_NET_STATISTICS", "y", "network statistics"},
		{"CONFIG_LOG_MODE_IMMEDIATE", "y", "logging in the caller's context"},
		{"CONFIG_NET_LOG", "y", "network stack logging"},
		{"CONFIG_NO_OPTIMIZATIONS", "y", "no optimisation (-O0)"},
		{"CONFIG_DEBUG_OPTIMIZATIONS", "y", "debug optimisation (-Og)"},
		{"CONFIG_DEBUG", "y", "debug build"},
		{"CMAKE_BUILD_TYPE", "Debug", "a Debug build type"},
		{"PICO_DEOPTIMIZED_DEBUG", "1", "pico-sdk's deoptimised debug"},
		{"CONFIG_LOG_DEFAULT_LEVEL", "4", "logging at debug level"},
		{"CONFIG_LOG_OVERRIDE_LEVEL", "4", "every module's logging at debug level"},
	};
	unsigned cfg_hits = 0;
	if (c->in->config) {
		for (size_t i = 0; i < sizeof cfgs / sizeof *cfgs; i++) {
			char *v = buildsys_config_value(c->in->config, cfgs[i].key);
			if (!v || strcmp(v, cfgs[i].bad) != 0) {
				free(v);
				continue;
			}
			if (!f) {
				f = finding(c, rule, XB_SEV_NOTE, "debug features are built in");
				fi = (size_t)(f - c->out->f);
			}
			evidence(&c->out->f[fi], "%s: %s=%s (%s)", c->in->config_name
				 ? c->in->config_name : "configuration", cfgs[i].key, v, cfgs[i].what);
			free(v);
			cfg_hits++;
		}
	}
	if (!f) {
		if (!c->have_prof && !c->in->config)
			skip(c, rule, "no samples and no build configuration");
		return;
	}
	f = &c->out->f[fi];
	int sev = share_severity(total, 0.5, 5, 25);
	f->severity = (enum xb_severity)(sev < 0 ? XB_SEV_NOTE : sev);
	free(f->summary);
	f->summary = total > 0 ? xasprintf("%.1f %% of the busy time is in assertions, logging or "
				      "statistics%s",
				      total, cfg_hits ? "; the configuration turns them on" : "")
			       : xasprintf("the configuration turns on debug features (%u)", cfg_hits);
	f->fix = xasprintf("turn assertions, logging above warnings and statistics off for speed "
		      "measurements (Zephyr: CONFIG_ASSERT=n, CONFIG_LOG_DEFAULT_LEVEL=2, "
		      "CONFIG_NET_STATISTICS=n; pico-sdk: a Release build)");
}

/* ---- 8. Idle versus busy, interrupts ---- */

static void rule_idle(tctx *c)
{
	const char *rule = "idle-and-interrupts";
	if (c->busy_all <= 0) {
		skip(c, rule, "no samples");
		return;
	}
	static const char *const idle_words[] = {"idle", "cpu_idle", "__WFI", "wfi", NULL};
	static const char *const irq_words[] = {"IRQHandler", "_Handler", "isr", "_irq",
						"irq_handler", "int_handler", NULL};
	double idle = 0, irq = 0;
	size_t n;
	size_t *ix = funcs_by_samples(c, &n);
	for (size_t k = 0; k < n; k++) {
		const xb_function *fn = &c->in->img->funcs[ix[k]];
		if (name_has(fn->name, idle_words))
			idle += c->prof.func[ix[k]].net;
		else if (name_has(fn->name, irq_words))
			irq += c->prof.func[ix[k]].net;
	}
	free(ix);
	xb_finding *f = finding(c, rule, XB_SEV_INFO,
				"%.1f %% of the traffic window asleep, %.1f %% awake in idle code, "
				"%.1f %% in interrupt handlers",
				pct(c->sleeping, c->busy_all), pct(idle, c->busy_all),
				pct(irq, c->busy_all));
	evidence(f, "%.0f samples in the traffic window: %.0f asleep (WFI/WFE), %.0f awake",
		 c->busy_all, c->sleeping, c->busy);
	evidence(f, "idle code by name (idle, cpu_idle, wfi): %.0f samples; interrupt handlers "
		 "by name (IRQHandler, _Handler, isr, _irq): %.0f samples", idle, irq);
	f->fix = xasprintf("%s", c->sleeping == 0 ? "the core never sleeps (a polling main loop): "
						 "the profile's idle window, subtracted, shows the "
						 "work the traffic adds"
			   : c->sleeping > c->busy ? "the core waits more than it works: the limit "
						    "is elsewhere (the host, the link, the traffic "
						    "rate)"
						  : "the core is busy most of the time: the hot code "
						    "decides the echo rate");
}

/* ---- 2. Capacity, not conflicts; 9. the non-allocating alias misused (from a trace) ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}


static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void trace_lines(const xb_trace *t, const xb_target *tg, echo_lines *out)
{
	memset(out, 0, sizeof *out);
	size_t n = trace_echo_count(t);
	uint32_t line = tg->cache.line ? tg->cache.line : 1;
	double *foot = xcalloc(n + 1, sizeof *foot), *reuse = xcalloc(n + 1, sizeof *reuse);
	uint32_t *a = NULL, *b = NULL;
	size_t cap = 0;
	for (size_t e = 0; e < n; e++) {
		size_t from, to;
		trace_echo_range(t, e, &from, &to);
		size_t na = 0, nb = 0;
		for (size_t i = from; i < to; i++) {
			uint32_t off;
			enum xb_alias_mode m;
			if (!target_decode_xip(tg, t->addr[i], &off, &m))
				continue;
			if (na + nb + 1 > cap) {
				cap = cap ? 2 * cap : 1024;
				a = xrealloc(a, cap * sizeof *a);
				b = xrealloc(b, cap * sizeof *b);
			}
			if (m == XB_ALIAS_CACHED_ALLOC)
				a[na++] = off / line;
			else if (m == XB_ALIAS_CACHED_NOALLOC)
				b[nb++] = off / line;
		}
		qsort(a, na, sizeof *a, cmp_u32);
		qsort(b, nb, sizeof *b, cmp_u32);
		size_t distinct = 0, reused = 0;
		for (size_t i = 0; i < na; i++)
			distinct += !i || a[i] != a[i - 1];
		for (size_t i = 0; i < nb; i++) {
			int first = !i || b[i] != b[i - 1];
			int again = i + 1 < nb && b[i + 1] == b[i];
			if (first && again)
				reused++;
			if (!first)
				out->reuse_fetches++;
		}
		out->noalloc_fetches += (double)nb;
		foot[e] = (double)distinct;
		reuse[e] = (double)reused;
	}
	qsort(foot, n, sizeof *foot, cmp_double);
	qsort(reuse, n, sizeof *reuse, cmp_double);
	out->echoes = n;
	out->foot = n ? foot[n / 2] : 0;
	out->reuse = n ? reuse[n / 2] : 0;
	free(foot);
	free(reuse);
	free(a);
	free(b);
}

/* ---- The SRAM that halves the misses: a predicted curve ---- */

typedef struct miss_count {
	const xb_image *img;
	double *per_func;
} miss_count;

static void count_miss(void *ctx, uint32_t addr)
{
	miss_count *m = ctx;
	const xb_function *fn = image_function_at(m->img, addr);
	if (fn)
		m->per_func[fn - m->img->funcs]++;
}

/* The trace without the fetches of the functions marked in moved (fidx: each fetch's
 * function, -1 for none), echo boundaries kept. */
static void trace_without(const xb_trace *t, const int32_t *fidx, const uint8_t *moved,
			  xb_trace *out)
{
	trace_init(out);
	size_t e = 0;
	for (size_t i = 0; i < t->n; i++) {
		while (e < t->necho && t->echo[e] == i) {
			trace_mark_echo(out);
			e++;
		}
		if (fidx[i] < 0 || !moved[fidx[i]])
			trace_push(out, t->addr[i]);
	}
	while (e++ < t->necho)
		trace_mark_echo(out);
}

/* Functions by misses per byte, the densest first, go to SRAM one after another (their
 * fetches leave the trace, which is replayed through the cache again): the fewest that bring
 * the predicted misses per echo to half the stock prediction. 0 with *bytes, *nfuncs and the
 * predictions, -1 when no prefix halves them (or nothing can be replayed). A model: it
 * ignores the veneers and the code that moving functions shifts. */
static int sram_to_halve(const tctx *c, double *bytes, size_t *nfuncs, double *before,
			 double *after)
{
	const xb_image *img = c->in->img;
	const xb_trace *t = c->in->trace;
	const xb_target *tg = c->in->tg;
	xb_replay r;
	xb_err err;
	miss_count mc = {img, xcalloc(img->nfuncs + 1, sizeof(double))};
	int rc = -1;
	size_t *order = NULL, k = 0;
	int32_t *fidx = NULL;
	uint8_t *moved = NULL;
	if (replay_trace_detail(tg, t, &r, NULL, 0, count_miss, &mc, &err) != 0 ||
	    !(r.misses_per_echo > 0))
		goto out;
	*before = r.misses_per_echo;
	order = xmalloc((img->nfuncs + 1) * sizeof *order);
	for (size_t i = 0; i < img->nfuncs; i++)
		if (mc.per_func[i] > 0 && img->funcs[i].size && img->funcs[i].alias_of < 0 &&
		    img->funcs[i].region == XB_REGION_FLASH)
			order[k++] = i;
	for (size_t i = 1; i < k; i++) { /* densest first */
		size_t v = order[i], j = i;
		double dv = mc.per_func[v] / img->funcs[v].size;
		while (j > 0 && mc.per_func[order[j - 1]] / img->funcs[order[j - 1]].size < dv) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = v;
	}
	fidx = xmalloc((t->n + 1) * sizeof *fidx);
	for (size_t i = 0; i < t->n; i++) {
		const xb_function *fn = image_function_at(img, t->addr[i]);
		fidx[i] = fn ? (int32_t)(fn - img->funcs) : -1;
	}
	moved = xcalloc(img->nfuncs + 1, 1);
	/* the smallest prefix that halves the prediction, by bisection (the curve falls as
	 * functions leave the cache, give or take a conflict) */
	size_t lo = 1, hi = k, best = 0;
	double best_after = 0;
	while (lo <= hi && k) {
		size_t mid = lo + (hi - lo) / 2;
		memset(moved, 0, img->nfuncs + 1);
		for (size_t i = 0; i < mid; i++)
			moved[order[i]] = 1;
		xb_trace ft;
		trace_without(t, fidx, moved, &ft);
		xb_replay fr;
		int ok = replay_trace(tg, &ft, &fr, &err) == 0;
		trace_free(&ft);
		if (ok && fr.misses_per_echo <= *before / 2) {
			best = mid;
			best_after = fr.misses_per_echo;
			if (mid == 1)
				break;
			hi = mid - 1;
		} else {
			lo = mid + 1;
		}
	}
	if (best) {
		double b = 0;
		for (size_t i = 0; i < best; i++)
			b += (img->funcs[order[i]].size + 3) & ~3u;
		*bytes = b;
		*nfuncs = best;
		*after = best_after;
		rc = 0;
	}
out:
	free(mc.per_func);
	free(order);
	free(fidx);
	free(moved);
	return rc;
}

static void rule_capacity(tctx *c)
{
	const char *rule = "capacity";
	if (!c->in->trace) {
		skip(c, rule, "no trace (the per-echo footprint is counted from a fetch trace)");
		return;
	}
	const xb_target *tg = c->in->tg;
	const echo_lines el = c->el;
	uint32_t lines = target_cache_lines(tg);
	if (el.foot <= 0)
		return;
	double ratio = el.foot / lines;
	enum xb_severity sev = ratio > 1.0 ? XB_SEV_WARNING : ratio > 0.75 ? XB_SEV_NOTE
									  : XB_SEV_INFO;
	xb_finding *f = finding(c, rule, sev,
				"one echo touches %.0f cache lines, %.0f %% of the cache's %u%s",
				el.foot, 100.0 * ratio, lines,
				ratio > 1.0 ? ": capacity misses that no flash layout removes" : "");
	evidence(f, "median over %zu echoes of the distinct %u-byte lines fetched through the "
		 "allocating alias (%.1f KB)", el.echoes, tg->cache.line,
		 el.foot * tg->cache.line / 1024.0);
	if (ratio > 1.0) {
		double over = (el.foot - lines) * tg->cache.line;
		evidence(f, "%.0f lines (%.1f KB) more than the cache holds", el.foot - lines,
			 over / 1024.0);
		f->fix = xasprintf("move at least %.1f KB of the hot path to SRAM (xipbench plan "
				   "--strategy sram with a budget), or make it smaller (-Os, fewer "
				   "layers, word-at-a-time copies)",
				   over / 1024.0);
		f->action = xasprintf(":preset sram %uK", (unsigned)((over + 1023) / 1024));
		double bytes, before, after;
		size_t nf;
		size_t fi = (size_t)(f - c->out->f);
		if (sram_to_halve(c, &bytes, &nf, &before, &after) == 0) {
			f = &c->out->f[fi];
			f->gain = xasprintf("model: the %zu functions with the most misses per byte, "
					    "%.1f KB, in SRAM halve the predicted misses per echo "
					    "(%.0f -> %.0f; the trace replayed without their fetches)",
					    nf, bytes / 1024.0, before, after);
			free(f->action);
			f->action = xasprintf(":preset sram %uK", (unsigned)((bytes + 1023) / 1024));
		}
	} else {
		f->fix = xasprintf("the hot path fits the cache: its misses are conflicts a layout "
				   "can remove (conflicting-sets)");
	}
}

static void rule_noalloc(tctx *c)
{
	const char *rule = "noalloc-reuse";
	const xb_target *tg = c->in->tg;
	int sev = -1;
	double share = c->have_prof ? pct(c->by_mode[XB_ALIAS_CACHED_NOALLOC], c->busy) : 0;
	if (c->have_prof)
		sev = share_severity(share, 1, 5, 20);
	const echo_lines el = c->el;
	double reuse = pct(el.reuse_fetches, el.noalloc_fetches);
	int reused = c->in->trace && el.noalloc_fetches > 0 && el.reuse > 0;
	if (reused) {
		int rsev = reuse >= 25 ? XB_SEV_WARNING : XB_SEV_NOTE;
		if (rsev > sev)
			sev = rsev;
	}
	if (!c->have_prof && !c->in->trace) {
		skip(c, rule, "no samples and no trace");
		return;
	}
	if (sev < 0)
		return;
	xb_finding *f = share > 0 ? finding(c, rule, (enum xb_severity)sev,
					   "%.1f %% of the busy time runs from the non-allocating "
					   "alias%s",
					   share, reused ? ", and its code is fetched again within "
							   "one echo" : "")
				  : finding(c, rule, (enum xb_severity)sev,
					   "code in the non-allocating alias is fetched again within "
					   "one echo: %.0f lines per echo, %.0f %% of its fetches",
					   el.reuse, reuse);
	size_t fi = (size_t)(f - c->out->f);
	if (share > 0)
		alias_evidence(c, f, XB_ALIAS_CACHED_NOALLOC, XB_ALIAS_CACHED_NOALLOC);
	if (reused)
		evidence(&c->out->f[fi], "%.0f lines per echo fetched again in the same echo (median "
			 "over %zu echoes); %.0f of the alias's %.0f fetches (%.0f %%) were of a line "
			 "the same echo had fetched before",
			 el.reuse, el.echoes, el.reuse_fetches, el.noalloc_fetches, reuse);
	f = &c->out->f[fi];
	f->fix = xasprintf("link code that is reused within an echo at the allocating alias "
			   "(0x%08x): the non-allocating alias never keeps a line, so every reuse "
			   "goes to the flash (the study measured it worse); keep it for code run "
			   "once per echo",
			   tg->flash_base);
	if (sev == XB_SEV_SEVERE && !c->fetch_bound)
		c->fetch_bound = "most of the busy time runs from the non-allocating alias";
}

/* ---- The table ---- */

typedef void (*rule_fn)(tctx *c);
static const struct {
	xb_triage_rule r;
	rule_fn fn;
} rules[] = {
	{{"cache-off", "the flash cache is off or bypassed"}, rule_cache_off},
	{{"capacity", "one echo's footprint against the cache's lines"}, rule_capacity},
	{{"conflicting-sets", "hot lines that evict each other"}, rule_conflicts},
	{{"byte-loops", "generic byte-at-a-time copy and checksum loops are hot"}, rule_byte_loops},
	{{"optimisation", "the optimisation level of the code, from the compiler's options"},
	 rule_opt_level},
	{{"buffers", "network and USB buffer pools misaligned or outside SRAM"}, rule_buffers},
	{{"debug-features", "assertions, logging and statistics on the hot path"}, rule_debug},
	{{"noalloc-reuse", "code in the non-allocating alias reused within one echo"},
	 rule_noalloc},
	{{"idle-and-interrupts", "how the traffic window is spent"}, rule_idle},
};

const xb_triage_rule *triage_rules(size_t *n)
{
	static xb_triage_rule r[sizeof rules / sizeof *rules];
	for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
		r[i] = rules[i].r;
	*n = sizeof rules / sizeof *rules;
	return r;
}

/* While every fetch goes to the flash, the time a routine takes says more about its fetches
 * than about its work: the rules that weigh the code by its share of the busy time are kept
 * to notes until the fetch path is fixed. */
static void cap_distorted(tctx *c)
{
	static const char *const weighed[] = {"conflicting-sets", "byte-loops", "debug-features",
					      "optimisation", NULL};
	for (size_t i = 0; i < c->out->n; i++) {
		xb_finding *f = &c->out->f[i];
		int w = 0;
		for (size_t k = 0; weighed[k]; k++)
			w |= strcmp(f->rule, weighed[k]) == 0;
		if (!w || f->severity <= XB_SEV_NOTE)
			continue;
		evidence(f, "kept to a note: %s, so the shares of the busy time are distorted "
			 "(was %s; fix the fetch path first, then triage again)",
			 c->fetch_bound, triage_severity_name(f->severity));
		f->severity = XB_SEV_NOTE;
	}
}

/* Most of the byte-loop time in routines that have a word path, while packet buffers are
 * misaligned: the buffers send the copies down the byte path, and aligning them is the fix
 * (the buffers finding); the byte loops are their symptom. */
static void cap_byte_paths(tctx *c)
{
	for (size_t i = 0; i < c->out->n; i++) {
		xb_finding *f = &c->out->f[i];
		if (strcmp(f->rule, "byte-loops") != 0 || f->severity <= XB_SEV_NOTE)
			continue;
		evidence(f, "kept to a note: %.1f of the %.1f %% are in routines with a word path "
			 "while packet buffers are misaligned (buffers): align them first (was %s)",
			 c->bytes_word_path, c->bytes_total, triage_severity_name(f->severity));
		f->severity = XB_SEV_NOTE;
	}
}

/* Most severe first; equal severities keep the order the rules made them in. */
static void sort_findings(xb_triage *t)
{
	for (size_t i = 1; i < t->n; i++) {
		xb_finding v = t->f[i];
		size_t j = i;
		while (j > 0 && t->f[j - 1].severity < v.severity) {
			t->f[j] = t->f[j - 1];
			j--;
		}
		t->f[j] = v;
	}
}

int triage_run(const xb_triage_in *in, xb_triage *out, xb_err *err)
{
	memset(out, 0, sizeof *out);
	if (!in->img || !in->tg)
		return xb_fail(err, "triage needs an image and a target");
	tctx c = {.in = in, .out = out};
	samples_init(&c.awake);
	if (in->samples && in->samples->n) {
		for (size_t i = 0; i < in->samples->n; i++) {
			const xb_sample *s = &in->samples->s[i];
			if (!(s->flags & XB_SAMPLE_IDLE)) {
				c.busy_all++;
				if (s->flags & XB_SAMPLE_SLEEP)
					c.sleeping++;
			}
			if (!(s->flags & XB_SAMPLE_SLEEP))
				samples_push(&c.awake, s->pc, s->flags);
		}
		c.awake.busy_seconds = in->samples->busy_seconds;
		c.awake.idle_seconds = in->samples->idle_seconds;
		profile_build(&c.prof, in->img, &c.awake, in->tg->cache.line);
		c.have_prof = 1;
		c.busy = c.busy_all - c.sleeping;
		for (size_t i = 0; i < c.awake.n; i++) {
			const xb_sample *s = &c.awake.s[i];
			uint32_t off;
			enum xb_alias_mode m;
			if (!(s->flags & XB_SAMPLE_IDLE) && target_decode_xip(in->tg, s->pc, &off, &m))
				c.by_mode[m]++;
		}
	}
	out->busy_samples = c.busy;
	if (in->trace)
		trace_lines(in->trace, in->tg, &c.el);
	for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
		rules[i].fn(&c);
	if (c.fetch_bound)
		cap_distorted(&c);
	if (c.misaligned_buffers && c.bytes_word_path >= c.bytes_total / 2)
		cap_byte_paths(&c);
	sort_findings(out);
	if (c.have_prof)
		profile_free(&c.prof);
	samples_free(&c.awake);
	return 0;
}

void triage_free(xb_triage *t)
{
	for (size_t i = 0; i < t->n; i++) {
		xb_finding *f = &t->f[i];
		free(f->summary);
		for (size_t k = 0; k < f->nevidence; k++)
			free(f->evidence[k]);
		free(f->evidence);
		free(f->gain);
		free(f->fix);
		free(f->action);
	}
	free(t->f);
	for (size_t i = 0; i < t->nskipped; i++)
		free(t->skipped[i].why);
	free(t->skipped);
	memset(t, 0, sizeof *t);
}

/* ---- Two builds side by side ---- */

typedef struct qname {
	char *name;
	size_t index;
} qname;

static int cmp_qname(const void *a, const void *b)
{
	return strcmp(((const qname *)a)->name, ((const qname *)b)->name);
}

/* The image's functions (aliases left out) by qualified name, sorted. */
static qname *qnames(const xb_image *img, size_t *n)
{
	qname *q = xmalloc((img->nfuncs + 1) * sizeof *q);
	size_t k = 0;
	for (size_t i = 0; i < img->nfuncs; i++)
		if (img->funcs[i].alias_of < 0 && !img->funcs[i].is_veneer)
			q[k++] = (qname){image_qualified_name(img, &img->funcs[i]), i};
	qsort(q, k, sizeof *q, cmp_qname);
	*n = k;
	return q;
}

static const xb_finding *worst_of(const xb_triage *t, const char *rule)
{
	for (size_t i = 0; i < t->n; i++) /* most severe first */
		if (!strcmp(t->f[i].rule, rule))
			return &t->f[i];
	return NULL;
}

static int by_growth(const void *a, const void *b)
{
	const xb_func_change *x = a, *y = b;
	int64_t gx = (int64_t)x->new_size - x->old_size, gy = (int64_t)y->new_size - y->old_size;
	if (gx != gy)
		return gx > gy ? -1 : 1;
	return strcmp(x->name, y->name);
}

void triage_compare(const xb_image *old_img, const xb_image *new_img, const xb_target *tg,
		    const xb_triage *old_t, const xb_triage *new_t, xb_triage_compare *out)
{
	memset(out, 0, sizeof *out);
	size_t nr;
	const xb_triage_rule *r = triage_rules(&nr);
	for (size_t i = 0; i < nr; i++) {
		const xb_finding *o = worst_of(old_t, r[i].id), *n = worst_of(new_t, r[i].id);
		if ((!o && !n) || (o && n && o->severity == n->severity))
			continue;
		out->changes = xrealloc(out->changes, (out->nchanges + 1) * sizeof *out->changes);
		out->changes[out->nchanges++] = (xb_triage_change){
			r[i].id, o ? (int)o->severity : -1, n ? (int)n->severity : -1,
			o ? o->summary : NULL, n ? n->summary : NULL};
	}
	size_t no, nn;
	qname *qo = qnames(old_img, &no), *qn = qnames(new_img, &nn);
	for (size_t i = 0; i < no; i++)
		if (old_img->funcs[qo[i].index].region == XB_REGION_FLASH)
			out->old_flash += old_img->funcs[qo[i].index].size;
	for (size_t k = 0; k < nn; k++) {
		const xb_function *f = &new_img->funcs[qn[k].index];
		if (f->region == XB_REGION_FLASH)
			out->new_flash += f->size;
		qname key = {qn[k].name, 0};
		qname *m = bsearch(&key, qo, no, sizeof *qo, cmp_qname);
		if (!m) {
			out->added++;
			continue;
		}
		out->both++;
		const xb_function *g = &old_img->funcs[m->index];
		xb_func_change ch = {qn[k].name, g->addr, f->addr, g->size, f->size,
				     old_img->libraries[g->library].name,
				     new_img->libraries[f->library].name};
		if (f->size > g->size) {
			out->grew = xrealloc(out->grew, (out->ngrew + 1) * sizeof *out->grew);
			out->grew[out->ngrew++] = ch;
		} else if (f->size < g->size) {
			out->shrank++;
		}
		if (f->addr != g->addr) {
			out->moved++;
			out->moved_sets += target_set_of(tg, f->addr) != target_set_of(tg, g->addr);
		}
		if (strcmp(ch.old_library, ch.new_library) != 0) {
			out->relibbed = xrealloc(out->relibbed, (out->nrelibbed + 1) * sizeof *out->relibbed);
			out->relibbed[out->nrelibbed++] = ch;
		}
	}
	out->removed = no - out->both;
	if (out->ngrew > 1)
		qsort(out->grew, out->ngrew, sizeof *out->grew, by_growth);
	/* the names stay with the compare: the changes point into them */
	out->names = xmalloc((nn + 1) * sizeof *out->names);
	for (size_t k = 0; k < nn; k++)
		out->names[out->nnames++] = qn[k].name;
	for (size_t i = 0; i < no; i++)
		free(qo[i].name);
	free(qo);
	free(qn);
}

void triage_compare_free(xb_triage_compare *c)
{
	for (size_t i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	free(c->changes);
	free(c->grew);
	free(c->relibbed);
	memset(c, 0, sizeof *c);
}
