/* transport_usb_bulk: CMSIS-DAP v2 over libusb: each request one bulk OUT transfer, each
 * response one bulk IN transfer of up to the packet size; synchronous for xfer,
 * asynchronous (transport_usb_async.c) for submit, ready and collect. */
#include <string.h>

#include "usb_internal.h"

static int bulk_send(xb_transport *t, const uint8_t *req, size_t len, xb_err *err)
{
	usb_link *u = (usb_link *)t;
	int sent = 0;
	int rc = libusb_bulk_transfer(u->handle, u->ep_out, (unsigned char *)req, (int)len, &sent,
				      t->timeout_ms);
	if (rc)
		return transport_usb_fail(u, "sending a request", rc, err);
	if ((size_t)sent != len)
		return xb_fail(err, "%s: sent %d of %zu bytes of a request", t->name, sent, len);
	return 0;
}

static int bulk_receive(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err)
{
	usb_link *u = (usb_link *)t;
	uint8_t buf[TRANSPORT_PACKET_MAX];
	size_t want = t->packet_size < sizeof buf ? t->packet_size : sizeof buf;
	/* A zero-length packet can trail a response that filled whole USB packets. */
	for (int attempt = 0; attempt < 2; attempt++) {
		int got = 0;
		int rc = libusb_bulk_transfer(u->handle, u->ep_in, buf, (int)want, &got,
					      t->timeout_ms);
		if (rc)
			return transport_usb_fail(u, "reading a response", rc, err);
		if (got > 0) {
			*rlen = (size_t)got < cap ? (size_t)got : cap;
			memcpy(resp, buf, *rlen);
			return 0;
		}
	}
	return xb_fail(err, "%s: empty responses (zero-length packets) instead of an answer",
		       t->name);
}

static int bulk_xfer(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		     size_t *rlen, xb_err *err)
{
	if (bulk_send(t, req, len, err))
		return -1;
	return bulk_receive(t, resp, cap, rlen, err);
}

static int bulk_submit(xb_transport *t, const uint8_t *req, size_t len, xb_err *err)
{
	return usb_async_submit((usb_link *)t, req, len, err);
}

static int bulk_collect(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err)
{
	return usb_async_collect((usb_link *)t, resp, cap, rlen, err);
}

static int bulk_ready(xb_transport *t, xb_err *err)
{
	return usb_async_ready((usb_link *)t, err);
}

static int bulk_fd(xb_transport *t)
{
	return usb_async_fd((usb_link *)t);
}

const xb_transport_ops transport_usb_bulk_ops = {
	.kind = "usb-bulk",
	.xfer = bulk_xfer,
	.submit = bulk_submit,
	.collect = bulk_collect,
	.ready = bulk_ready,
	.fd = bulk_fd,
	.close = transport_usb_close,
};
