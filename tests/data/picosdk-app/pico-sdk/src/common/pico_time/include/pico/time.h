/* Timestamps, sleeping, alarms and repeating timers on top of the hardware timer. */
#ifndef _PICO_TIME_H
#define _PICO_TIME_H

#include "pico.h"
#include "hardware/timer.h"

static inline absolute_time_t get_absolute_time(void)
{
    return from_us_since_boot(time_us_64());
}

static inline uint32_t to_ms_since_boot(absolute_time_t t)
{
    return (uint32_t)(to_us_since_boot(t) / 1000u);
}

static inline absolute_time_t delayed_by_us(const absolute_time_t t, uint64_t us)
{
    uint64_t base = to_us_since_boot(t);
    uint64_t delayed = base + us;
    if (delayed < base)
        delayed = (uint64_t)-1;
    return from_us_since_boot(delayed);
}

static inline absolute_time_t delayed_by_ms(const absolute_time_t t, uint32_t ms)
{
    return delayed_by_us(t, ms * 1000ull);
}

static inline absolute_time_t make_timeout_time_us(uint64_t us)
{
    return delayed_by_us(get_absolute_time(), us);
}

static inline absolute_time_t make_timeout_time_ms(uint32_t ms)
{
    return delayed_by_ms(get_absolute_time(), ms);
}

int64_t absolute_time_diff_us(absolute_time_t from, absolute_time_t to);
absolute_time_t absolute_time_min(absolute_time_t a, absolute_time_t b);

extern const absolute_time_t at_the_end_of_time;
extern const absolute_time_t nil_time;

void sleep_until(absolute_time_t target);
void sleep_us(uint64_t us);
void sleep_ms(uint32_t ms);
bool best_effort_wfe_or_timeout(absolute_time_t timeout_timestamp);

typedef int32_t alarm_id_t;
typedef int64_t (*alarm_callback_t)(alarm_id_t id, void *user_data);
typedef struct alarm_pool alarm_pool_t;

void alarm_pool_init_default(void);
alarm_pool_t *alarm_pool_get_default(void);
alarm_pool_t *alarm_pool_create(uint hardware_alarm_num, uint max_timers);
alarm_id_t alarm_pool_add_alarm_at(alarm_pool_t *pool, absolute_time_t time, alarm_callback_t callback,
                                   void *user_data, bool fire_if_past);
bool alarm_pool_cancel_alarm(alarm_pool_t *pool, alarm_id_t alarm_id);
alarm_id_t add_alarm_in_ms(uint32_t ms, alarm_callback_t callback, void *user_data, bool fire_if_past);
bool cancel_alarm(alarm_id_t alarm_id);

typedef struct repeating_timer repeating_timer_t;
typedef bool (*repeating_timer_callback_t)(repeating_timer_t *rt);

struct repeating_timer {
    int64_t delay_us;
    alarm_pool_t *pool;
    alarm_id_t alarm_id;
    repeating_timer_callback_t callback;
    void *user_data;
};

bool alarm_pool_add_repeating_timer_us(alarm_pool_t *pool, int64_t delay_us, repeating_timer_callback_t callback,
                                       void *user_data, repeating_timer_t *out);
bool add_repeating_timer_ms(int32_t delay_ms, repeating_timer_callback_t callback, void *user_data,
                            repeating_timer_t *out);
bool cancel_repeating_timer(repeating_timer_t *timer);

#endif
