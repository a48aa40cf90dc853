/* Everything a simple program needs: GPIO, UART, time, sleep. */
#ifndef _PICO_STDLIB_H
#define _PICO_STDLIB_H

#include "pico.h"
#include "pico/time.h"
#include "hardware/gpio.h"
#include "hardware/uart.h"

void setup_default_uart(void);
bool stdio_init_all(void);
void set_sys_clock_48mhz(void);
bool check_sys_clock_khz(uint32_t freq_khz, uint *vco_freq_out, uint *post_div1_out, uint *post_div2_out);
bool set_sys_clock_khz(uint32_t freq_khz, bool required);

#endif
