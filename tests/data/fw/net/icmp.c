/* icmp.c: ICMP echo (ping) replies. */
#include "fw.h"

struct icmp_hdr {
	uint8_t type, code;
	uint8_t sum[2];
	uint8_t id[2], seq[2];
};

static uint32_t echo_requests, bad_checksums;

int icmp_input(struct net_if *iface, struct net_buf *b, uint32_t src, uint32_t dst)
{
	(void)dst;
	if (b->len < sizeof(struct icmp_hdr))
		return -1;
	struct icmp_hdr *h = (struct icmp_hdr *)b->data;
	if (net_chksum_finish(net_calc_chksum(b->data, b->len, 0)) != 0) {
		bad_checksums++;
		return -1;
	}
	if (h->type != 8 || h->code != 0)
		return -1;
	echo_requests++;
	h->type = 0;
	h->sum[0] = h->sum[1] = 0;
	uint16_t sum = net_chksum_finish(net_chksum_impl(b->data, b->len, 0));
	h->sum[0] = (uint8_t)(sum >> 8);
	h->sum[1] = (uint8_t)sum;
	return ipv4_output(iface, b, src, 1);
}
