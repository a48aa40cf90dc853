/* bootrom: the virtual Pico's own small bootrom (not Raspberry Pi's): reset into flash, the
 * 'M','u' header with the function and data tables, a Thumb rom_table_lookup, memset and
 * memcpy, and stubs whose work (flash erase and program, cache flush, bit operations) the
 * host does through a board-private host-call register block. */
#include <stdlib.h>
#include <string.h>

#include "periph.h"

/*
 * Layout (ROM_SIZE bytes at address 0; the target's ROM is 16 KB):
 *   0x000  initial SP, reset, NMI and HardFault vectors (the other system vectors too)
 *   0x010  'M', 'u', 0x01, version 3 (the B2 bootrom's version, matching SYSINFO)
 *   0x014  u16 function table, u16 data table, u16 rom_table_lookup (Thumb bit set)
 *   0x040  code: reset, wait_for_vector, fault, lookup, memset, memcpy, the debug
 *          trampoline, host-call stubs (the soft-float and soft-double ones between
 *          fplib_start and fplib_end); then the data: copyright, git revision, the two
 *          soft-float tables, the function and data tables
 *
 * A host-call stub is `push {r4, lr}; ldr r4, =HOSTCALL + 4N; str r4, [r4]; pop {r4, pc}`:
 * the store to word N of the host-call block makes the host read R0-R3, do call N and put
 * the result in R0 (R0-R3 for the soft-float calls) before the store completes.
 */

#define ROM_SIZE 0x1000u
#define ROM_CODE 0x040u
#define ROM_SP 0x20041F00u       /* as the real bootrom: below the boot2 copy at 0x20041F00 */
#define ROM_CORE1_SP 0x20041000u /* core 1 waits on the top of SRAM4 */
#define ROM_FLASH_VECTORS 0x10000100u
#define ROM_VTOR 0xE000ED08u
#define ROM_SIO 0xD0000000u
#define ROM_VERSION 3u
#define ROM_GITREF 0x78626e63u   /* "cnbx": xipbench's own bootrom, no Raspberry Pi git */

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
	HC_RESET_USB_BOOT,
	HC_BASIC_COUNT,
	HC_FLOAT0 = 16,          /* + table offset / 4: the soft-float table's entries */
	HC_DOUBLE0 = 16 + 32,    /* the soft-double table's */
	HC_COUNT = 16 + 64,
};
#define ROM_FP_ENTRIES 32u       /* entries per soft-float table: 0x00-0x7C */

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
	int usb_boot; /* reset_to_usb_boot was called since the last reset */
	uint32_t usb_gpio_mask, usb_disable_mask;
	xb_qspi *qspi; /* the SSI and pins the flash functions drive (ssi.c), or NULL */
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

/* A word in the code (a literal), aligned; returns its address. */
static uint32_t rom_word(rom_asm *a, uint32_t w)
{
	rom_align4(a);
	uint32_t at = a->pc;
	rom_put32(a, at, w);
	a->pc += 4;
	return at;
}

/* B<cond> at `at` to target (forward or backward, within 256 bytes). */
static void rom_patch_bcond(rom_asm *a, uint32_t at, unsigned cond, uint32_t target)
{
	int32_t off = ((int32_t)target - (int32_t)(at + 4)) / 2;
	rom_put16(a, at, (uint16_t)(0xD000 | cond << 8 | (off & 0xFF)));
}

static void rom_bcond(rom_asm *a, unsigned cond, uint32_t target)
{
	rom_patch_bcond(a, a->pc, cond, target);
	a->pc += 2;
}

static void rom_b(rom_asm *a, uint32_t target)
{
	int32_t off = ((int32_t)target - (int32_t)(a->pc + 4)) / 2;
	rom_emit16(a, (uint16_t)(0xE000 | (off & 0x7FF)));
}

