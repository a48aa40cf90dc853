/* test_profile: sample files (both forms, bad input) and their aggregation per function,
 * library and line against a hand-built image. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../common/testdir.h"
#include "../../core/profile.h"

/* fa and its alias share code; "label" is a zero-size symbol inside fb, which must not hide
 * fb; fc is small and alone in its library. */
static xb_function test_funcs[] = {
	{.name = "fa", .addr = 0x10000100, .size = 0x20, .alias_of = -1, .library = 0, .input = -1},
	{.name = "fa_alias", .addr = 0x10000100, .size = 0x20, .alias_of = 0, .library = 0,
	 .input = -1},
	{.name = "fb", .addr = 0x10000120, .size = 0x40, .alias_of = -1, .library = 1, .input = -1},
	{.name = "label", .addr = 0x10000130, .size = 0, .alias_of = -1, .library = 1,
	 .input = -1},
	{.name = "fc", .addr = 0x10000200, .size = 0x10, .alias_of = -1, .library = 2, .input = -1},
};
static xb_library test_libs[] = {
	{.name = "kernel", .group = "kernel"},
	{.name = "subsys/net/ip", .group = "IP stack"},
	{.name = "app", .group = "app"},
};

static xb_image test_image(void)
{
	xb_image img;
	memset(&img, 0, sizeof img);
	img.funcs = test_funcs;
	img.nfuncs = sizeof test_funcs / sizeof test_funcs[0];
	img.libraries = test_libs;
	img.nlibraries = sizeof test_libs / sizeof test_libs[0];
	return img;
}

static void push_n(xb_samples *s, uint32_t pc, uint32_t flags, int n)
{
	for (int i = 0; i < n; i++)
		samples_push(s, pc, flags);
}

static void test_attribution(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_samples s;
	samples_init(&s);
	push_n(&s, 0x10000104, 0, 3);   /* fa */
	push_n(&s, 0x10000134, 0, 2);   /* fb, after the zero-size label */
	push_n(&s, 0x1000020e, 0, 1);   /* fc, last halfword */
	push_n(&s, 0x10000210, 0, 1);   /* just past fc */
	push_n(&s, 0x00000100, 0, 1);   /* boot ROM */
	push_n(&s, 0xFFFFFFFF, 0, 1);   /* debug state */
	xb_profile p;
	profile_build(&p, &img, &s, 8);
	assert_true(p.img == &img);
	assert_int_equal(p.line_size, 8);
	assert_true(p.func[0].busy == 3);
	assert_true(p.func[1].busy == 0);
	assert_true(p.func[2].busy == 2);
	assert_true(p.func[3].busy == 0);
	assert_true(p.func[4].busy == 1);
	assert_true(p.busy_total == 9);
	assert_true(p.unattributed == 3);
	assert_true(p.idle_scale == 1);
	assert_true(p.net_total == 6);
	/* the debug-state marker has no line; every other PC has one */
	assert_int_equal(p.nlines, 5);
	for (size_t i = 0; i < p.nlines; i++)
		assert_int_not_equal(p.lines[i].line, 0xFFFFFFF8);
	profile_free(&p);
	samples_free(&s);
}

static void test_aliases_count_on_first(void **state)
{
	(void)state;
	xb_image img = test_image();
	/* An alias listed first by index order must still route to its alias_of. */
	xb_samples s;
	samples_init(&s);
	push_n(&s, 0x10000100, 0, 4);
	push_n(&s, 0x1000011e, XB_SAMPLE_IDLE, 1);
	xb_profile p;
	profile_build(&p, &img, &s, 8);
	assert_true(p.func[0].busy == 4);
	assert_true(p.func[0].idle == 1);
	assert_true(p.func[0].net == 3);
	assert_true(p.func[1].busy == 0 && p.func[1].idle == 0 && p.func[1].net == 0);
	profile_free(&p);
	samples_free(&s);
}

static void test_idle_subtraction(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_samples s;
	samples_init(&s);
	push_n(&s, 0x10000104, 0, 5);              /* fa busy 5 */
	push_n(&s, 0x10000104, XB_SAMPLE_IDLE, 2); /* fa idle 2 */
	push_n(&s, 0x10000200, 0, 1);              /* fc busy 1 */
	push_n(&s, 0x10000200, XB_SAMPLE_IDLE, 4); /* fc idle 4: an idle loop */
	push_n(&s, 0x00000200, XB_SAMPLE_IDLE, 1); /* idle outside functions */
	xb_profile p;
	profile_build(&p, &img, &s, 8);
	assert_true(p.func[0].busy == 5 && p.func[0].idle == 2 && p.func[0].net == 3);
	assert_true(p.func[4].busy == 1 && p.func[4].idle == 4 && p.func[4].net == 0);
	assert_true(p.busy_total == 6);
	assert_true(p.idle_total == 7);
	assert_true(p.unattributed == 0);
	assert_true(p.net_total == 3);
	assert_true(p.lib_net[0] == 3);
	assert_true(p.lib_net[1] == 0);
	assert_true(p.lib_net[2] == 0);
	profile_free(&p);
	samples_free(&s);
}

