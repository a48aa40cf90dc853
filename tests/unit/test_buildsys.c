/* test_buildsys: build folders and build systems (core/buildsys.h). Zephyr- and
 * pico-sdk-shaped folders made here (which ELF and map are taken, the board, the relink
 * command split by the command builder exactly as it will run, with folders holding blanks
 * and quotes kept whole); missing pieces named; the pico-sdk memmap made ready for layouts
 * (the INCLUDE lines, the general text rule moved after .data's load image, the complement
 * of the EXCLUDE_FILE list) and refused, naming the line, when its shape is unknown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../core/buildsys.h"
#include "../../session/build_job.h"
#include "../../session/builder.h"
#include "../common/testdir.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *path(const char *rel)
{
	return xasprintf("%s/%s", test_dir, rel);
}

/* The relink command as the command builder runs it, for a layout folder. */
static char **relink_argv(const xb_build_folder *b, const char *layout_dir, xb_build_cmd *cmd)
{
	xb_builder_config cfg = {.command = b->relink};
	xb_build_request rq = {.layout_dir = layout_dir, .build_dir = b->dir, .name = "colour",
			       .elf = b->elf};
	xb_err err = {{0}};
	assert_int_equal(builder_command.check(&cfg, &err), 0);
	assert_int_equal(builder_command.prepare(&cfg, &rq, cmd, &err), 0);
	return cmd->argv;
}

static void test_zephyr_folder(void **state)
{
	(void)state;
	/* a folder name with a blank and a quote */
	char *dir = path("zb it's");
	char *zdir = xasprintf("%s/zephyr", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(zdir, 0755), 0);
	char *elf = xasprintf("%s/zephyr.elf", zdir), *map = xasprintf("%s/zephyr.map", zdir);
	char *final = xasprintf("%s/zephyr_final.map", zdir), *cfg = xasprintf("%s/.config", zdir);
	char *cache = xasprintf("%s/CMakeCache.txt", dir);
	xb_build_folder b;
	xb_err err = {{0}};
	/* no ELF: named, with what the folder should be */
	assert_int_equal(buildsys_find(&b, XB_BUILD_ZEPHYR, dir, &err), -1);
	assert_non_null(strstr(err.msg, "zephyr/zephyr.elf: no such file"));
	assert_non_null(strstr(err.msg, "west build -d"));
	put(elf, "x");
	assert_int_equal(buildsys_find(&b, XB_BUILD_ZEPHYR, dir, &err), -1);
	assert_non_null(strstr(err.msg, "no zephyr_final.map or zephyr.map"));
	put(map, "x");
	assert_int_equal(buildsys_find(&b, XB_BUILD_ZEPHYR, dir, &err), 0);
	assert_string_equal(b.map, map);
	assert_null(b.board);
	buildsys_free(&b);
	/* Zephyr 4.x's final map wins; the board from .config, else the cache */
	put(final, "x");
	put(cache, "# CMakeCache\nBOARD:STRING=rpi_pico\nCACHED_BOARD:INTERNAL=rpi_pico/rp2040\n"
		   "ZEPHYR_BASE:PATH=/z/zephyr\nAPPLICATION_SOURCE_DIR:PATH=/w/echo_server\n");
	assert_int_equal(buildsys_find(&b, XB_BUILD_ZEPHYR, dir, &err), 0);
	assert_string_equal(b.map, final);
	assert_string_equal(b.board, "rpi_pico/rp2040");
	assert_string_equal(b.sdk, "/z/zephyr");
	assert_string_equal(b.app_dir, "/w/echo_server");
	assert_false(b.code_relocation);
	buildsys_free(&b);
	put(cfg, "CONFIG_SOC_RP2040=y\nCONFIG_BOARD=\"rpi_pico\"\nCONFIG_CODE_DATA_RELOCATION=y\n");
	char *old = getenv("PATH") ? xstrdup(getenv("PATH")) : NULL;
	setenv("PATH", "", 1); /* no west, whatever the machine has */
	assert_int_equal(buildsys_find(&b, XB_BUILD_ZEPHYR, dir, &err), 0);
	assert_string_equal(b.board, "rpi_pico");
	assert_true(b.code_relocation);
	/* the relink: west when it is on PATH (not here: PATH is emptied), else cmake through a
	 * shell that gets the folders as arguments */
	xb_build_cmd cmd;
	char **argv = relink_argv(&b, "/p/lay out", &cmd);
	assert_string_equal(argv[0], "sh");
	assert_string_equal(argv[1], "-c");
	assert_non_null(strstr(argv[2], "cmake -DSNIPPET=xipbench-layout"));
	assert_null(strstr(argv[2], "zb it")); /* never in the script text */
	assert_string_equal(argv[3], "sh");
	assert_string_equal(argv[4], "/p/lay out");
	assert_string_equal(argv[5], dir);
	assert_null(argv[6]);
	build_cmd_free(&cmd);
	buildsys_free(&b);
	/* with west on PATH */
	char *bin = path("bin"), *west = path("bin/west");
	assert_int_equal(mkdir(bin, 0755), 0);
	put(west, "#!/bin/sh\n");
	assert_int_equal(chmod(west, 0755), 0);
	setenv("PATH", bin, 1);
	assert_int_equal(buildsys_find(&b, XB_BUILD_ZEPHYR, dir, &err), 0);
	argv = relink_argv(&b, "/p/lay out", &cmd);
	const char *want[] = {"west", "build", "-d", dir, "--", "-DSNIPPET=xipbench-layout",
			      "-DEXTRA_ZEPHYR_MODULES=/p/lay out/zephyr/snippet", NULL};
	for (int i = 0; want[i]; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[7]);
	assert_non_null(b.flash);
	build_cmd_free(&cmd);
	buildsys_free(&b);
	if (old)
		setenv("PATH", old, 1);
	free(old);
	free(bin);
	free(west);
	free(dir);
	free(zdir);
	free(elf);
	free(map);
	free(final);
	free(cfg);
	free(cache);
}

