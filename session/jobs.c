/* jobs: the study's method as jobs of a session: the measurement of an image (misses per
 * echo over N pings minus an idle window as long, from XIP counter reads over SWD at the
 * window edges; the median turnaround from the usbmon records; the footprint of one echo
 * after a cache flush over SWD; the peak of a UDP step sweep) and the profile run (PC
 * samples during the traffic windows, window marks in a recorded fetch trace). Each step
 * waits for a bench time or an answer; nothing blocks. */
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/mpu.h"
#include "../core/trace.h"
#include "../probe/adiv5.h"
#include "../probe/cortexm.h"
#include "../probe/rp2040.h"
#include "session_int.h"

#define JOB_PING_ID 0x7862u      /* the identifier of a job's pings */
#define JOB_FOOTPRINT_SEQ 0xf00du
#define JOB_DRAIN_NS SS_NS       /* replies may come this long after a window */
/* The traffic starts this long after the traffic window's counter read has come back, so
 * that no echo is split between the idle and the traffic window. */
#define JOB_TRAFFIC_LEAD_NS SS_MS

enum { JOB_MEASURE = 1, JOB_PROFILE };

/* Steps, in order; each waits for `deadline` (or an answer). */
enum {
	ST_SETTLE = 0,   /* wait for the board to be quiet, then plan the windows */
	ST_EDGE_IDLE,    /* the idle window starts */
	ST_EDGE_TRAFFIC, /* the traffic window starts */
	ST_TRAFFIC,      /* its counter read is back: the traffic goes */
	ST_EDGE_END,     /* it ends */
	ST_DRAIN,        /* the last replies */
	ST_FP_START,     /* footprint: flush and read */
	ST_FP_PING,      /* the read is back: one ping */
	ST_FP_END,
	ST_FP_IDLE_START,/* the same without the ping */
	ST_FP_IDLE_WAIT,
	ST_FP_IDLE_END,
	ST_SWEEP,        /* the UDP step sweep */
	ST_NEXT_PHASE,   /* profile: the UDP phase after the pings */
	ST_TRACE_END,    /* profile: the fetch trace is being completed */
	ST_DONE
};

struct job_state {
	int kind, step, result;
	xb_report rep;
	char progress[128];
	xb_measure_plan mp;
	xb_profile_plan pp;
	uint32_t *rates;
	uint64_t deadline;
	/* windows */
	int udp_phase;       /* profile: the phase is the UDP one */
	int recording;       /* profile: samples go to pp.samples (the traffic windows) */
	int tracing;         /* profile: the job started the bench's fetch trace */
	uint64_t t0, window;
	unsigned count;
	double edge[4];      /* counter totals at the edges (NaN until read) */
	int reads_pending;
	/* the echoes of the window */
	double *turn;
	unsigned nturn, replied, settled;
	int fp_replied;
	xb_measure_result res;
};

/* What every end of a job undoes: its traffic stops and live traffic runs again as the
 * board's phase wants (job_start turned it off). */
static void job_end(xb_session *s)
{
	traffic_stop_owner(s, TR_JOB);
	traffic_live(s, s->phase == XB_PHASE_RUNNING);
}

static void job_fail(xb_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void job_fail(xb_session *s, const char *fmt, ...)
{
	job_state *j = s->job;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->rep.msg, sizeof j->rep.msg, fmt, ap);
	va_end(ap);
	if (!j->rep.status)
		j->rep.status = XB_STATUS_INTERNAL;
	j->result = XB_JOB_FAILED;
	j->step = ST_DONE;
	j->recording = 0;
	if (j->tracing)
		s->bench->ops->trace(s->bench, NULL, NULL);
	session_sampling(s, s->o.sample);
	job_end(s);
	session_note(s, XB_LOG_ERROR, "%s", j->rep.msg);
}

static void edge_read(xb_session *s, void *ctx, double misses, double acc, uint64_t t,
		      const xb_err *err)
{
	(void)acc;
	(void)t;
	job_state *j = s->job;
	if (!j)
		return;
	double *slot = ctx;
	j->reads_pending--;
	if (err) {
		j->rep.status = XB_STATUS_PROBE_GONE;
		job_fail(s, "reading the XIP counters at a window edge: %s", err->msg);
		return;
	}
	*slot = misses;
}

