/* ncmhost: the CDC-NCM class driver of the virtual USB host (Linux cdc_ncm + usbnet
 * behaviour, see ncmhost.h): descriptor parsing, bring-up, NTB16 framing with the transmit
 * timer, notifications. NCM 1.0 section numbers are cited where the layout comes from. */
#include "ncmhost.h"

#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "usbnet.h"

#define ETH_HLEN 14u
#define CTL_BUF 256u
#define NTH16_LEN 12u                /* NCM 1.0 table 3-1 */
#define NTH16_SIGN 0x484D434Eu       /* "NCMH" */
#define NDP16_SIGN0 0x304D434Eu      /* "NCM0" (no CRC) */
#define NDP16_SIGN1 0x314D434Eu      /* "NCM1" */
#define DEF_SIZE 16384u              /* CDC_NCM_NTB_DEF_SIZE_RX / _TX */
#define MIN_IN_SIZE 2048u            /* USB_CDC_NCM_NTB_MIN_IN_SIZE */
#define MAX_DATAGRAMS 40u            /* CDC_NCM_DPT_DATAGRAMS_MAX */
#define TIMER_US 400u                /* CDC_NCM_TIMER_INTERVAL_USEC */
#define TIMER_PENDING 2u             /* CDC_NCM_TIMER_PENDING_CNT */
#define RESTART_COUNT 3u             /* CDC_NCM_RESTART_TIMER_DATAGRAM_CNT */
#define MIN_TX_PKT 512u              /* CDC_NCM_MIN_TX_PKT */
#define SETTLE_US 10000u             /* usleep_range(10000, 20000) in the bind */

typedef usbnet_slot nc_slot; /* tx: frames and lens say what the NTB holds */

enum { B_ALT1_RESET, B_ALT0, B_PARAMS, B_FORMAT, B_SETTLE, B_ALT1, B_MAC, B_INSIZE, B_FILTER,
       B_DONE };

/* An NTB being filled or waiting for an URB. */
typedef struct nc_ntb {
	uint8_t *buf;
	size_t len, ndp;
	unsigned frames;
	size_t *lens;
} nc_ntb;

struct xb_ncmhost {
	usbnet_dev d; /* first: what every usbnet driver has */
	int sts_split;
	int step;
	uint8_t comm_intf, data_intf, status_ep, in_ep, out_ep, imac, status_interval, ncaps;
	uint16_t status_mps, in_mps, out_mps, max_segment, langid;
	/* NTB parameters in use */
	uint32_t rx_max, tx_max, min_tx_pkt, max_ndp;
	uint16_t tx_modulus, tx_remainder, tx_ndp_modulus, tx_max_datagrams, tx_seq;
	/* the NTB being filled and the timer */
	nc_ntb cur;
	unsigned pending;
	uint64_t timer_event, settle_event;
	/* whole NTBs waiting for an URB: a ring */
	nc_ntb *queue;
	unsigned q_head, q_count, q_cap;
	xb_ncmhost_info info;
};

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

/* ---- Descriptors ---- */

static int nc_parse(xb_ncmhost *n, const uint8_t *c, size_t len)
{
	int comm = -1, in_comm = 0, header = 0, uni = 0, ether = 0, ncm = 0, data = -1;
	for (size_t i = 0; i + 2 <= len; i += c[i]) {
		unsigned l = c[i];
		if (l < 2 || i + l > len)
			return 0;
		const uint8_t *d = c + i;
		if (d[1] == 4 && l >= 9) {
			in_comm = d[3] == 0 && comm < 0 && d[5] == 0x02 && d[6] == 0x0D && d[7] == 0;
			if (in_comm)
				comm = d[2];
		} else if (in_comm && d[1] == 0x24 && l >= 3) {
			if (d[2] == 0x00)
				header = 1;
			else if (d[2] == 0x06 && l >= 5 && d[3] == comm)
				uni = 1, data = d[4];
			else if (d[2] == 0x0F && l >= 13) {
				ether = 1;
				n->imac = d[3];
				n->max_segment = le16(d + 8);
			} else if (d[2] == 0x1A && l >= 6) {
				ncm = 1;
				n->ncaps = d[5];
			}
		} else if (in_comm && d[1] == 5 && l >= 7 && (d[3] & 3) == 3 && (d[2] & 0x80)) {
			n->status_ep = d[2];
			n->status_mps = le16(d + 4) & 0x7FF;
			n->status_interval = d[6];
		}
	}
	if (comm < 0 || !header || !uni || !ether || !ncm || !n->imac)
		return 0;
	n->comm_intf = (uint8_t)comm;
	n->data_intf = (uint8_t)data;
	if (!n->max_segment)
		n->max_segment = 1514;
	int in_data = 0;
	for (size_t i = 0; i + 2 <= len; i += c[i]) {
		const uint8_t *d = c + i;
		if (d[1] == 4 && d[0] >= 9)
			in_data = d[2] == data && d[3] == 1 && d[5] == 0x0A;
		else if (in_data && d[1] == 5 && d[0] >= 7 && (d[3] & 3) == 2) {
			if (d[2] & 0x80)
				n->in_ep = d[2], n->in_mps = le16(d + 4) & 0x7FF;
			else
				n->out_ep = d[2], n->out_mps = le16(d + 4) & 0x7FF;
		}
	}
	return n->in_ep && n->out_ep && n->in_mps && n->out_mps;
}