static void test_pico_sdk_folder(void **state)
{
	(void)state;
	char *dir = path("pb"), *app = path("app src");
	assert_int_equal(mkdir(dir, 0755), 0);
	xb_build_folder b;
	xb_err err = {{0}};
	assert_int_equal(buildsys_find(&b, XB_BUILD_PICO_SDK, dir, &err), -1);
	assert_non_null(strstr(err.msg, "CMakeCache.txt: no such file"));
	char *cache = xasprintf("%s/CMakeCache.txt", dir);
	put(cache, "CMAKE_PROJECT_NAME:STATIC=web\n");
	assert_int_equal(buildsys_find(&b, XB_BUILD_PICO_SDK, dir, &err), -1);
	assert_non_null(strstr(err.msg, "no PICO_SDK_PATH"));
	char *text = xasprintf("CMAKE_PROJECT_NAME:STATIC=web\nPICO_SDK_PATH:PATH=/s/pico-sdk\n"
			       "PICO_BOARD:STRING=pico_w\nPICO_PLATFORM:STRING=rp2040\n"
			       "CMAKE_HOME_DIRECTORY:INTERNAL=%s\n", app);
	put(cache, text);
	assert_int_equal(buildsys_find(&b, XB_BUILD_PICO_SDK, dir, &err), -1);
	assert_non_null(strstr(err.msg, "no NAME.elf with NAME.elf.map"));
	/* an ELF without a map does not count; the project's wins over another */
	char *a = xasprintf("%s/aaa.elf", dir), *am = xasprintf("%s/aaa.elf.map", dir);
	char *w = xasprintf("%s/web.elf", dir), *wm = xasprintf("%s/web.elf.map", dir);
	char *x = xasprintf("%s/zz.elf", dir);
	put(a, "x");
	put(am, "x");
	put(x, "x");
	assert_int_equal(buildsys_find(&b, XB_BUILD_PICO_SDK, dir, &err), 0);
	assert_string_equal(b.name, "aaa");
	buildsys_free(&b);
	put(w, "x");
	put(wm, "x");
	assert_int_equal(buildsys_find(&b, XB_BUILD_PICO_SDK, dir, &err), 0);
	assert_string_equal(b.name, "web");
	assert_string_equal(b.elf, w);
	assert_string_equal(b.map, wm);
	assert_string_equal(b.board, "pico_w");
	assert_string_equal(b.platform, "rp2040");
	assert_string_equal(b.sdk, "/s/pico-sdk");
	xb_build_cmd cmd;
	char **argv = relink_argv(&b, "/l", &cmd);
	const char *want[] = {"cmake", "--build", dir, "--target", "web", NULL};
	for (int i = 0; want[i]; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[5]);
	build_cmd_free(&cmd);
	buildsys_free(&b);
	/* after `xipbench integrate`: the layout's fragments are copied in, then the build */
	assert_int_equal(mkdir(app, 0755), 0);
	char *integ = xasprintf("%s/xipbench", app);
	assert_int_equal(mkdir(integ, 0755), 0);
	assert_int_equal(buildsys_find(&b, XB_BUILD_PICO_SDK, dir, &err), 0);
	argv = relink_argv(&b, "/l", &cmd);
	assert_string_equal(argv[0], "sh");
	assert_non_null(strstr(argv[2], "xipbench_hot.ld"));
	assert_string_equal(argv[4], "/l");
	assert_string_equal(argv[5], integ);
	assert_string_equal(argv[6], dir);
	assert_string_equal(argv[7], "web");
	build_cmd_free(&cmd);
	buildsys_free(&b);
	free(integ);
	free(a);
	free(am);
	free(w);
	free(wm);
	free(x);
	free(text);
	free(cache);
	free(dir);
	free(app);
}

