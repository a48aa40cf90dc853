/* mkuf2.c: a raw flash image to UF2 (256-byte payloads, RP2040 family), for the virtual Pico
 * tests. Host program: mkuf2 IN.bin ADDR OUT.uf2 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: mkuf2 IN.bin ADDR OUT.uf2\n");
		return 2;
	}
	FILE *in = fopen(argv[1], "rb");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	static unsigned char data[2 << 20];
	size_t n = fread(data, 1, sizeof data, in);
	fclose(in);
	uint32_t addr = (uint32_t)strtoul(argv[2], NULL, 0);
	uint32_t blocks = (uint32_t)((n + 255) / 256);
	FILE *out = fopen(argv[3], "wb");
	if (!out) {
		perror(argv[3]);
		return 1;
	}
	for (uint32_t i = 0; i < blocks; i++) {
		unsigned char b[512];
		memset(b, 0, sizeof b);
		put32(b + 0, 0x0A324655u);
		put32(b + 4, 0x9E5D5157u);
		put32(b + 8, 0x00002000u); /* family ID present */
		put32(b + 12, addr + 256 * i);
		put32(b + 16, 256);
		put32(b + 20, i);
		put32(b + 24, blocks);
		put32(b + 28, 0xE48BFF56u);
		size_t len = n - 256 * (size_t)i < 256 ? n - 256 * (size_t)i : 256;
		memcpy(b + 32, data + 256 * (size_t)i, len);
		put32(b + 508, 0x0AB16F30u);
		fwrite(b, 1, sizeof b, out);
	}
	return fclose(out) == 0 ? 0 : 1;
}
