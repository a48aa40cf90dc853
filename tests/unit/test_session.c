/* test_session: a live session on the virtual bench with the echo firmware, in virtual time
 * (reproducible: the study's measurement and the live figures beside `sim run`'s exact
 * windows) and live in its own thread (paced, through the probe socket: samples, echoes,
 * speed, pause, a lost and a faulting probe). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/plan.h"
#include "../../core/trace.h"
#include "../../session/session.h"
#include "../common/testdir.h"
#include "../../sim/vbench.h"
#include "test_pico_common.h"

static const char *firmware(void)
{
	return tp_firmware_elf();
}

static xb_target target;

static xb_session *open_session(int virtual_time, double ping, double udp, double idle)
{
	tp_target(&target);
	xb_session_options o;
	session_options_init(&o);
	o.tg = &target;
	o.elf = firmware();
	o.virt.virtual_time = virtual_time;
	o.ping_rate = ping;
	o.udp_rate = udp;
	o.idle_seconds = idle;
	xb_report rep;
	xb_session *s = session_open(&o, &rep);
	if (!s)
		fail_msg("session_open: %s", rep.msg);
	return s;
}

static double wall(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Pumps a live session until cond holds or `bound` wall seconds pass. */
static int pump_until(xb_session *s, int (*cond)(xb_session *), double bound)
{
	double end = wall() + bound;
	while (wall() < end) {
		if (session_pump(s) != 0)
			return 0;
		if (cond(s))
			return 1;
		struct pollfd fds[8];
		int n = session_pollfds(s, fds, 8);
		poll(fds, (nfds_t)n, session_timeout_ms(s));
	}
	return cond(s);
}

/* The same in virtual time, to a bench time. */
static void run_virtual(xb_session *s, double seconds)
{
	uint64_t end = session_now(s) + (uint64_t)(seconds * 1e9);
	while (session_now(s) < end)
		assert_int_equal(session_pump(s), 0);
}

/* ---- Virtual time ---- */

/* The misses per echo of pings as `sim run --ping` measures them: exact board events at
 * the window edges on a board of its own (sim/vbench.c), the independent reference. */
static double reference_misses_per_echo(unsigned pings, double interval_ms)
{
	tp_log log = {0};
	xb_pico *p = tp_pico(&log, 0);
	xb_err err;
	assert_int_equal(pico_load_file(p, firmware(), XB_IMAGE_AUTO, 0, NULL, &err), 0);
	xb_vbench *vb = vbench_new(p, NULL);
	uint32_t hz = board_cpu_hz(pico_board(p));
	assert_int_equal(vbench_bring_up(vb, 5ull * hz, &err), 0);
	xb_vbench_phase ph = {.kind = XB_NETPEER_ICMP, .count = pings, .size = 56,
			      .interval = (uint64_t)(interval_ms * hz / 1000)};
	vbench_phase_window(&ph, hz);
	assert_int_equal(vbench_phase_run(vb, &ph, &err), 0);
	double m = vbench_misses_per_echo(&ph);
	vbench_free(vb);
	pico_free(p);
	return m;
}

static void test_measure_job_reproducible(void **state)
{
	(void)state;
	xb_measure_result r[2];
	for (int k = 0; k < 2; k++) {
		xb_session *s = open_session(1, 0, 0, 0);
		xb_report rep;
		assert_int_equal(session_wait_ready(s, &rep), 0);
		xb_measure_plan mp = {.pings = 50, .interval_ms = 20, .ping_size = 56,
				      .footprint_ms = 20};
		assert_int_equal(session_measure(s, &mp, &rep), 0);
		assert_int_equal(session_wait_job(s, &rep), 0);
		session_measure_result(s, &r[k]);
		session_close(s);
	}
	assert_memory_equal(&r[0], &r[1], sizeof r[0]); /* the same image, the same numbers */
	print_message("# footprint %.0f lines, turnaround %.3f ms\n", r[0].footprint_lines,
		      r[0].turnaround_ms);
	assert_int_equal(r[0].pings_replied, 50);
	assert_true(r[0].turnaround_ms > 0.5 && r[0].turnaround_ms < 3);
	assert_true(r[0].footprint_lines > 2048); /* one echo is bigger than the cache */
	double ref = reference_misses_per_echo(50, 20);
	print_message("# measure job %.1f misses per echo, sim run's windows %.1f\n",
		      r[0].misses_per_echo, ref);
	assert_true(fabs(r[0].misses_per_echo - ref) / ref < 0.02);
}

