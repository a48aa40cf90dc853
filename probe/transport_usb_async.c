/* transport_usb_async: libusb asynchronous transfers for the USB transports: requests sent
 * without waiting, one IN transfer kept submitted while responses are due, responses kept
 * in order, libusb's descriptors gathered in one epoll descriptor to poll. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <unistd.h>

#include "usb_internal.h"

#define OUT_SLOTS TRANSPORT_IN_FLIGHT_MAX
#define OUT_SLOT_BYTES (LIBUSB_CONTROL_SETUP_SIZE + TRANSPORT_PACKET_MAX)
#define STOP_WAIT_MS 1000u
#define NS_PER_MS 1000000ull

struct usb_async {
	usb_link *u;
	int epfd;
	unsigned nfds;                           /* libusb descriptors in epfd */
	struct libusb_transfer *out[OUT_SLOTS];
	int out_busy[OUT_SLOTS];
	uint8_t *out_buf;                        /* OUT_SLOTS x OUT_SLOT_BYTES */
	struct libusb_transfer *in;
	int in_busy;
	uint8_t in_buf[TRANSPORT_PACKET_MAX];
	unsigned due;                            /* responses sent for, not yet received */
	uint8_t *resp;                           /* received, not yet collected (a ring) */
	size_t resp_len[TRANSPORT_IN_FLIGHT_MAX];
	unsigned resp_head, nresp;
	unsigned empty;                          /* zero-length packets in a row */
	int stopping;
	int failed;
	xb_err err;
};

static int async_fail_status(usb_async *a, const char *what, enum libusb_transfer_status st)
{
	int rc;
	switch (st) {
	case LIBUSB_TRANSFER_TIMED_OUT: rc = LIBUSB_ERROR_TIMEOUT; break;
	case LIBUSB_TRANSFER_STALL: rc = LIBUSB_ERROR_PIPE; break;
	case LIBUSB_TRANSFER_NO_DEVICE: rc = LIBUSB_ERROR_NO_DEVICE; break;
	case LIBUSB_TRANSFER_OVERFLOW: rc = LIBUSB_ERROR_OVERFLOW; break;
	default: rc = LIBUSB_ERROR_IO; break;
	}
	if (!a->failed) {
		a->failed = 1;
		transport_usb_fail(a->u, what, rc, &a->err);
	}
	return -1;
}

static int async_failed(usb_async *a, xb_err *err)
{
	if (err)
		*err = a->err;
	return -1;
}

/* ---- libusb's descriptors in one epoll set ---- */

static uint32_t epoll_events(short events)
{
	return (events & POLLIN ? EPOLLIN : 0u) | (events & POLLOUT ? EPOLLOUT : 0u);
}

static void pollfd_added(int fd, short events, void *ctx)
{
	usb_async *a = ctx;
	struct epoll_event ev = {.events = epoll_events(events), .data.fd = fd};
	if (epoll_ctl(a->epfd, EPOLL_CTL_ADD, fd, &ev) == 0)
		a->nfds++;
}

static void pollfd_removed(int fd, void *ctx)
{
	usb_async *a = ctx;
	if (epoll_ctl(a->epfd, EPOLL_CTL_DEL, fd, NULL) == 0 && a->nfds)
		a->nfds--;
}

/* ---- Callbacks (run inside libusb_handle_events_*) ---- */

static int async_submit_in(usb_async *a);

static void out_done(struct libusb_transfer *tr)
{
	usb_async *a = tr->user_data;
	for (unsigned i = 0; i < OUT_SLOTS; i++)
		if (a->out[i] == tr)
			a->out_busy[i] = 0;
	if (a->stopping || a->failed)
		return;
	if (tr->status != LIBUSB_TRANSFER_COMPLETED) {
		async_fail_status(a, "sending a request", tr->status);
		return;
	}
	int want = tr->type == LIBUSB_TRANSFER_TYPE_CONTROL
			   ? tr->length - (int)LIBUSB_CONTROL_SETUP_SIZE
			   : tr->length;
	if (tr->actual_length != want) {
		a->failed = 1;
		xb_fail(&a->err, "%s: sent %d of %d bytes of a request", a->u->base.name,
			tr->actual_length, want);
	}
}

