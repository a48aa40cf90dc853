/* echo_rate: the UDP echo rate of a capture over fixed rate steps and passes. */
#include <stdlib.h>
#include <string.h>

#include "echo.h"

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
	rate_request *r = xmalloc((echo_count(e) ? echo_count(e) : 1) * sizeof *r);
	*n = 0;
	for (size_t i = 0; i < echo_count(e); i++) {
		const xb_echo *x = echo_get(e, i);
		if (x->kind != XB_ECHO_UDP)
			continue;
		const xb_frame *f = frames_get(fs, x->request);
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
	if (!plan->nrates || !plan->rates)
		return xb_fail(err, "the rate plan has no steps");
	if (!plan->step_ns)
		return xb_fail(err, "the rate plan's steps last no time");
	if (!plan->passes)
		return xb_fail(err, "the rate plan has no passes");
	uint64_t period = plan->step_ns + plan->gap_ns;
	if (period < plan->step_ns || period > UINT64_MAX / plan->nrates)
		return xb_fail(err, "the rate plan's steps are too long");
	uint64_t pass_len = period * plan->nrates;
	size_t n;
	rate_request *r = rate_requests(e, fs, &n);
	out->n = (size_t)plan->passes * plan->nrates;
	out->steps = xcalloc(out->n, sizeof *out->steps);
	size_t next = 0; /* first request not yet in a finished pass */
	uint64_t after = plan->start_ns;
	size_t counted = 0;
	for (unsigned p = 0; p < plan->passes; p++) {
		while (next < n && r[next].sent_ns < after)
			next++;
		uint64_t start = p == 0 && plan->start_ns ? plan->start_ns
				 : next < n               ? r[next].sent_ns
							  : 0;
		int found = start != 0 && next < n;
		if (found)
			out->passes_found++;
		for (size_t s = 0; s < plan->nrates; s++) {
			xb_rate_step *st = &out->steps[(size_t)p * plan->nrates + s];
			st->pass = p;
			st->step = s;
			st->rate = plan->rates[s];
			if (!found)
				continue;
			st->start_ns = start + period * s;
			uint64_t end = st->start_ns + plan->step_ns;
			while (next < n && r[next].sent_ns < st->start_ns)
				next++;
			for (; next < n && r[next].sent_ns < end; next++) {
				st->sent++;
				st->replied += r[next].replied != 0;
			}
			counted += st->sent;
			st->sent_rate = (double)st->sent * 1e9 / (double)plan->step_ns;
			st->reply_rate = (double)st->replied * 1e9 / (double)plan->step_ns;
			if (st->reply_rate > out->peak) {
				out->peak = st->reply_rate;
				out->peak_step = (size_t)p * plan->nrates + s;
			}
		}
		if (found)
			after = start + pass_len;
	}
	out->outside = n - counted;
	free(r);
	return 0;
}

void echo_rate_free(xb_rate_result *r)
{
	free(r->steps);
	memset(r, 0, sizeof *r);
}
