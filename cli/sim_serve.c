/* sim_serve: `xipbench sim serve`: the virtual Pico in real time for host tools: the virtual
 * CMSIS-DAP probe on a Unix socket, a UDP socket on 127.0.0.1 forwarded to the board's UDP
 * echo service through the network peer, and the usbmon stream to a file or standard output.
 * Only loopback and Unix sockets: nothing else can reach it. */
#include "sim_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../core/util.h"
#include "../sim/dap.h"
#include "../sim/netpeer.h"
#include "../sim/realtime.h"
#include "../sim/swd.h"
#include "../sim/usbhost.h"
#include "../sim/usbmon.h"
#include "cli.h"
#include "load.h"

#define SERVE_CLIENTS 64        /* UDP clients remembered at once */
#define SERVE_PORT_BASE 40000u  /* the peer's source port for client i: base + i */
#define SERVE_MAX_FDS 3

typedef struct serve_client {
	struct sockaddr_in addr;
	uint64_t last_use; /* 0: free */
} serve_client;

typedef struct serve {
	const char *cmd;
	xb_pico *p;
	xb_board *b;
	xb_netpeer *np;
	uint16_t device_port;
	int udp_fd;
	xb_dap_server *dap_srv;
	FILE *info; /* messages: stdout, or stderr when the capture goes to stdout */
	int ready_told, stop_scheduled, failed;
	serve_client clients[SERVE_CLIENTS];
	uint64_t uses;
	uint64_t forwarded, returned, dropped, probe_packets;
} serve;

static volatile sig_atomic_t serve_signal;

static void serve_on_signal(int sig)
{
	serve_signal = sig;
}

/* ---- UDP: clients on 127.0.0.1 <-> the board's echo service ---- */

static int serve_udp_open(const char *cmd, uint16_t port, serve *s, uint16_t *bound)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cli_fail(cmd, "UDP socket: %s", strerror(errno));
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* loopback only */
	a.sin_port = htons(port);
	socklen_t len = sizeof a;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		int e = errno;
		close(fd);
		return cli_fail(cmd, "127.0.0.1:%u: %s", port, strerror(e));
	}
	s->udp_fd = fd;
	*bound = ntohs(a.sin_port);
	return XB_EXIT_OK;
}

static int serve_client_slot(serve *s, const struct sockaddr_in *from)
{
	int free_slot = -1, oldest = 0;
	for (int i = 0; i < SERVE_CLIENTS; i++) {
		serve_client *c = &s->clients[i];
		if (c->last_use && c->addr.sin_addr.s_addr == from->sin_addr.s_addr &&
		    c->addr.sin_port == from->sin_port) {
			c->last_use = ++s->uses;
			return i;
		}
		if (!c->last_use && free_slot < 0)
			free_slot = i;
		if (c->last_use < s->clients[oldest].last_use)
			oldest = i;
	}
	int i = free_slot >= 0 ? free_slot : oldest; /* the least recently used goes */
	s->clients[i].addr = *from;
	s->clients[i].last_use = ++s->uses;
	return i;
}

static void serve_udp_read(serve *s)
{
	uint8_t buf[65536];
	for (;;) {
		struct sockaddr_in from;
		socklen_t flen = sizeof from;
		ssize_t n = recvfrom(s->udp_fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen);
		if (n < 0)
			return; /* EAGAIN: nothing more */
		if (flen != sizeof from || from.sin_family != AF_INET) {
			s->dropped++;
			continue;
		}
		int slot = serve_client_slot(s, &from);
		if (netpeer_send_udp(s->np, (uint16_t)(SERVE_PORT_BASE + slot), s->device_port, buf,
				     (size_t)n) == 0)
			s->forwarded++;
		else
			s->dropped++; /* link down, too long for one frame, ARP queue full */
	}
}

