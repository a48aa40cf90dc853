/* net_tc.h: traffic classes: the queues and threads that carry packets between the
 * drivers and the stack (RX) and between the stack and the drivers (TX). Each queue is
 * bounded (a semaphore counts its free slots, as Zephyr's fifo_slot does): a packet that
 * finds its queue full is refused, so a stalled device or a flood cannot take every
 * buffer of the pools. */
#ifndef NET_TC_H
#define NET_TC_H

#include <stdint.h>

#include "net/net_pkt.h"

#define NET_TC_TX_COUNT 1
#define NET_TC_RX_COUNT 1
#define NET_TC_TX_SLOTS 12 /* packets a TX queue holds (of the 16 the TX pool has) */
#define NET_TC_RX_SLOTS 12
/* Queueing delay histogram: bucket i counts waits below 2^(i + 4) us, the last the rest. */
#define NET_TC_HIST_BUCKETS 8

/* The class of a packet priority (0..7). */
uint8_t net_tx_priority2tc(uint8_t priority);
uint8_t net_rx_priority2tc(uint8_t priority);

/* Queues pkt for the class's thread, which calls the handler given to net_tc_*_init.
 * 0, or -ENOBUFS when the queue is full (the caller keeps pkt). Never waits. */
int net_tc_submit_to_tx_queue(uint8_t tc, struct net_pkt *pkt);
int net_tc_submit_to_rx_queue(uint8_t tc, struct net_pkt *pkt);

typedef void (*net_tc_handler_t)(struct net_pkt *pkt);
void net_tc_tx_init(net_tc_handler_t handler);
void net_tc_rx_init(net_tc_handler_t handler);

struct net_tc_stats {
	uint32_t pkts, bytes, dropped, max_depth;
	uint8_t priorities; /* bit p: packets of priority p went through */
	uint32_t wait_sum_us, wait_max_us;
	uint32_t wait_hist[NET_TC_HIST_BUCKETS];
};
void net_tc_stats_get(int tx, uint8_t tc, struct net_tc_stats *s);

#endif
