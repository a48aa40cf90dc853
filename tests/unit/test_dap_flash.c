/* test_dap_flash: flash programming through the virtual probe, the way OpenOCD's rp2040 flash
 * driver does it on hardware, with the host side of probe/: halt the core through DHCSR,
 * find the bootrom's flash functions through its ROM table, put the data in SRAM through
 * the AP, call each function by setting registers through DCRSR/DCRDR (PC = the function,
 * LR = a BKPT trap, SP, r0-r3) and resuming until the core halts again, in OpenOCD's order
 * (connect_internal_flash, flash_exit_xip, flash_range_erase; connect_internal_flash,
 * flash_exit_xip, flash_range_program, flash_flush_cache, flash_enter_cmd_xip), then reset
 * through AIRCR.SYSRESETREQ and check that the new image runs. Each step is spelled out
 * here (rp2040_flash_elf does them all; test_probe_flash.c tests that). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_probe_common.h"

#define TRAP 0x20010000u       /* a BKPT the called functions return to */
#define STACK_TOP 0x20012000u
#define BUFFER 0x20012000u     /* the data to program */
#define MAILBOX 0x20041000u
#define TIMERAWL 0x40054028u
#define WATCHDOG_TICK 0x4005802Cu
#define RESETS_RESET_CLR 0x4000F000u /* RESETS.RESET through the atomic clear alias */
#define ROM_MAGIC 0x01754Du    /* 'M', 'u', 1 */

typedef vprobe fixture;

static uint32_t read_u16(xb_adi *a, uint32_t addr)
{
	uint32_t w = 0;
	xb_err err;
	assert_int_equal(adi_mem_read32(a, addr & ~3u, &w, &err), 0);
	return (addr & 2) ? w >> 16 : w & 0xFFFFu;
}

/* The function of a ROM table code, found by the walk OpenOCD's rp2040_lookup_rom_symbol
 * does (rp2040_rom_function). */
static uint32_t rom_lookup(xb_adi *a, uint32_t code)
{
	uint32_t fn = 0;
	xb_err err;
	assert_int_equal(rp2040_rom_function(a, code, &fn, &err), 0);
	return fn;
}

/* Calls fn(args) on the halted core and waits until it returns to the trap (cortexm_call
 * checks that the core stopped there); returns r0. */
static uint32_t call(xb_adi *a, uint32_t fn, const uint32_t *args, unsigned nargs)
{
	xb_cortexm_call c = {.fn = fn, .trap = TRAP, .sp = STACK_TOP,
			     .timeout_ns = 1000 * TP_MS}; /* an erase takes tens of ms */
	for (unsigned i = 0; i < 4; i++)
		c.args[i] = i < nargs ? args[i] : 0;
	uint32_t r0 = 0;
	xb_err err;
	if (cortexm_call(a, &c, &r0, &err))
		fail_msg("%s", err.msg);
	return r0;
}

