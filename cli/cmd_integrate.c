/* cmd_integrate: `xipbench integrate`: the one-time step that lets layouts move functions
 * in a pico-sdk build (core/buildsys.h, docs/build-folders.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buildsys.h"
#include "cli.h"

static const char usage[] =
	"usage: xipbench integrate --pico-sdk BUILD_DIR [--out DIR] [--linker-script FILE]\n"
	"       xipbench integrate --zephyr BUILD_DIR\n"
	"\n"
	"The one-time step before a layout can move functions. For pico-sdk it writes into DIR\n"
	"(default: the application's folder/xipbench) memmap_xipbench.ld, a copy of your SDK's\n"
	"memmap_default.ld (or of FILE) with xipbench's two INCLUDE lines, and the stock\n"
	"fragments xipbench_hot.ld and xipbench_ramfunc.ld (marker symbols only), then prints\n"
	"the two lines to add to the application's CMakeLists.txt. Zephyr needs no change: it\n"
	"prints how the plan folder's module and snippet are used.\n"
	"\n"
	"  --pico-sdk DIR        the pico-sdk build folder (CMakeCache.txt: PICO_SDK_PATH,\n"
	"                        PICO_PLATFORM, the project)\n"
	"  --zephyr DIR          a Zephyr build folder\n"
	"  --out DIR             where the script and the stock fragments go\n"
	"  --linker-script FILE  start from this script instead of the SDK's memmap_default.ld\n";

static int write_text(const char *dir, const char *file, const char *text)
{
	xb_err err;
	char *p = xasprintf("%s/%s", dir, file);
	int rc = xb_write_file_atomic(p, text, strlen(text), &err);
	if (rc != 0)
		cli_fail("integrate", "%s", err.msg);
	free(p);
	return rc;
}

/* s as one CMake argument: as it is when it holds only plain path characters, else quoted
 * ("/my app/xipbench", with \\, \" and \$ escaped). A new string. */
static char *cmake_arg(const char *prefix, const char *s)
{
	xb_strbuf sb = {0};
	char *all = xasprintf("%s%s", prefix, s);
	int plain = *all != 0;
	for (const char *c = all; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-:=,~@%",
			    *c))
			plain = 0;
	if (plain) {
		sb_puts(&sb, all);
	} else {
		sb_puts(&sb, "\"");
		for (const char *c = all; *c; c++) {
			if (*c == '\\' || *c == '"' || *c == '$')
				sb_puts(&sb, "\\");
			sb_append(&sb, c, 1);
		}
		sb_puts(&sb, "\"");
	}
	free(all);
	return sb.buf;
}

static int integrate_zephyr(const xb_build_folder *b)
{
	printf("Zephyr build %s (board %s): no change to the build is needed.\n", b->dir,
	       b->board ? b->board : "?");
	printf("A plan folder DIR (xipbench plan --zephyr %s ... --out DIR) holds a Zephyr module\n"
	       "with the snippet xipbench-layout; relink with it:\n\n", b->dir);
	printf("    %s\n\n", b->relink);
	printf("({layout_dir} is DIR; the hot block goes through zephyr_linker_sources(ROM_START),\n"
	       "SRAM functions through zephyr_code_relocate(); docs/build-folders.md.)\n");
	return XB_EXIT_OK;
}

