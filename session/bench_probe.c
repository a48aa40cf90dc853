/* bench_probe: a real board as a bench: its CMSIS-DAP probe (USB, or the virtual probe of
 * `sim serve --probe-socket`), the usbmon capture of its USB bus when there is one, and
 * echo traffic through ordinary sockets (UDP, and ICMP through a ping socket when the
 * system allows it). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../capture/source.h"
#include "bench.h"

static const xb_bench_ops bench_probe_ops;

#define PB_REPLIES 1024u

typedef struct bench_probe {
	xb_bench base;
	xb_probe_bench_options o;
	char *serial, *socket_path, *capture_name;
	xb_capture_source *cap;
	int cap_failed;
	int udp_fd, icmp_fd;
	struct sockaddr_in udp_to, icmp_to;
	uint16_t udp_local_port;
	char net[96];
} bench_probe;

static bench_probe *P(xb_bench *b)
{
	return (bench_probe *)b;
}

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static xb_transport *pb_connect_probe(xb_bench *b, xb_report *rep)
{
	bench_probe *p = P(b);
	xb_err err;
	xb_transport *t = p->socket_path ? transport_socket_open(p->socket_path, &err)
					 : transport_usb_open(p->serial, &err);
	if (!t)
		report_err(rep, XB_STATUS_PROBE_GONE, &err);
	return t;
}

static int pb_read_records(xb_bench *b, void (*fn)(void *ctx, const xb_usbrec *r), void *ctx,
			   xb_report *rep)
{
	bench_probe *p = P(b);
	if (!p->cap || p->cap_failed)
		return 0;
	int n = 0;
	for (;;) {
		int fd = capture_fd(p->cap);
		if (fd >= 0) {
			struct pollfd pf = {.fd = fd, .events = POLLIN};
			if (poll(&pf, 1, 0) <= 0)
				break; /* nothing waiting: a read now could block */
		}
		xb_capture_record rec;
		xb_err err;
		int r = capture_next(p->cap, &rec, &err);
		if (r == XB_CAPTURE_AGAIN)
			break;
		if (r == XB_CAPTURE_END) {
			p->cap_failed = 1;
			report_fail(rep, XB_STATUS_CAPTURE_FAILED, "%s: the capture ended",
				    p->capture_name);
			return n ? n : -1;
		}
		if (r == XB_CAPTURE_ERROR) {
			p->cap_failed = 1;
			report_err(rep, XB_STATUS_CAPTURE_FAILED, &err);
			return n ? n : -1;
		}
		xb_usbrec u;
		if (usbrec_parse(&u, &rec, NULL) == 0) {
			fn(ctx, &u);
			n++;
		}
		if (n >= 4096)
			break; /* let the caller's loop breathe */
	}
	return n;
}

static int pb_send_ping(xb_bench *b, uint64_t at_ns, uint16_t id, uint16_t seq,
			const uint8_t *data, size_t len, xb_report *rep)
{
	(void)at_ns;
	bench_probe *p = P(b);
	if (p->icmp_fd < 0)
		return report_fail(rep, XB_STATUS_TRAFFIC_FAILED,
				   "pings cannot be sent: this user may not open ICMP sockets "
				   "(sysctl net.ipv4.ping_group_range) and is not root");
	uint8_t pkt[8 + 1472];
	if (len > sizeof pkt - 8)
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "ping of %zu bytes is too long", len);
	struct icmphdr *h = (struct icmphdr *)pkt;
	memset(h, 0, sizeof *h);
	h->type = ICMP_ECHO;
	h->un.echo.id = htons(id);
	h->un.echo.sequence = htons(seq);
	memcpy(pkt + 8, data, len);
	if (sendto(p->icmp_fd, pkt, 8 + len, MSG_DONTWAIT, (struct sockaddr *)&p->icmp_to,
		   sizeof p->icmp_to) < 0)
		return report_fail(rep, XB_STATUS_TRAFFIC_FAILED, "ping to %s: %s",
				   inet_ntoa(p->icmp_to.sin_addr), strerror(errno));
	return 0;
}

static int pb_send_udp(xb_bench *b, uint64_t at_ns, uint16_t sport, uint16_t dport,
		       const uint8_t *data, size_t len, xb_report *rep)
{
	(void)at_ns;
	(void)sport; /* the socket's own port */
	(void)dport;
	bench_probe *p = P(b);
	if (p->udp_fd < 0)
		return report_fail(rep, XB_STATUS_TRAFFIC_FAILED, "no UDP socket");
	if (send(p->udp_fd, data, len, MSG_DONTWAIT) < 0 && errno != EAGAIN)
		return report_fail(rep, XB_STATUS_TRAFFIC_FAILED, "UDP to %s:%u: %s",
				   inet_ntoa(p->udp_to.sin_addr), ntohs(p->udp_to.sin_port),
				   strerror(errno));
	return 0;
}

