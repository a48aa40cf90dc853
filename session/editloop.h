/* editloop: the study's loop for a layout, on the session's bench, driven from the caller's
 * loop (it never blocks it): the planning profile (the study's profile run: PC samples and,
 * on the virtual bench, a fetch trace), then for one layout: its folder written
 * (fragments, layout.txt, addresses.txt) and its cost predicted, the firmware relinked by a
 * builder (build_job.h), the new image verified against the plan (core/verify.h) before
 * anything is flashed, flashed in place through the session's probe (or an external flash
 * command), brought up, measured by the study's method (session_measure) and recorded in
 * the run history. A failed step keeps the last good image and layout on the board; the
 * images that were good stay, so the loop can go back to any of them. */
#ifndef XB_SESSION_EDITLOOP_H
#define XB_SESSION_EDITLOOP_H

#include <poll.h>
#include <stdint.h>

#include "../core/history.h"
#include "../core/plan_inputs.h"
#include "builder.h"
#include "session.h"

typedef struct xb_editloop_config {
	const xb_builder *builder;  /* how a layout is relinked (borrowed; NULL: it cannot be) */
	const char *work_dir;       /* layouts/NAME/, images/NAME.elf, the planning profile */
	const char *build_dir;      /* the builder's own folder (make: BUILD_DIR, where the
				     * objects are); NULL: WORK_DIR/build */
	const char *flash_command;  /* NULL: flash through the session's probe; else a command
				     * template ({elf}, {name}: builder_command's rules) that
				     * writes the image, after which the session resets the core */
	xb_measure_plan measure;    /* the study's method */
	xb_profile_plan profile;    /* the planning profile's pings (samples, trace set here) */
	double turbo;               /* a live virtual bench runs this many times real time
				     * while a step waits for the board (0: as it is) */
	const char *history;        /* the run history (NULL: runs are not recorded) */
	const char *variant;        /* the build variant, for the history ("stock" default) */
	const char *base_map;       /* the base image's map (NULL: next to it) */
	const char *groups;         /* display groups (NULL: the shipped default) */
} xb_editloop_config;

/* What one run of the loop does (any combination; the order is fixed). */
enum {
	XB_LOOP_PROFILE = 1 << 0, /* the planning profile of the flashed (base) image */
	XB_LOOP_RELINK = 1 << 1,  /* write the layout's folder, predict, relink, verify */
	XB_LOOP_FLASH = 1 << 2,   /* flash the relinked (or a kept) image, bring it up */
	XB_LOOP_MEASURE = 1 << 3, /* measure the flashed image and record the run */
	XB_LOOP_ALL = XB_LOOP_RELINK | XB_LOOP_FLASH | XB_LOOP_MEASURE,
};

/* The steps, in order, as editloop_step reports them. */
enum xb_loop_step {
	XB_STEP_NONE = 0,
	XB_STEP_PROFILE,
	XB_STEP_WRITE,
	XB_STEP_RELINK,
	XB_STEP_VERIFY,
	XB_STEP_FLASH,
	XB_STEP_BRINGUP,
	XB_STEP_MEASURE,
	XB_STEP_SWEEP,     /* another pass of the UDP step sweep, after a new flash */
	XB_STEP_RECORD,
};
const char *editloop_step_name(int step); /* "relink", "verify" ... */

enum xb_loop_state { XB_LOOP_IDLE = 0, XB_LOOP_RUNNING, XB_LOOP_DONE, XB_LOOP_FAILED };

/* An image of the loop: the base (the image the session started with: layouts are planned
 * on it) or a relink, with its layout over the base image, what was predicted and what
 * was measured (NaN: not yet). */
typedef struct xb_loop_image {
	char name[64];              /* "stock", "colour-2" ... */
	char *elf, *map;
	xb_layout layout;           /* over the base image (empty for the base) */
	xb_prediction pred;         /* predicted before the relink (model NULL: none) */
	xb_measure_result m;        /* misses_per_echo NaN until measured */
	int64_t run;                /* its run in the history (0: none yet) */
	int64_t parent;             /* the run of the image it was made from */
} xb_loop_image;

