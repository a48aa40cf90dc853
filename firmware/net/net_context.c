/* net_context.c: UDP and raw IPv4 contexts: binding through the connection table, the
 * receive queue the connection callback fills, datagram output, poll signalling. */
#include "net/net_core.h"
#include "net/socket.h"
#include "net/checksum.h"
#include "net_context.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_ctx, LOG_LEVEL_WRN);

#define EPHEMERAL_PORT_FIRST 49152u

static struct net_context contexts[NET_CONTEXT_MAX];
static struct k_mutex contexts_lock;
static uint16_t next_ephemeral = EPHEMERAL_PORT_FIRST;

void net_context_init(void)
{
	k_mutex_init(&contexts_lock);
}

static enum net_verdict context_recv(struct net_conn *conn, struct net_pkt *pkt,
				     struct net_ipv4_hdr *ip_hdr, struct net_udp_hdr *udp_hdr,
				     void *user_data);

int net_context_get(int family, int type, int proto, struct net_context **ctx)
{
	if (family != AF_INET)
		return -EAFNOSUPPORT;
	if (type == SOCK_DGRAM && proto == 0)
		proto = IPPROTO_UDP;
	if (type == SOCK_DGRAM && proto != IPPROTO_UDP)
		return -EPROTONOSUPPORT;
	/* Raw sockets of a protocol the stack knows (IPPROTO_RAW, send-only, is not kept). */
	if (type == SOCK_RAW && (proto <= 0 || proto >= 255))
		return -EPROTONOSUPPORT;
	if (type != SOCK_DGRAM && type != SOCK_RAW)
		return -EPROTOTYPE;
	k_mutex_lock(&contexts_lock, K_FOREVER);
	for (int i = 0; i < NET_CONTEXT_MAX; i++) {
		struct net_context *c = &contexts[i];
		if (c->in_use)
			continue;
		memset(c, 0, sizeof(*c));
		c->in_use = true;
		c->family = (uint8_t)family;
		c->type = (uint8_t)type;
		c->proto = (uint8_t)proto;
		c->rcvtimeo_ms = -1;
		c->sndtimeo_ms = -1;
		k_mutex_init(&c->lock);
		k_fifo_init(&c->recv_q);
		k_condvar_init(&c->recv_cond);
		k_poll_signal_init(&c->errq_sig);
		int ret = 0;
		if (type == SOCK_RAW) {
			/* A raw socket hears its protocol from the start (no bind needed). */
			ret = net_conn_register_raw(c->proto, NULL, context_recv, c, &c->conn_handler);
			if (ret)
				c->in_use = false;
		}
		if (!ret)
			*ctx = c;
		k_mutex_unlock(&contexts_lock);
		return ret;
	}
	k_mutex_unlock(&contexts_lock);
	return -ENOMEM;
}

int net_context_put(struct net_context *ctx)
{
	k_mutex_lock(&ctx->lock, K_FOREVER);
	if (ctx->conn_handler)
		net_conn_unregister(ctx->conn_handler);
	ctx->conn_handler = NULL;
	struct net_pkt *pkt;
	while ((pkt = k_fifo_get(&ctx->recv_q, K_NO_WAIT)) != NULL)
		net_pkt_unref(pkt);
	ctx->rx_queued_bytes = 0;
	k_mutex_unlock(&ctx->lock);
	k_mutex_lock(&contexts_lock, K_FOREVER);
	ctx->in_use = false;
	k_mutex_unlock(&contexts_lock);
	return 0;
}

/* The connection callback (RX thread): queue the datagram for the socket; the queue wakes
 * a reader or a poller. */
