/* IPv4: header checks, delivery to ICMP/UDP, routing and output through the netif. */
#include "lwip/ip4.h"
#include "lwip/def.h"
#include "lwip/inet_chksum.h"
#include "lwip/icmp.h"
#include "lwip/udp.h"

struct ip_globals ip_data;
static u16_t ip_id;

struct netif *ip4_route(const ip4_addr_t *dest)
{
    for (struct netif *netif = netif_list; netif != NULL; netif = netif->next) {
        if (netif_is_up(netif) && netif_is_link_up(netif) && !ip4_addr_isany_val(netif->ip_addr)) {
            if (ip4_addr_netcmp(dest, netif_ip4_addr(netif), netif_ip4_netmask(netif)))
                return netif;
        }
    }
    if (netif_default == NULL || !netif_is_up(netif_default) || !netif_is_link_up(netif_default))
        return NULL;
    return netif_default;
}

/* is the packet for this interface (its address or a broadcast)? */
static int ip4_input_accept(struct netif *netif)
{
    if (netif_is_up(netif) && !ip4_addr_isany_val(netif->ip_addr)) {
        if (ip4_addr_cmp(ip4_current_dest_addr(), netif_ip4_addr(netif)) ||
            ip4_addr_isbroadcast(ip4_current_dest_addr(), netif))
            return 1;
    }
    return 0;
}

err_t ip4_input(struct pbuf *p, struct netif *inp)
{
    const struct ip_hdr *iphdr = (const struct ip_hdr *)p->payload;
    if (IPH_V(iphdr) != 4) {
        pbuf_free(p);
        return ERR_OK;
    }
    u16_t iphdr_hlen = IPH_HL_BYTES(iphdr);
    u16_t iphdr_len = lwip_ntohs(IPH_LEN(iphdr));
    if (iphdr_len < p->tot_len)
        pbuf_realloc(p, iphdr_len);
    if (iphdr_hlen > p->len || iphdr_len > p->tot_len || iphdr_hlen < IP_HLEN) {
        pbuf_free(p);
        return ERR_OK;
    }
#if CHECKSUM_CHECK_IP
    if (inet_chksum(iphdr, iphdr_hlen) != 0) {
        pbuf_free(p);
        return ERR_OK;
    }
#endif
    ip4_addr_copy(ip_data.current_iphdr_dest, iphdr->dest);
    ip4_addr_copy(ip_data.current_iphdr_src, iphdr->src);

    struct netif *netif = NULL;
    if (ip4_input_accept(inp)) {
        netif = inp;
    } else {
        for (netif = netif_list; netif != NULL; netif = netif->next) {
            if (netif != inp && ip4_input_accept(netif))
                break;
        }
    }
    if (netif == NULL || (IPH_OFFSET(iphdr) & PP_HTONS(0x3fffU)) != 0) {
        /* not for us, or a fragment (no reassembly here) */
        pbuf_free(p);
        return ERR_OK;
    }

    ip_data.current_netif = netif;
    ip_data.current_input_netif = inp;
    ip_data.current_ip4_header = iphdr;
    ip_data.current_ip_header_tot_len = IPH_HL_BYTES(iphdr);

    if (pbuf_remove_header(p, iphdr_hlen) == 0) {
        switch (IPH_PROTO(iphdr)) {
#if LWIP_UDP
        case IP_PROTO_UDP:
            udp_input(p, inp);
            break;
#endif
#if LWIP_ICMP
        case IP_PROTO_ICMP:
            icmp_input(p, inp);
            break;
#endif
        default:
            if (!ip4_addr_isbroadcast(ip4_current_dest_addr(), netif) && !ip4_addr_ismulticast(ip4_current_dest_addr())) {
                pbuf_add_header(p, iphdr_hlen);
                icmp_dest_unreach(p, ICMP_DUR_PROTO);
            }
            pbuf_free(p);
        }
    }

    ip_data.current_netif = NULL;
    ip_data.current_input_netif = NULL;
    ip_data.current_ip4_header = NULL;
    ip_data.current_ip_header_tot_len = 0;
    ip4_addr_set_zero(ip4_current_src_addr());
    ip4_addr_set_zero(ip4_current_dest_addr());
    return ERR_OK;
}

err_t ip4_output_if_src(struct pbuf *p, const ip4_addr_t *src, const ip4_addr_t *dest, u8_t ttl, u8_t tos,
                        u8_t proto, struct netif *netif)
{
    if (dest != NULL) {
        if (pbuf_add_header(p, IP_HLEN))
            return ERR_BUF;
        struct ip_hdr *iphdr = (struct ip_hdr *)p->payload;
        iphdr->_ttl = ttl;
        iphdr->_proto = proto;
        iphdr->dest = *dest;
        iphdr->_v_hl = (u8_t)((4 << 4) | (IP_HLEN / 4));
        iphdr->_tos = tos;
        iphdr->_len = lwip_htons(p->tot_len);
        iphdr->_offset = 0;
        iphdr->_id = lwip_htons(ip_id);
        ++ip_id;
        if (src == NULL)
            iphdr->src.addr = IPADDR_ANY;
        else
            iphdr->src = *src;
        iphdr->_chksum = 0;
        iphdr->_chksum = inet_chksum(iphdr, IP_HLEN);
        dest = &iphdr->dest;
    } else {
        const struct ip_hdr *iphdr = (const struct ip_hdr *)p->payload;
        dest = &iphdr->dest;
    }
    if (netif->mtu && p->tot_len > netif->mtu)
        return ERR_BUF; /* no fragmentation here */
    return netif->output(netif, p, dest);
}

err_t ip4_output_if(struct pbuf *p, const ip4_addr_t *src, const ip4_addr_t *dest, u8_t ttl, u8_t tos, u8_t proto,
                    struct netif *netif)
{
    const ip4_addr_t *src_used = src;
    if (dest != NULL && ip4_addr_isany(src))
        src_used = netif_ip4_addr(netif);
    return ip4_output_if_src(p, src_used, dest, ttl, tos, proto, netif);
}

err_t ip4_output(struct pbuf *p, const ip4_addr_t *src, const ip4_addr_t *dest, u8_t ttl, u8_t tos, u8_t proto)
{
    struct netif *netif = ip4_route(dest);
    if (netif == NULL)
        return ERR_RTE;
    return ip4_output_if(p, src, dest, ttl, tos, proto, netif);
}
