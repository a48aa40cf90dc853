/* usbhost_int: what the virtual USB host's two halves share: the bus engine and URBs
 * (usbhost.c) and the port, enumeration and class-driver side (usbhost_enum.c). Internal
 * to sim/. */
#ifndef XB_USBHOST_INT_H
#define XB_USBHOST_INT_H

#include "usbhost.h"

#define UH_EPS 32          /* endpoint table index: number * 2 + (IN ? 1 : 0); EP0 is 0 */
#define UH_MAX_STRINGS 256
#define UH_MAX_INTERFACES 32
#define UH_MAX_CONFIGS 8   /* Linux USB_MAXCONFIG */
#define UH_MAX_DRIVERS 4
#define UH_BUS_MA 500      /* a USB 2.0 root port's current budget (Linux bus_mA) */
/* A private transfer flag: the URB is not written to the monitor (xHCI's Address Device). */
#define UH_URB_UNMONITORED 0x80000000u

/* One endpoint as the host knows it. */
typedef struct uh_ep {
	uint8_t present, type, toggle, halted, intf;
	uint16_t mps;
	unsigned interval;     /* interrupt: frames (a power of 2) */
	uint32_t alt_mask;     /* the alternate settings of interface intf that hold it */
	uint64_t polled;       /* interrupt: 1 + the last frame it was polled in */
	xb_urb *head, *tail;
} uh_ep;

/* Port suspend phases (usbhost_suspend). */
enum uh_susp {
	UH_RUNNING = 0,
	UH_SUSPENDED,  /* no SOF, no transactions */
	UH_RESUMING,   /* resume signalling (K) */
	UH_RECOVERY,   /* SOFs again, no transactions yet (TRSMRCY) */
};

/* The transaction on the bus. */
enum uh_phase {
	UH_IDLE = 0,
	UH_START,       /* the bus is free: pick the next transaction */
	UH_IN_RESPONSE, /* an IN token was sent: the device answers now */
	UH_IN_END,      /* the IN data packet ends: the host's ACK */
	UH_OUT_END,     /* an OUT or SETUP data packet ends: the device's handshake */
};

struct xb_usbhost {
	xb_board *board;
	xb_usbctrl *dev;
	xb_usbmon *mon;
	xb_usbhost_options opt;
	uint32_t cpu_hz;
	/* frame clock */
	uint64_t t0, frame, frame_start, frame_event;
	unsigned bit;           /* bus free from this bit time of the current frame */
	unsigned bulk_in_frame; /* 64-byte bulk data packets in this frame */
	/* bus engine */
	uint64_t bus_event, bus_at;
	enum uh_phase phase;
	unsigned tx_start, tx_ep, tx_len, tx_kind;
	int tx_data1, tx_periodic;
	xb_urb *tx_urb;
	uint8_t tx_data[1024];
	unsigned rr, nak_streak, round_bits, wait_from, wait_round;
	int nak_wait;
	int in_event;
	uint64_t now;           /* the ideal time of the event being processed */
	/* port suspend (usbhost_suspend): UH_RUNNING or the phase, and the resume's event */
	int susp;
	uint64_t susp_event, susp_at;
	/* port and device */
	int vbus, enabled;
	enum xb_usbhost_state state;
	uint64_t port_event, port_at, timeout_event, timeout_at;
	unsigned address, next_address;
	uh_ep ep[UH_EPS];
	uint8_t intf_alt[UH_MAX_INTERFACES];
	/* enumeration */
	int step, tries, string_pos, resets;
	unsigned cur_string;
	uint16_t ep0_mps;
	xb_urb *enum_urb;
	uint8_t dev_desc[18];
	int have_dev_desc;
	uint8_t *config;        /* the chosen (active) configuration: one of configs[] */
	size_t config_len;
	uint8_t *configs[UH_MAX_CONFIGS]; /* every configuration read, in index order */
	size_t configs_len[UH_MAX_CONFIGS];
	unsigned nconfigs, cur_config; /* read so far; the index being read */
	int chosen;             /* bConfigurationValue usb_choose_configuration gave, or -1 */
	uint16_t langid;
	char *strings[UH_MAX_STRINGS];
	const xb_usbhost_driver *driver[UH_MAX_DRIVERS];
	void *driver_ctx[UH_MAX_DRIVERS];
	unsigned ndrivers;
	int driver_bound;       /* 1 + the index of the driver that claimed the device, or 0 */
	uint64_t next_id;
	xb_usbhost_stats stats;
};

/* usbhost.c, for usbhost_enum.c */
uint64_t usbhost_bus_now(const xb_usbhost *h);
/* Port enabled (SOFs, transactions) or not; disabling completes every queued URB with
 * status and forgets the endpoints but EP0 (max packet 64). */
void usbhost_bus_enable(xb_usbhost *h, int on, int status);
uh_ep *usbhost_bus_ep(xb_usbhost *h, uint8_t ep);
/* Schedules fn at cycle at; the handler finds the ideal time in h->now. */
uint64_t usbhost_bus_schedule(xb_usbhost *h, uint64_t at, xb_event_fn fn);
uint64_t usbhost_us(const xb_usbhost *h, uint32_t us);
/* An URB of the host's own with a copy of the request data (control helper). */
int usbhost_bus_control(xb_usbhost *h, uint8_t request_type, uint8_t request, uint16_t value,
			uint16_t index, const void *data, uint16_t length,
			xb_usbhost_control_fn done, void *ctx, xb_urb **out, int unmonitored);

/* usbhost_enum.c, for usbhost.c */
void usbhost_port_init(xb_usbhost *h);
void usbhost_port_free(xb_usbhost *h);
/* The device's pull-up or the cable changed. */
void usbhost_port_attach_changed(xb_usbhost *h);
/* A control URB completed successfully: what it changed on the device (address,
 * configuration, interface, halt) becomes the host's view too. */
void usbhost_port_note_control(xb_usbhost *h, const xb_urb *urb);

#endif
