/* crc32.c: bit-wise CRC-32 (IEEE, reflected) of 4 KB generated in SRAM; returns the CRC.
 * Pure computation: the emulator's benchmark and a correctness test. */
#include "sim.h"

static uint8_t buf[4096];

static uint32_t crc32(const uint8_t *p, uint32_t n)
{
	uint32_t crc = 0xFFFFFFFFu;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
	}
	return ~crc;
}

int main(void)
{
	uint32_t x = 12345;
	for (uint32_t i = 0; i < sizeof buf; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	uint32_t rounds = MAILBOX_IN[0] ? MAILBOX_IN[0] : 1;
	uint32_t crc = 0;
	for (uint32_t r = 0; r < rounds; r++)
		crc = crc32(buf, sizeof buf);
	return (int)crc;
}
