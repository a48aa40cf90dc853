/* watchdog: the RP2040's WATCHDOG block on the virtual Pico: the 1 us tick generator that
 * clocks TIMER, the countdown that resets the chip, REASON and the scratch registers. */
#include <stdlib.h>

#include "periph.h"

enum {
	WD_CTRL = 0x00,
	WD_LOAD = 0x04,
	WD_REASON = 0x08,
	WD_SCRATCH0 = 0x0C,
	WD_SCRATCH7 = 0x28,
	WD_TICK = 0x2C,
};

#define WD_CTRL_TRIGGER 0x80000000u
#define WD_CTRL_ENABLE 0x40000000u
#define WD_CTRL_RW 0x47000000u /* ENABLE, PAUSE_DBG1, PAUSE_DBG0, PAUSE_JTAG */
#define WD_CTRL_RESET 0x07000000u
#define WD_TIME_MASK 0x00FFFFFFu
#define WD_REASON_TIMER 0x1u
#define WD_REASON_FORCE 0x2u
#define WD_TICK_CYCLES 0x1FFu
#define WD_TICK_ENABLE 0x200u
#define WD_TICK_RUNNING 0x400u
#define WD_TICK_COUNT_SHIFT 11
#define WD_TICK_RESET 0x200u
/* AIRCR with VECTKEY and SYSRESETREQ: how the watchdog resets the board (see
 * watchdog_fire). */
#define WD_AIRCR 0xE000ED0Cu
#define WD_AIRCR_SYSRESETREQ 0x05FA0004u

#define WD_MAX_LISTENERS 4

typedef struct wd_listener {
	xb_tick_change_fn fn;
	void *ctx;
} wd_listener;

struct xb_watchdog {
	xb_board *board;
	/* tick generator: ticks(c) = tick_base + elapsed ticks since tick_base_cycle */
	uint32_t tick;
	uint64_t tick_base, tick_base_cycle;
	wd_listener listeners[WD_MAX_LISTENERS];
	int nlisteners;
	/* countdown: value at count_base_ticks, two per tick (RP2040-E1) while enabled */
	uint32_t ctrl;
	uint32_t count;
	uint64_t count_base_ticks;
	uint64_t count_event;
	uint64_t reset_event;
	uint32_t reason, pending_reason;
	uint32_t scratch[8];
};

static int watchdog_tick_running(const xb_watchdog *w)
{
	return (w->tick & WD_TICK_ENABLE) && (w->tick & WD_TICK_CYCLES);
}

/* CPU cycles per tick as a fraction num / XB_CLK_REF_HZ. */
static uint64_t watchdog_tick_num(const xb_watchdog *w)
{
	return (uint64_t)board_cpu_hz(w->board) * (w->tick & WD_TICK_CYCLES);
}

uint64_t watchdog_ticks(const xb_watchdog *w, uint64_t cycle)
{
	if (!watchdog_tick_running(w) || cycle <= w->tick_base_cycle)
		return w->tick_base;
	return w->tick_base + periph_muldiv(cycle - w->tick_base_cycle, XB_CLK_REF_HZ,
					    watchdog_tick_num(w));
}

uint64_t watchdog_tick_cycle(const xb_watchdog *w, uint64_t n)
{
	if (!watchdog_tick_running(w))
		return UINT64_MAX;
	if (n <= w->tick_base)
		return w->tick_base_cycle;
	return w->tick_base_cycle +
	       periph_muldiv_ceil(n - w->tick_base, watchdog_tick_num(w), XB_CLK_REF_HZ);
}

void watchdog_on_tick_change(xb_watchdog *w, xb_tick_change_fn fn, void *ctx)
{
	if (w->nlisteners < WD_MAX_LISTENERS)
		w->listeners[w->nlisteners++] = (wd_listener){fn, ctx};
}

/* ---- The countdown ---- */

static uint32_t watchdog_time(const xb_watchdog *w)
{
	if (!(w->ctrl & WD_CTRL_ENABLE))
		return w->count;
	uint64_t used = 2 * (watchdog_ticks(w, board_cycles(w->board)) - w->count_base_ticks);
	return used >= w->count ? 0 : w->count - (uint32_t)used;
}

/* Freezes the countdown's value at now (before its rate or state changes). */
static void watchdog_count_rebase(xb_watchdog *w)
{
	w->count = watchdog_time(w);
	w->count_base_ticks = watchdog_ticks(w, board_cycles(w->board));
}

static void watchdog_reset_event(xb_board *b, void *ctx)
{
	xb_watchdog *w = ctx;
	w->reset_event = 0;
	/* The board has no call for a reset from a device; AIRCR.SYSRESETREQ through the bus,
	 * between instructions, is the system reset board_run performs. */
	bus_write(board_bus(b), WD_AIRCR, 4, WD_AIRCR_SYSRESETREQ);
}

/* Resets the chip for reason (REASON reads it after the reset). */
static void watchdog_fire(xb_watchdog *w, uint32_t reason)
{
	w->pending_reason = reason;
	if (!w->reset_event)
		w->reset_event = board_schedule(w->board, board_cycles(w->board),
						watchdog_reset_event, w);
}

