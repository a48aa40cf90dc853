/* traffic: the session's echo traffic (pings and UDP echoes at rates, series of a job, the
 * study's UDP step sweep) and what comes back (settled echoes from the usbmon tracker, or
 * the bench's replies without a capture), in bounded sliding windows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "session_int.h"

#define TR_LOOKAHEAD_NS (20 * SS_MS) /* live: requests go to a scheduling bench this early */
#define TR_EVENTS 256

void traffic_init(xb_session *s)
{
	tr_state *t = &s->tr;
	memset(t, 0, sizeof *t);
	t->ping_rate = s->o.ping_rate;
	t->udp_rate = s->o.udp_rate;
	t->ping_size = s->o.ping_size;
	t->udp_size = s->o.udp_size;
	t->live_ping = t->live_udp = -1;
	t->sweep_peak = NAN;
}

void traffic_free(xb_session *s)
{
	free(s->tr.rates);
	free(s->tr.sw_ev);
	s->tr.rates = NULL;
	s->tr.sw_ev = NULL;
}

static uint64_t due_of(const tr_series *x, uint64_t i)
{
	return x->start_ns + (uint64_t)llround((double)i * x->interval_ns);
}

/* A bench that schedules gets each request ahead of its time, so that it goes out at its
 * exact time whatever the session's pumps do (in virtual time they follow the probe's
 * round trips, and echoes sent at pump time would be sampled in step with them). */
static uint64_t lookahead(const xb_session *s)
{
	if (!s->bench->ops->schedules)
		return 0;
	/* 20 ms of wall time at the speed asked for (up to 64 times real time); the board
	 * runs no further (traffic_horizon), and less far while a job measures */
	double speed = s->is_virtual && !s->virtual_time && s->bst.speed > 1 ? s->bst.speed : 1;
	return (uint64_t)((double)TR_LOOKAHEAD_NS * (speed < 64 ? speed : 64));
}

uint64_t traffic_horizon(const xb_session *s)
{
	return jobs_horizon(s, s->now + lookahead(s));
}

long traffic_add_series(xb_session *s, int kind, int owner, uint64_t start_ns, double interval_ns,
			uint64_t count, unsigned size, uint16_t id, uint16_t seq0)
{
	for (long i = 0; i < SS_SERIES; i++) {
		tr_series *x = &s->tr.series[i];
		if (x->used)
			continue;
		*x = (tr_series){.kind = kind, .owner = owner, .used = 1, .start_ns = start_ns,
				 .interval_ns = interval_ns > 1 ? interval_ns : 1, .count = count,
				 .size = size, .id = id, .seq0 = seq0};
		return i;
	}
	return -1;
}

/* A series stops sending; what it sent stays counted until it is older than the windows. */
static void end_series(tr_series *x)
{
	x->count = x->next;
}

void traffic_stop_owner(xb_session *s, int owner)
{
	for (size_t i = 0; i < SS_SERIES; i++)
		if (s->tr.series[i].used && s->tr.series[i].owner == owner)
			end_series(&s->tr.series[i]);
}

static void live_series_set(xb_session *s)
{
	tr_state *t = &s->tr;
	if (t->live_ping >= 0)
		end_series(&t->series[t->live_ping]);
	if (t->live_udp >= 0)
		end_series(&t->series[t->live_udp]);
	t->live_ping = t->live_udp = -1;
	if (!t->live_on || t->sweep)
		return;
	uint64_t now = s->now;
	if (t->ping_rate > 0)
		t->live_ping = traffic_add_series(s, TR_PING, TR_LIVE, now, 1e9 / t->ping_rate,
						  UINT64_MAX, t->ping_size, SS_PING_ID, t->next_seq);
	if (t->udp_rate > 0)
		t->live_udp = traffic_add_series(s, TR_UDP, TR_LIVE, now, 1e9 / t->udp_rate,
						 UINT64_MAX, t->udp_size, 0, 0);
}

void traffic_live(xb_session *s, int on)
{
	s->tr.live_on = on;
	live_series_set(s);
}

static int check_rate(double rate, unsigned size, unsigned lo, double max, xb_report *rep)
{
	if (!(rate >= 0 && rate <= max))
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "rate %g: 0 (off) to %g per second",
				   rate, max);
	if (size < lo || size > 1472)
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "size %u: %u to 1472 bytes", size, lo);
	return 0;
}

