/* sched.c: the preemptive priority scheduler: ready queue, wait queues, thread life cycle. */
#include "drivers/sys_clock.h"
#include "kernel_internal.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(sched, LOG_LEVEL_INF);

/* Round robin among equal priorities, 20 ms slices (k_sched_time_slice_set). */
#define K_TIMESLICE_MS 20

struct z_kernel _kernel;
static bool sched_started;
static k_ticks_t slice_ticks = K_TIMESLICE_MS * (K_TICKS_PER_SEC / 1000);
static int slice_max_prio = 0;
static struct _timeout slice_timeout;

void z_sched_init(void)
{
	for (int p = 0; p < K_NUM_PRIO; p++)
		sys_dlist_init(&_kernel.ready_q.prio[p]);
	_kernel.ready_q.bitmap = 0;
}

/* Index of the lowest set bit (v != 0): the M0+ has no CLZ, so a de Bruijn multiply. */
static int lowest_bit(uint32_t v)
{
	static const uint8_t debruijn[32] = {0,  1,  28, 2,  29, 14, 24, 3,  30, 22, 20,
					     15, 25, 17, 4,  8,  31, 27, 13, 23, 21, 19,
					     16, 7,  26, 12, 18, 6,  11, 5,  10, 9};
	return debruijn[((v & -v) * 0x077CB531u) >> 27];
}

static struct k_thread *next_up(void)
{
	uint32_t bm = _kernel.ready_q.bitmap;
	if (unlikely(!bm))
		k_panic("no ready thread");
	sys_dnode_t *n = sys_dlist_peek_head(&_kernel.ready_q.prio[lowest_bit(bm)]);
	return CONTAINER_OF(n, struct k_thread, qnode);
}

void z_ready_thread(struct k_thread *t)
{
	if (t->state & (Z_THREAD_QUEUED | Z_THREAD_PENDING | Z_THREAD_SLEEPING | Z_THREAD_DEAD))
		return;
	sys_dlist_append(&_kernel.ready_q.prio[t->prio], &t->qnode);
	_kernel.ready_q.bitmap |= BIT(t->prio);
	t->state |= Z_THREAD_QUEUED;
	Z_TRACE(Z_TRACE_THREAD_READY, t, t->prio);
}

void z_unready_thread(struct k_thread *t)
{
	if (!(t->state & Z_THREAD_QUEUED))
		return;
	sys_dlist_remove(&t->qnode);
	if (sys_dlist_is_empty(&_kernel.ready_q.prio[t->prio]))
		_kernel.ready_q.bitmap &= ~BIT(t->prio);
	t->state &= ~Z_THREAD_QUEUED;
}

/* Wait queues are ordered by priority, first come first served among equals. */
static void waitq_insert(_wait_q_t *w, struct k_thread *t)
{
	sys_dnode_t *n;
	SYS_DLIST_FOR_EACH (&w->waitq, n) {
		struct k_thread *o = CONTAINER_OF(n, struct k_thread, qnode);
		if (t->prio < o->prio) {
			sys_dlist_insert_before(n, &t->qnode);
			return;
		}
	}
	sys_dlist_append(&w->waitq, &t->qnode);
}

/* A pending or sleeping thread's timeout expired: it resumes with -EAGAIN. */
static void thread_timeout(struct _timeout *to)
{
	struct k_thread *t = CONTAINER_OF(to, struct k_thread, timeout);
	if (t->state & Z_THREAD_PENDING) {
		sys_dlist_remove(&t->qnode);
		t->pended_on = NULL;
		t->state &= ~Z_THREAD_PENDING;
	}
	t->state &= ~Z_THREAD_SLEEPING;
	z_ready_thread(t);
}

int z_swap(unsigned key)
{
	struct k_thread *cur = _kernel.current;
	if (unlikely(key != 0))
		k_panic("blocking call with interrupts locked");
	if (unlikely(k_is_in_isr()))
		k_panic("blocking call in an ISR");
	z_arch_pend_switch();
	irq_unlock(key); /* PendSV runs here and returns when this thread runs again */
	return cur->swap_retval;
}

