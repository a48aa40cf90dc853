/* session_int: the session's state, shared by its files (session.c: opening, the loop, the
 * probe; traffic.c: the generator and the echoes; counters.c: the XIP counters; live.c:
 * samples, sets, series, figures; jobs.c: the study's measurement and profile). Not for
 * use outside session/. */
#ifndef XB_SESSION_INT_H
#define XB_SESSION_INT_H

#include "../capture/tracker.h"
#include "../probe/dap_pipe.h"
#include "../probe/probe.h"
#include "../probe/rp2040.h"
#include "../probe/sampler.h"
#include "session.h"

#define SS_NS 1000000000ull
#define SS_MS 1000000ull
#define SS_PING_ID 0x7862u      /* the ICMP identifier of the session's pings ("xb") */
#define SS_UDP_SPORT 50000u     /* the host's UDP port */
#define SS_UDP_DPORT 7u         /* the echo service (RFC 862) */
#define SS_SERIES 64            /* traffic series at once */
#define SS_INTERVALS 128        /* counter intervals kept (10 s at 100 ms, and more) */
#define SS_TURNAROUNDS 256      /* turnarounds in the sliding window */
#define SS_BUCKETS 100          /* echo buckets of 100 ms: 10 s */
#define SS_WINDOW_NS (10 * SS_NS)
#define SS_RETRY_NS SS_NS       /* a lost probe is tried again this often */
#define SS_SETTLE_NS (100 * SS_MS)

/* ---- Traffic (traffic.c) ---- */

enum { TR_PING = 1, TR_UDP = 2 };
enum { TR_LIVE = 0, TR_JOB = 1, TR_SWEEP = 2 };

typedef struct tr_series {
	int kind, owner, used;
	uint64_t start_ns;
	double interval_ns;   /* request i is due at start_ns + round(i * interval_ns) */
	uint64_t count;       /* UINT64_MAX: until stopped */
	uint64_t next;        /* requests sent */
	unsigned size;
	uint16_t id, seq0;    /* pings */
} tr_series;

/* An echo settled within the last 10 s, for the sliding windows. */
typedef struct tr_bucket {
	uint64_t t;           /* bucket index (session ns / 100 ms) */
	uint32_t replies, lost, requests;
} tr_bucket;

typedef struct tr_sweep_event {
	uint64_t submit_ns;
	int replied;
} tr_sweep_event;

typedef struct tr_state {
	tr_series series[SS_SERIES];
	double ping_rate, udp_rate;
	unsigned ping_size, udp_size;
	int live_on;          /* the live series run (off during idle windows and jobs) */
	long live_ping, live_udp; /* their slots, -1 none */
	uint16_t next_seq;
	uint32_t next_nonce;
	uint64_t due_base;    /* requests of series that were folded away */
	/* echoes */
	tr_bucket buckets[SS_BUCKETS];
	double turn[SS_TURNAROUNDS];
	uint64_t turn_t[SS_TURNAROUNDS];
	size_t nturn, turn_head;
	uint64_t requests, replies, lost;
	/* the sweep */
	int sweep;
	uint32_t *rates;
	size_t nrates;
	double step_s, gap_s;
	unsigned passes, sweep_size, pass, step;
	uint64_t step_end, sweep_start, drain_until;
	int draining, settling;
	tr_sweep_event *sw_ev;
	size_t sw_n, sw_cap;
	double sweep_peak;
	size_t sweep_sent, sweep_replied;
} tr_state;

/* ---- Counters (counters.c) ---- */

typedef struct ct_interval {
	uint64_t t_ns;        /* session time of the read that ended it */
	double dt_s;          /* board seconds it covers (TIMERAWL) */
	double misses, accesses;
	double requests;      /* requests due in it */
	int idle;             /* inside an idle window */
} ct_interval;

typedef void (*ct_read_fn)(xb_session *s, void *ctx, double misses_total, double acc_total,
			   uint64_t t_ns, const xb_err *err);

