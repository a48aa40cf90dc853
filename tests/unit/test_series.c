/* test_series: the strip-chart ring: points on the period grid, wrap-around with a small
 * capacity, NaN gaps, late and early times, markers in time order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "../../core/series.h"

#define MS 1000000ull

static void test_points_and_gaps(void **state)
{
	(void)state;
	xb_series s;
	series_init(&s, "turnaround", "ms", 100 * MS, 4, 1000 * MS);
	assert_string_equal(s.name, "turnaround");
	assert_string_equal(s.unit, "ms");
	assert_int_equal(series_count(&s), 0);
	assert_true(isnan(series_back(&s, 0)));
	assert_true(isnan(series_latest(&s, NULL)));
	double lo = 7, hi = 7;
	assert_int_equal(series_range(&s, 10, &lo, &hi), 0);
	assert_true(lo == 0 && hi == 0);

	series_set(&s, 999 * MS, 5); /* before the origin: ignored */
	assert_int_equal(series_count(&s), 0);
	series_set(&s, 1000 * MS, 1.5);  /* point 0 */
	series_set(&s, 1250 * MS, 2.5);  /* point 2; point 1 is a gap */
	assert_int_equal(series_count(&s), 3);
	assert_true(series_back(&s, 0) == 2.5);
	assert_true(isnan(series_back(&s, 1)));
	assert_true(series_back(&s, 2) == 1.5);
	assert_true(isnan(series_back(&s, 3)));
	assert_true(series_time_back(&s, 0) == 1200 * MS);
	assert_true(series_time_back(&s, 2) == 1000 * MS);
	/* setting a point twice keeps the last value; a later time in the same period too */
	series_set(&s, 1299 * MS, 3.5);
	assert_int_equal(series_count(&s), 3);
	assert_true(series_back(&s, 0) == 3.5);
	/* an older kept point can still be set */
	series_set(&s, 1100 * MS, 0.5);
	assert_true(series_back(&s, 1) == 0.5);
	assert_int_equal(series_range(&s, 3, &lo, &hi), 1);
	assert_true(lo == 0.5 && hi == 3.5);
	assert_int_equal(series_range(&s, 1, &lo, &hi), 1);
	assert_true(lo == 3.5 && hi == 3.5);
	/* infinity is no value */
	series_set(&s, 1300 * MS, INFINITY);
	assert_true(isnan(series_back(&s, 0)));
	size_t age = 99;
	assert_true(series_latest(&s, &age) == 3.5);
	assert_int_equal(age, 1);
	series_free(&s);
}

static void test_wrap_around(void **state)
{
	(void)state;
	xb_series s;
	series_init(&s, "rate", "/s", 10, 3, 0);
	for (int i = 0; i < 10; i++)
		series_set(&s, (uint64_t)i * 10 + 5, i);
	assert_int_equal(series_count(&s), 3);
	assert_true(series_back(&s, 0) == 9);
	assert_true(series_back(&s, 1) == 8);
	assert_true(series_back(&s, 2) == 7);
	assert_true(isnan(series_back(&s, 3)));
	assert_true(series_time_back(&s, 2) == 70);
	/* a time before the kept points is ignored and does not disturb them */
	series_set(&s, 60, 100);
	assert_true(series_back(&s, 2) == 7);
	double lo, hi;
	assert_int_equal(series_range(&s, 100, &lo, &hi), 1);
	assert_true(lo == 7 && hi == 9);
	/* a jump far ahead leaves only gaps and the new point */
	series_set(&s, 10000, 42);
	assert_true(series_back(&s, 0) == 42);
	assert_true(isnan(series_back(&s, 1)) && isnan(series_back(&s, 2)));
	assert_true(series_time_back(&s, 0) == 10000);
	series_free(&s);
}

static void test_advance(void **state)
{
	(void)state;
	xb_series s;
	series_init(&s, "misses", "", 10, 1, 0); /* a capacity below 2 is raised to 2 */
	assert_int_equal(s.cap, 2);
	series_set(&s, 0, 1);
	series_advance(&s, 15);
	assert_int_equal(series_count(&s), 2);
	assert_true(isnan(series_back(&s, 0)));
	assert_true(series_back(&s, 1) == 1);
	size_t age;
	assert_true(series_latest(&s, &age) == 1);
	assert_int_equal(age, 1);
	series_advance(&s, 5); /* time does not go back */
	assert_true(series_time_back(&s, 0) == 10);
	series_advance(&s, 45);
	assert_true(isnan(series_latest(&s, &age)));
	assert_int_equal(age, 2);
	/* a huge time neither wraps the ring's index nor crashes */
	series_set(&s, UINT64_MAX, 3);
	assert_true(series_back(&s, 0) == 3);
	series_free(&s);
}

static void test_markers(void **state)
{
	(void)state;
	xb_series s;
	series_init(&s, "hit rate", "%", 10, 8, 0);
	series_mark(&s, 100, "stock");
	series_mark(&s, 300, "coloured");
	series_mark(&s, 200, "hot block"); /* out of order: goes in its place */
	assert_int_equal(s.nmarkers, 3);
	assert_string_equal(s.markers[0].label, "stock");
	assert_string_equal(s.markers[1].label, "hot block");
	assert_string_equal(s.markers[2].label, "coloured");
	series_mark(&s, 400, "a label much longer than the twenty-three bytes kept");
	assert_int_equal(strlen(s.markers[3].label), sizeof s.markers[3].label - 1);
	/* full: the oldest go first */
	for (int i = 0; i < XB_SERIES_MARKERS; i++)
		series_mark(&s, 1000 + (uint64_t)i, "m");
	assert_int_equal(s.nmarkers, XB_SERIES_MARKERS);
	assert_true(s.markers[0].t_ns == 1000);
	assert_true(s.markers[XB_SERIES_MARKERS - 1].t_ns == 1000 + XB_SERIES_MARKERS - 1);
	series_mark(&s, 5, "too old"); /* older than every kept one: dropped */
	assert_true(s.markers[0].t_ns == 1000);
	series_mark(&s, 1010, "late");
	assert_true(s.markers[0].t_ns == 1001);
	for (size_t i = 1; i < s.nmarkers; i++)
		assert_true(s.markers[i - 1].t_ns <= s.markers[i].t_ns);
	series_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_points_and_gaps),
		cmocka_unit_test(test_wrap_around),
		cmocka_unit_test(test_advance),
		cmocka_unit_test(test_markers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
