/* test_sim_qspi: the SSI, IO_QSPI, the QSPI flash chip and the boot path of the virtual
 * Pico, through tests/data/pico/qspi.c (pico-sdk's flash_do_cmd sequence from SRAM) and a
 * boot2 written like pico-sdk's boot2_w25q080.S, checksummed here as pad_checksum does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../sim/periph.h"
#include "test_pico_common.h"

#define BUDGET 125000000u

/* Loads tests/data/pico/NAME.elf and runs it to its end. */
static xb_pico *run_program(const char *name, tp_log *log)
{
	xb_pico *p = tp_pico(log, 0);
	char *path = tp_program_path(name, "elf");
	xb_err err;
	if (pico_load_file(p, path, XB_IMAGE_ELF, 0, NULL, &err))
		fail_msg("%s", err.msg);
	free(path);
	assert_int_equal(pico_run(p, BUDGET), XB_PICO_HALTED);
	return p;
}

/* CRC-32 as the datasheet (2.8.1.3.1) gives it, written independently of sim/ssi.c. */
static uint32_t crc_ref(const uint8_t *d, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;
	for (size_t i = 0; i < n; i++)
		for (int b = 7; b >= 0; b--) {
			uint32_t bit = ((c >> 31) ^ (d[i] >> b)) & 1;
			c = (c << 1) ^ (bit ? 0x04C11DB7u : 0);
		}
	return c;
}

static void test_crc(void **state)
{
	(void)state;
	/* The catalogue check value of these parameters (CRC-32/MPEG-2) for "123456789". */
	assert_int_equal(qspi_boot2_crc((const uint8_t *)"123456789", 9), 0x0376E6E7u);
	assert_int_equal(crc_ref((const uint8_t *)"123456789", 9), 0x0376E6E7u);
}

static void test_flash_do_cmd(void **state)
{
	(void)state;
	tp_log log;
	xb_pico *p = run_program("qspi", &log);
	const char *out = pico_uart_output(p, NULL);
	/* A direct start: the SSI as boot2_w25q080 (divider 2) leaves it. */
	tp_expect_line(out, "ssi ctrlr0 005f0300 spi_ctrlr0 a0002022 baudr 2\n");
	tp_expect_line(out, "unique id 78697062656e6368\n"); /* "xipbench" */
	tp_expect_line(out, "jedec id ef4015 sr2 02\n");     /* W25Q16JV, QE set */
	/* 16 uncached reads: EBh quad at SCKDV 2 (8 address+mode, 4 wait, 16 data clocks, RX
	 * delay 1: 57 cycles, the target's 70 per miss), then 03h serial at SCKDV 6 (8 + 24 +
	 * 64 clocks: 576 cycles): 519 more per miss. */
	unsigned before = 0, after = 0;
	const char *l = strstr(out, "uncached read cycles ");
	assert_non_null(l);
	assert_int_equal(sscanf(l, "uncached read cycles %u then %u", &before, &after), 2);
	assert_int_equal(after - before, 16u * (6 * (8 + 24 + 64) - (2 * (8 + 4 + 16) + 1)));
	/* Sector erase 45 ms and page program 0.4 ms of BUSY, polled with 05h. */
	unsigned erase = 0, prog = 0;
	l = strstr(out, "ssi erase ");
	assert_non_null(l);
	assert_int_equal(sscanf(l, "ssi erase %u us program %u", &erase, &prog), 2);
	assert_in_range(erase, 45000, 45300);
	assert_in_range(prog, 400, 700);
	tp_expect_line(out, " us verify ok\n");
	xb_boot_info bi;
	pico_boot_info(p, &bi);
	assert_int_equal(bi.used, XB_BOOT_DIRECT); /* rt.c's boot2 is zeros */
	assert_false(bi.boot2_valid);
	/* Done as the SDK does it (from SRAM, the cache flushed): no flash read went
	 * unanswered. */
	xb_pico_summary s;
	pico_summary(p, &s);
	assert_int_equal(s.xip_unanswered, 0);
	assert_null(strstr(log.last, "XIP read of"));
	pico_free(p);
}

/* Flash reads while the flash cannot answer (tests/data/pico/xip_dead.c): the one that
 * reaches the flash with the SSI off, and the one with /CS forced high, are counted and
 * each period's first reported with its reason; the cache hit and the read after the SSI
 * is back are not. */
