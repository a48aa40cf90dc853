/* test_tui_prompt: the ':' line: editing (UTF-8 included), history, completion cycling and
 * drawing with horizontal scrolling, checked on a canvas. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../panels/canvas.h"
#include "../../tui/keys.h"
#include "../../tui/prompt.h"

#define CTRL(c) ((c) - '@')

static void type(xb_prompt *p, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		int c;
		int k = key_utf8(s + i, n - i, &c);
		assert_true(k > 0);
		assert_int_equal(prompt_key(p, c), XB_PROMPT_EDITING);
		i += (size_t)k;
	}
}

static void keys(xb_prompt *p, int key, int times)
{
	for (int i = 0; i < times; i++)
		prompt_key(p, key);
}

static void test_editing(void **state)
{
	(void)state;
	xb_prompt p;
	prompt_init(&p, NULL, NULL);
	prompt_open(&p, NULL);
	assert_true(p.active);
	type(&p, "sort");
	assert_string_equal(p.buf, "sort");
	assert_int_equal(p.cur, 4);
	keys(&p, XB_KEY_LEFT, 2);
	type(&p, "XY");
	assert_string_equal(p.buf, "soXYrt");
	assert_int_equal(p.cur, 4);
	prompt_key(&p, XB_KEY_BACKSPACE);
	assert_string_equal(p.buf, "soXrt");
	prompt_key(&p, XB_KEY_DELETE);
	assert_string_equal(p.buf, "soXt");
	prompt_key(&p, CTRL('H')); /* Ctrl-H is backspace too */
	assert_string_equal(p.buf, "sot");
	prompt_key(&p, XB_KEY_HOME);
	assert_int_equal(p.cur, 0);
	prompt_key(&p, XB_KEY_BACKSPACE); /* nothing before the cursor: the line stays */
	assert_string_equal(p.buf, "sot");
	assert_true(p.active);
	prompt_key(&p, XB_KEY_LEFT);
	assert_int_equal(p.cur, 0);
	prompt_key(&p, XB_KEY_END);
	assert_int_equal(p.cur, 3);
	prompt_key(&p, XB_KEY_RIGHT);
	assert_int_equal(p.cur, 3);
	prompt_key(&p, XB_KEY_DELETE); /* nothing after it */
	assert_string_equal(p.buf, "sot");
	prompt_key(&p, CTRL('A'));
	assert_int_equal(p.cur, 0);
	prompt_key(&p, CTRL('E'));
	assert_int_equal(p.cur, 3);
	/* keys that are not editing keys change nothing */
	prompt_key(&p, XB_KEY_F1);
	prompt_key(&p, XB_KEY_PAGE_UP);
	prompt_key(&p, CTRL('L'));
	prompt_key(&p, XB_KEY_RESIZE);
	assert_string_equal(p.buf, "sot");
	assert_int_equal(p.len, 3);

	/* words and lines */
	prompt_open(&p, "set theme  dark");
	prompt_key(&p, CTRL('W'));
	assert_string_equal(p.buf, "set theme  ");
	prompt_key(&p, CTRL('W'));
	assert_string_equal(p.buf, "set ");
	type(&p, "window all");
	keys(&p, XB_KEY_LEFT, 4);
	prompt_key(&p, CTRL('K'));
	assert_string_equal(p.buf, "set window");
	keys(&p, XB_KEY_LEFT, 6);
	prompt_key(&p, CTRL('U'));
	assert_string_equal(p.buf, "window");
	assert_int_equal(p.cur, 0);
	prompt_key(&p, CTRL('W')); /* at the start: nothing */
	assert_string_equal(p.buf, "window");
	prompt_free(&p);
}

