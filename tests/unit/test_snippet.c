/* test_snippet: linker fragments, selectors, refusals, name lists and Zephyr files for a
 * hand-built image and map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../common/testdir.h"
#include "../../core/snippet.h"

#define NET "zephyr/subsys/net/libnet.a"

/* Map inputs (line = 100 + index, as a map parser would record). */
static xb_map_input test_inputs[] = {
	/* 0 */ {.section = ".text.fast", .archive = NET, .member = "ipv4.o"},
	/* 1 */ {.section = ".text.helper", .archive = NET, .member = "ipv4.o"},
	/* 2 */ {.section = ".text.helper", .archive = "libutil.a", .member = "crc.o"},
	/* 3 */ {.section = ".text.helper", .member = "CMakeFiles/app.dir/src/main.c.obj"},
	/* 4 */ {.section = ".text.helper", .member = "boot.o"},
	/* 5 */ {.section = ".text", .archive = "zephyr/kernel/libkernel.a", .member = "sched.o"},
	/* 6 */ {.section = ".text.slow", .archive = NET, .member = "udp.o"},
	/* 7 */ {.section = ".text.ram1", .archive = "zephyr/drivers/usb/libdrivers__usb.a",
		 .member = "udc.o"},
	/* 8 */ {.section = ".text.clib", .archive = "/opt/sdk/lib/libc.a", .member = "memcpy.o"},
	/* 9 */ {.section = ".text.dup2", .archive = "a/libx.a", .member = "m.o"},
	/* 10 */ {.section = ".text.dup2", .archive = "b/libx.a", .member = "m.o"},
	/* 11 */ {.section = ".text.x$y+z", .archive = "zephyr/libzephyr.a", .member = "misc.o"},
	/* 12 */ {.section = ".text", .archive = "zephyr/kernel/libkernel.a", .member = "sem.o"},
	/* 13 */ {.section = ".text.helper", .archive = NET, .member = "tcp.o"},
	/* 14 */ {.section = ".text.only", .archive = "weird.a", .member = "obj.o"},
};

enum {
	F_FAST, F_HELPER_NET, F_HELPER_UTIL, F_HELPER_MAIN, F_HELPER_BOOT, F_KA, F_KB, F_SLOW,
	F_RAM1, F_MEMCPY, F_DUP2A, F_DUP2B, F_NOMAP, F_ODD, F_HELPER_TCP, F_EVIL, F_COUNT
};

static xb_function test_funcs[F_COUNT] = {
	[F_FAST] = {.name = "fast", .input = 0},
	[F_HELPER_NET] = {.name = "helper", .input = 1},
	[F_HELPER_UTIL] = {.name = "helper", .input = 2},
	[F_HELPER_MAIN] = {.name = "helper", .input = 3},
	[F_HELPER_BOOT] = {.name = "helper", .input = 4},
	[F_KA] = {.name = "k_a", .input = 5},
	[F_KB] = {.name = "k_b", .input = 5},
	[F_SLOW] = {.name = "slow", .input = 6},
	[F_RAM1] = {.name = "ram1", .input = 7},
	[F_MEMCPY] = {.name = "memcpy", .input = 8},
	[F_DUP2A] = {.name = "dup2", .input = 9},
	[F_DUP2B] = {.name = "dup2", .input = 10},
	[F_NOMAP] = {.name = "nomap", .input = -1},
	[F_ODD] = {.name = "odd", .input = 11},
	[F_HELPER_TCP] = {.name = "helper", .input = 13},
	/* A symbol name is never written into a script, whatever it holds. */
	[F_EVIL] = {.name = "evil\n*(.data) } /DISCARD/ : {", .input = 14},
};

static xb_image test_image(void)
{
	xb_image img;
	memset(&img, 0, sizeof img);
	size_t nin = sizeof test_inputs / sizeof test_inputs[0];
	for (size_t i = 0; i < nin; i++)
		test_inputs[i].line = 100 + (int)i;
	for (size_t i = 0; i < F_COUNT; i++) {
		test_funcs[i].addr = 0x10000100 + 0x40 * (uint32_t)i;
		test_funcs[i].size = 0x20;
		test_funcs[i].alias_of = -1;
	}
	img.funcs = test_funcs;
	img.nfuncs = F_COUNT;
	img.has_map = true;
	img.map.inputs = test_inputs;
	img.map.ninputs = nin;
	return img;
}

