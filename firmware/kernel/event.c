/* event.c: event objects: threads wait for any of a set of flags that others post. */
#include "kernel_internal.h"

void k_event_init(struct k_event *e)
{
	z_waitq_init(&e->wait_q);
	e->events = 0;
}

uint32_t k_event_post(struct k_event *e, uint32_t events)
{
	Z_TRACE(Z_TRACE_EVENT_POST, e, (int32_t)(events & 0x7FFFu));
	unsigned key = irq_lock();
	uint32_t old = e->events;
	e->events |= events;
	/* Every waiter whose set now matches wakes with the matching events. */
	sys_dnode_t *n = e->wait_q.waitq.next;
	while (n != &e->wait_q.waitq) {
		sys_dnode_t *next = n->next;
		struct k_thread *t = CONTAINER_OF(n, struct k_thread, qnode);
		uint32_t want = (uint32_t)(uintptr_t)t->swap_data;
		uint32_t match = want & e->events;
		if (match) {
			sys_dlist_remove(&t->qnode);
			t->state &= ~Z_THREAD_PENDING;
			t->pended_on = NULL;
			z_abort_timeout(&t->timeout);
			z_wake_thread(t, 0, (void *)(uintptr_t)match);
		}
		n = next;
	}
	z_reschedule(key);
	return old;
}

uint32_t k_event_clear(struct k_event *e, uint32_t events)
{
	unsigned key = irq_lock();
	uint32_t old = e->events;
	e->events &= ~events;
	irq_unlock(key);
	return old;
}

static uint32_t event_wait(struct k_event *e, uint32_t events, bool reset, k_timeout_t timeout)
{
	unsigned key = irq_lock();
	if (reset)
		e->events = 0;
	uint32_t match = e->events & events;
	if (match || k_timeout_is_no_wait(timeout)) {
		irq_unlock(key);
		return match;
	}
	struct k_thread *cur = _kernel.current;
	cur->swap_data = (void *)(uintptr_t)events;
	if (z_pend_curr(key, &e->wait_q, timeout) != 0)
		return 0;
	return (uint32_t)(uintptr_t)cur->swap_data;
}

uint32_t k_event_wait(struct k_event *e, uint32_t events, bool reset, k_timeout_t timeout)
{
	uint32_t match = event_wait(e, events, reset, timeout);
	Z_TRACE(Z_TRACE_EVENT_WAIT, e, (int32_t)(match & 0x7FFFu));
	return match;
}
