/* counters: the XIP cache's CTR_HIT and CTR_ACC read over SWD on a period (never a read of
 * flash), each read bracketing CTR_ACC with two CTR_HIT reads and stamped with the board's
 * TIMER, giving misses per second, the hit rate and, with the traffic's requests, misses
 * per echo with the idle window's misses subtracted; and reads at a job's window edges. */
#include <math.h>
#include <string.h>

#include "../probe/cortexm.h"
#include "../probe/rp2040.h"
#include "session_int.h"

#define CT_CLEAR_AT 0x80000000u /* clear the counters well before they saturate */

void counters_init(xb_session *s)
{
	memset(&s->ct, 0, sizeof s->ct);
	s->ct.idle_rate = NAN;
}

uint64_t counters_next_due(const xb_session *s)
{
	const ct_state *c = &s->ct;
	if (!s->pipe || c->in_flight || s->pause_pending || s->paused)
		return UINT64_MAX;
	if (c->nwaiters)
		return 0;
	if (!s->o.counters_ns || s->phase == XB_PHASE_BRINGUP)
		return UINT64_MAX;
	return c->next_ns;
}

static void fail_waiters(xb_session *s, const xb_err *err)
{
	ct_state *c = &s->ct;
	while (c->nwaiters) {
		ct_read_fn fn = c->waiters[0].fn;
		void *ctx = c->waiters[0].ctx;
		memmove(c->waiters, c->waiters + 1, --c->nwaiters * sizeof c->waiters[0]);
		fn(s, ctx, NAN, NAN, s->now, err);
	}
}

static void push_interval(ct_state *c, const ct_interval *iv)
{
	c->iv[c->iv_head] = *iv;
	c->iv_head = (c->iv_head + 1) % SS_INTERVALS;
	if (c->niv < SS_INTERVALS)
		c->niv++;
}

static void on_counters(void *ctx, const uint8_t *resp, size_t len, uint64_t t_ns,
			const xb_err *err)
{
	xb_session *s = ctx;
	ct_state *c = &s->ct;
	int for_waiter = c->in_flight == 2;
	int cleared = c->clear_next;
	c->in_flight = 0;
	if (!resp) {
		c->have_prev = 0;
		if (for_waiter)
			fail_waiters(s, err);
		return;
	}
	xb_xip_live v;
	xb_err perr;
	if (rp2040_live_counters_parse(dap_pipe_client(s->pipe), resp, len, cleared, &v, &perr) != 0) {
		c->have_prev = 0;
		xb_status st = strstr(perr.msg, "WAIT") ? XB_STATUS_PROBE_WAIT : XB_STATUS_PROBE_FAULT;
		session_problem(s, st, "reading the XIP counters: %s", perr.msg);
		s->probe_problem = 1;
		if (for_waiter)
			fail_waiters(s, &perr);
		return;
	}
	/* when the read happened, on the session clock: between sending and receiving */
	uint64_t got = (uint64_t)((int64_t)t_ns + s->clock_offset);
	uint64_t at = got > c->submit_ns ? c->submit_ns + (got - c->submit_ns) / 2 : c->submit_ns;
	double misses = (double)v.acc - ((double)v.hit0 + (double)v.hit1) / 2;
	double due = traffic_due_before(s, at);
	if (c->have_prev) {
		double m0 = c->prev.cleared ? 0 : (double)c->prev.acc - ((double)c->prev.hit0 + c->prev.hit1) / 2;
		double a0 = c->prev.cleared ? 0 : (double)c->prev.acc;
		ct_interval iv = {.t_ns = at,
				  .dt_s = (uint32_t)(v.timer_us - c->prev.timer_us) / 1e6,
				  .misses = misses - m0,
				  .accesses = (double)v.acc - a0,
				  .requests = due - c->prev_requests,
				  .idle = c->idle_recording && c->prev_t >= c->idle_from};
		if (iv.misses < 0)
			iv.misses = 0;
		c->misses_total += iv.misses;
		c->acc_total += iv.accesses;
		push_interval(c, &iv);
		if (iv.idle) {
			c->idle_misses += iv.misses;
			c->idle_s += iv.dt_s;
		}
	}
	c->prev = v;
	c->prev.cleared = cleared;
	c->prev_t = at;
	c->have_prev = 1;
	c->prev_requests = due;
	c->clear_next = v.acc >= CT_CLEAR_AT;
	if (s->probe_problem && (s->status.status == XB_STATUS_PROBE_FAULT ||
				 s->status.status == XB_STATUS_PROBE_WAIT)) {
		session_clear_problem(s, 0);
		s->probe_problem = 0;
	}
	if (for_waiter && c->nwaiters) {
		ct_read_fn fn = c->waiters[0].fn;
		void *wctx = c->waiters[0].ctx;
		memmove(c->waiters, c->waiters + 1, --c->nwaiters * sizeof c->waiters[0]);
		fn(s, wctx, c->misses_total, c->acc_total, at, NULL);
	}
}

