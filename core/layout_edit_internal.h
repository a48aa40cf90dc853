/* layout_edit_internal: what the layout editor's files share (not part of its API): the
 * pending states undo and redo keep, what a state resolves to, and the rules and the commit
 * every edit goes through. layout_edit_state.c has these, layout_edit.c the edits. */
#ifndef XB_LAYOUT_EDIT_INTERNAL_H
#define XB_LAYOUT_EDIT_INTERNAL_H

#include "layout_edit.h"
#include "plan_heat.h"

/* One unit in the hot block. */
typedef struct edit_slot {
	int unit;
	enum xb_place place;   /* XB_PLACE_HOT or XB_PLACE_COLOUR */
	uint32_t way_offset;   /* XB_PLACE_COLOUR: an offset in the way, or XB_WAY_AUTO */
} edit_slot;

/* One pending layout, as undo and redo keep it. Units are function indices (see
 * xb_editor.unit). */
typedef struct edit_state {
	edit_slot *hot;        /* the hot block, in order */
	size_t nhot, hot_cap;
	int *sram;             /* the RAM function section, in order */
	size_t nsram, sram_cap;
	int *noalloc;          /* the no-allocate section, in order */
	size_t nnoalloc, noalloc_cap;
	uint8_t *pinned;       /* per function index; set for units only */
	uint32_t sram_budget, pad_budget;
	char strategy[16];
	char *label;           /* the edit that made this state, NULL for the first */
} edit_state;

/* What a state gives: its layout with the automatic colours resolved, its placement, and
 * per unit where it is. */
typedef struct edit_view {
	xb_layout layout;
	xb_placement place;
	int8_t *where;         /* per unit: enum xb_place as the state says */
	uint8_t *is_auto;      /* per unit */
	uint32_t *offset;      /* per unit in the hot block: where it starts in the way */
	long *position;        /* per unit: index in the hot block or RAM section, or -1 */
} edit_view;

struct xb_editor {
	xb_plan_input in;
	const xb_image *img;
	size_t nfuncs;
	uint32_t way;              /* bytes of one cache way */
	int *unit;                 /* per function: the first function of its input section
				    * (the first of its aliases when it has none) */
	size_t *unit_size;         /* per unit: its functions (first of aliases) */
	const char **boot_why;     /* per unit: why it may not go to SRAM, or NULL */
	int *boot_culprit;         /* per unit: the function that runs before the copy */
	int8_t *selector;          /* per unit: snippet_selector 0 not tried, 1 fine, -1 refused */
	xb_heat heat;
	bool have_heat;
	edit_state *cur;
	edit_view view;
	edit_state *undo[XB_EDIT_HISTORY]; /* oldest first */
	size_t nundo;
	edit_state *redo[XB_EDIT_HISTORY]; /* the next to redo last */
	size_t nredo;
};

/* ---- messages ---- */

typedef struct edit_number {
	char s[32];
} edit_number;

/* 21344 -> "21,344" */
edit_number edit_grouped(uint32_t v);
/* The name a message uses for a function (qualified when several objects define it); the
 * caller frees it. */
char *edit_func_name(const xb_editor *ed, int f);

/* ---- states ---- */

void edit_state_free(edit_state *s);
/* A copy of s without its label; with_places false leaves the hot block and SRAM empty. */
edit_state *edit_state_copy(const xb_editor *ed, const edit_state *s, bool with_places);
/* Where unit u is in the hot block / the RAM section, or -1. */
long edit_hot_index(const edit_state *s, int u);
long edit_sram_index(const edit_state *s, int u);
long edit_noalloc_index(const edit_state *s, int u);
/* Whether unit u has a place in s (hot block, RAM section or no-allocate section). */
bool edit_placed(const edit_state *s, int u);
void edit_drop_hot(edit_state *s, size_t k);
/* Sends unit u to `to`: a unit already in the hot block keeps its position there, others
 * join the end of the hot block, the RAM section or the no-allocate section. Returns
 * whether anything changed. */
bool edit_state_set(edit_state *s, int u, xb_edit_place to);
/* Fills next from layout l (entries and pins), checking every unit may go where l says;
 * flashed: l is what the board runs, so the start-up rule does not refuse it. */
int edit_state_from_layout(xb_editor *ed, const xb_layout *l, bool flashed, edit_state *next,
			   xb_err *err);

/* ---- rules ---- */

/* Whether unit u may go to `to`: an input section, in flash, a selector the snippet
 * writers accept, and for SRAM not run before the start-up copy. */
int edit_unit_can_go(xb_editor *ed, int u, enum xb_place to, xb_err *err);
/* Whether a chosen colour suits unit u (inside the way, at its alignment), or an automatic
 * one can be chosen (there is heat). */
int edit_colour_ok(const xb_editor *ed, int u, xb_edit_place to, xb_err *err);

/* ---- views and commits ---- */

/* Resolves state s into v (automatic colours chosen, placed); on failure v holds nothing. */
int edit_view_build(const xb_editor *ed, const edit_state *s, edit_view *v, xb_err *err);
void edit_view_free(edit_view *v);
/* Refuses a view of s that uses more than s's budgets, unless it uses no more than the
 * pending layout; what names the edit in the message; setting: a budget is being set. */
int edit_check_budgets(const xb_editor *ed, const edit_state *s, const edit_view *v,
		       const char *what, bool setting, xb_err *err);
/* Makes next (with its view v, both taken) the pending state: one undo step named label
 * (taken); drops what could be redone. */
void edit_commit_view(xb_editor *ed, edit_state *next, edit_view *v, char *label);
/* Resolves, checks and commits next (taken, with label, taken) or refuses it and frees
 * both. */
int edit_commit(xb_editor *ed, edit_state *next, char *label, bool setting, xb_err *err);

#endif