int session_set_ping(xb_session *s, double rate, unsigned size, xb_report *rep)
{
	if (check_rate(rate, size, 0, 10000, rep))
		return -1;
	s->tr.ping_rate = rate;
	s->tr.ping_size = size;
	live_series_set(s);
	session_note(s, XB_LOG_INFO, "pings: %g per second, %u bytes", rate, size);
	return 0;
}

int session_set_udp(xb_session *s, double rate, unsigned size, xb_report *rep)
{
	if (check_rate(rate, size, 8, 100000, rep))
		return -1;
	s->tr.udp_rate = rate;
	s->tr.udp_size = size;
	live_series_set(s);
	session_note(s, XB_LOG_INFO, "UDP echoes: %g per second, %u bytes", rate, size);
	return 0;
}

/* ---- Sending ---- */

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* What ping(8) sends: a timestamp (struct timeval, little endian here) and bytes counting
 * from 16. */
static size_t ping_payload(uint8_t *d, unsigned size, uint64_t due)
{
	for (unsigned i = 0; i < size; i++)
		d[i] = (uint8_t)i;
	if (size >= 16) {
		uint64_t sec = due / SS_NS, usec = due % SS_NS / 1000;
		memcpy(d, &sec, 8);
		memcpy(d + 8, &usec, 8);
	}
	return size;
}

/* The UDP payload: "xbnp" and a 32-bit nonce (big endian), then a pattern: the tracker
 * matches replies by these first 8 bytes. */
static size_t udp_payload(uint8_t *d, unsigned size, uint32_t nonce)
{
	for (unsigned i = 0; i < size; i++)
		d[i] = (uint8_t)(i * 7 + 1);
	memcpy(d, "xbnp", 4);
	put_be32(d + 4, nonce);
	return size;
}

static void send_one(xb_session *s, tr_series *x, uint64_t due)
{
	uint8_t d[1472];
	xb_report rep;
	int rc;
	if (x->kind == TR_PING) {
		uint16_t seq = (uint16_t)(x->seq0 + x->next);
		size_t n = ping_payload(d, x->size, due);
		rc = s->bench->ops->send_ping(s->bench, due, x->id, seq, d, n, &rep);
		if (x->owner == TR_LIVE)
			s->tr.next_seq = (uint16_t)(seq + 1);
	} else {
		size_t n = udp_payload(d, x->size, s->tr.next_nonce++);
		rc = s->bench->ops->send_udp(s->bench, due, SS_UDP_SPORT,
					     s->o.udp_port ? s->o.udp_port : SS_UDP_DPORT, d, n, &rep);
	}
	s->tr.requests++;
	if (rc != 0)
		session_problem(s, rep.status, "%s", rep.msg);
	else if (s->status.status == XB_STATUS_TRAFFIC_FAILED)
		session_clear_problem(s, XB_STATUS_TRAFFIC_FAILED);
}

void traffic_pump(xb_session *s)
{
	uint64_t horizon = s->now + lookahead(s);
	for (size_t i = 0; i < SS_SERIES; i++) {
		tr_series *x = &s->tr.series[i];
		if (!x->used)
			continue;
		while (x->next < x->count) {
			uint64_t due = due_of(x, x->next);
			if (due > horizon)
				break;
			send_one(s, x, due);
			x->next++;
		}
		/* a finished series folds into the base once it is older than every window */
		if (x->next >= x->count) {
			uint64_t last = x->next ? due_of(x, x->next - 1) : x->start_ns;
			if (last + SS_WINDOW_NS + SS_NS < s->now) {
				s->tr.due_base += x->next;
				x->used = 0;
			}
		}
	}
}

uint64_t traffic_next_due(const xb_session *s)
{
	uint64_t t = UINT64_MAX, la = lookahead(s);
	for (size_t i = 0; i < SS_SERIES; i++) {
		const tr_series *x = &s->tr.series[i];
		if (x->used && x->next < x->count) {
			uint64_t d = due_of(x, x->next);
			d = d > la ? d - la : 0;
			if (d < t)
				t = d;
		}
	}
	if (s->tr.sweep && s->tr.step_end < t)
		t = s->tr.step_end;
	return t;
}

double traffic_due_before(const xb_session *s, uint64_t t)
{
	double n = (double)s->tr.due_base;
	for (size_t i = 0; i < SS_SERIES; i++) {
		const tr_series *x = &s->tr.series[i];
		if (!x->used || t < x->start_ns)
			continue;
		double k = floor((double)(t - x->start_ns) / x->interval_ns + 1e-9) + 1;
		n += k < (double)x->next ? k : (double)x->next;
	}
	return n;
}

/* ---- Echoes ---- */

