/* bootrom: the virtual Pico's own small bootrom (not Raspberry Pi's): reset into flash, the
 * 'M','u' header with the function and data tables, a Thumb rom_table_lookup, memset and
 * memcpy, and stubs whose work (flash erase and program, cache flush, bit operations) the
 * host does through a board-private host-call register block. */
#include <stdlib.h>
#include <string.h>

#include "periph.h"

/*
 * Layout (all in the first KB of the ROM):
 *   0x000  initial SP, reset, NMI and HardFault vectors (the other system vectors too)
 *   0x010  'M', 'u', 0x01, version 3 (the B2 bootrom's version, matching SYSINFO)
 *   0x014  u16 function table, u16 data table, u16 rom_table_lookup (Thumb bit set)
 *   0x040  code: reset, fault, lookup, memset, memcpy, host-call stubs; then the tables
 *
 * A host-call stub is `push {r4, lr}; ldr r4, =HOSTCALL; str r4, [r4, #4 * N]; pop {r4,
 * pc}`: the store to word N of the host-call block makes the host read R0-R3, do call N
 * and put the result in R0 before the store completes.
 */

#define ROM_SIZE 0x400u
#define ROM_CODE 0x040u
#define ROM_SP 0x20042000u       /* top of SRAM */
#define ROM_FLASH_VECTORS 0x10000100u
#define ROM_VTOR 0xE000ED08u
#define ROM_VERSION 3u

/* Host calls: word offsets in the host-call block. */
enum hostcall {
	HC_CONNECT_INTERNAL_FLASH,
	HC_FLASH_EXIT_XIP,
	HC_FLASH_RANGE_ERASE,
	HC_FLASH_RANGE_PROGRAM,
	HC_FLASH_FLUSH_CACHE,
	HC_FLASH_ENTER_CMD_XIP,
	HC_POPCOUNT32,
	HC_REVERSE32,
	HC_CLZ32,
	HC_CTZ32,
	HC_COUNT,
};

/* Flash timing (typical W25Q16JV figures, the Pico's flash; UNVERIFIED against its
 * datasheet's AC table here): 4 KB sector erase 45 ms, 32 KB block erase 120 ms, 64 KB
 * block erase 150 ms, 256-byte page program 0.4 ms. */
#define FLASH_SECTOR 4096u
#define FLASH_PAGE 256u
#define FLASH_SECTOR_ERASE_US 45000u
#define FLASH_BLOCK32_ERASE_US 120000u
#define FLASH_BLOCK64_ERASE_US 150000u
#define FLASH_PAGE_PROGRAM_US 400u

struct xb_bootrom {
	xb_board *board;
	uint32_t rom_base;
};

/* ---- A Thumb assembler in miniature ---- */

typedef struct rom_asm {
	uint8_t *rom;
	uint32_t pc;
} rom_asm;

static void rom_emit16(rom_asm *a, uint16_t h)
{
	a->rom[a->pc] = (uint8_t)h;
	a->rom[a->pc + 1] = (uint8_t)(h >> 8);
	a->pc += 2;
}

static void rom_put32(rom_asm *a, uint32_t at, uint32_t w)
{
	for (int i = 0; i < 4; i++)
		a->rom[at + i] = (uint8_t)(w >> (8 * i));
}

static void rom_put16(rom_asm *a, uint32_t at, uint16_t h)
{
	a->rom[at] = (uint8_t)h;
	a->rom[at + 1] = (uint8_t)(h >> 8);
}

static void rom_align4(rom_asm *a)
{
	if (a->pc & 2)
		rom_emit16(a, 0xBF00); /* NOP */
}

/* B<cond> (cond 0 = EQ) at `at` to target. */
static void rom_patch_bcond(rom_asm *a, uint32_t at, unsigned cond, uint32_t target)
{
	int32_t off = ((int32_t)target - (int32_t)(at + 4)) / 2;
	rom_put16(a, at, (uint16_t)(0xD000 | cond << 8 | (off & 0xFF)));
}