static void test_live_figures_equal_batch(void **state)
{
	(void)state;
	xb_session *s = open_session(1, 50, 0, 2);
	xb_report rep;
	assert_int_equal(session_wait_ready(s, &rep), 0);
	run_virtual(s, 13); /* the idle window, then 10 s of pings at 50/s */
	xb_session_figures f;
	session_figures(s, &f);
	double ref = reference_misses_per_echo(300, 20);
	print_message("# live %.1f misses per echo over %.1f s (idle %.0f/s), sim run %.1f\n",
		      f.misses_per_echo, f.window_s, f.idle_misses_per_s, ref);
	assert_true(fabs(f.misses_per_echo - ref) / ref < 0.02);
	assert_true(f.echo_rate > 45 && f.echo_rate < 55);
	assert_true(f.turnaround_ms > 0.5 && f.turnaround_ms < 3);
	assert_true(f.hit_rate > 50 && f.hit_rate < 100);
	assert_true(f.samples > 1000);
	assert_int_equal(f.samples_lost, 0);
	/* the profile puts the busy samples into the image's functions */
	xb_liveprof_totals t;
	liveprof_totals(session_profile(s), XB_WINDOW_ALL, &t);
	assert_true(t.busy > 0 && t.net > 0.5 * (double)t.busy);
	session_close(s);
}

/* ---- Live, in its own thread ---- */

static int running(xb_session *s)
{
	xb_session_figures f;
	session_figures(s, &f);
	return session_phase(s) == XB_PHASE_RUNNING && f.replies >= 100 && f.samples > 1000;
}

static int paused(xb_session *s)
{
	xb_bench_state st;
	session_bench_state(s, &st);
	return st.paused;
}

static void test_live_thread(void **state)
{
	(void)state;
	xb_session *s = open_session(0, 50, 200, 0.5);
	assert_true(pump_until(s, running, 30));
	xb_session_figures f;
	session_figures(s, &f);
	print_message("# live: %.0f echoes/s, turnaround %.3f ms, %.0f misses/echo, %.0f samples/s\n",
		      f.echo_rate, f.turnaround_ms, f.misses_per_echo, f.sample_rate);
	assert_true(f.turnaround_ms > 0.3 && f.turnaround_ms < 3);
	assert_true(isfinite(f.misses_per_echo));
	/* pause: the board's time stands still */
	xb_report rep;
	assert_int_equal(session_pause(s, 1, &rep), 0);
	assert_true(pump_until(s, paused, 5)); /* once the probe's packets are answered */
	uint64_t t0 = session_now(s);
	double w0 = wall();
	while (wall() < w0 + 0.2)
		session_pump(s);
	assert_true(session_now(s) - t0 < 5000000); /* at most a slice or two */
	assert_int_equal(session_pause(s, 0, &rep), 0);
	assert_int_equal(session_set_speed(s, 2, &rep), 0);
	assert_int_not_equal(session_set_speed(s, 0, &rep), 0);
	session_close(s);
}

static int probe_gone(xb_session *s)
{
	return session_status(s)->status == XB_STATUS_PROBE_GONE;
}

static int probe_fine(xb_session *s)
{
	return session_status(s)->status == XB_STATUS_OK;
}

static int probe_fault(xb_session *s)
{
	return session_status(s)->status == XB_STATUS_PROBE_FAULT;
}