/* The board's answer goes back to the client whose datagram it answers. */
static void serve_udp_reply(void *ctx, uint16_t sport, uint16_t dport, const uint8_t *data,
			    size_t len, uint64_t cycle)
{
	(void)cycle;
	serve *s = ctx;
	int slot = (int)dport - (int)SERVE_PORT_BASE;
	if (sport != s->device_port || slot < 0 || slot >= SERVE_CLIENTS ||
	    !s->clients[slot].last_use) {
		s->dropped++;
		return;
	}
	const struct sockaddr_in *to = &s->clients[slot].addr;
	if (sendto(s->udp_fd, data, len, 0, (const struct sockaddr *)to, sizeof *to) == (ssize_t)len)
		s->returned++;
	else
		s->dropped++;
}

/* ---- The poll loop between slices ---- */

static void serve_stop_event(xb_board *b, void *ctx)
{
	(void)ctx;
	board_stop(b);
}

static void serve_request_stop(serve *s)
{
	if (!s->stop_scheduled) {
		s->stop_scheduled = 1;
		board_schedule(s->b, 0, serve_stop_event, s); /* the next instruction boundary */
	}
}

static void serve_tell_ready(serve *s)
{
	if (s->ready_told || !netpeer_link(s->np) || !netpeer_device_mac(s->np))
		return;
	s->ready_told = 1;
	fprintf(s->info, "network        ready at %.3f ms of virtual time\n",
		(double)board_cycles(s->b) * 1000.0 / board_cpu_hz(s->b));
	fflush(s->info);
}

/* Waits up to timeout_ns (0: only looks) for the sockets and serves what is ready. */
static void serve_poll(serve *s, uint64_t timeout_ns)
{
	struct pollfd fds[SERVE_MAX_FDS];
	int n = 0, dap_first = 0, dap_n = 0;
	if (s->udp_fd >= 0) {
		fds[n].fd = s->udp_fd;
		fds[n].events = POLLIN;
		n++;
	}
	if (s->dap_srv) {
		dap_first = n;
		dap_n = dap_socket_pollfds(s->dap_srv, fds + n, SERVE_MAX_FDS - n);
		n += dap_n;
	}
	struct timespec ts = {.tv_sec = (time_t)(timeout_ns / 1000000000u),
			      .tv_nsec = (long)(timeout_ns % 1000000000u)};
	int r = ppoll(fds, (nfds_t)n, &ts, NULL);
	if (serve_signal)
		serve_request_stop(s);
	if (r <= 0)
		return;
	if (s->udp_fd >= 0 && fds[0].revents)
		serve_udp_read(s);
	int dap_ready = 0;
	for (int i = dap_first; i < dap_first + dap_n; i++)
		dap_ready |= fds[i].revents != 0;
	if (dap_ready) {
		xb_err err;
		int k = dap_socket_service(s->dap_srv, &err);
		if (k < 0) {
			cli_fail(s->cmd, "probe socket: %s", err.msg);
			s->failed = 1;
			serve_request_stop(s);
		} else {
			s->probe_packets += (uint64_t)k;
		}
	}
}

/* realtime.h's pacing with this clock: reading the clock serves the sockets that are ready,
 * and waiting for the next slice is waiting for the sockets. */
static uint64_t serve_now_ns(void *ctx)
{
	serve *s = ctx;
	serve_poll(s, 0);
	serve_tell_ready(s);
	return realtime_system_clock()->now_ns(NULL);
}

static void serve_sleep_ns(void *ctx, uint64_t ns)
{
	serve *s = ctx;
	const xb_clock *sys = realtime_system_clock();
	uint64_t end = sys->now_ns(NULL) + ns;
	for (uint64_t t = sys->now_ns(NULL); t < end && !serve_signal; t = sys->now_ns(NULL))
		serve_poll(s, end - t);
}

/* Runs until --seconds of virtual time have passed or a signal came. While the core is
 * halted (a debugger on the probe socket) time still passes, in paced slices. */
