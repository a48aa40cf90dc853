/* net_context.c: UDP contexts: binding through the connection table, the receive queue
 * the connection callback fills, datagram output, poll signalling. */
#include "net/net_core.h"
#include "net/socket.h"
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

int net_context_get(int family, int type, int proto, struct net_context **ctx)
{
	if (family != AF_INET)
		return -EAFNOSUPPORT;
	if (type != SOCK_DGRAM || (proto != IPPROTO_UDP && proto != 0))
		return -EPROTONOSUPPORT;
	k_mutex_lock(&contexts_lock, K_FOREVER);
	for (int i = 0; i < NET_CONTEXT_MAX; i++) {
		struct net_context *c = &contexts[i];
		if (c->in_use)
			continue;
		memset(c, 0, sizeof(*c));
		c->in_use = true;
		c->family = (uint8_t)family;
		c->type = (uint8_t)type;
		c->proto = IPPROTO_UDP;
		c->rcvtimeo_ms = -1;
		c->sndtimeo_ms = -1;
		k_mutex_init(&c->lock);
		k_fifo_init(&c->recv_q);
		k_condvar_init(&c->recv_cond);
		*ctx = c;
		k_mutex_unlock(&contexts_lock);
		return 0;
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
	if (k_fifo_count(&ctx->recv_q) >= NET_CONTEXT_RECV_Q_MAX) {
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
	pkt->appdata_offset = (uint16_t)net_pkt_get_current_offset(pkt);
	pkt->appdata_len = (uint16_t)(ntohs(udp_hdr->len) - NET_UDPH_LEN);
	net_stats_update_rx_time(pkt->iface, pkt);
	ctx->stats.rx_pkts++;
	ctx->stats.rx_bytes += pkt->appdata_len;
	LOG_DBG("ctx %p: %u bytes queued (%u waiting)", ctx, pkt->appdata_len,
		(unsigned)k_fifo_count(&ctx->recv_q) + 1);
	k_mutex_lock(&ctx->lock, K_FOREVER);
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

int net_context_bind(struct net_context *ctx, const struct sockaddr_in *addr)
{
	if (addr->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	if (!net_ipv4_is_addr_unspecified(&addr->sin_addr) &&
	    !net_if_ipv4_addr_lookup(&addr->sin_addr, NULL))
		return -EADDRNOTAVAIL;

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
	if (dst->sin_port == 0 || net_ipv4_is_addr_unspecified(&dst->sin_addr))
		return -EDESTADDRREQ;
	if (net_ipv4_is_addr_bcast_all(&dst->sin_addr) && !ctx->broadcast)
		return -EACCES; /* broadcasts need SO_BROADCAST, as in BSD */
	*out = dst;
	return 0;
}

/* The interface and source address toward dst; binds an ephemeral port if needed. */
static int context_route(struct net_context *ctx, const struct in_addr *dst,
			 struct net_if **iface, const struct in_addr **src)
{
	if (!ctx->bound) {
		struct sockaddr_in any = {.sin_family = AF_INET};
		int ret = net_context_bind(ctx, &any);
		if (ret)
			return ret;
	}
	*iface = net_if_ipv4_select_src_iface(dst);
	if (!*iface)
		return -ENETUNREACH;
	if (net_if_ipv4_is_addr_bcast(*iface, dst) && !ctx->broadcast)
		return -EACCES;
	*src = net_ipv4_is_addr_unspecified(&ctx->local.sin_addr)
		       ? net_if_ipv4_select_src_addr(*iface, dst)
		       : &ctx->local.sin_addr;
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
	struct net_pkt *pkt = net_pkt_alloc_with_buffer(iface, len, AF_INET, IPPROTO_UDP, timeout);
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

/* Headers and data of a UDP datagram, ready to send. */
static int context_setup_udp_packet(struct net_context *ctx, struct net_pkt *pkt,
				    const struct in_addr *src, const struct sockaddr_in *dst,
				    const void *buf, size_t len)
{
	int ret = net_ipv4_create(pkt, src, &dst->sin_addr);
	if (!ret)
		ret = net_udp_create(pkt, ctx->local.sin_port, dst->sin_port);
	if (!ret)
		ret = net_pkt_write(pkt, buf, len);
	if (ret)
		return ret;
	net_pkt_cursor_init(pkt);
	return net_ipv4_finalize(pkt, IPPROTO_UDP);
}

int net_context_sendto(struct net_context *ctx, const void *buf, size_t len,
		       const struct sockaddr_in *dst, k_timeout_t timeout)
{
	const struct sockaddr_in *to;
	struct net_if *iface;
	const struct in_addr *src;
	int ret = context_dst(ctx, dst, &to);
	if (!ret)
		ret = context_route(ctx, &to->sin_addr, &iface, &src);
	if (ret) {
		ctx->stats.tx_errors++;
		return ret;
	}
	if (len > (size_t)iface->mtu - NET_IPV4_HDR_LEN - NET_UDPH_LEN)
		return -EMSGSIZE;

	k_mutex_lock(&ctx->lock, K_FOREVER);
	ret = -ENOBUFS;
	struct net_pkt *pkt = context_alloc_pkt(ctx, iface, &to->sin_addr, len, timeout);
	if (!pkt)
		goto out;
	ret = context_setup_udp_packet(ctx, pkt, src, to, buf, len);
	if (!ret)
		ret = net_send_data(pkt);
	if (ret < 0) {
		net_pkt_unref(pkt);
		goto out;
	}
	NET_STATS_INC(iface, udp.sent);
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

void net_context_sent(struct net_context *ctx, int status)
{
	if (!ctx->in_use)
		return; /* closed while its packet was on the way */
	if (status) {
		ctx->stats.tx_errors++;
		ctx->error = -status;
		LOG_DBG("ctx %p: send failed (%d)", ctx, status);
	} else {
		ctx->stats.tx_done++;
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
	}
	k_mutex_unlock(&ctx->lock);
	net_pkt_seek(pkt, pkt->appdata_offset);
	return pkt;
}

bool net_context_readable(struct net_context *ctx)
{
	return !k_fifo_is_empty(&ctx->recv_q);
}
