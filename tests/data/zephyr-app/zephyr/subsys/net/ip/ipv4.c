/* IPv4 (subsys/net/ip/ipv4.c). */
#include <stdint.h>
#include <stddef.h>
struct net_pkt;
int net_pkt_read(struct net_pkt *pkt, void *buf, size_t n);
uint16_t net_calc_chksum(const uint8_t *data, size_t len);
int net_icmpv4_input(struct net_pkt *pkt, const uint8_t *hdr);
int net_udp_input(struct net_pkt *pkt, const uint8_t *hdr);

int net_ipv4_create(uint8_t *hdr, uint16_t len, uint8_t proto)
{
	hdr[0] = 0x45;
	hdr[2] = (uint8_t)(len >> 8);
	hdr[3] = (uint8_t)len;
	hdr[9] = proto;
	uint16_t c = net_calc_chksum(hdr, 20);
	hdr[10] = (uint8_t)(c >> 8);
	hdr[11] = (uint8_t)c;
	return 0;
}

int net_ipv4_input(struct net_pkt *pkt)
{
	uint8_t hdr[20];
	if (net_pkt_read(pkt, hdr, sizeof hdr) < 0 || net_calc_chksum(hdr, 20) != 0)
		return -1;
	if (hdr[9] == 1)
		return net_icmpv4_input(pkt, hdr);
	if (hdr[9] == 17)
		return net_udp_input(pkt, hdr);
	return -1;
}
