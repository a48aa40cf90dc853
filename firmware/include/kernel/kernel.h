/* kernel.h: the kernel's public API: threads, time, semaphores, mutexes, FIFOs, message
 * queues and work queues. Every blocking call takes a timeout. */
#ifndef KERNEL_KERNEL_H
#define KERNEL_KERNEL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/list.h"
#include "sys/util.h"

/* ---- Time: the kernel counts ticks of 100 us (tickless, see drivers/sys_clock.h) ---- */
#define K_TICKS_PER_SEC 10000
#define K_USEC_PER_TICK (1000000 / K_TICKS_PER_SEC)
#define K_TICKS_FOREVER (-1)

typedef int32_t k_ticks_t;
typedef struct {
	k_ticks_t ticks;
} k_timeout_t;

#define K_NO_WAIT ((k_timeout_t){0})
#define K_FOREVER ((k_timeout_t){K_TICKS_FOREVER})
#define K_TICKS(t) ((k_timeout_t){(t)})
#define K_MSEC(ms) ((k_timeout_t){(k_ticks_t)(ms) * (K_TICKS_PER_SEC / 1000)})
#define K_SECONDS(s) K_MSEC((s) * 1000)

static inline bool k_timeout_is_forever(k_timeout_t t)
{
	return t.ticks == K_TICKS_FOREVER;
}

static inline bool k_timeout_is_no_wait(k_timeout_t t)
{
	return t.ticks == 0;
}

/* Milliseconds to a timeout; negative means forever (the socket API's convention). */
static inline k_timeout_t k_timeout_from_ms(int32_t ms)
{
	return ms < 0 ? K_FOREVER : K_MSEC(ms);
}

/* A point in time for deadlines that span several blocking calls. */
typedef struct {
	int64_t tick; /* INT64_MAX: never; 0: already passed */
} k_timepoint_t;

/* The moment timeout from now ends. */
k_timepoint_t sys_timepoint_calc(k_timeout_t timeout);
/* What is left until tp, as a timeout (K_NO_WAIT once it has passed). */
k_timeout_t sys_timepoint_timeout(k_timepoint_t tp);
static inline bool sys_timepoint_expired(k_timepoint_t tp)
{
	return k_timeout_is_no_wait(sys_timepoint_timeout(tp));
}

/* The free-running 1 MHz hardware counter (wraps every 71 minutes). */
uint32_t k_cycle_get_32(void);
/* The same counter in full (64 bits: never wraps). */
uint64_t k_cycle_get_64(void);
#define K_CYCLES_PER_USEC 1

/* Ticks since boot (64-bit: never wraps in practice). */
int64_t k_uptime_ticks(void);
/* Milliseconds since boot. */
int64_t k_uptime_get(void);
uint32_t k_uptime_get_32(void);
/* Spins for at least us microseconds (reads the TIMER; does not yield). */
void k_busy_wait(uint32_t us);

/* ---- Interrupt locking (PRIMASK) ---- */
static inline unsigned irq_lock(void)
{
	unsigned key;
	__asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(key)::"memory");
	return key;
}

static inline void irq_unlock(unsigned key)
{
	__asm__ volatile("msr primask, %0" ::"r"(key) : "memory");
}

/* An interrupt handler: every external interrupt enters through the kernel's wrapper,
 * which looks its handler up in the software ISR table and reschedules on the way out. */
typedef void (*k_isr_t)(const void *arg);
#define K_NUM_IRQS 32

/* Installs isr(arg) for irq at priority prio (0 highest .. 3 lowest: the M0+ implements
 * 2 priority bits). The interrupt stays disabled until irq_enable. 0 or -EINVAL. */
int irq_connect(unsigned irq, unsigned prio, k_isr_t isr, const void *arg);
void irq_enable(unsigned irq);
void irq_disable(unsigned irq);
void irq_priority_set(unsigned irq, unsigned prio);
/* True in an exception handler. */
bool k_is_in_isr(void);

/* An interrupt line's statistics: handler runs, and their time in microseconds (interrupts
 * nested in them included). */
struct k_irq_stats {
	uint32_t count, time_us, max_us;
};
void k_irq_stats_get(unsigned irq, struct k_irq_stats *s);

