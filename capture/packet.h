/* packet: what an Ethernet frame from a capture carries (ARP, IPv4 with ICMP or UDP, IPv6),
 * enough to match echoes, to strip usbnet's padding byte and to summarise it on one line. */
#ifndef XB_CAPTURE_PACKET_H
#define XB_CAPTURE_PACKET_H

#include <stddef.h>
#include <stdint.h>

enum xb_packet_kind {
	XB_PACKET_SHORT = 0, /* fewer than the 14 bytes of an Ethernet header */
	XB_PACKET_ETHERNET,  /* another EtherType, or a header cut short */
	XB_PACKET_ARP,
	XB_PACKET_IPV4, /* another protocol, a fragment, or a transport header cut short */
	XB_PACKET_ICMP,
	XB_PACKET_UDP,
	XB_PACKET_IPV6,
};

#define XB_PACKET_ETH_HLEN 14u
#define XB_PACKET_ARP_LEN 28u /* Ethernet and IPv4 ARP */

typedef struct xb_packet {
	enum xb_packet_kind kind;
	const uint8_t *eth_dst, *eth_src;
	uint16_t ethertype;
	/* Bytes from the frame's start that the headers say the packet takes: 14 + the IPv4
	 * total length, 14 + 40 + the IPv6 payload length, 14 + 28 for ARP; 0 when unknown.
	 * What follows is padding. */
	uint32_t declared_len;
	/* ARP */
	uint16_t arp_op;
	const uint8_t *arp_sender_ip, *arp_target_ip;
	/* IPv4 */
	const uint8_t *ip_src, *ip_dst;
	uint8_t ip_proto;
	uint16_t ip_id;
	uint8_t ip_fragment; /* MF set or an offset */
	/* ICMP (type and code of any message; id and seq of echo messages) */
	uint8_t icmp_type, icmp_code;
	uint16_t icmp_id, icmp_seq;
	/* UDP */
	uint16_t udp_sport, udp_dport;
	/* ICMP echo data (after the 8-byte ICMP header) or UDP data: bounded by the declared
	 * lengths and by the bytes captured */
	const uint8_t *payload;
	uint32_t payload_len;      /* what the headers declare */
	uint32_t payload_captured; /* how much of it is at payload */
} xb_packet;

/* Parses frame (captured bytes of a frame of len bytes; captured <= len). Never fails:
 * kind says how far it got. Pointers go into frame. */
void packet_parse(xb_packet *p, const uint8_t *frame, size_t captured, size_t len);

/* One line: "ICMP echo request 192.0.2.2 > 192.0.2.1 id 0x1234 seq 7, 56 bytes",
 * "UDP 192.0.2.2:40000 > 192.0.2.1:7, 64 bytes", "ARP who-has 192.0.2.1 tell 192.0.2.2",
 * "EtherType 0x88b5" ... */
void packet_summary(const xb_packet *p, char *buf, size_t cap);

#endif
