/* echo_server.c: the echo server, a socket service (net/socket_service.h): the service
 * thread polls its two sockets and runs its handler in the system work queue:
 *   - UDP port 7 (RFC 862): recvmsg, then sendmsg of the same bytes back to the sender.
 *     IP_PKTINFO says which of the host's addresses the datagram was sent to; the reply
 *     leaves from that address (a datagram to a broadcast or a group gets its answer from
 *     the interface's address), as a multihomed server must answer.
 *   - a raw ICMP socket: a copy of every ICMP message; the stack answers the pings itself,
 *     the server counts the echo requests per pinging host.
 * Receive timestamps give each request's time of reception in the driver: the server keeps,
 * per client, how long requests took through the stack until it had them. For UDP the
 * transmit timestamps (the error queue, SO_TIMESTAMPING) say when each reply had left the
 * device: the server's own turnaround per client, reception to reply on the wire. */
#include "config.h"
#include "echo_server.h"
#include "kernel/kernel.h"
#include "net/socket.h"
#include "net/socket_service.h"
#include <string.h>

#include "drivers/console.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(echo, LOG_LEVEL_INF);

#define ECHO_MAX_DATAGRAM 1472 /* the largest UDP payload in one 1500-byte IPv4 packet */
#define ICMP_ECHO_REQUEST 8
/* A raw datagram is read up to the ICMP echo header: IPv4 header (options included) and
 * type, code, checksum, identifier, sequence number. */
#define ICMP_PEEK_LEN (60 + 8)
#define ECHO_ICMP_RCVBUF 1536 /* bytes the raw ICMP socket may hold unread */
/* Replies whose transmit timestamp has not come back yet (a ring). */
#define ECHO_PENDING 8
#define ECHO_TIMESTAMPING                                                                 \
	(SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE | \
	 SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY)

static uint8_t echo_buf[ECHO_MAX_DATAGRAM];
static int udp_sock = -1, icmp_sock = -1;

/* A reply on its way: which one (the socket numbers timestamped datagrams from 0), whose,
 * and when its request came in. */
struct echo_pending {
	uint32_t tskey;
	uint32_t addr;
	uint16_t port;
	bool used;
	uint64_t rx_us;
};
static struct echo_pending pending[ECHO_PENDING];
static uint32_t tskey_next;
static struct echo_server_stats stats;

/* What came with a request besides its bytes. */
struct echo_rx {
	struct sockaddr_in from;
	struct in_pktinfo pktinfo;
	bool have_pktinfo;
	uint64_t rx_us;    /* when the driver received it; 0 when not known */
	uint32_t stack_us; /* reception to now */
};

/* Control buffer for recvmsg / sendmsg: room for IP_PKTINFO, a timestamp and an error
 * queue record. */
union echo_cmsg_buf {
	struct cmsghdr align;
	uint8_t buf[CMSG_SPACE(sizeof(struct in_pktinfo)) +
		    CMSG_SPACE(sizeof(struct scm_timestamping)) +
		    CMSG_SPACE(sizeof(struct sock_extended_err))];
};

static struct echo_client *echo_client_find(enum echo_kind kind, uint32_t addr, uint16_t port)
{
	for (int i = 0; i < ECHO_MAX_CLIENTS; i++) {
		struct echo_client *c = &stats.clients[i];
		if (c->datagrams && c->kind == kind && c->addr == addr && c->port == port)
			return c;
	}
	return NULL;
}

/* The client's entry: found, or a new one in place of the least recently seen. */
static struct echo_client *echo_client_get(enum echo_kind kind, uint32_t addr, uint16_t port)
{
	struct echo_client *oldest = &stats.clients[0];
	uint32_t now = k_uptime_get_32();
	for (int i = 0; i < ECHO_MAX_CLIENTS; i++) {
		struct echo_client *c = &stats.clients[i];
		if (c->datagrams && c->kind == kind && c->addr == addr && c->port == port)
			return c;
		if (!c->datagrams || (int32_t)(c->last_ms - oldest->last_ms) < 0)
			oldest = c;
	}
	LOG_DBG("new client, %s %u", kind == ECHO_PING ? "id" : "port", ntohs(port));
	memset(oldest, 0, sizeof(*oldest));
	oldest->kind = (uint8_t)kind;
	oldest->addr = addr;
	oldest->port = port;
	oldest->last_ms = now;
	stats.clients_seen++;
	return oldest;
}

