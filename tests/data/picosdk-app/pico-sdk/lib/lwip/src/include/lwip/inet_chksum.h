#ifndef LWIP_HDR_INET_CHKSUM_H
#define LWIP_HDR_INET_CHKSUM_H

#include "lwip/opt.h"
#include "lwip/pbuf.h"
#include "lwip/ip4_addr.h"

#define FOLD_U32T(u) ((u32_t)(((u) >> 16) + ((u)&0x0000ffffUL)))
#define SWAP_BYTES_IN_WORD(w) (((w)&0xff) << 8) | (((w)&0xff00) >> 8)

u16_t lwip_standard_chksum(const void *dataptr, int len);
u16_t inet_chksum(const void *dataptr, u16_t len);
u16_t inet_chksum_pbuf(struct pbuf *p);
u16_t inet_chksum_pseudo(struct pbuf *p, u8_t proto, u16_t proto_len, const ip4_addr_t *src, const ip4_addr_t *dest);

#endif