/* ---- Control ---- */

static void nc_control_done(xb_urb *u);

static int nc_control(xb_ncmhost *n, uint8_t rt, uint8_t req, uint16_t value, uint16_t index,
		      const uint8_t *data, uint16_t len)
{
	return usbnet_control(n->d.h, &n->d.ctl, n, rt, req, value, index, data, len, nc_control_done);
}

static void nc_step(xb_ncmhost *n, int step);

static void nc_settle_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_ncmhost *n = ctx;
	n->settle_event = 0;
	if (n->d.bound && !n->d.closing)
		nc_step(n, B_ALT1);
}

/* The NTB parameters Linux takes (cdc_ncm_init, cdc_ncm_update_rxtx_max). */
static void nc_take_params(xb_ncmhost *n)
{
	const uint8_t *p = n->info.params;
	uint32_t in_max = le32(p + 4), out_max = le32(p + 16);
	uint32_t max = in_max < MIN_IN_SIZE ? MIN_IN_SIZE : in_max;
	uint32_t want = in_max < DEF_SIZE ? in_max : DEF_SIZE;
	n->rx_max = want < MIN_IN_SIZE ? MIN_IN_SIZE : want > max ? max : want;
	n->tx_modulus = le16(p + 20);
	n->tx_remainder = le16(p + 22);
	n->tx_ndp_modulus = le16(p + 24);
	n->tx_max_datagrams = le16(p + 26);
	if (!n->tx_max_datagrams || n->tx_max_datagrams > MAX_DATAGRAMS)
		n->tx_max_datagrams = MAX_DATAGRAMS;
	n->max_ndp = 8u + (n->tx_max_datagrams + 1u) * 4u;
	n->tx_max = out_max < DEF_SIZE ? out_max : DEF_SIZE;
	uint32_t tx_min = n->max_ndp + NTH16_LEN + n->max_segment;
	if (n->tx_max < tx_min)
		n->tx_max = tx_min;
	if (n->tx_max != out_max && n->tx_max % n->out_mps == 0)
		n->tx_max++;
	if (n->tx_ndp_modulus < 4 || n->tx_ndp_modulus > n->tx_max ||
	    (n->tx_ndp_modulus & (n->tx_ndp_modulus - 1)))
		n->tx_ndp_modulus = 4;
	if (!n->tx_modulus || n->tx_modulus > n->tx_max || (n->tx_modulus & (n->tx_modulus - 1)))
		n->tx_modulus = 4;
	if (n->tx_remainder >= n->tx_modulus)
		n->tx_remainder = 0;
	uint32_t m = n->tx_max > 3u * n->out_mps ? n->tx_max - 3u * n->out_mps : 0;
	n->min_tx_pkt = m < MIN_TX_PKT ? MIN_TX_PKT : m > n->tx_max ? n->tx_max : m;
	n->info.rx_max = n->rx_max;
	n->info.tx_max = n->tx_max;
}

static void nc_open(xb_ncmhost *n);

/* The bring-up gives up at the request in ctl, as cdc_ncm's bind would. */
static void nc_fail(xb_ncmhost *n)
{
	usbnet_dev_fail(&n->d);
}

