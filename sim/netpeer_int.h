/* netpeer_int: what the network peer's files share (sim/netpeer.c: the wire, ARP and
 * sending; sim/netpeer_traffic.c: series, echoes and matching). Not for other modules. */
#ifndef XB_NETPEER_INT_H
#define XB_NETPEER_INT_H

#include "netpeer.h"
#include "ncmhost.h"
#include "rndishost.h"

#define NETPEER_NO_ECHO ((size_t)-1) /* a frame that carries no echo (ARP, a service datagram) */
/* A request sent on its own (netpeer_send_ping, netpeer_send_udp): no entry in the echo
 * table, but its OUT completion marks an echo boundary in the fetch trace. */
#define NETPEER_MARK_ECHO ((size_t)-2)
/* The frame carries an echo of the echo table. */
#define NETPEER_IS_ECHO(e) ((e) < NETPEER_MARK_ECHO)

/* A frame waiting for the device's MAC address (its Ethernet destination is filled in
 * when it is known). */
typedef struct netpeer_pending {
	uint8_t *frame;
	size_t len;
	size_t echo; /* or NETPEER_NO_ECHO */
} netpeer_pending;

/* A ping series or a UDP stream. */
typedef struct netpeer_series {
	uint8_t kind; /* XB_NETPEER_ICMP or XB_NETPEER_UDP */
	xb_netpeer_ping ping;
	xb_netpeer_stream stream;
	size_t first;  /* its first echo */
	unsigned next; /* the next request to send */
	uint64_t event;
	xb_netpeer *np;
} netpeer_series;

enum { NETPEER_ARP_NONE = 0, NETPEER_ARP_RESOLVING, NETPEER_ARP_VALID };

struct xb_netpeer {
	xb_board *b;
	xb_netpeer_wire wire;
	xb_netpeer_options opt;
	xb_ecmhost *ecm;
	xb_rndishost *rndis;
	xb_ncmhost *ncm;
	uint8_t mac[6];
	int link;
	uint64_t link_cycle;
	uint16_t ip_id;
	/* ARP: the device's entry */
	int arp_state;
	uint8_t device_mac[6];
	uint64_t resolved_cycle;
	unsigned arp_tries;
	uint64_t arp_event;
	netpeer_pending *pending; /* a ring of opt.arp_queue frames */
	size_t pending_head, pending_count;
	/* frames handed to the wire, oldest first: the echo each one carries */
	size_t *inflight;
	size_t inflight_head, inflight_count, inflight_cap;
	/* traffic */
	netpeer_series **series;
	size_t nseries, series_cap;
	xb_netpeer_echo *echo;
	size_t nechoes, echo_cap;
	size_t outstanding;
	xb_netpeer_stats stats;
	/* the DHCP client (netpeer_dhcp.c) */
	int dhcp_state;
	uint32_t dhcp_xid;
	unsigned dhcp_tries;
	uint64_t dhcp_event;
	uint8_t dhcp_offer[4], dhcp_server[4], dhcp_mask[4];
	uint32_t dhcp_lease;
	/* another station on the wire (netpeer_set_frame_fn) */
	xb_netpeer_frame_fn frame_fn;
	void *frame_ctx;
};

/* netpeer.c: sends frame (its Ethernet destination is filled in here) now, or once the
 * device's MAC is known; echo is the echo it carries or NETPEER_NO_ECHO. Returns 0, or -1
 * when it was dropped (the echo, if any, is then FAILED). */
int netpeer_transmit(xb_netpeer *np, const uint8_t *frame, size_t len, size_t echo);
/* The peer's and the device's addresses for building frames (the device's MAC may still be
 * unknown: zeros then). */
void netpeer_addrs(const xb_netpeer *np, xb_netpeer_addr *self, xb_netpeer_addr *device);
/* Board cache totals now. */
void netpeer_xip_now(const xb_netpeer *np, xb_netpeer_xip *x);

/* netpeer_dhcp.c: the link came up (starts the client when asked for; 1 when it did, so
 * that ARP waits for the lease); a UDP datagram to port 68 from port 67; the end. */
int netpeer_dhcp_link_up(xb_netpeer *np);
void netpeer_dhcp_input(xb_netpeer *np, const xb_netpeer_packet *p);
void netpeer_dhcp_stop(xb_netpeer *np);

/* netpeer_traffic.c */
/* An echo has left the WAITING or SENT state for FAILED. */
void netpeer_echo_failed(xb_netpeer *np, size_t echo);
/* The echo's frame was handed to the wire now. */
void netpeer_echo_sent(xb_netpeer *np, size_t echo);
/* The transfer carrying the echo's request completed (status 0) or failed, at cycle. */
void netpeer_echo_out_done(xb_netpeer *np, size_t echo, int status, uint64_t cycle);
/* An ICMP echo reply or a UDP datagram for the peer arrived (IN completion at cycle). */
void netpeer_icmp_input(xb_netpeer *np, const xb_netpeer_packet *p, uint64_t cycle);
void netpeer_udp_input(xb_netpeer *np, const xb_netpeer_packet *p, uint64_t cycle);
/* Cancels the series' events and frees them. */
void netpeer_traffic_free(xb_netpeer *np);

#endif