static void queue_read(xb_session *s, int for_waiter)
{
	ct_state *c = &s->ct;
	uint8_t pkt[64];
	size_t n = rp2040_live_counters_request(pkt, sizeof pkt, CORTEXM_DWT_PCSR, c->clear_next);
	xb_err err;
	if (!n || dap_pipe_queue(s->pipe, pkt, n, on_counters, s, &err) != 0)
		return; /* a full or failed pipe: the probe's own handling reports it */
	c->in_flight = for_waiter ? 2 : 1;
	c->submit_ns = s->now;
}

void counters_pump(xb_session *s)
{
	ct_state *c = &s->ct;
	if (!s->pipe || c->in_flight || dap_pipe_failed(s->pipe, NULL) || s->pause_pending ||
	    s->paused)
		return;
	if (c->nwaiters) {
		queue_read(s, 1);
		return;
	}
	if (!s->o.counters_ns || s->phase == XB_PHASE_BRINGUP || s->now < c->next_ns)
		return;
	c->next_ns = c->next_ns + s->o.counters_ns > s->now ? c->next_ns + s->o.counters_ns
							     : s->now + s->o.counters_ns;
	queue_read(s, 0);
}

int counters_read(xb_session *s, ct_read_fn fn, void *ctx)
{
	ct_state *c = &s->ct;
	if (c->nwaiters == sizeof c->waiters / sizeof c->waiters[0])
		return -1;
	c->waiters[c->nwaiters].fn = fn;
	c->waiters[c->nwaiters].ctx = ctx;
	c->nwaiters++;
	return 0;
}

void counters_idle(xb_session *s, int recording)
{
	ct_state *c = &s->ct;
	if (recording) {
		c->idle_recording = 1;
		c->idle_from = s->now;
		c->idle_misses = c->idle_s = 0;
		return;
	}
	c->idle_recording = 0;
	if (c->idle_s > 0)
		c->idle_rate = c->idle_misses / c->idle_s;
}

void counters_figures(const xb_session *s, double *misses_per_echo, double *misses_per_s,
		      double *hit_rate, double *window_s)
{
	const ct_state *c = &s->ct;
	double m10 = 0, t10 = 0, r10 = 0, m1 = 0, t1 = 0, a1 = 0;
	for (size_t k = 0; k < c->niv; k++) {
		const ct_interval *iv = &c->iv[(c->iv_head + SS_INTERVALS - 1 - k) % SS_INTERVALS];
		if (iv->t_ns + SS_WINDOW_NS < s->now)
			break;
		if (iv->t_ns + SS_NS >= s->now) {
			m1 += iv->misses;
			t1 += iv->dt_s;
			a1 += iv->accesses;
		}
		if (iv->idle)
			continue;
		m10 += iv->misses;
		t10 += iv->dt_s;
		r10 += iv->requests;
	}
	double idle = isnan(c->idle_rate) ? 0 : c->idle_rate;
	*misses_per_echo = r10 > 0 ? (m10 - idle * t10) / r10 : NAN;
	*misses_per_s = t1 > 0 ? m1 / t1 : NAN;
	*hit_rate = a1 > 0 ? 100.0 * (1 - m1 / a1) : NAN;
	*window_s = t10;
}
