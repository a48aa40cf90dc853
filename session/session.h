/* session: one live session on one bench, driven from the caller's loop. It never blocks
 * the caller (after session_open): it exposes descriptors and the next deadline, and
 * session_pump does what is due. Inside: the bench (bench.h: the virtual Pico or a real
 * board), the probe (one dap_pipe shared by the streaming PC sampler and the XIP counter
 * reads), the usbmon echo tracker, the traffic generator, the live profile, the cache-set
 * map, the figures over time, the log, and jobs (the study's measurement and profile).
 * The workbench, `xipbench experiment` and `xipbench sim serve` are its clients. */
#ifndef XB_SESSION_SESSION_H
#define XB_SESSION_SESSION_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/export.h"
#include "../core/image.h"
#include "../core/liveprof.h"
#include "../core/logring.h"
#include "../core/profile.h"
#include "../core/series.h"
#include "../core/setmap.h"
#include "../core/srcline.h"
#include "../core/target.h"
#include "../probe/adiv5.h"
#include "bench.h"
#include "status.h"

/*
 * Clock: the session's clock is the bench's (virtual time on the virtual Pico, in both of
 * its modes; CLOCK_MONOTONIC on a real board). Samples, echoes and counter reads are put
 * on it as they arrive.
 *
 * Start (session_open, which blocks while it does this, reporting progress): the image is
 * loaded (ELF, map, display groups, DWARF lines), the bench opened, the session's probe
 * connected, the image flashed through it and the core reset through it. Then, pumped:
 * bring-up (the board's network: USB enumeration, CDC-ECM, link, ARP), an idle window of
 * idle_seconds (no traffic: the idle misses per second and the idle profile that the
 * study's busy-minus-idle method subtracts), then the traffic (pings and UDP echoes at
 * the configured rates), with PC sampling and XIP counter reads throughout.
 *
 * Failures: a probe that goes away (or answers FAULT/WAIT) leaves everything measured so
 * far in place; the session says so (session_status) and reconnects (every second) and
 * resumes by itself. A capture that fails leaves the turnaround unknown. A board whose
 * core halts or locks up is reported. Only a failed start is fatal (session_open fails).
 *
 * Memory is bounded in a session of any length.
 */

typedef struct xb_session xb_session;

enum xb_session_bench { XB_SESSION_VIRTUAL = 0, XB_SESSION_PROBE };

typedef void (*xb_session_progress_fn)(void *ctx, const char *msg);

typedef struct xb_session_options {
	const xb_target *tg;      /* required */
	const char *elf;          /* the image (required unless attach is 0) */
	const char *map;          /* its map (NULL: ELF.map next to it, if there) */
	const char *groups;       /* display groups file (NULL: the shipped default) */
	int bench;                /* XB_SESSION_VIRTUAL or XB_SESSION_PROBE */
	xb_virtual_options virt;  /* the virtual bench (tg is filled in) */
	xb_probe_bench_options probe; /* the real bench */
	int attach;               /* connect a probe of the session's own (default 1) */
	int flash;                /* flash elf through it at the start (default: 1 on the
				   * virtual bench, 0 on a real one) */
	int sample;               /* stream PC samples (default 1) */
	unsigned sample_in_flight; /* sampler packets in flight (0: the probe's count) */
	uint64_t counters_ns;     /* XIP counter period (default 100 ms; 0: off) */
	double idle_seconds;      /* the idle window after bring-up (default 2; 0: none) */
	double ping_rate;         /* per second, after the idle window (default 50; 0 off) */
	unsigned ping_size;       /* ICMP data bytes (default 56) */
	double udp_rate;          /* per second (default 200; 0 off) */
	unsigned udp_size;        /* payload bytes (default 64) */
	unsigned udp_port;        /* the virtual bench: the board's UDP echo port (0: 7, RFC
				   * 862's; a real bench: probe.udp_port) */
	double bringup_s;         /* how long bring-up may take (default 5 s of bench time) */
	xb_liveprof_config prof;
	size_t sample_ring;       /* samples held between pumps (default 262144) */
	xb_session_progress_fn progress; /* start-up progress (NULL: none) */
	void *progress_ctx;
} xb_session_options;

