/* Packet buffers: chains of pbufs holding one packet, with room for headers in front. */
#ifndef LWIP_HDR_PBUF_H
#define LWIP_HDR_PBUF_H

#include "lwip/opt.h"
#include "lwip/err.h"

#define PBUF_LINK_HLEN 14
#define PBUF_IP_HLEN 20
#define PBUF_UDP_HLEN 8

typedef enum {
    PBUF_TRANSPORT = PBUF_LINK_HLEN + PBUF_IP_HLEN + PBUF_UDP_HLEN,
    PBUF_IP = PBUF_LINK_HLEN + PBUF_IP_HLEN,
    PBUF_LINK = PBUF_LINK_HLEN,
    PBUF_RAW = 0
} pbuf_layer;

typedef enum {
    PBUF_RAM = 0x0280,
    PBUF_ROM = 0x0001,
    PBUF_REF = 0x0041,
    PBUF_POOL = 0x0282
} pbuf_type;

struct pbuf {
    struct pbuf *next;
    void *payload;
    u16_t tot_len;
    u16_t len;
    u8_t type_internal;
    u8_t flags;
    u8_t ref;
    u8_t if_idx;
};

struct pbuf *pbuf_alloc(pbuf_layer l, u16_t length, pbuf_type type);
void pbuf_realloc(struct pbuf *p, u16_t size);
u8_t pbuf_add_header(struct pbuf *p, size_t header_size_increment);
u8_t pbuf_remove_header(struct pbuf *p, size_t header_size);
u8_t pbuf_free(struct pbuf *p);
void pbuf_ref(struct pbuf *p);
u16_t pbuf_clen(const struct pbuf *p);
void pbuf_cat(struct pbuf *head, struct pbuf *tail);
void pbuf_chain(struct pbuf *head, struct pbuf *tail);
err_t pbuf_take(struct pbuf *buf, const void *dataptr, u16_t len);
u16_t pbuf_copy_partial(const struct pbuf *p, void *dataptr, u16_t len, u16_t offset);
u8_t pbuf_get_at(const struct pbuf *p, u16_t offset);

#endif
