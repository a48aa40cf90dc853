/* netpeer: the Linux host's side of the virtual Pico's USB network link: an IPv4 host on the
 * CDC-ECM interface that answers ARP, sends ICMP echo requests and UDP datagrams at exact
 * virtual times, matches the replies and records, per echo, what the study's metrics need. */
#ifndef XB_NETPEER_H
#define XB_NETPEER_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "board.h"
#include "ecmhost.h"
#include "usbhost.h"

/*
 * The peer is what Linux's network stack does on the host's usb0 interface, reduced to what
 * an echo benchmark needs (docs/sim.md, "Network peer"):
 *
 *  - Identity: its own IPv4 address (default 192.0.2.2) and the device's (192.0.2.1), both
 *    on the link (no routing); its MAC address is the options' or, when that is all zero,
 *    the one the device announced in iMACAddress (what cdc_ether gives usb0), read when the
 *    link comes up.
 *  - ARP (Linux's neighbour table with default settings): a request for the peer's address
 *    is answered (unicast, to the requester) and creates or refreshes the entry of its
 *    sender; a reply or a gratuitous ARP from the device's address refreshes an existing
 *    entry or completes a resolution in progress, and is otherwise ignored (arp_accept 0).
 *    Resolution starts when the link comes up and whenever something must be sent without
 *    an entry: a broadcast request at once, repeated every arp_retry_ms, arp_tries in all;
 *    then it fails and the packets that waited (at most arp_queue, the oldest dropped
 *    first) are dropped. Entries never age; the table is cleared when the link goes down.
 *  - Frames: Ethernet II without FCS and without padding (usbnet sends short frames as
 *    they are), IPv4 with a 20-byte header, DF set, TTL 64, identification counting from 1
 *    per packet; ICMP echo requests laid out as iputils ping lays them out (16 bytes of
 *    struct timeval with the send time in virtual time, then bytes counting from 16); UDP
 *    with its checksum (never 0: 0xFFFF stands for 0).
 *  - Received frames count when addressed to the peer's MAC or broadcast and, for IPv4, to
 *    its address; the IPv4 header checksum and the ICMP and UDP checksums (UDP: when not
 *    0) must hold; fragments are not reassembled (counted and dropped); bytes after the
 *    IPv4 total length or the 28 ARP bytes (Ethernet padding, usbnet's extra byte) are
 *    ignored.
 *
 * Traffic runs in virtual time: a ping series sends its requests at start + i * interval
 * cycles, a UDP stream its datagrams at start + floor(i * cpu_hz / rate), each from a board
 * event (so at the first instruction boundary at or after that cycle). Every request is
 * one echo in the peer's echo table. Replies are matched by ICMP identifier and sequence
 * number, or by the UDP payload's nonce (its first 8 bytes: "xbnp" and the echo's index,
 * big endian); the whole reply payload must equal the request's. A second reply to the
 * same echo is a duplicate; a reply that matches nothing is unmatched.
 *
 * For each echo the peer records, in board cycles: when it was due, when it was handed to
 * the wire (after ARP if it had to wait), when the bulk OUT transfer carrying it completed
 * and when the bulk IN transfer carrying its reply completed (the times of the usbmon 'C'
 * records of those URBs), with the board's XIP cache totals (accesses, hits) at those two
 * completions, so that per-echo deltas are exact. The OUT completion of an echo also marks
 * an echo boundary in the board's fetch trace, if one is being written.
 *
 * Everything runs inside board events and wire callbacks, in the thread that runs the
 * board. Free the peer before the USB host and the board.
 */

/* ---- Frames ---- */

#define XB_NETPEER_ETH_HLEN 14u
#define XB_NETPEER_MAX_FRAME 1514u
#define XB_NETPEER_ARP_FRAME 42u     /* Ethernet header + 28 bytes of ARP */
#define XB_NETPEER_MAX_PAYLOAD 1472u /* ICMP echo data or UDP data in a 1514-byte frame */
#define XB_NETPEER_NONCE 8u          /* UDP payload bytes the nonce takes */

typedef struct xb_netpeer_addr {
	uint8_t mac[6];
	uint8_t ip[4];
} xb_netpeer_addr;

