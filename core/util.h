/* util: allocation that never returns NULL, error messages, small file helpers. */
#ifndef XB_UTIL_H
#define XB_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* An error a user can cause: one line naming the file, line or address concerned and
 * what was wrong. Functions that can fail take an `xb_err *` (may be NULL), return -1
 * on failure and fill it; they return 0 on success. */
typedef struct xb_err {
	char msg[512];
} xb_err;

/* Formats the message into err (no-op if err is NULL). Always returns -1 so that
 * `return xb_fail(err, ...)` reads naturally. */
int xb_fail(xb_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Allocation failure is not an input error: these print a message and abort. */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grows *p (element size elem) so that it holds at least need elements; *cap is
 * updated. Doubling, so amortised O(1) appends. */
void xb_grow(void *p, size_t *cap, size_t need, size_t elem);

/* Reads a whole file into a NUL-terminated buffer (*len excludes the NUL). The caller
 * frees *out. Fails with "PATH: <strerror>" on error. */
int xb_read_file(const char *path, char **out, size_t *len, xb_err *err);

/* Walks text (len bytes, not NUL-terminated) line by line: each line ('\n' ends one; the
 * text need not end with one; an empty text is one empty line) NUL-terminated in a copy
 * that fn may change, with its number from 1. fn returns 0 to go on; anything else stops
 * the walk and is returned. A line with a NUL byte in it goes to on_nul instead (the
 * caller's error for it), whose result is returned. */
int xb_each_line(const char *text, size_t len, int (*fn)(void *ctx, char *line, int lineno),
		 int (*on_nul)(void *ctx, int lineno), void *ctx);

/* Writes data to path atomically: a temporary file in the same folder, fsync, rename.
 * Either the old file or the whole new one exists afterwards. */
int xb_write_file_atomic(const char *path, const void *data, size_t len, xb_err *err);

/* mkdir -p. */
int xb_mkdirs(const char *path, xb_err *err);

/* A growable string (git's strbuf in miniature). buf is always NUL-terminated once
 * anything was appended; sb_free releases it. */
typedef struct xb_strbuf {
	char *buf;
	size_t len, cap;
} xb_strbuf;
void sb_append(xb_strbuf *sb, const char *s, size_t n);
void sb_puts(xb_strbuf *sb, const char *s);
void sb_printf(xb_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(xb_strbuf *sb);

/* Parses an unsigned integer in decimal or 0x-hex; the whole string must be used.
 * Returns 0 on success. */
int xb_parse_u64(const char *s, uint64_t *out);
/* A dotted IPv4 address into its four bytes as written (inet_pton): 0, or -1. */
int xb_parse_ipv4(const char *s, uint8_t out[4]);
/* 1 when an executable file name is in one of PATH's folders. */
int xb_on_path(const char *name);

/* Finds a data file shipped with xipbench (rel such as "targets/rp2040.target" or
 * "groups/default.groups"): $XIPBENCH_DATA/rel, then next to the running program (../rel,
 * rel, ../share/xipbench/rel), then the source tree it was built from. Returns a new
 * string, or NULL when none is readable. */
char *xb_data_path(const char *rel);
/* rel in the user's cache folder: $XDG_CACHE_HOME/xipbench/rel (default
 * ~/.cache/xipbench/rel); a new string. */
char *xb_cache_path(const char *rel);

/* Value of a hex digit, or -1. */
int xb_hex_digit(int c);

/* Parses s[0..n) as hex digits (no prefix) into *out. Returns 0, -1 when the text is empty
 * or holds a non-digit, -2 when the value is above max. */
int xb_parse_hex(const char *s, size_t n, uint64_t max, uint64_t *out);

/* Copies s[0..n) into dst (cap bytes, at least 8) for an error message: bounded with "..."
 * and control or non-ASCII bytes shown as '?', so the message stays one short line
 * whatever the input holds. */
void xb_quote(char *dst, size_t cap, const char *s, size_t n);
/* v rounded to a whole number with its thousands grouped ("21,344"; "\u22121,024" below
 * zero; "-" when not finite), in buf; returns buf. */
const char *xb_grouped(char *buf, size_t cap, double v);

/* JSON output helper: writes s as a JSON string literal (with quotes) to f. */
void xb_json_string(FILE *f, const char *s);
/* The same, appended to sb. */
void sb_json_string(xb_strbuf *sb, const char *s);

#endif
