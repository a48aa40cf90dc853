/* packet: parses the headers of Ethernet frames found in captures and summarises them. */
#include "packet.h"

#include <stdio.h>
#include <string.h>

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void packet_ipv4(xb_packet *p, const uint8_t *ip, size_t captured, size_t len)
{
	if (captured < 20 || (ip[0] >> 4) != 4)
		return;
	size_t ihl = (size_t)(ip[0] & 0x0F) * 4;
	size_t total = be16(ip + 2);
	if (ihl < 20 || total < ihl || captured < ihl)
		return;
	p->kind = XB_PACKET_IPV4;
	p->declared_len = XB_PACKET_ETH_HLEN + (uint32_t)total;
	p->ip_id = be16(ip + 4);
	p->ip_fragment = (be16(ip + 6) & 0x3FFF) != 0;
	p->ip_proto = ip[9];
	p->ip_src = ip + 12;
	p->ip_dst = ip + 16;
	if (p->ip_fragment)
		return;
	/* the transport header and payload: what the IPv4 length declares, within the frame */
	size_t body = total - ihl;
	if (body > len - ihl)
		body = len - ihl;
	size_t have = captured - ihl;
	const uint8_t *t = ip + ihl;
	if (p->ip_proto == 1 && have >= 8 && body >= 8) {
		p->kind = XB_PACKET_ICMP;
		p->icmp_type = t[0];
		p->icmp_code = t[1];
		p->icmp_id = be16(t + 4);
		p->icmp_seq = be16(t + 6);
		p->payload = t + 8;
		p->payload_len = (uint32_t)(body - 8);
	} else if (p->ip_proto == 17 && have >= 8 && body >= 8) {
		size_t ulen = be16(t + 4);
		if (ulen < 8 || ulen > body)
			return;
		p->kind = XB_PACKET_UDP;
		p->udp_sport = be16(t);
		p->udp_dport = be16(t + 2);
		p->payload = t + 8;
		p->payload_len = (uint32_t)(ulen - 8);
	} else {
		return;
	}
	size_t got = have - 8;
	p->payload_captured = p->payload_len < got ? p->payload_len : (uint32_t)got;
}

void packet_parse(xb_packet *p, const uint8_t *frame, size_t captured, size_t len)
{
	memset(p, 0, sizeof *p);
	if (captured > len)
		captured = len;
	if (captured < XB_PACKET_ETH_HLEN)
		return;
	p->kind = XB_PACKET_ETHERNET;
	p->eth_dst = frame;
	p->eth_src = frame + 6;
	p->ethertype = be16(frame + 12);
	const uint8_t *l3 = frame + XB_PACKET_ETH_HLEN;
	size_t have = captured - XB_PACKET_ETH_HLEN, l3len = len - XB_PACKET_ETH_HLEN;
	if (p->ethertype == 0x0800) {
		packet_ipv4(p, l3, have, l3len);
	} else if (p->ethertype == 0x0806) {
		/* Ethernet (1), IPv4 (0x0800), 6-byte and 4-byte addresses */
		if (have < XB_PACKET_ARP_LEN || be16(l3) != 1 || be16(l3 + 2) != 0x0800 ||
		    l3[4] != 6 || l3[5] != 4)
			return;
		p->kind = XB_PACKET_ARP;
		p->declared_len = XB_PACKET_ETH_HLEN + XB_PACKET_ARP_LEN;
		p->arp_op = be16(l3 + 6);
		p->arp_sender_ip = l3 + 14;
		p->arp_target_ip = l3 + 24;
	} else if (p->ethertype == 0x86DD) {
		if (have < 40 || (l3[0] >> 4) != 6)
			return;
		p->kind = XB_PACKET_IPV6;
		p->declared_len = XB_PACKET_ETH_HLEN + 40 + be16(l3 + 4);
		p->ip_proto = l3[6];
	}
}

static void ip4(char *b, size_t cap, const uint8_t *a)
{
	snprintf(b, cap, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
}

void packet_summary(const xb_packet *p, char *buf, size_t cap)
{
	char s[16], d[16];
	if (p->ip_src) {
		ip4(s, sizeof s, p->ip_src);
		ip4(d, sizeof d, p->ip_dst);
	}
	switch (p->kind) {
	case XB_PACKET_SHORT: snprintf(buf, cap, "shorter than an Ethernet header"); break;
	case XB_PACKET_ETHERNET: snprintf(buf, cap, "EtherType 0x%04x", p->ethertype); break;
	case XB_PACKET_ARP:
		ip4(s, sizeof s, p->arp_sender_ip);
		ip4(d, sizeof d, p->arp_target_ip);
		if (p->arp_op == 1)
			snprintf(buf, cap, "ARP who-has %s tell %s", d, s);
		else if (p->arp_op == 2)
			snprintf(buf, cap, "ARP reply %s is-at %02x:%02x:%02x:%02x:%02x:%02x", s,
				 p->eth_src[0], p->eth_src[1], p->eth_src[2], p->eth_src[3],
				 p->eth_src[4], p->eth_src[5]);
		else
			snprintf(buf, cap, "ARP op %u %s > %s", p->arp_op, s, d);
		break;
	case XB_PACKET_IPV4:
		snprintf(buf, cap, "IPv4 %s > %s protocol %u%s", s, d, p->ip_proto,
			 p->ip_fragment ? ", fragment" : "");
		break;
	case XB_PACKET_ICMP:
		if (p->icmp_type == 8 || p->icmp_type == 0)
			snprintf(buf, cap, "ICMP echo %s %s > %s id 0x%04x seq %u, %u bytes",
				 p->icmp_type == 8 ? "request" : "reply", s, d, p->icmp_id,
				 p->icmp_seq, p->payload_len);
		else
			snprintf(buf, cap, "ICMP type %u code %u %s > %s", p->icmp_type,
				 p->icmp_code, s, d);
		break;
	case XB_PACKET_UDP:
		snprintf(buf, cap, "UDP %s:%u > %s:%u, %u bytes", s, p->udp_sport, d, p->udp_dport,
			 p->payload_len);
		break;
	case XB_PACKET_IPV6: snprintf(buf, cap, "IPv6 next header %u", p->ip_proto); break;
	}
}
