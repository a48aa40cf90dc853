/* Critical sections: a spin lock taken with interrupts disabled. */
#ifndef _PICO_CRITICAL_SECTION_H
#define _PICO_CRITICAL_SECTION_H

#include "pico/lock_core.h"

typedef struct critical_section {
    spin_lock_t *spin_lock;
    uint32_t save;
} critical_section_t;

void critical_section_init(critical_section_t *crit_sec);
void critical_section_init_with_lock_num(critical_section_t *crit_sec, uint lock_num);
void critical_section_deinit(critical_section_t *crit_sec);

static inline void critical_section_enter_blocking(critical_section_t *crit_sec)
{
    crit_sec->save = spin_lock_blocking(crit_sec->spin_lock);
}

static inline void critical_section_exit(critical_section_t *crit_sec)
{
    spin_unlock(crit_sec->spin_lock, crit_sec->save);
}

#endif
