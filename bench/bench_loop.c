/* bench_loop: one turn of the workbench's loop on the demo firmware, as DESIGN.md's target
 * has it: plan (colouring), relink with GNU ld, reflash the virtual Pico through the
 * virtual probe, measure 300 pings (and the footprint). The build and the profile it starts
 * from are made first and not timed. Usage: bench_loop [OUT-DIR] (default
 * build/bench-loop). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cli/experiment.h"
#include "../core/target.h"

#define TURNS 3

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	xb_err err;
	const char *out_arg = argc > 1 ? argv[1] : "build/bench-loop";
	if (xb_mkdirs(out_arg, &err)) {
		fprintf(stderr, "bench_loop: %s\n", err.msg);
		return 1;
	}
	char out[PATH_MAX];
	if (!realpath(out_arg, out)) {
		perror(out_arg);
		return 1;
	}
	char *fw = builder_firmware_dir(&err);
	if (!fw) {
		fprintf(stderr, "bench_loop: %s\n", err.msg);
		return 1;
	}
	xb_target tg;
	if (target_load(&tg, "rp2040", &err)) {
		fprintf(stderr, "bench_loop: %s\n", err.msg);
		return 1;
	}
	char *bd = xasprintf("BUILD_DIR=%s/fw", out), *log = xasprintf("%s/build.log", out);
	char *elf = xasprintf("%s/fw/default/echo.elf", out);
	char *trace = xasprintf("%s/ping.trace", out), *samples = xasprintf("%s/ping.samples", out);
	char *dir = xasprintf("%s/colour", out), *ld = xasprintf("LAYOUT=%s", dir);
	char *relinked = xasprintf("%s/fw/default/layouts/colour/echo.elf", out);
	const char *build[] = {bd, NULL};
	exp_profile_req prof = {.pings = 300, .interval_ms = 20, .trace_path = trace,
				.samples_path = samples};
	if (exp_make(fw, build, log, &err) || exp_profile(&tg, elf, &prof, &err)) {
		fprintf(stderr, "bench_loop: %s\n", err.msg);
		return 1;
	}
	xb_measure_plan m = {.pings = 300, .interval_ms = 20, .ping_size = 56, .udp_size = 64,
			.footprint_ms = 20};
	double t[TURNS];
	xb_measure_result met;
	for (int i = 0; i < TURNS; i++) {
		double t0 = now();
		exp_plan_req pr = {.elf = elf, .samples = samples, .trace = trace,
				   .predict_trace = trace, .strategy = "colour", .pad_budget = 32768,
				   .dir = dir};
		const char *relink[] = {bd, ld, NULL};
		if (exp_plan(&tg, &pr, &err) || exp_make(fw, relink, log, &err) ||
		    exp_measure(&tg, relinked, &m, NULL, &met, &err)) {
			fprintf(stderr, "bench_loop: %s\n", err.msg);
			return 1;
		}
		t[i] = now() - t0;
	}
	qsort(t, TURNS, sizeof t[0], cmp);
	printf("whole loop on the demo firmware (plan colour, relink, reflash, 300 pings: "
	       "%.1f misses/echo): %.2f s, median of %d (target < 10 s)\n",
	       met.misses_per_echo, t[TURNS / 2], TURNS);
	free(fw);
	free(bd);
	free(log);
	free(elf);
	free(trace);
	free(samples);
	free(dir);
	free(ld);
	free(relinked);
	return 0;
}
