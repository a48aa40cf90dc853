/* net_stats.h: per-layer network statistics counters of an interface. */
#ifndef NET_NET_STATS_H
#define NET_NET_STATS_H

#include <stdint.h>

struct net_stats_ip {
	uint32_t recv, sent, forwarded, drop;
};

struct net_stats_ip_errors {
	uint32_t vhlerr;  /* bad version or header length */
	uint32_t hblenerr; /* header length field larger than the packet */
	uint32_t lblenerr; /* total length field wrong */
	uint32_t fragerr; /* fragments (not supported: dropped) */
	uint32_t chkerr;
	uint32_t protoerr; /* unknown protocol */
	uint32_t ttlerr;
	uint32_t addrerr;  /* not for us */
};

struct net_stats_icmp {
	uint32_t recv, sent, drop, typeerr, chkerr;
};

struct net_stats_udp {
	uint32_t recv, sent, drop, chkerr, noport;
};

struct net_stats_arp {
	uint32_t recv, sent, drop, req_sent, reply_sent, cache_miss, pending_drop;
};

struct net_stats_eth {
	uint32_t rx_pkts, tx_pkts, rx_bytes, tx_bytes;
	uint32_t rx_broadcast, rx_multicast, rx_filtered, rx_unknown_type, rx_short;
	uint32_t tx_errors;
};

struct net_stats_bytes {
	uint32_t received, sent;
};

struct net_stats {
	uint32_t processing_error;
	struct net_stats_bytes bytes;
	struct net_stats_eth eth;
	struct net_stats_arp arp;
	struct net_stats_ip ipv4;
	struct net_stats_ip_errors ip_errors;
	struct net_stats_icmp icmp;
	struct net_stats_udp udp;
};

/* Counters are updated with interrupts unlocked: only the RX thread and the sending
 * threads touch them, and a lost increment only skews a statistic. */
#define NET_STATS_INC(iface, field) ((iface)->stats.field++)
#define NET_STATS_ADD(iface, field, n) ((iface)->stats.field += (n))

struct net_if;
/* Prints every counter of iface to the console. */
void net_stats_print(const struct net_if *iface);

#endif