static void test_utf8(void **state)
{
	(void)state;
	xb_prompt p;
	prompt_init(&p, NULL, NULL);
	prompt_open(&p, "");
	type(&p, "a\xc3\xa9\xe2\x94\x80\xf0\x9f\x98\x80z"); /* a é ─ 😀 z */
	assert_int_equal(p.len, 11);
	prompt_key(&p, XB_KEY_LEFT);
	assert_int_equal(p.cur, 10);
	prompt_key(&p, XB_KEY_LEFT);
	assert_int_equal(p.cur, 6);
	prompt_key(&p, XB_KEY_LEFT);
	assert_int_equal(p.cur, 3);
	prompt_key(&p, XB_KEY_RIGHT);
	assert_int_equal(p.cur, 6);
	prompt_key(&p, XB_KEY_BACKSPACE); /* the whole ─ */
	assert_string_equal(p.buf, "a\xc3\xa9\xf0\x9f\x98\x80z");
	assert_int_equal(p.cur, 3);
	prompt_key(&p, XB_KEY_DELETE); /* the whole 😀 */
	assert_string_equal(p.buf, "a\xc3\xa9z");
	prompt_key(&p, XB_KEY_LEFT);
	prompt_key(&p, 0x263A);
	assert_string_equal(p.buf, "a\xe2\x98\xba\xc3\xa9z");
	/* control characters and non-characters do not go in */
	prompt_key(&p, 0x85);
	prompt_key(&p, 0xD800);
	prompt_key(&p, 0x110000);
	assert_string_equal(p.buf, "a\xe2\x98\xba\xc3\xa9z");

	/* initial text: bad bytes become '?'; too long is cut at a character */
	prompt_open(&p, "ok\xff\x01\xc3");
	assert_string_equal(p.buf, "ok???");
	char big[XB_PROMPT_MAX + 10];
	memset(big, 'x', sizeof big);
	memcpy(big + XB_PROMPT_MAX - 3, "\xe2\x94\x80", 3); /* would end at byte MAX */
	big[sizeof big - 1] = 0;
	prompt_open(&p, big);
	assert_int_equal(p.len, XB_PROMPT_MAX - 3);
	assert_int_equal(p.cur, p.len);
	/* a full line takes no more, and never half a character */
	type(&p, "y");
	assert_int_equal(p.len, XB_PROMPT_MAX - 2);
	prompt_key(&p, 0x2500);
	prompt_key(&p, 0xE9);
	assert_int_equal(p.len, XB_PROMPT_MAX - 2);
	type(&p, "y");
	assert_int_equal(p.len, XB_PROMPT_MAX - 1);
	type(&p, "y");
	assert_int_equal(p.len, XB_PROMPT_MAX - 1);
	assert_int_equal(strlen(p.buf), p.len);
	prompt_free(&p);
}

static void test_done_cancel(void **state)
{
	(void)state;
	xb_prompt p;
	prompt_init(&p, NULL, NULL);
	prompt_open(&p, "quit");
	assert_int_equal(prompt_key(&p, XB_KEY_ENTER), XB_PROMPT_DONE);
	assert_false(p.active);
	assert_string_equal(p.buf, "quit");
	assert_int_equal(p.nhistory, 1);
	/* a closed prompt ignores keys */
	assert_int_equal(prompt_key(&p, 'x'), XB_PROMPT_EDITING);
	assert_string_equal(p.buf, "quit");

	prompt_open(&p, "abc");
	assert_int_equal(prompt_key(&p, XB_KEY_ESC), XB_PROMPT_CANCELLED);
	assert_false(p.active);
	prompt_open(&p, "abc");
	assert_int_equal(prompt_key(&p, CTRL('C')), XB_PROMPT_CANCELLED);
	prompt_open(&p, "a");
	assert_int_equal(prompt_key(&p, XB_KEY_BACKSPACE), XB_PROMPT_EDITING);
	assert_int_equal(prompt_key(&p, XB_KEY_BACKSPACE), XB_PROMPT_CANCELLED);
	assert_int_equal(p.nhistory, 1); /* cancelled lines are not remembered */

	/* empty lines and repeats of the last line are not remembered */
	prompt_open(&p, "");
	assert_int_equal(prompt_key(&p, XB_KEY_ENTER), XB_PROMPT_DONE);
	assert_string_equal(p.buf, "");
	prompt_open(&p, "quit");
	prompt_key(&p, XB_KEY_ENTER);
	assert_int_equal(p.nhistory, 1);
	prompt_free(&p);
	assert_int_equal(p.nhistory, 0);
}

static void enter_line(xb_prompt *p, const char *s)
{
	prompt_open(p, NULL);
	type(p, s);
	assert_int_equal(prompt_key(p, XB_KEY_ENTER), XB_PROMPT_DONE);
}