static void read_edge(xb_session *s, double *slot)
{
	job_state *j = s->job;
	*slot = NAN;
	if (counters_read(s, edge_read, slot) != 0) {
		j->rep.status = XB_STATUS_INTERNAL;
		job_fail(s, "too many counter reads waiting");
		return;
	}
	j->reads_pending++;
}

static void mark(xb_session *s, uint32_t m)
{
	s->bench->ops->control(s->bench, "trace-mark", m, 0, NULL);
}

/* The first whole millisecond at least the settle time from now (as the study's bench
 * waits before each window). */
static uint64_t settled_at(const xb_session *s)
{
	uint64_t ms = SS_MS;
	return (s->now + ms - 1) / ms * ms + SS_SETTLE_NS;
}

/* Plans an idle window and a traffic window of the same length from t0. */
static void plan_windows(xb_session *s)
{
	job_state *j = s->job;
	j->t0 = settled_at(s);
	j->nturn = j->replied = j->settled = 0;
	for (int i = 0; i < 4; i++)
		j->edge[i] = NAN;
	if (j->kind == JOB_PROFILE && j->udp_phase) {
		j->count = (unsigned)llround(j->pp.udp_rate * j->pp.udp_seconds);
		j->window = (uint64_t)((unsigned __int128)j->count * SS_NS / j->pp.udp_rate);
	} else {
		j->count = j->kind == JOB_MEASURE ? j->mp.pings : j->pp.pings;
		double iv = (j->kind == JOB_MEASURE ? j->mp.interval_ms : j->pp.interval_ms) * 1e6;
		j->window = (uint64_t)llround(iv * j->count);
	}
	free(j->turn);
	j->turn = xcalloc(j->count ? j->count : 1, sizeof *j->turn);
	j->step = ST_EDGE_IDLE;
	j->deadline = j->t0;
}

/* Starts the window's traffic; returns when the window ends: a window as long as the
 * idle one, or, when the edge's counter read came back late (a live bench running
 * faster than real time), long enough for every request and its reply. */
