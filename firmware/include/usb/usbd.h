/* usbd.h: the USB device stack: device state, chapter 9 requests, descriptors, and the
 * interface to class drivers. Controller events (drivers/udc.h) are handled in the stack's
 * own thread; class callbacks and transfer completions run there. */
#ifndef USB_USBD_H
#define USB_USBD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/udc.h"
#include "usb/usb_ch9.h"

struct usbd_class;

struct usbd_class_api {
	/* The configuration was selected (true) or lost (false: bus reset, SET_CONFIGURATION 0). */
	void (*config)(struct usbd_class *c, bool configured);
	/* SET_INTERFACE for one of the class's interfaces. 0, or a negative errno (stall). */
	int (*set_alt)(struct usbd_class *c, uint8_t iface, uint8_t alt);
	/* A class request to one of its interfaces. For a device-to-host request write up to
	 * *len bytes to data and set *len; for host-to-device data is what came. 0 or a
	 * negative errno (stall). */
	int (*control)(struct usbd_class *c, const struct usb_setup_packet *setup, uint8_t *data,
		       size_t *len);
	/* A transfer on one of the class's endpoints finished (err 0) or was cancelled (a
	 * negative errno). The class owns buf from here (usbd_ep_buf_free). */
	int (*request)(struct usbd_class *c, struct net_buf *buf, int err);
	void (*suspended)(struct usbd_class *c, bool suspended);
};

struct usbd_class {
	const char *name;
	const struct usbd_class_api *api;
	const uint8_t *desc; /* its descriptors in the configuration (interfaces onwards) */
	size_t desc_len;
	uint8_t first_iface, num_ifaces;
	void *priv;
};

enum usbd_state { USBD_DETACHED, USBD_DEFAULT, USBD_ADDRESSED, USBD_CONFIGURED };

/* String descriptor indices */
#define USBD_STR_LANGID 0
#define USBD_STR_MANUFACTURER 1
#define USBD_STR_PRODUCT 2
#define USBD_STR_SERIAL 3
#define USBD_STR_CLASS_FIRST 4
#define USBD_STR_MAX 6

/* Sets up the controller and the stack's thread (not yet on the bus). */
int usbd_init(void);
/* One class (the configuration is built from the registered classes in order). */
int usbd_register_class(struct usbd_class *c);
/* Sets string descriptor idx (ASCII; kept by pointer). */
int usbd_set_string(uint8_t idx, const char *s);
/* Builds the configuration and connects to the bus. */
int usbd_enable(void);

enum usbd_state usbd_state_get(void);
/* Endpoint helpers for classes. usbd_ep_enable makes c the owner of ep: its transfers come
 * back through c's request callback. */
int usbd_ep_enable(struct usbd_class *c, uint8_t ep, enum usb_ep_type type, uint16_t mps);
int usbd_ep_disable(uint8_t ep);
/* A transfer buffer for ep (NULL: none free). */
struct net_buf *usbd_ep_buf_alloc(struct usbd_class *c, uint8_t ep, size_t size);
void usbd_ep_buf_free(struct net_buf *buf);
/* Queues buf on its endpoint; 0, or a negative errno (the buffer stays the caller's). */
int usbd_ep_enqueue(struct usbd_class *c, struct net_buf *buf);
int usbd_ep_dequeue(uint8_t ep);

struct usbd_stats {
	uint32_t setups, stalls, std_requests, class_requests, xfers_completed, resets;
	uint32_t events_dropped;
	uint8_t configuration, address;
};
void usbd_stats_get(struct usbd_stats *s);

#endif
