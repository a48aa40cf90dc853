/* usbhost: a virtual full-speed USB host controller with one root port, driving the virtual
 * Pico's USB device controller in virtual time: frames, SOF, transactions with bus-time
 * accounting, URBs, Linux-style enumeration, class drivers, usbmon records. */
#ifndef XB_USBHOST_H
#define XB_USBHOST_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "usbctrl.h"
#include "usbmon.h"

/*
 * Time (docs/sim.md, "USB controller, virtual host and usbmon", has every figure):
 *
 *  - The host's frame clock starts at usbhost_new: frame n begins at cycle t0 + n * cpu_hz /
 *    1000 (1 ms). While the port is enabled each frame starts with a SOF (frame number n mod
 *    2048); the device controller sees it (SOF_RD, DEV_SOF).
 *  - Bus time is counted in full-speed bit times (12 Mbit/s, 12,000 per frame). A SOF costs
 *    35; a transaction with n data bytes costs 104 + 8n (token, data, handshake, two
 *    turnarounds: USB 2.0's 13 bytes of protocol overhead); an IN answered by NAK or STALL
 *    61; a transaction without an answer 53 (IN) or 95 + 8n (OUT, SETUP). A transaction is
 *    only started if its worst case ends 32 bit times before the frame ends, so at most 19
 *    64-byte bulk packets fit in a frame.
 *  - The device decides an IN handshake 42 bit times after the transaction starts (token +
 *    turnaround) and sees the host's ACK at its end; OUT and SETUP are decided at their end.
 *  - In each frame: SOF, then every interrupt endpoint due in that frame (interval in
 *    frames: frame % interval == 0) gets one transaction, then control and bulk endpoints with
 *    work take turns (round robin, one transaction each). NAKed transactions are retried on
 *    the next turn. When every control and bulk endpoint with work has NAKed in a row, the
 *    host stops polling until the device's driver writes a register or an endpoint or buffer
 *    control word (or the next frame); it then resumes on the same retry grid (the first
 *    multiple of that NAK round from where it stopped), so the results are those of
 *    continuous polling without its cost. If the driver asked to be told about NAKs
 *    (usbctrl_reports_nak), the host keeps polling instead.
 *  - Three transactions in a row without an answer fail an URB with -EPROTO.
 *
 * The port (Linux hub driver timings): a device that presents its pull-up is debounced for
 * 100 ms, reset for 50 ms (SE0) and given 50 ms of recovery (TRSTRCY 10 ms plus Linux's 40).
 * Enumeration then runs as Linux's "new scheme" (options.scheme has the others):
 * GET_DESCRIPTOR(DEVICE, 64) at address 0, a second reset and recovery, SET_ADDRESS
 * (addresses from 2, the root hub being 1, then the next one on every new connection),
 * 10 ms, GET_DESCRIPTOR(DEVICE, 18),
 * for each of bNumConfigurations (at most 8) GET_DESCRIPTOR(CONFIGURATION i, 9) then
 * wTotalLength, the LANGID string (255 bytes) and iProduct, iManufacturer, iSerialNumber,
 * SET_CONFIGURATION(the one usb_choose_configuration picks: usbhost_choose_configuration
 * below; none chosen: XB_USBHOST_FAILED), then the
 * iConfiguration and iInterface strings, and the class driver's probe. Requests follow each
 * other without delay; every failure retries the step up to 3 times, then the port gives
 * up (XB_USBHOST_FAILED) until the device disconnects.
 *
 * Every URB submission and completion is written to the monitor (usbhost_set_monitor) at its
 * virtual time, as Linux's usbmon records them; a submission refused by the host controller
 * is an 'S' followed by an 'E'.
 *
 * Everything runs inside board events and the calls below; a host is used by the thread that
 * runs its board. Free it before the board (it cancels its events).
 */