/* RFC 1071: adds the 16-bit big-endian words of data (an odd last byte padded with a zero)
 * to sum; netpeer_checksum_fold turns the sum into the checksum field's value (the one's
 * complement of the folded sum). A block whose checksum field holds the right value sums
 * (folded) to 0xFFFF, so netpeer_checksum_fold gives 0. */
uint32_t netpeer_checksum_add(uint32_t sum, const void *data, size_t len);
uint16_t netpeer_checksum_fold(uint32_t sum);

/* Build one frame into out (cap bytes); return its length, or 0 when it does not fit or
 * the payload is longer than XB_NETPEER_MAX_PAYLOAD. */
/* ARP (op 1 request, 2 reply) from sender to target; eth_dst is the Ethernet destination
 * (broadcast for requests). Always XB_NETPEER_ARP_FRAME bytes. */
size_t netpeer_build_arp(uint8_t *out, size_t cap, uint16_t op, const xb_netpeer_addr *sender,
			 const xb_netpeer_addr *target, const uint8_t eth_dst[6]);
/* ICMP echo (type 8 request, 0 reply) with identifier id and sequence number seq. */
size_t netpeer_build_icmp_echo(uint8_t *out, size_t cap, const xb_netpeer_addr *src,
			       const xb_netpeer_addr *dst, uint16_t ip_id, uint8_t type, uint16_t id,
			       uint16_t seq, const uint8_t *data, size_t len);
/* UDP datagram from port sport to dport. */
size_t netpeer_build_udp(uint8_t *out, size_t cap, const xb_netpeer_addr *src,
			 const xb_netpeer_addr *dst, uint16_t ip_id, uint16_t sport, uint16_t dport,
			 const uint8_t *data, size_t len);

/* What netpeer_parse found; every failure has a message (netpeer_parse_message). */
enum xb_netpeer_parse {
	XB_NETPEER_PARSE_OK = 0,
	XB_NETPEER_PARSE_SHORT,       /* shorter than its headers or lengths say */
	XB_NETPEER_PARSE_ETHERTYPE,   /* neither ARP nor IPv4 */
	XB_NETPEER_PARSE_ARP_FORMAT,  /* ARP not for Ethernet and IPv4 */
	XB_NETPEER_PARSE_IP_HEADER,   /* bad version, header length or total length */
	XB_NETPEER_PARSE_IP_CHECKSUM, /* IPv4 header checksum wrong */
	XB_NETPEER_PARSE_FRAGMENT,    /* a fragment (MF set or an offset) */
	XB_NETPEER_PARSE_PROTOCOL,    /* an IPv4 protocol other than ICMP and UDP */
	XB_NETPEER_PARSE_CHECKSUM,    /* ICMP or UDP checksum wrong */
};
const char *netpeer_parse_message(enum xb_netpeer_parse r);

enum xb_netpeer_kind {
	XB_NETPEER_ARP = 1,
	XB_NETPEER_ICMP,
	XB_NETPEER_UDP,
};

/* A parsed frame: pointers into the frame given to netpeer_parse. */
typedef struct xb_netpeer_packet {
	enum xb_netpeer_kind kind;     /* set when the result is OK (and for checksum errors) */
	const uint8_t *eth_dst, *eth_src;
	uint16_t ethertype;
	/* ARP */
	uint16_t arp_op;
	const uint8_t *arp_sha, *arp_spa, *arp_tha, *arp_tpa;
	/* IPv4 */
	const uint8_t *ip_src, *ip_dst;
	uint8_t ip_proto, ip_ttl;
	uint16_t ip_id;
	/* ICMP (any type; id and seq are those of echo messages) */
	uint8_t icmp_type, icmp_code;
	uint16_t icmp_id, icmp_seq;
	/* UDP */
	uint16_t udp_sport, udp_dport;
	/* ICMP echo data (after the 8-byte ICMP header) or UDP data */
	const uint8_t *payload;
	size_t payload_len;
	size_t trailer; /* bytes after the packet: Ethernet padding, usbnet's extra byte */
} xb_netpeer_packet;

