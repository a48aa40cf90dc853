/* lwIP options of the application: no OS, IPv4 with ICMP and UDP. */
#ifndef _LWIPOPTS_H
#define _LWIPOPTS_H

#define NO_SYS 1
#define MEM_SIZE 4000
#define PBUF_POOL_SIZE 8

#endif