static uint64_t start_traffic(xb_session *s)
{
	job_state *j = s->job;
	uint64_t start = j->t0 + j->window + JOB_TRAFFIC_LEAD_NS;
	if (start < s->now + JOB_TRAFFIC_LEAD_NS / 10)
		start = s->now + JOB_TRAFFIC_LEAD_NS / 10;
	uint64_t end = j->t0 + 2 * j->window;
	if (end < start + j->window - JOB_TRAFFIC_LEAD_NS)
		end = start + j->window - JOB_TRAFFIC_LEAD_NS;
	if (j->kind == JOB_PROFILE && j->udp_phase)
		traffic_add_series(s, TR_UDP, TR_JOB, start, 1e9 / j->pp.udp_rate, j->count,
				   j->pp.udp_size ? j->pp.udp_size : 64, 0, 0);
	else
		traffic_add_series(s, TR_PING, TR_JOB, start, (double)j->window / j->count, j->count,
				   j->kind == JOB_MEASURE ? j->mp.ping_size : j->pp.ping_size,
				   JOB_PING_ID, 0);
	return end;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void finish_pings(xb_session *s)
{
	job_state *j = s->job;
	if (j->kind == JOB_MEASURE) {
		xb_measure_result *r = &j->res;
		r->misses_traffic = (uint64_t)llround(j->edge[2] - j->edge[1]);
		r->misses_idle = (uint64_t)llround(j->edge[1] - j->edge[0]);
		r->misses_per_echo =
			((j->edge[2] - j->edge[1]) - (j->edge[1] - j->edge[0])) / j->count;
		r->pings_sent = j->count;
		r->pings_replied = j->replied;
		if (j->nturn) {
			qsort(j->turn, j->nturn, sizeof *j->turn, cmp_double);
			unsigned n = j->nturn;
			double m = n % 2 ? j->turn[n / 2] : (j->turn[n / 2 - 1] + j->turn[n / 2]) / 2;
			r->turnaround_ms = m / 1e6;
		}
	} else if (j->replied < j->count) {
		j->rep.status = XB_STATUS_NETWORK_DOWN;
		job_fail(s, "%u of %u echoes answered during the profile run", j->replied, j->count);
	}
}

static void ignore_response(void *ctx, const uint8_t *resp, size_t len, uint64_t t_ns,
			    const xb_err *err)
{
	(void)ctx;
	(void)resp;
	(void)len;
	(void)t_ns;
	(void)err; /* a failed pipe also fails the counter read queued after it */
}

/* A register written over SWD in the pipe's order, TAR back at DWT_PCSR for the sampler. */
static int queue_write(xb_session *s, uint32_t addr, uint32_t value, xb_err *err)
{
	xb_dap_transfer x[3] = {{ADI_REQ_TAR_WRITE, addr},
				{ADI_REQ_DRW_WRITE, value},
				{ADI_REQ_TAR_WRITE, CORTEXM_DWT_PCSR}};
	uint8_t pkt[64];
	size_t n = dap_client_build_transfer(x, 3, pkt, sizeof pkt);
	if (!n)
		return xb_fail(err, "the probe's packets are too small for one transfer");
	return dap_pipe_queue(s->pipe, pkt, n, ignore_response, NULL, err);
}

/* The flush of the footprint: XIP_CTRL FLUSH written over SWD. */
static void queue_flush(xb_session *s)
{
	xb_err err;
	if (queue_write(s, RP2040_XIP_FLUSH, 1, &err) != 0) {
		s->job->rep.status = XB_STATUS_PROBE_GONE;
		job_fail(s, "flushing the XIP cache over SWD: %s", err.msg);
	}
}

int session_xip_cache(xb_session *s, int on, xb_report *rep)
{
	if (!s->pipe)
		return report_fail(rep, XB_STATUS_PROBE_GONE, "no probe: %s", s->status.msg);
	xb_err err;
	/* CTRL: EN (bit 0), and ERR_BADWRITE (bit 1) as at reset */
	if (queue_write(s, RP2040_XIP_CTRL, on ? 3u : 2u, &err) != 0)
		return report_fail(rep, XB_STATUS_PROBE_GONE, "writing XIP_CTRL over SWD: %s", err.msg);
	session_note(s, XB_LOG_INFO, "the XIP cache %s (XIP_CTRL.EN = %d, written over SWD)",
		     on ? "on" : "off", on);
	return 0;
}

/* ---- Word accesses over SWD, waited for ---- */

#define SWD_ACCESS_MAX 6
#define SWD_ACCESS_WAIT_NS (2 * SS_NS)

typedef struct swd_wait {
	xb_session *s;
	xb_dap_transfer x[2 * SWD_ACCESS_MAX + 1];
	size_t nx;
	int done, failed;
	xb_err err;
} swd_wait;

static void on_swd_access(void *ctx, const uint8_t *resp, size_t len, uint64_t t_ns,
			  const xb_err *err)
{
	(void)t_ns;
	swd_wait *w = ctx;
	w->done = 1;
	if (!resp) {
		w->failed = 1;
		w->err = *err;
		return;
	}
	xb_dap_client *c = dap_pipe_client(w->s->pipe);
	size_t done;
	unsigned ack;
	if (dap_client_parse_transfer(c, resp, len, w->x, w->nx, &done, &ack, &w->err) != 0) {
		w->failed = 1;
	} else if (ack != XB_ACK_OK) {
		w->failed = 1;
		xb_fail(&w->err, "transfer %zu of %zu answered %s", done + 1, w->nx,
			dap_client_ack_name(ack));
	}
}

int session_swd_access(xb_session *s, xb_mem_access *acc, size_t n, xb_report *rep)
{
	if (!s->pipe)
		return report_fail(rep, XB_STATUS_PROBE_GONE, "no probe: %s", s->status.msg);
	if (s->paused || s->pause_pending)
		return report_fail(rep, XB_STATUS_PROBE_WAIT, "the bench is paused");
	if (n == 0 || n > SWD_ACCESS_MAX)
		return report_fail(rep, XB_STATUS_PROBE_FAULT, "%zu accesses in one packet (1 to %d)",
				   n, SWD_ACCESS_MAX);
	swd_wait w = {.s = s};
	for (size_t i = 0; i < n; i++) {
		w.x[w.nx++] = (xb_dap_transfer){ADI_REQ_TAR_WRITE, acc[i].addr};
		w.x[w.nx++] = acc[i].write ? (xb_dap_transfer){ADI_REQ_DRW_WRITE, acc[i].value}
					   : (xb_dap_transfer){ADI_REQ_DRW_READ, 0};
	}
	w.x[w.nx++] = (xb_dap_transfer){ADI_REQ_TAR_WRITE, CORTEXM_DWT_PCSR};
	uint8_t pkt[64];
	size_t len = dap_client_build_transfer(w.x, w.nx, pkt, sizeof pkt);
	xb_err err;
	if (!len)
		return report_fail(rep, XB_STATUS_PROBE_FAULT,
				   "the probe's packets are too small for %zu accesses", n);
	if (dap_pipe_queue(s->pipe, pkt, len, on_swd_access, &w, &err) != 0)
		return report_fail(rep, XB_STATUS_PROBE_GONE, "over SWD: %s", err.msg);
	uint64_t until = s->now + SWD_ACCESS_WAIT_NS;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!w.done) {
		if (session_pump(s) != 0 || s->now > until || !s->pipe)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!s->virtual_time && t1.tv_sec - t0.tv_sec > 2)
			break; /* a live bench whose clock stands still */
		if (!s->virtual_time) {
			struct pollfd fds[8];
			int nf = session_pollfds(s, fds, 8);
			poll(fds, (nfds_t)nf, session_timeout_ms(s));
		}
	}
	if (!w.done) {
		if (s->pipe)
			dap_pipe_forget(s->pipe, &w);
		return report_fail(rep, XB_STATUS_PROBE_GONE, "no answer over SWD: %s",
				   s->status.msg);
	}
	if (w.failed)
		return report_fail(rep, strstr(w.err.msg, "WAIT") ? XB_STATUS_PROBE_WAIT
								   : XB_STATUS_PROBE_FAULT,
				   "over SWD: %s", w.err.msg);
	for (size_t i = 0; i < n; i++)
		if (!acc[i].write)
			acc[i].value = w.x[2 * i + 1].value;
	return 0;
}