static enum net_verdict context_recv(struct net_conn *conn, struct net_pkt *pkt,
				     struct net_ipv4_hdr *ip_hdr, struct net_udp_hdr *udp_hdr,
				     void *user_data)
{
	struct net_context *ctx = user_data;
	UNUSED(conn);
	UNUSED(ip_hdr);
	uint32_t bytes = (uint32_t)net_pkt_get_len(pkt);
	/* The byte limit never refuses a datagram to an empty queue: one always fits. */
	bool over_rcvbuf = ctx->rcvbuf && ctx->rx_queued_bytes &&
			   ctx->rx_queued_bytes + bytes > ctx->rcvbuf;
	if (k_fifo_count(&ctx->recv_q) >= NET_CONTEXT_RECV_Q_MAX || over_rcvbuf) {
		/* The socket exists but cannot keep up: its drop, not a closed port (no ICMP
		 * error, which would only add load). */
		ctx->rx_drops++;
		ctx->stats.rx_drops++;
		NET_STATS_INC(pkt->iface, udp.drop);
		LOG_DBG("ctx %p: receive queue full: dropped", ctx);
		net_pkt_unref(pkt);
		return NET_OK;
	}
	pkt->context = ctx;
	if (udp_hdr) {
		pkt->appdata_offset = (uint16_t)net_pkt_get_current_offset(pkt);
		pkt->appdata_len = (uint16_t)(ntohs(udp_hdr->len) - NET_UDPH_LEN);
	} else {
		/* Raw: the whole datagram, IPv4 header included, as BSD raw sockets read. */
		pkt->appdata_offset = 0;
		pkt->appdata_len = (uint16_t)net_pkt_get_len(pkt);
	}
	net_stats_update_rx_time(pkt->iface, pkt);
	ctx->stats.rx_pkts++;
	ctx->stats.rx_bytes += pkt->appdata_len;
	LOG_DBG("ctx %p: %u bytes queued (%u waiting)", ctx, pkt->appdata_len,
		(unsigned)k_fifo_count(&ctx->recv_q) + 1);
	k_mutex_lock(&ctx->lock, K_FOREVER);
	ctx->rx_queued_bytes += bytes;
	k_fifo_put(&ctx->recv_q, pkt);
	k_condvar_signal(&ctx->recv_cond);
	k_mutex_unlock(&ctx->lock);
	return NET_OK;
}

static bool port_in_use(uint16_t port)
{
	for (int i = 0; i < NET_CONTEXT_MAX; i++)
		if (contexts[i].in_use && contexts[i].bound && contexts[i].local.sin_port == port)
			return true;
	return false;
}

/* A raw socket's bind only narrows what it hears to one local address. */
static int context_bind_raw(struct net_context *ctx, const struct sockaddr_in *addr)
{
	struct sockaddr_in local = {.sin_family = AF_INET, .sin_addr = addr->sin_addr};
	k_mutex_lock(&ctx->lock, K_FOREVER);
	if (ctx->conn_handler)
		net_conn_unregister(ctx->conn_handler);
	ctx->conn_handler = NULL;
	int ret = net_conn_register_raw(ctx->proto, &local, context_recv, ctx, &ctx->conn_handler);
	if (ret == 0) {
		ctx->local = local;
		ctx->bound = true;
	}
	k_mutex_unlock(&ctx->lock);
	return ret;
}