static void test_lost_probe_keeps_samples(void **state)
{
	(void)state;
	xb_session *s = open_session(0, 50, 0, 0.2);
	assert_true(pump_until(s, running, 30));
	xb_session_figures f0, f1;
	session_figures(s, &f0);
	xb_report rep;
	assert_int_equal(session_probe_trick(s, XB_PROBE_TRICK_DROP, 0, &rep), 0);
	assert_true(pump_until(s, probe_gone, 5));
	session_figures(s, &f1);
	assert_true(f1.samples >= f0.samples); /* nothing is lost */
	assert_true(pump_until(s, probe_fine, 10)); /* it reconnects by itself */
	uint64_t before = f1.samples;
	double w = wall() + 5;
	do
		session_pump(s), session_figures(s, &f1);
	while (f1.samples < before + 1000 && wall() < w);
	assert_true(f1.samples >= before + 1000); /* and samples flow again */

	assert_int_equal(session_probe_trick(s, XB_PROBE_TRICK_FAULT, 0, &rep), 0);
	assert_true(pump_until(s, probe_fault, 5));
	assert_int_equal(session_probe_trick(s, XB_PROBE_TRICK_NORMAL, 0, &rep), 0);
	assert_true(pump_until(s, probe_fine, 10));
	session_close(s);
}

/* ---- Reflashing in place ---- */

/* Another build of the same firmware (LTO: every address differs), built the first time. */
static const char *other_firmware(void)
{
	static char path[1024];
	return tp_built(path, sizeof path, "firmware", "make -s -C firmware BUILD_DIR='%s' LTO=1 >/dev/null",
			"lto/echo.elf");
}

static int reflashed_and_running(xb_session *s)
{
	xb_session_figures f;
	session_figures(s, &f);
	return session_reflash_state(s, NULL) == XB_JOB_DONE && session_phase(s) == XB_PHASE_RUNNING;
}

/* Busy samples of the profile that fall into the image's functions. */
static double attributed(xb_session *s)
{
	xb_liveprof_totals t;
	liveprof_totals(session_profile(s), XB_WINDOW_ALL, &t);
	return t.net;
}

static void test_reflash_virtual_time(void **state)
{
	(void)state;
	xb_session *s = open_session(1, 50, 0, 0.5);
	xb_report rep;
	assert_int_equal(session_wait_ready(s, &rep), 0);
	run_virtual(s, 2);
	assert_true(attributed(s) > 100);
	xb_session_figures f0;
	session_figures(s, &f0);

	/* a file that is no image changes nothing */
	assert_int_equal(session_reflash(s, "Makefile", NULL, 1, &rep), -1);
	assert_int_equal(rep.status, XB_STATUS_IMAGE_INVALID);
	assert_string_equal(session_image_path(s), firmware());
	assert_int_equal(session_phase(s), XB_PHASE_RUNNING);

	const char *lto = other_firmware();
	assert_non_null(lto);
	assert_int_equal(session_reflash(s, lto, NULL, 1, &rep), 0);
	assert_int_equal(session_reflash_state(s, &rep), XB_JOB_DONE); /* virtual time: done */
	assert_string_equal(session_image_path(s), lto);
	assert_int_equal(session_phase(s), XB_PHASE_BRINGUP);
	assert_true(attributed(s) == 0); /* a new profile for the new addresses */
	assert_true(session_image(s)->nfuncs > 0);
	run_virtual(s, 3); /* bring-up, the idle window, pings */
	assert_int_equal(session_phase(s), XB_PHASE_RUNNING);
	xb_session_figures f1;
	session_figures(s, &f1);
	print_message("# after the reflash: %.0f echoes/s, %.0f samples in the new image's functions\n",
		      f1.echo_rate, attributed(s));
	assert_true(f1.replies > f0.replies + 50);
	assert_true(attributed(s) > 100);
	session_close(s);
}

static void test_reflash_live(void **state)
{
	(void)state;
	xb_session *s = open_session(0, 50, 0, 0.2);
	xb_report rep;
	assert_int_equal(session_set_speed(s, 4, &rep), 0);
	assert_true(pump_until(s, running, 30));
	const char *lto = other_firmware();
	assert_int_equal(session_reflash(s, lto, NULL, 1, &rep), 0);
	assert_int_equal(session_phase(s), XB_PHASE_FLASHING);
	/* the worker programs while the session pumps */
	assert_true(pump_until(s, reflashed_and_running, 30));
	assert_string_equal(session_image_path(s), lto);
	xb_session_figures f;
	session_figures(s, &f);
	uint64_t replies = f.replies;
	double w = wall() + 10;
	do
		session_pump(s), session_figures(s, &f);
	while (f.replies < replies + 20 && wall() < w);
	assert_true(f.replies >= replies + 20); /* the new image answers */
	session_close(s);
}

