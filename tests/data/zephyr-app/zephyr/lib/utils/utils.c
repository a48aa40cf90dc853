/* lib/utils/utils.c: a utils.c of libzephyr.a; its static fold16 has the same section name
 * as the one in subsys/net/ip/utils.c. */
#include <stdint.h>
#include <stddef.h>

__attribute__((noinline)) static uint16_t fold16(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

uint16_t crc16_ccitt(uint16_t seed, const uint8_t *src, size_t len)
{
	uint32_t s = seed;
	for (size_t i = 0; i < len; i++)
		s = (s << 1) ^ src[i];
	return fold16(s);
}
