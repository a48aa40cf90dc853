/* editloop: the study's loop for a layout, as a plan of steps (each on an image) that the
 * caller's loop pumps: planning profile, write and predict, relink, verify, flash, bring
 * up, measure, record. */
#include "editloop.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/export.h"
#include "../core/verify.h"
#include "build_job.h"
#include "proc.h"

#define LOOP_BRINGUP_S 30.0     /* bench seconds an image may take to come up */

typedef struct loop_step {
	int step;
	xb_loop_image *img;
} loop_step;

struct xb_editloop {
	xb_session *s;
	xb_editloop_config c;
	char *work, *bdir;
	/* the base image and the planning inputs over it */
	xb_image base;
	xb_plan_input in;
	xb_plan_inputs pi;
	unsigned inputs_version;
	/* images that were good, oldest first: the last is on the board */
	xb_loop_image **good;
	size_t ngood, cap;
	xb_loop_image *last; /* the last run's new image (in good once flashed) */
	xb_loop_image *from; /* the good image it was made from (its parent run) */
	unsigned made;       /* images made, for names */
	/* the run */
	int state;
	loop_step *plan;
	size_t nplan, plan_cap, at;
	int entered;         /* the current step has started */
	int restoring;       /* a failed flash: the last good image goes back */
	xb_report restore_why;
	xb_build_job *build;
	xb_proc *flasher;
	xb_samples samples;
	double speed_before; /* the bench's speed before turbo (0: turbo is off) */
	uint64_t deadline;   /* bench time */
	char progress[256];
	double fraction;
	xb_report result;
	/* the history */
	xb_history_writer *hw;
	uint64_t token;
	unsigned history_version;
};

static const char *const step_names[] = {
	[XB_STEP_NONE] = "", [XB_STEP_PROFILE] = "profile", [XB_STEP_WRITE] = "write",
	[XB_STEP_RELINK] = "relink", [XB_STEP_VERIFY] = "verify", [XB_STEP_FLASH] = "flash",
	[XB_STEP_BRINGUP] = "bring-up", [XB_STEP_MEASURE] = "measure", [XB_STEP_SWEEP] = "sweep",
	[XB_STEP_RECORD] = "record",
};

const char *editloop_step_name(int step)
{
	return step >= 0 && step <= XB_STEP_RECORD ? step_names[step] : "?";
}

/* A line in the session's log, from xipbench. */
#define note(l, level, ...)                                                                \
	logring_printf(session_log_mut((l)->s), session_now((l)->s), XB_LOG_XIPBENCH, (level), \
		       __VA_ARGS__)

static void set_progress(xb_editloop *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_progress(xb_editloop *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->progress, sizeof l->progress, fmt, ap);
	va_end(ap);
}

/* ---- Images ---- */

static xb_loop_image *image_new(const char *name, const char *elf, const char *map)
{
	xb_loop_image *im = xcalloc(1, sizeof *im);
	snprintf(im->name, sizeof im->name, "%s", name);
	im->elf = elf ? xstrdup(elf) : NULL;
	im->map = map ? xstrdup(map) : NULL;
	layout_init(&im->layout);
	im->m.misses_per_echo = im->m.turnaround_ms = NAN;
	im->m.peak_udp_echo_per_s = im->m.footprint_lines = NAN;
	im->pred.misses_per_echo = im->pred.opt_bound_per_echo = NAN;
	return im;
}

static void image_free_one(xb_loop_image *im)
{
	if (!im)
		return;
	free(im->elf);
	free(im->map);
	layout_free(&im->layout);
	free(im);
}

static void layout_copy(xb_layout *dst, const xb_layout *src)
{
	layout_free(dst);
	layout_init(dst);
	for (size_t i = 0; i < src->n; i++)
		layout_add(dst, src->e[i].func, src->e[i].place, src->e[i].way_offset);
	for (size_t i = 0; i < src->npins; i++)
		layout_add_pin(dst, src->pins[i]);
	snprintf(dst->strategy, sizeof dst->strategy, "%s", src->strategy);
}

static int in_good(const xb_editloop *l, const xb_loop_image *im)
{
	for (size_t i = 0; i < l->ngood; i++)
		if (l->good[i] == im)
			return 1;
	return 0;
}

static xb_loop_image *flashed(const xb_editloop *l)
{
	return l->ngood ? l->good[l->ngood - 1] : NULL;
}

/* ---- Life ---- */

