/* subsys/net/ip/utils.c: the Internet checksum. fold16 is static, and lib/utils/utils.c
 * has one of the same name (same section name, same object name utils.c.obj). */
#include <stdint.h>
#include <stddef.h>

__attribute__((noinline)) static uint16_t fold16(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

uint16_t net_calc_chksum(const uint8_t *data, size_t len)
{
	uint32_t s = 0;
	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(data[i] << 8 | data[i + 1]);
	if (len & 1)
		s += (uint32_t)data[len - 1] << 8;
	return (uint16_t)~fold16(s);
}
