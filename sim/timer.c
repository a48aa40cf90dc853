/* timer: the RP2040's TIMER on the virtual Pico: a 64-bit microsecond counter clocked by the
 * watchdog tick, computed from virtual time, and four alarms that fire as board events. */
#include <stdlib.h>

#include "periph.h"

enum {
	TIMER_TIMEHW = 0x00,
	TIMER_TIMELW = 0x04,
	TIMER_TIMEHR = 0x08,
	TIMER_TIMELR = 0x0C,
	TIMER_ALARM0 = 0x10,
	TIMER_ALARM3 = 0x1C,
	TIMER_ARMED = 0x20,
	TIMER_TIMERAWH = 0x24,
	TIMER_TIMERAWL = 0x28,
	TIMER_DBGPAUSE = 0x2C,
	TIMER_PAUSE = 0x30,
	TIMER_INTR = 0x34,
	TIMER_INTE = 0x38,
	TIMER_INTF = 0x3C,
	TIMER_INTS = 0x40,
};

#define TIMER_ALARMS 4
#define TIMER_ALARM_MASK 0xFu
#define TIMER_DBGPAUSE_MASK 0x6u
#define TIMER_DBGPAUSE_RESET 0x7u

/*
 * The counter is a function of the watchdog's tick count T (watchdog_ticks): while it
 * counts (TIMER out of reset, PAUSE clear) it is base_value + (T - base_ticks); otherwise
 * it holds base_value. Anything that starts or stops it, or writes it, rebases. An armed
 * alarm whose value the low word will reach after delta ticks fires at tick T + delta:
 * its event is scheduled at the cycle of that tick and rescheduled whenever the tick's
 * rate or the counter changes.
 */
typedef struct timer_alarm_ref {
	struct xb_timer *t;
	unsigned n;
} timer_alarm_ref;

struct xb_timer {
	xb_board *board;
	xb_watchdog *wd;
	xb_resets *resets;
	uint64_t base_value, base_ticks;
	int in_reset;
	uint32_t timelw;      /* held until TIMEHW is written */
	uint32_t latched_hi;  /* TIMEHR: the high word when TIMELR was read */
	uint32_t alarm[TIMER_ALARMS];
	uint64_t alarm_tick[TIMER_ALARMS];
	uint64_t alarm_event[TIMER_ALARMS];
	uint32_t armed, pause, dbgpause, intr, inte, intf;
	uint32_t irq_level;
	timer_alarm_ref refs[TIMER_ALARMS]; /* the alarm events' contexts */
};

static int timer_counting(const xb_timer *t)
{
	return !t->in_reset && !(t->pause & 1);
}

static uint64_t timer_now_ticks(const xb_timer *t)
{
	return watchdog_ticks(t->wd, board_cycles(t->board));
}

uint64_t timer_count(const xb_timer *t)
{
	if (!timer_counting(t))
		return t->base_value;
	return t->base_value + (timer_now_ticks(t) - t->base_ticks);
}

static void timer_update_irq(xb_timer *t)
{
	uint32_t ints = (t->intr & t->inte) | t->intf;
	uint32_t changed = ints ^ t->irq_level;
	t->irq_level = ints;
	for (unsigned n = 0; n < TIMER_ALARMS; n++)
		if ((changed >> n) & 1)
			board_irq_set(t->board, XB_IRQ_TIMER0 + n, (int)((ints >> n) & 1));
}

static void timer_fire(xb_timer *t, unsigned n)
{
	t->armed &= ~(1u << n);
	t->intr |= 1u << n;
	timer_update_irq(t);
}

static void timer_alarm_event(xb_board *b, void *ctx);

static void timer_cancel(xb_timer *t, unsigned n)
{
	if (t->alarm_event[n])
		board_cancel(t->board, t->alarm_event[n]);
	t->alarm_event[n] = 0;
}

/* (Re)computes when armed alarm n fires; fires it now if the low word already matches. */
static void timer_schedule(xb_timer *t, unsigned n)
{
	timer_cancel(t, n);
	if (!((t->armed >> n) & 1))
		return;
	uint32_t delta = t->alarm[n] - (uint32_t)timer_count(t);
	if (delta == 0) {
		timer_fire(t, n);
		return;
	}
	if (!timer_counting(t))
		return;
	t->alarm_tick[n] = timer_now_ticks(t) + delta;
	uint64_t at = watchdog_tick_cycle(t->wd, t->alarm_tick[n]);
	if (at != UINT64_MAX)
		t->alarm_event[n] = board_schedule(t->board, at, timer_alarm_event, &t->refs[n]);
}

static void timer_schedule_all(xb_timer *t)
{
	for (unsigned n = 0; n < TIMER_ALARMS; n++)
		timer_schedule(t, n);
}

static void timer_alarm_event(xb_board *b, void *ctx)
{
	(void)b;
	timer_alarm_ref *ref = ctx;
	xb_timer *t = ref->t;
	t->alarm_event[ref->n] = 0;
	/* Late events (a long stall) still fire: the match happened during the stall. */
	if (timer_now_ticks(t) >= t->alarm_tick[ref->n])
		timer_fire(t, ref->n);
	else
		timer_schedule(t, ref->n);
}

/* Freezes the counter's value at now, before it starts, stops or is written. */
static void timer_rebase(xb_timer *t)
{
	t->base_value = timer_count(t);
	t->base_ticks = timer_now_ticks(t);
}

