/* test_builder: builders and build jobs. Progress and error lines of common build tools;
 * the command template (words, quotes, placeholders inside words, paths with blanks and
 * quotes kept whole, errors naming the column); the make builder's command; build jobs of
 * the command builder running a script of this test's own (ninja-style progress, a
 * failure, a success, a build that writes nothing, a cancel); the make builder relinking
 * the demo echo firmware with a layout folder written through the core API, a layout whose
 * SRAM overflows RAM, a cancel. Waiting is poll() on the job's descriptor with a bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../core/plan_inputs.h"
#include "../../core/image.h"
#include "../../core/layout.h"
#include "../../session/build_job.h"
#include "../common/testdir.h"
#include "test_pico_common.h"

#define BOUND_MS 300000 /* a first build of the firmware takes seconds; a relink less */

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void write_text(const char *path, const char *text, int exec)
{
	xb_err err;
	if (xb_write_file_atomic(path, text, strlen(text), &err) != 0)
		fail_msg("%s", err.msg);
	if (exec)
		chmod(path, 0755);
}

/* ---- what the builders share ---- */

static void test_progress(void **state)
{
	(void)state;
	assert_true(builder_progress_generic("[3/12] Building C object net.c.obj") == 0.25);
	assert_true(builder_progress_generic("[12/12] Linking C executable zephyr.elf") == 1.0);
	assert_true(builder_progress_generic("[ 42%] Building C object foo.o") == 0.42);
	assert_true(builder_progress_generic("[100%] Built target app") == 1.0);
	assert_true(builder_progress_generic("  [0/5] x") == 0.0);
	assert_true(builder_progress_generic("  CC kernel/sched.c") < 0);
	assert_true(builder_progress_generic("[3/0] x") < 0);
	assert_true(builder_progress_generic("[5/3] x") < 0);
	assert_true(builder_progress_generic("[101%] x") < 0);
	assert_true(builder_progress_generic("[x/3]") < 0);
	assert_true(builder_progress_generic("") < 0);
}

static void test_error_lines(void **state)
{
	(void)state;
	const char *yes[] = {
		"net/ipv4.c:12:3: error: 'x' undeclared",
		"ld: main.o: in function `f': undefined reference to `g'",
		"ld: echo.elf section `.data' will not fit in region `RAM'",
		"ld: region `RAM' overflowed by 4096 bytes",
		"ld: cannot open linker script file xipbench_hot.ld: No such file or directory",
		"make[1]: *** [Makefile:160: build/echo.elf] Error 1",
		"make: *** No rule to make target 'x.c'.  Stop.",
		"collect2: error: ld returned 1 exit status",
		NULL,
	};
	const char *no[] = {"  LD build/echo.elf", "[3/12] Building C object a.o",
			    "warning: unused variable", NULL};
	for (size_t i = 0; yes[i]; i++)
		if (!builder_error_line_generic(yes[i]))
			fail_msg("not an error line: %s", yes[i]);
	for (size_t i = 0; no[i]; i++)
		if (builder_error_line_generic(no[i]))
			fail_msg("an error line: %s", no[i]);
}

static void test_request_checks(void **state)
{
	(void)state;
	xb_err err;
	xb_build_request rq = {.layout_dir = test_dir, .build_dir = test_dir, .name = "colour-4k"};
	assert_int_equal(builder_check_request(&rq, &err), 0);
	const char *bad[] = {"", ".hidden", "-x", "a/b", "a b", "x;rm", NULL};
	for (size_t i = 0; bad[i]; i++) {
		rq.name = bad[i];
		assert_int_equal(builder_check_request(&rq, &err), -1);
		assert_non_null(strstr(err.msg, "is not a safe file name"));
	}
	rq.name = "ok";
	rq.layout_dir = "/nonexistent-xipbench-layout";
	assert_int_equal(builder_check_request(&rq, &err), -1);
	assert_string_equal(err.msg, "/nonexistent-xipbench-layout: no such layout folder "
				     "(xipbench plan --out writes one)");
	assert_ptr_equal(builder_find("make"), &builder_make);
	assert_ptr_equal(builder_find("command"), &builder_command);
	assert_null(builder_find("zephyr"));
}

