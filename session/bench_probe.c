/* bench_probe: a real board as a bench: its CMSIS-DAP probe (USB, or the virtual probe of
 * `sim serve --probe-socket`), the usbmon capture of its USB bus when there is one, and
 * echo traffic through ordinary sockets (UDP; ICMP through an ICMP datagram socket where
 * net.ipv4.ping_group_range allows one, else a raw socket as root); the board's network
 * interface and address found from sysfs by its USB IDs. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <math.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../capture/source.h"
#include "bench.h"

static const xb_bench_ops bench_probe_ops;

#define PB_REPLIES 1024u
#define PB_ICMP_IDS 4u          /* ICMP identifiers in use at once (one socket each) */
#define PB_NETIF_EVERY_NS 100000000u /* the interface's state is read this often */
#define PB_DEFAULT_VID 0x1209u  /* the demo firmware's USB IDs (pid.codes test IDs) */
#define PB_DEFAULT_PID 0x0001u

enum { PB_ICMP_NONE = 0, PB_ICMP_DGRAM, PB_ICMP_RAW };

/* An ICMP datagram socket: the kernel puts its bound "port" in the identifier, so each
 * identifier the session uses gets a socket bound to it. */
typedef struct pb_icmp {
	uint16_t id;
	int fd;
	int bound; /* the identifier is the socket's (bind succeeded) */
} pb_icmp;

typedef struct bench_probe {
	xb_bench base;
	xb_probe_bench_options o;
	char *serial, *socket_path, *capture_name, *sysfs;
	xb_capture_source *cap;
	int cap_failed;
	int udp_fd;
	struct sockaddr_in udp_to, icmp_to;
	struct sockaddr_in from; /* --peer-ip: the host's address the sockets are bound to */
	int have_from;
	uint16_t udp_local_port;
	/* ICMP */
	int icmp_mode;
	pb_icmp icmp[PB_ICMP_IDS]; /* DGRAM: one per identifier; RAW: [0] only */
	size_t nicmp;
	uint16_t raw_ids[PB_ICMP_IDS]; /* RAW: the identifiers sent (replies to others are
					* another program's) */
	size_t nraw;
	char icmp_why[384];
	/* the board's interface */
	char netif[IF_NAMESIZE];
	int netif_up;
	uint64_t netif_read_ns;
	char net[160];
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

/* The socket for identifier id (DGRAM: bound to it, opened on first use). */
static int icmp_socket(bench_probe *p, uint16_t id, xb_report *rep)
{
	if (p->icmp_mode == PB_ICMP_RAW) {
		size_t i;
		for (i = 0; i < p->nraw && p->raw_ids[i] != id; i++)
			;
		if (i == p->nraw) {
			if (p->nraw == PB_ICMP_IDS) {
				report_fail(rep, XB_STATUS_TRAFFIC_FAILED,
					    "pings with more than %u identifiers", PB_ICMP_IDS);
				return -1;
			}
			p->raw_ids[p->nraw++] = id;
		}
		return p->icmp[0].fd;
	}
	for (size_t i = 0; i < p->nicmp; i++)
		if (p->icmp[i].id == id)
			return p->icmp[i].fd;
	if (p->nicmp == PB_ICMP_IDS) {
		report_fail(rep, XB_STATUS_TRAFFIC_FAILED, "pings with more than %u identifiers",
			    PB_ICMP_IDS);
		return -1;
	}
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (fd < 0) {
		report_fail(rep, XB_STATUS_TRAFFIC_FAILED, "ICMP datagram socket: %s", strerror(errno));
		return -1;
	}
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(id)};
	if (p->have_from)
		a.sin_addr = p->from.sin_addr;
	pb_icmp *c = &p->icmp[p->nicmp++];
	/* another socket holding the identifier: the kernel picks one (replies still come) */
	c->bound = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
	if (!c->bound && p->have_from) {
		a.sin_port = 0;
		if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
			report_fail(rep, XB_STATUS_TRAFFIC_FAILED, "ICMP socket on %s: %s",
				    inet_ntoa(a.sin_addr), strerror(errno));
			close(fd);
			p->nicmp--;
			return -1;
		}
	}
	c->id = id;
	c->fd = fd;
	return fd;
}

