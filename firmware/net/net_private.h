/* net_private.h: interfaces between the layers of the network stack (not for drivers or
 * applications): IPv4, ICMPv4, UDP, ARP, connection handlers, checksums. */
#ifndef NET_PRIVATE_H
#define NET_PRIVATE_H

#include "net/ethernet.h"
#include "net/net_if.h"
#include "net/net_ip.h"
#include "net/net_pkt.h"

/* Bytes of data per network buffer fragment. */
#define NET_BUF_DATA_SIZE 128
/* Time to wait for a buffer on the send path before giving up. */
#define NET_BUF_TIMEOUT K_MSEC(100)

/* ---- Checksums (checksum.c) ---- */
/* The IPv4 header checksum over the ip_hdr_len bytes at the start of pkt (host order). */
uint16_t net_calc_chksum_ipv4(struct net_pkt *pkt);
/* The checksum of an upper-layer protocol (UDP, ICMP, IGMP) over its header and data, with
 * the IPv4 pseudo header for UDP (host order). A received packet checks out when this is
 * 0. */
uint16_t net_calc_chksum(struct net_pkt *pkt, uint8_t proto);

/* ---- IPv4 (ipv4.c) ---- */
/* The IPv4 header at the start of pkt (IP layer onwards). */
static inline struct net_ipv4_hdr *net_pkt_ip_hdr(const struct net_pkt *pkt)
{
	return (struct net_ipv4_hdr *)pkt->buffer->data;
}
enum net_verdict net_ipv4_input(struct net_pkt *pkt);
/* Writes an IPv4 header at the cursor (opts: options, a multiple of 4 bytes, or NULL);
 * the length and checksum come in net_ipv4_finalize. */
int net_ipv4_create_full(struct net_pkt *pkt, const struct in_addr *src,
			 const struct in_addr *dst, const uint8_t *opts, uint8_t opts_len);
int net_ipv4_create(struct net_pkt *pkt, const struct in_addr *src, const struct in_addr *dst);
/* Fills in total length, the header checksum and the upper protocol's checksum. */
int net_ipv4_finalize(struct net_pkt *pkt, uint8_t next_header_proto);

/* ---- ICMPv4 (icmpv4.c) ---- */
struct net_icmp_hdr;
/* A handler for ICMP type/code (code 0xFF: any code). */
struct net_icmpv4_handler {
	sys_snode_t node;
	enum net_verdict (*handler)(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr,
				    struct net_icmp_hdr *icmp_hdr);
	uint8_t type, code;
};
void net_icmpv4_register_handler(struct net_icmpv4_handler *h);
enum net_verdict net_icmpv4_input(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr);
/* Sends an ICMP error (destination unreachable ...) about orig. */
int net_icmpv4_send_error(struct net_pkt *orig, uint8_t type, uint8_t code);
void net_icmpv4_init(void);

#define NET_ICMPV4_ECHO_REPLY 0
#define NET_ICMPV4_DST_UNREACH 3
#define NET_ICMPV4_ECHO_REQUEST 8
#define NET_ICMPV4_DST_UNREACH_NO_PORT 3

/* ---- IGMPv2 (igmp.c, RFC 2236) ---- */
enum net_verdict net_ipv4_igmp_input(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr);
/* Joins / leaves a group on iface (reports go out while the link is up). */
int net_ipv4_igmp_join(struct net_if *iface, const struct in_addr *group);
int net_ipv4_igmp_leave(struct net_if *iface, const struct in_addr *group);
/* The link came up: join all-systems, announce the groups again. */
void net_ipv4_igmp_iface_up(struct net_if *iface);
void net_ipv4_igmp_init(void);

/* ---- UDP (udp.c) ---- */
enum net_verdict net_udp_input(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr);
/* Writes a UDP header at the cursor (length and checksum come in finalize). */
int net_udp_create(struct net_pkt *pkt, uint16_t src_port, uint16_t dst_port);
int net_udp_finalize(struct net_pkt *pkt);

/* ---- Connection handlers (connection.c): who receives a transport packet ---- */
struct net_conn;
typedef enum net_verdict (*net_conn_cb_t)(struct net_conn *conn, struct net_pkt *pkt,
					  struct net_ipv4_hdr *ip_hdr,
					  struct net_udp_hdr *proto_hdr, void *user_data);
#define NET_CONN_REMOTE_ADDR_SET 0x01u
#define NET_CONN_LOCAL_ADDR_SET 0x02u
#define NET_CONN_REMOTE_PORT_SET 0x04u
#define NET_CONN_LOCAL_PORT_SET 0x08u
#define NET_CONN_IN_USE 0x80u
struct net_conn {
	struct sockaddr_in remote, local; /* ports and addresses in network order */
	net_conn_cb_t cb;
	void *user_data;
	uint8_t proto;
	uint8_t flags;
	uint32_t delivered;
};
/* 0 and *handle, or -ENOENT (no room) / -EALREADY (the same binding exists). */
int net_conn_register(uint8_t proto, const struct sockaddr_in *remote,
		      const struct sockaddr_in *local, net_conn_cb_t cb, void *user_data,
		      struct net_conn **handle);
int net_conn_unregister(struct net_conn *handle);
/* Hands pkt to the best-matching handler; NET_DROP when none wants it. */
enum net_verdict net_conn_input(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr, uint8_t proto,
				struct net_udp_hdr *proto_hdr);

/* ---- Routing (route.c) ---- */
struct net_route {
	struct in_addr prefix, mask;
	struct in_addr gw; /* 0.0.0.0: on link */
	struct net_if *iface;
	uint32_t uses;
	uint8_t prefix_len;
	uint8_t metric;
	bool used;
};
/* Adds (or updates) a route to prefix/mask through iface, via gw (NULL: on link). */
int net_route_add(struct net_if *iface, const struct in_addr *prefix, const struct in_addr *mask,
		  const struct in_addr *gw, uint8_t metric);
int net_route_del_iface(struct net_if *iface);
/* The most specific route to dst, NULL: unreachable. */
struct net_route *net_route_lookup(const struct in_addr *dst);
/* Where a packet to dst goes next on route r: the gateway, or dst itself. */
const struct in_addr *net_route_next_hop(const struct net_route *r, const struct in_addr *dst);

/* ---- ARP (arp.c) ---- */
void net_arp_init(void);
enum net_verdict net_arp_input(struct net_pkt *pkt, struct net_eth_hdr *eth_hdr);
/* Before an IPv4 packet is sent: finds the link address of the next hop. Returns 0 with
 * *out = pkt (its lladdr_dst is set: send it), *out = an ARP request to send instead (pkt
 * waits in the cache entry for the reply) or *out = NULL (pkt waits, a request is already
 * out). A negative errno when pkt cannot be sent (no route, no room): it stays the
 * caller's. */
int net_arp_prepare(struct net_pkt *pkt, struct net_pkt **out);
/* Announces iface's address (gratuitous ARP), e.g. when the link comes up. */
void net_arp_announce(struct net_if *iface);
void net_arp_clear_cache(struct net_if *iface);

/* ---- Ethernet L2 (ethernet.c) ---- */
void net_eth_l2_init(void);

/* ---- Sockets / contexts (net_context.c) ---- */
void net_context_init(void);
struct net_context;
void net_context_sent(struct net_context *ctx, int status);

/* ---- Loopback interface (loopback.c) ---- */
void net_loopback_init(void);

/* ---- Core (net_core.c) ---- */
/* Processes one packet through L2 and L3 (RX thread). */
void net_process_rx_packet(struct net_pkt *pkt);

#endif
