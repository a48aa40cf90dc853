/* test_dap_pipe: the shared, non-blocking CMSIS-DAP pipe (probe/dap_pipe.c) over the
 * in-process virtual probe and over a socketpair to the virtual probe's server served in
 * this thread: FIFO order across two producers (one writes a word, the other reads it
 * back), the window, the bounded queue, each response delivered once, forgotten
 * producers, a server that goes away mid-stream (failed at once, every pending callback
 * told), one that never answers (the pipe's timeout), and closing a busy pipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <poll.h>

#include "test_probe_common.h"

#define SCRATCH 0x20020000u
#define NREQ 40

typedef struct fixture {
	vpico v;
	xb_probe p;
	xb_dap_server *srv; /* socket tests only */
	xb_dap_pipe *pipe;
	/* what the callbacks saw */
	int log[4 * NREQ];
	int nlog;
	unsigned max_in_flight;
} fixture;

/* One request: producer 0 writes SCRATCH = value, producer 1 reads it back. */
typedef struct request {
	fixture *f;
	int id, producer;
	uint32_t value;
	int calls, errors;
	uint32_t read;
	char err[512];
} request;

static int setup_virtual(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	vpico_init(&f->v, 0, NULL);
	vpico_run_program(&f->v, "spin", 100000);
	vpico_attach(&f->v, &f->p, 0);
	*state = f;
	return 0;
}

