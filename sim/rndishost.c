/* rndishost: the RNDIS class driver of the virtual USB host (Linux rndis_host + usbnet
 * behaviour, see rndishost.h): descriptor matching, the control channel's commands, the
 * bring-up messages, REMOTE_NDIS_PACKET_MSG framing both ways. */
#include "rndishost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "usbnet.h"

#define ETH_HLEN 14u
#define ETH_FRAME_MAX 1514u
#define CONTROL_BUFFER_SIZE 1025u /* rndis_host.h */
#define PACKET_HDR 44u            /* struct rndis_data_hdr */
#define HARD_MTU (1500u + ETH_HLEN + PACKET_HDR)
#define POLL_MS 40u               /* msleep(40) between GET_ENCAPSULATED_RESPONSE tries */
#define POLL_TRIES 10u

/* MS RNDIS 1.0, section 2.2: message types; completions have bit 31 set. */
enum {
	MSG_PACKET = 1,
	MSG_INIT = 2,
	MSG_HALT = 3,
	MSG_QUERY = 4,
	MSG_SET = 5,
	MSG_INDICATE = 7,
	MSG_KEEPALIVE = 8,
	MSG_COMPLETION = (int)0x80000000u,
};
#define OID_GEN_PHYSICAL_MEDIUM 0x00010202u
#define OID_GEN_CURRENT_PACKET_FILTER 0x0001010Eu
#define OID_802_3_PERMANENT_ADDRESS 0x01010101u
#define DEFAULT_FILTER 0x2Du    /* DIRECTED | MULTICAST | BROADCAST | PROMISCUOUS */
#define MEDIUM_WIRELESS_LAN 1u

typedef usbnet_slot rn_slot;

enum { B_INIT, B_MEDIUM, B_MAC, B_FILTER, B_HALT, B_DONE };

struct xb_rndishost {
	usbnet_dev d; /* first: what every usbnet driver has */
	int step;
	uint8_t comm_intf, data_intf, status_ep, in_ep, out_ep, status_interval;
	uint16_t status_mps, in_mps, out_mps;
	uint32_t rx_size;
	/* the command in progress */
	uint8_t cmd[CONTROL_BUFFER_SIZE];
	uint32_t cmd_len, xid, next_xid, tries;
	uint64_t poll_event;
	usbnet_queue q; /* frames waiting for a bulk OUT URB */
	xb_rndishost_info info;
};

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* ---- Descriptors ---- */

static int rn_is_control(const uint8_t *d)
{
	return (d[5] == 0x02 && d[6] == 0x02 && d[7] == 0xFF) ||  /* RNDIS */
	       (d[5] == 0xEF && d[6] == 0x01 && d[7] == 0x01) ||  /* ActiveSync */
	       (d[5] == 0xEF && d[6] == 0x04 && d[7] == 0x01) ||  /* RNDIS for tethering */
	       (d[5] == 0xE0 && d[6] == 0x01 && d[7] == 0x03);    /* RNDIS, wireless class */
}

static int rn_parse(xb_rndishost *r, const uint8_t *c, size_t n)
{
	int comm = -1, in_comm = 0, data = -1;
	for (size_t i = 0; i + 2 <= n; i += c[i]) {
		unsigned len = c[i];
		if (len < 2 || i + len > n)
			return 0;
		const uint8_t *d = c + i;
		if (d[1] == 4 && len >= 9) {
			in_comm = d[3] == 0 && comm < 0 && rn_is_control(d);
			if (in_comm)
				comm = d[2];
			else if (comm >= 0 && d[2] == comm)
				in_comm = 1; /* another altsetting of it */
		} else if (in_comm && d[1] == 0x24 && len >= 5 && d[2] == 0x06 && d[3] == comm) {
			data = d[4];
		} else if (in_comm && d[1] == 5 && len >= 7 && (d[3] & 3) == 3 && (d[2] & 0x80) &&
			   !r->status_ep) {
			r->status_ep = d[2];
			r->status_mps = le16(d + 4) & 0x7FF;
			r->status_interval = d[6];
		}
	}
	if (comm < 0)
		return 0;
	if (data < 0)
		data = comm + 1;
	r->comm_intf = (uint8_t)comm;
	r->data_intf = (uint8_t)data;
	int in_data = 0;
	for (size_t i = 0; i + 2 <= n; i += c[i]) {
		const uint8_t *d = c + i;
		if (d[1] == 4 && d[0] >= 9)
			in_data = d[2] == data && d[3] == 0;
		else if (in_data && d[1] == 5 && d[0] >= 7 && (d[3] & 3) == 2) {
			if ((d[2] & 0x80) && !r->in_ep)
				r->in_ep = d[2], r->in_mps = le16(d + 4) & 0x7FF;
			else if (!(d[2] & 0x80) && !r->out_ep)
				r->out_ep = d[2], r->out_mps = le16(d + 4) & 0x7FF;
		}
	}
	return r->in_ep && r->out_ep && r->in_mps && r->out_mps;
}