/* LDR rt, [pc, #imm] at `at` loading the word at lit (word aligned, after the instruction). */
static void rom_patch_ldr_lit(rom_asm *a, uint32_t at, unsigned rt, uint32_t lit)
{
	uint32_t base = (at + 4) & ~3u;
	rom_put16(a, at, (uint16_t)(0x4800 | rt << 8 | ((lit - base) / 4)));
}

static void rom_ldr_lit(rom_asm *a, unsigned rt, uint32_t lit)
{
	rom_patch_ldr_lit(a, a->pc, rt, lit);
	a->pc += 2;
}

/* A placeholder instruction to patch once the target is known; returns its address. */
static uint32_t rom_hole(rom_asm *a)
{
	uint32_t at = a->pc;
	rom_emit16(a, 0);
	return at;
}

enum { COND_EQ = 0, COND_NE = 1, COND_CS = 2, COND_CC = 3, COND_HI = 8 };

/* reset: core 1 (CPUID 1) goes to wait_for_vector; core 0 sets VTOR to the flash vectors,
 * loads MSP and jumps to the reset vector there. Returns the start; *to_wait is the BNE
 * to patch with wait_for_vector's address. */
static uint32_t rom_emit_reset(rom_asm *a, uint32_t *to_wait)
{
	rom_align4(a);
	uint32_t start = a->pc;
	uint32_t l_sio = rom_hole(a);   /* ldr r0, =SIO (CPUID at offset 0) */
	rom_emit16(a, 0x6800);          /* ldr r0, [r0] */
	rom_emit16(a, 0x2800);          /* cmp r0, #0 */
	*to_wait = rom_hole(a);         /* bne wait_for_vector */
	uint32_t l_vec = rom_hole(a);   /* ldr r0, =0x10000100 */
	uint32_t l_vtor = rom_hole(a);  /* ldr r1, =VTOR */
	rom_emit16(a, 0x6008);          /* str r0, [r1] */
	rom_emit16(a, 0x6801);          /* ldr r1, [r0] */
	rom_emit16(a, 0xF381);          /* msr msp, r1 */
	rom_emit16(a, 0x8808);
	rom_emit16(a, 0x6841);          /* ldr r1, [r0, #4] */
	rom_emit16(a, 0x4708);          /* bx r1 */
	rom_patch_ldr_lit(a, l_sio, 0, rom_word(a, ROM_SIO));
	rom_patch_ldr_lit(a, l_vec, 0, rom_word(a, ROM_FLASH_VECTORS));
	rom_patch_ldr_lit(a, l_vtor, 1, rom_word(a, ROM_VTOR));
	return start;
}

/*
 * wait_for_vector (datasheet 2.8.2, launching code on core 1): core 1 pops words from its
 * SIO FIFO and echoes each one back; the sequence 0, 0, 1, vector table, stack pointer,
 * entry launches it (VTOR, MSP, then a jump to entry); a word that breaks the sequence
 * starts it again. r4 = SIO, r5 = position, r6 = vector table, r7 = stack pointer.
 */
