/* atomic.c: atomic read-modify-write operations for the Cortex-M0+ (no LDREX/STREX), made
 * atomic by locking interrupts around them. */
#include "kernel/kernel.h"

atomic_t atomic_or(atomic_t *target, atomic_t value)
{
	unsigned key = irq_lock();
	atomic_t old = *target;
	*target = old | value;
	irq_unlock(key);
	return old;
}

atomic_t atomic_and(atomic_t *target, atomic_t value)
{
	unsigned key = irq_lock();
	atomic_t old = *target;
	*target = old & value;
	irq_unlock(key);
	return old;
}

atomic_t atomic_set(atomic_t *target, atomic_t value)
{
	unsigned key = irq_lock();
	atomic_t old = *target;
	*target = value;
	irq_unlock(key);
	return old;
}

atomic_t atomic_add(atomic_t *target, atomic_t value)
{
	unsigned key = irq_lock();
	atomic_t old = *target;
	*target = old + value;
	irq_unlock(key);
	return old;
}

atomic_t atomic_sub(atomic_t *target, atomic_t value)
{
	unsigned key = irq_lock();
	atomic_t old = *target;
	*target = old - value;
	irq_unlock(key);
	return old;
}