/* ---- Timeouts (internal objects, embedded in threads and delayable work) ---- */
struct _timeout;
typedef void (*_timeout_func_t)(struct _timeout *t);
struct _timeout {
	sys_dnode_t node;
	k_ticks_t dticks; /* ticks after the previous timeout in the list */
	_timeout_func_t fn;
};

/* ---- Wait queues ---- */
typedef struct {
	sys_dlist_t waitq;
} _wait_q_t;

#define Z_WAIT_Q_INIT(obj, member) { SYS_DLIST_STATIC_INIT((obj).member.waitq) }

/* ---- Threads ---- */
#define K_PRIO_LOWEST 15 /* the idle thread's; lower numbers are more urgent */
#define K_NUM_PRIO 16

typedef void (*k_thread_entry_t)(void *p1, void *p2, void *p3);

struct k_thread {
	uint32_t sp; /* saved PSP (the context switch code relies on offset 0) */
	sys_dnode_t qnode; /* in the ready queue or one wait queue */
	struct _timeout timeout;
	_wait_q_t *pended_on;
	int8_t prio, base_prio;
	uint8_t state;
	int swap_retval; /* what z_swap returns: 0 when woken, -EAGAIN on timeout */
	void *swap_data; /* an object handed over at wake-up (FIFO item, message buffer) */
	const char *name;
	uint32_t *stack_base;
	size_t stack_size;
	struct k_thread *next_thread; /* all threads, for statistics */
	uint32_t switches_in;
	uint32_t sp_min;   /* the lowest stack pointer it was switched out with */
	uint64_t usage_us; /* time spent running (runtime statistics) */
	int errno_var; /* the socket layer's per-thread errno */
};

#define K_THREAD_STACK_DEFINE(sym, size) uint32_t sym[(size) / 4] __aligned(8)
#define K_THREAD_STACK_SIZEOF(sym) sizeof(sym)

/* Creates and starts a thread. Returns t. */
struct k_thread *k_thread_create(struct k_thread *t, uint32_t *stack, size_t stack_size,
				 k_thread_entry_t entry, void *p1, void *p2, void *p3, int prio,
				 const char *name);
struct k_thread *k_current_get(void);
/* Sleeps for timeout; returns 0 (or the ticks left when woken early by k_wakeup). */
int32_t k_sleep(k_timeout_t timeout);
int32_t k_msleep(int32_t ms);
void k_yield(void);
void k_wakeup(struct k_thread *t);
/* Round robin among ready threads of equal priority: each runs at most slice_ms before the
 * next of its priority gets the CPU (0: no slicing). Threads of a priority more urgent than
 * prio are never sliced. */
void k_sched_time_slice_set(int32_t slice_ms, int prio);
void k_thread_priority_set(struct k_thread *t, int prio);
/* Calls fn for every thread (statistics). */
void k_thread_foreach(void (*fn)(const struct k_thread *t, void *ctx), void *ctx);
/* CPU load in permille since the previous call (the idle thread's sleep is the idle
 * time); the first call measures from boot. */
uint32_t k_cpu_load_permille(void);
/* Bytes of its stack the thread had in use, at most, when it was switched out (a sample:
 * deeper calls between switches go unseen; the stack sentinel catches an overflow). */
size_t k_thread_stack_used(const struct k_thread *t);
/* Microseconds the thread has run, and the total since the kernel started. */
uint64_t k_thread_runtime_us(const struct k_thread *t);
uint64_t k_runtime_total_us(void);
/* Halts the system with a message: a kernel invariant broke. */
__noreturn void k_panic(const char *why);

/* Starts the scheduler: creates idle, then main_entry as the "main" thread. Never returns. */
__noreturn void k_kernel_start(k_thread_entry_t main_entry);

/* ---- Atomic operations: the M0+ has no exclusive loads and stores, so each locks
 * interrupts for its read-modify-write (kernel/atomic.c). Each returns the old value. ---- */
typedef uint32_t atomic_t;

