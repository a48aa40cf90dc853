/* net_context.h: network contexts, the transport end points behind sockets (UDP and raw
 * IPv4): binding, a receive queue, sending, and readiness signalling for poll. */
#ifndef NET_CONTEXT_H
#define NET_CONTEXT_H

#include "net/net_ip.h"
#include "net/net_pkt.h"
#include "net_private.h"

#define NET_CONTEXT_MAX 4
#define NET_CONTEXT_RECV_Q_MAX 8 /* packets a socket holds before new ones are dropped */
#define NET_CONTEXT_ERRQ_LEN 4   /* transmit timestamps kept until read */

/* A transmit timestamp: which datagram, and when the device had sent it (us since boot). */
struct net_context_tstamp {
	uint32_t tskey;
	uint64_t us;
};

struct net_context {
	struct k_mutex lock;
	struct net_conn *conn_handler;
	struct net_if *iface;
	struct sockaddr_in local; /* bound address and port (network order) */
	struct k_fifo recv_q; /* poll() waits on it with K_POLL_TYPE_FIFO_DATA_AVAILABLE */
	uint32_t rcvbuf;      /* SO_RCVBUF: bytes recv_q may hold (0: only the count limit) */
	uint32_t rx_queued_bytes;
	struct k_condvar recv_cond; /* signalled with lock held when a datagram is queued */
	struct sockaddr_in remote; /* the peer of a connected socket */
	int32_t rcvtimeo_ms; /* -1: block forever */
	int32_t sndtimeo_ms;
	uint8_t ttl, mcast_ttl; /* 0: the interface's */
	uint8_t priority;       /* SO_PRIORITY: the traffic class of what it sends */
	bool recv_pktinfo;      /* IP_PKTINFO: recvmsg reports where each datagram went */
	bool timestamp;         /* SO_TIMESTAMP: recvmsg reports when it was received */
	uint32_t timestamping;  /* SO_TIMESTAMPING flags */
	uint32_t tskey_next;    /* the number of the next timestamped datagram */
	struct net_context_tstamp errq[NET_CONTEXT_ERRQ_LEN]; /* the error queue (a ring) */
	uint8_t errq_head, errq_count;
	uint32_t errq_drops;
	struct k_poll_signal errq_sig; /* raised while the error queue is not empty */
	bool broadcast;         /* SO_BROADCAST: sending to broadcast addresses allowed */
	struct net_context_stats {
		uint32_t rx_pkts, rx_bytes, rx_drops;
		uint32_t tx_pkts, tx_bytes, tx_errors;
		uint32_t tx_done; /* left the device */
	} stats;
	int error; /* the last asynchronous error (SO_ERROR) */
	void (*send_cb)(struct net_context *ctx, int status, void *user_data);
	void *send_cb_data;
	uint32_t rx_drops;
	uint8_t family, type, proto;
	bool in_use, bound, connected;
};

/* 0 and a new context, or -EAFNOSUPPORT / -EPROTONOSUPPORT / -ENOMEM. */
int net_context_get(int family, int type, int proto, struct net_context **ctx);
/* Unbinds, frees queued packets and the context. */
int net_context_put(struct net_context *ctx);
/* 0, or -EINVAL / -EADDRINUSE / -EADDRNOTAVAIL. Port 0: an ephemeral port. */
int net_context_bind(struct net_context *ctx, const struct sockaddr_in *addr);
/* Sets the peer (binding first if needed): only its datagrams arrive from now on. */
int net_context_connect(struct net_context *ctx, const struct sockaddr_in *addr);
/* One datagram to send: its data in pieces, where it goes (NULL: the connected peer), and
 * optionally the source address and interface (IP_PKTINFO; 0 / NULL: by the route). */
struct net_context_tx {
	const struct iovec *iov;
	size_t iovlen;
	const struct sockaddr_in *dst;
	const struct in_addr *src;
	int ifindex; /* 1-based */
};
/* Sends tx. Returns the bytes sent, or a negative errno. */
int net_context_send(struct net_context *ctx, const struct net_context_tx *tx,
		     k_timeout_t timeout);
/* Sends one datagram (dst NULL: to the connected peer). Returns len, or a negative errno. */
int net_context_sendto(struct net_context *ctx, const void *buf, size_t len,
		       const struct sockaddr_in *dst, k_timeout_t timeout);
/* The next received packet (its cursor at the payload), NULL on timeout. peek: it stays
 * queued (the caller gets a reference of its own). */
struct net_pkt *net_context_recv_pkt(struct net_context *ctx, k_timeout_t timeout, bool peek);
/* A packet of ctx has left the device (status 0) or failed in the TX path: statistics,
 * SO_ERROR, and the user's send callback. TX thread. */
void net_context_sent(struct net_context *ctx, int status, const struct net_pkt *pkt);
/* The oldest transmit timestamp of the error queue: 0, or -EAGAIN when it is empty. */
int net_context_errq_get(struct net_context *ctx, struct net_context_tstamp *ts);
static inline bool net_context_errq_pending(const struct net_context *ctx)
{
	return ctx->errq_count != 0;
}
/* Socket-level options the context keeps (SOL_SOCKET / IPPROTO_IP option numbers). 0, or
 * -ENOPROTOOPT / -EINVAL. */
int net_context_set_option(struct net_context *ctx, int level, int name, const void *value,
			   size_t len);
int net_context_get_option(struct net_context *ctx, int level, int name, void *value,
			   size_t *len);
/* Joins (true) or leaves a multicast group on iface. */
int net_context_mcast(struct net_context *ctx, struct net_if *iface, const struct in_addr *group,
		      bool join);
bool net_context_readable(struct net_context *ctx);

#endif
