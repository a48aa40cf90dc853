/* sim_serve: `xipbench sim serve`: the virtual Pico in real time for host tools, as a client
 * of a live session on the virtual bench (session/session.h): the virtual CMSIS-DAP probe on
 * a Unix socket, a UDP socket on 127.0.0.1 forwarded to the board's UDP echo service
 * through the bench's network, the usbmon stream to a file or standard output, and the
 * virtual host's Ethernet on a TAP interface inside a network namespace (sim/tap.h). Only
 * loopback, Unix sockets and that namespace: nothing else can reach it. */
#include "sim_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../core/util.h"
#include "../session/session.h"
#include "../sim/tap.h"
#include "cli.h"
#include "load.h"

#define SERVE_CLIENTS 64        /* UDP clients remembered at once */
#define SERVE_PORT_BASE 40000u  /* the host's source port for client i: base + i */
#define SERVE_DEVICE_PORT 7u    /* the echo service (RFC 862) */
#define SERVE_REPLIES 64
#define SERVE_MAX_FDS 8

typedef struct serve_client {
	struct sockaddr_in addr;
	uint64_t last_use; /* 0: free */
} serve_client;

typedef struct serve {
	const char *cmd;
	xb_session *s;
	xb_bench *bench;
	int udp_fd;
	FILE *info; /* messages: stdout, or stderr when the capture goes to stdout */
	serve_client clients[SERVE_CLIENTS];
	uint64_t uses;
	uint64_t forwarded, returned, dropped;
	/* the TAP */
	xb_tap *tap;
	char netns[64];  /* the namespace it is in */
	int netns_made;  /* --netns-create: ours, deleted at the end */
	uint8_t tap_ip[4];
	unsigned tap_prefix;
} serve;

static volatile sig_atomic_t serve_signal;

static void serve_on_signal(int sig)
{
	serve_signal = sig;
}

/* ---- UDP: clients on 127.0.0.1 <-> the board's echo service ---- */

static int serve_udp_open(const char *cmd, uint16_t port, serve *v, uint16_t *bound)
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
	v->udp_fd = fd;
	*bound = ntohs(a.sin_port);
	return XB_EXIT_OK;
}

static int serve_client_slot(serve *v, const struct sockaddr_in *from)
{
	int free_slot = -1, oldest = 0;
	for (int i = 0; i < SERVE_CLIENTS; i++) {
		serve_client *c = &v->clients[i];
		if (c->last_use && c->addr.sin_addr.s_addr == from->sin_addr.s_addr &&
		    c->addr.sin_port == from->sin_port) {
			c->last_use = ++v->uses;
			return i;
		}
		if (!c->last_use && free_slot < 0)
			free_slot = i;
		if (c->last_use < v->clients[oldest].last_use)
			oldest = i;
	}
	int i = free_slot >= 0 ? free_slot : oldest; /* the least recently used goes */
	v->clients[i].addr = *from;
	v->clients[i].last_use = ++v->uses;
	return i;
}

static void serve_udp_read(serve *v)
{
	uint8_t buf[65536];
	for (;;) {
		struct sockaddr_in from;
		socklen_t flen = sizeof from;
		ssize_t n = recvfrom(v->udp_fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen);
		if (n < 0)
			return; /* EAGAIN: nothing more */
		if (flen != sizeof from || from.sin_family != AF_INET) {
			v->dropped++;
			continue;
		}
		int slot = serve_client_slot(v, &from);
		if (v->bench->ops->send_udp(v->bench, 0, (uint16_t)(SERVE_PORT_BASE + slot),
					    SERVE_DEVICE_PORT, buf, (size_t)n, NULL) == 0)
			v->forwarded++;
		else
			v->dropped++; /* too long for one frame, the bench not keeping up */
	}
}

