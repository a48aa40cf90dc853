/* IPv4: header, input, routing, output. */
#ifndef LWIP_HDR_IP4_H
#define LWIP_HDR_IP4_H

#include "lwip/opt.h"
#include "lwip/pbuf.h"
#include "lwip/ip4_addr.h"
#include "lwip/netif.h"

#define IP_PROTO_ICMP 1
#define IP_PROTO_UDP 17
#define IP_HLEN 20

struct ip_hdr {
    u8_t _v_hl;
    u8_t _tos;
    u16_t _len;
    u16_t _id;
    u16_t _offset;
    u8_t _ttl;
    u8_t _proto;
    u16_t _chksum;
    ip4_addr_t src;
    ip4_addr_t dest;
} PACK_STRUCT_STRUCT;

#define IPH_V(hdr) ((hdr)->_v_hl >> 4)
#define IPH_HL(hdr) ((hdr)->_v_hl & 0x0f)
#define IPH_HL_BYTES(hdr) ((u8_t)(IPH_HL(hdr) * 4))
#define IPH_LEN(hdr) ((hdr)->_len)
#define IPH_OFFSET(hdr) ((hdr)->_offset)
#define IPH_TTL(hdr) ((hdr)->_ttl)
#define IPH_PROTO(hdr) ((hdr)->_proto)
#define IPH_CHKSUM(hdr) ((hdr)->_chksum)

/* the current input packet's addresses (set by ip4_input) */
struct ip_globals {
    struct netif *current_netif;
    struct netif *current_input_netif;
    const struct ip_hdr *current_ip4_header;
    u16_t current_ip_header_tot_len;
    ip4_addr_t current_iphdr_src;
    ip4_addr_t current_iphdr_dest;
};
extern struct ip_globals ip_data;
#define ip_current_netif() (ip_data.current_netif)
#define ip4_current_src_addr() (&ip_data.current_iphdr_src)
#define ip4_current_dest_addr() (&ip_data.current_iphdr_dest)
#define ip4_current_header() (ip_data.current_ip4_header)

struct netif *ip4_route(const ip4_addr_t *dest);
err_t ip4_input(struct pbuf *p, struct netif *inp);
err_t ip4_output(struct pbuf *p, const ip4_addr_t *src, const ip4_addr_t *dest, u8_t ttl, u8_t tos, u8_t proto);
err_t ip4_output_if(struct pbuf *p, const ip4_addr_t *src, const ip4_addr_t *dest, u8_t ttl, u8_t tos, u8_t proto,
                    struct netif *netif);
err_t ip4_output_if_src(struct pbuf *p, const ip4_addr_t *src, const ip4_addr_t *dest, u8_t ttl, u8_t tos,
                        u8_t proto, struct netif *netif);

#endif
