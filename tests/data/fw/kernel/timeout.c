/* timeout.c: the timeout list (sorted by expiry) and the millisecond uptime. */
#include "fw.h"

static struct k_timeout *timeouts;
static uint32_t last_tick_ms;

uint32_t k_uptime_ms(void)
{
	return timer_now_us() / 1000u;
}

void k_timeout_add(struct k_timeout *t, uint32_t delay_ms, void (*fn)(struct k_timeout *t))
{
	t->expires = k_uptime_ms() + delay_ms;
	t->fn = fn;
	struct k_timeout **pp = &timeouts;
	while (*pp && (int32_t)((*pp)->expires - t->expires) <= 0)
		pp = &(*pp)->next;
	t->next = *pp;
	*pp = t;
	timer_arm(timeouts->expires * 1000u);
}

void k_timeout_abort(struct k_timeout *t)
{
	for (struct k_timeout **pp = &timeouts; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			t->next = NULL;
			return;
		}
	}
}

void k_timeout_tick(uint32_t now_ms)
{
	last_tick_ms = now_ms;
	while (timeouts && (int32_t)(timeouts->expires - now_ms) <= 0) {
		struct k_timeout *t = timeouts;
		timeouts = t->next;
		t->next = NULL;
		t->fn(t);
	}
	if (timeouts)
		timer_arm(timeouts->expires * 1000u);
}
