/* test_realtime: pacing the virtual Pico to a clock, checked with a fake clock (no waiting). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "../../sim/pacer.h"
#include "../../sim/realtime.h"

typedef struct fake_clock {
	uint64_t now;
	uint64_t slept, sleeps;
	uint64_t work_ns; /* what each look at the clock costs: the host's own speed */
} fake_clock;

static uint64_t fake_now(void *ctx)
{
	fake_clock *f = ctx;
	f->now += f->work_ns;
	return f->now;
}

static void fake_sleep(void *ctx, uint64_t ns)
{
	fake_clock *f = ctx;
	f->now += ns;
	f->slept += ns;
	f->sleeps++;
}

/* A Pico running `b .` forever from flash. */
static xb_pico *spinning_pico(void)
{
	xb_target t;
	xb_err err;
	assert_int_equal(target_load_file(&t, "targets/rp2040.target", &err), 0);
	xb_pico_options o;
	pico_options_init(&o);
	o.quiet = 1;
	xb_pico *p = pico_new(&t, &o, &err);
	assert_non_null(p);
	const uint8_t image[] = {
		0x00, 0x10, 0x00, 0x20, /* initial SP 0x20001000 */
		0x09, 0x01, 0x00, 0x10, /* reset: 0x10000108, Thumb */
		0xfe, 0xe7,             /* b . */
	};
	assert_int_equal(board_load(pico_board(p), 0x10000100, image, sizeof image, &err), 0);
	pico_reset(p);
	return p;
}

static void test_paced_to_real_time(void **state)
{
	(void)state;
	xb_pico *p = spinning_pico();
	fake_clock f = {.now = 1000};
	xb_clock clk = {fake_now, fake_sleep, &f};
	uint64_t hz = board_cpu_hz(pico_board(p));
	uint64_t c0 = board_cycles(pico_board(p));
	assert_int_equal(realtime_run(p, hz / 100, 1.0, &clk), XB_PICO_BUDGET); /* 10 ms */
	uint64_t ran = board_cycles(pico_board(p)) - c0;
	assert_true(ran >= hz / 100);
	/* the host is infinitely fast here: it waited the whole 10 ms, one slice at a time */
	assert_int_equal(f.sleeps, 10);
	assert_true(f.slept >= 9990000 && f.slept <= 10000000);
	pico_free(p);
}

static void test_speed_factor(void **state)
{
	(void)state;
	xb_pico *p = spinning_pico();
	fake_clock f = {0};
	xb_clock clk = {fake_now, fake_sleep, &f};
	uint64_t hz = board_cpu_hz(pico_board(p));
	realtime_run(p, hz / 100, 2.0, &clk); /* 10 ms of board time at twice real time */
	assert_true(f.slept >= 4990000 && f.slept <= 5000000);
	pico_free(p);
}

static void test_slow_host_never_waits(void **state)
{
	(void)state;
	xb_pico *p = spinning_pico();
	fake_clock f = {.work_ns = 5000000}; /* every slice costs the host 5 ms */
	xb_clock clk = {fake_now, fake_sleep, &f};
	uint64_t hz = board_cpu_hz(pico_board(p));
	realtime_run(p, hz / 100, 1.0, &clk);
	assert_int_equal(f.sleeps, 0);
	pico_free(p);
}

/* ---- The pacer alone ---- */

#define HZ 125000000u
#define MS 1000000u

static void test_pacer_allows_what_the_clock_says(void **state)
{
	(void)state;
	xb_pacer p;
	pacer_init(&p, HZ, 1.0, 1000 * MS, 0);
	assert_int_equal(pacer_allow(&p, 1000 * MS, 0), 0);
	assert_int_equal(pacer_next_ns(&p, 0), 1001 * MS); /* one slice of 1 ms */
	assert_int_equal(pacer_allow(&p, 1001 * MS, 0), HZ / 1000);
	assert_int_equal(pacer_allow(&p, 1010 * MS, 0), HZ / 100);
	/* the board ran ahead (a probe ran it): nothing more until the clock catches up */
	assert_int_equal(pacer_allow(&p, 1010 * MS, HZ / 50), 0);
	assert_int_equal(pacer_next_ns(&p, HZ / 50), 1021 * MS);
}

