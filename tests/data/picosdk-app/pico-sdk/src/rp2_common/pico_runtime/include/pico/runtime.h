#ifndef _PICO_RUNTIME_H
#define _PICO_RUNTIME_H

#include "pico.h"

#ifndef __ASSEMBLER__
void runtime_init(void);
void runtime_run_initializers(void);
void runtime_run_per_core_initializers(void);

extern char __StackLimit;

/* registers func to run during runtime_init, ordered by priority_string ("00500") */
#define PICO_RUNTIME_INIT_FUNC(func, priority_string) \
    uintptr_t __used __attribute__((section(".preinit_array." priority_string))) __pre_init_##func = \
        (uintptr_t)(void (*)(void))(func)
#endif

#endif
