/* test_dap_flash: flash programming through the virtual probe, the way OpenOCD's rp2040 flash
 * driver does it on hardware: halt the core through DHCSR, find the bootrom's flash
 * functions through its ROM table, put the data in SRAM through the AP, call each function
 * by setting registers through DCRSR/DCRDR (PC = the function, LR = a BKPT trap, SP, r0-r3)
 * and resuming until the core halts again, in OpenOCD's order (connect_internal_flash,
 * flash_exit_xip, flash_range_erase; connect_internal_flash, flash_exit_xip,
 * flash_range_program, flash_flush_cache, flash_enter_cmd_xip), then reset through
 * AIRCR.SYSRESETREQ and check that the new image runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../sim/pico.h"
#include "test_dap_common.h"

#define TRAP 0x20010000u       /* a BKPT the called functions return to */
#define STACK_TOP 0x20012000u
#define BUFFER 0x20012000u     /* the data to program */
#define MAILBOX 0x20041000u
#define TIMERAWL 0x40054028u
#define WATCHDOG_TICK 0x4005802Cu
#define RESETS_RESET_CLR 0x4000F000u /* RESETS.RESET through the atomic clear alias */
#define ROM_MAGIC 0x01754Du    /* 'M', 'u', 1 */
#define CODE2(a, b) ((uint32_t)(a) | (uint32_t)(b) << 8)

typedef struct fixture {
	xb_pico *pico;
	dh h;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	xb_target t;
	sim_target(&t);
	xb_pico_options o;
	pico_options_init(&o);
	o.quiet = 1;
	xb_err err;
	f->pico = pico_new(&t, &o, &err);
	if (!f->pico) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	dh_init(&f->h, pico_board(f->pico), NULL);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	dh_free(&f->h);
	pico_free(f->pico);
	free(f);
	return 0;
}

static uint32_t read_u16(dh *h, uint32_t addr)
{
	uint32_t w = 0;
	assert_int_equal(dh_mem_read32(h, addr & ~3u, &w), 1);
	return (addr & 2) ? w >> 16 : w & 0xFFFFu;
}

/* The function table walk OpenOCD's rp2040_lookup_rom_symbol does, through the AP. */
static uint32_t rom_lookup(dh *h, uint32_t code)
{
	for (uint32_t entry = read_u16(h, 0x14);; entry += 4) {
		uint32_t tag = read_u16(h, entry);
		if (tag == code)
			return read_u16(h, entry + 2);
		if (tag == 0)
			return 0;
	}
}

/* Calls fn(args) on the halted core and waits until it returns to the trap; returns r0. */
static uint32_t call(dh *h, uint32_t fn, const uint32_t *args, unsigned nargs)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < 4; i++)
		assert_true(dh_write_core_reg(h, i, i < nargs ? args[i] : 0));
	assert_true(dh_write_core_reg(h, XB_REG_SP, STACK_TOP));
	assert_true(dh_write_core_reg(h, XB_REG_LR, TRAP | 1u));
	assert_true(dh_write_core_reg(h, XB_REG_XPSR, 1u << 24)); /* Thumb */
	assert_true(dh_write_core_reg(h, XB_REG_PC, fn & ~1u));
	assert_int_equal(dh_mem_write32(h, DH_DHCSR, 0xA05F0001u), 1); /* resume */
	assert_true(dh_wait_halt(h, 1000)); /* an erase takes tens of milliseconds */
	assert_true(dh_read_core_reg(h, XB_REG_PC, &v));
	assert_int_equal(v, TRAP);
	assert_true(dh_read_core_reg(h, 0, &v));
	return v;
}