static void rom_b(rom_asm *a, uint32_t target)
{
	int32_t off = ((int32_t)target - (int32_t)(a->pc + 4)) / 2;
	rom_emit16(a, (uint16_t)(0xE000 | (off & 0x7FF)));
}

/* LDR rt, [pc, #imm] loading the word at lit (word aligned, after the instruction). */
static void rom_ldr_lit(rom_asm *a, unsigned rt, uint32_t lit)
{
	uint32_t base = (a->pc + 4) & ~3u;
	rom_emit16(a, (uint16_t)(0x4800 | rt << 8 | ((lit - base) / 4)));
}

enum { COND_EQ = 0 };

/* reset: VTOR = flash vectors; MSP = [vectors]; jump to [vectors + 4]. */
static uint32_t rom_emit_reset(rom_asm *a)
{
	rom_align4(a);
	uint32_t start = a->pc;
	uint32_t lit = start + 16; /* after the 7 instructions and one pad */
	rom_ldr_lit(a, 0, lit);     /* ldr r0, =0x10000100 */
	rom_ldr_lit(a, 1, lit + 4); /* ldr r1, =VTOR */
	rom_emit16(a, 0x6008);      /* str r0, [r1] */
	rom_emit16(a, 0x6801);      /* ldr r1, [r0] */
	rom_emit16(a, 0xF381);      /* msr msp, r1 */
	rom_emit16(a, 0x8808);
	rom_emit16(a, 0x6841);      /* ldr r1, [r0, #4] */
	rom_emit16(a, 0x4708);      /* bx r1 */
	rom_put32(a, lit, ROM_FLASH_VECTORS);
	rom_put32(a, lit + 4, ROM_VTOR);
	a->pc = lit + 8;
	return start;
}

/* A fault or NMI while the ROM's vectors are in use: BKPT (halts under a debugger; without
 * one the core locks up, which ends a run). */
static uint32_t rom_emit_fault(rom_asm *a)
{
	uint32_t start = a->pc;
	rom_emit16(a, 0xBE00); /* bkpt #0 */
	rom_b(a, start);
	return start;
}

/* void *rom_table_lookup(const uint16_t *table, uint32_t code): walks {code, ptr} pairs
 * until code 0; returns the pointer or NULL. */
static uint32_t rom_emit_lookup(rom_asm *a)
{
	uint32_t start = a->pc;
	rom_emit16(a, 0x8802); /* loop: ldrh r2, [r0] */
	rom_emit16(a, 0x2A00); /* cmp r2, #0 */
	uint32_t to_none = a->pc;
	rom_emit16(a, 0);      /* beq none */
	rom_emit16(a, 0x428A); /* cmp r2, r1 */
	uint32_t to_found = a->pc;
	rom_emit16(a, 0);      /* beq found */
	rom_emit16(a, 0x3004); /* adds r0, #4 */
	rom_b(a, start);
	rom_patch_bcond(a, to_found, COND_EQ, a->pc);
	rom_emit16(a, 0x8840); /* found: ldrh r0, [r0, #2] */
	rom_emit16(a, 0x4770); /* bx lr */
	rom_patch_bcond(a, to_none, COND_EQ, a->pc);
	rom_emit16(a, 0x2000); /* none: movs r0, #0 */
	rom_emit16(a, 0x4770); /* bx lr */
	return start;
}

/* void *memset(void *p, int c, size_t n), byte by byte; returns p. */
static uint32_t rom_emit_memset(rom_asm *a)
{
	uint32_t start = a->pc;
	rom_emit16(a, 0x2300); /* movs r3, #0 */
	uint32_t loop = a->pc;
	rom_emit16(a, 0x4293); /* cmp r3, r2 */
	uint32_t to_done = a->pc;
	rom_emit16(a, 0);      /* beq done */
	rom_emit16(a, 0x54C1); /* strb r1, [r0, r3] */
	rom_emit16(a, 0x3301); /* adds r3, #1 */
	rom_b(a, loop);
	rom_patch_bcond(a, to_done, COND_EQ, a->pc);
	rom_emit16(a, 0x4770); /* done: bx lr */
	return start;
}

