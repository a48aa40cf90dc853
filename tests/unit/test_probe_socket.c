/* test_probe_socket: the probe library through the Unix socket transport to the virtual
 * probe's socket server (sim/dap_socket.c) running in a thread: a whole session (info,
 * connect, memory, counters, PC sampling on the wall clock), a server that goes away
 * mid-session, and sockets that are missing, stale or not sockets.
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
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
