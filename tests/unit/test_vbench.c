/* test_vbench: the virtual bench (sim/vbench.h) with the test device of tests/data/netdev:
 * bring-up and the enumeration seen in the usbmon records, the idle and traffic windows of a
 * ping phase (their edges, the misses per echo recomputed from the counters), the same phase
 * run in two steps, a UDP phase, and a board whose image never comes up on USB. (The
 * footprint is the session's measurement job's, over SWD: tests/unit/test_session.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../sim/vbench.h"
#include "test_pico_common.h"

#define MS 125000u

typedef struct bench {
	xb_pico *p;
	xb_vbench *v;
	unsigned records;
} bench;

static void count_record(void *ctx, const uint8_t *rec, size_t len, uint64_t ns)
{
	(void)rec;
	(void)len;
	(void)ns;
	((bench *)ctx)->records++;
}

static void bench_open(bench *b, const char *elf)
{
	memset(b, 0, sizeof *b);
	b->p = tp_pico(NULL, 0);
	xb_err err;
	assert_int_equal(pico_load_file(b->p, elf, XB_IMAGE_AUTO, 0, NULL, &err), 0);
	xb_vbench_options o;
	vbench_options_init(&o);
	o.record = count_record;
	o.record_ctx = b;
	b->v = vbench_new(b->p, &o);
}

static void bench_close(bench *b)
{
	vbench_free(b->v);
	pico_free(b->p);
}

static void ping(xb_vbench_phase *ph, unsigned count)
{
	memset(ph, 0, sizeof *ph);
	ph->kind = XB_NETPEER_ICMP;
	ph->count = count;
	ph->size = 56;
	ph->interval = 20 * MS;
	vbench_phase_window(ph, 125000000u);
}

static void test_bring_up_and_ping_windows(void **state)
{
	(void)state;
	bench b;
	bench_open(&b, tp_netdev_elf());
	xb_err err;
	assert_int_equal(vbench_bring_up(b.v, 5000 * MS, &err), 0);
	assert_true(vbench_ready(b.v));
	uint64_t ns = 0;
	assert_true(vbench_configured(b.v, &ns));
	assert_true(ns > 0);
	assert_true(b.records > 10); /* enumeration went through the record function */

	xb_vbench_phase ph;
	ping(&ph, 5);
	assert_int_equal(ph.window, 100 * MS);
	uint64_t before = board_cycles(vbench_board(b.v));
	assert_int_equal(vbench_phase_run(b.v, &ph, &err), 0);
	/* the idle window starts on a whole millisecond at least the settle time later */
	assert_int_equal(ph.idle_start % MS, 0);
	assert_true(ph.idle_start >= before + VBENCH_SETTLE_MS * MS);
	assert_true(ph.idle_start < before + (VBENCH_SETTLE_MS + 1) * MS);
	assert_int_equal(ph.start, ph.idle_start + ph.window);
	assert_int_equal(ph.idle.cycles, ph.idle_start);
	assert_int_equal(ph.traffic.cycles, ph.start);
	assert_int_equal(ph.end.cycles, ph.start + ph.window);
	assert_int_equal(ph.sum.received, 5);
	double want = ((double)(ph.end.xip_misses - ph.traffic.xip_misses) -
		       (double)(ph.traffic.xip_misses - ph.idle.xip_misses)) / 5;
	assert_true(vbench_misses_per_echo(&ph) == want);
	assert_true(vbench_echo_rate(b.v, &ph) == 5.0 * 125000000.0 / (double)ph.window);

	/* a UDP phase on the same bench */
	xb_vbench_phase u;
	memset(&u, 0, sizeof u);
	u.kind = XB_NETPEER_UDP;
	u.rate = 200;
	u.count = 10;
	u.size = 64;
	u.port = 7;
	vbench_phase_window(&u, 125000000u);
	assert_int_equal(u.window, 50 * MS);
	assert_int_equal(vbench_phase_run(b.v, &u, &err), 0);
	assert_int_equal(u.sum.received, 10);
	assert_true(u.start > ph.end.cycles);
	bench_close(&b);
}

/* Start and finish with the caller running the board in between give what one call gives. */
static void test_phase_in_two_steps(void **state)
{
	(void)state;
	double r[2];
	for (int k = 0; k < 2; k++) {
		bench b;
		bench_open(&b, tp_netdev_elf());
		xb_err err;
		assert_int_equal(vbench_bring_up(b.v, 5000 * MS, &err), 0);
		xb_vbench_phase ph;
		ping(&ph, 4);
		if (k == 0) {
			assert_int_equal(vbench_phase_run(b.v, &ph, &err), 0);
		} else {
			assert_int_equal(vbench_phase_start(b.v, &ph, &err), 0);
			assert_int_equal(board_cycles(vbench_board(b.v)) < ph.start, 1);
			assert_int_equal(vbench_run_to(b.v, ph.start + 30 * MS), 0);
			assert_int_equal(vbench_phase_finish(b.v, &ph, &err), 0);
		}
		assert_int_equal(ph.sum.received, 4);
		r[k] = vbench_misses_per_echo(&ph);
		bench_close(&b);
	}
	assert_true(r[0] == r[1]);
}

static void test_no_usb_device(void **state)
{
	(void)state;
	char *elf = tp_program_path("hello", "elf");
	bench b;
	bench_open(&b, elf);
	free(elf);
	xb_err err;
	assert_int_equal(vbench_bring_up(b.v, 50 * MS, &err), -1);
	assert_non_null(strstr(err.msg, "USB"));
	assert_non_null(strstr(err.msg, "link down"));
	assert_false(vbench_ready(b.v));
	assert_false(vbench_configured(b.v, NULL));
	bench_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bring_up_and_ping_windows),
		cmocka_unit_test(test_phase_in_two_steps),
		cmocka_unit_test(test_no_usb_device),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
