/* poll.c: k_poll: one thread waits for the first of several objects (semaphores, FIFOs,
 * signals) to become ready. Events register on their objects while the thread waits. */
#include "kernel_internal.h"

struct z_poller {
	struct k_thread *thread;
	_wait_q_t wait_q;
	bool is_polling;
};

void k_poll_event_init(struct k_poll_event *ev, enum k_poll_type type, void *obj)
{
	ev->node.next = ev->node.prev = NULL;
	ev->poller = NULL;
	ev->type = (uint8_t)type;
	ev->state = K_POLL_STATE_NOT_READY;
	ev->obj = obj;
}

/* Whether ev's object is ready now; *state gets the state bit to report. */
static bool is_condition_met(const struct k_poll_event *ev, uint32_t *state)
{
	switch (ev->type) {
	case K_POLL_TYPE_SEM_AVAILABLE:
		*state = K_POLL_STATE_SEM_AVAILABLE;
		return k_sem_count_get(ev->sem) > 0;
	case K_POLL_TYPE_FIFO_DATA_AVAILABLE:
		*state = K_POLL_STATE_FIFO_DATA_AVAILABLE;
		return !k_queue_is_empty(ev->queue);
	case K_POLL_TYPE_SIGNAL:
		*state = K_POLL_STATE_SIGNALED;
		return ev->signal->signaled != 0;
	default:
		return false;
	}
}

static sys_dlist_t *obj_poll_events(const struct k_poll_event *ev)
{
	switch (ev->type) {
	case K_POLL_TYPE_SEM_AVAILABLE:
		return &ev->sem->poll_events;
	case K_POLL_TYPE_FIFO_DATA_AVAILABLE:
		return &ev->queue->poll_events;
	case K_POLL_TYPE_SIGNAL:
		return &ev->signal->poll_events;
	default:
		return NULL;
	}
}

static void register_event(struct k_poll_event *ev, struct z_poller *poller)
{
	sys_dlist_t *list = obj_poll_events(ev);
	if (!list)
		return;
	sys_dlist_append(list, &ev->node);
	ev->poller = poller;
}

static void clear_event_registrations(struct k_poll_event *events, int num)
{
	for (int i = 0; i < num; i++) {
		if (sys_dnode_is_linked(&events[i].node))
			sys_dlist_remove(&events[i].node);
		events[i].poller = NULL;
	}
}

static int poll_wait(struct k_poll_event *events, int num_events, k_timeout_t timeout)
{
	struct z_poller poller;
	poller.thread = _kernel.current;
	poller.is_polling = true;
	z_waitq_init(&poller.wait_q);

	unsigned key = irq_lock();
	int ready = 0;
	for (int i = 0; i < num_events; i++) {
		struct k_poll_event *ev = &events[i];
		uint32_t state;
		ev->state = K_POLL_STATE_NOT_READY;
		if (is_condition_met(ev, &state)) {
			ev->state = (uint8_t)state;
			ready++;
		} else if (!ready && !k_timeout_is_no_wait(timeout)) {
			register_event(ev, &poller);
		}
	}
	if (ready || k_timeout_is_no_wait(timeout)) {
		clear_event_registrations(events, num_events);
		irq_unlock(key);
		return ready ? 0 : -EAGAIN;
	}
	int ret = z_pend_curr(key, &poller.wait_q, timeout);
	key = irq_lock();
	clear_event_registrations(events, num_events);
	irq_unlock(key);
	return ret;
}

int k_poll(struct k_poll_event *events, int num_events, k_timeout_t timeout)
{
	int ret = poll_wait(events, num_events, timeout);
	Z_TRACE(Z_TRACE_POLL, events, ret);
	return ret;
}

/* Marks the first event registered on an object ready and wakes its poller. */
void z_handle_obj_poll_events(sys_dlist_t *events, uint32_t state)
{
	sys_dnode_t *n = sys_dlist_get(events);
	if (!n)
		return;
	struct k_poll_event *ev = CONTAINER_OF(n, struct k_poll_event, node);
	struct z_poller *poller = ev->poller;
	ev->state |= (uint8_t)state;
	ev->poller = NULL;
	if (!poller || !poller->is_polling)
		return;
	poller->is_polling = false;
	struct k_thread *t = z_unpend_first_thread(&poller->wait_q);
	if (t)
		z_wake_thread(t, 0, NULL);
}

void k_poll_signal_init(struct k_poll_signal *sig)
{
	sys_dlist_init(&sig->poll_events);
	sig->signaled = 0;
	sig->result = 0;
}

void k_poll_signal_raise(struct k_poll_signal *sig, int result)
{
	unsigned key = irq_lock();
	sig->result = result;
	sig->signaled = 1;
	z_handle_obj_poll_events(&sig->poll_events, K_POLL_STATE_SIGNALED);
	z_reschedule(key);
}

void k_poll_signal_reset(struct k_poll_signal *sig)
{
	sig->signaled = 0;
}