static void test_history(void **state)
{
	(void)state;
	xb_prompt p;
	prompt_init(&p, NULL, NULL);
	enter_line(&p, "one");
	enter_line(&p, "two");
	enter_line(&p, "three");
	prompt_open(&p, NULL);
	type(&p, "draft");
	prompt_key(&p, XB_KEY_UP);
	assert_string_equal(p.buf, "three");
	assert_int_equal(p.cur, 5);
	prompt_key(&p, XB_KEY_UP);
	prompt_key(&p, XB_KEY_UP);
	assert_string_equal(p.buf, "one");
	prompt_key(&p, XB_KEY_UP); /* the oldest stays */
	assert_string_equal(p.buf, "one");
	prompt_key(&p, XB_KEY_DOWN);
	assert_string_equal(p.buf, "two");
	prompt_key(&p, XB_KEY_DOWN);
	prompt_key(&p, XB_KEY_DOWN);
	assert_string_equal(p.buf, "draft"); /* the line being typed comes back */
	prompt_key(&p, XB_KEY_DOWN);
	assert_string_equal(p.buf, "draft");
	/* an entry taken from the history and edited is a new entry */
	prompt_key(&p, XB_KEY_UP);
	type(&p, "!");
	assert_int_equal(prompt_key(&p, XB_KEY_ENTER), XB_PROMPT_DONE);
	assert_string_equal(p.buf, "three!");
	assert_int_equal(p.nhistory, 4);
	assert_string_equal(p.history[2], "three");

	/* the oldest lines go when the history is full */
	for (int i = 0; i < XB_PROMPT_HISTORY + 6; i++) {
		char line[24];
		snprintf(line, sizeof line, "line %d", i);
		enter_line(&p, line);
	}
	assert_int_equal(p.nhistory, XB_PROMPT_HISTORY);
	prompt_open(&p, NULL);
	keys(&p, XB_KEY_UP, XB_PROMPT_HISTORY + 10);
	assert_string_equal(p.buf, "line 6");
	keys(&p, XB_KEY_DOWN, XB_PROMPT_HISTORY - 1);
	char last[16];
	snprintf(last, sizeof last, "line %d", XB_PROMPT_HISTORY + 5);
	assert_string_equal(p.buf, last);
	prompt_key(&p, XB_KEY_DOWN);
	assert_string_equal(p.buf, "");
	prompt_free(&p);
}

/* Commands first; after "set", option names; after "set theme", themes. The list holds
 * words that do not match (skipped by the prompt) and a repeat. */
typedef struct complete_log {
	int calls;
	char line[XB_PROMPT_MAX];
	size_t word_start;
} complete_log;

static size_t complete_words(void *ctx, const char *line, size_t word_start, const char **out,
			     size_t max)
{
	complete_log *log = ctx;
	log->calls++;
	snprintf(log->line, sizeof log->line, "%s", line);
	log->word_start = word_start;
	static const char *const commands[] = {"quit", "set", "sort", "search", "set", "help"};
	static const char *const options[] = {"theme", "window", "speed"};
	static const char *const themes[] = {"dark", "light", "mono", "high-contrast"};
	const char *const *w = commands;
	size_t n = 6;
	if (strncmp(line, "set theme ", 10) == 0) {
		w = themes;
		n = 4;
	} else if (strncmp(line, "set ", 4) == 0) {
		w = options;
		n = 3;
	}
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++)
		out[i] = w[i];
	return n;
}