/* ---- Control ---- */

static void rn_control_done(xb_urb *u);
static void rn_step(xb_rndishost *r, int step);
static void rn_fail(xb_rndishost *r);

static int rn_control(xb_rndishost *r, uint8_t rt, uint8_t req, const uint8_t *data,
		      uint16_t len)
{
	return usbnet_control(r->d.h, &r->d.ctl, r, rt, req, 0, r->comm_intf, data, len,
			      rn_control_done);
}

/* The poll of the control channel: GET_ENCAPSULATED_RESPONSE. */
static void rn_poll(xb_rndishost *r)
{
	r->info.polls++;
	if (rn_control(r, 0xA1, 0x01, NULL, CONTROL_BUFFER_SIZE))
		rn_fail(r);
}

static void rn_poll_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_rndishost *r = ctx;
	r->poll_event = 0;
	if (r->d.bound && !r->d.closing)
		rn_poll(r);
}

/* rndis_command: the message in r->cmd gets the next request ID (not HALT) and goes out. */
static void rn_command(xb_rndishost *r, uint32_t len)
{
	uint32_t type = le32(r->cmd);
	r->xid = 0;
	if (type != MSG_HALT) {
		r->xid = r->next_xid++;
		if (!r->xid)
			r->xid = r->next_xid++;
		put32(r->cmd + 8, r->xid);
	}
	r->cmd_len = len;
	r->tries = 0;
	r->info.commands++;
	if (rn_control(r, 0x21, 0x00, r->cmd, (uint16_t)len))
		rn_fail(r);
}

static void rn_schedule_poll(xb_rndishost *r)
{
	xb_board *b = usbhost_board(r->d.h);
	uint64_t at = usbhost_now(r->d.h) + (uint64_t)POLL_MS * board_cpu_hz(b) / 1000;
	r->poll_event = board_schedule(b, at, rn_poll_event, r);
}

/* A response arrived (or the poll failed: n < 8): the command's answer, or a retry. */
static void rn_response(xb_rndishost *r, const uint8_t *d, uint32_t n)
{
	if (n >= 8) {
		uint32_t type = le32(d), want = le32(r->cmd) | 0x80000000u;
		if (type == want && n >= 16 && le32(d + 8) == r->xid) {
			if (le32(d + 12) != 0) { /* RNDIS_STATUS_SUCCESS */
				rn_fail(r);
				return;
			}
			rn_step(r, r->step + 1 == B_HALT ? B_DONE : r->step + 1);
			return;
		}
		if (type == MSG_INDICATE) {
			r->info.indications++;
		} else if (type == MSG_KEEPALIVE && n >= 12) {
			/* KEEPALIVE_C with the device's request ID, then the polling goes on. */
			uint8_t k[16];
			put32(k, MSG_KEEPALIVE | 0x80000000u);
			put32(k + 4, 16);
			memcpy(k + 8, d + 8, 4);
			put32(k + 12, 0);
			r->info.keepalives++;
			r->tries++;
			r->step |= 0x100; /* the next completion is the KEEPALIVE_C's */
			if (rn_control(r, 0x21, 0x00, k, 16))
				rn_fail(r);
			return;
		}
	}
	if (++r->tries >= POLL_TRIES) {
		rn_fail(r);
		return;
	}
	rn_schedule_poll(r);
}

static void rn_open(xb_rndishost *r);

