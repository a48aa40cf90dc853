/* bench_plan: how long cache colouring takes for 5,000 synthetic functions. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../core/plan.h"
#include "../tests/common/synth.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *target = argc > 1 ? argv[1] : "targets/rp2040.target";
	xb_target tg;
	xb_err err;
	if (target_load_file(&tg, target, &err) != 0) {
		fprintf(stderr, "bench_plan: %s\n", err.msg);
		return 1;
	}
	xb_image img;
	synth_image(&img, 5000, 1);
	xb_samples s;
	samples_init(&s);
	synth_samples(&s, &img, 5000, 500000, 2);
	xb_profile prof;
	profile_build(&prof, &img, &s, tg.cache.line);
	xb_plan_input in = {.img = &img, .tg = &tg, .prof = &prof, .sram_budget = 16384,
			    .pad_budget = 65536};
	double best = 1e9;
	size_t placed = 0;
	for (int rep = 0; rep < 5; rep++) {
		xb_layout l;
		layout_init(&l);
		double t0 = now();
		if (plan_colour.plan(&in, &l, &err) != 0) {
			fprintf(stderr, "bench_plan: %s\n", err.msg);
			return 1;
		}
		double dt = now() - t0;
		best = dt < best ? dt : best;
		placed = l.n;
		layout_free(&l);
	}
	printf("planner, colouring 5,000 functions (%zu placed): %.1f ms (target < 100 ms)\n",
	       placed, best * 1e3);
	profile_free(&prof);
	samples_free(&s);
	synth_image_free(&img);
	return 0;
}