static size_t pb_read_replies(xb_bench *b, xb_bench_reply *out, size_t max)
{
	bench_probe *p = P(b);
	size_t n = 0;
	uint8_t buf[2048];
	while (n < max && p->udp_fd >= 0) {
		ssize_t k = recv(p->udp_fd, buf, sizeof buf, MSG_DONTWAIT);
		if (k < 0)
			break;
		xb_bench_reply *r = &out[n++];
		memset(r, 0, sizeof *r);
		r->kind = 2;
		r->sport = ntohs(p->udp_to.sin_port);
		r->dport = p->udp_local_port;
		r->len = (uint32_t)k;
		memcpy(r->data, buf, (size_t)k < sizeof r->data ? (size_t)k : sizeof r->data);
		r->t_ns = mono_ns();
	}
	while (n < max && p->icmp_fd >= 0) {
		ssize_t k = recv(p->icmp_fd, buf, sizeof buf, MSG_DONTWAIT);
		if (k < 8)
			break;
		const uint8_t *icmp = buf;
		if (p->icmp_to.sin_port == 0 && k >= 20 && (buf[0] >> 4) == 4) /* raw: IP header */
			icmp = buf + (buf[0] & 15) * 4;
		if (icmp[0] != ICMP_ECHOREPLY)
			continue;
		xb_bench_reply *r = &out[n++];
		memset(r, 0, sizeof *r);
		r->kind = 1;
		r->id = (uint16_t)(icmp[4] << 8 | icmp[5]);
		r->seq = (uint16_t)(icmp[6] << 8 | icmp[7]);
		size_t dl = (size_t)(k - (icmp - buf) - 8);
		r->len = (uint32_t)dl;
		memcpy(r->data, icmp + 8, dl < sizeof r->data ? dl : sizeof r->data);
		r->t_ns = mono_ns();
	}
	return n;
}

static size_t pb_read_console(xb_bench *b, uint8_t *buf, size_t cap)
{
	(void)b;
	(void)buf;
	(void)cap;
	return 0; /* a real board's UART is not on the probe (the Debug Probe's UART is a tty) */
}

static int pb_pollfds(xb_bench *b, struct pollfd *fds, int max)
{
	bench_probe *p = P(b);
	int n = 0;
	if (n < max && p->udp_fd >= 0)
		fds[n++] = (struct pollfd){.fd = p->udp_fd, .events = POLLIN};
	if (n < max && p->icmp_fd >= 0)
		fds[n++] = (struct pollfd){.fd = p->icmp_fd, .events = POLLIN};
	if (n < max && p->cap && !p->cap_failed && capture_fd(p->cap) >= 0)
		fds[n++] = (struct pollfd){.fd = capture_fd(p->cap), .events = POLLIN};
	return n;
}

static int pb_pump(xb_bench *b, uint64_t until_ns, xb_report *rep)
{
	(void)b;
	(void)until_ns;
	(void)rep;
	return 0;
}

static uint64_t pb_now_ns(xb_bench *b)
{
	(void)b;
	return mono_ns();
}

static void pb_state(xb_bench *b, xb_bench_state *out)
{
	bench_probe *p = P(b);
	memset(out, 0, sizeof *out);
	out->speed = NAN;
	out->ratio = NAN;
	out->now_ns = mono_ns();
	out->net_ready = p->udp_fd >= 0;
	snprintf(out->net, sizeof out->net, "%s", p->net);
}

static int pb_control(xb_bench *b, const char *what, double value, double value2,
		      xb_report *rep)
{
	(void)b;
	(void)value;
	(void)value2;
	return report_fail(rep, XB_STATUS_UNSUPPORTED,
			   "a real board runs in real time: '%s' is for the virtual bench", what);
}

static void pb_close(xb_bench *b)
{
	bench_probe *p = P(b);
	if (!p)
		return;
	capture_close(p->cap);
	if (p->udp_fd >= 0)
		close(p->udp_fd);
	if (p->icmp_fd >= 0)
		close(p->icmp_fd);
	free(p->serial);
	free(p->socket_path);
	free(p->capture_name);
	free(p);
}

static int parse_host_port(const char *s, struct sockaddr_in *out)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof host)
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	char *end;
	long port = strtol(colon + 1, &end, 10);
	if (*end || port < 1 || port > 65535)
		return -1;
	memset(out, 0, sizeof *out);
	out->sin_family = AF_INET;
	out->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &out->sin_addr) == 1 ? 0 : -1;
}