static int setup_socket(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	vpico_init(&f->v, 0, NULL);
	vpico_run_program(&f->v, "spin", 100000);
	xb_transport *t = tp_socketpair(&f->v, &f->srv);
	xb_probe_options o = {.swclk_hz = TP_SWCLK};
	xb_err err;
	if (probe_attach(&f->p, t, &o, &err)) {
		fprintf(stderr, "probe_attach: %s\n", err.msg);
		abort();
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	dap_pipe_free(f->pipe);
	probe_close(&f->p);
	if (f->srv)
		dap_socket_close(f->srv);
	vpico_free(&f->v);
	free(f);
	return 0;
}

static void on_response(void *ctx, const uint8_t *resp, size_t len, uint64_t t_ns,
			const xb_err *err)
{
	(void)t_ns;
	request *r = ctx;
	fixture *f = r->f;
	r->calls++;
	if (f->nlog < (int)(sizeof f->log / sizeof f->log[0]))
		f->log[f->nlog++] = r->id;
	unsigned in_flight = dap_client_in_flight(f->p.dap) + 1; /* with this one */
	if (in_flight > f->max_in_flight)
		f->max_in_flight = in_flight;
	if (err) {
		r->errors++;
		snprintf(r->err, sizeof r->err, "%s", err->msg);
		return;
	}
	xb_dap_transfer x[2] = {{ADI_REQ_TAR_WRITE, SCRATCH},
				{r->producer ? ADI_REQ_DRW_READ : ADI_REQ_DRW_WRITE, r->value}};
	size_t done;
	unsigned ack;
	xb_err e;
	assert_int_equal(dap_client_parse_transfer(f->p.dap, resp, len, x, 2, &done, &ack, &e), 0);
	assert_int_equal(ack, XB_ACK_OK);
	if (r->producer)
		r->read = x[1].value;
}

/* Queues n requests alternating between the producers: writes of 0x1000 + k, reads. */
static void queue_pairs(fixture *f, request *rq, int n)
{
	for (int i = 0; i < n; i++) {
		request *r = &rq[i];
		*r = (request){.f = f, .id = i, .producer = i & 1, .value = 0x1000u + (uint32_t)i / 2};
		uint8_t pkt[64];
		size_t len = tp_mem_packet(pkt, sizeof pkt, SCRATCH, !r->producer, r->value);
		xb_err err;
		assert_int_equal(dap_pipe_queue(f->pipe, pkt, len, on_response, r, &err), 0);
	}
}

/* The first n requests answered once, in order, each read finding the write just before
 * it. */
static void check_pairs(const fixture *f, const request *rq, int n)
{
	assert_true(f->nlog >= n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(f->log[i], i);
		assert_int_equal(rq[i].calls, 1);
		assert_int_equal(rq[i].errors, 0);
		if (rq[i].producer)
			assert_int_equal(rq[i].read, rq[i - 1].value);
	}
}

static void test_virtual_order_and_window(void **state)
{
	fixture *f = *state;
	xb_err err;
	f->pipe = dap_pipe_new(f->p.dap, 3, 64);
	assert_int_equal(dap_pipe_window(f->pipe), 3);
	assert_true(dap_pipe_idle(f->pipe));
	assert_int_equal(dap_pipe_fd(f->pipe), -1); /* in process: nothing to poll */
	request rq[NREQ];
	queue_pairs(f, rq, NREQ);
	assert_int_equal(dap_pipe_queued(f->pipe), NREQ);
	assert_int_equal(f->nlog, 0); /* queueing never runs anything */
	int total = 0, pumps = 0;
	while (!dap_pipe_idle(f->pipe) && pumps++ < 100) {
		int n = dap_pipe_pump(f->pipe, &err);
		assert_true(n > 0); /* the virtual probe always answers at once */
		total += n;
	}
	assert_int_equal(total, NREQ);
	assert_int_equal(f->nlog, NREQ);
	check_pairs(f, rq, NREQ);
	assert_int_equal(f->max_in_flight, 3); /* the window is used, never exceeded */
	/* Nothing more comes; the probe is idle for synchronous use again. */
	assert_int_equal(dap_pipe_pump(f->pipe, &err), 0);
	assert_int_equal(f->nlog, NREQ);
	adi_forget(f->p.adi);
	uint32_t v;
	assert_int_equal(adi_mem_read32(f->p.adi, SCRATCH, &v, &err), 0);
	assert_int_equal(v, 0x1000u + (NREQ - 1) / 2);
	/* A window above the probe's packet count is the packet count. */
	dap_pipe_free(f->pipe);
	f->pipe = dap_pipe_new(f->p.dap, 200, 0);
	assert_int_equal(dap_pipe_window(f->pipe), 8);
}

static void test_queue_limits(void **state)
{
	fixture *f = *state;
	xb_err err;
	f->pipe = dap_pipe_new(f->p.dap, 2, 4);
	request rq[8];
	queue_pairs(f, rq, 4);
	uint8_t pkt[64];
	size_t len = tp_mem_packet(pkt, sizeof pkt, SCRATCH, 0, 0);
	request extra = {.f = f, .id = 99, .producer = 1};
	assert_int_equal(dap_pipe_queue(f->pipe, pkt, len, on_response, &extra, &err), -1);
	assert_non_null(strstr(err.msg, "queue is full"));
	assert_int_equal(dap_pipe_queued(f->pipe), 4);
	/* requests that do not fit a packet */
	uint8_t big[80] = {0x05};
	assert_int_equal(dap_pipe_queue(f->pipe, big, sizeof big, on_response, &extra, &err), -1);
	assert_non_null(strstr(err.msg, "does not fit"));
	assert_int_equal(dap_pipe_queue(f->pipe, big, 0, on_response, &extra, &err), -1);
	assert_int_equal(dap_pipe_drain(f->pipe, &err), 0);
	assert_int_equal(f->nlog, 4);
	check_pairs(f, rq, 4);
	assert_int_equal(extra.calls, 0);
	/* Room again; a producer that goes away is forgotten: its queued requests are
	 * dropped, the others keep their order. */
	request a[4], b[4];
	for (int i = 0; i < 4; i++) {
		request *r = i < 2 ? &a[i] : &b[i - 2];
		*r = (request){.f = f, .id = 10 + i, .producer = 1};
		len = tp_mem_packet(pkt, sizeof pkt, SCRATCH, 0, 0);
		assert_int_equal(dap_pipe_queue(f->pipe, pkt, len, on_response, r, &err), 0);
	}
	dap_pipe_forget(f->pipe, &a[0]);
	assert_int_equal(dap_pipe_queued(f->pipe), 3);
	assert_int_equal(dap_pipe_drain(f->pipe, &err), 0);
	assert_int_equal(a[0].calls, 0);
	assert_int_equal(a[1].calls, 1);
	assert_int_equal(b[0].calls, 1);
	assert_int_equal(b[1].calls, 1);
	assert_int_equal(f->log[4], 11);
	assert_int_equal(f->log[5], 12);
	assert_int_equal(f->log[6], 13);
	/* Closing the pipe tells what is still queued. */
	request c = {.f = f, .id = 20, .producer = 1};
	assert_int_equal(dap_pipe_queue(f->pipe, pkt, len, on_response, &c, &err), 0);
	dap_pipe_free(f->pipe);
	f->pipe = NULL;
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.errors, 1);
	assert_non_null(strstr(c.err, "closed"));
}