static void test_completion(void **state)
{
	(void)state;
	complete_log log = {0};
	xb_prompt p;
	prompt_init(&p, complete_words, &log);
	prompt_open(&p, "s");
	prompt_key(&p, XB_KEY_TAB);
	assert_int_equal(log.calls, 1);
	assert_string_equal(log.line, "s");
	assert_int_equal(log.word_start, 0);
	assert_string_equal(p.buf, "set");
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(p.buf, "sort");
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(p.buf, "search");
	prompt_key(&p, XB_KEY_TAB); /* after the last: as typed */
	assert_string_equal(p.buf, "s");
	assert_int_equal(p.cur, 1);
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(p.buf, "set");
	assert_int_equal(p.cur, 3);
	/* another key ends the cycle: the next Tab completes what is there now */
	type(&p, " ");
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(log.line, "set ");
	assert_int_equal(log.word_start, 4);
	assert_string_equal(p.buf, "set theme");
	prompt_key(&p, XB_KEY_TAB);
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(p.buf, "set speed");
	prompt_key(&p, XB_KEY_BACKSPACE);
	prompt_key(&p, XB_KEY_BACKSPACE);
	prompt_key(&p, XB_KEY_BACKSPACE);
	assert_string_equal(p.buf, "set sp");
	/* one candidate: put in, with a blank to go on */
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(p.buf, "set speed ");
	assert_int_equal(p.cur, 10);
	prompt_open(&p, "set theme l");
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(p.buf, "set theme light ");
	/* no candidate: nothing changes */
	prompt_open(&p, "set theme x");
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(p.buf, "set theme x");
	assert_int_equal(p.cur, 11);

	/* a word in the middle: the text after the cursor stays */
	prompt_open(&p, "set th dark");
	keys(&p, XB_KEY_LEFT, 5);
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(log.line, "set th");
	assert_string_equal(p.buf, "set theme dark");
	assert_int_equal(p.cur, 10); /* past the blank that was there */
	prompt_open(&p, "sxyz");
	keys(&p, XB_KEY_LEFT, 3);
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(p.buf, "setxyz");
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(p.buf, "sortxyz");
	assert_int_equal(p.cur, 4);
	prompt_key(&p, XB_KEY_TAB);
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(p.buf, "sxyz");

	/* a candidate that does not fit the line is not put in */
	char big[XB_PROMPT_MAX];
	memset(big, 'x', XB_PROMPT_MAX - 4);
	strcpy(big + XB_PROMPT_MAX - 4, " q");
	prompt_open(&p, big);
	prompt_key(&p, XB_KEY_TAB);
	assert_int_equal(p.len, XB_PROMPT_MAX - 2);
	assert_int_equal(p.buf[p.len - 1], 'q');
	prompt_free(&p);

	/* without a completer Tab does nothing */
	prompt_init(&p, NULL, NULL);
	prompt_open(&p, "s");
	prompt_key(&p, XB_KEY_TAB);
	assert_string_equal(p.buf, "s");
	prompt_free(&p);
}

/* The text of row y of c. */
static char *row_text(const xb_canvas *c, int y)
{
	xb_strbuf sb = {0};
	canvas_dump_text(c, &sb);
	char *s = sb.buf;
	for (int i = 0; i < y && s; i++) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	assert_non_null(s);
	char *r = xstrndup(s, strcspn(s, "\n"));
	sb_free(&sb);
	return r;
}

static void expect_row(const xb_canvas *c, int y, const char *want)
{
	char *got = row_text(c, y);
	if (strcmp(got, want) != 0)
		fail_msg("row %d: '%s', wanted '%s'", y, got, want);
	free(got);
}

