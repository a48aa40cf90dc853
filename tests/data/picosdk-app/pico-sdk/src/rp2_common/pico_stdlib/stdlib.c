/* Default UART set-up and system clock helpers. */
#include "pico/stdlib.h"

#ifndef PICO_DEFAULT_UART_BAUD_RATE
#define PICO_DEFAULT_UART_BAUD_RATE 115200
#endif

static uart_inst_t *default_uart(void)
{
    return PICO_DEFAULT_UART ? uart1 : uart0;
}

void setup_default_uart(void)
{
    uart_init(default_uart(), PICO_DEFAULT_UART_BAUD_RATE);
    gpio_set_function(PICO_DEFAULT_UART_TX_PIN, GPIO_FUNC_UART);
    gpio_set_function(PICO_DEFAULT_UART_RX_PIN, GPIO_FUNC_UART);
}

bool stdio_init_all(void)
{
    setup_default_uart();
    return true;
}

bool check_sys_clock_khz(uint32_t freq_khz, uint *vco_out, uint *postdiv1_out, uint *postdiv2_out)
{
    uint reference_freq_khz = XOSC_HZ / 1000u;
    for (uint fbdiv = 320; fbdiv >= 16; fbdiv--) {
        uint vco_khz = fbdiv * reference_freq_khz;
        if (vco_khz < 750000u || vco_khz > 1600000u)
            continue;
        for (uint postdiv1 = 7; postdiv1 >= 1; postdiv1--) {
            for (uint postdiv2 = postdiv1; postdiv2 >= 1; postdiv2--) {
                uint out = vco_khz / (postdiv1 * postdiv2);
                if (out == freq_khz && !(vco_khz % (postdiv1 * postdiv2))) {
                    *vco_out = vco_khz * 1000u;
                    *postdiv1_out = postdiv1;
                    *postdiv2_out = postdiv2;
                    return true;
                }
            }
        }
    }
    return false;
}

bool set_sys_clock_khz(uint32_t freq_khz, bool required)
{
    uint vco, postdiv1, postdiv2;
    if (check_sys_clock_khz(freq_khz, &vco, &postdiv1, &postdiv2))
        return true;
    if (required)
        panic("System clock of %u kHz cannot be exactly achieved", freq_khz);
    return false;
}

void set_sys_clock_48mhz(void)
{
    set_sys_clock_khz(48000, true);
}
