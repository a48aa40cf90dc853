/* sys_clock.c: the kernel's tickless clock on the RP2040 TIMER: a 1 MHz 64-bit counter,
 * alarm 0 (IRQ 0) fires at the next tick boundary a timeout needs. */
#include "drivers/sys_clock.h"
#include "rp2040/regs.h"

#define ALARM_NUM 0
#define TIMER_IRQ_PRIO 2
/* An alarm written closer to now than this may be passed before it is armed. */
#define MIN_DELAY_US 4u

static uint32_t last_count; /* counter value (us) of the last announced tick boundary */

uint32_t sys_clock_cycle_get_32(void)
{
	return hw_read(TIMER_TIMERAWL);
}

uint64_t sys_clock_cycle_get_64(void)
{
	/* The raw registers do not latch: re-read the high word until it is stable. */
	uint32_t hi, lo, hi2 = hw_read(TIMER_TIMERAWH);
	do {
		hi = hi2;
		lo = hw_read(TIMER_TIMERAWL);
		hi2 = hw_read(TIMER_TIMERAWH);
	} while (hi != hi2);
	return ((uint64_t)hi << 32) | lo;
}

uint32_t sys_clock_elapsed(void)
{
	return (sys_clock_cycle_get_32() - last_count) / K_USEC_PER_TICK;
}

void sys_clock_set_timeout(k_ticks_t ticks, bool idle)
{
	UNUSED(idle);
	if (ticks == K_TICKS_FOREVER || ticks > 10 * K_TICKS_PER_SEC)
		ticks = 10 * K_TICKS_PER_SEC; /* announce at least this often */
	if (ticks < 1)
		ticks = 1;

	unsigned key = irq_lock();
	uint32_t now = sys_clock_cycle_get_32();
	uint32_t elapsed = (now - last_count) / K_USEC_PER_TICK;
	/* The tick boundary ticks after the current one. */
	uint32_t target = last_count + (elapsed + (uint32_t)ticks) * K_USEC_PER_TICK;
	if ((int32_t)(target - now) < (int32_t)MIN_DELAY_US)
		target += K_USEC_PER_TICK;
	hw_write(TIMER_ALARM(ALARM_NUM), target);
	/* Missed it anyway (a slow bus, a debugger): the alarm would wait for the 32-bit
	 * wrap, so disarm it and raise the interrupt by hand. */
	now = sys_clock_cycle_get_32();
	if ((int32_t)(now - target) >= 0 && (hw_read(TIMER_ARMED) & BIT32(ALARM_NUM))) {
		hw_write(TIMER_ARMED, BIT32(ALARM_NUM));
		hw_write(NVIC_ISPR, BIT32(IRQ_TIMER_0 + ALARM_NUM));
	}
	irq_unlock(key);
}

static void sys_clock_isr(const void *arg)
{
	UNUSED(arg);
	hw_write(TIMER_INTR, BIT32(ALARM_NUM));
	uint32_t now = sys_clock_cycle_get_32();
	uint32_t dticks = (now - last_count) / K_USEC_PER_TICK;
	last_count += dticks * K_USEC_PER_TICK;
	sys_clock_announce((int32_t)dticks);
}

void sys_clock_driver_init(void)
{
	last_count = sys_clock_cycle_get_32();
	hw_write(TIMER_INTR, BIT32(ALARM_NUM));
	hw_set_bits(TIMER_INTE, BIT32(ALARM_NUM));
	irq_connect(IRQ_TIMER_0 + ALARM_NUM, TIMER_IRQ_PRIO, sys_clock_isr, NULL);
	irq_enable(IRQ_TIMER_0 + ALARM_NUM);
	sys_clock_set_timeout(K_TICKS_FOREVER, false);
}