xb_editloop *editloop_new(xb_session *s, const xb_editloop_config *c, xb_err *err)
{
	const char *elf = session_image_path(s);
	if (!elf) {
		xb_fail(err, "the session runs no image of its own: nothing to plan on");
		return NULL;
	}
	xb_editloop *l = xcalloc(1, sizeof *l);
	l->s = s;
	l->c = *c;
	l->work = xstrdup(c->work_dir ? c->work_dir : "xipbench-work");
	l->c.work_dir = l->work;
	l->bdir = c->build_dir ? xstrdup(c->build_dir) : xasprintf("%s/build", l->work);
	l->c.build_dir = l->bdir;
	l->c.flash_command = c->flash_command ? xstrdup(c->flash_command) : NULL;
	l->c.history = c->history ? xstrdup(c->history) : NULL;
	l->c.variant = xstrdup(c->variant ? c->variant : "stock");
	samples_init(&l->samples);
	xb_image_open io = {.elf = elf, .map = c->base_map, .groups = c->groups, .need_map = 1};
	/* on failure editloop_free takes what there is (every part starts zeroed) */
	if (image_open(&l->base, &io, session_target(s), err) != 0) {
		xb_fail(err, "%s: layouts are planned on the image with its map: %s", elf, err->msg);
		editloop_free(l);
		return NULL;
	}
	l->in = (xb_plan_input){.img = &l->base, .tg = session_target(s)};
	if (plan_inputs_load(&l->pi, NULL, NULL, &l->in, err) != 0 || xb_mkdirs(l->work, err) != 0) {
		editloop_free(l);
		return NULL;
	}
	xb_loop_image *b = image_new("stock", elf, l->base.map.path);
	snprintf(b->layout.strategy, sizeof b->layout.strategy, "stock");
	xb_grow(&l->good, &l->cap, 1, sizeof *l->good);
	l->good[l->ngood++] = b;
	if (l->c.history && !(l->hw = history_writer_open(l->c.history, err))) {
		editloop_free(l);
		return NULL;
	}
	return l;
}

static void turbo(xb_editloop *l, int on);

void editloop_free(xb_editloop *l)
{
	if (!l)
		return;
	editloop_cancel(l);
	build_free(l->build);
	proc_free(l->flasher);
	turbo(l, 0);
	if (l->hw)
		history_writer_close(l->hw);
	for (size_t i = 0; i < l->ngood; i++)
		if (l->good[i] != l->last)
			image_free_one(l->good[i]);
	free(l->good);
	free(l->plan);
	image_free_one(l->last);
	plan_inputs_free(&l->pi);
	image_free(&l->base);
	samples_free(&l->samples);
	free(l->work);
	free(l->bdir);
	free((char *)l->c.flash_command);
	free((char *)l->c.history);
	free((char *)l->c.variant);
	free(l);
}

void editloop_set_builder(xb_editloop *l, const xb_builder *b)
{
	l->c.builder = b;
}

void editloop_set_flash_command(xb_editloop *l, const char *command)
{
	free((char *)l->c.flash_command);
	l->c.flash_command = command ? xstrdup(command) : NULL;
}

xb_plan_input *editloop_plan_input(xb_editloop *l)
{
	return &l->in;
}

unsigned editloop_inputs_version(const xb_editloop *l)
{
	return l->inputs_version;
}

int editloop_load_inputs(xb_editloop *l, const char *samples, const char *trace, xb_err *err)
{
	if (samples) {
		xb_samples s;
		samples_init(&s);
		if (samples_read_file(&s, samples, err) != 0) {
			samples_free(&s);
			return -1;
		}
		plan_inputs_set_samples(&l->pi, &s, &l->in);
		samples_free(&s);
	}
	if (trace && plan_inputs_load_trace(&l->pi, trace, &l->in, err) != 0)
		return -1;
	l->inputs_version++;
	return 0;
}

/* ---- Speed ---- */

/* A live virtual bench runs at the turbo speed while a step waits for the board. */
static void turbo(xb_editloop *l, int on)
{
	xb_bench_state st;
	session_bench_state(l->s, &st);
	if (!st.is_virtual || !(l->c.turbo > 0))
		return;
	xb_report rep;
	if (on && !l->speed_before) {
		l->speed_before = st.speed > 0 ? st.speed : 1;
		if (session_set_speed(l->s, l->c.turbo, &rep) != 0)
			l->speed_before = 0;
	} else if (!on && l->speed_before) {
		session_set_speed(l->s, l->speed_before, &rep);
		l->speed_before = 0;
	}
}

/* ---- Ending a run ---- */

static void finish(xb_editloop *l, int state, xb_status st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void finish(xb_editloop *l, int state, xb_status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->result.msg, sizeof l->result.msg, fmt, ap);
	va_end(ap);
	l->result.status = st;
	l->state = state;
	l->nplan = l->at = 0;
	turbo(l, 0);
	set_progress(l, "%s", state == XB_LOOP_DONE ? "done" : "failed");
	l->fraction = -1;
	note(l, state == XB_LOOP_DONE ? XB_LOG_INFO : XB_LOG_ERROR, "%s", l->result.msg);
}

