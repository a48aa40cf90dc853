/* checksum.c: Internet checksums over packets: across fragment boundaries, with the IPv4
 * pseudo header for UDP. csum_partial (csum_c.c or csum_m0.S) does the summing. */
#include "net/checksum.h"
#include "net_private.h"

uint32_t net_pkt_chksum(struct net_pkt *pkt, uint32_t sum)
{
	struct net_buf *buf = pkt->cursor.buf;
	uint8_t *pos = pkt->cursor.pos;
	bool odd = false;
	while (buf) {
		size_t len = buf->len - (size_t)(pos - buf->data);
		if (len) {
			uint32_t part = csum_fold(csum_partial(pos, len, 0));
			/* After an odd number of bytes, this fragment's words straddle: its sum
			 * is the byte-swapped one. */
			if (odd)
				part = ((part & 0xFFu) << 8) | (part >> 8);
			sum += part;
			if (len & 1)
				odd = !odd;
		}
		buf = buf->frags;
		if (buf)
			pos = buf->data;
	}
	return sum;
}

uint16_t net_calc_chksum_ipv4(struct net_pkt *pkt)
{
	/* The IP header is in the first fragment: fragments hold 128 bytes, headers at most
	 * 60 after a 14-byte link header. */
	return csum_finish(csum_partial(pkt->buffer->data, pkt->ip_hdr_len, 0));
}

uint16_t net_calc_chksum(struct net_pkt *pkt, uint8_t proto)
{
	struct net_ipv4_hdr *ip_hdr = net_pkt_ip_hdr(pkt);
	uint16_t upper_len = (uint16_t)(sys_get_be16(ip_hdr->len) - pkt->ip_hdr_len);
	uint32_t sum = 0;
	if (proto == IPPROTO_UDP) {
		/* Pseudo header: source and destination address, protocol, length. */
		sum = csum_partial(ip_hdr->src, 2 * sizeof(struct in_addr), sum);
		sum += proto + upper_len;
	}
	struct net_pkt_cursor backup;
	bool overwrite = pkt->overwrite;
	net_pkt_cursor_backup(pkt, &backup);
	if (net_pkt_seek(pkt, pkt->ip_hdr_len) == 0)
		sum = net_pkt_chksum(pkt, sum);
	net_pkt_cursor_restore(pkt, &backup);
	net_pkt_set_overwrite(pkt, overwrite);
	return csum_finish(sum);
}