static void timer_tick_changed(void *ctx)
{
	timer_schedule_all(ctx);
}

/* ---- Registers ---- */

static uint32_t timer_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_timer *t = ctx;
	if (off >= TIMER_ALARM0 && off <= TIMER_ALARM3)
		return t->alarm[(off - TIMER_ALARM0) / 4];
	switch (off) {
	case TIMER_TIMEHW:
	case TIMER_TIMELW:
		return 0; /* write-only */
	case TIMER_TIMEHR:
		return t->latched_hi;
	case TIMER_TIMELR: {
		uint64_t now = timer_count(t);
		if (!bus_access_is_debug(board_bus(t->board)))
			t->latched_hi = (uint32_t)(now >> 32);
		return (uint32_t)now;
	}
	case TIMER_ARMED:
		return t->armed;
	case TIMER_TIMERAWH:
		return (uint32_t)(timer_count(t) >> 32);
	case TIMER_TIMERAWL:
		return (uint32_t)timer_count(t);
	case TIMER_DBGPAUSE:
		return t->dbgpause;
	case TIMER_PAUSE:
		return t->pause;
	case TIMER_INTR:
		return t->intr;
	case TIMER_INTE:
		return t->inte;
	case TIMER_INTF:
		return t->intf;
	case TIMER_INTS:
		return (t->intr & t->inte) | t->intf;
	}
	bus_report_hole(board_bus(t->board));
	return 0;
}

static void timer_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
			enum xb_alias_op op)
{
	(void)size;
	xb_timer *t = ctx;
	if (off >= TIMER_ALARM0 && off <= TIMER_ALARM3) {
		unsigned n = (off - TIMER_ALARM0) / 4;
		t->alarm[n] = bus_alias_apply(t->alarm[n], value, op);
		t->armed |= 1u << n; /* a write arms */
		timer_schedule(t, n);
		return;
	}
	switch (off) {
	case TIMER_TIMEHW:
		timer_rebase(t);
		t->base_value = (uint64_t)bus_alias_apply(0, value, op) << 32 | t->timelw;
		timer_schedule_all(t);
		return;
	case TIMER_TIMELW:
		t->timelw = bus_alias_apply(0, value, op);
		return;
	case TIMER_ARMED:
		t->armed = periph_wc(t->armed, value & TIMER_ALARM_MASK);
		for (unsigned n = 0; n < TIMER_ALARMS; n++)
			if (!((t->armed >> n) & 1))
				timer_cancel(t, n);
		return;
	case TIMER_DBGPAUSE:
		t->dbgpause = periph_rw(t->dbgpause, value, op, TIMER_DBGPAUSE_MASK);
		return;
	case TIMER_PAUSE:
		timer_rebase(t);
		t->pause = periph_rw(t->pause, value, op, 1);
		timer_schedule_all(t);
		return;
	case TIMER_INTR:
		t->intr = periph_wc(t->intr, value & TIMER_ALARM_MASK);
		break;
	case TIMER_INTE:
		t->inte = periph_rw(t->inte, value, op, TIMER_ALARM_MASK);
		break;
	case TIMER_INTF:
		t->intf = periph_rw(t->intf, value, op, TIMER_ALARM_MASK);
		break;
	case TIMER_TIMEHR:
	case TIMER_TIMELR:
	case TIMER_TIMERAWH:
	case TIMER_TIMERAWL:
	case TIMER_INTS:
		return; /* read-only */
	default:
		bus_report_hole(board_bus(t->board));
		return;
	}
	timer_update_irq(t);
}

static const xb_device_ops timer_ops = {
	.read = timer_read,
	.write = timer_write,
};

/* RESETS bit 21: held in reset, the timer is at its reset state and does not count. */
static void timer_block_reset(void *ctx, int held)
{
	xb_timer *t = ctx;
	if (!held) {
		timer_rebase(t);
		t->in_reset = 0;
		timer_schedule_all(t);
		return;
	}
	for (unsigned n = 0; n < TIMER_ALARMS; n++) {
		timer_cancel(t, n);
		t->alarm[n] = 0;
	}
	t->in_reset = 1;
	t->base_value = 0;
	t->base_ticks = timer_now_ticks(t);
	t->timelw = t->latched_hi = 0;
	t->armed = t->pause = t->intr = t->inte = t->intf = 0;
	t->dbgpause = TIMER_DBGPAUSE_RESET;
	timer_update_irq(t);
}

xb_timer *timer_new(xb_board *b, xb_watchdog *w, xb_resets *r)
{
	xb_timer *t = xcalloc(1, sizeof *t);
	t->board = b;
	t->wd = w;
	t->resets = r;
	t->in_reset = resets_held(r, XB_RESET_TIMER);
	t->dbgpause = TIMER_DBGPAUSE_RESET;
	t->base_ticks = timer_now_ticks(t);
	for (unsigned n = 0; n < TIMER_ALARMS; n++)
		t->refs[n] = (timer_alarm_ref){t, n};
	if (bus_map(board_bus(b), XB_TIMER_BASE, 0x44, "TIMER", &timer_ops, t)) {
		free(t);
		return NULL;
	}
	resets_on_block(r, XB_RESET_TIMER, timer_block_reset, t);
	watchdog_on_tick_change(w, timer_tick_changed, t);
	return t;
}

void timer_free(xb_timer *t)
{
	free(t);
}
