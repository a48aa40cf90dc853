/* connection.c: the connection handler table: which socket (context) a received transport
 * packet belongs to, by protocol, ports and addresses, the most specific binding first;
 * and the raw handlers, which get a copy of every IPv4 datagram of their protocol before
 * the protocol itself sees it (raw sockets). */
#include "net_private.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_conn, LOG_LEVEL_WRN);

#define NET_MAX_CONN 8

static struct net_conn conns[NET_MAX_CONN];
static struct k_mutex conn_lock;
static bool conn_lock_ready;

static void conn_lock_init(void)
{
	if (!conn_lock_ready) {
		k_mutex_init(&conn_lock);
		conn_lock_ready = true;
	}
}

static uint8_t conn_flags(const struct sockaddr_in *remote, const struct sockaddr_in *local)
{
	uint8_t flags = 0;
	if (remote && !net_ipv4_is_addr_unspecified(&remote->sin_addr))
		flags |= NET_CONN_REMOTE_ADDR_SET;
	if (remote && remote->sin_port)
		flags |= NET_CONN_REMOTE_PORT_SET;
	if (local && !net_ipv4_is_addr_unspecified(&local->sin_addr))
		flags |= NET_CONN_LOCAL_ADDR_SET;
	if (local && local->sin_port)
		flags |= NET_CONN_LOCAL_PORT_SET;
	return flags;
}

static bool conn_same_binding(const struct net_conn *c, uint8_t proto, uint8_t flags,
			      const struct sockaddr_in *remote, const struct sockaddr_in *local)
{
	if (c->proto != proto || (c->flags & ~NET_CONN_IN_USE) != flags)
		return false;
	if ((flags & NET_CONN_LOCAL_PORT_SET) && c->local.sin_port != local->sin_port)
		return false;
	if ((flags & NET_CONN_LOCAL_ADDR_SET) &&
	    !net_ipv4_addr_cmp(&c->local.sin_addr, &local->sin_addr))
		return false;
	if ((flags & NET_CONN_REMOTE_PORT_SET) && c->remote.sin_port != remote->sin_port)
		return false;
	if ((flags & NET_CONN_REMOTE_ADDR_SET) &&
	    !net_ipv4_addr_cmp(&c->remote.sin_addr, &remote->sin_addr))
		return false;
	return true;
}

int net_conn_register(uint8_t proto, const struct sockaddr_in *remote,
		      const struct sockaddr_in *local, net_conn_cb_t cb, void *user_data,
		      struct net_conn **handle)
{
	conn_lock_init();
	uint8_t flags = conn_flags(remote, local);
	struct net_conn *free_slot = NULL;
	k_mutex_lock(&conn_lock, K_FOREVER);
	for (int i = 0; i < NET_MAX_CONN; i++) {
		struct net_conn *c = &conns[i];
		if (!(c->flags & NET_CONN_IN_USE)) {
			if (!free_slot)
				free_slot = c;
			continue;
		}
		if (conn_same_binding(c, proto, flags, remote, local)) {
			k_mutex_unlock(&conn_lock);
			return -EALREADY;
		}
	}
	if (!free_slot) {
		k_mutex_unlock(&conn_lock);
		return -ENOENT;
	}
	memset(free_slot, 0, sizeof(*free_slot));
	if (remote)
		free_slot->remote = *remote;
	if (local)
		free_slot->local = *local;
	free_slot->proto = proto;
	free_slot->cb = cb;
	free_slot->user_data = user_data;
	free_slot->flags = flags | NET_CONN_IN_USE;
	*handle = free_slot;
	k_mutex_unlock(&conn_lock);
	LOG_DBG("registered proto %u local port %u", proto, ntohs(local ? local->sin_port : 0));
	return 0;
}

int net_conn_register_raw(uint8_t proto, const struct sockaddr_in *local, net_conn_cb_t cb,
			  void *user_data, struct net_conn **handle)
{
	conn_lock_init();
	k_mutex_lock(&conn_lock, K_FOREVER);
	for (int i = 0; i < NET_MAX_CONN; i++) {
		struct net_conn *c = &conns[i];
		if (c->flags & NET_CONN_IN_USE)
			continue;
		memset(c, 0, sizeof(*c));
		if (local)
			c->local = *local;
		c->proto = proto;
		c->cb = cb;
		c->user_data = user_data;
		c->flags = (uint8_t)(conn_flags(NULL, local) | NET_CONN_RAW | NET_CONN_IN_USE);
		*handle = c;
		k_mutex_unlock(&conn_lock);
		LOG_DBG("registered raw proto %u", proto);
		return 0;
	}
	k_mutex_unlock(&conn_lock);
	return -ENOENT;
}

