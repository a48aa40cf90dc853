#include "pico/critical_section.h"

void critical_section_init(critical_section_t *crit_sec)
{
    critical_section_init_with_lock_num(crit_sec, next_striped_spin_lock_num());
}

void critical_section_init_with_lock_num(critical_section_t *crit_sec, uint lock_num)
{
    crit_sec->spin_lock = spin_lock_instance(lock_num);
    __mem_fence_release();
}

void critical_section_deinit(critical_section_t *crit_sec)
{
    crit_sec->spin_lock = NULL;
}