static struct echo_client *echo_client_count(enum echo_kind kind, const struct echo_rx *rx,
					     uint16_t port, size_t len)
{
	struct echo_client *c = echo_client_get(kind, rx->from.sin_addr.s_addr, port);
	c->datagrams++;
	c->bytes += (uint32_t)len;
	c->last_ms = k_uptime_get_32();
	c->stack_us_sum += rx->stack_us;
	if (rx->stack_us > c->stack_us_max)
		c->stack_us_max = rx->stack_us;
	return c;
}

static uint64_t timespec_us(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000u + (uint64_t)ts->tv_nsec / 1000u;
}

/* The ancillary data of a received message. */
static void echo_parse_cmsgs(struct msghdr *msg, struct echo_rx *rx)
{
	rx->have_pktinfo = false;
	rx->rx_us = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			memcpy(&rx->pktinfo, CMSG_DATA(c), sizeof(rx->pktinfo));
			rx->have_pktinfo = true;
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMP) {
			struct timeval tv;
			memcpy(&tv, CMSG_DATA(c), sizeof(tv));
			rx->rx_us = (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
			struct scm_timestamping tss;
			memcpy(&tss, CMSG_DATA(c), sizeof(tss));
			rx->rx_us = timespec_us(&tss.ts[0]);
		}
	}
	uint64_t now = k_cycle_get_64();
	rx->stack_us = rx->rx_us && now > rx->rx_us ? (uint32_t)MIN(now - rx->rx_us, UINT32_MAX) : 0;
}

/* One receive with the ancillary data; the length, or -1 (nothing there, or an error). */
static ssize_t echo_recv(int sock, void *buf, size_t len, struct echo_rx *rx, int *msg_flags)
{
	union echo_cmsg_buf control;
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	struct msghdr msg = {.msg_name = &rx->from,
			     .msg_namelen = sizeof(rx->from),
			     .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf)};
	ssize_t n = zsock_recvmsg(sock, &msg, MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0) {
		if (sock_errno() != EAGAIN) {
			stats.recv_errors++;
			LOG_WRN("recvmsg: %d", sock_errno());
		}
		return -1;
	}
	*msg_flags = msg.msg_flags;
	echo_parse_cmsgs(&msg, rx);
	return n;
}

/* The same bytes back to the sender, from the address it wrote to. */
static int echo_reply(int sock, const struct echo_rx *rx, size_t len)
{
	union echo_cmsg_buf control;
	struct iovec iov = {.iov_base = echo_buf, .iov_len = len};
	struct msghdr msg = {.msg_name = (void *)&rx->from,
			     .msg_namelen = sizeof(rx->from),
			     .msg_iov = &iov,
			     .msg_iovlen = 1};
	if (rx->have_pktinfo) {
		struct cmsghdr *c = (struct cmsghdr *)(void *)control.buf;
		struct in_pktinfo info = {.ipi_ifindex = rx->pktinfo.ipi_ifindex,
					  .ipi_spec_dst = rx->pktinfo.ipi_spec_dst};
		c->cmsg_len = CMSG_LEN(sizeof(info));
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		memcpy(CMSG_DATA(c), &info, sizeof(info));
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(info));
	}
	return (int)zsock_sendmsg(sock, &msg, 0);
}

static void echo_udp_one(int sock)
{
	struct echo_rx rx;
	int flags;
	ssize_t len = echo_recv(sock, echo_buf, sizeof(echo_buf), &rx, &flags);
	if (len < 0)
		return;
	if (flags & MSG_TRUNC) {
		/* Longer than any UDP payload of one Ethernet frame: not echoed in part. */
		stats.truncated++;
		return;
	}
	LOG_DBG("%d bytes from port %u", (int)len, ntohs(rx.from.sin_port));
	if (echo_reply(sock, &rx, (size_t)len) < 0) {
		stats.send_errors++;
		LOG_DBG("sendmsg: %d", sock_errno());
		return;
	}
	stats.datagrams++;
	stats.bytes += (uint32_t)len;
	echo_client_count(ECHO_UDP, &rx, rx.from.sin_port, (size_t)len);
	/* The socket numbered this reply tskey_next: its transmit timestamp will say so. */
	struct echo_pending *p = &pending[tskey_next % ECHO_PENDING];
	p->tskey = tskey_next++;
	p->addr = rx.from.sin_addr.s_addr;
	p->port = rx.from.sin_port;
	p->rx_us = rx.rx_us;
	p->used = rx.rx_us != 0;
}