atomic_t atomic_or(atomic_t *target, atomic_t value);
atomic_t atomic_and(atomic_t *target, atomic_t value);
atomic_t atomic_set(atomic_t *target, atomic_t value);
atomic_t atomic_add(atomic_t *target, atomic_t value);
atomic_t atomic_sub(atomic_t *target, atomic_t value);
static inline atomic_t atomic_get(const atomic_t *target)
{
	return *(const volatile atomic_t *)target;
}
static inline atomic_t atomic_clear(atomic_t *target)
{
	return atomic_set(target, 0);
}
static inline atomic_t atomic_inc(atomic_t *target)
{
	return atomic_add(target, 1);
}
static inline atomic_t atomic_dec(atomic_t *target)
{
	return atomic_sub(target, 1);
}

/* ---- Semaphores ---- */
struct k_sem {
	_wait_q_t wait_q;
	uint32_t count, limit;
	sys_dlist_t poll_events; /* k_poll waiters for K_POLL_TYPE_SEM_AVAILABLE */
};

#define K_SEM_DEFINE(name, initial, max)                                   \
	struct k_sem name = {Z_WAIT_Q_INIT(name, wait_q), (initial), (max), \
			     SYS_DLIST_STATIC_INIT(name.poll_events)}

void k_sem_init(struct k_sem *sem, uint32_t initial, uint32_t limit);
/* 0 when taken; -EBUSY (no wait) or -EAGAIN (timed out). */
int k_sem_take(struct k_sem *sem, k_timeout_t timeout);
void k_sem_give(struct k_sem *sem);
void k_sem_reset(struct k_sem *sem);
static inline uint32_t k_sem_count_get(const struct k_sem *sem)
{
	return sem->count;
}

/* ---- Mutexes (recursive, with priority inheritance) ---- */
struct k_mutex {
	_wait_q_t wait_q;
	struct k_thread *owner;
	uint32_t lock_count;
	int owner_orig_prio;
};

void k_mutex_init(struct k_mutex *m);
/* 0 when locked; -EBUSY or -EAGAIN. */
int k_mutex_lock(struct k_mutex *m, k_timeout_t timeout);
/* 0, or -EPERM when the caller does not own it. */
int k_mutex_unlock(struct k_mutex *m);

/* ---- Condition variables ---- */
struct k_condvar {
	_wait_q_t wait_q;
};

void k_condvar_init(struct k_condvar *cv);
/* Wakes the first waiter / every waiter (the latter returns how many). */
int k_condvar_signal(struct k_condvar *cv);
int k_condvar_broadcast(struct k_condvar *cv);
/* Unlocks mutex (held once by the caller), waits for a signal, locks it again. 0, or
 * -EAGAIN on timeout (the mutex is held again either way). */
int k_condvar_wait(struct k_condvar *cv, struct k_mutex *mutex, k_timeout_t timeout);

/* ---- Queues: items whose first word the queue owns, taken from the head; k_fifo puts
 * them at the tail, k_lifo at the head (free lists: the most recently used first) ---- */
struct k_queue {
	sys_slist_t items;
	_wait_q_t wait_q;
	uint32_t count;
	sys_dlist_t poll_events; /* k_poll waiters for K_POLL_TYPE_FIFO_DATA_AVAILABLE */
};

void k_queue_init(struct k_queue *q);
/* Both may be called from an ISR. */
void k_queue_append(struct k_queue *q, void *item);
void k_queue_prepend(struct k_queue *q, void *item);
/* Takes item out of the queue if it is there; true when it was. */
bool k_queue_remove(struct k_queue *q, void *item);
/* The head item, or NULL when none came within timeout. */
void *k_queue_get(struct k_queue *q, k_timeout_t timeout);
static inline bool k_queue_is_empty(const struct k_queue *q)
{
	return sys_slist_is_empty(&q->items);
}
static inline void *k_queue_peek_head(const struct k_queue *q)
{
	return q->items.head;
}

struct k_fifo {
	struct k_queue _queue;
};

struct k_lifo {
	struct k_queue _queue;
};

static inline void k_fifo_init(struct k_fifo *f)
{
	k_queue_init(&f->_queue);
}
static inline void k_fifo_put(struct k_fifo *f, void *item)
{
	k_queue_append(&f->_queue, item);
}
static inline void *k_fifo_get(struct k_fifo *f, k_timeout_t timeout)
{
	return k_queue_get(&f->_queue, timeout);
}
static inline bool k_fifo_remove(struct k_fifo *f, void *item)
{
	return k_queue_remove(&f->_queue, item);
}
static inline bool k_fifo_is_empty(const struct k_fifo *f)
{
	return k_queue_is_empty(&f->_queue);
}
static inline void *k_fifo_peek_head(const struct k_fifo *f)
{
	return k_queue_peek_head(&f->_queue);
}
static inline uint32_t k_fifo_count(const struct k_fifo *f)
{
	return f->_queue.count;
}

