/* alarm.c: the TIMER's four alarms as interrupts: three fire 100, 200 and 400 us after
 * they are armed, in order, each on its own IRQ (told apart by IPSR); one is disarmed
 * through ARMED and never fires. */
#include "rt.h"

static volatile uint32_t fired_at[4];
static volatile uint32_t order[4];
static volatile uint32_t nfired;

static void on_alarm(void)
{
	uint32_t now = rt_time_us();
	uint32_t n = rt_ipsr() - 16;
	TIMER_INTR = 1u << n; /* write-1-to-clear */
	fired_at[n] = now;
	order[nfired++] = n;
}

void isr_timer0(void) { on_alarm(); }
void isr_timer1(void) { on_alarm(); }
void isr_timer2(void) { on_alarm(); }
void isr_timer3(void) { on_alarm(); }

int main(void)
{
	TIMER_INTE = 0xF;
	NVIC_ICPR = 0xF;
	NVIC_ISER = 0xF;
	uint32_t base = rt_time_us();
	TIMER_ALARM(3) = base + 400;
	TIMER_ALARM(2) = base + 300;
	TIMER_ALARM(1) = base + 200;
	TIMER_ALARM(0) = base + 100;
	rt_puts("armed ");
	rt_put_hex(TIMER_ARMED);
	rt_putc('\n');
	TIMER_ARMED = 1u << 2; /* disarm alarm 2 */
	rt_enable_irq();
	while (nfired < 3)
		rt_wfi();
	for (uint32_t i = 0; i < nfired; i++) {
		uint32_t n = order[i];
		rt_puts("alarm ");
		rt_put_dec(n);
		rt_puts(" at +");
		rt_put_dec(fired_at[n] - base);
		rt_puts(" us\n");
	}
	/* Wait past alarm 2's time: it stays quiet. */
	while (rt_time_us() - base < 500)
		;
	rt_puts("fired ");
	rt_put_dec(nfired);
	rt_puts(" armed ");
	rt_put_hex(TIMER_ARMED);
	rt_putc('\n');
	return 0;
}
