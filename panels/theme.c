/* theme: elements, theme files and how a style looks at each colour depth (see theme.h). */
#include "theme.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	uint8_t mono; /* the element's attributes without colours */
} elements[XB_EL_COUNT] = {
	[XB_EL_NORMAL] = {"normal", 0},
	[XB_EL_DIM] = {"dim", XB_ATTR_DIM},
	[XB_EL_TITLE] = {"title", XB_ATTR_BOLD},
	[XB_EL_HEADER] = {"header", XB_ATTR_BOLD | XB_ATTR_UNDERLINE},
	[XB_EL_BORDER] = {"border", 0},
	[XB_EL_BORDER_FOCUS] = {"border.focus", XB_ATTR_BOLD},
	[XB_EL_SELECTED] = {"selected", XB_ATTR_REVERSE},
	[XB_EL_MATCH] = {"match", XB_ATTR_UNDERLINE},
	[XB_EL_STATUS] = {"status", XB_ATTR_REVERSE},
	[XB_EL_STATUS_VALUE] = {"status.value", XB_ATTR_REVERSE | XB_ATTR_BOLD},
	[XB_EL_TAB] = {"tab", 0},
	[XB_EL_TAB_ACTIVE] = {"tab.active", XB_ATTR_REVERSE},
	[XB_EL_MESSAGE] = {"message", 0},
	[XB_EL_PROMPT] = {"prompt", XB_ATTR_BOLD},
	[XB_EL_KEY] = {"key", XB_ATTR_BOLD},
	[XB_EL_GOOD] = {"good", XB_ATTR_BOLD},
	[XB_EL_WARNING] = {"warning", XB_ATTR_BOLD},
	[XB_EL_ALERT] = {"alert", XB_ATTR_BOLD | XB_ATTR_REVERSE},
	[XB_EL_HEAT_0] = {"heat.0", XB_ATTR_DIM},
	[XB_EL_HEAT_1] = {"heat.1", 0},
	[XB_EL_HEAT_2] = {"heat.2", 0},
	[XB_EL_HEAT_3] = {"heat.3", XB_ATTR_BOLD},
	[XB_EL_HEAT_4] = {"heat.4", XB_ATTR_BOLD},
	[XB_EL_HEAT_5] = {"heat.5", XB_ATTR_BOLD | XB_ATTR_REVERSE},
	[XB_EL_SET_EMPTY] = {"set.empty", XB_ATTR_DIM},
	[XB_EL_SET_ONE] = {"set.one", 0},
	[XB_EL_SET_TWO] = {"set.two", XB_ATTR_BOLD},
	[XB_EL_SET_OVER] = {"set.over", XB_ATTR_REVERSE},
	[XB_EL_CHART] = {"chart", 0},
	[XB_EL_CHART_AXIS] = {"chart.axis", XB_ATTR_DIM},
	[XB_EL_CHART_MARKER] = {"chart.marker", XB_ATTR_BOLD},
	[XB_EL_LOG_INFO] = {"log.info", 0},
	[XB_EL_LOG_UART] = {"log.uart", XB_ATTR_DIM},
	[XB_EL_LOG_BUILD] = {"log.build", 0},
	[XB_EL_SEV_SEVERE] = {"severity.severe", XB_ATTR_BOLD | XB_ATTR_REVERSE},
	[XB_EL_SEV_WARNING] = {"severity.warning", XB_ATTR_BOLD},
	[XB_EL_SEV_NOTE] = {"severity.note", XB_ATTR_UNDERLINE},
	[XB_EL_SEV_INFO] = {"severity.info", 0},
};

const char *theme_element_name(int el)
{
	return el >= 0 && el < XB_EL_COUNT ? elements[el].name : NULL;
}

int theme_element_find(const char *name)
{
	for (int i = 0; i < XB_EL_COUNT; i++)
		if (strcmp(elements[i].name, name) == 0)
			return i;
	return -1;
}