/* Parses an Ethernet frame (no FCS) and checks its lengths and checksums. */
enum xb_netpeer_parse netpeer_parse(const uint8_t *frame, size_t len, xb_netpeer_packet *p);

/* ---- The peer ---- */

typedef struct xb_netpeer xb_netpeer;

/* A UDP datagram for the peer that no traffic series was waiting for (a service's reply):
 * ports as on the wire, the data (valid during the call), the IN transfer's completion. */
typedef void (*xb_netpeer_udp_fn)(void *ctx, uint16_t sport, uint16_t dport, const uint8_t *data,
				  size_t len, uint64_t cycle);
/* An ICMP echo reply from the device that no ping series was waiting for (an answer to
 * netpeer_send_ping): identifier, sequence number, the echo data (valid during the call),
 * the IN transfer's completion. */
typedef void (*xb_netpeer_icmp_fn)(void *ctx, uint16_t id, uint16_t seq, const uint8_t *data,
				   size_t len, uint64_t cycle);
/* An echo's first reply was matched (index in the echo table). */
typedef void (*xb_netpeer_echo_fn)(void *ctx, size_t echo);

typedef struct xb_netpeer_options {
	uint8_t ip[4];          /* default 192.0.2.2 */
	uint8_t device_ip[4];   /* default 192.0.2.1 */
	uint8_t mac[6];         /* all zero (default): the wire's (iMACAddress), else
				 * 02:00:00:00:00:02 */
	uint32_t arp_retry_ms;  /* default 1000 (Linux retrans_time) */
	unsigned arp_tries;     /* default 3 (Linux mcast_solicit) */
	unsigned arp_queue;     /* packets waiting for a resolution, default 100 */
	xb_netpeer_udp_fn udp;
	void *udp_ctx;
	xb_netpeer_icmp_fn icmp; /* NULL: such replies count as unmatched */
	void *icmp_ctx;
	xb_netpeer_echo_fn echo;
	void *echo_ctx;
	uint8_t netmask[4];     /* default 255.255.255.0; the device must be on the link */
	int dhcp;               /* 1: a DHCP client runs when the link comes up (see below) */
	int device_ip_set;      /* 1: device_ip was given: DHCP does not replace it */
	unsigned dhcp_tries;    /* DISCOVER or REQUEST transmissions before giving up (4) */
} xb_netpeer_options;

/*
 * DHCP (RFC 2131; what dhclient or systemd-networkd do on usb0, reduced): when the link
 * comes up the peer sends a DHCPDISCOVER from 0.0.0.0:68 to 255.255.255.255:67 (Ethernet
 * broadcast, the broadcast flag clear, client identifier = its MAC, a parameter request
 * list of subnet mask, router, DNS), takes the first DHCPOFFER, sends a DHCPREQUEST for it
 * (options 50 and 54) and, on DHCPACK, binds: its address becomes yiaddr, its netmask the
 * offer's option 1, and the device's address the server identifier (option 54) unless
 * device_ip_set. ARP then resolves the device as usual. Replies are taken broadcast or
 * unicast to the peer's MAC. A transmission without an answer is repeated after 4, 8, 16 s
 * (RFC 2131 4.1's doubling, without the random +-1 s, so runs repeat exactly); after
 * dhcp_tries the client gives up and the configured addresses stay. A DHCPNAK starts over.
 * Leases are not renewed (a run is far shorter than any lease).
 */
enum xb_netpeer_dhcp_state {
	XB_NETPEER_DHCP_OFF = 0,
	XB_NETPEER_DHCP_SELECTING, /* DISCOVER sent */
	XB_NETPEER_DHCP_REQUESTING, /* REQUEST sent */
	XB_NETPEER_DHCP_BOUND,
	XB_NETPEER_DHCP_FAILED,
};
enum xb_netpeer_dhcp_state netpeer_dhcp_state(const xb_netpeer *np);
/* The lease's addresses once bound (any may be NULL): the peer's, the server's, the mask;
 * and the lease time in seconds (0 when not given). Returns 0, or -1 when not bound. */
int netpeer_dhcp_lease(const xb_netpeer *np, uint8_t ip[4], uint8_t server[4],
		       uint8_t mask[4], uint32_t *lease_s);