static void nc_step(xb_ncmhost *n, int step)
{
	n->step = step;
	int rc = 0;
	switch (step) {
	case B_ALT1_RESET:
		rc = nc_control(n, 0x01, 0x0B, 1, n->data_intf, NULL, 0);
		break;
	case B_ALT0:
		rc = nc_control(n, 0x01, 0x0B, 0, n->data_intf, NULL, 0);
		break;
	case B_PARAMS:
		rc = nc_control(n, 0xA1, 0x80, 0, n->comm_intf, NULL, 28);
		break;
	case B_FORMAT:
		if (!(le16(n->info.params + 2) & 0x0002)) { /* NTB32 not supported: nothing to set */
			nc_step(n, B_SETTLE);
			return;
		}
		rc = nc_control(n, 0x21, 0x84, 0, n->comm_intf, NULL, 0);
		break;
	case B_SETTLE: {
		xb_board *b = usbhost_board(n->d.h);
		uint64_t at = usbhost_now(n->d.h) + (uint64_t)SETTLE_US * board_cpu_hz(b) / 1000000u;
		n->settle_event = board_schedule(b, at, nc_settle_event, n);
		return;
	}
	case B_ALT1:
		rc = nc_control(n, 0x01, 0x0B, 1, n->data_intf, NULL, 0);
		break;
	case B_MAC:
		n->langid = usbhost_langid(n->d.h);
		rc = nc_control(n, 0x80, 0x06, (uint16_t)(0x0300 | n->imac),
				n->langid ? n->langid : 0x0409, NULL, 255);
		break;
	case B_INSIZE: {
		if (n->rx_max == le32(n->info.params + 4)) {
			nc_step(n, B_FILTER);
			return;
		}
		uint8_t v[4];
		put32(v, n->rx_max);
		n->info.set_input_size = n->rx_max;
		rc = nc_control(n, 0x21, 0x86, 0, n->comm_intf, v, 4);
		break;
	}
	case B_FILTER:
		rc = nc_control(n, 0x21, 0x43, 0x000C, n->comm_intf, NULL, 0);
		break;
	case B_DONE:
		nc_open(n);
		return;
	}
	if (rc) {
		n->d.ctl.urb.status = rc;
		nc_fail(n);
	}
}

static void nc_control_done(xb_urb *u)
{
	nc_slot *s = (nc_slot *)u;
	xb_ncmhost *n = s->owner;
	if (n->d.closing || !n->d.bound || n->d.up)
		return;
	int ok = u->status == XB_URB_OK;
	switch (n->step) {
	case B_ALT1_RESET: /* the result is not checked */
		nc_step(n, B_ALT0);
		return;
	case B_PARAMS:
		if (!ok || u->actual < 28) {
			nc_fail(n); /* GET_NTB_PARAMETERS is required */
			return;
		}
		memcpy(n->info.params, s->buf, 28);
		nc_take_params(n);
		nc_step(n, B_FORMAT);
		return;
	case B_MAC:
		if (!ok || usbnet_parse_mac(n->d.mac, s->buf, u->actual)) {
			nc_fail(n);
			return;
		}
		n->d.have_mac = 1;
		nc_step(n, B_INSIZE);
		return;
	case B_INSIZE: /* a refusal keeps the device's size */
		if (!ok) {
			n->rx_max = le32(n->info.params + 4);
			n->info.rx_max = n->rx_max;
		}
		nc_step(n, B_FILTER);
		return;
	case B_FILTER: /* usbnet_cdc_update_filter ignores the answer */
		nc_step(n, B_DONE);
		return;
	default: /* SET_INTERFACE(0), SET_NTB_FORMAT, SET_INTERFACE(1): must succeed */
		if (!ok) {
			nc_fail(n);
			return;
		}
		nc_step(n, n->step + 1);
		return;
	}
}

/* ---- Transmit ---- */

static void nc_tx_done(xb_urb *u);
static void nc_rx_done(xb_urb *u);
static void nc_status_done(xb_urb *u);

/* cdc_ncm_align_tail */
static size_t nc_align(size_t len, unsigned modulus, unsigned remainder, size_t max)
{
	size_t a = (len + modulus - 1) / modulus * modulus - len + remainder;
	if (len + a > max)
		a = max - len;
	return len + a;
}

