/* ipv4.c: IPv4 input (header checks, delivery to ICMP and UDP) and output (header creation
 * and finalisation). A host: nothing is forwarded, fragments are dropped. */
#include "net/net_core.h"
#include "net_private.h"
#include "sys/log.h"
#include "sys/rand.h"

LOG_MODULE_REGISTER(net_ipv4, LOG_LEVEL_WRN);

#define IPV4_DEFAULT_TTL 64

static uint16_t ip_id, ip_id_step; /* identification of the last datagram, and the step */

/* Whether a datagram to dst is for this host on iface: one of its addresses, a broadcast,
 * or a group it belongs to. */
static bool ipv4_is_for_us(struct net_if *iface, const struct in_addr *dst)
{
	if (net_ipv4_is_addr_mcast(dst)) {
		struct net_if *found = iface;
		return net_if_ipv4_maddr_lookup(dst, &found) != NULL;
	}
	if (net_ipv4_is_addr_bcast_all(dst) || net_if_ipv4_is_addr_bcast(iface, dst))
		return true;
	struct net_if *owner = NULL;
	if (!net_if_ipv4_addr_lookup(dst, &owner))
		return false;
	/* Loopback addresses only ever arrive through the loopback interface (RFC 1122
	 * 3.2.1.3); the host's other addresses arrive on any interface. */
	return !net_ipv4_is_addr_loopback(dst) || owner == iface;
}

/* A source address no host may use (RFC 1122 3.2.1.3). */
static bool ipv4_is_martian_src(struct net_if *iface, const struct in_addr *src)
{
	if (net_ipv4_is_addr_mcast(src) || net_ipv4_is_addr_bcast_all(src))
		return true;
	return net_ipv4_is_addr_loopback(src) && !(iface->flags & NET_IF_LOOPBACK);
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
	if (ipv4_is_martian_src(iface, &src)) {
		NET_STATS_INC(iface, ip_errors.addrerr);
		goto drop;
	}
	if (!ipv4_is_for_us(iface, &dst)) {
		LOG_DBG("not for us");
		NET_STATS_INC(iface, ip_errors.addrerr);
		goto drop;
	}

	if (log_current->level >= LOG_LEVEL_DBG) {
		char s[16], d[16];
		LOG_DBG("%s -> %s proto %u len %u ttl %u", net_addr_ntop(&src, s),
			net_addr_ntop(&dst, d), hdr->proto, total_len, hdr->ttl);
	}
	pkt->family = AF_INET;
	pkt->ipv4_ttl = hdr->ttl;
	pkt->ip_proto = hdr->proto;
	/* The DSCP class selector (top 3 bits of TOS) is the packet's priority. */
	pkt->priority = (uint8_t)(hdr->tos >> 5);
	/* Options are accepted and skipped. */
	if (net_pkt_skip(pkt, hdr_len))
		goto drop;
	net_pkt_add_stats_tick(pkt);

	switch (hdr->proto) {
	case IPPROTO_ICMP:
		verdict = net_icmpv4_input(pkt, hdr);
		break;
	case IPPROTO_UDP:
		verdict = net_udp_input(pkt, hdr);
		break;
	case IPPROTO_IGMP:
		verdict = net_ipv4_igmp_input(pkt, hdr);
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

int net_ipv4_create_full(struct net_pkt *pkt, const struct in_addr *src,
			 const struct in_addr *dst, const uint8_t *opts, uint8_t opts_len)
{
	NET_PKT_DATA_ACCESS_DEFINE(ipv4_access, struct net_ipv4_hdr);
	if (opts_len % 4 || opts_len > 40)
		return -EINVAL;
	struct net_ipv4_hdr *hdr = net_pkt_get_data(pkt, &ipv4_access);
	if (!hdr)
		return -ENOBUFS;
	hdr->vhl = (uint8_t)(0x40 | ((NET_IPV4_HDR_LEN + opts_len) / 4));
	hdr->tos = (uint8_t)(pkt->priority << 5);
	sys_put_be16(0, hdr->len);
	/* A counter from a random start, stepped by a random odd amount: unique for a long
	 * run of datagrams (RFC 6864) yet not predictable by an idle scan. */
	unsigned key = irq_lock();
	if (!ip_id_step)
		ip_id_step = (uint16_t)(sys_rand32_get() | 1u);
	ip_id = (uint16_t)(ip_id + ip_id_step);
	sys_put_be16(ip_id, hdr->id);
	irq_unlock(key);
	sys_put_be16(0, hdr->offset);
	hdr->ttl = pkt->ipv4_ttl ? pkt->ipv4_ttl : IPV4_DEFAULT_TTL;
	if (net_ipv4_is_addr_mcast(dst) && !pkt->ipv4_ttl)
		hdr->ttl = pkt->iface ? pkt->iface->ipv4.mcast_ttl : 1;
	hdr->proto = pkt->ip_proto;
	hdr->chksum = 0;
	memcpy(hdr->src, src, sizeof(*src));
	memcpy(hdr->dst, dst, sizeof(*dst));
	pkt->ip_hdr_len = (uint8_t)(NET_IPV4_HDR_LEN + opts_len);
	pkt->family = AF_INET;
	int ret = net_pkt_set_data(pkt, &ipv4_access);
	if (!ret && opts_len)
		ret = net_pkt_write(pkt, opts, opts_len);
	return ret;
}

int net_ipv4_create(struct net_pkt *pkt, const struct in_addr *src, const struct in_addr *dst)
{
	return net_ipv4_create_full(pkt, src, dst, NULL, 0);
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
	LOG_DBG("pkt %p: %u bytes, proto %u, ttl %u", pkt, (unsigned)len, next_header_proto,
		hdr->ttl);
	hdr->chksum = 0;
	if (net_if_need_calc_tx_checksum(pkt->iface, NET_IF_CHECKSUM_IPV4_HEADER))
		hdr->chksum = htons(net_calc_chksum_ipv4(pkt));

	switch (next_header_proto) {
	case IPPROTO_UDP:
		return net_udp_finalize(pkt);
	case IPPROTO_ICMP:
	case IPPROTO_IGMP: {
		/* Both start with type, code, checksum; neither has a pseudo header. */
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
		uint16_t chksum = net_calc_chksum(pkt, next_header_proto);
		net_pkt_seek(pkt, pkt->ip_hdr_len);
		icmp_hdr = net_pkt_get_data(pkt, &icmp_access);
		icmp_hdr->chksum = htons(chksum);
		return net_pkt_set_data(pkt, &icmp_access);
	}
	default:
		return 0;
	}
}
