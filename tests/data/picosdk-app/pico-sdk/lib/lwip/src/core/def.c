/* Byte order conversion (the RP2040 is little endian). */
#include "lwip/def.h"

u16_t lwip_htons(u16_t n)
{
    return PP_HTONS(n);
}

u32_t lwip_htonl(u32_t n)
{
    return PP_HTONL(n);
}
