/* profile: PC sample files (binary and text) and their aggregation per function, library and
 * cache line, with the idle window subtracted. */
#include "profile.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES_MAGIC "XIPBSMP1"
#define SAMPLES_VERSION 1u
#define SAMPLES_HEADER_BYTES 40u
#define SAMPLES_RECORD_BYTES 8u
#define SAMPLES_KNOWN_FLAGS (XB_SAMPLE_IDLE | XB_SAMPLE_SLEEP)
#define SAMPLE_DEBUG_STATE 0xFFFFFFFFu

void samples_init(xb_samples *s)
{
	memset(s, 0, sizeof *s);
}

void samples_free(xb_samples *s)
{
	free(s->s);
	memset(s, 0, sizeof *s);
}

void samples_push(xb_samples *s, uint32_t pc, uint32_t flags)
{
	xb_grow(&s->s, &s->cap, s->n + 1, sizeof *s->s);
	s->s[s->n++] = (xb_sample){.pc = pc, .flags = flags};
}

/* ---- little-endian helpers ---- */

static uint32_t samples_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t samples_get_u64(const uint8_t *p)
{
	return (uint64_t)samples_get_u32(p) | (uint64_t)samples_get_u32(p + 4) << 32;
}

static double samples_get_f64(const uint8_t *p)
{
	uint64_t bits = samples_get_u64(p);
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

static void samples_put_u32(xb_strbuf *sb, uint32_t v)
{
	char b[4] = {(char)(v & 0xff), (char)(v >> 8 & 0xff), (char)(v >> 16 & 0xff),
		     (char)(v >> 24 & 0xff)};
	sb_append(sb, b, 4);
}

static void samples_put_u64(xb_strbuf *sb, uint64_t v)
{
	samples_put_u32(sb, (uint32_t)v);
	samples_put_u32(sb, (uint32_t)(v >> 32));
}

static void samples_put_f64(xb_strbuf *sb, double d)
{
	uint64_t bits;
	memcpy(&bits, &d, sizeof bits);
	samples_put_u64(sb, bits);
}

static bool samples_seconds_ok(double d)
{
	return isfinite(d) && d >= 0;
}

/* ---- binary form ---- */

static int samples_parse_binary(xb_samples *out, const uint8_t *data, size_t len, const char *name,
				xb_err *err)
{
	if (len < SAMPLES_HEADER_BYTES)
		return xb_fail(err, "%s: truncated sample file header (%zu bytes, need %u)", name, len,
			       SAMPLES_HEADER_BYTES);
	uint32_t version = samples_get_u32(data + 8);
	if (version != SAMPLES_VERSION)
		return xb_fail(err, "%s: sample file version %u is not supported (this xipbench reads "
			       "version %u)", name, version, SAMPLES_VERSION);
	uint32_t reserved = samples_get_u32(data + 12);
	if (reserved != 0)
		return xb_fail(err, "%s: unknown header flags 0x%x (written by a newer xipbench?)",
			       name, reserved);
	double busy = samples_get_f64(data + 16), idle = samples_get_f64(data + 24);
	if (!samples_seconds_ok(busy) || !samples_seconds_ok(idle))
		return xb_fail(err, "%s: bad window length in the header (busy %g s, idle %g s)", name,
			       busy, idle);
	uint64_t count = samples_get_u64(data + 32);
	size_t body = len - SAMPLES_HEADER_BYTES;
	if (count > body / SAMPLES_RECORD_BYTES)
		return xb_fail(err, "%s: truncated: the header announces %llu samples, the file holds "
			       "%zu", name, (unsigned long long)count, body / SAMPLES_RECORD_BYTES);
	if (body != count * SAMPLES_RECORD_BYTES)
		return xb_fail(err, "%s: %zu stray bytes after the %llu samples", name,
			       body - (size_t)count * SAMPLES_RECORD_BYTES, (unsigned long long)count);
	out->busy_seconds = busy;
	out->idle_seconds = idle;
	const uint8_t *p = data + SAMPLES_HEADER_BYTES;
	for (uint64_t i = 0; i < count; i++, p += SAMPLES_RECORD_BYTES) {
		uint32_t flags = samples_get_u32(p + 4);
		if (flags & ~(uint32_t)SAMPLES_KNOWN_FLAGS)
			return xb_fail(err, "%s: sample %llu has unknown flags 0x%x", name,
				       (unsigned long long)i, flags);
		samples_push(out, samples_get_u32(p), flags);
	}
	return 0;
}

/* ---- text form ---- */

static int samples_parse_hex(const char *s, size_t n, uint32_t *out)
{
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	uint64_t v;
	int rc = xb_parse_hex(s, n, UINT32_MAX, &v);
	if (rc == 0)
		*out = (uint32_t)v;
	return rc;
}

static bool samples_word_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

typedef struct samples_token {
	const char *s;
	size_t n;
} samples_token;

static int samples_parse_seconds(const samples_token *t, double *out)
{
	char buf[64];
	if (t->n == 0 || t->n >= sizeof buf)
		return -1;
	memcpy(buf, t->s, t->n);
	buf[t->n] = 0;
	char *end;
	double d = strtod(buf, &end);
	if (*end || !samples_seconds_ok(d))
		return -1;
	*out = d;
	return 0;
}

static int samples_parse_line(xb_samples *out, const char *line, size_t n, uint32_t *window,
			      const char *name, int lineno, xb_err *err)
{
	samples_token t[3];
	int nt = 0;
	size_t i = 0;
	char q[48];
	while (i < n) {
		while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (i >= n || line[i] == '#')
			break;
		size_t start = i;
		while (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' &&
		       line[i] != '#')
			i++;
		if (nt == 3) {
			xb_quote(q, sizeof q, line + start, i - start);
			return xb_fail(err, "%s:%d: unexpected '%s' at the end of the line", name,
				       lineno, q);
		}
		t[nt++] = (samples_token){line + start, i - start};
	}
	if (nt == 0)
		return 0;
	if (nt == 1 && samples_word_is(t[0].s, t[0].n, "idle")) {
		*window = XB_SAMPLE_IDLE;
		return 0;
	}
	if (nt == 1 && samples_word_is(t[0].s, t[0].n, "busy")) {
		*window = 0;
		return 0;
	}
	bool busy_len = samples_word_is(t[0].s, t[0].n, "busy-seconds");
	if (busy_len || samples_word_is(t[0].s, t[0].n, "idle-seconds")) {
		double d;
		if (nt != 2 || samples_parse_seconds(&t[1], &d) != 0) {
			xb_quote(q, sizeof q, nt >= 2 ? t[1].s : "", nt >= 2 ? t[1].n : 0);
			return xb_fail(err, "%s:%d: bad window length '%s' (want seconds, e.g. "
				       "'%s 10.5')", name, lineno, q, busy_len ? "busy-seconds" :
				       "idle-seconds");
		}
		if (busy_len)
			out->busy_seconds = d;
		else
			out->idle_seconds = d;
		return 0;
	}
	uint32_t pc;
	int rc = samples_parse_hex(t[0].s, t[0].n, &pc);
	if (rc != 0) {
		xb_quote(q, sizeof q, t[0].s, t[0].n);
		return xb_fail(err, rc == -2 ? "%s:%d: number '%s' does not fit in 32 bits" :
				     "%s:%d: bad hex number '%s'", name, lineno, q);
	}
	uint32_t flags = *window;
	if (nt >= 2) {
		if (!samples_word_is(t[1].s, t[1].n, "sleep")) {
			xb_quote(q, sizeof q, t[1].s, t[1].n);
			return xb_fail(err, "%s:%d: unexpected '%s' after the sample (only 'sleep' "
				       "may follow a PC)", name, lineno, q);
		}
		flags |= XB_SAMPLE_SLEEP;
	}
	if (nt == 3) {
		xb_quote(q, sizeof q, t[2].s, t[2].n);
		return xb_fail(err, "%s:%d: unexpected '%s' at the end of the line", name, lineno,
			       q);
	}
	samples_push(out, pc, flags);
	return 0;
}

static int samples_parse_text(xb_samples *out, const uint8_t *data, size_t len, const char *name,
			      xb_err *err)
{
	const char *text = (const char *)data;
	uint32_t window = 0;
	int lineno = 0;
	size_t pos = 0;
	while (pos < len) {
		lineno++;
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		if (memchr(text + pos, 0, end - pos))
			return xb_fail(err, "%s:%d: NUL byte in a text sample file (a damaged binary "
				       "file?)", name, lineno);
		if (samples_parse_line(out, text + pos, end - pos, &window, name, lineno, err) != 0)
			return -1;
		pos = end + 1;
	}
	return 0;
}

int samples_parse(xb_samples *s, const uint8_t *data, size_t len, const char *name, xb_err *err)
{
	if (!name)
		name = "samples";
	xb_samples tmp;
	samples_init(&tmp);
	/* The first seven bytes decide: a damaged version digit must still read as a binary file
	 * with a clear message, not as a text file with a bad hex number. */
	int rc;
	if (len >= 7 && memcmp(data, SAMPLES_MAGIC, 7) == 0) {
		if (len < 8 || data[7] != (uint8_t)SAMPLES_MAGIC[7])
			rc = xb_fail(err, "%s: not an xipbench sample file of a known format (magic "
				     "'%.7s' with a different version)", name, SAMPLES_MAGIC);
		else
			rc = samples_parse_binary(&tmp, data, len, name, err);
	} else {
		rc = samples_parse_text(&tmp, data, len, name, err);
	}
	if (rc != 0) {
		samples_free(&tmp);
		return -1;
	}
	samples_free(s);
	*s = tmp;
	return 0;
}

int samples_read_file(xb_samples *s, const char *path, xb_err *err)
{
	char *data;
	size_t len;
	if (xb_read_file(path, &data, &len, err) != 0)
		return -1;
	int rc = samples_parse(s, (const uint8_t *)data, len, path, err);
	free(data);
	return rc;
}

int samples_write_binary(const xb_samples *s, const char *path, xb_err *err)
{
	xb_strbuf sb = {0};
	sb_append(&sb, SAMPLES_MAGIC, 8);
	samples_put_u32(&sb, SAMPLES_VERSION);
	samples_put_u32(&sb, 0);
	samples_put_f64(&sb, samples_seconds_ok(s->busy_seconds) ? s->busy_seconds : 0);
	samples_put_f64(&sb, samples_seconds_ok(s->idle_seconds) ? s->idle_seconds : 0);
	samples_put_u64(&sb, s->n);
	for (size_t i = 0; i < s->n; i++) {
		samples_put_u32(&sb, s->s[i].pc);
		samples_put_u32(&sb, s->s[i].flags & SAMPLES_KNOWN_FLAGS);
	}
	int rc = xb_write_file_atomic(path, sb.buf, sb.len, err);
	sb_free(&sb);
	return rc;
}

int samples_write_text(const xb_samples *s, const char *path, xb_err *err)
{
	xb_strbuf sb = {0};
	sb_puts(&sb, "# xipbench PC samples: one hex PC per line (docs/formats-samples.md)\n");
	if (samples_seconds_ok(s->busy_seconds) && s->busy_seconds > 0)
		sb_printf(&sb, "busy-seconds %.17g\n", s->busy_seconds);
	if (samples_seconds_ok(s->idle_seconds) && s->idle_seconds > 0)
		sb_printf(&sb, "idle-seconds %.17g\n", s->idle_seconds);
	uint32_t window = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint32_t w = s->s[i].flags & XB_SAMPLE_IDLE;
		if (w != window) {
			sb_puts(&sb, w ? "idle\n" : "busy\n");
			window = w;
		}
		sb_printf(&sb, "0x%08x%s\n", s->s[i].pc,
			  (s->s[i].flags & XB_SAMPLE_SLEEP) ? " sleep" : "");
	}
	int rc = xb_write_file_atomic(path, sb.buf, sb.len, err);
	sb_free(&sb);
	return rc;
}