/* void *memcpy(void *d, const void *s, size_t n), byte by byte; returns d. */
static uint32_t rom_emit_memcpy(rom_asm *a)
{
	uint32_t start = a->pc;
	rom_emit16(a, 0xB510); /* push {r4, lr} */
	rom_emit16(a, 0x2300); /* movs r3, #0 */
	uint32_t loop = a->pc;
	rom_emit16(a, 0x4293); /* cmp r3, r2 */
	uint32_t to_done = a->pc;
	rom_emit16(a, 0);      /* beq done */
	rom_emit16(a, 0x5CCC); /* ldrb r4, [r1, r3] */
	rom_emit16(a, 0x54C4); /* strb r4, [r0, r3] */
	rom_emit16(a, 0x3301); /* adds r3, #1 */
	rom_b(a, loop);
	rom_patch_bcond(a, to_done, COND_EQ, a->pc);
	rom_emit16(a, 0xBD10); /* done: pop {r4, pc} */
	return start;
}

static uint32_t rom_emit_hostcall(rom_asm *a, enum hostcall n)
{
	rom_align4(a);
	uint32_t start = a->pc;
	rom_emit16(a, 0xB510);                                /* push {r4, lr} */
	rom_ldr_lit(a, 4, start + 8);                         /* ldr r4, =HOSTCALL */
	rom_emit16(a, (uint16_t)(0x6000 | n << 6 | 4 << 3 | 4)); /* str r4, [r4, #4n] */
	rom_emit16(a, 0xBD10);                                /* pop {r4, pc} */
	rom_put32(a, start + 8, XB_HOSTCALL_BASE);
	a->pc = start + 12;
	return start;
}

#define ROM_CODE2(c1, c2) ((uint16_t)((c1) | (c2) << 8))

/* Fills rom (ROM_SIZE bytes, zeroed) with the bootrom; addresses are relative to the ROM
 * base, which must be 0 for firmware to find the header. */
static void rom_build(uint8_t *rom)
{
	rom_asm a = {rom, ROM_CODE};
	uint32_t reset = rom_emit_reset(&a);
	uint32_t fault = rom_emit_fault(&a);
	uint32_t lookup = rom_emit_lookup(&a);
	uint32_t memset_fn = rom_emit_memset(&a);
	uint32_t memcpy_fn = rom_emit_memcpy(&a);
	uint32_t hc[HC_COUNT];
	for (int n = 0; n < HC_COUNT; n++)
		hc[n] = rom_emit_hostcall(&a, (enum hostcall)n);

	rom_align4(&a);
	uint32_t copyright = a.pc;
	static const char text[] = "xipbench virtual Pico bootrom";
	memcpy(rom + a.pc, text, sizeof text);
	a.pc = (a.pc + sizeof text + 3) & ~3u;

	const struct {
		uint16_t code;
		uint32_t addr;
	} funcs[] = {
		{ROM_CODE2('I', 'F'), hc[HC_CONNECT_INTERNAL_FLASH] | 1},
		{ROM_CODE2('E', 'X'), hc[HC_FLASH_EXIT_XIP] | 1},
		{ROM_CODE2('R', 'E'), hc[HC_FLASH_RANGE_ERASE] | 1},
		{ROM_CODE2('R', 'P'), hc[HC_FLASH_RANGE_PROGRAM] | 1},
		{ROM_CODE2('F', 'C'), hc[HC_FLASH_FLUSH_CACHE] | 1},
		{ROM_CODE2('C', 'X'), hc[HC_FLASH_ENTER_CMD_XIP] | 1},
		{ROM_CODE2('P', '3'), hc[HC_POPCOUNT32] | 1},
		{ROM_CODE2('R', '3'), hc[HC_REVERSE32] | 1},
		{ROM_CODE2('L', '3'), hc[HC_CLZ32] | 1},
		{ROM_CODE2('T', '3'), hc[HC_CTZ32] | 1},
		{ROM_CODE2('M', 'S'), memset_fn | 1},
		{ROM_CODE2('S', '4'), memset_fn | 1}, /* memset4: the same on aligned data */
		{ROM_CODE2('M', 'C'), memcpy_fn | 1},
		{ROM_CODE2('C', '4'), memcpy_fn | 1}, /* memcpy44 */
	};
	uint32_t func_table = a.pc;
	for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++) {
		rom_put16(&a, a.pc, funcs[i].code);
		rom_put16(&a, a.pc + 2, (uint16_t)funcs[i].addr);
		a.pc += 4;
	}
	a.pc += 4; /* code 0 ends it */
	uint32_t data_table = a.pc;
	rom_put16(&a, a.pc, ROM_CODE2('C', 'R'));
	rom_put16(&a, a.pc + 2, (uint16_t)copyright);
	a.pc += 8;

	rom_put32(&a, 0x00, ROM_SP);
	rom_put32(&a, 0x04, reset | 1);
	for (uint32_t v = 0x08; v < 0x40; v += 4)
		if (v < 0x10 || v >= 0x1C)
			rom_put32(&a, v, fault | 1); /* NMI, HardFault, SVCall, PendSV, SysTick */
	rom[0x10] = 'M';
	rom[0x11] = 'u';
	rom[0x12] = 0x01;
	rom[0x13] = ROM_VERSION;
	rom_put16(&a, 0x14, (uint16_t)func_table);
	rom_put16(&a, 0x16, (uint16_t)data_table);
	rom_put16(&a, 0x18, (uint16_t)(lookup | 1));
}

