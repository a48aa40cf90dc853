/* lwIP without an OS: its clock is the SDK's millisecond time since boot. */
#include "lwip/timeouts.h"
#include "pico/time.h"

u32_t sys_now(void)
{
    return to_ms_since_boot(get_absolute_time());
}