/* A step failed: the board keeps (or gets back) the last good image. */
static void fail(xb_editloop *l, xb_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(xb_editloop *l, xb_status st, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	build_free(l->build);
	l->build = NULL;
	proc_free(l->flasher);
	l->flasher = NULL;
	if (session_job(l->s, NULL) == XB_JOB_RUNNING)
		session_cancel_job(l->s);
	const xb_loop_image *g = flashed(l);
	/* what the board runs first: the detail (a compiler's line) may be long */
	if (g)
		finish(l, XB_LOOP_FAILED, st, "%s (%s); %s",
		       l->restoring ? "the board is back on the last good image"
				    : "the board keeps the last good image",
		       g->name, msg);
	else
		finish(l, XB_LOOP_FAILED, st, "nothing was flashed; %s", msg);
}

/* ---- Starting ---- */

static int busy(const xb_editloop *l, xb_report *rep)
{
	if (l->state == XB_LOOP_RUNNING)
		return report_fail(rep, XB_STATUS_BUSY, "busy: %s", l->progress);
	if (session_job(l->s, NULL) == XB_JOB_RUNNING)
		return report_fail(rep, XB_STATUS_BUSY, "a job is running: %s",
				   session_job_progress(l->s));
	return 0;
}

static void add(xb_editloop *l, int step, xb_loop_image *im)
{
	xb_grow(&l->plan, &l->plan_cap, l->nplan + 1, sizeof *l->plan);
	l->plan[l->nplan++] = (loop_step){step, im};
}

/* The measurement of im and its record; each UDP sweep pass after the first on a new
 * flash, unless the image cannot be flashed again without losing what is measured. */
static void add_measure(xb_editloop *l, xb_loop_image *im, int reflash)
{
	add(l, XB_STEP_MEASURE, im);
	const xb_measure_plan *mp = &l->c.measure;
	if (reflash && mp->rates && mp->nrates)
		for (unsigned p = 1; p < mp->passes; p++) {
			add(l, XB_STEP_FLASH, im);
			add(l, XB_STEP_BRINGUP, im);
			add(l, XB_STEP_SWEEP, im);
		}
	add(l, XB_STEP_RECORD, im);
}

static void begin(xb_editloop *l)
{
	l->state = XB_LOOP_RUNNING;
	l->at = 0;
	l->entered = 0;
	l->restoring = 0;
	l->fraction = -1;
	report_clear(&l->result);
	set_progress(l, "%s", editloop_step_name(l->plan[0].step));
}

/* A safe name for a new image: the layout's strategy and a count. */
static void make_name(xb_editloop *l, const xb_layout *layout, const char *name, char *out,
		      size_t cap)
{
	if (name && *name) {
		snprintf(out, cap, "%s", name);
		return;
	}
	l->made++;
	snprintf(out, cap, "%s-%u", layout && layout->strategy[0] ? layout->strategy : "layout",
		 l->made);
}

int editloop_start(xb_editloop *l, const xb_layout *layout, const char *name, unsigned steps,
		   xb_report *rep)
{
	if (busy(l, rep))
		return -1;
	if (!steps)
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "no step to run");
	xb_loop_image *top = flashed(l);
	l->nplan = 0;
	if (steps & XB_LOOP_PROFILE) {
		if (top != l->good[0])
			return report_fail(rep, XB_STATUS_BAD_ARGUMENT,
					   "the planning profile is of the base image (%s), and the "
					   "board runs %s: go back to it first (:revert)",
					   l->good[0]->name, top->name);
		add(l, XB_STEP_PROFILE, top);
	}
	xb_loop_image *target = top;
	if (steps & XB_LOOP_RELINK) {
		if (!l->c.builder)
			return report_fail(rep, XB_STATUS_UNSUPPORTED, "no build to relink with: give "
					   "one (--build-command TEMPLATE, or the demo firmware's "
					   "Makefile)");
		if (!layout)
			return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "no layout to relink");
		char nm[64];
		make_name(l, layout, name, nm, sizeof nm);
		if (!builder_safe_name(nm))
			return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "'%s' cannot name a layout: "
					   "letters, digits, '.', '_', '+', '-', at most 63", nm);
		if (l->last && !in_good(l, l->last))
			image_free_one(l->last);
		l->last = image_new(nm, NULL, NULL);
		layout_copy(&l->last->layout, layout);
		l->from = top;
		target = l->last;
		add(l, XB_STEP_WRITE, target);
		add(l, XB_STEP_RELINK, target);
		add(l, XB_STEP_VERIFY, target);
	} else if (steps & XB_LOOP_FLASH) {
		if (!l->last || in_good(l, l->last) || !l->last->elf)
			return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "nothing relinked to flash");
		target = l->last;
	}
	if (steps & XB_LOOP_FLASH) {
		/* the image it replaces gets its measurement first, so that the two compare */
		if ((steps & XB_LOOP_MEASURE) && isnan(top->m.misses_per_echo))
			add_measure(l, top, 1);
		add(l, XB_STEP_FLASH, target);
		add(l, XB_STEP_BRINGUP, target);
	}
	if (steps & XB_LOOP_MEASURE) {
		xb_loop_image *m = steps & XB_LOOP_FLASH ? target : top;
		int reflash = 1;
		if (steps == XB_LOOP_MEASURE && name && *name) {
			/* the flashed image measured under another name (a condition such as the
			 * cache switched off): a run of its own, the flashed image's figures stay */
			if (!builder_safe_name(name))
				return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "'%s' cannot name a run: "
						   "letters, digits, '.', '_', '+', '-' (not first), "
						   "at most %d bytes", name, XB_SAFE_NAME_MAX);
			if (l->last && !in_good(l, l->last))
				image_free_one(l->last);
			l->last = m = image_new(name, top->elf, top->map);
			layout_copy(&m->layout, &top->layout);
			m->pred = top->pred;
			l->from = top;
			reflash = 0;
		}
		add_measure(l, m, reflash);
	}
	begin(l);
	return 0;
}

