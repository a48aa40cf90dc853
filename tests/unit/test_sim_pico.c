/* test_sim_pico: firmware built at test time (tests/data/pico, arm-none-eabi-gcc) boots on
 * the virtual Pico like an SDK program (resets, XOSC, PLLs, clocks, watchdog tick, UART0)
 * and prints the expected results: CRC-32, sorting, 64-bit arithmetic and the SIO divider,
 * SysTick with WFI, a PendSV context switch, TIMER alarm interrupts, flash programming
 * through the bootrom; strict mode; stopping on UART text; ELF, UF2 and raw images agree;
 * runs are deterministic; the loaders refuse bad images with clear errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_pico_common.h"

#define BUDGET 200000000u

typedef struct run {
	xb_pico *p;
	xb_pico_summary s;
	const char *out;
} run;

/* Loads tests/data/pico/NAME as ext (elf, uf2, bin) and runs it until it halts. */
static run run_program(const char *name, const char *ext, int strict, tp_log *log)
{
	run r = {tp_pico(log, strict), {0}, NULL};
	char *path = tp_program_path(name, ext);
	enum xb_image_format f = strcmp(ext, "elf") == 0   ? XB_IMAGE_ELF
				 : strcmp(ext, "uf2") == 0 ? XB_IMAGE_UF2
							   : XB_IMAGE_BIN;
	xb_err err;
	if (pico_load_file(r.p, path, f, 0x10000000u, NULL, &err))
		fail_msg("%s", err.msg);
	free(path);
	enum xb_pico_stop stop = pico_run(r.p, BUDGET);
	pico_summary(r.p, &r.s);
	r.out = pico_uart_output(r.p, NULL);
	if (stop != XB_PICO_HALTED)
		fail_msg("%s ended %s at 0x%08x; output: %s", name, pico_stop_name(stop), r.s.pc,
			 r.out);
	return r;
}

static void test_crc32(void **state)
{
	(void)state;
	run r = run_program("crc32", "elf", 0, NULL);
	uint32_t table[256];
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
		table[i] = c;
	}
	uint32_t x = 12345, crc = 0xFFFFFFFFu;
	for (int i = 0; i < 16384; i++) {
		x = x * 1103515245u + 12345u;
		crc = (crc >> 8) ^ table[(crc ^ (x >> 16)) & 0xFF];
	}
	char line[64];
	snprintf(line, sizeof line, "crc32 data %08x\n", ~crc);
	tp_expect_line(r.out, "crc32 check cbf43926\n");
	tp_expect_line(r.out, line);
	tp_expect_line(r.out, "exit 0\n");
	assert_int_equal(r.s.faults, 0);
	assert_int_equal(r.s.unmapped, 0);
	assert_true(r.s.instructions > 100000);
	assert_true(r.s.cycles > r.s.instructions);
	assert_true(r.s.xip_accesses > 0 && r.s.xip_hits <= r.s.xip_accesses);
	assert_int_equal(r.s.uart_bytes, strlen(r.out));
	pico_free(r.p);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void test_sort(void **state)
{
	(void)state;
	run r = run_program("sort", "elf", 0, NULL);
	uint32_t x = 2463534242u, v[1000];
	for (int i = 0; i < 1000; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		v[i] = x;
	}
	qsort(v, 1000, sizeof v[0], cmp_u32);
	char line[96];
	snprintf(line, sizeof line, "sort v0 %08x v500 %08x v999 %08x\n", v[0], v[500], v[999]);
	tp_expect_line(r.out, "sort ordered\n");
	tp_expect_line(r.out, line);
	pico_free(r.p);
}

static void test_arith64_and_divider(void **state)
{
	(void)state;
	run r = run_program("arith64", "elf", 0, NULL);
	uint64_t big = 0x123456789ABCDEFull, p = 1000000007;
	int64_t s = -1234567890123456789ll;
	char line[128];
	tp_expect_line(r.out, "fact20 2432902008176640000\n");
	snprintf(line, sizeof line, "max/7 %llu\nmax%%7 %llu\n",
		 (unsigned long long)(UINT64_MAX / 7), (unsigned long long)(UINT64_MAX % 7));
	tp_expect_line(r.out, line);
	snprintf(line, sizeof line, "big*p %llu\nbig/p %llu\nbig>>13 %llu\n",
		 (unsigned long long)(big * p), (unsigned long long)(big / p),
		 (unsigned long long)(big >> 13));
	tp_expect_line(r.out, line);
	snprintf(line, sizeof line, "sdiv %lld smod %lld\n", (long long)(s / 1000),
		 (long long)(s % 1000));
	tp_expect_line(r.out, line);
	tp_expect_line(r.out, "hwdiv 100 / 7 = 14 r 2\n");
	tp_expect_line(r.out, "hwdiv -100 / 7 = -14 r -2\n");
	tp_expect_line(r.out, "hwdiv 100 / -7 = -14 r 2\n");
	tp_expect_line(r.out, "hwdiv 100 / 0 = -1 r 100\n");
	tp_expect_line(r.out, "hwdiv -100 / 0 = 1 r -100\n");
	tp_expect_line(r.out, "hwudiv 100 / 0 = ffffffff\n");
	pico_free(r.p);
}

