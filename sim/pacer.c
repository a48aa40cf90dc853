/* pacer: pacing the virtual Pico to the wall clock (see pacer.h). */
#include "pacer.h"

#include <math.h>

#define NS_PER_S 1000000000.0
#define RATIO_WINDOW_NS 1000000000u

static void anchor(xb_pacer *p, uint64_t now_ns, uint64_t cycles)
{
	p->origin_ns = now_ns;
	p->origin_cycles = cycles;
}

void pacer_init(xb_pacer *p, uint32_t cpu_hz, double speed, uint64_t now_ns, uint64_t cycles)
{
	p->hz = cpu_hz ? cpu_hz : 1;
	p->speed = speed > 0 ? speed : 1.0;
	p->paused = 0;
	p->slice = (uint64_t)p->hz * PACER_SLICE_MS / 1000u;
	if (!p->slice)
		p->slice = 1;
	p->max_lag = (uint64_t)p->hz * PACER_MAX_LAG_MS / 1000u;
	if (p->max_lag < p->slice)
		p->max_lag = p->slice;
	p->step = 0;
	p->dropped = 0;
	p->win_ns = now_ns;
	p->win_cycles = cycles;
	p->ratio = NAN;
	anchor(p, now_ns, cycles);
}

/* Where the board should be at now_ns. */
static uint64_t target(const xb_pacer *p, uint64_t now_ns)
{
	if (now_ns <= p->origin_ns)
		return p->origin_cycles;
	double c = (double)(now_ns - p->origin_ns) * p->hz * p->speed / NS_PER_S;
	return p->origin_cycles + (uint64_t)c;
}

uint64_t pacer_allow(xb_pacer *p, uint64_t now_ns, uint64_t cycles)
{
	if (p->paused)
		return p->step;
	uint64_t t = target(p, now_ns);
	if (t <= cycles)
		return 0;
	uint64_t behind = t - cycles;
	if (behind > p->max_lag) {
		/* the host could not keep up: give the excess up rather than race to catch it */
		p->dropped += behind - p->max_lag;
		double ns = (double)p->max_lag * NS_PER_S / (p->hz * p->speed);
		anchor(p, now_ns - (uint64_t)ns, cycles);
		behind = p->max_lag;
	}
	return behind;
}

uint64_t pacer_when_ns(const xb_pacer *p, uint64_t at)
{
	if (at <= p->origin_cycles)
		return p->origin_ns;
	double ns = (double)(at - p->origin_cycles) * NS_PER_S / (p->hz * p->speed);
	return p->origin_ns + (uint64_t)ceil(ns);
}

uint64_t pacer_next_ns(const xb_pacer *p, uint64_t cycles)
{
	if (p->paused)
		return p->step ? 0 : UINT64_MAX;
	return pacer_when_ns(p, cycles + p->slice);
}

void pacer_ran(xb_pacer *p, uint64_t ran, uint64_t now_ns, uint64_t cycles)
{
	if (p->paused)
		p->step = ran >= p->step ? 0 : p->step - ran;
	if (now_ns >= p->win_ns + RATIO_WINDOW_NS) {
		double wall = (double)(now_ns - p->win_ns) / NS_PER_S;
		double virt = (double)(cycles - p->win_cycles) / p->hz;
		p->ratio = virt / wall;
		p->win_ns = now_ns;
		p->win_cycles = cycles;
	}
}

void pacer_set_speed(xb_pacer *p, double speed, uint64_t now_ns, uint64_t cycles)
{
	if (!(speed > 0))
		return;
	p->speed = speed;
	anchor(p, now_ns, cycles);
}

void pacer_pause(xb_pacer *p, int paused, uint64_t now_ns, uint64_t cycles)
{
	if (p->paused == !!paused)
		return;
	p->paused = !!paused;
	p->step = 0;
	anchor(p, now_ns, cycles);
	p->win_ns = now_ns;
	p->win_cycles = cycles;
	if (p->paused)
		p->ratio = 0;
}

void pacer_step(xb_pacer *p)
{
	if (p->paused)
		p->step += p->slice;
}

double pacer_ratio(const xb_pacer *p)
{
	return p->ratio;
}
