/* ethernet.c: the Ethernet L2: receive filtering by destination MAC and the host's packet
 * filter, Ethertype dispatch, header insertion (with ARP resolution) on send. */
#include "net/net_core.h"
#include "net_private.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_ethernet, LOG_LEVEL_WRN);

const struct net_eth_addr net_eth_broadcast_addr = {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}};

/* The packet filter of the single Ethernet interface (the host sets it through ECM). */
static uint16_t eth_filter = NET_ETH_FILTER_DIRECTED | NET_ETH_FILTER_BROADCAST;

void net_eth_set_filter(struct net_if *iface, uint16_t filter)
{
	eth_filter = filter;
	if (filter & NET_ETH_FILTER_PROMISCUOUS)
		iface->flags |= NET_IF_PROMISC;
	else
		iface->flags &= ~NET_IF_PROMISC;
	LOG_INF("packet filter 0x%02x", filter);
}

uint16_t net_eth_get_filter(const struct net_if *iface)
{
	UNUSED(iface);
	return eth_filter;
}

/* Whether the destination MAC lets the frame in. */
static bool eth_accept(struct net_if *iface, const struct net_eth_hdr *hdr)
{
	if (eth_filter & NET_ETH_FILTER_PROMISCUOUS)
		return true;
	if (net_eth_is_addr_broadcast(&hdr->dst)) {
		NET_STATS_INC(iface, eth.rx_broadcast);
		return (eth_filter & NET_ETH_FILTER_BROADCAST) != 0;
	}
	if (net_eth_is_addr_multicast(&hdr->dst)) {
		NET_STATS_INC(iface, eth.rx_multicast);
		/* No multicast groups are joined: only "all multicast" lets them in. */
		return (eth_filter & NET_ETH_FILTER_ALL_MULTICAST) != 0;
	}
	return net_eth_addr_cmp(&hdr->dst, iface->mac);
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

	if (!eth_accept(iface, hdr)) {
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
	pkt->ll_proto_type = ntohs(hdr->type);

	switch (pkt->ll_proto_type) {
	case NET_ETH_PTYPE_IP:
		pkt->family = AF_INET;
		break;
	case NET_ETH_PTYPE_ARP:
		return net_arp_input(pkt, hdr);
	default:
		LOG_DBG("unknown type 0x%04x", pkt->ll_proto_type);
		NET_STATS_INC(iface, eth.rx_unknown_type);
		return NET_DROP;
	}

	if (net_pkt_pull(pkt, NET_ETH_HDR_LEN))
		return NET_DROP;
	return NET_CONTINUE;
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
	if (!ret)
		ret = iface->api->send(iface, out);
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
	net_pkt_unref(out);
	return NET_OK;
}

static uint16_t ethernet_reserve(struct net_if *iface)
{
	UNUSED(iface);
	return NET_ETH_HDR_LEN;
}

const struct net_l2 net_l2_ethernet = {
	.name = "ethernet",
	.recv = ethernet_recv,
	.send = ethernet_send,
	.reserve = ethernet_reserve,
};
