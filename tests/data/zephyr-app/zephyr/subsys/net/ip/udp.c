/* UDP (subsys/net/ip/udp.c). */
#include <stdint.h>
#include <stddef.h>
struct net_pkt;
int net_pkt_read(struct net_pkt *pkt, void *buf, size_t n);
int net_send_data(struct net_pkt *pkt);
typedef int (*udp_cb)(struct net_pkt *pkt, uint16_t port);
static udp_cb handler;

void net_udp_register(udp_cb cb) { handler = cb; }

int net_udp_input(struct net_pkt *pkt, const uint8_t *ip)
{
	uint8_t h[8];
	(void)ip;
	if (net_pkt_read(pkt, h, sizeof h) < 0 || !handler)
		return -1;
	return handler(pkt, (uint16_t)(h[2] << 8 | h[3]));
}

int net_udp_send(struct net_pkt *pkt) { return net_send_data(pkt); }