void session_options_init(xb_session_options *o);

/* Opens the session (see "Start"). NULL with rep (the status says which step failed). */
xb_session *session_open(const xb_session_options *o, xb_report *rep);
void session_close(xb_session *s);

/* ---- The caller's loop ---- */

/* Descriptors to wait on (at most max); returns how many. */
int session_pollfds(xb_session *s, struct pollfd *fds, int max);
/* Milliseconds until session_pump is due again (0: now), at most 100. */
int session_timeout_ms(xb_session *s);
/* Does what is due; in virtual time (virt.virtual_time) it also runs the board up to the
 * next thing due, so `while (...) session_pump(s)` advances the bench. Returns 0, or -1
 * when the session cannot go on (session_status says why). */
int session_pump(xb_session *s);
uint64_t session_now(xb_session *s);

enum xb_session_phase {
	XB_PHASE_BRINGUP = 0, /* waiting for the board's network */
	XB_PHASE_IDLE,        /* recording an idle window */
	XB_PHASE_RUNNING,     /* traffic and measurements */
	XB_PHASE_FAILED,      /* cannot go on */
	XB_PHASE_FLASHING,    /* a reflash in place is programming the board */
};
int session_phase(const xb_session *s);
/* "bringing up the network", "recording 2.0 s of idle", "running", ... */
const char *session_phase_text(const xb_session *s);
/* The latest problem (status OK when there is none now). */
const xb_report *session_status(const xb_session *s);

/* ---- What there is to show ---- */

const xb_target *session_target(const xb_session *s);
const xb_image *session_image(const xb_session *s);
const char *session_image_path(const xb_session *s);
const xb_liveprof *session_profile(const xb_session *s);
const xb_srclines *session_srclines(const xb_session *s);
/* The cache sets of the current layout for the window's hot lines (recomputed when the
 * profile moved on), with live contents and misses on the virtual bench and predicted
 * misses when a trace was replayed. */
const xb_setmap *session_sets(xb_session *s, int window);
/* Misses per echo attributed to each image function by the last trace replay, or NULL. */
const double *session_func_misses(const xb_session *s, const char **from);

enum xb_session_series { XB_SS_TURNAROUND = 0, XB_SS_ECHO_RATE, XB_SS_MISSES_PER_ECHO,
			 XB_SS_HIT_RATE, XB_SS_MISSES_PER_S, XB_SS_COUNT };
const xb_series *session_series(const xb_session *s, int which);
const xb_logring *session_log(const xb_session *s);
xb_logring *session_log_mut(xb_session *s);
const char *session_bench_name(const xb_session *s);
/* The bench itself, for a client that uses its network directly (sim serve's UDP
 * forwarding: send_udp and read_replies). */
xb_bench *session_bench(xb_session *s);
/* The start's flash programming: how long it took (the probe's clock) and the image's
 * bytes (0 when nothing was flashed). */
void session_flash_info(const xb_session *s, double *seconds, size_t *bytes);
void session_bench_state(xb_session *s, xb_bench_state *out);

typedef struct xb_session_figures {
	double echo_rate;         /* replies per second, last second */
	double turnaround_ms;     /* median of the sliding window (the last 256 echoes of
				   * the last 10 s) */
	double misses_per_echo;   /* last 10 s: (misses - idle rate x time) / requests */
	double misses_per_s;      /* last second */
	double idle_misses_per_s; /* the recorded idle window's (NaN before one) */
	double hit_rate;          /* %, last second */
	double loss;              /* % of the last 10 s's settled requests without reply */
	double sample_rate;       /* samples per second, last second */
	uint64_t requests, replies, lost; /* since the start */
	uint64_t samples, samples_lost;
	double window_s;          /* what misses_per_echo covers */
	/* traffic */
	double ping_rate, udp_rate;
	unsigned ping_size, udp_size;
	int sweep;
	unsigned sweep_step, sweep_steps;
	double sweep_peak;
} xb_session_figures;
void session_figures(xb_session *s, xb_session_figures *f);