static int pb_send_ping(xb_bench *b, uint64_t at_ns, uint16_t id, uint16_t seq,
			const uint8_t *data, size_t len, xb_report *rep)
{
	(void)at_ns;
	bench_probe *p = P(b);
	if (p->icmp_mode == PB_ICMP_NONE)
		return report_fail(rep, XB_STATUS_TRAFFIC_FAILED, "pings cannot be sent: %s",
				   p->icmp_why);
	uint8_t pkt[8 + 1472];
	if (len > sizeof pkt - 8)
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "ping of %zu bytes is too long", len);
	int fd = icmp_socket(p, id, rep);
	if (fd < 0)
		return -1;
	struct icmphdr *h = (struct icmphdr *)pkt;
	memset(h, 0, sizeof *h);
	h->type = ICMP_ECHO;
	h->un.echo.id = htons(id);
	h->un.echo.sequence = htons(seq);
	memcpy(pkt + 8, data, len);
	/* a raw socket sends the checksum as it is (a datagram socket fills it in itself) */
	uint32_t sum = 0;
	for (size_t i = 0; i < 8 + len; i += 2)
		sum += (uint32_t)(pkt[i] << 8 | (i + 1 < 8 + len ? pkt[i + 1] : 0));
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	h->checksum = htons((uint16_t)~sum);
	if (sendto(fd, pkt, 8 + len, MSG_DONTWAIT, (struct sockaddr *)&p->icmp_to,
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
	for (size_t k = 0; k < p->nicmp; k++) {
		pb_icmp *c = &p->icmp[k];
		while (n < max) {
			struct sockaddr_in from;
			socklen_t flen = sizeof from;
			ssize_t got = recvfrom(c->fd, buf, sizeof buf, MSG_DONTWAIT,
					       (struct sockaddr *)&from, &flen);
			if (got < 0)
				break;
			const uint8_t *icmp = buf;
			size_t len = (size_t)got;
			if (p->icmp_mode == PB_ICMP_RAW) { /* an IPv4 header first */
				size_t hl = len ? (size_t)(buf[0] & 15) * 4 : 0;
				if (len < 20 || (buf[0] >> 4) != 4 || hl < 20 || hl > len)
					continue;
				icmp += hl;
				len -= hl;
			}
			if (len < 8 || icmp[0] != ICMP_ECHOREPLY ||
			    from.sin_addr.s_addr != p->icmp_to.sin_addr.s_addr)
				continue; /* a raw socket sees every ICMP message of the host */
			uint16_t id = (uint16_t)(icmp[4] << 8 | icmp[5]);
			if (p->icmp_mode == PB_ICMP_RAW) {
				size_t i;
				for (i = 0; i < p->nraw && p->raw_ids[i] != id; i++)
					;
				if (i == p->nraw)
					continue; /* another program's ping */
			} else if (!c->bound) {
				id = c->id; /* the kernel's identifier stands for the one asked for */
			}
			xb_bench_reply *r = &out[n++];
			memset(r, 0, sizeof *r);
			r->kind = 1;
			r->id = id;
			r->seq = (uint16_t)(icmp[6] << 8 | icmp[7]);
			size_t dl = len - 8;
			r->len = (uint32_t)dl;
			memcpy(r->data, icmp + 8, dl < sizeof r->data ? dl : sizeof r->data);
			r->t_ns = mono_ns();
		}
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
	for (size_t i = 0; i < p->nicmp && n < max; i++)
		fds[n++] = (struct pollfd){.fd = p->icmp[i].fd, .events = POLLIN};
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

/* ---- The board's interface ---- */

/* The first line of a small file, without its newline; -1 when it cannot be read. */
static int read_line(const char *path, char *out, size_t cap)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int ok = fgets(out, (int)cap, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	out[strcspn(out, "\r\n")] = 0;
	return 0;
}

static int read_hex16(const char *dir, const char *name, uint16_t *out)
{
	char path[PATH_MAX + 32], line[32];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (read_line(path, line, sizeof line))
		return -1;
	char *end;
	unsigned long v = strtoul(line, &end, 16);
	if (end == line || *end || v > 0xFFFF)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int cmp_netif(const void *a, const void *b)
{
	return strcmp(((const xb_board_netif *)a)->name, ((const xb_board_netif *)b)->name);
}

size_t bench_netif_find(const char *sysfs, uint16_t vid, uint16_t pid, xb_board_netif *out,
			size_t max)
{
	static const char *const drivers[] = {"cdc_ether", "rndis_host", "cdc_ncm"};
	if (!sysfs)
		sysfs = "/sys";
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/class/net", sysfs);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof out->name)
			continue;
		/* NAME/device: the USB interface; its driver link names the class driver */
		char path[PATH_MAX + 300], intf[PATH_MAX], drv[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s/device", dir, e->d_name);
		if (!realpath(path, intf))
			continue;
		snprintf(path, sizeof path, "%s/driver", intf);
		if (!realpath(path, drv))
			continue;
		const char *driver = base_name(drv);
		size_t k;
		for (k = 0; k < sizeof drivers / sizeof *drivers && strcmp(driver, drivers[k]); k++)
			;
		if (k == sizeof drivers / sizeof *drivers)
			continue;
		/* the USB device is the interface's parent */
		char usbdev[PATH_MAX];
		snprintf(usbdev, sizeof usbdev, "%s", intf);
		char *slash = strrchr(usbdev, '/');
		if (!slash || slash == usbdev)
			continue;
		*slash = 0;
		uint16_t v, p;
		if (read_hex16(usbdev, "idVendor", &v) || read_hex16(usbdev, "idProduct", &p) ||
		    v != vid || p != pid)
			continue;
		if (n < max) {
			xb_board_netif *m = &out[n];
			memset(m, 0, sizeof *m);
			snprintf(m->name, sizeof m->name, "%.15s", e->d_name); /* IFNAMSIZ */
			snprintf(m->driver, sizeof m->driver, "%.15s", driver);
			snprintf(m->usb, sizeof m->usb, "%.31s", base_name(intf));
		}
		n++;
	}
	closedir(d);
	if (n && max)
		qsort(out, n < max ? n : max, sizeof *out, cmp_netif);
	return n;
}

size_t bench_netif_neighbours(const char *procfs, const char *ifname, uint8_t (*out)[4],
			      size_t max)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/net/arp", procfs ? procfs : "/proc");
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	/* IP address  HW type  Flags  HW address  Mask  Device; flags 0x2: complete */
	char line[512];
	size_t n = 0;
	while (fgets(line, sizeof line, f)) {
		char ip[64], hw[64], mask[64], dev[64];
		unsigned type, flags;
		struct in_addr a;
		if (sscanf(line, "%63s 0x%x 0x%x %63s %63s %63s", ip, &type, &flags, hw, mask, dev) != 6 ||
		    !(flags & 2) || strcmp(dev, ifname) != 0 || inet_pton(AF_INET, ip, &a) != 1)
			continue;
		if (n < max)
			memcpy(out[n], &a, 4);
		n++;
	}
	fclose(f);
	return n < max ? n : max;
}

static uint32_t be32_of(const uint8_t a[4])
{
	return (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
}

static void be32_to(uint32_t v, uint8_t a[4])
{
	a[0] = (uint8_t)(v >> 24);
	a[1] = (uint8_t)(v >> 16);
	a[2] = (uint8_t)(v >> 8);
	a[3] = (uint8_t)v;
}

int bench_board_ip(const uint8_t host[4], unsigned prefix, const uint8_t *peer,
		   const uint8_t (*neigh)[4], size_t n, uint8_t out[4], char *why, size_t cap)
{
	if (peer) {
		memcpy(out, peer, 4);
		snprintf(why, cap, "the interface's point-to-point peer");
		return 0;
	}
	if (prefix >= 32)
		return -1;
	uint32_t h = be32_of(host), mask = prefix ? 0xFFFFFFFFu << (32 - prefix) : 0;
	uint32_t net = h & mask;
	const uint8_t *only = NULL;
	size_t inside = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t a = be32_of(neigh[i]);
		if ((a & mask) == net && a != h) {
			inside++;
			only = neigh[i];
		}
	}
	if (inside == 1) {
		memcpy(out, only, 4);
		snprintf(why, cap, "the interface's only IPv4 neighbour");
		return 0;
	}
	uint32_t b;
	if (prefix == 31) {
		b = h ^ 1u;
		snprintf(why, cap, "the other address of the /31");
	} else if (prefix == 30) {
		b = net + 1 == h ? net + 2 : net + 1;
		snprintf(why, cap, "the other host of the /30");
	} else {
		b = net + 1 == h ? net + 2 : net + 1;
		snprintf(why, cap, "the %s host of the /%u", b == net + 1 ? "first" : "second", prefix);
	}
	be32_to(b, out);
	return 0;
}

/* The host's IPv4 address, prefix and point-to-point peer on ifname. */
static int netif_address(const char *ifname, uint8_t host[4], unsigned *prefix, uint8_t peer[4],
			 int *has_peer)
{
	struct ifaddrs *all;
	if (getifaddrs(&all) != 0)
		return -1;
	int found = -1;
	for (struct ifaddrs *a = all; a; a = a->ifa_next) {
		if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || strcmp(a->ifa_name, ifname))
			continue;
		memcpy(host, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, 4);
		uint32_t m = a->ifa_netmask
				     ? ntohl(((struct sockaddr_in *)a->ifa_netmask)->sin_addr.s_addr)
				     : 0xFFFFFF00u;
		*prefix = 0;
		while (*prefix < 32 && (m << *prefix & 0x80000000u))
			(*prefix)++;
		*has_peer = (a->ifa_flags & IFF_POINTOPOINT) && a->ifa_dstaddr &&
			    a->ifa_dstaddr->sa_family == AF_INET;
		if (*has_peer)
			memcpy(peer, &((struct sockaddr_in *)a->ifa_dstaddr)->sin_addr, 4);
		found = 0;
		break;
	}
	freeifaddrs(all);
	return found;
}

/* Up: IFF_UP and IFF_RUNNING (the carrier) in this network namespace; with a test's sysfs
 * folder, operstate "up", or "unknown" (drivers that do not report it) with the carrier on. */
static int netif_up(bench_probe *p)
{
	uint64_t now = mono_ns();
	if (p->netif_read_ns && now - p->netif_read_ns < PB_NETIF_EVERY_NS)
		return p->netif_up;
	p->netif_read_ns = now;
	if (!p->o.sysfs) {
		/* the interface as this process's network namespace has it (sysfs shows the
		 * namespace of whoever mounted it: not this one inside `nsenter --net`) */
		struct ifreq ifr;
		memset(&ifr, 0, sizeof ifr);
		snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", p->netif);
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		p->netif_up = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 &&
			      (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
		if (fd >= 0)
			close(fd);
		return p->netif_up;
	}
	char path[PATH_MAX], state[32], carrier[8];
	snprintf(path, sizeof path, "%s/class/net/%s/operstate", p->sysfs, p->netif);
	p->netif_up = 0;
	if (read_line(path, state, sizeof state) == 0) {
		snprintf(path, sizeof path, "%s/class/net/%s/carrier", p->sysfs, p->netif);
		p->netif_up = strcmp(state, "up") == 0 ||
			      (strcmp(state, "unknown") == 0 && read_line(path, carrier, sizeof carrier) == 0 &&
			       strcmp(carrier, "1") == 0);
	}
	return p->netif_up;
}

static void pb_state(xb_bench *b, xb_bench_state *out)
{
	bench_probe *p = P(b);
	memset(out, 0, sizeof *out);
	out->speed = NAN;
	out->ratio = NAN;
	out->now_ns = mono_ns();
	out->net_ready = p->udp_fd >= 0 && (!p->netif[0] || netif_up(p));
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
	for (size_t i = 0; i < p->nicmp; i++)
		close(p->icmp[i].fd);
	free(p->sysfs);
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

/* The board's interface (given, or found by its USB IDs) and, unless given, its address;
 * what was found goes into `where` (for the state's text). */
static void find_board(bench_probe *p, const xb_probe_bench_options *o, char *dev, size_t devcap,
		       char *where, size_t cap)
{
	uint16_t vid = o->usb_vid ? o->usb_vid : PB_DEFAULT_VID;
	uint16_t pid = o->usb_pid ? o->usb_pid : PB_DEFAULT_PID;
	*where = 0;
	if (o->netif) {
		snprintf(p->netif, sizeof p->netif, "%s", o->netif);
	} else {
		xb_board_netif m[4];
		size_t n = bench_netif_find(p->sysfs, vid, pid, m, 4);
		if (n)
			snprintf(p->netif, sizeof p->netif, "%s", m[0].name);
		else if (!o->device_ip)
			snprintf(where, cap, "no interface of USB %04x:%04x, ", vid, pid);
	}
	if (o->device_ip) {
		snprintf(dev, devcap, "%s", o->device_ip);
		return;
	}
	snprintf(dev, devcap, "192.0.2.1");
	if (!p->netif[0])
		return;
	uint8_t host[4], peer[4], neigh[8][4], board[4];
	unsigned prefix;
	int has_peer;
	char why[64];
	if (netif_address(p->netif, host, &prefix, peer, &has_peer) != 0) {
		snprintf(where, cap, "%s has no IPv4 address, ", p->netif);
		return;
	}
	size_t nn = bench_netif_neighbours(o->procfs, p->netif, neigh, 8);
	if (bench_board_ip(host, prefix, has_peer ? peer : NULL, (const uint8_t(*)[4])neigh, nn,
			   board, why, sizeof why) != 0) {
		snprintf(where, cap, "%s is a /32, ", p->netif);
		return;
	}
	inet_ntop(AF_INET, board, dev, (socklen_t)devcap);
	snprintf(where, cap, "%s, ", why);
}

/* What ICMP can go through: a datagram socket, a raw one, or nothing (and why). */
static void icmp_open(bench_probe *p, const xb_probe_bench_options *o)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (fd >= 0) {
		close(fd); /* one per identifier, bound on first use */
		p->icmp_mode = PB_ICMP_DGRAM;
		return;
	}
	int dgram_errno = errno;
	fd = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (fd >= 0 && p->have_from && bind(fd, (struct sockaddr *)&p->from, sizeof p->from) != 0) {
		snprintf(p->icmp_why, sizeof p->icmp_why, "raw ICMP socket on %s: %s",
			 inet_ntoa(p->from.sin_addr), strerror(errno));
		close(fd);
		return;
	}
	if (fd >= 0) {
		p->icmp_mode = PB_ICMP_RAW;
		p->icmp[0] = (pb_icmp){.fd = fd, .bound = 1};
		p->nicmp = 1;
		return;
	}
	char path[PATH_MAX], range[64] = "?";
	snprintf(path, sizeof path, "%s/sys/net/ipv4/ping_group_range", o->procfs ? o->procfs : "/proc");
	read_line(path, range, sizeof range);
	for (char *c = range; *c; c++)
		if (*c == '\t')
			*c = ' ';
	snprintf(p->icmp_why, sizeof p->icmp_why,
		 "ICMP datagram sockets are refused (%s: group %u is outside net.ipv4.ping_group_range "
		 "\"%s\"; `sudo sysctl -w net.ipv4.ping_group_range=\"0 2147483647\"` allows them) "
		 "and raw sockets need root (CAP_NET_RAW)",
		 strerror(dgram_errno), (unsigned)getgid(), range);
}

xb_bench *bench_probe_open(const xb_probe_bench_options *o, xb_report *rep)
{
	bench_probe *p = xcalloc(1, sizeof *p);
	p->base.ops = &bench_probe_ops;
	p->o = *o;
	p->udp_fd = -1;
	p->serial = o->serial ? xstrdup(o->serial) : NULL;
	p->socket_path = o->socket ? xstrdup(o->socket) : NULL;
	p->sysfs = xstrdup(o->sysfs ? o->sysfs : "/sys");
	char dev[INET_ADDRSTRLEN + 64], where[96];
	find_board(p, o, dev, sizeof dev, where, sizeof where);
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
	if (o->host_ip) {
		p->from = (struct sockaddr_in){.sin_family = AF_INET};
		if (inet_pton(AF_INET, o->host_ip, &p->from.sin_addr) != 1) {
			report_fail(rep, XB_STATUS_BAD_ARGUMENT, "'%s' is not an IPv4 address", o->host_ip);
			pb_close(&p->base);
			return NULL;
		}
		p->have_from = 1;
	}
	p->udp_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->udp_fd >= 0 && p->have_from &&
	    bind(p->udp_fd, (struct sockaddr *)&p->from, sizeof p->from) != 0) {
		report_fail(rep, XB_STATUS_BAD_ARGUMENT, "%s is not an address of this host: %s",
			    o->host_ip, strerror(errno));
		pb_close(&p->base);
		return NULL;
	}
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
	if (!o->udp_target)
		icmp_open(p, o);
	else
		snprintf(p->icmp_why, sizeof p->icmp_why, "UDP goes to %s, ICMP nowhere", o->udp_target);
	static const char *const icmp_text[] = {"no pings", "pings: datagram socket",
						"pings: raw socket"};
	snprintf(p->net, sizeof p->net, "%s%s%sboard %s, UDP port %u, %s", p->netif,
		 p->netif[0] ? ", " : "", where, inet_ntoa(a.sin_addr), ntohs(p->udp_to.sin_port),
		 icmp_text[p->icmp_mode]);
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
