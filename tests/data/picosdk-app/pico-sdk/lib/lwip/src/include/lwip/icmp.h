#ifndef LWIP_HDR_ICMP_H
#define LWIP_HDR_ICMP_H

#include "lwip/opt.h"
#include "lwip/pbuf.h"
#include "lwip/netif.h"

#define ICMP_ER 0
#define ICMP_DUR 3
#define ICMP_ECHO 8
#define ICMP_TE 11

enum icmp_dur_type { ICMP_DUR_NET = 0, ICMP_DUR_HOST = 1, ICMP_DUR_PROTO = 2, ICMP_DUR_PORT = 3 };

struct icmp_echo_hdr {
    u8_t type;
    u8_t code;
    u16_t chksum;
    u16_t id;
    u16_t seqno;
} PACK_STRUCT_STRUCT;

void icmp_input(struct pbuf *p, struct netif *inp);
void icmp_dest_unreach(struct pbuf *p, enum icmp_dur_type t);

#endif