/* The peer's netmask. */
const uint8_t *netpeer_netmask(const xb_netpeer *np);

/* The defaults above. */
void netpeer_options_init(xb_netpeer_options *o);

/* The wire under the peer: the CDC-ECM driver (netpeer_new_ecm) or a test's. */
typedef struct xb_netpeer_wire {
	/* Queues one Ethernet frame (copied); 0, or -1 when refused. Each queued frame is
	 * later reported, in order, by netpeer_wire_sent. */
	int (*send)(void *ctx, const uint8_t *frame, size_t len);
	/* The MAC address the wire gives the peer (6 bytes), or NULL (may be NULL). */
	const uint8_t *(*mac)(void *ctx);
	void *ctx;
} xb_netpeer_wire;

/* A peer on board b over wire w (copied). o may be NULL (defaults); it is copied. The link
 * starts down. */
xb_netpeer *netpeer_new(xb_board *b, const xb_netpeer_wire *w, const xb_netpeer_options *o);
/* A peer over the CDC-ECM, RNDIS and CDC-NCM drivers it creates on host h (ecmhost_new and
 * the others): eo gives the drivers' URB and queue counts (NULL: defaults); their callbacks
 * are the peer's. */
xb_netpeer *netpeer_new_ecm(xb_board *b, xb_usbhost *h, const xb_ecmhost_options *eo,
			    const xb_netpeer_options *o);
/* Cancels its events, frees its ECM driver (if it made one) and everything else. */
void netpeer_free(xb_netpeer *np);
/* The ECM driver of netpeer_new_ecm, NULL otherwise. */
xb_ecmhost *netpeer_ecm(const xb_netpeer *np);
/* netpeer_new_ecm also puts Linux's RNDIS and CDC-NCM drivers on the host (sim/rndishost.h,
 * sim/ncmhost.h), after the ECM one; whichever binds the configuration the host chose
 * carries the peer's frames. Those drivers (NULL for other peers), and the name of the one
 * that is up: "CDC-ECM", "RNDIS", "CDC-NCM", or NULL. */
typedef struct xb_rndishost xb_rndishost;
typedef struct xb_ncmhost xb_ncmhost;
xb_rndishost *netpeer_rndis(const xb_netpeer *np);
xb_ncmhost *netpeer_ncm(const xb_netpeer *np);
const char *netpeer_usb_class(const xb_netpeer *np);
/* Why the bound USB network driver gave up its bring-up, or the control request it waits
 * for: a line in out and 1; 0 when neither (or the peer has no USB drivers). */
int netpeer_usb_trouble(const xb_netpeer *np, char *out, size_t n);

/* What the wire reports (netpeer_new_ecm connects them to the driver's callbacks). */
/* A frame from the device; cycle: when its IN transfer completed. */
void netpeer_wire_input(xb_netpeer *np, const uint8_t *frame, size_t len, uint64_t cycle);
/* The oldest queued frame's transfer completed at cycle (status 0) or failed (< 0). */
void netpeer_wire_sent(xb_netpeer *np, int status, uint64_t cycle);
/* The link went up (1) or down (0). Up starts an ARP resolution of the device. */
void netpeer_wire_link(xb_netpeer *np, int up);

/* The peer's MAC address (the wire's once known), its IP and the device's IP. */
const uint8_t *netpeer_mac(const xb_netpeer *np);
const uint8_t *netpeer_ip(const xb_netpeer *np);
const uint8_t *netpeer_device_ip(const xb_netpeer *np);
/* 1 while the link is up; the cycle it last came up (0 before). */
int netpeer_link(const xb_netpeer *np);
uint64_t netpeer_link_cycle(const xb_netpeer *np);
/* The device's MAC address once resolved (NULL before), and the cycle it was learnt. */
const uint8_t *netpeer_device_mac(const xb_netpeer *np);
uint64_t netpeer_resolved_cycle(const xb_netpeer *np);
/* Starts resolving the device's MAC address unless it is known or being resolved (the
 * link must be up). */
void netpeer_resolve(xb_netpeer *np);

