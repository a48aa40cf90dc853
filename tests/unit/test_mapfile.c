/* test_mapfile: Zephyr and pico-sdk map excerpts, library names, bad maps with NAME:LINE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/mapfile.h"

#define ZEPHYR_MAP "tests/data/maps/zephyr-excerpt.map"
#define PICO_MAP "tests/data/maps/pico-sdk-excerpt.map"

static void load(xb_map *m, const char *path)
{
	xb_err err = {{0}};
	if (mapfile_load(m, path, &err) != 0)
		fail_msg("%s", err.msg);
}

static long find_input(const xb_map *m, const char *section, uint64_t addr)
{
	for (size_t i = 0; i < m->ninputs; i++)
		if (strcmp(m->inputs[i].section, section) == 0 && m->inputs[i].addr == addr)
			return (long)i;
	return -1;
}

static long find_output(const xb_map *m, const char *name)
{
	for (size_t i = 0; i < m->noutputs; i++)
		if (strcmp(m->outputs[i].name, name) == 0)
			return (long)i;
	return -1;
}

static const xb_map_symbol *find_symbol(const xb_map *m, const char *name)
{
	for (size_t i = 0; i < m->nsymbols; i++)
		if (strcmp(m->symbols[i].name, name) == 0)
			return &m->symbols[i];
	return NULL;
}

static void test_zephyr_sections(void **state)
{
	(void)state;
	xb_map m;
	load(&m, ZEPHYR_MAP);
	assert_int_equal(m.noutputs, 10);
	long text = find_output(&m, "text");
	assert_true(text >= 0);
	assert_int_equal(m.outputs[text].addr, 0x100001c0);
	assert_int_equal(m.outputs[text].size, 0x1f00);
	assert_int_equal(m.outputs[text].lma, 0x100001c0);
	long datas = find_output(&m, "datas");
	assert_int_equal(m.outputs[datas].addr, 0x20000000);
	assert_int_equal(m.outputs[datas].lma, 0x10002110);
	assert_int_equal(m.outputs[find_output(&m, "bss")].lma, 0x10002150);
	/* regions, without *default* */
	assert_int_equal(m.nregions, 3);
	assert_string_equal(m.regions[0].name, "FLASH");
	assert_int_equal(m.regions[0].origin, 0x10000000);
	assert_int_equal(m.regions[0].length, 0x200000);
	assert_string_equal(m.regions[0].attributes, "xr");
	assert_string_equal(m.regions[2].name, "IDT_LIST");
	mapfile_free(&m);
}

static void test_zephyr_inputs(void **state)
{
	(void)state;
	xb_map m;
	load(&m, ZEPHYR_MAP);
	/* 20 placed, non-empty inputs outside debug sections; discarded ones, zero-size ones
	 * and the cross reference table are not listed */
	assert_int_equal(m.ninputs, 20);
	assert_int_equal(find_input(&m, ".text.net_ipv4_unused", 0), -1);
	assert_int_equal(find_input(&m, ".gnu.sgstubs", 0x10000150), -1);
	assert_int_equal(find_input(&m, ".text.z_arm_pendsv", 0x100009f4), -1);
	assert_int_equal(find_input(&m, ".text.not_a_section", 0x10000000), -1);
	assert_int_equal(find_input(&m, ".debug_info", 0), -1);

	/* a name too long for its column: the numbers are on the next line */
	long i = find_input(&m, ".text.net_ipv4_input", 0x10000224);
	assert_true(i >= 0);
	const xb_map_input *in = &m.inputs[i];
	assert_int_equal(in->size, 0x1a4);
	assert_string_equal(in->archive, "zephyr/subsys/net/ip/libsubsys__net__ip.a");
	assert_string_equal(in->member, "ipv4.c.obj");
	assert_string_equal(m.outputs[in->out_section].name, "text");
	assert_true(in->line > 50);

	/* a short name keeps everything on one line */
	i = find_input(&m, ".text.memcpy", 0x1000098c);
	assert_true(i >= 0);
	assert_int_equal(m.inputs[i].size, 0x28);

	/* a plain object: no archive */
	i = find_input(&m, "_IRQ_VECTOR_TABLE", 0x10000150);
	assert_true(i >= 0);
	assert_null(m.inputs[i].archive);
	assert_string_equal(m.inputs[i].member,
			    "zephyr/CMakeFiles/zephyr_final.dir/isr_tables.c.obj");

	/* .ARM.exidx and COMMON are inputs like the others */
	assert_true(find_input(&m, ".ARM.exidx", 0x100020c0) >= 0);
	i = find_input(&m, "COMMON", 0x20000140);
	assert_true(i >= 0);
	assert_int_equal(m.inputs[i].size, 0x20);

	/* map order: grouped by output section, ascending addresses */
	for (size_t k = 1; k < m.ninputs; k++) {
		assert_true(m.inputs[k].out_section >= m.inputs[k - 1].out_section);
		if (m.inputs[k].out_section == m.inputs[k - 1].out_section)
			assert_true(m.inputs[k].addr >= m.inputs[k - 1].addr);
	}
	mapfile_free(&m);
}