/* Linux errno values: URB statuses, also written to usbmon records. */
enum {
	XB_URB_OK = 0,
	XB_URB_ENOENT = -2,      /* unlinked by usbhost_unlink */
	XB_URB_ENODEV = -19,     /* submitted with no device to send it to */
	XB_URB_EINVAL = -22,     /* malformed URB, or no such endpoint */
	XB_URB_EBUSY = -16,      /* already submitted */
	XB_URB_EPIPE = -32,      /* the endpoint answered STALL */
	XB_URB_EPROTO = -71,     /* no handshake three times */
	XB_URB_EOVERFLOW = -75,  /* babble: more data than wMaxPacketSize or the buffer */
	XB_URB_ESHUTDOWN = -108, /* the device went away */
	XB_URB_ETIMEDOUT = -110, /* a class driver's control request timed out (the URB itself
				  * is unlinked: -2 in usbmon, as usb_control_msg does) */
	XB_URB_EINPROGRESS = -115,
	XB_URB_EREMOTEIO = -121, /* short transfer with XB_URB_SHORT_NOT_OK */
};

/* Transfer flags (Linux's URB transfer_flags; they appear in usbmon records). */
#define XB_URB_SHORT_NOT_OK 0x0001u
#define XB_URB_ZERO_PACKET 0x0040u  /* OUT: end a transfer of whole packets with a ZLP */
#define XB_URB_FREE_BUFFER 0x0100u  /* recorded only (usbnet's interrupt URB sets it) */
#define XB_URB_DIR_IN 0x0200u       /* set by usbhost_submit from the direction */

typedef struct xb_usbhost xb_usbhost;
typedef struct xb_urb xb_urb;
typedef void (*xb_urb_complete_fn)(xb_urb *urb);

/* An URB. The submitter owns it and its buffer until the completion callback runs (that
 * callback may resubmit it or free it). Zero it before the first use. */
struct xb_urb {
	/* Set by the submitter. */
	uint8_t type;        /* XB_USBMON_CONTROL, XB_USBMON_BULK or XB_USBMON_INTERRUPT */
	uint8_t endpoint;    /* bEndpointAddress (number | 0x80 for IN); 0 for control */
	uint8_t setup[8];    /* control: the request (its direction and wLength rule) */
	uint8_t *buffer;     /* length bytes: data to send, or room for data received */
	uint32_t length;     /* control: must equal wLength */
	uint32_t flags;      /* XB_URB_SHORT_NOT_OK, XB_URB_ZERO_PACKET, XB_URB_FREE_BUFFER */
	int interval;        /* interrupt: frames, rounded down to a power of 2 (max 128) */
	xb_urb_complete_fn complete;
	void *context;
	/* Set by the host. */
	int status;          /* XB_URB_EINPROGRESS while queued, then 0 or an error */
	uint32_t actual;     /* bytes transferred */
	uint64_t id;         /* usbmon id, given at the first submission and kept after */
	uint64_t done_cycle; /* virtual time of the completion */
	/* Private to the host. */
	xb_urb *next;
	uint8_t stage, toggle, errors, dir_in, devnum, queued;
};

/* How the first requests go (Linux hub_port_init). */
enum xb_usbhost_scheme {
	XB_USBHOST_NEW_SCHEME = 0, /* default (EHCI/OHCI/UHCI root ports): GET_DESCRIPTOR(DEVICE,
				    * 64) at address 0, a second reset, SET_ADDRESS, 18 bytes */
	XB_USBHOST_OLD_SCHEME,     /* SET_ADDRESS, GET_DESCRIPTOR(DEVICE, 8), then 18 */
	XB_USBHOST_XHCI,           /* as the old scheme, but SET_ADDRESS is the controller's
				    * Address Device command: on the bus, not in usbmon */
};

typedef struct xb_usbhost_options {
	uint16_t bus;           /* usbmon bus number (default 1) */
	enum xb_usbhost_scheme scheme;
	uint32_t debounce_us;   /* default 100000 */
	uint32_t reset_us;      /* default 50000 */
	uint32_t recovery_us;   /* default 50000 */
	int manual;             /* 1: reset and enable the port but do not enumerate; the caller
				 * declares endpoints (usbhost_add_endpoint) and submits URBs to
				 * address 0 */
} xb_usbhost_options;

