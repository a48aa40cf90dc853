/* ipv4.c: IPv4 input (header checks, delivery to ICMP and UDP) and output (header creation
 * and finalisation). A host: nothing is forwarded, fragments are dropped. */
#include "net/net_core.h"
#include "net_private.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_ipv4, LOG_LEVEL_WRN);

#define IPV4_DEFAULT_TTL 64

static uint16_t ip_id; /* identification of the next datagram */

/* Whether a datagram to dst is for this host on iface. */
static bool ipv4_is_for_us(struct net_if *iface, const struct in_addr *dst)
{
	if (net_if_ipv4_addr_lookup(dst, NULL))
		return true;
	if (net_ipv4_is_addr_bcast_all(dst) || net_if_ipv4_is_addr_bcast(iface, dst))
		return true;
	return false;
}

enum net_verdict net_ipv4_input(struct net_pkt *pkt)
{
	NET_PKT_DATA_ACCESS_DEFINE(ipv4_access, struct net_ipv4_hdr);
	struct net_if *iface = pkt->iface;
	size_t pkt_len = net_pkt_get_len(pkt);
	enum net_verdict verdict = NET_DROP;

	NET_STATS_INC(iface, ipv4.recv);
	net_pkt_set_overwrite(pkt, true);
	net_pkt_cursor_init(pkt);

	struct net_ipv4_hdr *hdr = net_pkt_get_data(pkt, &ipv4_access);
	if (!hdr || ipv4_access.ptr != pkt->buffer->data) {
		LOG_DBG("no IPv4 header in the first fragment (%u bytes)", (unsigned)pkt_len);
		NET_STATS_INC(iface, ip_errors.hblenerr);
		goto drop;
	}
	if ((hdr->vhl & 0xF0) != 0x40) {
		NET_STATS_INC(iface, ip_errors.vhlerr);
		goto drop;
	}
	uint8_t hdr_len = (uint8_t)((hdr->vhl & 0x0F) * 4);
	if (hdr_len < NET_IPV4_HDR_LEN) {
		NET_STATS_INC(iface, ip_errors.vhlerr);
		goto drop;
	}
	if (hdr_len > pkt_len || hdr_len > pkt->buffer->len) {
		NET_STATS_INC(iface, ip_errors.hblenerr);
		goto drop;
	}
	uint16_t total_len = sys_get_be16(hdr->len);
	if (total_len < hdr_len || total_len > pkt_len) {
		LOG_DBG("total length %u, packet %u", total_len, (unsigned)pkt_len);
		NET_STATS_INC(iface, ip_errors.lblenerr);
		goto drop;
	}
	/* Link-layer padding after the datagram goes. */
	if (total_len < pkt_len && net_pkt_update_length(pkt, total_len)) {
		NET_STATS_INC(iface, ip_errors.lblenerr);
		goto drop;
	}
	pkt->ip_hdr_len = hdr_len;
	if (net_if_need_calc_rx_checksum(iface, NET_IF_CHECKSUM_IPV4_HEADER) &&
	    net_calc_chksum_ipv4(pkt) != 0) {
		LOG_DBG("header checksum error");
		NET_STATS_INC(iface, ip_errors.chkerr);
		goto drop;
	}
	uint16_t frag = sys_get_be16(hdr->offset);
	if ((frag & NET_IPV4_MF) || (frag & NET_IPV4_FRAGH_OFFSET_MASK)) {
		LOG_DBG("fragment dropped (no reassembly)");
		NET_STATS_INC(iface, ip_errors.fragerr);
		goto drop;
	}
	if (hdr->ttl == 0) {
		NET_STATS_INC(iface, ip_errors.ttlerr);
		goto drop;
	}
	struct in_addr src, dst;
	memcpy(&src, hdr->src, sizeof(src));
	memcpy(&dst, hdr->dst, sizeof(dst));
	if (net_ipv4_is_addr_mcast(&src) || net_ipv4_is_addr_bcast_all(&src)) {
		NET_STATS_INC(iface, ip_errors.addrerr);
		goto drop;
	}
	if (!ipv4_is_for_us(iface, &dst)) {
		LOG_DBG("not for us");
		NET_STATS_INC(iface, ip_errors.addrerr);
		goto drop;
	}

