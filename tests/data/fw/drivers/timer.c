/* timer.c: the RP2040 1 MHz timer (0x40054000): time and one alarm. */
#include "fw.h"

#define TIMER_BASE 0x40054000u
#define TIMER_TIMELR (TIMER_BASE + 0x0c)
#define TIMER_ALARM0 (TIMER_BASE + 0x10)
#define TIMER_ARMED (TIMER_BASE + 0x20)
#define TIMER_INTR (TIMER_BASE + 0x34)
#define TIMER_INTE (TIMER_BASE + 0x38)

static uint32_t alarms_fired;

uint32_t timer_now_us(void)
{
	return REG32(TIMER_TIMELR);
}

void timer_arm(uint32_t at_us)
{
	REG32(TIMER_INTE) |= 1;
	REG32(TIMER_ALARM0) = at_us;
}

void timer_isr(void)
{
	REG32(TIMER_INTR) = 1;
	alarms_fired++;
	k_timeout_tick(timer_now_us() / 1000u);
}
