/* sem.c: counting semaphores. */
#include "kernel_internal.h"

void k_sem_init(struct k_sem *sem, uint32_t initial, uint32_t limit)
{
	z_waitq_init(&sem->wait_q);
	sem->count = initial;
	sem->limit = limit;
	sys_dlist_init(&sem->poll_events);
}

static int sem_take(struct k_sem *sem, k_timeout_t timeout)
{
	unsigned key = irq_lock();
	if (likely(sem->count > 0)) {
		sem->count--;
		irq_unlock(key);
		return 0;
	}
	if (k_timeout_is_no_wait(timeout)) {
		irq_unlock(key);
		return -EBUSY;
	}
	return z_pend_curr(key, &sem->wait_q, timeout);
}

int k_sem_take(struct k_sem *sem, k_timeout_t timeout)
{
	int ret = sem_take(sem, timeout);
	Z_TRACE(Z_TRACE_SEM_TAKE, sem, ret);
	return ret;
}

void k_sem_give(struct k_sem *sem)
{
	Z_TRACE(Z_TRACE_SEM_GIVE, sem, (int32_t)sem->count);
	unsigned key = irq_lock();
	struct k_thread *t = z_unpend_first_thread(&sem->wait_q);
	if (t) {
		z_wake_thread(t, 0, NULL);
	} else {
		if (sem->count < sem->limit)
			sem->count++;
		z_handle_obj_poll_events(&sem->poll_events, K_POLL_STATE_SEM_AVAILABLE);
	}
	z_reschedule(key);
}

void k_sem_reset(struct k_sem *sem)
{
	unsigned key = irq_lock();
	struct k_thread *t;
	sem->count = 0;
	while ((t = z_unpend_first_thread(&sem->wait_q)) != NULL)
		z_wake_thread(t, -EAGAIN, NULL);
	z_reschedule(key);
}
