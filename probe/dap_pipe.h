/* dap_pipe: one CMSIS-DAP probe shared by several streams of work without blocking: the
 * PC sampler's blocks, the XIP counter reads, status reads ... Requests queue in order,
 * up to the probe's packet count are in flight, and each response goes to the callback of
 * its request. A pump never waits: it collects the responses that are there and submits
 * what fits. A probe that vanishes or stops answering fails the pipe, not the caller's
 * loop. */
#ifndef XB_PROBE_DAP_PIPE_H
#define XB_PROBE_DAP_PIPE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "dap_client.h"

/*
 * Order: packets go to the probe in the order they were queued and responses come back in
 * that order, so a request may rely on the probe state (TAR, CSW) the one before left.
 *
 * The pipe has the client to itself while packets are in flight (synchronous calls on it
 * fail until the pipe is idle).
 *
 * Readiness: transport_ready (probe/transport.h) tells whether a response can be
 * collected without blocking; transport_fd gives a descriptor to poll. A response that
 * does not come within the pipe's timeout (default: the transport's timeout_ms; on the
 * wall clock, from when its request was sent) fails the pipe with "no response within N
 * ms". No timeout applies to the in-process virtual probe: its clock is virtual and it
 * always answers at once.
 *
 * Failure: when the transport fails (closed socket, USB device gone, a timeout) the pipe
 * is failed: every request still queued or in flight gets its callback with err set (and
 * no response), dap_pipe_failed returns 1 and later queue calls fail. What the callbacks
 * already received stays theirs. The transport is left broken with the same message (a
 * late answer must never be taken for another request's). dap_pipe_free never blocks
 * longer than the timeout.
 */

typedef struct xb_dap_pipe xb_dap_pipe;

/* Called once per request: with the response (resp, len; t_ns the transport's clock
 * when it was collected) and err NULL, or with resp NULL and err saying why there is
 * none. */
typedef void (*xb_dap_pipe_fn)(void *ctx, const uint8_t *resp, size_t len, uint64_t t_ns,
			       const xb_err *err);

/* A pipe over c (not owned). window: packets in flight at most (0 or more than the
 * probe's packet count: the probe's count). queue_max: requests waiting at most (0: 256). */
xb_dap_pipe *dap_pipe_new(xb_dap_client *c, unsigned window, size_t queue_max);
/* Fails every pending request (callbacks with "the pipe was closed"), then frees. */
void dap_pipe_free(xb_dap_pipe *p);

/* Queues one request packet (1 .. packet size bytes, copied). Never blocks. -1 with err
 * when the queue is full or the pipe failed. */
int dap_pipe_queue(xb_dap_pipe *p, const uint8_t *req, size_t len, xb_dap_pipe_fn fn,
		   void *ctx, xb_err *err);
/* Does what can be done now: collects every response that is ready (calling back),
 * submits queued requests while fewer than window are in flight (after each response, so
 * the window stays full). It delivers at most as many responses as were queued or in
 * flight when it started (callbacks may queue more: they go on the next pump). Returns
 * the number of responses delivered, or -1 with err when the pipe failed now (see
 * above). Callbacks may call dap_pipe_queue, never dap_pipe_pump, _drain or _free. For
 * the in-process virtual probe, whose clock is virtual, every response is ready at once
 * and no timeout applies. */
int dap_pipe_pump(xb_dap_pipe *p, xb_err *err);
/* The descriptor to poll for readability while packets are in flight (-1: none, or
 * nothing in flight; then call dap_pipe_pump again without waiting when
 * dap_pipe_in_flight is not 0). A pump delivers at most what was queued or in flight
 * when it started, so responses the transport has already buffered do not make the
 * descriptor readable: after a pump that delivered something, check dap_pipe_ready (or
 * pump again) before sleeping in poll. */
int dap_pipe_fd(const xb_dap_pipe *p);
/* 1 when a response can be collected now (dap_pipe_pump would deliver it), else 0 (also
 * when the pipe failed now: the next pump says why). Never blocks. */
int dap_pipe_ready(xb_dap_pipe *p);
/* Waits at most ms (wall clock) until a response may be ready: returns at once when one
 * is, or when nothing is in flight, or for the in-process virtual probe. For loops that
 * own nothing else to wait for (sampler_run, dap_pipe_drain). */
void dap_pipe_wait(xb_dap_pipe *p, unsigned ms);
unsigned dap_pipe_in_flight(const xb_dap_pipe *p);
/* The window: packets in flight at most. */
unsigned dap_pipe_window(const xb_dap_pipe *p);
size_t dap_pipe_queued(const xb_dap_pipe *p);
/* 1 when nothing is queued or in flight. */
int dap_pipe_idle(const xb_dap_pipe *p);
int dap_pipe_failed(const xb_dap_pipe *p, xb_err *err);
/* How long a response may take (ms, counted from when its request was sent), default
 * (and 0) the transport's timeout_ms. */
void dap_pipe_set_timeout(xb_dap_pipe *p, unsigned ms);
xb_dap_client *dap_pipe_client(xb_dap_pipe *p);
/* Forgets the requests of ctx (a producer that goes away): those still queued are dropped,
 * those in flight are collected later without calling back. */
void dap_pipe_forget(xb_dap_pipe *p, void *ctx);

/* Blocks (up to the timeout) until every request has been answered: for the start and the
 * end of a session, never from a UI loop. 0, or -1 with err. */
int dap_pipe_drain(xb_dap_pipe *p, xb_err *err);

#endif
