/* bench_dap: PC samples per second through the virtual CMSIS-DAP probe under its timing
 * model (virtual time), as a host samples DWT_PCSR with DAP_TransferBlock reads (CSW
 * AddrInc off, 15 samples per 64-byte packet) at 24 MHz SWCLK with 8 packets in flight;
 * and what each sample costs the host in CPU time, with the program running (the board
 * emulates every virtual microsecond) and with the core halted (the probe alone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/unit/test_dap_common.h"

#define PACKETS 20000u
#define IN_FLIGHT 8u
#define SWCLK_HZ 24000000u

/* CPU time of this process: other jobs on the machine do not count against a run. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void submit(dh *h, const uint8_t *req, size_t len)
{
	xb_err err;
	if (dap_submit(h->dap, req, len, &err)) {
		fprintf(stderr, "bench_dap: %s\n", err.msg);
		exit(1);
	}
}

typedef struct sampling {
	uint64_t samples, bad;
	double virtual_s, cpu_s;
} sampling;

/* PACKETS TransferBlock packets of 15 DWT_PCSR reads, IN_FLIGHT at a time. */
static sampling sample(dh *h, int check_pcs)
{
	static const uint8_t block[] = {0x06, 0x00, 15, 0x00, 0x0F}; /* 15 reads of DRW */
	sampling r = {0};
	uint8_t resp[64];
	size_t len;
	uint64_t first = dap_host_time(h->dap), last = first;
	double t0 = cpu_now();
	unsigned sent = 0;
	for (; sent < IN_FLIGHT; sent++)
		submit(h, block, sizeof block);
	while (dap_collect(h->dap, resp, sizeof resp, &len, &last)) {
		if (len != 64 || resp[1] != 15 || resp[3] != 1) {
			r.bad++;
		} else {
			for (int i = 0; check_pcs && i < 15; i++)
				r.bad += (dh_u32(resp + 4 + 4 * i) >> 28) != 1; /* PCs in flash */
			r.samples += 15;
		}
		if (sent < PACKETS) {
			submit(h, block, sizeof block);
			sent++;
		}
	}
	r.cpu_s = cpu_now() - t0;
	r.virtual_s = (double)(last - first) / board_cpu_hz(h->b);
	return r;
}

int main(void)
{
	xb_board *b = sim_board(NULL);
	dh_load_program(b, "spin");
	board_run(b, 100000);
	dh h;
	dh_init(&h, b, NULL);
	uint32_t dpidr = 0, dlpidr = 0;
	if (dh_openocd_connect(&h, DH_TARGETSEL_CORE0, &dpidr, &dlpidr) != 1 ||
	    !dh_power_up(&h, 0) || dh_mem_write32(&h, DH_DEMCR, 1u << 24) != 1 ||
	    dh_ap_write(&h, 0x4, DH_DWT_PCSR) != 1) {
		fprintf(stderr, "bench_dap: could not set up PC sampling\n");
		return 1;
	}
	dh_swj_clock(&h, SWCLK_HZ);

	sampling r = sample(&h, 1);
	if (r.bad) {
		fprintf(stderr, "bench_dap: %llu bad responses or samples\n",
			(unsigned long long)r.bad);
		return 1;
	}
	if (!dh_halt(&h)) {
		fprintf(stderr, "bench_dap: could not halt the core\n");
		return 1;
	}
	sampling halted = sample(&h, 0);
	printf("virtual probe, PC sampling at %u MHz SWCLK, %u packets in flight: %.1f k "
	       "samples/s (target >= 50 k/s)\n",
	       SWCLK_HZ / 1000000, IN_FLIGHT, (double)r.samples / r.virtual_s / 1000.0);
	printf("virtual probe, host CPU time per PC sample: %.2f us with the program running, "
	       "%.2f us for the probe alone (core halted); %llu samples in %.3f s virtual\n",
	       r.cpu_s / (double)r.samples * 1e6, halted.cpu_s / (double)halted.samples * 1e6,
	       (unsigned long long)r.samples, r.virtual_s);
	dh_free(&h);
	board_free(b);
	return 0;
}
