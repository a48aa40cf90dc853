/* netpeer_frame: Ethernet, ARP, IPv4, ICMP echo and UDP frames for the network peer: the
 * internet checksum, building frames byte by byte, parsing and checking received ones. */
#include <string.h>

#include "netpeer.h"

#define ETHERTYPE_IPV4 0x0800u
#define ETHERTYPE_ARP 0x0806u
#define IP_HLEN 20u
#define ICMP_HLEN 8u
#define UDP_HLEN 8u
#define ARP_LEN 28u
#define PROTO_ICMP 1u
#define PROTO_UDP 17u
#define IP_TTL 64u
#define IP_DF 0x4000u

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t netpeer_checksum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;
	for (; len >= 2; p += 2, len -= 2) {
		sum += get16(p);
		sum = (sum & 0xFFFFu) + (sum >> 16); /* never overflows, whatever the length */
	}
	if (len) {
		sum += (uint32_t)p[0] << 8;
		sum = (sum & 0xFFFFu) + (sum >> 16);
	}
	return sum;
}

uint16_t netpeer_checksum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFFu) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint8_t *put_eth(uint8_t *out, const uint8_t dst[6], const uint8_t src[6], uint16_t type)
{
	memcpy(out, dst, 6);
	memcpy(out + 6, src, 6);
	put16(out + 12, type);
	return out + XB_NETPEER_ETH_HLEN;
}

/* The IPv4 header for a payload of len bytes; returns where the payload goes. */
static uint8_t *put_ipv4(uint8_t *ip, const xb_netpeer_addr *src, const xb_netpeer_addr *dst,
			 uint16_t id, uint8_t proto, size_t len)
{
	ip[0] = 0x45; /* version 4, 5 words */
	ip[1] = 0;
	put16(ip + 2, (uint16_t)(IP_HLEN + len));
	put16(ip + 4, id);
	put16(ip + 6, IP_DF);
	ip[8] = IP_TTL;
	ip[9] = proto;
	put16(ip + 10, 0);
	memcpy(ip + 12, src->ip, 4);
	memcpy(ip + 16, dst->ip, 4);
	put16(ip + 10, netpeer_checksum_fold(netpeer_checksum_add(0, ip, IP_HLEN)));
	return ip + IP_HLEN;
}

size_t netpeer_build_arp(uint8_t *out, size_t cap, uint16_t op, const xb_netpeer_addr *sender,
			 const xb_netpeer_addr *target, const uint8_t eth_dst[6])
{
	if (cap < XB_NETPEER_ARP_FRAME)
		return 0;
	uint8_t *a = put_eth(out, eth_dst, sender->mac, ETHERTYPE_ARP);
	put16(a, 1);                /* Ethernet */
	put16(a + 2, ETHERTYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, op);
	memcpy(a + 8, sender->mac, 6);
	memcpy(a + 14, sender->ip, 4);
	memcpy(a + 18, target->mac, 6);
	memcpy(a + 24, target->ip, 4);
	return XB_NETPEER_ARP_FRAME;
}

size_t netpeer_build_icmp_echo(uint8_t *out, size_t cap, const xb_netpeer_addr *src,
			       const xb_netpeer_addr *dst, uint16_t ip_id, uint8_t type, uint16_t id,
			       uint16_t seq, const uint8_t *data, size_t len)
{
	size_t total = XB_NETPEER_ETH_HLEN + IP_HLEN + ICMP_HLEN + len;
	if (len > XB_NETPEER_MAX_PAYLOAD || cap < total)
		return 0;
	uint8_t *ip = put_eth(out, dst->mac, src->mac, ETHERTYPE_IPV4);
	uint8_t *icmp = put_ipv4(ip, src, dst, ip_id, PROTO_ICMP, ICMP_HLEN + len);
	icmp[0] = type;
	icmp[1] = 0;
	put16(icmp + 2, 0);
	put16(icmp + 4, id);
	put16(icmp + 6, seq);
	if (len)
		memcpy(icmp + ICMP_HLEN, data, len);
	put16(icmp + 2, netpeer_checksum_fold(netpeer_checksum_add(0, icmp, ICMP_HLEN + len)));
	return total;
}

/* The sum of the UDP pseudo-header (RFC 768). */
static uint32_t udp_pseudo_sum(const uint8_t *src_ip, const uint8_t *dst_ip, size_t udp_len)
{
	uint8_t ph[12];
	memcpy(ph, src_ip, 4);
	memcpy(ph + 4, dst_ip, 4);
	ph[8] = 0;
	ph[9] = PROTO_UDP;
	put16(ph + 10, (uint16_t)udp_len);
	return netpeer_checksum_add(0, ph, sizeof ph);
}

size_t netpeer_build_udp(uint8_t *out, size_t cap, const xb_netpeer_addr *src,
			 const xb_netpeer_addr *dst, uint16_t ip_id, uint16_t sport, uint16_t dport,
			 const uint8_t *data, size_t len)
{
	size_t total = XB_NETPEER_ETH_HLEN + IP_HLEN + UDP_HLEN + len;
	if (len > XB_NETPEER_MAX_PAYLOAD || cap < total)
		return 0;
	uint8_t *ip = put_eth(out, dst->mac, src->mac, ETHERTYPE_IPV4);
	uint8_t *udp = put_ipv4(ip, src, dst, ip_id, PROTO_UDP, UDP_HLEN + len);
	put16(udp, sport);
	put16(udp + 2, dport);
	put16(udp + 4, (uint16_t)(UDP_HLEN + len));
	put16(udp + 6, 0);
	if (len)
		memcpy(udp + UDP_HLEN, data, len);
	uint32_t sum = udp_pseudo_sum(src->ip, dst->ip, UDP_HLEN + len);
	uint16_t c = netpeer_checksum_fold(netpeer_checksum_add(sum, udp, UDP_HLEN + len));
	put16(udp + 6, c ? c : 0xFFFFu); /* 0 means "no checksum" */
	return total;
}

