/* plan_inputs: what a planner and a prediction read besides the image: the image's calls
 * (for the long-branch veneers of SRAM layouts), a profile from PC samples and a fetch
 * trace, loaded from files or handed over, and the xb_plan_input that points at them. */
#ifndef XB_PLAN_INPUTS_H
#define XB_PLAN_INPUTS_H

#include "plan.h"
#include "profile.h"
#include "trace.h"

typedef struct xb_plan_inputs {
	xb_samples samples;
	xb_profile prof;
	xb_trace trace;
	xb_calls calls;
	int have_samples, have_trace;
} xb_plan_inputs;

/* Reads the image's calls from its ELF (img->path) and, when given, a samples file (the
 * profile is built against img) and a trace file; points in->calls, in->prof and
 * in->trace at them (in->img and in->tg must be set). On failure (err names the file)
 * nothing is left to free and in is unchanged. */
int plan_inputs_load(xb_plan_inputs *pi, const char *samples, const char *trace, xb_plan_input *in,
		     xb_err *err);
/* Replaces the profile by one built from s (copied) against in->img; in->prof points at
 * it. */
void plan_inputs_set_samples(xb_plan_inputs *pi, const xb_samples *s, xb_plan_input *in);
/* Replaces the trace by the file's; on failure the old one stays (and in is unchanged). */
int plan_inputs_load_trace(xb_plan_inputs *pi, const char *path, xb_plan_input *in, xb_err *err);
void plan_inputs_free(xb_plan_inputs *pi);

/* Writes a layout folder to dir (created): layout.txt, addresses.txt (the addresses
 * plan_place gives, veneers included) and the linker fragments (core/snippet.h): what
 * `xipbench plan --out` writes and a relink reads. */
int plan_write_layout_dir(const xb_plan_input *in, const xb_layout *l, const char *dir, xb_err *err);

#endif