int net_context_bind(struct net_context *ctx, const struct sockaddr_in *addr)
{
	if (addr->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	if (!net_ipv4_is_addr_unspecified(&addr->sin_addr) &&
	    !net_if_ipv4_addr_lookup(&addr->sin_addr, NULL))
		return -EADDRNOTAVAIL;
	if (ctx->type == SOCK_RAW)
		return context_bind_raw(ctx, addr);

	k_mutex_lock(&contexts_lock, K_FOREVER);
	struct sockaddr_in local = *addr;
	if (local.sin_port == 0) {
		do {
			local.sin_port = htons(next_ephemeral);
			if (++next_ephemeral == 0)
				next_ephemeral = EPHEMERAL_PORT_FIRST;
		} while (port_in_use(local.sin_port));
	} else if (port_in_use(local.sin_port)) {
		k_mutex_unlock(&contexts_lock);
		return -EADDRINUSE;
	}
	k_mutex_lock(&ctx->lock, K_FOREVER);
	if (ctx->conn_handler)
		net_conn_unregister(ctx->conn_handler);
	int ret = net_conn_register(IPPROTO_UDP, ctx->connected ? &ctx->remote : NULL, &local,
				    context_recv, ctx, &ctx->conn_handler);
	if (ret == 0) {
		ctx->local = local;
		ctx->bound = true;
	}
	k_mutex_unlock(&ctx->lock);
	k_mutex_unlock(&contexts_lock);
	return ret == -EALREADY ? -EADDRINUSE : ret;
}

int net_context_connect(struct net_context *ctx, const struct sockaddr_in *addr)
{
	if (addr->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	if (ctx->type == SOCK_RAW) {
		/* Only the default destination: raw sockets hear every sender. */
		if (net_ipv4_is_addr_unspecified(&addr->sin_addr))
			return -EDESTADDRREQ;
		k_mutex_lock(&ctx->lock, K_FOREVER);
		ctx->remote = *addr;
		ctx->connected = true;
		k_mutex_unlock(&ctx->lock);
		return 0;
	}
	if (addr->sin_port == 0 || net_ipv4_is_addr_unspecified(&addr->sin_addr))
		return -EDESTADDRREQ;
	if (!net_if_ipv4_select_src_iface(&addr->sin_addr))
		return -ENETUNREACH;
	k_mutex_lock(&ctx->lock, K_FOREVER);
	ctx->remote = *addr;
	ctx->connected = true;
	struct sockaddr_in local = ctx->local;
	bool bound = ctx->bound;
	k_mutex_unlock(&ctx->lock);
	/* (Re)binding registers the connection with the peer as a filter. */
	if (!bound) {
		local.sin_family = AF_INET;
		local.sin_port = 0;
		local.sin_addr.s_addr = INADDR_ANY;
	}
	k_mutex_lock(&contexts_lock, K_FOREVER);
	k_mutex_lock(&ctx->lock, K_FOREVER);
	if (ctx->conn_handler)
		net_conn_unregister(ctx->conn_handler);
	ctx->conn_handler = NULL;
	ctx->bound = false;
	k_mutex_unlock(&ctx->lock);
	k_mutex_unlock(&contexts_lock);
	return net_context_bind(ctx, &local);
}

int net_context_mcast(struct net_context *ctx, struct net_if *iface, const struct in_addr *group,
		      bool join)
{
	UNUSED(ctx);
	if (!net_ipv4_is_addr_mcast(group))
		return -EINVAL;
	if (!iface)
		iface = net_if_get_default();
	if (!iface)
		return -ENODEV;
	return join ? net_ipv4_igmp_join(iface, group) : net_ipv4_igmp_leave(iface, group);
}

/* Where a datagram goes: the explicit destination or the connected peer, checked. */
static int context_dst(struct net_context *ctx, const struct sockaddr_in *dst,
		       const struct sockaddr_in **out)
{
	if (!dst) {
		if (!ctx->connected)
			return -EDESTADDRREQ;
		dst = &ctx->remote;
	}
	if (dst->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	if (net_ipv4_is_addr_unspecified(&dst->sin_addr))
		return -EDESTADDRREQ;
	if (ctx->type == SOCK_DGRAM && dst->sin_port == 0)
		return -EDESTADDRREQ;
	if (net_ipv4_is_addr_bcast_all(&dst->sin_addr) && !ctx->broadcast)
		return -EACCES; /* broadcasts need SO_BROADCAST, as in BSD */
	*out = dst;
	return 0;
}

/* The source address the caller asked for (IP_PKTINFO): one of the host's own, on the
 * interface the route takes, or nothing. */
static int context_check_src(struct net_if *iface, const struct in_addr *want)
{
	struct net_if *owner = NULL;
	if (!net_if_ipv4_addr_lookup(want, &owner))
		return -EADDRNOTAVAIL;
	return owner == iface ? 0 : -EINVAL;
}

/* The interface and source address toward dst (the caller's choice in tx, else the bound
 * address, else the route's); binds an ephemeral port if needed. */
static int context_route(struct net_context *ctx, const struct net_context_tx *tx,
			 const struct in_addr *dst, struct net_if **iface,
			 const struct in_addr **src)
{
	if (!ctx->bound && ctx->type == SOCK_DGRAM) {
		struct sockaddr_in any = {.sin_family = AF_INET};
		int ret = net_context_bind(ctx, &any);
		if (ret)
			return ret;
	}
	*iface = tx->ifindex > 0 ? net_if_get(tx->ifindex - 1) : net_if_ipv4_select_src_iface(dst);
	if (!*iface)
		return -ENETUNREACH;
	if (net_if_ipv4_is_addr_bcast(*iface, dst) && !ctx->broadcast)
		return -EACCES;
	if (tx->src && !net_ipv4_is_addr_unspecified(tx->src)) {
		int ret = context_check_src(*iface, tx->src);
		if (ret)
			return ret;
		*src = tx->src;
	} else if (!net_ipv4_is_addr_unspecified(&ctx->local.sin_addr)) {
		*src = &ctx->local.sin_addr;
	} else {
		*src = net_if_ipv4_select_src_addr(*iface, dst);
	}
	if (!*src)
		return -EADDRNOTAVAIL;
	LOG_DBG("ctx %p: via %s", ctx, (*iface)->name);
	return 0;
}

/* A packet with room for len bytes of data, its metadata taken from the context. */
static struct net_pkt *context_alloc_pkt(struct net_context *ctx, struct net_if *iface,
					 const struct in_addr *dst, size_t len,
					 k_timeout_t timeout)
{
	struct net_pkt *pkt = net_pkt_alloc_with_buffer(iface, len, AF_INET, ctx->proto, timeout);
	if (!pkt) {
		LOG_DBG("ctx %p: no packet for %u bytes", ctx, (unsigned)len);
		return NULL;
	}
	pkt->context = ctx;
	pkt->priority = ctx->priority;
	if (net_ipv4_is_addr_mcast(dst))
		pkt->ipv4_ttl = ctx->mcast_ttl ? ctx->mcast_ttl : iface->ipv4.mcast_ttl;
	else
		pkt->ipv4_ttl = ctx->ttl ? ctx->ttl : iface->ipv4.ttl;
	return pkt;
}

/* The caller's data, piece by piece, at the packet's cursor. */
static int context_write_data(struct net_pkt *pkt, const struct net_context_tx *tx)
{
	for (size_t i = 0; i < tx->iovlen; i++) {
		const struct iovec *v = &tx->iov[i];
		if (v->iov_len && net_pkt_write(pkt, v->iov_base, v->iov_len))
			return -ENOBUFS;
	}
	return 0;
}

/* Headers and data of a raw socket's datagram, ready to send: the IPv4 header the stack
 * builds around the caller's message (the protocol's checksum is filled in). */
static int context_setup_packet(struct net_context *ctx, struct net_pkt *pkt,
				const struct in_addr *src, const struct sockaddr_in *dst,
				const struct net_context_tx *tx)
{
	int ret = net_ipv4_create(pkt, src, &dst->sin_addr);
	if (!ret)
		ret = context_write_data(pkt, tx);
	if (ret)
		return ret;
	net_pkt_cursor_init(pkt);
	return net_ipv4_finalize(pkt, ctx->proto);
}

/* Where the UDP builder's payload comes from: the caller's pieces, read in order. */
struct context_iov_src {
	const struct net_context_tx *tx;
	size_t idx, off; /* the piece and the offset in it */
};

static int context_getfrag(void *from, uint8_t *to, size_t offset, size_t len, uint32_t *csum)
{
	struct context_iov_src *s = from;
	UNUSED(offset); /* read in order: the source keeps the place */
	size_t done = 0;
	while (done < len) {
		if (s->idx >= s->tx->iovlen)
			return -EINVAL;
		const struct iovec *v = &s->tx->iov[s->idx];
		size_t n = MIN(v->iov_len - s->off, len - done);
		memcpy(to + done, (const uint8_t *)v->iov_base + s->off, n);
		done += n;
		s->off += n;
		if (s->off == v->iov_len) {
			s->idx++;
			s->off = 0;
		}
	}
	*csum = csum_partial(to, len, 0);
	return 0;
}

/* A UDP datagram through the datagram builder: the payload read once, the checksum summed
 * on the way. */
static struct net_pkt *context_build_udp(struct net_context *ctx, struct net_if *iface,
					 const struct in_addr *src, const struct sockaddr_in *dst,
					 const struct net_context_tx *tx, size_t len,
					 k_timeout_t timeout, int *err)
{
	struct net_udp_hdr udp = {.src_port = ctx->local.sin_port,
				  .dst_port = dst->sin_port,
				  .len = htons((uint16_t)(NET_UDPH_LEN + len)),
				  .chksum = 0};
	struct context_iov_src iov_src = {.tx = tx};
	uint8_t ttl = net_ipv4_is_addr_mcast(&dst->sin_addr)
			      ? (ctx->mcast_ttl ? ctx->mcast_ttl : iface->ipv4.mcast_ttl)
			      : (ctx->ttl ? ctx->ttl : iface->ipv4.ttl);
	const struct net_ipv4_datagram d = {
		.iface = iface,
		.src = src,
		.dst = &dst->sin_addr,
		.proto = IPPROTO_UDP,
		.priority = ctx->priority,
		.ttl = ttl,
		.pseudo_hdr = true,
		.l4_hdr = &udp,
		.l4_hdr_len = sizeof(udp),
		.l4_csum_offset = offsetof(struct net_udp_hdr, chksum),
		.payload_len = len,
		.getfrag = context_getfrag,
		.from = &iov_src,
		.context = ctx,
	};
	return net_ipv4_build(&d, timeout, err);
}

static size_t iov_total(const struct net_context_tx *tx)
{
	size_t len = 0;
	for (size_t i = 0; i < tx->iovlen; i++)
		len += tx->iov[i].iov_len;
	return len;
}

int net_context_send(struct net_context *ctx, const struct net_context_tx *tx,
		     k_timeout_t timeout)
{
	const struct sockaddr_in *to;
	struct net_if *iface;
	const struct in_addr *src;
	size_t len = iov_total(tx);
	int ret = context_dst(ctx, tx->dst, &to);
	if (!ret)
		ret = context_route(ctx, tx, &to->sin_addr, &iface, &src);
	if (ret) {
		ctx->stats.tx_errors++;
		return ret;
	}
	size_t hdrs = NET_IPV4_HDR_LEN + (ctx->type == SOCK_DGRAM ? NET_UDPH_LEN : 0);
	if (len > (size_t)iface->mtu - hdrs)
		return -EMSGSIZE;

	k_mutex_lock(&ctx->lock, K_FOREVER);
	ret = -ENOBUFS;
	struct net_pkt *pkt;
	if (ctx->type == SOCK_DGRAM) {
		pkt = context_build_udp(ctx, iface, src, to, tx, len, timeout, &ret);
		if (!pkt)
			goto out;
	} else {
		pkt = context_alloc_pkt(ctx, iface, &to->sin_addr, len, timeout);
		if (!pkt)
			goto out;
		ret = context_setup_packet(ctx, pkt, src, to, tx);
	}
	bool stamped = !ret && (ctx->timestamping & SOF_TIMESTAMPING_TX_SOFTWARE);
	if (stamped) {
		pkt->tx_timestamp = 1;
		pkt->tskey = ctx->tskey_next;
	}
	if (!ret)
		ret = net_send_data(pkt);
	if (ret < 0) {
		net_pkt_unref(pkt);
		goto out;
	}
	if (ctx->type == SOCK_DGRAM)
		NET_STATS_INC(iface, udp.sent);
	if (stamped)
		ctx->tskey_next++;
	ctx->stats.tx_pkts++;
	ctx->stats.tx_bytes += len;
	LOG_DBG("ctx %p: %u bytes to port %u", ctx, (unsigned)len, ntohs(to->sin_port));
	ret = (int)len;
out:
	if (ret < 0)
		ctx->stats.tx_errors++;
	k_mutex_unlock(&ctx->lock);
	return ret;
}

int net_context_sendto(struct net_context *ctx, const void *buf, size_t len,
		       const struct sockaddr_in *dst, k_timeout_t timeout)
{
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct net_context_tx tx = {.iov = &iov, .iovlen = 1, .dst = dst};
	return net_context_send(ctx, &tx, timeout);
}

/* A transmit timestamp onto the error queue (TX thread). A full queue drops the newest:
 * the reader is not keeping up, and the old ones are what it will ask for next. */
static void context_errq_put(struct net_context *ctx, uint32_t tskey)
{
	uint64_t now = k_cycle_get_64();
	unsigned key = irq_lock();
	if (ctx->errq_count == NET_CONTEXT_ERRQ_LEN) {
		ctx->errq_drops++;
		irq_unlock(key);
		return;
	}
	struct net_context_tstamp *ts =
		&ctx->errq[(ctx->errq_head + ctx->errq_count) % NET_CONTEXT_ERRQ_LEN];
	ts->tskey = tskey;
	ts->us = now;
	ctx->errq_count++;
	irq_unlock(key);
	k_poll_signal_raise(&ctx->errq_sig, 0);
}

int net_context_errq_get(struct net_context *ctx, struct net_context_tstamp *ts)
{
	unsigned key = irq_lock();
	if (!ctx->errq_count) {
		irq_unlock(key);
		return -EAGAIN;
	}
	*ts = ctx->errq[ctx->errq_head];
	ctx->errq_head = (uint8_t)((ctx->errq_head + 1) % NET_CONTEXT_ERRQ_LEN);
	if (--ctx->errq_count == 0)
		k_poll_signal_reset(&ctx->errq_sig);
	irq_unlock(key);
	return 0;
}

void net_context_sent(struct net_context *ctx, int status, const struct net_pkt *pkt)
{
	if (!ctx->in_use)
		return; /* closed while its packet was on the way */
	if (status) {
		ctx->stats.tx_errors++;
		ctx->error = -status;
		LOG_DBG("ctx %p: send failed (%d)", ctx, status);
	} else {
		ctx->stats.tx_done++;
		if (pkt->tx_timestamp)
			context_errq_put(ctx, pkt->tskey);
	}
	if (ctx->send_cb)
		ctx->send_cb(ctx, status, ctx->send_cb_data);
}

int net_context_set_option(struct net_context *ctx, int level, int name, const void *value,
			   size_t len)
{
	int32_t v;
	if (len < sizeof(v))
		return -EINVAL;
	memcpy(&v, value, sizeof(v));
	k_mutex_lock(&ctx->lock, K_FOREVER);
	int ret = 0;
	switch (level << 8 | name) {
	case SOL_SOCKET << 8 | SO_RCVTIMEO:
		ctx->rcvtimeo_ms = v;
		break;
	case SOL_SOCKET << 8 | SO_SNDTIMEO:
		ctx->sndtimeo_ms = v;
		break;
	case SOL_SOCKET << 8 | SO_BROADCAST:
		ctx->broadcast = v != 0;
		break;
	case SOL_SOCKET << 8 | SO_TIMESTAMP:
		ctx->timestamp = v != 0;
		break;
	case SOL_SOCKET << 8 | SO_RCVBUF:
		if (v < 0)
			ret = -EINVAL;
		else
			ctx->rcvbuf = (uint32_t)v;
		break;
	case SOL_SOCKET << 8 | SO_TIMESTAMPING:
		/* OPT_ID numbers from 0 again whenever it is switched on. */
		if ((v & SOF_TIMESTAMPING_OPT_ID) && !(ctx->timestamping & SOF_TIMESTAMPING_OPT_ID))
			ctx->tskey_next = 0;
		ctx->timestamping = (uint32_t)v;
		break;
	case IPPROTO_IP << 8 | IP_PKTINFO:
		ctx->recv_pktinfo = v != 0;
		break;
	case SOL_SOCKET << 8 | SO_PRIORITY:
		if (v < 0 || v > 7)
			ret = -EINVAL;
		else
			ctx->priority = (uint8_t)v;
		break;
	case IPPROTO_IP << 8 | IP_TTL:
		if (v < 0 || v > 255)
			ret = -EINVAL;
		else
			ctx->ttl = (uint8_t)v;
		break;
	case IPPROTO_IP << 8 | IP_MULTICAST_TTL:
		if (v < 0 || v > 255)
			ret = -EINVAL;
		else
			ctx->mcast_ttl = (uint8_t)v;
		break;
	default:
		ret = -ENOPROTOOPT;
		break;
	}
	k_mutex_unlock(&ctx->lock);
	return ret;
}

int net_context_get_option(struct net_context *ctx, int level, int name, void *value,
			   size_t *len)
{
	int32_t v;
	if (*len < sizeof(v))
		return -EINVAL;
	switch (level << 8 | name) {
	case SOL_SOCKET << 8 | SO_RCVTIMEO:
		v = ctx->rcvtimeo_ms;
		break;
	case SOL_SOCKET << 8 | SO_SNDTIMEO:
		v = ctx->sndtimeo_ms;
		break;
	case SOL_SOCKET << 8 | SO_BROADCAST:
		v = ctx->broadcast;
		break;
	case SOL_SOCKET << 8 | SO_TIMESTAMP:
		v = ctx->timestamp;
		break;
	case SOL_SOCKET << 8 | SO_RCVBUF:
		v = (int32_t)ctx->rcvbuf;
		break;
	case SOL_SOCKET << 8 | SO_TIMESTAMPING:
		v = (int32_t)ctx->timestamping;
		break;
	case IPPROTO_IP << 8 | IP_PKTINFO:
		v = ctx->recv_pktinfo;
		break;
	case SOL_SOCKET << 8 | SO_PRIORITY:
		v = ctx->priority;
		break;
	case SOL_SOCKET << 8 | SO_TYPE:
		v = ctx->type;
		break;
	case SOL_SOCKET << 8 | SO_ERROR:
		v = ctx->error;
		ctx->error = 0;
		break;
	case IPPROTO_IP << 8 | IP_TTL:
		v = ctx->ttl ? ctx->ttl : 64;
		break;
	case IPPROTO_IP << 8 | IP_MULTICAST_TTL:
		v = ctx->mcast_ttl ? ctx->mcast_ttl : 1;
		break;
	default:
		return -ENOPROTOOPT;
	}
	memcpy(value, &v, sizeof(v));
	*len = sizeof(v);
	return 0;
}

struct net_pkt *net_context_recv_pkt(struct net_context *ctx, k_timeout_t timeout, bool peek)
{
	k_timepoint_t deadline = sys_timepoint_calc(timeout);
	struct net_pkt *pkt;
	k_mutex_lock(&ctx->lock, K_FOREVER);
	/* Wait with the context lock released, until a datagram is queued or time is up. */
	while (k_fifo_is_empty(&ctx->recv_q)) {
		k_timeout_t left = sys_timepoint_timeout(deadline);
		if (k_timeout_is_no_wait(left) ||
		    k_condvar_wait(&ctx->recv_cond, &ctx->lock, left) == -EAGAIN) {
			if (k_fifo_is_empty(&ctx->recv_q)) {
				k_mutex_unlock(&ctx->lock);
				return NULL;
			}
		}
	}
	if (peek) {
		/* It stays queued; the caller gets a reference of its own. */
		pkt = k_fifo_peek_head(&ctx->recv_q);
		net_pkt_ref(pkt);
	} else {
		pkt = k_fifo_get(&ctx->recv_q, K_NO_WAIT);
		ctx->rx_queued_bytes -= MIN(ctx->rx_queued_bytes, (uint32_t)net_pkt_get_len(pkt));
	}
	k_mutex_unlock(&ctx->lock);
	net_pkt_seek(pkt, pkt->appdata_offset);
	return pkt;
}

bool net_context_readable(struct net_context *ctx)
{
	return !k_fifo_is_empty(&ctx->recv_q);
}
