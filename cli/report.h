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
	const xb_image *img;         /* set by cli_report_predict, with: */
	const xb_layout *l;          /* the layout (its refusals are printed) */
} cli_report;

/* Fills r's layout and stock predictions and the layout's entry counts. */
int cli_report_predict(cli_report *r, const xb_plan_input *in, const xb_layout *l, xb_err *err);
void cli_report_print(const cli_report *r, int json, FILE *f);

/* Loads --samples and --trace files into in (either may be NULL) and builds the profile;
 * also reads the image's calls (for the veneers of SRAM layouts) from its ELF. Prints
 * errors. The caller frees with cli_inputs_free. */
typedef struct cli_inputs {
	xb_samples samples;
	xb_profile prof;
	xb_trace trace;
	xb_calls calls;
	int have_samples, have_trace;
} cli_inputs;
int cli_inputs_load(const char *cmd, const char *samples, const char *trace, const xb_image *img,
		    const xb_target *tg, cli_inputs *ci, xb_plan_input *in);
void cli_inputs_free(cli_inputs *ci);

/* Writes a planned layout to out (created): layout.txt, addresses.txt (the addresses
 * plan_place gives, veneers included) and the linker fragments: what `plan --out` writes. */
int cli_plan_write(const xb_plan_input *in, const xb_layout *l, const char *out, xb_err *err);

#endif