/* One transmit timestamp from the error queue: the reply it belongs to has left the
 * device; its client's turnaround. */
static bool echo_tx_timestamp(int sock)
{
	union echo_cmsg_buf control;
	struct msghdr msg = {.msg_control = control.buf, .msg_controllen = sizeof(control.buf)};
	if (zsock_recvmsg(sock, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		return false;
	uint64_t tx_us = 0;
	uint32_t tskey = 0;
	bool have_key = false;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
			struct scm_timestamping tss;
			memcpy(&tss, CMSG_DATA(c), sizeof(tss));
			tx_us = timespec_us(&tss.ts[0]);
		} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR) {
			struct sock_extended_err ee;
			memcpy(&ee, CMSG_DATA(c), sizeof(ee));
			if (ee.ee_origin == SO_EE_ORIGIN_TIMESTAMPING && ee.ee_info == SCM_TSTAMP_SND) {
				tskey = ee.ee_data;
				have_key = true;
			}
		}
	}
	stats.tx_timestamps++;
	struct echo_pending *p = &pending[tskey % ECHO_PENDING];
	if (!have_key || !tx_us || !p->used || p->tskey != tskey || tx_us < p->rx_us) {
		stats.tx_timestamps_unmatched++;
		return true;
	}
	p->used = false;
	struct echo_client *c = echo_client_find(ECHO_UDP, p->addr, p->port);
	if (!c)
		return true; /* evicted from the table meanwhile */
	uint32_t us = (uint32_t)MIN(tx_us - p->rx_us, UINT32_MAX);
	c->turnarounds++;
	c->turnaround_us_sum += us;
	if (us > c->turnaround_us_max)
		c->turnaround_us_max = us;
	LOG_DBG("reply %u left %u us after its request came in", (unsigned)tskey, (unsigned)us);
	return true;
}

/* A copy of an ICMP message: count the echo requests (the stack has answered them). */
static void echo_icmp_one(int sock)
{
	uint8_t hdr[ICMP_PEEK_LEN];
	struct echo_rx rx;
	int flags;
	ssize_t len = echo_recv(sock, hdr, sizeof(hdr), &rx, &flags);
	if (len < 0)
		return;
	size_t got = MIN((size_t)len, sizeof(hdr));
	size_t ihl = got ? (size_t)(hdr[0] & 0x0F) * 4 : 0;
	if (ihl < 20 || got < ihl + 8)
		return;
	const uint8_t *icmp = hdr + ihl;
	if (icmp[0] != ICMP_ECHO_REQUEST)
		return;
	uint16_t id, seq = sys_get_be16(icmp + 6);
	memcpy(&id, icmp + 4, sizeof(id));
	size_t data = (size_t)len - ihl - 8;
	struct echo_client *c = echo_client_count(ECHO_PING, &rx, id, data);
	if (c->datagrams > 1 && seq != (uint16_t)(c->last_seq + 1))
		c->seq_gaps += (uint16_t)(seq - c->last_seq - 1);
	c->last_seq = seq;
	stats.pings++;
	stats.ping_bytes += (uint32_t)data;
	LOG_DBG("ping id %u seq %u, %u bytes", ntohs(id), seq, (unsigned)data);
}

static int echo_setopt(int sock, int level, int name)
{
	int32_t on = 1;
	return zsock_setsockopt(sock, level, name, &on, sizeof(on));
}