static void test_zephyr_fill_and_symbols(void **state)
{
	(void)state;
	xb_map m;
	load(&m, ZEPHYR_MAP);
	/* fill goes to the next input section; the fill at the end of datas to no input */
	assert_int_equal(m.inputs[find_input(&m, "_IRQ_VECTOR_TABLE", 0x10000150)].fill_before,
			 0x10);
	assert_int_equal(m.inputs[find_input(&m, ".text.udc_rpi_isr", 0x10000470)].fill_before,
			 4);
	assert_int_equal(m.inputs[find_input(&m, ".text.z_impl_k_sem_give", 0x10000408)]
				 .fill_before,
			 0);
	assert_int_equal(m.total_fill, 0x10 + 4 + 4);

	const xb_map_symbol *s = find_symbol(&m, "net_ipv4_input");
	assert_non_null(s);
	assert_int_equal(s->addr, 0x10000224);
	assert_string_equal(m.inputs[s->input].section, ".text.net_ipv4_input");
	s = find_symbol(&m, "__start");
	assert_non_null(s);
	assert_string_equal(m.inputs[s->input].member, "reset.S.obj");
	s = find_symbol(&m, "log_buffer");
	assert_non_null(s);
	assert_string_equal(m.inputs[s->input].section, "COMMON");
	/* assignments, PROVIDE and "(size before relaxing)" are not symbols */
	assert_null(find_symbol(&m, "__text_region_start"));
	assert_null(find_symbol(&m, "."));
	assert_null(find_symbol(&m, "PROVIDE"));
	assert_null(find_symbol(&m, "(size"));
	assert_int_equal(m.nsymbols, 13);
	mapfile_free(&m);
}

static void test_input_at(void **state)
{
	(void)state;
	xb_map m;
	load(&m, ZEPHYR_MAP);
	long i = mapfile_input_at(&m, 0x10000224);
	assert_string_equal(m.inputs[i].section, ".text.net_ipv4_input");
	assert_int_equal(mapfile_input_at(&m, 0x10000224 + 0x1a3), i);
	assert_string_equal(m.inputs[mapfile_input_at(&m, 0x10000224 + 0x1a4)].section,
			    ".text.net_ipv4_finalize.isra.0");
	assert_int_equal(mapfile_input_at(&m, 0x1000046c), -1); /* fill */
	assert_int_equal(mapfile_input_at(&m, 0x0fffffff), -1);
	assert_int_equal(mapfile_input_at(&m, 0x30000000), -1);
	assert_int_equal(mapfile_input_at(&m, 0), -1); /* only debug sections there */
	assert_string_equal(m.inputs[mapfile_input_at(&m, 0x2000013f)].section,
			    ".bss.net_pkt_pool");
	for (size_t k = 0; k < m.ninputs; k++) {
		assert_int_equal(mapfile_input_at(&m, m.inputs[k].addr), (long)k);
		assert_int_equal(mapfile_input_at(&m, m.inputs[k].addr + m.inputs[k].size - 1),
				 (long)k);
	}
	mapfile_free(&m);
}

