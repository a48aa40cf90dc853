/* test_tui_options: the option table, values and their checks, the command line, config
 * files (errors with file and line), which source wins, :set restrictions and the help
 * texts made from the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/testdir.h"
#include "../../tui/options.h"

static void test_table(void **state)
{
	(void)state;
	static const char *const names[] = {
		"bench", "elf", "map", "zephyr", "pico-sdk", "west-flash", "groups", "trace",
		"probe-socket", "capture", "device-ip", "peer-ip", "dhcp",
		"udp-target", "theme", "colours",
		"mouse", "panel", "view", "window", "subtract", "speed", "ping-rate", "ping-size",
		"udp-rate", "udp-size", "idle-seconds", "fps", "work-dir", "history", "build-command",
		"flash-command", "turbo", "measure-pings", "sram-budget", "pad-budget", "frames", "keys", "dump",
		"dump-every", "headless", "size", "config", "no-config", "list",
	};
	size_t n = sizeof names / sizeof names[0];
	for (size_t i = 0; i < n; i++) {
		assert_non_null(workbench_options[i].name);
		assert_string_equal(workbench_options[i].name, names[i]);
		assert_non_null(workbench_options[i].help);
		assert_true(workbench_options[i].where != 0);
		assert_ptr_equal(options_find(names[i]), &workbench_options[i]);
	}
	assert_null(workbench_options[n].name);
	assert_null(options_find("nope"));
	assert_string_equal(options_find("panel")->choices,
			    "libraries,functions,cachesets,echoes,log,layout,compare,triage,help");
	assert_string_equal(options_find("colours")->choices, "auto,256,16,8,0");
	assert_string_equal(options_find("view")->choices, "auto,single,overview");
	assert_string_equal(options_find("window")->choices, "1s,10s,all");
	assert_int_equal(options_find("dump-every")->type, XB_OPT_FLAG);
	assert_int_equal(options_find("mouse")->type, XB_OPT_BOOL);
	assert_true(options_find("speed")->lo == 0.01 && options_find("speed")->hi == 1000);
	assert_true(options_find("frames")->lo == 1 && options_find("frames")->hi == 1e9);
	assert_true(options_find("udp-size")->lo == 8);
}

static void test_defaults(void **state)
{
	(void)state;
	xb_options o;
	options_init(&o);
	assert_string_equal(options_text(&o, "bench"), "virtual");
	assert_string_equal(options_text(&o, "theme"), "dark");
	assert_string_equal(options_text(&o, "colours"), "auto");
	assert_string_equal(options_text(&o, "panel"), "libraries");
	assert_string_equal(options_text(&o, "view"), "auto");
	assert_string_equal(options_text(&o, "window"), "10s");
	assert_string_equal(options_text(&o, "size"), "200x60");
	assert_true(options_number(&o, "window") == 1); /* the choice's index */
	assert_true(options_flag(&o, "mouse"));
	assert_true(options_flag(&o, "subtract"));
	assert_true(options_number(&o, "speed") == 1);
	assert_true(options_number(&o, "ping-rate") == 50);
	assert_true(options_number(&o, "ping-size") == 56);
	assert_true(options_number(&o, "udp-rate") == 200);
	assert_true(options_number(&o, "udp-size") == 64);
	assert_true(options_number(&o, "idle-seconds") == 2);
	assert_true(options_number(&o, "fps") == 10);
	assert_null(options_text(&o, "frames"));
	assert_null(options_text(&o, "elf"));
	assert_null(options_text(&o, "keys"));
	assert_false(options_flag(&o, "headless"));
	assert_false(options_flag(&o, "dump-every"));
	assert_false(options_flag(&o, "no-config"));
	for (size_t i = 0; i < o.n; i++)
		assert_int_equal(o.v[i].from, 0);
	options_free(&o);
	assert_null(o.v);
}

