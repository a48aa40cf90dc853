/* tracing.h: the kernel's event trace: context switches, interrupts, idle, and what threads
 * do with kernel objects (semaphores, mutexes, queues, message queues, events, k_poll, work
 * items), with the 1 MHz time and the thread, in a RAM ring a debugger reads (symbol
 * z_trace_ring) or k_trace_dump prints. Classes of events are switched at run time with
 * k_trace_enable; from boot the thread events (switches, wake-ups, waits), idle, k_poll and
 * work items are recorded, the kernel objects' events and the interrupts (once per USB
 * packet; z_irq_stats counts those) on request. A trace point whose class is off costs a
 * load and a test, like a filtered log call. The hooks are the kernel's own. */
#ifndef KERNEL_TRACING_H
#define KERNEL_TRACING_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/util.h"

enum z_trace_event {
	Z_TRACE_THREAD_SWITCH, /* obj: the thread switched in; arg: the one switched out's prio */
	Z_TRACE_THREAD_READY,  /* obj: the thread made ready */
	Z_TRACE_THREAD_PEND,   /* obj: the wait queue; arg: the timeout in ticks */
	Z_TRACE_ISR_ENTER,     /* arg: the IRQ */
	Z_TRACE_ISR_EXIT,
	Z_TRACE_IDLE,          /* arg: the ticks the clock was programmed for */
	Z_TRACE_SEM_GIVE,
	Z_TRACE_SEM_TAKE,      /* arg: the result */
	Z_TRACE_MUTEX_LOCK,    /* arg: the result */
	Z_TRACE_MUTEX_UNLOCK,
	Z_TRACE_QUEUE_PUT,     /* arg: items queued before */
	Z_TRACE_QUEUE_GET,     /* arg: 1 got an item, 0 none */
	Z_TRACE_MSGQ_PUT,      /* arg: the result */
	Z_TRACE_MSGQ_GET,
	Z_TRACE_EVENT_POST,    /* arg: the events posted (low 16 bits) */
	Z_TRACE_EVENT_WAIT,    /* arg: the events matched */
	Z_TRACE_POLL,          /* arg: the result */
	Z_TRACE_WORK_SUBMIT,   /* arg: the result */
	Z_TRACE_WORK_RUN,      /* obj: the work item */
	Z_TRACE_EVENT_COUNT,
};

/* Classes for k_trace_enable (bit masks). */
#define Z_TRACE_CLASS_THREAD BIT(0)
#define Z_TRACE_CLASS_ISR BIT(1)
#define Z_TRACE_CLASS_IDLE BIT(2)
#define Z_TRACE_CLASS_SEM BIT(3)
#define Z_TRACE_CLASS_MUTEX BIT(4)
#define Z_TRACE_CLASS_QUEUE BIT(5)
#define Z_TRACE_CLASS_MSGQ BIT(6)
#define Z_TRACE_CLASS_EVENT BIT(7)
#define Z_TRACE_CLASS_POLL BIT(8)
#define Z_TRACE_CLASS_WORK BIT(9)
#define Z_TRACE_CLASS_ALL 0x3FFu
#define Z_TRACE_CLASSES_DEFAULT \
	(Z_TRACE_CLASS_THREAD | Z_TRACE_CLASS_IDLE | Z_TRACE_CLASS_POLL | Z_TRACE_CLASS_WORK)

#define Z_TRACE_RECORDS 128 /* a power of two */
#define Z_TRACE_MAGIC 0x4B54524Bu /* "KRTK" */

struct k_thread;

struct z_trace_record {
	uint32_t time_us;
	const struct k_thread *thread; /* running when it happened (NULL: before the kernel) */
	const void *obj;
	int16_t arg;
	uint8_t event; /* enum z_trace_event */
	uint8_t in_isr;
};

struct z_trace_ring {
	uint32_t magic;
	uint32_t head;    /* records written so far; the newest at (head - 1) % N */
	uint32_t classes; /* Z_TRACE_CLASS_* bits being recorded */
	uint32_t counts[Z_TRACE_EVENT_COUNT]; /* events recorded, per type */
	struct z_trace_record rec[Z_TRACE_RECORDS];
};

extern struct z_trace_ring z_trace_ring;

/* The class an event belongs to (folds to a constant at a trace point). */
static inline uint32_t z_trace_class_of(enum z_trace_event ev)
{
	switch (ev) {
	case Z_TRACE_THREAD_SWITCH:
	case Z_TRACE_THREAD_READY:
	case Z_TRACE_THREAD_PEND:
		return Z_TRACE_CLASS_THREAD;
	case Z_TRACE_ISR_ENTER:
	case Z_TRACE_ISR_EXIT:
		return Z_TRACE_CLASS_ISR;
	case Z_TRACE_IDLE:
		return Z_TRACE_CLASS_IDLE;
	case Z_TRACE_SEM_GIVE:
	case Z_TRACE_SEM_TAKE:
		return Z_TRACE_CLASS_SEM;
	case Z_TRACE_MUTEX_LOCK:
	case Z_TRACE_MUTEX_UNLOCK:
		return Z_TRACE_CLASS_MUTEX;
	case Z_TRACE_QUEUE_PUT:
	case Z_TRACE_QUEUE_GET:
		return Z_TRACE_CLASS_QUEUE;
	case Z_TRACE_MSGQ_PUT:
	case Z_TRACE_MSGQ_GET:
		return Z_TRACE_CLASS_MSGQ;
	case Z_TRACE_EVENT_POST:
	case Z_TRACE_EVENT_WAIT:
		return Z_TRACE_CLASS_EVENT;
	case Z_TRACE_POLL:
		return Z_TRACE_CLASS_POLL;
	case Z_TRACE_WORK_SUBMIT:
	case Z_TRACE_WORK_RUN:
		return Z_TRACE_CLASS_WORK;
	default:
		return 0;
	}
}

/* A trace point. */
#define Z_TRACE(ev, obj, arg)                                                    \
	do {                                                                     \
		if (unlikely(z_trace_ring.classes & z_trace_class_of(ev)))        \
			z_trace((ev), (obj), (int32_t)(arg));                     \
	} while (0)

/* Marks the ring valid and records the default classes (the kernel's start-up calls it). */
void z_trace_init(void);
/* Records one event (any context; trace points go through Z_TRACE). */
void z_trace(enum z_trace_event event, const void *obj, int32_t arg);
/* Chooses the classes recorded (counts run regardless); returns the previous set. */
uint32_t k_trace_enable(uint32_t classes);
/* Prints the ring, oldest first, with thread names. */
void k_trace_dump(void);

#endif
