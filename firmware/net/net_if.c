/* net_if.c: the network interface: registration, state, IPv4 addresses and source
 * selection, and the hand-over between the core and the link layer. */
#include "net/net_core.h"
#include "net_private.h"
#include "net_tc.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_if, LOG_LEVEL_INF);

static struct net_if *default_iface;

void net_if_register(struct net_if *iface)
{
	iface->link_addr.addr = iface->mac;
	iface->link_addr.len = NET_ETH_ADDR_LEN;
	if (!iface->mtu)
		iface->mtu = NET_ETH_MTU;
	if (!iface->ipv4.ttl)
		iface->ipv4.ttl = 64;
	if (!default_iface)
		default_iface = iface;
	LOG_INF("%s: %s, MAC %02x:%02x:%02x:%02x:%02x:%02x", iface->name, iface->l2->name,
		iface->mac[0], iface->mac[1], iface->mac[2], iface->mac[3], iface->mac[4],
		iface->mac[5]);
}

struct net_if *net_if_get_default(void)
{
	return default_iface;
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
	if (!was) {
		LOG_INF("%s: link up", iface->name);
		net_arp_announce(iface);
	}
}

void net_if_carrier_off(struct net_if *iface)
{
	unsigned key = irq_lock();
	bool was = iface->flags & NET_IF_CARRIER;
	iface->flags &= ~NET_IF_CARRIER;
	irq_unlock(key);
	if (was) {
		LOG_INF("%s: link down", iface->name);
		net_arp_clear_cache(iface);
	}
}

int net_if_ipv4_addr_add(struct net_if *iface, const struct in_addr *addr,
			 const struct in_addr *netmask)
{
	for (int i = 0; i < NET_IF_MAX_IPV4_ADDR; i++) {
		struct net_if_addr *a = &iface->ipv4.unicast[i];
		if (a->is_used)
			continue;
		a->address = *addr;
		a->is_used = true;
		iface->ipv4.netmask = *netmask;
		char buf[16];
		LOG_INF("%s: address %s", iface->name, net_addr_ntop(addr, buf));
		return 0;
	}
	return -ENOMEM;
}

void net_if_ipv4_set_gw(struct net_if *iface, const struct in_addr *gw)
{
	iface->ipv4.gw = *gw;
}

struct net_if_addr *net_if_ipv4_addr_lookup(const struct in_addr *addr, struct net_if **ret)
{
	struct net_if *iface = default_iface;
	if (!iface)
		return NULL;
	for (int i = 0; i < NET_IF_MAX_IPV4_ADDR; i++) {
		struct net_if_addr *a = &iface->ipv4.unicast[i];
		if (a->is_used && net_ipv4_addr_cmp(&a->address, addr)) {
			if (ret)
				*ret = iface;
			return a;
		}
	}
	return NULL;
}

bool net_if_ipv4_is_addr_bcast(struct net_if *iface, const struct in_addr *addr)
{
	const struct in_addr *mask = &iface->ipv4.netmask;
	for (int i = 0; i < NET_IF_MAX_IPV4_ADDR; i++) {
		const struct net_if_addr *a = &iface->ipv4.unicast[i];
		if (!a->is_used)
			continue;
		/* The subnet's host part all ones. */
		if (net_ipv4_addr_mask_cmp(addr, &a->address, mask) &&
		    (addr->s_addr & ~mask->s_addr) == ~mask->s_addr)
			return true;
	}
	return false;
}

bool net_if_ipv4_addr_mask_cmp(struct net_if *iface, const struct in_addr *addr)
{
	for (int i = 0; i < NET_IF_MAX_IPV4_ADDR; i++) {
		const struct net_if_addr *a = &iface->ipv4.unicast[i];
		if (a->is_used && net_ipv4_addr_mask_cmp(addr, &a->address, &iface->ipv4.netmask))
			return true;
	}
	return false;
}

const struct in_addr *net_if_ipv4_select_src_addr(struct net_if *iface,
						  const struct in_addr *dst)
{
	const struct net_if_addr *fallback = NULL;
	for (int i = 0; i < NET_IF_MAX_IPV4_ADDR; i++) {
		const struct net_if_addr *a = &iface->ipv4.unicast[i];
		if (!a->is_used)
			continue;
		if (net_ipv4_addr_mask_cmp(dst, &a->address, &iface->ipv4.netmask))
			return &a->address;
		if (!fallback)
			fallback = a;
	}
	return fallback ? &fallback->address : NULL;
}

struct net_if *net_if_ipv4_select_src_iface(const struct in_addr *dst)
{
	struct net_if *iface = default_iface;
	if (iface && (net_if_ipv4_addr_mask_cmp(iface, dst) ||
		      !net_ipv4_is_addr_unspecified(&iface->ipv4.gw) ||
		      net_ipv4_is_addr_bcast_all(dst)))
		return iface;
	return NULL;
}

enum net_verdict net_if_recv_data(struct net_if *iface, struct net_pkt *pkt)
{
	if (unlikely(!(iface->flags & NET_IF_UP)))
		return NET_DROP;
	return iface->l2->recv(iface, pkt);
}

enum net_verdict net_if_send_data(struct net_if *iface, struct net_pkt *pkt)
{
	if (unlikely(!net_if_is_up(iface))) {
		LOG_DBG("%s: down, not sending", iface->name);
		return NET_DROP;
	}
	pkt->iface = iface;
	net_tc_submit_to_tx_queue(net_tx_priority2tc(pkt->priority), pkt);
	return NET_OK;
}

void net_if_tx(struct net_if *iface, struct net_pkt *pkt)
{
	enum net_verdict verdict = NET_DROP;
	if (likely(net_if_is_up(iface)))
		verdict = iface->l2->send(iface, pkt);
	if (verdict == NET_DROP) {
		NET_STATS_INC(iface, processing_error);
		LOG_DBG("%s: send failed, dropped", iface->name);
		net_pkt_unref(pkt);
	}
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