static xb_target test_target(void)
{
	xb_target tg;
	memset(&tg, 0, sizeof tg);
	strcpy(tg.name, "rp2040");
	tg.cache.size = 16384;
	tg.cache.ways = 2;
	tg.cache.line = 8;
	tg.cache.fill = 8;
	return tg;
}

/* Layouts are filled by hand so that this test needs nothing but snippet.c. */
static void t_layout_init(xb_layout *l)
{
	memset(l, 0, sizeof *l);
	strcpy(l->strategy, "stock");
}

static void t_layout_add(xb_layout *l, int func, enum xb_place place, uint32_t way_offset)
{
	xb_grow(&l->e, &l->cap, l->n + 1, sizeof *l->e);
	l->e[l->n++] = (xb_layout_entry){.func = func, .place = place, .way_offset = way_offset};
}

static void t_layout_free(xb_layout *l)
{
	free(l->e);
	memset(l, 0, sizeof *l);
}

static const xb_snippet_writer *writer(const char *name)
{
	for (const xb_snippet_writer *w = snippet_writers; w->name; w++)
		if (strcmp(w->name, name) == 0)
			return w;
	fail_msg("no writer %s", name);
	return NULL;
}

/* Runs one writer; returns its text (caller frees) or NULL with err filled. */
static char *run_writer(const char *name, const xb_image *img, const xb_target *tg,
			const xb_layout *l, xb_err *err)
{
	xb_strbuf sb = {0};
	if (writer(name)->write(img, tg, l, &sb, err) != 0) {
		sb_free(&sb);
		return NULL;
	}
	sb_puts(&sb, "");
	return sb.buf;
}

static void colour_layout(xb_layout *l)
{
	t_layout_init(l);
	strcpy(l->strategy, "colour");
	t_layout_add(l, F_FAST, XB_PLACE_HOT, 0);
	t_layout_add(l, F_SLOW, XB_PLACE_COLOUR, 0x01a8);
	t_layout_add(l, F_KA, XB_PLACE_HOT, 0);
	t_layout_add(l, F_KB, XB_PLACE_HOT, 0);      /* same input section as k_a */
	t_layout_add(l, F_NOMAP, XB_PLACE_DEFAULT, 0); /* default entries are ignored */
	t_layout_add(l, F_HELPER_NET, XB_PLACE_COLOUR, 0x0200);
	t_layout_add(l, F_RAM1, XB_PLACE_SRAM, 0);
	t_layout_add(l, F_HELPER_MAIN, XB_PLACE_SRAM, 0);
	t_layout_add(l, F_ODD, XB_PLACE_SRAM, 0);
	t_layout_add(l, F_FAST, XB_PLACE_HOT, 0);    /* listed twice: emitted once */
}

static void test_hot_fragment_exact(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_target tg = test_target();
	xb_layout l;
	colour_layout(&l);
	xb_err err = {{0}};
	char *hot = run_writer("hot-ld", &img, &tg, &l, &err);
	assert_non_null(hot);
	assert_string_equal(hot,
		"/* xipbench hot text (strategy: colour): INCLUDE in the first output section after "
		"the vector table. */\n"
		"__xipbench_hot_start = .;\n"
		"*(.text.fast)\n"
		". = . + ((ABSOLUTE(0x01a8) - ABSOLUTE(.)) & 0x1fff);\n"
		"*(.text.slow)\n"
		"*/libkernel.a:sched.o(.text)\n"
		". = . + ((ABSOLUTE(0x0200) - ABSOLUTE(.)) & 0x1fff);\n"
		"*/libnet.a:ipv4.o(.text.helper)\n"
		"__xipbench_hot_end = .;\n");
	free(hot);

	char *ram = run_writer("ramfunc-ld", &img, &tg, &l, &err);
	assert_non_null(ram);
	assert_string_equal(ram,
		"/* xipbench RAM functions (strategy: colour): INCLUDE in a RAM output section (AT> "
		"flash) that comes before the general text rule. */\n"
		"__xipbench_ramfunc_start = .;\n"
		"*(.text.ram1)\n"
		"*/main.c.obj(.text.helper)\n"
		"*(.text.x$y+z)\n"
		"__xipbench_ramfunc_end = .;\n");
	free(ram);
	t_layout_free(&l);
}

