/* test_probe_socket: the probe library through the Unix socket transport to the virtual
 * probe's socket server (sim/dap_socket.c) running in a thread: a whole session (info,
 * connect, memory, counters, PC sampling on the wall clock), a server that goes away
 * mid-session, and sockets that are missing, stale or not sockets; the transport's
 * readiness on a socketpair (partial, several, malformed frames, a closed peer); the
 * server adopted on a socketpair, paced to the board's time; a host that connects right
 * after the last one left.
 *
 * Run as `test_probe_socket --serve PATH [PROGRAM]` it is instead a small virtual Pico
 * serving its probe at PATH (tests/data/dap/PROGRAM running, spin by default) until it
 * gets SIGTERM or SIGINT, or 60 s pass: what tests/integration/test_probe_cli.sh uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../common/testdir.h"
#include "test_probe_common.h"

typedef struct server {
	vpico v;
	xb_dap_server *srv;
	pthread_t thread;
	volatile int stop;
	char path[108];
} server;

static void *server_main(void *arg)
{
	server *s = arg;
	while (!s->stop) {
		struct pollfd fds[2];
		int n = dap_socket_pollfds(s->srv, fds, 2);
		poll(fds, (nfds_t)n, 5);
		xb_err err;
		if (dap_socket_service(s->srv, &err) < 0) {
			fprintf(stderr, "server: %s\n", err.msg);
			break;
		}
	}
	return NULL;
}

static void server_start(server *s, const char *program)
{
	memset(s, 0, sizeof *s);
	vpico_init(&s->v, 0, NULL);
	if (program)
		vpico_run_program(&s->v, program, 100000);
	snprintf(s->path, sizeof s->path, "%s/probe.sock", test_dir);
	xb_err err;
	s->srv = dap_socket_open(s->path, s->v.dap, &err);
	assert_non_null(s->srv);
	assert_int_equal(pthread_create(&s->thread, NULL, server_main, s), 0);
}

/* Stops the thread and closes the server (the client's connection with it). */
static void server_stop(server *s)
{
	s->stop = 1;
	pthread_join(s->thread, NULL);
	dap_socket_close(s->srv);
	s->srv = NULL;
}

static void server_free(server *s)
{
	if (s->srv)
		server_stop(s);
	vpico_free(&s->v);
}

static void test_socket_session(void **state)
{
	(void)state;
	server s;
	server_start(&s, "spin");
	xb_err err;
	xb_probe p;
	xb_probe_options o = {.socket = s.path, .swclk_hz = TP_SWCLK};
	if (probe_open(&p, &o, &err))
		fail_msg("%s", err.msg);
	const xb_dap_info *i = dap_client_info(p.dap);
	assert_string_equal(i->product, "xipbench virtual probe (CMSIS-DAP)");
	assert_int_equal(i->packet_size, 64);
	assert_int_equal(i->packet_count, 8);
	assert_false(dap_client_transport(p.dap)->virtual_time);
	assert_non_null(strstr(dap_client_name(p.dap), s.path));
	assert_int_equal(adi_ids(p.adi)->dlpidr, 1);
	/* memory */
	uint32_t w[100], r[100];
	for (int k = 0; k < 100; k++)
		w[k] = 0xABC00000u + (uint32_t)k;
	assert_int_equal(adi_mem_write(p.adi, 0x20030000u, w, 100, &err), 0);
	assert_int_equal(adi_mem_read(p.adi, 0x20030000u, r, 100, &err), 0);
	assert_memory_equal(r, w, sizeof w);
	/* counters move as the program runs (it runs in the probe's virtual time) */
	xb_xip_counters c0, c1;
	assert_int_equal(rp2040_xip_counters(p.adi, &c0, &err), 0);
	assert_int_equal(dap_client_delay(p.dap, 1000, &err), 0);
	assert_int_equal(rp2040_xip_counters(p.adi, &c1, &err), 0);
	assert_true(c1.acc > c0.acc);
	/* sampling on the wall clock */
	xb_samples smp;
	samples_init(&smp);
	xb_sampler_config cfg = {.busy_seconds = 0.03};
	xb_sampler_stats st;
	assert_int_equal(sampler_run(p.adi, &cfg, &smp, &st, &err), 0);
	assert_false(st.virtual_time);
	assert_int_equal(st.per_block, 15);
	assert_true(st.samples >= 15);
	assert_true(st.busy_seconds >= 0.03);
	xb_image img;
	tp_image(&img, "spin");
	for (size_t k = 0; k < smp.n; k++)
		assert_non_null(image_function_at(&img, smp.s[k].pc));
	image_free(&img);
	print_message("# PC sampling through the socket: %.1f k samples/s of wall-clock time\n",
		      st.rate / 1000);
	samples_free(&smp);
	probe_close(&p);
	server_free(&s);
}