static void test_idle_scaling(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_samples s;
	samples_init(&s);
	push_n(&s, 0x10000104, 0, 10);
	push_n(&s, 0x10000104, XB_SAMPLE_IDLE, 2);
	s.busy_seconds = 10;
	s.idle_seconds = 4;
	xb_profile p;
	profile_build(&p, &img, &s, 8);
	assert_true(p.idle_scale == 2.5);
	assert_true(p.func[0].idle == 5);
	assert_true(p.func[0].net == 5);
	assert_true(p.idle_total == 5);
	assert_true(profile_line_net(&p, 0x10000100) == 5);
	profile_free(&p);

	/* one window length unknown: equal windows */
	s.idle_seconds = 0;
	profile_build(&p, &img, &s, 8);
	assert_true(p.idle_scale == 1);
	assert_true(p.func[0].net == 8);
	profile_free(&p);
	samples_free(&s);
}

static void test_lines_per_byte_top2(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_samples s;
	samples_init(&s);
	/* fb (0x10000120..0x1000015f, 64 bytes): lines 0x120: 5, 0x128: 3, 0x140: 1, 0x158: 1 */
	push_n(&s, 0x10000120, 0, 2);
	push_n(&s, 0x10000126, 0, 3);
	push_n(&s, 0x1000012a, 0, 3);
	push_n(&s, 0x10000140, 0, 1);
	push_n(&s, 0x1000015e, 0, 1);
	push_n(&s, 0x10000128, XB_SAMPLE_IDLE, 1);
	/* fa's last line 0x10000118 is shared with nothing; one sample there */
	push_n(&s, 0x1000011c, 0, 1);
	xb_profile p;
	profile_build(&p, &img, &s, 8);
	const xb_func_profile *fb = &p.func[2];
	assert_true(fb->busy == 10);
	assert_true(fb->idle == 1);
	assert_true(fb->net == 9);
	assert_true(fb->per_byte == 9.0 / 64);
	assert_int_equal(fb->lines_sampled, 4);
	assert_true(fb->top2_share == 0.8);
	assert_int_equal(p.func[0].lines_sampled, 1);
	assert_true(p.func[0].top2_share == 1);
	assert_true(p.func[4].top2_share == 0);

	/* lines sorted by address with their own idle subtraction */
	uint32_t want[] = {0x10000118, 0x10000120, 0x10000128, 0x10000140, 0x10000158};
	assert_int_equal(p.nlines, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(p.lines[i].line, want[i]);
	assert_true(p.lines[2].busy == 3 && p.lines[2].idle == 1 && p.lines[2].net == 2);
	assert_true(profile_line_net(&p, 0x10000120) == 5);
	assert_true(profile_line_net(&p, 0x10000128) == 2);
	assert_true(profile_line_net(&p, 0x10000130) == 0);
	assert_true(profile_line_net(&p, 0x10000000) == 0);
	assert_true(profile_line_net(&p, 0x20000000) == 0);
	profile_free(&p);

	/* a larger line merges them */
	profile_build(&p, &img, &s, 64);
	assert_int_equal(p.nlines, 2);
	assert_int_equal(p.lines[0].line, 0x10000100);
	assert_int_equal(p.lines[1].line, 0x10000140);
	assert_int_equal(p.func[2].lines_sampled, 2);
	profile_free(&p);
	samples_free(&s);
}

static void test_empty_inputs(void **state)
{
	(void)state;
	xb_image img = test_image();
	xb_samples s;
	samples_init(&s);
	xb_profile p;
	profile_build(&p, &img, &s, 8);
	assert_int_equal(p.nlines, 0);
	assert_true(p.busy_total == 0 && p.net_total == 0);
	assert_true(profile_line_net(&p, 0x10000100) == 0);
	profile_free(&p);

	xb_image none;
	memset(&none, 0, sizeof none);
	push_n(&s, 0x10000100, 0, 2);
	profile_build(&p, &none, &s, 0);
	assert_int_equal(p.line_size, 1);
	assert_true(p.unattributed == 2);
	profile_free(&p);
	samples_free(&s);
}

/* ---- files ---- */


static void fill_example(xb_samples *s)
{
	samples_init(s);
	samples_push(s, 0x10000100, 0);
	samples_push(s, 0x10000102, XB_SAMPLE_SLEEP);
	samples_push(s, 0x000001a0, XB_SAMPLE_IDLE);
	samples_push(s, 0xFFFFFFFF, XB_SAMPLE_IDLE | XB_SAMPLE_SLEEP);
	samples_push(s, 0x20000004, 0);
	samples_push(s, 0, XB_SAMPLE_IDLE);
	s->busy_seconds = 1.0 / 3;
	s->idle_seconds = 2.75;
}

static void assert_same_samples(const xb_samples *a, const xb_samples *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_int_equal(a->s[i].pc, b->s[i].pc);
		assert_int_equal(a->s[i].flags, b->s[i].flags);
	}
	assert_true(a->busy_seconds == b->busy_seconds);
	assert_true(a->idle_seconds == b->idle_seconds);
}

