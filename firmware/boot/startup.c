/* startup.c: the vector table, the reset handler (.data and RAM functions copied from
 * flash, .bss cleared) and the early bring-up before the kernel starts. */
#include <string.h>

#include "app/app.h"
#include "drivers/clock.h"
#include "drivers/console.h"
#include "drivers/xip.h"
#include "kernel/kernel.h"
#include "rp2040/regs.h"

extern uint32_t __data_start[], __data_end[], __data_load[], __bss_start[], __bss_end[];
extern uint32_t __stack_top[];

void z_reset(void);
void isr_unexpected(void);
void z_irq_table_init(void);

/* The kernel's exception handlers; every external interrupt enters through the kernel's
 * wrapper, which finds the driver's handler in the software ISR table. */
void isr_hardfault(void); /* kernel/arch_m0.S */
void isr_pendsv(void);    /* kernel/arch_m0.S */
void _isr_wrapper(void);  /* kernel/arch_m0.S */

/* Nothing uses these; they end in isr_unexpected unless something defines them. */
#define WEAK_ISR(name) void name(void) __attribute__((weak, alias("isr_unexpected")))
WEAK_ISR(isr_nmi);
WEAK_ISR(isr_svcall);
WEAK_ISR(isr_systick);

typedef void (*vector_t)(void);

__attribute__((section(".vectors"), used)) const vector_t vector_table[48] = {
	(vector_t)__stack_top,
	z_reset,
	isr_nmi,
	isr_hardfault,
	[4 ... 10] = isr_unexpected,
	isr_svcall,
	[12 ... 13] = isr_unexpected,
	isr_pendsv,
	isr_systick,
	/* external interrupts (IRQ n at 16 + n) */
	[16 ... 47] = _isr_wrapper,
};

void isr_unexpected(void)
{
	uint32_t ipsr;
	__asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
	console_panic();
	console_panic_printf("\r\n*** unexpected exception %u\r\n", (unsigned)(ipsr & 0x3F));
	k_panic("unexpected exception");
}

/* Nothing here may call into code that expects .data or .bss: they are not set up yet. */
__attribute__((noreturn, used)) void z_reset(void)
{
	hw_write(SCB_VTOR, (uint32_t)vector_table);
	for (uint32_t *s = __data_load, *d = __data_start; d < __data_end;)
		*d++ = *s++;
	for (uint32_t *d = __bss_start; d < __bss_end;)
		*d++ = 0;

	z_irq_table_init();
	int clk = clock_init();
	xip_cache_config();
	console_init();
	app_banner(clk);
	k_kernel_start(app_main);
}
