/* spin.c: a program that never ends, for PC sampling through the virtual probe: a loop in
 * flash calling two small functions, so that samples land on many instructions. */
#include "sim.h"

static volatile uint32_t counter;

__attribute__((noinline)) static uint32_t mix(uint32_t x)
{
	return (x * 2654435761u) ^ (x >> 7);
}

__attribute__((noinline)) static void work(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		counter = mix(counter + i);
}

int main(void)
{
	for (;;)
		work(100);
}