int session_read_mpu(xb_session *s, xb_mpu *m, xb_report *rep)
{
	memset(m, 0, sizeof *m);
	if (s->tg.mpu == XB_MPU_NONE)
		return report_fail(rep, XB_STATUS_UNSUPPORTED, "the target %s has no MPU that sets "
				   "the flash's cacheability", s->tg.name);
	m->arch = s->tg.mpu;
	int v8 = m->arch == XB_MPU_ARMV8M;
	xb_mem_access a[4] = {{.addr = XB_MPU_TYPE_ADDR}, {.addr = XB_MPU_CTRL_ADDR},
			      {.addr = v8 ? XB_MPU_MAIR0_ADDR : XB_SCB_CCR_ADDR},
			      {.addr = XB_MPU_MAIR1_ADDR}};
	if (session_swd_access(s, a, v8 ? 4 : 3, rep) != 0)
		return -1;
	m->type = a[0].value;
	m->ctrl = a[1].value;
	if (v8) {
		m->mair[0] = a[2].value;
		m->mair[1] = a[3].value;
	} else {
		m->have_ccr = 1;
		m->ccr = a[2].value;
	}
	m->nregions = (int)((m->type >> 8) & 0xFF);
	if (m->nregions > XB_MPU_MAX_REGIONS)
		m->nregions = XB_MPU_MAX_REGIONS;
	for (int r = 0; r < m->nregions; r++) {
		xb_mem_access g[3] = {{.addr = XB_MPU_RNR_ADDR, .value = (uint32_t)r, .write = 1},
				      {.addr = XB_MPU_RBAR_ADDR},
				      {.addr = v8 ? XB_MPU_RLAR_ADDR : XB_MPU_RASR_ADDR}};
		if (session_swd_access(s, g, 3, rep) != 0)
			return -1;
		m->region[r].given = 1;
		m->region[r].rbar = g[1].value;
		if (v8)
			m->region[r].rlar = g[2].value;
		else
			m->region[r].rasr = g[2].value;
	}
	return 0;
}

