/* usbhost: the virtual host's bus engine: the frame clock and SOF, transactions in
 * full-speed bit times, URB queues and completions, usbmon records. */
#include "usbhost_int.h"

#include <stdlib.h>
#include <string.h>

#include "periph.h"

#define BIT_HZ 12000000u
#define FRAME_BITS 12000u
#define EOF_GUARD 32u         /* no transaction may end later than this before EOF */
#define SOF_BITS 35u          /* SYNC, PID, frame number, CRC5, EOP */
#define TOKEN_BITS 35u        /* SYNC, PID, address, endpoint, CRC5, EOP */
#define RESPONSE_BITS 7u      /* device turnaround after a token */
#define TX_BITS 104u          /* a data transaction's overhead (USB 2.0: 13 bytes) */
#define NAK_BITS 61u          /* IN token, turnaround, handshake */
#define TIMEOUT_IN_BITS 53u   /* IN token, then 18 bit times without an answer */
#define TIMEOUT_OUT_BITS 95u  /* token, data (+ 8 per byte), 18 bit times without answer */
#define MAX_ERRORS 3u
#define RESUME_K_US 40000u    /* Linux USB_RESUME_TIMEOUT (USB 2.0 TDRSMDN is 20 ms at least) */
#define RESUME_RECOVERY_US 10000u /* TRSMRCY (USB 2.0 7.1.7.7) */
#define URB_ID_BASE 0xFFFF888000000000ull

enum { TX_SETUP, TX_OUT, TX_IN };

static unsigned uh_index(uint8_t ep)
{
	return (ep & 0x0F) ? (ep & 0x0Fu) * 2 + !!(ep & 0x80) : 0;
}

static uint16_t uh_wlength(const xb_urb *u)
{
	return (uint16_t)(u->setup[6] | u->setup[7] << 8);
}

/* ---- Time ---- */

uint64_t usbhost_bus_now(const xb_usbhost *h)
{
	return h->in_event ? h->now : board_cycles(h->board);
}

uint64_t usbhost_us(const xb_usbhost *h, uint32_t us)
{
	return periph_muldiv(us, h->cpu_hz, 1000000u);
}

static uint64_t uh_frame_cycle(const xb_usbhost *h, uint64_t n)
{
	return h->t0 + periph_muldiv(n, h->cpu_hz, 1000u);
}

static uint64_t uh_bit_cycle(const xb_usbhost *h, unsigned bit)
{
	return h->frame_start + periph_muldiv_ceil(bit, h->cpu_hz, BIT_HZ);
}

/* The bit time of the current frame that cycle falls in (rounded down, so that the cycle
 * of bit b, rounded up, maps back to b). */
static unsigned uh_bit_of(const xb_usbhost *h, uint64_t cycle)
{
	if (cycle <= h->frame_start)
		return 0;
	uint64_t b = periph_muldiv(cycle - h->frame_start, BIT_HZ, h->cpu_hz);
	return b > FRAME_BITS ? FRAME_BITS : (unsigned)b;
}

uint64_t usbhost_bus_schedule(xb_usbhost *h, uint64_t at, xb_event_fn fn)
{
	return board_schedule(h->board, at, fn, h);
}

/* ---- usbmon ---- */

static void uh_record(xb_usbhost *h, const xb_urb *u, char event, int status)
{
	if (!h->mon || (u->flags & UH_URB_UNMONITORED))
		return;
	xb_usbmon_urb m = {
		.id = u->id,
		.xfer_type = u->type,
		.endpoint = (uint8_t)(u->type == XB_USBMON_CONTROL ? 0 : u->endpoint & 0x0F),
		.dir_in = u->dir_in,
		.devnum = u->devnum,
		.busnum = h->opt.bus,
		.setup = u->type == XB_USBMON_CONTROL ? u->setup : NULL,
		.buffer = u->buffer,
		.length = u->length,
		.actual = u->actual,
		.interval = u->type == XB_USBMON_INTERRUPT ? u->interval : 0,
		.flags = u->flags,
	};
	uint64_t ns = periph_muldiv(usbhost_bus_now(h), 1000000000u, h->cpu_hz);
	if (event == 'S')
		usbmon_submit(h->mon, &m, ns);
	else if (event == 'C')
		usbmon_complete(h->mon, &m, status, ns);
	else
		usbmon_error(h->mon, &m, status, ns);
}