static const xb_colour no_colour = {-1, -1, -1};

void theme_mono(xb_theme *t)
{
	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "mono");
	for (int i = 0; i < XB_EL_COUNT; i++) {
		t->el[i].fg = t->el[i].bg = no_colour;
		t->el[i].attrs = elements[i].mono;
		t->el[i].mono_attrs = elements[i].mono;
	}
}

/* ---- Colours ---- */

static const char *const colour_names[16] = {
	"black",        "red",        "green",        "yellow",        "blue",
	"magenta",      "cyan",       "white",        "bright-black",  "bright-red",
	"bright-green", "bright-yellow", "bright-blue", "bright-magenta", "bright-cyan",
	"bright-white",
};

/* The xterm palette's RGB for the 16 basic colours and the 6x6x6 cube and grey ramp. */
static void rgb_of(int c, int *r, int *g, int *b)
{
	static const int basic[16][3] = {
		{0, 0, 0},       {205, 0, 0},   {0, 205, 0},   {205, 205, 0},
		{0, 0, 238},     {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
		{127, 127, 127}, {255, 0, 0},   {0, 255, 0},   {255, 255, 0},
		{92, 92, 255},   {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
	};
	if (c < 16) {
		*r = basic[c][0];
		*g = basic[c][1];
		*b = basic[c][2];
	} else if (c < 232) {
		static const int level[6] = {0, 95, 135, 175, 215, 255};
		c -= 16;
		*r = level[c / 36];
		*g = level[(c / 6) % 6];
		*b = level[c % 6];
	} else {
		*r = *g = *b = 8 + 10 * (c - 232);
	}
}

int theme_256_to_16(int c256)
{
	if (c256 < 0)
		return -1;
	if (c256 < 16)
		return c256;
	int r, g, b, best = 0;
	long bestd = -1;
	rgb_of(c256, &r, &g, &b);
	for (int i = 0; i < 16; i++) {
		int r2, g2, b2;
		rgb_of(i, &r2, &g2, &b2);
		long d = (long)(r - r2) * (r - r2) + (long)(g - g2) * (g - g2) + (long)(b - b2) * (b - b2);
		if (bestd < 0 || d < bestd) {
			bestd = d;
			best = i;
		}
	}
	return best;
}

int theme_16_to_8(int c16)
{
	if (c16 < 0)
		return -1;
	if (c16 == 8)
		return 7; /* bright black (grey) reads best as white on 8 colours */
	return c16 & 7;
}

/* One colour word: default, a name, an index, or A/B/C. 0 or -1. */
static int parse_one(const char *w, int max, int16_t *out)
{
	if (strcmp(w, "default") == 0) {
		*out = -1;
		return 0;
	}
	for (int i = 0; i < 16 && i < max; i++)
		if (strcmp(w, colour_names[i]) == 0) {
			*out = (int16_t)i;
			return 0;
		}
	char *end;
	long v = strtol(w, &end, 10);
	if (end == w || *end || v < 0 || v >= max)
		return -1;
	*out = (int16_t)v;
	return 0;
}

static int parse_colour(const char *w, xb_colour *c)
{
	if (strchr(w, '/')) {
		char buf[64];
		if (strlen(w) >= sizeof buf)
			return -1;
		snprintf(buf, sizeof buf, "%s", w);
		char *a = buf, *b = strchr(a, '/');
		*b++ = 0;
		char *cc = strchr(b, '/');
		if (!cc)
			return -1;
		*cc++ = 0;
		if (parse_one(a, 256, &c->c256) || parse_one(b, 16, &c->c16) || parse_one(cc, 8, &c->c8))
			return -1;
		return 0;
	}
	int16_t v;
	if (parse_one(w, 256, &v))
		return -1;
	c->c256 = v;
	c->c16 = (int16_t)theme_256_to_16(v);
	c->c8 = (int16_t)theme_16_to_8(c->c16);
	return 0;
}

static int parse_attr(const char *w, uint8_t *attrs)
{
	static const struct {
		const char *name;
		uint8_t bit;
	} names[] = {{"bold", XB_ATTR_BOLD},           {"dim", XB_ATTR_DIM},
		     {"reverse", XB_ATTR_REVERSE},     {"underline", XB_ATTR_UNDERLINE},
		     {"italic", XB_ATTR_ITALIC}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(w, names[i].name) == 0) {
			*attrs |= names[i].bit;
			return 0;
		}
	return -1;
}

/* ---- Files ---- */

#define THEME_WORDS 16
#define THEME_DEPTH 4 /* base themes may name base themes this deep */

static int theme_parse_depth(xb_theme *t, const char *name, const char *text, size_t len,
			     xb_theme_lookup_fn lookup, void *ctx, int depth, xb_err *err);

static int parse_base(xb_theme *t, const char *name, unsigned line, const char *base,
		      xb_theme_lookup_fn lookup, void *ctx, int depth, xb_err *err)
{
	if (strcmp(base, "mono") == 0 && !lookup) {
		theme_mono(t);
		return 0;
	}
	if (!lookup)
		return xb_fail(err, "%s:%u: 'base = %s': base themes cannot be looked up here", name,
			       line, base);
	if (depth >= THEME_DEPTH)
		return xb_fail(err, "%s:%u: 'base = %s': themes based on each other more than %d deep "
				    "(a loop?)",
			       name, line, base, THEME_DEPTH);
	char path[512] = "";
	size_t blen = 0;
	char *btext = lookup(ctx, base, &blen, path, sizeof path);
	if (!btext) {
		if (strcmp(base, "mono") == 0) {
			theme_mono(t);
			return 0;
		}
		return xb_fail(err, "%s:%u: base theme '%s' not found", name, line, base);
	}
	xb_theme b;
	theme_mono(&b);
	int rc = theme_parse_depth(&b, path[0] ? path : base, btext, blen, lookup, ctx, depth + 1, err);
	free(btext);
	if (rc)
		return -1;
	*t = b;
	return 0;
}

static int theme_parse_depth(xb_theme *out, const char *name, const char *text, size_t len,
			     xb_theme_lookup_fn lookup, void *ctx, int depth, xb_err *err)
{
	xb_theme t;
	theme_mono(&t); /* elements a file does not name look as they do without colours */
	const char *base_of_name = strrchr(name, '/');
	base_of_name = base_of_name ? base_of_name + 1 : name;
	snprintf(t.name, sizeof t.name, "%.*s", (int)strcspn(base_of_name, "."), base_of_name);
	const char *p = text, *end = text + len;
	unsigned line = 0;
	int seen_element = 0;
	while (p < end) {
		line++;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char buf[512];
		if (n >= sizeof buf)
			return xb_fail(err, "%s:%u: line longer than %zu bytes", name, line, sizeof buf - 1);
		memcpy(buf, p, n);
		buf[n] = 0;
		p += n + (nl ? 1 : 0);
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		for (char *q = buf; *q; q++)
			if (*q == '\t' || *q == '\r')
				*q = ' ';
		for (char *q = buf; *q; q++)
			if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7F) {
				char shown[64];
				xb_quote(shown, sizeof shown, buf, strlen(buf));
				return xb_fail(err, "%s:%u: unexpected byte in '%s'", name, line, shown);
			}
		char *eq = strchr(buf, '=');
		char *key = buf;
		while (*key == ' ')
			key++;
		if (!*key)
			continue;
		if (!eq)
			return xb_fail(err, "%s:%u: expected 'ELEMENT = FG BG [ATTR ...]' or 'base = NAME'",
				       name, line);
		*eq = 0;
		char *ke = eq;
		while (ke > key && ke[-1] == ' ')
			*--ke = 0;
		char *words[THEME_WORDS];
		int nw = 0;
		for (char *w = strtok(eq + 1, " "); w; w = strtok(NULL, " ")) {
			if (nw == THEME_WORDS)
				return xb_fail(err, "%s:%u: too many words", name, line);
			words[nw++] = w;
		}
		if (strcmp(key, "base") == 0) {
			if (nw != 1)
				return xb_fail(err, "%s:%u: 'base = NAME' takes one theme name", name, line);
			if (seen_element)
				return xb_fail(err, "%s:%u: 'base' must come before the elements", name,
					       line);
			char keep[sizeof t.name];
			memcpy(keep, t.name, sizeof keep);
			if (parse_base(&t, name, line, words[0], lookup, ctx, depth, err))
				return -1;
			memcpy(t.name, keep, sizeof keep);
			continue;
		}
		int el = theme_element_find(key);
		if (el < 0) {
			char shown[64];
			xb_quote(shown, sizeof shown, key, strlen(key));
			return xb_fail(err, "%s:%u: unknown element '%s' (docs/workbench.md lists them)",
				       name, line, shown);
		}
		if (nw < 2)
			return xb_fail(err, "%s:%u: %s needs a foreground and a background colour", name,
				       line, key);
		xb_style s = t.el[el];
		s.attrs = 0;
		if (parse_colour(words[0], &s.fg))
			return xb_fail(err, "%s:%u: unknown colour '%s'", name, line, words[0]);
		if (parse_colour(words[1], &s.bg))
			return xb_fail(err, "%s:%u: unknown colour '%s'", name, line, words[1]);
		int mono = 0;
		uint8_t mono_attrs = 0;
		for (int i = 2; i < nw; i++) {
			if (strcmp(words[i], "mono") == 0) {
				if (mono)
					return xb_fail(err, "%s:%u: 'mono' given twice", name, line);
				mono = 1;
				continue;
			}
			if (parse_attr(words[i], mono ? &mono_attrs : &s.attrs))
				return xb_fail(err, "%s:%u: unknown attribute '%s' (bold, dim, reverse, "
						    "underline, italic)",
					       name, line, words[i]);
		}
		if (mono)
			s.mono_attrs = mono_attrs;
		t.el[el] = s;
		seen_element = 1;
	}
	*out = t;
	return 0;
}

int theme_parse(xb_theme *t, const char *name, const char *text, size_t len,
		xb_theme_lookup_fn lookup, void *ctx, xb_err *err)
{
	return theme_parse_depth(t, name, text, len, lookup, ctx, 0, err);
}

/* The user's theme folder ($XDG_CONFIG_HOME/xipbench/themes or ~/.config/...), or NULL. */
static char *user_theme_dir(void)
{
	const char *x = getenv("XDG_CONFIG_HOME");
	if (x && *x == '/')
		return xasprintf("%s/xipbench/themes", x);
	const char *home = getenv("HOME");
	if (home && *home)
		return xasprintf("%s/.config/xipbench/themes", home);
	return NULL;
}

static int safe_name(const char *name)
{
	if (!*name || strlen(name) > 48)
		return 0;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return 0;
	return 1;
}

static char *read_theme_file(const char *dir, const char *name, size_t *len, char *path,
			     size_t cap)
{
	if (!dir)
		return NULL;
	char *p = xasprintf("%s/%s.theme", dir, name);
	char *text = NULL;
	if (xb_read_file(p, &text, len, NULL) == 0 && path)
		snprintf(path, cap, "%s", p);
	free(p);
	return text;
}

static char *lookup_theme(void *ctx, const char *name, size_t *len, char *path, size_t cap)
{
	(void)ctx;
	if (!safe_name(name))
		return NULL;
	char *user = user_theme_dir();
	char *text = read_theme_file(user, name, len, path, cap);
	free(user);
	if (text)
		return text;
	char *rel = xasprintf("themes/%s.theme", name);
	char *shipped = xb_data_path(rel);
	free(rel);
	if (shipped) {
		if (xb_read_file(shipped, &text, len, NULL) != 0)
			text = NULL;
		else if (path)
			snprintf(path, cap, "%s", shipped);
		free(shipped);
	}
	return text;
}

int theme_load(xb_theme *t, const char *name, xb_err *err)
{
	if (!safe_name(name))
		return xb_fail(err, "'%s' is not a theme name (letters, digits, '-' and '_')", name);
	char path[512] = "";
	size_t len = 0;
	char *text = lookup_theme(NULL, name, &len, path, sizeof path);
	if (!text) {
		if (strcmp(name, "mono") == 0) {
			theme_mono(t);
			return 0;
		}
		char *user = user_theme_dir();
		xb_fail(err, "no theme '%s' (looked in %s and the shipped themes/)", name,
			user ? user : "(no home folder)");
		free(user);
		return -1;
	}
	int rc = theme_parse(t, path, text, len, lookup_theme, NULL, err);
	free(text);
	if (rc == 0)
		snprintf(t->name, sizeof t->name, "%s", name);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_dir(const char *dir, char ***names, size_t *n, size_t *cap)
{
	DIR *d = dir ? opendir(dir) : NULL;
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l <= 6 || strcmp(e->d_name + l - 6, ".theme") != 0)
			continue;
		char *nm = xstrndup(e->d_name, l - 6);
		if (!safe_name(nm)) {
			free(nm);
			continue;
		}
		xb_grow(names, cap, *n + 1, sizeof **names);
		(*names)[(*n)++] = nm;
	}
	closedir(d);
}