static void next_after_pings(xb_session *s)
{
	job_state *j = s->job;
	if (j->kind == JOB_PROFILE) {
		if (!j->udp_phase && j->pp.udp_rate) {
			j->udp_phase = 1;
			j->step = ST_SETTLE;
			return;
		}
		if (j->tracing) {
			s->bench->ops->trace(s->bench, NULL, NULL);
			j->step = ST_TRACE_END;
			return;
		}
		j->result = XB_JOB_DONE;
		j->step = ST_DONE;
		return;
	}
	if (j->mp.footprint_ms > 0) {
		j->step = ST_FP_START;
		j->deadline = settled_at(s);
		return;
	}
	j->step = ST_SWEEP;
	j->deadline = 0;
}

static void step(xb_session *s)
{
	job_state *j = s->job;
	uint64_t fp_window = (uint64_t)llround(j->mp.footprint_ms * SS_MS) + JOB_TRAFFIC_LEAD_NS;
	switch (j->step) {
	case ST_SETTLE:
		if (traffic_outstanding(s) && s->now < j->deadline + JOB_DRAIN_NS)
			return;
		plan_windows(s);
		snprintf(j->progress, sizeof j->progress, "%s: idle window, then %u %s",
			 j->kind == JOB_MEASURE ? "measuring" : "profiling", j->count,
			 j->udp_phase ? "UDP echoes" : "pings");
		return;
	case ST_EDGE_IDLE:
		if (s->now < j->deadline)
			return;
		mark(s, XB_TRACE_MARK_IDLE);
		read_edge(s, &j->edge[0]);
		j->step = ST_EDGE_TRAFFIC;
		j->deadline = j->t0 + j->window;
		return;
	case ST_EDGE_TRAFFIC:
		if (s->now < j->deadline)
			return;
		mark(s, XB_TRACE_MARK_TRAFFIC);
		read_edge(s, &j->edge[1]);
		if (j->kind == JOB_PROFILE) {
			session_sampling(s, 1);
			j->recording = 1;
		}
		j->step = ST_TRAFFIC;
		return;
	case ST_TRAFFIC:
		if (j->reads_pending)
			return;
		j->step = ST_EDGE_END;
		j->deadline = start_traffic(s);
		return;
	case ST_EDGE_END:
		if (s->now < j->deadline)
			return;
		mark(s, XB_TRACE_MARK_END);
		read_edge(s, &j->edge[2]);
		if (j->kind == JOB_PROFILE) {
			/* a sampler that stops now still delivers the packets in flight, taken in
			 * the window; one that goes on sampling (live) delivers later samples too */
			session_sampling(s, s->o.sample);
			if (s->o.sample)
				j->recording = 0;
			if (j->pp.samples)
				j->pp.samples->busy_seconds += (double)j->window / 1e9;
		}
		j->step = ST_DRAIN;
		j->deadline = s->now + JOB_DRAIN_NS;
		return;
	case ST_DRAIN:
		if ((j->settled < j->count || j->reads_pending) && s->now < j->deadline)
			return;
		if (j->reads_pending)
			return; /* the edge reads are in the pipe; they come or fail */
		finish_pings(s);
		if (j->step != ST_DONE)
			next_after_pings(s);
		return;
	case ST_FP_START:
		if (s->now < j->deadline)
			return;
		j->fp_replied = 0;
		queue_flush(s);
		read_edge(s, &j->edge[0]);
		j->step = ST_FP_PING;
		return;
	case ST_FP_PING:
		/* the ping after the flush's read is back, so that it is all in the window */
		if (j->reads_pending)
			return;
		traffic_add_series(s, TR_PING, TR_JOB, s->now + JOB_TRAFFIC_LEAD_NS, 1, 1,
				   j->mp.ping_size, JOB_PING_ID, JOB_FOOTPRINT_SEQ);
		j->step = ST_FP_END;
		j->deadline = s->now + fp_window;
		return;
	case ST_FP_END:
		if (s->now < j->deadline)
			return;
		read_edge(s, &j->edge[1]);
		j->step = ST_FP_IDLE_START;
		j->deadline = settled_at(s);
		return;
	case ST_FP_IDLE_START:
		if (s->now < j->deadline || j->reads_pending)
			return;
		if (!j->fp_replied) {
			j->rep.status = XB_STATUS_NETWORK_DOWN;
			job_fail(s, "the footprint's ping was not answered within %.1f ms",
				 j->mp.footprint_ms);
			return;
		}
		queue_flush(s);
		read_edge(s, &j->edge[2]);
		j->step = ST_FP_IDLE_WAIT;
		return;
	case ST_FP_IDLE_WAIT:
		if (j->reads_pending)
			return;
		j->step = ST_FP_IDLE_END;
		j->deadline = s->now + fp_window;
		return;
	case ST_FP_IDLE_END:
		if (s->now < j->deadline)
			return;
		if (!j->reads_pending && isnan(j->edge[3])) {
			read_edge(s, &j->edge[3]);
			return;
		}
		if (j->reads_pending)
			return;
		j->res.footprint_lines = (j->edge[1] - j->edge[0]) - (j->edge[3] - j->edge[2]);
		j->step = ST_SWEEP;
		j->deadline = 0;
		return;
	case ST_TRACE_END:
		if (s->bst.tracing)
			return;
		j->tracing = 0;
		if (s->bst.trace_failed) {
			j->rep.status = XB_STATUS_IO;
			if (s->bst.trace_failed == 2)
				job_fail(s, "the fetch trace %s passed its size limit and was "
					    "stopped (does the board answer? fewer pings make a "
					    "shorter trace)",
					 j->pp.trace_path);
			else
				job_fail(s, "the fetch trace %s could not be written", j->pp.trace_path);
			return;
		}
		j->result = XB_JOB_DONE;
		j->step = ST_DONE;
		return;
	case ST_SWEEP: {
		double peak;
		size_t sent, replied;
		if (!j->rates) {
			j->result = XB_JOB_DONE;
			j->step = ST_DONE;
			return;
		}
		if (j->deadline == 0) {
			xb_report rep;
			if (session_sweep(s, j->rates, j->mp.nrates, j->mp.step_s, j->mp.gap_s,
					  j->mp.passes, j->mp.udp_size, &rep) != 0) {
				j->rep.status = rep.status;
				job_fail(s, "%s", rep.msg);
				return;
			}
			j->deadline = 1;
			snprintf(j->progress, sizeof j->progress, "measuring: UDP sweep, %zu steps, %u passes",
				 j->mp.nrates, j->mp.passes);
			return;
		}
		if (traffic_sweep_state(s, &peak, &sent, &replied))
			return;
		j->res.peak_udp_echo_per_s = peak;
		j->res.udp_sent = sent;
		j->res.udp_replied = replied;
		j->result = XB_JOB_DONE;
		j->step = ST_DONE;
		return;
	}
	default:
		return;
	}
}

