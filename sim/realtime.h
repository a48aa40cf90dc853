/* realtime: paces the virtual Pico to the wall clock, for live use and for host tools that
 * talk to it (a debugger on the probe socket, a UDP client). Virtual time never runs ahead
 * of the wall clock; it may fall behind when the host is too slow. The clock is injectable
 * so that tests check the pacing without waiting. */
#ifndef XB_REALTIME_H
#define XB_REALTIME_H

#include <stdint.h>

#include "pico.h"

typedef struct xb_clock {
	uint64_t (*now_ns)(void *ctx);            /* a monotonic clock */
	void (*sleep_ns)(void *ctx, uint64_t ns); /* waits about ns */
	void *ctx;
} xb_clock;

/* CLOCK_MONOTONIC and nanosleep. */
const xb_clock *realtime_system_clock(void);

/* Virtual cycles a paced run executes between two looks at the clock: 1 ms of board time. */
uint64_t realtime_slice_cycles(const xb_pico *p);

/* Runs p for `cycles` of virtual time (as pico_run) at `speed` times real time (1.0: real
 * time), in slices, as the pacer (sim/pacer.h) allows them: a slice runs once the wall
 * clock has reached the virtual time it ends at; a board that fell behind catches up.
 * Returns as pico_run, or early when the core halts or locks up. */
enum xb_pico_stop realtime_run(xb_pico *p, uint64_t cycles, double speed, const xb_clock *clk);

#endif
