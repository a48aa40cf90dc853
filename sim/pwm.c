/* pwm: the RP2040's PWM block on the virtual Pico (datasheet 4.5): eight slices whose
 * counters advance with clk_sys through their 8.4 fractional dividers, computed from
 * virtual time; trailing-edge and phase-correct counting, double-buffered TOP, wrap
 * interrupts (PWM_IRQ_WRAP) and one wrap DREQ per slice. The outputs do not reach the pins
 * (so CC, which only shapes them, is a plain register) and nothing drives the B inputs. */
#include <stdlib.h>

#include "periph.h"

#define PWM_SLICES 8
#define PWM_STRIDE 0x14u

enum {
	PWM_CSR = 0x00,
	PWM_DIV = 0x04,
	PWM_CTR = 0x08,
	PWM_CC = 0x0C,
	PWM_TOP = 0x10,
	PWM_EN = 0xA0,
	PWM_INTR = 0xA4,
	PWM_INTE = 0xA8,
	PWM_INTF = 0xAC,
	PWM_INTS = 0xB0,
};

#define PWM_CSR_EN 0x01u
#define PWM_CSR_PH_CORRECT 0x02u
#define PWM_CSR_DIVMODE 0x30u
#define PWM_CSR_PH_RET 0x40u
#define PWM_CSR_PH_ADV 0x80u
#define PWM_CSR_STORED 0x3Fu
#define PWM_DIV_RESET 0x10u
#define PWM_TOP_RESET 0xFFFFu

/*
 * A slice's counter walks a sequence of period L = (TOP + 1) * (PH_CORRECT + 1) positions
 * (datasheet 4.5.2.6): position q gives CTR = q in trailing-edge mode; in phase-correct
 * mode CTR = q up to TOP, then counts back down (CTR = L - 1 - q). A wrap is the move from
 * the last position to 0. Between writes the slice is described by where it was at
 * base_cycle (a cycle on which the divider ticked) and its divider: the counter ticks at
 * base_cycle + ceil(k * DIV), DIV = INT + FRAC/16 with INT 0 meaning 256 (4.5.2.4).
 */
typedef struct pwm_slice {
	struct xb_pwm *pwm;
	unsigned index;
	uint32_t csr, div, cc, top;
	uint32_t top_live;   /* the latched TOP in use until the next wrap */
	uint64_t base_cycle;
	uint32_t base_ctr;   /* CTR at base_cycle */
	int base_down;       /* phase-correct: counting down at base_cycle */
	uint64_t base_wraps; /* wraps before base_cycle */
	uint64_t wraps_seen; /* wraps already reflected in INTR */
	uint64_t event_id;   /* the next wrap's event (an IRQ or a TOP to latch) */
} pwm_slice;

struct xb_pwm {
	xb_board *board;
	xb_dma *dma;
	pwm_slice s[PWM_SLICES];
	uint32_t intr, inte, intf;
	int irq_level;
};

static int pwm_running(const pwm_slice *s)
{
	/* DIVMODE 1-3 count on the B input, which nothing drives here: the counter stands. */
	return (s->csr & PWM_CSR_EN) && !(s->csr & PWM_CSR_DIVMODE);
}

/* The divider in sixteenths of a cycle. */
static uint64_t pwm_div16(const pwm_slice *s)
{
	uint64_t integer = (s->div >> 4) & 0xFF;
	return (integer ? integer : 256) * 16 + (s->div & 0xF);
}

static uint64_t pwm_period(const pwm_slice *s)
{
	return ((uint64_t)s->top_live + 1) * ((s->csr & PWM_CSR_PH_CORRECT) ? 2 : 1);
}

/* Counter ticks from base_cycle up to cycle t. */
static uint64_t pwm_ticks(const pwm_slice *s, uint64_t t)
{
	if (!pwm_running(s) || t <= s->base_cycle)
		return 0;
	return (t - s->base_cycle) * 16 / pwm_div16(s);
}

static uint64_t pwm_tick_cycle(const pwm_slice *s, uint64_t k)
{
	return s->base_cycle + (k * pwm_div16(s) + 15) / 16;
}

/* Ticks from base_cycle to the first wrap. A counter above TOP (CTR written so) runs on to
 * 0xFFFF and wraps from there. */