static void test_zephyr_fragments_exact(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_target tg = test_target();
	xb_layout l;
	colour_layout(&l);
	xb_err err = {{0}};
	char *rom = run_writer("zephyr-rom-start", &img, &tg, &l, &err);
	assert_non_null(rom);
	assert_string_equal(rom,
		"/* xipbench hot text (strategy: colour): for zephyr_linker_sources(ROM_START ...). "
		"*/\n"
		"__xipbench_hot_start = .;\n"
		"*(\".text.fast\")\n"
		". = . + ((ABSOLUTE(0x01a8) - ABSOLUTE(.)) & 0x1fff);\n"
		"*(\".text.slow\")\n"
		"*/libkernel.a:sched.o(\".text\")\n"
		". = . + ((ABSOLUTE(0x0200) - ABSOLUTE(.)) & 0x1fff);\n"
		"*/libnet.a:ipv4.o(\".text.helper\")\n"
		"__xipbench_hot_end = .;\n");
	char *copy = run_writer("zephyr-snippet-rom-start", &img, &tg, &l, &err);
	assert_string_equal(rom, copy);
	free(copy);
	free(rom);
	char *ram = run_writer("zephyr-ramfunc", &img, &tg, &l, &err);
	assert_non_null(ram);
	assert_string_equal(ram,
		"/* xipbench RAM functions (strategy: colour): for "
		"zephyr_linker_sources(RAMFUNC_SECTION ...), with .ramfunc placed before the text "
		"section. */\n"
		"__xipbench_ramfunc_start = .;\n"
		"*(\".text.ram1\")\n"
		"*/main.c.obj(\".text.helper\")\n"
		"*(\".text.x$y+z\")\n"
		"__xipbench_ramfunc_end = .;\n");
	free(ram);
	t_layout_free(&l);
}

static void expect_selector(const xb_image *img, int func, const char *want)
{
	xb_strbuf sb = {0};
	xb_err err = {{0}};
	if (snippet_selector(img, &img->funcs[func], &sb, &err) != 0)
		fail_msg("selector of %d failed: %s", func, err.msg);
	assert_string_equal(sb.buf, want);
	sb_free(&sb);
}

static void expect_selector_error(const xb_image *img, const xb_function *f, const char *want1,
				  const char *want2)
{
	xb_strbuf sb = {0};
	xb_err err = {{0}};
	if (snippet_selector(img, f, &sb, &err) == 0)
		fail_msg("selector accepted: %s", sb.buf);
	if (!strstr(err.msg, want1) || (want2 && !strstr(err.msg, want2)))
		fail_msg("message '%s' lacks '%s' / '%s'", err.msg, want1, want2 ? want2 : "");
	sb_free(&sb);
}

static void test_selectors(void **state)
{
	(void)state;
	xb_image img = test_image();
	expect_selector(&img, F_FAST, "*(.text.fast)");
	expect_selector(&img, F_HELPER_NET, "*/libnet.a:ipv4.o(.text.helper)");
	expect_selector(&img, F_HELPER_TCP, "*/libnet.a:tcp.o(.text.helper)");
	expect_selector(&img, F_HELPER_UTIL, "libutil.a:crc.o(.text.helper)");
	expect_selector(&img, F_HELPER_MAIN, "*/main.c.obj(.text.helper)");
	expect_selector(&img, F_HELPER_BOOT, "boot.o(.text.helper)");
	expect_selector(&img, F_KA, "*/libkernel.a:sched.o(.text)");
	expect_selector(&img, F_ODD, "*(.text.x$y+z)");
	expect_selector(&img, F_EVIL, "*(.text.only)");
	/* the same archive base name, member and section twice: no pattern tells them apart */
	expect_selector_error(&img, &img.funcs[F_DUP2A], "function dup2: cannot select",
			      "'*/libx.a:m.o(.text.dup2)' also matches the input at map line 110");
	expect_selector_error(&img, &img.funcs[F_DUP2B], "function dup2", "map line 109");
	expect_selector_error(&img, &img.funcs[F_NOMAP],
			      "function nomap: no input section known (load the map file)", NULL);
	/* an image without a map at all */
	xb_image bare;
	memset(&bare, 0, sizeof bare);
	xb_function f = {.name = "lonely", .input = 0};
	expect_selector_error(&bare, &f, "function lonely: no input section known", NULL);
}