/* The step's answer was checked by rn_response; look at what it says, then go on. */
static void rn_step(xb_rndishost *r, int step)
{
	const uint8_t *d = r->d.ctl.buf;
	uint32_t n = r->d.ctl.urb.actual;
	/* What the step just finished tells (the response is still in the control buffer). */
	switch (step) {
	case B_MEDIUM: { /* after INITIALIZE_CMPLT */
		r->info.init_max_transfer = n >= 40 ? le32(d + 36) : 0;
		if (r->info.init_max_transfer && r->info.init_max_transfer <= ETH_HLEN + PACKET_HDR) {
			rn_step(r, B_HALT);
			return;
		}
		break;
	}
	case B_MAC: { /* after the medium query (optional: any answer will do) */
		uint32_t off = n >= 24 ? le32(d + 20) : 0, len = n >= 24 ? le32(d + 16) : 0;
		if (len == 4 && off + 8 + 4 <= n)
			r->info.medium = le32(d + 8 + off);
		if (r->info.medium == MEDIUM_WIRELESS_LAN) { /* FLAG_RNDIS_PHYM_NOT_WIRELESS */
			rn_step(r, B_HALT);
			return;
		}
		break;
	}
	case B_FILTER: { /* after the address query: exactly 6 bytes */
		uint32_t off = n >= 24 ? le32(d + 20) : 0, len = n >= 24 ? le32(d + 16) : 0;
		if (len != 6 || off > CONTROL_BUFFER_SIZE - 8 || off + 8 + 6 > n) {
			rn_step(r, B_HALT);
			return;
		}
		memcpy(r->info.device_mac, d + 8 + off, 6);
		if (!(r->info.device_mac[0] & 0x02)) {
			memcpy(r->d.mac, r->info.device_mac, 6);
			r->d.have_mac = 1;
		}
		break;
	}
	}
	r->step = step;
	memset(r->cmd, 0, sizeof r->cmd);
	switch (step) {
	case B_INIT:
		put32(r->cmd, MSG_INIT);
		put32(r->cmd + 4, 24);
		put32(r->cmd + 12, 1); /* major */
		put32(r->cmd + 16, 0); /* minor */
		put32(r->cmd + 20, r->rx_size);
		rn_command(r, 24);
		return;
	case B_MEDIUM:
	case B_MAC: { /* rndis_query: in_len bytes of zeros after the 28-byte header */
		uint32_t in_len = step == B_MEDIUM ? 4 : 48;
		put32(r->cmd, MSG_QUERY);
		put32(r->cmd + 4, 28 + in_len);
		put32(r->cmd + 12, step == B_MEDIUM ? OID_GEN_PHYSICAL_MEDIUM
						     : OID_802_3_PERMANENT_ADDRESS);
		put32(r->cmd + 16, in_len);
		put32(r->cmd + 20, 20);
		rn_command(r, 28 + in_len);
		return;
	}
	case B_FILTER:
		put32(r->cmd, MSG_SET);
		put32(r->cmd + 4, 32);
		put32(r->cmd + 12, OID_GEN_CURRENT_PACKET_FILTER);
		put32(r->cmd + 16, 4);
		put32(r->cmd + 20, 20);
		put32(r->cmd + 28, DEFAULT_FILTER);
		rn_command(r, 32);
		return;
	case B_HALT:
		put32(r->cmd, MSG_HALT);
		put32(r->cmd + 4, 12);
		r->d.failed = 1;
		rn_command(r, 12);
		return;
	case B_DONE:
		rn_open(r);
		return;
	}
}

/* Why the bring-up stops at the current step (the first reason is kept). */
static void rn_note_failure(xb_rndishost *r)
{
	static const char *const msg[] = {
		"REMOTE_NDIS_INITIALIZE_MSG", "REMOTE_NDIS_QUERY_MSG (OID_GEN_PHYSICAL_MEDIUM)",
		"REMOTE_NDIS_QUERY_MSG (OID_802_3_PERMANENT_ADDRESS)",
		"REMOTE_NDIS_SET_MSG (OID_GEN_CURRENT_PACKET_FILTER)", "REMOTE_NDIS_HALT_MSG"};
	const char *m = (r->step & 0xFF) < 5 ? msg[r->step & 0xFF] : "a message";
	if (r->d.why[0])
		return;
	if (r->d.ctl.urb.status != XB_URB_OK) {
		char who[96];
		snprintf(who, sizeof who, "rndis_host (%s)", m);
		usbnet_failure_text(&r->d.ctl, who, r->d.why, sizeof r->d.why);
	} else if (r->tries >= POLL_TRIES) {
		snprintf(r->d.why, sizeof r->d.why, "rndis_host: %s got no answer in %u polls", m,
			 (unsigned)POLL_TRIES);
	} else {
		snprintf(r->d.why, sizeof r->d.why, "rndis_host: %s was answered with an error status",
			 m);
	}
}

static void rn_fail(xb_rndishost *r)
{
	if (r->step != B_MEDIUM)
		rn_note_failure(r);
	if (r->step == B_HALT || r->d.failed) {
		r->d.failed = 1;
		return;
	}
	if (r->step == B_INIT) { /* "it might not even be an RNDIS device": no HALT */
		r->d.failed = 1;
		return;
	}
	if (r->step == B_MEDIUM) { /* the medium is optional: unspecified */
		r->d.ctl.urb.actual = 0;
		rn_step(r, B_MAC);
		return;
	}
	rn_step(r, B_HALT);
}

