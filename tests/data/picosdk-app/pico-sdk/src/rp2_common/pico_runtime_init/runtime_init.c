/* Start-up steps registered with PICO_RUNTIME_INIT_FUNC; runtime_init runs them in order. */
#include "pico/runtime_init.h"
#include "pico/mutex.h"
#include "pico/time.h"
#include "hardware/irq.h"
#include "hardware/resets.h"
#include "hardware/sync.h"

/* everything but the blocks needed to run from flash and the clocks */
#define RESETS_SAFE_BITS 0x01ffffffu
#define RESETS_PRE_CLOCK_KEEP_BITS ((1u << 6) | (1u << 9) | (1u << 12) | (1u << 13) | (1u << 5) | (1u << 8))
#define RESETS_POST_CLOCK_BITS ((1u << RESET_UART0) | (1u << RESET_UART1) | (1u << RESET_TIMER) | (1u << 0))

void runtime_init_early_resets(void)
{
    reset_block(RESETS_SAFE_BITS & ~RESETS_PRE_CLOCK_KEEP_BITS);
    unreset_block_wait(RESETS_SAFE_BITS & ~(RESETS_PRE_CLOCK_KEEP_BITS | RESETS_POST_CLOCK_BITS));
}
PICO_RUNTIME_INIT_FUNC(runtime_init_early_resets, PICO_RUNTIME_INIT_EARLY_RESETS);

void runtime_init_post_clock_resets(void)
{
    unreset_block_wait(RESETS_POST_CLOCK_BITS);
}
PICO_RUNTIME_INIT_FUNC(runtime_init_post_clock_resets, PICO_RUNTIME_INIT_POST_CLOCK_RESETS);

void runtime_init_spin_locks_reset(void)
{
    spin_locks_reset();
}
PICO_RUNTIME_INIT_FUNC(runtime_init_spin_locks_reset, PICO_RUNTIME_INIT_SPIN_LOCKS_RESET);

/* initialises the mutexes declared with auto_init_mutex (the .mutex_array section) */
void runtime_init_mutex(void)
{
    extern mutex_t __mutex_array_start;
    extern mutex_t __mutex_array_end;
    for (mutex_t *m = &__mutex_array_start; m < &__mutex_array_end; m++)
        mutex_init(m);
}
PICO_RUNTIME_INIT_FUNC(runtime_init_mutex, PICO_RUNTIME_INIT_MUTEX);

void runtime_init_install_ram_vector_table(void)
{
    irq_install_ram_vector_table();
    irq_init_priorities();
}
PICO_RUNTIME_INIT_FUNC(runtime_init_install_ram_vector_table, PICO_RUNTIME_INIT_INSTALL_RAM_VECTOR_TABLE);

void runtime_init_default_alarm_pool(void)
{
    alarm_pool_init_default();
}
PICO_RUNTIME_INIT_FUNC(runtime_init_default_alarm_pool, PICO_RUNTIME_INIT_DEFAULT_ALARM_POOL);