/* ---- the command template ---- */

static void prepare(const char *tmpl, const xb_build_request *rq, xb_build_cmd *cmd)
{
	xb_builder_config cfg = {.command = tmpl};
	xb_err err;
	if (builder_command.check(&cfg, &err) != 0 ||
	    builder_command.prepare(&cfg, rq, cmd, &err) != 0)
		fail_msg("%s: %s", tmpl, err.msg);
}

static void assert_argv(const xb_build_cmd *cmd, const char *const *want)
{
	size_t n = 0;
	for (; want[n]; n++) {
		if (!cmd->argv[n])
			fail_msg("argv has %zu words, %s expected next", n, want[n]);
		assert_string_equal(cmd->argv[n], want[n]);
	}
	if (cmd->argv[n])
		fail_msg("an extra word: '%s'", cmd->argv[n]);
}

static void test_template_words(void **state)
{
	(void)state;
	/* a layout folder whose path has a blank, a quote and a dollar */
	char *ld = xasprintf("%s/it's a $HOME", test_dir);
	mkdir(ld, 0755);
	xb_build_request rq = {.layout_dir = ld, .build_dir = "/b", .name = "n1",
			       .elf = "/out/x.elf"};
	xb_build_cmd cmd;
	prepare("west build -d {build_dir} -- -DLAYOUT={layout_dir} '{elf}' \"a  b\" c\\ d '' "
		"x{name}y {{literal}} \"q\\\"\\$\\z\"",
		&rq, &cmd);
	char *def = xasprintf("-DLAYOUT=%s", ld);
	const char *want[] = {"west", "build", "-d", "/b", "--", def, "/out/x.elf", "a  b",
			      "c d", "", "xn1y", "{literal}", "q\"$\\z", NULL};
	assert_argv(&cmd, want);
	assert_true(cmd.writes_elf);
	assert_string_equal(cmd.elf, "/out/x.elf");
	assert_null(cmd.cwd);
	/* the values are in the environment too, for a template with a shell of its own */
	char *env_ld = xasprintf("XB_LAYOUT_DIR=%s", ld);
	assert_string_equal(cmd.env[0], env_ld);
	assert_string_equal(cmd.env[1], "XB_BUILD_DIR=/b");
	assert_string_equal(cmd.env[2], "XB_ELF=/out/x.elf");
	assert_string_equal(cmd.env[3], "XB_NAME=n1");
	assert_null(cmd.env[4]);
	build_cmd_free(&cmd);
	free(env_ld);
	free(def);

	/* without {elf} the command does not write the ELF itself; relative paths become
	 * absolute; a default ELF */
	rq = (xb_build_request){.layout_dir = ld, .build_dir = "rel/build", .name = "n2"};
	prepare("ninja -C {build_dir}", &rq, &cmd);
	char *cwd = getcwd(NULL, 0);
	char *bd = xasprintf("%s/rel/build", cwd);
	const char *want2[] = {"ninja", "-C", bd, NULL};
	assert_argv(&cmd, want2);
	assert_false(cmd.writes_elf);
	char *elf = xasprintf("%s/rel/build/layouts/n2.elf", cwd);
	assert_string_equal(cmd.elf, elf);
	build_cmd_free(&cmd);
	free(elf);
	free(bd);
	free(cwd);
	free(ld);
}

