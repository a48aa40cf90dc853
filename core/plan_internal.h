/* plan_internal: what the planner files share (not part of the public plan API). */
#ifndef XB_PLAN_INTERNAL_H
#define XB_PLAN_INTERNAL_H

#include "plan.h"
#include "plan_heat.h"

uint32_t plan_align_up(uint32_t v, uint32_t a);

/* in->trace moved to placement p and replayed: its misses per echo into *misses (left as
 * it was on failure). */
int plan_replayed_misses(const xb_plan_input *in, const xb_placement *p, double *misses,
			 xb_err *err);

/* Where the hot block starts: the placement of an empty layout says it. */
int plan_hot_block_start(const xb_plan_input *in, uint32_t *start, xb_err *err);

/* How many often-executed lines each set holds, and their heat. Under LRU a set with more
 * such lines than ways misses on every one of them; one more line in a full set costs the
 * whole set, a line in an already thrashing set costs itself. */
typedef struct set_load {
	uint32_t nsets, ways, line_shift;
	uint32_t *count;
	double *heat;
	double threshold;
} set_load;

void set_load_init(set_load *s, const xb_target *tg, double threshold);
void set_load_free(set_load *s);
/* A line that counts as often executed. */
int set_load_is_hot(const set_load *s, double h);
/* Added conflict cost of lines vec[0..n) starting at line number `line`; stops early once
 * the cost reaches `limit`. */
double set_load_cost(const set_load *s, uint32_t line, const double *vec, size_t n,
		     double limit);
void set_load_add(set_load *s, uint32_t line, const double *vec, size_t n);

/* plan_predict's conflict model from a heat already built: the heat of the often-executed
 * lines (moved with their functions to the placement's addresses) in sets that hold more of
 * them than ways; *sets_over_ways (if not NULL) gets the number of such sets. */
double plan_conflict_score(const xb_plan_input *in, const xb_heat *h, const xb_placement *p,
			   uint32_t *sets_over_ways);
/* The same with the model's sets laid out: count and heat (each NULL or target_sets(in->tg)
 * entries) get, per set, the often-executed lines it holds and their heat. */
double plan_conflict_sets(const xb_plan_input *in, const xb_heat *h, const xb_placement *p,
			  uint32_t *sets_over_ways, uint32_t *count, double *heat);


/* Whether function f runs without doing the work (an idle or busy-wait loop): it gains
 * nothing in SRAM. */
int plan_is_busy_wait(const xb_plan_input *in, int f);

/* Adds the SRAM entries to out: with in->sram_libraries every function of those
 * libraries, else the densest of hot[0..n) (heat per byte, busy-wait loops left out)
 * within in->sram_budget. A function that runs before the start-up code has copied the
 * RAM sections stays in flash and is listed in out->refused. in_sram (per map input) marks
 * the sections moved. Fails for an unknown library. */
int plan_select_sram(const xb_plan_input *in, const xb_heat *h, const int *hot, size_t n,
		     xb_layout *out, int8_t *in_sram, xb_err *err);

/* Colours funcs[0..n) (hottest first) after the entries already in out (SRAM entries; none
 * in the hot block); when the result is predicted no better than the same functions packed
 * in order, the packed order is kept instead. */
int plan_colour_or_pack(const xb_plan_input *in, const xb_heat *h, const int *funcs,
			size_t n, xb_layout *out, xb_err *err);

/* Improves the coloured layout l (misses: its replayed misses per echo, or NaN) by the
 * local search of plan_search.c within in->pad_budget; l and *misses change only for a
 * layout the full replay finds better. */
int plan_search(const xb_plan_input *in, xb_layout *l, double *misses, xb_err *err);

/* ---- cache colouring: plan_colour.c builds candidate layouts with the walk of
 * plan_colour_walk.c and keeps the best ---- */

/* An input section to place, named by its hottest function. */
typedef struct colour_section {
	int f;
	int input;
	uint32_t size, align;
	double heat;       /* of all its functions */
	double density;    /* heat per line of its size */
} colour_section;

/* A section that never runs, to lay where padding would otherwise go. */
typedef struct colour_filler {
	int f;
	uint32_t size, align;
} colour_filler;

/* What every candidate layout shares. */
typedef struct colour_job {
	const xb_plan_input *in;
	const xb_heat *h;
	const colour_section *sec;
	size_t n;
	const size_t *order[2];        /* sections by heat per line, by heat; highest first */
	const colour_filler *fill;     /* largest first */
	size_t nfill;
	uint32_t start;                /* where the hot block starts */
	const xb_heat_line *pre;       /* lines that take a way before the walk starts: those */
	size_t npre;                   /* in front of the hot block and the veneers' place */
	struct colour_shapes *shapes;  /* the walk's cache of executed lines per section */
} colour_job;

/* What varies between candidate layouts. */
typedef struct colour_params {
	uint32_t window;     /* sets sacrificed in every way for the lines that cannot stay */
	int by_heat;         /* priority by heat rather than by heat per line */
	double threshold;    /* a line at or above this heat takes a way */
} colour_params;

void colour_job_init_shapes(colour_job *j);
void colour_job_free_shapes(colour_job *j);

/* Places the job's sections for p from the hot block's start, appending one entry per
 * section (and fillers) to out, with at most pad_budget bytes of padding. Returns the
 * sample model's score of the result (the heat of the sets holding more often-executed
 * lines than ways, at the heat's own threshold); *pad gets the padding used. */
double colour_walk(colour_job *j, colour_params p, uint32_t pad_budget, xb_layout *out,
		   uint32_t *pad);

/* Whether a linker script rule can select f's input section (snippet_selector); planners
 * leave the others out with plan_why_unnamed. */
bool plan_nameable(const xb_image *img, const xb_function *f);
extern const char plan_why_unnamed[];
/* Adds a note that func stays where it is, once. */
void layout_refuse(xb_layout *l, int func, const char *why);

#endif
