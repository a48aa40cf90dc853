/* test_srcline: source lines of a program built at test time with arm-none-eabi-gcc -g
 * (two files, inlining, loops; DWARF 5 and 4, -O2 and -O0) against the peer tool
 * arm-none-eabi-addr2line at every halfword of every function; no line tables gives
 * NULL; corrupt and truncated DWARF fail cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/testdir.h"
#include "../../core/image.h"
#include "../../core/srcline.h"

static const char src_a[] =
	"int helper(int x);\n"
	"static inline int sq(int v)\n"
	"{\n"
	"\treturn v * v;\n"
	"}\n"
	"int table[16];\n"
	"int sum(int n)\n"
	"{\n"
	"\tint s = 0;\n"
	"\tfor (int i = 0; i < n; i++)\n"
	"\t\ts += sq(table[i & 15]) + helper(i);\n"
	"\treturn s;\n"
	"}\n"
	"void entry(void)\n"
	"{\n"
	"\tfor (;;)\n"
	"\t\ttable[0] = sum(table[1]);\n"
	"}\n";

static const char src_b[] =
	"static int scale(int x)\n"
	"{\n"
	"\tif (x > 100)\n"
	"\t\treturn x / 3;\n"
	"\treturn x * 5;\n"
	"}\n"
	"int helper(int x)\n"
	"{\n"
	"\tint r = 0;\n"
	"\twhile (x > 0) {\n"
	"\t\tr += scale(x);\n"
	"\t\tx >>= 1;\n"
	"\t}\n"
	"\treturn r;\n"
	"}\n"
	"__attribute__((noinline)) unsigned mix(unsigned a, unsigned b)\n"
	"{\n"
	"\tunsigned h = a ^ 0x9e3779b9u;\n"
	"\th = (h << 5) | (h >> 27);\n"
	"\treturn h + b;\n"
	"}\n";

static int have_gcc;

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	if (testdir_setup(state) != 0)
		return -1;
	have_gcc = system("command -v arm-none-eabi-gcc >/dev/null 2>&1 && "
			  "command -v arm-none-eabi-addr2line >/dev/null 2>&1") == 0;
	if (!have_gcc)
		return 0;
	char path[128];
	snprintf(path, sizeof path, "%s/a.c", test_dir);
	write_text(path, src_a);
	snprintf(path, sizeof path, "%s/b.c", test_dir);
	write_text(path, src_b);
	return 0;
}

/* Builds NAME.elf in the test folder from a.c and b.c with the given flags. */
static void build(char *elf, size_t cap, const char *name, const char *flags)
{
	snprintf(elf, cap, "%s/%s.elf", test_dir, name);
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb -ffreestanding "
		 "-nostdlib %s -Wl,-Ttext=0x10000100 -Wl,-e,entry a.c b.c -lgcc -o '%s'",
		 test_dir, flags, elf);
	if (system(cmd) != 0)
		fail_msg("build failed: %s", cmd);
}

static void load_rp2040(xb_target *t)
{
	xb_err err = {{0}};
	if (target_load_file(t, "targets/rp2040.target", &err))
		fail_msg("%s", err.msg);
}

/* Splits one line of addr2line's output into *file and its line number (0 for "?");
 * returns 0 when addr2line found no line ("??"). */
static int parse_answer(char *text, const char **file, unsigned *line)
{
	text[strcspn(text, "\n")] = 0;
	char *disc = strstr(text, " (discriminator");
	if (disc)
		*disc = 0;
	char *colon = strrchr(text, ':');
	assert_non_null(colon);
	*colon = 0;
	*file = text;
	*line = strcmp(colon + 1, "?") == 0 ? 0 : (unsigned)atoi(colon + 1);
	return strcmp(text, "??") != 0;
}

/* addr2line's answer for addr asked alone: in a batch, GNU addr2line (binutils 2.40) can
 * lose a line it finds on its own, after an address of another unit of the same file. */
static int ask_alone(const char *elf, uint32_t addr, char *text, size_t cap, const char **file,
		     unsigned *line)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "arm-none-eabi-addr2line -e '%s' 0x%x", elf, addr);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	if (!fgets(text, (int)cap, p))
		fail_msg("no answer from %s", cmd);
	pclose(p);
	return parse_answer(text, file, line);
}