/* Sends one UDP datagram to the device now (after ARP if needed). Returns 0, or -1 when
 * the link is down, len is above XB_NETPEER_MAX_PAYLOAD, the wire refuses it or the ARP
 * queue is full. No echo-table entry is made (memory stays bounded); the end of its OUT
 * transfer marks an echo boundary in the fetch trace, as a series' requests do. */
int netpeer_send_udp(xb_netpeer *np, uint16_t sport, uint16_t dport, const uint8_t *data,
		     size_t len);
/* The same for one ICMP echo request with identifier id, sequence number seq and echo data
 * (what ping(8) sends); its reply goes to the icmp callback. */
int netpeer_send_ping(xb_netpeer *np, uint16_t id, uint16_t seq, const uint8_t *data,
		      size_t len);

/* ---- Other stations beside the peer (a TAP interface: sim/tap.h) ---- */

/* Every frame from the wire, as it came, before the peer looks at it (valid during the
 * call; cycle: when its IN transfer completed). */
typedef void (*xb_netpeer_frame_fn)(void *ctx, const uint8_t *frame, size_t len, uint64_t cycle);
/* Sets (fn NULL: clears) the frame callback. */
void netpeer_set_frame_fn(xb_netpeer *np, xb_netpeer_frame_fn fn, void *ctx);
/* Hands a whole Ethernet frame (14 to XB_NETPEER_MAX_FRAME bytes, no FCS) to the wire as
 * it is, beside the peer's own traffic: no ARP, its addresses kept, not counted in the
 * peer's statistics; its OUT completion keeps the peer's echoes in step. 0, or -1 when
 * the link is down, the length is wrong or the wire refuses it. */
int netpeer_send_frame(xb_netpeer *np, const uint8_t *frame, size_t len);

/* ---- Traffic ---- */

typedef struct xb_netpeer_ping {
	uint64_t start;    /* board cycle of the first request (a past cycle: at once) */
	uint64_t interval; /* cycles between requests (> 0 when count > 1) */
	unsigned count;    /* requests (at least 1) */
	unsigned size;     /* echo data bytes, 0 .. XB_NETPEER_MAX_PAYLOAD (ping -s) */
	uint16_t id, seq;  /* identifier, first sequence number (then seq + i mod 65536) */
} xb_netpeer_ping;

typedef struct xb_netpeer_stream {
	uint64_t start;    /* board cycle of the first datagram */
	uint32_t rate;     /* datagrams per second of virtual time (at least 1) */
	unsigned count;    /* datagrams (at least 1) */
	unsigned size;     /* payload bytes, XB_NETPEER_NONCE .. XB_NETPEER_MAX_PAYLOAD */
	uint16_t sport, dport;
} xb_netpeer_stream;

/* Schedule a series: its echoes are added to the echo table at once (state SCHEDULED), in
 * order. Returns the index of the first one, or -1 with err for bad parameters. */
long netpeer_ping(xb_netpeer *np, const xb_netpeer_ping *p, xb_err *err);
long netpeer_udp_stream(xb_netpeer *np, const xb_netpeer_stream *s, xb_err *err);
/* 1 when every series has sent (or tried to send) all its requests. */
int netpeer_traffic_done(const xb_netpeer *np);
/* Echoes sent or waiting for ARP, without a reply. */
size_t netpeer_outstanding(const xb_netpeer *np);

enum xb_netpeer_echo_state {
	XB_NETPEER_SCHEDULED = 0, /* its time has not come */
	XB_NETPEER_WAITING,       /* due, waiting for the device's MAC address */
	XB_NETPEER_SENT,          /* handed to the wire */
	XB_NETPEER_REPLIED,       /* a reply matched */
	XB_NETPEER_FAILED,        /* refused by the wire, ARP failed, or the link went down
				   * before its transfer completed */
};

/* Board cache totals at one instant. */
typedef struct xb_netpeer_xip {
	uint64_t accesses, hits;
} xb_netpeer_xip;

