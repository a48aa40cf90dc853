/* exc.c: exception scenarios for the virtual Pico, selected by MAILBOX_IN[0]:
 *   1 nested IRQs by priority, and same-priority order by number
 *   2 SVC with an immediate and a result passed back in the stacked r0
 *   3 HardFault on an unaligned word load; the handler skips the load
 *   4 a load from unmapped memory (a HardFault only in strict mode); skipped likewise
 *   5 a call into an execute-never region; the handler resumes at after_xn
 *   6 a bad EXC_RETURN from the SVC handler; the HardFault handler stops at a BKPT
 *   7 a fault inside the HardFault handler: lockup
 *   8 WFI until the test raises IRQ 5 at a virtual time it chose
 *   9 NMI raised by the test while main spins
 * MAILBOX[1] = log length, MAILBOX[2..] = log entries. */
#include "sim.h"

static volatile uint32_t nlog;
static volatile uint32_t spin_done;

static void log_v(uint32_t v)
{
	MAILBOX[2 + nlog] = v;
	nlog = nlog + 1;
	MAILBOX[1] = nlog;
}

static uint32_t ipsr(void)
{
	uint32_t v;
	__asm volatile("mrs %0, ipsr" : "=r"(v));
	return v;
}

/* ---- 1: priorities ---- */
void irq0_handler(void)
{
	log_v(0x10);
	NVIC_ISPR = 1u << 2; /* same priority: waits */
	log_v(0x11);
	NVIC_ISPR = 1u << 1; /* higher priority: preempts at once */
	log_v(0x12);
}

void irq1_handler(void)
{
	log_v(0x20);
	log_v(ipsr());
}

void irq2_handler(void)
{
	log_v(0x30);
}

void irq3_handler(void)
{
	log_v(0x43);
}

void irq4_handler(void)
{
	log_v(0x44);
}

void irq5_handler(void)
{
	log_v(0x55);
}

void nmi_handler(void)
{
	log_v(0x66);
	spin_done = 1;
}

static void nested(void)
{
	NVIC_IPR(0) = (0x80u << 0) | (0x40u << 8) | (0x80u << 16) | (0xC0u << 24);
	NVIC_IPR(1) = 0xC0u;
	NVIC_ISER = 0x1F;
	NVIC_ISPR = 1u << 0;
	__asm volatile("dsb\n isb" ::: "memory");
	disable_irq();
	NVIC_ISPR = (1u << 4) | (1u << 3);
	enable_irq();
	__asm volatile("isb" ::: "memory");
}

/* ---- 2, 6: SVC ---- */
void svc_c(uint32_t *frame)
{
	uint32_t mode = MAILBOX_IN[0];
	uint8_t imm = *(uint8_t *)(frame[6] - 2);
	log_v(0x5C00 | imm);
	frame[0] = imm * 2u;
	if (mode == 6)
		__asm volatile("ldr r0, =0xFFFFFFF5\n bx r0" ::: "r0");
}

__attribute__((naked)) void svc_handler(void)
{
	__asm volatile("mrs r0, msp\n"
		       "push {lr}\n"
		       "bl svc_c\n"
		       "pop {pc}\n");
}

static uint32_t do_svc(void)
{
	register uint32_t r0 __asm("r0") = 0;
	__asm volatile("svc #21" : "+r"(r0)::"memory");
	return r0;
}

/* ---- 3, 4, 5, 6, 7: HardFault ---- */
void after_xn(void)
{
	log_v(0xAF);
	MAILBOX[0] = 0xD0;
	__asm volatile("bkpt #0");
}

void hardfault_c(uint32_t *frame)
{
	uint32_t mode = MAILBOX_IN[0];
	log_v(0xF000 | mode);
	log_v(frame[6]);
	if (mode == 6) {
		__asm volatile("bkpt #2");
	} else if (mode == 7) {
		__asm volatile("ldr r1, =0x20000002\n"
			       "ldr r0, [r1]\n" ::: "r0", "r1", "memory"); /* lockup */
	} else if (mode == 5) {
		frame[6] = (uint32_t)after_xn & ~1u;
		frame[7] |= 1u << 24;
	} else {
		frame[6] += 2; /* skip the 16-bit load */
	}
}

__attribute__((naked)) void hardfault_handler(void)
{
	__asm volatile("mrs r0, msp\n"
		       "push {lr}\n"
		       "bl hardfault_c\n"
		       "pop {pc}\n");
}

static void unaligned(void)
{
	__asm volatile("ldr r1, =0x20000001\n"
		       ".global unaligned_insn\n"
		       "unaligned_insn:\n"
		       "ldr r0, [r1]\n" ::: "r0", "r1", "memory");
}

static uint32_t unmapped(void)
{
	uint32_t v;
	__asm volatile("ldr r1, =0x30000000\n"
		       ".global unmapped_insn\n"
		       "unmapped_insn:\n"
		       "ldr %0, [r1]\n"
		       : "=l"(v)::"r1", "memory");
	return v;
}

int main(void)
{
	switch (MAILBOX_IN[0]) {
	case 1:
		nested();
		break;
	case 2:
		log_v(do_svc());
		break;
	case 3:
	case 7:
		unaligned();
		log_v(0x3E);
		break;
	case 4:
		log_v(unmapped() | 0x4000);
		break;
	case 5: {
		void (*f)(void) = (void (*)(void))0x40000001u;
		f();
		log_v(0xBAD);
		break;
	}
	case 6:
		do_svc();
		log_v(0xBAD);
		break;
	case 8:
		NVIC_ISER = 1u << 5;
		wfi();
		log_v(0x80);
		break;
	case 9:
		while (!spin_done)
			;
		log_v(0x90);
		break;
	}
	return 0xD0;
}