static int echo_open_udp(void)
{
	int sock = zsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
	if (sock < 0) {
		LOG_ERR("socket: %d", sock_errno());
		return -1;
	}
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(ECHO_UDP_PORT)};
	int32_t ts_flags = ECHO_TIMESTAMPING;
	if (echo_setopt(sock, IPPROTO_IP, IP_PKTINFO) < 0 ||
	    zsock_setsockopt(sock, SOL_SOCKET, SO_TIMESTAMPING, &ts_flags, sizeof(ts_flags)) < 0 ||
	    zsock_bind(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		LOG_ERR("UDP socket set-up: %d", sock_errno());
		zsock_close(sock);
		return -1;
	}
	return sock;
}

/* The ping watch is an extra: without it the UDP echo still runs. Its copies of the pings
 * come from the receive pool, so it may keep only a little unread (one full-size ping or
 * several small ones): a flood of large pings must not take the buffers of the traffic. */
static int echo_open_icmp(void)
{
	int sock = zsock_socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (sock < 0) {
		LOG_WRN("raw ICMP socket: %d", sock_errno());
		return -1;
	}
	int32_t rcvbuf = ECHO_ICMP_RCVBUF;
	if (echo_setopt(sock, SOL_SOCKET, SO_TIMESTAMP) < 0 ||
	    zsock_setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0)
		LOG_WRN("raw ICMP socket options: %d", sock_errno());
	return sock;
}

/* The service's handler (system work queue): the socket poll found ready. */
static void echo_service_handler(struct net_socket_service_event *pev)
{
	if (pev->event.fd == udp_sock) {
		if (pev->event.revents & POLLERR)
			while (echo_tx_timestamp(udp_sock))
				;
		if (pev->event.revents & POLLIN)
			echo_udp_one(udp_sock);
	} else if (pev->event.fd == icmp_sock && (pev->event.revents & POLLIN)) {
		echo_icmp_one(icmp_sock);
	}
}

NET_SOCKET_SERVICE_DEFINE(echo_service, echo_service_handler, 2);

void echo_server_start(void)
{
	udp_sock = echo_open_udp();
	if (udp_sock < 0)
		return;
	icmp_sock = echo_open_icmp();
	/* fd -1 is left out: without the ICMP socket only UDP is served. */
	const struct pollfd fds[2] = {{.fd = udp_sock, .events = POLLIN},
				      {.fd = icmp_sock, .events = POLLIN}};
	int ret = net_socket_service_register(&echo_service, fds, 2, NULL);
	if (ret) {
		LOG_ERR("socket service: %d", ret);
		return;
	}
	LOG_INF("UDP echo on port %u", ECHO_UDP_PORT);
}

void echo_server_stats_get(struct echo_server_stats *s)
{
	*s = stats;
}

void echo_server_stats_print(void)
{
	printk("echo: %u datagrams, %u bytes, %u send errors, %u receive errors, %u truncated; "
	       "%u pings seen; %u clients\r\n",
	       (unsigned)stats.datagrams, (unsigned)stats.bytes, (unsigned)stats.send_errors,
	       (unsigned)stats.recv_errors, (unsigned)stats.truncated, (unsigned)stats.pings,
	       (unsigned)stats.clients_seen);
	for (int i = 0; i < ECHO_MAX_CLIENTS; i++) {
		const struct echo_client *c = &stats.clients[i];
		if (!c->datagrams)
			continue;
		struct in_addr a = {.s_addr = c->addr};
		char buf[16];
		printk("  %s %s %u: %u %s, %u bytes, last at %u ms, up the stack avg %u max %u us",
		       c->kind == ECHO_PING ? "ping" : "udp ", net_addr_ntop(&a, buf), ntohs(c->port),
		       (unsigned)c->datagrams, c->kind == ECHO_PING ? "requests" : "datagrams",
		       (unsigned)c->bytes, (unsigned)c->last_ms,
		       (unsigned)(c->stack_us_sum / c->datagrams), (unsigned)c->stack_us_max);
		if (c->kind == ECHO_PING)
			printk(", %u missing", (unsigned)c->seq_gaps);
		if (c->turnarounds)
			printk(", turnaround avg %u max %u us",
			       (unsigned)(c->turnaround_us_sum / c->turnarounds),
			       (unsigned)c->turnaround_us_max);
		printk("\r\n");
	}
}