/* ---- aggregation ---- */

/* Index of the function containing pc (the first of its aliases), or -1. funcs are sorted by
 * address; walking back from the last start <= pc stops once no function that long could
 * reach pc, so zero-size symbols and nested ones do not hide the enclosing function. */
static long profile_function_at(const xb_image *img, uint32_t pc, uint32_t max_size)
{
	size_t lo = 0, hi = img->nfuncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (img->funcs[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const xb_function *f = &img->funcs[i];
		if ((uint64_t)pc - f->addr >= max_size)
			break;
		if ((uint64_t)pc < (uint64_t)f->addr + f->size) {
			if (f->alias_of >= 0 && (size_t)f->alias_of < img->nfuncs)
				return f->alias_of;
			return (long)i;
		}
	}
	return -1;
}

typedef struct profile_hit {
	uint32_t line;
	long func;     /* -1: outside any function */
	uint32_t idle; /* 1 for an idle-window sample */
} profile_hit;

static int profile_hit_cmp(const void *a, const void *b)
{
	const profile_hit *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return (int)x->idle - (int)y->idle;
}

static double profile_net(double busy, double idle)
{
	return busy > idle ? busy - idle : 0;
}

void profile_build(xb_profile *p, const xb_image *img, const xb_samples *s, uint32_t line_size)
{
	memset(p, 0, sizeof *p);
	p->img = img;
	p->line_size = line_size ? line_size : 1;
	p->idle_scale = 1;
	if (s->busy_seconds > 0 && s->idle_seconds > 0 && samples_seconds_ok(s->busy_seconds) &&
	    samples_seconds_ok(s->idle_seconds))
		p->idle_scale = s->busy_seconds / s->idle_seconds;
	size_t nfuncs = img ? img->nfuncs : 0;
	size_t nlibs = img && img->libraries ? img->nlibraries : 0;
	p->func = xcalloc(nfuncs ? nfuncs : 1, sizeof *p->func);
	p->lib_net = xcalloc(nlibs ? nlibs : 1, sizeof *p->lib_net);

	uint32_t max_size = 0;
	for (size_t i = 0; i < nfuncs; i++)
		if (img->funcs[i].size > max_size)
			max_size = img->funcs[i].size;

	profile_hit *hits = xmalloc((s->n ? s->n : 1) * sizeof *hits);
	size_t nhits = 0;
	double idle_raw = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint32_t pc = s->s[i].pc, idle = (s->s[i].flags & XB_SAMPLE_IDLE) ? 1 : 0;
		long f = -1;
		if (pc != SAMPLE_DEBUG_STATE && nfuncs)
			f = profile_function_at(img, pc, max_size);
		if (idle) {
			idle_raw++;
			if (f >= 0)
				p->func[f].idle++;
		} else {
			p->busy_total++;
			if (f >= 0)
				p->func[f].busy++;
			else
				p->unattributed++;
		}
		/* The debug-state marker is no address: it has no cache line. */
		if (pc != SAMPLE_DEBUG_STATE)
			hits[nhits++] = (profile_hit){pc - pc % p->line_size, f, idle};
	}
	p->idle_total = idle_raw * p->idle_scale;

	/* One sort gives both tables: runs of equal line are the per-line counts, runs of equal
	 * (line, function) are one function's samples on one line. */
	qsort(hits, nhits, sizeof *hits, profile_hit_cmp);
	double *top1 = xcalloc(nfuncs ? nfuncs : 1, sizeof *top1);
	double *top2 = xcalloc(nfuncs ? nfuncs : 1, sizeof *top2);
	size_t cap = 0;
	for (size_t i = 0; i < nhits;) {
		size_t j = i;
		double line_busy = 0, line_idle = 0;
		while (j < nhits && hits[j].line == hits[i].line) {
			size_t k = j;
			double fb = 0;
			while (k < nhits && hits[k].line == hits[j].line && hits[k].func == hits[j].func) {
				if (hits[k].idle)
					line_idle++;
				else {
					line_busy++;
					fb++;
				}
				k++;
			}
			long f = hits[j].func;
			if (f >= 0 && fb > 0) {
				p->func[f].lines_sampled++;
				if (fb > top1[f]) {
					top2[f] = top1[f];
					top1[f] = fb;
				} else if (fb > top2[f]) {
					top2[f] = fb;
				}
			}
			j = k;
		}
		xb_grow(&p->lines, &cap, p->nlines + 1, sizeof *p->lines);
		double scaled = line_idle * p->idle_scale;
		p->lines[p->nlines++] = (xb_line_count){
			.line = hits[i].line,
			.busy = line_busy,
			.idle = scaled,
			.net = profile_net(line_busy, scaled),
		};
		i = j;
	}
	free(hits);

	for (size_t i = 0; i < nfuncs; i++) {
		xb_func_profile *fp = &p->func[i];
		fp->idle *= p->idle_scale;
		fp->net = profile_net(fp->busy, fp->idle);
		fp->per_byte = img->funcs[i].size ? fp->net / img->funcs[i].size : 0;
		fp->top2_share = fp->busy > 0 ? (top1[i] + top2[i]) / fp->busy : 0;
		p->net_total += fp->net;
		int lib = img->funcs[i].library;
		if (lib >= 0 && (size_t)lib < nlibs)
			p->lib_net[lib] += fp->net;
	}
	free(top1);
	free(top2);
}

void profile_free(xb_profile *p)
{
	free(p->func);
	free(p->lib_net);
	free(p->lines);
	memset(p, 0, sizeof *p);
}

double profile_line_net(const xb_profile *p, uint32_t line)
{
	size_t lo = 0, hi = p->nlines;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->lines[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nlines && p->lines[lo].line == line ? p->lines[lo].net : 0;
}