static void test_socket_closes_mid_session(void **state)
{
	(void)state;
	server s;
	server_start(&s, "spin");
	xb_err err;
	xb_probe p;
	xb_probe_options o = {.socket = s.path, .swclk_hz = TP_SWCLK};
	if (probe_open(&p, &o, &err))
		fail_msg("%s", err.msg);
	uint32_t v;
	assert_int_equal(adi_mem_read32(p.adi, CORTEXM_CPUID, &v, &err), 0);
	server_stop(&s);
	assert_int_equal(adi_mem_read32(p.adi, CORTEXM_CPUID, &v, &err), -1);
	assert_non_null(strstr(err.msg, "closed the connection"));
	assert_non_null(strstr(err.msg, s.path));
	assert_false(adi_connected(p.adi));
	/* The session stays failed with the same message; nothing hangs or crashes. */
	assert_int_equal(dap_client_delay(p.dap, 1, &err), -1);
	assert_non_null(strstr(err.msg, "closed the connection"));
	xb_samples smp;
	samples_init(&smp);
	xb_sampler_config cfg = {.busy_seconds = 0.01};
	assert_int_equal(sampler_run(p.adi, &cfg, &smp, NULL, &err), -1);
	assert_int_equal(smp.n, 0);
	samples_free(&smp);
	probe_close(&p);
	server_free(&s);
}