typedef struct ct_state {
	int in_flight;
	uint64_t next_ns;     /* the next periodic read */
	int clear_next;       /* clear after the next read (the counters near saturation) */
	int have_prev;
	xb_xip_live prev;     /* the previous read; its `cleared` says the counters were cleared
			       * after it */
	uint64_t prev_t;      /* when it happened */
	uint64_t idle_from;   /* the idle window's start */
	uint64_t submit_ns;
	double misses_total, acc_total; /* unwrapped across clears */
	double prev_requests; /* requests due at the previous read */
	ct_interval iv[SS_INTERVALS];
	size_t niv, iv_head;
	/* the idle window being recorded / recorded */
	int idle_recording;
	double idle_misses, idle_s;
	double idle_rate;     /* misses per board second, NaN before one */
	/* reads a job waits for, in order */
	struct {
		ct_read_fn fn;
		void *ctx;
	} waiters[8];
	size_t nwaiters;
} ct_state;

/* ---- Jobs (jobs.c) ---- */

typedef struct job_state job_state;

/* ---- Reflashing (reflash.c) ---- */

typedef struct ss_flash ss_flash;

/* ---- The session ---- */

struct xb_session {
	xb_session_options o;
	xb_target tg;
	char *elf;
	xb_image img;
	int have_img;
	xb_srclines *src;
	xb_bench *bench;
	int is_virtual, virtual_time;
	/* the probe */
	xb_probe probe;
	int probe_open;
	xb_dap_pipe *pipe;
	xb_sampler_stream *sampler;
	uint32_t *sleep_pcs;
	size_t nsleep;
	uint64_t retry_ns;
	int probe_problem;    /* the status is about the probe */
	int64_t clock_offset; /* session time - transport time */
	uint32_t sample_flags;
	int sampling;         /* the sampler should run */
	/* samples on their way to the profile */
	xb_live_sample *ring;
	size_t ring_cap, ring_n;
	uint64_t samples, samples_lost;
	xb_liveprof *prof;
	/* the capture */
	xb_tracker *tracker;
	int have_capture;
	int64_t capture_offset; /* capture time - session time, at the newest record */
	int have_capture_clock;
	/* traffic, counters, jobs */
	tr_state tr;
	ct_state ct;
	job_state *job;
	/* the cache sets */
	xb_setmap sets;
	uint64_t sets_at;
	int sets_window;
	uint64_t view_ns;
	uint64_t *view_prev, *view_now;
	int64_t *view_tags;
	double *view_rate;
	double *func_misses;
	char func_misses_from[96];
	/* over time */
	xb_series series[XB_SS_COUNT];
	uint64_t series_next;
	xb_logring log;
	/* phase and status */
	int phase;
	char phase_text[96];
	uint64_t phase_until;
	uint64_t bringup_deadline;
	xb_report status;
	uint64_t now;         /* the session clock, read at the start of each pump */
	xb_bench_state bst;
	uint64_t last_sample_t;
	double sample_rate;
	uint64_t rate_t, rate_samples;
	uint64_t dither;      /* virtual time: the sampler's pseudo-random pauses */
	int pause_pending;    /* pausing: waiting for the probe's packets to be answered */
	int paused, resume_sampling;
	double flash_s;       /* the last flash programming, on the probe's clock */
	size_t flash_bytes;
	/* a reflash in place */
	ss_flash *flash;      /* while one runs */
	int reflash_result;   /* XB_JOB_* of the last one */
	xb_report reflash_rep;
};

