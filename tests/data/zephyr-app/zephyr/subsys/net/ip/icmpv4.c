/* ICMPv4 (subsys/net/ip/icmpv4.c). */
#include <stdint.h>
#include <stddef.h>
struct net_pkt;
struct net_pkt *net_pkt_alloc(void);
int net_pkt_read(struct net_pkt *pkt, void *buf, size_t n);
int net_pkt_write(struct net_pkt *pkt, const void *buf, size_t n);
int net_ipv4_create(uint8_t *hdr, uint16_t len, uint8_t proto);
int net_send_data(struct net_pkt *pkt);

static int icmpv4_handle_echo_request(struct net_pkt *pkt, const uint8_t *ip)
{
	uint8_t hdr[20], icmp[8];
	struct net_pkt *reply = net_pkt_alloc();
	if (!reply || net_pkt_read(pkt, icmp, sizeof icmp) < 0)
		return -1;
	for (int i = 0; i < 20; i++)
		hdr[i] = ip[i];
	net_ipv4_create(hdr, 28, 1);
	icmp[0] = 0;
	net_pkt_write(reply, hdr, sizeof hdr);
	net_pkt_write(reply, icmp, sizeof icmp);
	return net_send_data(reply);
}

int net_icmpv4_input(struct net_pkt *pkt, const uint8_t *ip)
{
	return icmpv4_handle_echo_request(pkt, ip);
}
