/* crc32.c: CRC-32 (reflected 0xEDB88320) by table: the check value of "123456789" and the
 * CRC of 16 KB of generated data, printed on UART0. */
#include "rt.h"

static uint32_t table[256];
static uint8_t data[16384];

static uint32_t crc32(const uint8_t *p, uint32_t n)
{
	uint32_t crc = 0xFFFFFFFFu;
	while (n--)
		crc = (crc >> 8) ^ table[(crc ^ *p++) & 0xFF];
	return ~crc;
}

int main(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
		table[i] = c;
	}
	rt_puts("crc32 check ");
	rt_put_hex(crc32((const uint8_t *)"123456789", 9));
	rt_putc('\n');
	uint32_t x = 12345;
	for (uint32_t i = 0; i < sizeof data; i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (uint8_t)(x >> 16);
	}
	rt_puts("crc32 data ");
	rt_put_hex(crc32(data, sizeof data));
	rt_putc('\n');
	return 0;
}