static void test_selector_wildcard_sees_members(void **state)
{
	(void)state;
	/* "*" "/" "x.o" matches a plain object's path and also an archive member named "d/x.o"
	 * (thin archives keep paths); an exact plain name only the plain object. */
	xb_map_input in[] = {
		{.section = ".text.s", .member = "obj/x.o", .line = 1},
		{.section = ".text.s", .archive = "libt.a", .member = "d/x.o", .line = 2},
		{.section = ".text.t", .member = "y.o", .line = 3},
		{.section = ".text.t", .archive = "liby.a", .member = "y.o", .line = 4},
	};
	xb_function funcs[] = {{.name = "s", .input = 0}, {.name = "t", .input = 2},
			       {.name = "t2", .input = 3}};
	xb_image img;
	memset(&img, 0, sizeof img);
	img.funcs = funcs;
	img.nfuncs = 3;
	img.map.inputs = in;
	img.map.ninputs = 4;
	expect_selector_error(&img, &funcs[0], "function s: cannot select",
			      "'*/x.o(.text.s)' also matches the input at map line 2");
	expect_selector(&img, 1, "y.o(.text.t)");
	expect_selector(&img, 2, "liby.a:y.o(.text.t)");
}

typedef struct bad_name {
	const char *section, *archive, *member;
	const char *want; /* after "function NAME: " */
} bad_name;

static void test_dangerous_names_refused(void **state)
{
	(void)state;
	static const bad_name cases[] = {
		{".text.foo*", NULL, "a.o", "section name '.text.foo*' contains '*' (a wildcard"},
		{"a b", NULL, "a.o", "section name 'a b' contains a space (whitespace)"},
		{"x)", NULL, "a.o", "section name 'x)' contains ')' (linker script syntax)"},
		{".text.a\nb", NULL, "a.o", "section name '.text.a\\nb' contains byte 0x0a (a line"},
		{".text.\"q\"", NULL, "a.o", "contains '\"' (linker script syntax)"},
		{".text.a;b", NULL, "a.o", "contains ';' (linker script syntax)"},
		{".text.a?", NULL, "a.o", "contains '?' (a wildcard"},
		{".text.[ab]", NULL, "a.o", "contains '[' (a wildcard"},
		{".text.a'b", NULL, "a.o", "contains ''' (linker script syntax)"},
		{".text.a,b", NULL, "a.o", "contains ',' (linker script syntax)"},
		{".text.a{", NULL, "a.o", "contains '{' (linker script syntax)"},
		{".text.a\\b", NULL, "a.o", "contains '\\' (linker script syntax)"},
		{".text/a", NULL, "a.o", "contains '/' (a path separator)"},
		{"", NULL, "a.o", "its section name is empty"},
		/* file names only matter when the section name is shared */
		/* only the base name enters the rule: a folder may hold a space */
		{".text.dup", "dir with space/lib q.a", "q.o", "archive file name 'lib q.a' "
							       "contains a space"},
		{".text.dup", "libq.a", "q(1).o", "archive member 'q(1).o' contains '('"},
		{".text.dup", NULL, "C:\\obj\\q.o", "object file name 'C:\\obj\\q.o' contains ':'"},
		{".text.dup", NULL, "obj/q*.o", "object file name 'q*.o' contains '*'"},
		{".text.dup", "lib\tq.a", "q.o", "contains byte 0x09 (whitespace)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		xb_map_input in[2] = {
			{.section = (char *)cases[i].section, .archive = (char *)cases[i].archive,
			 .member = (char *)cases[i].member, .line = 1},
			{.section = ".text.dup", .member = "other.o", .line = 2},
		};
		xb_function f = {.name = "victim", .input = 0};
		xb_image img;
		memset(&img, 0, sizeof img);
		img.funcs = &f;
		img.nfuncs = 1;
		img.map.inputs = in;
		img.map.ninputs = 2;
		xb_strbuf sb = {0};
		xb_err err = {{0}};
		int rc = snippet_selector(&img, &f, &sb, &err);
		if (rc == 0 || strncmp(err.msg, "function victim: ", 17) != 0 ||
		    !strstr(err.msg, cases[i].want))
			fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, err.msg,
				 cases[i].want);
		assert_null(strchr(err.msg, '\n'));
		sb_free(&sb);

		/* and through a whole layout the writers refuse too, naming the symbol */
		xb_layout l;
		t_layout_init(&l);
		t_layout_add(&l, 0, XB_PLACE_HOT, 0);
		char *out = run_writer("hot-ld", &img, NULL, &l, &err);
		assert_null(out);
		assert_non_null(strstr(err.msg, "function victim"));
		t_layout_free(&l);
	}
}

