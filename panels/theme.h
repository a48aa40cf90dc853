/* theme: semantic screen elements (heat levels, set states, selection, headers, alerts ...)
 * and the colours and attributes a theme gives each, at 256, 16 and 8 colours or none.
 * Themes are data files (themes/NAME.theme, docs/workbench.md "Themes"); the monochrome
 * theme is also built in. No curses here: tui/term.c turns a style into curses
 * attributes. */
#ifndef XB_PANELS_THEME_H
#define XB_PANELS_THEME_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

/* The elements. The names (theme_element_name) are what theme files use. */
enum xb_element {
	XB_EL_NORMAL = 0,   /* "normal": text */
	XB_EL_DIM,          /* "dim": secondary text, units, empty values */
	XB_EL_TITLE,        /* "title": a panel's title */
	XB_EL_HEADER,       /* "header": table column headers */
	XB_EL_BORDER,       /* "border": panel frames */
	XB_EL_BORDER_FOCUS, /* "border.focus": the focused panel's frame */
	XB_EL_SELECTED,     /* "selected": the selected row or cell */
	XB_EL_MATCH,        /* "match": a search match */
	XB_EL_STATUS,       /* "status": the status bar */
	XB_EL_STATUS_VALUE, /* "status.value": a figure in the status bar */
	XB_EL_TAB,          /* "tab": a panel's tab */
	XB_EL_TAB_ACTIVE,   /* "tab.active": the shown panel's tab */
	XB_EL_MESSAGE,      /* "message": the message line */
	XB_EL_PROMPT,       /* "prompt": the ':' command line */
	XB_EL_KEY,          /* "key": key names in help and hints */
	XB_EL_GOOD,         /* "good": a figure that improved, "ok" states */
	XB_EL_WARNING,      /* "warning" */
	XB_EL_ALERT,        /* "alert": errors, a lost probe */
	XB_EL_HEAT_0,       /* "heat.0": no samples */
	XB_EL_HEAT_1,       /* "heat.1" .. "heat.5": rising heat */
	XB_EL_HEAT_2,
	XB_EL_HEAT_3,
	XB_EL_HEAT_4,
	XB_EL_HEAT_5,
	XB_EL_SET_EMPTY,    /* "set.empty": a cache set with no hot line */
	XB_EL_SET_ONE,      /* "set.one": one hot line */
	XB_EL_SET_TWO,      /* "set.two": two hot lines (the ways are full) */
	XB_EL_SET_OVER,     /* "set.over": three or more: every access can miss */
	XB_EL_CHART,        /* "chart": strip chart values */
	XB_EL_CHART_AXIS,   /* "chart.axis": scales and labels */
	XB_EL_CHART_MARKER, /* "chart.marker": where the image changed */
	XB_EL_LOG_INFO,     /* "log.info" */
	XB_EL_LOG_UART,     /* "log.uart": the board's UART0 */
	XB_EL_LOG_BUILD,    /* "log.build": build and flash output */
	XB_EL_SEV_SEVERE,   /* "severity.severe": a triage finding (core/triage.h) .. */
	XB_EL_SEV_WARNING,  /* "severity.warning" */
	XB_EL_SEV_NOTE,     /* "severity.note" */
	XB_EL_SEV_INFO,     /* "severity.info": how the time is spent, nothing to fix */
	XB_EL_COUNT
};

#define XB_HEAT_LEVELS 6 /* XB_EL_HEAT_0 .. XB_EL_HEAT_5 */

enum {
	XB_ATTR_BOLD = 1,
	XB_ATTR_DIM = 2,
	XB_ATTR_REVERSE = 4,
	XB_ATTR_UNDERLINE = 8,
	XB_ATTR_ITALIC = 16,
};

/* A colour at each depth: an index into the terminal's palette, or -1 for the terminal's
 * default colour. c256 is 0..255, c16 0..15, c8 0..7. */
typedef struct xb_colour {
	int16_t c256, c16, c8;
} xb_colour;

typedef struct xb_style {
	xb_colour fg, bg;
	uint8_t attrs;      /* XB_ATTR_*, at every depth */
	uint8_t mono_attrs; /* XB_ATTR_* used instead when there are no colours */
} xb_style;

typedef struct xb_theme {
	char name[64];
	xb_style el[XB_EL_COUNT];
} xb_theme;

/* "normal", "heat.3", "set.over" ...; NULL for an out-of-range element. */
const char *theme_element_name(int el);
/* The element of a name, or -1. */
int theme_element_find(const char *name);

/* The built-in monochrome theme ("mono": attributes only), what NO_COLOR and terminals
 * without colours get. */
void theme_mono(xb_theme *t);

/*
 * Parses a theme file held in memory (name is used in messages: "light.theme:12: unknown
 * colour 'purpel'"). Format (docs/workbench.md): '#' comments, blank lines, and
 *
 *   base = NAME                    start from another theme (shipped or the user's)
 *   ELEMENT = FG BG [ATTR ...] [mono ATTR ...]
 *
 * FG and BG are `default`, a colour name (black red green yellow blue magenta cyan white,
 * bright-black .. bright-white), a palette index 0-255, or three choices A/B/C for 256, 16
 * and 8 colours. A single name or index is mapped to the other depths (an index to the
 * nearest of the 16 and 8 basic colours). ATTR is bold, dim, reverse, underline or
 * italic; `mono ATTR ...` gives the attributes used without colours (default: the element's
 * built-in monochrome attributes). Elements the file does not name keep the base theme's
 * style (without `base`: the monochrome theme's, with default colours). `lookup` finds
 * base themes by name (may be NULL: `base` is then an error); it returns a theme file's
 * text in a new buffer (*len bytes), or NULL. On failure t is unchanged.
 */
typedef char *(*xb_theme_lookup_fn)(void *ctx, const char *name, size_t *len, char *path,
				     size_t pathcap);
int theme_parse(xb_theme *t, const char *name, const char *text, size_t len,
		xb_theme_lookup_fn lookup, void *ctx, xb_err *err);

/* Finds and parses the theme called name: the user's $XDG_CONFIG_HOME/xipbench/themes/
 * (default ~/.config/xipbench/themes/) NAME.theme first, then the shipped themes/
 * NAME.theme (xb_data_path); "mono" is built in unless a file overrides it. Fails naming
 * the places it looked. */
int theme_load(xb_theme *t, const char *name, xb_err *err);
/* The names of the shipped and the user's themes (sorted, without duplicates), in a
 * malloc'd array of malloc'd strings; *n gets the count. */
char **theme_list(size_t *n);
void theme_list_free(char **names, size_t n);

/* How a style looks at `colours` (256, 16, 8; 0 or below: monochrome), for dumps and the
 * help screen: "fg 208 bg default bold", "reverse". */
void theme_describe(const xb_style *s, int colours, char *buf, size_t cap);

/* Maps a 256-colour palette index to the nearest of the 16 basic colours, and a 16-colour
 * index to 8 (bright colours to their normal ones). */
int theme_256_to_16(int c256);
int theme_16_to_8(int c16);

#endif
