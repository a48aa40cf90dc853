/* Runs the initialisers registered with PICO_RUNTIME_INIT_FUNC: pointers in
 * .preinit_array.NNNNN sections, sorted by the linker script. */
#include "pico/runtime.h"
#include "pico/runtime_init.h"

void __weak hard_assertion_failure(void)
{
    panic("Hard assert");
}

static void runtime_run_initializers_from(uintptr_t *from)
{
    extern uintptr_t __preinit_array_end;
    for (uintptr_t *p = from; p < &__preinit_array_end; p++) {
        uintptr_t val = *p;
        ((void (*)(void))val)();
    }
}

void runtime_run_initializers(void)
{
    extern uintptr_t __preinit_array_start;
    runtime_run_initializers_from(&__preinit_array_start);
}

/* the per-core initialisers follow this marker (priority "YYYYY" sorts after the numbers) */
static void first_per_core_initializer(void)
{
}
PICO_RUNTIME_INIT_FUNC(first_per_core_initializer, "YYYYY");

void runtime_run_per_core_initializers(void)
{
    runtime_run_initializers_from(&__pre_init_first_per_core_initializer);
}