/* The board's answers go back to the clients whose datagrams they answer. */
static void serve_udp_replies(serve *v)
{
	xb_bench_reply r[SERVE_REPLIES];
	size_t n;
	while ((n = v->bench->ops->read_replies(v->bench, r, SERVE_REPLIES)) > 0)
		for (size_t i = 0; i < n; i++) {
			int slot = (int)r[i].dport - (int)SERVE_PORT_BASE;
			if (r[i].kind != 2 || slot < 0 || slot >= SERVE_CLIENTS)
				continue; /* not for a client: another station's (the TAP's) */
			if (r[i].sport != SERVE_DEVICE_PORT || !v->clients[slot].last_use ||
			    v->udp_fd < 0) {
				v->dropped++;
				continue;
			}
			const struct sockaddr_in *to = &v->clients[slot].addr;
			const uint8_t *data = r[i].full ? r[i].full : r[i].data;
			if (sendto(v->udp_fd, data, r[i].len, 0, (const struct sockaddr *)to, sizeof *to) ==
			    (ssize_t)r[i].len)
				v->returned++;
			else
				v->dropped++;
		}
}

/* ---- The TAP ---- */

/* "ADDR" or "ADDR/LEN" (LEN 1 to 30; 24 when left out). */
static int serve_parse_cidr(const char *s, uint8_t ip[4], unsigned *prefix)
{
	char addr[64];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	if (n >= sizeof addr)
		return -1;
	memcpy(addr, s, n);
	addr[n] = 0;
	*prefix = 24;
	if (slash) {
		char *end;
		long p = strtol(slash + 1, &end, 10);
		if (end == slash + 1 || *end || p < 1 || p > 30)
			return -1;
		*prefix = (unsigned)p;
	}
	return xb_parse_ipv4(addr, ip);
}

static int same_subnet(const uint8_t a[4], const uint8_t b[4], unsigned prefix)
{
	uint32_t x = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
	uint32_t y = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	uint32_t m = 0xFFFFFFFFu << (32 - prefix);
	return (x & m) == (y & m);
}

/* The TAP goes beside the peer of the virtual bench the session makes. */
static void serve_tap_hook(void *ctx, xb_vbench *v)
{
	tap_attach(ctx, v);
}

/* Checks the TAP options and makes the namespace (--netns-create) and the interface. */
static int serve_tap_open(const char *cmd, const sim_options *o, const uint8_t peer_ip[4],
			  const uint8_t device_ip[4], serve *v)
{
	if (!o->tap) {
		if (o->netns || o->netns_create || o->tap_ip)
			return cli_usage_error(cmd, "--netns, --netns-create and --tap-ip go with --tap");
		return XB_EXIT_OK;
	}
	if (!o->netns == !o->netns_create)
		return cli_usage_error(cmd, "--tap needs a network namespace: --netns NS (one that "
				       "exists, not the host's own) or --netns-create");
	memcpy(v->tap_ip, peer_ip, 4);
	v->tap_prefix = 24;
	if (o->tap_ip && serve_parse_cidr(o->tap_ip, v->tap_ip, &v->tap_prefix))
		return cli_usage_error(cmd, "--tap-ip needs ADDR or ADDR/LEN with LEN 1 to 30 (got '%s')",
				       o->tap_ip);
	if (memcmp(v->tap_ip, device_ip, 4) == 0 || !same_subnet(v->tap_ip, device_ip, v->tap_prefix))
		return cli_usage_error(cmd, "the TAP's address %s must be another host of the device's "
				       "subnet (the device is at %u.%u.%u.%u)",
				       o->tap_ip ? o->tap_ip : "(the peer's)", device_ip[0], device_ip[1],
				       device_ip[2], device_ip[3]);
	xb_err err;
	if (o->netns_create) {
		snprintf(v->netns, sizeof v->netns, "xipbench-%ld", (long)getpid());
		if (tap_netns_create(v->netns, &err))
			return cli_fail(cmd, "%s", err.msg);
		v->netns_made = 1;
	} else {
		snprintf(v->netns, sizeof v->netns, "%s", o->netns);
	}
	xb_tap_options to = {.name = o->tap, .netns = o->netns ? o->netns : v->netns,
			     .prefix = v->tap_prefix};
	memcpy(to.ip, v->tap_ip, 4);
	if (!(v->tap = tap_open(&to, &err)))
		return cli_fail(cmd, "%s", err.msg);
	return XB_EXIT_OK;
}

