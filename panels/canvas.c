/* canvas: the in-memory screen panels draw into (see canvas.h). */
#include "canvas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const xb_cell blank = {' ', XB_EL_NORMAL};

xb_canvas *canvas_new(int w, int h)
{
	xb_canvas *c = xcalloc(1, sizeof *c);
	canvas_resize(c, w, h);
	return c;
}

void canvas_free(xb_canvas *c)
{
	if (!c)
		return;
	free(c->cells);
	free(c);
}

void canvas_resize(xb_canvas *c, int w, int h)
{
	if (w < 0)
		w = 0;
	if (h < 0)
		h = 0;
	free(c->cells);
	c->w = w;
	c->h = h;
	c->cells = xmalloc(((size_t)w * (size_t)h + 1) * sizeof *c->cells);
	canvas_clear(c, XB_EL_NORMAL);
}

void canvas_clear(xb_canvas *c, int el)
{
	size_t n = (size_t)c->w * (size_t)c->h;
	for (size_t i = 0; i < n; i++)
		c->cells[i] = (xb_cell){' ', (uint8_t)el};
}

xb_rect canvas_bounds(const xb_canvas *c)
{
	return (xb_rect){0, 0, c->w, c->h};
}

xb_rect rect_clip(xb_rect r, xb_rect b)
{
	int x0 = r.x > b.x ? r.x : b.x, y0 = r.y > b.y ? r.y : b.y;
	int x1 = r.x + r.w < b.x + b.w ? r.x + r.w : b.x + b.w;
	int y1 = r.y + r.h < b.y + b.h ? r.y + r.h : b.y + b.h;
	if (x1 < x0)
		x1 = x0;
	if (y1 < y0)
		y1 = y0;
	return (xb_rect){x0, y0, x1 - x0, y1 - y0};
}

xb_rect rect_inset(xb_rect r, int m)
{
	int w = r.w - 2 * m, h = r.h - 2 * m;
	return (xb_rect){r.x + m, r.y + m, w > 0 ? w : 0, h > 0 ? h : 0};
}

void rect_split_rows(xb_rect r, int n, xb_rect *top, xb_rect *rest)
{
	if (n < 0)
		n = 0;
	if (n > r.h)
		n = r.h;
	if (top)
		*top = (xb_rect){r.x, r.y, r.w, n};
	if (rest)
		*rest = (xb_rect){r.x, r.y + n, r.w, r.h - n};
}

void rect_split_cols(xb_rect r, int n, xb_rect *left, xb_rect *rest)
{
	if (n < 0)
		n = 0;
	if (n > r.w)
		n = r.w;
	if (left)
		*left = (xb_rect){r.x, r.y, n, r.h};
	if (rest)
		*rest = (xb_rect){r.x + n, r.y, r.w - n, r.h};
}

void canvas_put(xb_canvas *c, int x, int y, uint32_t ch, int el)
{
	if (x < 0 || y < 0 || x >= c->w || y >= c->h)
		return;
	if (ch < 0x20 || (ch >= 0x7F && ch < 0xA0) || ch > 0xFFFF)
		ch = '?';
	c->cells[(size_t)y * (size_t)c->w + (size_t)x] = (xb_cell){ch, (uint8_t)el};
}

xb_cell canvas_get(const xb_canvas *c, int x, int y)
{
	if (x < 0 || y < 0 || x >= c->w || y >= c->h)
		return blank;
	return c->cells[(size_t)y * (size_t)c->w + (size_t)x];
}

void canvas_style(xb_canvas *c, xb_rect r, int el)
{
	r = rect_clip(r, canvas_bounds(c));
	for (int y = r.y; y < r.y + r.h; y++)
		for (int x = r.x; x < r.x + r.w; x++)
			c->cells[(size_t)y * (size_t)c->w + (size_t)x].el = (uint8_t)el;
}

void canvas_fill(xb_canvas *c, xb_rect r, uint32_t ch, int el)
{
	r = rect_clip(r, canvas_bounds(c));
	for (int y = r.y; y < r.y + r.h; y++)
		for (int x = r.x; x < r.x + r.w; x++)
			canvas_put(c, x, y, ch, el);
}

