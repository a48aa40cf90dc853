/* usbd_internal.h: what the parts of the USB device stack share: device state, the class
 * list, descriptors, control transfers. */
#ifndef USBD_INTERNAL_H
#define USBD_INTERNAL_H

#include "usb/usbd.h"

#define USBD_MAX_CLASSES 2
#define USBD_MAX_INTERFACES 4
#define USBD_CONFIG_DESC_MAX 256

struct usbd_device {
	enum usbd_state state;
	uint8_t address;
	uint8_t configuration; /* 0: not configured */
	uint8_t alt[USBD_MAX_INTERFACES];
	bool suspended;
	struct usbd_class *classes[USBD_MAX_CLASSES];
	struct usbd_class *ep_owner[USB_NUM_EP][2];
	uint8_t num_classes;
	uint8_t num_interfaces;
	struct usbd_stats stats;
};

extern struct usbd_device usbd_dev;

/* usbd_desc.c: descriptor answers. Each returns the bytes written to buf (at most len) or
 * a negative errno when there is no such descriptor. */
int usbd_desc_build_config(void);
int usbd_desc_get(uint8_t type, uint8_t index, uint8_t *buf, size_t len);
int usbd_desc_set_string(uint8_t idx, const char *s);

/* usbd_ch9.c: control transfers: every EP0 buffer (SETUP, data, status) comes here. */
void usbd_ch9_init(void);
void usbd_ch9_request(struct net_buf *buf, int err);
void usbd_ch9_reset(void);

/* usbd_core.c: class helpers for chapter 9. */
struct usbd_class *usbd_class_for_iface(uint8_t iface);
void usbd_classes_config(bool configured);

#endif
