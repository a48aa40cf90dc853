/* The list of network interfaces and their state changes. */
#include "lwip/netif.h"
#include "lwip/ip4.h"
#include "lwip/etharp.h"

struct netif *netif_list;
struct netif *netif_default;
static u8_t netif_num;

void netif_init(void)
{
    netif_list = NULL;
    netif_default = NULL;
    netif_num = 0;
}

err_t netif_input(struct pbuf *p, struct netif *inp)
{
    if (inp->flags & (NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET))
        return ethernet_input(p, inp);
    return ip4_input(p, inp);
}

static void netif_issue_reports(struct netif *netif)
{
    if ((netif->flags & NETIF_FLAG_ETHARP) && !ip4_addr_isany_val(netif->ip_addr))
        etharp_request(netif, &netif->ip_addr);
}

void netif_set_addr(struct netif *netif, const ip4_addr_t *ipaddr, const ip4_addr_t *netmask, const ip4_addr_t *gw)
{
    if (ipaddr)
        netif->ip_addr = *ipaddr;
    if (netmask)
        netif->netmask = *netmask;
    if (gw)
        netif->gw = *gw;
    if (netif_is_up(netif) && netif_is_link_up(netif))
        netif_issue_reports(netif);
}

struct netif *netif_add(struct netif *netif, const ip4_addr_t *ipaddr, const ip4_addr_t *netmask,
                        const ip4_addr_t *gw, void *state, netif_init_fn init, netif_input_fn input)
{
    if (netif == NULL || init == NULL)
        return NULL;
    ip4_addr_set_zero(&netif->ip_addr);
    ip4_addr_set_zero(&netif->netmask);
    ip4_addr_set_zero(&netif->gw);
    netif->output = NULL;
    netif->flags = 0;
    netif->mtu = 0;
    netif->state = state;
    netif->num = netif_num;
    netif->input = input;
    netif_set_addr(netif, ipaddr, netmask, gw);
    if (init(netif) != ERR_OK)
        return NULL;
    netif_num = (u8_t)(netif_num + 1);
    netif->next = netif_list;
    netif_list = netif;
    return netif;
}

void netif_remove(struct netif *netif)
{
    if (netif == NULL)
        return;
    if (netif_is_up(netif))
        netif_set_down(netif);
    if (netif_list == netif) {
        netif_list = netif->next;
    } else {
        for (struct netif *tmp = netif_list; tmp != NULL; tmp = tmp->next) {
            if (tmp->next == netif) {
                tmp->next = netif->next;
                break;
            }
        }
    }
    if (netif_default == netif)
        netif_set_default(NULL);
}

void netif_set_default(struct netif *netif)
{
    netif_default = netif;
}

void netif_set_up(struct netif *netif)
{
    if (!(netif->flags & NETIF_FLAG_UP)) {
        netif->flags |= NETIF_FLAG_UP;
        if (netif->status_callback)
            netif->status_callback(netif);
        if (netif_is_link_up(netif))
            netif_issue_reports(netif);
    }
}

void netif_set_down(struct netif *netif)
{
    if (netif->flags & NETIF_FLAG_UP) {
        netif->flags &= (u8_t)~NETIF_FLAG_UP;
        if (netif->flags & NETIF_FLAG_ETHARP)
            etharp_cleanup_netif(netif);
        if (netif->status_callback)
            netif->status_callback(netif);
    }
}

void netif_set_link_up(struct netif *netif)
{
    if (!(netif->flags & NETIF_FLAG_LINK_UP)) {
        netif->flags |= NETIF_FLAG_LINK_UP;
        if (netif_is_up(netif))
            netif_issue_reports(netif);
    }
}

void netif_set_link_down(struct netif *netif)
{
    netif->flags &= (u8_t)~NETIF_FLAG_LINK_UP;
}
