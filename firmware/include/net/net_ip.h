/* net_ip.h: IPv4 addresses, socket addresses, protocol numbers and header layouts. */
#ifndef NET_NET_IP_H
#define NET_NET_IP_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/util.h"

#define AF_UNSPEC 0
#define AF_INET 2

#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define SOCK_RAW 3

enum net_ip_protocol {
	IPPROTO_IP = 0,
	IPPROTO_ICMP = 1,
	IPPROTO_IGMP = 2,
	IPPROTO_TCP = 6,
	IPPROTO_UDP = 17,
};

/* Addresses are kept in network byte order. */
struct in_addr {
	union {
		uint8_t s4_addr[4];
		uint32_t s_addr;
	};
};

typedef uint16_t sa_family_t;
typedef uint32_t socklen_t;

struct sockaddr {
	sa_family_t sa_family;
	uint8_t data[14];
};

struct sockaddr_in {
	sa_family_t sin_family;
	uint16_t sin_port; /* network byte order */
	struct in_addr sin_addr;
	uint8_t sin_zero[8];
};

/* A piece of a message (sendmsg / recvmsg gather and scatter). */
struct iovec {
	void *iov_base;
	size_t iov_len;
};

#define INADDR_ANY 0u
#define NET_IPV4_ADDR(a, b, c, d) \
	((struct in_addr){.s4_addr = {(a), (b), (c), (d)}})

static inline bool net_ipv4_addr_cmp(const struct in_addr *a, const struct in_addr *b)
{
	return a->s_addr == b->s_addr;
}

static inline bool net_ipv4_is_addr_unspecified(const struct in_addr *a)
{
	return a->s_addr == 0;
}

static inline bool net_ipv4_is_addr_mcast(const struct in_addr *a)
{
	return (a->s4_addr[0] & 0xF0) == 0xE0;
}

static inline bool net_ipv4_is_addr_bcast_all(const struct in_addr *a)
{
	return a->s_addr == 0xFFFFFFFFu;
}

static inline bool net_ipv4_is_addr_loopback(const struct in_addr *a)
{
	return a->s4_addr[0] == 127;
}

/* Same subnet: (a ^ b) & mask == 0. */
static inline bool net_ipv4_addr_mask_cmp(const struct in_addr *a, const struct in_addr *b,
					  const struct in_addr *mask)
{
	return ((a->s_addr ^ b->s_addr) & mask->s_addr) == 0;
}

static inline struct sockaddr_in *net_sin(struct sockaddr *sa)
{
	return (struct sockaddr_in *)sa;
}

/* "a.b.c.d" into buf (16 bytes); returns buf. */
char *net_addr_ntop(const struct in_addr *a, char *buf);

/* ---- Wire headers ---- */
struct net_ipv4_hdr {
	uint8_t vhl;
	uint8_t tos;
	uint8_t len[2];
	uint8_t id[2];
	uint8_t offset[2];
	uint8_t ttl;
	uint8_t proto;
	uint16_t chksum;
	uint8_t src[4];
	uint8_t dst[4];
} __packed;

#define NET_IPV4_HDR_LEN 20
#define NET_IPV4_MF 0x2000u
#define NET_IPV4_DF 0x4000u
#define NET_IPV4_FRAGH_OFFSET_MASK 0x1FFFu

struct net_icmp_hdr {
	uint8_t type;
	uint8_t code;
	uint16_t chksum;
} __packed;

struct net_udp_hdr {
	uint16_t src_port;
	uint16_t dst_port;
	uint16_t len;
	uint16_t chksum;
} __packed;

struct net_igmp_hdr {
	uint8_t type;
	uint8_t max_rsp; /* queries: the longest report delay, in tenths of a second */
	uint16_t chksum;
	uint8_t group[4];
} __packed;

#define NET_ICMPH_LEN 4
#define NET_UDPH_LEN 8
#define NET_IGMPH_LEN 8
#define NET_IPV4_OPT_ROUTER_ALERT 0x94 /* RFC 2113: copied, class 0, option 20 */

/* The Ethernet group address of an IPv4 multicast group (RFC 1112 6.4). */
static inline void net_ipv4_mcast_to_mac(const struct in_addr *group, uint8_t mac[6])
{
	mac[0] = 0x01;
	mac[1] = 0x00;
	mac[2] = 0x5E;
	mac[3] = group->s4_addr[1] & 0x7F;
	mac[4] = group->s4_addr[2];
	mac[5] = group->s4_addr[3];
}

#endif