static void test_socket_paths(void **state)
{
	(void)state;
	xb_err err;
	char path[160];
	snprintf(path, sizeof path, "%s/none.sock", test_dir);
	assert_null(transport_socket_open(path, &err));
	assert_non_null(strstr(err.msg, "no such socket"));
	assert_non_null(strstr(err.msg, "sim serve --probe-socket"));
	/* a socket file nobody listens on */
	snprintf(path, sizeof path, "%s/stale.sock", test_dir);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	assert_true(strlen(path) < sizeof addr.sun_path);
	memcpy(addr.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
	close(fd);
	assert_null(transport_socket_open(path, &err));
	assert_non_null(strstr(err.msg, "nobody listens"));
	/* a listener that never answers: the client gives up after its timeout, and says so */
	snprintf(path, sizeof path, "%s/mute.sock", test_dir);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	memcpy(addr.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
	assert_int_equal(listen(fd, 1), 0);
	xb_transport *t = transport_socket_open(path, &err);
	assert_non_null(t);
	t->timeout_ms = 50;
	uint64_t t0 = transport_wall_ns();
	assert_null(dap_client_new(t, &err));
	assert_non_null(strstr(err.msg, "no response within 50 ms"));
	assert_true(transport_wall_ns() - t0 < 1000 * TP_MS);
	close(fd);
	/* a plain file */
	snprintf(path, sizeof path, "%s/plain", test_dir);
	FILE *fp = fopen(path, "w");
	fclose(fp);
	assert_null(transport_socket_open(path, &err));
	assert_non_null(strstr(err.msg, "not a socket"));
	xb_probe p;
	xb_probe_options o = {.socket = path};
	assert_int_equal(probe_open(&p, &o, &err), -1);
	assert_non_null(strstr(err.msg, "not a socket"));
}

/* ---- Readiness without blocking ---- */

static void write_all(int fd, const void *p, size_t n)
{
	assert_int_equal(write(fd, p, n), (ssize_t)n);
}

/* The framed request the peer received. */
static void read_request(int fd, const uint8_t *req, size_t len)
{
	uint8_t got[64];
	assert_true(len + 2 <= sizeof got);
	size_t have = 0;
	while (have < len + 2) {
		ssize_t n = read(fd, got + have, len + 2 - have);
		assert_true(n > 0);
		have += (size_t)n;
	}
	assert_int_equal(got[0] | got[1] << 8, len);
	assert_memory_equal(got + 2, req, len);
}

static void test_socket_ready(void **state)
{
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	xb_transport *t = transport_socket_adopt(sv[0], "a test peer");
	xb_err err;
	assert_int_equal(transport_fd(t), sv[0]);
	assert_string_equal(t->ops->kind, "socket");
	assert_int_equal(transport_ready(t, &err), 0); /* nothing in flight */
	const uint8_t req[3] = {0x00, 0xFE, 0x00};
	assert_int_equal(transport_submit(t, req, sizeof req, &err), 0);
	read_request(sv[1], req, sizeof req);
	/* A response of 4 bytes arrives in two parts: not ready until it is whole, and asking
	 * never waits. */
	const uint8_t frame[6] = {4, 0, 0xAA, 0xBB, 0xCC, 0xDD};
	write_all(sv[1], frame, 3);
	uint64_t t0 = transport_wall_ns();
	assert_int_equal(transport_ready(t, &err), 0);
	assert_int_equal(transport_ready(t, &err), 0);
	assert_true(transport_wall_ns() - t0 < 100 * TP_MS);
	write_all(sv[1], frame + 3, 3);
	assert_int_equal(transport_ready(t, &err), 1);
	uint8_t resp[TRANSPORT_PACKET_MAX];
	size_t len;
	assert_int_equal(transport_collect(t, resp, sizeof resp, &len, &err), 0);
	assert_int_equal(len, 4);
	assert_memory_equal(resp, frame + 2, 4);
	assert_int_equal(t->in_flight, 0);
	/* Two responses in one write: both buffered by the first ready. */
	assert_int_equal(transport_submit(t, req, 1, &err), 0);
	assert_int_equal(transport_submit(t, req, 2, &err), 0);
	read_request(sv[1], req, 1);
	read_request(sv[1], req, 2);
	const uint8_t two[] = {1, 0, 0x11, 2, 0, 0x22, 0x33};
	write_all(sv[1], two, sizeof two);
	assert_int_equal(transport_ready(t, &err), 1);
	assert_int_equal(transport_collect(t, resp, sizeof resp, &len, &err), 0);
	assert_int_equal(len, 1);
	assert_int_equal(resp[0], 0x11);
	assert_int_equal(transport_ready(t, &err), 1);
	assert_int_equal(transport_collect(t, resp, sizeof resp, &len, &err), 0);
	assert_int_equal(len, 2);
	assert_int_equal(resp[1], 0x33);
	/* A malformed frame breaks the transport, with a message that says so. */
	assert_int_equal(transport_submit(t, req, 1, &err), 0);
	read_request(sv[1], req, 1);
	const uint8_t zero[2] = {0, 0};
	write_all(sv[1], zero, 2);
	assert_int_equal(transport_ready(t, &err), -1);
	assert_non_null(strstr(err.msg, "malformed frame"));
	assert_non_null(strstr(err.msg, "a test peer"));
	assert_int_equal(transport_submit(t, req, 1, &err), -1);
	assert_non_null(strstr(err.msg, "malformed frame"));
	assert_int_equal(transport_fd(t), -1);
	transport_close(t);
	close(sv[1]);
	/* A peer that closes is seen at once, not after the timeout. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	t = transport_socket_adopt(sv[0], "a test peer");
	assert_int_equal(transport_submit(t, req, 1, &err), 0);
	close(sv[1]);
	t0 = transport_wall_ns();
	assert_int_equal(transport_ready(t, &err), -1);
	assert_non_null(strstr(err.msg, "closed the connection"));
	assert_int_equal(transport_collect(t, resp, sizeof resp, &len, &err), -1);
	assert_true(transport_wall_ns() - t0 < 100 * TP_MS);
	transport_close(t);
}

/* ---- The server on a socketpair, paced ---- */

/* Reads one framed response from fd into resp (what is there must be whole). */
static size_t read_response(int fd, uint8_t *resp)
{
	uint8_t hdr[2];
	assert_int_equal(read(fd, hdr, 2), 2);
	size_t len = hdr[0] | (size_t)hdr[1] << 8;
	assert_int_equal(read(fd, resp, len), (ssize_t)len);
	return len;
}

static int readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	return poll(&p, 1, 0) == 1;
}

/* Runs the board to at least cycle at. */
static void board_to(xb_board *b, uint64_t at)
{
	uint64_t now = board_cycles(b);
	if (at > now)
		board_run(b, at - now);
	assert_true(board_cycles(b) >= at);
}

static void test_paced_server(void **state)
{
	(void)state;
	vpico v;
	vpico_init(&v, 0, NULL);
	vpico_run_program(&v, "spin", 100000);
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	xb_dap_server *srv = dap_socket_adopt(sv[1], v.dap);
	assert_true(dap_socket_connected(srv));
	struct pollfd fds[2];
	assert_int_equal(dap_socket_pollfds(srv, fds, 2), 1); /* no listener */
	dap_socket_set_paced(srv, 1);
	assert_int_equal(dap_socket_next_due(srv), 0);
	xb_err err;
	/* The board ran ahead of the probe's clock (a pacer kept it on the wall clock). */
	board_to(v.b, board_cycles(v.b) + 1000000);
	uint64_t sent = board_cycles(v.b);
	const uint8_t info[4] = {2, 0, 0x00, 0xFF}; /* DAP_Info: packet size */
	write_all(sv[0], info, sizeof info);
	xb_dap_stats ds0, ds1;
	dap_stats(v.dap, &ds0);
	/* sent at the board's time; it reaches the probe 500 us later, not before */
	assert_int_equal(dap_socket_service(srv, &err), 0);
	uint64_t ms = board_cpu_hz(v.b) / 1000, arrive = dap_socket_next_due(srv);
	assert_true(arrive >= sent + ms / 2 && arrive <= sent + ms / 2 + 1);
	board_to(v.b, arrive - ms / 10);
	assert_int_equal(dap_socket_service(srv, &err), 0);
	dap_stats(v.dap, &ds1);
	assert_int_equal(ds1.packets, ds0.packets);
	board_to(v.b, arrive);
	assert_int_equal(dap_socket_service(srv, &err), 1);
	/* played; the answer is due after the way back (500 us) */
	uint64_t due = dap_socket_next_due(srv);
	assert_true(due >= sent + ms);
	assert_true(due < sent + 2 * ms);
	assert_false(readable(sv[0]));
	/* Not yet written while the board is short of it ... */
	board_to(v.b, due - ms / 10);
	assert_int_equal(dap_socket_service(srv, &err), 0);
	assert_false(readable(sv[0]));
	assert_int_equal(dap_socket_next_due(srv), due);
	/* ... written once it is there. */
	board_to(v.b, due);
	assert_int_equal(dap_socket_service(srv, &err), 0);
	assert_true(readable(sv[0]));
	uint8_t resp[64];
	assert_int_equal(read_response(sv[0], resp), 4);
	const uint8_t want[4] = {0x00, 0x02, 0x40, 0x00};
	assert_memory_equal(resp, want, 4);
	assert_int_equal(dap_socket_next_due(srv), 0);
	/* More frames than the probe's packet count: 8 are taken in, the others wait until
	 * responses are released (with the server's buffer full, it stops reading), and all
	 * come out in order. */
	for (int i = 0; i < 12; i++) {
		uint8_t delay[22] = {20, 0, 0x09, (uint8_t)(10 + i), 0}; /* DAP_Delay, padded */
		write_all(sv[0], delay, sizeof delay);
	}
	assert_int_equal(dap_socket_service(srv, &err), 0);
	assert_int_equal(dap_socket_pollfds(srv, fds, 2), 1);
	assert_false(fds[0].events & POLLIN);
	board_to(v.b, dap_socket_next_due(srv));
	assert_int_equal(dap_socket_service(srv, &err), 8);
	assert_int_equal(dap_in_flight(v.dap), 8);
	/* The board stands still (paused): however often the server is served, the probe
	 * does not run it on by itself, and no answer comes. */
	uint64_t still = board_cycles(v.b);
	for (int i = 0; i < 100; i++)
		assert_int_equal(dap_socket_service(srv, &err), 0);
	assert_int_equal(board_cycles(v.b), still);
	assert_false(readable(sv[0]));
	int got = 0, played = 8;
	for (int round = 0; round < 100 && got < 12; round++) {
		uint64_t next = dap_socket_next_due(srv);
		assert_true(next > 0);
		board_to(v.b, next);
		int n = dap_socket_service(srv, &err);
		assert_true(n >= 0);
		played += n;
		while (readable(sv[0])) {
			assert_int_equal(read_response(sv[0], resp), 2);
			assert_int_equal(resp[0], 0x09);
			got++;
		}
	}
	assert_int_equal(got, 12);
	assert_int_equal(played, 12);
	/* The client goes away: held frames and responses go with it; another one can be
	 * adopted. */
	write_all(sv[0], info, sizeof info);
	assert_int_equal(dap_socket_service(srv, &err), 0);
	board_to(v.b, dap_socket_next_due(srv));
	assert_int_equal(dap_socket_service(srv, &err), 1);
	write_all(sv[0], info, sizeof info);
	assert_int_equal(dap_socket_service(srv, &err), 0);
	assert_true(dap_socket_next_due(srv) > 0);
	dap_socket_drop_client(srv);
	assert_false(dap_socket_connected(srv));
	assert_int_equal(dap_socket_next_due(srv), 0);
	assert_int_equal(dap_in_flight(v.dap), 0);
	close(sv[0]);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(dap_socket_adopt_fd(srv, sv[1]), 0);
	assert_true(dap_socket_connected(srv));
	assert_int_equal(dap_socket_adopt_fd(srv, -1), -1);
	assert_false(dap_socket_connected(srv));
	dap_socket_close(srv);
	close(sv[0]);
	vpico_free(&v);
}

static void count_samples(void *ctx, uint32_t pc, uint32_t flags, uint64_t t_ns)
{
	(void)pc;
	(void)flags;
	(void)t_ns;
	(*(size_t *)ctx)++;
}

static void test_paced_client_cannot_drive(void **state)
{
	(void)state;
	vpico v;
	vpico_init(&v, 0, NULL);
	vpico_run_program(&v, "spin", 100000);
	xb_dap_server *srv;
	xb_transport *t = tp_socketpair(&v, &srv);
	/* 1 MHz SWCLK: a block of 15 reads keeps the probe busy for about 0.7 ms, longer than
	 * the USB delay of the 8 packets in flight together */
	xb_probe p;
	xb_probe_options o = {.swclk_hz = 1000000};
	xb_err err;
	assert_int_equal(probe_attach(&p, t, &o, &err), 0);
	xb_dap_pipe *pipe = dap_pipe_new(p.dap, 0, 0);
	size_t n = 0;
	xb_sampler_stream_config cfg = {.sink = count_samples, .sink_ctx = &n};
	xb_sampler_stream *st = sampler_stream_start(p.adi, pipe, &cfg, &err);
	assert_non_null(st);
	dap_socket_set_paced(srv, 1);
	/* The board stands still: the stream gets at most what the probe's own work lets
	 * through; it cannot run the board on by sending fast. */
	uint64_t b0 = board_cycles(v.b), ms = board_cpu_hz(v.b) / 1000;
	for (int i = 0; i < 2000; i++) {
		assert_true(dap_socket_service(srv, &err) >= 0);
		assert_true(sampler_stream_pump(st, &err) >= 0);
	}
	assert_true(board_cycles(v.b) - b0 < 10 * ms);
	assert_true(n <= 8 * 15);
	/* The board runs on (as a pacer would): the samples come at the model's pace. */
	uint64_t b1 = board_cycles(v.b);
	size_t n1 = n;
	for (int i = 0; i < 200; i++) {
		board_to(v.b, board_cycles(v.b) + ms / 4);
		assert_true(dap_socket_service(srv, &err) >= 0);
		assert_true(sampler_stream_pump(st, &err) >= 0);
	}
	double seconds = (double)(board_cycles(v.b) - b1) / board_cpu_hz(v.b);
	double rate = (double)(n - n1) / seconds;
	print_message("# paced, 1 MHz SWCLK: %.1f k samples/s of board time\n", rate / 1000);
	assert_true(rate > 5000 && rate < 30000);
	sampler_stream_stop(st);
	for (int i = 0; i < 1000 && !sampler_stream_done(st); i++) {
		board_to(v.b, board_cycles(v.b) + ms / 4);
		assert_true(dap_socket_service(srv, &err) >= 0);
		assert_true(sampler_stream_pump(st, &err) >= 0);
	}
	assert_true(sampler_stream_done(st));
	sampler_stream_free(st);
	dap_pipe_free(pipe);
	probe_close(&p);
	dap_socket_close(srv);
	vpico_free(&v);
}

/* A connection to the Unix socket at path. */
static int connect_to(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	memcpy(addr.sun_path, path, strlen(path) + 1);
	assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof addr), 0);
	return fd;
}

