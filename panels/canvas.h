/* canvas: the in-memory screen that panels draw into: a grid of cells, each a character
 * and a semantic element (panels/theme.h). The terminal code (tui/term.c) blits it once per
 * frame; tests dump it as text and styles without a terminal. No curses here. */
#ifndef XB_PANELS_CANVAS_H
#define XB_PANELS_CANVAS_H

#include <stdarg.h>
#include <stdint.h>

#include "../core/util.h"
#include "theme.h"

/* One cell: a Unicode code point (every glyph xipbench draws is one column wide; control
 * characters and code points above U+FFFF are drawn as '?') and the element that styles
 * it. */
typedef struct xb_cell {
	uint32_t ch;
	uint8_t el; /* enum xb_element */
} xb_cell;

typedef struct xb_rect {
	int x, y, w, h;
} xb_rect;

typedef struct xb_canvas {
	int w, h;
	xb_cell *cells; /* h rows of w cells */
} xb_canvas;

/* A canvas of w x h cells (either may be 0), all blank (' ', XB_EL_NORMAL). */
xb_canvas *canvas_new(int w, int h);
void canvas_free(xb_canvas *c);
/* New size; the contents are cleared. */
void canvas_resize(xb_canvas *c, int w, int h);
/* Every cell blank with element el. */
void canvas_clear(xb_canvas *c, int el);

/* The rectangle of the whole canvas, and the part of r inside the canvas. */
xb_rect canvas_bounds(const xb_canvas *c);
xb_rect rect_clip(xb_rect r, xb_rect bounds);
/* r less `margin` cells on every side (never negative). */
xb_rect rect_inset(xb_rect r, int margin);
/* Splits r: the first `n` rows (or columns) and the rest (n clipped to r). */
void rect_split_rows(xb_rect r, int n, xb_rect *top, xb_rect *rest);
void rect_split_cols(xb_rect r, int n, xb_rect *left, xb_rect *rest);

/* Cell access; writes outside the canvas are ignored, reads give a blank cell. */
void canvas_put(xb_canvas *c, int x, int y, uint32_t ch, int el);
xb_cell canvas_get(const xb_canvas *c, int x, int y);
/* Restyles the cells of r (the characters stay): selection bars, highlights. */
void canvas_style(xb_canvas *c, xb_rect r, int el);
void canvas_fill(xb_canvas *c, xb_rect r, uint32_t ch, int el);

/* Writes UTF-8 text from (x, y), at most maxw columns (maxw < 0: to the canvas edge);
 * stops at a newline. Invalid UTF-8 bytes are drawn as '?'. Returns the columns
 * written. */
int canvas_text(xb_canvas *c, int x, int y, int maxw, int el, const char *s);
int canvas_printf(xb_canvas *c, int x, int y, int maxw, int el, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

enum xb_align { XB_ALIGN_LEFT, XB_ALIGN_RIGHT, XB_ALIGN_CENTER };
/* Text in a field of exactly w columns: padded with blanks, or cut with a trailing '~'
 * when it is longer (left or centre alignment), or cut at the left with a leading '~'
 * (right alignment, for numbers and paths whose end matters). Returns w. */
int canvas_field(xb_canvas *c, int x, int y, int w, int el, enum xb_align align,
		 const char *s);

/* Lines of box-drawing characters (U+2500 family). */
void canvas_hline(xb_canvas *c, int x, int y, int w, int el);
void canvas_vline(xb_canvas *c, int x, int y, int h, int el);
/* A frame around r with an optional title in its top edge ("┤ Title ├"), cut to fit. */
void canvas_box(xb_canvas *c, xb_rect r, int el, const char *title, int title_el);

/* A horizontal bar of w columns filled to fraction (0..1) with eighth-block characters
 * (U+2588..U+258F); the rest blank with element bg_el. */
void canvas_bar(xb_canvas *c, int x, int y, int w, double fraction, int el, int bg_el);
/* One column of a sparkline: level 0..8 as ' ', U+2581..U+2588. */
uint32_t canvas_spark(int level);

/* Number of code points of s (what canvas_text would draw of it without a limit). */
int canvas_width(const char *s);

/*
 * Dump for golden tests and --dump: the text rows (trailing blanks kept, so every row has
 * w columns), then the style of every cell as a letter, then a legend that gives each
 * letter's element names and the style `t` resolves them to at `colours` colours (256,
 * 16, 8 or 0 for monochrome). The format:
 *
 *   canvas 80x24 theme dark colours 256
 *   text
 *   |....80 columns....|
 *   ...
 *   styles
 *   |aaaabbbb...|
 *   ...
 *   legend
 *   a normal: fg default bg default
 *   b heat.3: fg 208 bg default bold
 *
 * Every element has its own letter (given in the order elements first appear: a-z, A-Z,
 * then 0-9), so the map shows what each cell means and the legend how the theme draws it.
 * t may be NULL: the text section only.
 */
void canvas_dump(const xb_canvas *c, const xb_theme *t, int colours, xb_strbuf *out);
/* The text rows alone, trailing blanks removed (for asserting on what a user reads). */
void canvas_dump_text(const xb_canvas *c, xb_strbuf *out);

/* UTF-8 encoding of a code point into out (at least 5 bytes); returns the length. */
int canvas_utf8(uint32_t ch, char *out);

#endif