/* ---- URB queues ---- */

uh_ep *usbhost_bus_ep(xb_usbhost *h, uint8_t ep)
{
	uh_ep *e = &h->ep[uh_index(ep)];
	return e->present ? e : NULL;
}

static uh_ep *uh_urb_ep(xb_usbhost *h, const xb_urb *u)
{
	return &h->ep[u->type == XB_USBMON_CONTROL ? 0 : uh_index(u->endpoint)];
}

static void uh_kick(xb_usbhost *h);

static void uh_complete(xb_usbhost *h, xb_urb *u, int status)
{
	uh_ep *e = uh_urb_ep(h, u);
	for (xb_urb **p = &e->head, *prev = NULL; *p; prev = *p, p = &(*p)->next) {
		if (*p != u)
			continue;
		*p = u->next;
		if (e->tail == u)
			e->tail = prev;
		break;
	}
	u->next = NULL;
	u->queued = 0;
	u->status = status;
	u->done_cycle = usbhost_bus_now(h);
	if (h->tx_urb == u)
		h->tx_urb = NULL;
	h->stats.urbs_completed++;
	uh_record(h, u, 'C', status);
	if (u->type == XB_USBMON_CONTROL && status == XB_URB_OK)
		usbhost_port_note_control(h, u);
	if (u->complete)
		u->complete(u);
	uh_kick(h);
}

static void uh_ctl_complete(xb_urb *u);

static unsigned uh_round_interval(int interval)
{
	unsigned v = interval < 1 ? 1u : interval > 128 ? 128u : (unsigned)interval;
	unsigned p = 1;
	while (p * 2 <= v)
		p *= 2;
	return p;
}

int usbhost_submit(xb_usbhost *h, xb_urb *u)
{
	if (u->queued)
		return XB_URB_EBUSY;
	if (h->state == XB_USBHOST_DETACHED || h->state == XB_USBHOST_DEBOUNCE ||
	    h->state == XB_USBHOST_FAILED)
		return XB_URB_ENODEV;
	if (u->length && !u->buffer)
		return XB_URB_EINVAL;
	uh_ep *e;
	int dir_in;
	if (u->type == XB_USBMON_CONTROL) {
		e = &h->ep[0];
		if (u->length != uh_wlength(u))
			return XB_URB_EINVAL;
		dir_in = (u->setup[0] & 0x80) && u->length;
	} else if (u->type == XB_USBMON_BULK || u->type == XB_USBMON_INTERRUPT) {
		e = usbhost_bus_ep(h, u->endpoint);
		if (!e || e->type != u->type || !(u->endpoint & 0x0F))
			return XB_URB_EINVAL;
		if (!(e->alt_mask & (1u << (h->intf_alt[e->intf] & 31))))
			return XB_URB_ENOENT; /* not in the current alternate setting */
		dir_in = !!(u->endpoint & 0x80);
	} else {
		return XB_URB_EINVAL;
	}
	if (!u->id)
		u->id = URB_ID_BASE + 0x200 * ++h->next_id;
	u->dir_in = (uint8_t)dir_in;
	u->flags = (u->flags & ~XB_URB_DIR_IN) | (dir_in ? XB_URB_DIR_IN : 0);
	if (u->complete != uh_ctl_complete)
		u->flags &= ~UH_URB_UNMONITORED; /* the host's own requests only */
	if (u->type == XB_USBMON_INTERRUPT) {
		u->interval = (int)uh_round_interval(u->interval ? u->interval : (int)e->interval);
		e->interval = (unsigned)u->interval;
	}
	u->devnum = (uint8_t)h->address;
	u->status = XB_URB_EINPROGRESS;
	u->actual = 0;
	u->stage = u->toggle = u->errors = 0;
	u->next = NULL;
	h->stats.urbs_submitted++;
	uh_record(h, u, 'S', XB_URB_EINPROGRESS);
	if (!h->enabled) {
		u->status = XB_URB_ESHUTDOWN;
		uh_record(h, u, 'E', XB_URB_ESHUTDOWN);
		return XB_URB_ESHUTDOWN;
	}
	u->queued = 1;
	if (e->tail)
		e->tail->next = u;
	else
		e->head = u;
	e->tail = u;
	h->nak_wait = 0; /* new work: poll again now */
	h->nak_streak = h->round_bits = 0;
	uh_kick(h);
	return 0;
}