static uint32_t rom_emit_wait_for_vector(rom_asm *a)
{
	rom_align4(a);
	uint32_t start = a->pc;
	uint32_t l_sio = rom_hole(a);  /* ldr r4, =SIO */
	uint32_t l_sp = rom_hole(a);   /* ldr r1, =core 1's stack */
	rom_emit16(a, 0x468D);         /* mov sp, r1 */
	rom_emit16(a, 0x2500);         /* movs r5, #0 */
	uint32_t next = a->pc;
	rom_emit16(a, (uint16_t)(0x6800 | 20 << 6 | 4 << 3 | 1)); /* ldr r1, [r4, #0x50] */
	rom_emit16(a, 0x0849);         /* lsrs r1, r1, #1: FIFO_ST.VLD into C */
	uint32_t to_got = rom_hole(a); /* bcs got */
	rom_emit16(a, 0xBF20);         /* wfe */
	rom_b(a, next);
	rom_patch_bcond(a, to_got, COND_CS, a->pc);
	rom_emit16(a, (uint16_t)(0x6800 | 22 << 6 | 4 << 3 | 0)); /* got: ldr r0, [r4, #0x58] */
	uint32_t push = a->pc;
	rom_emit16(a, (uint16_t)(0x6800 | 20 << 6 | 4 << 3 | 1)); /* ldr r1, [r4, #0x50] */
	rom_emit16(a, 0x0889);         /* lsrs r1, r1, #2: FIFO_ST.RDY into C */
	rom_bcond(a, COND_CC, push);   /* bcc push: the FIFO to core 0 is full */
	rom_emit16(a, (uint16_t)(0x6000 | 21 << 6 | 4 << 3 | 0)); /* str r0, [r4, #0x54] */
	rom_emit16(a, 0xBF40);         /* sev */
	rom_emit16(a, 0x2100);         /* movs r1, #0 (sets flags: before the cmp) */
	rom_emit16(a, 0x2D02);         /* cmp r5, #2 */
	uint32_t to_value = rom_hole(a); /* bhi value */
	uint32_t to_cmp = rom_hole(a); /* bne cmp (flags of cmp r5, #2) */
	rom_emit16(a, 0x2101);         /* movs r1, #1 */
	rom_patch_bcond(a, to_cmp, COND_NE, a->pc);
	rom_emit16(a, 0x4288);         /* cmp: cmp r0, r1 */
	uint32_t to_mismatch = rom_hole(a); /* bne mismatch */
	rom_emit16(a, 0x3501);         /* adds r5, #1 */
	rom_b(a, next);
	rom_patch_bcond(a, to_mismatch, COND_NE, a->pc);
	rom_emit16(a, 0x2500);         /* mismatch: movs r5, #0 */
	rom_emit16(a, 0x2800);         /* cmp r0, #0: a 0 starts the sequence again */
	rom_bcond(a, COND_NE, next);
	rom_emit16(a, 0x2501);         /* movs r5, #1 */
	rom_b(a, next);
	rom_patch_bcond(a, to_value, COND_HI, a->pc);
	rom_emit16(a, 0x3501);         /* value: adds r5, #1 */
	rom_emit16(a, 0x2D04);         /* cmp r5, #4 */
	uint32_t to_not_vt = rom_hole(a); /* bne 1f */
	rom_emit16(a, 0x0006);         /* movs r6, r0 (vector table) */
	rom_b(a, next);
	rom_patch_bcond(a, to_not_vt, COND_NE, a->pc);
	rom_emit16(a, 0x2D05);         /* 1: cmp r5, #5 */
	uint32_t to_entry = rom_hole(a); /* bne entry */
	rom_emit16(a, 0x0007);         /* movs r7, r0 (stack pointer) */
	rom_b(a, next);
	rom_patch_bcond(a, to_entry, COND_NE, a->pc);
	uint32_t l_vtor = rom_hole(a); /* entry: ldr r1, =VTOR */
	rom_emit16(a, 0x600E);         /* str r6, [r1] */
	rom_emit16(a, 0xF387);         /* msr msp, r7 */
	rom_emit16(a, 0x8808);
	rom_emit16(a, 0x4700);         /* bx r0 */
	rom_patch_ldr_lit(a, l_sio, 4, rom_word(a, ROM_SIO));
	rom_patch_ldr_lit(a, l_sp, 1, rom_word(a, ROM_CORE1_SP));
	rom_patch_ldr_lit(a, l_vtor, 1, rom_word(a, ROM_VTOR));
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
	uint32_t to_none = rom_hole(a); /* beq none */
	rom_emit16(a, 0x428A); /* cmp r2, r1 */
	uint32_t to_found = rom_hole(a); /* beq found */
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
	uint32_t to_done = rom_hole(a); /* beq done */
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
	uint32_t to_done = rom_hole(a); /* beq done */
	rom_emit16(a, 0x5CCC); /* ldrb r4, [r1, r3] */
	rom_emit16(a, 0x54C4); /* strb r4, [r0, r3] */
	rom_emit16(a, 0x3301); /* adds r3, #1 */
	rom_b(a, loop);
	rom_patch_bcond(a, to_done, COND_EQ, a->pc);
	rom_emit16(a, 0xBD10); /* done: pop {r4, pc} */
	return start;
}