static void nc_ntb_begin(xb_ncmhost *n)
{
	nc_ntb *t = &n->cur;
	t->buf = xcalloc(1, n->tx_max + 1u);
	t->lens = xcalloc(n->tx_max_datagrams, sizeof *t->lens);
	t->frames = 0;
	put32(t->buf, NTH16_SIGN);
	put16(t->buf + 4, NTH16_LEN);
	put16(t->buf + 6, n->tx_seq++);
	t->len = nc_align(NTH16_LEN, n->tx_ndp_modulus, 0, n->tx_max);
	t->ndp = t->len;
	put16(t->buf + 10, (uint32_t)t->ndp);
	put32(t->buf + t->ndp, NDP16_SIGN0);
	put16(t->buf + t->ndp + 4, 8 + 4);
	t->len += n->max_ndp;
	n->info.tx_seq = n->tx_seq;
}

static int nc_submit_ntb(xb_ncmhost *n, nc_slot *s, nc_ntb *t)
{
	/* Padding: a long NTB to tx_max, else a byte instead of a ZLP. */
	if (t->len > n->min_tx_pkt)
		t->len = n->tx_max;
	else if (t->len < n->tx_max && t->len % n->out_mps == 0)
		t->len++;
	put16(t->buf + 8, (uint32_t)t->len);
	free(s->buf);
	free(s->lens);
	s->buf = t->buf;
	s->lens = t->lens;
	s->frames = t->frames;
	n->info.ntbs_out++;
	t->buf = NULL;
	t->lens = NULL;
	return usbnet_submit(n->d.h, s, n, XB_USBMON_BULK, n->out_ep, s->buf, (uint32_t)t->len,
			     nc_tx_done);
}

/* The NTB being filled goes to a free URB, or waits in the queue. */
static void nc_flush(xb_ncmhost *n)
{
	nc_ntb *t = &n->cur;
	if (!t->buf)
		return;
	if (n->timer_event) {
		board_cancel(usbhost_board(n->d.h), n->timer_event);
		n->timer_event = 0;
	}
	n->pending = 0;
	nc_slot *s = usbnet_idle_tx(n->d.tx, n->d.opt.tx_urbs, n->q_count);
	if (s) {
		if (nc_submit_ntb(n, s, t))
			n->d.stats.tx_dropped += s->frames;
		return;
	}
	if (n->q_count == n->q_cap) {
		n->d.stats.tx_dropped += t->frames;
		free(t->buf);
		free(t->lens);
		t->buf = NULL;
		t->lens = NULL;
		return;
	}
	n->queue[(n->q_head + n->q_count) % n->q_cap] = *t;
	n->q_count++;
	t->buf = NULL;
	t->lens = NULL;
}

static void nc_timer_event(xb_board *b, void *ctx)
{
	xb_ncmhost *n = ctx;
	n->timer_event = 0;
	if (n->pending) { /* cdc_ncm_txpath_bh: restart while pending */
		n->pending--;
		n->timer_event = board_schedule(b, board_cycles(b) +
						       (uint64_t)TIMER_US * board_cpu_hz(b) / 1000000u,
						nc_timer_event, n);
		return;
	}
	nc_flush(n);
}

int ncmhost_send(xb_ncmhost *n, const uint8_t *frame, size_t len)
{
	if (!n->d.up || !n->d.link || len < ETH_HLEN || len > n->max_segment) {
		n->d.stats.tx_dropped++;
		return -1;
	}
	if (n->cur.buf) { /* no room for this one: the NTB goes first */
		size_t at = nc_align(n->cur.len, n->tx_modulus, n->tx_remainder, n->tx_max);
		if (at + len > n->tx_max)
			nc_flush(n);
	}
	if (!n->cur.buf)
		nc_ntb_begin(n);
	nc_ntb *t = &n->cur;
	size_t at = nc_align(t->len, n->tx_modulus, n->tx_remainder, n->tx_max);
	memcpy(t->buf + at, frame, len);
	uint8_t *ndp = t->buf + t->ndp;
	unsigned k = t->frames;
	put16(ndp + 8 + 4 * k, (uint32_t)at);
	put16(ndp + 10 + 4 * k, (uint32_t)len);
	put16(ndp + 4, 8 + 4 * (k + 2));
	t->lens[k] = len;
	t->frames++;
	t->len = at + len;
	if (t->frames >= n->tx_max_datagrams) {
		nc_flush(n);
		return 0;
	}
	if (t->frames < RESTART_COUNT)
		n->pending = TIMER_PENDING;
	if (!n->timer_event) {
		xb_board *b = usbhost_board(n->d.h);
		n->timer_event = board_schedule(b, usbhost_now(n->d.h) +
							   (uint64_t)TIMER_US * board_cpu_hz(b) / 1000000u,
						nc_timer_event, n);
	}
	return 0;
}