static tr_bucket *bucket_at(tr_state *t, uint64_t now)
{
	uint64_t k = now / (100 * SS_MS);
	tr_bucket *b = &t->buckets[k % SS_BUCKETS];
	if (b->t != k)
		*b = (tr_bucket){.t = k};
	return b;
}

static void settled(xb_session *s, int replied, double turnaround_ns)
{
	tr_state *t = &s->tr;
	tr_bucket *b = bucket_at(t, s->now);
	if (replied) {
		b->replies++;
		t->replies++;
	} else {
		b->lost++;
		t->lost++;
	}
	if (turnaround_ns >= 0) {
		t->turn[t->turn_head] = turnaround_ns;
		t->turn_t[t->turn_head] = s->now;
		t->turn_head = (t->turn_head + 1) % SS_TURNAROUNDS;
		if (t->nturn < SS_TURNAROUNDS)
			t->nturn++;
	}
}

/* A sweep's UDP echoes, kept until the sweep ends (bounded by its plan): the rate
 * counter takes requests in the order they were sent, and lost ones settle late. */
static void sweep_echo(xb_session *s, const xb_echo_event *e)
{
	tr_state *t = &s->tr;
	if (!t->sweep || e->kind != XB_ECHO_UDP || e->state == XB_ECHO_FAILED)
		return;
	xb_grow(&t->sw_ev, &t->sw_cap, t->sw_n + 1, sizeof *t->sw_ev);
	t->sw_ev[t->sw_n].submit_ns = e->submit_ns;
	t->sw_ev[t->sw_n].replied = e->state == XB_ECHO_REPLIED;
	t->sw_n++;
}

void traffic_echoes(xb_session *s)
{
	xb_echo_event ev[TR_EVENTS];
	size_t n;
	if (s->have_capture) {
		if (s->have_capture_clock)
			tracker_advance(s->tracker, (uint64_t)((int64_t)s->now + s->capture_offset));
		while ((n = tracker_take(s->tracker, ev, TR_EVENTS)) > 0)
			for (size_t i = 0; i < n; i++) {
				const xb_echo_event *e = &ev[i];
				settled(s, e->state == XB_ECHO_REPLIED,
					e->state == XB_ECHO_REPLIED ? (double)e->turnaround_ns : -1);
				sweep_echo(s, e);
				jobs_echo(s, e);
			}
	}
	if (s->have_capture)
		return; /* the replies stay for a client that wants them (sim serve) */
	/* without a capture the sockets' replies are all there is: each settles an echo, and
	 * a job counts its own (no turnaround without the usbmon records) */
	xb_bench_reply r[64];
	while ((n = s->bench->ops->read_replies(s->bench, r, 64)) > 0)
		for (size_t i = 0; i < n; i++) {
			settled(s, 1, -1);
			xb_echo_event e = {.kind = r[i].kind == 2 ? XB_ECHO_UDP : XB_ECHO_ICMP,
					   .state = XB_ECHO_REPLIED, .id = r[i].id, .seq = r[i].seq,
					   .sport = r[i].sport, .dport = r[i].dport, .size = r[i].len,
					   .reply_ns = s->now, .turnaround_ns = -1};
			jobs_echo(s, &e);
		}
}

int traffic_outstanding(const xb_session *s)
{
	xb_tracker_stats st;
	tracker_stats(s->tracker, &st);
	return st.pending > 0;
}

/* ---- The sweep ---- */

static void sweep_step_start(xb_session *s)
{
	tr_state *t = &s->tr;
	uint32_t rate = t->rates[t->step];
	uint64_t count = (uint64_t)llround(rate * t->step_s);
	if (count < 1)
		count = 1;
	traffic_add_series(s, TR_UDP, TR_SWEEP, s->now, 1e9 / rate, count, t->sweep_size, 0, 0);
	t->step_end = s->now + (uint64_t)llround((t->step_s + t->gap_s) * SS_NS);
}

