/* realtime: paces the virtual Pico to the wall clock. */
#include "realtime.h"

#include <time.h>

static uint64_t system_now_ns(void *ctx)
{
	(void)ctx;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void system_sleep_ns(void *ctx, uint64_t ns)
{
	(void)ctx;
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
	while (nanosleep(&ts, &ts) != 0)
		;
}

static const xb_clock system_clock = {system_now_ns, system_sleep_ns, NULL};

const xb_clock *realtime_system_clock(void)
{
	return &system_clock;
}

uint64_t realtime_slice_cycles(const xb_pico *p)
{
	uint64_t hz = board_cpu_hz(pico_board((xb_pico *)p));
	return hz / 1000 ? hz / 1000 : 1;
}

enum xb_pico_stop realtime_run(xb_pico *p, uint64_t cycles, double speed, const xb_clock *clk)
{
	xb_board *b = pico_board(p);
	double hz = (double)board_cpu_hz(b) * (speed > 0 ? speed : 1.0);
	uint64_t start_cycles = board_cycles(b), end = start_cycles + cycles;
	uint64_t start_ns = clk->now_ns(clk->ctx);
	uint64_t slice = realtime_slice_cycles(p);
	enum xb_pico_stop s = XB_PICO_BUDGET;
	for (uint64_t now = board_cycles(b); now < end; now = board_cycles(b)) {
		uint64_t step = end - now < slice ? end - now : slice;
		/* the wall time at which the slice's end is due */
		uint64_t due_ns = start_ns + (uint64_t)((double)(now + step - start_cycles) / hz * 1e9);
		uint64_t t = clk->now_ns(clk->ctx);
		if (t < due_ns)
			clk->sleep_ns(clk->ctx, due_ns - t);
		s = pico_run(p, step);
		if (s != XB_PICO_BUDGET)
			break;
	}
	return s;
}
