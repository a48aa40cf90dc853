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
#include "dap_pipe.h"

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

/* ---- Streaming (the live session's sampler) ---- */

/*
 * The same pipeline, driven from the caller's loop through a dap_pipe (probe/dap_pipe.h)
 * that other work shares: sampler_stream_start sets the probe up (synchronously: DEMCR.
 * DWTENA, CSW increment off, TAR = DWT_PCSR; the pipe must be idle), then every
 * sampler_stream_pump keeps up to `in_flight` of its packets queued or in flight in the
 * pipe (blocks, and a status read after every status_every blocks); each response's
 * samples go to the sink at once, in order, each with:
 *
 *  - t_ns: the transport's clock when the packet's response was collected, spread evenly
 *    back over the time since the previous response (the reads of one packet are close
 *    together, so this is a good estimate of when each was taken);
 *  - flags: XB_SAMPLE_SLEEP when the PC is a sleep PC, known at once: the caller gives the
 *    image's WFI/WFE addresses (sleep_pcs), and status reads add the PCs read right after
 *    DHCSR showed S_SLEEP (learnt ones apply from then on); the caller's extra_flags
 *    (XB_SAMPLE_IDLE during an idle window: sampler_stream_flags changes them between
 *    packets); 0xFFFFFFFF PCs (halted) are passed on as they are.
 *
 * A FAULT or WAIT answer to a block (the target stopped answering) is reported once per
 * episode through the pump's return (-1, err naming the answer) while the stream keeps
 * trying, so it resumes by itself when the target answers again; a failed pipe (the probe
 * gone) ends the stream: pump returns -1 with the pipe's error and the caller makes a new
 * stream on a new pipe when the probe is back. Samples already delivered stay delivered.
 * A status read answered so, or an answer that does not parse, counts the same. After
 * such an answer the stream queues one recovery packet (a DAP_Transfer: DP ABORT with the
 * sticky flags and DAPABORT, then TAR = DWT_PCSR, which a status read that failed half-way
 * left at DHCSR) before its next packets; an episode ends with the next answer that is OK.
 */
typedef struct xb_sampler_stream xb_sampler_stream;

typedef void (*xb_sample_sink_fn)(void *ctx, uint32_t pc, uint32_t flags, uint64_t t_ns);

typedef struct xb_sampler_stream_config {
	unsigned in_flight;        /* packets of the stream in the pipe at most (0: the pipe's
				    * window) */
	unsigned status_every;     /* 0: SAMPLER_STATUS_EVERY */
	const uint32_t *sleep_pcs; /* known sleep PCs (copied; at most SAMPLER_STREAM_SLEEP_PCS) */
	size_t nsleep_pcs;
	uint32_t extra_flags;      /* added to every sample (XB_SAMPLE_IDLE ...) */
	xb_sample_sink_fn sink;
	void *sink_ctx;
} xb_sampler_stream_config;

#define SAMPLER_STREAM_SLEEP_PCS 64

xb_sampler_stream *sampler_stream_start(xb_adi *a, xb_dap_pipe *pipe,
					const xb_sampler_stream_config *cfg, xb_err *err);
/* Never blocks (see above): queues the stream's packets and pumps the pipe (the session
 * may pump it too: samples then come on that pump; the stream refills the window as each
 * of its responses comes). Returns the samples delivered by this call, or -1 with err (a
 * new FAULT/WAIT episode, or the failed pipe). */
int sampler_stream_pump(xb_sampler_stream *s, xb_err *err);
/* Flags added to the samples of packets queued from now on. */
void sampler_stream_flags(xb_sampler_stream *s, uint32_t extra_flags);
/* Stops queueing; packets in flight still deliver on later pipe pumps (the stream object
 * stays valid until sampler_stream_free). */
void sampler_stream_stop(xb_sampler_stream *s);
/* Queues again after sampler_stream_stop (sampler_run's second window); nothing once the
 * pipe failed. */
void sampler_stream_resume(xb_sampler_stream *s);
/* 1 once stopped and every packet of the stream was answered (or the pipe failed). */
int sampler_stream_done(const xb_sampler_stream *s);
/* Frees (before its pipe); the pipe should not hold packets of the stream any more (stop,
 * then pump until done, or the pipe failed): those still there are forgotten (collected
 * without calling back). The adi forgets its TAR/CSW (the raw packets moved them). */
void sampler_stream_free(xb_sampler_stream *s);
/* Counts since the start (the same fields as sampler_run's; sleep_pcs are the learnt
 * ones; busy and idle seconds from the start to the last response, split by the
 * XB_SAMPLE_IDLE extra flag, on the transport's clock, and the rate over both). */
void sampler_stream_stats(const xb_sampler_stream *s, xb_sampler_stats *out);

/* WFI (0xBF30) and WFE (0xBF20) instructions in the code of an image: the addresses of
 * every halfword-aligned such encoding in [addr, addr + len) of bytes (Thumb code), for
 * sleep_pcs. Returns how many were written to out (at most max: the first ones). */
size_t sampler_find_sleep_pcs(const uint8_t *bytes, size_t len, uint32_t addr, uint32_t *out,
			      size_t max);

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
