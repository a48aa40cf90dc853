/* net_if.h: network interfaces: the device below (a driver API), the link layer (L2) above
 * it, IPv4 configuration, state and per-layer statistics. */
#ifndef NET_NET_IF_H
#define NET_NET_IF_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/kernel.h"
#include "net/net_ip.h"
#include "net/net_pkt.h"
#include "net/net_stats.h"

struct net_if;

enum net_verdict {
	NET_OK,       /* the packet was consumed (sent, queued or handed on) */
	NET_CONTINUE, /* the next layer should look at it */
	NET_DROP,     /* the caller drops it */
};

/* What a device can do for the stack. */
enum net_if_caps {
	NET_IF_CAP_HW_TX_CHKSUM_OFFLOAD = 0x01, /* it fills in checksums on send */
	NET_IF_CAP_HW_RX_CHKSUM_OFFLOAD = 0x02, /* it verifies checksums on receive */
};

/* Which checksum a layer is about to compute or verify. */
enum net_if_checksum_type {
	NET_IF_CHECKSUM_IPV4_HEADER,
	NET_IF_CHECKSUM_IPV4_ICMP,
	NET_IF_CHECKSUM_UDP,
};

/* The device under an interface (the USB CDC-ECM function). */
struct net_if_api {
	/* Sends one link-layer frame; the packet stays the caller's. 0 or a negative errno.
	 * May block until the device has taken the frame. */
	int (*send)(struct net_if *iface, struct net_pkt *pkt);
	enum net_if_caps (*get_capabilities)(struct net_if *iface);
};

/* A link layer. */
struct net_l2 {
	const char *name;
	/* A received frame: strip the link header and say what to do next. */
	enum net_verdict (*recv)(struct net_if *iface, struct net_pkt *pkt);
	/* Add the link header and hand the frame to the device. NET_OK: sent (the L2 dropped
	 * its reference); NET_DROP: not sent. */
	enum net_verdict (*send)(struct net_if *iface, struct net_pkt *pkt);
	uint16_t (*reserve)(struct net_if *iface);
	/* Optional: a neighbour at IPv4 address ip sent us something from link address ll
	 * (reachability news for the link layer's address cache). */
	void (*reachable)(struct net_if *iface, const struct in_addr *ip,
			  const struct net_linkaddr *ll);
};

#define NET_IF_MAX 2 /* the USB interface and the loopback */
#define NET_IF_MAX_IPV4_ADDR 2
#define NET_IF_MAX_IPV4_MADDR 4

struct net_if_addr {
	struct in_addr address;
	bool is_used;
};

/* A multicast group the interface belongs to. */
struct net_if_mcast_addr {
	struct in_addr address;
	bool is_used;
	bool is_joined; /* announced with IGMP (never for 224.0.0.1) */
	bool report_pending; /* a delayed report answers a query */
};

struct net_if_ipv4 {
	struct net_if_addr unicast[NET_IF_MAX_IPV4_ADDR];
	struct net_if_mcast_addr mcast[NET_IF_MAX_IPV4_MADDR];
	struct in_addr netmask;
	struct in_addr gw;
	uint8_t ttl;
	uint8_t mcast_ttl;
};

/* Interface flags */
#define NET_IF_UP 0x01u       /* administratively up */
#define NET_IF_CARRIER 0x02u  /* the link is up (the host selected the data interface) */
#define NET_IF_PROMISC 0x04u
#define NET_IF_LOOPBACK 0x08u /* packets sent come back in; never the default route */

struct net_if {
	const char *name;
	struct k_mutex lock; /* its configuration (addresses, groups) against concurrent use */
	const struct net_if_api *api;
	const struct net_l2 *l2;
	void *dev_data;
	uint8_t mac[6];
	struct net_linkaddr link_addr;
	uint16_t mtu;
	uint32_t flags;
	struct net_if_ipv4 ipv4;
	struct net_stats stats;
};

/* Registers iface (at most NET_IF_MAX). */
void net_if_register(struct net_if *iface);
/* The first interface that is not a loopback. */
struct net_if *net_if_get_default(void);
/* Calls fn for every registered interface. */
void net_if_foreach(void (*fn)(struct net_if *iface, void *ctx), void *ctx);
int net_if_count(void);
struct net_if *net_if_get(int index);
/* iface's place in the table (0-based; socket interface indices are this plus 1), or -1. */
int net_if_get_index(const struct net_if *iface);

void net_if_up(struct net_if *iface);
void net_if_down(struct net_if *iface);
/* The device reports its link (carrier) state; any context. */
void net_if_carrier_on(struct net_if *iface);
void net_if_carrier_off(struct net_if *iface);
static inline bool net_if_is_up(const struct net_if *iface)
{
	return (iface->flags & (NET_IF_UP | NET_IF_CARRIER)) == (NET_IF_UP | NET_IF_CARRIER);
}

/* Adds addr/netmask to iface. 0 or -ENOMEM. */
int net_if_ipv4_addr_add(struct net_if *iface, const struct in_addr *addr,
			 const struct in_addr *netmask);
void net_if_ipv4_set_gw(struct net_if *iface, const struct in_addr *gw);
/* One of iface's addresses (NULL if none matches). */
struct net_if_addr *net_if_ipv4_addr_lookup(const struct in_addr *addr, struct net_if **ret);
/* The directed broadcast address of one of iface's subnets? */
bool net_if_ipv4_is_addr_bcast(struct net_if *iface, const struct in_addr *addr);
/* On one of iface's subnets? */
bool net_if_ipv4_addr_mask_cmp(struct net_if *iface, const struct in_addr *addr);
/* The source address iface uses toward dst. */
const struct in_addr *net_if_ipv4_select_src_addr(struct net_if *iface,
						  const struct in_addr *dst);
/* The interface that reaches dst (NULL: none). */
struct net_if *net_if_ipv4_select_src_iface(const struct in_addr *dst);

/* Multicast groups: membership of iface (the IGMP module announces them). */
struct net_if_mcast_addr *net_if_ipv4_maddr_add(struct net_if *iface, const struct in_addr *addr);
int net_if_ipv4_maddr_rm(struct net_if *iface, const struct in_addr *addr);
/* The group entry when iface (or any interface, iface NULL) belongs to addr. */
struct net_if_mcast_addr *net_if_ipv4_maddr_lookup(const struct in_addr *addr,
						   struct net_if **iface);

/* Whether the stack must compute (tx) or verify (rx) a checksum itself, or the device
 * does it. */
bool net_if_need_calc_tx_checksum(struct net_if *iface, enum net_if_checksum_type type);
bool net_if_need_calc_rx_checksum(struct net_if *iface, enum net_if_checksum_type type);

/* A frame from the device: the L2 looks at it (RX thread). */
enum net_verdict net_if_recv_data(struct net_if *iface, struct net_pkt *pkt);
/* A packet to send: queued for the TX thread (NET_OK: the stack owns it now; NET_DROP:
 * the interface is down, the caller keeps it). */
enum net_verdict net_if_send_data(struct net_if *iface, struct net_pkt *pkt);
/* The TX thread's part: the L2 adds its header and gives the frame to the device; the
 * packet is freed in every case. */
void net_if_tx(struct net_if *iface, struct net_pkt *pkt);

#endif