static void watchdog_count_event(xb_board *b, void *ctx);

static void watchdog_count_schedule(xb_watchdog *w)
{
	if (w->count_event)
		board_cancel(w->board, w->count_event);
	w->count_event = 0;
	if (!(w->ctrl & WD_CTRL_ENABLE))
		return;
	uint64_t zero = w->count_base_ticks + (w->count + 1) / 2;
	uint64_t at = watchdog_tick_cycle(w, zero);
	if (at != UINT64_MAX)
		w->count_event = board_schedule(w->board, at, watchdog_count_event, w);
}

static void watchdog_count_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_watchdog *w = ctx;
	w->count_event = 0;
	if (!(w->ctrl & WD_CTRL_ENABLE))
		return;
	if (watchdog_time(w) == 0)
		watchdog_fire(w, WD_REASON_TIMER);
	else
		watchdog_count_schedule(w); /* ran early: try again */
}

/* ---- Registers ---- */

static void watchdog_set_tick(xb_watchdog *w, uint32_t tick)
{
	tick &= WD_TICK_ENABLE | WD_TICK_CYCLES;
	if (tick == w->tick)
		return;
	uint64_t now = board_cycles(w->board);
	watchdog_count_rebase(w);
	w->tick_base = watchdog_ticks(w, now);
	w->tick_base_cycle = now;
	w->tick = tick;
	w->count_base_ticks = w->tick_base;
	watchdog_count_schedule(w);
	for (int i = 0; i < w->nlisteners; i++)
		w->listeners[i].fn(w->listeners[i].ctx);
}

static uint32_t watchdog_tick_reg(const xb_watchdog *w)
{
	uint32_t v = w->tick;
	if (watchdog_tick_running(w)) {
		uint32_t cycles = w->tick & WD_TICK_CYCLES;
		uint64_t refs = periph_muldiv(board_cycles(w->board) - w->tick_base_cycle,
					      XB_CLK_REF_HZ, board_cpu_hz(w->board));
		v |= WD_TICK_RUNNING | (cycles - (uint32_t)(refs % cycles)) << WD_TICK_COUNT_SHIFT;
	}
	return v;
}

static uint32_t watchdog_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_watchdog *w = ctx;
	if (off >= WD_SCRATCH0 && off <= WD_SCRATCH7)
		return w->scratch[(off - WD_SCRATCH0) / 4];
	switch (off) {
	case WD_CTRL:
		return w->ctrl | watchdog_time(w);
	case WD_LOAD:
		return 0; /* write-only */
	case WD_REASON:
		return w->reason;
	case WD_TICK:
		return watchdog_tick_reg(w);
	}
	bus_report_hole(board_bus(w->board));
	return 0;
}

static void watchdog_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
			   enum xb_alias_op op)
{
	(void)size;
	xb_watchdog *w = ctx;
	if (off >= WD_SCRATCH0 && off <= WD_SCRATCH7) {
		uint32_t *s = &w->scratch[(off - WD_SCRATCH0) / 4];
		*s = periph_rw(*s, value, op, 0xFFFFFFFFu);
		return;
	}
	switch (off) {
	case WD_CTRL: {
		uint32_t raw = bus_alias_apply(w->ctrl, value, op);
		watchdog_count_rebase(w);
		w->ctrl = raw & WD_CTRL_RW;
		watchdog_count_schedule(w);
		if (raw & WD_CTRL_TRIGGER)
			watchdog_fire(w, WD_REASON_FORCE);
		return;
	}
	case WD_LOAD:
		w->count = bus_alias_apply(0, value, op) & WD_TIME_MASK;
		w->count_base_ticks = watchdog_ticks(w, board_cycles(w->board));
		watchdog_count_schedule(w);
		return;
	case WD_REASON:
		return; /* read-only */
	case WD_TICK:
		watchdog_set_tick(w,
				  periph_rw(w->tick, value, op, WD_TICK_ENABLE | WD_TICK_CYCLES));
		return;
	}
	bus_report_hole(board_bus(w->board));
}

static const xb_device_ops watchdog_ops = {
	.read = watchdog_read,
	.write = watchdog_write,
};

/* The watchdog is reset only at power-on (rst_n_run, datasheet 4.7.1): a system reset
 * keeps its registers, scratch and tick, and REASON tells whether it caused the reset. */
static void watchdog_system_reset(xb_board *b, void *ctx)
{
	(void)b;
	xb_watchdog *w = ctx;
	w->reason = w->pending_reason;
	w->pending_reason = 0;
}

xb_watchdog *watchdog_new(xb_board *b)
{
	xb_watchdog *w = xcalloc(1, sizeof *w);
	w->board = b;
	w->ctrl = WD_CTRL_RESET;
	w->tick = WD_TICK_RESET;
	w->tick_base_cycle = board_cycles(b);
	if (bus_map(board_bus(b), XB_WATCHDOG_BASE, 0x30, "WATCHDOG", &watchdog_ops, w)) {
		free(w);
		return NULL;
	}
	board_on_reset(b, watchdog_system_reset, w);
	return w;
}

void watchdog_free(xb_watchdog *w)
{
	free(w);
}
