/* dma_sniff.c: the DMA sniffer computing checksums of data a channel copies, as
 * pico-sdk's dma_sniffer_enable and pico-examples dma/sniff_crc use it: CRC-32 over
 * "123456789" (MPEG-2 form, and the zlib form through CRC32R with OUT_REV and OUT_INV),
 * CRC-16-CCITT, the sum and parity modes, word transfers against a software CRC-32, and
 * a buffer followed by its own CRC leaving a zero residue. */
#include "rt.h"

#define DMA_BASE 0x50000000u
#define CH(n, off) REG(DMA_BASE + 0x40u * (n) + (off))
#define CH_READ 0x00u
#define CH_WRITE 0x04u
#define CH_COUNT 0x08u
#define CH_CTRL_TRIG 0x0Cu
#define SNIFF_CTRL REG(DMA_BASE + 0x434)
#define SNIFF_DATA REG(DMA_BASE + 0x438)
#define CTRL_BUSY (1u << 24)
#define SNIFF_EN 1u
#define OUT_REV (1u << 10)
#define OUT_INV (1u << 11)

static const uint8_t check[9] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
static uint8_t sink[64];
static uint8_t with_crc[13];
static uint32_t words[8];

/* Copies n items of size (0 byte, 2 word) from src on channel 2 with SNIFF_EN; the sniffer
 * starts from seed with calc and flags. */
static uint32_t sniff(const void *src, unsigned n, unsigned size, uint32_t seed, unsigned calc,
		      uint32_t flags)
{
	SNIFF_DATA = seed;
	SNIFF_CTRL = SNIFF_EN | 2u << 1 | calc << 5 | flags;
	CH(2, CH_READ) = (uint32_t)src;
	CH(2, CH_WRITE) = (uint32_t)sink;
	CH(2, CH_COUNT) = n;
	CH(2, CH_CTRL_TRIG) = 1u | size << 2 | 1u << 4 | 1u << 5 | 2u << 11 | 0x3Fu << 15 |
			      1u << 23;
	while (CH(2, CH_CTRL_TRIG) & CTRL_BUSY)
		;
	return SNIFF_DATA;
}

/* zlib's CRC-32 (reflected 0xEDB88320, init and final inversion). */
static uint32_t soft_crc32(const uint8_t *p, unsigned n)
{
	uint32_t crc = 0xFFFFFFFFu;
	while (n--) {
		crc ^= *p++;
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ ((crc & 1) ? 0xEDB88320u : 0);
	}
	return ~crc;
}

static void put(const char *k, uint32_t v)
{
	rt_puts(k);
	rt_put_hex(v);
	rt_putc('\n');
}

int main(void)
{
	put("crc32 ", sniff(check, 9, 0, 0xFFFFFFFFu, 0x0, 0));
	put("crc32r ", sniff(check, 9, 0, 0xFFFFFFFFu, 0x1, OUT_REV | OUT_INV));
	put("crc16 ", sniff(check, 9, 0, 0xFFFF, 0x2, 0));
	put("sum ", sniff(check, 9, 0, 0, 0xF, 0));
	put("even ", sniff(check, 9, 0, 0, 0xE, 0));
	for (unsigned i = 0; i < 8; i++)
		words[i] = 0x9E3779B9u * (i + 1);
	put("words hw ", sniff(words, 8, 2, 0xFFFFFFFFu, 0x1, OUT_REV | OUT_INV));
	put("words sw ", soft_crc32((const uint8_t *)words, 32));
	/* dma/sniff_crc: the data, then its CRC register (no final inversion) little-endian:
	 * the reflected CRC over all 13 bytes leaves 0. */
	for (unsigned i = 0; i < 9; i++)
		with_crc[i] = check[i];
	uint32_t reg = ~soft_crc32(check, 9);
	for (unsigned i = 0; i < 4; i++)
		with_crc[9 + i] = (uint8_t)(reg >> (8 * i));
	put("residue ", sniff(with_crc, 13, 0, 0xFFFFFFFFu, 0x1, OUT_REV));
	int same = 1;
	for (unsigned i = 0; i < 13; i++)
		same &= sink[i] == with_crc[i];
	put("copied ", (uint32_t)same);
	return 0;
}