void jobs_pump(xb_session *s)
{
	job_state *j = s->job;
	if (!j || j->result != XB_JOB_RUNNING || s->phase == XB_PHASE_BRINGUP)
		return;
	int before;
	do {
		before = j->step;
		step(s);
	} while (j->result == XB_JOB_RUNNING && j->step != before);
	if (j->result == XB_JOB_DONE) {
		snprintf(j->progress, sizeof j->progress, "done");
		job_end(s);
	}
}

uint64_t jobs_next_due(const xb_session *s)
{
	const job_state *j = s->job;
	if (!j || j->result != XB_JOB_RUNNING)
		return UINT64_MAX;
	if (j->step == ST_SETTLE || j->step == ST_SWEEP)
		return s->now + 10 * SS_MS;
	if (j->step == ST_TRAFFIC || j->step == ST_FP_PING || j->step == ST_FP_IDLE_WAIT)
		return j->reads_pending ? UINT64_MAX : s->now;
	return j->deadline;
}

uint64_t jobs_horizon(const xb_session *s, uint64_t h)
{
	const job_state *j = s->job;
	if (!j || j->result != XB_JOB_RUNNING)
		return h;
	/* an answer that comes back starts requests relative to the session's now */
	uint64_t lockstep = s->now + JOB_TRAFFIC_LEAD_NS / 2;
	if (j->reads_pending)
		return h < lockstep ? h : lockstep;
	/* otherwise nothing new is sent before the job's next deadline */
	uint64_t e = jobs_next_due(s);
	if (s->tr.sweep && s->tr.step_end < e)
		e = s->tr.step_end;
	if (e == UINT64_MAX)
		return h;
	uint64_t before = e > JOB_TRAFFIC_LEAD_NS / 2 ? e - JOB_TRAFFIC_LEAD_NS / 2 : 0;
	uint64_t bound = before > lockstep ? before : lockstep;
	return h < bound ? h : bound;
}

