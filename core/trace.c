/* trace: in-memory fetch traces and their binary and text file forms. */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

/* Binary form: the 7 bytes "XBTRACE", a version byte, then LEB128 varint records:
 * 0 ends the stream, 1 marks an echo boundary, and v >= 2 is the next address as the
 * zigzag of (addr - prev - 2) plus 2, so the common sequential Thumb fetch is one byte. */
static const char trace_magic[7] = {'X', 'B', 'T', 'R', 'A', 'C', 'E'};
#define TRACE_VERSION 1
#define TRACE_END 0
#define TRACE_ECHO 1
#define TRACE_ADDR_BIAS 2
#define TRACE_MAX_RECORD (0xFFFFFFFFull + TRACE_ADDR_BIAS)
#define TRACE_MAX_VARINT 5 /* 35 bits hold the 33-bit largest record */

void trace_init(xb_trace *t)
{
	memset(t, 0, sizeof *t);
}

void trace_free(xb_trace *t)
{
	free(t->addr);
	free(t->echo);
	trace_init(t);
}

void trace_push(xb_trace *t, uint32_t addr)
{
	if (t->n == t->cap)
		xb_grow(&t->addr, &t->cap, t->n + 1, sizeof *t->addr);
	t->addr[t->n++] = addr;
}

void trace_mark_echo(xb_trace *t)
{
	if (t->necho == t->echo_cap)
		xb_grow(&t->echo, &t->echo_cap, t->necho + 1, sizeof *t->echo);
	t->echo[t->necho++] = t->n;
}

void trace_echo_range(const xb_trace *t, size_t i, size_t *begin, size_t *end)
{
	if (t->necho == 0) {
		*begin = 0;
		*end = t->n;
		return;
	}
	*begin = t->echo[i];
	*end = i + 1 < t->necho ? t->echo[i + 1] : t->n;
}

size_t trace_echo_count(const xb_trace *t)
{
	return t->necho ? t->necho : 1;
}

size_t trace_counted_from(const xb_trace *t)
{
	return t->necho ? t->echo[0] : 0;
}

static uint64_t trace_record_of(uint32_t prev, uint32_t addr)
{
	uint32_t u = addr - prev - TRACE_ADDR_BIAS;
	uint32_t zz = (u << 1) ^ (0u - (u >> 31));
	return (uint64_t)zz + TRACE_ADDR_BIAS;
}

static uint32_t trace_addr_of(uint32_t prev, uint64_t record)
{
	uint32_t zz = (uint32_t)(record - TRACE_ADDR_BIAS);
	uint32_t u = (zz >> 1) ^ (0u - (zz & 1));
	return prev + TRACE_ADDR_BIAS + u;
}

static size_t trace_put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

void trace_encode_binary(const xb_trace *t, xb_strbuf *out)
{
	uint8_t head[8];
	memcpy(head, trace_magic, sizeof trace_magic);
	head[7] = TRACE_VERSION;
	/* Worst case 5 bytes per record; reserve once rather than per record. */
	xb_grow(&out->buf, &out->cap, out->len + sizeof head + (t->n + t->necho) * 5 + 8, 1);
	memcpy(out->buf + out->len, head, sizeof head);
	out->len += sizeof head;
	uint8_t *p = (uint8_t *)out->buf + out->len;
	uint32_t prev = 0;
	size_t e = 0;
	for (size_t i = 0; i <= t->n; i++) {
		while (e < t->necho && t->echo[e] == i) {
			*p++ = TRACE_ECHO;
			e++;
		}
		if (i == t->n)
			break;
		p += trace_put_varint(p, trace_record_of(prev, t->addr[i]));
		prev = t->addr[i];
	}
	*p++ = TRACE_END;
	out->len = (size_t)(p - (uint8_t *)out->buf);
	out->buf[out->len] = 0;
}

void trace_encode_text(const xb_trace *t, xb_strbuf *out)
{
	static const char hex[] = "0123456789abcdef";
	sb_printf(out, "# xipbench trace: %zu fetches, %zu echo boundaries\n", t->n, t->necho);
	xb_grow(&out->buf, &out->cap, out->len + t->n * 11 + t->necho * 5 + 1, 1);
	char *p = out->buf + out->len;
	size_t e = 0;
	for (size_t i = 0; i <= t->n; i++) {
		while (e < t->necho && t->echo[e] == i) {
			memcpy(p, "echo\n", 5);
			p += 5;
			e++;
		}
		if (i == t->n)
			break;
		uint32_t a = t->addr[i];
		*p++ = '0';
		*p++ = 'x';
		for (int s = 28; s >= 0; s -= 4)
			*p++ = hex[(a >> s) & 15];
		*p++ = '\n';
	}
	out->len = (size_t)(p - out->buf);
	out->buf[out->len] = 0;
}

static int trace_write(const xb_trace *t, const char *path, int binary, xb_err *err)
{
	xb_strbuf sb = {0};
	if (binary)
		trace_encode_binary(t, &sb);
	else
		trace_encode_text(t, &sb);
	int rc = xb_write_file_atomic(path, sb.buf, sb.len, err);
	sb_free(&sb);
	return rc;
}

int trace_write_binary(const xb_trace *t, const char *path, xb_err *err)
{
	return trace_write(t, path, 1, err);
}

int trace_write_text(const xb_trace *t, const char *path, xb_err *err)
{
	return trace_write(t, path, 0, err);
}