static void test_symbol_names_never_reach_scripts(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_target tg = test_target();
	xb_layout l;
	t_layout_init(&l);
	t_layout_add(&l, F_EVIL, XB_PLACE_HOT, 0);
	t_layout_add(&l, F_FAST, XB_PLACE_SRAM, 0);
	xb_err err = {{0}};
	static const char *const files[] = {"hot-ld", "ramfunc-ld", "zephyr-rom-start",
					    "zephyr-ramfunc", "zephyr-relocate"};
	for (size_t i = 0; i < 5; i++) {
		char *out = run_writer(files[i], &img, &tg, &l, &err);
		assert_non_null(out);
		assert_null(strstr(out, "evil"));
		assert_null(strstr(out, "DISCARD"));
		assert_null(strstr(out, ".data"));
		free(out);
	}
	/* a name list refuses a name that would break its lines */
	t_layout_add(&l, F_EVIL, XB_PLACE_SRAM, 0);
	char *names = run_writer("names", &img, &tg, &l, &err);
	assert_null(names);
	assert_non_null(strstr(err.msg, "function 'evil\\n*(.data)"));
	t_layout_free(&l);
}

static void test_layout_errors(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_target tg = test_target();
	xb_err err = {{0}};
	xb_layout l;

	t_layout_init(&l);
	t_layout_add(&l, F_KA, XB_PLACE_HOT, 0);
	t_layout_add(&l, F_KB, XB_PLACE_SRAM, 0);
	assert_null(run_writer("hot-ld", &img, &tg, &l, &err));
	assert_non_null(strstr(err.msg, "functions k_a and k_b share the input section '.text' but "
				       "the layout puts k_a in the hot block and k_b in SRAM"));
	t_layout_free(&l);

	t_layout_init(&l);
	t_layout_add(&l, F_FAST, XB_PLACE_HOT, 0);
	t_layout_add(&l, F_NOMAP, XB_PLACE_HOT, 0);
	assert_null(run_writer("hot-ld", &img, &tg, &l, &err));
	assert_string_equal(err.msg, "function nomap: no input section known (load the map file)");
	t_layout_free(&l);

	t_layout_init(&l);
	t_layout_add(&l, F_COUNT + 5, XB_PLACE_HOT, 0);
	assert_null(run_writer("ramfunc-ld", &img, &tg, &l, &err));
	assert_non_null(strstr(err.msg, "layout entry 1: function index 21 is not in the image"));
	t_layout_free(&l);

	t_layout_init(&l);
	t_layout_add(&l, F_SLOW, XB_PLACE_COLOUR, 0x2000);
	assert_null(run_writer("hot-ld", &img, &tg, &l, &err));
	assert_non_null(strstr(err.msg, "function slow: colour offset 0x2000 is outside the cache "
				       "way (0x2000 bytes)"));
	assert_null(run_writer("hot-ld", &img, NULL, &l, &err));
	assert_non_null(strstr(err.msg, "function slow: colouring needs a target"));
	xb_target odd = tg;
	odd.cache.ways = 3;
	assert_null(run_writer("hot-ld", &img, &odd, &l, &err));
	assert_non_null(strstr(err.msg, "target rp2040: a cache way of 5461 bytes"));
	t_layout_free(&l);

	/* a hot-only layout needs no target */
	t_layout_init(&l);
	t_layout_add(&l, F_FAST, XB_PLACE_HOT, 0);
	char *hot = run_writer("hot-ld", &img, NULL, &l, &err);
	assert_non_null(hot);
	assert_non_null(strstr(hot, "(strategy: stock)"));
	free(hot);
	/* a strategy that would end the comment is defused */
	memcpy(l.strategy, "a*/b", 5);
	hot = run_writer("hot-ld", &img, NULL, &l, &err);
	assert_non_null(strstr(hot, "(strategy: a__b)"));
	free(hot);
	t_layout_free(&l);
}

static void test_names_list(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_target tg = test_target();
	xb_layout l;
	t_layout_init(&l);
	strcpy(l.strategy, "sram");
	t_layout_add(&l, F_FAST, XB_PLACE_HOT, 0);
	t_layout_add(&l, F_RAM1, XB_PLACE_SRAM, 0);
	t_layout_add(&l, F_HELPER_MAIN, XB_PLACE_SRAM, 0);
	t_layout_add(&l, F_ODD, XB_PLACE_SRAM, 0);
	t_layout_add(&l, F_HELPER_UTIL, XB_PLACE_SRAM, 0);
	t_layout_add(&l, F_HELPER_NET, XB_PLACE_SRAM, 0);
	t_layout_add(&l, F_RAM1, XB_PLACE_SRAM, 0);
	xb_err err = {{0}};
	char *names = run_writer("names", &img, &tg, &l, &err);
	assert_non_null(names);
	assert_string_equal(names,
		"# xipbench SRAM functions (strategy: sram): one name per line, in placement "
		"order.\n"
		"# A name that several objects define is written archive:member(section) or "
		"object(section).\n"
		"ram1\n"
		"main.c.obj(.text.helper)\n"
		"odd\n"
		"libutil.a:crc.o(.text.helper)\n"
		"libnet.a:ipv4.o(.text.helper)\n");
	free(names);
	t_layout_free(&l);
}

