/* usb_internal: what the USB transports (transport_usb*.c) share: an opened, claimed
 * CMSIS-DAP interface and libusb error messages. Internal to probe/. */
#ifndef XB_PROBE_USB_INTERNAL_H
#define XB_PROBE_USB_INTERNAL_H

#include <libusb-1.0/libusb.h>

#include "transport.h"

#define USB_HID_SET_REPORT 0x09
#define USB_HID_REPORT_OUTPUT 0x02

typedef struct usb_async usb_async;

typedef struct usb_link {
	xb_transport base;
	libusb_context *ctx;
	libusb_device_handle *handle;
	int iface;
	int hid;           /* CMSIS-DAP v1: HID reports */
	uint8_t ep_out;    /* 0 for a HID interface without an OUT endpoint (SET_REPORT) */
	uint8_t ep_in;
	size_t report;     /* HID: the report size (the IN endpoint's wMaxPacketSize) */
	usb_async *async;  /* the asynchronous transfers of submit / ready / collect */
} usb_link;

/* Fills err from a libusb error rc of the operation what ("reading a response"), naming
 * the probe: a vanished probe, a timeout, a stall, permission ... */
int transport_usb_fail(const usb_link *u, const char *what, int rc, xb_err *err);
/* Releases the interface, closes the device and libusb; frees u. */
void transport_usb_close(xb_transport *t);

/* ---- Asynchronous transfers (transport_usb_async.c) ----
 * Requests go out as libusb asynchronous OUT transfers (bulk, interrupt, or SET_REPORT
 * on a HID interface without an OUT endpoint); one IN transfer is kept submitted while
 * responses are due, and what it brings is kept in order (zero-length packets between
 * bulk responses are skipped). libusb's descriptors sit in one epoll descriptor, so a
 * caller polls one fd. Nothing here waits except usb_async_collect (up to the timeout). */

/* Sets the transfers up after the interface was claimed. */
int usb_async_start(usb_link *u, xb_err *err);
/* Cancels what is in flight (waiting a little for libusb to give it back) and frees. */
void usb_async_stop(usb_link *u);
/* Sends buf[0..len) (a HID report already padded) without waiting for it. */
int usb_async_submit(usb_link *u, const uint8_t *buf, size_t len, xb_err *err);
/* Handles libusb's events without waiting; 1 when a response is there, 0 not yet, -1 with
 * err when a transfer failed. */
int usb_async_ready(usb_link *u, xb_err *err);
/* The oldest response, waiting for it up to the transport's timeout. */
int usb_async_collect(usb_link *u, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err);
/* The epoll descriptor that is readable when libusb has events to handle (-1: none). */
int usb_async_fd(const usb_link *u);

extern const xb_transport_ops transport_usb_bulk_ops;
extern const xb_transport_ops transport_usb_hid_ops;

#endif