int usbhost_unlink(xb_usbhost *h, xb_urb *u)
{
	if (!u->queued)
		return -1;
	uh_complete(h, u, XB_URB_ENOENT);
	return 0;
}

/* ---- The control helper ---- */

typedef struct uh_ctl {
	xb_urb urb; /* first: the completion finds the rest from it */
	xb_usbhost_control_fn done;
	void *ctx;
	uint8_t data[];
} uh_ctl;

static void uh_ctl_complete(xb_urb *u)
{
	uh_ctl *c = (uh_ctl *)u;
	if (c->done)
		c->done(c->ctx, u->status, c->data, u->actual);
	free(c);
}

int usbhost_bus_control(xb_usbhost *h, uint8_t request_type, uint8_t request, uint16_t value,
			uint16_t index, const void *data, uint16_t length,
			xb_usbhost_control_fn done, void *ctx, xb_urb **out, int unmonitored)
{
	uh_ctl *c = xcalloc(1, sizeof *c + length + 1u);
	uint8_t *s = c->urb.setup;
	s[0] = request_type;
	s[1] = request;
	s[2] = (uint8_t)value;
	s[3] = (uint8_t)(value >> 8);
	s[4] = (uint8_t)index;
	s[5] = (uint8_t)(index >> 8);
	s[6] = (uint8_t)length;
	s[7] = (uint8_t)(length >> 8);
	if (!(request_type & 0x80) && length && data)
		memcpy(c->data, data, length);
	c->urb.type = XB_USBMON_CONTROL;
	c->urb.buffer = length ? c->data : NULL;
	c->urb.length = length;
	c->urb.complete = uh_ctl_complete;
	c->urb.context = c;
	c->urb.flags = unmonitored ? UH_URB_UNMONITORED : 0;
	c->done = done;
	c->ctx = ctx;
	int rc = usbhost_submit(h, &c->urb);
	if (rc) {
		free(c);
		return rc;
	}
	if (out)
		*out = &c->urb;
	return 0;
}

int usbhost_control(xb_usbhost *h, uint8_t request_type, uint8_t request, uint16_t value,
		    uint16_t index, const void *data, uint16_t length,
		    xb_usbhost_control_fn done, void *ctx)
{
	return usbhost_bus_control(h, request_type, request, value, index, data, length, done,
				   ctx, NULL, 0);
}

int usbhost_clear_halt(xb_usbhost *h, uint8_t ep, xb_usbhost_control_fn done, void *ctx)
{
	/* CLEAR_FEATURE(ENDPOINT_HALT) to the endpoint; the completion resets the endpoint. */
	return usbhost_bus_control(h, 0x02, 0x01, 0, ep, NULL, 0, done, ctx, NULL, 0);
}

/* ---- Transactions ---- */

static void uh_bus_event(xb_board *b, void *ctx);

static void uh_schedule_phase(xb_usbhost *h, enum uh_phase phase, unsigned bit)
{
	h->phase = phase;
	h->bus_at = uh_bit_cycle(h, bit);
	h->bus_event = board_schedule(h->board, h->bus_at, uh_bus_event, h);
}

