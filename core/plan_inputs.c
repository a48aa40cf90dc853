/* plan_inputs: the calls, profile and trace a planner reads, and the layout folder it
 * writes. */
#include "plan_inputs.h"

#include <stdlib.h>
#include <string.h>

#include "snippet.h"

int plan_inputs_load(xb_plan_inputs *pi, const char *samples, const char *trace, xb_plan_input *in,
		     xb_err *err)
{
	memset(pi, 0, sizeof *pi);
	samples_init(&pi->samples);
	trace_init(&pi->trace);
	calls_init(&pi->calls);
	if ((in->img->path && calls_load_elf(&pi->calls, in->img->path, err) != 0) ||
	    (samples && samples_read_file(&pi->samples, samples, err) != 0) ||
	    (trace && trace_read_file(&pi->trace, trace, err) != 0)) {
		plan_inputs_free(pi);
		return -1;
	}
	in->calls = &pi->calls;
	if (samples) {
		profile_build(&pi->prof, in->img, &pi->samples, in->tg->cache.line);
		pi->have_samples = 1;
		in->prof = &pi->prof;
	}
	if (trace) {
		pi->have_trace = 1;
		in->trace = &pi->trace;
	}
	return 0;
}

void plan_inputs_set_samples(xb_plan_inputs *pi, const xb_samples *s, xb_plan_input *in)
{
	if (pi->have_samples)
		profile_free(&pi->prof);
	samples_free(&pi->samples);
	samples_init(&pi->samples);
	for (size_t i = 0; i < s->n; i++)
		samples_push(&pi->samples, s->s[i].pc, s->s[i].flags);
	pi->samples.busy_seconds = s->busy_seconds;
	pi->samples.idle_seconds = s->idle_seconds;
	profile_build(&pi->prof, in->img, &pi->samples, in->tg->cache.line);
	pi->have_samples = 1;
	in->prof = &pi->prof;
}

int plan_inputs_load_trace(xb_plan_inputs *pi, const char *path, xb_plan_input *in, xb_err *err)
{
	xb_trace t;
	if (trace_read_file(&t, path, err) != 0)
		return -1;
	trace_free(&pi->trace);
	pi->trace = t;
	pi->have_trace = 1;
	in->trace = &pi->trace;
	return 0;
}

void plan_inputs_free(xb_plan_inputs *pi)
{
	if (pi->have_samples)
		profile_free(&pi->prof);
	samples_free(&pi->samples);
	trace_free(&pi->trace);
	calls_free(&pi->calls);
	memset(pi, 0, sizeof *pi);
}

int plan_write_layout_dir(const xb_plan_input *in, const xb_layout *l, const char *dir, xb_err *err)
{
	if (xb_mkdirs(dir, err) != 0 || snippet_write_all(in->img, in->tg, l, dir, err) != 0)
		return -1;
	char *lpath = xasprintf("%s/layout.txt", dir);
	char *apath = xasprintf("%s/addresses.txt", dir);
	xb_placement pl;
	int rc = layout_write_file(l, in->img, lpath, err);
	if (rc == 0 && (rc = plan_place(in, l, &pl, err)) == 0) {
		rc = placement_write_addresses(in->img, &pl, apath, err);
		placement_free(&pl);
	}
	free(lpath);
	free(apath);
	return rc;
}