static void test_template_errors(void **state)
{
	(void)state;
	struct {
		const char *tmpl, *msg;
	} cases[] = {
		{"make {layout}", "build command, column 6: unknown placeholder '{layout}' "
				  "(known: {layout_dir}, {build_dir}, {elf}, {name}; write {{ "
				  "and }} for braces)"},
		{"sh -c 'echo ${HOME}'", "build command, column 14: unknown placeholder '{HOME}'"},
		{"make {elf", "build command, column 6: unknown placeholder '{elf'"},
		{"make 'abc", "build command, column 6: the single quote opened there is not "
			      "closed"},
		{"make \"a'b", "build command, column 6: the double quote opened there is not "
			       "closed"},
		{"make x\\", "build command, column 7: a backslash ends the command"},
		{"   ", "the build command is empty"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		xb_builder_config cfg = {.command = cases[i].tmpl};
		xb_err err;
		assert_int_equal(builder_command.check(&cfg, &err), -1);
		if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
			fail_msg("'%s': got '%s'", cases[i].tmpl, err.msg);
	}
	xb_builder_config none = {0};
	xb_err err;
	assert_int_equal(builder_command.check(&none, &err), -1);
}

/* ---- the make builder's command ---- */

static void test_make_command(void **state)
{
	(void)state;
	const char *args[] = {"LTO=1", "XIP_CACHE=off", NULL};
	xb_builder_config cfg = {.dir = "firmware", .args = args};
	xb_build_request rq = {.layout_dir = test_dir, .build_dir = "/tmp/fwb", .name = "lto-colour"};
	xb_build_cmd cmd;
	xb_err err;
	assert_int_equal(builder_make.check(&cfg, &err), 0);
	assert_int_equal(builder_make.prepare(&cfg, &rq, &cmd, &err), 0);
	char *ld = xasprintf("LAYOUT=%s", test_dir);
	const char *want[] = {"make", "-C", "firmware", "--no-print-directory", "BUILD_DIR=/tmp/fwb",
			      ld, "ELF_OUT=/tmp/fwb/layouts/lto-colour.elf", "LTO=1",
			      "XIP_CACHE=off", NULL};
	assert_argv(&cmd, want);
	assert_true(cmd.writes_elf);
	assert_string_equal(cmd.elf, "/tmp/fwb/layouts/lto-colour.elf");
	build_cmd_free(&cmd);
	free(ld);

	/* paths make would split or expand, variables the builder owns, a folder without a
	 * Makefile */
	rq.build_dir = "/tmp/a b";
	assert_int_equal(builder_make.prepare(&cfg, &rq, &cmd, &err), -1);
	assert_string_equal(err.msg, "build folder /tmp/a b: make cannot take a path with blanks "
				     "or any of $ # : ; % * ? [ ] \\ ' \" `; choose another");
	rq.build_dir = "/tmp/fwb";
	rq.elf = "/tmp/x$(shell rm -rf /).elf";
	assert_int_equal(builder_make.prepare(&cfg, &rq, &cmd, &err), -1);
	assert_non_null(strstr(err.msg, "ELF /tmp/x$(shell"));
	const char *owned[] = {"LAYOUT=/elsewhere", NULL};
	cfg.args = owned;
	assert_int_equal(builder_make.check(&cfg, &err), -1);
	assert_non_null(strstr(err.msg, "the make builder sets LAYOUT itself"));
	cfg.args = NULL;
	cfg.dir = test_dir;
	assert_int_equal(builder_make.check(&cfg, &err), -1);
	assert_non_null(strstr(err.msg, "no Makefile there"));
	/* the shipped firmware by default */
	cfg.dir = NULL;
	assert_int_equal(builder_make.check(&cfg, &err), 0);
}

/* ---- build jobs ---- */

typedef struct seen {
	size_t lines, errors;
	char last[256];
} seen;

static void on_line(void *ctx, const char *line, size_t len, int error)
{
	seen *s = ctx;
	assert_int_equal(strlen(line), len);
	s->lines++;
	s->errors += error;
	snprintf(s->last, sizeof s->last, "%s", line);
}

/* Pumps the job to its end from a poll loop; cancel_at_line: cancel once that many lines
 * came (0: never). */
static void run_job(xb_build_job *j, seen *s, size_t cancel_at_line)
{
	uint64_t t0 = now_ms();
	int cancelled = 0;
	while (build_pump(j)) {
		if (cancel_at_line && !cancelled && s->lines >= cancel_at_line) {
			build_cancel(j);
			cancelled = 1;
		}
		struct pollfd f = {.fd = build_pollfd(j), .events = POLLIN};
		int to = build_timeout_ms(j);
		poll(&f, f.fd >= 0, to < 0 || to > 200 ? 200 : to);
		if (now_ms() - t0 > BOUND_MS)
			fail_msg("the build did not end within %d ms", BOUND_MS);
	}
	assert_int_equal(build_pollfd(j), -1);
	assert_int_equal(build_pump(j), 0);
}

static xb_build_job *start(const xb_builder *b, const xb_build_request *rq, seen *s)
{
	memset(s, 0, sizeof *s);
	xb_build_options o = {.line = on_line, .ctx = s};
	xb_err err;
	xb_build_job *j = build_start(b, rq, &o, &err);
	if (!j)
		fail_msg("%s", err.msg);
	assert_int_equal(build_state(j), XB_BUILD_RUNNING);
	return j;
}

/* A build script of this test's own: ninja-style progress, then what $1 says. */
static const char script[] =
	"#!/bin/sh\n"
	"echo \"[1/4] Building C object net.c.obj\"\n"
	"echo \"[2/4] Building C object usb.c.obj\"\n"
	"case \"$1\" in\n"
	"fail)\n"
	"  echo \"net.c:3:1: error: expected ';'\" >&2\n"
	"  echo \"[3/4] Linking\"\n"
	"  echo \"ninja: build stopped: subcommand failed.\"\n"
	"  exit 1 ;;\n"
	"ok)\n"
	"  echo \"[4/4] Linking $XB_NAME\"\n"
	"  printf 'ELF' >\"$2\"; printf 'map' >\"${2%.elf}.map\" ;;\n"
	"nothing)\n"
	"  echo \"[4/4] Linking (elsewhere)\" ;;\n"
	"hang)\n"
	"  exec sleep 600 ;;\n"
	"esac\n";

static void test_command_jobs(void **state)
{
	(void)state;
	char *sh = xasprintf("%s/build.sh", test_dir);
	write_text(sh, script, 1);
	/* a layout folder with a quote and blanks in its path, passed whole */
	char *ld = xasprintf("%s/lay 'out'", test_dir);
	mkdir(ld, 0755);
	char *bd = xasprintf("%s/build dir", test_dir);
	char *tmpl = xasprintf("%s fail {elf} {layout_dir}", sh);
	xb_builder b = {.ops = &builder_command, .cfg = {.command = tmpl}};
	xb_build_request rq = {.layout_dir = ld, .build_dir = bd, .name = "colour"};
	seen s;

	/* a failure: its error line first, progress as far as it got */
	xb_build_job *j = start(&b, &rq, &s);
	assert_non_null(strstr(build_command_line(j), "fail"));
	assert_non_null(strstr(build_command_line(j), "'"));
	run_job(j, &s, 0);
	const xb_build_result *r = build_result(j);
	assert_int_equal(r->state, XB_BUILD_FAILED);
	assert_true(r->exit.exited);
	assert_int_equal(r->exit.code, 1);
	assert_int_equal(s.lines, 5);
	assert_int_equal(r->output_lines, 5);
	assert_int_equal(s.errors, 1);
	assert_int_equal(r->nlines, 1);
	assert_string_equal(r->lines[0], "net.c:3:1: error: expected ';'");
	assert_string_equal(r->message,
			    "the build failed (build.sh exited with status 1): net.c:3:1: error: "
			    "expected ';'");
	assert_true(build_progress(j) == 0.75);
	build_free(j);

	/* a success: the ELF at {elf}, its map beside it; an old one is removed first */
	free(tmpl);
	tmpl = xasprintf("%s ok {elf}", sh);
	b.cfg.command = tmpl;
	char *elf = xasprintf("%s/out/colour.elf", bd);
	rq.elf = elf;
	j = start(&b, &rq, &s);
	run_job(j, &s, 0);
	r = build_result(j);
	assert_int_equal(r->state, XB_BUILD_OK);
	assert_string_equal(r->elf, elf);
	char *map = xasprintf("%s/out/colour.map", bd);
	assert_non_null(r->map);
	assert_string_equal(r->map, map);
	assert_true(build_progress(j) == 1.0);
	assert_string_equal(s.last, "[4/4] Linking colour");
	assert_non_null(strstr(r->message, "built "));
	build_free(j);

	/* it succeeds but writes nothing at the ELF it names: an old file there is no proof */
	free(tmpl);
	tmpl = xasprintf("%s nothing", sh);
	b.cfg.command = tmpl;
	struct stat st;
	assert_int_equal(stat(elf, &st), 0); /* the last build's, from an hour ago */
	struct timespec old[2] = {{.tv_sec = time(NULL) - 3600}, {.tv_sec = time(NULL) - 3600}};
	assert_int_equal(utimensat(AT_FDCWD, elf, old, 0), 0);
	j = start(&b, &rq, &s);
	run_job(j, &s, 0);
	r = build_result(j);
	assert_int_equal(r->state, XB_BUILD_FAILED);
	assert_non_null(strstr(r->message, "is older than the build: it was not relinked"));
	assert_int_equal(r->nlines, 3); /* no error line: the last lines */
	assert_string_equal(r->lines[2], "[4/4] Linking (elsewhere)");
	build_free(j);
	rq.elf = NULL; /* the default, which nothing writes */
	j = start(&b, &rq, &s);
	run_job(j, &s, 0);
	assert_non_null(strstr(build_result(j)->message, "wrote no "));
	assert_non_null(strstr(build_result(j)->message, "/layouts/colour.elf"));
	build_free(j);

	/* a cancel: SIGTERM ends it */
	free(tmpl);
	tmpl = xasprintf("%s hang", sh);
	b.cfg.command = tmpl;
	j = start(&b, &rq, &s);
	run_job(j, &s, 2);
	r = build_result(j);
	assert_int_equal(r->state, XB_BUILD_CANCELLED);
	assert_true(r->exit.cancelled);
	assert_non_null(strstr(r->message, "the build was cancelled"));
	build_free(j);

	/* a job freed while it runs kills its command */
	j = start(&b, &rq, &s);
	build_free(j);

	/* a program that does not exist */
	b.cfg.command = "nosuch-xipbench-build {elf}";
	xb_err err;
	assert_null(build_start(&b, &rq, NULL, &err));
	assert_string_equal(err.msg, "cannot run 'nosuch-xipbench-build': No such file or "
				     "directory");
	free(map);
	free(elf);
	free(tmpl);
	free(bd);
	free(ld);
	free(sh);
}

/* ---- the make builder on the demo echo firmware ---- */

static char *fw_build_dir(void)
{
	const char *elf = tp_firmware_elf();
	if (!elf)
		return NULL;
	char *abs = realpath(elf, NULL);
	assert_non_null(abs);
	char *dir = xstrndup(abs, strlen(abs) - strlen("/echo.elf"));
	free(abs);
	return dir;
}

/* A layout folder for the demo firmware written through the core API: four functions of
 * the IP stack in the hot block, two in SRAM. */
static const char *write_layout(const char *dir, const char *stock, char *sram_name, size_t cap)
{
	xb_target tg;
	tp_target(&tg);
	xb_image img;
	xb_err err;
	xb_image_open io = {.elf = stock, .need_map = 1};
	if (image_open(&img, &io, &tg, &err) != 0)
		fail_msg("%s", err.msg);
	xb_calls calls;
	calls_init(&calls);
	if (calls_load_elf(&calls, stock, &err) != 0)
		fail_msg("%s", err.msg);
	xb_layout l;
	layout_init(&l);
	strcpy(l.strategy, "sram");
	int picked = 0;
	for (size_t i = 0; i < img.nfuncs && picked < 6; i++) {
		const xb_function *f = &img.funcs[i];
		if (f->alias_of >= 0 || f->input < 0 || f->size < 8 ||
		    strcmp(img.libraries[f->library].name, "net") != 0)
			continue;
		layout_add(&l, (int)i, picked < 4 ? XB_PLACE_HOT : XB_PLACE_SRAM, 0);
		if (picked == 4)
			snprintf(sram_name, cap, "%s", f->name);
		picked++;
	}
	assert_int_equal(picked, 6);
	xb_plan_input in = {.img = &img, .tg = &tg, .calls = &calls};
	if (plan_write_layout_dir(&in, &l, dir, &err) != 0)
		fail_msg("%s", err.msg);
	layout_free(&l);
	calls_free(&calls);
	image_free(&img);
	return dir;
}

static void test_make_jobs(void **state)
{
	(void)state;
	char *fwb = fw_build_dir();
	if (!fwb)
		skip();
	char sram_name[128];
	char *good = xasprintf("%s/good", test_dir);
	write_layout(good, tp_firmware_elf(), sram_name, sizeof sram_name);
	xb_builder b = {.ops = &builder_make};
	char *elf = xasprintf("%s/relinks/good.elf", test_dir);
	xb_build_request rq = {.layout_dir = good, .build_dir = fwb, .name = "good", .elf = elf};
	seen s;
	xb_build_job *j = start(&b, &rq, &s);
	assert_non_null(strstr(build_command_line(j), "ELF_OUT="));
	run_job(j, &s, 0);
	const xb_build_result *r = build_result(j);
	if (r->state != XB_BUILD_OK)
		fail_msg("%s", r->message);
	assert_true(r->exit.exited && r->exit.code == 0);
	assert_true(s.lines >= 1); /* make's "  LD ..." at least */
	assert_string_equal(r->elf, elf);
	char *map = xasprintf("%s/relinks/good.map", test_dir);
	assert_string_equal(r->map, map);
	/* the image is the layout's: the SRAM function runs from SRAM */
	xb_target tg;
	tp_target(&tg);
	xb_image built;
	xb_err err;
	xb_image_open io = {.elf = elf};
	assert_int_equal(image_open(&built, &io, &tg, &err), 0);
	long k = image_find_function(&built, sram_name);
	assert_true(k >= 0);
	assert_int_equal(built.funcs[k].region, XB_REGION_SRAM);
	image_free(&built);
	build_free(j);

	/* a layout whose SRAM overflows RAM: ld says so, the message shows it, and the old
	 * image at that path is gone rather than passing for the new one */
	char *bad = xasprintf("%s/bad", test_dir);
	write_layout(bad, tp_firmware_elf(), sram_name, sizeof sram_name);
	char *frag = xasprintf("%s/xipbench_ramfunc.ld", bad), *text;
	size_t len;
	assert_int_equal(xb_read_file(frag, &text, &len, &err), 0);
	char *more = xasprintf("%s. = . + 0x40000;\n", text);
	write_text(frag, more, 0);
	char *bad_elf = xasprintf("%s/relinks/bad.elf", test_dir);
	write_text(bad_elf, "an old image", 0);
	rq = (xb_build_request){.layout_dir = bad, .build_dir = fwb, .name = "bad", .elf = bad_elf};
	j = start(&b, &rq, &s);
	run_job(j, &s, 0);
	r = build_result(j);
	assert_int_equal(r->state, XB_BUILD_FAILED);
	assert_true(r->exit.exited && r->exit.code != 0);
	assert_true(s.errors >= 1);
	int overflow = 0;
	for (size_t i = 0; i < r->nlines; i++)
		overflow |= strstr(r->lines[i], "region `RAM' overflowed") != NULL ||
			    strstr(r->lines[i], "will not fit in region `RAM'") != NULL;
	assert_true(overflow);
	assert_non_null(strstr(r->message, "the build failed (make exited with status "));
	assert_non_null(strstr(r->message, "RAM"));
	assert_int_equal(access(bad_elf, F_OK), -1);
	build_free(j);

	/* a cancel as soon as it starts */
	rq = (xb_build_request){.layout_dir = good, .build_dir = fwb, .name = "good", .elf = elf};
	j = start(&b, &rq, &s);
	build_cancel(j);
	run_job(j, &s, 0);
	assert_int_equal(build_result(j)->state, XB_BUILD_CANCELLED);
	build_free(j);

	free(bad_elf);
	free(more);
	free(text);
	free(frag);
	free(bad);
	free(map);
	free(elf);
	free(good);
	free(fwb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_error_lines),
		cmocka_unit_test(test_request_checks),
		cmocka_unit_test(test_template_words),
		cmocka_unit_test(test_template_errors),
		cmocka_unit_test(test_make_command),
		cmocka_unit_test(test_command_jobs),
		cmocka_unit_test(test_make_jobs),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