/* options_set fails with exactly msg and leaves the value as it was. */
static void expect_set_error(xb_options *o, const char *name, const char *value, int from,
			     const char *msg)
{
	const char *before = options_find(name) ? options_text(o, name) : NULL;
	char *keep = before ? strdup(before) : NULL;
	xb_err err = {{0}};
	if (options_set(o, name, value, from, &err) == 0)
		fail_msg("%s = '%s' was taken", name, value ? value : "(null)");
	if (strcmp(err.msg, msg) != 0)
		fail_msg("'%s', wanted '%s'", err.msg, msg);
	if (options_find(name)) {
		const char *after = options_text(o, name);
		assert_true((!keep && !after) || (keep && after && strcmp(keep, after) == 0));
	}
	free(keep);
}

static void set_ok(xb_options *o, const char *name, const char *value, int from)
{
	xb_err err = {{0}};
	if (options_set(o, name, value, from, &err))
		fail_msg("%s = %s: %s", name, value, err.msg);
}

static void test_numbers(void **state)
{
	(void)state;
	xb_options o;
	options_init(&o);
	expect_set_error(&o, "speed", "0", 3, "speed: 0 is below 0.01");
	expect_set_error(&o, "speed", "1000.5", 3, "speed: 1000.5 is above 1000");
	expect_set_error(&o, "speed", "fast", 3, "speed: 'fast' is not a number");
	set_ok(&o, "speed", "0.01", 3);
	assert_true(options_number(&o, "speed") == 0.01);
	set_ok(&o, "speed", "1000", 3);
	set_ok(&o, "speed", "2.5", 3);
	assert_true(options_number(&o, "speed") == 2.5);
	assert_string_equal(options_text(&o, "speed"), "2.5");
	assert_int_equal(o.v[options_find("speed") - workbench_options].from, 3);
	expect_set_error(&o, "ping-size", "56.5", 3, "ping-size: 56.5 is not a whole number");
	expect_set_error(&o, "ping-size", "1473", 3, "ping-size: 1473 is above 1472");
	expect_set_error(&o, "ping-rate", "-1", 3, "ping-rate: -1 is below 0");
	expect_set_error(&o, "udp-size", "7", 3, "udp-size: 7 is below 8");
	expect_set_error(&o, "frames", "1e10", 2, "frames: 1e10 is above 1000000000");
	expect_set_error(&o, "frames", "0", 2, "frames: 0 is below 1");
	set_ok(&o, "frames", "1e9", 2);
	assert_true(options_number(&o, "frames") == 1e9);
	set_ok(&o, "udp-rate", "1e3", 3);
	assert_true(options_number(&o, "udp-rate") == 1000);
	set_ok(&o, "fps", "+30", 3);
	assert_true(options_number(&o, "fps") == 30);
	static const char *const not_numbers[] = {"0x10", "inf", "nan", " 5", "5 ", "", "1e",
						  ".", "-", "1.2.3", "5s", "1,5"};
	for (size_t i = 0; i < sizeof not_numbers / sizeof not_numbers[0]; i++) {
		char want[64];
		snprintf(want, sizeof want, "fps: '%s' is not a number", not_numbers[i]);
		expect_set_error(&o, "fps", not_numbers[i], 3, want);
	}
	expect_set_error(&o, "fps", NULL, 3, "fps needs a value (N)");
	assert_true(options_number(&o, "fps") == 30);
	options_free(&o);
}