static inline void k_lifo_init(struct k_lifo *l)
{
	k_queue_init(&l->_queue);
}
static inline void k_lifo_put(struct k_lifo *l, void *item)
{
	k_queue_prepend(&l->_queue, item);
}
static inline void *k_lifo_get(struct k_lifo *l, k_timeout_t timeout)
{
	return k_queue_get(&l->_queue, timeout);
}
static inline uint32_t k_lifo_count(const struct k_lifo *l)
{
	return l->_queue.count;
}

/* ---- Memory slabs: fixed-size blocks from a static buffer ---- */
struct k_mem_slab {
	_wait_q_t wait_q;
	char *buffer;
	char *free_list; /* each free block's first word links to the next */
	size_t block_size;
	uint32_t num_blocks, num_used, max_used;
};

#define K_MEM_SLAB_DEFINE(name, blk_size, num_blks)                                   \
	static char name##_buffer[ROUND_UP(blk_size, 4) * (num_blks)] __aligned(4);   \
	struct k_mem_slab name = {.buffer = name##_buffer,                             \
				  .block_size = ROUND_UP(blk_size, 4),                 \
				  .num_blocks = (num_blks)}

/* Builds the free list (once, before use). */
void k_mem_slab_init(struct k_mem_slab *slab);
/* 0 with *mem a block; -ENOMEM (no wait) or -EAGAIN (timed out). */
int k_mem_slab_alloc(struct k_mem_slab *slab, void **mem, k_timeout_t timeout);
void k_mem_slab_free(struct k_mem_slab *slab, void *mem);
static inline uint32_t k_mem_slab_num_free_get(const struct k_mem_slab *slab)
{
	return slab->num_blocks - slab->num_used;
}

/* ---- Events: a 32-bit set of flags threads can wait for ---- */
struct k_event {
	_wait_q_t wait_q;
	uint32_t events;
};

void k_event_init(struct k_event *e);
/* Adds events (any context); waiters whose condition is met wake. Returns the old set. */
uint32_t k_event_post(struct k_event *e, uint32_t events);
/* Removes events; returns the old set. */
uint32_t k_event_clear(struct k_event *e, uint32_t events);
/* Waits until any of events is set (reset: clear the whole set first). Returns the
 * matching events, 0 on timeout. The events stay set: clear what was handled. */
uint32_t k_event_wait(struct k_event *e, uint32_t events, bool reset, k_timeout_t timeout);

/* ---- Polling: waiting for the first of several objects ---- */
enum k_poll_type {
	K_POLL_TYPE_IGNORE = 0,
	K_POLL_TYPE_SIGNAL,
	K_POLL_TYPE_SEM_AVAILABLE,
	K_POLL_TYPE_FIFO_DATA_AVAILABLE, /* any k_queue: k_fifo, k_lifo */
};

#define K_POLL_STATE_NOT_READY 0u
#define K_POLL_STATE_SIGNALED 0x01u
#define K_POLL_STATE_SEM_AVAILABLE 0x02u
#define K_POLL_STATE_FIFO_DATA_AVAILABLE 0x04u

struct k_poll_signal {
	sys_dlist_t poll_events;
	unsigned int signaled;
	int result;
};

struct z_poller;

struct k_poll_event {
	sys_dnode_t node; /* in the object's list while registered */
	struct z_poller *poller;
	uint8_t type;
	uint8_t state; /* K_POLL_STATE_* bits, set by k_poll */
	uint32_t tag;  /* the caller's */
	union {
		void *obj;
		struct k_sem *sem;
		struct k_queue *queue;
		struct k_poll_signal *signal;
	};
};

void k_poll_event_init(struct k_poll_event *ev, enum k_poll_type type, void *obj);
/* Waits until at least one event's condition holds; the states say which. 0, or -EAGAIN
 * when none did within timeout. */
