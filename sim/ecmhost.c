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
	usbnet_dev d; /* first: what every usbnet driver has */
	int sts_split;
	int step;
	uint8_t comm_intf, data_intf, data_alt, status_ep, in_ep, out_ep, imac, status_interval;
	uint16_t status_mps, in_mps, out_mps, max_segment, langid;
	ecm_slot halt_in, halt_out, halt_status;
	usbnet_queue q; /* frames waiting for a bulk OUT URB */
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
	return usbnet_control(e->d.h, s, e, rt, req, value, index, NULL, len, ecm_control_done);
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
	usbnet_submit(e->d.h, s, e, XB_USBMON_BULK, e->in_ep, s->buf, e->max_segment, ecm_rx_done);
}

static int ecm_submit_tx(void *drv, ecm_slot *s, const uint8_t *frame, size_t len)
{
	xb_ecmhost *e = drv;
	memcpy(s->buf, frame, len);
	s->frame_len = len;
	size_t n = len;
	if (n % e->out_mps == 0)
		s->buf[n++] = 0; /* usbnet: one byte of padding instead of a ZLP */
	return usbnet_submit(e->d.h, s, e, XB_USBMON_BULK, e->out_ep, s->buf, (uint32_t)n,
			     ecm_tx_done);
}

static void ecm_open(xb_ecmhost *e)
{
	e->step = B_DONE;
	e->d.up = 1;
	e->d.stats.binds++;
	if (e->status_ep)
		usbnet_submit_status(e->d.h, &e->d.status, e, e->status_ep, e->status_mps,
				     e->status_interval, ecm_status_done);
	e->d.rx = usbnet_slots_new(e->d.opt.rx_urbs);
	e->d.tx = usbnet_slots_new(e->d.opt.tx_urbs);
	for (unsigned i = 0; i < e->d.opt.tx_urbs; i++)
		e->d.tx[i].buf = xmalloc(e->max_segment + 1u);
	for (unsigned i = 0; i < e->d.opt.rx_urbs; i++) {
		e->d.rx[i].buf = xmalloc(e->max_segment);
		ecm_submit_rx(e, &e->d.rx[i]);
	}
	/* cdc_ether has no FLAG_LINK_INTR: the carrier is on once open (a new netdev's is),
	 * and NETWORK_CONNECTION notifications turn it off and on again. A device that never
	 * sends one (Zephyr's legacy CDC-ECM function) works as on Linux. */
	usbnet_set_link(&e->d.link, &e->d.opt, 1);
}

/* The bring-up gives up at the request in ctl, as cdc_ether's bind would. */
static void ecm_fail(xb_ecmhost *e)
{
	usbnet_dev_fail(&e->d);
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
		rc = ecm_control(e, &e->d.ctl, 0x01, 0x0B, e->data_alt, e->data_intf, 0);
		break;
	case B_FILTER:
		rc = ecm_control(e, &e->d.ctl, 0x21, 0x43, 0x000C, e->comm_intf, 0);
		break;
	case B_LANGID:
		e->langid = usbhost_langid(e->d.h);
		if (e->langid) {
			ecm_step(e, B_MAC);
			return;
		}
		rc = ecm_control(e, &e->d.ctl, 0x80, 0x06, 0x0300, 0, 255);
		break;
	case B_MAC:
		rc = ecm_control(e, &e->d.ctl, 0x80, 0x06, (uint16_t)(0x0300 | e->imac), e->langid,
				 255);
		break;
	}
	if (rc) {
		e->d.ctl.urb.status = rc;
		ecm_fail(e);
	}
}

static void ecm_control_done(xb_urb *u)
{
	ecm_slot *s = (ecm_slot *)u;
	xb_ecmhost *e = s->owner;
	if (e->d.closing || !e->d.bound || s != &e->d.ctl)
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
		if (!ok || usbnet_parse_mac(e->d.mac, s->buf, u->actual)) {
			ecm_fail(e);
			return;
		}
		e->d.have_mac = 1;
		ecm_open(e);
		return;
	}
}

static void ecm_status_done(xb_urb *u)
{
	ecm_slot *s = (ecm_slot *)u;
	xb_ecmhost *e = s->owner;
	if (usbnet_urb_gone(u, e->d.closing))
		return;
	if (u->status == XB_URB_OK) {
		int link = usbnet_notification(&e->d.stats, &e->sts_split, s->buf, u->actual);
		if (link >= 0)
			usbnet_set_link(&e->d.link, &e->d.opt, link);
	} else if (u->status == XB_URB_EPIPE) {
		ecm_clear_halt(e, &e->halt_status, e->status_ep);
	}
	memset(s->buf, 0, e->status_mps);
	usbhost_submit(e->d.h, u);
}