static void rn_control_done(xb_urb *u)
{
	rn_slot *s = (rn_slot *)u;
	xb_rndishost *r = s->owner;
	if (r->d.closing || !r->d.bound || s != &r->d.ctl || r->d.up)
		return;
	int ok = u->status == XB_URB_OK;
	if (r->step & 0x100) { /* a KEEPALIVE_C went: poll again after the pause */
		r->step &= 0xFF;
		rn_schedule_poll(r);
		return;
	}
	if (u->setup[1] == 0x00) { /* SEND_ENCAPSULATED_COMMAND completed */
		if (!ok) {
			rn_fail(r);
			return;
		}
		if (r->step == B_HALT) /* no answer is waited for */
			return;
		rn_poll(r);
		return;
	}
	rn_response(r, s->buf, ok ? u->actual : 0);
}

/* ---- Frames ---- */

static void rn_rx_done(xb_urb *u);
static void rn_tx_done(xb_urb *u);
static void rn_status_done(xb_urb *u);

static void rn_submit_rx(xb_rndishost *r, rn_slot *s)
{
	usbnet_submit(r->d.h, s, r, XB_USBMON_BULK, r->in_ep, s->buf, r->rx_size, rn_rx_done);
}

static int rn_submit_tx(void *drv, rn_slot *s, const uint8_t *frame, size_t len)
{
	xb_rndishost *r = drv;
	uint8_t *b = s->buf;
	memset(b, 0, PACKET_HDR);
	put32(b, MSG_PACKET);
	put32(b + 4, (uint32_t)(PACKET_HDR + len));
	put32(b + 8, PACKET_HDR - 8);
	put32(b + 12, (uint32_t)len);
	memcpy(b + PACKET_HDR, frame, len);
	size_t n = PACKET_HDR + len;
	if (n % r->out_mps == 0)
		b[n++] = 0; /* usbnet: a byte of padding instead of a ZLP */
	s->frame_len = len;
	return usbnet_submit(r->d.h, s, r, XB_USBMON_BULK, r->out_ep, b, (uint32_t)n, rn_tx_done);
}

static void rn_open(xb_rndishost *r)
{
	r->step = B_DONE;
	r->d.up = 1;
	r->d.stats.binds++;
	if (r->status_ep)
		usbnet_submit_status(r->d.h, &r->d.status, r, r->status_ep, r->status_mps,
				     r->status_interval, rn_status_done);
	r->d.rx = usbnet_slots_new(r->d.opt.rx_urbs);
	r->d.tx = usbnet_slots_new(r->d.opt.tx_urbs);
	for (unsigned i = 0; i < r->d.opt.tx_urbs; i++)
		r->d.tx[i].buf = xmalloc(PACKET_HDR + ETH_FRAME_MAX + 1u);
	for (unsigned i = 0; i < r->d.opt.rx_urbs; i++) {
		r->d.rx[i].buf = xmalloc(r->rx_size);
		rn_submit_rx(r, &r->d.rx[i]);
	}
	usbnet_set_link(&r->d.link, &r->d.opt, 1); /* no FLAG_LINK_INTR: the carrier is on once open */
}

static void rn_status_done(xb_urb *u)
{
	rn_slot *s = (rn_slot *)u;
	xb_rndishost *r = s->owner;
	if (usbnet_urb_gone(u, r->d.closing))
		return;
	if (u->status == XB_URB_OK && u->actual)
		r->d.stats.notifications++; /* RESPONSE_AVAILABLE: rndis_status only logs it */
	else if (u->status == XB_URB_EPIPE)
		usbhost_clear_halt(r->d.h, r->status_ep, NULL, NULL);
	usbhost_submit(r->d.h, u);
}