int net_conn_unregister(struct net_conn *handle)
{
	if (handle < conns || handle >= conns + NET_MAX_CONN)
		return -EINVAL;
	conn_lock_init();
	k_mutex_lock(&conn_lock, K_FOREVER);
	handle->flags = 0;
	k_mutex_unlock(&conn_lock);
	return 0;
}

/* How well c matches: -1 not at all, else one point per field it pins down. */
static int conn_rank(const struct net_conn *c, uint8_t proto, const struct in_addr *src,
		     const struct in_addr *dst, uint16_t src_port, uint16_t dst_port)
{
	if ((c->flags & (NET_CONN_IN_USE | NET_CONN_RAW)) != NET_CONN_IN_USE || c->proto != proto)
		return -1;
	int rank = 0;
	if (c->flags & NET_CONN_LOCAL_PORT_SET) {
		if (c->local.sin_port != dst_port)
			return -1;
		rank++;
	}
	if (c->flags & NET_CONN_REMOTE_PORT_SET) {
		if (c->remote.sin_port != src_port)
			return -1;
		rank++;
	}
	if (c->flags & NET_CONN_LOCAL_ADDR_SET) {
		if (!net_ipv4_addr_cmp(&c->local.sin_addr, dst))
			return -1;
		rank++;
	}
	if (c->flags & NET_CONN_REMOTE_ADDR_SET) {
		if (!net_ipv4_addr_cmp(&c->remote.sin_addr, src))
			return -1;
		rank++;
	}
	return rank;
}

enum net_verdict net_conn_input(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr, uint8_t proto,
				struct net_udp_hdr *proto_hdr)
{
	struct in_addr src, dst;
	memcpy(&src, ip_hdr->src, sizeof(src));
	memcpy(&dst, ip_hdr->dst, sizeof(dst));

	struct net_conn *best = NULL;
	int best_rank = -1;
	for (int i = 0; i < NET_MAX_CONN; i++) {
		int rank = conn_rank(&conns[i], proto, &src, &dst, proto_hdr->src_port,
				     proto_hdr->dst_port);
		if (rank > best_rank) {
			best_rank = rank;
			best = &conns[i];
		}
	}
	if (!best) {
		LOG_DBG("no handler for port %u", ntohs(proto_hdr->dst_port));
		return NET_DROP;
	}
	best->delivered++;
	LOG_DBG("port %u: handler %p (rank %d)", ntohs(proto_hdr->dst_port), best, best_rank);
	return best->cb(best, pkt, ip_hdr, proto_hdr, best->user_data);
}

/* Whether raw handler c wants a datagram of proto to dst. */
static bool conn_raw_match(const struct net_conn *c, uint8_t proto, const struct in_addr *dst)
{
	if ((c->flags & (NET_CONN_IN_USE | NET_CONN_RAW)) != (NET_CONN_IN_USE | NET_CONN_RAW))
		return false;
	if (c->proto != proto)
		return false;
	return !(c->flags & NET_CONN_LOCAL_ADDR_SET) || net_ipv4_addr_cmp(&c->local.sin_addr, dst);
}

int net_conn_raw_ip_input(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr, uint8_t proto)
{
	struct in_addr dst;
	memcpy(&dst, ip_hdr->dst, sizeof(dst));
	int delivered = 0;
	for (int i = 0; i < NET_MAX_CONN; i++) {
		struct net_conn *c = &conns[i];
		if (!conn_raw_match(c, proto, &dst))
			continue;
		/* Each raw handler gets its own packet over the same data (nothing changes the
		 * datagram from here on); the original goes on to the protocol. */
		struct net_pkt *clone = net_pkt_shallow_clone(pkt, K_NO_WAIT);
		if (!clone) {
			LOG_DBG("raw proto %u: no packet for a copy", proto);
			NET_STATS_INC(pkt->iface, ipv4.raw_drop);
			continue;
		}
		c->delivered++;
		if (c->cb(c, clone, net_pkt_ip_hdr(clone), NULL, c->user_data) == NET_DROP)
			net_pkt_unref(clone);
		else
			delivered++;
	}
	return delivered;
}
