/* Memory pools: one free list per pool over a static array of equal elements. */
#include "lwip/memp.h"
#include "lwip/pbuf.h"
#include "lwip/udp.h"
#include "lwip/timeouts.h"

struct sys_timeo_storage {
    void *next;
    u32_t time;
    void *h;
    void *arg;
};

#define MEMP_ELEM_SIZE(type) LWIP_MEM_ALIGN_SIZE(sizeof(type))
#define LWIP_MEMPOOL_DECLARE(name, num, size, desc)                                   \
    static u8_t memp_memory_##name##_base[(num) * LWIP_MEM_ALIGN_SIZE(size) + MEM_ALIGNMENT]; \
    static struct memp *memp_tab_##name;                                              \
    static const struct memp_desc memp_##name = {desc, (u16_t)LWIP_MEM_ALIGN_SIZE(size), (num), \
                                                 memp_memory_##name##_base, &memp_tab_##name};

LWIP_MEMPOOL_DECLARE(UDP_PCB, MEMP_NUM_UDP_PCB, sizeof(struct udp_pcb), "UDP_PCB")
LWIP_MEMPOOL_DECLARE(SYS_TIMEOUT, MEMP_NUM_SYS_TIMEOUT, sizeof(struct sys_timeo_storage), "SYS_TIMEOUT")
LWIP_MEMPOOL_DECLARE(PBUF, MEMP_NUM_PBUF, sizeof(struct pbuf), "PBUF_REF/ROM")
LWIP_MEMPOOL_DECLARE(PBUF_POOL, PBUF_POOL_SIZE, LWIP_MEM_ALIGN_SIZE(sizeof(struct pbuf)) + PBUF_POOL_BUFSIZE, "PBUF_POOL")

const struct memp_desc *const memp_pools[MEMP_MAX] = {
    &memp_UDP_PCB,
    &memp_SYS_TIMEOUT,
    &memp_PBUF,
    &memp_PBUF_POOL,
};

static void memp_init_pool(const struct memp_desc *desc)
{
    struct memp *memp;
    *desc->tab = NULL;
    memp = (struct memp *)LWIP_MEM_ALIGN(desc->base);
    for (int i = 0; i < desc->num; ++i) {
        memp->next = *desc->tab;
        *desc->tab = memp;
        memp = (struct memp *)(void *)((u8_t *)memp + desc->size);
    }
}

void memp_init(void)
{
    for (u16_t i = 0; i < LWIP_ARRAYSIZE(memp_pools); i++)
        memp_init_pool(memp_pools[i]);
}

static void *do_memp_malloc_pool(const struct memp_desc *desc)
{
    struct memp *memp = *desc->tab;
    if (memp != NULL) {
        *desc->tab = memp->next;
        memp->next = NULL;
        return (u8_t *)memp;
    }
    return NULL;
}

void *memp_malloc(memp_t type)
{
    if (type >= MEMP_MAX)
        return NULL;
    return do_memp_malloc_pool(memp_pools[type]);
}

static void do_memp_free_pool(const struct memp_desc *desc, void *mem)
{
    struct memp *memp = (struct memp *)mem;
    memp->next = *desc->tab;
    *desc->tab = memp;
}

void memp_free(memp_t type, void *mem)
{
    if (mem == NULL || type >= MEMP_MAX)
        return;
    do_memp_free_pool(memp_pools[type], mem);
}