static uint64_t pwm_first_wrap(const pwm_slice *s)
{
	uint64_t ctr = s->base_ctr, top = s->top_live;
	if (!(s->csr & PWM_CSR_PH_CORRECT))
		return ctr <= top ? top + 1 - ctr : 0x10000 - ctr;
	if (ctr > top)
		return 0x10000 - ctr + pwm_period(s); /* up to 0xFFFF, wraps to 0 going up */
	return s->base_down ? ctr + 1 : pwm_period(s) - ctr;
}

static uint64_t pwm_wraps_at(const pwm_slice *s, uint64_t t)
{
	uint64_t k = pwm_ticks(s, t), w0 = pwm_first_wrap(s);
	if (k < w0)
		return s->base_wraps;
	return s->base_wraps + 1 + (k - w0) / pwm_period(s);
}

static uint64_t pwm_wraps(const pwm_slice *s)
{
	return pwm_wraps_at(s, board_cycles(s->pwm->board));
}

/* The cycle of wrap number n (counted like pwm_wraps), UINT64_MAX if the slice stands. */
static uint64_t pwm_wrap_cycle(const pwm_slice *s, uint64_t n)
{
	if (!pwm_running(s))
		return UINT64_MAX;
	if (n <= s->base_wraps)
		return s->base_cycle;
	uint64_t k = pwm_first_wrap(s) + (n - s->base_wraps - 1) * pwm_period(s);
	return pwm_tick_cycle(s, k);
}

/* CTR and the direction after k ticks from base. */
static uint32_t pwm_ctr_after(const pwm_slice *s, uint64_t k, int *down)
{
	uint64_t ctr = s->base_ctr, top = s->top_live, L = pwm_period(s);
	int ph = (s->csr & PWM_CSR_PH_CORRECT) != 0;
	uint64_t w0 = pwm_first_wrap(s);
	*down = 0;
	if (k < w0) {
		if (ctr > top) {
			uint64_t v = ctr + k;
			if (v <= 0xFFFF)
				return (uint32_t)v;
			v -= 0x10000; /* phase-correct: from 0 going up */
			if (v <= top)
				return (uint32_t)v;
			*down = 1;
			return (uint32_t)(L - 1 - v);
		}
		if (!ph)
			return (uint32_t)(ctr + k);
		uint64_t q = s->base_down ? L - 1 - ctr : ctr;
		q += k;
		if (q <= top)
			return (uint32_t)q;
		*down = 1;
		return (uint32_t)(L - 1 - q);
	}
	uint64_t q = (k - w0) % L;
	if (q <= top)
		return (uint32_t)q;
	*down = 1;
	return (uint32_t)(L - 1 - q);
}

static uint32_t pwm_ctr(const pwm_slice *s)
{
	int down;
	return pwm_ctr_after(s, pwm_ticks(s, board_cycles(s->pwm->board)), &down);
}

/* Re-describes the slice from the last divider tick at or before now (so the divider's
 * phase is kept), before anything that changes its course. */
static void pwm_rebase(pwm_slice *s)
{
	uint64_t now = board_cycles(s->pwm->board);
	if (!pwm_running(s)) {
		s->base_cycle = now;
		return;
	}
	uint64_t k = pwm_ticks(s, now);
	int down;
	uint32_t ctr = pwm_ctr_after(s, k, &down);
	uint64_t wraps = pwm_wraps_at(s, now);
	s->base_cycle = pwm_tick_cycle(s, k);
	s->base_ctr = ctr;
	s->base_down = down;
	s->base_wraps = wraps;
}

/* ---- Interrupts, DREQs and wrap events ---- */

static uint32_t pwm_ints(const xb_pwm *p)
{
	return ((p->intr & p->inte) | p->intf) & 0xFF;
}

static void pwm_update_irq(xb_pwm *p)
{
	int level = pwm_ints(p) != 0;
	if (level != p->irq_level) {
		p->irq_level = level;
		board_irq_set(p->board, XB_IRQ_PWM_WRAP, level);
	}
}

/* Wraps since the last look set INTR (datasheet 4.5.2.7: every wrap raises it). */
static void pwm_sync(xb_pwm *p)
{
	for (unsigned n = 0; n < PWM_SLICES; n++) {
		pwm_slice *s = &p->s[n];
		uint64_t w = pwm_wraps(s);
		if (w > s->wraps_seen) {
			s->wraps_seen = w;
			p->intr |= 1u << n;
		}
	}
}

static void pwm_wrap_event(xb_board *b, void *ctx);

/* An event at the next wrap is needed when it would raise the IRQ line (INTE set, INTR
 * clear) or when a TOP written while running waits to be latched. */