static int integrate_pico(const xb_build_folder *b, const char *out, const char *script)
{
	char *src = script ? xstrdup(script) : buildsys_pico_memmap_path(b->sdk, b->platform);
	if (!src)
		return cli_fail("integrate",
				"%s: no src/rp2_common/pico_crt0/%s/memmap_default.ld nor "
				"src/rp2_common/pico_standard_link/memmap_default.ld; give the script "
				"your build links with as --linker-script",
				b->sdk, b->platform ? b->platform : "rp2040");
	char *dir = out ? xstrdup(out) : b->app_dir ? xasprintf("%s/xipbench", b->app_dir) : NULL;
	int rc = XB_EXIT_FAIL;
	char *text = NULL;
	size_t len;
	xb_strbuf sb = {0};
	xb_err err;
	if (!dir) {
		rc = cli_usage_error("integrate", "no application folder in CMakeCache.txt: give --out");
		goto done;
	}
	if (xb_read_file(src, &text, &len, &err) != 0 ||
	    buildsys_pico_memmap(text, src, &sb, &err) != 0 || xb_mkdirs(dir, &err) != 0) {
		rc = cli_fail("integrate", "%s", err.msg);
		goto done;
	}
	/* the CMake lines need the full path (CMake reads the script from the build folder) */
	char *full = realpath(dir, NULL);
	if (full) {
		free(dir);
		dir = full;
	}
	if (write_text(dir, "memmap_xipbench.ld", sb.buf) != 0 ||
	    write_text(dir, "xipbench_hot.ld", "__xipbench_hot_start = .;\n__xipbench_hot_end = .;\n") != 0 ||
	    write_text(dir, "xipbench_ramfunc.ld",
		       "__xipbench_ramfunc_start = .;\n__xipbench_ramfunc_end = .;\n") != 0)
		goto done;
	printf("wrote %s/memmap_xipbench.ld (from %s) and the stock fragments.\n", dir, src);
	printf("Add to the application's CMakeLists.txt, after add_executable(%s ...):\n\n", b->name);
	char *script_arg = xasprintf("%s/memmap_xipbench.ld", dir);
	char *script_q = cmake_arg("", script_arg);
	char *libdir_q = cmake_arg("-L", dir);
	printf("    pico_set_linker_script(%s %s)\n", b->name, script_q);
	printf("    target_link_options(%s PRIVATE %s)\n\n", b->name, libdir_q);
	free(script_arg);
	free(script_q);
	free(libdir_q);
	printf("then rebuild (cmake --build %s) and plan from that build. A relink copies a layout's\n"
	       "fragments into %s (xipbench --pico-sdk does it).\n", b->dir, dir);
	rc = XB_EXIT_OK;
done:
	free(text);
	sb_free(&sb);
	free(dir);
	free(src);
	return rc;
}

static int run_integrate(int argc, char **argv)
{
	enum { O_PICO = 1, O_ZEPHYR, O_OUT, O_SCRIPT };
	static const struct option opts[] = {
		{"pico-sdk", required_argument, 0, O_PICO},
		{"zephyr", required_argument, 0, O_ZEPHYR},
		{"out", required_argument, 0, O_OUT},
		{"linker-script", required_argument, 0, O_SCRIPT},
		{0, 0, 0, 0},
	};
	const char *dir = NULL, *out = NULL, *script = NULL;
	enum xb_build_kind kind = XB_BUILD_OTHER;
	int c, n = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_PICO: dir = optarg; kind = XB_BUILD_PICO_SDK; n++; break;
		case O_ZEPHYR: dir = optarg; kind = XB_BUILD_ZEPHYR; n++; break;
		case O_OUT: out = optarg; break;
		case O_SCRIPT: script = optarg; break;
		default:
			return cli_usage_error("integrate", "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("integrate", "unexpected argument '%s'", argv[optind]);
	if (n != 1)
		return cli_usage_error("integrate", "give one build folder: --pico-sdk DIR or --zephyr DIR");
	xb_build_folder b;
	xb_err err;
	if (buildsys_find(&b, kind, dir, &err) != 0)
		return cli_fail("integrate", "%s", err.msg);
	int rc = kind == XB_BUILD_ZEPHYR ? integrate_zephyr(&b) : integrate_pico(&b, out, script);
	buildsys_free(&b);
	return rc;
}

const xb_command cmd_integrate = {
	.name = "integrate",
	.summary = "the one-time step that lets layouts move functions in a pico-sdk build",
	.usage = usage,
	.run = run_integrate,
};