static void ecm_rx_done(xb_urb *u)
{
	ecm_slot *s = (ecm_slot *)u;
	xb_ecmhost *e = s->owner;
	if (usbnet_urb_gone(u, e->d.closing))
		return;
	if (u->status == XB_URB_OK && u->actual >= ETH_HLEN) {
		e->d.stats.rx_frames++;
		e->d.stats.rx_bytes += u->actual;
		if (e->d.opt.rx)
			e->d.opt.rx(e->d.opt.rx_ctx, s->buf, u->actual, u->done_cycle);
	} else {
		e->d.stats.rx_errors++;
		if (u->status == XB_URB_EPIPE)
			ecm_clear_halt(e, &e->halt_in, e->in_ep);
	}
	if (!e->d.closing && e->d.up)
		ecm_submit_rx(e, s);
}

static void ecm_tx_done(xb_urb *u)
{
	ecm_slot *s = (ecm_slot *)u;
	xb_ecmhost *e = s->owner;
	if (u->status == XB_URB_EPIPE && !e->d.closing)
		ecm_clear_halt(e, &e->halt_out, e->out_ep);
	usbnet_tx_complete(s, &e->d.opt, &e->q, &e->d.stats, e->d.closing, &e->d.up, ecm_submit_tx, e);
}

int ecmhost_send(xb_ecmhost *e, const uint8_t *frame, size_t len)
{
	if (!e->d.up || !e->d.link || len < ETH_HLEN || len > e->max_segment) {
		e->d.stats.tx_dropped++;
		return -1;
	}
	return usbnet_xmit(e->d.tx, e->d.opt.tx_urbs, &e->q, &e->d.stats, ecm_submit_tx, e, frame, len);
}

/* ---- Binding ---- */

static void ecm_release(xb_ecmhost *e)
{
	usbnet_slots_free(e->d.rx, e->d.opt.rx_urbs);
	usbnet_slots_free(e->d.tx, e->d.opt.tx_urbs);
	e->d.rx = e->d.tx = NULL;
	usbnet_queue_clear(&e->q);
}

static int ecm_probe(void *ctx, xb_usbhost *h, const uint8_t *config, size_t len)
{
	xb_ecmhost *e = ctx;
	(void)h;
	ecm_release(e);
	usbnet_dev_probe(&e->d);
	e->sts_split = 0;
	e->status_ep = 0;
	if (!ecm_parse(e, config, len))
		return 0;
	e->d.bound = 1;
	ecm_step(e, B_SET_INTERFACE);
	return 1;
}

static void ecm_disconnect(void *ctx)
{
	xb_ecmhost *e = ctx;
	usbnet_dev_disconnect(&e->d);
	ecm_release(e);
}

static const xb_usbhost_driver ecm_driver = {
	.probe = ecm_probe,
	.disconnect = ecm_disconnect,
};

xb_ecmhost *ecmhost_new(xb_usbhost *h, const xb_ecmhost_options *o)
{
	xb_ecmhost *e = xcalloc(1, sizeof *e);
	e->halt_in.buf = xcalloc(1, CTL_BUF);
	e->halt_out.buf = xcalloc(1, CTL_BUF);
	e->halt_status.buf = xcalloc(1, CTL_BUF);
	usbnet_dev_init(&e->d, h, o, "cdc_ether", CTL_BUF, &ecm_driver, e);
	usbnet_queue_init(&e->q, e->d.opt.tx_queue);
	return e;
}

void ecmhost_free(xb_ecmhost *e)
{
	if (!e)
		return;
	ecm_slot *halts[] = {&e->halt_in, &e->halt_out, &e->halt_status};
	e->d.closing = 1;
	for (size_t i = 0; i < sizeof halts / sizeof *halts; i++)
		usbnet_unlink(e->d.h, halts[i], 1);
	usbnet_dev_close(&e->d, &ecm_driver, e);
	ecm_release(e);
	for (size_t i = 0; i < sizeof halts / sizeof *halts; i++)
		free(halts[i]->buf);
	usbnet_dev_free(&e->d);
	usbnet_queue_free(&e->q);
	free(e);
}

USBNET_DEV_GETTERS(ecmhost, xb_ecmhost)