/* Starts the next transaction as soon as the bus is free, if there can be one. */
static void uh_kick(xb_usbhost *h)
{
	if (!h->enabled || h->bus_event || h->nak_wait || h->susp != UH_RUNNING)
		return;
	unsigned b = uh_bit_of(h, usbhost_bus_now(h));
	if (b < h->bit)
		b = h->bit;
	if (b + TX_BITS > FRAME_BITS - EOF_GUARD)
		return; /* the next frame starts the bus again */
	h->bit = b;
	uh_schedule_phase(h, UH_START, b);
}

static int uh_async(const uh_ep *e)
{
	return e->present && e->head && !e->halted &&
	       (e->type == XB_USBMON_CONTROL || e->type == XB_USBMON_BULK);
}

static unsigned uh_async_count(const xb_usbhost *h)
{
	unsigned n = 0;
	for (unsigned i = 0; i < UH_EPS; i++)
		n += (unsigned)uh_async(&h->ep[i]);
	return n;
}

/* The next endpoint to serve: interrupt endpoints due in this frame first, then control and
 * bulk endpoints in turn. -1 when there is nothing to do. */
static int uh_pick(xb_usbhost *h, int *periodic)
{
	for (unsigned i = 0; i < UH_EPS; i++) {
		uh_ep *e = &h->ep[i];
		if (!e->present || e->type != XB_USBMON_INTERRUPT || !e->head || e->halted)
			continue;
		if (h->frame % e->interval || e->polled == h->frame + 1)
			continue;
		*periodic = 1;
		return (int)i;
	}
	for (unsigned k = 0; k < UH_EPS; k++) {
		unsigned i = (h->rr + k) % UH_EPS;
		if (!uh_async(&h->ep[i]))
			continue;
		h->rr = (i + 1) % UH_EPS;
		*periodic = 0;
		return (int)i;
	}
	return -1;
}

static void uh_start(xb_usbhost *h)
{
	if (h->susp != UH_RUNNING)
		return; /* suspended since the start was scheduled */
	int periodic = 0;
	int i = uh_pick(h, &periodic);
	if (i < 0)
		return;
	uh_ep *e = &h->ep[i];
	xb_urb *u = e->head;
	unsigned kind, len = 0;
	int d1;
	if (u->type == XB_USBMON_CONTROL && u->stage == 0) {
		kind = TX_SETUP;
		len = 8;
		d1 = 0;
		memcpy(h->tx_data, u->setup, 8);
	} else if (u->type == XB_USBMON_CONTROL && u->stage == 2) {
		kind = u->dir_in ? TX_OUT : TX_IN; /* status: the other direction, DATA1 */
		d1 = 1;
	} else {
		kind = u->dir_in ? TX_IN : TX_OUT;
		d1 = u->type == XB_USBMON_CONTROL ? u->toggle : e->toggle;
		if (kind == TX_OUT) {
			uint32_t left = u->length - u->actual;
			len = left < e->mps ? left : e->mps;
			if (len)
				memcpy(h->tx_data, u->buffer + u->actual, len);
		}
	}
	unsigned worst = TX_BITS + 8 * (kind == TX_IN ? e->mps : len);
	if (periodic)
		e->polled = h->frame + 1;
	if (h->bit + worst > FRAME_BITS - EOF_GUARD)
		return; /* does not fit before the end of the frame */
	h->tx_start = h->bit;
	h->tx_ep = (unsigned)i;
	h->tx_urb = u;
	h->tx_kind = kind;
	h->tx_len = len;
	h->tx_data1 = d1;
	h->tx_periodic = periodic;
	h->stats.transactions++;
	if (kind == TX_IN)
		uh_schedule_phase(h, UH_IN_RESPONSE, h->bit + TOKEN_BITS + RESPONSE_BITS);
	else
		uh_schedule_phase(h, UH_OUT_END, h->bit + TX_BITS + 8 * len);
}

