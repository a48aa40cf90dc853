/* ecmhost: the CDC-ECM class driver of the virtual USB host (Linux cdc_ether + usbnet
 * behaviour): descriptor parsing, bring-up requests, status notifications, frame queues. */
#include "ecmhost.h"

#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "usbnet.h"

#define ETH_HLEN 14u
#define CTL_BUF 256u

typedef usbnet_slot ecm_slot;

enum { B_SET_INTERFACE, B_FILTER, B_LANGID, B_MAC, B_DONE };

struct xb_ecmhost {
	xb_usbhost *h;
	xb_ecmhost_options opt;
	int bound, up, link, failed, closing, sts_split;
	int step;
	uint8_t comm_intf, data_intf, data_alt, status_ep, in_ep, out_ep, imac, status_interval;
	uint16_t status_mps, in_mps, out_mps, max_segment, langid;
	uint8_t mac[6];
	int have_mac;
	ecm_slot ctl, halt_in, halt_out, halt_status, status;
	ecm_slot *rx, *tx;
	usbnet_queue q; /* frames waiting for a bulk OUT URB */
	xb_ecmhost_stats stats;
	char why[USBNET_WHY]; /* why the bring-up gave up */
};

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* ---- Descriptors ---- */

/* Finds what cdc_ether needs in a configuration; 0 when it is not a CDC-ECM function. */
static int ecm_parse(xb_ecmhost *e, const uint8_t *c, size_t n)
{
	int in_comm = 0, header = 0, uni = 0, ether = 0, comm = -1;
	for (size_t i = 0; i + 2 <= n; i += c[i]) {
		unsigned len = c[i];
		if (len < 2 || i + len > n)
			return 0;
		const uint8_t *d = c + i;
		if (d[1] == 4 && len >= 9) {
			in_comm = d[3] == 0 && d[5] == 0x02 && d[6] == 0x06 && d[7] == 0x00 && comm < 0;
			if (in_comm)
				comm = d[2];
		} else if (in_comm && d[1] == 0x24 && len >= 3) {
			if (d[2] == 0x00)
				header = len == 5;
			else if (d[2] == 0x06 && len >= 5 && d[3] == comm)
				uni = 1, e->data_intf = d[4];
			else if (d[2] == 0x0F && len == 13) {
				ether = 1;
				e->imac = d[3];
				e->max_segment = le16(d + 8);
			}
		} else if (in_comm && d[1] == 5 && len >= 7 && (d[3] & 3) == 3 && (d[2] & 0x80)) {
			e->status_ep = d[2];
			e->status_mps = le16(d + 4) & 0x7FF;
			e->status_interval = d[6];
		}
	}
	if (comm < 0 || !header || !uni || !ether || !e->imac)
		return 0;
	e->comm_intf = (uint8_t)comm;
	if (!e->max_segment)
		e->max_segment = 1514;
	/* The first alternate setting of the data interface (class 0A) with bulk IN and OUT. */
	int in_data = 0, alt = -1;
	uint8_t in = 0, out = 0;
	uint16_t in_mps = 0, out_mps = 0;
	for (size_t i = 0; i + 2 <= n; i += c[i]) {
		const uint8_t *d = c + i;
		if (d[1] == 4 && d[0] >= 9) {
			if (in_data && in && out)
				break;
			in_data = d[2] == e->data_intf && d[5] == 0x0A;
			alt = d[3];
			in = out = 0;
		} else if (in_data && d[1] == 5 && d[0] >= 7 && (d[3] & 3) == 2) {
			if (d[2] & 0x80)
				in = d[2], in_mps = le16(d + 4) & 0x7FF;
			else
				out = d[2], out_mps = le16(d + 4) & 0x7FF;
		}
	}
	if (!in_data || !in || !out || !in_mps || !out_mps)
		return 0;
	e->data_alt = (uint8_t)alt;
	e->in_ep = in;
	e->out_ep = out;
	e->in_mps = in_mps;
	e->out_mps = out_mps;
	return 1;
}

/* ---- Control requests ---- */

static void ecm_control_done(xb_urb *u);

static int ecm_control(xb_ecmhost *e, ecm_slot *s, uint8_t rt, uint8_t req, uint16_t value,
		       uint16_t index, uint16_t len)
{
	return usbnet_control(e->h, s, e, rt, req, value, index, NULL, len, ecm_control_done);
}

static void ecm_clear_halt(xb_ecmhost *e, ecm_slot *s, uint8_t ep)
{
	if (!s->urb.queued)
		ecm_control(e, s, 0x02, 0x01, 0, ep, 0);
}

/* ---- Frames ---- */

static void ecm_rx_done(xb_urb *u);
static void ecm_tx_done(xb_urb *u);
static void ecm_status_done(xb_urb *u);

