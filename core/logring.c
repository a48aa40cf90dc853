/* logring: the session's log lines in a fixed ring, and byte streams cut into lines (see
 * logring.h). */
#include "logring.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define LOGRING_SOURCES 3

void logring_init(xb_logring *r, size_t cap)
{
	memset(r, 0, sizeof *r);
	r->cap = cap ? cap : 1;
	r->lines = xcalloc(r->cap, sizeof *r->lines);
}

void logring_free(xb_logring *r)
{
	free(r->lines);
	memset(r, 0, sizeof *r);
}

/* Length of an ANSI escape sequence at s (ESC [ parameters final-byte, or ESC and one
 * character), at most n bytes; 0 when s does not start one. */
static size_t logring_escape_len(const unsigned char *s, size_t n)
{
	if (n == 0 || s[0] != 0x1B)
		return 0;
	if (n < 2)
		return 1;
	if (s[1] != '[')
		return 2;
	size_t i = 2;
	while (i < n && s[i] >= 0x20 && s[i] <= 0x3F)
		i++; /* parameter and intermediate bytes */
	return i < n && s[i] >= 0x40 && s[i] <= 0x7E ? i + 1 : i;
}

/* The length of s[0..n) without a UTF-8 sequence cut at its end. */
static size_t logring_whole_chars(const char *s, size_t n)
{
	size_t start = n, back = 0;
	while (start > 0 && back < 4 && ((unsigned char)s[start - 1] & 0xC0) == 0x80) {
		start--;
		back++;
	}
	if (start == 0)
		return n;
	unsigned char lead = (unsigned char)s[start - 1];
	size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
	if (need == 1)
		return n; /* ASCII (or stray continuation bytes, drawn as '?' anyway) */
	return back + 1 >= need ? n : start - 1;
}

/* Zephyr's log lines carry their level as "<err>" or "<wrn>": the board's errors show as
 * errors. */
static int logring_uart_level(const char *text)
{
	if (strstr(text, "<err>"))
		return XB_LOG_ERROR;
	if (strstr(text, "<wrn>"))
		return XB_LOG_WARN;
	return XB_LOG_INFO;
}

/* Adds one line of n bytes (no newline inside): escape sequences dropped, control
 * characters other than tab shown as '?', cut at a character boundary when too long
 * (cut is also set when the text was cut before it got here). */
static void logring_push(xb_logring *r, uint64_t t_ns, int source, int level,
			 const char *text, size_t n, int cut)
{
	xb_log_line *l = &r->lines[r->head];
	const unsigned char *s = (const unsigned char *)text;
	size_t len = 0;
	for (size_t i = 0; i < n;) {
		size_t esc = logring_escape_len(s + i, n - i);
		if (esc) {
			i += esc;
			continue;
		}
		if (len == XB_LOGRING_LINE) {
			cut = 1;
			break;
		}
		unsigned char b = s[i++];
		l->text[len++] = (char)(b < 0x20 && b != '\t' ? '?' : b == 0x7F ? '?' : b);
	}
	if (cut) {
		len = logring_whole_chars(l->text, len);
		memcpy(l->text + len, "...", 3);
		len += 3;
	}
	l->text[len] = 0;
	if (source == XB_LOG_UART && level == XB_LOG_INFO)
		level = logring_uart_level(l->text);
	l->t_ns = t_ns;
	l->seq = ++r->seq;
	l->source = (uint8_t)(source >= 0 && source < LOGRING_SOURCES ? source : XB_LOG_XIPBENCH);
	l->level = (uint8_t)(level >= XB_LOG_INFO && level <= XB_LOG_ERROR ? level : XB_LOG_INFO);
	r->head = (r->head + 1) % r->cap;
	if (r->n < r->cap)
		r->n++;
}

/* A line ended by '\n' loses the '\r' of a "\r\n" before it. */
static size_t logring_trim_cr(const char *s, size_t n)
{
	return n > 0 && s[n - 1] == '\r' ? n - 1 : n;
}

void logring_add(xb_logring *r, uint64_t t_ns, int source, int level, const char *text)
{
	if (!r->lines)
		return;
	if (!text)
		text = "";
	size_t n = strlen(text);
	if (n > 0 && text[n - 1] == '\n')
		n--;
	for (;;) {
		const char *nl = memchr(text, '\n', n);
		size_t k = nl ? (size_t)(nl - text) : n;
		logring_push(r, t_ns, source, level, text, logring_trim_cr(text, k), 0);
		if (!nl)
			break;
		text += k + 1;
		n -= k + 1;
	}
}

void logring_printf(xb_logring *r, uint64_t t_ns, int source, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char buf[XB_LOGRING_LINE * 2];
	int k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (k >= (int)sizeof buf) {
		/* longer than a line can keep: the cut is marked as for any long line */
		va_start(ap, fmt);
		char *big = NULL;
		if (vasprintf(&big, fmt, ap) < 0)
			big = NULL;
		va_end(ap);
		if (big) {
			logring_add(r, t_ns, source, level, big);
			free(big);
			return;
		}
	}
	logring_add(r, t_ns, source, level, buf);
}

void logring_bytes(xb_logring *r, uint64_t t_ns, int source, const uint8_t *bytes, size_t n)
{
	if (!r->lines)
		return;
	if (source < 0 || source >= LOGRING_SOURCES)
		source = XB_LOG_XIPBENCH;
	char *part = r->partial[source];
	size_t *len = &r->partial_len[source];
	for (size_t i = 0; i < n; i++) {
		uint8_t b = bytes[i];
		if (b == '\n') {
			size_t kept = *len < XB_LOGRING_LINE ? *len : XB_LOGRING_LINE;
			size_t k = *len <= XB_LOGRING_LINE ? logring_trim_cr(part, kept) : kept;
			logring_push(r, t_ns, source, XB_LOG_INFO, part, k, *len > XB_LOGRING_LINE);
			*len = 0;
			continue;
		}
		if (*len < XB_LOGRING_LINE)
			part[*len] = (char)b;
		/* past the end only the count grows (the line is cut); a '\r' of "\r\n" there
		 * does not count as text */
		if (*len < XB_LOGRING_LINE || b != '\r')
			if (*len <= XB_LOGRING_LINE)
				(*len)++;
	}
}

size_t logring_count(const xb_logring *r)
{
	return r->n;
}

const xb_log_line *logring_get(const xb_logring *r, size_t i)
{
	if (i >= r->n)
		return NULL;
	return &r->lines[(r->head + r->cap - r->n + i) % r->cap];
}

const char *logring_source_name(int source)
{
	switch (source) {
	case XB_LOG_XIPBENCH:
		return "xipbench";
	case XB_LOG_UART:
		return "uart";
	case XB_LOG_BUILD:
		return "build";
	}
	return "?";
}