static void test_relocate_lines(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_target tg = test_target();
	xb_layout l;
	t_layout_init(&l);
	strcpy(l.strategy, "sram");
	t_layout_add(&l, F_SLOW, XB_PLACE_COLOUR, 0x40);
	t_layout_add(&l, F_RAM1, XB_PLACE_SRAM, 0);
	t_layout_add(&l, F_HELPER_MAIN, XB_PLACE_SRAM, 0);
	t_layout_add(&l, F_ODD, XB_PLACE_SRAM, 0);
	t_layout_add(&l, F_MEMCPY, XB_PLACE_SRAM, 0);
	t_layout_add(&l, F_HELPER_NET, XB_PLACE_SRAM, 0);
	t_layout_add(&l, F_HELPER_BOOT, XB_PLACE_SRAM, 0);
	t_layout_add(&l, F_HELPER_UTIL, XB_PLACE_SRAM, 0);
	xb_err err = {{0}};
	char *cm = run_writer("zephyr-relocate", &img, &tg, &l, &err);
	assert_non_null(cm);
	assert_string_equal(cm,
		"# xipbench SRAM functions (strategy: sram) for zephyr_code_relocate(); needs "
		"CONFIG_CODE_DATA_RELOCATION=y.\n"
		"# Include it from the application's CMakeLists.txt after find_package(Zephyr):\n"
		"#   include(/path/to/this/relocate.cmake)\n"
		"# Each call moves one input section to SRAM; FILTER matches exactly its name.\n"
		"# LOCATION SRAM_TEXT: the map names no memory region in the SRAM; check that the "
		"board's RAM region is called SRAM.\n"
		"zephyr_code_relocate(LIBRARY drivers__usb FILTER \"^\\\\.text\\\\.ram1$\" LOCATION "
		"SRAM_TEXT)\n"
		"zephyr_code_relocate(FILES ${APPLICATION_SOURCE_DIR}/src/main.c FILTER "
		"\"^\\\\.text\\\\.helper$\" LOCATION SRAM_TEXT)\n"
		"zephyr_code_relocate(LIBRARY zephyr FILTER \"^\\\\.text\\\\.x\\\\$y\\\\+z$\" "
		"LOCATION SRAM_TEXT)\n"
		"# skipped .text.clib in /opt/sdk/lib/libc.a: an archive given by an absolute path "
		"is not a library of this Zephyr build (a toolchain library?); use the "
		"RAMFUNC_SECTION route for it\n"
		"# note: the FILTER also moves .text.helper of 1 other member(s) of libnet.a\n"
		"zephyr_code_relocate(LIBRARY net FILTER \"^\\\\.text\\\\.helper$\" LOCATION "
		"SRAM_TEXT)\n"
		"# skipped .text.helper in boot.o: the source of this object cannot be told from "
		"the map; use the RAMFUNC_SECTION route for it\n"
		"zephyr_code_relocate(LIBRARY util FILTER \"^\\\\.text\\\\.helper$\" LOCATION "
		"SRAM_TEXT)\n");
	free(cm);

	/* with the map's memory region that holds the SRAM (Zephyr's rpi_pico: RAM), the
	 * location names it: SRAM_TEXT there would link the code at 0 */
	xb_grow(&img.map.regions, &img.map.regions_cap, img.map.nregions + 2, sizeof *img.map.regions);
	img.map.regions[img.map.nregions++] = (xb_map_region){.name = xstrdup("FLASH"),
							      .origin = 0x10000000, .length = 0x200000};
	img.map.regions[img.map.nregions++] = (xb_map_region){.name = xstrdup("RAM"),
							      .origin = 0x20000000, .length = 0x42000};
	tg.regions[tg.nregions++] = (xb_region){.name = "sram", .base = 0x20000000,
						.size = 0x42000, .kind = XB_REGION_SRAM};
	cm = run_writer("zephyr-relocate", &img, &tg, &l, &err);
	assert_non_null(strstr(cm, "# LOCATION RAM_TEXT: the map's memory region RAM holds the SRAM.\n"));
	assert_non_null(strstr(cm, "FILTER \"^\\\\.text\\\\.ram1$\" LOCATION RAM_TEXT)\n"));
	assert_null(strstr(cm, "SRAM_TEXT"));
	free(cm);

	/* the module's Kconfig turns relocation on only when there is something to move */
	char *kc = run_writer("zephyr-module-kconfig", &img, &tg, &l, &err);
	assert_non_null(strstr(kc, "\tselect CODE_DATA_RELOCATION\n"));
	free(kc);
	t_layout_free(&l);
	t_layout_init(&l);
	t_layout_add(&l, F_FAST, XB_PLACE_HOT, 0);
	t_layout_add(&l, F_MEMCPY, XB_PLACE_SRAM, 0);
	cm = run_writer("zephyr-relocate", &img, &tg, &l, &err);
	assert_null(strstr(cm, "zephyr_code_relocate(L"));
	assert_non_null(strstr(cm, "# skipped .text.clib"));
	free(cm);
	kc = run_writer("zephyr-module-kconfig", &img, &tg, &l, &err);
	assert_null(strstr(kc, "select CODE_DATA_RELOCATION"));
	assert_non_null(strstr(kc, "config XIPBENCH_LAYOUT\n"));
	free(kc);
	t_layout_free(&l);

	/* plain objects outside the application and archives not named libNAME.a are skipped */
	xb_map_input in[] = {
		{.section = ".text.a", .member = "CMakeFiles/app.dir/__/lib/a.c.obj"},
		{.section = ".text.b", .member = "zephyr/CMakeFiles/zephyr_final.dir/isr.c.obj"},
		{.section = ".text.c", .archive = "weird.a", .member = "c.o"},
		{.section = ".text.d", .member = "CMakeFiles/app.dir/d.c.o"},
	};
	xb_function funcs[] = {{.name = "a", .input = 0}, {.name = "b", .input = 1},
			       {.name = "c", .input = 2}, {.name = "d", .input = 3}};
	xb_image small;
	memset(&small, 0, sizeof small);
	small.funcs = funcs;
	small.nfuncs = 4;
	small.map.inputs = in;
	small.map.ninputs = 4;
	t_layout_init(&l);
	for (int i = 0; i < 4; i++)
		t_layout_add(&l, i, XB_PLACE_SRAM, 0);
	cm = run_writer("zephyr-relocate", &small, NULL, &l, &err);
	assert_non_null(cm);
	assert_non_null(strstr(cm, "# skipped .text.a in CMakeFiles/app.dir/__/lib/a.c.obj: the "
				   "source of this object cannot be told"));
	assert_non_null(strstr(cm, "# skipped .text.b in zephyr/CMakeFiles/zephyr_final.dir/"));
	assert_non_null(strstr(cm, "# skipped .text.c in weird.a: the archive is not named "
				   "libNAME.a"));
	assert_non_null(strstr(cm, "zephyr_code_relocate(FILES ${APPLICATION_SOURCE_DIR}/d.c "));
	free(cm);
	t_layout_free(&l);
	for (size_t i = 0; i < img.map.nregions; i++)
		free(img.map.regions[i].name);
	free(img.map.regions);
	img.map.regions = NULL;
	img.map.nregions = img.map.regions_cap = 0;
}