void jobs_echo(xb_session *s, const xb_echo_event *e)
{
	job_state *j = s->job;
	if (!j || j->result != XB_JOB_RUNNING)
		return;
	int ours = j->udp_phase ? e->kind == XB_ECHO_UDP
				: e->kind == XB_ECHO_ICMP && e->id == JOB_PING_ID;
	if (!ours)
		return;
	if (!j->udp_phase && e->seq == JOB_FOOTPRINT_SEQ) {
		j->fp_replied = e->state == XB_ECHO_REPLIED &&
				e->reply_ns <= j->deadline; /* inside the footprint's window */
		return;
	}
	if (!j->udp_phase && e->seq >= j->count)
		return;
	j->settled++;
	if (e->state != XB_ECHO_REPLIED)
		return;
	j->replied++;
	if (e->turnaround_ns >= 0 && j->nturn < j->count)
		j->turn[j->nturn++] = (double)e->turnaround_ns;
}

void jobs_samples(xb_session *s, const xb_live_sample *v, size_t n)
{
	job_state *j = s->job;
	if (!j || j->kind != JOB_PROFILE || !j->pp.samples || !j->recording)
		return;
	for (size_t i = 0; i < n; i++)
		samples_push(j->pp.samples, v[i].pc, v[i].flags);
}

void jobs_free(xb_session *s)
{
	if (!s->job)
		return;
	free(s->job->turn);
	free(s->job->rates);
	free(s->job);
	s->job = NULL;
}

static int job_start(xb_session *s, int kind, xb_report *rep)
{
	if (s->job && s->job->result == XB_JOB_RUNNING)
		return report_fail(rep, XB_STATUS_BUSY, "a job is running: %s", s->job->progress);
	if (!s->pipe && s->o.attach)
		return report_fail(rep, XB_STATUS_PROBE_GONE, "no probe: %s", s->status.msg);
	jobs_free(s);
	s->job = xcalloc(1, sizeof *s->job);
	s->job->kind = kind;
	s->job->result = XB_JOB_RUNNING;
	s->job->step = ST_SETTLE;
	s->job->deadline = s->now;
	traffic_live(s, 0);
	session_sweep(s, NULL, 0, 0, 0, 0, 0, NULL);
	snprintf(s->job->progress, sizeof s->job->progress, "waiting for the board to be quiet");
	return 0;
}

