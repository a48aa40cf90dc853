/* Glue between TinyUSB's CDC-ECM class and lwIP: frames from the host become pbufs for
 * ethernet_input, lwIP's output goes back through tud_network_xmit; a UDP echo on port 7. */
#include <string.h>

#include "tusb.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/udp.h"
#include "lwip/etharp.h"
#include "netif/ethernet.h"

#include "net_glue.h"

uint8_t tud_network_mac_address[6] = {0x02, 0x02, 0x84, 0x6a, 0x96, 0x00};

static struct netif netif_usb;
static struct pbuf *received_frame;

static err_t linkoutput(struct netif *netif, struct pbuf *p)
{
    (void)netif;
    if (!tud_mounted() || !tud_network_can_xmit(p->tot_len))
        return ERR_USE;
    tud_network_xmit(p, 0);
    return ERR_OK;
}

static err_t netif_usb_init(struct netif *netif)
{
    netif->mtu = CFG_TUD_NET_MTU;
    netif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_LINK_UP | NETIF_FLAG_UP;
    netif->linkoutput = linkoutput;
    netif->output = etharp_output;
    netif->hwaddr_len = 6;
    memcpy(netif->hwaddr, tud_network_mac_address, 6);
    netif->hwaddr[5] ^= 0x01;
    return ERR_OK;
}

static void echo_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip4_addr_t *addr, u16_t port)
{
    (void)arg;
    udp_sendto(pcb, p, addr, port);
    pbuf_free(p);
}

void net_glue_init(void)
{
    ip4_addr_t ip, mask, gw;
    IP4_ADDR(&ip, 192, 168, 7, 1);
    IP4_ADDR(&mask, 255, 255, 255, 0);
    IP4_ADDR(&gw, 0, 0, 0, 0);
    netif_add(&netif_usb, &ip, &mask, &gw, NULL, netif_usb_init, ethernet_input);
    netif_set_default(&netif_usb);
    struct udp_pcb *pcb = udp_new();
    udp_bind(pcb, &ip, 7);
    udp_recv(pcb, echo_recv, NULL);
}

void tud_network_init_cb(void)
{
    if (received_frame) {
        pbuf_free(received_frame);
        received_frame = NULL;
    }
}

bool tud_network_recv_cb(const uint8_t *src, uint16_t size)
{
    if (received_frame)
        return false;
    struct pbuf *p = pbuf_alloc(PBUF_RAW, size, PBUF_POOL);
    if (!p)
        return false;
    pbuf_take(p, src, size);
    received_frame = p;
    return true;
}

uint16_t tud_network_xmit_cb(uint8_t *dst, void *ref, uint16_t arg)
{
    (void)arg;
    struct pbuf *p = ref;
    return pbuf_copy_partial(p, dst, p->tot_len, 0);
}

void net_glue_poll(void)
{
    if (!received_frame)
        return;
    if (ethernet_input(received_frame, &netif_usb) != ERR_OK)
        pbuf_free(received_frame);
    received_frame = NULL;
    tud_network_recv_renew();
}