/* Serves the server until the pipe has nothing in flight or queued (bounded). */
static int serve_and_pump(fixture *f, int *pumps)
{
	int total = 0;
	xb_err err;
	for (int i = 0; i < 10000 && !dap_pipe_idle(f->pipe); i++) {
		assert_true(dap_socket_service(f->srv, &err) >= 0);
		int n = dap_pipe_pump(f->pipe, &err);
		assert_true(n >= 0);
		assert_true(dap_pipe_in_flight(f->pipe) <= 3);
		total += n;
		(*pumps)++;
	}
	return total;
}

static void test_socket_order_and_window(void **state)
{
	fixture *f = *state;
	xb_err err;
	f->pipe = dap_pipe_new(f->p.dap, 3, 64);
	request rq[NREQ];
	queue_pairs(f, rq, NREQ);
	/* The first pump sends a window's worth; nothing has come back yet. */
	assert_int_equal(dap_pipe_pump(f->pipe, &err), 0);
	assert_int_equal(dap_pipe_in_flight(f->pipe), 3);
	assert_int_equal(dap_pipe_queued(f->pipe), NREQ - 3);
	assert_false(dap_pipe_ready(f->pipe));
	int fd = dap_pipe_fd(f->pipe);
	assert_true(fd >= 0);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	assert_int_equal(poll(&p, 1, 0), 0);
	/* The server answers: the descriptor says so, the pump delivers. */
	assert_int_equal(dap_socket_service(f->srv, &err), 3);
	assert_int_equal(poll(&p, 1, 1000), 1);
	assert_true(dap_pipe_ready(f->pipe));
	int pumps = 0;
	int total = serve_and_pump(f, &pumps);
	assert_int_equal(total, NREQ);
	assert_int_equal(f->nlog, NREQ);
	check_pairs(f, rq, NREQ);
	assert_true(pumps > NREQ / 3 / 2); /* it took several round trips */
	assert_int_equal(f->max_in_flight, 3);
	assert_int_equal(dap_pipe_fd(f->pipe), -1); /* nothing in flight */
}

static void test_socket_server_goes_away(void **state)
{
	fixture *f = *state;
	xb_err err;
	f->pipe = dap_pipe_new(f->p.dap, 3, 64);
	request rq[12];
	queue_pairs(f, rq, 12);
	assert_int_equal(dap_pipe_pump(f->pipe, &err), 0);
	assert_int_equal(dap_socket_service(f->srv, &err), 3);
	assert_int_equal(dap_pipe_pump(f->pipe, &err), 3);
	assert_int_equal(dap_pipe_in_flight(f->pipe), 3);
	/* The probe goes away with three packets in flight. */
	dap_socket_drop_client(f->srv);
	assert_false(dap_socket_connected(f->srv));
	uint64_t t0 = transport_wall_ns();
	assert_int_equal(dap_pipe_pump(f->pipe, &err), -1);
	uint64_t took = transport_wall_ns() - t0;
	assert_true(took < 200 * TP_MS); /* EOF is seen at once, not after the 2 s timeout */
	assert_non_null(strstr(err.msg, "closed the connection"));
	for (int i = 0; i < 12; i++) {
		assert_int_equal(rq[i].calls, 1);
		assert_int_equal(rq[i].errors, i >= 3);
		if (i >= 3)
			assert_non_null(strstr(rq[i].err, "closed the connection"));
	}
	check_pairs(f, rq, 3); /* the first three kept what they got */
	assert_int_equal(f->nlog, 12);
	/* Failed for good: the same error, no more callbacks. */
	xb_err again;
	assert_true(dap_pipe_failed(f->pipe, &again));
	assert_string_equal(again.msg, err.msg);
	assert_int_equal(dap_pipe_pump(f->pipe, &again), -1);
	uint8_t pkt[64];
	size_t len = tp_mem_packet(pkt, sizeof pkt, SCRATCH, 0, 0);
	request late = {.f = f, .id = 50, .producer = 1};
	assert_int_equal(dap_pipe_queue(f->pipe, pkt, len, on_response, &late, &again), -1);
	assert_int_equal(late.calls, 0);
	dap_pipe_free(f->pipe);
	f->pipe = NULL;
	assert_int_equal(f->nlog, 12);
	/* The probe says the same afterwards. */
	uint32_t v;
	assert_int_equal(adi_mem_read32(f->p.adi, SCRATCH, &v, &again), -1);
	assert_non_null(strstr(again.msg, "closed the connection"));
}