static void test_round_trip(void **state)
{
	(void)state;
	xb_samples s, back;
	fill_example(&s);
	samples_init(&back);
	xb_err err = {{0}};
	char *bin = xasprintf("%s/s.bin", test_dir), *txt = xasprintf("%s/s.txt", test_dir);

	assert_int_equal(samples_write_binary(&s, bin, &err), 0);
	assert_int_equal(samples_read_file(&back, bin, &err), 0);
	assert_same_samples(&s, &back);

	assert_int_equal(samples_write_text(&s, txt, &err), 0);
	assert_int_equal(samples_read_file(&back, txt, &err), 0);
	assert_same_samples(&s, &back);

	/* binary layout: 40-byte header, then 8 bytes per sample, little endian */
	char *data;
	size_t len;
	assert_int_equal(xb_read_file(bin, &data, &len, &err), 0);
	assert_int_equal(len, 40 + 8 * s.n);
	assert_memory_equal(data, "XIPBSMP1\x01\0\0\0\0\0\0\0", 16);
	assert_memory_equal(data + 40, "\x00\x01\x00\x10\x00\x00\x00\x00", 8);
	free(data);

	/* an empty set with unknown windows */
	xb_samples empty;
	samples_init(&empty);
	assert_int_equal(samples_write_text(&empty, txt, &err), 0);
	assert_int_equal(samples_read_file(&back, txt, &err), 0);
	assert_same_samples(&empty, &back);
	assert_int_equal(samples_write_binary(&empty, bin, &err), 0);
	assert_int_equal(samples_read_file(&back, bin, &err), 0);
	assert_same_samples(&empty, &back);

	free(bin);
	free(txt);
	samples_free(&s);
	samples_free(&back);
}

static int parse_str(xb_samples *s, const char *text, xb_err *err)
{
	return samples_parse(s, (const uint8_t *)text, strlen(text), "samples.txt", err);
}

static void test_text_form(void **state)
{
	(void)state;
	xb_samples s;
	samples_init(&s);
	xb_err err = {{0}};
	const char *text = "# probe run\n"
			   "\n"
			   "busy-seconds 10\r\n"
			   "10000100\n"
			   "  0x10000102   sleep   # wfi\n"
			   "0XABCDEF01\r\n"
			   "idle\n"
			   "idle-seconds 2.5\n"
			   "0x1a0\n"
			   "ffffffff sleep\n"
			   "busy\n"
			   "0x0000000010000104\n"
			   "\t0x20000000";
	assert_int_equal(parse_str(&s, text, &err), 0);
	assert_int_equal(s.n, 7);
	assert_int_equal(s.s[0].pc, 0x10000100);
	assert_int_equal(s.s[0].flags, 0);
	assert_int_equal(s.s[1].flags, XB_SAMPLE_SLEEP);
	assert_int_equal(s.s[2].pc, 0xABCDEF01);
	assert_int_equal(s.s[3].pc, 0x1a0);
	assert_int_equal(s.s[3].flags, XB_SAMPLE_IDLE);
	assert_int_equal(s.s[4].pc, 0xFFFFFFFF);
	assert_int_equal(s.s[4].flags, XB_SAMPLE_IDLE | XB_SAMPLE_SLEEP);
	assert_int_equal(s.s[5].pc, 0x10000104);
	assert_int_equal(s.s[5].flags, 0);
	assert_int_equal(s.s[6].pc, 0x20000000);
	assert_true(s.busy_seconds == 10);
	assert_true(s.idle_seconds == 2.5);

	/* a parse replaces what was there */
	assert_int_equal(parse_str(&s, "0x10\n", &err), 0);
	assert_int_equal(s.n, 1);
	assert_true(s.busy_seconds == 0);
	assert_int_equal(parse_str(&s, "", &err), 0);
	assert_int_equal(s.n, 0);
	samples_free(&s);
}

typedef struct bad_case {
	const char *text;
	size_t len; /* 0: strlen */
	const char *msg;
} bad_case;

