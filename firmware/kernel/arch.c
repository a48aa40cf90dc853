/* arch.c: Cortex-M0+ specifics: initial thread frames, the first switch, NVIC helpers,
 * exception priorities and the fault report. */
#include "drivers/console.h"
#include "kernel_internal.h"
#include "rp2040/regs.h"

void z_thread_entry(k_thread_entry_t entry, void *p1, void *p2, void *p3);

/* What the hardware stacks on exception entry, then what PendSV saves below it. */
struct z_initial_frame {
	uint32_t r4_r11[8];
	uint32_t r0, r1, r2, r3, r12, lr, pc, xpsr;
};

void z_arch_new_thread(struct k_thread *t, k_thread_entry_t entry, void *p1, void *p2, void *p3)
{
	uint32_t top = ((uint32_t)t->stack_base + t->stack_size) & ~7u;
	struct z_initial_frame *f = (struct z_initial_frame *)(top - sizeof(*f));
	for (int i = 0; i < 8; i++)
		f->r4_r11[i] = 0;
	f->r0 = (uint32_t)entry;
	f->r1 = (uint32_t)p1;
	f->r2 = (uint32_t)p2;
	f->r3 = (uint32_t)p3;
	f->r12 = 0;
	f->lr = 0xFFFFFFFFu; /* returning from z_thread_entry is a fault */
	f->pc = (uint32_t)z_thread_entry & ~1u;
	f->xpsr = 0x01000000u; /* Thumb state */
	t->sp = (uint32_t)f;
}

void z_arch_init(void)
{
	/* PendSV lowest so that it switches only when no handler is active. */
	hw_write(SCB_SHPR3, (hw_read(SCB_SHPR3) & 0x00FFFFFFu) | (0xC0u << 16) | (0xC0u << 24));
}

__noreturn void z_arch_switch_to_main(struct k_thread *first)
{
	/* The boot context becomes a throw-away thread: PendSV saves it to scratch and never
	 * resumes it. From then on threads run on the PSP and handlers on the MSP. */
	static struct k_thread boot_thread;
	static uint32_t boot_scratch[16] __aligned(8);
	(void)first;
	boot_thread.name = "boot";
	_kernel.current = &boot_thread;
	__asm__ volatile("msr psp, %0" ::"r"(&boot_scratch[16]));
	z_arch_pend_switch();
	irq_unlock(0);
	for (;;)
		__asm__ volatile("wfi");
}

bool k_is_in_isr(void)
{
	uint32_t ipsr;
	__asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
	return (ipsr & 0x3F) != 0;
}

/* The software ISR table the interrupt wrapper reads (RAM: handlers are installed at run
 * time by the drivers). */
struct z_isr_entry {
	const void *arg;
	k_isr_t isr;
};

static void z_irq_spurious(const void *arg);
struct z_isr_entry _sw_isr_table[K_NUM_IRQS];

/* Per interrupt line: how often its handler ran and for how long (interrupts nested in it
 * included), for a debugger (symbol z_irq_stats) and k_irq_stats_get. */
struct k_irq_stats z_irq_stats[K_NUM_IRQS];
#define Z_ISR_NEST_MAX 4 /* the M0+ has 4 priority levels */
static uint32_t isr_entry_us[Z_ISR_NEST_MAX];
static uint8_t isr_depth;

void z_arch_isr_enter(unsigned irq);
void z_arch_isr_enter(unsigned irq)
{
	uint32_t now = hw_read(TIMER_TIMERAWL);
	unsigned key = irq_lock();
	if (isr_depth < Z_ISR_NEST_MAX)
		isr_entry_us[isr_depth] = now;
	isr_depth++;
	z_irq_stats[irq].count++;
	irq_unlock(key);
	Z_TRACE(Z_TRACE_ISR_ENTER, NULL, irq);
}

void z_arch_isr_exit(unsigned irq);
void z_arch_isr_exit(unsigned irq)
{
	Z_TRACE(Z_TRACE_ISR_EXIT, NULL, irq);
	uint32_t now = hw_read(TIMER_TIMERAWL);
	unsigned key = irq_lock();
	if (isr_depth && --isr_depth < Z_ISR_NEST_MAX) {
		struct k_irq_stats *s = &z_irq_stats[irq];
		uint32_t us = now - isr_entry_us[isr_depth];
		s->time_us += us;
		if (us > s->max_us)
			s->max_us = us;
	}
	irq_unlock(key);
}

void k_irq_stats_get(unsigned irq, struct k_irq_stats *s)
{
	unsigned key = irq_lock();
	if (irq < K_NUM_IRQS)
		*s = z_irq_stats[irq];
	else
		*s = (struct k_irq_stats){0};
	irq_unlock(key);
}

static void z_irq_spurious(const void *arg)
{
	uint32_t ipsr;
	UNUSED(arg);
	__asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
	console_panic();
	console_panic_printf("\r\n*** spurious interrupt %u\r\n", (unsigned)(ipsr & 0x3F) - 16u);
	k_panic("spurious interrupt");
}

void z_irq_table_init(void);
void z_irq_table_init(void)
{
	for (int i = 0; i < K_NUM_IRQS; i++) {
		_sw_isr_table[i].arg = NULL;
		_sw_isr_table[i].isr = z_irq_spurious;
	}
}

int irq_connect(unsigned irq, unsigned prio, k_isr_t isr, const void *arg)
{
	if (irq >= K_NUM_IRQS || !isr)
		return -EINVAL;
	unsigned key = irq_lock();
	_sw_isr_table[irq].arg = arg;
	_sw_isr_table[irq].isr = isr;
	irq_priority_set(irq, prio);
	irq_unlock(key);
	return 0;
}

void irq_enable(unsigned irq)
{
	hw_write(NVIC_ICPR, BIT32(irq));
	hw_write(NVIC_ISER, BIT32(irq));
}

void irq_disable(unsigned irq)
{
	hw_write(NVIC_ICER, BIT32(irq));
}

void irq_priority_set(unsigned irq, unsigned prio)
{
	uint32_t shift = 8u * (irq % 4) + 6u;
	uint32_t v = hw_read(NVIC_IPR(irq));
	v = (v & ~(3u << shift)) | ((prio & 3u) << shift);
	hw_write(NVIC_IPR(irq), v);
}

static __noreturn void halt(void)
{
	/* Under a debugger (the virtual Pico attaches one) BKPT halts the core here. */
	__asm__ volatile("bkpt #0");
	for (;;)
		__asm__ volatile("cpsid i\n\twfi");
}

void z_fault(uint32_t *frame, uint32_t exc_return);
__noreturn void z_fault(uint32_t *frame, uint32_t exc_return)
{
	irq_lock();
	console_panic();
	struct k_thread *cur = _kernel.current;
	console_panic_printf("\r\n*** HardFault in %s: pc %08x lr %08x xpsr %08x exc_return %08x\r\n",
			     cur && cur->name ? cur->name : "?", (unsigned)frame[6],
			     (unsigned)frame[5], (unsigned)frame[7], (unsigned)exc_return);
	console_panic_printf("*** r0 %08x r1 %08x r2 %08x r3 %08x r12 %08x sp %08x\r\n",
			     (unsigned)frame[0], (unsigned)frame[1], (unsigned)frame[2],
			     (unsigned)frame[3], (unsigned)frame[4], (unsigned)(frame + 8));
	halt();
}

__noreturn void k_panic(const char *why)
{
	irq_lock();
	console_panic();
	struct k_thread *cur = _kernel.current;
	console_panic_printf("\r\n*** kernel panic in %s: %s\r\n", cur && cur->name ? cur->name : "?",
			     why);
	halt();
}
