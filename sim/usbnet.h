/* usbnet: what the virtual host's USB network class drivers (ecmhost, ncmhost, rndishost)
 * share, as Linux's usbnet is shared by cdc_ether, cdc_ncm and rndis_host: the URB slots
 * and their submission, the interrupt status URB, the iMACAddress string, CDC notifications,
 * the link callback and the queue of frames waiting for a bulk OUT URB. Internal to sim/. */
#ifndef XB_USBNET_H
#define XB_USBNET_H

#include <stddef.h>
#include <stdint.h>

#include "ecmhost.h"
#include "usbhost.h"

/* An URB with its buffer; the URB is first so that a completion finds the slot. */
typedef struct usbnet_slot {
	xb_urb urb;
	void *owner;      /* the class driver */
	uint8_t *buf;
	size_t frame_len; /* tx: the frame's length without framing or padding */
	unsigned frames;  /* tx (NCM): datagrams in the NTB */
	size_t *lens;     /* tx (NCM): their lengths */
	/* control (usbnet_control): the driver's completion, the timeout, when it was sent */
	xb_usbhost *h;
	xb_urb_complete_fn done;
	uint64_t timeout_event, sent_cycle;
	int timed_out;
} usbnet_slot;

/* How long a class driver waits for a control request, as usb_control_msg does
 * (USB_CTRL_SET_TIMEOUT, USB_CTRL_GET_TIMEOUT). */
#define USBNET_CTRL_TIMEOUT_MS 5000u

/* Fills s's URB (zeroed first: no flags, no interval) and submits it. */
int usbnet_submit(xb_usbhost *h, usbnet_slot *s, void *owner, uint8_t type, uint8_t ep,
		  uint8_t *buf, uint32_t len, xb_urb_complete_fn complete);
/* A control request on s: the SETUP packet, len bytes of data (copied from data when it is
 * not NULL, else s->buf is the IN buffer). Like usb_control_msg it waits 5 s at most: then
 * the URB is unlinked and complete sees XB_URB_ETIMEDOUT. */
int usbnet_control(xb_usbhost *h, usbnet_slot *s, void *owner, uint8_t rt, uint8_t req,
		   uint16_t value, uint16_t index, const uint8_t *data, uint16_t len,
		   xb_urb_complete_fn complete);
/* usbnet_open's status URB: interrupt IN, mps bytes, interval max(bInterval, 3). */
void usbnet_submit_status(xb_usbhost *h, usbnet_slot *s, void *owner, uint8_t ep,
			  uint16_t mps, uint8_t interval, xb_urb_complete_fn complete);
/* 1 when a completion only says the URB was unlinked or the driver is closing. */
int usbnet_urb_gone(const xb_urb *u, int closing);
/* n slots (zeroed); usbnet_slots_free frees each one's buffer and lengths, then the array. */
usbnet_slot *usbnet_slots_new(unsigned n);
void usbnet_slots_free(usbnet_slot *s, unsigned n);
/* A bulk OUT slot free for the next transfer: the first of n whose URB is not queued, or
 * NULL when none is or transfers already wait (waiting > 0: the order is kept). */
usbnet_slot *usbnet_idle_tx(usbnet_slot *tx, unsigned n, unsigned waiting);
/* Unlinks the queued URBs of n slots (s may be NULL). */
void usbnet_unlink(xb_usbhost *h, usbnet_slot *s, unsigned n);
/* A control request in words: "SET_INTERFACE (interface 1, alternate 1)". */
void usbnet_request_text(const uint8_t setup[8], char *out, size_t n);
/* Why a driver's bring-up stopped at the control request of s (its completion seen):
 * "cdc_ether: SET_INTERFACE (...) timed out after 5000 ms (Linux gives the device up)". */
void usbnet_failure_text(const usbnet_slot *s, const char *driver, char *out, size_t n);
/* What a driver waits for, when its control request of s is in flight: "cdc_ether waits
 * for SET_INTERFACE (...): unanswered for 812 ms". 0 when nothing is in flight. */
int usbnet_pending_text(const usbnet_slot *s, const char *driver, char *out, size_t n);
#define USBNET_WHY 200

/* What every class driver has (the first member of ecmhost, rndishost and ncmhost, as
 * struct usbnet is Linux's drivers'): the host, the options, the binding's state, the MAC
 * address, the control and status slots, the bulk slots, the counters and, when the
 * bring-up gave up, why. */
typedef struct usbnet_dev {
	xb_usbhost *h;
	xb_ecmhost_options opt;
	const char *name; /* the Linux driver it behaves as: "cdc_ether" ... */
	int bound, up, link, closing, failed;
	uint8_t mac[6];
	int have_mac;
	usbnet_slot ctl, status;
	usbnet_slot *rx, *tx;
	xb_ecmhost_stats stats;
	char why[USBNET_WHY];
} usbnet_dev;

