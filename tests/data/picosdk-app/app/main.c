/* The application: brings up USB and lwIP, then polls them and runs the motor loop. */
#include "pico/stdlib.h"
#include "tusb.h"
#include "lwip/init.h"
#include "lwip/timeouts.h"

#include "net_glue.h"
#include "src/motor/motor.h"

int main(void)
{
    stdio_init_all();
    tusb_init();
    lwip_init();
    net_glue_init();
    motor_init(1);
    for (;;) {
        tud_task();
        net_glue_poll();
        sys_check_timeouts();
        motor_step(ram_fast_sum(0x5a));
    }
}
