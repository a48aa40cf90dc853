/* panic(): records the message for a debugger and stops the core. */
#include "pico.h"

/* the last panic message, for a debugger to read */
const char *volatile __panic_message;

void __attribute__((noreturn)) panic_unsupported(void)
{
    panic("not supported");
}

void __attribute__((noreturn)) __noinline panic(const char *fmt, ...)
{
    __panic_message = fmt;
    for (;;)
        __breakpoint();
}
