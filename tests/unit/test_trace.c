/* test_trace: trace round trips through both file forms, echo boundaries, and bad input. */
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
#include "../../core/trace.h"


static char *temp_path(const char *name)
{
	return xasprintf("%s/%s", test_dir, name);
}

static void assert_traces_equal(const xb_trace *a, const xb_trace *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->necho, b->necho);
	if (a->n)
		assert_memory_equal(a->addr, b->addr, a->n * sizeof *a->addr);
	if (a->necho)
		assert_memory_equal(a->echo, b->echo, a->necho * sizeof *a->echo);
}

/* Awkward on purpose: wrap-around deltas, repeats, echoes at the start, twice at one
 * place and at the end. */
static void make_sample(xb_trace *t)
{
	trace_init(t);
	trace_mark_echo(t);
	static const uint32_t addrs[] = {0x10000100, 0x10000102, 0x10000104, 0x10000104,
					 0x10000100, 0x20000000, 0x00000000, 0xffffffff,
					 0x00000001, 0x80000000, 0x7fffffff, 0x10001000};
	for (size_t i = 0; i < sizeof addrs / sizeof addrs[0]; i++) {
		if (i == 5 || i == 9) {
			trace_mark_echo(t);
			trace_mark_echo(t);
		}
		trace_push(t, addrs[i]);
	}
	trace_mark_echo(t);
}

static void test_binary_round_trip(void **state)
{
	(void)state;
	xb_trace t, u;
	make_sample(&t);
	xb_strbuf sb = {0};
	trace_encode_binary(&t, &sb);
	assert_memory_equal(sb.buf, "XBTRACE\x01", 8);
	xb_err err = {{0}};
	if (trace_parse(&u, (const uint8_t *)sb.buf, sb.len, "mem", &err))
		fail_msg("%s", err.msg);
	assert_traces_equal(&t, &u);
	trace_free(&u);

	char *path = temp_path("sample.xbt");
	assert_int_equal(trace_write_binary(&t, path, &err), 0);
	if (trace_read_file(&u, path, &err))
		fail_msg("%s", err.msg);
	assert_traces_equal(&t, &u);
	trace_free(&u);
	free(path);
	sb_free(&sb);
	trace_free(&t);
}

static void test_binary_is_compact(void **state)
{
	(void)state;
	xb_trace t;
	trace_init(&t);
	for (uint32_t i = 0; i < 10000; i++)
		trace_push(&t, 0x10000100 + 2 * i);
	xb_strbuf sb = {0};
	trace_encode_binary(&t, &sb);
	/* header + first address (5 bytes) + one byte per sequential fetch + end */
	assert_true(sb.len <= 8 + 5 + 9999 + 1);
	sb_free(&sb);
	/* Short jumps and repeats are one byte too. */
	trace_free(&t);
	trace_push(&t, 0x10000000);
	trace_push(&t, 0x10000000);
	trace_push(&t, 0x10000020);
	trace_push(&t, 0x10000000);
	trace_encode_binary(&t, &sb);
	assert_int_equal(sb.len, 8 + 5 + 1 + 1 + 1 + 1);
	sb_free(&sb);
	trace_free(&t);
}

static void test_text_round_trip(void **state)
{
	(void)state;
	xb_trace t, u;
	make_sample(&t);
	char *path = temp_path("sample.txt");
	xb_err err = {{0}};
	assert_int_equal(trace_write_text(&t, path, &err), 0);
	if (trace_read_file(&u, path, &err))
		fail_msg("%s", err.msg);
	assert_traces_equal(&t, &u);
	trace_free(&u);
	xb_strbuf sb = {0};
	trace_encode_text(&t, &sb);
	assert_non_null(strstr(sb.buf, "\n0x10000102\n"));
	assert_non_null(strstr(sb.buf, "\necho\necho\n0x20000000\n"));
	sb_free(&sb);
	free(path);
	trace_free(&t);
}

