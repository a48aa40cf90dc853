/* bench_plan: how long cache colouring takes for 5,000 synthetic functions, and how fast
 * the colouring's local search tries candidates on a synthetic echo trace. */
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

/* The search on 400 synthetic functions, a random share of them run (a prefix of each)
 * every echo: candidates per second and the misses per echo before and after. */
static int bench_search(const xb_target *tg)
{
	xb_image img;
	synth_image(&img, 400, 7);
	xb_trace t;
	trace_init(&t);
	uint64_t r = 7;
	uint32_t *cover = calloc(img.nfuncs + 1, sizeof *cover);
	for (size_t i = 0; i < img.nfuncs; i++) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		if ((r >> 33) % 100 < 50)
			cover[i] = (uint32_t)(img.funcs[i].size * (40 + (r >> 40) % 61) / 100) & ~1u;
	}
	for (int e = 0; e < 20; e++) {
		trace_mark_echo(&t);
		for (size_t i = 0; i < img.nfuncs; i++)
			for (uint32_t o = 0; o < cover[i]; o += 2)
				trace_push(&t, img.funcs[i].addr + o);
	}
	free(cover);
	xb_plan_search_stats st;
	xb_plan_input in = {.img = &img, .tg = tg, .trace = &t, .pad_budget = 32768,
			    .search_moves = 20000, .search_seed = 1, .search_stats = &st};
	xb_layout l;
	layout_init(&l);
	xb_err err;
	if (plan_colour.plan(&in, &l, &err) != 0) {
		fprintf(stderr, "bench_plan: %s\n", err.msg);
		return 1;
	}
	printf("planner, colouring search on 400 functions: %u candidates in %.2f s (%.0f per s), "
	       "%.1f -> %.1f misses per echo\n",
	       st.moves, st.seconds, st.seconds > 0 ? st.moves / st.seconds : 0.0, st.start_misses,
	       st.end_misses);
	layout_free(&l);
	trace_free(&t);
	synth_image_free(&img);
	return 0;
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
	return bench_search(&tg);
}
