/* loopback.c: the loopback interface "lo" (127.0.0.1/8): every packet sent through it
 * comes back in as a received one, through the same RX thread as the USB interface's. */
#include "net/net_core.h"
#include "net_private.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_lo, LOG_LEVEL_WRN);

static struct net_if lo_iface;

/* The device: a copy of the packet goes back in (the original is the sender's). */
static int loopback_send(struct net_if *iface, struct net_pkt *pkt)
{
	struct net_pkt *clone = net_pkt_rx_clone(pkt, K_NO_WAIT);
	if (!clone)
		return -ENOMEM;
	int ret = net_recv_data(iface, clone);
	if (ret < 0)
		net_pkt_unref(clone);
	return ret;
}

static const struct net_if_api loopback_api = {
	.send = loopback_send,
};

/* The link layer: none. The IP version says what came in. */
static enum net_verdict dummy_recv(struct net_if *iface, struct net_pkt *pkt)
{
	uint8_t vhl;
	UNUSED(iface);
	net_pkt_cursor_init(pkt);
	if (net_pkt_read_u8(pkt, &vhl) || (vhl >> 4) != 4)
		return NET_DROP;
	net_pkt_cursor_init(pkt);
	pkt->family = AF_INET;
	return NET_CONTINUE;
}

static enum net_verdict dummy_send(struct net_if *iface, struct net_pkt *pkt)
{
	int ret = iface->api->send(iface, pkt);
	if (ret)
		return NET_DROP;
	net_pkt_unref(pkt);
	return NET_OK;
}

static uint16_t dummy_reserve(struct net_if *iface)
{
	UNUSED(iface);
	return 0;
}

static const struct net_l2 net_l2_dummy = {
	.name = "dummy",
	.recv = dummy_recv,
	.send = dummy_send,
	.reserve = dummy_reserve,
};

void net_loopback_init(void)
{
	static const struct in_addr addr = {.s4_addr = {127, 0, 0, 1}};
	static const struct in_addr mask = {.s4_addr = {255, 0, 0, 0}};
	lo_iface.name = "lo";
	lo_iface.api = &loopback_api;
	lo_iface.l2 = &net_l2_dummy;
	lo_iface.flags = NET_IF_LOOPBACK;
	lo_iface.mtu = 1500;
	net_if_register(&lo_iface);
	net_if_ipv4_addr_add(&lo_iface, &addr, &mask);
	net_if_up(&lo_iface);
	net_if_carrier_on(&lo_iface);
}