static void uh_count_packet(xb_usbhost *h, const uh_ep *e, unsigned n)
{
	h->stats.data_packets++;
	if (e->type == XB_USBMON_BULK && n == 64 &&
	    ++h->bulk_in_frame > h->stats.max_bulk_per_frame)
		h->stats.max_bulk_per_frame = h->bulk_in_frame;
}

/* An OUT or SETUP data packet was acknowledged. */
static void uh_out_acked(xb_usbhost *h, xb_urb *u, uh_ep *e)
{
	unsigned len = h->tx_len;
	if (h->tx_kind == TX_SETUP) {
		u->toggle = 1;
		u->stage = uh_wlength(u) ? 1 : 2;
		return;
	}
	uh_count_packet(h, e, len);
	h->stats.bytes_out += len;
	if (u->type == XB_USBMON_CONTROL) {
		if (u->stage == 2) {
			uh_complete(h, u, XB_URB_OK);
			return;
		}
		u->actual += len;
		u->toggle ^= 1;
		if (u->actual >= u->length)
			u->stage = 2;
		return;
	}
	e->toggle ^= 1;
	u->actual += len;
	if (u->actual < u->length)
		return;
	int zlp = (u->flags & XB_URB_ZERO_PACKET) && u->length && u->length % e->mps == 0;
	if (zlp && len != 0)
		return; /* the zero-length packet comes next */
	uh_complete(h, u, XB_URB_OK);
}

/* An IN data packet arrived (and was acknowledged). */
static void uh_in_data(xb_usbhost *h, xb_urb *u, uh_ep *e, unsigned n, int d1)
{
	uh_count_packet(h, e, n);
	h->stats.bytes_in += n;
	if (u->type == XB_USBMON_CONTROL && u->stage == 2) {
		uh_complete(h, u, n ? XB_URB_EOVERFLOW : XB_URB_OK);
		return;
	}
	uint8_t *toggle = u->type == XB_USBMON_CONTROL ? &u->toggle : &e->toggle;
	if (d1 != *toggle)
		return; /* a repeat of a packet already taken: dropped */
	*toggle ^= 1;
	if (n > e->mps || n > u->length - u->actual) {
		uh_complete(h, u, XB_URB_EOVERFLOW);
		return;
	}
	if (n)
		memcpy(u->buffer + u->actual, h->tx_data, n);
	u->actual += n;
	if (n == e->mps && u->actual < u->length)
		return;
	if (u->type == XB_USBMON_CONTROL) {
		u->stage = 2;
		return;
	}
	int short_err = (u->flags & XB_URB_SHORT_NOT_OK) && u->actual < u->length;
	uh_complete(h, u, short_err ? XB_URB_EREMOTEIO : XB_URB_OK);
}

/* What a handshake (or its absence) does to the transaction's URB. */
static void uh_result(xb_usbhost *h, enum xb_usb_response r, unsigned n, int d1)
{
	xb_urb *u = h->tx_urb;
	uh_ep *e = &h->ep[h->tx_ep];
	if (r == XB_USB_NAK)
		h->stats.naks++;
	else if (r == XB_USB_STALL)
		h->stats.stalls++;
	else if (r == XB_USB_NONE)
		h->stats.timeouts++;
	if (!h->tx_periodic) {
		if (r == XB_USB_NAK) {
			h->nak_streak++;
			h->round_bits += h->bit - h->tx_start;
		} else {
			h->nak_streak = h->round_bits = 0;
		}
	}
	if (!u)
		return; /* unlinked while on the bus */
	switch (r) {
	case XB_USB_NAK:
		return;
	case XB_USB_NONE:
		if (++u->errors >= MAX_ERRORS)
			uh_complete(h, u, XB_URB_EPROTO);
		return;
	case XB_USB_STALL:
		if (u->type != XB_USBMON_CONTROL)
			e->halted = 1;
		uh_complete(h, u, XB_URB_EPIPE);
		return;
	case XB_USB_ACK:
		u->errors = 0;
		uh_out_acked(h, u, e);
		return;
	case XB_USB_DATA:
		u->errors = 0;
		uh_in_data(h, u, e, n, d1);
		return;
	}
}

