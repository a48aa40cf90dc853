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
		sys_clock_set_timeout(z_next_timeout_ticks(), true);
		__asm__ volatile("wfi");
		irq_unlock(key);
	}
}

__noreturn void k_kernel_start(k_thread_entry_t main_entry)
{
	irq_lock();
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
