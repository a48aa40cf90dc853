/* Packet buffers. A PBUF_RAM pbuf is one heap block with its payload behind the header; a
 * PBUF_POOL packet is a chain of pool elements; PBUF_ROM/REF point at foreign memory. */
#include "lwip/pbuf.h"
#include "lwip/mem.h"
#include "lwip/memp.h"
#include "lwip/def.h"

#define SIZEOF_STRUCT_PBUF LWIP_MEM_ALIGN_SIZE(sizeof(struct pbuf))
#define PBUF_POOL_BUFSIZE_ALIGNED LWIP_MEM_ALIGN_SIZE(PBUF_POOL_BUFSIZE)
#define PBUF_FLAG_IS_CUSTOM 0x02U

static void pbuf_init_alloced_pbuf(struct pbuf *p, void *payload, u16_t tot_len, u16_t len, pbuf_type type,
                                   u8_t flags)
{
    p->next = NULL;
    p->payload = payload;
    p->tot_len = tot_len;
    p->len = len;
    p->type_internal = (u8_t)type;
    p->flags = flags;
    p->ref = 1;
    p->if_idx = 0;
}

struct pbuf *pbuf_alloc(pbuf_layer layer, u16_t length, pbuf_type type)
{
    struct pbuf *p;
    u16_t offset = (u16_t)layer;

    switch (type) {
    case PBUF_REF:
    case PBUF_ROM:
        p = (struct pbuf *)memp_malloc(MEMP_PBUF);
        if (p == NULL)
            return NULL;
        pbuf_init_alloced_pbuf(p, NULL, length, length, type, 0);
        break;
    case PBUF_POOL: {
        struct pbuf *q, *last = NULL;
        u16_t rem_len = length;
        p = NULL;
        do {
            q = (struct pbuf *)memp_malloc(MEMP_PBUF_POOL);
            if (q == NULL) {
                if (p)
                    pbuf_free(p);
                return NULL;
            }
            u16_t qlen = LWIP_MIN(rem_len, (u16_t)(PBUF_POOL_BUFSIZE_ALIGNED - LWIP_MEM_ALIGN_SIZE(offset)));
            pbuf_init_alloced_pbuf(q, LWIP_MEM_ALIGN((void *)((u8_t *)q + SIZEOF_STRUCT_PBUF + offset)), rem_len,
                                   qlen, type, 0);
            if (p == NULL)
                p = q;
            else
                last->next = q;
            last = q;
            rem_len = (u16_t)(rem_len - qlen);
            offset = 0;
        } while (rem_len > 0);
        break;
    }
    case PBUF_RAM: {
        mem_size_t payload_len = (mem_size_t)(LWIP_MEM_ALIGN_SIZE(offset) + LWIP_MEM_ALIGN_SIZE(length));
        mem_size_t alloc_len = (mem_size_t)(SIZEOF_STRUCT_PBUF + payload_len);
        if (payload_len < LWIP_MEM_ALIGN_SIZE(length) || alloc_len < LWIP_MEM_ALIGN_SIZE(length))
            return NULL;
        p = (struct pbuf *)mem_malloc(alloc_len);
        if (p == NULL)
            return NULL;
        pbuf_init_alloced_pbuf(p, LWIP_MEM_ALIGN((void *)((u8_t *)p + SIZEOF_STRUCT_PBUF + offset)), length, length,
                               type, 0);
        break;
    }
    default:
        return NULL;
    }
    return p;
}

void pbuf_realloc(struct pbuf *p, u16_t new_len)
{
    if (new_len >= p->tot_len)
        return;
    s32_t grow = new_len - p->tot_len;
    u16_t rem_len = new_len;
    struct pbuf *q = p;
    while (rem_len > q->len) {
        rem_len = (u16_t)(rem_len - q->len);
        q->tot_len = (u16_t)(q->tot_len + grow);
        q = q->next;
    }
    if (q->type_internal == (u8_t)PBUF_RAM && rem_len != q->len)
        q = (struct pbuf *)mem_trim(q, (mem_size_t)(((u8_t *)q->payload - (u8_t *)q) + rem_len));
    q->len = rem_len;
    q->tot_len = q->len;
    if (q->next != NULL)
        pbuf_free(q->next);
    q->next = NULL;
}