const char *netpeer_parse_message(enum xb_netpeer_parse r)
{
	switch (r) {
	case XB_NETPEER_PARSE_OK: return "ok";
	case XB_NETPEER_PARSE_SHORT: return "frame shorter than its headers or lengths say";
	case XB_NETPEER_PARSE_ETHERTYPE: return "neither ARP nor IPv4";
	case XB_NETPEER_PARSE_ARP_FORMAT: return "ARP not for Ethernet and IPv4";
	case XB_NETPEER_PARSE_IP_HEADER: return "bad IPv4 version, header length or total length";
	case XB_NETPEER_PARSE_IP_CHECKSUM: return "wrong IPv4 header checksum";
	case XB_NETPEER_PARSE_FRAGMENT: return "IPv4 fragment (not reassembled)";
	case XB_NETPEER_PARSE_PROTOCOL: return "IPv4 protocol other than ICMP and UDP";
	case XB_NETPEER_PARSE_CHECKSUM: return "wrong ICMP or UDP checksum";
	}
	return "?";
}

static enum xb_netpeer_parse parse_arp(const uint8_t *a, size_t len, xb_netpeer_packet *p)
{
	if (len < ARP_LEN)
		return XB_NETPEER_PARSE_SHORT;
	if (get16(a) != 1 || get16(a + 2) != ETHERTYPE_IPV4 || a[4] != 6 || a[5] != 4)
		return XB_NETPEER_PARSE_ARP_FORMAT;
	p->kind = XB_NETPEER_ARP;
	p->arp_op = get16(a + 6);
	p->arp_sha = a + 8;
	p->arp_spa = a + 14;
	p->arp_tha = a + 18;
	p->arp_tpa = a + 24;
	p->trailer = len - ARP_LEN;
	return XB_NETPEER_PARSE_OK;
}

static enum xb_netpeer_parse parse_ipv4(const uint8_t *ip, size_t len, xb_netpeer_packet *p)
{
	if (len < IP_HLEN)
		return XB_NETPEER_PARSE_SHORT;
	size_t hlen = (size_t)(ip[0] & 0x0F) * 4, total = get16(ip + 2);
	if (ip[0] >> 4 != 4 || hlen < IP_HLEN || total < hlen)
		return XB_NETPEER_PARSE_IP_HEADER;
	if (total > len || hlen > len)
		return XB_NETPEER_PARSE_SHORT;
	if (netpeer_checksum_fold(netpeer_checksum_add(0, ip, hlen)) != 0)
		return XB_NETPEER_PARSE_IP_CHECKSUM;
	p->ip_id = get16(ip + 4);
	p->ip_ttl = ip[8];
	p->ip_proto = ip[9];
	p->ip_src = ip + 12;
	p->ip_dst = ip + 16;
	p->trailer = len - total;
	if (get16(ip + 6) & 0x3FFFu) /* MF or a fragment offset */
		return XB_NETPEER_PARSE_FRAGMENT;
	const uint8_t *l4 = ip + hlen;
	size_t n = total - hlen;
	if (p->ip_proto == PROTO_ICMP) {
		if (n < ICMP_HLEN)
			return XB_NETPEER_PARSE_SHORT;
		p->kind = XB_NETPEER_ICMP;
		p->icmp_type = l4[0];
		p->icmp_code = l4[1];
		p->icmp_id = get16(l4 + 4);
		p->icmp_seq = get16(l4 + 6);
		p->payload = l4 + ICMP_HLEN;
		p->payload_len = n - ICMP_HLEN;
		if (netpeer_checksum_fold(netpeer_checksum_add(0, l4, n)) != 0)
			return XB_NETPEER_PARSE_CHECKSUM;
		return XB_NETPEER_PARSE_OK;
	}
	if (p->ip_proto == PROTO_UDP) {
		if (n < UDP_HLEN)
			return XB_NETPEER_PARSE_SHORT;
		size_t ulen = get16(l4 + 4);
		if (ulen < UDP_HLEN || ulen > n)
			return XB_NETPEER_PARSE_SHORT;
		p->kind = XB_NETPEER_UDP;
		p->udp_sport = get16(l4);
		p->udp_dport = get16(l4 + 2);
		p->payload = l4 + UDP_HLEN;
		p->payload_len = ulen - UDP_HLEN;
		if (get16(l4 + 6) != 0) {
			uint32_t sum = udp_pseudo_sum(p->ip_src, p->ip_dst, ulen);
			if (netpeer_checksum_fold(netpeer_checksum_add(sum, l4, ulen)) != 0)
				return XB_NETPEER_PARSE_CHECKSUM;
		}
		return XB_NETPEER_PARSE_OK;
	}
	return XB_NETPEER_PARSE_PROTOCOL;
}

enum xb_netpeer_parse netpeer_parse(const uint8_t *frame, size_t len, xb_netpeer_packet *p)
{
	memset(p, 0, sizeof *p);
	if (len < XB_NETPEER_ETH_HLEN)
		return XB_NETPEER_PARSE_SHORT;
	p->eth_dst = frame;
	p->eth_src = frame + 6;
	p->ethertype = get16(frame + 12);
	const uint8_t *l3 = frame + XB_NETPEER_ETH_HLEN;
	size_t n = len - XB_NETPEER_ETH_HLEN;
	if (p->ethertype == ETHERTYPE_ARP)
		return parse_arp(l3, n, p);
	if (p->ethertype == ETHERTYPE_IPV4)
		return parse_ipv4(l3, n, p);
	return XB_NETPEER_PARSE_ETHERTYPE;
}
