/* bench_liveprof: live profile ingest on a synthetic image of 5,000 functions, samples on
 * its hottest 500 (weights falling with the rank), 10 us apart (buckets rotate as they
 * would at 100 k samples/s). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../core/liveprof.h"
#include "../tests/common/synth.h"

#define BENCH_FUNCTIONS 5000
#define BENCH_HOT 500
#define BENCH_SAMPLES (1u << 20)
#define BENCH_STEP_NS 10000u
#define BENCH_MIN_SECONDS 1.0

static double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
	xb_image img;
	synth_image(&img, BENCH_FUNCTIONS, 2040);
	xb_samples s;
	samples_init(&s);
	synth_samples(&s, &img, BENCH_HOT, BENCH_SAMPLES, 7);
	xb_live_sample *v = malloc(s.n * sizeof *v);
	if (!v) {
		fprintf(stderr, "bench_liveprof: out of memory\n");
		return 1;
	}
	/* the idle samples synth_samples puts last, spread among the busy ones */
	for (size_t i = 0; i < s.n; i++)
		v[i] = (xb_live_sample){.pc = s.s[i].pc, .flags = s.s[i].flags};
	for (size_t i = 0; i + 1 < s.n; i += 2) {
		size_t j = s.n - 1 - i / 2 % (s.n / 11);
		xb_live_sample tmp = v[i];
		v[i] = v[j];
		v[j] = tmp;
	}
	xb_liveprof *p = liveprof_new(&img, 8, NULL);
	uint64_t t = 0, samples = 0;
	double spent = 0;
	do {
		for (size_t i = 0; i < s.n; i++, t += BENCH_STEP_NS)
			v[i].t_ns = t;
		double t0 = bench_now();
		liveprof_add(p, v, s.n);
		spent += bench_now() - t0;
		samples += s.n;
	} while (spent < BENCH_MIN_SECONDS);
	xb_liveprof_totals tot;
	liveprof_totals(p, XB_WINDOW_ALL, &tot);
	if (tot.samples + liveprof_idle_samples(p) != samples) {
		fprintf(stderr, "bench_liveprof: %llu samples in, %llu counted\n",
			(unsigned long long)samples,
			(unsigned long long)(tot.samples + liveprof_idle_samples(p)));
		return 1;
	}
	printf("live profile ingest: %.1f M samples/s (target >= 100 k samples/s)\n",
	       (double)samples / spent / 1e6);
	liveprof_free(p);
	free(v);
	samples_free(&s);
	synth_image_free(&img);
	return 0;
}