int editloop_revert(xb_editloop *l, xb_report *rep)
{
	if (busy(l, rep))
		return -1;
	if (l->ngood < 2)
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "the board runs %s, the first image: "
				   "there is nothing to go back to", l->good[0]->name);
	xb_loop_image *gone = l->good[--l->ngood];
	note(l, XB_LOG_INFO, "going back from %s to %s", gone->name, flashed(l)->name);
	if (gone != l->last)
		image_free_one(gone);
	l->nplan = 0;
	add(l, XB_STEP_FLASH, flashed(l));
	add(l, XB_STEP_BRINGUP, flashed(l));
	begin(l);
	return 0;
}

void editloop_cancel(xb_editloop *l)
{
	if (l->state != XB_LOOP_RUNNING)
		return;
	int step = l->plan[l->at].step;
	if (step == XB_STEP_FLASH && l->entered) {
		/* a flash goes to its end: the board must hold a whole image */
		note(l, XB_LOG_WARN, "the flash programming finishes first; the run stops after it");
		l->nplan = l->at + 1;
		return;
	}
	fail(l, XB_STATUS_CANCELLED, "%s: cancelled", editloop_step_name(step));
}

/* ---- Steps ---- */

static void next(xb_editloop *l)
{
	l->at++;
	l->entered = 0;
	l->fraction = -1;
	if (l->at < l->nplan)
		return;
	const xb_loop_image *im = flashed(l);
	const xb_loop_image *last = l->plan[l->nplan - 1].img;
	int measured = 0;
	for (size_t i = 0; i < l->nplan; i++)
		measured |= l->plan[i].step == XB_STEP_MEASURE && l->plan[i].img == last;
	if (l->plan[l->nplan - 1].step == XB_STEP_PROFILE)
		finish(l, XB_LOOP_DONE, XB_STATUS_OK, "planning profile of %s: %zu PC samples%s", im->name,
		       l->samples.n, l->in.trace ? " and a fetch trace" : "");
	else if (measured && !isnan(last->m.misses_per_echo) && !isnan(last->pred.misses_per_echo))
		finish(l, XB_LOOP_DONE, XB_STATUS_OK, "%s: %.1f misses per echo measured, %.1f "
		       "predicted; turnaround %.3f ms", last->name, last->m.misses_per_echo,
		       last->pred.misses_per_echo, last->m.turnaround_ms);
	else if (measured && !isnan(last->m.misses_per_echo))
		finish(l, XB_LOOP_DONE, XB_STATUS_OK, "%s: %.1f misses per echo measured; turnaround "
		       "%.3f ms", last->name, last->m.misses_per_echo, last->m.turnaround_ms);
	else if (last == im)
		finish(l, XB_LOOP_DONE, XB_STATUS_OK, "%s is on the board", im->name);
	else
		finish(l, XB_LOOP_DONE, XB_STATUS_OK, "%s: relinked and verified (%s)", last->name,
		       last->elf);
}

/* The folder an image's layout is written to (a new string). */
static char *layout_dir(const xb_editloop *l, const xb_loop_image *im)
{
	return xasprintf("%s/layouts/%s", l->work, im->name);
}

static void step_profile(xb_editloop *l)
{
	xb_session *s = l->s;
	char *trace = xasprintf("%s/profile.trace", l->work);
	if (!l->entered) {
		xb_bench_state st;
		session_bench_state(s, &st);
		samples_free(&l->samples);
		samples_init(&l->samples);
		xb_profile_plan pp = l->c.profile;
		if (!pp.pings) {
			pp.pings = 300;
			pp.interval_ms = 20;
			pp.ping_size = 56;
		}
		pp.samples = &l->samples;
		pp.trace_path = st.is_virtual ? trace : NULL;
		xb_report rep;
		if (session_phase(s) != XB_PHASE_RUNNING) {
			set_progress(l, "profile: waiting for the board (%s)", session_phase_text(s));
			free(trace);
			return;
		}
		if (session_profile_run(s, &pp, &rep) != 0) {
			free(trace);
			fail(l, rep.status, "the planning profile: %s", rep.msg);
			return;
		}
		l->entered = 1;
		turbo(l, 1);
	}
	xb_report rep;
	int js = session_job(s, &rep);
	if (js == XB_JOB_RUNNING) {
		set_progress(l, "profile: %s", session_job_progress(s));
	} else if (js == XB_JOB_FAILED) {
		fail(l, rep.status, "the planning profile: %s", rep.msg);
	} else {
		xb_err err;
		char *sp = xasprintf("%s/profile.samples", l->work);
		xb_bench_state st;
		session_bench_state(s, &st);
		if (samples_write_binary(&l->samples, sp, &err) != 0) {
			fail(l, XB_STATUS_IO, "%s", err.msg);
		} else {
			plan_inputs_set_samples(&l->pi, &l->samples, &l->in);
			if (st.is_virtual && plan_inputs_load_trace(&l->pi, trace, &l->in, &err) != 0) {
				fail(l, XB_STATUS_IO, "%s", err.msg);
			} else {
				l->inputs_version++;
				note(l, XB_LOG_INFO, "planning profile: %zu PC samples%s (%s)",
				     l->samples.n, st.is_virtual ? " and a fetch trace" : "", sp);
				next(l);
			}
		}
		free(sp);
	}
	free(trace);
}

