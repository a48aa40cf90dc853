/* Code the application keeps in SRAM with the SDK's section macro: it runs from RAM at
 * 0x2000xxxx and calls functions in flash at 0x100xxxxx, which a BL cannot reach, so GNU ld
 * puts a long-branch veneer between them. */
#include "pico.h"
#include "lwip/inet_chksum.h"

#include "net_glue.h"
#include "src/motor/motor.h"

static uint8_t scratch[64];

uint32_t __not_in_flash_func(ram_fast_sum)(uint32_t seed)
{
    for (unsigned i = 0; i < sizeof scratch; i++)
        scratch[i] = (uint8_t)(seed + i);
    uint32_t sum = lwip_standard_chksum(scratch, sizeof scratch);
    return sum + motor_position();
}
