/* vectors.c: the vector table and the reset handler of the test firmware. */
#include "fw.h"

extern uint32_t __stack_top, __data_start, __data_end, __data_load, __bss_start, __bss_end;
int main(void);

void reset_handler(void);
void default_handler(void);
void hardfault_handler(void);
void systick_handler(void);
void usbctrl_irq(void);
void timer_irq(void);

static volatile uint32_t fault_count;

void default_handler(void)
{
	for (;;)
		fault_count++;
}

void hardfault_handler(void)
{
	fault_count += 0x100;
	for (;;)
		__asm__ volatile("bkpt #0");
}

void systick_handler(void)
{
	k_timeout_tick(k_uptime_ms());
}

void usbctrl_irq(void)
{
	udc_isr();
}

void timer_irq(void)
{
	timer_isr();
}

__attribute__((section(".vectors"), used)) const void *const vector_table[48] = {
	&__stack_top,
	(const void *)reset_handler,
	(const void *)default_handler, /* NMI */
	(const void *)hardfault_handler,
	[11] = (const void *)default_handler, /* SVCall */
	[14] = (const void *)default_handler, /* PendSV */
	[15] = (const void *)systick_handler,
	[16] = (const void *)timer_irq,      /* IRQ 0: TIMER_IRQ_0 */
	[17] = (const void *)default_handler,
	[18] = (const void *)default_handler,
	[19] = (const void *)default_handler,
	[20] = (const void *)default_handler,
	[21] = (const void *)usbctrl_irq,    /* IRQ 5: USBCTRL_IRQ */
};

void reset_handler(void)
{
	const uint32_t *src = &__data_load;
	for (uint32_t *dst = &__data_start; dst < &__data_end;)
		*dst++ = *src++;
	for (uint32_t *dst = &__bss_start; dst < &__bss_end;)
		*dst++ = 0;
	main();
	for (;;)
		__asm__ volatile("wfi");
}