static void test_flash_through_probe(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	xb_board *b = pico_board(f->pico);
	uint32_t dpidr = 0, dlpidr = 0, v = 0;

	/* The board runs another program from flash. */
	dh_load_program(b, "spin");
	pico_run(f->pico, 200000);
	assert_false(board_halted(b));

	assert_int_equal(dh_openocd_connect(h, DH_TARGETSEL_CORE0, &dpidr, &dlpidr), 1);
	assert_true(dh_power_up(h, 1));

	/* Peripherals too, in virtual time: start the 1 MHz TIMER as firmware would (watchdog
	 * tick from the 12 MHz reference, TIMER out of reset through the RESETS CLR alias);
	 * it moves by the 10 ms the host waits plus the USB round trip and the transfers of
	 * the second read. */
	uint32_t us0 = 0, us1 = 0;
	assert_int_equal(dh_mem_write32(h, WATCHDOG_TICK, 0x200u | 12u), 1);
	assert_int_equal(dh_mem_write32(h, RESETS_RESET_CLR, 1u << 21), 1);
	assert_int_equal(dh_mem_read32(h, TIMERAWL, &us0), 1);
	dap_host_wait(h->dap, board_cpu_hz(b) / 100);
	assert_int_equal(dh_mem_read32(h, TIMERAWL, &us1), 1);
	assert_in_range(us1 - us0, 11000, 11200);

	assert_true(dh_halt(h));

	/* The bootrom: magic, function table, rom_table_lookup. */
	assert_int_equal(dh_mem_read32(h, 0x10, &v), 1);
	assert_int_equal(v & 0xFFFFFFu, ROM_MAGIC);
	uint32_t fn_if = rom_lookup(h, CODE2('I', 'F')), fn_ex = rom_lookup(h, CODE2('E', 'X'));
	uint32_t fn_re = rom_lookup(h, CODE2('R', 'E')), fn_rp = rom_lookup(h, CODE2('R', 'P'));
	uint32_t fn_fc = rom_lookup(h, CODE2('F', 'C')), fn_cx = rom_lookup(h, CODE2('C', 'X'));
	assert_true(fn_if && fn_ex && fn_re && fn_rp && fn_fc && fn_cx);

	/* The trap the functions return to: BKPT, BKPT. */
	assert_int_equal(dh_mem_write32(h, TRAP, 0xBE00BE00u), 1);
	/* rom_table_lookup itself, run on the core, agrees with the walk. */
	uint32_t lookup = read_u16(h, 0x18);
	uint32_t args2[2] = {read_u16(h, 0x14), CODE2('R', 'P')};
	assert_int_equal(call(h, lookup, args2, 2), fn_rp);

	/* The new image, padded to whole 256-byte pages with erased bytes. */
	size_t len;
	char *image = dh_program_file("flashme", "bin", &len);
	size_t padded = (len + 255) & ~(size_t)255;
	uint32_t *words = calloc(padded / 4, 4);
	memset(words, 0xFF, padded);
	memcpy(words, image, len);
	free(image);

	/* Erase: connect_internal_flash, flash_exit_xip, flash_range_erase(0, 4096, 64K, D8). */
	uint64_t t0 = board_cycles(b);
	call(h, fn_if, NULL, 0);
	call(h, fn_ex, NULL, 0);
	uint32_t erase[4] = {0, 4096, 65536, 0xD8};
	call(h, fn_re, erase, 4);
	/* The erase took the flash's time (45 ms for a 4 KB sector) in virtual time. */
	assert_true(board_cycles(b) - t0 >= board_cpu_hz(b) / 1000 * 45);
	uint32_t size;
	const uint8_t *flash = board_flash(b, &size);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(flash[i], 0xFF);

	/* Program: the data into SRAM through the AP, then flash_range_program, flush, XIP. */
	call(h, fn_if, NULL, 0);
	call(h, fn_ex, NULL, 0);
	assert_true(dh_mem_write_block(h, BUFFER, words, padded / 4));
	uint32_t program[3] = {0, BUFFER, (uint32_t)padded};
	call(h, fn_rp, program, 3);
	call(h, fn_fc, NULL, 0);
	call(h, fn_cx, NULL, 0);
	assert_memory_equal(flash, words, padded);
	/* Through the uncached alias, as a debugger verifying the image would read it. */
	assert_int_equal(dh_mem_read32(h, 0x13000100u, &v), 1);
	assert_int_equal(v, words[0x40]);
	free(words);

	/* Reset: the new image runs, leaves its value in the mailbox and stops at BKPT. */
	assert_int_equal(dh_mem_write32(h, MAILBOX, 0), 1);
	assert_int_equal(dh_mem_write32(h, DH_AIRCR, 0x05FA0004u), 1);
	assert_true(dh_wait_halt(h, 100));
	assert_int_equal(dh_mem_read32(h, MAILBOX, &v), 1);
	assert_int_equal(v, 0xA5A5A5A5u);
	assert_true(dh_read_core_reg(h, XB_REG_PC, &v));
	assert_int_equal(v, dh_symbol("flashme", "program_end"));
	assert_int_equal(board_faults(b, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_flash_through_probe, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
