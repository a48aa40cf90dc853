/* net_if.c: the network interface: registration, state, IPv4 addresses and source
 * selection, and the hand-over between the core and the link layer. */
#include "net/net_core.h"
#include "net_private.h"
#include "net_tc.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_if, LOG_LEVEL_INF);

static struct net_if *ifaces[NET_IF_MAX];
static int n_ifaces;

void net_if_register(struct net_if *iface)
{
	if (n_ifaces == NET_IF_MAX)
		k_panic("net_if: too many interfaces");
	k_mutex_init(&iface->lock);
	iface->link_addr.addr = iface->mac;
	iface->link_addr.len = NET_ETH_ADDR_LEN;
	if (!iface->mtu)
		iface->mtu = NET_ETH_MTU;
	if (!iface->ipv4.ttl)
		iface->ipv4.ttl = 64;
	if (!iface->ipv4.mcast_ttl)
		iface->ipv4.mcast_ttl = 1;
	ifaces[n_ifaces++] = iface;
	if (iface->flags & NET_IF_LOOPBACK)
		LOG_INF("%s: %s", iface->name, iface->l2->name);
	else
		LOG_INF("%s: %s, MAC %02x:%02x:%02x:%02x:%02x:%02x", iface->name, iface->l2->name,
			iface->mac[0], iface->mac[1], iface->mac[2], iface->mac[3], iface->mac[4],
			iface->mac[5]);
}

int net_if_count(void)
{
	return n_ifaces;
}

struct net_if *net_if_get(int index)
{
	return index >= 0 && index < n_ifaces ? ifaces[index] : NULL;
}

int net_if_get_index(const struct net_if *iface)
{
	for (int i = 0; i < n_ifaces; i++)
		if (ifaces[i] == iface)
			return i;
	return -1;
}

void net_if_foreach(void (*fn)(struct net_if *iface, void *ctx), void *ctx)
{
	for (int i = 0; i < n_ifaces; i++)
		fn(ifaces[i], ctx);
}

struct net_if *net_if_get_default(void)
{
	for (int i = 0; i < n_ifaces; i++)
		if (!(ifaces[i]->flags & NET_IF_LOOPBACK))
			return ifaces[i];
	return n_ifaces ? ifaces[0] : NULL;
}

void net_if_up(struct net_if *iface)
{
	iface->flags |= NET_IF_UP;
}

void net_if_down(struct net_if *iface)
{
	iface->flags &= ~NET_IF_UP;
}

void net_if_carrier_on(struct net_if *iface)
{
	unsigned key = irq_lock();
	bool was = iface->flags & NET_IF_CARRIER;
	iface->flags |= NET_IF_CARRIER;
	irq_unlock(key);
	if (!was && !(iface->flags & NET_IF_LOOPBACK)) {
		LOG_INF("%s: link up", iface->name);
		net_arp_announce(iface);
		net_ipv4_igmp_iface_up(iface);
	}
}

void net_if_carrier_off(struct net_if *iface)
{
	unsigned key = irq_lock();
	bool was = iface->flags & NET_IF_CARRIER;
	iface->flags &= ~NET_IF_CARRIER;
	irq_unlock(key);
	if (was && !(iface->flags & NET_IF_LOOPBACK)) {
		LOG_INF("%s: link down", iface->name);
		net_arp_clear_cache(iface);
	}
}

static void net_if_lock(struct net_if *iface)
{
	k_mutex_lock(&iface->lock, K_FOREVER);
}

static void net_if_unlock(struct net_if *iface)
{
	k_mutex_unlock(&iface->lock);
}

int net_if_ipv4_addr_add(struct net_if *iface, const struct in_addr *addr,
			 const struct in_addr *netmask)
{
	for (int i = 0; i < NET_IF_MAX_IPV4_ADDR; i++) {
		struct net_if_addr *a = &iface->ipv4.unicast[i];
		net_if_lock(iface);
		if (a->is_used) {
			net_if_unlock(iface);
			continue;
		}
		a->address = *addr;
		a->is_used = true;
		iface->ipv4.netmask = *netmask;
		net_if_unlock(iface);
		/* The subnet is reachable directly through this interface. */
		net_route_add(iface, addr, netmask, NULL, (iface->flags & NET_IF_LOOPBACK) ? 0 : 10);
		char buf[16];
		LOG_INF("%s: address %s", iface->name, net_addr_ntop(addr, buf));
		return 0;
	}
	return -ENOMEM;
}

