/* net_if.c: the network interface: receive queue, statistics, dispatch to L2. */
#include "fw.h"

struct net_if net_default_if;
static struct net_buf *rx_fifo;
static uint32_t rx_seen;

/* Same name as a static function in the USB stack: both stay in the image. */
static __attribute__((noipa)) int helper(struct net_if *iface, int which)
{
	switch (which) {
	case 0:
		return (int)iface->rx_packets;
	case 1:
		return (int)iface->tx_packets;
	case 2:
		return (int)iface->rx_dropped;
	default:
		return (int)iface->tx_dropped;
	}
}

void net_if_init(struct net_if *iface, const uint8_t mac[6], uint32_t ip, uint32_t mask)
{
	memcpy(iface->mac, mac, 6);
	iface->ipaddr = ip;
	iface->netmask = mask;
	iface->gateway = (ip & mask) | 1;
	iface->rx_packets = iface->tx_packets = 0;
	iface->rx_dropped = iface->tx_dropped = 0;
	iface->send = cdc_ecm_send;
}

void net_recv_data(struct net_if *iface, struct net_buf *b)
{
	(void)iface;
	net_buf_put(&rx_fifo, b);
}

void net_process(void)
{
	struct net_buf *b;
	while ((b = net_buf_get(&rx_fifo)) != NULL) {
		net_default_if.rx_packets++;
		if (ethernet_input(&net_default_if, b) < 0) {
			net_default_if.rx_dropped++;
			net_buf_unref(b);
		}
		if ((++rx_seen & 0x3f) == 0)
			net_gen_00(rx_seen);
	}
}

uint32_t net_stats_get(int which)
{
	return (uint32_t)helper(&net_default_if, which) + (uint32_t)helper(&net_default_if, 3 - which);
}