static void test_systick_wfi(void **state)
{
	(void)state;
	run r = run_program("systick", "elf", 0, NULL);
	const char *l = strstr(r.out, "systick ");
	unsigned ticks, us;
	assert_non_null(l);
	assert_int_equal(sscanf(l, "systick %u ticks in %u us", &ticks, &us), 2);
	assert_int_equal(ticks, 10);
	assert_true(us >= 1000 && us <= 1002); /* 10 x 12500 cycles at 125 MHz */
	assert_int_equal(r.s.exceptions, 10);
	assert_true(r.s.sleep_cycles > 100000); /* asleep between ticks */
	pico_free(r.p);
}

static void test_pendsv_context_switch(void **state)
{
	(void)state;
	run r = run_program("pendsv", "elf", 0, NULL);
	assert_string_equal(r.out, "A0 B0 A1 B1 A2 B2 \npendsv switches 6\nexit 0\n");
	assert_int_equal(r.s.exceptions, 6);
	assert_int_equal(r.s.faults, 0);
	pico_free(r.p);
}

static void test_timer_alarm_irqs(void **state)
{
	(void)state;
	run r = run_program("alarm", "elf", 0, NULL);
	tp_expect_line(r.out, "armed 0000000f\n");
	const unsigned want[3][2] = {{0, 100}, {1, 200}, {3, 400}};
	const char *l = r.out;
	for (int i = 0; i < 3; i++) {
		unsigned n, at;
		l = strstr(l, "alarm ");
		assert_non_null(l);
		assert_int_equal(sscanf(l, "alarm %u at +%u us", &n, &at), 2);
		assert_int_equal(n, want[i][0]);
		/* The handler reads the time a few cycles after the match, after XIP misses. */
		assert_true(at >= want[i][1] && at <= want[i][1] + 2);
		l++;
	}
	tp_expect_line(r.out, "fired 3 armed 00000000\n");
	assert_int_equal(r.s.exceptions, 3);
	pico_free(r.p);
}

static void test_flash_through_bootrom(void **state)
{
	(void)state;
	run r = run_program("flash", "elf", 0, NULL);
	tp_expect_line(r.out, "rom magic ok\n");
	tp_expect_line(r.out, "rom unknown 00000000\n");
	const char *l = strstr(r.out, "flash erase ");
	unsigned erase, program;
	assert_non_null(l);
	assert_int_equal(sscanf(l, "flash erase %u us program %u us", &erase, &program), 2);
	assert_true(erase >= 45000 && erase <= 45002); /* one 4 KB sector */
	assert_true(program >= 400 && program <= 402); /* one 256-byte page */
	tp_expect_line(r.out, " us verify ok\n");
	tp_expect_line(r.out, "rom popcount 16 clz 19 ctz 12 rev 80000000 mem ZZxy\n");
	pico_free(r.p);
}

static void test_strict_unmapped(void **state)
{
	(void)state;
	tp_log log;
	run r = run_program("unmapped", "elf", 0, &log);
	tp_expect_line(r.out, "read 00000000\nexit 0\n");
	assert_int_equal(r.s.faults, 0);
	assert_int_equal(r.s.unmapped, 1);
	assert_non_null(strstr(log.last, "0xa0000000"));
	pico_free(r.p);
	r = run_program("unmapped", "elf", 1, &log);
	assert_string_equal(r.out, "HardFault\n");
	assert_int_equal(r.s.faults, 1);
	assert_int_equal(r.s.last_fault.kind, XB_FAULT_BUS_READ);
	assert_int_equal(r.s.last_fault.addr, 0xA0000000u);
	pico_free(r.p);
}

static void test_run_until_uart(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	char *path = tp_program_path("hello", "elf");
	xb_err err;
	assert_int_equal(pico_load_file(p, path, XB_IMAGE_AUTO, 0, NULL, &err), 0);
	free(path);
	assert_int_equal(pico_run_until_uart(p, "virtual pico", BUDGET), XB_PICO_UART);
	size_t len;
	const char *out = pico_uart_output(p, &len);
	assert_string_equal(out, "hello from the virtual pico");
	/* Then it sleeps: the rest of the budget passes without instructions. */
	xb_pico_summary a, b;
	pico_summary(p, &a);
	assert_int_equal(pico_run(p, 1000000), XB_PICO_BUDGET);
	pico_summary(p, &b);
	assert_int_equal(b.cycles, a.cycles + 1000000);
	assert_true(b.instructions - a.instructions < 20);
	assert_int_equal(b.timer_us - a.timer_us, 8000);
	pico_free(p);
}

