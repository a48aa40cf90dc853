/* verify: is a relinked image what the plan said? Every function of the stock image at the
 * address the layout's placement predicts (the hot block in its order, coloured functions
 * at their planned offset in the cache way, SRAM functions in SRAM, every other function
 * where the placement moved it), the linker's long-branch veneers where the placement
 * expects them (a difference there is a note: it moves no function), no function missing
 * and none new. A relink that fails this is not flashed. */
#ifndef XB_VERIFY_H
#define XB_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "layout.h"
#include "plan.h"
#include "target.h"
#include "util.h"

/* What the plan made of a function (the layout's place; OTHER: left to the general rules). */
enum xb_verify_role {
	XB_VERIFY_HOT = 0,
	XB_VERIFY_COLOUR,
	XB_VERIFY_SRAM,
	XB_VERIFY_NOALLOC,  /* in the no-allocate section (the non-allocating flash alias) */
	XB_VERIFY_OTHER,
	XB_VERIFY_VENEER,   /* a long-branch veneer GNU ld made (__NAME_veneer) */
	XB_VERIFY_MISSING,  /* a stock function the built image does not have */
	XB_VERIFY_NEW,      /* a function of the built image the stock image does not have */
};

enum xb_verify_kind {
	XB_VERIFY_MOVED = 0, /* at another address than predicted */
	XB_VERIFY_WAY,       /* coloured: at another offset in the cache way than planned */
	XB_VERIFY_NOT_SRAM,  /* planned for SRAM, found elsewhere */
	XB_VERIFY_RESIZED,   /* another size than in the stock image */
	XB_VERIFY_ABSENT,    /* expected, not in the built image */
	XB_VERIFY_UNEXPECTED,/* in the built image, not expected */
};

typedef struct xb_verify_problem {
	char *name;          /* the stock image's qualified name (image_qualified_name), or
			      * the built image's for NEW functions and veneers */
	int role;            /* enum xb_verify_role */
	int kind;            /* enum xb_verify_kind */
	uint32_t expected;   /* the predicted address (0 for UNEXPECTED) */
	uint32_t found;      /* the address in the built image (0 for ABSENT) */
	uint32_t expected_size, found_size; /* RESIZED */
	uint32_t way_offset, found_offset;  /* WAY: planned and found offsets in the way */
} xb_verify_problem;

typedef struct xb_verify_result {
	xb_verify_problem *problems; /* functions, in the order of the stock image's
				      * addresses, then the new ones */
	size_t nproblems, cap;
	xb_verify_problem *notes;    /* veneers (role VENEER) that differ from the placement's
				      * model: moved, unexpected, absent. Not failures: a
				      * veneer moves no function (every function is checked),
				      * but the prediction's veneer fetches and bytes were off */
	size_t nnotes, notes_cap;
	size_t functions;    /* stock functions (aliases not counted) */
	size_t placed;       /* of those, where the plan put them */
	size_t hot, coloured, sram, noalloc; /* of those, by role */
	size_t veneers;      /* veneers of the built image where the placement predicted */
	size_t veneers_built, veneers_predicted;
	uint32_t *veneer_built; /* per veneer of the placement (its order): the address of the
				 * built veneer paired with it, or 0 when none is */
} xb_verify_result;

/* Compares the built image with the stock image under the layout l and its placement p
 * (layout_place_calls of the stock image, with its calls so that veneers are modelled;
 * p->n must be stock->nfuncs). stock needs its map only as far as p did; built needs no
 * map (with one, same-named static functions are told apart by their objects).
 *
 * Functions are matched by name; where several share a name, by their qualified names
 * when both images have maps, else by their source file (STT_FILE) and size, else in
 * address order; functions left over are matched by base name and size (an LTO clone
 * renumbered, foo.lto_priv.0 -> foo.lto_priv.1). Aliases are checked but not counted, and
 * reported only when their first function is not.
 * Veneers (built functions named __NAME_veneer that the stock image lacks) are paired with
 * the placement's by the function they call and compared by stub section (GNU ld orders
 * veneers within one by a hash, which the placement does not model: the section's set of
 * addresses is compared); what differs becomes a note, not a problem. GNU ld makes one
 * veneer per called symbol, so calls through several aliases of one function (LTO folds
 * identical functions) get several, where the placement predicts one.
 * On Zephyr's code relocation route (p->code_relocation) the relink adds the copy: the
 * new data_copy_xip_relocation and bss_zeroing_relocation, and functions of the start-up
 * path (core/startup.h) that grow or move in flash, become notes too.
 * tg gives the cache way (colouring) and the SRAM region.
 *
 * Returns 0 with out filled (verified or not: verify_ok), -1 with err when the inputs do
 * not belong together. verify_free frees out. */
int verify_image(const xb_image *stock, const xb_target *tg, const xb_layout *l,
		 const xb_placement *p, const xb_image *built, xb_verify_result *out,
		 xb_err *err);
void verify_free(xb_verify_result *r);
int verify_ok(const xb_verify_result *r);

/* The relinked image `built` opens against layout l placed over in's stock image (its
 * calls for the veneers), verified with verify_image: 0 with out filled, -1 with err when
 * the image cannot be opened, the layout placed or the two compared. */
int verify_relink(const xb_plan_input *in, const xb_layout *l, const xb_image_open *built,
		  xb_verify_result *out, xb_err *err);

/* verify_relink, then, when pred is not NULL and the image verifies, plan_predict for it:
 * the placement with each veneer where GNU ld put it (the order of a stub section's veneers
 * is ld's own), so that the replay fetches the veneers the board fetches. */
int verify_relink_predict(const xb_plan_input *in, const xb_layout *l,
			  const xb_image_open *built, xb_verify_result *out, xb_prediction *pred,
			  xb_err *err);

/* "hot", "colour", "SRAM", "noalloc", "other", "veneer", "missing", "new". */
const char *verify_role_name(int role);
/* "moved", "way", "not-sram", "resized", "absent", "unexpected". */
const char *verify_kind_name(int kind);
/* One problem: "foo (SRAM: expected 0x20000120, found 0x20000128)". */
void verify_problem_text(const xb_verify_problem *pr, xb_strbuf *out);
/* One line: "509 functions where the plan put them: 37 in the hot block, 12 coloured, 20
 * in SRAM; 110 veneers where predicted" (or "; 97 of 110 veneers where predicted (104
 * predicted)" with notes), or "verification failed: 3 functions are not where the plan
 * put them: foo (...), bar (...), baz (...)" (the first three problems, "and N more"). */
void verify_summary(const xb_verify_result *r, xb_strbuf *out);

#endif
