/* pendsv.c: a PendSV context switch between two threads on the process stack. main moves to
 * PSP and yields; threads A and B each log five steps, yielding after each; when both are
 * done main runs again. MAILBOX[1] = log length, MAILBOX[2..] = log (0xA0+i, 0xB0+i),
 * MAILBOX[40] = CONTROL in thread 0 after the switches, MAILBOX[42] = PSP at the end. */
#include "sim.h"

static uint32_t stack_a[128] __attribute__((aligned(8)));
static uint32_t stack_b[128] __attribute__((aligned(8)));
static uint32_t main_psp_area[128] __attribute__((aligned(8)));
static uint32_t *sp[3];
static int current;
static volatile int done_a, done_b;
static volatile uint32_t nlog;

static void log_step(uint32_t v)
{
	MAILBOX[2 + nlog] = v;
	nlog = nlog + 1;
}

static void yield(void)
{
	SCB_ICSR = 1u << 28; /* PENDSVSET */
	__asm volatile("dsb\n isb" ::: "memory");
}

/* Called by pendsv_handler with the outgoing thread's saved stack; returns the next one. */
uint32_t *switch_context(uint32_t *old)
{
	sp[current] = old;
	if (done_a && done_b)
		current = 0;
	else
		current = current == 1 ? 2 : 1;
	return sp[current];
}

__attribute__((naked)) void pendsv_handler(void)
{
	__asm volatile(
		".syntax unified\n"
		"mrs r0, psp\n"
		"subs r0, #32\n"
		"mov r1, r0\n"
		"stmia r1!, {r4-r7}\n"
		"mov r4, r8\n"
		"mov r5, r9\n"
		"mov r6, r10\n"
		"mov r7, r11\n"
		"stmia r1!, {r4-r7}\n"
		"push {lr}\n"
		"bl switch_context\n"
		"pop {r2}\n"
		"adds r0, #16\n"
		"ldmia r0!, {r4-r7}\n"
		"mov r8, r4\n"
		"mov r9, r5\n"
		"mov r10, r6\n"
		"mov r11, r7\n"
		"msr psp, r0\n"
		"subs r0, #32\n"
		"ldmia r0!, {r4-r7}\n"
		"bx r2\n");
}

static void thread_a(void)
{
	for (uint32_t i = 0; i < 5; i++) {
		log_step(0xA0 + i);
		yield();
	}
	done_a = 1;
	for (;;)
		yield();
}

static void thread_b(void)
{
	for (uint32_t i = 0; i < 5; i++) {
		log_step(0xB0 + i);
		yield();
	}
	done_b = 1;
	for (;;)
		yield();
}

static uint32_t *initial_stack(uint32_t *top, void (*entry)(void))
{
	uint32_t *s = top - 16;
	for (int i = 0; i < 16; i++)
		s[i] = 0;
	s[8 + 5] = 0xFFFFFFFFu;               /* LR: threads never return */
	s[8 + 6] = (uint32_t)entry & ~1u;     /* PC */
	s[8 + 7] = 0x01000000u;               /* xPSR: Thumb */
	return s;
}

/* Runs on the process stack as thread 0. */
__attribute__((noinline)) void run_threads(void)
{
	yield();
	uint32_t control;
	__asm volatile("mrs %0, control" : "=r"(control));
	MAILBOX[40] = control;
	MAILBOX[41] = nlog;
}

int main(void)
{
	sp[1] = initial_stack(stack_a + 128, thread_a);
	sp[2] = initial_stack(stack_b + 128, thread_b);
	SCB_SHPR3 = 0xC0u << 16; /* PendSV at the lowest priority */
	/* Thread 0 (run_threads) on the process stack, then back to the main stack. */
	__asm volatile("msr psp, %0\n"
		       "movs r0, #2\n"
		       "msr control, r0\n"
		       "isb\n"
		       "bl run_threads\n"
		       "movs r0, #0\n"
		       "msr control, r0\n"
		       "isb\n" ::"r"(main_psp_area + 128)
		       : "r0", "r1", "r2", "r3", "r12", "lr", "memory");
	MAILBOX[1] = nlog;
	uint32_t psp;
	__asm volatile("mrs %0, psp" : "=r"(psp));
	MAILBOX[42] = psp;
	return 0;
}
