/* ethernet.c: the Ethernet L2: receive filtering by destination MAC and the host's packet
 * filter, Ethertype dispatch, header insertion (with ARP resolution) on send. */
#include "net/capture.h"
#include "net/net_core.h"
#include "net_private.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_ethernet, LOG_LEVEL_WRN);

const struct net_eth_addr net_eth_broadcast_addr = {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}};

static sys_slist_t l3_protocols; /* struct net_l3_register */

void net_l3_register(struct net_l3_register *l3)
{
	unsigned key = irq_lock();
	l3->node.next = NULL;
	sys_slist_append(&l3_protocols, &l3->node);
	irq_unlock(key);
}

static const struct net_l3_register *l3_find(uint16_t ptype)
{
	for (const sys_snode_t *n = l3_protocols.head; n; n = n->next) {
		const struct net_l3_register *l3 = CONTAINER_OF(n, struct net_l3_register, node);
		if (l3->ptype == ptype)
			return l3;
	}
	return NULL;
}

/* The group address of one of iface's IPv4 multicast groups? */
static bool eth_is_joined_group(struct net_if *iface, const struct net_eth_addr *dst)
{
	for (int i = 0; i < NET_IF_MAX_IPV4_MADDR; i++) {
		const struct net_if_mcast_addr *m = &iface->ipv4.mcast[i];
		uint8_t mac[NET_ETH_ADDR_LEN];
		if (!m->is_used)
			continue;
		net_ipv4_mcast_to_mac(&m->address, mac);
		if (net_eth_addr_cmp(dst, mac))
			return true;
	}
	return false;
}

bool net_eth_accepts(struct net_if *iface, const struct net_eth_addr *dst)
{
	if (iface->flags & NET_IF_PROMISC)
		return true;
	if (net_eth_is_addr_broadcast(dst)) {
		NET_STATS_INC(iface, eth.rx_broadcast);
		return true;
	}
	if (net_eth_is_addr_multicast(dst)) {
		NET_STATS_INC(iface, eth.rx_multicast);
		return eth_is_joined_group(iface, dst);
	}
	return net_eth_addr_cmp(dst, iface->mac);
}

/* The Ethertype after an optional 802.1Q tag; *hdr_len gets the header's length. No VLAN
 * is configured, so a tagged frame is counted and its type reported as the tag's. */
static uint16_t eth_frame_type(struct net_if *iface, struct net_pkt *pkt,
			       const struct net_eth_hdr *hdr, size_t *hdr_len)
{
	uint16_t type = ntohs(hdr->type);
	*hdr_len = NET_ETH_HDR_LEN;
	if (type == NET_ETH_PTYPE_VLAN) {
		uint16_t tci = 0, inner = 0;
		net_pkt_seek(pkt, NET_ETH_HDR_LEN);
		if (net_pkt_read_be16(pkt, &tci) == 0 && net_pkt_read_be16(pkt, &inner) == 0)
			LOG_DBG("VLAN %u (type 0x%04x): no such VLAN here", tci & 0xFFF, inner);
		*hdr_len = NET_ETH_VLAN_HDR_LEN;
		NET_STATS_INC(iface, eth.rx_unknown_type);
	}
	return type;
}

static enum net_verdict ethernet_recv(struct net_if *iface, struct net_pkt *pkt)
{
	NET_PKT_DATA_ACCESS_DEFINE(eth_access, struct net_eth_hdr);
	size_t len = net_pkt_get_len(pkt);

	net_pkt_set_overwrite(pkt, true);
	net_pkt_cursor_init(pkt);
	struct net_eth_hdr *hdr = net_pkt_get_data(pkt, &eth_access);
	if (!hdr || eth_access.ptr != pkt->buffer->data) {
		NET_STATS_INC(iface, eth.rx_short);
		return NET_DROP;
	}
	NET_STATS_INC(iface, eth.rx_pkts);
	NET_STATS_ADD(iface, eth.rx_bytes, len);
	NET_STATS_INC(iface, eth.rx_sizes[net_stats_eth_size_bucket(len)]);
	net_capture_pkt(iface, pkt, NET_CAPTURE_RX);
	LOG_DBG("%s: %u bytes from %02x:%02x:%02x:%02x:%02x:%02x type 0x%04x", iface->name,
		(unsigned)len, hdr->src.addr[0], hdr->src.addr[1], hdr->src.addr[2],
		hdr->src.addr[3], hdr->src.addr[4], hdr->src.addr[5], ntohs(hdr->type));

	if (!net_eth_accepts(iface, &hdr->dst)) {
		LOG_DBG("filtered: dst %02x:%02x:%02x:%02x:%02x:%02x", hdr->dst.addr[0],
			hdr->dst.addr[1], hdr->dst.addr[2], hdr->dst.addr[3], hdr->dst.addr[4],
			hdr->dst.addr[5]);
		NET_STATS_INC(iface, eth.rx_filtered);
		return NET_DROP;
	}

	/* The addresses stay in the buffer's headroom after the header is pulled. */
	pkt->lladdr_src.addr = hdr->src.addr;
	pkt->lladdr_src.len = NET_ETH_ADDR_LEN;
	pkt->lladdr_dst.addr = hdr->dst.addr;
	pkt->lladdr_dst.len = NET_ETH_ADDR_LEN;
	size_t hdr_len;
	pkt->ll_proto_type = eth_frame_type(iface, pkt, hdr, &hdr_len);

