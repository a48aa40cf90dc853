/* ethernet.h: the Ethernet link layer: header, Ethertypes, MAC address helpers, the L2. */
#ifndef NET_ETHERNET_H
#define NET_ETHERNET_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "net/net_if.h"

#define NET_ETH_ADDR_LEN 6
#define NET_ETH_HDR_LEN 14
#define NET_ETH_MTU 1500
#define NET_ETH_MAX_FRAME (NET_ETH_HDR_LEN + NET_ETH_MTU)
#define NET_ETH_MIN_FRAME 60 /* without FCS; shorter frames are padded on the wire */

#define NET_ETH_PTYPE_IP 0x0800
#define NET_ETH_PTYPE_ARP 0x0806
#define NET_ETH_PTYPE_VLAN 0x8100 /* an IEEE 802.1Q tag follows */
#define NET_ETH_PTYPE_IPV6 0x86DD
#define NET_ETH_MIN_PTYPE 0x0600  /* below: an IEEE 802.3 length field (LLC frames) */
#define NET_ETH_VLAN_HDR_LEN 18

struct net_eth_addr {
	uint8_t addr[NET_ETH_ADDR_LEN];
};

struct net_eth_hdr {
	struct net_eth_addr dst;
	struct net_eth_addr src;
	uint16_t type; /* network order */
} __packed;

extern const struct net_eth_addr net_eth_broadcast_addr;

static inline bool net_eth_is_addr_broadcast(const struct net_eth_addr *a)
{
	return memcmp(a, &net_eth_broadcast_addr, sizeof(*a)) == 0;
}

static inline bool net_eth_is_addr_multicast(const struct net_eth_addr *a)
{
	return (a->addr[0] & 0x01) != 0;
}

static inline bool net_eth_addr_cmp(const struct net_eth_addr *a, const uint8_t *b)
{
	return memcmp(a->addr, b, NET_ETH_ADDR_LEN) == 0;
}

/* The Ethernet L2 (net/ethernet.c). */
extern const struct net_l2 net_l2_ethernet;

/* The receive filter: whether iface takes a frame for this destination (its own address,
 * broadcast, a multicast group it joined, anything when promiscuous). */
bool net_eth_accepts(struct net_if *iface, const struct net_eth_addr *dst);

#endif
