/* layout_edit: the layout editor's core: a pending layout over one image that the user
 * edits (functions to default flash, the hot block, a colour chosen or automatic, SRAM;
 * pins), checked against SRAM and padding budgets, filled from planner presets, layout
 * files and name lists, with undo and redo. No UI: the workbench's panel draws it. */
#ifndef XB_LAYOUT_EDIT_H
#define XB_LAYOUT_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "plan.h"

/* Edits the editor can undo; an older one is forgotten when a new edit comes. */
#define XB_EDIT_HISTORY 256

/* A colour whose way offset the editor chooses (see editor_layout). */
#define XB_WAY_AUTO UINT32_MAX

/* editor_apply_preset's sram_bytes: the editor's own SRAM budget. */
#define XB_EDIT_BUDGET UINT32_MAX

typedef struct xb_editor xb_editor;

/* Where an edit sends functions. */
typedef struct xb_edit_place {
	enum xb_place place;   /* XB_PLACE_DEFAULT, _HOT, _COLOUR or _SRAM */
	uint32_t way_offset;   /* XB_PLACE_COLOUR: where the function must start in one cache
				* way (a multiple of its alignment, below the way size), or
				* XB_WAY_AUTO */
} xb_edit_place;

/* What an accepted edit did. */
typedef struct xb_edit_result {
	size_t changed;        /* functions (first of aliases) whose placement or pin changed */
	size_t pinned_left;    /* pinned functions the edit left where they were */
	size_t skipped;        /* functions of a library, group, preset or name list that
				* cannot move there and stayed */
	size_t unknown;        /* names of a name list that match no function, or several */
	char note[512];        /* one line for a status bar ("" when there is nothing to say):
				* "3 names of the list are not in this image: foo, bar, baz" */
} xb_edit_result;

/* ---- life ---- */

/* An editor over in->img (with its map and resolved alignments), in->tg and in->calls (the
 * veneers count in the extra RAM), all borrowed: they must outlive the editor. Its budgets
 * start at in->sram_budget and in->pad_budget; the heat for automatic colours and the
 * functions that run before the RAM sections are copied come from in->prof or in->trace
 * (either may be NULL; without both, automatic colours and presets are refused). The
 * pending layout starts as start (e.g. the flashed layout; NULL: the stock layout), with
 * the budgets raised to what it uses and without the start-up rule (it is what the board
 * runs); that is not an undoable step. in->sram_libraries is
 * not used (editor_place_library does that job). Fails for an image that cannot be placed
 * (no map, a build already linked with a layout) or a start layout that cannot be
 * edited. */
xb_editor *editor_new(const xb_plan_input *in, const xb_layout *start, xb_err *err);
void editor_free(xb_editor *ed);

/* A new profile or trace (borrowed, either may be NULL but not both): rebuilds the heat
 * and the start-up rule, and chooses the automatic colours again. Not an edit (no undo
 * step, no budget check: what editor_usage then reports may exceed a budget until the
 * next edit). */
int editor_update_heat(xb_editor *ed, const xb_profile *prof, const xb_trace *trace,
		       xb_err *err);

/* ---- edits ----
 * Each is applied whole or refused: on refusal it returns -1, err says why (naming the
 * function, the numbers, what to do) and nothing changed. An accepted edit that changes
 * something is one undo step; one that changes nothing returns 0 without a step. res may
 * be NULL.
 *
 * Functions move as units: aliases together, and every function of one input section
 * together (GNU ld moves input sections). No function may leave default flash if it has
 * no input section in the map, is not in flash, or has a section or file name the snippet
 * writers would refuse (snippet_selector); none may go to SRAM that runs before the
 * start-up code copies the RAM sections (plan_stay_in_flash). Pinned functions are left
 * where they are by every edit that moves them (counted in res->pinned_left; refused when
 * nothing else moves) until unpinned; reordering the hot block moves them.
 *
 * Budgets: an edit after which the pending layout's extra RAM (functions, veneers and
 * alignment, as layout_place_calls computes it) exceeds the SRAM budget, or its padding
 * exceeds the padding budget, is refused with the numbers ("moving the IP stack to SRAM
 * needs 21,344 bytes of SRAM; the budget is 8,192 (set it with :budget sram 24K)"), unless
 * it uses no more than the layout before it did. */

