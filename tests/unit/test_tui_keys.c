/* test_tui_keys: key names and their parsing (round trips, aliases, bad input) and key
 * scripts (comments, commands, key lines, errors with their line, the check callback). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/testdir.h"
#include "../../tui/keys.h"

static const char *name_of(int key)
{
	static char buf[32];
	return key_name(key, buf, sizeof buf);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(name_of('q'), "q");
	assert_string_equal(name_of('?'), "?");
	assert_string_equal(name_of('>'), ">");
	assert_string_equal(name_of(' '), "<Space>");
	assert_string_equal(name_of('<'), "<lt>");
	assert_string_equal(name_of(XB_KEY_TAB), "<Tab>");
	assert_string_equal(name_of(XB_KEY_ENTER), "<Enter>");
	assert_string_equal(name_of('\n'), "<Enter>"); /* Ctrl-J */
	assert_string_equal(name_of(XB_KEY_ESC), "<Esc>");
	assert_string_equal(name_of(XB_KEY_BACKSPACE), "<BS>");
	assert_string_equal(name_of(XB_KEY_UP), "<Up>");
	assert_string_equal(name_of(XB_KEY_PAGE_DOWN), "<PageDown>");
	assert_string_equal(name_of(XB_KEY_DELETE), "<Del>");
	assert_string_equal(name_of(XB_KEY_BACKTAB), "<S-Tab>");
	assert_string_equal(name_of(XB_KEY_F1), "<F1>");
	assert_string_equal(name_of(XB_KEY_F12), "<F12>");
	assert_string_equal(name_of(1), "<C-a>");
	assert_string_equal(name_of(12), "<C-l>");
	assert_string_equal(name_of(26), "<C-z>");
	assert_string_equal(name_of(28), "<C-\\>");
	assert_string_equal(name_of(31), "<C-_>");
	assert_string_equal(name_of(0xE9), "\xc3\xa9");
	assert_string_equal(name_of(0x2500), "\xe2\x94\x80");
	assert_string_equal(name_of(0x1F600), "\xf0\x9f\x98\x80");
	assert_string_equal(name_of(XB_KEY_RESIZE), "<Resize>");
	assert_string_equal(name_of(XB_KEY_MOUSE), "<Mouse>");
	assert_string_equal(name_of(XB_KEY_NONE), "<0x0>");
	assert_string_equal(name_of(0xD800), "<0xD800>");
	assert_string_equal(name_of(0x85), "<0x85>");
	assert_string_equal(name_of(-1), "<0xFFFFFFFF>");
	char last[32];
	snprintf(last, sizeof last, "<0x%X>", (unsigned)XB_KEY_LAST);
	assert_string_equal(name_of(XB_KEY_LAST), last);
	char small[4];
	assert_string_equal(key_name(XB_KEY_ENTER, small, sizeof small), "<En");
}

/* Every key that has a name parses back to itself, using the whole name. */
static void test_round_trip(void **state)
{
	(void)state;
	int checked = 0;
	for (int k = 1; k < XB_KEY_LAST; k++) {
		if (k == 0x3000)
			k = 0xFF00; /* skip most of the BMP, keep its end and the special keys */
		if (k == 0x10000)
			k = 0x10FFF0;
		const char *n = name_of(k);
		int key = -1;
		size_t len = 0;
		if (strncmp(n, "<0x", 3) == 0) {
			assert_false(key_is_char(k) && k != 0);
			assert_int_equal(key_parse(n, &key, &len), -1);
			continue;
		}
		if (key_parse(n, &key, &len) != 0)
			fail_msg("key 0x%X: its name '%s' does not parse", (unsigned)k, n);
		assert_int_equal(len, strlen(n));
		assert_int_equal(key, k == '\n' ? XB_KEY_ENTER : k);
		checked++;
	}
	assert_true(checked > 12000);
}

static int parse_one(const char *s, size_t *len)
{
	int key = -1;
	size_t n = 0;
	if (key_parse(s, &key, &n) != 0)
		return -1;
	if (len)
		*len = n;
	return key;
}

