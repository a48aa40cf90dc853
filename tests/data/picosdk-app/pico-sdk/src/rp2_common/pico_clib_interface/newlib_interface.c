/* The system calls newlib expects (what nosys.specs leaves as stubs), and runtime_init,
 * which crt0.S calls before main. */
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>
#include <errno.h>
#include <unistd.h>
#include "pico.h"
#include "pico/time.h"
#include "pico/runtime.h"
#include "pico/runtime_init.h"

void __attribute__((noreturn)) __weak _exit(__unused int status)
{
    while (1)
        __breakpoint();
}

__weak void *_sbrk(int incr)
{
    extern char end; /* from the linker script */
    static char *heap_end;
    char *prev_heap_end;

    if (heap_end == 0)
        heap_end = &end;

    prev_heap_end = heap_end;
    char *next_heap_end = heap_end + incr;

    if (__builtin_expect(next_heap_end > (char *)&__StackLimit, false)) {
        errno = ENOMEM;
        return (char *)-1;
    }

    heap_end = next_heap_end;
    return (void *)prev_heap_end;
}

static int64_t epoch_time_us_since_boot;

__weak int _gettimeofday(struct timeval *__restrict tv, __unused void *__restrict tz)
{
    if (tv) {
        int64_t us_since_epoch = epoch_time_us_since_boot + (int64_t)time_us_64();
        tv->tv_sec = (time_t)(us_since_epoch / 1000000);
        tv->tv_usec = (suseconds_t)(us_since_epoch % 1000000);
    }
    return 0;
}

__weak int settimeofday(const struct timeval *tv, __unused const struct timezone *tz)
{
    if (tv)
        epoch_time_us_since_boot = (int64_t)tv->tv_sec * 1000000 + tv->tv_usec - (int64_t)time_us_64();
    return 0;
}

__weak int _times(struct tms *tms)
{
    clock_t t = (clock_t)(time_us_64() / 10000u);
    tms->tms_utime = t;
    tms->tms_stime = 0;
    tms->tms_cutime = 0;
    tms->tms_cstime = 0;
    return 0;
}

__weak pid_t _getpid(void)
{
    return 0;
}

__weak int _kill(__unused pid_t pid, __unused int sig)
{
    return -1;
}

__weak int _open(__unused const char *fn, __unused int oflag, ...)
{
    return -1;
}

__weak int _close(__unused int fd)
{
    return -1;
}

__weak off_t _lseek(__unused int fd, __unused off_t pos, __unused int whence)
{
    return -1;
}

__weak int _fstat(__unused int fd, __unused struct stat *buf)
{
    return -1;
}

__weak int _isatty(int fd)
{
    return fd == 0 || fd == 1 || fd == 2;
}

/* exit without newlib's atexit machinery */
void exit(int status)
{
    _exit(status);
}

void __weak __assert_func(__unused const char *file, __unused int line, __unused const char *func,
                          __unused const char *failedexpr)
{
    _exit(1);
}

void runtime_init(void)
{
#ifndef NDEBUG
    if (__get_current_exception()) {
        /* started from an exception handler */
        __breakpoint();
    }
#endif

    /* the pre-init functions (PICO_RUNTIME_INIT_FUNC), in priority order ... */
    runtime_run_initializers();

    /* ... then the C++ style constructors */
    extern void (*__init_array_start)(void);
    extern void (*__init_array_end)(void);
    for (void (**p)(void) = &__init_array_start; p < &__init_array_end; ++p)
        (*p)();
}