void net_if_ipv4_set_gw(struct net_if *iface, const struct in_addr *gw)
{
	static const struct in_addr any = {.s_addr = 0};
	iface->ipv4.gw = *gw;
	net_route_add(iface, &any, &any, gw, 100); /* the default route */
}

static struct net_if_addr *iface_addr_lookup(struct net_if *iface, const struct in_addr *addr)
{
	for (int i = 0; i < NET_IF_MAX_IPV4_ADDR; i++) {
		struct net_if_addr *a = &iface->ipv4.unicast[i];
		if (a->is_used && net_ipv4_addr_cmp(&a->address, addr))
			return a;
	}
	return NULL;
}

struct net_if_addr *net_if_ipv4_addr_lookup(const struct in_addr *addr, struct net_if **ret)
{
	for (int i = 0; i < n_ifaces; i++) {
		net_if_lock(ifaces[i]);
		struct net_if_addr *a = iface_addr_lookup(ifaces[i], addr);
		net_if_unlock(ifaces[i]);
		if (a) {
			if (ret)
				*ret = ifaces[i];
			return a;
		}
	}
	return NULL;
}

bool net_if_ipv4_is_addr_bcast(struct net_if *iface, const struct in_addr *addr)
{
	const struct in_addr *mask = &iface->ipv4.netmask;
	bool bcast = false;
	net_if_lock(iface);
	for (int i = 0; i < NET_IF_MAX_IPV4_ADDR && !bcast; i++) {
		const struct net_if_addr *a = &iface->ipv4.unicast[i];
		/* The subnet's host part all ones. */
		bcast = a->is_used && net_ipv4_addr_mask_cmp(addr, &a->address, mask) &&
			(addr->s_addr & ~mask->s_addr) == ~mask->s_addr;
	}
	net_if_unlock(iface);
	return bcast;
}

bool net_if_ipv4_addr_mask_cmp(struct net_if *iface, const struct in_addr *addr)
{
	bool on_link = false;
	net_if_lock(iface);
	for (int i = 0; i < NET_IF_MAX_IPV4_ADDR && !on_link; i++) {
		const struct net_if_addr *a = &iface->ipv4.unicast[i];
		on_link = a->is_used &&
			  net_ipv4_addr_mask_cmp(addr, &a->address, &iface->ipv4.netmask);
	}
	net_if_unlock(iface);
	return on_link;
}

const struct in_addr *net_if_ipv4_select_src_addr(struct net_if *iface,
						  const struct in_addr *dst)
{
	const struct net_if_addr *fallback = NULL, *best = NULL;
	net_if_lock(iface);
	for (int i = 0; i < NET_IF_MAX_IPV4_ADDR && !best; i++) {
		const struct net_if_addr *a = &iface->ipv4.unicast[i];
		if (!a->is_used)
			continue;
		if (net_ipv4_addr_mask_cmp(dst, &a->address, &iface->ipv4.netmask))
			best = a;
		else if (!fallback)
			fallback = a;
	}
	net_if_unlock(iface);
	if (!best)
		best = fallback;
	return best ? &best->address : NULL;
}

struct net_if *net_if_ipv4_select_src_iface(const struct in_addr *dst)
{
	/* Broadcasts and multicasts leave through the default interface (no route needed). */
	if (net_ipv4_is_addr_bcast_all(dst) || net_ipv4_is_addr_mcast(dst))
		return net_if_get_default();
	struct net_route *r = net_route_lookup(dst);
	return r ? r->iface : NULL;
}

struct net_if_mcast_addr *net_if_ipv4_maddr_add(struct net_if *iface, const struct in_addr *addr)
{
	if (!net_ipv4_is_addr_mcast(addr))
		return NULL;
	struct net_if_mcast_addr *free_slot = NULL;
	net_if_lock(iface);
	for (int i = 0; i < NET_IF_MAX_IPV4_MADDR; i++) {
		struct net_if_mcast_addr *m = &iface->ipv4.mcast[i];
		if (m->is_used && net_ipv4_addr_cmp(&m->address, addr)) {
			net_if_unlock(iface);
			return m;
		}
		if (!m->is_used && !free_slot)
			free_slot = m;
	}
	if (free_slot) {
		memset(free_slot, 0, sizeof(*free_slot));
		free_slot->address = *addr;
		free_slot->is_used = true;
	}
	net_if_unlock(iface);
	return free_slot;
}