static void step_write(xb_editloop *l, xb_loop_image *im)
{
	char *dir = layout_dir(l, im);
	xb_err err;
	if (plan_write_layout_dir(&l->in, &im->layout, dir, &err) != 0) {
		fail(l, XB_STATUS_IO, "%s: %s", im->name, err.msg);
	} else {
		if (l->in.prof || l->in.trace) {
			if (plan_predict(&l->in, &im->layout, &im->pred, &err) != 0)
				note(l, XB_LOG_WARN, "%s: no prediction: %s", im->name, err.msg);
		}
		note(l, XB_LOG_INFO, "%s: layout written to %s%s", im->name, dir,
		     isnan(im->pred.misses_per_echo) ? "" : " (prediction below)");
		if (!isnan(im->pred.misses_per_echo))
			note(l, XB_LOG_INFO, "%s: predicted %.1f misses per echo, OPT bound %.1f, %u bytes "
			     "of extra RAM", im->name, im->pred.misses_per_echo, im->pred.opt_bound_per_echo,
			     im->pred.extra_ram);
		next(l);
	}
	free(dir);
}

static void build_line(void *ctx, const char *line, size_t len, int error)
{
	(void)len;
	xb_editloop *l = ctx;
	logring_add(session_log_mut(l->s), session_now(l->s), XB_LOG_BUILD,
		    error ? XB_LOG_ERROR : XB_LOG_INFO, line);
}

static void step_relink(xb_editloop *l, xb_loop_image *im)
{
	if (!l->entered) {
		char *dir = layout_dir(l, im);
		char *elf = xasprintf("%s/images/%s.elf", l->work, im->name);
		xb_build_request rq = {.layout_dir = dir, .build_dir = l->bdir, .name = im->name,
				       .elf = elf};
		xb_build_options bo = {.line = build_line, .ctx = l};
		xb_err err;
		l->build = build_start(l->c.builder, &rq, &bo, &err);
		free(dir);
		free(elf);
		if (!l->build) {
			fail(l, XB_STATUS_BUILD_FAILED, "relinking %s: %s", im->name, err.msg);
			return;
		}
		note(l, XB_LOG_INFO, "relinking %s: %s", im->name, build_command_line(l->build));
		l->entered = 1;
	}
	if (build_pump(l->build)) {
		l->fraction = build_progress(l->build);
		if (l->fraction >= 0)
			set_progress(l, "relinking %s: %.0f %%", im->name, 100 * l->fraction);
		else
			set_progress(l, "relinking %s", im->name);
		return;
	}
	const xb_build_result *r = build_result(l->build);
	if (r->state == XB_BUILD_OK) {
		free(im->elf);
		free(im->map);
		im->elf = xstrdup(r->elf);
		im->map = r->map ? xstrdup(r->map) : NULL;
		note(l, XB_LOG_INFO, "%s", r->message);
		build_free(l->build);
		l->build = NULL;
		next(l);
		return;
	}
	for (size_t i = 0; i < r->nlines; i++)
		note(l, XB_LOG_ERROR, "  %s", r->lines[i]);
	fail(l, r->state == XB_BUILD_CANCELLED ? XB_STATUS_CANCELLED : XB_STATUS_BUILD_FAILED,
	     "%s: %s", im->name, r->message);
}

static void step_verify(xb_editloop *l, xb_loop_image *im)
{
	xb_err err;
	xb_image_open io = {.elf = im->elf, .map = im->map, .groups = l->c.groups};
	xb_verify_result vr;
	int rc = verify_relink(&l->in, &im->layout, &io, &vr, &err);
	xb_strbuf sum = {0};
	if (rc == 0)
		verify_summary(&vr, &sum);
	if (rc != 0) {
		fail(l, XB_STATUS_VERIFY_FAILED, "%s: %s", im->name, err.msg);
	} else if (!verify_ok(&vr)) {
		for (size_t i = 0; i < vr.nproblems && i < 20; i++) {
			xb_strbuf t = {0};
			verify_problem_text(&vr.problems[i], &t);
			note(l, XB_LOG_ERROR, "  %s", t.buf ? t.buf : "");
			sb_free(&t);
		}
		note(l, XB_LOG_ERROR, "%s: %s", im->name, sum.buf ? sum.buf : "verification failed");
		fail(l, XB_STATUS_VERIFY_FAILED, "%s: not flashed: %zu function%s not where the plan "
		     "put %s (the log lists them)", im->name, vr.nproblems,
		     vr.nproblems == 1 ? " is" : "s are", vr.nproblems == 1 ? "it" : "them");
	} else {
		note(l, XB_LOG_INFO, "%s verified: %s", im->name, sum.buf ? sum.buf : "");
		next(l);
	}
	sb_free(&sum);
	if (rc == 0)
		verify_free(&vr);
}

