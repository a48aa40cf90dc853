/* bench_probe: the PC sampler of probe/ (the host side) against the virtual probe in this
 * process: samples per second of virtual time at 24 MHz SWCLK with 8 packets in flight
 * (DESIGN.md: >= 50 k/s), and the host CPU time each sample costs, board emulation
 * included. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../tests/unit/test_probe_common.h"

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
	vpico v;
	vpico_init(&v, 0, NULL);
	vpico_run_program(&v, "spin", 100000);
	xb_probe p;
	vpico_attach(&v, &p, 0);
	xb_samples s;
	samples_init(&s);
	xb_sampler_config cfg = {.busy_seconds = 0.5};
	xb_sampler_stats st;
	xb_err err;
	double t0 = cpu_now();
	if (sampler_run(p.adi, &cfg, &s, &st, &err)) {
		fprintf(stderr, "bench_probe: %s\n", err.msg);
		return 1;
	}
	double cpu = cpu_now() - t0;
	printf("probe/ sampler, virtual probe, %u MHz SWCLK, %u packets in flight: %.1f k "
	       "samples/s of virtual time (target >= 50 k/s); %.2f us of host CPU per sample; "
	       "%llu samples, %llu status reads\n",
	       TP_SWCLK / 1000000, st.in_flight, st.rate / 1000, cpu / (double)st.samples * 1e6,
	       (unsigned long long)st.samples, (unsigned long long)st.status_reads);
	samples_free(&s);
	probe_close(&p);
	vpico_free(&v);
	return st.rate >= 50000 ? 0 : 1;
}
