/* Compiler attributes used throughout the SDK-shaped tree. */
#ifndef _PICO_PLATFORM_COMPILER_H
#define _PICO_PLATFORM_COMPILER_H

#define __weak __attribute__((weak))
#define __packed __attribute__((packed))
#define __used __attribute__((used))
#define __unused __attribute__((unused))
#define __noinline __attribute__((noinline))
#define __aligned(x) __attribute__((aligned(x)))
#define __force_inline inline __attribute__((always_inline))
#ifndef __STRING
#define __STRING(x) #x
#endif
#define __isr
#define __printflike(a, b) __attribute__((format(printf, a, b)))

#define count_of(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((b) > (a) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define GCC_Pragma(x) _Pragma(x)

static __force_inline void __compiler_memory_barrier(void)
{
    __asm volatile("" : : : "memory");
}

static __force_inline void __dmb(void)
{
    __asm volatile("dmb" : : : "memory");
}

static __force_inline void __dsb(void)
{
    __asm volatile("dsb" : : : "memory");
}

#endif