static void serve_loop(serve *s, uint64_t cycles, double speed)
{
	xb_clock clk = {serve_now_ns, serve_sleep_ns, s};
	uint64_t end = cycles > UINT64_MAX - board_cycles(s->b) ? UINT64_MAX
								 : board_cycles(s->b) + cycles;
	uint64_t slice = realtime_slice_cycles(s->p);
	uint64_t slice_ns = (uint64_t)((double)slice * 1e9 / board_cpu_hz(s->b) / speed);
	while (!serve_signal && !s->failed && board_cycles(s->b) < end) {
		uint64_t left = end - board_cycles(s->b);
		if (board_halted(s->b) || board_locked_up(s->b)) {
			serve_now_ns(s);
			serve_sleep_ns(s, slice_ns);
			board_run(s->b, left < slice ? left : slice);
			continue;
		}
		s->stop_scheduled = 0;
		realtime_run(s->p, left, speed, &clk);
	}
}

/* ---- The command ---- */

int sim_serve(const char *cmd, const sim_options *o)
{
	uint64_t at = 0;
	if (o->at && (xb_parse_u64(o->at, &at) || at > UINT32_MAX))
		return cli_usage_error(cmd, "--at needs a 32-bit address (got '%s')", o->at);
	double speed = 1.0, seconds = 0;
	if (o->speed && sim_parse_positive(o->speed, 1000, &speed))
		return cli_usage_error(cmd, "--speed needs a factor above 0 (got '%s')", o->speed);
	if (o->seconds && sim_parse_positive(o->seconds, 1e7, &seconds))
		return cli_usage_error(cmd, "--seconds needs a duration above 0 (got '%s')",
				       o->seconds);
	uint16_t port = 0;
	if (o->udp_port && sim_parse_port(o->udp_port, 1, &port))
		return cli_usage_error(cmd, "--udp-port needs a port from 0 to 65535 (got '%s')",
				       o->udp_port);
	xb_netpeer_options po;
	netpeer_options_init(&po);
	if (o->peer_ip && sim_parse_ipv4(o->peer_ip, po.ip))
		return cli_usage_error(cmd, "--peer-ip needs an IPv4 address (got '%s')", o->peer_ip);
	if (o->device_ip && sim_parse_ipv4(o->device_ip, po.device_ip))
		return cli_usage_error(cmd, "--device-ip needs an IPv4 address (got '%s')",
				       o->device_ip);
	int pcap_stdout = o->pcap && strcmp(o->pcap, "-") == 0;
	if (pcap_stdout && o->uart && strcmp(o->uart, "-") == 0)
		return cli_usage_error(cmd, "--pcap - and --uart - cannot both use standard output");
	const uint16_t device_port = 7; /* the echo service (RFC 862) */
	xb_target t;
	if (cli_load_target(cmd, o->target, &t))
		return XB_EXIT_FAIL;

	static serve S;
	serve *s = &S;
	memset(s, 0, sizeof *s);
	s->cmd = cmd;
	s->udp_fd = -1;
	s->device_port = device_port;
	s->info = pcap_stdout ? stderr : stdout;
	int rc = XB_EXIT_OK;
	FILE *uart = NULL, *pcap = NULL;
	if (o->uart)
		uart = strcmp(o->uart, "-") == 0 ? stdout : fopen(o->uart, "wb");
	if (o->uart && !uart)
		return cli_fail(cmd, "%s: cannot write the UART output: %s", o->uart, strerror(errno));
	if (o->pcap)
		pcap = pcap_stdout ? stdout : fopen(o->pcap, "wb");
	if (o->pcap && !pcap) {
		rc = cli_fail(cmd, "%s: cannot write the capture: %s", o->pcap, strerror(errno));
		if (uart && uart != stdout)
			fclose(uart);
		return rc;
	}

	xb_pico_options pio;
	pico_options_init(&pio);
	pio.strict = o->strict;
	pio.uart_file = uart;
	xb_err err;
	s->p = pico_new(&t, &pio, &err);
	if (!s->p)
		rc = cli_fail(cmd, "%s", err.msg);
	else if (pico_load_file(s->p, o->image, o->format, (uint32_t)at, NULL, &err))
		rc = cli_fail(cmd, "%s", err.msg);
	xb_usbmon *mon = NULL;
	xb_usbhost *h = NULL;
	xb_swd *swd = NULL;
	xb_dap *dap = NULL;
	uint16_t bound = 0;
	if (rc == XB_EXIT_OK) {
		s->b = pico_board(s->p);
		mon = usbmon_new(pcap, NULL);
		h = usbhost_new(s->b, pico_usb(s->p), NULL);
		usbhost_set_monitor(h, mon);
		po.udp = serve_udp_reply;
		po.udp_ctx = s;
		s->np = netpeer_new_ecm(s->b, h, NULL, &po);
		if (o->udp_port)
			rc = serve_udp_open(cmd, port, s, &bound);
	}
	if (rc == XB_EXIT_OK && o->probe_socket) {
		swd = swd_new(s->b);
		dap = dap_new(swd, NULL);
		s->dap_srv = dap_socket_open(o->probe_socket, dap, &err);
		if (!s->dap_srv)
			rc = cli_fail(cmd, "%s", err.msg);
	}
	if (rc == XB_EXIT_OK) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = serve_on_signal; /* no SA_RESTART: ppoll returns at once */
		sigemptyset(&sa.sa_mask);
		serve_signal = 0;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		signal(SIGPIPE, SIG_IGN); /* a reader that goes away is an error, not death */
		fprintf(s->info, "serve          %s on the virtual Pico in real time%s\n", o->image,
			seconds > 0 ? "" : " (SIGINT or SIGTERM ends it)");
		if (s->udp_fd >= 0)
			fprintf(s->info, "udp            127.0.0.1:%u -> %u.%u.%u.%u:%u\n", bound,
				po.device_ip[0], po.device_ip[1], po.device_ip[2], po.device_ip[3],
				device_port);
		if (s->dap_srv)
			fprintf(s->info, "probe          %s\n", o->probe_socket);
		if (o->pcap)
			fprintf(s->info, "pcap           %s\n", pcap_stdout ? "standard output" : o->pcap);
		fflush(s->info);
		uint64_t cycles = seconds > 0 ? (uint64_t)(seconds * board_cpu_hz(s->b) + 0.5)
					      : UINT64_MAX;
		serve_loop(s, cycles, speed);
		if (s->failed)
			rc = XB_EXIT_FAIL;
		fprintf(s->info,
			"stopped        %s after %.3f s of virtual time\n"
			"udp            %llu forwarded, %llu replies returned, %llu dropped\n"
			"probe          %llu packets\n",
			serve_signal == SIGINT ? "by SIGINT" : serve_signal == SIGTERM ? "by SIGTERM"
			: s->failed ? "by an error" : "as asked",
			(double)board_cycles(s->b) / board_cpu_hz(s->b),
			(unsigned long long)s->forwarded, (unsigned long long)s->returned,
			(unsigned long long)s->dropped, (unsigned long long)s->probe_packets);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
	}
	if (s->dap_srv)
		dap_socket_close(s->dap_srv);
	dap_free(dap);
	swd_free(swd);
	netpeer_free(s->np);
	usbhost_free(h);
	if (mon && usbmon_write_failed(mon) && rc == XB_EXIT_OK && !pcap_stdout)
		rc = cli_fail(cmd, "%s: cannot write the capture", o->pcap);
	usbmon_free(mon);
	pico_free(s->p);
	if (s->udp_fd >= 0)
		close(s->udp_fd);
	if (pcap && pcap != stdout && fclose(pcap) != 0 && rc == XB_EXIT_OK)
		rc = cli_fail(cmd, "%s: cannot write the capture", o->pcap);
	if (uart && uart != stdout)
		fclose(uart);
	fflush(stdout);
	return rc;
}
