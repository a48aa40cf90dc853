/* tracing.c: the kernel event trace ring (include/kernel/tracing.h). */
#include "drivers/console.h"
#include "kernel/tracing.h"
#include "kernel_internal.h"

/* Zeroed with .bss; z_trace_init marks it valid before the first thread runs. */
struct z_trace_ring z_trace_ring;

void z_trace_init(void)
{
	z_trace_ring.classes = Z_TRACE_CLASSES_DEFAULT;
	z_trace_ring.magic = Z_TRACE_MAGIC;
}

/* Each event's name for the dump. */
static const char *const trace_names[Z_TRACE_EVENT_COUNT] = {
	[Z_TRACE_THREAD_SWITCH] = "switch",
	[Z_TRACE_THREAD_READY] = "ready",
	[Z_TRACE_THREAD_PEND] = "pend",
	[Z_TRACE_ISR_ENTER] = "isr_enter",
	[Z_TRACE_ISR_EXIT] = "isr_exit",
	[Z_TRACE_IDLE] = "idle",
	[Z_TRACE_SEM_GIVE] = "sem_give",
	[Z_TRACE_SEM_TAKE] = "sem_take",
	[Z_TRACE_MUTEX_LOCK] = "mutex_lock",
	[Z_TRACE_MUTEX_UNLOCK] = "mutex_unlock",
	[Z_TRACE_QUEUE_PUT] = "queue_put",
	[Z_TRACE_QUEUE_GET] = "queue_get",
	[Z_TRACE_MSGQ_PUT] = "msgq_put",
	[Z_TRACE_MSGQ_GET] = "msgq_get",
	[Z_TRACE_EVENT_POST] = "event_post",
	[Z_TRACE_EVENT_WAIT] = "event_wait",
	[Z_TRACE_POLL] = "poll",
	[Z_TRACE_WORK_SUBMIT] = "work_submit",
	[Z_TRACE_WORK_RUN] = "work_run",
};

void z_trace(enum z_trace_event event, const void *obj, int32_t arg)
{
	struct z_trace_ring *r = &z_trace_ring;
	uint32_t ipsr;
	__asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
	unsigned key = irq_lock();
	r->counts[event]++;
	struct z_trace_record *rec = &r->rec[r->head % Z_TRACE_RECORDS];
	r->head++;
	rec->time_us = k_cycle_get_32();
	rec->thread = _kernel.current;
	rec->obj = obj;
	rec->arg = (int16_t)MAX(MIN(arg, INT16_MAX), INT16_MIN);
	rec->event = (uint8_t)event;
	rec->in_isr = (ipsr & 0x3Fu) != 0;
	irq_unlock(key);
}

uint32_t k_trace_enable(uint32_t classes)
{
	unsigned key = irq_lock();
	uint32_t old = z_trace_ring.classes;
	z_trace_ring.classes = classes & Z_TRACE_CLASS_ALL;
	irq_unlock(key);
	return old;
}


void k_trace_dump(void)
{
	const struct z_trace_ring *r = &z_trace_ring;
	uint32_t n = MIN(r->head, (uint32_t)Z_TRACE_RECORDS);
	printk("kernel trace: %u events recorded, last %u:\r\n", (unsigned)r->head, (unsigned)n);
	for (uint32_t i = r->head - n; i != r->head; i++) {
		const struct z_trace_record *rec = &r->rec[i % Z_TRACE_RECORDS];
		const char *name = rec->event < Z_TRACE_EVENT_COUNT ? trace_names[rec->event] : "?";
		printk("  %10u us %-8s %s%-12s %p %d\r\n", (unsigned)rec->time_us,
		       rec->thread && rec->thread->name ? rec->thread->name : "-",
		       rec->in_isr ? "isr " : "", name, rec->obj, rec->arg);
	}
}
