/* The spin-lock-guarded core shared by mutexes and semaphores. Waiting is a WFE after
 * releasing the spin lock; notifying is an SEV. */
#ifndef _PICO_LOCK_CORE_H
#define _PICO_LOCK_CORE_H

#include "pico.h"
#include "pico/time.h"
#include "hardware/sync.h"

typedef int8_t lock_owner_id_t;
#define LOCK_INVALID_OWNER_ID ((lock_owner_id_t)-1)
#define lock_get_caller_owner_id() ((lock_owner_id_t)get_core_num())

typedef struct lock_core {
    spin_lock_t *spin_lock;
} lock_core_t;

void lock_init(lock_core_t *core, uint lock_num);

#define lock_internal_spin_unlock_with_wait(lock, save) spin_unlock((lock)->spin_lock, save), __wfe()
#define lock_internal_spin_unlock_with_notify(lock, save) spin_unlock((lock)->spin_lock, save), __sev()
#define lock_internal_spin_unlock_with_best_effort_wait_or_timeout(lock, save, until) \
    ({                                                                               \
        spin_unlock((lock)->spin_lock, save);                                        \
        best_effort_wfe_or_timeout(until);                                           \
    })

#endif
