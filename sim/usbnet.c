/* usbnet: the parts Linux's usbnet gives cdc_ether, cdc_ncm and rndis_host, shared by the
 * virtual host's ecmhost, ncmhost and rndishost (see usbnet.h). */
#include "usbnet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

/* ---- URBs ---- */

int usbnet_submit(xb_usbhost *h, usbnet_slot *s, void *owner, uint8_t type, uint8_t ep,
		  uint8_t *buf, uint32_t len, xb_urb_complete_fn complete)
{
	memset(&s->urb, 0, sizeof s->urb);
	s->owner = owner;
	s->urb.type = type;
	s->urb.endpoint = ep;
	s->urb.buffer = buf;
	s->urb.length = len;
	s->urb.complete = complete;
	s->urb.context = s;
	return usbhost_submit(h, &s->urb);
}

static void usbnet_control_timeout(xb_board *b, void *ctx)
{
	(void)b;
	usbnet_slot *s = ctx;
	s->timeout_event = 0;
	if (s->urb.queued) {
		s->timed_out = 1;
		usbhost_unlink(s->h, &s->urb);
	}
}

static void usbnet_control_complete(xb_urb *u)
{
	usbnet_slot *s = (usbnet_slot *)u;
	if (s->timeout_event) {
		board_cancel(usbhost_board(s->h), s->timeout_event);
		s->timeout_event = 0;
	}
	if (s->timed_out)
		u->status = XB_URB_ETIMEDOUT; /* usbnet_control_timeout unlinked it */
	if (s->done)
		s->done(u);
}

int usbnet_control(xb_usbhost *h, usbnet_slot *s, void *owner, uint8_t rt, uint8_t req,
		   uint16_t value, uint16_t index, const uint8_t *data, uint16_t len,
		   xb_urb_complete_fn complete)
{
	if (s->timeout_event) /* a slot is reused only once its URB completed */
		board_cancel(usbhost_board(h), s->timeout_event);
	memset(&s->urb, 0, sizeof s->urb);
	uint8_t *p = s->urb.setup;
	p[0] = rt;
	p[1] = req;
	p[2] = (uint8_t)value;
	p[3] = (uint8_t)(value >> 8);
	p[4] = (uint8_t)index;
	p[5] = (uint8_t)(index >> 8);
	p[6] = (uint8_t)len;
	p[7] = (uint8_t)(len >> 8);
	if (data)
		memcpy(s->buf, data, len);
	s->owner = owner;
	s->h = h;
	s->done = complete;
	s->timeout_event = 0;
	s->timed_out = 0;
	s->urb.type = XB_USBMON_CONTROL;
	s->urb.buffer = len ? s->buf : NULL;
	s->urb.length = len;
	s->urb.complete = usbnet_control_complete;
	s->urb.context = s;
	xb_board *b = usbhost_board(h);
	s->sent_cycle = board_cycles(b);
	int rc = usbhost_submit(h, &s->urb);
	if (rc == 0)
		s->timeout_event = board_schedule(
			b, s->sent_cycle + (uint64_t)board_cpu_hz(b) / 1000 * USBNET_CTRL_TIMEOUT_MS,
			usbnet_control_timeout, s);
	return rc;
}

void usbnet_submit_status(xb_usbhost *h, usbnet_slot *s, void *owner, uint8_t ep,
			  uint16_t mps, uint8_t interval, xb_urb_complete_fn complete)
{
	free(s->buf);
	s->buf = xcalloc(1, mps + 1u);
	memset(&s->urb, 0, sizeof s->urb);
	s->owner = owner;
	s->urb.type = XB_USBMON_INTERRUPT;
	s->urb.endpoint = ep;
	s->urb.buffer = s->buf;
	s->urb.length = mps;
	s->urb.flags = XB_URB_FREE_BUFFER;
	s->urb.interval = interval > 3 ? interval : 3; /* usbnet */
	s->urb.complete = complete;
	s->urb.context = s;
	usbhost_submit(h, &s->urb);
}

int usbnet_urb_gone(const xb_urb *u, int closing)
{
	return closing || u->status == XB_URB_ESHUTDOWN || u->status == XB_URB_ENOENT;
}

usbnet_slot *usbnet_slots_new(unsigned n)
{
	return xcalloc(n, sizeof(usbnet_slot));
}

void usbnet_slots_free(usbnet_slot *s, unsigned n)
{
	for (unsigned i = 0; s && i < n; i++) {
		free(s[i].buf);
		free(s[i].lens);
	}
	free(s);
}

usbnet_slot *usbnet_idle_tx(usbnet_slot *tx, unsigned n, unsigned waiting)
{
	for (unsigned i = 0; i < n && !waiting; i++)
		if (!tx[i].urb.queued)
			return &tx[i];
	return NULL;
}

void usbnet_unlink(xb_usbhost *h, usbnet_slot *s, unsigned n)
{
	for (unsigned i = 0; s && i < n; i++)
		if (s[i].urb.queued)
			usbhost_unlink(h, &s[i].urb);
}