/* A host on board b whose root port has dev plugged in (VBUS on). o may be NULL. */
xb_usbhost *usbhost_new(xb_board *b, xb_usbctrl *dev, const xb_usbhost_options *o);
void usbhost_free(xb_usbhost *h);

/* Where records go (NULL: nowhere). The monitor must outlive the host or be replaced. */
void usbhost_set_monitor(xb_usbhost *h, xb_usbmon *m);

/* Plugs (1) or unplugs (0) the cable: VBUS and the port's connection. */
void usbhost_set_vbus(xb_usbhost *h, int on);
/* Suspends (on = 1) or resumes (on = 0) the enabled port, as Linux's hub driver does
 * (USB 2.0 7.1.7.6-7): suspended, the bus is idle (no SOF, no transactions: queued URBs
 * wait) and the device suspends 3 ms later; resuming drives K for 40 ms (Linux
 * USB_RESUME_TIMEOUT), then SOFs run again and transactions follow 10 ms later (TRSMRCY).
 * A port reset or disconnect ends either. Returns 0, or -1 when the port is not enabled
 * (or already in that state). */
int usbhost_suspend(xb_usbhost *h, int on);
/* 1 while the port is suspended or resuming (no transactions). */
int usbhost_suspended(const xb_usbhost *h);

enum xb_usbhost_state {
	XB_USBHOST_DETACHED = 0, /* no device, or no cable */
	XB_USBHOST_DEBOUNCE,     /* a pull-up appeared; waiting for it to be stable */
	XB_USBHOST_RESETTING,    /* port reset and recovery */
	XB_USBHOST_ENUMERATING,  /* the enumeration requests */
	XB_USBHOST_CONFIGURED,   /* configured; the class driver has been offered it */
	XB_USBHOST_READY,        /* manual mode: port enabled, no enumeration */
	XB_USBHOST_FAILED,       /* enumeration gave up; waiting for a disconnect */
};
enum xb_usbhost_state usbhost_state(const xb_usbhost *h);
const char *usbhost_state_name(enum xb_usbhost_state s);

/* ---- URBs ---- */

/* Queues urb on its endpoint and writes its 'S' record. Returns 0, or a negative errno
 * without queueing it or writing anything: XB_URB_ENODEV (no device), XB_URB_EINVAL (no
 * such endpoint, wrong type, length differs from wLength, no buffer), XB_URB_EBUSY (already
 * queued), XB_URB_ENOENT (the endpoint is not in its interface's current alternate
 * setting). XB_URB_ESHUTDOWN means the port is being reset: the 'S' record is followed by
 * an 'E'. */
int usbhost_submit(xb_usbhost *h, xb_urb *urb);
/* Completes a queued URB with XB_URB_ENOENT now (its callback runs before this returns).
 * Returns 0, or -1 when urb is not queued. */
int usbhost_unlink(xb_usbhost *h, xb_urb *urb);

/* A control request with its own URB and buffer (data is copied for OUT requests).
 * done(ctx, status, data, actual) runs at completion; data is valid during the call only.
 * Returns what usbhost_submit returned (done is not called on failure). */
typedef void (*xb_usbhost_control_fn)(void *ctx, int status, const uint8_t *data,
				      uint32_t actual);
int usbhost_control(xb_usbhost *h, uint8_t request_type, uint8_t request, uint16_t value,
		    uint16_t index, const void *data, uint16_t length,
		    xb_usbhost_control_fn done, void *ctx);
/* CLEAR_FEATURE(ENDPOINT_HALT) on ep (bEndpointAddress), then the endpoint's toggle is
 * DATA0 and its queue runs again. done may be NULL. */
int usbhost_clear_halt(xb_usbhost *h, uint8_t ep, xb_usbhost_control_fn done, void *ctx);

/* Manual mode: declares an endpoint (bEndpointAddress, XB_USBMON_* type, max packet size,
 * interval in frames for interrupt endpoints). Returns 0 or -1 for a bad endpoint. */