/* After a transaction: stop polling when every control and bulk endpoint with work has
 * NAKed in a row (usbhost.h), else go on. */
static void uh_continue(xb_usbhost *h)
{
	h->tx_urb = NULL;
	if (h->nak_streak && h->nak_streak >= uh_async_count(h) &&
	    !usbctrl_reports_nak(h->dev)) {
		h->nak_wait = 1;
		h->wait_from = h->bit;
		h->wait_round = h->round_bits;
		return;
	}
	uh_kick(h);
}

static unsigned uh_epnum(const xb_usbhost *h)
{
	return h->tx_ep / 2;
}

static void uh_in_response(xb_usbhost *h)
{
	if (!h->tx_urb) { /* unlinked: let the slot pass */
		h->bit = h->tx_start + NAK_BITS;
		uh_continue(h);
		return;
	}
	unsigned n = 0;
	int d1 = 0;
	enum xb_usb_response r =
		usbctrl_in(h->dev, h->address, uh_epnum(h), h->tx_data, &n, &d1);
	if (r == XB_USB_DATA) {
		h->tx_len = n;
		h->tx_data1 = d1;
		uh_schedule_phase(h, UH_IN_END, h->tx_start + TX_BITS + 8 * n);
		return;
	}
	h->bit = h->tx_start + (r == XB_USB_NONE ? TIMEOUT_IN_BITS : NAK_BITS);
	uh_result(h, r, 0, 0);
	uh_continue(h);
}

static void uh_in_end(xb_usbhost *h)
{
	usbctrl_in_handshake(h->dev, 1);
	h->bit = h->tx_start + TX_BITS + 8 * h->tx_len;
	uh_result(h, XB_USB_DATA, h->tx_len, h->tx_data1);
	uh_continue(h);
}

static void uh_out_end(xb_usbhost *h)
{
	enum xb_usb_response r;
	if (!h->tx_urb)
		r = XB_USB_NONE;
	else if (h->tx_kind == TX_SETUP)
		r = usbctrl_setup(h->dev, h->address, h->tx_data);
	else
		r = usbctrl_out(h->dev, h->address, uh_epnum(h), h->tx_data1, h->tx_data,
				h->tx_len);
	h->bit = h->tx_start + 8 * h->tx_len + (r == XB_USB_NONE ? TIMEOUT_OUT_BITS : TX_BITS);
	uh_result(h, r, 0, 0);
	uh_continue(h);
}

static void uh_bus_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_usbhost *h = ctx;
	h->bus_event = 0;
	enum uh_phase p = h->phase;
	h->phase = UH_IDLE;
	int saved = h->in_event;
	uint64_t saved_now = h->now;
	h->in_event = 1;
	h->now = h->bus_at;
	switch (p) {
	case UH_START: uh_start(h); break;
	case UH_IN_RESPONSE: uh_in_response(h); break;
	case UH_IN_END: uh_in_end(h); break;
	case UH_OUT_END: uh_out_end(h); break;
	case UH_IDLE: break;
	}
	h->in_event = saved;
	h->now = saved_now;
}

/* The driver wrote something: resume polling after a NAK round, on its grid. */
static void uh_wake(xb_usbhost *h)
{
	if (h->bus_event || !h->enabled || h->susp != UH_RUNNING)
		return;
	unsigned p = uh_bit_of(h, usbhost_bus_now(h));
	unsigned q = h->wait_from;
	if (p > q)
		q += h->wait_round ? (p - q + h->wait_round - 1) / h->wait_round * h->wait_round
				   : p - q;
	if (q + TX_BITS > FRAME_BITS - EOF_GUARD)
		return; /* the next frame polls anyway */
	h->nak_wait = 0;
	h->nak_streak = h->round_bits = 0;
	h->bit = q;
	uh_schedule_phase(h, UH_START, q);
}

