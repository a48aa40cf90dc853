/* echo_rate: the UDP echo rate of a capture over fixed rate steps and passes, counted as
 * the requests come (rate_counter) or over a capture's echoes (echo_rate_sweep). */
#include <stdlib.h>
#include <string.h>

#include "echo.h"

struct xb_rate_counter {
	xb_rate_plan plan; /* rates: the copy below */
	uint32_t *rates;
	uint64_t period, pass_len;
	xb_rate_step *steps; /* passes * nrates: counts, and starts once a pass starts */
	unsigned pass;       /* the pass being counted (plan.passes: all done) */
	int started;         /* it found its first request */
	uint64_t start;      /* its start */
	uint64_t after;      /* it starts at the first request from here */
	unsigned passes_found;
	size_t outside;
};

xb_rate_counter *rate_counter_new(const xb_rate_plan *plan, xb_err *err)
{
	if (!plan->nrates || !plan->rates) {
		xb_fail(err, "the rate plan has no steps");
		return NULL;
	}
	if (!plan->step_ns) {
		xb_fail(err, "the rate plan's steps last no time");
		return NULL;
	}
	if (!plan->passes) {
		xb_fail(err, "the rate plan has no passes");
		return NULL;
	}
	uint64_t period = plan->step_ns + plan->gap_ns;
	if (period < plan->step_ns || period > UINT64_MAX / plan->nrates) {
		xb_fail(err, "the rate plan's steps are too long");
		return NULL;
	}
	xb_rate_counter *c = xcalloc(1, sizeof *c);
	c->plan = *plan;
	c->rates = xmalloc(plan->nrates * sizeof *c->rates);
	memcpy(c->rates, plan->rates, plan->nrates * sizeof *c->rates);
	c->plan.rates = c->rates;
	c->period = period;
	c->pass_len = period * plan->nrates;
	size_t n = (size_t)plan->passes * plan->nrates;
	c->steps = xcalloc(n, sizeof *c->steps);
	for (size_t i = 0; i < n; i++) {
		c->steps[i].pass = (unsigned)(i / plan->nrates);
		c->steps[i].step = i % plan->nrates;
		c->steps[i].rate = plan->rates[i % plan->nrates];
	}
	c->after = plan->start_ns;
	return c;
}

void rate_counter_free(xb_rate_counter *c)
{
	if (!c)
		return;
	free(c->rates);
	free(c->steps);
	free(c);
}

void rate_counter_add(xb_rate_counter *c, uint64_t request_ns, int replied)
{
	uint64_t t = request_ns;
	size_t nrates = c->plan.nrates;
	while (t) {
		if (c->pass < c->plan.passes && !c->started && t >= c->after) {
			/* the first pass may start at a given time, the others at their first
			 * request */
			c->start = c->pass == 0 && c->plan.start_ns ? c->plan.start_ns : t;
			c->started = 1;
			c->passes_found++;
			xb_rate_step *st = &c->steps[(size_t)c->pass * nrates];
			for (size_t s = 0; s < nrates; s++)
				st[s].start_ns = c->start + c->period * s;
		}
		/* the newest pass started at or before t (an older one for a request that
		 * comes late) */
		unsigned q = c->pass + (unsigned)c->started;
		while (q > 0 && t < c->steps[(size_t)(q - 1) * nrates].start_ns)
			q--;
		if (q == 0)
			break;
		q--;
		uint64_t into = t - c->steps[(size_t)q * nrates].start_ns;
		if (into >= c->pass_len) {
			if (q != c->pass || !c->started)
				break; /* between two passes */
			/* the pass is over: the next starts here or later */
			c->after = c->start + c->pass_len < c->start ? UINT64_MAX
								    : c->start + c->pass_len;
			c->pass++;
			c->started = 0;
			continue;
		}
		uint64_t s = into / c->period;
		if (into - s * c->period >= c->plan.step_ns)
			break; /* in the gap after step s */
		xb_rate_step *st = &c->steps[(size_t)q * nrates + (size_t)s];
		st->sent++;
		st->replied += replied != 0;
		return;
	}
	c->outside++;
}

int rate_counter_result(const xb_rate_counter *c, xb_rate_result *out, xb_err *err)
{
	memset(out, 0, sizeof *out);
	if (!c)
		return xb_fail(err, "no rate counter");
	const xb_rate_plan *plan = &c->plan;
	out->n = (size_t)plan->passes * plan->nrates;
	out->steps = xmalloc(out->n * sizeof *out->steps);
	memcpy(out->steps, c->steps, out->n * sizeof *out->steps);
	out->passes_found = c->passes_found;
	out->outside = c->outside;
	for (size_t i = 0; i < out->n; i++) {
		xb_rate_step *st = &out->steps[i];
		st->sent_rate = (double)st->sent * 1e9 / (double)plan->step_ns;
		st->reply_rate = (double)st->replied * 1e9 / (double)plan->step_ns;
		if (st->reply_rate > out->peak) {
			out->peak = st->reply_rate;
			out->peak_step = i;
		}
	}
	return 0;
}

/* ---- Over a capture ---- */

typedef struct rate_request {
	uint64_t sent_ns;
	int replied;
} rate_request;

static int cmp_sent(const void *a, const void *b)
{
	uint64_t x = ((const rate_request *)a)->sent_ns, y = ((const rate_request *)b)->sent_ns;
	return (x > y) - (x < y);
}

/* The UDP requests by send time: the first 'S' of their transfer (the 'C' when the
 * submission is not in the capture). */
static rate_request *rate_requests(const xb_echoes *e, const xb_frames *fs, size_t *n)
{
	size_t first = echo_count(e) - echo_held(e);
	rate_request *r = xmalloc((echo_held(e) ? echo_held(e) : 1) * sizeof *r);
	*n = 0;
	for (size_t i = first; i < echo_count(e); i++) {
		const xb_echo *x = echo_get(e, i);
		const xb_frame *f = frames_get(fs, x->request);
		if (x->kind != XB_ECHO_UDP || !f)
			continue;
		r[*n].sent_ns = f->submit_ns ? f->submit_ns : f->time_ns;
		r[*n].replied = x->reply != XB_ECHO_NONE;
		(*n)++;
	}
	qsort(r, *n, sizeof *r, cmp_sent);
	return r;
}

int echo_rate_sweep(const xb_echoes *e, const xb_frames *fs, const xb_rate_plan *plan,
		    xb_rate_result *out, xb_err *err)
{
	memset(out, 0, sizeof *out);
	xb_rate_counter *c = rate_counter_new(plan, err);
	if (!c)
		return -1;
	size_t n;
	rate_request *r = rate_requests(e, fs, &n);
	for (size_t i = 0; i < n; i++)
		rate_counter_add(c, r[i].sent_ns, r[i].replied);
	free(r);
	int rc = rate_counter_result(c, out, err);
	rate_counter_free(c);
	return rc;
}

void echo_rate_free(xb_rate_result *r)
{
	free(r->steps);
	memset(r, 0, sizeof *r);
}
