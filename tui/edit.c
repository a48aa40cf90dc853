/* edit: the workbench's layout loop: the pending layout (core/layout_edit.h) over the image
 * the session started with, the loop that relinks, verifies, flashes and measures it
 * (session/editloop.h), the run history the compare panel reads, and the actions that
 * drive them (the Layout and Loop groups of the actions table). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/export.h"
#include "../core/setmap.h"
#include "../session/editloop.h"
#include "app.h"
#include "edit.h"

#define EDIT_DEFAULT_SRAM 8192u
#define EDIT_DEFAULT_PAD 32768u

/* The study's method (the experiment's full one). */
static const uint32_t method_rates[] = {50,   100,  150,  200,  300,  400,  500,  750,  1000,
					1250, 1500, 1750, 2000, 2500, 3000, 3500, 4000, 5000};

/* ---- Opening ---- */

static double opt_number(const xb_app *a, const char *name, double def)
{
	double v = options_number(&a->opt, name);
	return isnan(v) ? def : v;
}

/* The build and flash commands from the options: a build command replaces the demo
 * firmware's Makefile; a template that does not parse keeps what was there. */
static int set_commands(xb_app *a, xb_err *err)
{
	app_edit *e = a->edit;
	const char *bc = options_text(&a->opt, "build-command");
	const char *fc = options_text(&a->opt, "flash-command");
	if (bc) {
		xb_builder_config cfg = {.command = bc};
		if (builder_command.check(&cfg, err) != 0)
			return xb_fail(err, "build-command: %s", err->msg);
		free(e->build_command);
		e->build_command = xstrdup(bc);
		e->builder = (xb_builder){.ops = &builder_command, .cfg = {.command = e->build_command}};
		e->have_builder = 1;
	}
	if (fc) {
		xb_builder_config cfg = {.command = fc};
		if (builder_command.check(&cfg, err) != 0)
			return xb_fail(err, "flash-command: %s", err->msg);
	}
	free(e->flash_command);
	e->flash_command = fc ? xstrdup(fc) : NULL;
	if (e->loop) {
		editloop_set_builder(e->loop, e->have_builder ? &e->builder : NULL);
		editloop_set_flash_command(e->loop, e->flash_command);
	}
	return 0;
}

int edit_set_commands(xb_app *a, xb_err *err)
{
	return a->edit ? set_commands(a, err) : xb_fail(err, "no layout loop");
}

int edit_open(xb_app *a, const char *demo_build)
{
	app_edit *e = xcalloc(1, sizeof *e);
	a->edit = e;
	setmap_init(&e->pending_sets, &a->tg);
	const char *work = options_text(&a->opt, "work-dir");
	e->work = work ? xstrdup(work) : xb_cache_path("work");
	const char *hist = options_text(&a->opt, "history");
	e->history = hist ? xstrdup(hist) : xasprintf("%s/runs.db", e->work);
	xb_err err;
	if (demo_build) {
		e->builder = (xb_builder){.ops = &builder_make};
		e->have_builder = 1;
	}
	if (set_commands(a, &err) != 0)
		app_message(a, 1, "%s", err.msg);
	xb_editloop_config c = {
		.builder = e->have_builder ? &e->builder : NULL,
		.work_dir = e->work,
		.build_dir = demo_build,
		.flash_command = e->flash_command,
		.measure = {.pings = (unsigned)opt_number(a, "measure-pings", 300), .interval_ms = 20,
			    .ping_size = 56, .footprint_ms = 20, .rates = method_rates,
			    .nrates = sizeof method_rates / sizeof *method_rates, .step_s = 0.1,
			    .gap_s = 0.05, .passes = 3, .udp_size = 64},
		.profile = {.pings = (unsigned)opt_number(a, "measure-pings", 300), .interval_ms = 20,
			    .ping_size = 56},
		.turbo = opt_number(a, "turbo", 64),
		.history = e->history,
		.base_map = options_text(&a->opt, "map"),
		.groups = options_text(&a->opt, "groups"),
	};
	e->loop = editloop_new(a->s, &c, &err);
	if (!e->loop) {
		snprintf(e->why_not, sizeof e->why_not, "%s", err.msg);
		logring_add(session_log_mut(a->s), session_now(a->s), XB_LOG_XIPBENCH, XB_LOG_WARN,
			    e->why_not);
		return 0;
	}
	xb_plan_input *in = editloop_plan_input(e->loop);
	in->sram_budget = (uint32_t)opt_number(a, "sram-budget", EDIT_DEFAULT_SRAM);
	in->pad_budget = (uint32_t)opt_number(a, "pad-budget", EDIT_DEFAULT_PAD);
	e->ed = editor_new(in, NULL, &err);
	if (!e->ed)
		snprintf(e->why_not, sizeof e->why_not, "the layout editor: %s", err.msg);
	return 0;
}

static void free_runs(app_edit *e)
{
	for (size_t i = 0; i < e->nruns; i++)
		history_run_free(e->runs[i]);
	free(e->runs);
	e->runs = NULL;
	e->nruns = 0;
}

void edit_close(xb_app *a)
{
	app_edit *e = a->edit;
	if (!e)
		return;
	editor_free(e->ed);
	editloop_free(e->loop);
	setmap_free(&e->pending_sets);
	free_runs(e);
	free(e->build_command);
	free(e->flash_command);
	free(e->work);
	free(e->history);
	free(e);
	a->edit = NULL;
}

/* ---- The loop's place in the main loop ---- */

int edit_pollfds(xb_app *a, struct pollfd *fds, int max)
{
	return a->edit && a->edit->loop ? editloop_pollfds(a->edit->loop, fds, max) : 0;
}