static void test_parse(void **state)
{
	(void)state;
	/* case does not matter inside <> */
	assert_int_equal(parse_one("<tab>", NULL), XB_KEY_TAB);
	assert_int_equal(parse_one("<TAB>", NULL), XB_KEY_TAB);
	assert_int_equal(parse_one("<LT>", NULL), '<');
	assert_int_equal(parse_one("<space>", NULL), ' ');
	assert_int_equal(parse_one("<f10>", NULL), XB_KEY_F1 + 9);
	assert_int_equal(parse_one("<s-TAB>", NULL), XB_KEY_BACKTAB);
	assert_int_equal(parse_one("<c-L>", NULL), 12);
	assert_int_equal(parse_one("<C-A>", NULL), 1);
	assert_int_equal(parse_one("<pageup>", NULL), XB_KEY_PAGE_UP);
	/* control keys that are other keys */
	assert_int_equal(parse_one("<C-i>", NULL), XB_KEY_TAB);
	assert_int_equal(parse_one("<C-j>", NULL), XB_KEY_ENTER);
	assert_int_equal(parse_one("<C-m>", NULL), XB_KEY_ENTER);
	assert_int_equal(parse_one("<C-[>", NULL), XB_KEY_ESC);
	assert_int_equal(parse_one("<C-h>", NULL), 8);
	/* aliases */
	assert_int_equal(parse_one("<CR>", NULL), XB_KEY_ENTER);
	assert_int_equal(parse_one("<Return>", NULL), XB_KEY_ENTER);
	assert_int_equal(parse_one("<Escape>", NULL), XB_KEY_ESC);
	assert_int_equal(parse_one("<Backspace>", NULL), XB_KEY_BACKSPACE);
	assert_int_equal(parse_one("<Delete>", NULL), XB_KEY_DELETE);
	assert_int_equal(parse_one("<PgDn>", NULL), XB_KEY_PAGE_DOWN);
	assert_int_equal(parse_one("<gt>", NULL), '>');
	assert_int_equal(parse_one("<Colon>", NULL), ':');
	assert_int_equal(parse_one("<Hash>", NULL), '#');
	/* only the first key is taken */
	size_t len = 0;
	assert_int_equal(parse_one("<Up>x", &len), XB_KEY_UP);
	assert_int_equal(len, 4);
	assert_int_equal(parse_one("\xc3\xa9" "a", &len), 0xE9);
	assert_int_equal(len, 2);
	assert_int_equal(parse_one("<", &len), -1);
	assert_int_equal(parse_one("> ", &len), '>');
	assert_int_equal(len, 1);
	/* not keys */
	static const char *const bad[] = {
		"", "<", "<Tab", "<>", "<Foo>", "<F0>", "<F13>", "<F01>", "<C-@>", "<C-1>", "<C->",
		"<Ctrl-a>", "<Tab >", "\x01", "\x7f", "\t", "\xc3", "\xc0\xaf", "\xed\xa0\x80",
		"\xc2\x85", "\xf4\x90\x80\x80", "\xff", "<None>", "<averyveryveryverylongname>",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (parse_one(bad[i], NULL) != -1)
			fail_msg("'%s' parsed as a key", bad[i]);
}

static void test_utf8(void **state)
{
	(void)state;
	int c = 0;
	assert_int_equal(key_utf8("a", 1, &c), 1);
	assert_int_equal(c, 'a');
	assert_int_equal(key_utf8("\xe2\x94\x80", 3, &c), 3);
	assert_int_equal(c, 0x2500);
	assert_int_equal(key_utf8("\xe2\x94\x80", 2, &c), -1); /* cut short */
	assert_int_equal(key_utf8("\x80", 1, &c), -1);
	assert_int_equal(key_utf8("\xe0\x80\xaf", 3, &c), -1); /* overlong */
	assert_int_equal(key_utf8("", 0, &c), -1);
	assert_true(key_is_char(' '));
	assert_true(key_is_char(0x10FFFF));
	assert_false(key_is_char(0x110000));
	assert_false(key_is_char(0x7F));
	assert_false(key_is_char(0x9F));
	assert_false(key_is_char(0xDFFF));
	assert_false(key_is_char(XB_KEY_UP));
}

/* ---- Scripts ---- */

typedef struct check_log {
	int calls;
	char last[64];
} check_log;

/* Accepts "quit" and "set ..."; "bad" fails without a reason. */
static int check_cmd(void *ctx, const char *command, char *why, size_t cap)
{
	check_log *log = ctx;
	log->calls++;
	snprintf(log->last, sizeof log->last, "%s", command);
	if (strcmp(command, "quit") == 0 || strncmp(command, "set ", 4) == 0)
		return 0;
	if (strcmp(command, "bad") == 0)
		return -1;
	snprintf(why, cap, "unknown command '%s'", command);
	return -1;
}

static int parse(xb_script *s, const char *text, xb_err *err)
{
	check_log log = {0};
	return script_parse(s, "t.keys", text, strlen(text), check_cmd, &log, err);
}

static void test_script(void **state)
{
	(void)state;
	const char *text = "# a comment\n"
			   "\n"
			   "jj<Enter>\n"
			   "   # an indented comment\n"
			   ":set theme light   \n"
			   "\t: quit\r\n"
			   "  a <Space>\t<C-l> <lt>\xc3\xa9#:\n"
			   "<Up><up>";
	xb_script s;
	check_log log = {0};
	xb_err err = {{0}};
	if (script_parse(&s, "t.keys", text, strlen(text), check_cmd, &log, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(s.name, "t.keys");
	assert_int_equal(log.calls, 2);
	static const struct {
		int key;
		const char *cmd;
		unsigned line;
	} want[] = {
		{'j', NULL, 3}, {'j', NULL, 3}, {XB_KEY_ENTER, NULL, 3},
		{XB_KEY_NONE, "set theme light", 5}, {XB_KEY_NONE, "quit", 6},
		{'a', NULL, 7}, {' ', NULL, 7}, {12, NULL, 7}, {'<', NULL, 7}, {0xE9, NULL, 7},
		{'#', NULL, 7}, {':', NULL, 7}, {XB_KEY_UP, NULL, 8}, {XB_KEY_UP, NULL, 8},
	};
	assert_int_equal(s.n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < s.n; i++) {
		assert_int_equal(s.items[i].key, want[i].key);
		assert_int_equal(s.items[i].line, want[i].line);
		if (want[i].cmd)
			assert_string_equal(s.items[i].command, want[i].cmd);
		else
			assert_null(s.items[i].command);
	}
	script_free(&s);
	assert_int_equal(s.n, 0);
	assert_null(s.items);

	/* no check: any command is kept; an empty script is no error */
	assert_int_equal(script_parse(&s, "x", ":anything at all", 16, NULL, NULL, &err), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.items[0].command, "anything at all");
	script_free(&s);
	assert_int_equal(script_parse(&s, "x", "", 0, NULL, NULL, &err), 0);
	assert_int_equal(s.n, 0);
	script_free(&s);
}

/* A failing parse leaves nothing and names the file, the line and the culprit. */
static void expect_error(const char *text, size_t len, const char *msg)
{
	xb_script s;
	xb_err err = {{0}};
	check_log log = {0};
	if (script_parse(&s, "t.keys", text, len, check_cmd, &log, &err) == 0)
		fail_msg("'%s' parsed", text);
	if (!strstr(err.msg, msg))
		fail_msg("message '%s' lacks '%s'", err.msg, msg);
	assert_int_equal(s.n, 0);
	assert_null(s.items);
	assert_null(s.name);
}

static void test_script_errors(void **state)
{
	(void)state;
	const char *t1 = "a\n# fine\nb <Foo> c\n";
	expect_error(t1, strlen(t1), "t.keys:3: unknown key '<Foo>'");
	const char *t2 = "a\n<Tab\n";
	expect_error(t2, strlen(t2), "t.keys:2: '<' without '>' (write the key '<' as <lt>)");
	const char *t3 = "a<b";
	expect_error(t3, strlen(t3), "t.keys:1: '<' without '>'");
	expect_error(":quit\n  :  \n", 12, "t.keys:2: ':' without a command");
	expect_error("\n\n<Resize>", 10, "t.keys:3: <Resize> is an event, not a key a script");
	expect_error("<Mouse>", 7, "t.keys:1: <Mouse> is an event");
	expect_error("<None>", 6, "unknown key '<None>'");
	/* a long unknown name is quoted in a bounded way */
	char longname[300];
	memset(longname, 'x', sizeof longname);
	longname[0] = '<';
	longname[298] = '>';
	longname[299] = 0;
	xb_script s;
	xb_err err = {{0}};
	assert_int_equal(parse(&s, longname, &err), -1);
	assert_true(strstr(err.msg, "t.keys:1: unknown key '<xxx") != NULL);
	assert_true(strlen(err.msg) < 200);
}

static void test_script_check(void **state)
{
	(void)state;
	check_log log = {0};
	xb_script s;
	xb_err err = {{0}};
	const char *text = ":quit\nab\n:set x 1\n:frobnicate now\n:quit\n";
	assert_int_equal(script_parse(&s, "t.keys", text, strlen(text), check_cmd, &log, &err), -1);
	assert_string_equal(err.msg, "t.keys:4: unknown command 'frobnicate now'");
	assert_int_equal(log.calls, 3); /* stops at the first bad one */
	assert_string_equal(log.last, "frobnicate now");
	assert_int_equal(s.n, 0);
	/* a check without a reason */
	const char *t2 = "q\n:bad\n";
	assert_int_equal(script_parse(&s, "t.keys", t2, strlen(t2), check_cmd, &log, &err), -1);
	assert_string_equal(err.msg, "t.keys:2: bad command ':bad'");
}

static void test_script_long_lines(void **state)
{
	(void)state;
	char text[2100];
	memset(text, 'a', 1024);
	text[1024] = '\r';
	text[1025] = '\n';
	memset(text + 1026, 'b', 1025);
	xb_script s;
	xb_err err = {{0}};
	/* 1024 bytes (a CR does not count) are fine */
	assert_int_equal(script_parse(&s, "t.keys", text, 1026, NULL, NULL, &err), 0);
	assert_int_equal(s.n, 1024);
	script_free(&s);
	expect_error(text, 1026 + 1025, "t.keys:2: line longer than 1024 bytes");
	/* a long comment is still a long line; a long command too */
	text[0] = '#';
	expect_error(text, 1026 + 1025, "t.keys:2:");
	text[1026] = ':';
	text[1026 + 1024] = '\n';
	check_log log = {0};
	assert_int_equal(script_parse(&s, "t.keys", text, 1026 + 1025, check_cmd, &log, &err), -1);
	assert_true(strstr(err.msg, "t.keys:2: unknown command 'bbb") != NULL);
}

static void test_script_bad_bytes(void **state)
{
	(void)state;
	expect_error("ab\x01", 3, "t.keys:1: column 3: control byte 0x01");
	expect_error("ok\n\xc3\xa9\xff", 6, "t.keys:2: column 2: byte 0xFF is not valid UTF-8");
	expect_error("a\0b", 3, "t.keys:1: column 2: control byte 0x00");
	expect_error("\xc2\x85", 2, "t.keys:1: column 1: control character U+0085");
	expect_error("# a comment with a bad byte \x7f\n", 30, "t.keys:1: column 29: control");
	expect_error("a\rb", 3, "t.keys:1: column 2: control byte 0x0D");
	expect_error("\xe2\x94", 2, "t.keys:1: column 1: byte 0xE2 is not valid UTF-8");
	/* tabs are blanks */
	xb_script s;
	xb_err err = {{0}};
	assert_int_equal(script_parse(&s, "t.keys", "\ta\tb\t", 5, NULL, NULL, &err), 0);
	assert_int_equal(s.n, 2);
	script_free(&s);
}

static void test_script_load(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof path, "%s/demo.keys", test_dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("# demo\n:quit\nx<F5>\n", f);
	fclose(f);
	xb_script s;
	xb_err err = {{0}};
	check_log log = {0};
	if (script_load(&s, path, check_cmd, &log, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(s.name, path);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.items[2].key, XB_KEY_F1 + 4);
	script_free(&s);

	f = fopen(path, "w");
	assert_non_null(f);
	fputs("x\n\n<F99>\n", f);
	fclose(f);
	assert_int_equal(script_load(&s, path, check_cmd, &log, &err), -1);
	char want[200];
	snprintf(want, sizeof want, "%s:3: unknown key '<F99>'", path);
	assert_true(strstr(err.msg, want) != NULL);

	snprintf(path, sizeof path, "%s/missing.keys", test_dir);
	assert_int_equal(script_load(&s, path, NULL, NULL, &err), -1);
	assert_true(strstr(err.msg, path) != NULL);
	assert_int_equal(s.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_script_errors),
		cmocka_unit_test(test_script_check),
		cmocka_unit_test(test_script_long_lines),
		cmocka_unit_test(test_script_bad_bytes),
		cmocka_unit_test(test_script_load),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