int session_measure(xb_session *s, const xb_measure_plan *p, xb_report *rep)
{
	int sweep = p->rates && p->nrates && p->passes;
	if (p->pings ? !(p->interval_ms > 0) : !sweep)
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "a measurement needs pings and an "
				   "interval above 0, or UDP rate steps");
	if (job_start(s, JOB_MEASURE, rep))
		return -1;
	job_state *j = s->job;
	if (!p->pings) { /* the sweep alone */
		j->step = ST_SWEEP;
		j->deadline = 0;
	}
	j->mp = *p;
	j->res.misses_per_echo = j->res.turnaround_ms = NAN;
	j->res.peak_udp_echo_per_s = j->res.footprint_lines = NAN;
	if (p->rates && p->nrates && p->passes) {
		j->rates = xmalloc(p->nrates * sizeof *j->rates);
		memcpy(j->rates, p->rates, p->nrates * sizeof *p->rates);
		j->mp.rates = j->rates;
	}
	return 0;
}

void session_measure_method(const xb_measure_plan *p, xb_method *m)
{
	export_method_init(m);
	m->pings = p->pings;
	m->interval_ms = p->interval_ms;
	m->ping_size = p->ping_size;
	for (size_t i = 0; p->rates && i < p->nrates && i < EXPORT_METHOD_MAX_RATES; i++)
		m->rates[m->nrates++] = p->rates[i];
	m->step_s = p->step_s;
	m->gap_s = p->gap_s;
	m->passes = p->passes;
	m->udp_size = p->udp_size;
	m->footprint_ms = p->footprint_ms;
}

int session_profile_run(xb_session *s, const xb_profile_plan *p, xb_report *rep)
{
	if ((!p->pings && !p->udp_rate) || (p->pings && !(p->interval_ms > 0)) ||
	    (p->udp_rate && !(p->udp_seconds > 0)))
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "a profile run needs pings with an "
				   "interval above 0, or UDP echoes with a duration, or both");
	if (p->trace_path && !s->bench->ops->trace)
		return report_fail(rep, XB_STATUS_UNSUPPORTED, "%s records no fetch trace (only "
				   "the virtual bench can)", s->bench->name);
	if (job_start(s, JOB_PROFILE, rep))
		return -1;
	s->job->pp = *p;
	s->job->udp_phase = !p->pings; /* UDP echoes only (a bench whose ICMP goes nowhere) */
	if (p->trace_path) {
		if (s->bench->ops->trace(s->bench, p->trace_path, rep) != 0) {
			s->job->rep.status = rep->status;
			job_fail(s, "%s", rep->msg);
			return -1;
		}
		s->job->tracing = 1;
	}
	if (p->in_flight)
		s->o.sample_in_flight = p->in_flight;
	return 0;
}

void session_cancel_job(xb_session *s)
{
	if (!s->job || s->job->result != XB_JOB_RUNNING)
		return;
	s->job->rep.status = XB_STATUS_CANCELLED;
	job_fail(s, "%s: cancelled", s->job->kind == JOB_MEASURE ? "the measurement" : "the profile run");
}

int session_job(const xb_session *s, xb_report *rep)
{
	if (!s->job)
		return XB_JOB_NONE;
	if (rep)
		*rep = s->job->rep;
	return s->job->result;
}

const char *session_job_progress(const xb_session *s)
{
	return s->job ? s->job->progress : "";
}

void session_measure_result(const xb_session *s, xb_measure_result *out)
{
	memset(out, 0, sizeof *out);
	if (s->job && s->job->kind == JOB_MEASURE)
		*out = s->job->res;
	out->flash_s = s->flash_s;
	out->flashed_bytes = s->flash_bytes;
}

int session_wait_job(xb_session *s, xb_report *rep)
{
	while (s->job && s->job->result == XB_JOB_RUNNING) {
		if (session_pump(s) != 0)
			return report_fail(rep, s->status.status, "%s", s->status.msg);
		if (!s->virtual_time) {
			struct pollfd fds[8];
			int n = session_pollfds(s, fds, 8);
			poll(fds, (nfds_t)n, session_timeout_ms(s));
		}
	}
	if (!s->job)
		return report_fail(rep, XB_STATUS_INTERNAL, "no job");
	if (s->job->result == XB_JOB_FAILED) {
		if (rep)
			*rep = s->job->rep;
		return -1;
	}
	return 0;
}
