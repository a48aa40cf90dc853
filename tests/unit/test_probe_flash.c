/* test_probe_flash: flash programming from the host (probe/rp2040.c) against the virtual
 * Pico: an ELF over a running program, bytes around the image kept, verified through the
 * uncached alias, the new image running after reset; and what is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_probe_common.h"

#define MAILBOX 0x20041000u

typedef vprobe fixture;

static void test_flash_elf(void **state)
{
	fixture *f = *state;
	xb_err err;
	/* spin runs from flash; around where flashme will land lie bytes that must survive:
	 * in the sector the image shares, and in the next one. */
	vpico_run_program(&f->v, "spin", 200000);
	static const uint8_t mark[8] = {0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02, 0x03, 0x04};
	assert_int_equal(board_load(f->v.b, 0x10000F00u, mark, sizeof mark, &err), 0);
	assert_int_equal(board_load(f->v.b, 0x10001010u, mark, sizeof mark, &err), 0);
	uint32_t size;
	uint8_t *old = malloc(8192);
	memcpy(old, board_flash(f->v.b, &size), 8192);
	vpico_attach(&f->v, &f->p, 0);
	xb_adi *a = f->p.adi;

	size_t len;
	char *elf = dh_program_file("flashme", "elf", &len);
	size_t binlen;
	char *bin = dh_program_file("flashme", "bin", &binlen);
	assert_true(binlen < 0xF00);
	xb_flash_report rep;
	assert_int_equal(rp2040_flash_elf(a, (const uint8_t *)elf, len, "flashme.elf", 0, &rep,
					  &err),
			 0);
	assert_true(board_halted(f->v.b));
	assert_true(rep.segments >= 1);
	assert_int_equal(rep.image_bytes, binlen);
	assert_int_equal(rep.lo, 0);
	assert_int_equal(rep.hi, binlen);
	assert_int_equal(rep.sectors, 1);
	assert_int_equal(rep.programmed, 4096);
	assert_int_equal(rep.preserved, 4096 - binlen);
	assert_int_equal(rep.calls, 2 + 1 + 1 + 2); /* IF EX RE, RP, FC CX */
	/* 45 ms of sector erase, in virtual time */
	assert_true(rep.seconds > 0.045 && rep.seconds < 0.2);
	print_message("# flashed %zu bytes (%zu programmed) in %.1f ms of virtual time\n",
		      rep.image_bytes, rep.programmed, rep.seconds * 1e3);

	const uint8_t *flash = board_flash(f->v.b, &size);
	assert_memory_equal(flash, bin, binlen);
	/* Only the image's bytes changed: the rest of its sector is as it was. */
	assert_memory_equal(flash + binlen, old + binlen, 8192 - binlen);
	assert_memory_equal(flash + 0xF00, mark, sizeof mark);
	assert_memory_equal(flash + 0x1010, mark, sizeof mark);
	free(old);
	uint8_t back[64];
	assert_int_equal(rp2040_flash_read(a, 0x100, back, sizeof back, &err), 0);
	assert_memory_equal(back, bin + 0x100, sizeof back);

	/* Reset and run: the new image leaves its value in the mailbox and stops at BKPT. */
	assert_int_equal(adi_mem_write32(a, MAILBOX, 0, &err), 0);
	assert_int_equal(cortexm_reset(a, 0, 10 * TP_MS, &err), 0);
	assert_int_equal(cortexm_wait_halt(a, 100 * TP_MS, NULL, &err), 0);
	uint32_t v = 0;
	assert_int_equal(adi_mem_read32(a, MAILBOX, &v, &err), 0);
	assert_int_equal(v, 0xA5A5A5A5u);
	assert_int_equal(cortexm_read_reg(a, CORTEXM_PC, &v, &err), 0);
	assert_int_equal(v, dh_symbol("flashme", "program_end"));
	assert_int_equal(board_faults(f->v.b, NULL), 0);
	free(elf);
	free(bin);
}