/* ---- Host calls ---- */

static void hostcall_stall_us(xb_bootrom *r, uint64_t us)
{
	uint64_t cycles = periph_muldiv(us, board_cpu_hz(r->board), 1000000u);
	bus_stall(board_bus(r->board), cycles > UINT32_MAX ? UINT32_MAX : (uint32_t)cycles);
}

/* flash_range_erase(offset, count, block_size, block_cmd): erases the 4 KB sectors that
 * [offset, offset + count) touches (the flash ignores the low address bits), using the
 * block size where the range allows, as the ROM routine does. Erased bytes read 0xFF. */
static void hostcall_erase(xb_bootrom *r, uint32_t off, uint32_t count, uint32_t block,
			   uint32_t cmd)
{
	uint32_t size;
	uint8_t *flash = board_flash(r->board, &size);
	uint64_t start = off & ~(uint64_t)(FLASH_SECTOR - 1);
	uint64_t end = ((uint64_t)off + count + FLASH_SECTOR - 1) & ~(uint64_t)(FLASH_SECTOR - 1);
	if (count == 0)
		return;
	if (end > size) {
		bus_log(board_bus(r->board),
			"flash_range_erase(0x%x, 0x%x): beyond the end of the %u-byte flash; "
			"erasing up to it",
			off, count, size);
		end = size;
	}
	int use_block = cmd != 0 && (block == 32768 || block == 65536);
	uint64_t us = 0;
	while (start < end) {
		uint64_t n = end - start < FLASH_SECTOR ? end - start : FLASH_SECTOR;
		uint32_t t = FLASH_SECTOR_ERASE_US;
		if (use_block && start % block == 0 && end - start >= block) {
			n = block;
			t = block == 65536 ? FLASH_BLOCK64_ERASE_US : FLASH_BLOCK32_ERASE_US;
		}
		memset(flash + start, 0xFF, (size_t)n);
		start += n;
		us += t;
	}
	hostcall_stall_us(r, us);
}

/* flash_range_program(offset, data, count): NOR programming only clears bits, so each byte
 * becomes old & new (program over an erased range to write data exactly). */
