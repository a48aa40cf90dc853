/* plan: layout planners (hot block, cache colouring, SRAM selection, name list) and the
 * predicted cost of a layout. Every planner is deterministic: the same inputs give the same
 * layout. */
#ifndef XB_PLAN_H
#define XB_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "layout.h"
#include "profile.h"
#include "target.h"
#include "trace.h"
#include "util.h"

/* What the colouring's local search (core/plan_search.c) did. */
typedef struct xb_plan_search_stats {
	uint32_t moves, accepted, restarts;
	uint32_t trades;         /* accepted moves that traded an SRAM section for a flash one */
	uint32_t trade_checks;   /* trades the per-set model found better, judged again */
	uint32_t exchanges;      /* SRAM exchanges by exact gain (before and after the moves) */
	int timed_out;           /* stopped by search_seconds, not by search_moves: the
				  * result depends on the machine's speed */
	double start_misses, end_misses; /* misses per echo of the planning trace, by full
					  * replay: the greedy colouring's and the result's */
	double model_start, model_end;   /* the same by the search's per-set model, over the
					  * first echoes it replays (all of a short trace) */
	double seconds;
} xb_plan_search_stats;

typedef struct xb_plan_input {
	const xb_image *img;      /* with a map and resolved alignments */
	const xb_target *tg;
	const xb_profile *prof;   /* may be NULL when a trace is given */
	const xb_trace *trace;    /* may be NULL when a profile is given */
	const xb_calls *calls;    /* the image's calls (veneers); NULL: none modelled */
	uint32_t sram_budget;     /* bytes of SRAM the sram/names planners may use */
	const char *sram_libraries; /* comma-separated library names (as `info` shows them):
				   * sram/names move every function of these instead, whatever
				   * the budget; NULL: the densest functions within the budget */
	uint32_t pad_budget;      /* bytes of padding the colouring may add */
	/* With a trace, colour and sram improve the greedy colouring by a local search judged
	 * by exact replay (core/plan_search.c) for at most search_moves candidates (0: no
	 * limit) and search_seconds (0: no limit); both 0: no search. The same seed and moves
	 * give the same layout when the time limit does not end the search first. */
	uint32_t search_moves;
	double search_seconds;
	uint64_t search_seed;
	xb_plan_search_stats *search_stats; /* NULL, or gets what the search did */
} xb_plan_input;

typedef struct xb_planner {
	const char *name;         /* "hot", "colour", "sram", "names", "noalloc" */
	const char *summary;
	int (*plan)(const xb_plan_input *in, xb_layout *out, xb_err *err);
} xb_planner;

extern const xb_planner plan_hot, plan_colour, plan_sram, plan_names, plan_noalloc;
/* All planners, ended by NULL. */
extern const xb_planner *const planners[];
const xb_planner *plan_find(const char *name);

/* The predicted cost of a layout. With a trace: the trace moved to the layout's addresses
 * and replayed through the target's cache (model = "trace replay"; with the recorder's
 * window marks, misses per echo as plan_window_misses counts them, model = "trace replay,
 * measurement windows"), and the OPT bound.
 * Without a trace: a conflict model from samples (model = "sample conflict model"): the
 * often-executed lines of each set beyond the number of ways, weighted by their samples. */
typedef struct xb_prediction {
	const char *model;
	double misses_per_echo;   /* trace replay; NaN without a trace */
	double opt_bound_per_echo;/* Belady's OPT for a fully associative cache of the same
				   * size over the echoes; with window marks, the prediction
				   * less the misses OPT saves over the echoes (at least 0), so
				   * that both count as the measurement does; NaN without a
				   * trace */
	double conflict_score;    /* sample model: higher is worse; NaN without samples */
	uint64_t compulsory, capacity;
	int64_t conflict;
	uint32_t extra_ram, pad_bytes, hot_bytes;
	uint32_t veneer_bytes_flash, veneer_bytes_ram; /* long-branch veneers the layout makes */
	uint32_t sets_over_ways;  /* sets holding more often-executed lines than ways */
	double footprint_lines;   /* with a trace: the cache lines one echo's fetches touch, on
				   * average over the echoes (of the traffic windows when the trace
				   * has them); the study's measured footprint also counts the cold
				   * misses of what runs between echoes after its flush, so it reads
				   * higher. NaN without a trace */
} xb_prediction;

/* The footprint of a trace as xb_prediction.footprint_lines counts it (NaN: no echo). */
double plan_footprint(const xb_target *tg, const xb_trace *t);

/* Why each function of in->img may not go to SRAM, because it runs before the start-up
 * code has copied the RAM sections: an array of in->img->nfuncs static strings, NULL for a
 * function that may go (the caller frees the array). The reset handler always stays; with
 * a trace from reset, what it fetches before its last read of a RAM section's load image;
 * without one, the start-up path found in the code (in->calls; core/startup.h).
 * plan_select_sram, the layout editor (layout_edit_state.c) and the reports follow it. */
const char **plan_stay_in_flash(const xb_plan_input *in);

int plan_predict(const xb_plan_input *in, const xb_layout *l, xb_prediction *out, xb_err *err);
/* The same for a layout already placed (layout_place_calls with in's calls), so that a
 * caller that holds the placement does not place it again. */
int plan_predict_placed(const xb_plan_input *in, const xb_placement *p, xb_prediction *out,
			xb_err *err);

/* Misses per echo as the virtual Pico measures them: for every traffic window of t (its
 * marks), the misses in it minus those of the idle window before it, summed, over the
 * echoes that start in the traffic windows; the cache runs through the whole trace.
 * Returns 0, 1 when t has no traffic window with an echo, -1 on error. */
int plan_window_misses(const xb_target *tg, const xb_trace *t, double *per_echo, xb_err *err);

/* layout_place_calls with the input's image, target and calls. */
int plan_place(const xb_plan_input *in, const xb_layout *l, xb_placement *p, xb_err *err);

#endif
