/* work.c: work queues: a thread runs submitted work items in order. Items know whether
 * they are queued, running or being cancelled; callers can cancel them or wait for them;
 * delayable items are submitted by a kernel timeout. */
#include "kernel_internal.h"

#define SYS_WORK_Q_STACK_SIZE 1536 /* handlers include the echo service (socket calls) */
#define SYS_WORK_Q_PRIO 5

struct k_work_q k_sys_work_q;
static K_THREAD_STACK_DEFINE(sys_work_q_stack, SYS_WORK_Q_STACK_SIZE);

void k_work_init(struct k_work *w, k_work_handler_t handler)
{
	w->node.next = NULL;
	w->handler = handler;
	w->queue = NULL;
	w->flags = 0;
}

void k_work_init_delayable(struct k_work_delayable *dw, k_work_handler_t handler)
{
	k_work_init(&dw->work, handler);
	dw->timeout.node.next = dw->timeout.node.prev = NULL;
	dw->queue = NULL;
}

int k_work_busy_get(const struct k_work *w)
{
	unsigned key = irq_lock();
	int flags = w->flags;
	irq_unlock(key);
	return flags;
}

/* Interrupts locked. */
static int submit_locked(struct k_work_q *q, struct k_work *w)
{
	if (w->flags & K_WORK_CANCELING)
		return -EBUSY;
	if (w->flags & K_WORK_QUEUED)
		return 0;
	int ret = (w->flags & K_WORK_RUNNING) ? 2 : 1;
	/* A running item goes back to the queue it runs on, keeping its order. */
	if ((w->flags & K_WORK_RUNNING) && w->queue)
		q = w->queue;
	w->flags |= K_WORK_QUEUED;
	w->queue = q;
	k_fifo_put(&q->fifo, w);
	if (k_fifo_count(&q->fifo) > q->max_depth)
		q->max_depth = k_fifo_count(&q->fifo);
	return ret;
}

int k_work_submit_to_queue(struct k_work_q *q, struct k_work *w)
{
	unsigned key = irq_lock();
	int ret = submit_locked(q, w);
	irq_unlock(key);
	Z_TRACE(Z_TRACE_WORK_SUBMIT, w, ret);
	return ret;
}

int k_work_submit(struct k_work *w)
{
	return k_work_submit_to_queue(&k_sys_work_q, w);
}

int k_work_cancel(struct k_work *w)
{
	unsigned key = irq_lock();
	if ((w->flags & K_WORK_QUEUED) && w->queue && k_fifo_remove(&w->queue->fifo, w))
		w->flags &= ~K_WORK_QUEUED;
	int flags = w->flags;
	irq_unlock(key);
	return flags;
}

bool k_work_flush(struct k_work *w, struct k_work_sync *sync)
{
	unsigned key = irq_lock();
	if (!(w->flags & (K_WORK_QUEUED | K_WORK_RUNNING)) || !w->queue) {
		irq_unlock(key);
		return false;
	}
	/* The queue thread gives the semaphore once w has run and is not queued again. */
	k_sem_init(&sync->done, 0, 1);
	sync->work = w;
	sys_slist_append(&w->queue->flushers, &sync->node);
	irq_unlock(key);
	k_sem_take(&sync->done, K_FOREVER);
	return true;
}

/* After an item ran: wake the flushers of items that are now idle. */
static void notify_flushers(struct k_work_q *q)
{
	sys_snode_t *prev = NULL, *n = q->flushers.head;
	while (n) {
		sys_snode_t *next = n->next;
		struct k_work_sync *sync = CONTAINER_OF(n, struct k_work_sync, node);
		if (!(sync->work->flags & (K_WORK_QUEUED | K_WORK_RUNNING))) {
			if (prev)
				prev->next = next;
			else
				q->flushers.head = next;
			if (q->flushers.tail == n)
				q->flushers.tail = prev;
			k_sem_give(&sync->done);
		} else {
			prev = n;
		}
		n = next;
	}
}

static void work_timeout(struct _timeout *to)
{
	struct k_work_delayable *dw = CONTAINER_OF(to, struct k_work_delayable, timeout);
	dw->work.flags &= ~K_WORK_DELAYED;
	submit_locked(dw->queue, &dw->work);
}

int k_work_schedule_for_queue(struct k_work_q *q, struct k_work_delayable *dw,
			      k_timeout_t delay)
{
	unsigned key = irq_lock();
	if (dw->work.flags & K_WORK_CANCELING) {
		irq_unlock(key);
		return -EBUSY;
	}
	z_abort_timeout(&dw->timeout);
	dw->work.flags &= ~K_WORK_DELAYED;
	dw->queue = q;
	int ret;
	if (k_timeout_is_no_wait(delay)) {
		ret = submit_locked(q, &dw->work);
	} else {
		dw->work.flags |= K_WORK_DELAYED;
		z_add_timeout(&dw->timeout, work_timeout, delay);
		ret = 1;
	}
	irq_unlock(key);
	return ret;
}

int k_work_schedule(struct k_work_delayable *dw, k_timeout_t delay)
{
	return k_work_schedule_for_queue(&k_sys_work_q, dw, delay);
}

int k_work_cancel_delayable(struct k_work_delayable *dw)
{
	unsigned key = irq_lock();
	if (z_abort_timeout(&dw->timeout) == 0)
		dw->work.flags &= ~K_WORK_DELAYED;
	irq_unlock(key);
	return k_work_cancel(&dw->work);
}

static void work_q_main(void *p1, void *p2, void *p3)
{
	struct k_work_q *q = p1;
	UNUSED(p2);
	UNUSED(p3);
	for (;;) {
		struct k_work *w = k_fifo_get(&q->fifo, K_FOREVER);
		if (!w)
			continue;
		unsigned key = irq_lock();
		w->flags = (uint8_t)((w->flags & ~K_WORK_QUEUED) | K_WORK_RUNNING);
		q->current = w;
		irq_unlock(key);

		Z_TRACE(Z_TRACE_WORK_RUN, w, 0);
		w->handler(w);

		key = irq_lock();
		/* An item stays valid until its handler has returned (see kernel.h). */
		w->flags &= ~K_WORK_RUNNING;
		q->current = NULL;
		q->executed++;
		if (!sys_slist_is_empty(&q->flushers))
			notify_flushers(q);
		irq_unlock(key);
	}
}

void k_work_queue_start(struct k_work_q *q, uint32_t *stack, size_t stack_size, int prio,
			const char *name)
{
	k_fifo_init(&q->fifo);
	sys_slist_init(&q->flushers);
	q->current = NULL;
	q->executed = 0;
	q->max_depth = 0;
	k_thread_create(&q->thread, stack, stack_size, work_q_main, q, NULL, NULL, prio, name);
}

void z_work_init_system_queue(void)
{
	k_work_queue_start(&k_sys_work_q, sys_work_q_stack, sizeof(sys_work_q_stack),
			   SYS_WORK_Q_PRIO, "sysworkq");
}
