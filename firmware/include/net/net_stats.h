/* net_stats.h: per-layer network statistics counters of an interface. */
#ifndef NET_NET_STATS_H
#define NET_NET_STATS_H

#include <stddef.h>
#include <stdint.h>

struct net_stats_ip {
	uint32_t recv, sent, forwarded, drop;
	uint32_t raw_drop; /* copies raw sockets did not get (no packet free) */
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
	uint32_t martian; /* a source no host may use */
	uint32_t rpferr;  /* no route back through the interface it came in on */
	uint32_t opterr;  /* malformed options */
};

/* ICMP message types 0 .. 18 counted one by one (RFC 2011's icmpInEchos, icmpOutEchoReps
 * ...; Linux's IcmpMsg InTypeN / OutTypeN). */
#define NET_STATS_ICMP_TYPES 19

struct net_stats_icmp {
	uint32_t recv, sent, drop, typeerr, chkerr, ratelimited;
	uint32_t in_types[NET_STATS_ICMP_TYPES], out_types[NET_STATS_ICMP_TYPES];
};

struct net_stats_udp {
	uint32_t recv, sent, drop, chkerr, noport;
};

struct net_stats_arp {
	uint32_t recv, sent, drop, req_sent, reply_sent, cache_miss, pending_drop;
	uint32_t confirmed; /* entries confirmed by traffic from their owner */
};

/* Frame sizes as RMON counts them (RFC 2819 etherStatsPkts64Octets ...): up to 64, 65-127,
 * 128-255, 256-511, 512-1023, 1024 and more. */
#define NET_STATS_ETH_SIZE_BUCKETS 6
static inline unsigned net_stats_eth_size_bucket(size_t len)
{
	unsigned b = 0;
	for (size_t limit = 64; b < NET_STATS_ETH_SIZE_BUCKETS - 1 && len > limit; limit *= 2)
		b++;
	return b;
}

struct net_stats_eth {
	uint32_t rx_pkts, tx_pkts, rx_bytes, tx_bytes;
	uint32_t rx_sizes[NET_STATS_ETH_SIZE_BUCKETS], tx_sizes[NET_STATS_ETH_SIZE_BUCKETS];
	uint32_t rx_broadcast, rx_multicast, rx_filtered, rx_unknown_type, rx_short;
	uint32_t tx_broadcast, tx_multicast, tx_errors;
};

/* Packets the packet filter's rules dropped, by hook. */
struct net_stats_pkt_filter {
	uint32_t drop_recv, drop_ipv4, drop_send;
};

struct net_stats_bytes {
	uint32_t received, sent;
};

struct net_stats_igmp {
	uint32_t recv, sent, drop, queries, reports_suppressed;
};

/* Time packets spend in the stack (microseconds): from the driver to delivery (RX), from
 * creation to the device having sent it (TX), with the time at each stage boundary. */
#define NET_STATS_TIME_STAGES 4
struct net_stats_time {
	uint32_t count;
	uint32_t sum_us, min_us, max_us;
	uint32_t stage_sum_us[NET_STATS_TIME_STAGES];
};

struct net_stats {
	uint32_t processing_error;
	uint32_t tx_queue_full; /* packets refused by a full TX traffic class queue */
	struct net_stats_bytes bytes;
	struct net_stats_eth eth;
	struct net_stats_arp arp;
	struct net_stats_ip ipv4;
	struct net_stats_ip_errors ip_errors;
	struct net_stats_icmp icmp;
	struct net_stats_udp udp;
	struct net_stats_igmp igmp;
	struct net_stats_pkt_filter pkt_filter;
	struct net_stats_time rx_time, tx_time;
};

/* Every interface counts for itself and into the global totals. Counters are updated with
 * interrupts unlocked: only the network threads touch them, and a lost increment only
 * skews a statistic. */
extern struct net_stats net_stats_global;
#define NET_STATS_INC(iface, field) ((iface)->stats.field++, net_stats_global.field++)
#define NET_STATS_ADD(iface, field, n) \
	((iface)->stats.field += (n), net_stats_global.field += (n))

struct net_if;
struct net_pkt;
/* Marks the end of a processing stage of pkt (its time since creation is kept). */
void net_pkt_add_stats_tick(struct net_pkt *pkt);
/* pkt has been delivered (RX) or sent (TX): its time in the stack counts. */
void net_stats_update_rx_time(struct net_if *iface, struct net_pkt *pkt);
void net_stats_update_tx_time(struct net_if *iface, struct net_pkt *pkt);
/* Prints every counter of iface (NULL: the global totals) to the console. */
void net_stats_print(const struct net_if *iface);

#endif