static void pwm_schedule(pwm_slice *s)
{
	xb_pwm *p = s->pwm;
	if (s->event_id)
		board_cancel(p->board, s->event_id);
	s->event_id = 0;
	uint32_t bit = 1u << s->index;
	int irq = (p->inte & bit) && !(p->intr & bit);
	int latch = s->top != s->top_live;
	if (!pwm_running(s) || (!irq && !latch))
		return;
	uint64_t at = pwm_wrap_cycle(s, pwm_wraps(s) + 1);
	if (at != UINT64_MAX)
		s->event_id = board_schedule(p->board, at, pwm_wrap_event, s);
}

/* A change of course: the DMA and the wrap event look again. */
static void pwm_changed(pwm_slice *s)
{
	pwm_schedule(s);
	if (s->pwm->dma)
		dma_dreq_changed(s->pwm->dma);
}

static void pwm_wrap_event(xb_board *b, void *ctx)
{
	(void)b;
	pwm_slice *s = ctx;
	xb_pwm *p = s->pwm;
	s->event_id = 0;
	pwm_sync(p);
	pwm_update_irq(p);
	if (s->top != s->top_live) {
		/* The latched copy takes the written value at the wrap (4.5.2.3). */
		uint64_t w = pwm_wraps(s);
		uint64_t at = pwm_wrap_cycle(s, w);
		s->base_cycle = at;
		s->base_ctr = 0;
		s->base_down = 0;
		s->base_wraps = w;
		s->top_live = s->top;
		pwm_changed(s);
		return;
	}
	pwm_schedule(s);
}

static uint64_t pwm_dreq_count(void *ctx)
{
	return pwm_wraps(ctx);
}

static uint64_t pwm_dreq_cycle(void *ctx, uint64_t n)
{
	return pwm_wrap_cycle(ctx, n);
}

static const xb_dreq_pulse_ops pwm_dreq_ops = {
	.count = pwm_dreq_count,
	.cycle_of = pwm_dreq_cycle,
};

/* ---- Registers ---- */

/* EN: the slices' CSR_EN bits side by side. */
static uint32_t pwm_en(const xb_pwm *p)
{
	uint32_t en = 0;
	for (unsigned n = 0; n < PWM_SLICES; n++)
		en |= (p->s[n].csr & PWM_CSR_EN) << n;
	return en;
}

static uint32_t pwm_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_pwm *p = ctx;
	if (off < PWM_SLICES * PWM_STRIDE) {
		pwm_slice *s = &p->s[off / PWM_STRIDE];
		switch (off % PWM_STRIDE) {
		case PWM_CSR: return s->csr;
		case PWM_DIV: return s->div;
		case PWM_CTR: return pwm_ctr(s);
		case PWM_CC: return s->cc;
		case PWM_TOP: return s->top;
		}
	}
	switch (off) {
	case PWM_EN: return pwm_en(p);
	case PWM_INTR:
		pwm_sync(p);
		return p->intr;
	case PWM_INTE: return p->inte;
	case PWM_INTF: return p->intf;
	case PWM_INTS:
		pwm_sync(p);
		return pwm_ints(p);
	}
	bus_report_hole(board_bus(p->board));
	return 0;
}

/* A new CSR value (EN, PH_CORRECT, DIVMODE may change the course; PH_ADV/PH_RET move the
 * counter one count and clear themselves). */
static void pwm_set_csr(pwm_slice *s, uint32_t v)
{
	pwm_rebase(s);
	int was_running = pwm_running(s);
	uint32_t old = s->csr;
	s->csr = v & PWM_CSR_STORED;
	if (!(old & PWM_CSR_EN) && (s->csr & PWM_CSR_EN)) {
		/* Enabling: the latched TOP starts from the register. */
		s->top_live = s->top;
	}
	if ((old ^ s->csr) & PWM_CSR_PH_CORRECT)
		s->base_down = 0;
	if (pwm_running(s) && (v & (PWM_CSR_PH_ADV | PWM_CSR_PH_RET))) {
		/* One count ahead or behind: the base moves by one divider tick. */
		uint64_t step = (pwm_div16(s) + 15) / 16;
		if (v & PWM_CSR_PH_ADV)
			s->base_cycle = s->base_cycle >= step ? s->base_cycle - step : 0;
		else
			s->base_cycle += step;
	}
	if (!was_running || !pwm_running(s))
		s->base_cycle = board_cycles(s->pwm->board);
	pwm_changed(s);
}

