/* The 64-bit microsecond timer and its four alarms. */
#ifndef _HARDWARE_TIMER_H
#define _HARDWARE_TIMER_H

#include "pico.h"
#include "hardware/address_mapped.h"

#define TIMER_TIMEHR_OFFSET 0x08
#define TIMER_TIMELR_OFFSET 0x0c
#define TIMER_ALARM0_OFFSET 0x10
#define TIMER_ARMED_OFFSET 0x20
#define TIMER_TIMERAWH_OFFSET 0x24
#define TIMER_TIMERAWL_OFFSET 0x28
#define TIMER_INTR_OFFSET 0x34
#define TIMER_INTE_OFFSET 0x38
#define TIMER_INTF_OFFSET 0x3c
#define TIMER_INTS_OFFSET 0x40

#define TIMER_REG(off) (*(io_rw_32 *)(TIMER_BASE + (off)))

static inline uint32_t time_us_32(void)
{
    return TIMER_REG(TIMER_TIMERAWL_OFFSET);
}

uint64_t time_us_64(void);
void busy_wait_us_32(uint32_t delay_us);
void busy_wait_us(uint64_t delay_us);
void busy_wait_ms(uint32_t delay_ms);
void busy_wait_until(absolute_time_t t);

static inline bool time_reached(absolute_time_t t)
{
    uint64_t target = to_us_since_boot(t);
    uint32_t hi_target = (uint32_t)(target >> 32u);
    uint32_t hi = TIMER_REG(TIMER_TIMERAWH_OFFSET);
    return (hi >= hi_target && (TIMER_REG(TIMER_TIMERAWL_OFFSET) >= (uint32_t)target || hi != hi_target));
}

typedef void (*hardware_alarm_callback_t)(uint alarm_num);

void hardware_alarm_claim(uint alarm_num);
int hardware_alarm_claim_unused(bool required);
void hardware_alarm_unclaim(uint alarm_num);
bool hardware_alarm_is_claimed(uint alarm_num);
void hardware_alarm_set_callback(uint alarm_num, hardware_alarm_callback_t callback);
bool hardware_alarm_set_target(uint alarm_num, absolute_time_t t);
void hardware_alarm_cancel(uint alarm_num);
void hardware_alarm_force_irq(uint alarm_num);

#endif
