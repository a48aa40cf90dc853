/* dap_pipe: one CMSIS-DAP probe shared by several producers: a FIFO of request packets, a
 * window of them in flight, responses handed to each request's callback, and the pipe
 * failed as a whole (every pending callback told) when the probe goes away. */
#include "dap_pipe.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QUEUE_DEFAULT 256u
#define NS_PER_MS 1000000ull

typedef struct pipe_req {
	size_t len;
	xb_dap_pipe_fn fn; /* NULL: forgotten (collected without calling back) */
	void *ctx;
	uint64_t sent_ns;  /* wall clock when submitted */
} pipe_req;

struct xb_dap_pipe {
	xb_dap_client *c;
	xb_transport *t;
	unsigned window;
	size_t queue_max;
	size_t cap;          /* ring slots: window + queue_max */
	size_t psize;        /* bytes per slot: the probe's packet size */
	pipe_req *ring;      /* from head: in_flight sent, then queued waiting */
	uint8_t *bytes;      /* cap x psize: each slot's request */
	size_t head;
	unsigned in_flight;
	size_t queued;
	unsigned timeout_ms; /* 0: the transport's */
	int failed;
	xb_err err;
};

xb_dap_pipe *dap_pipe_new(xb_dap_client *c, unsigned window, size_t queue_max)
{
	xb_dap_pipe *p = xcalloc(1, sizeof *p);
	const xb_dap_info *info = dap_client_info(c);
	p->c = c;
	p->t = dap_client_transport(c);
	p->window = window && window < info->packet_count ? window : info->packet_count;
	if (p->window == 0)
		p->window = 1;
	p->queue_max = queue_max ? queue_max : QUEUE_DEFAULT;
	p->cap = p->window + p->queue_max;
	p->psize = info->packet_size ? info->packet_size : p->t->packet_size;
	p->ring = xcalloc(p->cap, sizeof *p->ring);
	p->bytes = xmalloc(p->cap * p->psize);
	return p;
}

static unsigned pipe_timeout_ms(const xb_dap_pipe *p)
{
	return p->timeout_ms ? p->timeout_ms : p->t->timeout_ms;
}

/* Takes the oldest pending request off the ring. */
static pipe_req pipe_pop(xb_dap_pipe *p)
{
	pipe_req r = p->ring[p->head];
	p->head = (p->head + 1) % p->cap;
	if (p->in_flight)
		p->in_flight--;
	else
		p->queued--;
	return r;
}

/* Every request still pending gets its callback with p->err, oldest first. */
static void pipe_fail_pending(xb_dap_pipe *p)
{
	while (p->in_flight + p->queued) {
		pipe_req r = pipe_pop(p);
		if (r.fn)
			r.fn(r.ctx, NULL, 0, 0, &p->err);
	}
	p->head = 0;
}

static void pipe_fail(xb_dap_pipe *p, const xb_err *e)
{
	if (!p->failed) {
		p->failed = 1;
		p->err = *e;
		transport_break(p->t, e); /* a late answer must not be taken for the next one */
	}
	pipe_fail_pending(p);
}

/* Sleeps until the transport's descriptor is readable, at most ms. */
static void pipe_wait(xb_dap_pipe *p, unsigned ms)
{
	int fd = transport_fd(p->t);
	if (fd >= 0) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		while (poll(&pfd, 1, (int)ms) < 0 && errno == EINTR)
			;
		return;
	}
	struct timespec ts = {.tv_nsec = 100000}; /* nothing to poll: look again soon */
	nanosleep(&ts, NULL);
}

void dap_pipe_free(xb_dap_pipe *p)
{
	if (!p)
		return;
	if (!p->failed) {
		p->failed = 1; /* callbacks that queue now are refused */
		xb_fail(&p->err, "%s: the pipe was closed", dap_client_name(p->c));
		/* Collect what is in flight so the probe is left idle for synchronous use. */
		uint64_t deadline = transport_wall_ns() + pipe_timeout_ms(p) * NS_PER_MS;
		while (p->in_flight) {
			int r = transport_ready(p->t, NULL);
			if (r < 0)
				break;
			if (r == 0 && transport_wall_ns() >= deadline) {
				xb_err e;
				xb_fail(&e, "%s: no response within %u ms", dap_client_name(p->c),
					pipe_timeout_ms(p));
				transport_break(p->t, &e);
				break;
			}
			if (r == 0) {
				pipe_wait(p, 10);
				continue;
			}
			uint8_t resp[TRANSPORT_PACKET_MAX];
			size_t len;
			if (transport_collect(p->t, resp, sizeof resp, &len, NULL))
				break;
			pipe_req req = pipe_pop(p);
			if (req.fn)
				req.fn(req.ctx, NULL, 0, 0, &p->err);
		}
	}
	pipe_fail_pending(p);
	free(p->ring);
	free(p->bytes);
	free(p);
}