int k_poll(struct k_poll_event *events, int num_events, k_timeout_t timeout);
void k_poll_signal_init(struct k_poll_signal *sig);
void k_poll_signal_raise(struct k_poll_signal *sig, int result);
void k_poll_signal_reset(struct k_poll_signal *sig);

/* ---- Message queues: fixed-size messages copied into a ring ---- */
struct k_msgq {
	_wait_q_t wait_q; /* readers, or writers when full */
	uint8_t *buffer;
	size_t msg_size;
	uint32_t max_msgs, used, read_idx, write_idx;
	uint32_t dropped; /* puts that failed without waiting */
};

void k_msgq_init(struct k_msgq *q, void *buffer, size_t msg_size, uint32_t max_msgs);
/* 0 when queued; -ENOMSG (full, no wait) or -EAGAIN. May be called from an ISR with
 * K_NO_WAIT. */
int k_msgq_put(struct k_msgq *q, const void *msg, k_timeout_t timeout);
/* 0 when a message was copied to msg; -ENOMSG or -EAGAIN. */
int k_msgq_get(struct k_msgq *q, void *msg, k_timeout_t timeout);
static inline uint32_t k_msgq_num_used_get(const struct k_msgq *q)
{
	return q->used;
}

/* ---- Work queues ---- */
struct k_work;
struct k_work_q;
typedef void (*k_work_handler_t)(struct k_work *w);

/* Work item state (k_work_busy_get) */
#define K_WORK_RUNNING 0x01u   /* its handler runs now */
#define K_WORK_QUEUED 0x02u    /* waiting in a queue */
#define K_WORK_DELAYED 0x04u   /* waiting for its delay (delayable work) */
#define K_WORK_CANCELING 0x08u /* being cancelled: submissions are refused */

struct k_work {
	sys_snode_t node; /* first: the queue's FIFO link */
	k_work_handler_t handler;
	struct k_work_q *queue;
	uint8_t flags;
};

struct k_work_delayable {
	struct k_work work;
	struct _timeout timeout;
	struct k_work_q *queue;
};

struct k_work_q {
	struct k_fifo fifo;
	struct k_thread thread;
	struct k_work *current; /* the item whose handler runs */
	sys_slist_t flushers;   /* k_work_flush callers waiting for the current item */
	uint32_t executed;
	uint32_t max_depth;
};

/* What k_work_flush waits with (on the caller's stack). */
struct k_work_sync {
	sys_snode_t node;
	struct k_work *work;
	struct k_sem done;
};

void k_work_init(struct k_work *w, k_work_handler_t handler);
void k_work_init_delayable(struct k_work_delayable *dw, k_work_handler_t handler);
/* Queues w. 1: queued now; 0: it was queued already; 2: queued again while its handler
 * runs; -EBUSY: it is being cancelled. ISR safe. An item must stay valid until its
 * handler has returned: the queue updates its state afterwards. */
int k_work_submit_to_queue(struct k_work_q *q, struct k_work *w);
int k_work_submit(struct k_work *w);
/* K_WORK_* bits of w now. */
int k_work_busy_get(const struct k_work *w);
static inline bool k_work_is_pending(const struct k_work *w)
{
	return k_work_busy_get(w) != 0;
}
/* Takes w off its queue if it waits there; returns its remaining busy bits (it may still
 * be running). */
int k_work_cancel(struct k_work *w);
/* Waits until w is neither queued nor running; true if it had to wait. Threads only. */
bool k_work_flush(struct k_work *w, struct k_work_sync *sync);
/* (Re)schedules dw to run after delay on q (the system queue for k_work_schedule).
 * 1 when scheduled or queued. */
int k_work_schedule_for_queue(struct k_work_q *q, struct k_work_delayable *dw,
			      k_timeout_t delay);
int k_work_schedule(struct k_work_delayable *dw, k_timeout_t delay);
int k_work_cancel_delayable(struct k_work_delayable *dw);
static inline struct k_work_delayable *k_work_delayable_from_work(struct k_work *w)
{
	return CONTAINER_OF(w, struct k_work_delayable, work);
}
void k_work_queue_start(struct k_work_q *q, uint32_t *stack, size_t stack_size, int prio,
			const char *name);
/* The system work queue (started by the kernel). */
extern struct k_work_q k_sys_work_q;

#endif
