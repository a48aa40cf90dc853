/* sem.c: counting semaphores with a FIFO wait queue. */
#include "fw.h"

void k_sem_init(struct k_sem *s, uint32_t initial, uint32_t limit)
{
	if (limit == 0 || initial > limit)
		k_fatal("k_sem_init", initial);
	s->count = initial;
	s->limit = limit;
	s->waitq = NULL;
}

int k_sem_take(struct k_sem *s, int32_t timeout_ms)
{
	if (s->count > 0) {
		s->count--;
		return 0;
	}
	if (timeout_ms == K_NO_WAIT)
		return -16; /* -EBUSY */
	struct k_thread *t = k_current();
	if (timeout_ms != K_FOREVER)
		t->wake_at = k_uptime_ms() + (uint32_t)timeout_ms;
	k_sched_pend(t, &s->waitq);
	k_yield();
	if (s->count > 0) {
		s->count--;
		return 0;
	}
	return -11; /* -EAGAIN */
}

void k_sem_give(struct k_sem *s)
{
	struct k_thread *t = s->waitq;
	if (t) {
		s->waitq = t->next;
		k_sched_ready(t);
	}
	if (s->count < s->limit)
		s->count++;
}

uint32_t k_sem_count(const struct k_sem *s)
{
	return s->count;
}