static void test_draw(void **state)
{
	(void)state;
	xb_canvas *c = canvas_new(20, 3);
	xb_prompt p;
	prompt_init(&p, NULL, NULL);
	prompt_open(&p, "hello");
	assert_int_equal(prompt_draw(&p, c, 0, 2, 20), 6);
	expect_row(c, 2, ":hello");
	for (int x = 0; x < 20; x++)
		assert_int_equal(canvas_get(c, x, 2).el, XB_EL_PROMPT);
	assert_int_equal(canvas_get(c, 0, 1).el, XB_EL_NORMAL);

	/* a long line scrolls by half widths so that the cursor shows */
	char line[64];
	for (int i = 0; i < 50; i++)
		line[i] = (char)('a' + i % 26);
	line[50] = 0;
	prompt_open(&p, line); /* cursor at 50; 19 columns of text: half steps of 9 */
	int col = prompt_draw(&p, c, 0, 2, 20);
	expect_row(c, 2, "<klmnopqrstuvwx"); /* from character 36 */
	assert_int_equal(col, 15);
	prompt_key(&p, XB_KEY_HOME);
	assert_int_equal(prompt_draw(&p, c, 0, 2, 20), 1);
	expect_row(c, 2, ":abcdefghijklmnopqrs");
	keys(&p, XB_KEY_RIGHT, 18);
	assert_int_equal(prompt_draw(&p, c, 0, 2, 20), 19); /* the last column */
	expect_row(c, 2, ":abcdefghijklmnopqrs");
	prompt_key(&p, XB_KEY_RIGHT);
	assert_int_equal(prompt_draw(&p, c, 0, 2, 20), 11);
	expect_row(c, 2, "<jklmnopqrstuvwxyzab");
	/* every cursor position shows, and the character under it is the right one */
	for (size_t at = 0; at <= p.len; at++) {
		p.cur = at;
		col = prompt_draw(&p, c, 0, 2, 20);
		assert_true(col >= 1 && col < 20);
		if (at < p.len)
			assert_int_equal(canvas_get(c, col, 2).ch, (uint32_t)line[at]);
	}

	/* UTF-8: columns are characters, not bytes */
	prompt_open(&p, NULL);
	for (int i = 0; i < 30; i++)
		prompt_key(&p, 0x2500 + i % 2);
	col = prompt_draw(&p, c, 0, 2, 20);
	assert_int_equal(col, 1 + 30 - 18);
	assert_int_equal(canvas_get(c, 1, 2).ch, 0x2500);
	assert_int_equal(canvas_get(c, col - 1, 2).ch, 0x2501);

	/* drawn from x in w columns, nothing outside */
	canvas_fill(c, canvas_bounds(c), 'z', XB_EL_NORMAL);
	prompt_open(&p, "set theme light");
	col = prompt_draw(&p, c, 5, 1, 10);
	expect_row(c, 1, "zzzzz<e light  zzzzz"); /* 9 columns of text: steps of 4 */
	assert_int_equal(col, 13);
	expect_row(c, 0, "zzzzzzzzzzzzzzzzzzzz");
	/* tiny widths */
	assert_int_equal(prompt_draw(&p, c, 0, 0, 1), 0);
	assert_int_equal(canvas_get(c, 0, 0).ch, ':'); /* no room to scroll */
	assert_int_equal(prompt_draw(&p, c, 0, 0, 0), 0);
	prompt_open(&p, "");
	assert_int_equal(prompt_draw(&p, c, 0, 0, 2), 1);
	prompt_free(&p);
	canvas_free(c);
}

/* Random keys keep the line valid: UTF-8, its length, the cursor on a character. */
static void test_random_keys(void **state)
{
	(void)state;
	static const int pool[] = {'a', ' ', 0xE9, 0x2500, 0x1F600, XB_KEY_LEFT, XB_KEY_RIGHT,
				   XB_KEY_HOME, XB_KEY_END, XB_KEY_BACKSPACE, XB_KEY_DELETE,
				   CTRL('W'), CTRL('U'), CTRL('K'), XB_KEY_UP, XB_KEY_DOWN,
				   XB_KEY_TAB, XB_KEY_ENTER, 'x', 's'};
	complete_log log = {0};
	xb_prompt p;
	prompt_init(&p, complete_words, &log);
	xb_canvas *c = canvas_new(13, 1);
	uint64_t rng = 12345;
	for (int i = 0; i < 20000; i++) {
		if (!p.active)
			prompt_open(&p, NULL);
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		prompt_key(&p, pool[(rng >> 33) % (sizeof pool / sizeof pool[0])]);
		assert_int_equal(strlen(p.buf), p.len);
		assert_true(p.cur <= p.len);
		assert_true(p.cur == p.len || (p.buf[p.cur] & 0xC0) != 0x80);
		for (size_t k = 0; k < p.len;) {
			int ch;
			int n = key_utf8(p.buf + k, p.len - k, &ch);
			assert_true(n > 0);
			k += (size_t)n;
		}
		int col = prompt_draw(&p, c, 0, 0, 13);
		assert_true(col >= 1 && col < 13);
	}
	assert_true(p.nhistory > 0);
	canvas_free(c);
	prompt_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_editing),     cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_done_cancel), cmocka_unit_test(test_history),
		cmocka_unit_test(test_completion),  cmocka_unit_test(test_draw),
		cmocka_unit_test(test_random_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