/* Starts the session's reflash of im (program: through the probe). */
static int reflash(xb_editloop *l, xb_loop_image *im, int program)
{
	xb_report rep;
	if (session_reflash(l->s, im->elf, im->map, program, &rep) != 0) {
		fail(l, rep.status, "flashing %s: %s", im->name, rep.msg);
		return -1;
	}
	return 0;
}

static void flash_line(void *ctx, const char *line, size_t len)
{
	build_line(ctx, line, len, 0);
}

/* The external flash command for im, started; -1 after failing the run. */
static int flash_command(xb_editloop *l, xb_loop_image *im)
{
	xb_builder_config cfg = {.command = l->c.flash_command};
	char *ldir = layout_dir(l, im);
	xb_build_request rq = {.layout_dir = ldir, .build_dir = l->bdir, .name = im->name,
			       .elf = im->elf};
	xb_build_cmd cmd = {0};
	xb_err err;
	int rc = builder_command.prepare(&cfg, &rq, &cmd, &err);
	free(ldir);
	if (rc == 0) {
		xb_proc_options po = {.argv = (const char *const *)cmd.argv,
				      .cwd = cmd.cwd,
				      .env = (const char *const *)cmd.env,
				      .line = flash_line,
				      .ctx = l};
		l->flasher = proc_start(&po, &err);
		rc = l->flasher ? 0 : -1;
	}
	build_cmd_free(&cmd);
	if (rc != 0)
		fail(l, XB_STATUS_FLASH_FAILED, "the flash command for %s: %s", im->name, err.msg);
	return rc;
}

static void step_flash(xb_editloop *l, xb_loop_image *im)
{
	if (!l->entered) {
		l->entered = 1;
		turbo(l, 1);
		set_progress(l, "flashing %s", im->name);
		if (l->c.flash_command ? flash_command(l, im) : reflash(l, im, 1))
			return;
	}
	if (l->flasher) {
		if (proc_pump(l->flasher))
			return;
		xb_proc_status ps;
		proc_status(l->flasher, &ps);
		proc_free(l->flasher);
		l->flasher = NULL;
		if (!ps.exited || ps.code != 0) {
			char why[64];
			fail(l, XB_STATUS_FLASH_FAILED, "the flash command for %s %s", im->name,
			     proc_status_text(&ps, why, sizeof why));
			return;
		}
		if (reflash(l, im, 0)) /* the image is there: the session resets into it */
			return;
	}
	xb_report rep;
	int st = session_reflash_state(l->s, &rep);
	if (st == XB_JOB_RUNNING)
		return;
	if (st == XB_JOB_FAILED) {
		xb_loop_image *g = flashed(l);
		if (!l->restoring && g && g != im) {
			/* the board may hold part of the image: the last good one goes back */
			l->restoring = 1;
			l->restore_why = rep;
			note(l, XB_LOG_ERROR, "flashing %s failed (%s): flashing %s again", im->name,
			     rep.msg, g->name);
			l->plan[l->at].img = g;
			l->entered = 1;
			reflash(l, g, 1);
			return;
		}
		fail(l, l->restoring ? l->restore_why.status : rep.status, "flashing %s: %s", im->name,
		     l->restoring ? l->restore_why.msg : rep.msg);
		return;
	}
	if (l->restoring) {
		fail(l, l->restore_why.status, "flashing failed: %s", l->restore_why.msg);
		return;
	}
	if (!in_good(l, im)) {
		xb_grow(&l->good, &l->cap, l->ngood + 1, sizeof *l->good);
		l->good[l->ngood++] = im;
	}
	l->deadline = session_now(l->s) + (uint64_t)(LOOP_BRINGUP_S * 1e9);
	next(l);
}

/* Whether the board's network is up: a measurement next needs no more (it makes its own
 * idle window); otherwise the session's idle window too, so that the live view runs. */
static int board_up(const xb_editloop *l)
{
	int phase = session_phase(l->s);
	int measures = l->at + 1 < l->nplan && (l->plan[l->at + 1].step == XB_STEP_MEASURE ||
						l->plan[l->at + 1].step == XB_STEP_SWEEP);
	return phase == XB_PHASE_RUNNING || (measures && phase == XB_PHASE_IDLE);
}

static void step_bringup(xb_editloop *l, xb_loop_image *im)
{
	xb_session *s = l->s;
	turbo(l, 1);
	if (board_up(l)) {
		next(l);
		return;
	}
	set_progress(l, "%s: %s", im->name, session_phase_text(s));
	if (session_now(s) > l->deadline)
		fail(l, XB_STATUS_NETWORK_DOWN, "%s did not come up within %.0f s: %s", im->name,
		     LOOP_BRINGUP_S, session_status(s)->msg);
}

/* Whether the plan sweeps im again after the step at `at` (one pass per flash). */
static int sweeps_later(const xb_editloop *l, const xb_loop_image *im)
{
	for (size_t i = l->at + 1; i < l->nplan; i++)
		if (l->plan[i].step == XB_STEP_SWEEP && l->plan[i].img == im)
			return 1;
	return 0;
}

