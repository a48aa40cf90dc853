/* udc.h: the USB device controller layer: a generic part (endpoint configurations with
 * their queues of transfer buffers, buffer pools, events to the USB device stack) over one
 * controller driver (drivers/udc_rp2040.c). A transfer is a net_buf whose user data holds
 * its endpoint and flags; it comes back to the stack in a UDC_EVT_EP_REQUEST event. */
#ifndef DRIVERS_UDC_H
#define DRIVERS_UDC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/kernel.h"
#include "net/net_buf.h"

#define USB_EP_DIR_IN 0x80u
#define USB_EP_IDX(ep) ((ep) & 0x0Fu)
#define USB_EP_IS_IN(ep) (((ep) & USB_EP_DIR_IN) != 0)
#define USB_EP0_OUT 0x00u
#define USB_EP0_IN 0x80u
#define USB_EP0_MPS 64u
#define USB_NUM_EP 16

enum usb_ep_type {
	USB_EP_CONTROL = 0,
	USB_EP_ISO = 1,
	USB_EP_BULK = 2,
	USB_EP_INTERRUPT = 3,
};

/* A transfer's state, in its buffer's user data. */
struct udc_buf_info {
	uint8_t ep;
	uint8_t setup : 1;  /* a SETUP packet (EP0 OUT) */
	uint8_t data : 1;   /* a control data stage */
	uint8_t status : 1; /* a control status stage */
	uint8_t zlp : 1;    /* IN: end with a zero-length packet if the length is a multiple of
			     * the packet size */
	int16_t err;        /* 0, -ECONNRESET (bus reset), -ECONNABORTED (dequeued), -EOVERFLOW */
	uint16_t size;      /* OUT: bytes expected at most (ends early at a short packet) */
	uint32_t timestamp; /* k_cycle_get_32() when the controller finished it (the last
			     * packet's interrupt) */
};

static inline struct udc_buf_info *udc_get_buf_info(const struct net_buf *buf)
{
	return (struct udc_buf_info *)net_buf_user_data(buf);
}

static inline void udc_ep_buf_set_zlp(struct net_buf *buf)
{
	udc_get_buf_info(buf)->zlp = 1;
}

enum udc_event_type {
	UDC_EVT_RESET,
	UDC_EVT_SUSPEND,
	UDC_EVT_RESUME,
	UDC_EVT_EP_REQUEST, /* buf: a finished (or cancelled) transfer, or a SETUP */
	UDC_EVT_ERROR,
};

struct udc_event {
	uint8_t type;
	int16_t status;
	struct net_buf *buf;
};

/* Receives every event, from the driver's thread or its interrupt handler: it must only
 * queue it. 0, or a negative errno when it could not. */
typedef int (*udc_event_cb_t)(const struct udc_event *ev);

struct udc_ep_stats {
	uint32_t packets, bytes, transfers, errors;
};

struct udc_ep_config {
	struct k_fifo fifo; /* queued transfer buffers; the head one is in progress */
	struct udc_ep_stats stats;
	uint16_t mps;
	uint8_t addr;
	uint8_t attributes; /* enum usb_ep_type */
	bool enabled, busy, halted;
};

/* What a controller driver provides. */
struct udc_api {
	int (*init)(void);
	int (*enable)(void);  /* connect to the bus */
	int (*disable)(void);
	int (*set_address)(uint8_t addr);
	int (*ep_enable)(struct udc_ep_config *cfg);
	int (*ep_disable)(struct udc_ep_config *cfg);
	/* buf is already at the tail of cfg->fifo: start it when the endpoint is idle. */
	int (*ep_enqueue)(struct udc_ep_config *cfg, struct net_buf *buf);
	/* Takes every buffer back (each reported with -ECONNABORTED). */
	int (*ep_dequeue)(struct udc_ep_config *cfg);
	int (*ep_set_halt)(struct udc_ep_config *cfg);
	int (*ep_clear_halt)(struct udc_ep_config *cfg);
};

/* ---- For the USB device stack ---- */

/* Sets up the generic layer and the controller (not connected). */
int udc_init(udc_event_cb_t cb);
int udc_enable(void);
int udc_disable(void);
/* The address applies after the status stage of the current control transfer. */
int udc_set_address(uint8_t addr);
int udc_ep_enable(uint8_t ep, enum usb_ep_type type, uint16_t mps);
int udc_ep_disable(uint8_t ep);
int udc_ep_set_halt(uint8_t ep);
int udc_ep_clear_halt(uint8_t ep);
bool udc_ep_is_halted(uint8_t ep);
/* Queues a transfer. 0, or -ENODEV (endpoint not enabled) / -EINVAL. */
int udc_ep_enqueue(struct net_buf *buf);
/* Cancels ep's queued transfers. */
int udc_ep_dequeue(uint8_t ep);
/* A transfer buffer for ep with room for size bytes (NULL: none free). */
struct net_buf *udc_ep_buf_alloc(uint8_t ep, size_t size);
void udc_ep_buf_free(struct net_buf *buf);

struct udc_stats {
	uint32_t events, events_dropped, enqueued, buf_alloc_failures;
};
void udc_stats_get(struct udc_stats *s);
/* One endpoint's counters (zeros for an unknown endpoint). */
void udc_ep_stats_get(uint8_t ep, struct udc_ep_stats *s);

/* ---- For controller drivers ---- */

void udc_register_api(const struct udc_api *api);
struct udc_ep_config *udc_get_ep_cfg(uint8_t ep);
/* The transfer in progress (head of the queue), without / with removing it. */
struct net_buf *udc_buf_peek(struct udc_ep_config *cfg);
struct net_buf *udc_buf_get(struct udc_ep_config *cfg);
static inline bool udc_ep_is_busy(const struct udc_ep_config *cfg)
{
	return cfg->busy;
}
static inline void udc_ep_set_busy(struct udc_ep_config *cfg, bool busy)
{
	cfg->busy = busy;
}
int udc_submit_event(enum udc_event_type type, int status);
/* A transfer is done (err 0) or cancelled: it goes to the stack. */
int udc_submit_ep_event(struct net_buf *buf, int err);

/* The RP2040 driver (drivers/udc_rp2040.c). */
void udc_rp2040_register(void);

#endif
