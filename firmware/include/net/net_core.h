/* net_core.h: the network stack's entry points: start-up, received frames in, packets
 * out. */
#ifndef NET_NET_CORE_H
#define NET_NET_CORE_H

#include "net/net_if.h"
#include "net/net_pkt.h"

/* Pools, protocols and the RX thread. Call once, before any interface is used. */
void net_init(void);
/* A frame from a device: queued for the RX thread. 0, or -ENETDOWN / -ENOBUFS (the
 * caller keeps the packet). Any thread context. */
int net_recv_data(struct net_if *iface, struct net_pkt *pkt);
/* Sends a finished IP packet through its interface. 0 (the stack owns the packet now), or
 * a negative errno (the caller still owns it). */
int net_send_data(struct net_pkt *pkt);

/* RX thread statistics. */
struct net_core_stats {
	uint32_t rx_queued, rx_processed, rx_queue_full, rx_queue_max;
};
void net_core_stats_get(struct net_core_stats *s);

#endif
