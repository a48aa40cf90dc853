/* Compiler and platform abstraction (arch/cc.h comes from the port). */
#ifndef LWIP_HDR_ARCH_H
#define LWIP_HDR_ARCH_H

#include "arch/cc.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8_t;
typedef int8_t s8_t;
typedef uint16_t u16_t;
typedef int16_t s16_t;
typedef uint32_t u32_t;
typedef int32_t s32_t;
typedef uintptr_t mem_ptr_t;

#ifndef LWIP_PLATFORM_ASSERT
#define LWIP_PLATFORM_ASSERT(x) \
    do {                        \
    } while (0)
#endif
#define LWIP_ASSERT(message, assertion)      \
    do {                                     \
        if (!(assertion))                    \
            LWIP_PLATFORM_ASSERT(message);   \
    } while (0)
#define LWIP_UNUSED_ARG(x) (void)x
#define LWIP_MEM_ALIGN_SIZE(size) (((size) + MEM_ALIGNMENT - 1U) & ~(MEM_ALIGNMENT - 1U))
#define LWIP_MEM_ALIGN(addr) ((void *)(((mem_ptr_t)(addr) + MEM_ALIGNMENT - 1) & ~(mem_ptr_t)(MEM_ALIGNMENT - 1)))
#define PACK_STRUCT_STRUCT __attribute__((packed))

#endif