/* Decodes one UTF-8 sequence at s; *n gets its length (at least 1). Invalid: '?'. */
static uint32_t utf8_next(const unsigned char *s, int *n)
{
	unsigned char b = s[0];
	int len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
	if (len == 0) {
		*n = 1;
		return '?';
	}
	uint32_t cp = len == 1 ? b : (uint32_t)(b & (0x7F >> len));
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*n = i;
			return '?';
		}
		cp = cp << 6 | (s[i] & 0x3F);
	}
	*n = len;
	static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < min[len] || (cp >= 0xD800 && cp <= 0xDFFF))
		return '?';
	return cp;
}

int canvas_text(xb_canvas *c, int x, int y, int maxw, int el, const char *s)
{
	if (maxw < 0)
		maxw = c->w - x;
	const unsigned char *p = (const unsigned char *)s;
	int col = 0;
	while (*p && *p != '\n' && col < maxw) {
		int n;
		uint32_t ch = utf8_next(p, &n);
		canvas_put(c, x + col, y, ch, el);
		col++;
		p += n;
	}
	return col;
}

int canvas_printf(xb_canvas *c, int x, int y, int maxw, int el, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return canvas_text(c, x, y, maxw, el, buf);
}

int canvas_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int w = 0;
	while (*p && *p != '\n') {
		int n;
		utf8_next(p, &n);
		p += n;
		w++;
	}
	return w;
}

/* The byte offset of the code point at column col of s (or the end). */
static size_t utf8_offset(const char *s, int col)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p && *p != '\n' && col > 0) {
		int n;
		utf8_next(p, &n);
		p += n;
		col--;
	}
	return (size_t)(p - (const unsigned char *)s);
}

int canvas_field(xb_canvas *c, int x, int y, int w, int el, enum xb_align align, const char *s)
{
	if (w <= 0)
		return 0;
	for (int i = 0; i < w; i++)
		canvas_put(c, x + i, y, ' ', el);
	int n = canvas_width(s);
	if (n > w) {
		if (align == XB_ALIGN_RIGHT) {
			canvas_put(c, x, y, '~', el);
			canvas_text(c, x + 1, y, w - 1, el, s + utf8_offset(s, n - (w - 1)));
		} else {
			canvas_text(c, x, y, w - 1, el, s);
			canvas_put(c, x + w - 1, y, '~', el);
		}
		return w;
	}
	int at = align == XB_ALIGN_RIGHT ? w - n : align == XB_ALIGN_CENTER ? (w - n) / 2 : 0;
	canvas_text(c, x + at, y, n, el, s);
	return w;
}

void canvas_hline(xb_canvas *c, int x, int y, int w, int el)
{
	for (int i = 0; i < w; i++)
		canvas_put(c, x + i, y, 0x2500, el);
}

void canvas_vline(xb_canvas *c, int x, int y, int h, int el)
{
	for (int i = 0; i < h; i++)
		canvas_put(c, x, y + i, 0x2502, el);
}

void canvas_box(xb_canvas *c, xb_rect r, int el, const char *title, int title_el)
{
	if (r.w < 2 || r.h < 2)
		return;
	canvas_hline(c, r.x + 1, r.y, r.w - 2, el);
	canvas_hline(c, r.x + 1, r.y + r.h - 1, r.w - 2, el);
	canvas_vline(c, r.x, r.y + 1, r.h - 2, el);
	canvas_vline(c, r.x + r.w - 1, r.y + 1, r.h - 2, el);
	canvas_put(c, r.x, r.y, 0x250C, el);
	canvas_put(c, r.x + r.w - 1, r.y, 0x2510, el);
	canvas_put(c, r.x, r.y + r.h - 1, 0x2514, el);
	canvas_put(c, r.x + r.w - 1, r.y + r.h - 1, 0x2518, el);
	if (title && *title && r.w >= 7) {
		int room = r.w - 6;
		int n = canvas_width(title);
		if (n > room)
			n = room;
		canvas_put(c, r.x + 1, r.y, 0x2524, el);
		canvas_put(c, r.x + 2, r.y, ' ', title_el);
		canvas_field(c, r.x + 3, r.y, n, title_el, XB_ALIGN_LEFT, title);
		canvas_put(c, r.x + 3 + n, r.y, ' ', title_el);
		canvas_put(c, r.x + 4 + n, r.y, 0x251C, el);
	}
}