static xb_capture_source *open_capture(const char *name, xb_report *rep)
{
	xb_err err;
	xb_capture_source *s = NULL;
	struct stat st;
	if (strcmp(name, "-") == 0) {
		s = capture_open_stream(0, "-", &err);
	} else if (strncmp(name, "usbmon", 6) == 0 && stat(name, &st) != 0) {
		xb_capture_live_options lo = {.timeout_ms = 1};
		s = capture_open_live(name, &lo, &err);
		if (!s) {
			int denied = strstr(err.msg, "ermission") || strstr(err.msg, "root");
			report_err(rep, denied ? XB_STATUS_CAPTURE_NOT_PERMITTED : XB_STATUS_CAPTURE_FAILED,
				   &err);
			return NULL;
		}
		return s;
	} else if (stat(name, &st) == 0 && S_ISFIFO(st.st_mode)) {
		int fd = open(name, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			report_fail(rep, XB_STATUS_CAPTURE_FAILED, "%s: %s", name, strerror(errno));
			return NULL;
		}
		s = capture_open_stream(fd, name, &err);
	} else {
		s = capture_open_file(name, &err);
	}
	if (!s)
		report_err(rep, XB_STATUS_CAPTURE_FAILED, &err);
	return s;
}

xb_bench *bench_probe_open(const xb_probe_bench_options *o, xb_report *rep)
{
	bench_probe *p = xcalloc(1, sizeof *p);
	p->base.ops = &bench_probe_ops;
	p->o = *o;
	p->udp_fd = p->icmp_fd = -1;
	p->serial = o->serial ? xstrdup(o->serial) : NULL;
	p->socket_path = o->socket ? xstrdup(o->socket) : NULL;
	const char *dev = o->device_ip ? o->device_ip : "192.0.2.1";
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(o->udp_port ? o->udp_port : 7)};
	if (inet_pton(AF_INET, dev, &a.sin_addr) != 1) {
		report_fail(rep, XB_STATUS_BAD_ARGUMENT, "'%s' is not an IPv4 address", dev);
		pb_close(&p->base);
		return NULL;
	}
	p->icmp_to = a;
	p->icmp_to.sin_port = 0;
	p->udp_to = a;
	if (o->udp_target && parse_host_port(o->udp_target, &p->udp_to) != 0) {
		report_fail(rep, XB_STATUS_BAD_ARGUMENT, "'%s' is not HOST:PORT (an IPv4 address)",
			    o->udp_target);
		pb_close(&p->base);
		return NULL;
	}
	p->udp_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->udp_fd >= 0 && connect(p->udp_fd, (struct sockaddr *)&p->udp_to, sizeof p->udp_to) != 0) {
		close(p->udp_fd);
		p->udp_fd = -1;
	}
	if (p->udp_fd >= 0) {
		struct sockaddr_in me;
		socklen_t l = sizeof me;
		if (getsockname(p->udp_fd, (struct sockaddr *)&me, &l) == 0)
			p->udp_local_port = ntohs(me.sin_port);
	}
	if (!o->udp_target) {
		p->icmp_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMP);
		if (p->icmp_fd < 0)
			p->icmp_fd = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMP);
	}
	snprintf(p->net, sizeof p->net, "UDP to %s:%u%s", inet_ntoa(p->udp_to.sin_addr),
		 ntohs(p->udp_to.sin_port), p->icmp_fd >= 0 ? ", pings" : ", no pings");
	if (o->capture) {
		p->capture_name = xstrdup(o->capture);
		xb_report crep;
		p->cap = open_capture(o->capture, &crep);
		if (!p->cap && rep)
			*rep = crep; /* not fatal: the session says so and runs without turnaround */
	}
	snprintf(p->base.name, sizeof p->base.name, "probe %s%s%s",
		 p->socket_path ? p->socket_path : p->serial ? p->serial : "(USB)",
		 p->cap ? ", usbmon " : "", p->cap ? o->capture : "");
	return &p->base;
}

static const xb_bench_ops bench_probe_ops = {
	.kind = "probe",
	.schedules = 0,
	.connect_probe = pb_connect_probe,
	.read_records = pb_read_records,
	.send_ping = pb_send_ping,
	.send_udp = pb_send_udp,
	.read_replies = pb_read_replies,
	.read_console = pb_read_console,
	.pollfds = pb_pollfds,
	.pump = pb_pump,
	.now_ns = pb_now_ns,
	.state = pb_state,
	.control = pb_control,
	.cache_view = NULL,
	.close = pb_close,
};