static char *slurp(const char *p)
{
	FILE *f = fopen(p, "r");
	if (!f)
		return NULL;
	char buf[256];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	return xstrdup(buf);
}

/* The workbench's command for a build folder: relinks in the folder (a cmake of this
 * test's own on PATH stands for the real one and writes a new ELF and map there), then
 * the layout loop's {elf} and {elf}.map are copies of them, whatever blanks, quotes and
 * braces the folder's name holds. */
static void test_workbench_command(void **state)
{
	(void)state;
	char *dir = path("w b'{name}"), *bin = path("wb-bin");
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(bin, 0755), 0);
	char *cache = xasprintf("%s/CMakeCache.txt", dir);
	put(cache, "CMAKE_PROJECT_NAME:STATIC=web\nPICO_SDK_PATH:PATH=/s/pico-sdk\n");
	char *elf = xasprintf("%s/web.elf", dir), *map = xasprintf("%s/web.elf.map", dir);
	put(elf, "old elf\n");
	put(map, "old map\n");
	/* `cmake --build DIR --target NAME`, as the folder's relink runs it */
	char *cmake = xasprintf("%s/cmake", bin);
	put(cmake, "#!/bin/sh\n[ \"$1\" = --build ] && [ \"$3\" = --target ] || exit 9\n"
		   "echo \"new elf $4\" > \"$2/$4.elf\"\necho \"new map $4\" > \"$2/$4.elf.map\"\n");
	assert_int_equal(chmod(cmake, 0755), 0);
	char *old_path = xstrdup(getenv("PATH"));
	/* (without west: a pico-sdk folder's relink never uses it) */
	char *new_path = xasprintf("%s:/usr/local/bin:/usr/bin:/bin", bin);
	setenv("PATH", new_path, 1);
	xb_build_folder b;
	xb_err err = {{0}};
	assert_int_equal(buildsys_find(&b, XB_BUILD_PICO_SDK, dir, &err), 0);
	char *tmpl = buildsys_workbench_command(&b);
	xb_builder bu = {.ops = &builder_command, .cfg = {.command = tmpl}};
	assert_int_equal(builder_command.check(&bu.cfg, &err), 0);
	char *layout = path("layout"), *out = path("images/colour.elf");
	assert_int_equal(mkdir(layout, 0755), 0);
	xb_build_request rq = {.layout_dir = layout, .build_dir = dir, .name = "colour", .elf = out};
	xb_build_job *j = build_start(&bu, &rq, NULL, &err);
	if (!j)
		fail_msg("%s", err.msg);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (build_pump(j)) {
		struct pollfd f = {.fd = build_pollfd(j), .events = POLLIN};
		int to = build_timeout_ms(j);
		poll(&f, f.fd >= 0, to < 0 || to > 200 ? 200 : to);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 20)
			fail_msg("the build did not end within 20 s");
	}
	const xb_build_result *r = build_result(j);
	if (r->state != XB_BUILD_OK)
		fail_msg("%s", r->message);
	char *got = slurp(out), *out_map = xasprintf("%s.map", out), *got_map = slurp(out_map);
	assert_non_null(got);
	assert_string_equal(got, "new elf web\n");
	assert_non_null(got_map);
	assert_string_equal(got_map, "new map web\n");
	assert_non_null(r->map);
	assert_string_equal(r->map, out_map);
	build_free(j);
	setenv("PATH", old_path, 1);
	buildsys_free(&b);
	free(got);
	free(got_map);
	free(out_map);
	free(tmpl);
	free(layout);
	free(out);
	free(old_path);
	free(new_path);
	free(cmake);
	free(elf);
	free(map);
	free(cache);
	free(dir);
	free(bin);
}