typedef struct xb_netpeer_echo {
	uint8_t kind;         /* XB_NETPEER_ICMP or XB_NETPEER_UDP */
	uint8_t state;        /* enum xb_netpeer_echo_state */
	uint8_t sent_set;     /* sent is valid: it was handed to the wire */
	uint8_t out_done_set; /* out_done, out_status and xip_out are valid */
	uint16_t id, seq;     /* ICMP identifier and sequence number */
	uint16_t sport, dport;/* UDP ports (the peer's, the device's) */
	uint32_t nonce;       /* UDP: the payload nonce (the echo's index); ICMP: 0 */
	uint32_t size;        /* payload bytes */
	uint32_t duplicates;  /* replies after the first */
	int out_status;       /* the OUT transfer's status (0 when it completed) */
	uint64_t due;         /* when the series wants it sent (the ICMP timestamp) */
	uint64_t sent;        /* handed to the wire */
	uint64_t out_done;    /* the bulk OUT transfer carrying it completed ('C') */
	uint64_t reply;       /* the bulk IN transfer carrying the reply completed (REPLIED) */
	xb_netpeer_xip xip_out, xip_reply; /* cache totals at out_done and at reply */
} xb_netpeer_echo;

/* The echo table: every request of every series, in the order the series were given. */
size_t netpeer_echoes(const xb_netpeer *np);
const xb_netpeer_echo *netpeer_echo(const xb_netpeer *np, size_t i);

/* Over the echoes of [first, first + n) (clipped to the table) whose time has come (not
 * SCHEDULED). Times in cycles. Turnaround is
 * reply - out_done, round trip reply - sent; medians of an even count are the mean of the
 * two middle values. XIP figures sum the per-echo deltas between out_done and reply. */
typedef struct xb_netpeer_summary {
	size_t echoes;     /* in the range and due */
	size_t sent;       /* handed to the wire */
	size_t received;   /* replied */
	size_t lost;       /* echoes - received */
	size_t failed;     /* never reached the device (state FAILED) */
	size_t duplicates;
	uint64_t turnaround_min, turnaround_max;
	double turnaround_median;
	uint64_t rtt_min, rtt_max;
	double rtt_median;
	uint64_t xip_accesses, xip_misses;
	size_t timed;      /* received echoes with both times (the figures above) */
} xb_netpeer_summary;
void netpeer_summarize(const xb_netpeer *np, size_t first, size_t n, xb_netpeer_summary *s);

typedef struct xb_netpeer_stats {
	uint64_t rx_frames;      /* frames from the wire */
	uint64_t rx_ignored;     /* not for the peer: other MACs or addresses, other types */
	uint64_t rx_errors;      /* malformed, bad checksums, fragments */
	uint64_t rx_arp, rx_icmp, rx_udp;
	uint64_t tx_frames;      /* handed to the wire */
	uint64_t tx_refused;     /* refused by the wire */
	uint64_t tx_errors;      /* transfers that completed with an error */
	uint64_t arp_requests;   /* requests sent */
	uint64_t arp_replies;    /* replies sent (answers to the device) */
	uint64_t arp_failures;   /* resolutions that gave up */
	uint64_t arp_dropped;    /* packets dropped while waiting for ARP */
	uint64_t matched;        /* first replies matched to an echo */
	uint64_t duplicates;     /* further replies to an echo */
	uint64_t unmatched;      /* echo replies and traffic datagrams that match no echo, or
				  * whose payload differs from the request's */
	uint64_t udp_delivered;  /* datagrams handed to the udp callback */
	uint64_t icmp_delivered; /* echo replies handed to the icmp callback */
	/* IPv6 from the device (dropped, as a host without IPv6 on the link does: no error) */
	uint64_t rx_ipv6;        /* every IPv6 frame */
	uint64_t ipv6_rs, ipv6_ns, ipv6_na, ipv6_mld, ipv6_other; /* ICMPv6 router and
				  * neighbour solicitations, advertisements, MLD reports, rest */
	/* the DHCP client */
	uint64_t dhcp_sent;      /* DISCOVERs and REQUESTs */
	uint64_t dhcp_offers, dhcp_acks, dhcp_naks;
	uint64_t dhcp_ignored;   /* DHCP messages not for this client or out of turn */
} xb_netpeer_stats;
void netpeer_stats(const xb_netpeer *np, xb_netpeer_stats *out);

#endif
