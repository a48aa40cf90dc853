/* util: allocation that never returns NULL, error messages, small file helpers. */
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int xb_fail(xb_err *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void out_of_memory(size_t n)
{
	fprintf(stderr, "xipbench: out of memory (asked for %zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t count, size_t n)
{
	void *p = calloc(count ? count : 1, n ? n : 1);
	if (!p)
		out_of_memory(count * n);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* Formats into a new string. The first pass measures into a small stack buffer (not NULL:
 * some compilers warn about a null destination under sanitizers). */
__attribute__((format(printf, 1, 0), nonnull(1))) static char *xvasprintf(const char *fmt, va_list ap)
{
	char small[256];
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0)
		n = 0;
	char *p = xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof small)
		memcpy(p, small, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, again);
	va_end(again);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void xb_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	void **p = pp;
	if (need <= *cap)
		return;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	*p = xrealloc(*p, n * elem);
	*cap = n;
}

int xb_read_file(const char *path, char **out, size_t *len, xb_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return xb_fail(err, "%s: %s", path, strerror(errno));
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		xb_grow(&buf, &cap, n + 65536 + 1, 1);
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return xb_fail(err, "%s: read error", path);
	}
	buf[n] = 0;
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

int xb_write_file_atomic(const char *path, const void *data, size_t len, xb_err *err)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		xb_fail(err, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			xb_fail(err, "%s: %s", tmp, strerror(errno));
			close(fd);
			unlink(tmp);
			free(tmp);
			return -1;
		}
		p += w;
		left -= (size_t)w;
	}
	if (fsync(fd) != 0 || close(fd) != 0) {
		xb_fail(err, "%s: %s", tmp, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (rename(tmp, path) != 0) {
		xb_fail(err, "%s: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int xb_mkdirs(const char *path, xb_err *err)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			xb_fail(err, "%s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		*s = '/';
	}
	if (mkdir(p, 0755) != 0 && errno != EEXIST) {
		xb_fail(err, "%s: %s", p, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

void sb_append(xb_strbuf *sb, const char *s, size_t n)
{
	xb_grow(&sb->buf, &sb->cap, sb->len + n + 1, 1);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
}

void sb_puts(xb_strbuf *sb, const char *s)
{
	sb_append(sb, s, strlen(s));
}

void sb_printf(xb_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	sb_puts(sb, p);
	free(p);
}

void sb_free(xb_strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

int xb_parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

void sb_json_string(xb_strbuf *sb, const char *s)
{
	sb_puts(sb, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_printf(sb, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			sb_printf(sb, "\\u%04x", *p);
		else
			sb_append(sb, (const char *)p, 1);
	}
	sb_puts(sb, "\"");
}

void xb_json_string(FILE *f, const char *s)
{
	xb_strbuf sb = {0};
	sb_json_string(&sb, s);
	fwrite(sb.buf, 1, sb.len, f);
	sb_free(&sb);
}

int xb_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int xb_parse_hex(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	if (n == 0)
		return -1;
	uint64_t v = 0;
	int over = 0;
	for (size_t i = 0; i < n; i++) {
		int d = xb_hex_digit((unsigned char)s[i]);
		if (d < 0)
			return -1;
		if (v > (max - (uint64_t)d) >> 4)
			over = 1; /* keep scanning: a bad digit later is the better message */
		else
			v = v << 4 | (uint64_t)d;
	}
	if (over)
		return -2;
	*out = v;
	return 0;
}

void xb_quote(char *dst, size_t cap, const char *s, size_t n)
{
	size_t max = cap - 4, k = 0;
	for (size_t i = 0; i < n && k < max; i++) {
		unsigned char c = (unsigned char)s[i];
		dst[k++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	if (n > max) {
		memcpy(dst + k, "...", 3);
		k += 3;
	}
	dst[k] = 0;
}

char *xb_cache_path(const char *rel)
{
	const char *x = getenv("XDG_CACHE_HOME");
	if (x && *x == '/')
		return xasprintf("%s/xipbench/%s", x, rel);
	const char *home = getenv("HOME");
	return xasprintf("%s/.cache/xipbench/%s", home && *home ? home : "/tmp", rel);
}

char *xb_data_path(const char *rel)
{
	const char *env = getenv("XIPBENCH_DATA");
	if (env && *env) {
		char *p = xasprintf("%s/%s", env, rel);
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		const char *tries[] = {"%s/../%s", "%s/%s", "%s/../share/xipbench/%s"};
		for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
			char *p = xasprintf(tries[i], exe, rel);
			if (access(p, R_OK) == 0)
				return p;
			free(p);
		}
	}
#ifdef XB_SOURCE_DIR
	char *p = xasprintf("%s/%s", XB_SOURCE_DIR, rel);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
#endif
	return NULL;
}

const char *xb_grouped(char *buf, size_t cap, double v)
{
	char d[40];
	if (!isfinite(v)) {
		snprintf(buf, cap, "-");
		return buf;
	}
	int n = snprintf(d, sizeof d, "%.0f", fabs(v)), k = 0;
	if (v <= -0.5 && (size_t)k + 3 < cap) {
		memcpy(buf, "\u2212", 3);
		k = 3;
	}
	for (int i = 0; i < n && (size_t)k + 2 < cap; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = d[i];
	}
	buf[k] = 0;
	return buf;
}

int xb_parse_ipv4(const char *s, uint8_t out[4])
{
	struct in_addr a;
	if (!s || inet_pton(AF_INET, s, &a) != 1)
		return -1;
	memcpy(out, &a.s_addr, 4); /* network order: the bytes as written */
	return 0;
}

int xb_on_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		return 0;
	for (const char *p = path; *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *f = xasprintf("%.*s/%s", (int)n, p, name);
		int ok = n && access(f, X_OK) == 0;
		free(f);
		if (ok)
			return 1;
		p += n + (colon != NULL);
	}
	return 0;
}

int xb_each_line(const char *text, size_t len, int (*fn)(void *ctx, char *line, int lineno),
		 int (*on_nul)(void *ctx, int lineno), void *ctx)
{
	char *buf = xmalloc(len + 1);
	memcpy(buf, text, len);
	buf[len] = 0;
	int rc = 0, line = 0;
	for (size_t pos = 0; pos < len || len == 0;) {
		size_t end = pos;
		while (end < len && buf[end] != '\n')
			end++;
		buf[end] = 0;
		line++;
		rc = memchr(buf + pos, 0, end - pos) ? on_nul(ctx, line) : fn(ctx, buf + pos, line);
		if (rc || end >= len)
			break;
		pos = end + 1;
	}
	free(buf);
	return rc;
}