static void test_flash_through_probe(void **state)
{
	fixture *f = *state;
	xb_board *b = f->v.b;
	xb_err err;
	uint32_t v = 0;

	/* The board runs another program from flash. */
	vpico_run_program(&f->v, "spin", 200000);
	assert_false(board_halted(b));

	xb_probe_options o = {.swclk_hz = 1000000};
	assert_int_equal(probe_attach(&f->p, vpico_transport(&f->v), &o, &err), 0);
	xb_adi *a = f->p.adi;

	/* Peripherals too, in virtual time: start the 1 MHz TIMER as firmware would (watchdog
	 * tick from the 12 MHz reference, TIMER out of reset through the RESETS CLR alias);
	 * it moves by the 10 ms the host waits plus the USB round trip and the transfers of
	 * the second read. */
	uint32_t us0 = 0, us1 = 0;
	assert_int_equal(adi_mem_write32(a, WATCHDOG_TICK, 0x200u | 12u, &err), 0);
	assert_int_equal(adi_mem_write32(a, RESETS_RESET_CLR, 1u << 21, &err), 0);
	assert_int_equal(adi_mem_read32(a, TIMERAWL, &us0, &err), 0);
	transport_wait(dap_client_transport(f->p.dap), 10 * TP_MS);
	assert_int_equal(adi_mem_read32(a, TIMERAWL, &us1, &err), 0);
	assert_in_range(us1 - us0, 11000, 11200);

	assert_int_equal(cortexm_halt(a, 10 * TP_MS, &err), 0);

	/* The bootrom: magic, function table, rom_table_lookup. */
	assert_int_equal(adi_mem_read32(a, 0x10, &v, &err), 0);
	assert_int_equal(v & 0xFFFFFFu, ROM_MAGIC);
	uint32_t fn_if = rom_lookup(a, RP2040_ROM_CODE('I', 'F'));
	uint32_t fn_ex = rom_lookup(a, RP2040_ROM_CODE('E', 'X'));
	uint32_t fn_re = rom_lookup(a, RP2040_ROM_CODE('R', 'E'));
	uint32_t fn_rp = rom_lookup(a, RP2040_ROM_CODE('R', 'P'));
	uint32_t fn_fc = rom_lookup(a, RP2040_ROM_CODE('F', 'C'));
	uint32_t fn_cx = rom_lookup(a, RP2040_ROM_CODE('C', 'X'));
	assert_true(fn_if && fn_ex && fn_re && fn_rp && fn_fc && fn_cx);

	/* The trap the functions return to: BKPT, BKPT. */
	assert_int_equal(adi_mem_write32(a, TRAP, 0xBE00BE00u, &err), 0);
	/* rom_table_lookup itself, run on the core, agrees with the walk. */
	uint32_t lookup = read_u16(a, 0x18);
	uint32_t args2[2] = {read_u16(a, 0x14), RP2040_ROM_CODE('R', 'P')};
	assert_int_equal(call(a, lookup, args2, 2), fn_rp);

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
	call(a, fn_if, NULL, 0);
	call(a, fn_ex, NULL, 0);
	uint32_t erase[4] = {0, 4096, 65536, 0xD8};
	call(a, fn_re, erase, 4);
	/* The erase took the flash's time (45 ms for a 4 KB sector) in virtual time. */
	assert_true(board_cycles(b) - t0 >= board_cpu_hz(b) / 1000 * 45);
	uint32_t size;
	const uint8_t *flash = board_flash(b, &size);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(flash[i], 0xFF);

	/* Program: the data into SRAM through the AP, then flash_range_program, flush, XIP. */
	call(a, fn_if, NULL, 0);
	call(a, fn_ex, NULL, 0);
	assert_int_equal(adi_mem_write(a, BUFFER, words, padded / 4, &err), 0);
	uint32_t program[3] = {0, BUFFER, (uint32_t)padded};
	call(a, fn_rp, program, 3);
	call(a, fn_fc, NULL, 0);
	call(a, fn_cx, NULL, 0);
	assert_memory_equal(flash, words, padded);
	/* Through the uncached alias, as a debugger verifying the image would read it. */
	assert_int_equal(adi_mem_read32(a, 0x13000100u, &v, &err), 0);
	assert_int_equal(v, words[0x40]);
	free(words);

	/* Reset: the new image runs, leaves its value in the mailbox and stops at BKPT. */
	assert_int_equal(adi_mem_write32(a, MAILBOX, 0, &err), 0);
	assert_int_equal(cortexm_reset(a, 0, 10 * TP_MS, &err), 0); /* AIRCR.SYSRESETREQ */
	assert_int_equal(cortexm_wait_halt(a, 100 * TP_MS, NULL, &err), 0);
	assert_int_equal(adi_mem_read32(a, MAILBOX, &v, &err), 0);
	assert_int_equal(v, 0xA5A5A5A5u);
	assert_int_equal(cortexm_read_reg(a, CORTEXM_PC, &v, &err), 0);
	assert_int_equal(v, dh_symbol("flashme", "program_end"));
	assert_int_equal(board_faults(b, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_flash_through_probe, vprobe_setup, vprobe_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
