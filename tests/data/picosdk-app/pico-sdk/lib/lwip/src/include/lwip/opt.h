/* lwIP options: the application's lwipopts.h first, then these defaults. */
#ifndef LWIP_HDR_OPT_H
#define LWIP_HDR_OPT_H

#include "lwipopts.h"

#ifndef NO_SYS
#define NO_SYS 0
#endif
#ifndef MEM_ALIGNMENT
#define MEM_ALIGNMENT 4
#endif
#ifndef MEM_SIZE
#define MEM_SIZE 4000
#endif
#ifndef MEMP_NUM_PBUF
#define MEMP_NUM_PBUF 16
#endif
#ifndef MEMP_NUM_UDP_PCB
#define MEMP_NUM_UDP_PCB 4
#endif
#ifndef MEMP_NUM_SYS_TIMEOUT
#define MEMP_NUM_SYS_TIMEOUT 6
#endif
#ifndef PBUF_POOL_SIZE
#define PBUF_POOL_SIZE 16
#endif
#ifndef PBUF_POOL_BUFSIZE
#define PBUF_POOL_BUFSIZE 1536
#endif
#ifndef ARP_TABLE_SIZE
#define ARP_TABLE_SIZE 4
#endif
#ifndef ARP_MAXAGE
#define ARP_MAXAGE 300
#endif
#ifndef IP_DEFAULT_TTL
#define IP_DEFAULT_TTL 255
#endif
#ifndef LWIP_ICMP
#define LWIP_ICMP 1
#endif
#ifndef LWIP_UDP
#define LWIP_UDP 1
#endif
#ifndef LWIP_ARP
#define LWIP_ARP 1
#endif
#ifndef CHECKSUM_CHECK_IP
#define CHECKSUM_CHECK_IP 1
#endif
#ifndef CHECKSUM_CHECK_UDP
#define CHECKSUM_CHECK_UDP 1
#endif
#ifndef LWIP_STATS
#define LWIP_STATS 0
#endif

#endif
