/* rand.c: xorshift32 (Marsaglia 2003), reseeded from the timer when first used. */
#include "kernel/kernel.h"
#include "sys/rand.h"

static uint32_t state;

void sys_rand_seed(uint32_t seed)
{
	state ^= seed * 2654435761u; /* Knuth's multiplicative hash spreads small seeds */
	if (state == 0)
		state = 0x9E3779B9u;
}

uint32_t sys_rand32_get(void)
{
	unsigned key = irq_lock();
	if (state == 0)
		sys_rand_seed(k_cycle_get_32());
	uint32_t x = state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	state = x;
	irq_unlock(key);
	return x;
}

uint32_t sys_rand32_below(uint32_t bound)
{
	return sys_rand32_get() % bound;
}