/* ---- Controls (0, or -1 with rep) ---- */

int session_set_ping(xb_session *s, double rate, unsigned size, xb_report *rep);
int session_set_udp(xb_session *s, double rate, unsigned size, xb_report *rep);
/* A UDP step sweep: each rate for step_s then a gap of gap_s, passes times; the peak is the
 * highest reply rate of any step (the study's method). rates NULL: stop the sweep. */
int session_sweep(xb_session *s, const uint32_t *rates, size_t n, double step_s, double gap_s,
		  unsigned passes, unsigned size, xb_report *rep);
/* Pauses the traffic, records an idle window of seconds, resumes. */
int session_record_idle(xb_session *s, double seconds, xb_report *rep);
/* The virtual bench's speed, pause and single step (a real board: XB_STATUS_UNSUPPORTED). */
int session_set_speed(xb_session *s, double speed, xb_report *rep);
int session_pause(xb_session *s, int paused, xb_report *rep);
int session_step(xb_session *s, xb_report *rep);
/* The virtual bench's probe tricks (bench.h XB_PROBE_TRICK_*), for demos and tests. */
int session_probe_trick(xb_session *s, int trick, double seconds, xb_report *rep);
/* Replays a fetch trace of this image (trace file) for predicted misses per set and per
 * function. */
int session_load_trace(xb_session *s, const char *path, xb_report *rep);
/* A marker on every series (the image changed ...). */
void session_mark(xb_session *s, const char *label);

/* Switches the XIP cache on or off over SWD (XIP_CTRL.EN), as a build or an MPU table can
 * leave it: the firmware runs on from flash uncached until it is switched on again or the
 * board is reset (a reflash). 0, or -1 with rep (no probe). */
int session_xip_cache(xb_session *s, int on, xb_report *rep);

/* Word accesses over SWD in the session's probe pipe, in order, between the sampler's
 * packets (TAR is put back at DWT_PCSR after them): at most 6 in one call, which go in one
 * packet, so a write such as MPU_RNR and the reads it selects are not separated. Reads
 * fill acc[i].value. Waits for the answer (pumping the session; in virtual time the board
 * runs meanwhile), at most 2 s of bench time. 0, or -1 with rep (no probe, FAULT, WAIT). */
int session_swd_access(xb_session *s, xb_mem_access *acc, size_t n, xb_report *rep);
/* The MPU's registers (core/mpu.h) over SWD, for a target whose file names its MPU
 * (ARMv7-M/ARMv8-M B3.5): TYPE, CTRL, CCR or MAIR0/1, then RBAR and RASR/RLAR of each
 * region, selected by RNR in the same packet. 0, or -1 with rep (no MPU in the target, no
 * probe, FAULT). */
struct xb_mpu;
int session_read_mpu(xb_session *s, struct xb_mpu *m, xb_report *rep);

/* ---- Reflashing in place ---- */

/* Puts another build of the firmware (a relink: elf, with its map, or NULL for the one next
 * to it) on the board the session runs: the image is loaded first (a bad one changes
 * nothing), the traffic and the probe's streams stop, the image is programmed through the
 * session's probe (program 0: an external command has written it already, only the reset)
 * and the core reset; live, the programming runs in a thread of its own while the session
 * keeps pumping (phase XB_PHASE_FLASHING). Then the session shows the new image: a new
 * profile for its addresses, a marker on every series, and the board's network brought up
 * again (bring-up, the idle window, the traffic). A failed programming keeps the old image
 * in the session's view and says why (the board may hold part of the new one: flash the
 * last good image again). In virtual time it is done when this returns. 0 when it
 * started, -1 with rep (nothing changed). */