static void in_done(struct libusb_transfer *tr)
{
	usb_async *a = tr->user_data;
	a->in_busy = 0;
	if (a->stopping || a->failed)
		return;
	if (tr->status != LIBUSB_TRANSFER_COMPLETED) {
		async_fail_status(a, "reading a response", tr->status);
		return;
	}
	if (tr->actual_length <= 0) {
		/* A zero-length packet can trail a bulk response that filled whole USB packets. */
		if (a->u->hid || ++a->empty >= 2) {
			a->failed = 1;
			xb_fail(&a->err, "%s: %s", a->u->base.name,
				a->u->hid ? "an empty report instead of an answer"
					  : "empty responses (zero-length packets) instead of an answer");
			return;
		}
	} else {
		unsigned slot = (a->resp_head + a->nresp) % TRANSPORT_IN_FLIGHT_MAX;
		memcpy(a->resp + (size_t)slot * TRANSPORT_PACKET_MAX, a->in_buf,
		       (size_t)tr->actual_length);
		a->resp_len[slot] = (size_t)tr->actual_length;
		a->nresp++;
		a->due--;
		a->empty = 0;
	}
	if (a->due)
		async_submit_in(a);
}

static int async_submit_in(usb_async *a)
{
	usb_link *u = a->u;
	size_t want = u->hid ? u->report : u->base.packet_size;
	if (want > TRANSPORT_PACKET_MAX)
		want = TRANSPORT_PACKET_MAX;
	if (u->hid)
		libusb_fill_interrupt_transfer(a->in, u->handle, u->ep_in, a->in_buf, (int)want,
					       in_done, a, 0);
	else
		libusb_fill_bulk_transfer(a->in, u->handle, u->ep_in, a->in_buf, (int)want, in_done,
					  a, 0);
	int rc = libusb_submit_transfer(a->in);
	if (rc) {
		if (!a->failed) {
			a->failed = 1;
			transport_usb_fail(u, "reading a response", rc, &a->err);
		}
		return -1;
	}
	a->in_busy = 1;
	return 0;
}

/* Handles libusb's events for at most ms (0: only what is there now). */
static int async_events(usb_async *a, unsigned ms)
{
	struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
	int rc = libusb_handle_events_timeout_completed(a->u->ctx, &tv, NULL);
	if (rc && rc != LIBUSB_ERROR_INTERRUPTED && rc != LIBUSB_ERROR_TIMEOUT && !a->failed) {
		a->failed = 1;
		transport_usb_fail(a->u, "waiting for the probe", rc, &a->err);
	}
	return a->failed ? -1 : 0;
}

/* ---- The interface for the transports ---- */

int usb_async_start(usb_link *u, xb_err *err)
{
	usb_async *a = xcalloc(1, sizeof *a);
	a->u = u;
	a->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (a->epfd < 0) {
		int e = errno;
		free(a);
		return xb_fail(err, "%s: epoll_create1: %s", u->base.name, strerror(e));
	}
	const struct libusb_pollfd **fds = libusb_get_pollfds(u->ctx);
	for (size_t i = 0; fds && fds[i]; i++)
		pollfd_added(fds[i]->fd, fds[i]->events, a);
	libusb_free_pollfds(fds);
	libusb_set_pollfd_notifiers(u->ctx, pollfd_added, pollfd_removed, a);
	for (unsigned i = 0; i < OUT_SLOTS; i++)
		a->out[i] = libusb_alloc_transfer(0);
	a->in = libusb_alloc_transfer(0);
	a->out_buf = xmalloc((size_t)OUT_SLOTS * OUT_SLOT_BYTES);
	a->resp = xmalloc((size_t)TRANSPORT_IN_FLIGHT_MAX * TRANSPORT_PACKET_MAX);
	u->async = a;
	for (unsigned i = 0; i < OUT_SLOTS; i++)
		if (!a->out[i])
			return xb_fail(err, "%s: libusb_alloc_transfer failed", u->base.name);
	if (!a->in)
		return xb_fail(err, "%s: libusb_alloc_transfer failed", u->base.name);
	return 0;
}

static int async_busy(const usb_async *a)
{
	if (a->in_busy)
		return 1;
	for (unsigned i = 0; i < OUT_SLOTS; i++)
		if (a->out_busy[i])
			return 1;
	return 0;
}