static void test_choices_and_bools(void **state)
{
	(void)state;
	xb_options o;
	options_init(&o);
	expect_set_error(&o, "window", "week", 3, "window: 'week' is not one of 1s, 10s, all");
	expect_set_error(&o, "panel", "sets", 3,
			 "panel: 'sets' is not one of libraries, functions, cachesets, echoes, log, "
			 "layout, compare, triage, help");
	expect_set_error(&o, "colours", NULL, 3,
			 "colours needs a value: one of auto, 256, 16, 8, 0");
	set_ok(&o, "window", "ALL", 3);
	assert_string_equal(options_text(&o, "window"), "all");
	assert_true(options_number(&o, "window") == 2);
	set_ok(&o, "colours", "8", 3);
	assert_true(options_number(&o, "colours") == 3);
	set_ok(&o, "panel", "help", 3);
	assert_true(options_number(&o, "panel") == 8);
	expect_set_error(&o, "window", "10", 3, "window: '10' is not one of 1s, 10s, all");
	expect_set_error(&o, "window", "all,", 3, "window: 'all,' is not one of 1s, 10s, all");

	static const struct {
		const char *text;
		int on;
	} bools[] = {{"on", 1}, {"off", 0}, {"yes", 1}, {"no", 0}, {"1", 1},
		     {"0", 0},  {"TRUE", 1}, {"False", 0}, {"Off", 0}};
	for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++) {
		set_ok(&o, "mouse", bools[i].text, 3);
		assert_int_equal(options_flag(&o, "mouse"), bools[i].on);
	}
	expect_set_error(&o, "mouse", "maybe", 3, "mouse: 'maybe' is not on or off");
	expect_set_error(&o, "mouse", NULL, 3, "mouse needs a value: on or off");
	expect_set_error(&o, "nope", "1", 3, "unknown option 'nope'");
	expect_set_error(&o, "bad\x01name", "1", 3, "unknown option 'bad?name'");
	expect_set_error(&o, "theme", NULL, 3, "theme needs a value (NAME)");
	/* text is any text */
	set_ok(&o, "theme", "light", 3);
	assert_string_equal(options_text(&o, "theme"), "light");
	set_ok(&o, "theme", "", 3);
	assert_string_equal(options_text(&o, "theme"), "");
	options_free(&o);
}

static void test_set_restrictions(void **state)
{
	(void)state;
	xb_options o;
	options_init(&o);
	expect_set_error(&o, "elf", "x.elf", 3, "elf cannot be changed with :set");
	expect_set_error(&o, "idle-seconds", "3", 3, "idle-seconds cannot be changed with :set");
	expect_set_error(&o, "frames", "3", 3, "frames cannot be changed with :set");
	expect_set_error(&o, "headless", "on", 3, "headless cannot be changed with :set");
	expect_set_error(&o, "config", "x", 3, "config cannot be changed with :set");
	expect_set_error(&o, "frames", "3", 1, "frames cannot be set in a config file");
	expect_set_error(&o, "no-config", "on", 1, "no-config cannot be set in a config file");
	/* what :set may change */
	static const char *const live[] = {"theme", "colours", "mouse", "panel", "view",
					   "window", "subtract", "speed", "ping-rate",
					   "ping-size", "udp-rate", "udp-size", "fps"};
	for (size_t i = 0; i < sizeof live / sizeof live[0]; i++)
		assert_true(options_find(live[i])->where & XB_OPTF_SET);
	set_ok(&o, "ping-rate", "0", 3);
	assert_true(options_number(&o, "ping-rate") == 0);
	/* every option can be given on the command line */
	for (const xb_option_def *d = workbench_options; d->name; d++)
		assert_true(d->where & XB_OPTF_CMDLINE);
	options_free(&o);
}

