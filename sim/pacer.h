/* pacer: paces the virtual Pico to the wall clock. It answers two questions for the loop
 * that runs the board: how many cycles may run now, and when the next slice is due. Its
 * origin stays put (changing the speed, pausing and resuming move it), so a board that
 * fell behind for a moment catches up, up to a bound beyond which the lost time is given
 * up and counted; pause and single steps of a slice; the ratio of virtual to wall time.
 * Time comes in as an argument: the clock is the caller's (injectable in tests). */
#ifndef XB_SIM_PACER_H
#define XB_SIM_PACER_H

#include <stdint.h>

#define PACER_SLICE_MS 1u      /* a slice: 1 ms of board time */
#define PACER_MAX_LAG_MS 250u  /* how far behind the board may fall before time is given up */

typedef struct xb_pacer {
	uint32_t hz;            /* board cycles per virtual second */
	double speed;           /* virtual seconds per wall second */
	int paused;
	uint64_t origin_ns;     /* wall time at which the board was at origin_cycles */
	uint64_t origin_cycles;
	uint64_t slice;         /* cycles of one slice */
	uint64_t max_lag;       /* cycles */
	uint64_t step;          /* paused: cycles single steps still allow */
	uint64_t dropped;       /* cycles given up because the host was too slow */
	/* the ratio, measured over windows of about a second */
	uint64_t win_ns, win_cycles;
	double ratio;           /* NaN before the first window */
} xb_pacer;

/* A pacer at speed (> 0; 1.0 real time) for a board of cpu_hz that is at cycles now. */
void pacer_init(xb_pacer *p, uint32_t cpu_hz, double speed, uint64_t now_ns, uint64_t cycles);
/* The cycles the board (at `cycles`) may run now: up to where the wall clock says it
 * should be (paused: what single steps allow). When that is more than max_lag ahead of
 * the board, the origin moves so that it is max_lag ahead and the rest is counted in
 * dropped. Run it in slices (at most p->slice at a time) and ask again. */
uint64_t pacer_allow(xb_pacer *p, uint64_t now_ns, uint64_t cycles);
/* The wall time at which a board at `cycles` may run its next whole slice; UINT64_MAX
 * while paused with no step left. */
uint64_t pacer_next_ns(const xb_pacer *p, uint64_t cycles);
/* The wall time at which the wall clock reaches board cycle `at` (not paused). */
uint64_t pacer_when_ns(const xb_pacer *p, uint64_t at);
/* Tells the pacer that ran cycles ran (steps are used up) and where the board is now, for
 * the ratio. */
void pacer_ran(xb_pacer *p, uint64_t ran, uint64_t now_ns, uint64_t cycles);
/* New speed (> 0), from now on. */
void pacer_set_speed(xb_pacer *p, double speed, uint64_t now_ns, uint64_t cycles);
/* Pause (1) or resume (0); resuming starts again from where the board is. */
void pacer_pause(xb_pacer *p, int paused, uint64_t now_ns, uint64_t cycles);
/* While paused: allow one more slice. */
void pacer_step(xb_pacer *p);
/* Virtual seconds per wall second over the last window (about a second); NaN before one
 * has passed. While paused it is 0. */
double pacer_ratio(const xb_pacer *p);

#endif