/* The measurement (sweep_only: one more pass of the UDP sweep, its peak kept if higher). */
static void step_measure(xb_editloop *l, xb_loop_image *im, int sweep_only)
{
	xb_session *s = l->s;
	if (!l->entered) {
		int phase = session_phase(s);
		if (phase != XB_PHASE_RUNNING && phase != XB_PHASE_IDLE) {
			set_progress(l, "measure %s: waiting for the board (%s)", im->name,
				     session_phase_text(s));
			return;
		}
		xb_measure_plan mp = l->c.measure;
		if (sweep_only)
			mp.pings = 0;
		if (sweep_only || sweeps_later(l, im))
			mp.passes = 1;
		xb_report rep;
		if (session_measure(s, &mp, &rep) != 0) {
			fail(l, rep.status, "measuring %s: %s", im->name, rep.msg);
			return;
		}
		l->entered = 1;
		turbo(l, 1);
	}
	xb_report rep;
	int js = session_job(s, &rep);
	if (js == XB_JOB_RUNNING) {
		set_progress(l, "%s: %s", im->name, session_job_progress(s));
		return;
	}
	if (js == XB_JOB_FAILED) {
		fail(l, rep.status, "measuring %s: %s", im->name, rep.msg);
		return;
	}
	if (sweep_only) {
		xb_measure_result r;
		session_measure_result(s, &r);
		if (!(im->m.peak_udp_echo_per_s >= r.peak_udp_echo_per_s))
			im->m.peak_udp_echo_per_s = r.peak_udp_echo_per_s;
		im->m.udp_sent += r.udp_sent;
		im->m.udp_replied += r.udp_replied;
		note(l, XB_LOG_INFO, "%s: a UDP sweep pass after a new flash: peak %.0f/s (best %.0f/s)",
		     im->name, r.peak_udp_echo_per_s, im->m.peak_udp_echo_per_s);
		next(l);
		return;
	}
	session_measure_result(s, &im->m);
	if (!im->pred.model && (l->in.prof || l->in.trace)) {
		/* the prediction beside the measurement (the base image's too) */
		xb_err err;
		if (plan_predict(&l->in, &im->layout, &im->pred, &err) != 0)
			im->pred.model = NULL;
	}
	note(l, XB_LOG_INFO, "%s: %.1f misses per echo, turnaround %.3f ms, peak UDP echo %.0f/s, "
	     "footprint %.0f lines", im->name, im->m.misses_per_echo, im->m.turnaround_ms,
	     im->m.peak_udp_echo_per_s, im->m.footprint_lines);
	next(l);
}

/* The run's profile: every function of the flashed image with samples (busy minus idle,
 * since it was flashed). */
static xb_run_func *run_funcs(xb_editloop *l, size_t *n)
{
	const xb_liveprof *p = session_profile(l->s);
	const xb_image *img = session_image(l->s);
	*n = 0;
	if (!p || !img)
		return NULL;
	xb_run_func *f = xcalloc(img->nfuncs ? img->nfuncs : 1, sizeof *f);
	for (size_t i = 0; i < img->nfuncs; i++) {
		double v = liveprof_func(p, XB_WINDOW_ALL, i);
		if (!(v > 0))
			continue;
		const xb_function *fn = &img->funcs[i];
		const xb_library *lib = &img->libraries[fn->library];
		f[(*n)++] = (xb_run_func){fn->name, lib->name, lib->group, v, fn->size};
	}
	return f;
}

