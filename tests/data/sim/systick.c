/* systick.c: SysTick on the processor clock with a period of MAILBOX_IN[0] cycles; main
 * sleeps in WFI until MAILBOX_IN[1] ticks. MAILBOX[1] = ticks seen, [2] = wake-ups,
 * [3] = COUNTFLAG read after the first tick. */
#include "sim.h"

static volatile uint32_t ticks;

void systick_handler(void)
{
	ticks++;
}

int main(void)
{
	uint32_t period = MAILBOX_IN[0], want = MAILBOX_IN[1], wakes = 0;
	SYST_RVR = period - 1;
	SYST_CVR = 0;
	SYST_CSR = 7; /* processor clock, TICKINT, ENABLE */
	while (ticks < want) {
		wfi();
		wakes++;
		if (ticks == 1 && !MAILBOX[3])
			MAILBOX[3] = 0x100 | (SYST_CSR >> 16);
	}
	SYST_CSR = 0;
	MAILBOX[1] = ticks;
	MAILBOX[2] = wakes;
	return 0;
}