static void test_writers_table(void **state)
{
	(void)state;
	size_t n = 0;
	for (const xb_snippet_writer *w = snippet_writers; w->name; w++, n++) {
		assert_non_null(w->file);
		assert_non_null(w->summary);
		assert_non_null(w->write);
		for (const xb_snippet_writer *v = snippet_writers; v != w; v++) {
			assert_string_not_equal(v->name, w->name);
			assert_string_not_equal(v->file, w->file);
		}
	}
	assert_true(n >= 8);
	writer("hot-ld");
	writer("ramfunc-ld");
	writer("names");
	assert_string_equal(writer("hot-ld")->file, "xipbench_hot.ld");
	assert_string_equal(writer("ramfunc-ld")->file, "xipbench_ramfunc.ld");
	assert_string_equal(writer("zephyr-relocate")->file, "zephyr/relocate.cmake");
}

/* ---- folders ---- */


static char *read_text(const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file), *text = NULL;
	xb_err err = {{0}};
	if (xb_read_file(path, &text, NULL, &err) != 0)
		text = NULL;
	free(path);
	return text;
}

static void test_write_all(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_target tg = test_target();
	xb_layout l;
	colour_layout(&l);
	xb_err err = {{0}};
	char *dir = xasprintf("%s/layout/a", test_dir);
	assert_int_equal(snippet_write_all(&img, &tg, &l, dir, &err), 0);
	for (const xb_snippet_writer *w = snippet_writers; w->name; w++) {
		char *text = read_text(dir, w->file);
		if (!text)
			fail_msg("%s not written", w->file);
		char *want = run_writer(w->name, &img, &tg, &l, &err);
		assert_string_equal(text, want);
		free(want);
		free(text);
	}
	char *yml = read_text(dir, "zephyr/snippet/snippets/xipbench-layout/snippet.yml");
	assert_non_null(strstr(yml, "name: xipbench-layout\n"));
	assert_non_null(strstr(yml, "EXTRA_CONF_FILE: xipbench-layout.conf\n"));
	free(yml);
	char *mod = read_text(dir, "zephyr/snippet/zephyr/module.yml");
	assert_non_null(strstr(mod, "    snippet_root: .\n"));
	free(mod);
	char *cmake = read_text(dir, "zephyr/snippet/CMakeLists.txt");
	assert_non_null(strstr(cmake, "zephyr_linker_sources(ROM_START"));
	assert_non_null(strstr(cmake, "zephyr_linker_sources(RAMFUNC_SECTION"));
	free(cmake);
	char *readme = read_text(dir, "zephyr/snippet/README.txt");
	assert_non_null(strstr(readme, "-DEXTRA_ZEPHYR_MODULES="));
	free(readme);

	/* a refused layout writes nothing */
	char *dir2 = xasprintf("%s/layout/refused", test_dir);
	t_layout_add(&l, F_DUP2A, XB_PLACE_HOT, 0);
	assert_int_equal(snippet_write_all(&img, &tg, &l, dir2, &err), -1);
	assert_non_null(strstr(err.msg, "function dup2"));
	struct stat st;
	assert_int_not_equal(stat(dir2, &st), 0);
	free(dir2);
	free(dir);
	t_layout_free(&l);
}

