/* lwIP's port header for the SDK-shaped tree: no OS, little-endian Cortex-M0+. */
#ifndef _PICO_LWIP_ARCH_CC_H
#define _PICO_LWIP_ARCH_CC_H

#define BYTE_ORDER LITTLE_ENDIAN
#define LWIP_NO_INTTYPES_H 1
#define LWIP_RAND() ((u32_t)0x2a2a2a2au)
#define LWIP_PLATFORM_DIAG(x) do { } while (0)

#endif
