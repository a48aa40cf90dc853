/* keys: key names, parsing one key, and key scripts (see keys.h). */
#include "keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SCRIPT_LINE_MAX 1024
#define KEY_NAME_MAX 16 /* the longest <Name> inside the brackets */

/* Named keys: the names key_name writes, then aliases that only parse. */
static const struct {
	const char *name;
	int key;
	int alias;
} named_keys[] = {
	{"Tab", XB_KEY_TAB},
	{"Enter", XB_KEY_ENTER},
	{"Esc", XB_KEY_ESC},
	{"BS", XB_KEY_BACKSPACE},
	{"Space", ' '},
	{"lt", '<'},
	{"Up", XB_KEY_UP},
	{"Down", XB_KEY_DOWN},
	{"Left", XB_KEY_LEFT},
	{"Right", XB_KEY_RIGHT},
	{"PageUp", XB_KEY_PAGE_UP},
	{"PageDown", XB_KEY_PAGE_DOWN},
	{"Home", XB_KEY_HOME},
	{"End", XB_KEY_END},
	{"Insert", XB_KEY_INSERT},
	{"Del", XB_KEY_DELETE},
	{"S-Tab", XB_KEY_BACKTAB},
	{"Resize", XB_KEY_RESIZE},
	{"Mouse", XB_KEY_MOUSE},
	/* aliases */
	{"CR", XB_KEY_ENTER, 1},
	{"Return", XB_KEY_ENTER, 1},
	{"Escape", XB_KEY_ESC, 1},
	{"Backspace", XB_KEY_BACKSPACE, 1},
	{"Delete", XB_KEY_DELETE, 1},
	{"PgUp", XB_KEY_PAGE_UP, 1},
	{"PgDn", XB_KEY_PAGE_DOWN, 1},
	{"gt", '>', 1},
	{"Colon", ':', 1},
	{"Hash", '#', 1},
};
#define NNAMED (sizeof named_keys / sizeof named_keys[0])

int key_is_char(int key)
{
	if (key < 0x20 || key == 0x7F || (key >= 0x80 && key < 0xA0))
		return 0;
	if (key >= 0xD800 && key <= 0xDFFF)
		return 0;
	return key < 0x110000;
}

