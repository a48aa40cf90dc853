/* plan_internal: what the planner files share (not part of the public plan API). */
#ifndef XB_PLAN_INTERNAL_H
#define XB_PLAN_INTERNAL_H

#include "plan.h"
#include "plan_heat.h"

uint32_t plan_align_up(uint32_t v, uint32_t a);

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

/* Colours funcs[0..n) (hottest first) after the entries already in out; when the result
 * is predicted no better than the same functions packed in order, the packed order is
 * kept instead. */
int plan_colour_or_pack(const xb_plan_input *in, const xb_heat *h, const int *funcs,
			size_t n, xb_layout *out, xb_err *err);

#endif
