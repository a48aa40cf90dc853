/* Mutexes (owned by a core) and recursive mutexes. */
#ifndef _PICO_MUTEX_H
#define _PICO_MUTEX_H

#include "pico/lock_core.h"

typedef struct mutex {
    lock_core_t core;
    lock_owner_id_t owner;
} mutex_t;

typedef struct recursive_mutex {
    lock_core_t core;
    lock_owner_id_t owner;
    uint8_t enter_count;
} recursive_mutex_t;

void mutex_init(mutex_t *mtx);
void recursive_mutex_init(recursive_mutex_t *mtx);
void mutex_enter_blocking(mutex_t *mtx);
void recursive_mutex_enter_blocking(recursive_mutex_t *mtx);
bool mutex_try_enter(mutex_t *mtx, uint32_t *owner_out);
bool mutex_enter_timeout_ms(mutex_t *mtx, uint32_t timeout_ms);
bool mutex_enter_block_until(mutex_t *mtx, absolute_time_t until);
void mutex_exit(mutex_t *mtx);
void recursive_mutex_exit(recursive_mutex_t *mtx);

static inline bool mutex_is_initialized(mutex_t *mtx)
{
    return mtx->core.spin_lock != 0;
}

/* a mutex initialised by runtime start-up (the .mutex_array section) */
#define auto_init_mutex(name) static __attribute__((section(".mutex_array"))) mutex_t name

#endif
