/* net_context.h: network contexts, the transport end points behind sockets (UDP): binding,
 * a receive queue, sending, and readiness signalling for poll. */
#ifndef NET_CONTEXT_H
#define NET_CONTEXT_H

#include "net/net_ip.h"
#include "net/net_pkt.h"
#include "net_private.h"

#define NET_CONTEXT_MAX 4
#define NET_CONTEXT_RECV_Q_MAX 8 /* packets a socket holds before new ones are dropped */

struct net_context {
	struct k_mutex lock;
	struct net_conn *conn_handler;
	struct net_if *iface;
	struct sockaddr_in local; /* bound address and port (network order) */
	struct k_fifo recv_q; /* poll() waits on it with K_POLL_TYPE_FIFO_DATA_AVAILABLE */
	int32_t rcvtimeo_ms; /* -1: block forever */
	uint32_t rx_drops;
	uint8_t family, type, proto;
	bool in_use, bound;
};

/* 0 and a new context, or -EAFNOSUPPORT / -EPROTONOSUPPORT / -ENOMEM. */
int net_context_get(int family, int type, int proto, struct net_context **ctx);
/* Unbinds, frees queued packets and the context. */
int net_context_put(struct net_context *ctx);
/* 0, or -EINVAL / -EADDRINUSE / -EADDRNOTAVAIL. Port 0: an ephemeral port. */
int net_context_bind(struct net_context *ctx, const struct sockaddr_in *addr);
/* Sends one datagram. Returns len, or a negative errno. */
int net_context_sendto(struct net_context *ctx, const void *buf, size_t len,
		       const struct sockaddr_in *dst, k_timeout_t timeout);
/* The next received packet (its cursor at the payload), NULL on timeout. */
struct net_pkt *net_context_recv_pkt(struct net_context *ctx, k_timeout_t timeout);
bool net_context_readable(struct net_context *ctx);

#endif