static void hostcall_program(xb_bootrom *r, uint32_t off, uint32_t data, uint32_t count)
{
	uint32_t size;
	uint8_t *flash = board_flash(r->board, &size);
	if (count == 0)
		return;
	if (off >= size || count > size - off) {
		bus_log(board_bus(r->board),
			"flash_range_program(0x%x, 0x%08x, 0x%x): beyond the end of the %u-byte "
			"flash; nothing programmed",
			off, data, count, size);
		return;
	}
	uint8_t *buf = xmalloc(count);
	xb_err err;
	if (board_peek(r->board, data, buf, count, &err)) {
		bus_log(board_bus(r->board),
			"flash_range_program(0x%x, 0x%08x, 0x%x): the data is not in memory (%s); "
			"nothing programmed",
			off, data, count, err.msg);
		free(buf);
		return;
	}
	for (uint32_t i = 0; i < count; i++)
		flash[off + i] &= buf[i];
	free(buf);
	uint64_t pages = ((uint64_t)off + count + FLASH_PAGE - 1) / FLASH_PAGE - off / FLASH_PAGE;
	hostcall_stall_us(r, pages * FLASH_PAGE_PROGRAM_US);
}

static uint32_t hostcall_reverse(uint32_t v)
{
	uint32_t out = 0;
	for (int i = 0; i < 32; i++, v >>= 1)
		out = out << 1 | (v & 1);
	return out;
}

static void hostcall_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
			   enum xb_alias_op op)
{
	(void)value;
	(void)size;
	(void)op;
	xb_bootrom *r = ctx;
	xb_board *b = r->board;
	if (bus_access_is_debug(board_bus(b)))
		return; /* a probe poking the block must not erase flash */
	uint32_t a0 = board_reg(b, 0), a1 = board_reg(b, 1), a2 = board_reg(b, 2);
	uint32_t a3 = board_reg(b, 3), result = 0;
	switch (off / 4) {
	case HC_CONNECT_INTERNAL_FLASH:
	case HC_FLASH_EXIT_XIP:
	case HC_FLASH_ENTER_CMD_XIP:
		break; /* the flash is always reachable: nothing to switch */
	case HC_FLASH_RANGE_ERASE:
		hostcall_erase(r, a0, a1, a2, a3);
		break;
	case HC_FLASH_RANGE_PROGRAM:
		hostcall_program(r, a0, a1, a2);
		break;
	case HC_FLASH_FLUSH_CACHE:
		cache_flush(board_cache(b));
		bus_stall(board_bus(b), board_target(b)->flush_cycles);
		break;
	case HC_POPCOUNT32:
		result = (uint32_t)__builtin_popcount(a0);
		break;
	case HC_REVERSE32:
		result = hostcall_reverse(a0);
		break;
	case HC_CLZ32:
		result = a0 ? (uint32_t)__builtin_clz(a0) : 32;
		break;
	case HC_CTZ32:
		result = a0 ? (uint32_t)__builtin_ctz(a0) : 32;
		break;
	default:
		bus_report_hole(board_bus(b));
		return;
	}
	board_set_reg(b, 0, result);
}

static const xb_device_ops hostcall_ops = {
	.write = hostcall_write,
};

xb_bootrom *bootrom_new(xb_board *b, xb_err *err)
{
	const xb_region *rom = target_region_of(board_target(b), 0);
	if (!rom || rom->kind != XB_REGION_ROM || rom->base != 0 || rom->size < ROM_SIZE) {
		xb_fail(err, "target %s: the bootrom needs a ROM of at least %u bytes at address 0",
			board_target(b)->name, ROM_SIZE);
		return NULL;
	}
	uint8_t image[ROM_SIZE] = {0};
	rom_build(image);
	if (board_load(b, 0, image, sizeof image, err))
		return NULL;
	xb_bootrom *r = xcalloc(1, sizeof *r);
	r->board = b;
	if (bus_map(board_bus(b), XB_HOSTCALL_BASE, 4 * HC_COUNT, "HOSTCALL (virtual board)",
		    &hostcall_ops, r)) {
		free(r);
		xb_fail(err, "the host-call block at 0x%08x overlaps another device",
			XB_HOSTCALL_BASE);
		return NULL;
	}
	return r;
}

void bootrom_free(xb_bootrom *r)
{
	free(r);
}