static void test_xip_unanswered(void **state)
{
	(void)state;
	tp_log log;
	xb_pico *p = run_program("xip_dead", &log);
	tp_expect_line(pico_uart_output(p, NULL), "reads same 1\n");
	xb_pico_summary s;
	pico_summary(p, &s);
	assert_int_equal(s.xip_unanswered, 2);
	assert_int_equal(log.lines, 2);
	assert_non_null(strstr(log.last, "XIP read of flash offset 0x000200 (pc 0x2"));
	assert_non_null(strstr(log.last, "while the flash cannot answer it: the chip select is "
					 "not the SSI's (IO_QSPI GPIO_QSPI_SS_CTRL)"));
	pico_free(p);
}

/* Copies qspi.c's boot2 to the start of flash with its CRC (bad: one bit off). */
static void install_boot2(xb_pico *p, int bad)
{
	const char *out = pico_uart_output(p, NULL);
	unsigned addr = 0, n = 0;
	const char *l = strstr(out, "boot2 code ");
	assert_non_null(l);
	assert_int_equal(sscanf(l, "boot2 code %x bytes %u", &addr, &n), 2);
	assert_true(n <= 252);
	uint8_t img[256] = {0};
	xb_err err;
	xb_board *b = pico_board(p);
	assert_int_equal(board_peek(b, addr, img, n, &err), 0);
	uint32_t crc = crc_ref(img, 252) ^ (bad ? 1u : 0);
	for (int i = 0; i < 4; i++)
		img[252 + i] = (uint8_t)(crc >> (8 * i));
	assert_int_equal(board_load(b, 0x10000000u, img, sizeof img, &err), 0);
	pico_set_boot(p, XB_BOOT_BOOT2, 0x10000100u);
	pico_reset(p);
}

static void test_boot2(void **state)
{
	(void)state;
	tp_log log;
	xb_pico *p = run_program("qspi", &log);
	install_boot2(p, 0);
	size_t len0;
	pico_uart_output(p, &len0);
	assert_int_equal(board_reg(pico_board(p), XB_REG_PC), 0x20041F00u);
	assert_int_equal(board_reg(pico_board(p), XB_REG_LR), 0u);
	/* the real bootrom's stack (its initial SP): below the copy, so that boot2's pushes
	 * (pico-sdk's boot2_w25q080 nests three calls) never reach its literal pool */
	assert_int_equal(board_reg(pico_board(p), XB_REG_SP), 0x20041F00u);
	assert_int_equal(pico_run(p, BUDGET), XB_PICO_HALTED);
	const char *out = pico_uart_output(p, NULL) + len0;
	/* boot2 set the SSI up itself and jumped to the vector table. */
	tp_expect_line(out, "ssi ctrlr0 005f0300 spi_ctrlr0 a0002022 baudr 2\n");
	tp_expect_line(out, "unique id 78697062656e6368\n");
	tp_expect_line(out, " us verify ok\n");
	xb_boot_info bi;
	pico_boot_info(p, &bi);
	assert_int_equal(bi.used, XB_BOOT_BOOT2);
	assert_true(bi.boot2_valid);
	assert_false(bi.usb_boot);
	assert_int_equal(bi.crc_computed, bi.crc_image);
	pico_free(p);
}

static void test_bad_crc_usb_boot(void **state)
{
	(void)state;
	tp_log log;
	xb_pico *p = run_program("qspi", &log);
	size_t len0;
	pico_uart_output(p, &len0);
	install_boot2(p, 1);
	assert_non_null(strstr(log.last, "would enter USB boot"));
	assert_int_equal(pico_run(p, 1000000), XB_PICO_BUDGET);
	size_t len1;
	pico_uart_output(p, &len1);
	assert_int_equal(len1, len0); /* nothing ran */
	assert_int_equal(board_reg(pico_board(p), XB_REG_PC) & ~3u, 0x3FF0u);
	xb_boot_info bi;
	pico_boot_info(p, &bi);
	assert_true(bi.usb_boot);
	assert_false(bi.boot2_valid);
	assert_int_equal(bi.crc_computed ^ bi.crc_image, 1u);
	pico_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc),
		cmocka_unit_test(test_flash_do_cmd),
		cmocka_unit_test(test_xip_unanswered),
		cmocka_unit_test(test_boot2),
		cmocka_unit_test(test_bad_crc_usb_boot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