int key_utf8(const char *s, size_t n, int *cp)
{
	if (n == 0)
		return -1;
	const unsigned char *u = (const unsigned char *)s;
	unsigned char b = u[0];
	int len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3
		: (b & 0xF8) == 0xF0 ? 4 : 0;
	if (len == 0 || (size_t)len > n)
		return -1;
	int c = len == 1 ? b : b & (0x7F >> len);
	for (int i = 1; i < len; i++) {
		if ((u[i] & 0xC0) != 0x80)
			return -1;
		c = c << 6 | (u[i] & 0x3F);
	}
	static const int min[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (c < min[len] || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
		return -1;
	*cp = c;
	return len;
}

/* UTF-8 of a valid code point; returns the length (out has room for 5 bytes). */
static int utf8_encode(int c, char *out)
{
	unsigned u = (unsigned)c;
	int n;
	if (u < 0x80) {
		out[0] = (char)u;
		n = 1;
	} else if (u < 0x800) {
		out[0] = (char)(0xC0 | u >> 6);
		out[1] = (char)(0x80 | (u & 0x3F));
		n = 2;
	} else if (u < 0x10000) {
		out[0] = (char)(0xE0 | u >> 12);
		out[1] = (char)(0x80 | ((u >> 6) & 0x3F));
		out[2] = (char)(0x80 | (u & 0x3F));
		n = 3;
	} else {
		out[0] = (char)(0xF0 | u >> 18);
		out[1] = (char)(0x80 | ((u >> 12) & 0x3F));
		out[2] = (char)(0x80 | ((u >> 6) & 0x3F));
		out[3] = (char)(0x80 | (u & 0x3F));
		n = 4;
	}
	out[n] = 0;
	return n;
}

const char *key_name(int key, char *buf, size_t cap)
{
	char tmp[24];
	if (!cap)
		return buf;
	if (key == '\n')
		key = XB_KEY_ENTER; /* Ctrl-J */
	for (size_t i = 0; i < NNAMED; i++)
		if (named_keys[i].key == key && !named_keys[i].alias) {
			snprintf(tmp, sizeof tmp, "<%s>", named_keys[i].name);
			goto out;
		}
	if (key >= XB_KEY_F1 && key <= XB_KEY_F12)
		snprintf(tmp, sizeof tmp, "<F%d>", key - XB_KEY_F1 + 1);
	else if (key >= 1 && key <= 26)
		snprintf(tmp, sizeof tmp, "<C-%c>", 'a' + key - 1);
	else if (key >= 27 && key < 32)
		snprintf(tmp, sizeof tmp, "<C-%c>", '@' + key);
	else if (key_is_char(key))
		utf8_encode(key, tmp);
	else
		snprintf(tmp, sizeof tmp, "<0x%X>", (unsigned)key);
out:
	snprintf(buf, cap, "%s", tmp);
	return buf;
}

/* The key of a name between < and > (n bytes, not NUL-terminated), or -1. */
static int key_of_name(const char *s, size_t n)
{
	for (size_t i = 0; i < NNAMED; i++)
		if (strlen(named_keys[i].name) == n && strncasecmp(named_keys[i].name, s, n) == 0)
			return named_keys[i].key;
	if ((s[0] == 'F' || s[0] == 'f') && n >= 2 && n <= 3) {
		int f = 0;
		for (size_t i = 1; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return -1;
			f = f * 10 + (s[i] - '0');
		}
		if (s[1] == '0' || f < 1 || f > 12)
			return -1;
		return XB_KEY_F1 + f - 1;
	}
	if (n == 3 && (s[0] == 'C' || s[0] == 'c') && s[1] == '-') {
		char c = s[2];
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c == 'J' || c == 'M')
			return XB_KEY_ENTER;
		if (c >= 'A' && c <= '_')
			return c - '@';
	}
	return -1;
}

int key_parse(const char *s, int *key, size_t *len)
{
	if (!s || !*s)
		return -1;
	if (*s == '<') {
		const char *gt = NULL;
		for (size_t i = 1; i <= KEY_NAME_MAX + 1 && s[i]; i++)
			if (s[i] == '>') {
				gt = s + i;
				break;
			}
		if (!gt || gt == s + 1)
			return -1;
		int k = key_of_name(s + 1, (size_t)(gt - s - 1));
		if (k < 0)
			return -1;
		*key = k;
		*len = (size_t)(gt - s) + 1;
		return 0;
	}
	int c;
	int n = key_utf8(s, strlen(s), &c);
	if (n < 0 || !key_is_char(c))
		return -1;
	*key = c;
	*len = (size_t)n;
	return 0;
}

/* ---- Key scripts ---- */

static void script_push(xb_script *s, size_t *cap, int key, char *command, unsigned line)
{
	if (s->n == *cap)
		xb_grow(&s->items, cap, s->n + 1, sizeof *s->items);
	s->items[s->n++] = (xb_script_item){.key = key, .command = command, .line = line};
}

/* Checks that line[0..n) is printable UTF-8 or tabs; on failure, says which byte. */
static int check_bytes(const char *name, unsigned line, const char *p, size_t n, xb_err *err)
{
	unsigned col = 1;
	for (size_t i = 0; i < n; col++) {
		unsigned char b = (unsigned char)p[i];
		if (b == '\t') {
			i++;
			continue;
		}
		int c;
		int k = key_utf8(p + i, n - i, &c);
		if (k < 0)
			return xb_fail(err, "%s:%u: column %u: byte 0x%02X is not valid UTF-8", name,
				       line, col, b);
		if (!key_is_char(c)) {
			if (k == 1)
				return xb_fail(err, "%s:%u: column %u: control byte 0x%02X (write keys as "
						    "<Names>: <Tab>, <C-a> ...)",
					       name, line, col, b);
			return xb_fail(err, "%s:%u: column %u: control character U+%04X", name,
				       line, col, (unsigned)c);
		}
		i += (size_t)k;
	}
	return 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* One line of keys (NUL-terminated, bytes already checked). */
static int parse_keys(xb_script *s, size_t *cap, const char *name, unsigned line,
		      const char *p, xb_err *err)
{
	while (*p) {
		if (is_blank(*p)) {
			p++;
			continue;
		}
		int key;
		size_t n;
		if (key_parse(p, &key, &n) != 0) {
			const char *gt = strchr(p, '>');
			char shown[48];
			if (*p != '<' || !gt)
				return xb_fail(err, "%s:%u: '<' without '>' (write the key '<' as <lt>)",
					       name, line);
			xb_quote(shown, sizeof shown, p, (size_t)(gt - p) + 1);
			return xb_fail(err, "%s:%u: unknown key '%s' (keys are characters and "
					    "<Names> such as <Enter>, <Up>, <C-l>, <F1>)",
				       name, line, shown);
		}
		if (key == XB_KEY_RESIZE || key == XB_KEY_MOUSE) {
			char kn[24];
			return xb_fail(err, "%s:%u: %s is an event, not a key a script can send", name,
				       line, key_name(key, kn, sizeof kn));
		}
		script_push(s, cap, key, NULL, line);
		p += n;
	}
	return 0;
}

int script_parse(xb_script *s, const char *name, const char *text, size_t len,
		 xb_script_check_fn check, void *ctx, xb_err *err)
{
	memset(s, 0, sizeof *s);
	xb_script out = {0};
	size_t cap = 0;
	const char *p = text, *end = text + len;
	unsigned line = 0;
	char buf[SCRIPT_LINE_MAX + 1];
	while (p < end) {
		line++;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *next = nl ? nl + 1 : end;
		if (n && p[n - 1] == '\r')
			n--;
		if (n > SCRIPT_LINE_MAX) {
			xb_fail(err, "%s:%u: line longer than %d bytes", name, line, SCRIPT_LINE_MAX);
			goto fail;
		}
		if (check_bytes(name, line, p, n, err))
			goto fail;
		memcpy(buf, p, n);
		buf[n] = 0;
		p = next;
		char *b = buf;
		while (is_blank(*b))
			b++;
		char *e = b + strlen(b);
		while (e > b && is_blank(e[-1]))
			*--e = 0;
		if (!*b || *b == '#')
			continue;
		if (*b != ':') {
			if (parse_keys(&out, &cap, name, line, b, err))
				goto fail;
			continue;
		}
		b++;
		while (is_blank(*b))
			b++;
		if (!*b) {
			xb_fail(err, "%s:%u: ':' without a command", name, line);
			goto fail;
		}
		if (check) {
			char why[256] = "";
			if (check(ctx, b, why, sizeof why) != 0) {
				char shown[64];
				xb_quote(shown, sizeof shown, b, strlen(b));
				if (why[0])
					xb_fail(err, "%s:%u: %s", name, line, why);
				else
					xb_fail(err, "%s:%u: bad command ':%s'", name, line, shown);
				goto fail;
			}
		}
		script_push(&out, &cap, XB_KEY_NONE, xstrdup(b), line);
	}
	out.name = xstrdup(name);
	*s = out;
	return 0;
fail:
	script_free(&out);
	return -1;
}

int script_load(xb_script *s, const char *path, xb_script_check_fn check, void *ctx,
		xb_err *err)
{
	memset(s, 0, sizeof *s);
	char *text;
	size_t len;
	if (xb_read_file(path, &text, &len, err))
		return -1;
	int rc = script_parse(s, path, text, len, check, ctx, err);
	free(text);
	return rc;
}

void script_free(xb_script *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i].command);
	free(s->items);
	free(s->name);
	memset(s, 0, sizeof *s);
}