static void test_bad_input(void **state)
{
	(void)state;
	static const bad_case cases[] = {
		{"0x100\n0x104\n\nxyz\n", 0, "samples.txt:4: bad hex number 'xyz'"},
		{"0x\n", 0, "samples.txt:1: bad hex number '0x'"},
		{"0x1g\n", 0, "samples.txt:1: bad hex number '0x1g'"},
		{"-5\n", 0, "samples.txt:1: bad hex number '-5'"},
		{"0x100000000\n", 0, "samples.txt:1: number '0x100000000' does not fit in 32 bits"},
		{"0x100 wake\n", 0, "samples.txt:1: unexpected 'wake' after the sample"},
		{"0x100 sleep extra\n", 0, "samples.txt:1: unexpected 'extra' at the end"},
		{"idle now\n", 0, "samples.txt:1: bad hex number 'idle'"},
		{"busy-seconds\n", 0, "samples.txt:1: bad window length ''"},
		{"busy-seconds -1\n", 0, "samples.txt:1: bad window length '-1'"},
		{"idle-seconds nan\n", 0, "samples.txt:1: bad window length 'nan'"},
		{"idle-seconds 1e999\n", 0, "samples.txt:1: bad window length '1e999'"},
		{"busy-seconds 1 2\n", 0, "samples.txt:1: bad window length"},
		{"0x10\n\x01\x02\n", 0, "samples.txt:2: bad hex number '?" "?'"},
		{"0x10\n0x1\0 2\n", 11, "samples.txt:2: NUL byte"},
		{"XIPBSMP1\x01\0\0\0", 12, "samples.txt: truncated sample file header"},
		{"XIPBSMP2\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 40,
		 "not an xipbench sample file of a known format"},
		{"XIPBSMP1\x02\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 40,
		 "samples.txt: sample file version 2 is not supported"},
		{"XIPBSMP1\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0"
		 "\0\x01\0\x10\0\0\0\0",
		 48, "samples.txt: truncated: the header announces 2 samples, the file holds 1"},
		{"XIPBSMP1\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\xff\xff\xff\xff\xff\xff"
		 "\xff\xff",
		 40, "truncated: the header announces 18446744073709551615 samples"},
		{"XIPBSMP1\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0"
		 "\0\x01\0\x10\0\0\0\0\x07",
		 49, "samples.txt: 1 stray bytes after the 1 samples"},
		{"XIPBSMP1\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0"
		 "\0\x01\0\x10\x08\0\0\0",
		 48, "samples.txt: sample 0 has unknown flags 0x8"},
		{"XIPBSMP1\x01\0\0\0\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 40,
		 "samples.txt: unknown header flags 0x1"},
		{"XIPBSMP1\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\xf0\xbf\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 40,
		 "samples.txt: bad window length in the header"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		xb_samples s;
		fill_example(&s);
		xb_samples keep;
		fill_example(&keep);
		xb_err err = {{0}};
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
		int rc = samples_parse(&s, (const uint8_t *)cases[i].text, len, "samples.txt", &err);
		if (rc == 0 || !strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, err.msg,
				 cases[i].msg);
		assert_same_samples(&keep, &s); /* unchanged on failure */
		samples_free(&s);
		samples_free(&keep);
	}
	/* a NULL err is allowed */
	xb_samples s;
	samples_init(&s);
	assert_int_equal(parse_str(&s, "nope", NULL), -1);
	samples_free(&s);
}

static void test_bad_token_is_bounded(void **state)
{
	(void)state;
	char text[2000];
	memset(text, 'z', sizeof text - 1);
	text[sizeof text - 1] = 0;
	xb_samples s;
	samples_init(&s);
	xb_err err = {{0}};
	assert_int_equal(parse_str(&s, text, &err), -1);
	assert_non_null(strstr(err.msg, "samples.txt:1: bad hex number 'zzz"));
	assert_non_null(strstr(err.msg, "...'"));
	assert_true(strlen(err.msg) < 120);
	samples_free(&s);
}

static void test_missing_file(void **state)
{
	(void)state;
	xb_samples s;
	samples_init(&s);
	xb_err err = {{0}};
	char *path = xasprintf("%s/none.bin", test_dir);
	assert_int_equal(samples_read_file(&s, path, &err), -1);
	assert_non_null(strstr(err.msg, path));
	char *bad = xasprintf("%s/bad.txt", test_dir);
	assert_int_equal(xb_write_file_atomic(bad, "0x10\nzz\n", 8, &err), 0);
	assert_int_equal(samples_read_file(&s, bad, &err), -1);
	char *want = xasprintf("%s:2: bad hex number 'zz'", bad);
	assert_string_equal(err.msg, want);
	free(want);
	free(bad);
	free(path);
	samples_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attribution),
		cmocka_unit_test(test_aliases_count_on_first),
		cmocka_unit_test(test_idle_subtraction),
		cmocka_unit_test(test_idle_scaling),
		cmocka_unit_test(test_lines_per_byte_top2),
		cmocka_unit_test(test_empty_inputs),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_text_form),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_bad_token_is_bounded),
		cmocka_unit_test(test_missing_file),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
