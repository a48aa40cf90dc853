/* pendsv.c: two tasks on their own process stacks taking turns through a PendSV context
 * switch (R4-R11 saved by hand, as ARMv6-M needs); each prints as it runs. */
#include "rt.h"

#define ROUNDS 3

static uint32_t stack_b[128];
static uint32_t stack_a[128];
uint32_t task_sp[2]; /* saved PSP of each task; used by the handler */
uint32_t task_current;
static volatile int switches;

static void yield(void)
{
	SCB_ICSR = 1u << 28; /* PENDSVSET */
	__asm volatile("dsb\n isb" ::: "memory");
}

static void say(char who, int i)
{
	rt_putc(who);
	rt_put_dec((uint32_t)i);
	rt_putc(' ');
}

static void task_b(void)
{
	for (int i = 0;; i++) {
		say('B', i);
		yield();
	}
}

static void task_a(void)
{
	for (int i = 0; i < ROUNDS; i++) {
		say('A', i);
		yield();
	}
	rt_puts("\npendsv switches ");
	rt_put_dec((uint32_t)switches);
	rt_putc('\n');
	rt_exit(0);
}

__attribute__((naked)) void isr_pendsv(void)
{
	__asm volatile(
		".syntax unified\n"
		"mrs r0, psp\n"
		"subs r0, #32\n"
		"mov r2, r0\n"
		"stmia r0!, {r4-r7}\n"
		"mov r4, r8\n mov r5, r9\n mov r6, r10\n mov r7, r11\n"
		"stmia r0!, {r4-r7}\n"
		"ldr r1, =task_current\n"
		"ldr r3, [r1]\n"
		"ldr r0, =task_sp\n"
		"lsls r3, r3, #2\n"
		"str r2, [r0, r3]\n"
		"lsrs r3, r3, #2\n"
		"movs r2, #1\n"
		"eors r3, r2\n"
		"str r3, [r1]\n"
		"lsls r3, r3, #2\n"
		"ldr r0, [r0, r3]\n"
		"adds r0, #16\n"
		"ldmia r0!, {r4-r7}\n"
		"mov r8, r4\n mov r9, r5\n mov r10, r6\n mov r11, r7\n"
		"subs r0, #32\n"
		"ldmia r0!, {r4-r7}\n"
		"adds r0, #16\n"
		"msr psp, r0\n"
		"ldr r1, =switches\n"
		"ldr r2, [r1]\n"
		"adds r2, #1\n"
		"str r2, [r1]\n"
		"ldr r0, =0xFFFFFFFD\n"
		"bx r0\n");
}

int main(void)
{
	SCB_SHPR3 = (SCB_SHPR3 & 0xFF00FFFFu) | 0x00C00000u; /* PendSV lowest */
	/* Task B starts from an exception frame (R0-R3, R12, LR, PC, xPSR) under room for
	 * R4-R11. */
	uint32_t *sp = &stack_b[128 - 16];
	sp[8 + 6] = (uint32_t)task_b; /* PC */
	sp[8 + 7] = 0x01000000u;      /* xPSR: Thumb */
	task_sp[1] = (uint32_t)sp;
	task_current = 0;
	/* Thread mode moves to task A's process stack. */
	__asm volatile("msr psp, %0\n"
		       "movs r0, #2\n"
		       "msr control, r0\n"
		       "isb\n" ::"r"(&stack_a[128])
		       : "r0", "memory");
	task_a();
	return 1;
}
