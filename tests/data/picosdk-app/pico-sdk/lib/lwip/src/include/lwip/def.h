#ifndef LWIP_HDR_DEF_H
#define LWIP_HDR_DEF_H

#include "lwip/arch.h"
#include "lwip/opt.h"

#define LWIP_MAX(x, y) (((x) > (y)) ? (x) : (y))
#define LWIP_MIN(x, y) (((x) < (y)) ? (x) : (y))
#define LWIP_ARRAYSIZE(x) (sizeof(x) / sizeof((x)[0]))
#define PP_HTONS(x) ((u16_t)((((x) & (u16_t)0x00ffU) << 8) | (((x) & (u16_t)0xff00U) >> 8)))
#define PP_NTOHS(x) PP_HTONS(x)
#define PP_HTONL(x) \
    ((((x) & (u32_t)0x000000ffUL) << 24) | (((x) & (u32_t)0x0000ff00UL) << 8) | (((x) & (u32_t)0x00ff0000UL) >> 8) | \
     (((x) & (u32_t)0xff000000UL) >> 24))

u16_t lwip_htons(u16_t x);
u32_t lwip_htonl(u32_t x);
#define lwip_ntohs(x) lwip_htons(x)
#define lwip_ntohl(x) lwip_htonl(x)

#endif