int session_sweep(xb_session *s, const uint32_t *rates, size_t n, double step_s, double gap_s,
		  unsigned passes, unsigned size, xb_report *rep)
{
	tr_state *t = &s->tr;
	if (!rates) {
		if (t->sweep)
			session_note(s, XB_LOG_INFO, "sweep stopped");
		traffic_stop_owner(s, TR_SWEEP);
		t->sweep = 0;
		live_series_set(s);
		return 0;
	}
	if (!n || !(step_s > 0) || gap_s < 0 || !passes || size < 8 || size > 1472)
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "a sweep needs rates, a step > 0 s, "
				   "a gap >= 0 s, passes >= 1 and 8 to 1472 bytes");
	for (size_t i = 0; i < n; i++)
		if (!rates[i] || rates[i] > 100000)
			return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "sweep rate %u: 1 to 100000/s",
					   rates[i]);
	free(t->rates);
	t->rates = xmalloc(n * sizeof *t->rates);
	memcpy(t->rates, rates, n * sizeof *rates);
	t->nrates = n;
	t->step_s = step_s;
	t->gap_s = gap_s;
	t->passes = passes;
	t->sweep_size = size;
	t->pass = t->step = 0;
	t->sweep = 1;
	t->sweep_peak = NAN;
	t->sw_n = 0;
	t->sweep_sent = t->sweep_replied = 0;
	t->draining = t->settling = 0;
	t->sweep_start = s->now + SS_SETTLE_NS;
	t->step_end = t->sweep_start;
	t->settling = 1; /* the first step after the settle time */
	live_series_set(s); /* the live series pause during the sweep */
	session_note(s, XB_LOG_INFO, "UDP sweep: %zu steps of %.2f s, %u passes", n, step_s, passes);
	return 0;
}

static int cmp_sweep_event(const void *a, const void *b)
{
	const tr_sweep_event *x = a, *y = b;
	return x->submit_ns < y->submit_ns ? -1 : x->submit_ns > y->submit_ns;
}

/* The sweep's result so far: the echoes settled until now, in the order they were sent,
 * through a rate counter (at each step's end; the figures read what it left). */
static void sweep_result(xb_session *s)
{
	tr_state *t = &s->tr;
	if (!t->rates)
		return;
	qsort(t->sw_ev, t->sw_n, sizeof *t->sw_ev, cmp_sweep_event);
	/* the echoes' times are the capture's clock: the virtual bench's is the session's;
	 * a real one's (live usbmon: the epoch; sim serve's stream: the board's) is not, and
	 * the first pass starts at its first request, which goes out at the step's start */
	xb_rate_plan plan = {.rates = t->rates, .nrates = t->nrates,
			     .step_ns = (uint64_t)llround(t->step_s * SS_NS),
			     .gap_ns = (uint64_t)llround(t->gap_s * SS_NS), .passes = t->passes,
			     .start_ns = s->is_virtual ? t->sweep_start : 0};
	xb_rate_counter *rc = rate_counter_new(&plan, NULL);
	if (!rc)
		return;
	for (size_t i = 0; i < t->sw_n; i++)
		rate_counter_add(rc, t->sw_ev[i].submit_ns, t->sw_ev[i].replied);
	xb_rate_result rr;
	if (rate_counter_result(rc, &rr, NULL) == 0) {
		t->sweep_peak = rr.n ? rr.peak : NAN;
		t->sweep_sent = t->sweep_replied = 0;
		for (size_t i = 0; i < rr.n; i++) {
			t->sweep_sent += rr.steps[i].sent;
			t->sweep_replied += rr.steps[i].replied;
		}
		echo_rate_free(&rr);
	}
	rate_counter_free(rc);
}

void traffic_sweep_pump(xb_session *s)
{
	tr_state *t = &s->tr;
	if (!t->sweep || s->now < t->step_end)
		return;
	if (t->draining) {
		/* between passes and at the end: until the last replies are in (at most 1 s) */
		if (traffic_outstanding(s) && s->now < t->drain_until) {
			t->step_end = s->now + 10 * SS_MS;
			return;
		}
		t->draining = 0;
		sweep_result(s);
		if (t->pass == t->passes) {
			t->sweep = 0;
			session_note(s, XB_LOG_INFO, "UDP sweep done: peak %.0f replies per second",
				    t->sweep_peak);
			live_series_set(s);
			return;
		}
		t->step_end = s->now + SS_SETTLE_NS; /* the next pass after the settle time */
		t->settling = 1;
		return;
	}
	if (t->settling) {
		t->settling = 0;
		sweep_step_start(s);
		return;
	}
	if (++t->step == t->nrates) {
		t->step = 0;
		t->pass++;
		t->draining = 1;
		t->drain_until = s->now + SS_NS;
		t->step_end = s->now;
		return;
	}
	sweep_step_start(s);
}

int traffic_sweep_state(const xb_session *s, double *peak, size_t *sent, size_t *replied)
{
	*sent = s->tr.sweep_sent;
	*replied = s->tr.sweep_replied;
	*peak = s->tr.sweep_peak;
	return s->tr.sweep;
}
