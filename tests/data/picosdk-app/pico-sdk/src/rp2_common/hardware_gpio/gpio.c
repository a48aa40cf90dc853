/* GPIO bank 0: function select (IO_BANK0), pad control (PADS_BANK0) and the edge/level
 * interrupt with one callback for all pins. */
#include "hardware/gpio.h"
#include "hardware/irq.h"
#include "hardware/sync.h"

#define IO_BANK0_GPIO_CTRL(gpio) (*(io_rw_32 *)(IO_BANK0_BASE + 8u * (gpio) + 4u))
#define IO_BANK0_INTR(n) (*(io_rw_32 *)(IO_BANK0_BASE + 0xf0u + 4u * (n)))
#define IO_BANK0_PROC0_INTE(n) (*(io_rw_32 *)(IO_BANK0_BASE + 0x100u + 4u * (n)))
#define IO_BANK0_PROC0_INTS(n) (*(io_rw_32 *)(IO_BANK0_BASE + 0x120u + 4u * (n)))
#define PADS_BANK0_GPIO(gpio) (*(io_rw_32 *)(PADS_BANK0_BASE + 4u + 4u * (gpio)))

#define PADS_OD_BITS 0x80u
#define PADS_IE_BITS 0x40u
#define PADS_DRIVE_LSB 4u
#define PADS_DRIVE_BITS 0x30u
#define PADS_PUE_BITS 0x08u
#define PADS_PDE_BITS 0x04u
#define PADS_SCHMITT_BITS 0x02u
#define PADS_SLEWFAST_BITS 0x01u

#define CTRL_FUNCSEL_BITS 0x1fu
#define CTRL_OUTOVER_LSB 8u
#define CTRL_OEOVER_LSB 12u
#define CTRL_INOVER_LSB 16u
#define CTRL_IRQOVER_LSB 28u

static gpio_irq_callback_t callbacks[NUM_CORES];

static void check_gpio_param(__unused uint gpio)
{
    invalid_params_if(HARDWARE_GPIO, gpio >= NUM_BANK0_GPIOS);
}

static inline io_rw_32 *gpio_get_pad(uint gpio)
{
    return &PADS_BANK0_GPIO(gpio);
}

void gpio_set_function(uint gpio, enum gpio_function fn)
{
    check_gpio_param(gpio);
    hw_write_masked(gpio_get_pad(gpio), PADS_IE_BITS, PADS_IE_BITS | PADS_OD_BITS);
    IO_BANK0_GPIO_CTRL(gpio) = (uint32_t)fn;
}

enum gpio_function gpio_get_function(uint gpio)
{
    check_gpio_param(gpio);
    return (enum gpio_function)(IO_BANK0_GPIO_CTRL(gpio) & CTRL_FUNCSEL_BITS);
}

void gpio_set_pulls(uint gpio, bool up, bool down)
{
    check_gpio_param(gpio);
    hw_write_masked(gpio_get_pad(gpio), (up ? PADS_PUE_BITS : 0u) | (down ? PADS_PDE_BITS : 0u),
                    PADS_PUE_BITS | PADS_PDE_BITS);
}

static void gpio_set_override(uint gpio, uint value, uint lsb)
{
    check_gpio_param(gpio);
    hw_write_masked(&IO_BANK0_GPIO_CTRL(gpio), value << lsb, 3u << lsb);
}

void gpio_set_irqover(uint gpio, uint value)
{
    gpio_set_override(gpio, value, CTRL_IRQOVER_LSB);
}

void gpio_set_outover(uint gpio, uint value)
{
    gpio_set_override(gpio, value, CTRL_OUTOVER_LSB);
}

void gpio_set_inover(uint gpio, uint value)
{
    gpio_set_override(gpio, value, CTRL_INOVER_LSB);
}

void gpio_set_oeover(uint gpio, uint value)
{
    gpio_set_override(gpio, value, CTRL_OEOVER_LSB);
}

