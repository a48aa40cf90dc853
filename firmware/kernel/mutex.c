/* mutex.c: recursive mutexes with priority inheritance: a waiter more urgent than the owner
 * lends the owner its priority until the unlock. */
#include "kernel_internal.h"

void k_mutex_init(struct k_mutex *m)
{
	z_waitq_init(&m->wait_q);
	m->owner = NULL;
	m->lock_count = 0;
	m->owner_orig_prio = K_PRIO_LOWEST;
}

/* The priority the owner should run at: its own, or the most urgent waiter's. */
static int inherited_prio(struct k_mutex *m)
{
	int prio = m->owner_orig_prio;
	struct k_thread *w = z_waitq_head(&m->wait_q);
	if (w && w->prio < prio)
		prio = w->prio;
	return prio;
}

static int mutex_lock(struct k_mutex *m, k_timeout_t timeout)
{
	unsigned key = irq_lock();
	struct k_thread *cur = _kernel.current;
	if (likely(m->lock_count == 0 || m->owner == cur)) {
		if (m->lock_count == 0)
			m->owner_orig_prio = cur->prio;
		m->lock_count++;
		m->owner = cur;
		irq_unlock(key);
		return 0;
	}
	if (k_timeout_is_no_wait(timeout)) {
		irq_unlock(key);
		return -EBUSY;
	}
	if (cur->prio < m->owner->prio)
		z_thread_prio_set_locked(m->owner, cur->prio);
	int ret = z_pend_curr(key, &m->wait_q, timeout);
	if (ret == 0)
		return 0; /* k_mutex_unlock handed the mutex over */

	/* Timed out: the owner keeps only what the remaining waiters lend it. */
	key = irq_lock();
	if (m->owner)
		z_thread_prio_set_locked(m->owner, inherited_prio(m));
	z_reschedule(key);
	return -EAGAIN;
}

int k_mutex_lock(struct k_mutex *m, k_timeout_t timeout)
{
	int ret = mutex_lock(m, timeout);
	Z_TRACE(Z_TRACE_MUTEX_LOCK, m, ret);
	return ret;
}

int k_mutex_unlock(struct k_mutex *m)
{
	Z_TRACE(Z_TRACE_MUTEX_UNLOCK, m, (int32_t)m->lock_count);
	unsigned key = irq_lock();
	struct k_thread *cur = _kernel.current;
	if (unlikely(m->owner != cur)) {
		irq_unlock(key);
		return -EPERM;
	}
	if (--m->lock_count > 0) {
		irq_unlock(key);
		return 0;
	}
	z_thread_prio_set_locked(cur, m->owner_orig_prio);
	struct k_thread *t = z_unpend_first_thread(&m->wait_q);
	m->owner = t;
	if (t) {
		m->lock_count = 1;
		m->owner_orig_prio = t->base_prio;
		z_thread_prio_set_locked(t, inherited_prio(m));
		z_wake_thread(t, 0, NULL);
	}
	z_reschedule(key);
	return 0;
}