/* srclines_find at every halfword of every function against addr2line's answer. */
static size_t compare_with_addr2line(const char *elf, const xb_srclines *s)
{
	xb_target tg;
	load_rp2040(&tg);
	xb_image img;
	xb_err err = {{0}};
	if (image_load_elf(&img, elf, &tg, &err))
		fail_msg("%s", err.msg);
	char addrs[128], out[128];
	snprintf(addrs, sizeof addrs, "%s/addrs.txt", test_dir);
	snprintf(out, sizeof out, "%s/addr2line.txt", test_dir);
	FILE *f = fopen(addrs, "w");
	assert_non_null(f);
	size_t n = 0;
	for (size_t i = 0; i < img.nfuncs; i++)
		for (uint32_t a = 0; a < img.funcs[i].size; a += 2, n++)
			fprintf(f, "0x%x\n", img.funcs[i].addr + a);
	fclose(f);
	assert_true(n > 100);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "arm-none-eabi-addr2line -e '%s' <'%s' >'%s'", elf, addrs, out);
	assert_int_equal(system(cmd), 0);
	f = fopen(out, "r");
	assert_non_null(f);
	char text[1024];
	size_t k = 0, found = 0;
	for (size_t i = 0; i < img.nfuncs; i++) {
		for (uint32_t a = 0; a < img.funcs[i].size; a += 2, k++) {
			uint32_t addr = img.funcs[i].addr + a;
			if (!fgets(text, sizeof text, f))
				fail_msg("addr2line gave %zu answers for %zu addresses", k, n);
			const char *want_file;
			unsigned want;
			int has = parse_answer(text, &want_file, &want);
			const char *file = NULL;
			unsigned got = 0;
			int rc = srclines_find(s, addr | (a & 2 ? 1 : 0), &file, &got);
			int same = has ? rc == 0 && strcmp(file, want_file) == 0 && got == want
				       : rc != 0;
			if (!same)
				has = ask_alone(elf, addr, text, sizeof text, &want_file, &want);
			if (!has && rc == 0)
				fail_msg("0x%08x (%s): addr2line has no line, we say %s:%u", addr,
					 img.funcs[i].name, file, got);
			if (has && rc != 0)
				fail_msg("0x%08x (%s): addr2line says %s:%u, we have none", addr,
					 img.funcs[i].name, want_file, want);
			if (has && (strcmp(file, want_file) != 0 || got != want))
				fail_msg("0x%08x (%s): addr2line says %s:%u, we say %s:%u", addr,
					 img.funcs[i].name, want_file, want, file, got);
			found += has;
		}
	}
	fclose(f);
	image_free(&img);
	return found;
}

static void check_build(const char *name, const char *flags)
{
	if (!have_gcc)
		skip();
	char elf[160];
	build(elf, sizeof elf, name, flags);
	xb_srclines *s;
	xb_err err = {{0}};
	if (srclines_load(&s, elf, &err))
		fail_msg("%s", err.msg);
	assert_non_null(s);
	assert_true(srclines_count(s) > 20);
	/* every function of a.c and b.c has lines; libgcc's division has none */
	size_t found = compare_with_addr2line(elf, s);
	assert_true(found > 50);
	/* the same from memory */
	char *buf;
	size_t len;
	assert_int_equal(xb_read_file(elf, &buf, &len, &err), 0);
	xb_srclines *m;
	assert_int_equal(srclines_load_mem(&m, buf, len, "mem.elf", &err), 0);
	assert_non_null(m);
	assert_int_equal(srclines_count(m), srclines_count(s));
	for (uint32_t a = 0x10000100; a < 0x10000300; a += 2) {
		const char *f1 = NULL, *f2 = NULL;
		unsigned l1 = 0, l2 = 0;
		int r1 = srclines_find(s, a, &f1, &l1), r2 = srclines_find(m, a, &f2, &l2);
		assert_int_equal(r1, r2);
		if (r1 == 0) {
			assert_string_equal(f1, f2);
			assert_int_equal(l1, l2);
		}
	}
	/* below the code and far above it: no row */
	assert_int_equal(srclines_find(s, 0x100000fe, NULL, NULL), -1);
	assert_int_equal(srclines_find(s, 0x20000000, NULL, NULL), -1);
	free(buf);
	srclines_free(m);
	srclines_free(s);
}

static void test_dwarf5_o2(void **state)
{
	(void)state;
	check_build("o2", "-O2 -g");
}

static void test_dwarf4_o0(void **state)
{
	(void)state;
	check_build("o0", "-O0 -gdwarf-4");
}

static void test_dwarf4_os_sections(void **state)
{
	(void)state;
	check_build("os", "-Os -g3 -gdwarf-4 -ffunction-sections -Wl,--gc-sections");
}