void usb_async_stop(usb_link *u)
{
	usb_async *a = u->async;
	if (!a)
		return;
	a->stopping = 1;
	for (unsigned i = 0; i < OUT_SLOTS; i++)
		if (a->out_busy[i] && libusb_cancel_transfer(a->out[i]) == LIBUSB_ERROR_NOT_FOUND)
			a->out_busy[i] = 0;
	if (a->in_busy && libusb_cancel_transfer(a->in) == LIBUSB_ERROR_NOT_FOUND)
		a->in_busy = 0;
	uint64_t deadline = transport_wall_ns() + STOP_WAIT_MS * NS_PER_MS;
	while (async_busy(a) && transport_wall_ns() < deadline) {
		struct timeval tv = {.tv_usec = 100000};
		libusb_handle_events_timeout_completed(u->ctx, &tv, NULL);
	}
	libusb_set_pollfd_notifiers(u->ctx, NULL, NULL, NULL);
	/* A transfer libusb did not give back is leaked rather than freed under it. */
	for (unsigned i = 0; i < OUT_SLOTS; i++)
		if (a->out[i] && !a->out_busy[i])
			libusb_free_transfer(a->out[i]);
	if (a->in && !a->in_busy)
		libusb_free_transfer(a->in);
	close(a->epfd);
	if (!async_busy(a)) { /* else its callbacks may still come: a stays */
		free(a->out_buf);
		free(a->resp);
		free(a);
	}
	u->async = NULL;
}

int usb_async_submit(usb_link *u, const uint8_t *buf, size_t len, xb_err *err)
{
	usb_async *a = u->async;
	if (a->failed || async_events(a, 0))
		return async_failed(a, err);
	int slot = -1;
	uint64_t deadline = transport_wall_ns() + u->base.timeout_ms * NS_PER_MS;
	while (slot < 0) {
		for (unsigned i = 0; i < OUT_SLOTS && slot < 0; i++)
			if (!a->out_busy[i])
				slot = (int)i;
		if (slot >= 0)
			break;
		if (transport_wall_ns() >= deadline)
			return transport_usb_fail(u, "sending a request", LIBUSB_ERROR_TIMEOUT, err);
		if (async_events(a, 10))
			return async_failed(a, err);
	}
	struct libusb_transfer *tr = a->out[slot];
	uint8_t *b = a->out_buf + (size_t)slot * OUT_SLOT_BYTES;
	if (u->hid && !u->ep_out) {
		libusb_fill_control_setup(b,
					  LIBUSB_ENDPOINT_OUT | LIBUSB_REQUEST_TYPE_CLASS |
						  LIBUSB_RECIPIENT_INTERFACE,
					  USB_HID_SET_REPORT, USB_HID_REPORT_OUTPUT << 8,
					  (uint16_t)u->iface, (uint16_t)len);
		memcpy(b + LIBUSB_CONTROL_SETUP_SIZE, buf, len);
		libusb_fill_control_transfer(tr, u->handle, b, out_done, a, u->base.timeout_ms);
	} else {
		memcpy(b, buf, len);
		if (u->hid)
			libusb_fill_interrupt_transfer(tr, u->handle, u->ep_out, b, (int)len, out_done,
						       a, u->base.timeout_ms);
		else
			libusb_fill_bulk_transfer(tr, u->handle, u->ep_out, b, (int)len, out_done, a,
						  u->base.timeout_ms);
	}
	int rc = libusb_submit_transfer(tr);
	if (rc)
		return transport_usb_fail(u, "sending a request", rc, err);
	a->out_busy[slot] = 1;
	a->due++;
	if (!a->in_busy && async_submit_in(a))
		return async_failed(a, err);
	return 0;
}

int usb_async_ready(usb_link *u, xb_err *err)
{
	usb_async *a = u->async;
	if (a->nresp)
		return 1;
	if (a->failed || async_events(a, 0))
		return async_failed(a, err);
	return a->nresp > 0;
}

int usb_async_collect(usb_link *u, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err)
{
	usb_async *a = u->async;
	uint64_t deadline = transport_wall_ns() + u->base.timeout_ms * NS_PER_MS;
	while (a->nresp == 0) {
		if (a->failed)
			return async_failed(a, err);
		uint64_t now = transport_wall_ns();
		if (now >= deadline)
			return transport_usb_fail(u, "reading a response", LIBUSB_ERROR_TIMEOUT, err);
		unsigned left = (unsigned)((deadline - now + NS_PER_MS - 1) / NS_PER_MS);
		if (async_events(a, left))
			return async_failed(a, err);
	}
	unsigned slot = a->resp_head;
	size_t n = a->resp_len[slot] < cap ? a->resp_len[slot] : cap;
	memcpy(resp, a->resp + (size_t)slot * TRANSPORT_PACKET_MAX, n);
	*rlen = n;
	a->resp_head = (slot + 1) % TRANSPORT_IN_FLIGHT_MAX;
	a->nresp--;
	return 0;
}

int usb_async_fd(const usb_link *u)
{
	const usb_async *a = u->async;
	return a && a->nfds ? a->epfd : -1;
}
