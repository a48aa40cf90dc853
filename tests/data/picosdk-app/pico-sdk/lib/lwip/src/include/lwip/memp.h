/* Fixed-size memory pools. */
#ifndef LWIP_HDR_MEMP_H
#define LWIP_HDR_MEMP_H

#include "lwip/opt.h"
#include "lwip/arch.h"

typedef enum {
    MEMP_UDP_PCB,
    MEMP_SYS_TIMEOUT,
    MEMP_PBUF,
    MEMP_PBUF_POOL,
    MEMP_MAX
} memp_t;

struct memp {
    struct memp *next;
};

struct memp_desc {
    const char *desc;
    u16_t size;
    u16_t num;
    u8_t *base;
    struct memp **tab;
};

void memp_init(void);
void *memp_malloc(memp_t type);
void memp_free(memp_t type, void *mem);

#endif
