/* Mutexes. The blocking paths run from SRAM (__time_critical_func): they are used from
 * code that must not stall on a flash cache miss, e.g. while the other core writes flash. */
#include "pico/mutex.h"
#include "pico/time.h"

void mutex_init(mutex_t *mtx)
{
    lock_init(&mtx->core, next_striped_spin_lock_num());
    mtx->owner = LOCK_INVALID_OWNER_ID;
    __mem_fence_release();
}

void recursive_mutex_init(recursive_mutex_t *mtx)
{
    lock_init(&mtx->core, next_striped_spin_lock_num());
    mtx->owner = LOCK_INVALID_OWNER_ID;
    mtx->enter_count = 0;
    __mem_fence_release();
}

void __time_critical_func(mutex_enter_blocking)(mutex_t *mtx)
{
    lock_owner_id_t caller = lock_get_caller_owner_id();
    for (;;) {
        uint32_t save = spin_lock_blocking(mtx->core.spin_lock);
        if (mtx->owner == LOCK_INVALID_OWNER_ID) {
            mtx->owner = caller;
            spin_unlock(mtx->core.spin_lock, save);
            break;
        }
        lock_internal_spin_unlock_with_wait(&mtx->core, save);
    }
}

void __time_critical_func(recursive_mutex_enter_blocking)(recursive_mutex_t *mtx)
{
    lock_owner_id_t caller = lock_get_caller_owner_id();
    for (;;) {
        uint32_t save = spin_lock_blocking(mtx->core.spin_lock);
        if (mtx->owner == caller || mtx->owner == LOCK_INVALID_OWNER_ID) {
            mtx->owner = caller;
            mtx->enter_count++;
            spin_unlock(mtx->core.spin_lock, save);
            break;
        }
        lock_internal_spin_unlock_with_wait(&mtx->core, save);
    }
}

bool __time_critical_func(mutex_try_enter)(mutex_t *mtx, uint32_t *owner_out)
{
    bool entered;
    uint32_t save = spin_lock_blocking(mtx->core.spin_lock);
    if (mtx->owner == LOCK_INVALID_OWNER_ID) {
        mtx->owner = lock_get_caller_owner_id();
        entered = true;
    } else {
        if (owner_out)
            *owner_out = (uint32_t)mtx->owner;
        entered = false;
    }
    spin_unlock(mtx->core.spin_lock, save);
    return entered;
}

bool __time_critical_func(mutex_enter_block_until)(mutex_t *mtx, absolute_time_t until)
{
    lock_owner_id_t caller = lock_get_caller_owner_id();
    for (;;) {
        uint32_t save = spin_lock_blocking(mtx->core.spin_lock);
        if (mtx->owner == LOCK_INVALID_OWNER_ID) {
            mtx->owner = caller;
            spin_unlock(mtx->core.spin_lock, save);
            return true;
        }
        if (lock_internal_spin_unlock_with_best_effort_wait_or_timeout(&mtx->core, save, until))
            return false;
    }
}

bool __time_critical_func(mutex_enter_timeout_ms)(mutex_t *mtx, uint32_t timeout_ms)
{
    return mutex_enter_block_until(mtx, make_timeout_time_ms(timeout_ms));
}

void __time_critical_func(mutex_exit)(mutex_t *mtx)
{
    uint32_t save = spin_lock_blocking(mtx->core.spin_lock);
    mtx->owner = LOCK_INVALID_OWNER_ID;
    lock_internal_spin_unlock_with_notify(&mtx->core, save);
}

void __time_critical_func(recursive_mutex_exit)(recursive_mutex_t *mtx)
{
    uint32_t save = spin_lock_blocking(mtx->core.spin_lock);
    if (!--mtx->enter_count) {
        mtx->owner = LOCK_INVALID_OWNER_ID;
        lock_internal_spin_unlock_with_notify(&mtx->core, save);
    } else {
        spin_unlock(mtx->core.spin_lock, save);
    }
}