static void test_no_line_tables(void **state)
{
	(void)state;
	if (!have_gcc)
		skip();
	char elf[160];
	build(elf, sizeof elf, "nog", "-O2 -g0 -Wl,--strip-debug");
	xb_srclines *s = (xb_srclines *)1;
	xb_err err = {{0}};
	assert_int_equal(srclines_load(&s, elf, &err), 0);
	assert_null(s);
	assert_int_equal(srclines_count(s), 0);
	assert_int_equal(srclines_find(s, 0x10000100, NULL, NULL), -1);
	srclines_free(s);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* File offset and size of the named section of a 32-bit little-endian ELF. */
static void find_section(const uint8_t *e, size_t len, const char *name, size_t *off,
			 size_t *size)
{
	uint32_t shoff = get32(e + 0x20);
	unsigned shentsize = e[0x2e] | e[0x2f] << 8, shnum = e[0x30] | e[0x31] << 8;
	unsigned shstrndx = e[0x32] | e[0x33] << 8;
	assert_true(shoff + (size_t)shnum * shentsize <= len);
	const uint8_t *strs = e + shoff + (size_t)shstrndx * shentsize;
	uint32_t stroff = get32(strs + 16);
	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sh = e + shoff + (size_t)i * shentsize;
		if (strcmp((const char *)e + stroff + get32(sh), name) == 0) {
			*off = get32(sh + 16);
			*size = get32(sh + 20);
			return;
		}
	}
	fail_msg("no section %s", name);
}

static void test_corrupt(void **state)
{
	(void)state;
	if (!have_gcc)
		skip();
	char elf[160];
	build(elf, sizeof elf, "bad", "-O2 -g");
	char *buf;
	size_t len;
	xb_err err = {{0}};
	assert_int_equal(xb_read_file(elf, &buf, &len, &err), 0);
	uint8_t *copy = malloc(len);
	size_t off, size;
	xb_srclines *s;

	/* a line table of an unknown DWARF version */
	memcpy(copy, buf, len);
	find_section(copy, len, ".debug_line", &off, &size);
	copy[off + 4] = 0x7f;
	copy[off + 5] = 0x00;
	assert_int_equal(srclines_load_mem(&s, copy, len, "bad-line.elf", &err), -1);
	assert_null(s);
	assert_non_null(strstr(err.msg, "bad-line.elf"));
	assert_non_null(strstr(err.msg, "DWARF"));

	/* a compile unit of an unknown DWARF version */
	memcpy(copy, buf, len);
	find_section(copy, len, ".debug_info", &off, &size);
	copy[off + 4] = 0x7f;
	copy[off + 5] = 0x00;
	err.msg[0] = 0;
	assert_int_equal(srclines_load_mem(&s, copy, len, "bad-info.elf", &err), -1);
	assert_null(s);
	assert_non_null(strstr(err.msg, "bad-info.elf"));

	/* a first unit longer than its section: libdw reads it up to the section's end */
	copy[off + 4] = buf[off + 4];
	copy[off + 5] = buf[off + 5];
	copy[off] = 0xf0;
	copy[off + 1] = 0xff;
	copy[off + 2] = 0xff;
	copy[off + 3] = 0x0f;
	if (srclines_load_mem(&s, copy, len, "long-info.elf", &err) == 0)
		srclines_free(s);
	else
		assert_non_null(strstr(err.msg, "long-info.elf"));

	/* every truncation and a run of flipped bytes through the line table: never a
	 * crash, and a failure always says why */
	for (size_t cut = 0; cut < len; cut += len / 97 + 1) {
		err.msg[0] = 0;
		int rc = srclines_load_mem(&s, buf, cut, "cut.elf", &err);
		if (rc != 0)
			assert_true(err.msg[0] != 0);
		srclines_free(s);
	}
	find_section((const uint8_t *)buf, len, ".debug_line", &off, &size);
	for (size_t i = 0; i < size; i++) {
		memcpy(copy, buf, len);
		copy[off + i] ^= 0xa5;
		err.msg[0] = 0;
		int rc = srclines_load_mem(&s, copy, len, "flip.elf", &err);
		if (rc != 0)
			assert_true(err.msg[0] != 0);
		for (uint32_t a = 0x10000100; rc == 0 && a < 0x10000200; a += 2) {
			const char *file;
			unsigned line;
			if (srclines_find(s, a, &file, &line) == 0)
				assert_non_null(file);
		}
		srclines_free(s);
	}

	/* not an ELF, and no file at all */
	assert_int_equal(srclines_load_mem(&s, "hello", 5, "text.elf", &err), -1);
	assert_non_null(strstr(err.msg, "not an ELF"));
	char missing[160];
	snprintf(missing, sizeof missing, "%s/missing.elf", test_dir);
	assert_int_equal(srclines_load(&s, missing, &err), -1);
	assert_null(s);
	assert_non_null(strstr(err.msg, "missing.elf"));
	free(copy);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dwarf5_o2),
		cmocka_unit_test(test_dwarf4_o0),
		cmocka_unit_test(test_dwarf4_os_sections),
		cmocka_unit_test(test_no_line_tables),
		cmocka_unit_test(test_corrupt),
	};
	return cmocka_run_group_tests_name("srcline", tests, setup, testdir_teardown);
}