static int trace_parse_binary(xb_trace *t, const uint8_t *data, size_t len, const char *name,
			      xb_err *err)
{
	if (len < 8)
		return xb_fail(err, "%s: byte %zu: truncated header", name, len);
	if (data[7] != TRACE_VERSION)
		return xb_fail(err, "%s: byte 7: unsupported binary trace version %u (this xipbench "
				    "reads version %u)",
			       name, data[7], TRACE_VERSION);
	/* Most records are one byte: reserving len entries avoids regrowth. */
	xb_grow(&t->addr, &t->cap, len - 8, sizeof *t->addr);
	uint32_t prev = 0;
	size_t i = 8;
	while (i < len) {
		size_t start = i;
		uint64_t v;
		uint8_t b = data[i++];
		if (b < 0x80) {
			v = b;
		} else {
			v = b & 0x7f;
			unsigned shift = 7;
			for (;;) {
				if (i == len)
					return xb_fail(err, "%s: byte %zu: truncated varint", name,
						       start);
				if (i - start == TRACE_MAX_VARINT)
					return xb_fail(err, "%s: byte %zu: overlong varint (more "
							    "than %d bytes)",
						       name, start, TRACE_MAX_VARINT);
				b = data[i++];
				v |= (uint64_t)(b & 0x7f) << shift;
				shift += 7;
				if (b < 0x80)
					break;
			}
			if (b == 0)
				return xb_fail(err, "%s: byte %zu: non-canonical varint (trailing "
						    "zero byte)",
					       name, start);
			if (v > TRACE_MAX_RECORD)
				return xb_fail(err, "%s: byte %zu: record value %llu out of range",
					       name, start, (unsigned long long)v);
		}
		if (v == TRACE_END) {
			if (i != len)
				return xb_fail(err, "%s: byte %zu: %zu bytes after the end marker",
					       name, i, len - i);
			return 0;
		}
		if (v == TRACE_ECHO) {
			trace_mark_echo(t);
			continue;
		}
		prev = trace_addr_of(prev, v);
		trace_push(t, prev);
	}
	return xb_fail(err, "%s: byte %zu: no end marker (truncated binary trace?)", name, len);
}

/* A line's text for an error message: printable, at most 40 characters. */
static int trace_parse_text(xb_trace *t, const char *s, size_t len, const char *name,
			    xb_err *err)
{
	xb_grow(&t->addr, &t->cap, len / 9 + 1, sizeof *t->addr);
	size_t line = 0;
	for (size_t pos = 0; pos < len;) {
		const char *p = s + pos;
		const char *nl = memchr(p, '\n', len - pos);
		const char *e = nl ? nl : s + len;
		pos = (size_t)(e - s) + 1;
		line++;
		const char *hash = memchr(p, '#', (size_t)(e - p));
		if (hash)
			e = hash;
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		size_t n = (size_t)(e - p);
		if (n == 0)
			continue;
		if (n == 4 && memcmp(p, "echo", 4) == 0) {
			trace_mark_echo(t);
			continue;
		}
		const char *d = p;
		if (n > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
			d += 2;
		uint64_t v = 0;
		int rc = xb_parse_hex(d, (size_t)(e - d), UINT32_MAX, &v);
		if (rc != 0) {
			char quoted[64];
			xb_quote(quoted, sizeof quoted, p, n);
			if (rc == -2)
				return xb_fail(err, "%s:%zu: address '%s' does not fit in 32 bits", name,
					       line, quoted);
			return xb_fail(err, "%s:%zu: bad hex address '%s' (expected one hex address, "
					    "'echo', or a # comment)",
				       name, line, quoted);
		}
		trace_push(t, (uint32_t)v);
	}
	return 0;
}

int trace_parse(xb_trace *t, const uint8_t *data, size_t len, const char *name, xb_err *err)
{
	trace_init(t);
	int rc;
	if (len >= sizeof trace_magic && memcmp(data, trace_magic, sizeof trace_magic) == 0)
		rc = trace_parse_binary(t, data, len, name, err);
	else
		rc = trace_parse_text(t, (const char *)data, len, name, err);
	if (rc)
		trace_free(t);
	return rc;
}

int trace_read_file(xb_trace *t, const char *path, xb_err *err)
{
	char *buf;
	size_t len;
	trace_init(t);
	if (xb_read_file(path, &buf, &len, err))
		return -1;
	int rc = trace_parse(t, (const uint8_t *)buf, len, path, err);
	free(buf);
	return rc;
}

static void trace_stream_put(xb_trace_stream *s, uint64_t v)
{
	uint8_t b[TRACE_MAX_VARINT + 1];
	size_t n = trace_put_varint(b, v);
	if (s->f && fwrite_unlocked(b, 1, n, s->f) != n)
		s->failed = 1;
}

int trace_stream_open(xb_trace_stream *s, FILE *f)
{
	s->f = f;
	s->prev = 0;
	s->failed = 0;
	uint8_t head[8];
	memcpy(head, trace_magic, sizeof trace_magic);
	head[7] = TRACE_VERSION;
	if (!f || fwrite(head, 1, sizeof head, f) != sizeof head)
		s->failed = 1;
	return s->failed ? -1 : 0;
}

void trace_stream_push(xb_trace_stream *s, uint32_t addr)
{
	uint64_t v = trace_record_of(s->prev, addr);
	s->prev = addr;
	if (v < 0x80) {
		if (s->f && putc_unlocked((int)v, s->f) == EOF)
			s->failed = 1;
		return;
	}
	trace_stream_put(s, v);
}

void trace_stream_mark_echo(xb_trace_stream *s)
{
	trace_stream_put(s, TRACE_ECHO);
}

int trace_stream_close(xb_trace_stream *s)
{
	trace_stream_put(s, TRACE_END);
	if (s->f && (fflush(s->f) != 0 || ferror(s->f)))
		s->failed = 1;
	return s->failed ? -1 : 0;
}