/* The study's profile run on the live bench, faster than real time, with a fetch trace:
 * the trace's windows replayed through the cache model give what the measurement of the
 * same pings gives, and the samples come from the traffic window only. */
static void test_profile_live_traced(void **state)
{
	(void)state;
	xb_session *s = open_session(0, 50, 200, 0.2);
	xb_report rep;
	assert_true(pump_until(s, running, 30));
	assert_int_equal(session_set_speed(s, 1000, &rep), 0);
	char *trace = xasprintf("%s/live.trace", test_dir);
	xb_samples smp;
	samples_init(&smp);
	xb_profile_plan pp = {.pings = 100, .interval_ms = 20, .ping_size = 56, .samples = &smp,
			      .trace_path = trace};
	assert_int_equal(session_profile_run(s, &pp, &rep), 0);
	int done = 0;
	double end = wall() + 60;
	while (!done && wall() < end) {
		assert_int_equal(session_pump(s), 0);
		done = session_job(s, NULL) != XB_JOB_RUNNING;
		struct pollfd fds[8];
		int n = session_pollfds(s, fds, 8);
		poll(fds, (nfds_t)n, session_timeout_ms(s));
	}
	assert_int_equal(session_job(s, &rep), XB_JOB_DONE);
	session_close(s);
	print_message("# live profile: %zu samples over %.1f s\n", smp.n, smp.busy_seconds);
	assert_true(smp.n > 1000);
	assert_true(fabs(smp.busy_seconds - 2.0) < 1e-9);

	xb_trace t;
	xb_err err;
	assert_int_equal(trace_read_file(&t, trace, &err), 0);
	double per_echo = NAN;
	assert_int_equal(plan_window_misses(&target, &t, &per_echo, &err), 0);
	double ref = reference_misses_per_echo(100, 20);
	print_message("# the live trace's windows: %.1f misses per echo, sim run's %.1f\n", per_echo,
		      ref);
	assert_true(fabs(per_echo - ref) / ref < 0.02);
	trace_free(&t);
	samples_free(&smp);
	free(trace);
}

/* A fetch trace stops at its size limit (a board that never answers would fill the disk):
 * the profile that wanted it fails saying so, and the file stays near the limit. */
static void test_trace_limit(void **state)
{
	(void)state;
	tp_target(&target);
	xb_session_options o;
	session_options_init(&o);
	o.tg = &target;
	o.elf = firmware();
	o.virt.virtual_time = 1;
	o.virt.trace_max = 256 * 1024;
	o.ping_rate = o.udp_rate = 0;
	o.idle_seconds = 0;
	xb_report rep;
	xb_session *s = session_open(&o, &rep);
	if (!s)
		fail_msg("session_open: %s", rep.msg);
	assert_int_equal(session_wait_ready(s, &rep), 0);
	char *trace = xasprintf("%s/limit.trace", test_dir);
	xb_samples smp;
	samples_init(&smp);
	xb_profile_plan pp = {.pings = 100, .interval_ms = 20, .ping_size = 56, .samples = &smp,
			      .trace_path = trace};
	assert_int_equal(session_profile_run(s, &pp, &rep), 0);
	assert_int_not_equal(session_wait_job(s, &rep), 0);
	assert_non_null(strstr(rep.msg, "passed its size limit"));
	session_close(s);
	struct stat st;
	assert_int_equal(stat(trace, &st), 0);
	assert_true(st.st_size > 256 * 1024);
	assert_true(st.st_size < 4 * 256 * 1024); /* stopped within a slice or so */
	samples_free(&smp);
	free(trace);
}

int main(void)
{
	if (!firmware()) {
		printf("ok 1 # SKIP no arm-none-eabi-gcc: the echo firmware cannot be built\n");
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measure_job_reproducible),
		cmocka_unit_test(test_trace_limit),
		cmocka_unit_test(test_live_figures_equal_batch),
		cmocka_unit_test(test_live_thread),
		cmocka_unit_test(test_lost_probe_keeps_samples),
		cmocka_unit_test(test_reflash_virtual_time),
		cmocka_unit_test(test_reflash_live),
		cmocka_unit_test(test_profile_live_traced),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