/* ---- Frames ---- */

static void uh_frame_event(xb_board *b, void *ctx);

static void uh_begin_frame(xb_usbhost *h)
{
	int saved = h->in_event;
	uint64_t saved_now = h->now;
	h->in_event = 1;
	h->now = h->frame_start;
	h->bit = 0;
	h->bulk_in_frame = 0;
	h->nak_wait = 0;
	h->nak_streak = h->round_bits = 0;
	h->stats.frames++;
	if (h->enabled && (h->susp == UH_RUNNING || h->susp == UH_RECOVERY)) {
		usbctrl_sof(h->dev, (unsigned)(h->frame & 0x7FF));
		h->bit = SOF_BITS;
		h->stats.sofs++;
	}
	h->frame_event = board_schedule(h->board, uh_frame_cycle(h, h->frame + 1), uh_frame_event,
					h);
	uh_kick(h);
	h->in_event = saved;
	h->now = saved_now;
}

static void uh_frame_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_usbhost *h = ctx;
	h->frame++;
	h->frame_start = uh_frame_cycle(h, h->frame);
	uh_begin_frame(h);
}

/* ---- Port enable ---- */

static void uh_reset_endpoints(xb_usbhost *h)
{
	memset(h->ep, 0, sizeof h->ep);
	memset(h->intf_alt, 0, sizeof h->intf_alt);
	h->ep[0].present = 1;
	h->ep[0].type = XB_USBMON_CONTROL;
	h->ep[0].mps = 64;
	h->ep[0].alt_mask = ~0u;
}

void usbhost_bus_enable(xb_usbhost *h, int on, int status)
{
	if (on) {
		h->enabled = 1;
		return;
	}
	h->enabled = 0;
	if (h->bus_event)
		board_cancel(h->board, h->bus_event);
	h->bus_event = 0;
	if (h->susp_event)
		board_cancel(h->board, h->susp_event);
	h->susp_event = 0;
	if (h->susp == UH_RESUMING)
		usbctrl_resume(h->dev, 0);
	h->susp = UH_RUNNING;
	h->phase = UH_IDLE;
	h->tx_urb = NULL;
	h->nak_wait = 0;
	h->nak_streak = h->round_bits = 0;
	for (unsigned i = 0; i < UH_EPS; i++)
		while (h->ep[i].head)
			uh_complete(h, h->ep[i].head, status);
	uh_reset_endpoints(h);
}

int usbhost_add_endpoint(xb_usbhost *h, uint8_t ep, uint8_t type, uint16_t max_packet,
			 unsigned interval)
{
	if (!(ep & 0x0F) || (ep & 0x70) || max_packet == 0 || max_packet > 1023 ||
	    (type != XB_USBMON_BULK && type != XB_USBMON_INTERRUPT))
		return -1;
	uh_ep *e = &h->ep[uh_index(ep)];
	memset(e, 0, sizeof *e);
	e->present = 1;
	e->type = type;
	e->mps = max_packet;
	e->interval = uh_round_interval((int)interval);
	e->alt_mask = ~0u;
	return 0;
}

/* ---- Port suspend and resume ---- */

/* The end of resume signalling (EOP, SOFs from the next frame), then of the recovery. */
static void uh_susp_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_usbhost *h = ctx;
	h->susp_event = 0;
	int saved = h->in_event;
	uint64_t saved_now = h->now;
	h->in_event = 1;
	h->now = h->susp_at;
	if (h->susp == UH_RESUMING) {
		usbctrl_resume(h->dev, 0);
		h->susp = UH_RECOVERY;
		h->susp_at = h->now + usbhost_us(h, RESUME_RECOVERY_US);
		h->susp_event = board_schedule(h->board, h->susp_at, uh_susp_event, h);
	} else if (h->susp == UH_RECOVERY) {
		h->susp = UH_RUNNING;
		uh_kick(h);
	}
	h->in_event = saved;
	h->now = saved_now;
}

