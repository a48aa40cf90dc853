/* romfloat.c: the bootrom's function and data tables as pico-sdk 2.x uses them on an
 * RP2040: rom_func_lookup of every function code through the pointers at 0x14/0x18,
 * rom_data_lookup of 'SF' and 'SD' through 0x16, the version byte at 0x13 and the table
 * size byte before the soft-float table (float_init_rom_rp2040.c checks both), the tables
 * copied to RAM as __aeabi_float_init does; then every call of the vector the host put at
 * VEC through those copies, each result written over its input record for the host to check.
 *
 * VEC[0] = record count; each record is {entry, r0, r1, r2, r3} in, {r0, r1, r2, r3, APSR}
 * out; entry = table offset (0x00-0x7C), plus 0x100 for the double table. */
#include "rt.h"

#define ROM_CODE(a, b) ((uint32_t)(a) | (uint32_t)(b) << 8)
#define VEC ((volatile uint32_t *)0x20010000u)

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

static void *rom_func_lookup(uint32_t code)
{
	rom_lookup_fn lookup = (rom_lookup_fn)(uintptr_t)rom_hword(0x18);
	return lookup((const uint16_t *)(uintptr_t)rom_hword(0x14), code);
}

static void *rom_data_lookup(uint32_t code)
{
	rom_lookup_fn lookup = (rom_lookup_fn)(uintptr_t)rom_hword(0x18);
	return lookup((const uint16_t *)(uintptr_t)rom_hword(0x16), code);
}

static uint32_t sf_table[32], sd_table[32];

/* Calls fn with r0-r3 from rec[1..4]; stores r0-r3 and APSR in rec[0..4]. */
static void call4(uint32_t fn, volatile uint32_t *rec)
{
	register uint32_t r0 __asm("r0") = rec[1];
	register uint32_t r1 __asm("r1") = rec[2];
	register uint32_t r2 __asm("r2") = rec[3];
	register uint32_t r3 __asm("r3") = rec[4];
	register uint32_t f __asm("r4") = fn;
	uint32_t apsr;
	__asm volatile("blx r4\n\tmrs r5, apsr\n\tmov %[apsr], r5"
		       : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3), [apsr] "=r"(apsr)
		       : "r"(f)
		       : "r5", "r12", "lr", "memory", "cc");
	rec[0] = r0;
	rec[1] = r1;
	rec[2] = r2;
	rec[3] = r3;
	rec[4] = apsr;
}

int main(void)
{
	static const char codes[][2] = {
		{'P', '3'}, {'R', '3'}, {'L', '3'}, {'T', '3'}, {'M', 'S'}, {'S', '4'},
		{'M', 'C'}, {'C', '4'}, {'U', 'B'}, {'D', 'T'}, {'D', 'E'}, {'W', 'V'},
		{'I', 'F'}, {'E', 'X'}, {'R', 'E'}, {'R', 'P'}, {'F', 'C'}, {'C', 'X'},
	};
	unsigned found = 0;
	for (unsigned i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		uint32_t fn = (uint32_t)(uintptr_t)rom_func_lookup(ROM_CODE(codes[i][0], codes[i][1]));
		if (fn && (fn & 1))
			found++;
	}
	static const char data_codes[][2] = {{'C', 'R'}, {'G', 'R'}, {'F', 'S'}, {'F', 'E'},
					     {'S', 'F'}, {'S', 'D'}};
	unsigned data_found = 0;
	for (unsigned i = 0; i < sizeof data_codes / sizeof data_codes[0]; i++)
		if (rom_data_lookup(ROM_CODE(data_codes[i][0], data_codes[i][1])))
			data_found++;
	uint32_t version = *(const volatile uint8_t *)rom_ptr(0x13);
	const volatile uint32_t *sf = rom_data_lookup(ROM_CODE('S', 'F'));
	const volatile uint32_t *sd = rom_data_lookup(ROM_CODE('S', 'D'));
	uint32_t sf_words = ((const volatile uint8_t *)sf)[-2];
	uint32_t sd_words = ((const volatile uint8_t *)sd)[-2];
	for (unsigned i = 0; i < 32; i++) {
		sf_table[i] = sf[i];
		sd_table[i] = sd[i];
	}
	uint32_t fs = (uint32_t)(uintptr_t)rom_data_lookup(ROM_CODE('F', 'S'));
	uint32_t fe = (uint32_t)(uintptr_t)rom_data_lookup(ROM_CODE('F', 'E'));
	unsigned inside = 0;
	for (unsigned i = 0; i < 32; i++)
		inside += (sf_table[i] & ~1u) >= fs && (sf_table[i] & ~1u) < fe &&
			  (sd_table[i] & ~1u) >= fs && (sd_table[i] & ~1u) < fe;
	rt_puts("rom version ");
	rt_put_dec(version);
	rt_puts(" functions ");
	rt_put_dec(found);
	rt_puts(" data ");
	rt_put_dec(data_found);
	rt_puts(" sf words ");
	rt_put_dec(sf_words);
	rt_puts(" sd words ");
	rt_put_dec(sd_words);
	rt_puts(" in fplib ");
	rt_put_dec(inside);
	rt_putc('\n');

	uint32_t n = VEC[0];
	uint32_t t0 = rt_time_us();
	for (uint32_t i = 0; i < n; i++) {
		volatile uint32_t *rec = VEC + 1 + 5 * i;
		uint32_t e = rec[0];
		const uint32_t *table = e & 0x100 ? sd_table : sf_table;
		call4(table[(e & 0x7C) / 4], rec);
	}
	rt_puts("calls ");
	rt_put_dec(n);
	rt_puts(" in ");
	rt_put_dec(rt_time_us() - t0);
	rt_puts(" us\n");
	return 0;
}