int session_reflash(xb_session *s, const char *elf, const char *map, int program, xb_report *rep);
/* XB_JOB_NONE, RUNNING, DONE or FAILED (rep, may be NULL, says why) of the last reflash. */
int session_reflash_state(const xb_session *s, xb_report *rep);

/* ---- Jobs: the study's measurement and profile ---- */

/* How an image is measured (the study's method). */
typedef struct xb_measure_plan {
	unsigned pings;        /* misses per echo and turnaround: pings ... (300); 0: the UDP
				* sweep alone (the footprint too is left out) */
	double interval_ms;    /* ... every interval_ms (20), after an idle window as long */
	unsigned ping_size;    /* data bytes (56) */
	double footprint_ms;   /* the footprint's window after the flush (20); 0: skip */
	const uint32_t *rates; /* UDP echo rate steps (NULL: skip) */
	size_t nrates;
	double step_s, gap_s;  /* each step lasts step_s, then a pause of gap_s */
	unsigned passes;
	unsigned udp_size;     /* payload bytes (64) */
} xb_measure_plan;

typedef struct xb_measure_result {
	double misses_per_echo;     /* (traffic window - idle window) / pings */
	double turnaround_ms;       /* median over the pings, from the usbmon records */
	double peak_udp_echo_per_s; /* highest reply rate of any step of any pass */
	double footprint_lines;     /* flush, one echo, misses minus idle */
	unsigned pings_sent, pings_replied;
	size_t udp_sent, udp_replied;
	uint64_t misses_traffic, misses_idle;
	double flash_s;             /* the session's start-up flash (session_flash_info) */
	size_t flashed_bytes;
} xb_measure_result;

/* The profile run of the study: an idle window and pings (and, with udp_rate, a UDP stream
 * after them), PC samples during the traffic windows into samples (initialised by the
 * caller), and, on a virtual bench recording a trace, the window marks in it. */
typedef struct xb_profile_plan {
	unsigned pings;         /* 0: UDP echoes only (udp_rate must be set) */
	double interval_ms;
	unsigned ping_size;
	uint32_t udp_rate;      /* 0: pings only */
	double udp_seconds;
	unsigned udp_size;
	unsigned in_flight;     /* sampler packets in flight (0: the probe's count) */
	xb_samples *samples;    /* out */
	const char *trace_path; /* the virtual bench: record the run's fetch trace here (with
				 * the window marks), from the job's start to its end; NULL:
				 * none (or the bench's own: xb_virtual_options.trace_path) */
} xb_profile_plan;

/* Starts a job (the session's own traffic pauses while it runs). One at a time. */
int session_measure(xb_session *s, const xb_measure_plan *p, xb_report *rep);
/* The plan as the history and the method paragraph keep it (export_method_init first). */
void session_measure_method(const xb_measure_plan *p, xb_method *m);
int session_profile_run(xb_session *s, const xb_profile_plan *p, xb_report *rep);
enum { XB_JOB_NONE = 0, XB_JOB_RUNNING, XB_JOB_DONE, XB_JOB_FAILED };
/* Ends the running job (FAILED, status XB_STATUS_CANCELLED); the live traffic resumes. */
void session_cancel_job(xb_session *s);
/* The job's state; with DONE or FAILED, rep (may be NULL) says how it ended. */
int session_job(const xb_session *s, xb_report *rep);
const char *session_job_progress(const xb_session *s);
/* The last measurement's result (after DONE). */
void session_measure_result(const xb_session *s, xb_measure_result *out);

/* Blocks, pumping, until the bench's network is up (bring-up done) or the bench time
 * bound passes: for batch callers. 0, or -1 with rep. */
int session_wait_ready(xb_session *s, xb_report *rep);
/* Blocks, pumping, until the job ends. 0 when it is DONE, -1 with rep. */
int session_wait_job(xb_session *s, xb_report *rep);

#endif