static void pwm_slice_write(pwm_slice *s, uint32_t reg, uint32_t value, enum xb_alias_op op)
{
	switch (reg) {
	case PWM_CSR:
		pwm_set_csr(s, bus_alias_apply(s->csr, value, op) & 0xFF);
		return;
	case PWM_DIV:
		pwm_rebase(s);
		s->div = periph_rw(s->div, value, op, 0xFFF);
		pwm_changed(s);
		return;
	case PWM_CTR:
		pwm_rebase(s);
		s->base_ctr = periph_rw(pwm_ctr(s), value, op, 0xFFFF);
		s->base_down = 0;
		s->base_cycle = board_cycles(s->pwm->board);
		pwm_changed(s);
		return;
	case PWM_CC:
		/* CC's latch at the wrap is not modelled: the outputs do not reach the pins. */
		s->cc = bus_alias_apply(s->cc, value, op);
		return;
	case PWM_TOP:
		s->top = periph_rw(s->top, value, op, 0xFFFF);
		if (!pwm_running(s)) {
			s->top_live = s->top;
			pwm_changed(s);
		} else {
			pwm_schedule(s); /* latched at the next wrap */
		}
		return;
	}
}

static void pwm_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		      enum xb_alias_op op)
{
	(void)size;
	xb_pwm *p = ctx;
	if (off < PWM_SLICES * PWM_STRIDE) {
		pwm_slice_write(&p->s[off / PWM_STRIDE], off % PWM_STRIDE, value, op);
		return;
	}
	switch (off) {
	case PWM_EN: {
		uint32_t en = pwm_en(p);
		uint32_t nv = periph_rw(en, value, op, 0xFF);
		/* All slices change together: the same cycle for every one (the EN register). */
		for (unsigned n = 0; n < PWM_SLICES; n++)
			if (((nv ^ en) >> n) & 1)
				pwm_set_csr(&p->s[n], (p->s[n].csr & ~PWM_CSR_EN) | ((nv >> n) & 1));
		return;
	}
	case PWM_INTR:
		pwm_sync(p);
		p->intr = periph_wc(p->intr, value & 0xFF);
		break;
	case PWM_INTE:
		p->inte = periph_rw(p->inte, value, op, 0xFF);
		break;
	case PWM_INTF:
		p->intf = periph_rw(p->intf, value, op, 0xFF);
		break;
	case PWM_INTS:
		return; /* read-only */
	default:
		bus_report_hole(board_bus(p->board));
		return;
	}
	pwm_update_irq(p);
	for (unsigned n = 0; n < PWM_SLICES; n++)
		pwm_schedule(&p->s[n]);
}

static const xb_device_ops pwm_ops = {
	.read = pwm_read,
	.write = pwm_write,
};

/* RESETS bit 14 (and a system reset): every slice stopped at its reset values. */
static void pwm_block_reset(void *ctx, int held)
{
	xb_pwm *p = ctx;
	if (!held)
		return;
	uint64_t now = board_cycles(p->board);
	for (unsigned n = 0; n < PWM_SLICES; n++) {
		pwm_slice *s = &p->s[n];
		if (s->event_id)
			board_cancel(p->board, s->event_id);
		uint64_t wraps = s->base_wraps; /* the DREQ pulse count never runs backwards */
		if (pwm_running(s))
			wraps = pwm_wraps(s);
		*s = (pwm_slice){.pwm = p, .index = n, .div = PWM_DIV_RESET, .top = PWM_TOP_RESET,
				 .top_live = PWM_TOP_RESET, .base_cycle = now, .base_wraps = wraps,
				 .wraps_seen = wraps};
	}
	p->intr = p->inte = p->intf = 0;
	pwm_update_irq(p);
}

xb_pwm *pwm_new(xb_board *b, xb_resets *r, xb_dma *d)
{
	xb_pwm *p = xcalloc(1, sizeof *p);
	p->board = b;
	p->dma = d;
	pwm_block_reset(p, 1);
	if (bus_map(board_bus(b), XB_PWM_BASE, 0xB4, "PWM", &pwm_ops, p)) {
		free(p);
		return NULL;
	}
	resets_on_block(r, XB_RESET_PWM, pwm_block_reset, p);
	if (d)
		for (unsigned n = 0; n < PWM_SLICES; n++)
			dma_dreq_pulse_source(d, XB_DREQ_PWM_WRAP0 + n, &pwm_dreq_ops, &p->s[n]);
	return p;
}

void pwm_free(xb_pwm *p)
{
	free(p);
}
