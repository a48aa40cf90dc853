/* plan_heat: how often each flash line and function runs, from a trace or from samples; the
 * common input of every planner and of the sample conflict model. */
#ifndef XB_PLAN_HEAT_H
#define XB_PLAN_HEAT_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"

typedef struct xb_heat_line {
	uint32_t line;      /* line address in the normal flash alias */
	double heat;        /* trace: visits per echo (a fetch more than a few hundred trace
			     * entries after the line's last one starts a visit); samples: the
			     * function's net samples spread evenly over its lines */
} xb_heat_line;

typedef struct xb_heat {
	const xb_image *img;
	uint32_t line_size;
	int from_trace;
	double *func;        /* per image function (first of aliases): sum of its line heats */
	xb_heat_line *lines; /* sorted by line address */
	size_t nlines;
	double hot_threshold; /* a line at or above it is "often executed" */
} xb_heat;

/* Builds the heat of the image's flash lines: from the trace when one is given, else from
 * the profile. Fails if neither is given. */
int heat_build(xb_heat *h, const xb_plan_input *in, xb_err *err);
void heat_free(xb_heat *h);

/* Indices of the functions that may be planned (in flash, with an input section, first of
 * their aliases, heat > 0; one per input section, the hottest), hottest first (ties by
 * address). Returns the count; *out is
 * allocated. */
size_t heat_hot_functions(const xb_heat *h, int **out);

/* The heat of the lines of the stock range [addr, addr + size) (an input section) if it
 * started at `start` (any alignment): out[j] is the heat of relative line j (line index
 * (start >> log2(line)) + j). Returns the number of lines; out must hold size/line + 2
 * entries. */
size_t heat_range_lines(const xb_heat *h, uint32_t addr, uint32_t size, uint32_t start,
			double *out);

#endif
