/* transport: how CMSIS-DAP packets reach a probe: USB bulk (CMSIS-DAP v2), USB HID
 * (v1), the virtual probe in this process, or the virtual probe behind a Unix socket. */
#ifndef XB_PROBE_TRANSPORT_H
#define XB_PROBE_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

struct xb_dap;

/* The largest CMSIS-DAP packet any transport carries (high-speed v2 probes use 512). */
#define TRANSPORT_PACKET_MAX 1024u
/* Packets a transport keeps in flight at most (CMSIS-DAP's packet count is a byte; the
 * virtual probe allows 64). */
#define TRANSPORT_IN_FLIGHT_MAX 64u
/* How long a USB or socket transport waits for a response before it gives up (the
 * default of xb_transport.timeout_ms). */
#define TRANSPORT_TIMEOUT_MS 2000u

typedef struct xb_transport xb_transport;

/*
 * One implementation per file, each ending in its const table:
 *   transport_usb_bulk.c  CMSIS-DAP v2: a vendor-class interface, bulk OUT then bulk IN
 *   transport_usb_hid.c   CMSIS-DAP v1: HID reports of the endpoint's size, report ID 0,
 *                         zero padded, through libusb interrupt transfers
 *   transport_virtual.c   the virtual probe of sim/dap.h in this process (virtual time)
 *   transport_socket.c    the virtual probe behind a Unix socket (2-byte LE framing)
 *   (transport_usb_async.c: the libusb asynchronous transfers of both USB transports)
 *
 * xfer is required. submit/collect are set where the transport can keep several packets
 * in flight (all four above can); for one that cannot (a test's fake), transport_submit
 * runs xfer at once and holds the response for transport_collect, so callers see one
 * interface. now_ns and wait are optional (default: the monotonic wall clock, nanosleep).
 * A failing call fills err with a message that names the probe (t->name) and the problem.
 */
typedef struct xb_transport_ops {
	const char *kind; /* "usb-bulk", "usb-hid", "virtual", "socket", ... */
	int (*xfer)(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		    size_t *rlen, xb_err *err);
	int (*submit)(xb_transport *t, const uint8_t *req, size_t len, xb_err *err);
	int (*collect)(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err);
	/* Non-blocking readiness (see transport_ready), and a descriptor to poll; both
	 * optional: without ready a transport counts as always ready (its collect is
	 * immediate); without fd, transport_fd gives -1. */
	int (*ready)(xb_transport *t, xb_err *err);
	int (*fd)(xb_transport *t);
	uint64_t (*now_ns)(xb_transport *t);
	void (*wait)(xb_transport *t, uint64_t ns);
	void (*close)(xb_transport *t); /* frees t and what it holds */
} xb_transport_ops;

/* The part every implementation shares; implementations embed it first. */
struct xb_transport {
	const xb_transport_ops *ops;
	char name[200];           /* names the probe in messages */
	size_t packet_size;       /* what a packet may hold; set by the DAP client from DAP_Info
				   * (until then the link's own size, e.g. the endpoint's) */
	size_t link_max;          /* the most the link itself carries (a HID report; the
				   * virtual probe's packet size; else TRANSPORT_PACKET_MAX) */
	unsigned in_flight;       /* submitted, not collected */
	int virtual_time;         /* now_ns is the board's virtual time */
	unsigned timeout_ms;      /* how long a USB or socket transport waits for an answer
				   * (TRANSPORT_TIMEOUT_MS unless changed) */
	int broken;               /* an earlier call failed in a way that leaves the link
				   * unusable: every call fails with broken_err */
	xb_err broken_err;
	/* responses held for transports without submit/collect */
	uint8_t *held;            /* TRANSPORT_IN_FLIGHT_MAX x TRANSPORT_PACKET_MAX */
	size_t held_len[TRANSPORT_IN_FLIGHT_MAX];
	unsigned held_head;
};

/* Sets up the shared part (ops, a printf-style name). */
void transport_init(xb_transport *t, const xb_transport_ops *ops, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One request packet (1 .. packet_size bytes), one response (at most cap bytes). Fails
 * while packets are in flight. */
int transport_xfer(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		   size_t *rlen, xb_err *err);
/* Pipelining: the caller keeps at most the probe's packet count in flight (the DAP client
 * does). Responses come back in order. A transport error marks the transport broken. */
int transport_submit(xb_transport *t, const uint8_t *req, size_t len, xb_err *err);
int transport_collect(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err);
/* Whether the oldest response in flight can be collected without blocking: 1 yes, 0 not
 * yet (or nothing is in flight), -1 the transport failed (err; it is then broken). Never
 * blocks. The in-process virtual probe is always ready; a socket reads what has arrived
 * into a buffer of its own; USB probes use libusb's asynchronous transfers. */
int transport_ready(xb_transport *t, xb_err *err);
/* A descriptor that poll() reports readable when a response may have arrived, or -1 when
 * the transport has none (the virtual probe: call transport_ready instead). */
int transport_fd(xb_transport *t);

/* The transport's clock: virtual nanoseconds for the in-process virtual probe, the
 * monotonic wall clock for the others. */
uint64_t transport_now_ns(xb_transport *t);
/* Lets ns of the transport's time pass (virtual: the board runs on; real: sleeps). */
void transport_wait(xb_transport *t, uint64_t ns);
/* Marks t unusable with err's message (later calls fail with it). */
void transport_break(xb_transport *t, const xb_err *err);
void transport_close(xb_transport *t);

/* The monotonic wall clock in nanoseconds. */
uint64_t transport_wall_ns(void);

/* ---- Opening ---- */

/* The virtual probe d (sim/dap.h) in this process, not owned; cpu_hz converts its board
 * cycles to nanoseconds. The only transport whose clock is virtual time. */
xb_transport *transport_virtual_new(struct xb_dap *d, uint32_t cpu_hz);

/* The virtual probe behind the Unix socket at path (`xipbench sim serve --probe-socket`).
 * Fails with a message saying whether nothing is there or nobody listens. */
xb_transport *transport_socket_open(const char *path, xb_err *err);
/* The same over a connected stream socket fd (owned from now on, made non-blocking: a
 * socketpair to a virtual bench in this process); name is used in messages. */
xb_transport *transport_socket_adopt(int fd, const char *name);

/* A CMSIS-DAP probe found on USB. */
typedef struct xb_usb_probe {
	uint16_t vid, pid;
	uint8_t bus, address;
	char product[128];   /* empty when the device could not be opened */
	char serial[128];
	char version[8];     /* "v2" (bulk) or "v1" (HID) */
	int access_denied;   /* found by VID:PID, but the user may not open it */
} xb_usb_probe;

/* Every CMSIS-DAP probe on USB: v2 interfaces (class 0xFF, string with "CMSIS-DAP") and
 * v1 HID interfaces (product string with "CMSIS-DAP"), and known probes (the Raspberry Pi
 * Debug Probe 2E8A:000C) that the user may not open. *list is malloc'd (free it), *n may
 * be 0. Fails only when libusb itself cannot start (no USB in a container ...). */
int transport_usb_list(xb_usb_probe **list, size_t *n, xb_err *err);

/* Opens the probe whose serial number is serial (NULL: the only one there is; several
 * are an error that lists them), v2 bulk preferred over v1 HID on the same device.
 * Errors: "no CMSIS-DAP probe found" (with what to check), permission denied (with the
 * udev rule and group to use), a serial nobody has, a busy interface. */
xb_transport *transport_usb_open(const char *serial, xb_err *err);

#endif
