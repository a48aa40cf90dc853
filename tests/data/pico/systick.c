/* systick.c: SysTick on the processor clock every 100 us with the core asleep in WFI
 * between ticks; prints how many microseconds the TIMER counted over ten ticks. */
#include "rt.h"

static volatile uint32_t ticks;

void isr_systick(void)
{
	ticks++;
}

int main(void)
{
	SYST_RVR = CPU_HZ / 10000 - 1; /* 100 us */
	SYST_CVR = 0;
	uint32_t start = rt_time_us();
	SYST_CSR = 0x7; /* processor clock, interrupt, enable */
	while (ticks < 10)
		rt_wfi();
	uint32_t us = rt_time_us() - start;
	SYST_CSR = 0;
	rt_puts("systick ");
	rt_put_dec(ticks);
	rt_puts(" ticks in ");
	rt_put_dec(us);
	rt_puts(" us\n");
	return 0;
}