typedef struct xb_editloop xb_editloop;

/* A loop on session s (borrowed: it must outlive the loop) whose base image is the one
 * the session runs now, loaded again with its map and alignments for planning. NULL with
 * err (a base image without a map cannot be planned on). */
xb_editloop *editloop_new(xb_session *s, const xb_editloop_config *c, xb_err *err);
void editloop_free(xb_editloop *l);

/* Another builder from the next relink on (borrowed; NULL: none), and another flash
 * command (copied; NULL: flash through the probe). */
void editloop_set_builder(xb_editloop *l, const xb_builder *b);
void editloop_set_flash_command(xb_editloop *l, const char *command);

/* The planning inputs over the base image: image, target, calls, and the profile and
 * trace once the planning profile ran (or was loaded); their version grows each time
 * they change (the layout editor's heat follows them). */
xb_plan_input *editloop_plan_input(xb_editloop *l);
unsigned editloop_inputs_version(const xb_editloop *l);
/* Takes a samples file and/or a trace file of the base image as the planning inputs. */
int editloop_load_inputs(xb_editloop *l, const char *samples, const char *trace, xb_err *err);

/* ---- Starting (0, or -1 with rep: BUSY while a run is going, BAD_ARGUMENT ...) ---- */

/* The measurement follows the study's method: its UDP sweep passes each start from a new
 * flash of the image (the peak is the highest reply rate of any pass), except for a
 * measurement under another name (see below), whose condition a flash would undo.
 *
 * Runs the steps for layout (over the base image; copied; NULL: the flashed image's own
 * layout, e.g. to measure it); name names the layout's folder and image (a safe file
 * name; NULL: one is made). A measurement alone with a name records the flashed image
 * under that name as a run of its own (its parent the flashed image's run), e.g. after the
 * cache was switched off: the flashed image's own figures stay. */
int editloop_start(xb_editloop *l, const xb_layout *layout, const char *name, unsigned steps,
		   xb_report *rep);
/* Goes back to the good image before the flashed one (flashes it again and brings it up;
 * the flashed one is forgotten as good). */
int editloop_revert(xb_editloop *l, xb_report *rep);
/* Stops the step that is running (a build is killed, a measurement ends); the board keeps
 * the last good image (a flash in progress completes first). */
void editloop_cancel(xb_editloop *l);

/* ---- The caller's loop ---- */

int editloop_pollfds(xb_editloop *l, struct pollfd *fds, int max);
int editloop_timeout_ms(xb_editloop *l);
/* Does what is due (call it after session_pump). */
void editloop_pump(xb_editloop *l);

/* ---- What there is to show ---- */

int editloop_state(const xb_editloop *l);
int editloop_step(const xb_editloop *l);
/* "relinking colour-2: [12/40]", "measuring: idle window, then 300 pings" ... */
const char *editloop_progress(const xb_editloop *l);
/* 0..1 where the step knows (a build reporting [n/m]), else -1. */
double editloop_fraction(const xb_editloop *l);
/* How the last run ended: its status and a one-line message (the first error lines of a
 * failed build are in the session's log). */
const xb_report *editloop_result(const xb_editloop *l);
/* The flashed image (the last good one), and the images that were good before it, oldest
 * first: good[0] is the base. */
const xb_loop_image *editloop_flashed(const xb_editloop *l);
size_t editloop_good(const xb_editloop *l, const xb_loop_image **out);
const xb_loop_image *editloop_good_image(const xb_editloop *l, size_t i); /* NULL: none */
/* The image the last run made (relinked, perhaps not flashed), or NULL. */
const xb_loop_image *editloop_last(const xb_editloop *l);
/* Grows each time a run is recorded in the history (the compare view reads it again). */
unsigned editloop_history_version(const xb_editloop *l);
const char *editloop_history_path(const xb_editloop *l);

#endif