static void nc_tx_done(xb_urb *u)
{
	nc_slot *s = (nc_slot *)u;
	xb_ncmhost *n = s->owner;
	for (unsigned i = 0; i < s->frames; i++) {
		if (u->status == XB_URB_OK) {
			n->d.stats.tx_frames++;
			n->d.stats.tx_bytes += s->lens[i];
		} else {
			n->d.stats.tx_errors++;
		}
	}
	if (u->status == XB_URB_EPIPE && !n->d.closing)
		usbhost_clear_halt(n->d.h, n->out_ep, NULL, NULL);
	if (n->d.closing)
		return;
	for (unsigned i = 0; i < s->frames && n->d.opt.tx_done; i++)
		n->d.opt.tx_done(n->d.opt.tx_ctx, s->lens[i], u->status, u->done_cycle);
	s->frames = 0;
	if (!n->d.up || !n->q_count)
		return;
	nc_ntb t = n->queue[n->q_head];
	n->q_head = (n->q_head + 1) % n->q_cap;
	n->q_count--;
	if (nc_submit_ntb(n, s, &t))
		n->d.stats.tx_dropped += s->frames;
}

/* ---- Receive ---- */

static void nc_submit_rx(xb_ncmhost *n, nc_slot *s)
{
	usbnet_submit(n->d.h, s, n, XB_USBMON_BULK, n->in_ep, s->buf, n->rx_max, nc_rx_done);
}

/* cdc_ncm_rx_fixup over one NTB16. */
static void nc_rx_ntb(xb_ncmhost *n, const uint8_t *b, uint32_t len, uint64_t cycle)
{
	if (len < NTH16_LEN || le32(b) != NTH16_SIGN || le16(b + 4) != NTH16_LEN ||
	    le16(b + 8) > n->rx_max) {
		n->info.ntb_errors++;
		n->d.stats.rx_errors++;
		return;
	}
	n->info.ntbs_in++;
	uint32_t ndp = le16(b + 10);
	for (unsigned hops = 0; ndp && hops < 32; hops++) {
		if (ndp + 16u > len || ndp % 4) { /* cdc_ncm_rx_verify_ndp16 */
			n->info.ntb_errors++;
			n->d.stats.rx_errors++;
			return;
		}
		const uint8_t *d = b + ndp;
		uint32_t sign = le32(d), dl = le16(d + 4);
		if ((sign != NDP16_SIGN0 && sign != NDP16_SIGN1) || dl < 16 || ndp + dl > len) {
			n->info.ntb_errors++;
			n->d.stats.rx_errors++;
			return;
		}
		unsigned entries = (dl - 8) / 4;
		for (unsigned i = 0; i < entries; i++) {
			uint32_t off = le16(d + 8 + 4 * i), dlen = le16(d + 10 + 4 * i);
			if (!off || !dlen) {
				if (!i) { /* an NDP without datagrams */
					n->info.ntb_errors++;
					n->d.stats.rx_errors++;
				}
				break;
			}
			if (off + dlen > len || dlen > n->rx_max || dlen < ETH_HLEN) {
				n->d.stats.rx_errors++;
				break; /* the rest of this NDP is skipped */
			}
			n->d.stats.rx_frames++;
			n->d.stats.rx_bytes += dlen;
			if (n->d.opt.rx)
				n->d.opt.rx(n->d.opt.rx_ctx, b + off, dlen, cycle);
			if (n->d.closing)
				return;
		}
		ndp = le16(d + 6);
	}
}

static void nc_rx_done(xb_urb *u)
{
	nc_slot *s = (nc_slot *)u;
	xb_ncmhost *n = s->owner;
	if (usbnet_urb_gone(u, n->d.closing))
		return;
	if (u->status == XB_URB_OK)
		nc_rx_ntb(n, s->buf, u->actual, u->done_cycle);
	else {
		n->d.stats.rx_errors++;
		if (u->status == XB_URB_EPIPE)
			usbhost_clear_halt(n->d.h, n->in_ep, NULL, NULL);
	}
	if (!n->d.closing && n->d.up)
		nc_submit_rx(n, s);
}

/* The link goes down: the NTB being filled is dropped. */
static void nc_set_link(xb_ncmhost *n, int up)
{
	if (!up && n->d.link && n->cur.buf) {
		free(n->cur.buf);
		free(n->cur.lens);
		n->cur.buf = NULL;
		n->cur.lens = NULL;
	}
	usbnet_set_link(&n->d.link, &n->d.opt, up);
}

