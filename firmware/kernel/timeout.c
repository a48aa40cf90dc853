/* timeout.c: kernel timeouts as a delta list, the tick announcements of the tickless clock
 * driver, and uptime. */
#include "drivers/sys_clock.h"
#include "kernel_internal.h"

/* Longest single wait asked of the clock driver: keeps its 32-bit microsecond arithmetic
 * far from wrapping. Longer timeouts simply take more than one announcement. */
#define MAX_WAIT_TICKS (10 * K_TICKS_PER_SEC)

static sys_dlist_t timeout_list = SYS_DLIST_STATIC_INIT(timeout_list);
static int64_t curr_tick;       /* ticks announced so far */
static int32_t announce_remaining; /* non-zero while sys_clock_announce runs expirations */

static struct _timeout *first(void)
{
	sys_dnode_t *n = sys_dlist_peek_head(&timeout_list);
	return n ? CONTAINER_OF(n, struct _timeout, node) : NULL;
}

static struct _timeout *next(struct _timeout *t)
{
	sys_dnode_t *n = sys_dlist_peek_next(&timeout_list, &t->node);
	return n ? CONTAINER_OF(n, struct _timeout, node) : NULL;
}

/* Ticks that passed since the last announcement but are not yet announced; during an
 * announcement the list is already up to date. */
static int32_t elapsed(void)
{
	return announce_remaining == 0 ? (int32_t)sys_clock_elapsed() : 0;
}

static k_ticks_t next_timeout(void)
{
	struct _timeout *to = first();
	if (!to)
		return K_TICKS_FOREVER;
	int32_t ticks = to->dticks - elapsed();
	if (ticks < 0)
		ticks = 0;
	return MIN(ticks, MAX_WAIT_TICKS);
}

k_ticks_t z_next_timeout_ticks(void)
{
	return next_timeout();
}

void z_add_timeout(struct _timeout *to, _timeout_func_t fn, k_timeout_t timeout)
{
	if (k_timeout_is_forever(timeout))
		return;
	k_ticks_t ticks = MAX(timeout.ticks, 1);

	unsigned key = irq_lock();
	to->fn = fn;
	to->dticks = ticks + elapsed();
	struct _timeout *t;
	for (t = first(); t; t = next(t)) {
		if (t->dticks > to->dticks) {
			t->dticks -= to->dticks;
			sys_dlist_insert_before(&t->node, &to->node);
			break;
		}
		to->dticks -= t->dticks;
	}
	if (!t)
		sys_dlist_append(&timeout_list, &to->node);
	if (to == first() && announce_remaining == 0)
		sys_clock_set_timeout(next_timeout(), false);
	irq_unlock(key);
}

int z_abort_timeout(struct _timeout *to)
{
	int ret = -EINVAL;
	unsigned key = irq_lock();
	if (!z_is_inactive_timeout(to)) {
		struct _timeout *n = next(to);
		if (n)
			n->dticks += to->dticks;
		sys_dlist_remove(&to->node);
		ret = 0;
	}
	irq_unlock(key);
	return ret;
}

k_ticks_t z_timeout_remaining(const struct _timeout *to)
{
	if (z_is_inactive_timeout(to))
		return 0;
	k_ticks_t ticks = 0;
	for (struct _timeout *t = first(); t; t = next(t)) {
		ticks += t->dticks;
		if (t == to)
			break;
	}
	return MAX(ticks - elapsed(), 0);
}

void sys_clock_announce(int32_t ticks)
{
	unsigned key = irq_lock();
	announce_remaining = ticks;
	struct _timeout *t;
	while ((t = first()) != NULL && t->dticks <= announce_remaining) {
		int32_t dt = t->dticks;
		curr_tick += dt;
		announce_remaining -= dt;
		t->dticks = 0;
		sys_dlist_remove(&t->node);
		t->fn(t);
	}
	t = first();
	if (t)
		t->dticks -= announce_remaining;
	curr_tick += announce_remaining;
	announce_remaining = 0;
	sys_clock_set_timeout(next_timeout(), false);
	z_reschedule(key);
}

int64_t k_uptime_ticks(void)
{
	unsigned key = irq_lock();
	int64_t t = curr_tick + elapsed();
	irq_unlock(key);
	return t;
}

int64_t k_uptime_get(void)
{
	return k_uptime_ticks() / (K_TICKS_PER_SEC / 1000);
}

uint32_t k_uptime_get_32(void)
{
	return (uint32_t)k_uptime_get();
}

k_timepoint_t sys_timepoint_calc(k_timeout_t timeout)
{
	k_timepoint_t tp;
	if (k_timeout_is_forever(timeout))
		tp.tick = INT64_MAX;
	else if (k_timeout_is_no_wait(timeout))
		tp.tick = 0;
	else
		tp.tick = k_uptime_ticks() + timeout.ticks;
	return tp;
}

k_timeout_t sys_timepoint_timeout(k_timepoint_t tp)
{
	if (tp.tick == INT64_MAX)
		return K_FOREVER;
	if (tp.tick == 0)
		return K_NO_WAIT;
	int64_t left = tp.tick - k_uptime_ticks();
	if (left <= 0)
		return K_NO_WAIT;
	return K_TICKS(left > INT32_MAX ? INT32_MAX : (k_ticks_t)left);
}

uint32_t k_cycle_get_32(void)
{
	return sys_clock_cycle_get_32();
}

uint64_t k_cycle_get_64(void)
{
	return sys_clock_cycle_get_64();
}

void k_busy_wait(uint32_t us)
{
	uint32_t start = sys_clock_cycle_get_32();
	while (sys_clock_cycle_get_32() - start < us)
		;
}
