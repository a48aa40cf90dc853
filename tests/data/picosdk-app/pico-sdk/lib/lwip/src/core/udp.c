/* UDP: demultiplexing received datagrams to PCBs, and sending. */
#include "lwip/udp.h"
#include "lwip/def.h"
#include "lwip/memp.h"
#include "lwip/inet_chksum.h"
#include "lwip/icmp.h"

#define UDP_LOCAL_PORT_RANGE_START 0xc000
#define UDP_LOCAL_PORT_RANGE_END 0xffff

static u16_t udp_port = UDP_LOCAL_PORT_RANGE_START;
struct udp_pcb *udp_pcbs;

void udp_init(void)
{
    udp_pcbs = NULL;
    udp_port = UDP_LOCAL_PORT_RANGE_START;
}

static u16_t udp_new_port(void)
{
    u16_t n = 0;
again:
    if (udp_port++ == UDP_LOCAL_PORT_RANGE_END)
        udp_port = UDP_LOCAL_PORT_RANGE_START;
    for (struct udp_pcb *pcb = udp_pcbs; pcb != NULL; pcb = pcb->next) {
        if (pcb->local_port == udp_port) {
            if (++n > (UDP_LOCAL_PORT_RANGE_END - UDP_LOCAL_PORT_RANGE_START))
                return 0;
            goto again;
        }
    }
    return udp_port;
}

/* does pcb accept a datagram to the current destination address on inp? */
static u8_t udp_input_local_match(struct udp_pcb *pcb, struct netif *inp, u8_t broadcast)
{
    if (broadcast != 0)
        return ip4_addr_isany_val(pcb->local_ip) || ip4_addr_netcmp(&pcb->local_ip, ip4_current_dest_addr(), &inp->netmask);
    return ip4_addr_isany_val(pcb->local_ip) || ip4_addr_cmp(&pcb->local_ip, ip4_current_dest_addr());
}

void udp_input(struct pbuf *p, struct netif *inp)
{
    if (p->len < UDP_HLEN) {
        pbuf_free(p);
        return;
    }
    struct udp_hdr *udphdr = (struct udp_hdr *)p->payload;
    u8_t broadcast = ip4_addr_isbroadcast(ip4_current_dest_addr(), ip_current_netif());
    u16_t src = lwip_ntohs(udphdr->src);
    u16_t dest = lwip_ntohs(udphdr->dest);

    struct udp_pcb *pcb = NULL, *prev = NULL, *uncon_pcb = NULL;
    for (struct udp_pcb *cur = udp_pcbs; cur != NULL; cur = cur->next) {
        if (cur->local_port == dest && udp_input_local_match(cur, inp, broadcast)) {
            if (!(cur->flags & UDP_FLAGS_CONNECTED) && uncon_pcb == NULL)
                uncon_pcb = cur;
            if (cur->remote_port == src &&
                (ip4_addr_isany_val(cur->remote_ip) || ip4_addr_cmp(&cur->remote_ip, ip4_current_src_addr()))) {
                /* move the match to the front: the next datagram finds it first */
                if (prev != NULL) {
                    prev->next = cur->next;
                    cur->next = udp_pcbs;
                    udp_pcbs = cur;
                }
                pcb = cur;
                break;
            }
        }
        prev = cur;
    }
    if (pcb == NULL)
        pcb = uncon_pcb;

    if (pcb == NULL && !ip4_addr_cmp(netif_ip4_addr(inp), ip4_current_dest_addr())) {
        pbuf_free(p);
        return;
    }

#if CHECKSUM_CHECK_UDP
    if (udphdr->chksum != 0 &&
        inet_chksum_pseudo(p, IP_PROTO_UDP, p->tot_len, ip4_current_src_addr(), ip4_current_dest_addr()) != 0) {
        pbuf_free(p);
        return;
    }
#endif
    if (pbuf_remove_header(p, UDP_HLEN)) {
        pbuf_free(p);
        return;
    }
    if (pcb != NULL) {
        if (pcb->recv != NULL)
            pcb->recv(pcb->recv_arg, pcb, p, ip4_current_src_addr(), src);
        else
            pbuf_free(p);
    } else {
        if (!broadcast && !ip4_addr_ismulticast(ip4_current_dest_addr())) {
            pbuf_add_header(p, (size_t)(ip4_current_header()->_v_hl & 0x0f) * 4u + UDP_HLEN);
            icmp_dest_unreach(p, ICMP_DUR_PORT);
        }
        pbuf_free(p);
    }
}

err_t udp_send(struct udp_pcb *pcb, struct pbuf *p)
{
    return udp_sendto(pcb, p, &pcb->remote_ip, pcb->remote_port);
}

