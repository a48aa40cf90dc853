/* GPIO functions, pads, SIO output and interrupts of bank 0. */
#ifndef _HARDWARE_GPIO_H
#define _HARDWARE_GPIO_H

#include "pico.h"
#include "hardware/address_mapped.h"
#include "hardware/regs/sio.h"

enum gpio_function {
    GPIO_FUNC_XIP = 0,
    GPIO_FUNC_SPI = 1,
    GPIO_FUNC_UART = 2,
    GPIO_FUNC_I2C = 3,
    GPIO_FUNC_PWM = 4,
    GPIO_FUNC_SIO = 5,
    GPIO_FUNC_PIO0 = 6,
    GPIO_FUNC_PIO1 = 7,
    GPIO_FUNC_GPCK = 8,
    GPIO_FUNC_USB = 9,
    GPIO_FUNC_NULL = 0x1f,
};

#define GPIO_OUT 1
#define GPIO_IN 0

enum gpio_irq_level {
    GPIO_IRQ_LEVEL_LOW = 0x1u,
    GPIO_IRQ_LEVEL_HIGH = 0x2u,
    GPIO_IRQ_EDGE_FALL = 0x4u,
    GPIO_IRQ_EDGE_RISE = 0x8u,
};

enum gpio_override {
    GPIO_OVERRIDE_NORMAL = 0,
    GPIO_OVERRIDE_INVERT = 1,
    GPIO_OVERRIDE_LOW = 2,
    GPIO_OVERRIDE_HIGH = 3,
};

enum gpio_slew_rate { GPIO_SLEW_RATE_SLOW = 0, GPIO_SLEW_RATE_FAST = 1 };

enum gpio_drive_strength {
    GPIO_DRIVE_STRENGTH_2MA = 0,
    GPIO_DRIVE_STRENGTH_4MA = 1,
    GPIO_DRIVE_STRENGTH_8MA = 2,
    GPIO_DRIVE_STRENGTH_12MA = 3,
};

typedef void (*gpio_irq_callback_t)(uint gpio, uint32_t event_mask);

#define SIO_REG(off) (*(io_rw_32 *)(SIO_BASE + (off)))

static inline void gpio_put(uint gpio, bool value)
{
    uint32_t mask = 1ul << gpio;
    if (value)
        SIO_REG(SIO_GPIO_OUT_SET_OFFSET) = mask;
    else
        SIO_REG(SIO_GPIO_OUT_CLR_OFFSET) = mask;
}

static inline bool gpio_get(uint gpio)
{
    return !!((1ul << gpio) & SIO_REG(SIO_GPIO_IN_OFFSET));
}

static inline void gpio_xor_mask(uint32_t mask)
{
    SIO_REG(SIO_GPIO_OUT_XOR_OFFSET) = mask;
}

static inline void gpio_set_dir(uint gpio, bool out)
{
    uint32_t mask = 1ul << gpio;
    if (out)
        SIO_REG(SIO_GPIO_OE_SET_OFFSET) = mask;
    else
        SIO_REG(SIO_GPIO_OE_CLR_OFFSET) = mask;
}

void gpio_set_function(uint gpio, enum gpio_function fn);
enum gpio_function gpio_get_function(uint gpio);
void gpio_set_pulls(uint gpio, bool up, bool down);
static inline void gpio_pull_up(uint gpio) { gpio_set_pulls(gpio, true, false); }
static inline void gpio_pull_down(uint gpio) { gpio_set_pulls(gpio, false, true); }
void gpio_set_irqover(uint gpio, uint value);
void gpio_set_outover(uint gpio, uint value);
void gpio_set_inover(uint gpio, uint value);
void gpio_set_oeover(uint gpio, uint value);
void gpio_set_input_enabled(uint gpio, bool enabled);
void gpio_set_input_hysteresis_enabled(uint gpio, bool enabled);
void gpio_set_slew_rate(uint gpio, enum gpio_slew_rate slew);
void gpio_set_drive_strength(uint gpio, enum gpio_drive_strength drive);
void gpio_set_irq_enabled(uint gpio, uint32_t event_mask, bool enabled);
void gpio_set_irq_callback(gpio_irq_callback_t callback);
void gpio_set_irq_enabled_with_callback(uint gpio, uint32_t event_mask, bool enabled, gpio_irq_callback_t callback);
void gpio_acknowledge_irq(uint gpio, uint32_t event_mask);
void gpio_init(uint gpio);
void gpio_deinit(uint gpio);
void gpio_init_mask(uint gpio_mask);

#endif
