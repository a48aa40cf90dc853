/* csum_c.c: the Internet checksum in generic C (CSUM=c): one 16-bit word at a time, built
 * from two byte loads, as portable code without an optimised port does. */
#include "net/checksum.h"

uint32_t csum_partial(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	while (len > 1) {
		sum += (uint32_t)((p[0] << 8) | p[1]);
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)(p[0] << 8);
	return sum;
}
