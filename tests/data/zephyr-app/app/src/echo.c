/* The UDP echo handler. */
#include <stdint.h>
#include <stddef.h>
struct net_pkt;
int net_pkt_read(struct net_pkt *pkt, void *buf, size_t n);
int net_pkt_write(struct net_pkt *pkt, const void *buf, size_t n);
struct net_pkt *net_pkt_alloc(void);
int net_udp_send(struct net_pkt *pkt);
static uint32_t echoes;

__attribute__((noinline)) static int echo_copy(struct net_pkt *to, struct net_pkt *from)
{
	uint8_t b[16];
	while (net_pkt_read(from, b, sizeof b) == 0)
		net_pkt_write(to, b, sizeof b);
	return 0;
}

int udp_echo_cb(struct net_pkt *pkt, uint16_t port)
{
	struct net_pkt *reply = net_pkt_alloc();
	if (!reply || port != 7)
		return -1;
	echo_copy(reply, pkt);
	echoes++;
	return net_udp_send(reply);
}