static void test_write_stock(void **state)
{
	(void)state;
	xb_err err = {{0}};
	char *dir = xasprintf("%s/stock/x", test_dir);
	assert_int_equal(snippet_write_stock(dir, &err), 0);
	char *hot = read_text(dir, "xipbench_hot.ld");
	char *ram = read_text(dir, "xipbench_ramfunc.ld");
	assert_non_null(hot);
	assert_non_null(ram);
	/* an optional leading comment line, then exactly the markers */
	const char *nl = strchr(hot, '\n');
	assert_true(hot[0] == '/' && nl);
	assert_string_equal(nl + 1, "__xipbench_hot_start = .;\n__xipbench_hot_end = .;\n");
	nl = strchr(ram, '\n');
	assert_true(ram[0] == '/' && nl);
	assert_string_equal(nl + 1, "__xipbench_ramfunc_start = .;\n__xipbench_ramfunc_end = .;\n");
	free(hot);
	free(ram);
	free(dir);
	/* an empty layout writes the same markers */
	xb_image img = test_image();
	xb_layout l;
	t_layout_init(&l);
	char *empty = run_writer("hot-ld", &img, NULL, &l, &err);
	nl = strchr(empty, '\n');
	assert_string_equal(nl + 1, "__xipbench_hot_start = .;\n__xipbench_hot_end = .;\n");
	free(empty);
	t_layout_free(&l);

	char *blocked = xasprintf("%s/file", test_dir);
	assert_int_equal(xb_write_file_atomic(blocked, "x", 1, &err), 0);
	char *under = xasprintf("%s/sub", blocked);
	assert_int_equal(snippet_write_stock(under, &err), -1);
	free(under);
	free(blocked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hot_fragment_exact),
		cmocka_unit_test(test_zephyr_fragments_exact),
		cmocka_unit_test(test_selectors),
		cmocka_unit_test(test_selector_wildcard_sees_members),
		cmocka_unit_test(test_dangerous_names_refused),
		cmocka_unit_test(test_symbol_names_never_reach_scripts),
		cmocka_unit_test(test_layout_errors),
		cmocka_unit_test(test_names_list),
		cmocka_unit_test(test_relocate_lines),
		cmocka_unit_test(test_writers_table),
		cmocka_unit_test(test_write_all),
		cmocka_unit_test(test_write_stock),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
