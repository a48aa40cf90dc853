/* The scheduler (kernel/sched.c) and the system clock (kernel/timeout.c). */
#include <stdint.h>
int arch_swap(unsigned int key);
static volatile uint32_t ready_q[8];
volatile uint32_t sys_ticks;

void z_reschedule(void)
{
	for (int i = 0; i < 8; i++)
		if (ready_q[i]) {
			arch_swap((unsigned int)i);
			return;
		}
}

void k_yield(void) { ready_q[0] = 1; z_reschedule(); }

void sys_clock_announce(int32_t ticks)
{
	sys_ticks += (uint32_t)ticks;
	if (sys_ticks & 1)
		z_reschedule();
}

void sys_clock_isr(void) { sys_clock_announce(1); }

void z_fatal_error(unsigned int reason)
{
	*(volatile uint32_t *)0xd0000010 = reason;
	for (;;)
		;
}
