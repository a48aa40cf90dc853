/* fifo.c: queues of caller-owned items (k_queue, behind k_fifo and k_lifo) and fixed-size
 * message queues. */
#include <string.h>

#include "kernel_internal.h"

void k_queue_init(struct k_queue *q)
{
	sys_slist_init(&q->items);
	z_waitq_init(&q->wait_q);
	q->count = 0;
	sys_dlist_init(&q->poll_events);
}

static void queue_insert(struct k_queue *q, void *item, bool prepend)
{
	Z_TRACE(Z_TRACE_QUEUE_PUT, q, (int32_t)q->count);
	unsigned key = irq_lock();
	struct k_thread *t = z_unpend_first_thread(&q->wait_q);
	if (t) {
		/* Hand the item straight to the waiter: it never touches the list. */
		z_wake_thread(t, 0, item);
		z_reschedule(key);
		return;
	}
	if (prepend)
		sys_slist_prepend(&q->items, (sys_snode_t *)item);
	else
		sys_slist_append(&q->items, (sys_snode_t *)item);
	q->count++;
	z_handle_obj_poll_events(&q->poll_events, K_POLL_STATE_FIFO_DATA_AVAILABLE);
	z_reschedule(key);
}

void k_queue_append(struct k_queue *q, void *item)
{
	queue_insert(q, item, false);
}

void k_queue_prepend(struct k_queue *q, void *item)
{
	queue_insert(q, item, true);
}

bool k_queue_remove(struct k_queue *q, void *item)
{
	unsigned key = irq_lock();
	sys_snode_t *prev = NULL;
	for (sys_snode_t *n = q->items.head; n; prev = n, n = n->next) {
		if (n != item)
			continue;
		if (prev)
			prev->next = n->next;
		else
			q->items.head = n->next;
		if (q->items.tail == n)
			q->items.tail = prev;
		n->next = NULL;
		q->count--;
		irq_unlock(key);
		return true;
	}
	irq_unlock(key);
	return false;
}

static void *queue_get(struct k_queue *q, k_timeout_t timeout)
{
	unsigned key = irq_lock();
	sys_snode_t *n = sys_slist_get(&q->items);
	if (n) {
		q->count--;
		irq_unlock(key);
		return n;
	}
	if (k_timeout_is_no_wait(timeout)) {
		irq_unlock(key);
		return NULL;
	}
	struct k_thread *cur = _kernel.current;
	cur->swap_data = NULL;
	if (z_pend_curr(key, &q->wait_q, timeout) != 0)
		return NULL;
	return cur->swap_data;
}

void *k_queue_get(struct k_queue *q, k_timeout_t timeout)
{
	void *item = queue_get(q, timeout);
	Z_TRACE(Z_TRACE_QUEUE_GET, q, item != NULL);
	return item;
}

void k_msgq_init(struct k_msgq *q, void *buffer, size_t msg_size, uint32_t max_msgs)
{
	z_waitq_init(&q->wait_q);
	q->buffer = buffer;
	q->msg_size = msg_size;
	q->max_msgs = max_msgs;
	q->used = q->read_idx = q->write_idx = q->dropped = 0;
}

static void msgq_push(struct k_msgq *q, const void *msg)
{
	memcpy(q->buffer + q->write_idx * q->msg_size, msg, q->msg_size);
	if (++q->write_idx == q->max_msgs)
		q->write_idx = 0;
	q->used++;
}

static void msgq_pop(struct k_msgq *q, void *msg)
{
	memcpy(msg, q->buffer + q->read_idx * q->msg_size, q->msg_size);
	if (++q->read_idx == q->max_msgs)
		q->read_idx = 0;
	q->used--;
}

static int msgq_put(struct k_msgq *q, const void *msg, k_timeout_t timeout)
{
	unsigned key = irq_lock();
	if (q->used == 0) {
		/* Readers wait only on an empty queue: copy into the first one's buffer. */
		struct k_thread *t = z_unpend_first_thread(&q->wait_q);
		if (t) {
			memcpy(t->swap_data, msg, q->msg_size);
			z_wake_thread(t, 0, t->swap_data);
			z_reschedule(key);
			return 0;
		}
	}
	if (q->used < q->max_msgs) {
		msgq_push(q, msg);
		irq_unlock(key);
		return 0;
	}
	if (k_timeout_is_no_wait(timeout)) {
		q->dropped++;
		irq_unlock(key);
		return -ENOMSG;
	}
	_kernel.current->swap_data = (void *)msg;
	return z_pend_curr(key, &q->wait_q, timeout);
}

int k_msgq_put(struct k_msgq *q, const void *msg, k_timeout_t timeout)
{
	int ret = msgq_put(q, msg, timeout);
	Z_TRACE(Z_TRACE_MSGQ_PUT, q, ret);
	return ret;
}

static int msgq_get(struct k_msgq *q, void *msg, k_timeout_t timeout)
{
	unsigned key = irq_lock();
	if (q->used > 0) {
		msgq_pop(q, msg);
		/* Writers wait only on a full queue: the first one's message takes the slot. */
		struct k_thread *t = z_unpend_first_thread(&q->wait_q);
		if (t) {
			msgq_push(q, t->swap_data);
			z_wake_thread(t, 0, NULL);
		}
		z_reschedule(key);
		return 0;
	}
	if (k_timeout_is_no_wait(timeout)) {
		irq_unlock(key);
		return -ENOMSG;
	}
	_kernel.current->swap_data = msg;
	return z_pend_curr(key, &q->wait_q, timeout);
}

int k_msgq_get(struct k_msgq *q, void *msg, k_timeout_t timeout)
{
	int ret = msgq_get(q, msg, timeout);
	Z_TRACE(Z_TRACE_MSGQ_GET, q, ret);
	return ret;
}