static void ecm_submit_rx(xb_ecmhost *e, ecm_slot *s)
{
	usbnet_submit(e->h, s, e, XB_USBMON_BULK, e->in_ep, s->buf, e->max_segment, ecm_rx_done);
}

static int ecm_submit_tx(void *drv, ecm_slot *s, const uint8_t *frame, size_t len)
{
	xb_ecmhost *e = drv;
	memcpy(s->buf, frame, len);
	s->frame_len = len;
	size_t n = len;
	if (n % e->out_mps == 0)
		s->buf[n++] = 0; /* usbnet: one byte of padding instead of a ZLP */
	return usbnet_submit(e->h, s, e, XB_USBMON_BULK, e->out_ep, s->buf, (uint32_t)n,
			     ecm_tx_done);
}

static void ecm_open(xb_ecmhost *e)
{
	e->step = B_DONE;
	e->up = 1;
	e->stats.binds++;
	if (e->status_ep)
		usbnet_submit_status(e->h, &e->status, e, e->status_ep, e->status_mps,
				     e->status_interval, ecm_status_done);
	else /* no status endpoint: the carrier is simply on (the link was down) */
		usbnet_set_link(&e->link, &e->opt, 1);
	e->rx = usbnet_slots_new(e->opt.rx_urbs);
	e->tx = usbnet_slots_new(e->opt.tx_urbs);
	for (unsigned i = 0; i < e->opt.tx_urbs; i++)
		e->tx[i].buf = xmalloc(e->max_segment + 1u);
	for (unsigned i = 0; i < e->opt.rx_urbs; i++) {
		e->rx[i].buf = xmalloc(e->max_segment);
		ecm_submit_rx(e, &e->rx[i]);
	}
}

/* The bring-up gives up at the request in ctl, as cdc_ether's bind would. */
static void ecm_fail(xb_ecmhost *e)
{
	usbnet_fail(&e->failed, e->why, &e->ctl, "cdc_ether");
}

/* The bring-up sequence, one request after the other. */
static void ecm_step(xb_ecmhost *e, int step)
{
	e->step = step;
	int rc = 0;
	switch (step) {
	case B_SET_INTERFACE:
		if (e->data_alt == 0) {
			ecm_step(e, B_FILTER);
			return;
		}
		rc = ecm_control(e, &e->ctl, 0x01, 0x0B, e->data_alt, e->data_intf, 0);
		break;
	case B_FILTER:
		rc = ecm_control(e, &e->ctl, 0x21, 0x43, 0x000C, e->comm_intf, 0);
		break;
	case B_LANGID:
		e->langid = usbhost_langid(e->h);
		if (e->langid) {
			ecm_step(e, B_MAC);
			return;
		}
		rc = ecm_control(e, &e->ctl, 0x80, 0x06, 0x0300, 0, 255);
		break;
	case B_MAC:
		rc = ecm_control(e, &e->ctl, 0x80, 0x06, (uint16_t)(0x0300 | e->imac), e->langid,
				 255);
		break;
	}
	if (rc) {
		e->ctl.urb.status = rc;
		ecm_fail(e);
	}
}

static void ecm_control_done(xb_urb *u)
{
	ecm_slot *s = (ecm_slot *)u;
	xb_ecmhost *e = s->owner;
	if (e->closing || !e->bound || s != &e->ctl)
		return; /* a halt cleared, or the device is gone */
	int ok = u->status == XB_URB_OK;
	switch (e->step) {
	case B_SET_INTERFACE:
		if (!ok) {
			ecm_fail(e);
			return;
		}
		ecm_step(e, B_FILTER);
		return;
	case B_FILTER: /* usbnet_cdc_update_filter ignores the answer */
		ecm_step(e, B_LANGID);
		return;
	case B_LANGID:
		e->langid = ok && u->actual >= 4 && s->buf[1] == 3 ? le16(s->buf + 2) : 0x0409;
		ecm_step(e, B_MAC);
		return;
	case B_MAC:
		if (!ok || usbnet_parse_mac(e->mac, s->buf, u->actual)) {
			ecm_fail(e);
			return;
		}
		e->have_mac = 1;
		ecm_open(e);
		return;
	}
}

static void ecm_status_done(xb_urb *u)
{
	ecm_slot *s = (ecm_slot *)u;
	xb_ecmhost *e = s->owner;
	if (usbnet_urb_gone(u, e->closing))
		return;
	if (u->status == XB_URB_OK) {
		int link = usbnet_notification(&e->stats, &e->sts_split, s->buf, u->actual);
		if (link >= 0)
			usbnet_set_link(&e->link, &e->opt, link);
	} else if (u->status == XB_URB_EPIPE) {
		ecm_clear_halt(e, &e->halt_status, e->status_ep);
	}
	memset(s->buf, 0, e->status_mps);
	usbhost_submit(e->h, u);
}