/* Sends funcs[0..n) (any function of a unit stands for it) to `to`: functions already in
 * the hot block keep their position, others join its end (or the end of the RAM function
 * section). Refused when any of them cannot go there. */
int editor_place(xb_editor *ed, const int *funcs, size_t n, xb_edit_place to,
		 xb_edit_result *res, xb_err *err);
/* The same for every function in flash of library `library` (index into img->libraries),
 * or of every library of display group `group` (xb_library.group), in address order.
 * Functions that cannot go there stay and are counted in res->skipped and named in
 * res->note; refused when none can move. */
int editor_place_library(xb_editor *ed, int library, xb_edit_place to, xb_edit_result *res,
			 xb_err *err);
int editor_place_group(xb_editor *ed, const char *group, xb_edit_place to,
		       xb_edit_result *res, xb_err *err);
/* Back to default flash. */
int editor_remove(xb_editor *ed, const int *funcs, size_t n, xb_edit_result *res,
		  xb_err *err);

/* Moves a function of the hot block to position (0: first) or by delta positions (-1:
 * up, +1: down); refused for a function outside the hot block or a position past its
 * ends. */
int editor_hot_move(xb_editor *ed, int func, size_t position, xb_edit_result *res,
		    xb_err *err);
int editor_hot_step(xb_editor *ed, int func, int delta, xb_edit_result *res, xb_err *err);

/* Pins (pinned = true) or unpins funcs[0..n). */
int editor_pin(xb_editor *ed, const int *funcs, size_t n, bool pinned, xb_edit_result *res,
	       xb_err *err);

/* Budgets; refused when the pending layout already uses more. A new padding budget also
 * chooses the automatic colours again. */
int editor_set_sram_budget(xb_editor *ed, uint32_t bytes, xb_err *err);
int editor_set_pad_budget(xb_editor *ed, uint32_t bytes, xb_err *err);

/* Runs planner `planner` (plan_find: "hot", "colour", "sram", "names") on the editor's
 * input and budgets and makes its layout the pending one, except for the pinned functions,
 * which keep their placement: pinned SRAM functions stay first in the RAM function
 * section, pinned hot-block functions follow the planner's block in their order. For
 * "sram" and "names", sram_bytes is the planner's SRAM budget ("colour + 16 KB SRAM" is
 * "sram" with 16384), at most the editor's budget less what pinned SRAM functions use;
 * XB_EDIT_BUDGET: the editor's budget. res->pinned_left counts the pinned functions and
 * res->note says so. One undo step. */
int editor_apply_preset(xb_editor *ed, const char *planner, uint32_t sram_bytes,
			xb_edit_result *res, xb_err *err);

/* Makes l (entries and pins; its functions are the image's) the pending layout: refused
 * when a function of it cannot go where it says, a unit is sent to two places, or it
 * exceeds a budget. `what` names it in the undo label ("flashed layout"). */
int editor_load_layout(xb_editor *ed, const xb_layout *l, const char *what,
		       xb_edit_result *res, xb_err *err);
/* The same from a layout file (layout_read_file). */
int editor_load_layout_file(xb_editor *ed, const char *path, xb_edit_result *res,
			    xb_err *err);
/* Sends the functions of a name list to SRAM (layout_names_parse), like a library move:
 * those that cannot go stay (res->skipped), pinned ones stay; names not in the image are
 * reported in res->unknown and res->note, not refused. */
int editor_load_names(xb_editor *ed, const xb_name_list *names, const char *what,
		      xb_edit_result *res, xb_err *err);
int editor_load_names_file(xb_editor *ed, const char *path, xb_edit_result *res,
			   xb_err *err);

/* ---- undo and redo ----
 * Undo goes back one edit, redo forward again; a new edit after an undo drops what could
 * be redone. The labels say what the step does ("moving f3 to SRAM"); NULL when there is
 * no step. Both fail only when nothing is there to undo or redo. */
