/* tap: the virtual USB host's Ethernet on a Linux TAP interface, as Linux's cdc_ether puts a
 * real Pico's on usb0: the frames the virtual Pico sends over CDC-ECM come out of the TAP,
 * the frames the host's network stack writes to the TAP go to the device. The TAP is made
 * only inside a network namespace that is not the host's own (`ip netns add NAME`, or
 * tap_netns_create), so that nothing is routed anywhere else. */
#ifndef XB_SIM_TAP_H
#define XB_SIM_TAP_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "board.h"
#include "netpeer.h"
#include "vbench.h"

/*
 * The interface (tap_open): IFF_TAP | IFF_NO_PI on /dev/net/tun, made while the calling
 * thread has entered the namespace with setns(), which it leaves again before tap_open
 * returns (the descriptor stays bound to the interface, the interface to the namespace).
 * It gets the host's address and prefix, is brought up, IPv6 off unless asked for (so the
 * kernel's router solicitations, DAD and MLD reports do not reach the device), carrier off
 * until the device's CDC-ECM link comes up. When it does, the TAP takes the MAC address
 * the host side has on that link (iMACAddress, the one cdc_ether gives usb0, also the
 * network peer's), then carrier on; carrier off when the link goes down.
 *
 * Beside the peer (tap_attach, tap_port_new): the network peer of sim/netpeer.h stays on
 * the wire with the same MAC address; every frame from the device goes to both (each
 * takes what is addressed to it: the same address for both means both answer the
 * device's ARP requests, identically), and frames from the TAP go to the device through
 * netpeer_send_frame, so that the peer's own echoes keep their OUT completions. The TAP is
 * read from a board event every poll_us of virtual time (default 100 us) in the thread
 * that runs the board; frames from the device are written to it when their IN transfer
 * completes. While the board is paced to the wall clock (`sim serve`), ordinary tools in
 * the namespace (ping, nc -u) reach the virtual Pico as they would a real one on usb0.
 */

/* ---- Network namespaces ---- */

/* The path of namespace ns: a name is /run/netns/NAME (where `ip netns add` puts it), a
 * text with a '/' is a path already. 0, or -1 when it does not fit in cap. */
int tap_netns_path(const char *ns, char *out, size_t cap);
/* Opens namespace ns (for setns): 0 with *fd, or -1 with err when it does not exist, is
 * not a network namespace, or is the initial one (the namespace of PID 1, the host's own:
 * the TAP never goes there). */
int tap_netns_open(const char *ns, int *fd, xb_err *err);
/* Makes a named network namespace as `ip netns add NAME` does (a new namespace kept by a
 * bind mount on /run/netns/NAME); needs root. 0, or -1 with err (one of that name exists). */
int tap_netns_create(const char *name, xb_err *err);
/* Removes it as `ip netns delete NAME` does (unmount, remove the file). 0, or -1 with err. */
int tap_netns_delete(const char *name, xb_err *err);

/* ---- The interface ---- */

typedef struct xb_tap_options {
	const char *name;  /* the interface (1 to 15 characters; must not exist in the namespace) */
	const char *netns; /* the namespace it is made in (tap_netns_open's rules) */
	uint8_t ip[4];     /* the host's address on it */
	unsigned prefix;   /* its prefix length, 1 to 30 */
	int ipv6;          /* 1: leave IPv6 on */
} xb_tap_options;

/* What went through (updated by the thread that runs the board; read it when that has
 * stopped, or take it as approximate). */
typedef struct xb_tap_stats {
	uint64_t to_device;    /* frames read from the TAP and handed to the USB host */
	uint64_t from_device;  /* frames the device sent, written to the TAP */
	uint64_t dropped;      /* frames from the TAP the link could not take (down, queue
				* full, a wrong length) */
	uint64_t write_errors; /* frames from the device the TAP refused */
	uint64_t link_changes; /* carrier changes (the device's link going up or down) */
} xb_tap_stats;

typedef struct xb_tap xb_tap;

/* Makes the interface (see above); needs root (CAP_NET_ADMIN, and CAP_SYS_ADMIN for
 * setns). NULL with err saying what is missing (/dev/net/tun, the namespace, permission,
 * a name in use). */
xb_tap *tap_open(const xb_tap_options *o, xb_err *err);
/* Closes the descriptor (the interface goes away) and frees t. Detach first (vbench_free
 * does it for tap_attach). */
void tap_close(xb_tap *t);
int tap_fd(const xb_tap *t);
const char *tap_name(const xb_tap *t);
/* The carrier (up 1 or 0) and, when mac is not NULL, the interface's MAC address. 0, or -1
 * when an ioctl failed (kernels before 5.0 have no TUNSETCARRIER: the carrier stays on). */
int tap_set_link(xb_tap *t, int up, const uint8_t mac[6]);
void tap_stats(const xb_tap *t, xb_tap_stats *out);

/* ---- A frame descriptor beside the peer ---- */

typedef struct xb_tap_port xb_tap_port;

typedef struct xb_tap_port_options {
	uint32_t poll_us; /* how often the descriptor is read, in us of virtual time (0: 100) */
	/* the device's link went up or down; mac: the host side's MAC address (the peer's) */
	void (*link)(void *ctx, int up, const uint8_t mac[6]);
	void *link_ctx;
	xb_tap_stats *stats; /* counted here (NULL: not counted) */
} xb_tap_port_options;

/* Frames between descriptor fd (one frame per read and per write, non-blocking: a TAP, or
 * a datagram socket in tests) and the wire under peer np on board b. o may be NULL. The
 * descriptor stays the caller's. */
xb_tap_port *tap_port_new(int fd, xb_netpeer *np, xb_board *b, const xb_tap_port_options *o);
/* Cancels its event and takes its callback off the peer (before the peer and the board go). */
void tap_port_free(xb_tap_port *p);

/* t beside v's peer: a port on the TAP whose link changes set its carrier and MAC address;
 * vbench_free frees the port. Call it from the thread that runs v's board, before it runs
 * (a vbench_hook_next function is such a place). */
void tap_attach(xb_tap *t, xb_vbench *v);

#endif