int usbhost_add_endpoint(xb_usbhost *h, uint8_t ep, uint8_t type, uint16_t max_packet,
			 unsigned interval);

/* ---- Class drivers ---- */

typedef struct xb_usbhost_driver {
	/* A device was configured: config is its active configuration (all wTotalLength
	 * bytes, valid until disconnect). Return 1 to claim it. */
	int (*probe)(void *ctx, xb_usbhost *h, const uint8_t *config, size_t len);
	/* The claimed device went away; its URBs have all completed (XB_URB_ESHUTDOWN). */
	void (*disconnect)(void *ctx);
} xb_usbhost_driver;
/* One driver (a second call replaces the first, and every driver added). */
void usbhost_set_driver(xb_usbhost *h, const xb_usbhost_driver *d, void *ctx);
/* One more driver (at most 4): after SET_CONFIGURATION the drivers are offered the active
 * configuration in the order they were added, and the first that claims it is bound.
 * Returns 0 or -1 (full). */
int usbhost_add_driver(xb_usbhost *h, const xb_usbhost_driver *d, void *ctx);
/* Forgets d with ctx (a bound one is not told). */
void usbhost_remove_driver(xb_usbhost *h, const xb_usbhost_driver *d, void *ctx);

/* ---- Configurations ---- */

/* Linux's usb_choose_configuration (drivers/usb/core/generic.c) over the configurations
 * read: the bConfigurationValue it gives, or -1 (none). The rule is spelled out in
 * sim/usbhost_enum.c; in short, the first configuration whose first interface is not
 * vendor-specific, where a first configuration of several that is RNDIS by class 2/2/0xFF
 * (or ActiveSync) gives way to a later one, and configurations asking for more than 500 mA
 * are skipped. */
int usbhost_choose_configuration(const xb_usbhost *h);
/* The value chosen at the last enumeration (-1 before, or when none was). */
int usbhost_chosen_configuration(const xb_usbhost *h);
/* Configurations read (bNumConfigurations once enumerated) and each one (index order; NULL
 * past the end). */
unsigned usbhost_num_configs(const xb_usbhost *h);
const uint8_t *usbhost_config_at(const xb_usbhost *h, unsigned index, size_t *len);

/* ---- What the host knows ---- */

/* The device's address (0 before SET_ADDRESS), its device descriptor (18 bytes, NULL
 * before it was read), its configuration (NULL before), a string it read (ASCII, '?' for
 * other characters; NULL if not read). */
unsigned usbhost_address(const xb_usbhost *h);
const uint8_t *usbhost_device_descriptor(const xb_usbhost *h);
const uint8_t *usbhost_config(const xb_usbhost *h, size_t *len);
const char *usbhost_string(const xb_usbhost *h, unsigned index);
/* The language ID the host read (string descriptor 0's first entry), 0 if none. */
uint16_t usbhost_langid(const xb_usbhost *h);
/* The board the host runs on, and the virtual time (cycles) of the event being handled
 * (the board's cycle count outside host events): class drivers time their waits from it. */
xb_board *usbhost_board(const xb_usbhost *h);
uint64_t usbhost_now(const xb_usbhost *h);
/* The current frame number (11 bits) and the count of frames since usbhost_new. */
unsigned usbhost_frame_number(const xb_usbhost *h);

typedef struct xb_usbhost_stats {
	uint64_t frames, sofs;
	uint64_t transactions;      /* all, NAKed ones included */
	uint64_t naks, stalls, timeouts;
	uint64_t data_packets;      /* transactions that moved a data packet (ZLPs included) */
	uint64_t bytes_out, bytes_in;
	unsigned max_bulk_per_frame;/* most 64-byte bulk data packets seen in one frame */
	uint64_t urbs_submitted, urbs_completed;
	uint64_t enumerations;      /* devices configured */
} xb_usbhost_stats;
void usbhost_stats(const xb_usbhost *h, xb_usbhost_stats *out);

#endif