static void test_text_syntax(void **state)
{
	(void)state;
	const char *text = "# a comment\n"
			   "\n"
			   "10000100\n"
			   "  0x10000102   # trailing comment\r\n"
			   "0X1000010A\n"
			   "echo\n"
			   "\t0000000010000200\n"
			   "   \n"
			   "echo   # second echo\n"
			   "abcdef";
	xb_trace t;
	xb_err err = {{0}};
	if (trace_parse(&t, (const uint8_t *)text, strlen(text), "t.txt", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.n, 5);
	assert_int_equal(t.addr[0], 0x10000100);
	assert_int_equal(t.addr[1], 0x10000102);
	assert_int_equal(t.addr[2], 0x1000010a);
	assert_int_equal(t.addr[3], 0x10000200);
	assert_int_equal(t.addr[4], 0xabcdef);
	assert_int_equal(t.necho, 2);
	assert_int_equal(t.echo[0], 3);
	assert_int_equal(t.echo[1], 4);
	trace_free(&t);
	/* Empty input and comments alone: an empty trace. */
	assert_int_equal(trace_parse(&t, (const uint8_t *)"", 0, "e.txt", &err), 0);
	assert_int_equal(t.n, 0);
	trace_free(&t);
	assert_int_equal(trace_parse(&t, (const uint8_t *)"# x\n\n", 5, "e.txt", &err), 0);
	assert_int_equal(t.n + t.necho, 0);
	trace_free(&t);
}

struct bad_case {
	const char *data;
	size_t len; /* 0: strlen */
	const char *expect;
};

static void test_bad_input(void **state)
{
	(void)state;
	static const struct bad_case cases[] = {
		{"hello world\n", 0, "bad.txt:1: bad hex address 'hello world'"},
		{"10000000\n10000002\n0x1000zz04\n", 0, "bad.txt:3: bad hex address '0x1000zz04'"},
		{"# fine\n\n0x123456789\n", 0, "bad.txt:3: address '0x123456789' does not fit in 32 bits"},
		{"1ffffffff\n", 0, "bad.txt:1: address '1ffffffff' does not fit"},
		{"0x\n", 0, "bad.txt:1: bad hex address '0x'"},
		{"10 20\n", 0, "bad.txt:1: bad hex address '10 20'"},
		{"-10\n", 0, "bad.txt:1: bad hex address"},
		{"echo 3\n", 0, "bad.txt:1: bad hex address 'echo 3'"},
		{"ECHO\n", 0, "bad.txt:1: bad hex address"},
		{"10\n\x01\x02\xff\n", 0, "bad.txt:2: bad hex address '?\?\?'"},
		{"10\n20\0 30\n", 9, "bad.txt:2: bad hex address '20? 30'"},
		/* binary */
		{"XBTRACE", 7, "bad.txt: byte 7: truncated header"},
		{"XBTRACE\x02\x00", 9, "bad.txt: byte 7: unsupported binary trace version 2"},
		{"XBTRACE\x01", 8, "bad.txt: byte 8: no end marker"},
		{"XBTRACE\x01\x02\x02\x01\x02", 12, "bad.txt: byte 12: no end marker (truncated"},
		{"XBTRACE\x01\x02\x82", 10, "bad.txt: byte 9: truncated varint"},
		{"XBTRACE\x01\x82\x80\x80\x80\x80\x01\x00", 15, "bad.txt: byte 8: overlong varint"},
		{"XBTRACE\x01\x82\x80\x00\x00", 12, "bad.txt: byte 8: non-canonical varint"},
		{"XBTRACE\x01\xff\xff\xff\xff\x7f\x00", 14, "bad.txt: byte 8: record value"},
		{"XBTRACE\x01\x02\x00\x02", 11, "bad.txt: byte 10: 1 bytes after the end marker"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		xb_trace t;
		xb_err err = {{0}};
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].data);
		int rc = trace_parse(&t, (const uint8_t *)cases[i].data, len, "bad.txt", &err);
		if (rc != -1)
			fail_msg("case %zu parsed; expected '%s'", i, cases[i].expect);
		if (!strstr(err.msg, cases[i].expect))
			fail_msg("case %zu: got '%s', expected '%s'", i, err.msg, cases[i].expect);
		assert_int_equal(t.n, 0);
		assert_null(t.addr);
		assert_int_equal(t.necho, 0);
	}
	/* Truncating a real file anywhere is caught. */
	xb_trace t, u;
	make_sample(&t);
	xb_strbuf sb = {0};
	trace_encode_binary(&t, &sb);
	for (size_t cut = 7; cut < sb.len; cut++) {
		xb_err err = {{0}};
		assert_int_equal(trace_parse(&u, (const uint8_t *)sb.buf, cut, "cut.xbt", &err), -1);
		assert_non_null(strstr(err.msg, "cut.xbt: byte "));
	}
	sb_free(&sb);
	trace_free(&t);
	/* A missing file names the path. */
	xb_err err = {{0}};
	char *path = temp_path("nothing-here.xbt");
	assert_int_equal(trace_read_file(&t, path, &err), -1);
	assert_non_null(strstr(err.msg, path));
	free(path);
}

