/* panel: one view of the workbench (libraries, functions, cache sets, echoes, log, layout,
 * compare, triage, help), one file each ending in its ops table. A panel keeps its own state
 * (selection, scroll, sort, filter, drill-down, tags), draws a model into a rectangle of a
 * canvas and answers commands; it returns flags and never redraws, resizes or quits by
 * itself: only the main loop acts (tui/loop.c). */
#ifndef XB_PANELS_PANEL_H
#define XB_PANELS_PANEL_H

#include "canvas.h"
#include "model.h"

/* What a handler asks the main loop to do. */
enum {
	XB_PANEL_REDRAW = 1,     /* the panel changed: draw the frame again */
	XB_PANEL_MESSAGE = 2,    /* show res->msg on the message line */
	XB_PANEL_ERROR = 4,      /* res->msg is an error (a bad argument ...) */
	XB_PANEL_SWITCH = 8,     /* show the panel named res->target */
	XB_PANEL_UNHANDLED = 16, /* the panel has no such command */
	XB_PANEL_RUN = 32,       /* run res->msg as a ':' command, as if typed (`try`) */
};

typedef struct xb_panel_result {
	int flags;
	char msg[256];
	char target[32];
} xb_panel_result;

/* A mouse event inside the panel's rectangle (x, y are canvas coordinates). */
enum { XB_MOUSE_CLICK = 1, XB_MOUSE_DOUBLE, XB_MOUSE_WHEEL_UP, XB_MOUSE_WHEEL_DOWN };
typedef struct xb_mouse {
	int kind;
	int x, y;
} xb_mouse;

/*
 * Commands every panel may get (the actions table turns keys and ':' commands into them;
 * arg is NULL when none was given):
 *   up, down, page-up, page-down, home, end, left, right   move the selection or scroll
 *   enter      drill down / select (libraries -> functions -> lines; a set's lines)
 *   back       one level up
 *   sort FIELD sort by FIELD; without one, the next field (panels that sort)
 *   filter TEXT  only rows whose name contains TEXT; empty clears (panels with rows)
 *   search TEXT  select the next row whose name contains TEXT; next / prev repeat it
 *   mode NAME  a panel's own display modes (cache sets: occupancy, live, predicted,
 *              pending; libraries: groups, libraries; compare: tables, diff); without one,
 *              the next mode
 *   tag, tag-none  (layout) toggle the selected function's tag and move down; untag all
 *   try        (triage) the selected finding's workbench command: XB_PANEL_RUN with it in
 *              res->msg, or a message saying it has none
 * A panel answers XB_PANEL_UNHANDLED for a command it does not take, and XB_PANEL_ERROR
 * with a message for a bad argument ("no column 'foo'; columns: samples, share ...").
 */
typedef struct xb_panel_ops {
	const char *name;   /* "libraries": `:libraries`, the config file, tests */
	const char *title;  /* "Libraries" */
	const char *sorts;  /* fields `sort` takes, comma-separated; NULL: none */
	const char *modes;  /* modes `mode` takes, comma-separated; NULL: none */
	void *(*create)(void);
	void (*destroy)(void *st);
	/* Draws the whole rectangle r (frame included: panel_frame), never outside it, for any
	 * size (0 x 0 included). focused: the panel has the keyboard. */
	void (*draw)(void *st, const xb_model *m, xb_canvas *c, xb_rect r, int focused);
	int (*command)(void *st, const xb_model *m, const char *verb, const char *arg,
		       xb_panel_result *res);
	/* r is where the panel was last drawn. */
	int (*mouse)(void *st, const xb_model *m, xb_rect r, const xb_mouse *ev,
		     xb_panel_result *res);
	/* Optional (NULL: the panel chooses no functions). The functions the application's
	 * edits apply to (`sram`, `hot`, `pin` ...), as indices into m->base->funcs in
	 * ascending order: the tagged ones, or when none is tagged the selected row's one.
	 * Writes at most max of them to out (out may be NULL when max is 0) and returns how
	 * many there are (more than max: only max written); 0 when the panel has nothing
	 * selected (no editor, no rows). Reads the model like `command` and changes nothing:
	 * the tags stay until `tag-none`. */
	size_t (*targets)(void *st, const xb_model *m, int *out, size_t max);
} xb_panel_ops;

extern const xb_panel_ops panel_libraries, panel_functions, panel_cachesets, panel_echoes,
	panel_log, panel_layout, panel_compare, panel_triage, panel_help;
/* Every panel in tab order, ended by NULL. */
extern const xb_panel_ops *const panels[];
const xb_panel_ops *panel_find(const char *name);

/* The frame every panel draws: a box with the title (focused: XB_EL_BORDER_FOCUS), and
 * the inside returned. */
xb_rect panel_frame(xb_canvas *c, xb_rect r, const char *title, int focused);

#endif
