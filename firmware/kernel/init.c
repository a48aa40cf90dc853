/* init.c: kernel start-up: the idle thread, the system work queue and the main thread. */
#include "drivers/sys_clock.h"
#include "kernel_internal.h"

#define MAIN_STACK_SIZE 2048
#define IDLE_STACK_SIZE 512
/* main initialises the system before anything else may run. */
#define MAIN_PRIO 0

static struct k_thread main_thread, idle_thread;
static K_THREAD_STACK_DEFINE(main_stack, MAIN_STACK_SIZE);
static K_THREAD_STACK_DEFINE(idle_stack, IDLE_STACK_SIZE);

__noreturn void z_sched_start(struct k_thread *first);

/* The idle thread tells the clock driver how long nothing is due, then sleeps until an
 * interrupt. WFI with interrupts masked still wakes on a pending interrupt, which is taken
 * at the unlock: no wake-up can slip in between the check and the sleep. */
static void idle(void *p1, void *p2, void *p3)
{
	UNUSED(p1);
	UNUSED(p2);
	UNUSED(p3);
	for (;;) {
		unsigned key = irq_lock();
		_kernel.idle_entries++;
		k_ticks_t ticks = z_next_timeout_ticks();
		Z_TRACE(Z_TRACE_IDLE, NULL, ticks);
		sys_clock_set_timeout(ticks, true);
		uint32_t slept = k_cycle_get_32();
		__asm__ volatile("wfi");
		/* Still locked: the time until the pending interrupt is taken is idle too. */
		_kernel.idle_sleep_us += k_cycle_get_32() - slept;
		irq_unlock(key);
	}
}

uint32_t k_cpu_load_permille(void)
{
	static uint64_t last_total, last_idle;
	static uint32_t last_stamp;
	unsigned key = irq_lock();
	uint32_t now = k_cycle_get_32();
	uint64_t total = last_total + (now - last_stamp);
	uint64_t idle_us = _kernel.idle_sleep_us;
	uint32_t span = (uint32_t)(total - last_total);
	uint32_t idled = (uint32_t)(idle_us - last_idle);
	last_total = total;
	last_idle = idle_us;
	last_stamp = now;
	irq_unlock(key);
	if (span == 0 || idled > span)
		return 0;
	return (uint32_t)(((uint64_t)(span - idled) * 1000u) / span);
}

__noreturn void k_kernel_start(k_thread_entry_t main_entry)
{
	irq_lock();
	z_trace_init();
	z_arch_init();
	z_sched_init();
	sys_clock_driver_init();
	k_thread_create(&idle_thread, idle_stack, sizeof(idle_stack), idle, NULL, NULL, NULL,
			K_PRIO_LOWEST, "idle");
	z_work_init_system_queue();
	k_thread_create(&main_thread, main_stack, sizeof(main_stack), main_entry, NULL, NULL, NULL,
			MAIN_PRIO, "main");
	z_sched_start(&main_thread);
}