int z_pend_curr(unsigned key, _wait_q_t *wait_q, k_timeout_t timeout)
{
	struct k_thread *cur = _kernel.current;
	z_unready_thread(cur);
	cur->state |= Z_THREAD_PENDING;
	cur->pended_on = wait_q;
	waitq_insert(wait_q, cur);
	cur->swap_retval = -EAGAIN;
	if (!k_timeout_is_forever(timeout))
		z_add_timeout(&cur->timeout, thread_timeout, timeout);
	Z_TRACE(Z_TRACE_THREAD_PEND, wait_q, timeout.ticks);
	return z_swap(key);
}

struct k_thread *z_unpend_first_thread(_wait_q_t *wait_q)
{
	struct k_thread *t = z_waitq_head(wait_q);
	if (!t)
		return NULL;
	sys_dlist_remove(&t->qnode);
	t->state &= ~Z_THREAD_PENDING;
	t->pended_on = NULL;
	z_abort_timeout(&t->timeout);
	return t;
}

void z_wake_thread(struct k_thread *t, int retval, void *data)
{
	t->swap_retval = retval;
	t->swap_data = data;
	z_ready_thread(t);
}

void z_reschedule(unsigned key)
{
	/* In an interrupt handler the wrapper's exit decides (z_arch_int_exit). */
	if (sched_started && !k_is_in_isr() && next_up() != _kernel.current)
		z_arch_pend_switch();
	irq_unlock(key);
}

/* On the way out of every interrupt: switch if the handler readied a more urgent thread. */
void z_arch_int_exit(void);
void z_arch_int_exit(void)
{
	unsigned key = irq_lock();
	if (sched_started && next_up() != _kernel.current)
		z_arch_pend_switch();
	irq_unlock(key);
}

/* A thread shares the CPU in slices when slicing is on, it is not the idle thread, and
 * another thread of its priority is ready to take a turn. */
static bool sliceable(const struct k_thread *t)
{
	if (slice_ticks <= 0 || t->prio < slice_max_prio || t->prio == K_PRIO_LOWEST)
		return false;
	if (!(t->state & Z_THREAD_QUEUED))
		return false;
	const sys_dlist_t *q = &_kernel.ready_q.prio[t->prio];
	return q->next != q->prev; /* two or more at this priority */
}

/* The slice ran out (timer interrupt): the current thread goes to the back of its line;
 * the interrupt exit switches. */
static void slice_expired(struct _timeout *to)
{
	UNUSED(to);
	struct k_thread *cur = _kernel.current;
	if (sliceable(cur)) {
		z_unready_thread(cur);
		z_ready_thread(cur);
	}
}

static void z_reset_time_slice(struct k_thread *t)
{
	z_abort_timeout(&slice_timeout);
	if (sliceable(t))
		z_add_timeout(&slice_timeout, slice_expired, K_TICKS(slice_ticks));
}

void k_sched_time_slice_set(int32_t slice_ms, int prio)
{
	unsigned key = irq_lock();
	slice_ticks = slice_ms > 0 ? K_MSEC(slice_ms).ticks : 0;
	slice_max_prio = prio;
	z_reset_time_slice(_kernel.current);
	irq_unlock(key);
}

/* Called by PendSV with interrupts masked, after the outgoing context was saved: picks the
 * thread to run next. */
struct k_thread *z_sched_switch(void);
struct k_thread *z_sched_switch(void)
{
	struct k_thread *old = _kernel.current;
	if (old->stack_base && unlikely(old->stack_base[0] != Z_STACK_SENTINEL))
		k_panic("stack overflow");
	struct k_thread *next = next_up();
	if (old->sp < old->sp_min)
		old->sp_min = old->sp;
	if (next != old) {
		/* Runtime statistics: the outgoing thread ran since the last switch. */
		uint32_t now = sys_clock_cycle_get_32();
		uint32_t ran = now - _kernel.switch_stamp_us;
		old->usage_us += ran;
		_kernel.runtime_total_us += ran;
		_kernel.switch_stamp_us = now;
		_kernel.context_switches++;
		next->switches_in++;
		z_reset_time_slice(next);
		Z_TRACE(Z_TRACE_THREAD_SWITCH, next, old->prio);
	}
	_kernel.current = next;
	return next;
}

size_t k_thread_stack_used(const struct k_thread *t)
{
	uint32_t top = (uint32_t)t->stack_base + t->stack_size;
	return t->sp_min < top ? top - t->sp_min : 0;
}

uint64_t k_thread_runtime_us(const struct k_thread *t)
{
	return t->usage_us;
}

uint64_t k_runtime_total_us(void)
{
	return _kernel.runtime_total_us;
}

