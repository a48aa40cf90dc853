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
#define NET_ETH_PTYPE_IPV6 0x86DD

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

/* Packet filter bits (the CDC-ECM SET_ETHERNET_PACKET_FILTER bitmap). */
#define NET_ETH_FILTER_PROMISCUOUS 0x01u
#define NET_ETH_FILTER_ALL_MULTICAST 0x02u
#define NET_ETH_FILTER_DIRECTED 0x04u
#define NET_ETH_FILTER_BROADCAST 0x08u
#define NET_ETH_FILTER_MULTICAST 0x10u

/* What the Ethernet L2 accepts on iface (the device sets it from the host's filter). */
void net_eth_set_filter(struct net_if *iface, uint16_t filter);
uint16_t net_eth_get_filter(const struct net_if *iface);

#endif
