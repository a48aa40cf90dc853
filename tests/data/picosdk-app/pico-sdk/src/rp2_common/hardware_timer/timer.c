/* Timer reads, busy waits and the alarm interrupt dispatch. */
#include "hardware/timer.h"
#include "hardware/irq.h"
#include "hardware/sync.h"
#include "hardware/claim.h"
#include "hardware/regs/intctrl.h"

static hardware_alarm_callback_t alarm_callbacks[NUM_ALARMS];
static uint32_t target_hi[NUM_ALARMS];
static uint8_t timer_callbacks_pending;
static uint8_t claimed;

static void check_hardware_alarm_num_param(__unused uint alarm_num)
{
    invalid_params_if(HARDWARE_TIMER, alarm_num >= NUM_ALARMS);
}

void hardware_alarm_claim(uint alarm_num)
{
    check_hardware_alarm_num_param(alarm_num);
    hw_claim_or_assert(&claimed, alarm_num, "Hardware alarm %d already claimed");
}

void hardware_alarm_unclaim(uint alarm_num)
{
    check_hardware_alarm_num_param(alarm_num);
    hw_claim_clear(&claimed, alarm_num);
}

bool hardware_alarm_is_claimed(uint alarm_num)
{
    check_hardware_alarm_num_param(alarm_num);
    return hw_is_claimed(&claimed, alarm_num);
}

int hardware_alarm_claim_unused(bool required)
{
    return hw_claim_unused_from_range(&claimed, required, 0, NUM_ALARMS - 1, "No alarms available");
}

uint64_t time_us_64(void)
{
    /* read the raw registers so that neither core latches the other's high word */
    uint32_t hi = TIMER_REG(TIMER_TIMERAWH_OFFSET);
    uint32_t lo;
    for (;;) {
        lo = TIMER_REG(TIMER_TIMERAWL_OFFSET);
        uint32_t next_hi = TIMER_REG(TIMER_TIMERAWH_OFFSET);
        if (hi == next_hi)
            break;
        hi = next_hi;
    }
    return ((uint64_t)hi << 32u) | lo;
}

void busy_wait_us_32(uint32_t delay_us)
{
    uint32_t start = time_us_32();
    while (time_us_32() - start < delay_us)
        __compiler_memory_barrier();
}

void busy_wait_us(uint64_t delay_us)
{
    uint64_t base = time_us_64();
    uint64_t target = base + delay_us;
    if (target < base)
        target = (uint64_t)-1;
    busy_wait_until(from_us_since_boot(target));
}

void busy_wait_ms(uint32_t delay_ms)
{
    if (delay_ms <= 0x7fffffffu / 1000u)
        busy_wait_us_32(delay_ms * 1000u);
    else
        busy_wait_us(delay_ms * 1000ull);
}

void busy_wait_until(absolute_time_t t)
{
    uint64_t target = to_us_since_boot(t);
    uint32_t hi_target = (uint32_t)(target >> 32u);
    uint32_t hi = TIMER_REG(TIMER_TIMERAWH_OFFSET);
    while (hi < hi_target) {
        hi = TIMER_REG(TIMER_TIMERAWH_OFFSET);
        __compiler_memory_barrier();
    }
    while (hi == hi_target && TIMER_REG(TIMER_TIMERAWL_OFFSET) < (uint32_t)target) {
        hi = TIMER_REG(TIMER_TIMERAWH_OFFSET);
        __compiler_memory_barrier();
    }
}

static void hardware_alarm_irq_handler(void)
{
    uint alarm_num = __get_current_exception() - 16u - TIMER_IRQ_0;
    hardware_alarm_callback_t callback = NULL;
    spin_lock_t *lock = spin_lock_instance(PICO_SPINLOCK_ID_TIMER);
    uint32_t save = spin_lock_blocking(lock);
    TIMER_REG(TIMER_INTR_OFFSET) = 1u << alarm_num;
    if (timer_callbacks_pending & (1u << alarm_num)) {
        if (TIMER_REG(TIMER_TIMERAWH_OFFSET) >= target_hi[alarm_num]) {
            callback = alarm_callbacks[alarm_num];
            timer_callbacks_pending &= (uint8_t)~(1u << alarm_num);
        } else {
            TIMER_REG(TIMER_ALARM0_OFFSET + 4 * alarm_num) = TIMER_REG(TIMER_ALARM0_OFFSET + 4 * alarm_num);
        }
    }
    spin_unlock(lock, save);
    if (callback)
        callback(alarm_num);
}

void hardware_alarm_set_callback(uint alarm_num, hardware_alarm_callback_t callback)
{
    check_hardware_alarm_num_param(alarm_num);
    uint irq_num = TIMER_IRQ_0 + alarm_num;
    spin_lock_t *lock = spin_lock_instance(PICO_SPINLOCK_ID_TIMER);
    uint32_t save = spin_lock_blocking(lock);
    if (callback) {
        if (alarm_callbacks[alarm_num] != callback) {
            irq_set_exclusive_handler(irq_num, hardware_alarm_irq_handler);
            alarm_callbacks[alarm_num] = callback;
        }
        hw_set_bits(&TIMER_REG(TIMER_INTE_OFFSET), 1u << alarm_num);
        irq_set_enabled(irq_num, true);
    } else {
        irq_set_enabled(irq_num, false);
        hw_clear_bits(&TIMER_REG(TIMER_INTE_OFFSET), 1u << alarm_num);
        irq_remove_handler(irq_num, hardware_alarm_irq_handler);
        alarm_callbacks[alarm_num] = NULL;
        timer_callbacks_pending &= (uint8_t)~(1u << alarm_num);
    }
    spin_unlock(lock, save);
}

bool hardware_alarm_set_target(uint alarm_num, absolute_time_t target)
{
    bool missed;
    uint64_t now = time_us_64();
    uint64_t t = to_us_since_boot(target);
    if (now >= t) {
        missed = true;
    } else {
        missed = false;
        spin_lock_t *lock = spin_lock_instance(PICO_SPINLOCK_ID_TIMER);
        uint32_t save = spin_lock_blocking(lock);
        timer_callbacks_pending |= (uint8_t)(1u << alarm_num);
        TIMER_REG(TIMER_ALARM0_OFFSET + 4 * alarm_num) = (uint32_t)t;
        target_hi[alarm_num] = (uint32_t)(t >> 32u);
        if (!(TIMER_REG(TIMER_ARMED_OFFSET) & (1u << alarm_num)) && time_us_64() >= t) {
            missed = true;
            timer_callbacks_pending &= (uint8_t)~(1u << alarm_num);
        }
        spin_unlock(lock, save);
    }
    return missed;
}

void hardware_alarm_cancel(uint alarm_num)
{
    check_hardware_alarm_num_param(alarm_num);
    spin_lock_t *lock = spin_lock_instance(PICO_SPINLOCK_ID_TIMER);
    uint32_t save = spin_lock_blocking(lock);
    TIMER_REG(TIMER_ARMED_OFFSET) = 1u << alarm_num;
    timer_callbacks_pending &= (uint8_t)~(1u << alarm_num);
    spin_unlock(lock, save);
}

void hardware_alarm_force_irq(uint alarm_num)
{
    check_hardware_alarm_num_param(alarm_num);
    spin_lock_t *lock = spin_lock_instance(PICO_SPINLOCK_ID_TIMER);
    uint32_t save = spin_lock_blocking(lock);
    timer_callbacks_pending |= (uint8_t)(1u << alarm_num);
    spin_unlock(lock, save);
    hw_set_bits(&TIMER_REG(TIMER_INTF_OFFSET), 1u << alarm_num);
}
