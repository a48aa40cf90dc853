#include "pico/lock_core.h"

void lock_init(lock_core_t *core, uint lock_num)
{
    valid_params_if(PICO_SYNC, lock_num < NUM_SPIN_LOCKS);
    core->spin_lock = spin_lock_instance(lock_num);
}
