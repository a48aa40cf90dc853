/* ICMP: echo replies in place, and destination-unreachable messages. */
#include "lwip/icmp.h"
#include "lwip/def.h"
#include "lwip/inet_chksum.h"
#include "lwip/ip4.h"

#define ICMP_DEST_UNREACH_DATASIZE 8

static void icmp_send_response(struct pbuf *p, u8_t type, u8_t code);

void icmp_input(struct pbuf *p, struct netif *inp)
{
    (void)inp;
    const struct ip_hdr *iphdr_in = ip4_current_header();
    u16_t hlen = IPH_HL_BYTES(iphdr_in);
    if (hlen < IP_HLEN || p->len < sizeof(u16_t) * 2)
        goto lenerr;

    u8_t type = *((u8_t *)p->payload);
    if (type == ICMP_ECHO) {
        if (ip4_addr_ismulticast(ip4_current_dest_addr()) || ip4_addr_isbroadcast(ip4_current_dest_addr(), ip_current_netif()))
            goto icmperr;
        if (p->tot_len < sizeof(struct icmp_echo_hdr))
            goto lenerr;
        if (inet_chksum_pbuf(p) != 0) {
            pbuf_free(p);
            return;
        }
        /* turn the request into the reply: swap the addresses, patch the checksum */
        if (pbuf_add_header(p, hlen)) {
            pbuf_free(p);
            return;
        }
        struct ip_hdr *iphdr = (struct ip_hdr *)p->payload;
        pbuf_remove_header(p, hlen);
        struct icmp_echo_hdr *iecho = (struct icmp_echo_hdr *)p->payload;
        ip4_addr_t src = *ip4_current_dest_addr();
        iecho->type = ICMP_ER;
        if (iecho->chksum > PP_HTONS(0xffffU - (ICMP_ECHO << 8)))
            iecho->chksum = (u16_t)(iecho->chksum + PP_HTONS((u16_t)(ICMP_ECHO << 8)) + 1);
        else
            iecho->chksum = (u16_t)(iecho->chksum + PP_HTONS(ICMP_ECHO << 8));
        iphdr->_ttl = IP_DEFAULT_TTL;
        iphdr->_chksum = 0;
        pbuf_add_header(p, hlen);
        ip4_output_if(p, &src, ip4_current_src_addr(), IP_DEFAULT_TTL, 0, IP_PROTO_ICMP, inp);
    }
icmperr:
    pbuf_free(p);
    return;
lenerr:
    pbuf_free(p);
}

void icmp_dest_unreach(struct pbuf *p, enum icmp_dur_type t)
{
    icmp_send_response(p, ICMP_DUR, (u8_t)t);
}

static void icmp_send_response(struct pbuf *p, u8_t type, u8_t code)
{
    struct pbuf *q = pbuf_alloc(PBUF_IP, sizeof(struct icmp_echo_hdr) + IP_HLEN + ICMP_DEST_UNREACH_DATASIZE, PBUF_RAM);
    if (q == NULL)
        return;
    struct ip_hdr *iphdr = (struct ip_hdr *)p->payload;
    struct icmp_echo_hdr *icmphdr = (struct icmp_echo_hdr *)q->payload;
    icmphdr->type = type;
    icmphdr->code = code;
    icmphdr->id = 0;
    icmphdr->seqno = 0;
    memcpy((u8_t *)q->payload + sizeof(struct icmp_echo_hdr), p->payload,
           LWIP_MIN(p->len, IP_HLEN + ICMP_DEST_UNREACH_DATASIZE));
    ip4_addr_t iphdr_src = iphdr->src;
    struct netif *netif = ip4_route(&iphdr_src);
    if (netif != NULL) {
        icmphdr->chksum = 0;
        icmphdr->chksum = inet_chksum(icmphdr, q->len);
        ip4_output_if(q, NULL, &iphdr_src, IP_DEFAULT_TTL, 0, IP_PROTO_ICMP, netif);
    }
    pbuf_free(q);
}