/* cdc_ncm_status: NETWORK_CONNECTION and CONNECTION_SPEED_CHANGE (CDC 1.2, 6.3). */
static void nc_status_done(xb_urb *u)
{
	nc_slot *s = (nc_slot *)u;
	xb_ncmhost *n = s->owner;
	if (usbnet_urb_gone(u, n->d.closing))
		return;
	if (u->status == XB_URB_OK) {
		int link = usbnet_notification(&n->d.stats, &n->sts_split, s->buf, u->actual);
		if (link >= 0)
			nc_set_link(n, link);
	} else if (u->status == XB_URB_EPIPE) {
		usbhost_clear_halt(n->d.h, n->status_ep, NULL, NULL);
	}
	memset(s->buf, 0, n->status_mps);
	usbhost_submit(n->d.h, u);
}

static void nc_open(xb_ncmhost *n)
{
	n->step = B_DONE;
	n->d.up = 1;
	n->d.stats.binds++;
	if (n->status_ep)
		usbnet_submit_status(n->d.h, &n->d.status, n, n->status_ep, n->status_mps,
				     n->status_interval, nc_status_done);
	else
		nc_set_link(n, 1);
	n->d.rx = usbnet_slots_new(n->d.opt.rx_urbs);
	n->d.tx = usbnet_slots_new(n->d.opt.tx_urbs);
	for (unsigned i = 0; i < n->d.opt.rx_urbs; i++) {
		n->d.rx[i].buf = xmalloc(n->rx_max);
		nc_submit_rx(n, &n->d.rx[i]);
	}
}

/* ---- Binding ---- */

static void nc_release(xb_ncmhost *n)
{
	xb_board *b = usbhost_board(n->d.h);
	if (n->timer_event)
		board_cancel(b, n->timer_event);
	if (n->settle_event)
		board_cancel(b, n->settle_event);
	n->timer_event = n->settle_event = 0;
	n->pending = 0;
	usbnet_slots_free(n->d.rx, n->d.opt.rx_urbs);
	usbnet_slots_free(n->d.tx, n->d.opt.tx_urbs);
	n->d.rx = n->d.tx = NULL;
	free(n->cur.buf);
	free(n->cur.lens);
	n->cur.buf = NULL;
	n->cur.lens = NULL;
	while (n->q_count) {
		free(n->queue[n->q_head].buf);
		free(n->queue[n->q_head].lens);
		n->q_head = (n->q_head + 1) % n->q_cap;
		n->q_count--;
	}
	n->q_head = 0;
}

static int nc_probe(void *ctx, xb_usbhost *h, const uint8_t *config, size_t len)
{
	xb_ncmhost *n = ctx;
	(void)h;
	nc_release(n);
	usbnet_dev_probe(&n->d);
	n->sts_split = 0;
	n->status_ep = n->in_ep = n->out_ep = 0;
	n->tx_seq = 0;
	memset(&n->info, 0, sizeof n->info);
	if (!nc_parse(n, config, len))
		return 0;
	n->d.bound = 1;
	nc_step(n, B_ALT1_RESET);
	return 1;
}

static void nc_disconnect(void *ctx)
{
	xb_ncmhost *n = ctx;
	n->d.bound = n->d.up = 0;
	nc_set_link(n, 0);
	nc_release(n);
}

static const xb_usbhost_driver nc_driver = {
	.probe = nc_probe,
	.disconnect = nc_disconnect,
};

xb_ncmhost *ncmhost_new(xb_usbhost *h, const xb_ecmhost_options *o)
{
	xb_ncmhost *n = xcalloc(1, sizeof *n);
	usbnet_dev_init(&n->d, h, o, "cdc_ncm", CTL_BUF, &nc_driver, n);
	n->q_cap = n->d.opt.tx_queue;
	n->queue = xcalloc(n->q_cap, sizeof *n->queue);
	return n;
}

void ncmhost_free(xb_ncmhost *n)
{
	if (!n)
		return;
	usbnet_dev_close(&n->d, &nc_driver, n);
	nc_release(n);
	usbnet_dev_free(&n->d);
	free(n->queue);
	free(n);
}

void ncmhost_info(const xb_ncmhost *n, xb_ncmhost_info *out)
{
	*out = n->info;
}

USBNET_DEV_GETTERS(ncmhost, xb_ncmhost)
