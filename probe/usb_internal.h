/* usb_internal: what the USB transports (transport_usb*.c) share: an opened, claimed
 * CMSIS-DAP interface and libusb error messages. Internal to probe/. */
#ifndef XB_PROBE_USB_INTERNAL_H
#define XB_PROBE_USB_INTERNAL_H

#include <libusb-1.0/libusb.h>

#include "transport.h"

typedef struct usb_link {
	xb_transport base;
	libusb_context *ctx;
	libusb_device_handle *handle;
	int iface;
	uint8_t ep_out;    /* 0 for a HID interface without an OUT endpoint (SET_REPORT) */
	uint8_t ep_in;
	size_t report;     /* HID: the report size (the IN endpoint's wMaxPacketSize) */
} usb_link;

/* Fills err from a libusb error rc of the operation what ("reading a response"), naming
 * the probe: a vanished probe, a timeout, a stall, permission ... */
int transport_usb_fail(const usb_link *u, const char *what, int rc, xb_err *err);
/* Releases the interface, closes the device and libusb; frees u. */
void transport_usb_close(xb_transport *t);

extern const xb_transport_ops transport_usb_bulk_ops;
extern const xb_transport_ops transport_usb_hid_ops;

#endif
