/* chksum.c: the Internet checksum (RFC 1071), aligned so that its loop starts a cache line. */
#include "fw.h"

__attribute__((aligned(16))) uint32_t net_chksum_impl(const uint8_t *p, size_t n, uint32_t sum)
{
	while (n >= 8) {
		sum += ((uint32_t)p[0] << 8 | p[1]) + ((uint32_t)p[2] << 8 | p[3]);
		sum += ((uint32_t)p[4] << 8 | p[5]) + ((uint32_t)p[6] << 8 | p[7]);
		p += 8;
		n -= 8;
	}
	while (n >= 2) {
		sum += (uint32_t)p[0] << 8 | p[1];
		p += 2;
		n -= 2;
	}
	if (n)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

/* The name the protocol code uses: the same code as net_chksum_impl. */
uint32_t net_calc_chksum(const uint8_t *p, size_t n, uint32_t sum)
	__attribute__((alias("net_chksum_impl")));

uint16_t net_chksum_finish(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint32_t net_pseudo_hdr_sum(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len)
{
	return (src >> 16) + (src & 0xffff) + (dst >> 16) + (dst & 0xffff) + proto + len;
}
