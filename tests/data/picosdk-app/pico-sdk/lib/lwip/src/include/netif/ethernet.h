#ifndef LWIP_HDR_NETIF_ETHERNET_H
#define LWIP_HDR_NETIF_ETHERNET_H

#include "lwip/opt.h"
#include "lwip/pbuf.h"
#include "lwip/netif.h"

#define ETH_HWADDR_LEN 6
#define SIZEOF_ETH_HDR 14
#define ETHTYPE_IP 0x0800U
#define ETHTYPE_ARP 0x0806U

struct eth_addr {
    u8_t addr[ETH_HWADDR_LEN];
} PACK_STRUCT_STRUCT;

struct eth_hdr {
    struct eth_addr dest;
    struct eth_addr src;
    u16_t type;
} PACK_STRUCT_STRUCT;

extern const struct eth_addr ethbroadcast, ethzero;

err_t ethernet_input(struct pbuf *p, struct netif *netif);
err_t ethernet_output(struct netif *netif, struct pbuf *p, const struct eth_addr *src, const struct eth_addr *dst,
                      u16_t eth_type);

#endif
