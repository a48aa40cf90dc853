/* The Internet checksum (RFC 1071): a 16-bit one's complement sum, over buffers, pbuf
 * chains, and with the IPv4 pseudo header for UDP. */
#include "lwip/inet_chksum.h"
#include "lwip/def.h"
#include "lwip/ip4.h"

/* sums 16-bit words; an odd start address is handled by swapping the result */
u16_t lwip_standard_chksum(const void *dataptr, int len)
{
    const u8_t *pb = (const u8_t *)dataptr;
    const u16_t *ps;
    u16_t t = 0;
    u32_t sum = 0;
    int odd = ((mem_ptr_t)pb & 1);

    if (odd && len > 0) {
        ((u8_t *)&t)[1] = *pb++;
        len--;
    }

    ps = (const u16_t *)(const void *)pb;
    while (len > 1) {
        sum += *ps++;
        len -= 2;
    }

    if (len > 0)
        ((u8_t *)&t)[0] = *(const u8_t *)ps;

    sum += t;
    sum = FOLD_U32T(sum);
    sum = FOLD_U32T(sum);
    if (odd)
        sum = SWAP_BYTES_IN_WORD(sum);
    return (u16_t)sum;
}

static u16_t inet_cksum_pseudo_base(struct pbuf *p, u8_t proto, u16_t proto_len, u32_t acc)
{
    int swapped = 0;
    for (struct pbuf *q = p; q != NULL; q = q->next) {
        acc += lwip_standard_chksum(q->payload, q->len);
        acc = FOLD_U32T(acc);
        if (q->len % 2 != 0) {
            swapped = !swapped;
            acc = SWAP_BYTES_IN_WORD(acc);
        }
    }
    if (swapped)
        acc = SWAP_BYTES_IN_WORD(acc);
    acc += (u32_t)lwip_htons((u16_t)proto);
    acc += (u32_t)lwip_htons(proto_len);
    acc = FOLD_U32T(acc);
    acc = FOLD_U32T(acc);
    return (u16_t) ~(acc & 0xffffUL);
}

u16_t inet_chksum_pseudo(struct pbuf *p, u8_t proto, u16_t proto_len, const ip4_addr_t *src, const ip4_addr_t *dest)
{
    u32_t acc = 0;
    u32_t addr = src->addr;
    acc += (addr & 0xffffUL);
    acc += ((addr >> 16) & 0xffffUL);
    addr = dest->addr;
    acc += (addr & 0xffffUL);
    acc += ((addr >> 16) & 0xffffUL);
    acc = FOLD_U32T(acc);
    acc = FOLD_U32T(acc);
    return inet_cksum_pseudo_base(p, proto, proto_len, acc);
}

u16_t inet_chksum(const void *dataptr, u16_t len)
{
    return (u16_t)~(unsigned int)lwip_standard_chksum(dataptr, len);
}

u16_t inet_chksum_pbuf(struct pbuf *p)
{
    u32_t acc = 0;
    int swapped = 0;
    for (struct pbuf *q = p; q != NULL; q = q->next) {
        acc += lwip_standard_chksum(q->payload, q->len);
        acc = FOLD_U32T(acc);
        if (q->len % 2 != 0) {
            swapped = !swapped;
            acc = SWAP_BYTES_IN_WORD(acc);
        }
    }
    if (swapped)
        acc = SWAP_BYTES_IN_WORD(acc);
    return (u16_t) ~(acc & 0xffffUL);
}
