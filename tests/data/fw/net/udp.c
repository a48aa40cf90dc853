/* udp.c: UDP: port bindings, checksum with the pseudo header, sending. */
#include "fw.h"

struct udp_hdr {
	uint8_t sport[2], dport[2], len[2], sum[2];
};

struct binding {
	uint16_t port;
	udp_handler fn;
};

static struct binding bindings[4];
static uint32_t no_port, udp_bad_sum;

int udp_bind(uint16_t port, udp_handler fn)
{
	for (unsigned i = 0; i < ARRAY_SIZE(bindings); i++) {
		if (!bindings[i].fn) {
			bindings[i].port = port;
			bindings[i].fn = fn;
			return 0;
		}
	}
	return -12;
}

static uint16_t udp_sum(const struct net_buf *b, uint32_t src, uint32_t dst)
{
	uint32_t sum = net_pseudo_hdr_sum(src, dst, 17, b->len);
	return net_chksum_finish(net_calc_chksum(b->data, b->len, sum));
}

int udp_input(struct net_if *iface, struct net_buf *b, uint32_t src, uint32_t dst)
{
	if (b->len < sizeof(struct udp_hdr))
		return -1;
	struct udp_hdr *h = (struct udp_hdr *)b->data;
	if ((h->sum[0] || h->sum[1]) && udp_sum(b, src, dst) != 0) {
		udp_bad_sum++;
		return -1;
	}
	uint16_t sport = (uint16_t)(h->sport[0] << 8 | h->sport[1]);
	uint16_t dport = (uint16_t)(h->dport[0] << 8 | h->dport[1]);
	net_buf_pull(b, sizeof(struct udp_hdr));
	for (unsigned i = 0; i < ARRAY_SIZE(bindings); i++) {
		if (bindings[i].fn && bindings[i].port == dport) {
			bindings[i].fn(iface, b, src, sport);
			return 0;
		}
	}
	no_port++;
	return -1;
}

int udp_sendto(struct net_if *iface, struct net_buf *b, uint32_t dst, uint16_t sport, uint16_t dport)
{
	struct udp_hdr *h = (struct udp_hdr *)net_buf_push(b, sizeof(struct udp_hdr));
	h->sport[0] = (uint8_t)(sport >> 8);
	h->sport[1] = (uint8_t)sport;
	h->dport[0] = (uint8_t)(dport >> 8);
	h->dport[1] = (uint8_t)dport;
	h->len[0] = (uint8_t)(b->len >> 8);
	h->len[1] = (uint8_t)b->len;
	h->sum[0] = h->sum[1] = 0;
	uint16_t sum = udp_sum(b, iface->ipaddr, dst);
	h->sum[0] = (uint8_t)(sum >> 8);
	h->sum[1] = (uint8_t)sum;
	return ipv4_output(iface, b, dst, 17);
}
