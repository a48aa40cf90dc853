/* transport_usb_hid: CMSIS-DAP v1 over libusb: HID reports of the endpoint's size (report
 * ID 0, zero padded) through the interrupt endpoints, or SET_REPORT when the interface has
 * no OUT endpoint. Responses are whole reports: the trailing padding is the client's to
 * ignore. Synchronous for xfer, asynchronous (transport_usb_async.c) for submit, ready
 * and collect. */
#include <string.h>

#include "usb_internal.h"

/* The request zero padded to a whole report. */
static int hid_report(usb_link *u, const uint8_t *req, size_t len, uint8_t *report, xb_err *err)
{
	if (len > u->report)
		return xb_fail(err, "%s: a request of %zu bytes does not fit a %zu-byte report",
			       u->base.name, len, u->report);
	memset(report, 0, u->report);
	memcpy(report, req, len);
	return 0;
}

static int hid_send(xb_transport *t, const uint8_t *req, size_t len, xb_err *err)
{
	usb_link *u = (usb_link *)t;
	uint8_t report[TRANSPORT_PACKET_MAX];
	if (hid_report(u, req, len, report, err))
		return -1;
	int rc, sent = 0;
	if (u->ep_out) {
		rc = libusb_interrupt_transfer(u->handle, u->ep_out, report, (int)u->report, &sent,
					       t->timeout_ms);
	} else {
		rc = libusb_control_transfer(
			u->handle,
			LIBUSB_ENDPOINT_OUT | LIBUSB_REQUEST_TYPE_CLASS | LIBUSB_RECIPIENT_INTERFACE,
			USB_HID_SET_REPORT, USB_HID_REPORT_OUTPUT << 8, (uint16_t)u->iface, report,
			(uint16_t)u->report, t->timeout_ms);
		sent = rc;
		rc = rc < 0 ? rc : 0;
	}
	if (rc)
		return transport_usb_fail(u, "sending a report", rc, err);
	if ((size_t)sent != u->report)
		return xb_fail(err, "%s: sent %d of %zu bytes of a report", t->name, sent, u->report);
	return 0;
}

static int hid_receive(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err)
{
	usb_link *u = (usb_link *)t;
	uint8_t report[TRANSPORT_PACKET_MAX];
	int got = 0;
	int rc = libusb_interrupt_transfer(u->handle, u->ep_in, report, (int)u->report, &got,
					   t->timeout_ms);
	if (rc)
		return transport_usb_fail(u, "reading a report", rc, err);
	if (got <= 0)
		return xb_fail(err, "%s: an empty report instead of an answer", t->name);
	*rlen = (size_t)got < cap ? (size_t)got : cap;
	memcpy(resp, report, *rlen);
	return 0;
}

static int hid_xfer(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		    size_t *rlen, xb_err *err)
{
	if (hid_send(t, req, len, err))
		return -1;
	return hid_receive(t, resp, cap, rlen, err);
}

static int hid_submit(xb_transport *t, const uint8_t *req, size_t len, xb_err *err)
{
	usb_link *u = (usb_link *)t;
	uint8_t report[TRANSPORT_PACKET_MAX];
	if (hid_report(u, req, len, report, err))
		return -1;
	return usb_async_submit(u, report, u->report, err);
}

static int hid_collect(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err)
{
	return usb_async_collect((usb_link *)t, resp, cap, rlen, err);
}

static int hid_ready(xb_transport *t, xb_err *err)
{
	return usb_async_ready((usb_link *)t, err);
}

static int hid_fd(xb_transport *t)
{
	return usb_async_fd((usb_link *)t);
}

const xb_transport_ops transport_usb_hid_ops = {
	.kind = "usb-hid",
	.xfer = hid_xfer,
	.submit = hid_submit,
	.collect = hid_collect,
	.ready = hid_ready,
	.fd = hid_fd,
	.close = transport_usb_close,
};
