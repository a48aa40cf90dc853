/* Ethernet framing: dispatch received frames by EtherType, prepend the header to sent
 * ones. */
#include "netif/ethernet.h"
#include "lwip/def.h"
#include "lwip/etharp.h"
#include "lwip/ip4.h"

const struct eth_addr ethbroadcast = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
const struct eth_addr ethzero = {{0, 0, 0, 0, 0, 0}};

err_t ethernet_input(struct pbuf *p, struct netif *netif)
{
    if (p->len <= SIZEOF_ETH_HDR) {
        pbuf_free(p);
        return ERR_OK;
    }
    struct eth_hdr *ethhdr = (struct eth_hdr *)p->payload;
    u16_t type = ethhdr->type;
    switch (type) {
    case PP_HTONS(ETHTYPE_IP):
        if (!(netif->flags & NETIF_FLAG_ETHARP) || pbuf_remove_header(p, SIZEOF_ETH_HDR)) {
            pbuf_free(p);
            return ERR_OK;
        }
        ip4_input(p, netif);
        break;
    case PP_HTONS(ETHTYPE_ARP):
        if (!(netif->flags & NETIF_FLAG_ETHARP) || pbuf_remove_header(p, SIZEOF_ETH_HDR)) {
            pbuf_free(p);
            return ERR_OK;
        }
        etharp_input(p, netif);
        break;
    default:
        pbuf_free(p);
        break;
    }
    return ERR_OK;
}

err_t ethernet_output(struct netif *netif, struct pbuf *p, const struct eth_addr *src, const struct eth_addr *dst,
                      u16_t eth_type)
{
    if (pbuf_add_header(p, SIZEOF_ETH_HDR))
        return ERR_BUF;
    struct eth_hdr *ethhdr = (struct eth_hdr *)p->payload;
    ethhdr->type = lwip_htons(eth_type);
    memcpy(&ethhdr->dest, dst, ETH_HWADDR_LEN);
    memcpy(&ethhdr->src, src, ETH_HWADDR_LEN);
    return netif->linkoutput(netif, p);
}