/* The structure of pico-sdk's memmap_default.ld (rp2040), reduced to what the change
 * touches. */
static const char memmap[] =
	"SECTIONS\n"
	"{\n"
	"    .text : {\n"
	"        __logical_binary_start = .;\n"
	"        KEEP (*(.vectors))\n"
	"        KEEP (*(.reset))\n"
	"        *(.init)\n"
	"        *(EXCLUDE_FILE(*libgcc.a: *libc.a:*lib_a-mem*.o *libm.a:) .text*)\n"
	"        *(.fini)\n"
	"    } > FLASH\n"
	"    .data : {\n"
	"        __data_start__ = .;\n"
	"        *(.time_critical*)\n"
	"        *(.text*)\n"
	"        *(.data*)\n"
	"    } > RAM AT> FLASH\n"
	"    .tdata : {\n"
	"        *(.tdata .tdata.*)\n"
	"    } > RAM AT> FLASH\n"
	"    PROVIDE(__data_end__ = .);\n"
	"    __etext = LOADADDR(.data);\n"
	"    .bss (NOLOAD) : {\n"
	"        *(.bss*)\n"
	"    } > RAM\n"
	"}\n";

static void test_pico_memmap(void **state)
{
	(void)state;
	xb_strbuf sb = {0};
	xb_err err = {{0}};
	assert_int_equal(buildsys_pico_memmap(memmap, "memmap_default.ld", &sb, &err), 0);
	const char *o = sb.buf;
	const char *reset = strstr(o, "        KEEP (*(.reset))\n        INCLUDE xipbench_hot.ld\n");
	const char *tc = strstr(o, "        *(.time_critical*)\n        INCLUDE xipbench_ramfunc.ld\n");
	const char *comp = strstr(o, "        *libgcc.a:(.text*) *libc.a:*lib_a-mem*.o(.text*) "
				      "*libm.a:(.text*)\n");
	const char *rest = strstr(o, "    .xipbench_text : {\n        *(EXCLUDE_FILE(*libgcc.a: "
				      "*libc.a:*lib_a-mem*.o *libm.a:) .text*)\n    } > FLASH\n");
	assert_non_null(reset);
	assert_non_null(tc);
	assert_non_null(comp);
	assert_non_null(rest);
	/* order: hot in .text, RAM rules in .data, the general rule after .tdata */
	assert_true(reset < tc && tc < comp && comp < rest);
	assert_true(rest > strstr(o, ".tdata"));
	/* after the assignments that read the location counter at the end of .tdata (in
	 * RAM), before the next output section */
	assert_true(rest > strstr(o, "PROVIDE(__data_end__ = .);") &&
		    rest > strstr(o, "__etext = LOADADDR(.data);") && rest < strstr(o, ".bss"));
	/* the general rule appears once, and .data no longer takes every .text* */
	assert_null(strstr(strstr(o, "    .data"), "        *(.text*)\n"));
	int rules = 0;
	for (const char *p = o; (p = strstr(p, "*(EXCLUDE_FILE(")) != NULL; p++)
		rules++;
	assert_int_equal(rules, 1);
	sb_free(&sb);
	/* another shape: refused, naming what is missing */
	char *other = xstrdup(memmap);
	char *t = strstr(other, "*(.time_critical*)");
	memcpy(t, "*(.time_xritical*)", 18);
	sb = (xb_strbuf){0};
	assert_int_equal(buildsys_pico_memmap(other, "my.ld", &sb, &err), -1);
	assert_string_equal(err.msg, "my.ld: no `*(.time_critical*)` in .data: not the "
				     "memmap_default.ld shape xipbench knows; add the INCLUDE lines by "
				     "hand (docs/build-folders.md)");
	assert_null(sb.buf);
	free(other);
}

int main(void)
{
	unsetenv("PATH");
	setenv("PATH", "/nonexistent", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zephyr_folder),
		cmocka_unit_test(test_pico_sdk_folder),
		cmocka_unit_test(test_pico_memmap),
		cmocka_unit_test(test_workbench_command),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
