/* test_logring: the log ring: wrap-around with a small capacity, line splitting, partial
 * UART lines across chunks, long lines cut, control characters and escape sequences. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../core/logring.h"

static void feed(xb_logring *r, uint64_t t, const char *s)
{
	logring_bytes(r, t, XB_LOG_UART, (const uint8_t *)s, strlen(s));
}

static void test_wrap_around(void **state)
{
	(void)state;
	xb_logring r;
	logring_init(&r, 3);
	assert_int_equal(logring_count(&r), 0);
	assert_null(logring_get(&r, 0));
	for (int i = 1; i <= 5; i++)
		logring_printf(&r, (uint64_t)i * 10, XB_LOG_XIPBENCH, XB_LOG_INFO, "line %d", i);
	assert_int_equal(logring_count(&r), 3);
	assert_string_equal(logring_get(&r, 0)->text, "line 3");
	assert_string_equal(logring_get(&r, 2)->text, "line 5");
	assert_true(logring_get(&r, 0)->seq == 3);
	assert_true(logring_get(&r, 2)->t_ns == 50);
	assert_null(logring_get(&r, 3));
	logring_free(&r);

	logring_init(&r, 0); /* a capacity of 0 still keeps one line */
	logring_add(&r, 1, XB_LOG_BUILD, XB_LOG_WARN, "a");
	logring_add(&r, 2, XB_LOG_BUILD, XB_LOG_WARN, "b");
	assert_int_equal(logring_count(&r), 1);
	assert_string_equal(logring_get(&r, 0)->text, "b");
	assert_int_equal(logring_get(&r, 0)->source, XB_LOG_BUILD);
	assert_int_equal(logring_get(&r, 0)->level, XB_LOG_WARN);
	logring_free(&r);
}

static void test_add_splits_and_cleans(void **state)
{
	(void)state;
	xb_logring r;
	logring_init(&r, 16);
	logring_add(&r, 5, XB_LOG_XIPBENCH, XB_LOG_ERROR, "relink failed\nld: error\r\n");
	assert_int_equal(logring_count(&r), 2);
	assert_string_equal(logring_get(&r, 0)->text, "relink failed");
	assert_string_equal(logring_get(&r, 1)->text, "ld: error");
	assert_int_equal(logring_get(&r, 1)->level, XB_LOG_ERROR);
	logring_add(&r, 6, XB_LOG_XIPBENCH, XB_LOG_INFO, "");
	assert_string_equal(logring_get(&r, 2)->text, "");
	logring_add(&r, 7, XB_LOG_XIPBENCH, XB_LOG_INFO, "tab\there\a bell\x7f del");
	assert_string_equal(logring_get(&r, 3)->text, "tab\there? bell? del");
	/* Zephyr's coloured log: the colours go, the level is read */
	logring_add(&r, 8, XB_LOG_UART, XB_LOG_INFO,
		    "\x1b[1;31m[00:00:01.000,000] <err> net_if: no buffer\x1b[0m");
	assert_string_equal(logring_get(&r, 4)->text, "[00:00:01.000,000] <err> net_if: no buffer");
	assert_int_equal(logring_get(&r, 4)->level, XB_LOG_ERROR);
	logring_add(&r, 9, XB_LOG_UART, XB_LOG_INFO, "<wrn> usb: stall");
	assert_int_equal(logring_get(&r, 5)->level, XB_LOG_WARN);
	/* an unknown source or level is kept as xipbench / info */
	logring_add(&r, 10, 9, 7, "odd");
	assert_int_equal(logring_get(&r, 6)->source, XB_LOG_XIPBENCH);
	assert_int_equal(logring_get(&r, 6)->level, XB_LOG_INFO);
	assert_string_equal(logring_source_name(XB_LOG_UART), "uart");
	assert_string_equal(logring_source_name(42), "?");
	logring_free(&r);
}

