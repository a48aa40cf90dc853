/* report: printing a layout's prediction beside the stock layout's, as text or JSON. */
#ifndef XB_CLI_REPORT_H
#define XB_CLI_REPORT_H

#include <stdio.h>

#include "../core/plan.h"

typedef struct cli_report {
	const char *strategy;
	const char *elf, *map, *trace, *samples, *layout_dir;
	size_t functions_hot, functions_coloured, functions_sram;
	xb_prediction layout, stock;
} cli_report;

/* Fills r's layout and stock predictions and the layout's entry counts. */
int cli_report_predict(cli_report *r, const xb_plan_input *in, const xb_layout *l, xb_err *err);
void cli_report_print(const cli_report *r, int json, FILE *f);

/* Loads --samples and --trace files into in (either may be NULL) and builds the profile;
 * prints errors. The caller frees with cli_inputs_free. */
typedef struct cli_inputs {
	xb_samples samples;
	xb_profile prof;
	xb_trace trace;
	int have_samples, have_trace;
} cli_inputs;
int cli_inputs_load(const char *cmd, const char *samples, const char *trace, const xb_image *img,
		    const xb_target *tg, cli_inputs *ci, xb_plan_input *in);
void cli_inputs_free(cli_inputs *ci);

#endif
