/* sampler: statistical PC sampling through the debug port: DAP_TransferBlock reads of
 * DWT_PCSR with the MEM-AP's address increment off, pipelined up to the probe's packet
 * count, classified with DHCSR, into the sample set of core/profile.h. */
#ifndef XB_PROBE_SAMPLER_H
#define XB_PROBE_SAMPLER_H

#include <signal.h>
#include <stdint.h>

#include "../core/profile.h"
#include "../core/util.h"
#include "adiv5.h"

/*
 * What a sample is: DWT_PCSR read by the debugger without stopping the core: the address
 * of an instruction the core executed recently. A 64-byte packet carries 15 of them (the
 * DAP_TransferBlock response header takes 4 bytes); the probe reads them back to back
 * (one SWD transfer each), so a packet's samples are clustered in time, and packets come
 * as fast as the USB round trip and the packet count allow.
 *
 * Status: after every status_every blocks one DAP_Transfer packet reads DHCSR and, right
 * after it, DWT_PCSR again. These reads count how often the core was found sleeping
 * (S_SLEEP), halted or locked up, an unbiased estimate of those shares.
 *
 * Sleep: what DWT_PCSR returns while the core sleeps in WFI/WFE is not documented for the
 * Cortex-M0+ (the virtual Pico returns the address of the WFI/WFE). The sampler therefore
 * learns it: the PCSR value read right after a DHCSR read that showed S_SLEEP is a "sleep
 * PC" (at most SAMPLER_SLEEP_PCS of them), and every sample of the session at a sleep PC
 * is flagged XB_SAMPLE_SLEEP. A busy sample at the WFI instruction itself (the one cycle
 * before the core sleeps) is flagged too; that is rare. Sleep samples keep their PC.
 *
 * Halted: a core in debug state (or locked up) reads 0xFFFFFFFF. Such samples are kept as
 * 0xFFFFFFFF (profiles count them as unattributed) and counted in halted_samples.
 *
 * Windows: the busy window (busy_seconds), then, if idle_seconds > 0, the idle window,
 * whose samples are flagged XB_SAMPLE_IDLE. A packet belongs to the window in which it was
 * sent; each window ends with the packets in flight collected. The measured lengths are
 * added to out->busy_seconds / idle_seconds. Time is the transport's: virtual time for the
 * in-process virtual probe, the wall clock otherwise.
 */

#define SAMPLER_SLEEP_PCS 8
#define SAMPLER_STATUS_EVERY 4

typedef struct xb_sampler_config {
	double busy_seconds;   /* > 0 */
	double idle_seconds;   /* 0: no idle window */
	unsigned status_every; /* a status read after every N blocks (0: SAMPLER_STATUS_EVERY) */
	unsigned in_flight;    /* packets in flight (0 or more than the probe's: its count) */
	/* Called as each window starts (idle 0, then 1): e.g. "stop the traffic now". */
	void (*window)(void *ctx, int idle);
	void *ctx;
	/* Set it nonzero (from a signal handler) to end the session early, keeping what was
	 * sampled. May be NULL. */
	volatile sig_atomic_t *stop;
} xb_sampler_config;

typedef struct xb_sampler_stats {
	uint64_t samples;          /* taken in this session */
	uint64_t busy_samples, idle_samples;
	uint64_t blocks;           /* TransferBlock packets */
	unsigned per_block;        /* samples per block: 15 at 64-byte packets */
	unsigned in_flight;        /* packets kept in flight */
	uint64_t status_reads;     /* DHCSR reads */
	uint64_t status_sleeping, status_halted, status_lockup;
	uint64_t sleep_samples;    /* flagged XB_SAMPLE_SLEEP */
	uint64_t halted_samples;   /* 0xFFFFFFFF */
	uint32_t sleep_pcs[SAMPLER_SLEEP_PCS];
	unsigned nsleep_pcs;
	double busy_seconds, idle_seconds; /* measured */
	double rate;               /* samples per second over both windows */
	int virtual_time;          /* the seconds are virtual time */
} xb_sampler_stats;

/*
 * Samples the core behind a (connected, powered) until the windows are over: DEMCR.DWTENA
 * on, CSW increment off with TAR at DWT_PCSR, then the pipeline. Appends to out
 * (initialised by the caller; earlier samples stay) and fills st (may be NULL). On a
 * failure (a probe that vanishes, a FAULT) it returns -1 with err, and out and st still
 * hold everything sampled until then. Memory accesses through a afterwards restore CSW.
 */
int sampler_run(xb_adi *a, const xb_sampler_config *cfg, xb_samples *out, xb_sampler_stats *st,
		xb_err *err);

#endif