/* debug_trampoline ('DT'): calls the function in r7 with r0-r3, then BKPT at
 * debug_trampoline_end ('DE'), so a debugger calls ROM code without a breakpoint of its
 * own (datasheet 2.8.3.1). */
static uint32_t rom_emit_trampoline(rom_asm *a, uint32_t *end)
{
	uint32_t start = a->pc;
	rom_emit16(a, 0x47B8); /* blx r7 */
	*end = a->pc;
	rom_emit16(a, 0xBE00); /* bkpt #0 */
	rom_b(a, *end);
	return start;
}

static uint32_t rom_emit_hostcall(rom_asm *a, unsigned n)
{
	rom_align4(a);
	uint32_t start = a->pc;
	rom_emit16(a, 0xB510);                          /* push {r4, lr} */
	rom_ldr_lit(a, 4, start + 8);                   /* ldr r4, =HOSTCALL + 4n */
	rom_emit16(a, 0x6024);                          /* str r4, [r4] */
	rom_emit16(a, 0xBD10);                          /* pop {r4, pc} */
	rom_put32(a, start + 8, XB_HOSTCALL_BASE + 4 * n);
	a->pc = start + 12;
	return start;
}

/* reset_to_usb_boot: the host call stops the run; the stub never returns (`b .`). */
static uint32_t rom_emit_usb_boot(rom_asm *a)
{
	rom_align4(a);
	uint32_t start = a->pc;
	rom_ldr_lit(a, 2, start + 8);                   /* ldr r2, =HOSTCALL + 4n */
	rom_emit16(a, 0x6012);                          /* str r2, [r2] */
	rom_b(a, a->pc);                                /* b . */
	rom_emit16(a, 0xBF00);
	rom_put32(a, start + 8, XB_HOSTCALL_BASE + 4 * HC_RESET_USB_BOOT);
	a->pc = start + 12;
	return start;
}

#define ROM_CODE2(c1, c2) ((uint16_t)((c1) | (c2) << 8))

typedef struct rom_entry {
	uint16_t code;
	uint32_t addr;
} rom_entry;

static void rom_put_table(rom_asm *a, const rom_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		rom_put16(a, a->pc, e[i].code);
		rom_put16(a, a->pc + 2, (uint16_t)e[i].addr);
		a->pc += 4;
	}
	a->pc += 4; /* code 0 ends it */
}

/* A soft-float table: a halfword whose low byte is its size in words (pico-sdk checks the
 * byte at table - 2), then the 32 Thumb pointers. Returns the table's address. */
static uint32_t rom_put_fp_table(rom_asm *a, const uint32_t *stubs)
{
	rom_align4(a);
	rom_put16(a, a->pc + 2, (uint16_t)ROM_FP_ENTRIES);
	a->pc += 4;
	uint32_t table = a->pc;
	for (unsigned i = 0; i < ROM_FP_ENTRIES; i++)
		rom_put32(a, table + 4 * i, stubs[i] | 1);
	a->pc += 4 * ROM_FP_ENTRIES;
	return table;
}

/* Fills rom (ROM_SIZE bytes, zeroed) with the bootrom; addresses are relative to the ROM
 * base, which must be 0 for firmware to find the header. */