static void test_flash_program_bytes(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_attach(&f->v, &f->p, 0);
	/* 70 KB from an odd offset: three sector runs of one piece, 64 KB staged at a time. */
	size_t n = 70 * 1024;
	uint8_t *data = malloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (uint8_t)(i * 7 + (i >> 9));
	xb_flash_report rep;
	if (rp2040_flash_program(f->p.adi, 0x20003, data, n, 0, &rep, &err))
		fail_msg("%s", err.msg);
	uint32_t size;
	const uint8_t *flash = board_flash(f->v.b, &size);
	assert_memory_equal(flash + 0x20003, data, n);
	assert_int_equal(rep.sectors, (0x20003 + n + 4095) / 4096 - 0x20);
	assert_int_equal(rep.programmed, rep.sectors * 4096);
	assert_int_equal(rep.calls, 2 + 1 + 2 + 2); /* IF EX RE, RP RP, FC CX */
	assert_int_equal(flash[0x20002], 0xFF);
	free(data);
	/* Outside the flash. */
	uint8_t one = 1;
	assert_int_equal(rp2040_flash_program(f->p.adi, size, &one, 1, 0, &rep, &err), -1);
	assert_non_null(strstr(err.msg, "outside the 2097152-byte flash"));
}

/* flashme.elf with its first loadable segment moved to SRAM (a no-flash build). */
static char *sram_elf(size_t *len)
{
	char *elf = dh_program_file("flashme", "elf", len);
	uint8_t *e = (uint8_t *)elf;
	uint32_t phoff = (uint32_t)e[0x1C] | (uint32_t)e[0x1D] << 8 | (uint32_t)e[0x1E] << 16 |
			 (uint32_t)e[0x1F] << 24;
	unsigned phentsize = e[0x2A] | e[0x2B] << 8, phnum = e[0x2C] | e[0x2D] << 8;
	for (unsigned i = 0; i < phnum; i++) {
		uint8_t *ph = e + phoff + i * phentsize;
		uint32_t type = ph[0] | (uint32_t)ph[1] << 8, filesz = ph[16] | (uint32_t)ph[17] << 8;
		if (type == 1 && filesz) {
			ph[12] = 0x00, ph[13] = 0x00, ph[14] = 0x00, ph[15] = 0x20; /* p_paddr */
			break;
		}
	}
	return elf;
}

static void test_flash_refusals(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "spin", 100000);
	vpico_attach(&f->v, &f->p, 0);
	uint32_t size;
	uint8_t *before = malloc(8192);
	memcpy(before, board_flash(f->v.b, &size), 8192);
	size_t len;
	char *elf = sram_elf(&len);
	assert_int_equal(rp2040_flash_elf(f->p.adi, (uint8_t *)elf, len, "nf.elf", 0, NULL, &err),
			 -1);
	assert_non_null(strstr(err.msg, "nf.elf: segment"));
	assert_non_null(strstr(err.msg, "0x20000000"));
	assert_non_null(strstr(err.msg, "not in flash"));
	free(elf);
	static const uint8_t junk[] = "not an elf at all";
	assert_int_equal(rp2040_flash_elf(f->p.adi, junk, sizeof junk, "junk", 0, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "junk: not an ELF file"));
	/* A truncated ELF. */
	elf = dh_program_file("flashme", "elf", &len);
	assert_int_equal(rp2040_flash_elf(f->p.adi, (uint8_t *)elf, 200, "cut.elf", 0, NULL, &err),
			 -1);
	assert_non_null(strstr(err.msg, "cut.elf"));
	free(elf);
	/* Nothing was written, and the program still runs. */
	assert_memory_equal(board_flash(f->v.b, &size), before, 8192);
	assert_false(board_halted(f->v.b));
	free(before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_flash_elf, vprobe_setup, vprobe_teardown),
		cmocka_unit_test_setup_teardown(test_flash_program_bytes, vprobe_setup, vprobe_teardown),
		cmocka_unit_test_setup_teardown(test_flash_refusals, vprobe_setup, vprobe_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
