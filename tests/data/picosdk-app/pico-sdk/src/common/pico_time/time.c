/* Sleeping, and a small alarm pool: a fixed table of (time, callback) entries served by one
 * hardware alarm, kept sorted by time. */
#include "pico/time.h"
#include "pico/sync.h"
#include "hardware/sync.h"

#define PICO_TIME_DEFAULT_ALARM_POOL_HARDWARE_ALARM_NUM 3
#define PICO_TIME_DEFAULT_ALARM_POOL_MAX_TIMERS 8

const absolute_time_t at_the_end_of_time = {INT64_MAX};
const absolute_time_t nil_time = {0};

struct alarm_pool_entry {
    absolute_time_t target;
    alarm_callback_t callback;
    void *user_data;
    alarm_id_t id;
};

struct alarm_pool {
    uint8_t hardware_alarm_num;
    uint8_t count;
    uint8_t max_timers;
    alarm_id_t next_id;
    spin_lock_t *lock;
    struct alarm_pool_entry entries[PICO_TIME_DEFAULT_ALARM_POOL_MAX_TIMERS];
};

static alarm_pool_t default_alarm_pool;
static bool default_alarm_pool_initialized;
static alarm_pool_t *pools[NUM_ALARMS];

int64_t absolute_time_diff_us(absolute_time_t from, absolute_time_t to)
{
    return (int64_t)(to_us_since_boot(to) - to_us_since_boot(from));
}

absolute_time_t absolute_time_min(absolute_time_t a, absolute_time_t b)
{
    return to_us_since_boot(a) < to_us_since_boot(b) ? a : b;
}

/* arms the hardware alarm for the earliest entry; true when that time has already passed */
static bool alarm_pool_arm(alarm_pool_t *pool)
{
    if (!pool->count) {
        hardware_alarm_cancel(pool->hardware_alarm_num);
        return false;
    }
    return hardware_alarm_set_target(pool->hardware_alarm_num, pool->entries[0].target);
}

static void alarm_pool_remove_at(alarm_pool_t *pool, uint index)
{
    for (uint i = index + 1; i < pool->count; i++)
        pool->entries[i - 1] = pool->entries[i];
    pool->count--;
}

static int alarm_pool_insert(alarm_pool_t *pool, absolute_time_t target, alarm_callback_t callback, void *user_data)
{
    if (pool->count == pool->max_timers)
        return -1;
    uint pos = pool->count;
    while (pos > 0 && to_us_since_boot(pool->entries[pos - 1].target) > to_us_since_boot(target)) {
        pool->entries[pos] = pool->entries[pos - 1];
        pos--;
    }
    pool->entries[pos].target = target;
    pool->entries[pos].callback = callback;
    pool->entries[pos].user_data = user_data;
    pool->entries[pos].id = ++pool->next_id;
    pool->count++;
    return (int)pos;
}

/* the hardware alarm fired: run every due entry, rescheduling those that ask for it */
static void alarm_pool_alarm_callback(uint alarm_num)
{
    alarm_pool_t *pool = pools[alarm_num];
    for (;;) {
        uint32_t save = spin_lock_blocking(pool->lock);
        if (!pool->count || !time_reached(pool->entries[0].target)) {
            bool missed = alarm_pool_arm(pool);
            spin_unlock(pool->lock, save);
            if (!missed)
                return;
            continue;
        }
        struct alarm_pool_entry e = pool->entries[0];
        alarm_pool_remove_at(pool, 0);
        spin_unlock(pool->lock, save);
        int64_t again = e.callback(e.id, e.user_data);
        if (again) {
            absolute_time_t next = again < 0 ? delayed_by_us(e.target, (uint64_t)-again)
                                             : make_timeout_time_us((uint64_t)again);
            save = spin_lock_blocking(pool->lock);
            int pos = alarm_pool_insert(pool, next, e.callback, e.user_data);
            if (pos >= 0)
                pool->entries[pos].id = e.id;
            spin_unlock(pool->lock, save);
        }
    }
}

static void alarm_pool_post_alloc_init(alarm_pool_t *pool, uint hardware_alarm_num, uint max_timers)
{
    hardware_alarm_claim(hardware_alarm_num);
    hardware_alarm_cancel(hardware_alarm_num);
    pool->hardware_alarm_num = (uint8_t)hardware_alarm_num;
    pool->max_timers = (uint8_t)MIN(max_timers, count_of(pool->entries));
    pool->lock = spin_lock_instance(next_striped_spin_lock_num());
    pools[hardware_alarm_num] = pool;
    hardware_alarm_set_callback(hardware_alarm_num, alarm_pool_alarm_callback);
}

void alarm_pool_init_default(void)
{
    if (!default_alarm_pool_initialized) {
        alarm_pool_post_alloc_init(&default_alarm_pool, PICO_TIME_DEFAULT_ALARM_POOL_HARDWARE_ALARM_NUM,
                                   PICO_TIME_DEFAULT_ALARM_POOL_MAX_TIMERS);
        default_alarm_pool_initialized = true;
    }
}