char **theme_list(size_t *n)
{
	char **names = NULL;
	size_t cap = 0;
	*n = 0;
	char *user = user_theme_dir();
	list_dir(user, &names, n, &cap);
	free(user);
	char *any = xb_data_path("themes/dark.theme");
	if (any) {
		*strrchr(any, '/') = 0;
		list_dir(any, &names, n, &cap);
		free(any);
	}
	xb_grow(&names, &cap, *n + 1, sizeof *names);
	names[(*n)++] = xstrdup("mono");
	qsort(names, *n, sizeof *names, cmp_str);
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		if (k && strcmp(names[k - 1], names[i]) == 0) {
			free(names[i]);
			continue;
		}
		names[k++] = names[i];
	}
	*n = k;
	return names;
}

void theme_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void describe_colour(int16_t v, int colours, char *buf, size_t cap)
{
	if (v < 0)
		snprintf(buf, cap, "default");
	else if (colours == 256)
		snprintf(buf, cap, "%d", v);
	else
		snprintf(buf, cap, "%s", colour_names[v & 15]);
}

void theme_describe(const xb_style *s, int colours, char *buf, size_t cap)
{
	size_t at = 0;
	buf[0] = 0;
	uint8_t attrs = s->attrs;
	if (colours > 0) {
		int16_t fg = colours >= 256 ? s->fg.c256 : colours >= 16 ? s->fg.c16 : s->fg.c8;
		int16_t bg = colours >= 256 ? s->bg.c256 : colours >= 16 ? s->bg.c16 : s->bg.c8;
		char f[16], b[16];
		describe_colour(fg, colours, f, sizeof f);
		describe_colour(bg, colours, b, sizeof b);
		at += (size_t)snprintf(buf, cap, "fg %s bg %s", f, b);
	} else {
		attrs = s->mono_attrs;
	}
	static const char *const an[] = {"bold", "dim", "reverse", "underline", "italic"};
	for (int i = 0; i < 5; i++)
		if (attrs & (1u << i) && at < cap)
			at += (size_t)snprintf(buf + at, cap - at, "%s%s", at ? " " : "", an[i]);
	if (!at)
		snprintf(buf, cap, "plain");
}
