/* transport: what every CMSIS-DAP transport shares: the broken state, pipelining over a
 * transport that only has xfer, readiness, the clock. */
#include "transport.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void transport_init(xb_transport *t, const xb_transport_ops *ops, const char *fmt, ...)
{
	memset(t, 0, sizeof *t);
	t->ops = ops;
	t->packet_size = 64;
	t->link_max = TRANSPORT_PACKET_MAX;
	t->timeout_ms = TRANSPORT_TIMEOUT_MS;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->name, sizeof t->name, fmt, ap);
	va_end(ap);
}

void transport_break(xb_transport *t, const xb_err *err)
{
	if (t->broken)
		return;
	t->broken = 1;
	t->in_flight = 0; /* nothing will come back */
	if (err)
		t->broken_err = *err;
	else
		snprintf(t->broken_err.msg, sizeof t->broken_err.msg, "%s: unusable", t->name);
}

static int transport_check(xb_transport *t, xb_err *err)
{
	if (!t->broken)
		return 0;
	if (err)
		*err = t->broken_err;
	return -1;
}

static int transport_check_request(xb_transport *t, size_t len, xb_err *err)
{
	if (len == 0 || len > t->packet_size || len > TRANSPORT_PACKET_MAX)
		return xb_fail(err, "%s: a request of %zu bytes does not fit a packet of %zu", t->name,
			       len, t->packet_size);
	return 0;
}

int transport_xfer(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		   size_t *rlen, xb_err *err)
{
	if (transport_check(t, err) || transport_check_request(t, len, err))
		return -1;
	if (t->in_flight)
		return xb_fail(err, "%s: %u responses still to collect before a transfer", t->name,
			       t->in_flight);
	xb_err e;
	if (t->ops->xfer(t, req, len, resp, cap, rlen, &e)) {
		transport_break(t, &e);
		if (err)
			*err = e;
		return -1;
	}
	return 0;
}

int transport_submit(xb_transport *t, const uint8_t *req, size_t len, xb_err *err)
{
	if (transport_check(t, err) || transport_check_request(t, len, err))
		return -1;
	if (t->in_flight >= TRANSPORT_IN_FLIGHT_MAX)
		return xb_fail(err, "%s: more than %u packets in flight", t->name,
			       TRANSPORT_IN_FLIGHT_MAX);
	xb_err e;
	if (t->ops->submit) {
		if (t->ops->submit(t, req, len, &e))
			goto broken;
	} else {
		if (!t->held)
			t->held = xmalloc((size_t)TRANSPORT_IN_FLIGHT_MAX * TRANSPORT_PACKET_MAX);
		unsigned slot = (t->held_head + t->in_flight) % TRANSPORT_IN_FLIGHT_MAX;
		if (t->ops->xfer(t, req, len, t->held + (size_t)slot * TRANSPORT_PACKET_MAX,
				 TRANSPORT_PACKET_MAX, &t->held_len[slot], &e))
			goto broken;
	}
	t->in_flight++;
	return 0;
broken:
	transport_break(t, &e);
	if (err)
		*err = e;
	return -1;
}

int transport_collect(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err)
{
	if (transport_check(t, err))
		return -1;
	if (t->in_flight == 0)
		return xb_fail(err, "%s: no response to collect: nothing in flight", t->name);
	xb_err e;
	if (t->ops->collect) {
		if (t->ops->collect(t, resp, cap, rlen, &e)) {
			transport_break(t, &e);
			if (err)
				*err = e;
			return -1;
		}
	} else {
		unsigned slot = t->held_head;
		size_t n = t->held_len[slot] < cap ? t->held_len[slot] : cap;
		memcpy(resp, t->held + (size_t)slot * TRANSPORT_PACKET_MAX, n);
		*rlen = n;
		t->held_head = (slot + 1) % TRANSPORT_IN_FLIGHT_MAX;
	}
	t->in_flight--;
	return 0;
}

int transport_ready(xb_transport *t, xb_err *err)
{
	if (transport_check(t, err))
		return -1;
	if (t->in_flight == 0)
		return 0;
	if (!t->ops->ready)
		return 1; /* held responses, or a collect that does not wait */
	xb_err e;
	int r = t->ops->ready(t, &e);
	if (r < 0) {
		transport_break(t, &e);
		if (err)
			*err = e;
		return -1;
	}
	return r > 0;
}

int transport_fd(xb_transport *t)
{
	if (t->broken || !t->ops->fd)
		return -1;
	return t->ops->fd(t);
}

uint64_t transport_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t transport_now_ns(xb_transport *t)
{
	return t->ops->now_ns ? t->ops->now_ns(t) : transport_wall_ns();
}

void transport_wait(xb_transport *t, uint64_t ns)
{
	if (t->ops->wait) {
		t->ops->wait(t, ns);
		return;
	}
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
			      .tv_nsec = (long)(ns % 1000000000u)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void transport_close(xb_transport *t)
{
	if (!t)
		return;
	free(t->held);
	t->held = NULL;
	t->ops->close(t);
}