static void test_pacer_catches_up_without_resetting(void **state)
{
	(void)state;
	xb_pacer p;
	pacer_init(&p, HZ, 1.0, 0, 0);
	/* a 100 ms stall of the host: the board may run all 100 ms at once, and the origin
	 * stays, so virtual time ends where the wall clock is */
	assert_int_equal(pacer_allow(&p, 100 * MS, 0), HZ / 10);
	assert_int_equal(p.dropped, 0);
	assert_int_equal(pacer_allow(&p, 200 * MS, HZ / 10), HZ / 10);
	/* beyond the bound the excess is given up and counted */
	uint64_t allow = pacer_allow(&p, 1200 * MS, HZ / 5);
	assert_int_equal(allow, (uint64_t)HZ * PACER_MAX_LAG_MS / 1000);
	assert_int_equal(p.dropped, (uint64_t)HZ - allow);
	/* and from then on it is paced from the new origin */
	assert_int_equal(pacer_allow(&p, 1200 * MS, HZ / 5 + allow), 0);
	assert_int_equal(pacer_allow(&p, 1201 * MS, HZ / 5 + allow), HZ / 1000);
}

static void test_pacer_speed_pause_step(void **state)
{
	(void)state;
	xb_pacer p;
	pacer_init(&p, HZ, 4.0, 0, 0);
	assert_int_equal(pacer_allow(&p, 10 * MS, 0), HZ / 25); /* 40 ms in 10 ms */
	pacer_set_speed(&p, 0.5, 10 * MS, HZ / 25);
	assert_int_equal(pacer_allow(&p, 20 * MS, HZ / 25), HZ / 200); /* 5 ms in 10 ms */
	pacer_pause(&p, 1, 20 * MS, HZ / 25 + HZ / 200);
	assert_int_equal(pacer_allow(&p, 500 * MS, HZ / 25 + HZ / 200), 0);
	assert_true(pacer_next_ns(&p, 0) == UINT64_MAX);
	pacer_step(&p);
	assert_int_equal(pacer_allow(&p, 500 * MS, 0), p.slice);
	pacer_ran(&p, p.slice, 500 * MS, p.slice);
	assert_int_equal(pacer_allow(&p, 600 * MS, 0), 0);
	/* resuming starts from where the board is: no burst for the paused time */
	uint64_t at = HZ / 25 + HZ / 200 + p.slice;
	pacer_pause(&p, 0, 600 * MS, at);
	assert_int_equal(pacer_allow(&p, 600 * MS, at), 0);
	assert_int_equal(pacer_allow(&p, 602 * MS, at), HZ / 1000); /* 0.5 x 2 ms */
}

static void test_pacer_ratio(void **state)
{
	(void)state;
	xb_pacer p;
	pacer_init(&p, HZ, 1.0, 0, 0);
	assert_true(isnan(pacer_ratio(&p)));
	/* a host that only manages half of real time */
	pacer_ran(&p, HZ / 2, 1000 * MS, HZ / 2);
	assert_true(fabs(pacer_ratio(&p) - 0.5) < 1e-9);
	pacer_ran(&p, HZ, 2000 * MS, HZ / 2 + HZ);
	assert_true(fabs(pacer_ratio(&p) - 1.0) < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paced_to_real_time),
		cmocka_unit_test(test_speed_factor),
		cmocka_unit_test(test_slow_host_never_waits),
		cmocka_unit_test(test_pacer_allows_what_the_clock_says),
		cmocka_unit_test(test_pacer_catches_up_without_resetting),
		cmocka_unit_test(test_pacer_speed_pause_step),
		cmocka_unit_test(test_pacer_ratio),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
