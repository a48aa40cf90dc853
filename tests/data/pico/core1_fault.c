/* core1_fault.c: core 1 stops, core 0 goes on. Core 1 is launched (as pico-sdk's
 * multicore_launch_core1_raw does) with a vector table whose HardFault entry has its Thumb
 * bit clear; it executes an undefined instruction, the HardFault it takes cannot start
 * (INVSTATE on its first instruction), and the core locks up (ARMv6-M ARM B1.5.15). Core 0
 * watches core 1's progress counter stop and carries on to the end, as on the chip. */
#include "rt.h"

static uint32_t core1_stack[128];
static void (*core1_table[48])(void) __attribute__((aligned(256)));
static volatile uint32_t c1_steps;

static void core1_main(void)
{
	for (unsigned i = 0; i < 1000; i++)
		c1_steps++;
	__asm volatile(".short 0xde00"); /* UDF #0 */
	for (;;)
		c1_steps++;
}

int main(void)
{
	const uint32_t *flash_table = (const uint32_t *)0x10000100u;
	for (unsigned i = 0; i < 48; i++)
		core1_table[i] = (void (*)(void))(uintptr_t)flash_table[i];
	core1_table[3] = (void (*)(void))(uintptr_t)0x10000200u; /* Thumb bit clear */
	uint32_t *sp = core1_stack + sizeof core1_stack / sizeof core1_stack[0];
	unsigned sent = rt_launch_core1(core1_main, sp, (uint32_t)(uintptr_t)core1_table);
	uint32_t t0 = rt_time_us();
	while (rt_time_us() - t0 < 200)
		;
	uint32_t steps = c1_steps;
	t0 = rt_time_us();
	while (rt_time_us() - t0 < 200)
		;
	rt_puts("launch words ");
	rt_put_dec(sent);
	rt_puts(" core1 steps ");
	rt_put_dec(steps);
	rt_puts(" then ");
	rt_put_dec(c1_steps);
	rt_puts("\ncore0 goes on\n");
	return 0;
}