static void step_record(xb_editloop *l, xb_loop_image *im)
{
	if (!l->hw) {
		next(l);
		return;
	}
	if (l->entered) {
		xb_history_result r;
		while (history_writer_results(l->hw, &r, 1) == 1) {
			if (r.token != l->token)
				continue;
			if (r.error[0]) {
				fail(l, XB_STATUS_IO, "recording %s: %s", im->name, r.error);
				return;
			}
			im->run = r.id;
			l->history_version++;
			note(l, XB_LOG_INFO, "%s: run %lld in %s", im->name, (long long)r.id, l->c.history);
			next(l);
			return;
		}
		return;
	}
	xb_run run;
	history_run_init(&run);
	char *data = NULL, *text = NULL;
	size_t len = 0, tlen = 0;
	xb_err err;
	if (xb_read_file(im->elf, &data, &len, &err) == 0) {
		run.image_data = (const uint8_t *)data;
		run.image_len = len;
	}
	char *lpath = xasprintf("%s/layouts/%s/layout.txt", l->work, im->name);
	if (xb_read_file(lpath, &text, &tlen, NULL) == 0)
		run.layout_text = text;
	free(lpath);
	xb_bench_state st;
	session_bench_state(l->s, &st);
	xb_method m;
	session_measure_method(&l->c.measure, &m);
	xb_strbuf method = {0};
	export_method_json(&method, &m);
	run.image = im->elf;
	run.variant = l->c.variant;
	run.layout = im->name;
	run.bench = st.is_virtual ? "virtual" : "hardware";
	int planned = im->pred.model != NULL;
	run.extra_ram_bytes = planned ? (int64_t)im->pred.extra_ram : im == l->good[0] ? 0 : -1;
	run.pad_bytes = planned ? (int64_t)im->pred.pad_bytes : im == l->good[0] ? 0 : -1;
	run.misses_per_echo = im->m.misses_per_echo;
	run.predicted_misses_per_echo = im->pred.misses_per_echo;
	run.opt_bound_misses_per_echo = im->pred.opt_bound_per_echo;
	run.turnaround_ms = im->m.turnaround_ms;
	run.peak_udp_echo_per_s = im->m.peak_udp_echo_per_s;
	run.footprint_lines = im->m.footprint_lines;
	if (im == l->last && l->from && in_good(l, l->from))
		im->parent = l->from->run; /* known now: it may have been measured in this run */
	run.parent_id = im->parent;
	run.method = method.buf;
	run.funcs = run_funcs(l, &run.nfuncs);
	const xb_setmap *sm = session_sets(l->s, XB_WINDOW_ALL);
	uint16_t *hot = xcalloc(sm->nsets ? sm->nsets : 1, sizeof *hot);
	for (uint32_t i = 0; i < sm->nsets; i++)
		hot[i] = (uint16_t)(sm->hot[i] > 65535 ? 65535 : sm->hot[i]);
	run.set_hot = hot;
	run.nsets = sm->nsets;
	l->token++;
	if (history_writer_add(l->hw, &run, l->token, &err) != 0)
		fail(l, XB_STATUS_IO, "recording %s: %s", im->name, err.msg);
	else
		l->entered = 1;
	set_progress(l, "recording %s", im->name);
	free((void *)run.funcs);
	free(hot);
	sb_free(&method);
	free(data);
	free(text);
}

void editloop_pump(xb_editloop *l)
{
	/* steps that finish at once go on to the next in the same pump */
	for (int guard = 0; guard < 16 && l->state == XB_LOOP_RUNNING; guard++) {
		size_t at = l->at;
		int entered = l->entered;
		loop_step *st = &l->plan[l->at];
		switch (st->step) {
		case XB_STEP_PROFILE: step_profile(l); break;
		case XB_STEP_WRITE: step_write(l, st->img); break;
		case XB_STEP_RELINK: step_relink(l, st->img); break;
		case XB_STEP_VERIFY: step_verify(l, st->img); break;
		case XB_STEP_FLASH: step_flash(l, st->img); break;
		case XB_STEP_BRINGUP: step_bringup(l, st->img); break;
		case XB_STEP_MEASURE: step_measure(l, st->img, 0); break;
		case XB_STEP_SWEEP: step_measure(l, st->img, 1); break;
		case XB_STEP_RECORD: step_record(l, st->img); break;
		default: next(l); break;
		}
		if (l->at == at && l->entered == entered)
			break; /* waiting */
	}
}

int editloop_pollfds(xb_editloop *l, struct pollfd *fds, int max)
{
	int n = 0;
	if (l->build && n < max && build_pollfd(l->build) >= 0)
		fds[n++] = (struct pollfd){.fd = build_pollfd(l->build), .events = POLLIN};
	if (l->flasher && n < max && proc_pollfd(l->flasher) >= 0)
		fds[n++] = (struct pollfd){.fd = proc_pollfd(l->flasher), .events = POLLIN};
	if (l->hw && n < max)
		fds[n++] = (struct pollfd){.fd = history_writer_fd(l->hw), .events = POLLIN};
	return n;
}

int editloop_timeout_ms(xb_editloop *l)
{
	if (l->state != XB_LOOP_RUNNING)
		return -1;
	int t = 100;
	if (l->build) {
		int b = build_timeout_ms(l->build);
		if (b >= 0 && b < t)
			t = b;
	}
	if (l->flasher) {
		int b = proc_timeout_ms(l->flasher);
		if (b >= 0 && b < t)
			t = b;
	}
	return t;
}

/* ---- Accessors ---- */

int editloop_state(const xb_editloop *l)
{
	return l->state;
}

int editloop_step(const xb_editloop *l)
{
	return l->state == XB_LOOP_RUNNING ? l->plan[l->at].step : XB_STEP_NONE;
}

const char *editloop_progress(const xb_editloop *l)
{
	return l->progress;
}

double editloop_fraction(const xb_editloop *l)
{
	return l->fraction;
}

const xb_report *editloop_result(const xb_editloop *l)
{
	return &l->result;
}

const xb_loop_image *editloop_flashed(const xb_editloop *l)
{
	return flashed(l);
}

size_t editloop_good(const xb_editloop *l, const xb_loop_image **out)
{
	if (out)
		for (size_t i = 0; i < l->ngood; i++)
			out[i] = l->good[i];
	return l->ngood;
}

const xb_loop_image *editloop_good_image(const xb_editloop *l, size_t i)
{
	return i < l->ngood ? l->good[i] : NULL;
}

const xb_loop_image *editloop_last(const xb_editloop *l)
{
	return l->last;
}

unsigned editloop_history_version(const xb_editloop *l)
{
	return l->history_version;
}

const char *editloop_history_path(const xb_editloop *l)
{
	return l->c.history;
}