int edit_timeout_ms(xb_app *a)
{
	return a->edit && a->edit->loop ? editloop_timeout_ms(a->edit->loop) : -1;
}

void edit_pump(xb_app *a)
{
	app_edit *e = a->edit;
	if (!e || !e->loop)
		return;
	int before = editloop_state(e->loop);
	editloop_pump(e->loop);
	int after = editloop_state(e->loop);
	if (before == XB_LOOP_RUNNING && after != XB_LOOP_RUNNING) {
		const xb_report *r = editloop_result(e->loop);
		app_message(a, after == XB_LOOP_FAILED, "%s", r->msg);
	}
}

/* ---- The model ---- */

/* A cheap fingerprint of a layout, to see when it changed. */
static uint64_t layout_key(const xb_layout *l)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < l->n; i++) {
		uint64_t v = (uint64_t)(uint32_t)l->e[i].func << 32 ^ (uint64_t)l->e[i].place << 28 ^
			     l->e[i].way_offset;
		h = (h ^ v) * 1099511628211ull;
	}
	return h ^ l->n;
}

static int keep_run(void *ctx, const xb_run *r)
{
	*(xb_run **)ctx = history_run_dup(r);
	return 1;
}

/* Reads every run again (with its profile and set map) after the loop recorded one; a
 * database another process holds is tried again on the next frame (never waited for). */
static void read_history(xb_app *a)
{
	app_edit *e = a->edit;
	unsigned v = editloop_history_version(e->loop);
	if (e->history_read && v == e->history_version)
		return;
	struct stat st;
	if (stat(e->history, &st) != 0) {
		e->history_read = 1; /* nothing recorded yet */
		e->history_version = v;
		return;
	}
	xb_history *h;
	xb_err err;
	if (history_open_flags(&h, e->history, HISTORY_SHORT_WAIT, &err) != 0)
		return;
	int64_t *ids;
	size_t n;
	if (history_ids(h, &ids, &n, &err) == 0) {
		free_runs(e);
		e->runs = xcalloc(n ? n : 1, sizeof *e->runs);
		for (size_t i = 0; i < n; i++) {
			xb_run *got = NULL;
			if (history_get(h, ids[i], keep_run, &got, &err) == 0 && got)
				e->runs[e->nruns++] = got;
		}
		e->history_read = 1;
		e->history_version = v;
		free(ids);
	}
	history_close(h);
}

/* The pending layout's prediction and set map, again when it changed. */
static void pending_figures(xb_app *a)
{
	app_edit *e = a->edit;
	xb_plan_input *in = editloop_plan_input(e->loop);
	if (e->heat_version != editloop_inputs_version(e->loop)) {
		xb_err err;
		if (in->prof || in->trace)
			editor_update_heat(e->ed, in->prof, in->trace, &err);
		e->heat_version = editloop_inputs_version(e->loop);
		e->have_pending_key = 0;
	}
	const xb_layout *l = editor_layout(e->ed);
	uint64_t key = layout_key(l);
	if (e->have_pending_key && key == e->pending_key)
		return;
	e->pending_key = key;
	e->have_pending_key = 1;
	/* the editor holds the pending layout's placement: predicted without placing again */
	xb_err err;
	if (!(in->prof || in->trace) ||
	    plan_predict_placed(in, editor_placement(e->ed), &e->pending, &err) != 0) {
		memset(&e->pending, 0, sizeof e->pending); /* no model: no prediction */
		e->pending.misses_per_echo = e->pending.opt_bound_per_echo = NAN;
		e->pending.footprint_lines = NAN;
	}
	e->have_pending_sets = 0;
	if (in->prof) {
		setmap_update_moved(&e->pending_sets, in->tg, in->prof, editor_placement(e->ed));
		e->have_pending_sets = 1;
	}
}

void edit_update_model(xb_app *a)
{
	app_edit *e = a->edit;
	xb_model *m = &a->model;
	if (e && !e->loop)
		m->ed_why = e->why_not;
	if (!e || !e->loop)
		return;
	xb_editloop *l = e->loop;
	xb_plan_input *in = editloop_plan_input(l);
	m->ed_why = e->why_not[0] ? e->why_not : NULL;
	m->base = in->img;
	m->plan_prof = in->prof;
	m->ed = e->ed;
	const xb_loop_image *f = editloop_flashed(l);
	m->flashed_layout = &f->layout;
	snprintf(e->flashed_name, sizeof e->flashed_name, "%s", f->name);
	m->flashed = (xb_model_image){.name = e->flashed_name,
				      .measured = f->m.misses_per_echo,
				      .predicted = f->pred.model ? f->pred.misses_per_echo : NAN,
				      .opt_bound = f->pred.model ? f->pred.opt_bound_per_echo : NAN,
				      .turnaround_ms = f->m.turnaround_ms,
				      .peak_udp = f->m.peak_udp_echo_per_s,
				      .footprint = f->m.footprint_lines,
				      .extra_ram = f->pred.model ? f->pred.extra_ram : f == editloop_good_image(l, 0) ? 0 : NAN};
	if (e->ed) {
		pending_figures(a);
		m->pending = e->pending;
		m->pending_sets = e->have_pending_sets ? &e->pending_sets : NULL;
	}
	m->loop_running = editloop_state(l) == XB_LOOP_RUNNING;
	m->loop_failed = editloop_state(l) == XB_LOOP_FAILED;
	m->loop_fraction = editloop_fraction(l);
	snprintf(e->progress, sizeof e->progress, "%s", editloop_progress(l));
	snprintf(e->result, sizeof e->result, "%s", editloop_result(l)->msg);
	m->loop_progress = e->progress;
	m->loop_result = e->result;
	m->history = e->history;
	read_history(a);
	m->runs = (const xb_run *const *)e->runs;
	m->nruns = e->nruns;
}
