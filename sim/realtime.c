/* realtime: paces the virtual Pico to the wall clock, with the pacer (sim/pacer.h). */
#include "realtime.h"

#include <time.h>

#include "pacer.h"

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
	uint64_t end = board_cycles(b) + cycles;
	xb_pacer pc;
	pacer_init(&pc, board_cpu_hz(b), speed, clk->now_ns(clk->ctx), board_cycles(b));
	enum xb_pico_stop s = XB_PICO_BUDGET;
	for (uint64_t now = board_cycles(b); now < end; now = board_cycles(b)) {
		uint64_t want = end - now < pc.slice ? end - now : pc.slice;
		uint64_t t = clk->now_ns(clk->ctx);
		uint64_t allow = pacer_allow(&pc, t, now);
		if (allow < want) {
			uint64_t due = pacer_when_ns(&pc, now + want);
			if (due > t)
				clk->sleep_ns(clk->ctx, due - t);
			continue;
		}
		s = pico_run(p, want);
		pacer_ran(&pc, want, t, board_cycles(b));
		if (s != XB_PICO_BUDGET)
			break;
	}
	return s;
}
