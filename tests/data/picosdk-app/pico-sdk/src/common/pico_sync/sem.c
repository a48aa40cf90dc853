/* Counting semaphores on the lock core. */
#include "pico/sem.h"
#include "pico/time.h"

void sem_init(semaphore_t *sem, int16_t initial_permits, int16_t max_permits)
{
    lock_init(&sem->core, next_striped_spin_lock_num());
    sem->permits = initial_permits;
    sem->max_permits = max_permits;
    __mem_fence_release();
}

int __time_critical_func(sem_available)(semaphore_t *sem)
{
    return *(volatile int16_t *)&sem->permits;
}

void __time_critical_func(sem_acquire_blocking)(semaphore_t *sem)
{
    for (;;) {
        uint32_t save = spin_lock_blocking(sem->core.spin_lock);
        if (sem->permits > 0) {
            sem->permits--;
            spin_unlock(sem->core.spin_lock, save);
            break;
        }
        lock_internal_spin_unlock_with_wait(&sem->core, save);
    }
}

bool __time_critical_func(sem_acquire_block_until)(semaphore_t *sem, absolute_time_t until)
{
    for (;;) {
        uint32_t save = spin_lock_blocking(sem->core.spin_lock);
        if (sem->permits > 0) {
            sem->permits--;
            spin_unlock(sem->core.spin_lock, save);
            return true;
        }
        if (lock_internal_spin_unlock_with_best_effort_wait_or_timeout(&sem->core, save, until))
            return false;
    }
}

bool __time_critical_func(sem_acquire_timeout_ms)(semaphore_t *sem, uint32_t timeout_ms)
{
    return sem_acquire_block_until(sem, make_timeout_time_ms(timeout_ms));
}

bool __time_critical_func(sem_try_acquire)(semaphore_t *sem)
{
    uint32_t save = spin_lock_blocking(sem->core.spin_lock);
    bool acquired = sem->permits > 0;
    if (acquired)
        sem->permits--;
    spin_unlock(sem->core.spin_lock, save);
    return acquired;
}

bool __time_critical_func(sem_release)(semaphore_t *sem)
{
    uint32_t save = spin_lock_blocking(sem->core.spin_lock);
    int32_t count = sem->permits;
    if (count < sem->max_permits) {
        sem->permits = (int16_t)(count + 1);
        lock_internal_spin_unlock_with_notify(&sem->core, save);
        return true;
    }
    spin_unlock(sem->core.spin_lock, save);
    return false;
}

void __time_critical_func(sem_reset)(semaphore_t *sem, int16_t permits)
{
    uint32_t save = spin_lock_blocking(sem->core.spin_lock);
    if (permits > sem->permits) {
        sem->permits = permits;
        lock_internal_spin_unlock_with_notify(&sem->core, save);
    } else {
        sem->permits = permits;
        spin_unlock(sem->core.spin_lock, save);
    }
}