static void ecm_rx_done(xb_urb *u)
{
	ecm_slot *s = (ecm_slot *)u;
	xb_ecmhost *e = s->owner;
	if (usbnet_urb_gone(u, e->closing))
		return;
	if (u->status == XB_URB_OK && u->actual >= ETH_HLEN) {
		e->stats.rx_frames++;
		e->stats.rx_bytes += u->actual;
		if (e->opt.rx)
			e->opt.rx(e->opt.rx_ctx, s->buf, u->actual, u->done_cycle);
	} else {
		e->stats.rx_errors++;
		if (u->status == XB_URB_EPIPE)
			ecm_clear_halt(e, &e->halt_in, e->in_ep);
	}
	if (!e->closing && e->up)
		ecm_submit_rx(e, s);
}

static void ecm_tx_done(xb_urb *u)
{
	ecm_slot *s = (ecm_slot *)u;
	xb_ecmhost *e = s->owner;
	if (u->status == XB_URB_EPIPE && !e->closing)
		ecm_clear_halt(e, &e->halt_out, e->out_ep);
	usbnet_tx_complete(s, &e->opt, &e->q, &e->stats, e->closing, &e->up, ecm_submit_tx, e);
}

int ecmhost_send(xb_ecmhost *e, const uint8_t *frame, size_t len)
{
	if (!e->up || !e->link || len < ETH_HLEN || len > e->max_segment) {
		e->stats.tx_dropped++;
		return -1;
	}
	return usbnet_xmit(e->tx, e->opt.tx_urbs, &e->q, &e->stats, ecm_submit_tx, e, frame, len);
}

/* ---- Binding ---- */

static void ecm_release(xb_ecmhost *e)
{
	usbnet_slots_free(e->rx, e->opt.rx_urbs);
	usbnet_slots_free(e->tx, e->opt.tx_urbs);
	e->rx = e->tx = NULL;
	usbnet_queue_clear(&e->q);
}

static int ecm_probe(void *ctx, xb_usbhost *h, const uint8_t *config, size_t len)
{
	xb_ecmhost *e = ctx;
	(void)h;
	ecm_release(e);
	e->bound = e->up = e->link = e->failed = e->have_mac = e->sts_split = 0;
	e->status_ep = 0;
	e->why[0] = 0;
	if (!ecm_parse(e, config, len))
		return 0;
	e->bound = 1;
	ecm_step(e, B_SET_INTERFACE);
	return 1;
}

static void ecm_disconnect(void *ctx)
{
	xb_ecmhost *e = ctx;
	e->bound = e->up = 0;
	usbnet_set_link(&e->link, &e->opt, 0);
	ecm_release(e);
}

static const xb_usbhost_driver ecm_driver = {
	.probe = ecm_probe,
	.disconnect = ecm_disconnect,
};

xb_ecmhost *ecmhost_new(xb_usbhost *h, const xb_ecmhost_options *o)
{
	xb_ecmhost *e = xcalloc(1, sizeof *e);
	e->h = h;
	usbnet_options(&e->opt, o);
	usbnet_queue_init(&e->q, e->opt.tx_queue);
	e->ctl.buf = xcalloc(1, CTL_BUF);
	e->halt_in.buf = xcalloc(1, CTL_BUF);
	e->halt_out.buf = xcalloc(1, CTL_BUF);
	e->halt_status.buf = xcalloc(1, CTL_BUF);
	usbhost_add_driver(h, &ecm_driver, e);
	return e;
}

void ecmhost_free(xb_ecmhost *e)
{
	if (!e)
		return;
	e->closing = 1;
	ecm_slot *fixed[] = {&e->ctl, &e->halt_in, &e->halt_out, &e->halt_status, &e->status};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		usbnet_unlink(e->h, fixed[i], 1);
	usbnet_unlink(e->h, e->rx, e->opt.rx_urbs);
	usbnet_unlink(e->h, e->tx, e->opt.tx_urbs);
	usbhost_remove_driver(e->h, &ecm_driver, e);
	ecm_release(e);
	free(e->ctl.buf);
	free(e->halt_in.buf);
	free(e->halt_out.buf);
	free(e->halt_status.buf);
	free(e->status.buf);
	usbnet_queue_free(&e->q);
	free(e);
}

int ecmhost_up(const xb_ecmhost *e)
{
	return e->up;
}

int ecmhost_link(const xb_ecmhost *e)
{
	return e->link;
}

const uint8_t *ecmhost_mac(const xb_ecmhost *e)
{
	return e->have_mac ? e->mac : NULL;
}

void ecmhost_stats(const xb_ecmhost *e, xb_ecmhost_stats *out)
{
	*out = e->stats;
}

int ecmhost_trouble(const xb_ecmhost *e, char *out, size_t n)
{
	return usbnet_trouble(e->failed, e->why, &e->ctl, "cdc_ether", e->bound && !e->up, out, n);
}