int usbhost_suspend(xb_usbhost *h, int on)
{
	if (!h->enabled)
		return -1;
	if (on) {
		if (h->susp != UH_RUNNING)
			return -1;
		/* The transaction on the bus ends first: its events still run. */
		h->susp = UH_SUSPENDED;
		return 0;
	}
	if (h->susp != UH_SUSPENDED)
		return -1;
	h->susp = UH_RESUMING;
	usbctrl_resume(h->dev, 1);
	h->susp_at = usbhost_bus_now(h) + usbhost_us(h, RESUME_K_US);
	h->susp_event = board_schedule(h->board, h->susp_at, uh_susp_event, h);
	return 0;
}

int usbhost_suspended(const xb_usbhost *h)
{
	return h->susp != UH_RUNNING;
}

/* ---- The device's notifications ---- */

static void uh_device_event(void *ctx, unsigned what)
{
	xb_usbhost *h = ctx;
	if (what & XB_USBCTRL_ATTACH)
		usbhost_port_attach_changed(h);
	if ((what & XB_USBCTRL_CHANGE) && h->nak_wait)
		uh_wake(h);
}

/* ---- Life cycle and queries ---- */

xb_usbhost *usbhost_new(xb_board *b, xb_usbctrl *dev, const xb_usbhost_options *o)
{
	xb_usbhost *h = xcalloc(1, sizeof *h);
	h->board = b;
	h->dev = dev;
	if (o)
		h->opt = *o;
	if (!h->opt.bus)
		h->opt.bus = 1;
	if (!h->opt.debounce_us)
		h->opt.debounce_us = 100000;
	if (!h->opt.reset_us)
		h->opt.reset_us = 50000;
	if (!h->opt.recovery_us)
		h->opt.recovery_us = 50000;
	h->cpu_hz = board_cpu_hz(b);
	h->t0 = board_cycles(b);
	h->frame_start = h->t0;
	uh_reset_endpoints(h);
	usbhost_port_init(h);
	usbctrl_set_host(dev, uh_device_event, h);
	uh_begin_frame(h);
	usbhost_set_vbus(h, 1);
	return h;
}

void usbhost_free(xb_usbhost *h)
{
	if (!h)
		return;
	usbctrl_set_host(h->dev, NULL, NULL);
	if (h->bus_event)
		board_cancel(h->board, h->bus_event);
	if (h->frame_event)
		board_cancel(h->board, h->frame_event);
	if (h->susp_event)
		board_cancel(h->board, h->susp_event);
	if (h->susp == UH_RESUMING)
		usbctrl_resume(h->dev, 0);
	for (unsigned i = 0; i < UH_EPS; i++) {
		for (xb_urb *u = h->ep[i].head, *next; u; u = next) {
			next = u->next;
			u->queued = 0;
			u->next = NULL;
			if (u->complete == uh_ctl_complete)
				free(u);
		}
	}
	usbhost_port_free(h);
	usbctrl_set_vbus(h->dev, 0);
	free(h);
}

void usbhost_set_monitor(xb_usbhost *h, xb_usbmon *m)
{
	h->mon = m;
}

xb_board *usbhost_board(const xb_usbhost *h)
{
	return h->board;
}

uint64_t usbhost_now(const xb_usbhost *h)
{
	return usbhost_bus_now(h);
}

unsigned usbhost_frame_number(const xb_usbhost *h)
{
	return (unsigned)(h->frame & 0x7FF);
}

void usbhost_stats(const xb_usbhost *h, xb_usbhost_stats *out)
{
	*out = h->stats;
}
