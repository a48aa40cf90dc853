/* kernel_internal.h: scheduler state and the primitives the kernel objects build on
 * (pend, unpend, ready, swap, timeouts). Not for use outside kernel/. */
#ifndef KERNEL_INTERNAL_H
#define KERNEL_INTERNAL_H

#include "kernel/kernel.h"
#include "kernel/tracing.h"

/* Thread state bits */
#define Z_THREAD_QUEUED 0x01u   /* in the ready queue */
#define Z_THREAD_PENDING 0x02u  /* on a wait queue */
#define Z_THREAD_SLEEPING 0x04u /* waiting for its timeout only */
#define Z_THREAD_DEAD 0x08u

/* Written at the lowest word of every stack and checked at each switch. */
#define Z_STACK_SENTINEL 0xF0F0F0F0u

struct z_ready_q {
	sys_dlist_t prio[K_NUM_PRIO];
	uint32_t bitmap; /* bit p: prio[p] not empty */
};

struct z_kernel {
	struct k_thread *current; /* first: the context switch code loads it at offset 0 */
	struct z_ready_q ready_q;
	struct k_thread *threads; /* all threads */
	uint32_t context_switches;
	uint32_t idle_entries;
	uint32_t switch_stamp_us; /* when the current thread started running */
	uint64_t idle_sleep_us;   /* time the idle thread spent in WFI */
	uint64_t runtime_total_us;
};

extern struct z_kernel _kernel;

/* ---- Scheduler (sched.c); all with interrupts locked ---- */
void z_sched_init(void);
void z_ready_thread(struct k_thread *t);
void z_unready_thread(struct k_thread *t);
/* Puts the current thread on wait_q (by priority) with a timeout, then switches away.
 * Returns what the waker left in swap_retval: 0, or -EAGAIN on timeout. Unlocks key. */
int z_pend_curr(unsigned key, _wait_q_t *wait_q, k_timeout_t timeout);
/* Removes the first waiter from wait_q and cancels its timeout; NULL if none. The thread
 * is not yet ready: callers set swap_retval/swap_data, then z_ready_thread. */
struct k_thread *z_unpend_first_thread(_wait_q_t *wait_q);
/* Readies a waiter that z_unpend_first_thread returned, handing it retval and data. */
void z_wake_thread(struct k_thread *t, int retval, void *data);
/* Switches to a more urgent ready thread if there is one (a deferred PendSV in an ISR),
 * then unlocks key. */
void z_reschedule(unsigned key);
/* Switches away from the current thread (it must have left the ready queue, or be ready
 * and yielding); unlocks key; returns the current thread's swap_retval. */
int z_swap(unsigned key);
void z_thread_prio_set_locked(struct k_thread *t, int prio);

static inline void z_waitq_init(_wait_q_t *w)
{
	sys_dlist_init(&w->waitq);
}

static inline struct k_thread *z_waitq_head(_wait_q_t *w)
{
	sys_dnode_t *n = sys_dlist_peek_head(&w->waitq);
	return n ? CONTAINER_OF(n, struct k_thread, qnode) : NULL;
}

/* ---- Timeouts (timeout.c) ---- */
void z_add_timeout(struct _timeout *to, _timeout_func_t fn, k_timeout_t timeout);
/* 0 when removed, -EINVAL when it was not active. */
int z_abort_timeout(struct _timeout *to);
static inline bool z_is_inactive_timeout(const struct _timeout *to)
{
	return !sys_dnode_is_linked(&to->node);
}
/* Ticks until the next timeout expires, K_TICKS_FOREVER when none. */
k_ticks_t z_next_timeout_ticks(void);
/* Ticks left before to expires (0 when inactive). */
k_ticks_t z_timeout_remaining(const struct _timeout *to);

/* ---- Architecture (arch_m0.S, arch.c) ---- */
void z_arch_init(void);
/* Builds the initial exception frame on a new thread's stack. */
void z_arch_new_thread(struct k_thread *t, k_thread_entry_t entry, void *p1, void *p2, void *p3);
/* Jumps into the first thread through PendSV; never returns. */
__noreturn void z_arch_switch_to_main(struct k_thread *main_thread);
static inline void z_arch_pend_switch(void)
{
	*(volatile uint32_t *)0xE000ED04u = 1u << 28; /* ICSR.PENDSVSET */
}

/* ---- Polling (poll.c): an object became ready; wakes its first poller. Interrupts
 * locked. ---- */
void z_handle_obj_poll_events(sys_dlist_t *events, uint32_t state);

/* ---- Work queue (work.c) and idle (init.c) ---- */
void z_work_init_system_queue(void);

#endif
