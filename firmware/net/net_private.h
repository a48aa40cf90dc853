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

/* The datagram builder (Linux's ip_append_data): a whole IPv4 datagram from a description.
 * The payload comes through getfrag, which copies len bytes from offset of its source to
 * `to` and returns their checksum accumulator (csum_partial): the payload is read once,
 * and the transport checksum is the sum of those pieces, the transport header's and the
 * pseudo header's. The transport header is given with its checksum field 0. */
typedef int (*net_ipv4_getfrag_t)(void *from, uint8_t *to, size_t offset, size_t len,
				  uint32_t *csum);
#define NET_IPV4_BUILD_NO_CSUM 0xFF /* l4_csum_offset: the protocol has no checksum */
struct net_ipv4_datagram {
	struct net_if *iface;
	const struct in_addr *src, *dst;
	uint8_t proto;
	uint8_t priority;
	uint8_t ttl; /* 0: the interface's */
	bool pseudo_hdr; /* the checksum covers the IPv4 pseudo header (UDP) */
	const void *l4_hdr;
	uint8_t l4_hdr_len;
	uint8_t l4_csum_offset; /* of the checksum field in the transport header */
	size_t payload_len;
	net_ipv4_getfrag_t getfrag;
	void *from;
	struct net_context *context;
};
/* The finished packet (cursor at its start), or NULL with *err a negative errno. */
struct net_pkt *net_ipv4_build(const struct net_ipv4_datagram *d, k_timeout_t timeout,
			       int *err);
/* getfrag for a payload read from another packet at its cursor (an echo's data). */
int net_ipv4_getfrag_pkt(void *from, uint8_t *to, size_t offset, size_t len, uint32_t *csum);

/* ---- ICMPv4 (icmpv4.c) ---- */
struct net_icmp_hdr;
struct net_icmp_ctx;
/* What a handler of an ICMP message gets (Zephyr's net_icmp API): the message (its cursor
 * after the ICMP header; it stays ICMP's), its headers, the handler's data. 0, or a
 * negative errno (counted as a drop). */
typedef int (*net_icmp_handler_t)(struct net_icmp_ctx *ctx, struct net_pkt *pkt,
				  struct net_ipv4_hdr *ip_hdr, struct net_icmp_hdr *icmp_hdr,
				  void *user_data);
/* One interest in ICMP messages of type/code (code 0xFF: any code). Every context whose
 * type and code match sees a message, in the order they were set up. */
struct net_icmp_ctx {
	sys_snode_t node;
	net_icmp_handler_t handler;
	void *user_data;
	uint32_t calls;
	uint8_t type, code;
};
int net_icmp_init_ctx(struct net_icmp_ctx *ctx, uint8_t type, uint8_t code,
		      net_icmp_handler_t handler, void *user_data);
int net_icmp_cleanup_ctx(struct net_icmp_ctx *ctx);
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
#define NET_CONN_RAW 0x40u /* a raw handler: copies of every datagram of its protocol */
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
/* A raw handler for IPv4 protocol proto (local: only datagrams to that address; NULL or
 * INADDR_ANY: all). Its callback gets copies (proto_hdr NULL) it must free or keep. */
int net_conn_register_raw(uint8_t proto, const struct sockaddr_in *local, net_conn_cb_t cb,
			  void *user_data, struct net_conn **handle);
int net_conn_unregister(struct net_conn *handle);
/* Gives a copy of pkt (an IPv4 datagram for this host) to every raw handler of proto;
 * pkt itself is left alone. Returns how many took one. */
int net_conn_raw_ip_input(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr, uint8_t proto);
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
/* An ARP packet (the Ethernet header removed): answers requests for our addresses, learns
 * senders. Always NET_DROP: the caller frees it. */
enum net_verdict net_arp_input(struct net_if *iface, uint16_t ptype, struct net_pkt *pkt);
/* Before an IPv4 packet is sent: finds the link address of the next hop. Returns 0 with
 * *out = pkt (its lladdr_dst is set: send it), *out = an ARP request to send instead (pkt
 * waits in the cache entry for the reply) or *out = NULL (pkt waits, a request is already
 * out). A negative errno when pkt cannot be sent (no route, no room): it stays the
 * caller's. */
int net_arp_prepare(struct net_pkt *pkt, struct net_pkt **out);
/* ip sent us an IPv4 datagram from hw: a valid entry for ip at hw counts as confirmed
 * (its refresh is postponed); nothing else changes. */
void net_arp_confirm(struct net_if *iface, const struct in_addr *ip,
		     const struct net_eth_addr *hw);
/* Announces iface's address (gratuitous ARP), e.g. when the link comes up. */
void net_arp_announce(struct net_if *iface);
void net_arp_clear_cache(struct net_if *iface);

/* ---- Ethernet L2 (ethernet.c) ---- */
void net_eth_l2_init(void);
/* A network protocol above Ethernet (Zephyr's NET_L3_REGISTER): frames of Ethertype ptype
 * go to handler, the link header already removed (its addresses stay in the packet's
 * lladdr fields). The handler's verdict is the frame's: NET_OK consumed, NET_DROP freed by
 * the caller. */
struct net_l3_register {
	sys_snode_t node;
	const char *name;
	uint16_t ptype;
	enum net_verdict (*handler)(struct net_if *iface, uint16_t ptype, struct net_pkt *pkt);
};
void net_l3_register(struct net_l3_register *l3);

/* ---- IPv4 set-up (ipv4.c): registers IPv4 with the Ethernet L2 ---- */
void net_ipv4_init(void);

/* ---- Sockets / contexts (net_context.c) ---- */
void net_context_init(void);
struct net_context;
/* pkt (its metadata: it may already be freed by the L2, so a copy) has been sent. */
void net_context_sent(struct net_context *ctx, int status, const struct net_pkt *pkt);

/* ---- Loopback interface (loopback.c) ---- */
void net_loopback_init(void);

/* ---- Core (net_core.c) ---- */
/* Processes one packet through L2 and L3 (RX thread). */
void net_process_rx_packet(struct net_pkt *pkt);

#endif
