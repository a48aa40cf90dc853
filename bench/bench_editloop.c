/* bench_editloop: the workbench's loop as the workbench runs it, on the live virtual bench
 * with the demo firmware: from the key that starts it (the colouring preset in the pending
 * layout) to the new measurement on the screen: the layout written and predicted, a relink
 * with the firmware's Makefile, verification, the flash in place through the virtual probe,
 * bring-up and the study's measurement (300 pings after an idle window as long, the
 * footprint, the UDP step sweep), with every panel drawn at 10 frames per second meanwhile.
 * The firmware build, the planning profile and the stock image's measurement come first and
 * are not timed. Usage: bench_editloop [OUT-DIR] (default build/bench-editloop). */
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/layout_edit.h"
#include "../panels/panel.h"
#include "../session/editloop.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const uint32_t rates[] = {50,   100,  150,  200,  300,  400,  500,  750,  1000,
				 1250, 1500, 1750, 2000, 2500, 3000, 3500, 4000, 5000};

/* Runs the loop's current run to its end, drawing the panels as the workbench does. */
static int run(xb_session *s, xb_editloop *l, void **st, xb_canvas *c, double bound)
{
	xb_model m;
	model_init(&m);
	double end = now() + bound, next_frame = now();
	while (editloop_state(l) == XB_LOOP_RUNNING && now() < end) {
		if (session_pump(s) != 0)
			return -1;
		editloop_pump(l);
		if (now() >= next_frame) {
			m.img = session_image(s);
			m.prof = session_profile(s);
			m.sets = session_sets(s, XB_WINDOW_10S);
			m.tg = session_target(s);
			for (int i = 0; panels[i]; i++) {
				canvas_clear(c, XB_EL_NORMAL);
				panels[i]->draw(st[i], &m, c, canvas_bounds(c), 1);
			}
			next_frame += 0.1;
		}
		struct pollfd fds[16];
		int n = session_pollfds(s, fds, 8);
		n += editloop_pollfds(l, fds + n, 8);
		int ms = session_timeout_ms(s), em = editloop_timeout_ms(l);
		if (em >= 0 && em < ms)
			ms = em;
		poll(fds, (nfds_t)n, ms);
	}
	return editloop_state(l) == XB_LOOP_DONE ? 0 : -1;
}

int main(int argc, char **argv)
{
	xb_err err;
	const char *out_arg = argc > 1 ? argv[1] : "build/bench-editloop";
	if (xb_mkdirs(out_arg, &err)) {
		fprintf(stderr, "bench_editloop: %s\n", err.msg);
		return 1;
	}
	char out[PATH_MAX];
	if (!realpath(out_arg, out)) {
		perror(out_arg);
		return 1;
	}
	char *cmd = xasprintf("make -s -C firmware BUILD_DIR='%s/fw' >'%s/build.log' 2>&1", out, out);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench_editloop: the firmware does not build (%s/build.log)\n", out);
		return 1;
	}
	free(cmd);
	xb_target tg;
	if (target_load(&tg, "rp2040", &err)) {
		fprintf(stderr, "bench_editloop: %s\n", err.msg);
		return 1;
	}
	char *elf = xasprintf("%s/fw/default/echo.elf", out), *fw = xasprintf("%s/fw", out);
	char *work = xasprintf("%s/work", out);
	xb_session_options so;
	session_options_init(&so);
	so.tg = &tg;
	so.elf = elf;
	so.udp_rate = 0;
	xb_report rep;
	xb_session *s = session_open(&so, &rep);
	if (!s || session_wait_ready(s, &rep) != 0) {
		fprintf(stderr, "bench_editloop: %s\n", rep.msg);
		return 1;
	}
	xb_builder make = {.ops = &builder_make};
	xb_editloop_config c = {
		.builder = &make, .work_dir = work, .build_dir = fw, .turbo = 64,
		.measure = {.pings = 300, .interval_ms = 20, .ping_size = 56, .footprint_ms = 20,
			    .rates = rates, .nrates = sizeof rates / sizeof *rates, .step_s = 0.1,
			    .gap_s = 0.05, .passes = 3, .udp_size = 64},
		.profile = {.pings = 300, .interval_ms = 20, .ping_size = 56},
	};
	xb_editloop *l = editloop_new(s, &c, &err);
	if (!l) {
		fprintf(stderr, "bench_editloop: %s\n", err.msg);
		return 1;
	}
	void *st[16];
	for (int i = 0; panels[i]; i++)
		st[i] = panels[i]->create();
	xb_canvas *cv = canvas_new(200, 60);
	/* not timed: the planning profile and the stock image's measurement */
	if (editloop_start(l, NULL, NULL, XB_LOOP_PROFILE, &rep) != 0 || run(s, l, st, cv, 300) ||
	    editloop_start(l, NULL, NULL, XB_LOOP_MEASURE, &rep) != 0 || run(s, l, st, cv, 300)) {
		fprintf(stderr, "bench_editloop: %s%s\n", rep.msg, editloop_result(l)->msg);
		return 1;
	}
	xb_plan_input *in = editloop_plan_input(l);
	in->pad_budget = 32768;
	xb_editor *ed = editor_new(in, NULL, &err);
	if (!ed || editor_apply_preset(ed, "colour", XB_EDIT_BUDGET, NULL, &err) != 0) {
		fprintf(stderr, "bench_editloop: the colouring preset: %s\n", err.msg);
		return 1;
	}
	double t0 = now();
	if (editloop_start(l, editor_layout(ed), "colour", XB_LOOP_ALL, &rep) != 0 ||
	    run(s, l, st, cv, 300) != 0) {
		fprintf(stderr, "bench_editloop: %s%s\n", rep.msg, editloop_result(l)->msg);
		return 1;
	}
	double t = now() - t0;
	const xb_loop_image *im = editloop_flashed(l), *stock = editloop_good_image(l, 0);
	printf("workbench loop on the demo firmware, from the key to the new measurement "
	       "(colouring preset: relink, verify, flash, bring-up, 300 pings, footprint, three UDP "
	       "sweep passes each after a new flash; panels drawn at 10 frames/s): %.2f s (target < "
	       "10 s)\n", t);
	printf("  predicted %.1f misses per echo, measured %.1f (%+.1f %%); stock measured %.1f\n",
	       im->pred.misses_per_echo, im->m.misses_per_echo,
	       100 * (im->m.misses_per_echo - im->pred.misses_per_echo) / im->pred.misses_per_echo,
	       stock->m.misses_per_echo);
	for (int i = 0; panels[i]; i++)
		panels[i]->destroy(st[i]);
	canvas_free(cv);
	editor_free(ed);
	editloop_free(l);
	session_close(s);
	free(elf);
	free(fw);
	free(work);
	return 0;
}