/* session.c */
void session_note(xb_session *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void session_problem(xb_session *s, xb_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void session_clear_problem(xb_session *s, xb_status only);
void session_progress(const xb_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void session_set_phase(xb_session *s, int phase, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The phase that waits for the board's network (after the start, after a reflash). */
void session_bringup(xb_session *s);
/* The pipe that streams samples and counter reads; started once the probe is connected. */
void session_pipe_start(xb_session *s);
/* Lets the live virtual bench's board run freely until the next pump sets the horizon
 * again: before the session waits for the probe's answers (they need board time). */
void session_unfence(xb_session *s);
/* Stops the sampler and frees it and the pipe (what is in flight is answered first); the
 * probe stays connected, for synchronous use (flash programming). */
void session_probe_release(xb_session *s);
/* Bench seconds per wall second now: the virtual bench's speed, or what the host achieves
 * when that is less (1 on a real bench and in virtual time). */
double session_speed(const xb_session *s);
/* An eventfd (non-blocking, close-on-exec), or -1. */
int session_eventfd(void);
/* Starts or stops the PC sampler (packets in flight finish). */
void session_sampling(xb_session *s, int on);
/* Pauses or resumes the sampler's IDLE flag (idle windows). */
void session_sample_flags(xb_session *s, uint32_t flags);

/* traffic.c */
void traffic_init(xb_session *s);
void traffic_free(xb_session *s);
/* Sends what is due (up to `until` on a bench that schedules). */
void traffic_pump(xb_session *s);
/* How far traffic_pump has sent (a bench that schedules has every request due before
 * it); the live virtual bench's board runs no further. */
uint64_t traffic_horizon(const xb_session *s);
/* The earliest due time of a request not sent yet (UINT64_MAX: none). */
uint64_t traffic_next_due(const xb_session *s);
/* Requests due at or before t, over every series ever run. */
double traffic_due_before(const xb_session *s, uint64_t t);
/* Live series on or off (the rates stay). */
void traffic_live(xb_session *s, int on);
long traffic_add_series(xb_session *s, int kind, int owner, uint64_t start_ns, double interval_ns,
			uint64_t count, unsigned size, uint16_t id, uint16_t seq0);
void traffic_stop_owner(xb_session *s, int owner);
/* Echo events (from the tracker or the bench's replies) into the windows. */
void traffic_echoes(xb_session *s);
int traffic_outstanding(const xb_session *s);
void traffic_sweep_pump(xb_session *s);
/* 1 while a sweep runs; its peak so far and the UDP requests sent and replied in its
 * steps. */
int traffic_sweep_state(const xb_session *s, double *peak, size_t *sent, size_t *replied);

/* counters.c */
void counters_init(xb_session *s);
void counters_pump(xb_session *s);
/* Queues a read whose totals go to fn (a job's window edge). */
int counters_read(xb_session *s, ct_read_fn fn, void *ctx);
void counters_idle(xb_session *s, int recording);
uint64_t counters_next_due(const xb_session *s);
/* Misses per echo and per second over recent intervals. */
void counters_figures(const xb_session *s, double *misses_per_echo, double *misses_per_s,
		      double *hit_rate, double *window_s);

/* reflash.c */
int session_load_first_image(xb_session *s, xb_report *rep);
/* Flashes (when o.flash) and resets through the probe, synchronously: at the start. */
int session_flash_first_image(xb_session *s, xb_report *rep);
void session_reflash_pump(xb_session *s);
int session_reflash_fd(const xb_session *s);
void session_reflash_free(xb_session *s);

/* live.c */
void live_init(xb_session *s);
void live_free(xb_session *s);
void live_sample_sink(void *ctx, uint32_t pc, uint32_t flags, uint64_t t_ns);
void live_drain(xb_session *s);
void live_series(xb_session *s);
/* The image changed (a reflash): a new profile for its addresses; what was predicted for
 * the old one goes. */
void live_new_image(xb_session *s);

/* jobs.c */
void jobs_pump(xb_session *s);
uint64_t jobs_next_due(const xb_session *s);
void jobs_free(xb_session *s);
/* How far the board may run (h: the traffic's own bound) while a job measures: up to just
 * before its next deadline, in lockstep with the session while an answer it waits for may
 * start requests. */
uint64_t jobs_horizon(const xb_session *s, uint64_t h);
/* An echo event, and samples, for a running job. */
void jobs_echo(xb_session *s, const xb_echo_event *e);
void jobs_samples(xb_session *s, const xb_live_sample *v, size_t n);

#endif