void z_thread_prio_set_locked(struct k_thread *t, int prio)
{
	if (t->prio == prio)
		return;
	if (t->state & Z_THREAD_QUEUED) {
		z_unready_thread(t);
		t->prio = (int8_t)prio;
		z_ready_thread(t);
	} else if (t->state & Z_THREAD_PENDING) {
		sys_dlist_remove(&t->qnode);
		t->prio = (int8_t)prio;
		waitq_insert(t->pended_on, t);
	} else {
		t->prio = (int8_t)prio;
	}
}

void k_thread_priority_set(struct k_thread *t, int prio)
{
	unsigned key = irq_lock();
	t->base_prio = (int8_t)prio;
	z_thread_prio_set_locked(t, prio);
	z_reschedule(key);
}

/* Every thread starts here; a thread whose entry returns is dead. */
void z_thread_entry(k_thread_entry_t entry, void *p1, void *p2, void *p3);
void z_thread_entry(k_thread_entry_t entry, void *p1, void *p2, void *p3)
{
	entry(p1, p2, p3);
	unsigned key = irq_lock();
	struct k_thread *cur = _kernel.current;
	LOG_DBG("thread %s exited", cur->name);
	z_unready_thread(cur);
	cur->state |= Z_THREAD_DEAD;
	z_swap(key);
	k_panic("dead thread resumed");
}

struct k_thread *k_thread_create(struct k_thread *t, uint32_t *stack, size_t stack_size,
				 k_thread_entry_t entry, void *p1, void *p2, void *p3, int prio,
				 const char *name)
{
	if (prio < 0 || prio >= K_NUM_PRIO)
		k_panic("bad thread priority");
	t->stack_base = stack;
	t->stack_size = stack_size;
	stack[0] = Z_STACK_SENTINEL;
	t->prio = t->base_prio = (int8_t)prio;
	t->state = 0;
	t->name = name;
	t->pended_on = NULL;
	t->qnode.next = t->qnode.prev = NULL;
	t->timeout.node.next = t->timeout.node.prev = NULL;
	t->switches_in = 0;
	t->usage_us = 0;
	t->sp_min = (uint32_t)stack + stack_size;
	z_arch_new_thread(t, entry, p1, p2, p3);

	unsigned key = irq_lock();
	t->next_thread = _kernel.threads;
	_kernel.threads = t;
	z_ready_thread(t);
	z_reschedule(key);
	return t;
}

struct k_thread *k_current_get(void)
{
	return _kernel.current;
}

int32_t k_sleep(k_timeout_t timeout)
{
	if (k_timeout_is_no_wait(timeout)) {
		k_yield();
		return 0;
	}
	unsigned key = irq_lock();
	struct k_thread *cur = _kernel.current;
	z_unready_thread(cur);
	if (!k_timeout_is_forever(timeout)) {
		cur->state |= Z_THREAD_SLEEPING;
		z_add_timeout(&cur->timeout, thread_timeout, timeout);
	} else {
		cur->state |= Z_THREAD_SLEEPING;
	}
	cur->swap_retval = 0;
	z_swap(key);
	key = irq_lock();
	k_ticks_t left = z_timeout_remaining(&cur->timeout);
	irq_unlock(key);
	return left;
}

int32_t k_msleep(int32_t ms)
{
	return k_sleep(K_MSEC(ms));
}

void k_wakeup(struct k_thread *t)
{
	unsigned key = irq_lock();
	if (!(t->state & Z_THREAD_SLEEPING)) {
		irq_unlock(key);
		return;
	}
	z_abort_timeout(&t->timeout);
	t->state &= ~Z_THREAD_SLEEPING;
	z_ready_thread(t);
	z_reschedule(key);
}

void k_yield(void)
{
	unsigned key = irq_lock();
	struct k_thread *cur = _kernel.current;
	/* To the back of its priority's line, then let the scheduler choose. */
	z_unready_thread(cur);
	z_ready_thread(cur);
	z_swap(key);
}

void k_thread_foreach(void (*fn)(const struct k_thread *t, void *ctx), void *ctx)
{
	for (struct k_thread *t = _kernel.threads; t; t = t->next_thread)
		fn(t, ctx);
}

__noreturn void z_sched_start(struct k_thread *first);
__noreturn void z_sched_start(struct k_thread *first)
{
	sched_started = true;
	z_arch_switch_to_main(first);
}