static int args(xb_options *o, xb_err *err, ...)
{
	char *argv[32];
	int argc = 0;
	argv[argc++] = "workbench";
	va_list ap;
	va_start(ap, err);
	for (char *a; (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	return options_parse_args(o, argc, argv, err);
}

static void expect_args_error(const char *msg, ...)
{
	char *argv[32];
	int argc = 0;
	argv[argc++] = "workbench";
	va_list ap;
	va_start(ap, msg);
	for (char *a; (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	xb_options o;
	options_init(&o);
	xb_err err = {{0}};
	if (options_parse_args(&o, argc, argv, &err) == 0)
		fail_msg("the arguments were taken (wanted '%s')", msg);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("'%s', wanted '%s'", err.msg, msg);
	options_free(&o);
}

static void test_command_line(void **state)
{
	(void)state;
	xb_options o;
	options_init(&o);
	xb_err err = {{0}};
	if (args(&o, &err, "--theme", "light", "--speed=2.5", "--headless", "--frames", "3",
		 "--dump-every", "--mouse=off", "--elf", "fw.elf", "--size=80x24", "--groups=",
		 NULL))
		fail_msg("%s", err.msg);
	assert_string_equal(options_text(&o, "theme"), "light");
	assert_true(options_number(&o, "speed") == 2.5);
	assert_true(options_flag(&o, "headless"));
	assert_true(options_number(&o, "frames") == 3);
	assert_true(options_flag(&o, "dump-every"));
	assert_false(options_flag(&o, "mouse"));
	assert_string_equal(options_text(&o, "elf"), "fw.elf");
	assert_string_equal(options_text(&o, "size"), "80x24");
	assert_string_equal(options_text(&o, "groups"), "");
	assert_int_equal(o.v[options_find("theme") - workbench_options].from, 2);
	assert_int_equal(o.v[options_find("map") - workbench_options].from, 0);
	/* a flag may be given a value with '=' */
	assert_int_equal(args(&o, &err, "--headless=off", NULL), 0);
	assert_false(options_flag(&o, "headless"));
	assert_int_equal(args(&o, &err, NULL), 0);
	options_free(&o);

	expect_args_error("unexpected argument 'x'", "--headless", "x", NULL);
	expect_args_error("unknown option '-x'", "-x", NULL);
	expect_args_error("unknown option '-'", "-", NULL);
	expect_args_error("unknown option '--'", "--", NULL);
	expect_args_error("unknown option '--nope'", "--nope", NULL);
	expect_args_error("unknown option '--nope'", "--nope=3", NULL);
	expect_args_error("--theme needs a value (--theme NAME)", "--theme", NULL);
	expect_args_error("--keys needs a value (--keys FILE)", "--keys", "--headless", NULL);
	expect_args_error("--speed: 0 is below 0.01", "--speed", "0", NULL);
	expect_args_error("--window: 'x' is not one of 1s, 10s, all", "--window=x", NULL);
	expect_args_error("--headless: 'maybe' is not on or off", "--headless=maybe", NULL);
	char longarg[200];
	memset(longarg, 'a', sizeof longarg);
	memcpy(longarg, "--", 2);
	longarg[199] = 0;
	xb_options o2;
	options_init(&o2);
	char *argv[] = {"workbench", longarg};
	assert_int_equal(options_parse_args(&o2, 2, argv, &err), -1);
	assert_true(strncmp(err.msg, "unknown option '--aaa", 21) == 0);
	assert_true(strlen(err.msg) < 120);
	options_free(&o2);
}

static int config(xb_options *o, const char *text, xb_err *err)
{
	return options_parse_config(o, "cfg", text, strlen(text), err);
}

static void expect_config_error(const char *text, size_t len, const char *msg)
{
	xb_options o;
	options_init(&o);
	xb_err err = {{0}};
	if (options_parse_config(&o, "cfg", text, len, &err) == 0)
		fail_msg("'%s' was taken", text);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("'%s', wanted '%s'", err.msg, msg);
	options_free(&o);
}

static void test_config(void **state)
{
	(void)state;
	xb_options o;
	options_init(&o);
	xb_err err = {{0}};
	const char *text = "# my settings\n"
			   "\n"
			   "theme = light\n"
			   "speed=3\r\n"
			   "  window   =   all   # a comment after a blank\n"
			   "\telf = \"my fw.elf\"   # quoted\n"
			   "groups = \"a \\\"quoted\\\" \\\\ path\"\n"
			   "map = a#b\n"
			   "trace = \"\"\n"
			   "bench = probe:E6614C\n"
			   "theme = mono\n";
	if (config(&o, text, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(options_text(&o, "theme"), "mono"); /* the last one */
	assert_true(options_number(&o, "speed") == 3);
	assert_string_equal(options_text(&o, "window"), "all");
	assert_string_equal(options_text(&o, "elf"), "my fw.elf");
	assert_string_equal(options_text(&o, "groups"), "a \"quoted\" \\ path");
	assert_string_equal(options_text(&o, "map"), "a#b");
	assert_string_equal(options_text(&o, "trace"), "");
	assert_string_equal(options_text(&o, "bench"), "probe:E6614C");
	assert_int_equal(o.v[options_find("speed") - workbench_options].from, 1);
	assert_int_equal(config(&o, "", &err), 0);
	assert_int_equal(config(&o, "\n\n# only comments\n", &err), 0);
	options_free(&o);

	const char *t1 = "theme = light\n\nnope = 3\n";
	expect_config_error(t1, strlen(t1), "cfg:3: unknown option 'nope'");
	expect_config_error("theme light\n", 12, "cfg:1: expected 'NAME = VALUE'");
	expect_config_error("# x\n = light\n", 13, "cfg:2: expected 'NAME = VALUE'");
	expect_config_error("theme =\n", 8, "cfg:1: theme needs a value");
	expect_config_error("theme = # nothing\n", 18, "cfg:1: theme needs a value");
	expect_config_error("elf = \"a.elf\n", 13, "cfg:1: a quoted value without its closing '\"'");
	expect_config_error("elf = \"a\" b\n", 12, "cfg:1: text after the quoted value");
	expect_config_error("\nframes = 3\n", 12, "cfg:2: frames cannot be set in a config file");
	expect_config_error("fps = 5\nspeed = 0\n", 18, "cfg:2: speed: 0 is below 0.01");
	expect_config_error("mouse = sometimes", 17, "cfg:1: mouse: 'sometimes' is not on or off");
	expect_config_error("theme = da\x01rk\n", 14, "cfg:1: column 11: control character U+0001");
	expect_config_error("# a\n# b\ntheme = \xc3\n", 18,
			    "cfg:3: column 9: byte 0xC3 is not valid UTF-8");
	expect_config_error("theme = a\0b\n", 12, "cfg:1: column 10: control character U+0000");
	char big[5000];
	memset(big, ' ', sizeof big);
	memcpy(big, "theme = x", 9);
	expect_config_error(big, sizeof big, "cfg:1: line longer than 4096 bytes");
	/* a long, bad name is quoted in a bounded way */
	memset(big, 'n', 300);
	memcpy(big + 300, " = 1", 5);
	options_init(&o);
	assert_int_equal(config(&o, big, &err), -1);
	assert_true(strncmp(err.msg, "cfg:1: unknown option 'nnn", 26) == 0);
	assert_true(strlen(err.msg) < 120);
	options_free(&o);
}

static void test_precedence(void **state)
{
	(void)state;
	xb_options o;
	options_init(&o);
	xb_err err = {{0}};
	assert_int_equal(args(&o, &err, "--theme", "light", "--speed", "2", NULL), 0);
	/* the config file is read after the command line, which still wins */
	assert_int_equal(config(&o, "theme = mono\nfps = 20\n", &err), 0);
	assert_string_equal(options_text(&o, "theme"), "light");
	assert_true(options_number(&o, "fps") == 20);
	/* the config file is still checked */
	assert_int_equal(config(&o, "speed = 0\n", &err), -1);
	assert_string_equal(err.msg, "cfg:1: speed: 0 is below 0.01");
	assert_true(options_number(&o, "speed") == 2);
	/* :set wins over both, and stays */
	set_ok(&o, "theme", "dark", 3);
	set_ok(&o, "fps", "30", 3);
	assert_int_equal(config(&o, "theme = mono\nfps = 5\n", &err), 0);
	assert_int_equal(args(&o, &err, "--theme", "high-contrast", NULL), 0);
	assert_string_equal(options_text(&o, "theme"), "dark");
	assert_true(options_number(&o, "fps") == 30);
	/* a default (from 0) never replaces anything */
	set_ok(&o, "fps", "12", 0);
	assert_true(options_number(&o, "fps") == 30);
	options_free(&o);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_load_config(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof path, "%s/config", test_dir);
	xb_options o;
	options_init(&o);
	xb_err err = {{0}};
	/* missing: fine when optional */
	assert_int_equal(options_load_config(&o, path, 1, &err), 0);
	assert_int_equal(options_load_config(&o, path, 0, &err), -1);
	assert_true(strstr(err.msg, path) != NULL);
	write_file(path, "theme = light\nudp-rate = 50\n");
	assert_int_equal(options_load_config(&o, path, 0, &err), 0);
	assert_string_equal(options_text(&o, "theme"), "light");
	assert_true(options_number(&o, "udp-rate") == 50);
	write_file(path, "# ok\nudp-rate = lots\n");
	assert_int_equal(options_load_config(&o, path, 1, &err), -1);
	char want[256];
	snprintf(want, sizeof want, "%s:2: udp-rate: 'lots' is not a number", path);
	assert_string_equal(err.msg, want);
	options_free(&o);
}

static void test_config_path(void **state)
{
	(void)state;
	char *xdg = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("XDG_CONFIG_HOME", "/x/conf", 1);
	setenv("HOME", "/home/u", 1);
	char *p = options_config_path();
	assert_string_equal(p, "/x/conf/xipbench/config");
	free(p);
	setenv("XDG_CONFIG_HOME", "relative", 1); /* not absolute: ignored, as XDG says */
	p = options_config_path();
	assert_string_equal(p, "/home/u/.config/xipbench/config");
	free(p);
	unsetenv("XDG_CONFIG_HOME");
	p = options_config_path();
	assert_string_equal(p, "/home/u/.config/xipbench/config");
	free(p);
	unsetenv("HOME");
	assert_null(options_config_path());
	if (xdg)
		setenv("XDG_CONFIG_HOME", xdg, 1);
	if (home)
		setenv("HOME", home, 1);
	free(xdg);
	free(home);
}

static char *capture(void (*print)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	print(f);
	fclose(f);
	return buf;
}

/* s with every run of blanks and newlines as one blank (wrapped lines joined). */
static char *joined(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *w = out;
	for (; *s; s++) {
		if (*s == ' ' || *s == '\n') {
			if (w > out && w[-1] != ' ')
				*w++ = ' ';
			continue;
		}
		*w++ = *s;
	}
	*w = 0;
	return out;
}

static void test_help(void **state)
{
	(void)state;
	char *help = capture(options_print_help), *flat = joined(help);
	for (const xb_option_def *d = workbench_options; d->name; d++) {
		char want[96];
		snprintf(want, sizeof want, "\n  --%s%s%s ", d->name, d->arg ? " " : "",
			 d->arg ? d->arg : "");
		if (!strstr(help, want + (d == workbench_options)))
			fail_msg("--help lacks '%s'", want + 1);
		char *text = joined(d->help);
		if (!strstr(flat, text))
			fail_msg("--help lacks '%s'", text);
		free(text);
	}
	assert_non_null(strstr(flat, "the colour theme (default dark)"));
	assert_non_null(strstr(flat, "(0.01..1000; default 1)"));
	assert_non_null(strstr(flat, "(1..1000000000)"));
	assert_non_null(strstr(flat, "(1s, 10s, all; default 10s)"));
	assert_non_null(strstr(flat, "(libraries, functions, cachesets, echoes, log, layout, "
				     "compare, triage, help; default libraries)"));
	assert_null(strstr(flat, "dump-every (default"));
	free(flat);
	for (char *line = help; *line;) {
		size_t n = strcspn(line, "\n");
		if (n > 80)
			fail_msg("a --help line of %zu columns: %.*s", n, (int)n, line);
		line += n + (line[n] == '\n');
	}
	free(help);

	/* the config template names every config option; uncommented, it parses */
	char *cfg = capture(options_print_config);
	xb_strbuf active = {0};
	for (const xb_option_def *d = workbench_options; d->name; d++) {
		char want[96];
		snprintf(want, sizeof want, "\n#%s = ", d->name);
		assert_int_equal(strstr(cfg, want) != NULL, (d->where & XB_OPTF_CONFIG) != 0);
	}
	for (char *line = cfg; *line;) {
		size_t n = strcspn(line, "\n");
		if (n > 80)
			fail_msg("a config line of %zu columns: %.*s", n, (int)n, line);
		if (line[0] == '#' && line[1] != ' ' && n > 1) {
			sb_append(&active, line + 1, n - 1);
			sb_puts(&active, "\n");
		}
		line += n + (line[n] == '\n');
	}
	xb_options o;
	options_init(&o);
	xb_err err = {{0}};
	if (options_parse_config(&o, "template", active.buf, active.len, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(options_text(&o, "theme"), "dark");
	assert_int_equal(o.v[options_find("theme") - workbench_options].from, 1);
	options_free(&o);
	sb_free(&active);
	free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_choices_and_bools),
		cmocka_unit_test(test_set_restrictions),
		cmocka_unit_test(test_command_line),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_load_config),
		cmocka_unit_test(test_config_path),
		cmocka_unit_test(test_help),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