	/* The protocol above: whoever registered the Ethertype. */
	const struct net_l3_register *l3 = hdr_len == NET_ETH_HDR_LEN ? l3_find(pkt->ll_proto_type)
								      : NULL;
	if (!l3) {
		if (pkt->ll_proto_type < NET_ETH_MIN_PTYPE)
			LOG_DBG("802.3 frame (length %u): no LLC here", pkt->ll_proto_type);
		else
			LOG_DBG("unknown type 0x%04x", pkt->ll_proto_type);
		NET_STATS_INC(iface, eth.rx_unknown_type);
		return NET_DROP;
	}

	net_pkt_add_stats_tick(pkt);
	if (net_pkt_pull(pkt, NET_ETH_HDR_LEN))
		return NET_DROP;
	LOG_DBG("pkt %p to %s", pkt, l3->name);
	return l3->handler(iface, pkt->ll_proto_type, pkt);
}

/* Prepends a fragment holding the Ethernet header. */
static int ethernet_fill_header(struct net_if *iface, struct net_pkt *pkt, uint16_t ptype)
{
	struct net_buf *hdr_frag = net_pkt_get_frag(pkt, NET_ETH_HDR_LEN, NET_BUF_TIMEOUT);
	if (!hdr_frag)
		return -ENOBUFS;
	struct net_eth_hdr *hdr = net_buf_add(hdr_frag, NET_ETH_HDR_LEN);
	if (pkt->lladdr_dst.addr)
		memcpy(hdr->dst.addr, pkt->lladdr_dst.addr, NET_ETH_ADDR_LEN);
	else
		hdr->dst = net_eth_broadcast_addr;
	memcpy(hdr->src.addr, iface->mac, NET_ETH_ADDR_LEN);
	hdr->type = htons(ptype);
	net_pkt_frag_insert(pkt, hdr_frag);
	LOG_DBG("%s: to %02x:%02x:%02x:%02x:%02x:%02x type 0x%04x", iface->name,
		hdr->dst.addr[0], hdr->dst.addr[1], hdr->dst.addr[2], hdr->dst.addr[3],
		hdr->dst.addr[4], hdr->dst.addr[5], ptype);
	return 0;
}

static enum net_verdict ethernet_send(struct net_if *iface, struct net_pkt *pkt)
{
	struct net_pkt *out = pkt;
	uint16_t ptype = pkt->ll_proto_type;
	if (pkt->family == AF_INET) {
		int ret = net_arp_prepare(pkt, &out);
		if (ret) {
			LOG_DBG("no link address (%d)", ret);
			NET_STATS_INC(iface, eth.tx_errors);
			return NET_DROP;
		}
		if (!out)
			return NET_OK; /* pkt waits for the ARP reply to a request already out */
		/* out is pkt, or an ARP request sent first while pkt waits */
		ptype = out == pkt ? NET_ETH_PTYPE_IP : NET_ETH_PTYPE_ARP;
	}

	int ret = ethernet_fill_header(iface, out, ptype);
	size_t len = net_pkt_get_len(out);
	/* Where it goes, for the statistics (the header is in the frame's first fragment). */
	const struct net_eth_hdr *eth = ret ? NULL : (const struct net_eth_hdr *)out->buffer->data;
	bool tx_group = eth && net_eth_is_addr_multicast(&eth->dst);
	bool tx_bcast = tx_group && net_eth_is_addr_broadcast(&eth->dst);
	net_pkt_add_stats_tick(out);
	if (!ret) {
		net_capture_pkt(iface, out, NET_CAPTURE_TX);
		ret = iface->api->send(iface, out);
	}
	if (ret) {
		LOG_DBG("send failed (%d)", ret);
		NET_STATS_INC(iface, eth.tx_errors);
		if (out != pkt) {
			net_pkt_unref(out); /* our ARP request; pkt still waits in the cache */
			return NET_OK;
		}
		return NET_DROP;
	}
	NET_STATS_INC(iface, eth.tx_pkts);
	NET_STATS_ADD(iface, eth.tx_bytes, len);
	if (tx_group) {
		if (tx_bcast)
			NET_STATS_INC(iface, eth.tx_broadcast);
		else
			NET_STATS_INC(iface, eth.tx_multicast);
	}
	NET_STATS_INC(iface, eth.tx_sizes[net_stats_eth_size_bucket(len)]);
	net_stats_update_tx_time(iface, out);
	net_pkt_unref(out);
	return NET_OK;
}

static uint16_t ethernet_reserve(struct net_if *iface)
{
	UNUSED(iface);
	return NET_ETH_HDR_LEN;
}

static void ethernet_reachable(struct net_if *iface, const struct in_addr *ip,
			       const struct net_linkaddr *ll)
{
	if (ll->len == NET_ETH_ADDR_LEN)
		net_arp_confirm(iface, ip, (const struct net_eth_addr *)ll->addr);
}

const struct net_l2 net_l2_ethernet = {
	.name = "ethernet",
	.recv = ethernet_recv,
	.send = ethernet_send,
	.reserve = ethernet_reserve,
	.reachable = ethernet_reachable,
};