static void test_pico_sdk(void **state)
{
	(void)state;
	xb_map m;
	load(&m, PICO_MAP);
	assert_int_equal(m.noutputs, 7);
	assert_int_equal(m.ninputs, 14);
	assert_int_equal(m.nregions, 4);
	long data = find_output(&m, ".data");
	assert_int_equal(m.outputs[data].lma, 0x100004c0);
	long i = find_input(&m, ".time_critical.irq_handler_chain_first_slot", 0x20000000);
	assert_true(i >= 0);
	assert_int_equal(m.inputs[i].out_section, data);
	i = find_input(&m, ".text.gpio_set_function", 0x100001d0);
	assert_int_equal(m.inputs[i].fill_before, 4);
	assert_null(m.inputs[i].archive);
	assert_int_equal(m.total_fill, 4 + 2 + 0xc);
	const xb_map_symbol *s = find_symbol(&m, "__aeabi_uidiv");
	assert_non_null(s);
	assert_string_equal(m.inputs[s->input].member, "_udivsi3.o");
	assert_null(find_symbol(&m, "ASSERT"));
	assert_null(find_symbol(&m, "__mutex_array_start"));
	mapfile_free(&m);
}

static void check_lib(const char *archive, const char *member, const char *want)
{
	char *got = mapfile_library_name(archive, member);
	if (strcmp(got, want) != 0)
		fail_msg("library of (%s, %s): got '%s', want '%s'", archive ? archive : "NULL",
			 member ? member : "NULL", got, want);
	free(got);
}

static void test_library_names(void **state)
{
	(void)state;
	check_lib("zephyr/subsys/net/ip/libsubsys__net__ip.a", "ipv4.c.obj", "subsys/net/ip");
	check_lib("zephyr/kernel/libkernel.a", "sem.c.obj", "kernel");
	check_lib("zephyr/drivers/usb/udc/libdrivers__usb__udc.a", "udc.c.obj", "drivers/usb/udc");
	check_lib("libnet.a", "ipv4.o", "net");
	check_lib("/tmp/out/libnet.a", "ipv4.o", "net");
	check_lib("app/libapp.a", "main.c.obj", "app");
	check_lib("zephyr/lib/net_buf/liblib__net_buf.a", "buf.c.obj", "lib/net_buf");
	check_lib(NULL, "CMakeFiles/app.dir/home/u/pico-sdk/src/rp2_common/hardware_gpio/gpio.c.obj",
		  "hardware_gpio");
	check_lib(NULL, "CMakeFiles/app.dir/main.c.obj", "app");
	check_lib(NULL, "CMakeFiles/blink.dir/home/u/pico-sdk/lib/tinyusb/src/device/usbd.c.obj",
		  "tinyusb/device");
	check_lib(NULL, "build/obj/app/main.o", "app");
	check_lib(NULL, "main.o", "app");
	check_lib(NULL, "C:\\work\\build\\obj\\drivers\\uart.o", "drivers");
	check_lib("/usr/lib/gcc/arm-none-eabi/12.2.1/../../../arm-none-eabi/lib/thumb/v6-m/nofp/"
		  "libc_nano.a",
		  "libc_a-memset.o", "libc");
	check_lib("/usr/lib/arm-none-eabi/lib/libc.a", "memcpy.o", "libc");
	check_lib("/opt/sdk/picolibc/arm-zephyr-eabi/lib/thumb/v6-m/nofp/libc.a",
		  "libc_string_memcpy.c.o", "libc");
	check_lib("/usr/lib/gcc/arm-none-eabi/12.2.1/thumb/v6-m/nofp/libgcc.a", "_udivsi3.o",
		  "libgcc");
	check_lib(NULL, "/tmp/ccuedWlF.ltrans0.ltrans.o", "lto");
	check_lib(NULL, "linker stubs", "linker");
	check_lib(NULL, "", "unknown");
	check_lib(NULL, NULL, "unknown");
	check_lib("lib.a", "x.o", "lib");
}