alarm_pool_t *alarm_pool_get_default(void)
{
    return &default_alarm_pool;
}

alarm_pool_t *alarm_pool_create(uint hardware_alarm_num, uint max_timers)
{
    static alarm_pool_t extra_pools[2];
    static uint used;
    if (used == count_of(extra_pools))
        return NULL;
    alarm_pool_t *pool = &extra_pools[used++];
    alarm_pool_post_alloc_init(pool, hardware_alarm_num, max_timers);
    return pool;
}

alarm_id_t alarm_pool_add_alarm_at(alarm_pool_t *pool, absolute_time_t time, alarm_callback_t callback,
                                   void *user_data, bool fire_if_past)
{
    if (time_reached(time)) {
        if (!fire_if_past)
            return 0;
        int64_t again = callback(0, user_data);
        if (!again)
            return 0;
        time = again < 0 ? delayed_by_us(time, (uint64_t)-again) : make_timeout_time_us((uint64_t)again);
    }
    uint32_t save = spin_lock_blocking(pool->lock);
    int pos = alarm_pool_insert(pool, time, callback, user_data);
    alarm_id_t id = pos < 0 ? -1 : pool->entries[pos].id;
    bool missed = pos == 0 && alarm_pool_arm(pool);
    spin_unlock(pool->lock, save);
    if (missed)
        hardware_alarm_force_irq(pool->hardware_alarm_num);
    return id;
}

bool alarm_pool_cancel_alarm(alarm_pool_t *pool, alarm_id_t alarm_id)
{
    bool found = false;
    uint32_t save = spin_lock_blocking(pool->lock);
    for (uint i = 0; i < pool->count; i++) {
        if (pool->entries[i].id == alarm_id) {
            alarm_pool_remove_at(pool, i);
            found = true;
            if (i == 0)
                alarm_pool_arm(pool);
            break;
        }
    }
    spin_unlock(pool->lock, save);
    return found;
}

alarm_id_t add_alarm_in_ms(uint32_t ms, alarm_callback_t callback, void *user_data, bool fire_if_past)
{
    return alarm_pool_add_alarm_at(alarm_pool_get_default(), make_timeout_time_ms(ms), callback, user_data,
                                   fire_if_past);
}

bool cancel_alarm(alarm_id_t alarm_id)
{
    return alarm_pool_cancel_alarm(alarm_pool_get_default(), alarm_id);
}

static int64_t repeating_timer_callback(__unused alarm_id_t id, void *user_data)
{
    repeating_timer_t *rt = (repeating_timer_t *)user_data;
    if (rt->callback(rt))
        return rt->delay_us;
    rt->alarm_id = 0;
    return 0;
}

bool alarm_pool_add_repeating_timer_us(alarm_pool_t *pool, int64_t delay_us, repeating_timer_callback_t callback,
                                       void *user_data, repeating_timer_t *out)
{
    if (!delay_us)
        delay_us = 1;
    out->pool = pool;
    out->callback = callback;
    out->delay_us = delay_us;
    out->user_data = user_data;
    out->alarm_id = alarm_pool_add_alarm_at(pool, make_timeout_time_us((uint64_t)(delay_us >= 0 ? delay_us : -delay_us)),
                                            repeating_timer_callback, out, true);
    return out->alarm_id > 0;
}

bool add_repeating_timer_ms(int32_t delay_ms, repeating_timer_callback_t callback, void *user_data,
                            repeating_timer_t *out)
{
    return alarm_pool_add_repeating_timer_us(alarm_pool_get_default(), delay_ms * (int64_t)1000, callback,
                                             user_data, out);
}

bool cancel_repeating_timer(repeating_timer_t *timer)
{
    bool rc = false;
    if (timer->alarm_id) {
        rc = alarm_pool_cancel_alarm(timer->pool, timer->alarm_id);
        timer->alarm_id = 0;
    }
    return rc;
}

static int64_t sleep_until_callback(__unused alarm_id_t id, __unused void *user_data)
{
    __sev();
    return 0;
}

void sleep_until(absolute_time_t t)
{
    if (default_alarm_pool_initialized &&
        alarm_pool_add_alarm_at(&default_alarm_pool, t, sleep_until_callback, NULL, false) > 0) {
        while (!time_reached(t))
            __wfe();
    } else {
        busy_wait_until(t);
    }
}

void sleep_us(uint64_t us)
{
    if (us < 100)
        busy_wait_us(us);
    else
        sleep_until(make_timeout_time_us(us));
}

void sleep_ms(uint32_t ms)
{
    sleep_us(ms * 1000ull);
}

bool best_effort_wfe_or_timeout(absolute_time_t timeout_timestamp)
{
    if (!default_alarm_pool_initialized)
        return time_reached(timeout_timestamp);
    if (time_reached(timeout_timestamp))
        return true;
    if (alarm_pool_add_alarm_at(&default_alarm_pool, timeout_timestamp, sleep_until_callback, NULL, false) > 0)
        __wfe();
    return time_reached(timeout_timestamp);
}