static void test_streaming_writer(void **state)
{
	(void)state;
	xb_trace t;
	make_sample(&t);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	xb_trace_stream s;
	assert_int_equal(trace_stream_open(&s, f), 0);
	size_t e = 0;
	for (size_t i = 0; i <= t.n; i++) {
		while (e < t.necho && t.echo[e] == i) {
			trace_stream_mark_echo(&s);
			e++;
		}
		if (i < t.n)
			trace_stream_push(&s, t.addr[i]);
	}
	assert_int_equal(trace_stream_close(&s), 0);
	fclose(f);
	xb_strbuf sb = {0};
	trace_encode_binary(&t, &sb);
	assert_int_equal(len, sb.len);
	assert_memory_equal(buf, sb.buf, len);
	free(buf);
	sb_free(&sb);

	/* A writer that never closed leaves no end marker: the reader says truncated. */
	f = open_memstream(&buf, &len);
	trace_stream_open(&s, f);
	for (uint32_t i = 0; i < 100; i++)
		trace_stream_push(&s, 0x10000000 + i * 2);
	fflush(f);
	xb_trace u;
	xb_err err = {{0}};
	assert_int_equal(trace_parse(&u, (const uint8_t *)buf, len, "open.xbt", &err), -1);
	assert_non_null(strstr(err.msg, "no end marker"));
	fclose(f);
	free(buf);
	trace_free(&t);
}

static void test_echo_ranges(void **state)
{
	(void)state;
	xb_trace t;
	trace_init(&t);
	for (uint32_t i = 0; i < 10; i++)
		trace_push(&t, i);
	size_t b, e;
	assert_int_equal(trace_echo_count(&t), 1);
	assert_int_equal(trace_counted_from(&t), 0);
	trace_echo_range(&t, 0, &b, &e);
	assert_int_equal(b, 0);
	assert_int_equal(e, 10);
	trace_free(&t);

	/* warm-up 0..3, echoes [3,7) and [7,12) */
	for (uint32_t i = 0; i < 12; i++) {
		if (i == 3 || i == 7)
			trace_mark_echo(&t);
		trace_push(&t, i);
	}
	assert_int_equal(trace_echo_count(&t), 2);
	assert_int_equal(trace_counted_from(&t), 3);
	trace_echo_range(&t, 0, &b, &e);
	assert_int_equal(b, 3);
	assert_int_equal(e, 7);
	trace_echo_range(&t, 1, &b, &e);
	assert_int_equal(b, 7);
	assert_int_equal(e, 12);
	trace_free(&t);
}

static void test_large_random_round_trip(void **state)
{
	(void)state;
	xb_trace t, u;
	trace_init(&t);
	uint64_t s = 99;
	uint32_t a = 0x10000000;
	for (int i = 0; i < 200000; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t r = (uint32_t)(s >> 33);
		if (r % 100 == 0)
			trace_mark_echo(&t);
		a = r % 10 ? a + 2 : (r % 3 ? (uint32_t)(s >> 7) : a - (r & 0xfe));
		trace_push(&t, a);
	}
	xb_err err = {{0}};
	xb_strbuf bin = {0}, txt = {0};
	trace_encode_binary(&t, &bin);
	trace_encode_text(&t, &txt);
	assert_int_equal(trace_parse(&u, (const uint8_t *)bin.buf, bin.len, "r.xbt", &err), 0);
	assert_traces_equal(&t, &u);
	trace_free(&u);
	assert_int_equal(trace_parse(&u, (const uint8_t *)txt.buf, txt.len, "r.txt", &err), 0);
	assert_traces_equal(&t, &u);
	trace_free(&u);
	sb_free(&bin);
	sb_free(&txt);
	trace_free(&t);

	/* The empty trace too. */
	trace_encode_binary(&t, &bin);
	assert_int_equal(bin.len, 9);
	assert_int_equal(trace_parse(&u, (const uint8_t *)bin.buf, bin.len, "e.xbt", &err), 0);
	assert_int_equal(u.n, 0);
	trace_free(&u);
	sb_free(&bin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binary_round_trip),
		cmocka_unit_test(test_binary_is_compact),
		cmocka_unit_test(test_text_round_trip),
		cmocka_unit_test(test_text_syntax),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_streaming_writer),
		cmocka_unit_test(test_echo_ranges),
		cmocka_unit_test(test_large_random_round_trip),
	};
	return cmocka_run_group_tests_name("trace", tests, testdir_setup, testdir_teardown);
}