static void expect_error(const char *text, const char *needle)
{
	xb_map m;
	xb_err err = {{0}};
	int rc = mapfile_parse(&m, text, strlen(text), "bad.map", &err);
	if (rc == 0) {
		mapfile_free(&m);
		fail_msg("accepted a bad map; expected '%s'", needle);
	}
	if (!strstr(err.msg, needle) || strncmp(err.msg, "bad.map", 7) != 0)
		fail_msg("error '%s' does not name the file and say '%s'", err.msg, needle);
}

static void test_bad_inputs(void **state)
{
	(void)state;
	expect_error("", "not a GNU ld map");
	expect_error("hello world\nthis is text\n", "not a GNU ld map");
	expect_error("             VMA              LMA     Size Align Out     In      Symbol\n"
		     "         10000000         10000000      100     1 .boot2\n",
		     "lld");
	expect_error("Linker script and memory map\n\n.text 0x10000000 0x1zz\n", "bad.map:3:");
	expect_error("Linker script and memory map\n\n.text 0x10000000 0x100\n"
		     " .text.a 0x10000000 0x0x10 a.o\n",
		     "malformed number");
	expect_error("Linker script and memory map\n\n.text 0x10000000 0x100\n"
		     " .text.a 0x10000000000000000000 0x10 a.o\n",
		     "bad.map:4:");
	expect_error("Linker script and memory map\nLOAD a.o\n", "no output sections");
	static const char nul[] = "Linker script and memory map\n\n.text 0x1\0 0x2\n";
	xb_map m;
	xb_err err = {{0}};
	assert_int_equal(mapfile_parse(&m, nul, sizeof nul - 1, "bad.map", &err), -1);
	assert_non_null(strstr(err.msg, "bad.map:3:"));
	assert_int_equal(mapfile_load(&m, "tests/data/maps/no-such.map", &err), -1);
	assert_non_null(strstr(err.msg, "no-such.map"));
}

/* Odd but valid: CRLF line ends, a wrapped output section name, a section with no
 * following numbers, a file name with spaces, fill before a zero-size input. */
static void test_odd_layouts(void **state)
{
	(void)state;
	static const char text[] =
		"Linker script and memory map\r\n"
		"\r\n"
		".a_very_long_output_section_name\r\n"
		"                0x00001000       0x40 load address 0x00008000\r\n"
		" *fill*         0x00001000        0x8 \r\n"
		" .text.empty    0x00001008        0x0 a.o\r\n"
		" .text.stub     0x00001008       0x10 linker stubs\r\n"
		" .text.lonely\r\n"
		" .text.b        0x00001018       0x28 dir with space/b.o\r\n"
		"                0x00001018                b_func\r\n"
		"                0x00001020        0x4 LONG 0x1234\r\n";
	xb_map m;
	xb_err err = {{0}};
	if (mapfile_parse(&m, text, sizeof text - 1, "odd.map", &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(m.noutputs, 1);
	assert_string_equal(m.outputs[0].name, ".a_very_long_output_section_name");
	assert_int_equal(m.outputs[0].lma, 0x8000);
	assert_int_equal(m.ninputs, 2);
	assert_string_equal(m.inputs[0].section, ".text.stub");
	assert_string_equal(m.inputs[0].member, "linker stubs");
	assert_int_equal(m.inputs[0].fill_before, 8);
	assert_string_equal(m.inputs[1].member, "dir with space/b.o");
	assert_int_equal(m.nsymbols, 1);
	assert_string_equal(m.symbols[0].name, "b_func");
	assert_int_equal(m.symbols[0].input, 1);
	mapfile_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zephyr_sections),
		cmocka_unit_test(test_zephyr_inputs),
		cmocka_unit_test(test_zephyr_fill_and_symbols),
		cmocka_unit_test(test_input_at),
		cmocka_unit_test(test_pico_sdk),
		cmocka_unit_test(test_library_names),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_odd_layouts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
