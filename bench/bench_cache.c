/* bench_cache: cache model throughput on an instruction-fetch-like stream over ~40 KB of code. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../core/cache.h"

#define BENCH_FUNCTIONS 300
#define BENCH_FETCHES (4u << 20)
#define BENCH_MIN_SECONDS 1.0

static uint64_t bench_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Functions of 32..240 bytes (about 40 KB in all) laid out back to back after a 256-byte boot block; an
 * "echo" calls a fixed path of them, skewed towards a hot few, and each call runs its
 * body as 2-byte Thumb fetches with short loops and forward branches. */
static size_t bench_make_stream(uint32_t *out, size_t cap)
{
	uint32_t start[BENCH_FUNCTIONS], size[BENCH_FUNCTIONS];
	uint64_t s = 2040;
	uint32_t at = 0x100;
	for (int f = 0; f < BENCH_FUNCTIONS; f++) {
		start[f] = at;
		size[f] = 32 + (uint32_t)(bench_rand(&s) % 209) / 2 * 2;
		at += size[f];
	}
	int path[400];
	for (int i = 0; i < 400; i++) {
		uint64_t r = bench_rand(&s) % 100;
		path[i] = (int)(r < 60 ? bench_rand(&s) % 40 : bench_rand(&s) % BENCH_FUNCTIONS);
	}
	size_t n = 0;
	while (n < cap) {
		for (int i = 0; i < 400 && n < cap; i++) {
			uint32_t f = (uint32_t)path[i], pc = start[f], end = start[f] + size[f];
			while (pc < end && n < cap) {
				out[n++] = pc;
				uint64_t k = bench_rand(&s) % 64;
				if (k == 0 && pc - start[f] >= 32) {
					/* a short loop: run the last 16..32 bytes again a few times */
					uint32_t body = 16 + (uint32_t)(bench_rand(&s) % 9) * 2;
					for (int it = 0; it < 3 && n < cap; it++)
						for (uint32_t a = pc - body; a <= pc && n < cap; a += 2)
							out[n++] = a;
				}
				pc += k == 1 ? 2 + (uint32_t)(bench_rand(&s) % 16) * 2 : 2;
			}
		}
	}
	return n;
}

int main(void)
{
	uint32_t *offs = malloc(BENCH_FETCHES * sizeof *offs);
	if (!offs) {
		fprintf(stderr, "bench_cache: out of memory\n");
		return 1;
	}
	size_t n = bench_make_stream(offs, BENCH_FETCHES);
	xb_cache_config cfg = {.size = 16384, .ways = 2, .line = 8, .fill = 8,
			       .policy = XB_POLICY_LRU, .seed = 1};
	xb_err err;
	xb_cache *c = cache_new(&cfg, 2u << 20, &err);
	if (!c) {
		fprintf(stderr, "bench_cache: %s\n", err.msg);
		return 1;
	}
	volatile uint64_t sink = cache_fetch_run(c, offs, n); /* warm-up pass */
	uint64_t accesses = 0;
	double t0 = bench_now(), t1;
	do {
		sink += cache_fetch_run(c, offs, n);
		accesses += n;
		t1 = bench_now();
	} while (t1 - t0 < BENCH_MIN_SECONDS);
	(void)sink;
	printf("cache model, streamed trace: %.1f M accesses/s (target >= 300 M/s)\n",
	       (double)accesses / (t1 - t0) / 1e6);
	cache_free(c);
	free(offs);
	return 0;
}
