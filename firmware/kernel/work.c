/* work.c: work queues: a thread runs submitted work items in order; delayable items are
 * submitted by a kernel timeout. */
#include "kernel_internal.h"

#define WORK_PENDING 0x01u /* in a queue's FIFO */

#define SYS_WORK_Q_STACK_SIZE 1024
#define SYS_WORK_Q_PRIO 4

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

int k_work_submit_to_queue(struct k_work_q *q, struct k_work *w)
{
	unsigned key = irq_lock();
	if (w->flags & WORK_PENDING) {
		irq_unlock(key);
		return 0;
	}
	w->flags |= WORK_PENDING;
	w->queue = q;
	k_fifo_put(&q->fifo, w);
	irq_unlock(key);
	return 1;
}

int k_work_submit(struct k_work *w)
{
	return k_work_submit_to_queue(&k_sys_work_q, w);
}

static void work_timeout(struct _timeout *to)
{
	struct k_work_delayable *dw = CONTAINER_OF(to, struct k_work_delayable, timeout);
	k_work_submit_to_queue(dw->queue, &dw->work);
}

int k_work_schedule(struct k_work_delayable *dw, k_timeout_t delay)
{
	unsigned key = irq_lock();
	z_abort_timeout(&dw->timeout);
	dw->queue = &k_sys_work_q;
	if (k_timeout_is_no_wait(delay)) {
		irq_unlock(key);
		return k_work_submit_to_queue(dw->queue, &dw->work);
	}
	z_add_timeout(&dw->timeout, work_timeout, delay);
	irq_unlock(key);
	return 1;
}

int k_work_cancel_delayable(struct k_work_delayable *dw)
{
	return z_abort_timeout(&dw->timeout) == 0;
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
		w->flags &= ~WORK_PENDING;
		irq_unlock(key);
		w->handler(w);
		q->executed++;
	}
}

void k_work_queue_start(struct k_work_q *q, uint32_t *stack, size_t stack_size, int prio,
			const char *name)
{
	k_fifo_init(&q->fifo);
	q->executed = 0;
	k_thread_create(&q->thread, stack, stack_size, work_q_main, q, NULL, NULL, prio, name);
}

void z_work_init_system_queue(void)
{
	k_work_queue_start(&k_sys_work_q, sys_work_q_stack, sizeof(sys_work_q_stack),
			   SYS_WORK_Q_PRIO, "sysworkq");
}