/* rndis_rx_fixup: every REMOTE_NDIS_PACKET_MSG of the transfer. */
static void rn_rx_done(xb_urb *u)
{
	rn_slot *s = (rn_slot *)u;
	xb_rndishost *r = s->owner;
	if (usbnet_urb_gone(u, r->d.closing))
		return;
	if (u->status == XB_URB_OK && u->actual >= ETH_HLEN + PACKET_HDR) {
		const uint8_t *p = s->buf;
		uint32_t left = u->actual;
		while (left) {
			if (left < PACKET_HDR) {
				r->d.stats.rx_errors++;
				break;
			}
			uint32_t type = le32(p), mlen = le32(p + 4), off = le32(p + 8),
				 dlen = le32(p + 12);
			if (type != MSG_PACKET || left < mlen || mlen < PACKET_HDR ||
			    (uint64_t)off + dlen + 8 > mlen || dlen < ETH_HLEN) {
				r->d.stats.rx_errors++;
				break;
			}
			r->d.stats.rx_frames++;
			r->d.stats.rx_bytes += dlen;
			if (r->d.opt.rx)
				r->d.opt.rx(r->d.opt.rx_ctx, p + 8 + off, dlen, u->done_cycle);
			if (r->d.closing)
				return;
			/* at most one message left: the rest is padding */
			if (left - mlen < PACKET_HDR)
				break;
			p += mlen;
			left -= mlen;
		}
	} else {
		r->d.stats.rx_errors++;
		if (u->status == XB_URB_EPIPE)
			usbhost_clear_halt(r->d.h, r->in_ep, NULL, NULL);
	}
	if (!r->d.closing && r->d.up)
		rn_submit_rx(r, s);
}

static void rn_tx_done(xb_urb *u)
{
	rn_slot *s = (rn_slot *)u;
	xb_rndishost *r = s->owner;
	if (u->status == XB_URB_EPIPE && !r->d.closing)
		usbhost_clear_halt(r->d.h, r->out_ep, NULL, NULL);
	usbnet_tx_complete(s, &r->d.opt, &r->q, &r->d.stats, r->d.closing, &r->d.up, rn_submit_tx, r);
}

int rndishost_send(xb_rndishost *r, const uint8_t *frame, size_t len)
{
	if (!r->d.up || !r->d.link || len < ETH_HLEN || len > ETH_FRAME_MAX ||
	    (r->info.init_max_transfer && PACKET_HDR + len > r->info.init_max_transfer)) {
		r->d.stats.tx_dropped++;
		return -1;
	}
	return usbnet_xmit(r->d.tx, r->d.opt.tx_urbs, &r->q, &r->d.stats, rn_submit_tx, r, frame, len);
}

/* ---- Binding ---- */

static void rn_release(xb_rndishost *r)
{
	xb_board *b = usbhost_board(r->d.h);
	if (r->poll_event)
		board_cancel(b, r->poll_event);
	r->poll_event = 0;
	usbnet_slots_free(r->d.rx, r->d.opt.rx_urbs);
	usbnet_slots_free(r->d.tx, r->d.opt.tx_urbs);
	r->d.rx = r->d.tx = NULL;
	usbnet_queue_clear(&r->q);
}

static int rn_probe(void *ctx, xb_usbhost *h, const uint8_t *config, size_t len)
{
	xb_rndishost *r = ctx;
	(void)h;
	rn_release(r);
	usbnet_dev_probe(&r->d);
	r->status_ep = r->in_ep = r->out_ep = 0;
	memset(&r->info, 0, sizeof r->info);
	if (!rn_parse(r, config, len))
		return 0;
	/* usbnet: rx_urb_size = hard_mtu + maxpacket + 1, rounded down to maxpacket */
	r->rx_size = (HARD_MTU + r->in_mps + 1u) & ~(uint32_t)(r->in_mps - 1u);
	r->d.bound = 1;
	r->next_xid = 0;
	rn_step(r, B_INIT);
	return 1;
}

static void rn_disconnect(void *ctx)
{
	xb_rndishost *r = ctx;
	usbnet_dev_disconnect(&r->d);
	rn_release(r);
}

static const xb_usbhost_driver rn_driver = {
	.probe = rn_probe,
	.disconnect = rn_disconnect,
};

xb_rndishost *rndishost_new(xb_usbhost *h, const xb_ecmhost_options *o)
{
	xb_rndishost *r = xcalloc(1, sizeof *r);
	usbnet_dev_init(&r->d, h, o, "rndis_host", CONTROL_BUFFER_SIZE, &rn_driver, r);
	usbnet_queue_init(&r->q, r->d.opt.tx_queue);
	return r;
}

void rndishost_free(xb_rndishost *r)
{
	if (!r)
		return;
	usbnet_dev_close(&r->d, &rn_driver, r);
	rn_release(r);
	usbnet_dev_free(&r->d);
	usbnet_queue_free(&r->q);
	free(r);
}

void rndishost_info(const xb_rndishost *r, xb_rndishost_info *out)
{
	*out = r->info;
	out->failed = r->d.failed;
}

USBNET_DEV_GETTERS(rndishost, xb_rndishost)