static void test_socket_next_host(void **state)
{
	(void)state;
	vpico v;
	vpico_init(&v, 0, NULL);
	char path[128];
	snprintf(path, sizeof path, "%s/next.sock", test_dir);
	xb_err err;
	xb_dap_server *srv = dap_socket_open(path, v.dap, &err);
	assert_non_null(srv);
	int a = connect_to(path);
	assert_int_equal(dap_socket_service(srv, &err), 0);
	assert_true(dap_socket_connected(srv));
	/* A second host while the first is there is turned away ... */
	int b = connect_to(path);
	assert_int_equal(dap_socket_service(srv, &err), 0);
	uint8_t byte;
	assert_int_equal(read(b, &byte, 1), 0);
	close(b);
	/* ... but one that comes right after the first left, before the server noticed, is
	 * served (the first had even sent a request it never waited for). */
	const uint8_t info[4] = {2, 0, 0x00, 0xFF};
	write_all(a, info, sizeof info);
	close(a);
	b = connect_to(path);
	write_all(b, info, sizeof info);
	assert_int_equal(dap_socket_service(srv, &err), 1);
	assert_true(dap_socket_connected(srv));
	uint8_t resp[64];
	assert_int_equal(read_response(b, resp), 4);
	assert_int_equal(resp[2], 0x40);
	close(b);
	dap_socket_close(srv);
	vpico_free(&v);
}