static void assert_same_run(const run *a, const run *b)
{
	assert_string_equal(a->out, b->out);
	assert_int_equal(a->s.cycles, b->s.cycles);
	assert_int_equal(a->s.instructions, b->s.instructions);
	assert_int_equal(a->s.xip_accesses, b->s.xip_accesses);
	assert_int_equal(a->s.xip_hits, b->s.xip_hits);
	assert_int_equal(a->s.pc, b->s.pc);
	assert_int_equal(a->s.timer_us, b->s.timer_us);
}

static void test_formats_agree_and_runs_repeat(void **state)
{
	(void)state;
	run elf = run_program("crc32", "elf", 0, NULL);
	run again = run_program("crc32", "elf", 0, NULL);
	run uf2 = run_program("crc32", "uf2", 0, NULL);
	run bin = run_program("crc32", "bin", 0, NULL);
	assert_same_run(&elf, &again);
	assert_same_run(&elf, &uf2);
	assert_same_run(&elf, &bin);
	pico_free(elf.p);
	pico_free(again.p);
	pico_free(uf2.p);
	pico_free(bin.p);
}

/* ---- Loader errors ---- */

static uint8_t *read_program(const char *name, const char *ext, size_t *len)
{
	char *path = tp_program_path(name, ext), *buf;
	xb_err err;
	if (xb_read_file(path, &buf, len, &err))
		fail_msg("%s", err.msg);
	free(path);
	return (uint8_t *)buf;
}