/* After the session: the interface, then the namespace if it is ours. */
static void serve_tap_close(const char *cmd, serve *v)
{
	tap_close(v->tap);
	v->tap = NULL;
	xb_err err;
	if (v->netns_made && tap_netns_delete(v->netns, &err))
		cli_fail(cmd, "%s", err.msg);
	v->netns_made = 0;
}

/* ---- The loop ---- */

/* Runs until --seconds of virtual time have passed or a signal came. */
static int serve_loop(serve *v, double seconds)
{
	int told = 0;
	for (;;) {
		if (serve_signal)
			return XB_EXIT_OK;
		if (session_pump(v->s) != 0)
			return cli_fail(v->cmd, "%s", session_status(v->s)->msg);
		serve_udp_replies(v);
		xb_bench_state st;
		session_bench_state(v->s, &st);
		if (!told && st.net_ready) {
			told = 1;
			fprintf(v->info, "network        ready at %.3f ms of virtual time\n",
				(double)st.now_ns / 1e6);
			fflush(v->info);
		}
		if (seconds > 0 && (double)st.now_ns >= seconds * 1e9)
			return XB_EXIT_OK;
		struct pollfd fds[SERVE_MAX_FDS];
		int n = session_pollfds(v->s, fds, SERVE_MAX_FDS - 1);
		int udp_at = -1;
		if (v->udp_fd >= 0) {
			udp_at = n;
			fds[n++] = (struct pollfd){.fd = v->udp_fd, .events = POLLIN};
		}
		int ms = session_timeout_ms(v->s);
		if (ms > 10)
			ms = 10; /* replies and the stop time are looked at often */
		if (poll(fds, (nfds_t)n, ms) > 0 && udp_at >= 0 && fds[udp_at].revents)
			serve_udp_read(v);
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
	xb_netpeer_options addr; /* the defaults for the addresses not given */
	netpeer_options_init(&addr);
	int rc = sim_parse_addresses(cmd, o, &addr);
	if (rc != XB_EXIT_OK)
		return rc;
	const uint8_t *peer_ip = addr.ip, *device_ip = addr.device_ip;
	int pcap_stdout = o->pcap && strcmp(o->pcap, "-") == 0;
	if (pcap_stdout && o->uart && strcmp(o->uart, "-") == 0)
		return cli_usage_error(cmd, "--pcap - and --uart - cannot both use standard output");
	xb_target t;
	if (cli_load_target(cmd, o->target, &t))
		return XB_EXIT_FAIL;

	serve v;
	memset(&v, 0, sizeof v);
	v.cmd = cmd;
	v.udp_fd = -1;
	v.info = pcap_stdout ? stderr : stdout;
	rc = serve_tap_open(cmd, o, peer_ip, device_ip, &v);
	if (rc != XB_EXIT_OK) {
		serve_tap_close(cmd, &v);
		return rc;
	}
	FILE *uart = NULL, *pcap = NULL;
	if (o->uart)
		uart = strcmp(o->uart, "-") == 0 ? stdout : fopen(o->uart, "wb");
	if (o->uart && !uart) {
		rc = cli_fail(cmd, "%s: cannot write the UART output: %s", o->uart, strerror(errno));
		serve_tap_close(cmd, &v);
		return rc;
	}
	if (o->pcap)
		pcap = pcap_stdout ? stdout : fopen(o->pcap, "wb");
	if (o->pcap && !pcap) {
		rc = cli_fail(cmd, "%s: cannot write the capture: %s", o->pcap, strerror(errno));
		if (uart && uart != stdout)
			fclose(uart);
		serve_tap_close(cmd, &v);
		return rc;
	}
	uint16_t bound = 0;
	if (o->udp_port)
		rc = serve_udp_open(cmd, port, &v, &bound);
	if (rc == XB_EXIT_OK) {
		xb_session_options so;
		session_options_init(&so);
		so.tg = &t;
		so.attach = 0; /* the probe is the host tools' */
		so.sample = 0;
		so.counters_ns = 0;
		so.idle_seconds = 0;
		so.ping_rate = so.udp_rate = 0;
		so.bringup_s = 3600;
		so.virt.speed = speed;
		so.virt.load = o->image;
		so.virt.load_format = o->format;
		so.virt.load_at = (uint32_t)at;
		so.virt.strict = o->strict;
		so.virt.pcap = pcap;
		so.virt.uart = uart;
		so.virt.probe_socket = o->probe_socket;
		so.virt.peer_ip = peer_ip;
		so.virt.device_ip = o->device_ip ? device_ip : NULL;
		so.virt.netmask = o->netmask ? addr.netmask : NULL;
		so.virt.dhcp = o->dhcp;
		so.virt.reply_keep = 1472;
		xb_report rep;
		if (v.tap)
			vbench_hook_next(serve_tap_hook, v.tap);
		if (!(v.s = session_open(&so, &rep)))
			rc = cli_fail(cmd, "%s", rep.msg);
		vbench_hook_next(NULL, NULL); /* unused if the session failed before its bench */
	}
	if (rc == XB_EXIT_OK) {
		v.bench = session_bench(v.s);
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = serve_on_signal; /* no SA_RESTART: poll returns at once */
		sigemptyset(&sa.sa_mask);
		serve_signal = 0;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		signal(SIGPIPE, SIG_IGN); /* a reader that goes away is an error, not death */
		fprintf(v.info, "serve          %s on the virtual Pico in real time%s\n", o->image,
			seconds > 0 ? "" : " (SIGINT or SIGTERM ends it)");
		if (v.udp_fd >= 0)
			fprintf(v.info, "udp            127.0.0.1:%u -> %u.%u.%u.%u:%u\n", bound,
				device_ip[0], device_ip[1], device_ip[2], device_ip[3], SERVE_DEVICE_PORT);
		if (v.tap)
			fprintf(v.info, "tap            %s in network namespace %s%s, %u.%u.%u.%u/%u "
				"(the device at %u.%u.%u.%u)\n", o->tap, v.netns,
				v.netns_made ? " (made for this run)" : "", v.tap_ip[0], v.tap_ip[1],
				v.tap_ip[2], v.tap_ip[3], v.tap_prefix, device_ip[0], device_ip[1],
				device_ip[2], device_ip[3]);
		if (o->probe_socket)
			fprintf(v.info, "probe          %s\n", o->probe_socket);
		if (o->pcap)
			fprintf(v.info, "pcap           %s\n", pcap_stdout ? "standard output" : o->pcap);
		fflush(v.info);
		rc = serve_loop(&v, seconds);
		xb_bench_state st;
		session_bench_state(v.s, &st);
		fprintf(v.info,
			"stopped        %s after %.3f s of virtual time\n"
			"udp            %llu forwarded, %llu replies returned, %llu dropped\n"
			"probe          %llu packets\n",
			serve_signal == SIGINT ? "by SIGINT" : serve_signal == SIGTERM ? "by SIGTERM"
			: rc ? "by an error" : "as asked",
			(double)st.now_ns / 1e9, (unsigned long long)v.forwarded,
			(unsigned long long)v.returned, (unsigned long long)v.dropped,
			(unsigned long long)st.probe_packets);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
	}
	session_close(v.s); /* stops the board: the capture and the UART are complete */
	if (v.tap && v.s) {
		xb_tap_stats ts;
		tap_stats(v.tap, &ts);
		fprintf(v.info, "tap            %llu frames to the board, %llu from it, %llu dropped\n",
			(unsigned long long)ts.to_device, (unsigned long long)ts.from_device,
			(unsigned long long)(ts.dropped + ts.write_errors));
	}
	serve_tap_close(cmd, &v);
	if (v.udp_fd >= 0)
		close(v.udp_fd);
	if (pcap && pcap != stdout && fclose(pcap) != 0 && rc == XB_EXIT_OK)
		rc = cli_fail(cmd, "%s: cannot write the capture", o->pcap);
	else if (pcap == stdout && fflush(stdout) != 0 && rc == XB_EXIT_OK)
		rc = XB_EXIT_FAIL;
	if (uart && uart != stdout)
		fclose(uart);
	fflush(stdout);
	return rc;
}