void gpio_set_input_enabled(uint gpio, bool enabled)
{
    if (enabled)
        hw_set_bits(gpio_get_pad(gpio), PADS_IE_BITS);
    else
        hw_clear_bits(gpio_get_pad(gpio), PADS_IE_BITS);
}

void gpio_set_input_hysteresis_enabled(uint gpio, bool enabled)
{
    if (enabled)
        hw_set_bits(gpio_get_pad(gpio), PADS_SCHMITT_BITS);
    else
        hw_clear_bits(gpio_get_pad(gpio), PADS_SCHMITT_BITS);
}

void gpio_set_slew_rate(uint gpio, enum gpio_slew_rate slew)
{
    hw_write_masked(gpio_get_pad(gpio), (uint32_t)slew, PADS_SLEWFAST_BITS);
}

void gpio_set_drive_strength(uint gpio, enum gpio_drive_strength drive)
{
    hw_write_masked(gpio_get_pad(gpio), (uint32_t)drive << PADS_DRIVE_LSB, PADS_DRIVE_BITS);
}

void gpio_acknowledge_irq(uint gpio, uint32_t events)
{
    IO_BANK0_INTR(gpio / 8u) = events << (4u * (gpio % 8u));
}

/* the bank 0 interrupt: acknowledge each pending pin and pass it to the callback */
static void gpio_default_irq_handler(void)
{
    uint core = get_core_num();
    gpio_irq_callback_t callback = callbacks[core];
    for (uint gpio = 0; gpio < NUM_BANK0_GPIOS; gpio += 8) {
        uint32_t events8 = IO_BANK0_PROC0_INTS(gpio >> 3u);
        for (uint i = gpio; events8 && i < gpio + 8; i++) {
            uint32_t events = events8 & 0xfu;
            if (events) {
                gpio_acknowledge_irq(i, events);
                if (callback)
                    callback(i, events);
            }
            events8 >>= 4;
        }
    }
}

static void _gpio_set_irq_enabled(uint gpio, uint32_t events, bool enabled)
{
    gpio_acknowledge_irq(gpio, events);
    io_rw_32 *en_reg = &IO_BANK0_PROC0_INTE(gpio / 8u);
    events <<= 4u * (gpio % 8u);
    if (enabled)
        hw_set_bits(en_reg, events);
    else
        hw_clear_bits(en_reg, events);
}

void gpio_set_irq_enabled(uint gpio, uint32_t events, bool enabled)
{
    check_gpio_param(gpio);
    _gpio_set_irq_enabled(gpio, events, enabled);
}

void gpio_set_irq_callback(gpio_irq_callback_t callback)
{
    uint core = get_core_num();
    if (callbacks[core]) {
        if (!callback)
            irq_remove_handler(IO_IRQ_BANK0, gpio_default_irq_handler);
        callbacks[core] = callback;
    } else if (callback) {
        callbacks[core] = callback;
        irq_add_shared_handler(IO_IRQ_BANK0, gpio_default_irq_handler,
                               PICO_SHARED_IRQ_HANDLER_DEFAULT_ORDER_PRIORITY);
    }
}

void gpio_set_irq_enabled_with_callback(uint gpio, uint32_t events, bool enabled, gpio_irq_callback_t callback)
{
    gpio_set_irq_enabled(gpio, events, enabled);
    gpio_set_irq_callback(callback);
    if (enabled)
        irq_set_enabled(IO_IRQ_BANK0, true);
}

void gpio_init(uint gpio)
{
    gpio_set_dir(gpio, GPIO_IN);
    gpio_put(gpio, 0);
    gpio_set_function(gpio, GPIO_FUNC_SIO);
}

void gpio_deinit(uint gpio)
{
    gpio_set_function(gpio, GPIO_FUNC_NULL);
}

void gpio_init_mask(uint gpio_mask)
{
    for (uint i = 0; i < NUM_BANK0_GPIOS; i++) {
        if (gpio_mask & 1u)
            gpio_init(i);
        gpio_mask >>= 1;
    }
}
