/* UDP protocol control blocks. */
#ifndef LWIP_HDR_UDP_H
#define LWIP_HDR_UDP_H

#include "lwip/opt.h"
#include "lwip/pbuf.h"
#include "lwip/ip4.h"

#define UDP_HLEN 8

struct udp_hdr {
    u16_t src;
    u16_t dest;
    u16_t len;
    u16_t chksum;
} PACK_STRUCT_STRUCT;

struct udp_pcb;
typedef void (*udp_recv_fn)(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip4_addr_t *addr, u16_t port);

struct udp_pcb {
    struct udp_pcb *next;
    ip4_addr_t local_ip;
    ip4_addr_t remote_ip;
    u16_t local_port;
    u16_t remote_port;
    u8_t flags;
    u8_t ttl;
    udp_recv_fn recv;
    void *recv_arg;
};

#define UDP_FLAGS_CONNECTED 0x04U

void udp_init(void);
struct udp_pcb *udp_new(void);
void udp_remove(struct udp_pcb *pcb);
err_t udp_bind(struct udp_pcb *pcb, const ip4_addr_t *ipaddr, u16_t port);
err_t udp_connect(struct udp_pcb *pcb, const ip4_addr_t *ipaddr, u16_t port);
void udp_disconnect(struct udp_pcb *pcb);
void udp_recv(struct udp_pcb *pcb, udp_recv_fn recv, void *recv_arg);
err_t udp_send(struct udp_pcb *pcb, struct pbuf *p);
err_t udp_sendto(struct udp_pcb *pcb, struct pbuf *p, const ip4_addr_t *dst_ip, u16_t dst_port);
err_t udp_sendto_if(struct udp_pcb *pcb, struct pbuf *p, const ip4_addr_t *dst_ip, u16_t dst_port, struct netif *netif);
void udp_input(struct pbuf *p, struct netif *inp);

#endif
