#ifndef _PICO_TYPES_H
#define _PICO_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef unsigned int uint;

/* microseconds since boot, wrapped in a struct so that it is not mixed with plain numbers */
typedef struct {
    uint64_t _private_us_since_boot;
} absolute_time_t;

static inline uint64_t to_us_since_boot(absolute_time_t t) { return t._private_us_since_boot; }

static inline void update_us_since_boot(absolute_time_t *t, uint64_t us_since_boot)
{
    t->_private_us_since_boot = us_since_boot;
}

static inline absolute_time_t from_us_since_boot(uint64_t us_since_boot)
{
    absolute_time_t t;
    update_us_since_boot(&t, us_since_boot);
    return t;
}

#define ABSOLUTE_TIME_INITIALIZED_VAR(name, value) name = {value}

typedef struct {
    int16_t year;
    int8_t month, day, dotw, hour, min, sec;
} datetime_t;

#endif