static void rom_build(uint8_t *rom)
{
	rom_asm a = {rom, ROM_CODE};
	uint32_t to_wait;
	uint32_t reset = rom_emit_reset(&a, &to_wait);
	uint32_t wait = rom_emit_wait_for_vector(&a);
	rom_patch_bcond(&a, to_wait, COND_NE, wait);
	uint32_t fault = rom_emit_fault(&a);
	uint32_t lookup = rom_emit_lookup(&a);
	uint32_t memset_fn = rom_emit_memset(&a);
	uint32_t memcpy_fn = rom_emit_memcpy(&a);
	uint32_t tramp_end;
	uint32_t tramp = rom_emit_trampoline(&a, &tramp_end);
	uint32_t usb_boot = rom_emit_usb_boot(&a);
	uint32_t hc[HC_BASIC_COUNT];
	for (unsigned n = 0; n < HC_BASIC_COUNT; n++)
		if (n != HC_RESET_USB_BOOT)
			hc[n] = rom_emit_hostcall(&a, n);
	rom_align4(&a);
	uint32_t fplib_start = a.pc;
	uint32_t sf[ROM_FP_ENTRIES], sd[ROM_FP_ENTRIES];
	for (unsigned i = 0; i < ROM_FP_ENTRIES; i++)
		sf[i] = rom_emit_hostcall(&a, HC_FLOAT0 + i);
	for (unsigned i = 0; i < ROM_FP_ENTRIES; i++)
		sd[i] = rom_emit_hostcall(&a, HC_DOUBLE0 + i);
	uint32_t fplib_end = a.pc;

	rom_align4(&a);
	uint32_t copyright = a.pc;
	static const char text[] = "xipbench virtual Pico bootrom";
	memcpy(rom + a.pc, text, sizeof text);
	a.pc = (a.pc + sizeof text + 3) & ~3u;
	uint32_t gitref = rom_word(&a, ROM_GITREF);
	uint32_t sf_table = rom_put_fp_table(&a, sf);
	uint32_t sd_table = rom_put_fp_table(&a, sd);

	/* Function codes (datasheet 2.8.3.1; pico-sdk bootrom.h). S4 is memset4's code in the
	 * real ROM (the datasheet's table says M4). */
	const rom_entry funcs[] = {
		{ROM_CODE2('P', '3'), hc[HC_POPCOUNT32] | 1},
		{ROM_CODE2('R', '3'), hc[HC_REVERSE32] | 1},
		{ROM_CODE2('L', '3'), hc[HC_CLZ32] | 1},
		{ROM_CODE2('T', '3'), hc[HC_CTZ32] | 1},
		{ROM_CODE2('M', 'S'), memset_fn | 1},
		{ROM_CODE2('S', '4'), memset_fn | 1}, /* memset4: the same on aligned data */
		{ROM_CODE2('M', 'C'), memcpy_fn | 1},
		{ROM_CODE2('C', '4'), memcpy_fn | 1}, /* memcpy44 */
		{ROM_CODE2('U', 'B'), usb_boot | 1},
		{ROM_CODE2('D', 'T'), tramp | 1},
		{ROM_CODE2('D', 'E'), tramp_end | 1},
		{ROM_CODE2('W', 'V'), wait | 1},
		{ROM_CODE2('I', 'F'), hc[HC_CONNECT_INTERNAL_FLASH] | 1},
		{ROM_CODE2('E', 'X'), hc[HC_FLASH_EXIT_XIP] | 1},
		{ROM_CODE2('R', 'E'), hc[HC_FLASH_RANGE_ERASE] | 1},
		{ROM_CODE2('R', 'P'), hc[HC_FLASH_RANGE_PROGRAM] | 1},
		{ROM_CODE2('F', 'C'), hc[HC_FLASH_FLUSH_CACHE] | 1},
		{ROM_CODE2('C', 'X'), hc[HC_FLASH_ENTER_CMD_XIP] | 1},
	};
	/* Data codes (datasheet 2.8.3.3). The deprecated P8/R8/L8/T8 are absent, as in the
	 * V2 and V3 ROMs. */
	const rom_entry data[] = {
		{ROM_CODE2('C', 'R'), copyright},
		{ROM_CODE2('G', 'R'), gitref},
		{ROM_CODE2('F', 'S'), fplib_start},
		{ROM_CODE2('S', 'F'), sf_table},
		{ROM_CODE2('F', 'E'), fplib_end},
		{ROM_CODE2('S', 'D'), sd_table},
	};
	uint32_t func_table = a.pc;
	rom_put_table(&a, funcs, sizeof funcs / sizeof funcs[0]);
	uint32_t data_table = a.pc;
	rom_put_table(&a, data, sizeof data / sizeof data[0]);

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

/* A soft-float or soft-double table entry (romfloat.c does the arithmetic). */
static void hostcall_fp(xb_board *b, unsigned n)
{
	int is_double = n >= HC_DOUBLE0;
	unsigned offset = 4 * (n - (is_double ? HC_DOUBLE0 : HC_FLOAT0));
	xb_romfloat_regs regs = {{board_reg(b, 0), board_reg(b, 1), board_reg(b, 2),
				  board_reg(b, 3)}, 0, 0};
	if (romfloat_call(&regs, is_double, offset)) {
		bus_report_hole(board_bus(b));
		return;
	}
	for (unsigned i = 0; i < 4; i++)
		board_set_reg(b, i, regs.r[i]);
	if (regs.set_flags)
		board_set_reg(b, XB_REG_XPSR,
			      (board_reg(b, XB_REG_XPSR) & 0x0FFFFFFFu) | regs.flags);
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
		/* The pins, the SSI and the flash chip as the ROM routines leave them (ssi.c). */
		if (r->qspi)
			qspi_rom_call(r->qspi, off / 4 == HC_CONNECT_INTERNAL_FLASH
						? XB_ROM_FLASH_CONNECT
						: off / 4 == HC_FLASH_EXIT_XIP ? XB_ROM_FLASH_EXIT_XIP
									      : XB_ROM_FLASH_ENTER_CMD_XIP);
		break;
	case HC_FLASH_RANGE_ERASE:
		hostcall_erase(r, a0, a1, a2, a3);
		break;
	case HC_FLASH_RANGE_PROGRAM:
		hostcall_program(r, a0, a1, a2);
		break;
	case HC_FLASH_FLUSH_CACHE:
		cache_flush(board_cache(b));
		bus_stall(board_bus(b), board_target(b)->flush_cycles);
		if (r->qspi)
			qspi_rom_call(r->qspi, XB_ROM_FLASH_FLUSH); /* and the /CS override off */
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
	case HC_RESET_USB_BOOT:
		/* The chip would reboot into BOOTSEL mode (datasheet 2.8.5.4): the run ends here
		 * and reports it; the stub spins until a reset. */
		r->usb_boot = 1;
		r->usb_gpio_mask = a0;
		r->usb_disable_mask = a1;
		bus_log(board_bus(b), "the firmware asked for USB boot (reset_to_usb_boot(0x%x, 0x%x))",
			a0, a1);
		board_stop(b);
		return;
	default:
		if (off / 4 >= HC_FLOAT0 && off / 4 < HC_COUNT) {
			hostcall_fp(b, off / 4);
			return;
		}
		bus_report_hole(board_bus(b));
		return;
	}
	board_set_reg(b, 0, result);
}

static const xb_device_ops hostcall_ops = {
	.write = hostcall_write,
};

static void bootrom_reset(xb_board *b, void *ctx)
{
	(void)b;
	xb_bootrom *r = ctx;
	r->usb_boot = 0;
	r->usb_gpio_mask = r->usb_disable_mask = 0;
}

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
	board_on_reset(b, bootrom_reset, r);
	return r;
}

int bootrom_usb_boot(const xb_bootrom *r, uint32_t *gpio_mask, uint32_t *disable_mask)
{
	if (gpio_mask)
		*gpio_mask = r->usb_gpio_mask;
	if (disable_mask)
		*disable_mask = r->usb_disable_mask;
	return r->usb_boot;
}

void bootrom_attach_qspi(xb_bootrom *r, xb_qspi *q)
{
	r->qspi = q;
}

void bootrom_free(xb_bootrom *r)
{
	free(r);
}
