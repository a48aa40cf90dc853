/* net_tc.h: traffic classes: the queues and threads that carry packets between the
 * drivers and the stack (RX) and between the stack and the drivers (TX). */
#ifndef NET_TC_H
#define NET_TC_H

#include <stdint.h>

#include "net/net_pkt.h"

#define NET_TC_TX_COUNT 1
#define NET_TC_RX_COUNT 1

/* The class of a packet priority (0..7). */
uint8_t net_tx_priority2tc(uint8_t priority);
uint8_t net_rx_priority2tc(uint8_t priority);

/* Queues pkt for the class's thread, which calls the handler given to net_tc_*_init. */
void net_tc_submit_to_tx_queue(uint8_t tc, struct net_pkt *pkt);
void net_tc_submit_to_rx_queue(uint8_t tc, struct net_pkt *pkt);

typedef void (*net_tc_handler_t)(struct net_pkt *pkt);
void net_tc_tx_init(net_tc_handler_t handler);
void net_tc_rx_init(net_tc_handler_t handler);

struct net_tc_stats {
	uint32_t pkts, max_depth;
};
void net_tc_stats_get(int tx, uint8_t tc, struct net_tc_stats *s);

#endif
