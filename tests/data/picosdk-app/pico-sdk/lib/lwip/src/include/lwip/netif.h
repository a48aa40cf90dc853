/* Network interfaces. */
#ifndef LWIP_HDR_NETIF_H
#define LWIP_HDR_NETIF_H

#include "lwip/opt.h"
#include "lwip/err.h"
#include "lwip/ip4_addr.h"
#include "lwip/pbuf.h"

#define NETIF_MAX_HWADDR_LEN 6U
#define NETIF_FLAG_UP 0x01U
#define NETIF_FLAG_BROADCAST 0x02U
#define NETIF_FLAG_LINK_UP 0x04U
#define NETIF_FLAG_ETHARP 0x08U
#define NETIF_FLAG_ETHERNET 0x10U

struct netif;
typedef err_t (*netif_init_fn)(struct netif *netif);
typedef err_t (*netif_input_fn)(struct pbuf *p, struct netif *inp);
typedef err_t (*netif_output_fn)(struct netif *netif, struct pbuf *p, const ip4_addr_t *ipaddr);
typedef err_t (*netif_linkoutput_fn)(struct netif *netif, struct pbuf *p);
typedef void (*netif_status_callback_fn)(struct netif *netif);

struct netif {
    struct netif *next;
    ip4_addr_t ip_addr;
    ip4_addr_t netmask;
    ip4_addr_t gw;
    netif_input_fn input;
    netif_output_fn output;
    netif_linkoutput_fn linkoutput;
    netif_status_callback_fn status_callback;
    void *state;
    u16_t mtu;
    u8_t hwaddr[NETIF_MAX_HWADDR_LEN];
    u8_t hwaddr_len;
    u8_t flags;
    char name[2];
    u8_t num;
};

extern struct netif *netif_list;
extern struct netif *netif_default;

void netif_init(void);
struct netif *netif_add(struct netif *netif, const ip4_addr_t *ipaddr, const ip4_addr_t *netmask,
                        const ip4_addr_t *gw, void *state, netif_init_fn init, netif_input_fn input);
void netif_set_addr(struct netif *netif, const ip4_addr_t *ipaddr, const ip4_addr_t *netmask, const ip4_addr_t *gw);
void netif_remove(struct netif *netif);
void netif_set_default(struct netif *netif);
void netif_set_up(struct netif *netif);
void netif_set_down(struct netif *netif);
void netif_set_link_up(struct netif *netif);
void netif_set_link_down(struct netif *netif);
err_t netif_input(struct pbuf *p, struct netif *inp);

#define netif_is_up(netif) (((netif)->flags & NETIF_FLAG_UP) ? (u8_t)1 : (u8_t)0)
#define netif_is_link_up(netif) (((netif)->flags & NETIF_FLAG_LINK_UP) ? (u8_t)1 : (u8_t)0)
#define netif_ip4_addr(netif) ((const ip4_addr_t *)&((netif)->ip_addr))
#define netif_ip4_netmask(netif) ((const ip4_addr_t *)&((netif)->netmask))

#endif