static u8_t pbuf_add_header_impl(struct pbuf *p, size_t header_size_increment, u8_t force)
{
    if (p == NULL || header_size_increment > 0xfffe)
        return 1;
    if (header_size_increment == 0)
        return 0;
    u16_t increment_magnitude = (u16_t)header_size_increment;
    if ((u16_t)(increment_magnitude + p->tot_len) < increment_magnitude)
        return 1;
    u8_t *payload;
    if (p->type_internal == (u8_t)PBUF_RAM || p->type_internal == (u8_t)PBUF_POOL) {
        payload = (u8_t *)p->payload - header_size_increment;
        if (payload < (u8_t *)p + SIZEOF_STRUCT_PBUF)
            return 1;
    } else {
        if (!force)
            return 1;
        payload = (u8_t *)p->payload - header_size_increment;
    }
    p->payload = payload;
    p->len = (u16_t)(p->len + increment_magnitude);
    p->tot_len = (u16_t)(p->tot_len + increment_magnitude);
    return 0;
}

u8_t pbuf_add_header(struct pbuf *p, size_t header_size_increment)
{
    return pbuf_add_header_impl(p, header_size_increment, 0);
}

u8_t pbuf_remove_header(struct pbuf *p, size_t header_size_decrement)
{
    if (p == NULL || header_size_decrement > 0xfffe)
        return 1;
    if (header_size_decrement == 0)
        return 0;
    u16_t increment_magnitude = (u16_t)header_size_decrement;
    if (increment_magnitude > p->len)
        return 1;
    p->payload = (u8_t *)p->payload + header_size_decrement;
    p->len = (u16_t)(p->len - increment_magnitude);
    p->tot_len = (u16_t)(p->tot_len - increment_magnitude);
    return 0;
}

u8_t pbuf_free(struct pbuf *p)
{
    u8_t count = 0;
    while (p != NULL) {
        u8_t ref = --(p->ref);
        if (ref != 0)
            break;
        struct pbuf *q = p->next;
        switch (p->type_internal) {
        case (u8_t)PBUF_POOL:
            memp_free(MEMP_PBUF_POOL, p);
            break;
        case (u8_t)PBUF_ROM:
        case (u8_t)PBUF_REF:
            memp_free(MEMP_PBUF, p);
            break;
        default:
            mem_free(p);
            break;
        }
        count++;
        p = q;
    }
    return count;
}

u16_t pbuf_clen(const struct pbuf *p)
{
    u16_t len = 0;
    while (p != NULL) {
        ++len;
        p = p->next;
    }
    return len;
}

void pbuf_ref(struct pbuf *p)
{
    if (p != NULL)
        p->ref++;
}

void pbuf_cat(struct pbuf *h, struct pbuf *t)
{
    struct pbuf *p;
    for (p = h; p->next != NULL; p = p->next)
        p->tot_len = (u16_t)(p->tot_len + t->tot_len);
    p->tot_len = (u16_t)(p->tot_len + t->tot_len);
    p->next = t;
}

void pbuf_chain(struct pbuf *h, struct pbuf *t)
{
    pbuf_cat(h, t);
    pbuf_ref(t);
}

u16_t pbuf_copy_partial(const struct pbuf *buf, void *dataptr, u16_t len, u16_t offset)
{
    u16_t left = 0;
    u16_t copied_total = 0;
    for (const struct pbuf *p = buf; len != 0 && p != NULL; p = p->next) {
        if (offset != 0 && offset >= p->len) {
            offset = (u16_t)(offset - p->len);
        } else {
            u16_t buf_copy_len = (u16_t)(p->len - offset);
            if (buf_copy_len > len)
                buf_copy_len = len;
            memcpy(&((char *)dataptr)[left], &((char *)p->payload)[offset], buf_copy_len);
            copied_total = (u16_t)(copied_total + buf_copy_len);
            left = (u16_t)(left + buf_copy_len);
            len = (u16_t)(len - buf_copy_len);
            offset = 0;
        }
    }
    return copied_total;
}

err_t pbuf_take(struct pbuf *buf, const void *dataptr, u16_t len)
{
    if (buf == NULL || dataptr == NULL || buf->tot_len < len)
        return ERR_ARG;
    u16_t copied_total = 0;
    u16_t total_copy_len = len;
    for (struct pbuf *p = buf; total_copy_len != 0; p = p->next) {
        u16_t buf_copy_len = total_copy_len;
        if (buf_copy_len > p->len)
            buf_copy_len = p->len;
        memcpy(p->payload, &((const char *)dataptr)[copied_total], buf_copy_len);
        total_copy_len = (u16_t)(total_copy_len - buf_copy_len);
        copied_total = (u16_t)(copied_total + buf_copy_len);
    }
    return ERR_OK;
}

u8_t pbuf_get_at(const struct pbuf *p, u16_t offset)
{
    u16_t q_idx = offset;
    const struct pbuf *q = p;
    while (q != NULL && q->len <= q_idx) {
        q_idx = (u16_t)(q_idx - q->len);
        q = q->next;
    }
    return q != NULL ? ((u8_t *)q->payload)[q_idx] : 0;
}
