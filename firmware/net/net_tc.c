/* net_tc.c: traffic class queues and their threads: received packets go from the drivers
 * to the RX thread, packets to send from the stack to the TX thread. */
#include "net_tc.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_tc, LOG_LEVEL_WRN);

#define NET_TC_STACK_SIZE 1536
/* TX above RX: frames leave before new work is taken in. */
#define NET_TC_TX_PRIO 3
#define NET_TC_RX_PRIO 4
#define NET_MAX_PRIORITY 8

struct net_traffic_class {
	struct k_fifo fifo;
	struct k_sem fifo_slot; /* free places in fifo */
	struct k_thread thread;
	net_tc_handler_t handler;
	const char *name;
	struct net_tc_stats stats;
};

static struct net_traffic_class tx_classes[NET_TC_TX_COUNT];
static struct net_traffic_class rx_classes[NET_TC_RX_COUNT];
static K_THREAD_STACK_DEFINE(tx_stacks[NET_TC_TX_COUNT], NET_TC_STACK_SIZE);
static K_THREAD_STACK_DEFINE(rx_stacks[NET_TC_RX_COUNT], NET_TC_STACK_SIZE);

/* IEEE 802.1Q priorities to classes when there are fewer classes than priorities: a
 * higher class for higher priorities (with one class, everything shares it). */
static uint8_t priority2tc(uint8_t priority, unsigned count)
{
	if (priority >= NET_MAX_PRIORITY)
		priority = NET_MAX_PRIORITY - 1;
	return (uint8_t)((priority * count) / NET_MAX_PRIORITY);
}

uint8_t net_tx_priority2tc(uint8_t priority)
{
	return priority2tc(priority, NET_TC_TX_COUNT);
}

uint8_t net_rx_priority2tc(uint8_t priority)
{
	return priority2tc(priority, NET_TC_RX_COUNT);
}

static int tc_submit(struct net_traffic_class *tc, struct net_pkt *pkt)
{
	if (k_sem_take(&tc->fifo_slot, K_NO_WAIT)) {
		tc->stats.dropped++;
		LOG_DBG("%s: queue full, pkt %p refused", tc->name, pkt);
		return -ENOBUFS;
	}
	pkt->queued_us = k_cycle_get_32();
	k_fifo_put(&tc->fifo, pkt);
	unsigned key = irq_lock();
	tc->stats.pkts++;
	tc->stats.bytes += (uint32_t)net_pkt_get_len(pkt);
	tc->stats.priorities |= (uint8_t)BIT(pkt->priority & 7u);
	uint32_t depth = k_fifo_count(&tc->fifo);
	if (depth > tc->stats.max_depth)
		tc->stats.max_depth = depth;
	irq_unlock(key);
	return 0;
}

int net_tc_submit_to_tx_queue(uint8_t tc, struct net_pkt *pkt)
{
	return tc_submit(&tx_classes[tc < NET_TC_TX_COUNT ? tc : 0], pkt);
}

int net_tc_submit_to_rx_queue(uint8_t tc, struct net_pkt *pkt)
{
	return tc_submit(&rx_classes[tc < NET_TC_RX_COUNT ? tc : 0], pkt);
}

/* How long pkt waited in the queue, into the class's statistics. */
static void tc_account_wait(struct net_traffic_class *tc, const struct net_pkt *pkt)
{
	uint32_t us = k_cycle_get_32() - pkt->queued_us;
	struct net_tc_stats *s = &tc->stats;
	unsigned b = 0;
	for (uint32_t limit = 16; b < NET_TC_HIST_BUCKETS - 1 && us >= limit; limit <<= 1)
		b++;
	s->wait_hist[b]++;
	s->wait_sum_us += us;
	if (us > s->wait_max_us)
		s->wait_max_us = us;
}

static void tc_thread(void *p1, void *p2, void *p3)
{
	struct net_traffic_class *tc = p1;
	UNUSED(p2);
	UNUSED(p3);
	for (;;) {
		struct net_pkt *pkt = k_fifo_get(&tc->fifo, K_FOREVER);
		if (!pkt)
			continue;
		k_sem_give(&tc->fifo_slot);
		tc_account_wait(tc, pkt);
		tc->handler(pkt);
	}
}

static void tc_start(struct net_traffic_class *tc, uint32_t *stack, size_t size, int prio,
		     net_tc_handler_t handler, const char *name, unsigned slots)
{
	k_fifo_init(&tc->fifo);
	k_sem_init(&tc->fifo_slot, slots, slots);
	tc->handler = handler;
	tc->name = name;
	k_thread_create(&tc->thread, stack, size, tc_thread, tc, NULL, NULL, prio, name);
}

void net_tc_tx_init(net_tc_handler_t handler)
{
	for (int i = 0; i < NET_TC_TX_COUNT; i++)
		tc_start(&tx_classes[i], tx_stacks[i], sizeof(tx_stacks[i]), NET_TC_TX_PRIO - i,
			 handler, "net_tx", NET_TC_TX_SLOTS);
}

void net_tc_rx_init(net_tc_handler_t handler)
{
	for (int i = 0; i < NET_TC_RX_COUNT; i++)
		tc_start(&rx_classes[i], rx_stacks[i], sizeof(rx_stacks[i]), NET_TC_RX_PRIO - i,
			 handler, "net_rx", NET_TC_RX_SLOTS);
}

void net_tc_stats_get(int tx, uint8_t tc, struct net_tc_stats *s)
{
	const struct net_traffic_class *c = tx ? &tx_classes[tc] : &rx_classes[tc];
	unsigned key = irq_lock();
	*s = c->stats;
	irq_unlock(key);
}