bool editor_can_undo(const xb_editor *ed);
bool editor_can_redo(const xb_editor *ed);
const char *editor_undo_label(const xb_editor *ed);
const char *editor_redo_label(const xb_editor *ed);
int editor_undo(xb_editor *ed, xb_err *err);
int editor_redo(xb_editor *ed, xb_err *err);

/* ---- what the pending layout is ---- */

/* The pending layout, for snippet_write_all, plan_predict and plan_place: hot-block
 * entries in block order, then SRAM entries in section order, then pins; strategy "edited"
 * after a hand edit, the planner's after a preset. Every automatic colour is resolved, in
 * block order: the function starts where its lines add the least conflict (set_load, the
 * colouring planner's measure, with the editor's heat) to the often-executed lines placed
 * before it (in front of the hot block and in the block before it), trying every start
 * its alignment allows within one cache way and the padding the budget leaves after the
 * entries before it; ties go to less padding, and with no gain it is packed as a plain hot
 * entry. Deterministic. Owned by the editor, valid until the next edit, undo or redo. */
const xb_layout *editor_layout(const xb_editor *ed);
/* Where the linker will put everything under it (layout_place_calls with the calls);
 * same lifetime. */
const xb_placement *editor_placement(const xb_editor *ed);

/* One function's pending placement (that of its unit). */
typedef struct xb_edit_func {
	enum xb_place place;   /* as editor_layout places it, except that an automatic colour
				* packed as a plain hot entry is still XB_PLACE_COLOUR */
	bool auto_colour;      /* the editor chooses its colour */
	uint32_t way_offset;   /* XB_PLACE_COLOUR: where it starts in the way (resolved) */
	bool pinned;
	long position;         /* index in the hot block (HOT, COLOUR) or in the RAM function
				* section (SRAM); -1 in default flash */
} xb_edit_func;
void editor_function(const xb_editor *ed, int func, xb_edit_func *out);

/* Whether func could go to `to` at all (not counting pins and budgets); 0, or -1 with
 * the reason in err. */
int editor_can_place(xb_editor *ed, int func, enum xb_place to, xb_err *err);

typedef struct xb_edit_usage {
	uint32_t extra_ram;    /* xb_placement.extra_ram */
	uint32_t pad_bytes;    /* colouring padding */
	uint32_t hot_bytes;    /* size of the hot block, padding included */
	uint32_t veneer_bytes_flash, veneer_bytes_ram;
	uint32_t sram_budget, pad_budget;
	size_t functions[XB_PLACE_NOALLOC + 1]; /* functions (first of aliases) by pending
						 * enum xb_place */
	size_t auto_colours;   /* of functions[XB_PLACE_COLOUR], those the editor colours */
	size_t pinned;
} xb_edit_usage;
void editor_usage(const xb_editor *ed, xb_edit_usage *out);

/* How a function's pending placement differs from another layout's (bits). */
enum {
	XB_EDIT_DIFF_PLACE = 1,    /* another placement (default, hot, colour, SRAM) */
	XB_EDIT_DIFF_OFFSET = 2,   /* coloured in both, at another way offset */
	XB_EDIT_DIFF_ORDER = 4,    /* in the hot block (or SRAM) of both, at another position */
	XB_EDIT_DIFF_PIN = 8,      /* pinned in one only */
};
/* Compares the pending layout (resolved) with other (e.g. the flashed one, over the same
 * image): marks (img->nfuncs entries, or NULL) gets the bits of every function (aliases
 * and functions of one input section alike). Returns the number of functions (first of
 * aliases) with a placement, offset or order difference. */
size_t editor_compare(const xb_editor *ed, const xb_layout *other, uint8_t *marks);

/* ---- files ---- */

/* layout.txt (layout_write_file) with the pins; automatic colours are written resolved. */
int editor_save_layout(const xb_editor *ed, const char *path, xb_err *err);
/* The SRAM functions' names, as names.txt of snippet_write_all. Both write atomically. */
int editor_save_names(const xb_editor *ed, const char *path, xb_err *err);

#endif