int net_if_ipv4_maddr_rm(struct net_if *iface, const struct in_addr *addr)
{
	int ret = -ENOENT;
	net_if_lock(iface);
	for (int i = 0; i < NET_IF_MAX_IPV4_MADDR; i++) {
		struct net_if_mcast_addr *m = &iface->ipv4.mcast[i];
		if (m->is_used && net_ipv4_addr_cmp(&m->address, addr)) {
			m->is_used = false;
			ret = 0;
			break;
		}
	}
	net_if_unlock(iface);
	return ret;
}

struct net_if_mcast_addr *net_if_ipv4_maddr_lookup(const struct in_addr *addr,
						   struct net_if **iface)
{
	for (int i = 0; i < n_ifaces; i++) {
		if (iface && *iface && *iface != ifaces[i])
			continue;
		struct net_if_mcast_addr *found = NULL;
		net_if_lock(ifaces[i]);
		for (int j = 0; j < NET_IF_MAX_IPV4_MADDR && !found; j++) {
			struct net_if_mcast_addr *m = &ifaces[i]->ipv4.mcast[j];
			if (m->is_used && net_ipv4_addr_cmp(&m->address, addr))
				found = m;
		}
		net_if_unlock(ifaces[i]);
		if (found) {
			if (iface)
				*iface = ifaces[i];
			return found;
		}
	}
	return NULL;
}

enum net_verdict net_if_recv_data(struct net_if *iface, struct net_pkt *pkt)
{
	if (unlikely(!(iface->flags & NET_IF_UP))) {
		LOG_DBG("%s: down, pkt %p dropped", iface->name, pkt);
		return NET_DROP;
	}
	LOG_DBG("%s: pkt %p to %s", iface->name, pkt, iface->l2->name);
	return iface->l2->recv(iface, pkt);
}

enum net_verdict net_if_send_data(struct net_if *iface, struct net_pkt *pkt)
{
	if (unlikely(!net_if_is_up(iface))) {
		LOG_DBG("%s: down, not sending", iface->name);
		return NET_DROP;
	}
	pkt->iface = iface;
	uint8_t tc = net_tx_priority2tc(pkt->priority);
	LOG_DBG("%s: pkt %p to traffic class %u", iface->name, pkt, tc);
	if (net_tc_submit_to_tx_queue(tc, pkt)) {
		NET_STATS_INC(iface, tx_queue_full);
		return NET_DROP;
	}
	return NET_OK;
}

void net_if_tx(struct net_if *iface, struct net_pkt *pkt)
{
	enum net_verdict verdict = NET_DROP;
	/* The L2 frees pkt when it has sent it: keep what the sender must hear of. */
	struct net_context *ctx = pkt->context;
	struct net_pkt meta;
	if (ctx)
		meta = *pkt;
	net_pkt_add_stats_tick(pkt);
	if (likely(net_if_is_up(iface)))
		verdict = iface->l2->send(iface, pkt);
	if (verdict == NET_DROP) {
		NET_STATS_INC(iface, processing_error);
		LOG_DBG("%s: send failed, dropped", iface->name);
		net_pkt_unref(pkt);
	}
	if (ctx)
		net_context_sent(ctx, verdict == NET_DROP ? -EIO : 0, &meta);
}

static enum net_if_caps iface_caps(struct net_if *iface)
{
	return iface->api->get_capabilities ? iface->api->get_capabilities(iface) : 0;
}

bool net_if_need_calc_tx_checksum(struct net_if *iface, enum net_if_checksum_type type)
{
	UNUSED(type); /* offload is all or nothing for the devices supported */
	return !(iface_caps(iface) & NET_IF_CAP_HW_TX_CHKSUM_OFFLOAD);
}

bool net_if_need_calc_rx_checksum(struct net_if *iface, enum net_if_checksum_type type)
{
	UNUSED(type);
	return !(iface_caps(iface) & NET_IF_CAP_HW_RX_CHKSUM_OFFLOAD);
}
