/* test_realtime: pacing the virtual Pico to a clock, checked with a fake clock (no waiting). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paced_to_real_time),
		cmocka_unit_test(test_speed_factor),
		cmocka_unit_test(test_slow_host_never_waits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