	pkt->family = AF_INET;
	pkt->ipv4_ttl = hdr->ttl;
	pkt->ip_proto = hdr->proto;
	/* The DSCP class selector (top 3 bits of TOS) is the packet's priority. */
	pkt->priority = (uint8_t)(hdr->tos >> 5);
	/* Options are accepted and skipped. */
	if (net_pkt_skip(pkt, hdr_len))
		goto drop;

	switch (hdr->proto) {
	case IPPROTO_ICMP:
		verdict = net_icmpv4_input(pkt, hdr);
		break;
	case IPPROTO_UDP:
		verdict = net_udp_input(pkt, hdr);
		break;
	default:
		LOG_DBG("protocol %u not supported", hdr->proto);
		NET_STATS_INC(iface, ip_errors.protoerr);
		net_icmpv4_send_error(pkt, NET_ICMPV4_DST_UNREACH, 2 /* protocol unreachable */);
		break;
	}
	if (verdict != NET_DROP)
		return verdict;
drop:
	NET_STATS_INC(iface, ipv4.drop);
	return NET_DROP;
}

int net_ipv4_create(struct net_pkt *pkt, const struct in_addr *src, const struct in_addr *dst)
{
	NET_PKT_DATA_ACCESS_DEFINE(ipv4_access, struct net_ipv4_hdr);
	struct net_ipv4_hdr *hdr = net_pkt_get_data(pkt, &ipv4_access);
	if (!hdr)
		return -ENOBUFS;
	hdr->vhl = 0x45;
	hdr->tos = (uint8_t)(pkt->priority << 5);
	sys_put_be16(0, hdr->len);
	unsigned key = irq_lock();
	sys_put_be16(ip_id++, hdr->id);
	irq_unlock(key);
	sys_put_be16(0, hdr->offset);
	hdr->ttl = pkt->ipv4_ttl ? pkt->ipv4_ttl : IPV4_DEFAULT_TTL;
	hdr->proto = pkt->ip_proto;
	hdr->chksum = 0;
	memcpy(hdr->src, src, sizeof(*src));
	memcpy(hdr->dst, dst, sizeof(*dst));
	pkt->ip_hdr_len = NET_IPV4_HDR_LEN;
	pkt->family = AF_INET;
	return net_pkt_set_data(pkt, &ipv4_access);
}

int net_ipv4_finalize(struct net_pkt *pkt, uint8_t next_header_proto)
{
	/* created by net_ipv4_create at the start of the first fragment */
	struct net_ipv4_hdr *hdr = net_pkt_ip_hdr(pkt);
	size_t len = net_pkt_get_len(pkt);
	if (len > 0xFFFF)
		return -EMSGSIZE;
	sys_put_be16((uint16_t)len, hdr->len);
	hdr->proto = next_header_proto;
	hdr->chksum = 0;
	if (net_if_need_calc_tx_checksum(pkt->iface, NET_IF_CHECKSUM_IPV4_HEADER))
		hdr->chksum = htons(net_calc_chksum_ipv4(pkt));

	switch (next_header_proto) {
	case IPPROTO_UDP:
		return net_udp_finalize(pkt);
	case IPPROTO_ICMP: {
		NET_PKT_DATA_ACCESS_DEFINE(icmp_access, struct net_icmp_hdr);
		if (net_pkt_seek(pkt, pkt->ip_hdr_len))
			return -ENOBUFS;
		struct net_icmp_hdr *icmp_hdr = net_pkt_get_data(pkt, &icmp_access);
		if (!icmp_hdr)
			return -ENOBUFS;
		icmp_hdr->chksum = 0;
		net_pkt_set_data(pkt, &icmp_access);
		if (!net_if_need_calc_tx_checksum(pkt->iface, NET_IF_CHECKSUM_IPV4_ICMP))
			return 0;
		uint16_t chksum = net_calc_chksum(pkt, IPPROTO_ICMP);
		net_pkt_seek(pkt, pkt->ip_hdr_len);
		icmp_hdr = net_pkt_get_data(pkt, &icmp_access);
		icmp_hdr->chksum = htons(chksum);
		return net_pkt_set_data(pkt, &icmp_access);
	}
	default:
		return 0;
	}
}
