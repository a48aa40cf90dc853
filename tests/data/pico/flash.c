/* flash.c: the bootrom's flash functions found with rom_table_lookup, called from SRAM as
 * real firmware must: erase a sector, program a page, flush the XIP cache, read the data
 * back through XIP; the time each took; and the ROM's bit and memory helpers. */
#include "rt.h"

#define ROM_CODE(a, b) ((uint32_t)(a) | (uint32_t)(b) << 8)
#define OFFSET 0x100000u /* 1 MB into the flash */

typedef void *(*rom_lookup_fn)(const uint16_t *table, uint32_t code);

/* A pointer to a ROM address (hidden from gcc, which warns about objects near 0). */
static const volatile void *rom_ptr(uint32_t addr)
{
	const volatile void *p;
	__asm volatile("" : "=r"(p) : "0"(addr));
	return p;
}

static uint16_t rom_hword(uint32_t addr)
{
	return *(const volatile uint16_t *)rom_ptr(addr);
}

static void *rom_func(uint32_t code)
{
	rom_lookup_fn lookup = (rom_lookup_fn)(uintptr_t)rom_hword(0x18);
	return lookup((const uint16_t *)(uintptr_t)rom_hword(0x14), code);
}

static uint8_t page[256];
static uint32_t erase_us, program_us;

RT_RAMFUNC static void flash_write(void (*erase)(uint32_t, uint32_t, uint32_t, uint8_t),
				   void (*program)(uint32_t, const uint8_t *, uint32_t),
				   void (*flush)(void))
{
	uint32_t t0 = rt_time_us();
	erase(OFFSET, 4096, 65536, 0xD8);
	uint32_t t1 = rt_time_us();
	program(OFFSET, page, sizeof page);
	uint32_t t2 = rt_time_us();
	flush();
	erase_us = t1 - t0;
	program_us = t2 - t1;
}

int main(void)
{
	uint8_t magic[3];
	for (int i = 0; i < 3; i++)
		magic[i] = *(const volatile uint8_t *)rom_ptr(0x10u + (uint32_t)i);
	rt_puts(magic[0] == 'M' && magic[1] == 'u' && magic[2] == 1 ? "rom magic ok\n"
								       : "rom magic BAD\n");
	for (int i = 0; i < 256; i++)
		page[i] = (uint8_t)(i * 7 + 3);
	void *erase = rom_func(ROM_CODE('R', 'E'));
	void *program = rom_func(ROM_CODE('R', 'P'));
	void *flush = rom_func(ROM_CODE('F', 'C'));
	rt_puts("rom unknown ");
	rt_put_hex((uint32_t)(uintptr_t)rom_func(ROM_CODE('Z', 'Z')));
	rt_putc('\n');
	flash_write(erase, program, flush);
	const volatile uint8_t *xip = (const volatile uint8_t *)(0x10000000u + OFFSET);
	int ok = 1;
	for (int i = 0; i < 256; i++)
		if (xip[i] != page[i])
			ok = 0;
	for (int i = 256; i < 4096; i++)
		if (xip[i] != 0xFF)
			ok = 0;
	rt_puts("flash erase ");
	rt_put_dec(erase_us);
	rt_puts(" us program ");
	rt_put_dec(program_us);
	rt_puts(ok ? " us verify ok\n" : " us verify FAILED\n");
	uint32_t (*popcount)(uint32_t) = rom_func(ROM_CODE('P', '3'));
	uint32_t (*clz)(uint32_t) = rom_func(ROM_CODE('L', '3'));
	uint32_t (*ctz)(uint32_t) = rom_func(ROM_CODE('T', '3'));
	uint32_t (*rev)(uint32_t) = rom_func(ROM_CODE('R', '3'));
	void *(*rmemset)(void *, int, uint32_t) = rom_func(ROM_CODE('M', 'S'));
	void *(*rmemcpy)(void *, const void *, uint32_t) = rom_func(ROM_CODE('M', 'C'));
	uint8_t buf[8];
	rmemset(buf, 0x5A, 8);
	rmemcpy(buf + 2, "xy", 2);
	rt_puts("rom popcount ");
	rt_put_dec(popcount(0xF0F0F0F0u));
	rt_puts(" clz ");
	rt_put_dec(clz(0x1000u));
	rt_puts(" ctz ");
	rt_put_dec(ctz(0x1000u));
	rt_puts(" rev ");
	rt_put_hex(rev(1));
	rt_puts(" mem ");
	for (int i = 0; i < 4; i++)
		rt_putc((char)buf[i]);
	rt_putc('\n');
	return 0;
}