err_t udp_sendto(struct udp_pcb *pcb, struct pbuf *p, const ip4_addr_t *dst_ip, u16_t dst_port)
{
    struct netif *netif = ip4_route(dst_ip);
    if (netif == NULL)
        return ERR_RTE;
    return udp_sendto_if(pcb, p, dst_ip, dst_port, netif);
}

err_t udp_sendto_if(struct udp_pcb *pcb, struct pbuf *p, const ip4_addr_t *dst_ip, u16_t dst_port, struct netif *netif)
{
    if (pcb->local_port == 0) {
        err_t err = udp_bind(pcb, &pcb->local_ip, pcb->local_port);
        if (err != ERR_OK)
            return err;
    }
    struct pbuf *q;
    if (pbuf_add_header(p, UDP_HLEN)) {
        q = pbuf_alloc(PBUF_IP, UDP_HLEN, PBUF_RAM);
        if (q == NULL)
            return ERR_MEM;
        if (p->tot_len != 0)
            pbuf_chain(q, p);
    } else {
        q = p;
    }
    struct udp_hdr *udphdr = (struct udp_hdr *)q->payload;
    udphdr->src = lwip_htons(pcb->local_port);
    udphdr->dest = lwip_htons(dst_port);
    udphdr->chksum = 0x0000;
    udphdr->len = lwip_htons(q->tot_len);
    const ip4_addr_t *src_ip = ip4_addr_isany_val(pcb->local_ip) ? netif_ip4_addr(netif) : &pcb->local_ip;
    u16_t udpchksum = inet_chksum_pseudo(q, IP_PROTO_UDP, q->tot_len, src_ip, dst_ip);
    if (udpchksum == 0x0000)
        udpchksum = 0xffff;
    udphdr->chksum = udpchksum;
    err_t err = ip4_output_if_src(q, src_ip, dst_ip, pcb->ttl, 0, IP_PROTO_UDP, netif);
    if (q != p) {
        pbuf_free(q);
        pbuf_remove_header(p, 0);
    } else {
        pbuf_remove_header(p, UDP_HLEN);
    }
    return err;
}

err_t udp_bind(struct udp_pcb *pcb, const ip4_addr_t *ipaddr, u16_t port)
{
    u8_t rebind = 0;
    for (struct udp_pcb *ipcb = udp_pcbs; ipcb != NULL; ipcb = ipcb->next) {
        if (pcb == ipcb) {
            rebind = 1;
            break;
        }
    }
    if (port == 0) {
        port = udp_new_port();
        if (port == 0)
            return ERR_USE;
    } else {
        for (struct udp_pcb *ipcb = udp_pcbs; ipcb != NULL; ipcb = ipcb->next) {
            if (pcb != ipcb && ipcb->local_port == port &&
                (ip4_addr_isany(ipaddr) || ip4_addr_isany_val(ipcb->local_ip) || ip4_addr_cmp(&ipcb->local_ip, ipaddr)))
                return ERR_USE;
        }
    }
    pcb->local_ip.addr = ipaddr ? ipaddr->addr : IPADDR_ANY;
    pcb->local_port = port;
    if (rebind == 0) {
        pcb->next = udp_pcbs;
        udp_pcbs = pcb;
    }
    return ERR_OK;
}

err_t udp_connect(struct udp_pcb *pcb, const ip4_addr_t *ipaddr, u16_t port)
{
    if (pcb->local_port == 0) {
        err_t err = udp_bind(pcb, &pcb->local_ip, pcb->local_port);
        if (err != ERR_OK)
            return err;
    }
    pcb->remote_ip = *ipaddr;
    pcb->remote_port = port;
    pcb->flags |= UDP_FLAGS_CONNECTED;
    return ERR_OK;
}

void udp_disconnect(struct udp_pcb *pcb)
{
    ip4_addr_set_zero(&pcb->remote_ip);
    pcb->remote_port = 0;
    pcb->flags &= (u8_t)~UDP_FLAGS_CONNECTED;
}

void udp_recv(struct udp_pcb *pcb, udp_recv_fn recv, void *recv_arg)
{
    pcb->recv = recv;
    pcb->recv_arg = recv_arg;
}

void udp_remove(struct udp_pcb *pcb)
{
    if (udp_pcbs == pcb) {
        udp_pcbs = udp_pcbs->next;
    } else {
        for (struct udp_pcb *pcb2 = udp_pcbs; pcb2 != NULL; pcb2 = pcb2->next) {
            if (pcb2->next == pcb) {
                pcb2->next = pcb->next;
                break;
            }
        }
    }
    memp_free(MEMP_UDP_PCB, pcb);
}

struct udp_pcb *udp_new(void)
{
    struct udp_pcb *pcb = (struct udp_pcb *)memp_malloc(MEMP_UDP_PCB);
    if (pcb != NULL) {
        memset(pcb, 0, sizeof(struct udp_pcb));
        pcb->ttl = IP_DEFAULT_TTL;
    }
    return pcb;
}
