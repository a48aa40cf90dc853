/* ethernet.c: Ethernet II framing: demultiplexing received frames, building sent ones. */
#include "fw.h"

#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_ARP 0x0806

struct eth_hdr {
	uint8_t dst[6], src[6];
	uint8_t type[2];
};

static const uint8_t broadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static uint32_t unknown_type;

static int eth_for_us(const struct net_if *iface, const uint8_t dst[6])
{
	return memcmp(dst, iface->mac, 6) == 0 || memcmp(dst, broadcast, 6) == 0 ||
	       (dst[0] & 1);
}

int ethernet_input(struct net_if *iface, struct net_buf *b)
{
	if (b->len < sizeof(struct eth_hdr))
		return -1;
	struct eth_hdr *h = (struct eth_hdr *)b->data;
	if (!eth_for_us(iface, h->dst))
		return -1;
	uint16_t type = (uint16_t)(h->type[0] << 8 | h->type[1]);
	arp_update(0, h->src);
	net_buf_pull(b, sizeof(struct eth_hdr));
	switch (type) {
	case ETH_TYPE_IPV4:
		return ipv4_input(iface, b);
	case ETH_TYPE_ARP:
		return arp_input(iface, b);
	default:
		unknown_type++;
		return -1;
	}
}

int ethernet_output(struct net_if *iface, struct net_buf *b, const uint8_t dst[6], uint16_t type)
{
	struct eth_hdr *h = (struct eth_hdr *)net_buf_push(b, sizeof(struct eth_hdr));
	memcpy(h->dst, dst, 6);
	memcpy(h->src, iface->mac, 6);
	h->type[0] = (uint8_t)(type >> 8);
	h->type[1] = (uint8_t)type;
	iface->tx_packets++;
	return iface->send(iface, b);
}
