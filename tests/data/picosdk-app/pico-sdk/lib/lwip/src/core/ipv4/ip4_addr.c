/* IPv4 address helpers. */
#include "lwip/ip4_addr.h"
#include "lwip/netif.h"

u8_t ip4_addr_isbroadcast_u32(u32_t addr, const struct netif *netif)
{
    ip4_addr_t ipaddr;
    ipaddr.addr = addr;
    if (~addr == IPADDR_ANY || addr == IPADDR_ANY)
        return 1;
    if (!(netif->flags & NETIF_FLAG_BROADCAST))
        return 0;
    if (ip4_addr_cmp(&ipaddr, &netif->ip_addr))
        return 0;
    if (ip4_addr_netcmp(&ipaddr, &netif->ip_addr, &netif->netmask) &&
        ((addr & ~netif->netmask.addr) == (IPADDR_BROADCAST & ~netif->netmask.addr)))
        return 1;
    return 0;
}

int ip4addr_aton(const char *cp, ip4_addr_t *addr)
{
    u32_t parts[4] = {0};
    int n = 0;
    while (*cp) {
        if (*cp == '.') {
            if (++n > 3)
                return 0;
        } else if (*cp >= '0' && *cp <= '9') {
            parts[n] = parts[n] * 10u + (u32_t)(*cp - '0');
            if (parts[n] > 255)
                return 0;
        } else {
            return 0;
        }
        cp++;
    }
    if (n != 3)
        return 0;
    if (addr)
        IP4_ADDR(addr, parts[0], parts[1], parts[2], parts[3]);
    return 1;
}

char *ip4addr_ntoa_r(const ip4_addr_t *addr, char *buf, int buflen)
{
    u32_t s_addr = addr->addr;
    char *rp = buf;
    const u8_t *ap = (const u8_t *)&s_addr;
    int len = 0;
    for (int n = 0; n < 4; n++) {
        char inv[3];
        u8_t i = 0;
        u8_t v = ap[n];
        do {
            u8_t rem = v % 10U;
            v /= 10U;
            inv[i++] = (char)('0' + rem);
        } while (v);
        while (i--) {
            if (len++ >= buflen)
                return NULL;
            *rp++ = inv[i];
        }
        if (len++ >= buflen)
            return NULL;
        *rp++ = '.';
    }
    *--rp = 0;
    return buf;
}