void usbnet_request_text(const uint8_t s[8], char *out, size_t n)
{
	static const char *const std[] = {"GET_STATUS", "CLEAR_FEATURE", NULL, "SET_FEATURE",
					  NULL, "SET_ADDRESS", "GET_DESCRIPTOR", "SET_DESCRIPTOR",
					  "GET_CONFIGURATION", "SET_CONFIGURATION", "GET_INTERFACE",
					  "SET_INTERFACE"};
	unsigned value = s[2] | s[3] << 8, index = s[4] | s[5] << 8, len = s[6] | s[7] << 8;
	unsigned type = (s[0] >> 5) & 3;
	if (type == 0 && s[1] == 11)
		snprintf(out, n, "SET_INTERFACE (interface %u, alternate %u)", index, value);
	else if (type == 0 && s[1] == 6)
		snprintf(out, n, "GET_DESCRIPTOR (type %u, index %u, %u bytes)", value >> 8,
			 value & 0xFF, len);
	else if (type == 0 && s[1] < sizeof std / sizeof std[0] && std[s[1]])
		snprintf(out, n, "%s (wValue %u, wIndex %u)", std[s[1]], value, index);
	else
		snprintf(out, n, "%s request 0x%02x (bmRequestType 0x%02x, wValue %u, wIndex %u, "
			 "%u bytes)", type == 1 ? "class" : type == 2 ? "vendor" : "standard",
			 s[1], s[0], value, index, len);
}

static const char *usbnet_status_text(int status)
{
	switch (status) {
	case XB_URB_ETIMEDOUT: return "timed out after 5000 ms (-ETIMEDOUT: Linux gives the device up)";
	case XB_URB_EPIPE: return "was refused with a STALL (-EPIPE)";
	case XB_URB_EPROTO: return "went unanswered on the bus (-EPROTO)";
	case XB_URB_EOVERFLOW: return "babbled (-EOVERFLOW)";
	case XB_URB_ESHUTDOWN: case XB_URB_ENODEV: return "lost the device";
	case XB_URB_OK: return "was answered with data the driver cannot use";
	}
	return "failed";
}

void usbnet_failure_text(const usbnet_slot *s, const char *driver, char *out, size_t n)
{
	char req[128];
	usbnet_request_text(s->urb.setup, req, sizeof req);
	snprintf(out, n, "%s: %s %s", driver, req, usbnet_status_text(s->urb.status));
}

int usbnet_pending_text(const usbnet_slot *s, const char *driver, char *out, size_t n)
{
	if (!s->urb.queued || s->urb.type != XB_USBMON_CONTROL || !s->h)
		return 0;
	char req[128];
	usbnet_request_text(s->urb.setup, req, sizeof req);
	xb_board *b = usbhost_board(s->h);
	double ms = (double)(board_cycles(b) - s->sent_cycle) * 1000.0 / board_cpu_hz(b);
	snprintf(out, n, "%s waits for %s: unanswered for %.0f ms", driver,
		 req, ms);
	return 1;
}

void usbnet_dev_init(usbnet_dev *d, xb_usbhost *h, const xb_ecmhost_options *o,
		     const char *name, size_t ctl_buf, const xb_usbhost_driver *drv, void *ctx)
{
	d->h = h;
	d->name = name;
	usbnet_options(&d->opt, o);
	d->ctl.buf = xcalloc(1, ctl_buf);
	usbhost_add_driver(h, drv, ctx);
}

void usbnet_dev_probe(usbnet_dev *d)
{
	d->bound = d->up = d->link = d->failed = d->have_mac = 0;
	d->why[0] = 0;
}

void usbnet_dev_disconnect(usbnet_dev *d)
{
	d->bound = d->up = 0;
	usbnet_set_link(&d->link, &d->opt, 0);
}

void usbnet_dev_close(usbnet_dev *d, const xb_usbhost_driver *drv, void *ctx)
{
	d->closing = 1;
	usbnet_unlink(d->h, &d->ctl, 1);
	usbnet_unlink(d->h, &d->status, 1);
	usbnet_unlink(d->h, d->rx, d->opt.rx_urbs);
	usbnet_unlink(d->h, d->tx, d->opt.tx_urbs);
	usbhost_remove_driver(d->h, drv, ctx);
}

void usbnet_dev_free(usbnet_dev *d)
{
	free(d->ctl.buf);
	free(d->status.buf);
	d->ctl.buf = d->status.buf = NULL;
}

void usbnet_dev_fail(usbnet_dev *d)
{
	d->failed = 1;
	usbnet_failure_text(&d->ctl, d->name, d->why, sizeof d->why);
}

int usbnet_dev_trouble(const usbnet_dev *d, char *out, size_t n)
{
	if (d->failed && d->why[0]) {
		snprintf(out, n, "%s", d->why);
		return 1;
	}
	return d->bound && !d->up ? usbnet_pending_text(&d->ctl, d->name, out, n) : 0;
}