static void test_socket_answers_then_closes(void **state)
{
	fixture *f = *state;
	xb_err err;
	f->pipe = dap_pipe_new(f->p.dap, 3, 64);
	request rq[8];
	queue_pairs(f, rq, 8);
	assert_int_equal(dap_pipe_pump(f->pipe, &err), 0);
	/* The server answers the three, then goes away before the client reads them. */
	assert_int_equal(dap_socket_service(f->srv, &err), 3);
	dap_socket_drop_client(f->srv);
	uint64_t t0 = transport_wall_ns();
	int pumps = 0, delivered = 0, rc = 0;
	while (pumps++ < 10 && (rc = dap_pipe_pump(f->pipe, &err)) >= 0)
		delivered += rc;
	assert_int_equal(rc, -1);
	assert_true(transport_wall_ns() - t0 < 200 * TP_MS);
	assert_non_null(strstr(err.msg, "closed the connection"));
	/* Each request was told exactly once: the answers that were read, then errors. */
	int answered = 0;
	for (int i = 0; i < 8; i++) {
		assert_int_equal(rq[i].calls, 1);
		if (!rq[i].errors) {
			assert_int_equal(answered, i); /* in order, none after an error */
			answered++;
		}
	}
	assert_true(answered >= 1 && answered <= 3);
	assert_int_equal(f->nlog, 8);
	check_pairs(f, rq, answered & ~1);
	assert_true(delivered <= answered); /* the failing pump returned -1, not its count */
}

static void test_socket_timeout(void **state)
{
	fixture *f = *state;
	xb_err err;
	f->pipe = dap_pipe_new(f->p.dap, 2, 64);
	dap_pipe_set_timeout(f->pipe, 30);
	request rq[4];
	queue_pairs(f, rq, 4);
	/* The server never answers: the pipe gives up after its timeout, and says so. */
	uint64_t t0 = transport_wall_ns();
	int rc = 0;
	for (int i = 0; i < 1000 && rc >= 0; i++) {
		rc = dap_pipe_pump(f->pipe, &err);
		dap_pipe_wait(f->pipe, 10);
	}
	uint64_t took = transport_wall_ns() - t0;
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.msg, "no response within 30 ms"));
	assert_true(took >= 30 * TP_MS && took < 1000 * TP_MS);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(rq[i].calls, 1);
		assert_int_equal(rq[i].errors, 1);
	}
	/* The transport is unusable now: a late answer must not be taken for another. */
	uint32_t v;
	assert_int_equal(adi_mem_read32(f->p.adi, SCRATCH, &v, &err), -1);
	assert_non_null(strstr(err.msg, "no response within"));
}

static void test_socket_free_bounded(void **state)
{
	fixture *f = *state;
	f->pipe = dap_pipe_new(f->p.dap, 2, 64);
	dap_pipe_set_timeout(f->pipe, 30);
	request rq[4];
	queue_pairs(f, rq, 4);
	xb_err err;
	assert_int_equal(dap_pipe_pump(f->pipe, &err), 0);
	assert_int_equal(dap_pipe_in_flight(f->pipe), 2);
	/* Closing waits for what is in flight no longer than the timeout, then tells all. */
	uint64_t t0 = transport_wall_ns();
	dap_pipe_free(f->pipe);
	f->pipe = NULL;
	assert_true(transport_wall_ns() - t0 < 1000 * TP_MS);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(rq[i].calls, 1);
		assert_int_equal(rq[i].errors, 1);
		assert_non_null(strstr(rq[i].err, "closed"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_virtual_order_and_window, setup_virtual,
						teardown),
		cmocka_unit_test_setup_teardown(test_queue_limits, setup_virtual, teardown),
		cmocka_unit_test_setup_teardown(test_socket_order_and_window, setup_socket, teardown),
		cmocka_unit_test_setup_teardown(test_socket_server_goes_away, setup_socket, teardown),
		cmocka_unit_test_setup_teardown(test_socket_answers_then_closes, setup_socket,
						teardown),
		cmocka_unit_test_setup_teardown(test_socket_timeout, setup_socket, teardown),
		cmocka_unit_test_setup_teardown(test_socket_free_bounded, setup_socket, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
