#ifndef LWIP_HDR_IP4_ADDR_H
#define LWIP_HDR_IP4_ADDR_H

#include "lwip/opt.h"
#include "lwip/def.h"

typedef struct ip4_addr {
    u32_t addr;
} ip4_addr_t;
typedef ip4_addr_t ip_addr_t;

struct netif;

#define IPADDR_ANY ((u32_t)0x00000000UL)
#define IPADDR_BROADCAST ((u32_t)0xffffffffUL)
#define IP4_ADDR(ipaddr, a, b, c, d) (ipaddr)->addr = PP_HTONL(((u32_t)(a) << 24) | ((u32_t)(b) << 16) | ((u32_t)(c) << 8) | (u32_t)(d))
#define ip4_addr_cmp(a, b) ((a)->addr == (b)->addr)
#define ip4_addr_isany_val(a) ((a).addr == IPADDR_ANY)
#define ip4_addr_isany(a) ((a) == NULL || ip4_addr_isany_val(*(a)))
#define ip4_addr_copy(dest, src) ((dest).addr = (src).addr)
#define ip4_addr_set_zero(a) ((a)->addr = 0)
#define ip4_addr_netcmp(a, b, mask) (((a)->addr & (mask)->addr) == ((b)->addr & (mask)->addr))
#define ip4_addr_ismulticast(a) (((a)->addr & PP_HTONL(0xf0000000UL)) == PP_HTONL(0xe0000000UL))
#define ip4_addr_isbroadcast(ipaddr, ifc) ip4_addr_isbroadcast_u32((ipaddr)->addr, ifc)

u8_t ip4_addr_isbroadcast_u32(u32_t addr, const struct netif *netif);
int ip4addr_aton(const char *cp, ip4_addr_t *addr);
char *ip4addr_ntoa_r(const ip4_addr_t *addr, char *buf, int buflen);

#endif