const uint8_t *usbnet_dev_mac(const usbnet_dev *d)
{
	return d->have_mac ? d->mac : NULL;
}

int usbnet_xmit(usbnet_slot *tx, unsigned n, usbnet_queue *q, xb_ecmhost_stats *st,
		usbnet_xmit_fn xmit, void *drv, const uint8_t *frame, size_t len)
{
	/* keep the order: frames already waiting go first */
	usbnet_slot *s = usbnet_idle_tx(tx, n, q->count);
	if (s ? xmit(drv, s, frame, len) : usbnet_queue_push(q, frame, len)) {
		st->tx_dropped++;
		return -1;
	}
	return 0;
}

void usbnet_tx_complete(usbnet_slot *s, const xb_ecmhost_options *opt, usbnet_queue *q,
			xb_ecmhost_stats *st, int closing, const int *up, usbnet_xmit_fn xmit,
			void *drv)
{
	const xb_urb *u = &s->urb;
	if (u->status == XB_URB_OK) {
		st->tx_frames++;
		st->tx_bytes += s->frame_len;
	} else {
		st->tx_errors++;
	}
	if (closing)
		return;
	if (opt->tx_done)
		opt->tx_done(opt->tx_ctx, s->frame_len, u->status, u->done_cycle);
	size_t len;
	uint8_t *f = *up ? usbnet_queue_pop(q, &len) : NULL;
	if (!f)
		return;
	if (xmit(drv, s, f, len))
		st->tx_dropped++;
	free(f);
}

/* ---- Options and link ---- */

void usbnet_options(xb_ecmhost_options *opt, const xb_ecmhost_options *o)
{
	if (o)
		*opt = *o;
	if (!opt->rx_urbs)
		opt->rx_urbs = 4;
	if (!opt->tx_urbs)
		opt->tx_urbs = 4;
	if (!opt->tx_queue)
		opt->tx_queue = 1000;
}

void usbnet_set_link(int *link, const xb_ecmhost_options *opt, int up)
{
	if (*link == up)
		return;
	*link = up;
	if (opt->link)
		opt->link(opt->link_ctx, up);
}

/* ---- Descriptors and notifications ---- */

int usbnet_parse_mac(uint8_t mac[6], const uint8_t *d, uint32_t n)
{
	if (n < 26 || d[1] != 3 || d[0] != 2 + 24)
		return -1;
	for (int i = 0; i < 6; i++) {
		/* UTF-16LE characters: the high byte must be 0 */
		int hi = d[3 + 4 * i] ? -1 : xb_hex_digit(d[2 + 4 * i]);
		int lo = d[5 + 4 * i] ? -1 : xb_hex_digit(d[4 + 4 * i]);
		if (hi < 0 || lo < 0)
			return -1;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int usbnet_notification(xb_ecmhost_stats *st, int *split, const uint8_t *d, uint32_t n)
{
	if (*split) { /* the second half of a split CONNECTION_SPEED_CHANGE */
		*split = 0;
		if (n == 8) {
			st->downlink_bps = le32(d);
			st->uplink_bps = le32(d + 4);
		}
	} else if (n >= 8 && d[0] == 0xA1) {
		st->notifications++;
		if (d[1] == 0x00)
			return le16(d + 2) != 0;
		if (d[1] == 0x2A) {
			if (n == 16) {
				st->downlink_bps = le32(d + 8);
				st->uplink_bps = le32(d + 12);
			} else {
				*split = 1;
			}
		}
	}
	return -1;
}

/* ---- The transmit queue ---- */

void usbnet_queue_init(usbnet_queue *q, unsigned cap)
{
	q->frames = xcalloc(cap, sizeof *q->frames);
	q->lens = xcalloc(cap, sizeof *q->lens);
	q->head = q->count = 0;
	q->cap = cap;
}

int usbnet_queue_push(usbnet_queue *q, const uint8_t *frame, size_t len)
{
	if (q->count >= q->cap)
		return -1;
	unsigned at = (q->head + q->count) % q->cap;
	q->frames[at] = xmalloc(len);
	memcpy(q->frames[at], frame, len);
	q->lens[at] = len;
	q->count++;
	return 0;
}

uint8_t *usbnet_queue_pop(usbnet_queue *q, size_t *len)
{
	if (!q->count)
		return NULL;
	uint8_t *f = q->frames[q->head];
	*len = q->lens[q->head];
	q->head = (q->head + 1) % q->cap;
	q->count--;
	return f;
}

void usbnet_queue_clear(usbnet_queue *q)
{
	size_t len;
	uint8_t *f;
	while ((f = usbnet_queue_pop(q, &len)))
		free(f);
	q->head = 0;
}

void usbnet_queue_free(usbnet_queue *q)
{
	usbnet_queue_clear(q);
	free(q->frames);
	free(q->lens);
	q->frames = NULL;
	q->lens = NULL;
}