/* The options with usbnet's defaults, a control buffer of ctl_buf bytes, and the driver
 * added to h (usbhost_add_driver with d's owner ctx). */
void usbnet_dev_init(usbnet_dev *d, xb_usbhost *h, const xb_ecmhost_options *o,
		     const char *name, size_t ctl_buf, const xb_usbhost_driver *drv, void *ctx);
/* A new binding: nothing bound, up, linked, failed or known. */
void usbnet_dev_probe(usbnet_dev *d);
/* The device went: not bound nor up, the link down (the callback hears of it). */
void usbnet_dev_disconnect(usbnet_dev *d);
/* Closing: the control, status and bulk URBs unlinked, the driver removed from the host
 * (drv, ctx as given to init). The driver then frees its own, and usbnet_dev_free. */
void usbnet_dev_close(usbnet_dev *d, const xb_usbhost_driver *drv, void *ctx);
void usbnet_dev_free(usbnet_dev *d);
/* The bring-up gives up at the request in d->ctl; why says so. */
void usbnet_dev_fail(usbnet_dev *d);
/* *_trouble: why the bring-up gave up, else (while bound and not up) its request in flight. */
int usbnet_dev_trouble(const usbnet_dev *d, char *out, size_t n);
/* The MAC address read from the device, NULL before. */
const uint8_t *usbnet_dev_mac(const usbnet_dev *d);
/* Defines a driver's public getters over its usbnet_dev d (ecmhost.h documents them):
 * PREFIX_up, PREFIX_link, PREFIX_mac, PREFIX_stats and PREFIX_trouble. */
#define USBNET_DEV_GETTERS(prefix, type)                                                 \
	int prefix##_up(const type *x) { return x->d.up; }                               \
	int prefix##_link(const type *x) { return x->d.link; }                           \
	const uint8_t *prefix##_mac(const type *x) { return usbnet_dev_mac(&x->d); }     \
	void prefix##_stats(const type *x, xb_ecmhost_stats *out) { *out = x->d.stats; } \
	int prefix##_trouble(const type *x, char *out, size_t n)                         \
	{                                                                                \
		return usbnet_dev_trouble(&x->d, out, n);                                \
	}

/* The options with usbnet's defaults for counts left 0 (o may be NULL). */
void usbnet_options(xb_ecmhost_options *opt, const xb_ecmhost_options *o);
/* The link goes to up; the callback hears of a change only. */
void usbnet_set_link(int *link, const xb_ecmhost_options *opt, int up);

/* usbnet_get_ethernet_addr: the iMACAddress string d (n bytes) with exactly 12 hex digits
 * into mac; -1 when it is not one. */
int usbnet_parse_mac(uint8_t mac[6], const uint8_t *d, uint32_t n);
/* A CDC notification (CDC 1.2, 6.3) of n bytes in d: NETWORK_CONNECTION gives the new
 * link (0 or 1), CONNECTION_SPEED_CHANGE is read whole or split over two transfers (*split
 * remembers the first half). Returns -1 when the link is not concerned. */
int usbnet_notification(xb_ecmhost_stats *st, int *split, const uint8_t *d, uint32_t n);

/* Frames waiting for a bulk OUT URB: a ring of copies. */
typedef struct usbnet_queue {
	uint8_t **frames;
	size_t *lens;
	unsigned head, count, cap;
} usbnet_queue;
void usbnet_queue_init(usbnet_queue *q, unsigned cap);
/* Copies the frame in; -1 when the queue is full. */
int usbnet_queue_push(usbnet_queue *q, const uint8_t *frame, size_t len);
/* The oldest frame (the caller frees it), NULL when none waits. */
uint8_t *usbnet_queue_pop(usbnet_queue *q, size_t *len);
/* Drops every waiting frame; usbnet_queue_free also the ring. */
void usbnet_queue_clear(usbnet_queue *q);
void usbnet_queue_free(usbnet_queue *q);

/* One frame per bulk OUT transfer (CDC-ECM, RNDIS): xmit frames and submits it in s. */
typedef int (*usbnet_xmit_fn)(void *drv, usbnet_slot *s, const uint8_t *frame, size_t len);
/* usbnet_start_xmit: the frame goes into the first idle one of n tx slots, else waits in q
 * (order kept); a failure counts as dropped. 0, or -1 when it was dropped. The caller has
 * checked that the interface is up and the length. */
int usbnet_xmit(usbnet_slot *tx, unsigned n, usbnet_queue *q, xb_ecmhost_stats *st,
		usbnet_xmit_fn xmit, void *drv, const uint8_t *frame, size_t len);
/* A one-frame bulk OUT URB completed: counts it, then (unless closing) tells opt->tx_done
 * and, while *up (read after the callback), gives s the next waiting frame. */
void usbnet_tx_complete(usbnet_slot *s, const xb_ecmhost_options *opt, usbnet_queue *q,
			xb_ecmhost_stats *st, int closing, const int *up, usbnet_xmit_fn xmit,
			void *drv);

#endif
