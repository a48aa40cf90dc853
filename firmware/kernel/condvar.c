/* condvar.c: condition variables: wait with a mutex released while waiting, retaken on
 * wake-up; signal wakes one waiter, broadcast all. */
#include "kernel_internal.h"

void k_condvar_init(struct k_condvar *cv)
{
	z_waitq_init(&cv->wait_q);
}

int k_condvar_signal(struct k_condvar *cv)
{
	unsigned key = irq_lock();
	struct k_thread *t = z_unpend_first_thread(&cv->wait_q);
	if (t)
		z_wake_thread(t, 0, NULL);
	z_reschedule(key);
	return 0;
}

int k_condvar_broadcast(struct k_condvar *cv)
{
	unsigned key = irq_lock();
	int n = 0;
	struct k_thread *t;
	while ((t = z_unpend_first_thread(&cv->wait_q)) != NULL) {
		z_wake_thread(t, 0, NULL);
		n++;
	}
	z_reschedule(key);
	return n;
}

int k_condvar_wait(struct k_condvar *cv, struct k_mutex *mutex, k_timeout_t timeout)
{
	unsigned key = irq_lock();
	/* Releasing the mutex and waiting are one step: no signal can fall in between. */
	k_mutex_unlock(mutex);
	int ret = z_pend_curr(key, &cv->wait_q, timeout);
	k_mutex_lock(mutex, K_FOREVER);
	return ret;
}
