#ifndef _PICO_PLATFORM_PANIC_H
#define _PICO_PLATFORM_PANIC_H

void __attribute__((noreturn)) panic_unsupported(void);
void __attribute__((noreturn)) panic(const char *fmt, ...);

#endif