void canvas_bar(xb_canvas *c, int x, int y, int w, double fraction, int el, int bg_el)
{
	if (w <= 0)
		return;
	if (!(fraction > 0))
		fraction = 0;
	if (fraction > 1)
		fraction = 1;
	int eighths = (int)(fraction * w * 8 + 0.5);
	for (int i = 0; i < w; i++) {
		int e = eighths - i * 8;
		if (e >= 8)
			canvas_put(c, x + i, y, 0x2588, el);
		else if (e > 0)
			canvas_put(c, x + i, y, 0x2590 - (uint32_t)e, el); /* U+258F (1/8) .. U+2589 (7/8) */
		else
			canvas_put(c, x + i, y, ' ', bg_el);
	}
}

uint32_t canvas_spark(int level)
{
	if (level <= 0)
		return ' ';
	if (level > 8)
		level = 8;
	return 0x2580 + (uint32_t)level; /* U+2581 .. U+2588 */
}

int canvas_utf8(uint32_t ch, char *out)
{
	if (ch < 0x80) {
		out[0] = (char)ch;
		out[1] = 0;
		return 1;
	}
	if (ch < 0x800) {
		out[0] = (char)(0xC0 | ch >> 6);
		out[1] = (char)(0x80 | (ch & 0x3F));
		out[2] = 0;
		return 2;
	}
	if (ch < 0x10000) {
		out[0] = (char)(0xE0 | ch >> 12);
		out[1] = (char)(0x80 | ((ch >> 6) & 0x3F));
		out[2] = (char)(0x80 | (ch & 0x3F));
		out[3] = 0;
		return 3;
	}
	out[0] = (char)(0xF0 | ch >> 18);
	out[1] = (char)(0x80 | ((ch >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((ch >> 6) & 0x3F));
	out[3] = (char)(0x80 | (ch & 0x3F));
	out[4] = 0;
	return 4;
}

static void dump_rows(const xb_canvas *c, xb_strbuf *out, int trim, int framed)
{
	for (int y = 0; y < c->h; y++) {
		const xb_cell *row = c->cells + (size_t)y * (size_t)c->w;
		int n = c->w;
		if (trim)
			while (n > 0 && row[n - 1].ch == ' ')
				n--;
		if (framed)
			sb_puts(out, "|");
		for (int x = 0; x < n; x++) {
			char u[5];
			int k = canvas_utf8(row[x].ch, u);
			sb_append(out, u, (size_t)k);
		}
		sb_puts(out, framed ? "|\n" : "\n");
	}
}

void canvas_dump_text(const xb_canvas *c, xb_strbuf *out)
{
	dump_rows(c, out, 1, 0);
}

static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

void canvas_dump(const xb_canvas *c, const xb_theme *t, int colours, xb_strbuf *out)
{
	sb_printf(out, "canvas %dx%d", c->w, c->h);
	if (t)
		sb_printf(out, " theme %s colours %d", t->name, colours);
	sb_puts(out, "\ntext\n");
	dump_rows(c, out, 0, 1);
	if (!t)
		return;
	int letter[XB_EL_COUNT];
	int used = 0;
	for (int i = 0; i < XB_EL_COUNT; i++)
		letter[i] = -1;
	size_t n = (size_t)c->w * (size_t)c->h;
	for (size_t i = 0; i < n; i++) {
		int el = c->cells[i].el < XB_EL_COUNT ? c->cells[i].el : XB_EL_NORMAL;
		if (letter[el] < 0)
			letter[el] = used++;
	}
	sb_puts(out, "styles\n");
	for (int y = 0; y < c->h; y++) {
		sb_puts(out, "|");
		for (int x = 0; x < c->w; x++) {
			int el = c->cells[(size_t)y * (size_t)c->w + (size_t)x].el;
			if (el >= XB_EL_COUNT)
				el = XB_EL_NORMAL;
			char ch = letter[el] < (int)sizeof letters - 1 ? letters[letter[el]] : '?';
			sb_append(out, &ch, 1);
		}
		sb_puts(out, "|\n");
	}
	sb_puts(out, "legend\n");
	for (int k = 0; k < used; k++)
		for (int el = 0; el < XB_EL_COUNT; el++)
			if (letter[el] == k) {
				char d[128];
				theme_describe(&t->el[el], colours, d, sizeof d);
				sb_printf(out, "%c %s: %s\n", k < (int)sizeof letters - 1 ? letters[k] : '?',
					  theme_element_name(el), d);
			}
}