static void test_long_lines(void **state)
{
	(void)state;
	xb_logring r;
	logring_init(&r, 4);
	char big[600];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	logring_add(&r, 1, XB_LOG_BUILD, XB_LOG_INFO, big);
	const char *t = logring_get(&r, 0)->text;
	assert_int_equal(strlen(t), XB_LOGRING_LINE + 3);
	assert_string_equal(t + XB_LOGRING_LINE, "...");
	/* exactly the limit is not cut */
	big[XB_LOGRING_LINE] = 0;
	logring_add(&r, 2, XB_LOG_BUILD, XB_LOG_INFO, big);
	assert_int_equal(strlen(logring_get(&r, 1)->text), XB_LOGRING_LINE);
	/* a cut never splits a UTF-8 character: 239 'x' then a 2-byte character */
	memset(big, 'x', XB_LOGRING_LINE - 1);
	memcpy(big + XB_LOGRING_LINE - 1, "\xc3\xa9tail", 7);
	logring_add(&r, 3, XB_LOG_BUILD, XB_LOG_INFO, big);
	t = logring_get(&r, 2)->text;
	assert_int_equal(strlen(t), XB_LOGRING_LINE - 1 + 3);
	assert_string_equal(t + XB_LOGRING_LINE - 1, "...");
	/* printf beyond its buffer is cut the same way */
	logring_printf(&r, 4, XB_LOG_XIPBENCH, XB_LOG_INFO, "%s%s", big, big);
	assert_string_equal(logring_get(&r, 3)->text + XB_LOGRING_LINE - 1, "...");
	logring_free(&r);
}

static void test_uart_stream(void **state)
{
	(void)state;
	xb_logring r;
	logring_init(&r, 8);
	feed(&r, 1, "*** Booting Zep");
	assert_int_equal(logring_count(&r), 0); /* partial: waits */
	feed(&r, 2, "hyr OS ***\r");
	assert_int_equal(logring_count(&r), 0);
	feed(&r, 3, "\nnet: up\n\nrest");
	assert_int_equal(logring_count(&r), 3);
	assert_string_equal(logring_get(&r, 0)->text, "*** Booting Zephyr OS ***");
	assert_true(logring_get(&r, 0)->t_ns == 3);
	assert_int_equal(logring_get(&r, 0)->source, XB_LOG_UART);
	assert_string_equal(logring_get(&r, 1)->text, "net: up");
	assert_string_equal(logring_get(&r, 2)->text, "");
	/* build output has its own partial line */
	logring_bytes(&r, 4, XB_LOG_BUILD, (const uint8_t *)"CC main.o\n", 10);
	assert_string_equal(logring_get(&r, 3)->text, "CC main.o");
	assert_int_equal(logring_get(&r, 3)->source, XB_LOG_BUILD);
	feed(&r, 5, "\n");
	assert_string_equal(logring_get(&r, 4)->text, "rest");
	/* a line longer than the limit is cut, the rest up to its end dropped */
	char big[1000];
	memset(big, 'u', sizeof big);
	for (size_t k = 0; k < sizeof big; k += 7)
		logring_bytes(&r, 6, XB_LOG_UART, (const uint8_t *)big + k,
			      k + 7 <= sizeof big ? 7 : sizeof big - k);
	feed(&r, 7, "\r\nnext\n");
	const char *t = logring_get(&r, 5)->text;
	assert_int_equal(strlen(t), XB_LOGRING_LINE + 3);
	assert_string_equal(t + XB_LOGRING_LINE, "...");
	assert_string_equal(logring_get(&r, 6)->text, "next");
	/* exactly the limit followed by "\r\n" is not cut */
	logring_bytes(&r, 8, XB_LOG_UART, (const uint8_t *)big, XB_LOGRING_LINE);
	feed(&r, 8, "\r\n");
	assert_int_equal(strlen(logring_get(&r, 7)->text), XB_LOGRING_LINE);
	/* NUL and other control bytes in the stream */
	logring_bytes(&r, 9, XB_LOG_UART, (const uint8_t *)"a\0b\x1b\n", 5);
	assert_string_equal(logring_get(&r, 7)->text, "a?b");
	logring_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap_around),
		cmocka_unit_test(test_add_splits_and_cleans),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_uart_stream),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