int dap_pipe_queue(xb_dap_pipe *p, const uint8_t *req, size_t len, xb_dap_pipe_fn fn,
		   void *ctx, xb_err *err)
{
	if (p->failed) {
		if (err)
			*err = p->err;
		return -1;
	}
	if (len == 0 || len > p->psize)
		return xb_fail(err, "%s: a request of %zu bytes does not fit a packet of %zu",
			       dap_client_name(p->c), len, p->psize);
	if (p->queued >= p->queue_max)
		return xb_fail(err, "%s: the request queue is full (%zu waiting); pump first",
			       dap_client_name(p->c), p->queued);
	size_t slot = (p->head + p->in_flight + p->queued) % p->cap;
	memcpy(p->bytes + slot * p->psize, req, len);
	p->ring[slot] = (pipe_req){.len = len, .fn = fn, .ctx = ctx};
	p->queued++;
	return 0;
}

/* Sends queued requests while the window has room. */
static int pipe_submit(xb_dap_pipe *p, xb_err *err)
{
	while (p->in_flight < p->window && p->queued) {
		size_t slot = (p->head + p->in_flight) % p->cap;
		if (dap_client_submit(p->c, p->bytes + slot * p->psize, p->ring[slot].len, err))
			return -1;
		p->ring[slot].sent_ns = p->t->virtual_time ? 0 : transport_wall_ns();
		p->in_flight++;
		p->queued--;
	}
	return 0;
}

/* Real transports: the oldest request in flight waited longer than the timeout. */
static int pipe_overdue(const xb_dap_pipe *p)
{
	if (!p->in_flight || p->t->virtual_time)
		return 0;
	uint64_t sent = p->ring[p->head].sent_ns;
	return transport_wall_ns() - sent > pipe_timeout_ms(p) * NS_PER_MS;
}

int dap_pipe_pump(xb_dap_pipe *p, xb_err *err)
{
	if (p->failed) {
		if (err)
			*err = p->err;
		return -1;
	}
	size_t budget = p->in_flight + p->queued;
	int delivered = 0;
	xb_err e;
	if (pipe_submit(p, &e))
		goto failed;
	while (p->in_flight && budget) {
		int r = transport_ready(p->t, &e);
		if (r < 0)
			goto failed;
		if (r == 0)
			break;
		uint8_t resp[TRANSPORT_PACKET_MAX];
		size_t len;
		if (transport_collect(p->t, resp, sizeof resp, &len, &e))
			goto failed;
		uint64_t t_ns = transport_now_ns(p->t);
		pipe_req req = pipe_pop(p);
		budget--;
		if (req.fn) {
			delivered++;
			req.fn(req.ctx, resp, len, t_ns, NULL);
		}
		if (pipe_submit(p, &e))
			goto failed;
	}
	if (pipe_overdue(p)) {
		xb_fail(&e, "%s: no response within %u ms", dap_client_name(p->c),
			pipe_timeout_ms(p));
		goto failed;
	}
	return delivered;
failed:
	pipe_fail(p, &e);
	if (err)
		*err = p->err;
	return -1;
}

int dap_pipe_fd(const xb_dap_pipe *p)
{
	if (p->failed || !p->in_flight)
		return -1;
	return transport_fd(p->t);
}

int dap_pipe_ready(xb_dap_pipe *p)
{
	if (p->failed || !p->in_flight)
		return 0;
	return transport_ready(p->t, NULL) == 1;
}

void dap_pipe_wait(xb_dap_pipe *p, unsigned ms)
{
	if (p->failed || !p->in_flight || p->t->virtual_time)
		return;
	if (transport_ready(p->t, NULL) != 0)
		return; /* ready, or failed: the next pump says */
	pipe_wait(p, ms);
}

unsigned dap_pipe_in_flight(const xb_dap_pipe *p)
{
	return p->in_flight;
}

unsigned dap_pipe_window(const xb_dap_pipe *p)
{
	return p->window;
}

size_t dap_pipe_queued(const xb_dap_pipe *p)
{
	return p->queued;
}

int dap_pipe_idle(const xb_dap_pipe *p)
{
	return p->in_flight == 0 && p->queued == 0;
}

int dap_pipe_failed(const xb_dap_pipe *p, xb_err *err)
{
	if (p->failed && err)
		*err = p->err;
	return p->failed;
}

void dap_pipe_set_timeout(xb_dap_pipe *p, unsigned ms)
{
	p->timeout_ms = ms;
}

xb_dap_client *dap_pipe_client(xb_dap_pipe *p)
{
	return p->c;
}

void dap_pipe_forget(xb_dap_pipe *p, void *ctx)
{
	for (unsigned i = 0; i < p->in_flight; i++) {
		pipe_req *r = &p->ring[(p->head + i) % p->cap];
		if (r->ctx == ctx)
			r->fn = NULL;
	}
	/* queued ones: keep the others in order */
	size_t first = p->head + p->in_flight, kept = 0;
	for (size_t i = 0; i < p->queued; i++) {
		size_t from = (first + i) % p->cap, to = (first + kept) % p->cap;
		if (p->ring[from].ctx == ctx)
			continue;
		if (from != to) {
			p->ring[to] = p->ring[from];
			memcpy(p->bytes + to * p->psize, p->bytes + from * p->psize, p->ring[from].len);
		}
		kept++;
	}
	p->queued = kept;
}

int dap_pipe_drain(xb_dap_pipe *p, xb_err *err)
{
	for (;;) {
		if (dap_pipe_pump(p, err) < 0)
			return -1;
		if (dap_pipe_idle(p))
			return 0;
		dap_pipe_wait(p, 10);
	}
}