/* ---- Serve mode ---- */

static volatile sig_atomic_t serve_stop;

static void serve_signal(int sig)
{
	(void)sig;
	serve_stop = 1;
}

static int serve(const char *path, const char *program)
{
	vpico v;
	vpico_init(&v, 0, NULL);
	vpico_run_program(&v, program, 100000);
	xb_err err;
	xb_dap_server *srv = dap_socket_open(path, v.dap, &err);
	if (!srv) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	signal(SIGTERM, serve_signal);
	signal(SIGINT, serve_signal);
	uint64_t end = transport_wall_ns() + 60ull * 1000000000u;
	int rc = 0;
	while (!serve_stop && transport_wall_ns() < end) {
		struct pollfd fds[2];
		int n = dap_socket_pollfds(srv, fds, 2);
		poll(fds, (nfds_t)n, 50);
		if (dap_socket_service(srv, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			rc = 1;
			break;
		}
	}
	dap_socket_close(srv);
	vpico_free(&v);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "--serve") == 0)
		return serve(argv[2], argc >= 4 ? argv[3] : "spin");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_socket_session),
		cmocka_unit_test(test_socket_closes_mid_session),
		cmocka_unit_test(test_socket_paths),
		cmocka_unit_test(test_socket_ready),
		cmocka_unit_test(test_paced_server),
		cmocka_unit_test(test_socket_next_host),
		cmocka_unit_test(test_paced_client_cannot_drive),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
