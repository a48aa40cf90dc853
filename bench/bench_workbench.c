/* bench_workbench: does the virtual bench keep real time with the workbench running? A live
 * session on the demo firmware (the board in its own thread, paced to the wall clock) under
 * full echo load (UDP echoes offered beyond what the board can answer, and pings), while
 * this thread does the UI's work: pumping the session and drawing every panel into a
 * 200x60 canvas ten times a second. Prints the ratio of virtual to wall time, and the
 * sampler's ingest with the samples lost. Usage: bench_workbench [OUT-DIR]. */
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cli/experiment.h"
#include "../panels/panel.h"
#include "../session/session.h"

#define BENCH_SECONDS 10.0
#define BENCH_UDP_RATE 600 /* offered: just above the stock image's peak of about 550/s */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The UI's frame: the model from the session, every panel drawn. */
static void frame(xb_session *s, xb_model *m, void **st, xb_canvas *c)
{
	xb_session_figures f;
	session_figures(s, &f);
	m->img = session_image(s);
	m->prof = session_profile(s);
	m->tg = session_target(s);
	m->src = session_srclines(s);
	m->sets = session_sets(s, m->window);
	m->log = session_log(s);
	m->echo_rate = f.echo_rate;
	m->turnaround_ms = f.turnaround_ms;
	m->misses_per_echo = f.misses_per_echo;
	m->series[XB_SERIES_TURNAROUND] = session_series(s, XB_SS_TURNAROUND);
	m->series[XB_SERIES_ECHO_RATE] = session_series(s, XB_SS_ECHO_RATE);
	m->series[XB_SERIES_MISSES_PER_ECHO] = session_series(s, XB_SS_MISSES_PER_ECHO);
	m->series[XB_SERIES_HIT_RATE] = session_series(s, XB_SS_HIT_RATE);
	canvas_clear(c, XB_EL_NORMAL);
	xb_rect r = canvas_bounds(c);
	for (int i = 0; panels[i]; i++) {
		xb_rect cell = {r.x + (i % 3) * (r.w / 3), r.y + (i / 3) * (r.h / 2), r.w / 3, r.h / 2};
		panels[i]->draw(st[i], m, c, cell, i == 0);
	}
}

int main(int argc, char **argv)
{
	xb_err err;
	const char *out_arg = argc > 1 ? argv[1] : "build/bench-workbench";
	if (xb_mkdirs(out_arg, &err)) {
		fprintf(stderr, "bench_workbench: %s\n", err.msg);
		return 1;
	}
	char out[PATH_MAX];
	if (!realpath(out_arg, out)) {
		perror(out_arg);
		return 1;
	}
	char *fw = builder_firmware_dir(&err), *elf = NULL;
	char *dir = xasprintf("%s/fw", out), *log = xasprintf("%s/build.log", out);
	xb_target tg;
	if (!fw || target_load(&tg, "rp2040", &err) || exp_build_firmware(fw, dir, log, &elf, &err)) {
		fprintf(stderr, "bench_workbench: %s\n", err.msg);
		return 1;
	}
	xb_session_options o;
	session_options_init(&o);
	o.tg = &tg;
	o.elf = elf;
	o.udp_rate = BENCH_UDP_RATE;
	o.idle_seconds = 1;
	xb_report rep;
	xb_session *s = session_open(&o, &rep);
	if (!s) {
		fprintf(stderr, "bench_workbench: %s\n", rep.msg);
		return 1;
	}
	xb_model m;
	model_init(&m);
	void *st[16];
	for (int i = 0; panels[i]; i++)
		st[i] = panels[i]->create();
	xb_canvas *c = canvas_new(200, 60);
	double t0 = 0, v0 = 0, next_frame = now(), end = now() + 60;
	uint64_t frames = 0, requests0 = 0;
	while (now() < end) {
		if (session_pump(s) != 0)
			break;
		if (!t0 && session_phase(s) == XB_PHASE_RUNNING) {
			/* a second into the traffic, the measured stretch starts */
			static double started;
			if (!started)
				started = now();
			if (now() > started + 1) {
				xb_session_figures f;
				session_figures(s, &f);
				t0 = now();
				v0 = (double)session_now(s) / 1e9;
				requests0 = f.requests;
				end = t0 + BENCH_SECONDS;
			}
		}
		if (now() >= next_frame) {
			frame(s, &m, st, c);
			frames++;
			next_frame += 0.1;
		}
		struct pollfd fds[8];
		int n = session_pollfds(s, fds, 8);
		int ms = session_timeout_ms(s);
		double to_frame = (next_frame - now()) * 1000;
		if (to_frame < ms)
			ms = to_frame > 0 ? (int)to_frame : 0;
		poll(fds, (nfds_t)n, ms);
	}
	xb_session_figures f;
	session_figures(s, &f);
	double wall = now() - t0, virt = (double)session_now(s) / 1e9 - v0;
	if (!t0 || wall <= 0) {
		fprintf(stderr, "bench_workbench: the bench never ran: %s\n", session_status(s)->msg);
		return 1;
	}
	printf("virtual bench under the workbench's UI (six panels into 200x60 at 10 frames/s), "
	       "full echo load (UDP offered at %u/s, %.0f replies/s, pings 50/s): %.2fx real time "
	       "(target >= 1x)\n",
	       BENCH_UDP_RATE, f.echo_rate, virt / wall);
	printf("PC samples through the virtual probe into the live profile: %.0f samples/s, %llu "
	       "lost (%.0f requests/s sent)\n",
	       f.sample_rate, (unsigned long long)f.samples_lost,
	       (double)(f.requests - requests0) / wall);
	/* the headroom: the same load asked to run eight times faster */
	xb_report rep2;
	double hv0 = (double)session_now(s) / 1e9, ht0 = now();
	if (session_set_speed(s, 8, &rep2) == 0) {
		while (now() < ht0 + 5) {
			session_pump(s);
			if (now() >= next_frame) {
				frame(s, &m, st, c);
				next_frame += 0.1;
			}
			struct pollfd fds[8];
			int n = session_pollfds(s, fds, 8);
			poll(fds, (nfds_t)n, session_timeout_ms(s));
		}
		printf("the same with 8x asked: %.2fx real time (what the host has to spare)\n",
		       ((double)session_now(s) / 1e9 - hv0) / (now() - ht0));
	}
	for (int i = 0; panels[i]; i++)
		panels[i]->destroy(st[i]);
	canvas_free(c);
	session_close(s);
	free(fw);
	free(dir);
	free(log);
	free(elf);
	return 0;
}
