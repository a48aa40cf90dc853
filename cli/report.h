/* report: printing a layout's prediction beside the stock layout's, as text or JSON. */
#ifndef XB_CLI_REPORT_H
#define XB_CLI_REPORT_H

#include <stdio.h>

#include "../core/plan.h"
#include "../core/plan_inputs.h"

typedef struct cli_report {
	const char *strategy;
	const char *elf, *map, *trace, *samples, *layout_dir;
	size_t functions_hot, functions_coloured, functions_sram, functions_noalloc;
	xb_prediction layout, stock;
	const xb_image *img;         /* set by cli_report_predict, with: */
	const xb_layout *l;          /* the layout (its refusals are printed) */
	char **startup;              /* the start-up path's functions, which stay in flash
				      * (plan_stay_in_flash), in address order */
	size_t nstartup, startup_cap;
} cli_report;

/* Fills r's layout and stock predictions and the layout's entry counts. */
int cli_report_predict(cli_report *r, const xb_plan_input *in, const xb_layout *l, xb_err *err);
void cli_report_print(const cli_report *r, int json, FILE *f);
void cli_report_free(cli_report *r);

#endif