static void expect_error(int rc, const xb_err *err, const char *part)
{
	assert_int_equal(rc, -1);
	if (!strstr(err->msg, part))
		fail_msg("expected \"%s\" in \"%s\"", part, err->msg);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int flash_untouched(xb_pico *p)
{
	uint32_t size;
	const uint8_t *f = board_flash(pico_board(p), &size);
	for (uint32_t i = 0; i < 0x10000; i++)
		if (f[i] != 0xFF)
			return 0;
	return 1;
}

static void test_elf_errors(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	xb_board *b = pico_board(p);
	size_t len;
	uint8_t *elf = read_program("crc32", "elf", &len);
	uint8_t *bad = malloc(len);
	xb_err err;
	xb_load_info info;
	expect_error(loader_load_elf(b, elf, 100, "cut.elf", NULL, &err), &err, "cut.elf: ");
	memcpy(bad, elf, len);
	bad[18] = 3; /* EM_386 */
	expect_error(loader_load_elf(b, bad, len, "x86.elf", NULL, &err), &err, "not ARM");
	memcpy(bad, elf, len);
	bad[4] = 2; /* ELFCLASS64 */
	expect_error(loader_load_elf(b, bad, len, "c64.elf", NULL, &err), &err, "32-bit");
	memcpy(bad, elf, len);
	uint32_t phoff = get32(bad + 28);
	put32(bad + phoff + 12, 0x30000000u); /* the first segment's p_paddr */
	expect_error(loader_load_elf(b, bad, len, "far.elf", NULL, &err), &err,
		     "far.elf: segment 0 (0x30000000");
	put32(bad + phoff + 12, 0x00000100u);
	expect_error(loader_load_elf(b, bad, len, "rom.elf", NULL, &err), &err, "bootrom");
	memcpy(bad, elf, len);
	put32(bad + phoff + 4, (uint32_t)len); /* p_offset past the end */
	expect_error(loader_load_elf(b, bad, len, "off.elf", NULL, &err), &err, "truncated");
	expect_error(loader_load_elf(b, (const uint8_t *)"hello", 5, "t.txt", NULL, &err), &err,
		     "t.txt: not an ELF file");
	assert_true(flash_untouched(p));
	assert_int_equal(loader_load_elf(b, elf, len, "ok.elf", &info, &err), 0);
	assert_int_equal(info.lo, 0x10000000u);
	assert_int_equal(info.reset_vtor, 0x10000100u);
	assert_int_equal(info.format, XB_IMAGE_ELF);
	free(bad);
	free(elf);
	pico_free(p);
}

static void test_uf2_errors(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	xb_board *b = pico_board(p);
	size_t len;
	uint8_t *uf2 = read_program("crc32", "uf2", &len);
	uint8_t *bad = malloc(len);
	xb_err err;
	assert_true(len >= 3 * 512);
	expect_error(loader_load_uf2(b, uf2, len - 100, "cut.uf2", NULL, &err), &err,
		     "cut.uf2: ");
	memcpy(bad, uf2, len);
	bad[512 + 508] ^= 1;
	expect_error(loader_load_uf2(b, bad, len, "magic.uf2", NULL, &err), &err,
		     "block 1 (byte 512): bad magic");
	memcpy(bad, uf2, len);
	for (size_t i = 0; i < len / 512; i++)
		put32(bad + 512 * i + 28, 0xE48BFF59u); /* another family */
	expect_error(loader_load_uf2(b, bad, len, "fam.uf2", NULL, &err), &err, "no UF2 block");
	expect_error(loader_load_uf2(b, uf2 + 512, len - 512, "short.uf2", NULL, &err), &err,
		     "truncated");
	memcpy(bad, uf2, len);
	memcpy(bad, uf2 + 512, 512); /* block 1 twice, block 0 never */
	expect_error(loader_load_uf2(b, bad, len, "miss.uf2", NULL, &err), &err,
		     "block number 0 of");
	memcpy(bad, uf2, len);
	put32(bad + 512 + 12, 0x60000000u);
	expect_error(loader_load_uf2(b, bad, len, "addr.uf2", NULL, &err), &err,
		     "addr.uf2: block 1 (0x60000000");
	memcpy(bad, uf2, len);
	put32(bad + 16, 1000);
	expect_error(loader_load_uf2(b, bad, len, "size.uf2", NULL, &err), &err, "payload");
	assert_true(flash_untouched(p)); /* nothing written by a refused file */
	/* Blocks of other families are skipped, not refused. */
	uint8_t *mixed = malloc(len + 512);
	memcpy(mixed, uf2, len);
	memcpy(mixed + len, uf2, 512);
	put32(mixed + len + 28, 0xE48BFF59u);
	xb_load_info info;
	assert_int_equal(loader_load_uf2(b, mixed, len + 512, "mixed.uf2", &info, &err), 0);
	assert_int_equal(info.skipped, 1);
	assert_int_equal(info.pieces, len / 512);
	free(mixed);
	free(bad);
	free(uf2);
	pico_free(p);
}

static void test_bin_and_vector_table(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	xb_board *b = pico_board(p);
	xb_err err;
	xb_load_info info;
	const uint8_t junk[16] = {1, 2, 3};
	expect_error(loader_load_bin(b, junk, sizeof junk, 0x30000000u, "j.bin", NULL, &err), &err,
		     "outside");
	expect_error(loader_load_bin(b, junk, 0, 0x20000000u, "e.bin", NULL, &err), &err, "empty");
	expect_error(loader_load_bin(b, junk, sizeof junk, 0x20000000u, "j.bin", NULL, &err), &err,
		     "no vector table");
	/* An SRAM image with its vector table first (an SDK no-flash build) boots from it. */
	const uint8_t ram[] = {0x00, 0x10, 0x04, 0x20, 0x09, 0x00, 0x00, 0x20,
			       0x30, 0xBF, 0xFD, 0xE7};
	assert_int_equal(loader_load_bin(b, ram, sizeof ram, 0x20000000u, "r.bin", &info, &err), 0);
	assert_int_equal(info.reset_vtor, 0x20000000u);
	pico_reset(p);
	assert_int_equal(board_reg(b, XB_REG_PC), 0x20000008u);
	assert_int_equal(board_reg(b, XB_REG_SP), 0x20041000u);
	/* A raw file needs its address; detection knows only ELF and UF2. */
	assert_int_equal(loader_detect(junk, sizeof junk), XB_IMAGE_AUTO);
	char *path = tp_program_path("crc32", "bin");
	expect_error(loader_load_file(b, path, XB_IMAGE_AUTO, 0, NULL, &err), &err,
		     "neither an ELF nor a UF2");
	free(path);
	expect_error(loader_load_file(b, "/nonexistent/x.elf", XB_IMAGE_AUTO, 0, NULL, &err),
		     &err, "/nonexistent/x.elf");
	pico_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_arith64_and_divider),
		cmocka_unit_test(test_systick_wfi),
		cmocka_unit_test(test_pendsv_context_switch),
		cmocka_unit_test(test_timer_alarm_irqs),
		cmocka_unit_test(test_flash_through_bootrom),
		cmocka_unit_test(test_strict_unmapped),
		cmocka_unit_test(test_run_until_uart),
		cmocka_unit_test(test_formats_agree_and_runs_repeat),
		cmocka_unit_test(test_elf_errors),
		cmocka_unit_test(test_uf2_errors),
		cmocka_unit_test(test_bin_and_vector_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
