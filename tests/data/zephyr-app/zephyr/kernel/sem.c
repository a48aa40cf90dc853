/* Semaphores (kernel/sem.c). */
#include <stdint.h>
struct k_sem { volatile uint32_t count, limit; };
void z_reschedule(void);
int arch_swap(unsigned int key);

void k_sem_give(struct k_sem *sem)
{
	if (sem->count < sem->limit)
		sem->count++;
	z_reschedule();
}

int k_sem_take(struct k_sem *sem, int timeout)
{
	while (sem->count == 0) {
		if (timeout-- <= 0)
			return -11;
		arch_swap(0);
	}
	sem->count--;
	return 0;
}
