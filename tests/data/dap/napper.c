/* napper.c: a program that sleeps about half of the time, for PC sampling with sleep
 * classification: SysTick every millisecond; its handler works for a while; main sleeps
 * in WFI between ticks. */
#include "sim.h"

static volatile uint32_t counter;

__attribute__((noinline)) static uint32_t churn(uint32_t x)
{
	return (x * 2654435761u) ^ (x >> 7);
}

void systick_handler(void)
{
	for (uint32_t i = 0; i < 2500; i++)
		counter = churn(counter + i);
}

int main(void)
{
	SYST_RVR = 125000 - 1; /* 1 ms at 125 MHz */
	SYST_CVR = 0;
	SYST_CSR = 7;          /* processor clock, TICKINT, ENABLE */
	for (;;)
		wfi();
}
