/* udp.c: UDP (RFC 768): input with checksum verification and delivery through the
 * connection handlers; header creation and checksum generation for output. */
#include "net/net_core.h"
#include "net_private.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_udp, LOG_LEVEL_WRN);

enum net_verdict net_udp_input(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr)
{
	NET_PKT_DATA_ACCESS_DEFINE(udp_access, struct net_udp_hdr);
	struct net_if *iface = pkt->iface;

	struct net_udp_hdr *udp_hdr = net_pkt_get_data(pkt, &udp_access);
	if (!udp_hdr) {
		LOG_DBG("no UDP header");
		goto drop;
	}
	uint16_t ip_payload = (uint16_t)(sys_get_be16(ip_hdr->len) - pkt->ip_hdr_len);
	uint16_t len = ntohs(udp_hdr->len);
	if (len < NET_UDPH_LEN || len > ip_payload) {
		LOG_DBG("bad length %u (IP payload %u)", len, ip_payload);
		goto drop;
	}
	/* A zero checksum means the sender computed none (allowed over IPv4). */
	if (udp_hdr->chksum != 0 && net_if_need_calc_rx_checksum(iface, NET_IF_CHECKSUM_UDP) &&
	    net_calc_chksum(pkt, IPPROTO_UDP) != 0) {
		LOG_DBG("checksum error");
		NET_STATS_INC(iface, udp.chkerr);
		goto drop;
	}
	/* Keep the header: the connection handlers may still look at it. */
	struct net_udp_hdr hdr = *udp_hdr;
	net_pkt_acknowledge_data(pkt, &udp_access);
	NET_STATS_INC(iface, udp.recv);
	LOG_DBG("port %u -> %u, %u bytes", ntohs(hdr.src_port), ntohs(hdr.dst_port), len);

	enum net_verdict verdict = net_conn_input(pkt, ip_hdr, IPPROTO_UDP, &hdr);
	if (verdict != NET_DROP)
		return verdict;
	NET_STATS_INC(iface, udp.noport);
	net_icmpv4_send_error(pkt, NET_ICMPV4_DST_UNREACH, NET_ICMPV4_DST_UNREACH_NO_PORT);
drop:
	NET_STATS_INC(iface, udp.drop);
	return NET_DROP;
}

int net_udp_create(struct net_pkt *pkt, uint16_t src_port, uint16_t dst_port)
{
	NET_PKT_DATA_ACCESS_DEFINE(udp_access, struct net_udp_hdr);
	struct net_udp_hdr *udp_hdr = net_pkt_get_data(pkt, &udp_access);
	if (!udp_hdr)
		return -ENOBUFS;
	udp_hdr->src_port = src_port;
	udp_hdr->dst_port = dst_port;
	udp_hdr->len = 0;
	udp_hdr->chksum = 0;
	LOG_DBG("pkt %p: port %u -> %u", pkt, ntohs(src_port), ntohs(dst_port));
	return net_pkt_set_data(pkt, &udp_access);
}

int net_udp_finalize(struct net_pkt *pkt)
{
	NET_PKT_DATA_ACCESS_DEFINE(udp_access, struct net_udp_hdr);
	size_t len = net_pkt_get_len(pkt) - pkt->ip_hdr_len;
	if (net_pkt_seek(pkt, pkt->ip_hdr_len))
		return -ENOBUFS;
	struct net_udp_hdr *udp_hdr = net_pkt_get_data(pkt, &udp_access);
	if (!udp_hdr)
		return -ENOBUFS;
	udp_hdr->len = htons((uint16_t)len);
	udp_hdr->chksum = 0;
	net_pkt_set_data(pkt, &udp_access);
	if (!net_if_need_calc_tx_checksum(pkt->iface, NET_IF_CHECKSUM_UDP)) {
		net_pkt_cursor_init(pkt);
		return 0;
	}

	uint16_t chksum = net_calc_chksum(pkt, IPPROTO_UDP);
	/* 0 would mean "no checksum": its ones' complement twin is sent instead. */
	if (chksum == 0)
		chksum = 0xFFFF;
	net_pkt_seek(pkt, pkt->ip_hdr_len);
	udp_hdr = net_pkt_get_data(pkt, &udp_access);
	udp_hdr->chksum = htons(chksum);
	net_pkt_set_data(pkt, &udp_access);
	net_pkt_cursor_init(pkt);
	return 0;
}
