/* test_tui_caption: the demo's captions: figures filled in from the runs (thousands
 * grouped after rounding, times and sizes with their decimals, '?' for what is not
 * measured), and the check of a script's captions (unknown figures, a '{' left open). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../panels/model.h"
#include "../../tui/app.h"

static void test_expand(void **state)
{
	(void)state;
	xb_run a, b;
	history_run_init(&a);
	history_run_init(&b);
	a.id = 1;
	a.layout = "stock";
	a.misses_per_echo = 1999.6; /* rounds to 2,000, not "1,000" */
	a.turnaround_ms = 1.0761;
	b.id = 2;
	b.layout = "sram-8k";
	b.misses_per_echo = 91.54;
	b.extra_ram_bytes = 8192;
	const xb_run *runs[] = {&a, &b};
	xb_model m;
	model_init(&m);
	m.runs = runs;
	m.nruns = 2;
	char out[256];
	caption_expand(&m, "stock {run:stock.misses_per_echo}, {run:stock.turnaround} ms; "
			   "8 KB {run:sram-8k.misses_per_echo} with {run:sram-8k.extra_ram_kb} KB; "
			   "{run:stock.peak_udp}/s; {run:nothere.misses_per_echo}; {bogus}",
		       out, sizeof out);
	assert_string_equal(out, "stock 2,000, 1.076 ms; 8 KB 92 with 8.0 KB; ?/s; ?; {bogus}");
	a.misses_per_echo = 1234567.4;
	caption_expand(&m, "{run:stock.misses_per_echo}", out, sizeof out);
	assert_string_equal(out, "1,234,567");
}

static void test_check(void **state)
{
	(void)state;
	char why[512];
	assert_int_equal(caption_check("{run:x.misses_per_echo} {run:x.footprint} {cache.lines} "
				       "{pending.misses_per_echo} {live.turnaround}", why, sizeof why), 0);
	assert_int_equal(caption_check("{run:x.bogus}", why, sizeof why), -1);
	assert_non_null(strstr(why, "no figure '{run:x.bogus}'"));
	assert_non_null(strstr(why, "run:NAME.misses_per_echo, .predicted"));
	assert_int_equal(caption_check("{cache.bogus}", why, sizeof why), -1);
	assert_int_equal(caption_check("an open {run:x.misses_per_echo", why, sizeof why), -1);
	assert_non_null(strstr(why, "without its '}'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
