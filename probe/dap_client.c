/* dap_client: CMSIS-DAP commands from the host: DAP_Info, port set-up, and transfers split
 * into packets and pipelined up to the probe's packet count, with every response checked. */
#include "dap_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cmsis_dap.h"

#define TRANSFER_MAX 255u
#define BLOCK_MAX 65535u

struct xb_dap_client {
	xb_transport *t;
	xb_dap_info info;
	uint8_t resp[TRANSPORT_PACKET_MAX];
	size_t rlen;
};

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

const char *dap_client_ack_name(unsigned ack)
{
	if (ack & XB_ACK_PROTOCOL)
		return "a protocol error (bad parity)";
	switch (ack & 7u) {
	case XB_ACK_OK: return "OK";
	case XB_ACK_WAIT: return "WAIT";
	case XB_ACK_FAULT: return "FAULT";
	case XB_ACK_NONE: return "no ACK (nothing answered)";
	default: return "an invalid ACK";
	}
}

static int malformed(xb_dap_client *c, const char *what, const char *why, xb_err *err)
{
	return xb_fail(err, "%s: malformed response to %s: %s", c->t->name, what, why);
}

/* One command packet and its response in c->resp; checks the echoed command byte and the
 * minimum length. */
static int dap_command(xb_dap_client *c, const uint8_t *req, size_t len, size_t min_len,
		       const char *what, xb_err *err)
{
	if (transport_xfer(c->t, req, len, c->resp, sizeof c->resp, &c->rlen, err))
		return -1;
	if (c->rlen >= 1 && c->resp[0] == 0xFF && req[0] != 0xFF)
		return xb_fail(err, "%s: the probe does not know %s (it answered 0xFF)", c->t->name,
			       what);
	if (c->rlen < 1 || c->resp[0] != req[0]) {
		char why[80];
		snprintf(why, sizeof why, "it starts with 0x%02x, not the command 0x%02x",
			 c->rlen ? c->resp[0] : 0u, req[0]);
		return malformed(c, what, c->rlen ? why : "it is empty", err);
	}
	if (c->rlen < min_len) {
		char why[80];
		snprintf(why, sizeof why, "%zu bytes, at least %zu expected", c->rlen, min_len);
		return malformed(c, what, why, err);
	}
	return 0;
}

/* A command answered by a status byte. */
static int dap_status_command(xb_dap_client *c, const uint8_t *req, size_t len, const char *what,
			      xb_err *err)
{
	if (dap_command(c, req, len, 2, what, err))
		return -1;
	if (c->resp[1] != DAP_OK)
		return xb_fail(err, "%s: %s failed (status 0x%02x)", c->t->name, what, c->resp[1]);
	return 0;
}

/* DAP_Info id: the data bytes (at c->resp + 2) and their count. */
static int dap_info_raw(xb_dap_client *c, uint8_t id, size_t *n, xb_err *err)
{
	uint8_t req[2] = {DAP_CMD_INFO, id};
	if (dap_command(c, req, sizeof req, 2, "DAP_Info", err))
		return -1;
	*n = c->resp[1];
	if (c->rlen < 2 + *n) {
		char why[80];
		snprintf(why, sizeof why, "item 0x%02x says %zu bytes, the response holds %zu", id,
			 *n, c->rlen - 2);
		return malformed(c, "DAP_Info", why, err);
	}
	return 0;
}

int dap_client_info_string(xb_dap_client *c, uint8_t id, char *out, size_t cap, xb_err *err)
{
	size_t n;
	out[0] = 0;
	if (dap_info_raw(c, id, &n, err))
		return -1;
	const char *s = (const char *)c->resp + 2;
	size_t len = strnlen(s, n);
	if (len)
		xb_quote(out, cap, s, len);
	return 0;
}

static int dap_info_number(xb_dap_client *c, uint8_t id, size_t size, unsigned *out,
			   xb_err *err)
{
	size_t n;
	if (dap_info_raw(c, id, &n, err))
		return -1;
	if (n == 0)
		return 1; /* not given */
	if (n != size) {
		char why[80];
		snprintf(why, sizeof why, "item 0x%02x has %zu bytes, %zu expected", id, n, size);
		return malformed(c, "DAP_Info", why, err);
	}
	*out = c->resp[2] | (size == 2 ? (unsigned)c->resp[3] << 8 : 0u);
	return 0;
}

xb_dap_client *dap_client_new(xb_transport *t, xb_err *err)
{
	xb_dap_client *c = xcalloc(1, sizeof *c);
	c->t = t;
	xb_dap_info *i = &c->info;
	unsigned size = 0, count = 1, caps = 0;
	int rc = dap_info_number(c, DAP_INFO_PACKET_SIZE, 2, &size, err);
	if (rc == 0 && size < 16)
		rc = xb_fail(err, "%s: DAP_Info says packets of %u bytes; too small to use",
			     t->name, size);
	if (rc == 1)
		rc = xb_fail(err, "%s: DAP_Info gives no packet size", t->name);
	if (rc == 0 && dap_info_number(c, DAP_INFO_PACKET_COUNT, 1, &count, err) < 0)
		rc = -1;
	if (rc == 0 && dap_info_number(c, DAP_INFO_CAPABILITIES, 1, &caps, err) < 0)
		rc = -1;
	if (rc == 0)
		rc = dap_client_info_string(c, DAP_INFO_VENDOR, i->vendor, sizeof i->vendor, err) ||
		     dap_client_info_string(c, DAP_INFO_PRODUCT, i->product, sizeof i->product, err) ||
		     dap_client_info_string(c, DAP_INFO_SERIAL, i->serial, sizeof i->serial, err) ||
		     dap_client_info_string(c, DAP_INFO_PROTOCOL, i->protocol, sizeof i->protocol,
					    err);
	if (rc == 0 && dap_client_info_string(c, DAP_INFO_FIRMWARE, i->firmware, sizeof i->firmware,
					      NULL))
		i->firmware[0] = 0; /* CMSIS-DAP 2.1 and later only */
	if (rc) {
		dap_client_free(c);
		return NULL;
	}
	if (size > t->link_max)
		size = (unsigned)t->link_max;
	if (count == 0)
		count = 1;
	if (count > TRANSPORT_IN_FLIGHT_MAX)
		count = TRANSPORT_IN_FLIGHT_MAX;
	i->packet_size = size;
	i->packet_count = count;
	i->capabilities = (uint8_t)caps;
	t->packet_size = size;
	return c;
}

void dap_client_free(xb_dap_client *c)
{
	if (!c)
		return;
	transport_close(c->t);
	free(c);
}

const xb_dap_info *dap_client_info(const xb_dap_client *c)
{
	return &c->info;
}

xb_transport *dap_client_transport(xb_dap_client *c)
{
	return c->t;
}

const char *dap_client_name(const xb_dap_client *c)
{
	return c->t->name;
}

uint64_t dap_client_now_ns(xb_dap_client *c)
{
	return transport_now_ns(c->t);
}

/* ---- Simple commands ---- */

int dap_client_connect(xb_dap_client *c, xb_err *err)
{
	if (c->info.capabilities && !(c->info.capabilities & XB_DAP_CAP_SWD))
		return xb_fail(err, "%s: the probe cannot do SWD (capabilities 0x%02x)",
			       c->t->name, c->info.capabilities);
	uint8_t req[2] = {DAP_CMD_CONNECT, 1};
	if (dap_command(c, req, sizeof req, 2, "DAP_Connect", err))
		return -1;
	if (c->resp[1] != 1)
		return xb_fail(err, "%s: DAP_Connect did not select SWD (port %u)", c->t->name,
			       c->resp[1]);
	return 0;
}

int dap_client_disconnect(xb_dap_client *c, xb_err *err)
{
	uint8_t req[1] = {DAP_CMD_DISCONNECT};
	return dap_status_command(c, req, sizeof req, "DAP_Disconnect", err);
}

int dap_client_swj_clock(xb_dap_client *c, uint32_t hz, xb_err *err)
{
	uint8_t req[5] = {DAP_CMD_SWJ_CLOCK};
	put_u32(req + 1, hz);
	return dap_status_command(c, req, sizeof req, "DAP_SWJ_Clock", err);
}

int dap_client_swj_sequence(xb_dap_client *c, unsigned bits, const uint8_t *data, xb_err *err)
{
	if (bits == 0 || bits > 256)
		return xb_fail(err, "%s: DAP_SWJ_Sequence of %u bits (1 to 256)", c->t->name, bits);
	uint8_t req[2 + 32] = {DAP_CMD_SWJ_SEQUENCE, (uint8_t)bits};
	size_t n = (bits + 7) / 8;
	memcpy(req + 2, data, n);
	return dap_status_command(c, req, 2 + n, "DAP_SWJ_Sequence", err);
}

int dap_client_swd_configure(xb_dap_client *c, unsigned turnaround, int data_phase,
			     xb_err *err)
{
	if (turnaround < 1 || turnaround > 4)
		return xb_fail(err, "%s: SWD turnaround of %u cycles (1 to 4)", c->t->name,
			       turnaround);
	uint8_t req[2] = {DAP_CMD_SWD_CONFIGURE,
			  (uint8_t)((turnaround - 1) | (data_phase ? 4u : 0u))};
	return dap_status_command(c, req, sizeof req, "DAP_SWD_Configure", err);
}

int dap_client_transfer_configure(xb_dap_client *c, uint8_t idle, uint16_t wait_retry,
				  uint16_t match_retry, xb_err *err)
{
	uint8_t req[6] = {DAP_CMD_TRANSFER_CONFIGURE, idle,
			  (uint8_t)wait_retry,    (uint8_t)(wait_retry >> 8),
			  (uint8_t)match_retry,   (uint8_t)(match_retry >> 8)};
	return dap_status_command(c, req, sizeof req, "DAP_TransferConfigure", err);
}

int dap_client_write_abort(xb_dap_client *c, uint32_t value, xb_err *err)
{
	uint8_t req[6] = {DAP_CMD_WRITE_ABORT, 0};
	put_u32(req + 2, value);
	return dap_status_command(c, req, sizeof req, "DAP_WriteABORT", err);
}

int dap_client_delay(xb_dap_client *c, uint16_t us, xb_err *err)
{
	uint8_t req[3] = {DAP_CMD_DELAY, (uint8_t)us, (uint8_t)(us >> 8)};
	return dap_status_command(c, req, sizeof req, "DAP_Delay", err);
}

/* ---- Raw packets ---- */

int dap_client_submit(xb_dap_client *c, const uint8_t *req, size_t len, xb_err *err)
{
	if (c->t->in_flight >= c->info.packet_count)
		return xb_fail(err, "%s: %u packets already in flight (the probe buffers %u)",
			       c->t->name, c->t->in_flight, c->info.packet_count);
	return transport_submit(c->t, req, len, err);
}

int dap_client_collect(xb_dap_client *c, uint8_t *resp, size_t cap, size_t *len, xb_err *err)
{
	return transport_collect(c->t, resp, cap, len, err);
}

unsigned dap_client_in_flight(const xb_dap_client *c)
{
	return c->t->in_flight;
}

/* ---- Transfers: building and parsing packets ---- */

static size_t transfer_req_bytes(uint8_t req)
{
	return (req & XB_DAP_READ) ? 1 : 5;
}

/* How many of x[0..n) fit one DAP_Transfer packet (request and response). */
static size_t transfer_fit(const xb_dap_transfer *x, size_t n, size_t packet)
{
	size_t req = 3, resp = 3, k = 0;
	while (k < n && k < TRANSFER_MAX) {
		size_t rq = transfer_req_bytes(x[k].req), rs = (x[k].req & XB_DAP_READ) ? 4 : 0;
		if (req + rq > packet || resp + rs > packet)
			break;
		req += rq;
		resp += rs;
		k++;
	}
	return k;
}

size_t dap_client_build_transfer(const xb_dap_transfer *x, size_t n, uint8_t *pkt, size_t cap)
{
	if (n == 0 || n > TRANSFER_MAX || cap < 3)
		return 0;
	size_t len = 3;
	pkt[0] = DAP_CMD_TRANSFER;
	pkt[1] = 0;
	pkt[2] = (uint8_t)n;
	for (size_t i = 0; i < n; i++) {
		uint8_t req = x[i].req & (XB_DAP_AP | XB_DAP_READ | 0x0Cu);
		if (len + transfer_req_bytes(req) > cap)
			return 0;
		pkt[len++] = req;
		if (!(req & XB_DAP_READ)) {
			put_u32(pkt + len, x[i].value);
			len += 4;
		}
	}
	return len;
}

int dap_client_parse_transfer(xb_dap_client *c, const uint8_t *resp, size_t len,
			      xb_dap_transfer *x, size_t n, size_t *done, unsigned *ack,
			      xb_err *err)
{
	char why[96];
	if (len < 3 || resp[0] != DAP_CMD_TRANSFER) {
		snprintf(why, sizeof why, "%zu bytes starting 0x%02x", len, len ? resp[0] : 0u);
		return malformed(c, "DAP_Transfer", why, err);
	}
	*done = resp[1];
	*ack = resp[2];
	if (*done > n) {
		snprintf(why, sizeof why, "%zu transfers done of %zu requested", *done, n);
		return malformed(c, "DAP_Transfer", why, err);
	}
	if (*ack != XB_ACK_OK)
		return 0; /* the values of a failed run are not used */
	if (*done < n) {
		snprintf(why, sizeof why, "only %zu of %zu transfers ran, all OK", *done, n);
		return malformed(c, "DAP_Transfer", why, err);
	}
	size_t pos = 3;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i].req & XB_DAP_READ))
			continue;
		if (pos + 4 > len) {
			snprintf(why, sizeof why, "%zu bytes, too short for the values read", len);
			return malformed(c, "DAP_Transfer", why, err);
		}
		x[i].value = get_u32(resp + pos);
		pos += 4;
	}
	return 0;
}

int dap_client_parse_block_read(xb_dap_client *c, const uint8_t *resp, size_t len, size_t want,
				uint32_t *words, size_t *got, unsigned *ack, xb_err *err)
{
	char why[96];
	if (len < 4 || resp[0] != DAP_CMD_TRANSFER_BLOCK) {
		snprintf(why, sizeof why, "%zu bytes starting 0x%02x", len, len ? resp[0] : 0u);
		return malformed(c, "DAP_TransferBlock", why, err);
	}
	*got = resp[1] | (size_t)resp[2] << 8;
	*ack = resp[3];
	if (*got > want || 4 + 4 * *got > len) {
		snprintf(why, sizeof why, "%zu words in %zu bytes for %zu requested", *got, len,
			 want);
		return malformed(c, "DAP_TransferBlock", why, err);
	}
	for (size_t i = 0; words && i < *got; i++)
		words[i] = get_u32(resp + 4 + 4 * i);
	return 0;
}

/* One packet in flight: which op, which of its transfers. */
typedef struct pending {
	size_t op, first, count;
} pending;

/* The next packet of ops[*op] from *pos: built into pkt, recorded in p. */
static size_t build_next(xb_dap_client *c, xb_dap_op *ops, size_t *op, size_t *pos,
			 uint8_t *pkt, pending *p)
{
	xb_dap_op *o = &ops[*op];
	size_t ps = c->info.packet_size, len, k;
	if (!o->block) {
		k = transfer_fit(o->x + *pos, o->n - *pos, ps);
		len = dap_client_build_transfer(o->x + *pos, k, pkt, ps);
	} else {
		int rd = (o->req & XB_DAP_READ) != 0;
		size_t per = rd ? (ps - 4) / 4 : (ps - 5) / 4;
		if (per > BLOCK_MAX)
			per = BLOCK_MAX;
		k = o->n - *pos < per ? o->n - *pos : per;
		pkt[0] = DAP_CMD_TRANSFER_BLOCK;
		pkt[1] = 0;
		pkt[2] = (uint8_t)k;
		pkt[3] = (uint8_t)(k >> 8);
		pkt[4] = o->req & (XB_DAP_AP | XB_DAP_READ | 0x0Cu);
		len = 5;
		for (size_t i = 0; !rd && i < k; i++, len += 4)
			put_u32(pkt + len, o->words[*pos + i]);
	}
	*p = (pending){*op, *pos, k};
	*pos += k;
	if (*pos >= o->n) {
		(*op)++;
		*pos = 0;
	}
	return len;
}

/* Checks the response to packet p; 1 when it failed (st filled, err set). */
static int check_response(xb_dap_client *c, xb_dap_op *ops, const pending *p, const uint8_t *r,
			  size_t len, xb_dap_status *st, xb_err *err)
{
	xb_dap_op *o = &ops[p->op];
	size_t done;
	unsigned ack;
	st->op = p->op;
	st->ack = 0;
	if (!o->block) {
		if (dap_client_parse_transfer(c, r, len, o->x + p->first, p->count, &done, &ack,
					      err))
			return 1;
	} else if (o->req & XB_DAP_READ) {
		if (dap_client_parse_block_read(c, r, len, p->count, o->words + p->first, &done,
						&ack, err))
			return 1;
		if (ack == XB_ACK_OK && done < p->count) {
			st->done = p->first + done;
			return malformed(c, "DAP_TransferBlock", "fewer words than requested, all OK",
					 err) != 0;
		}
	} else {
		if (len < 4 || r[0] != DAP_CMD_TRANSFER_BLOCK)
			return malformed(c, "DAP_TransferBlock", "not a TransferBlock answer", err) != 0;
		done = r[1] | (size_t)r[2] << 8;
		ack = r[3];
		if (done > p->count || (ack == XB_ACK_OK && done != p->count))
			return malformed(c, "DAP_TransferBlock", "a count that does not match", err) != 0;
	}
	if (ack == XB_ACK_OK)
		return 0;
	if (done >= p->count && p->count)
		done = p->count - 1; /* the check after the last write (or posted read) failed */
	st->ack = ack;
	st->done = p->first + done;
	xb_fail(err, "%s: %s %zu answered %s", c->t->name,
		o->block ? "block transfer" : "transfer", st->done, dap_client_ack_name(ack));
	return 1;
}

int dap_client_run(xb_dap_client *c, xb_dap_op *ops, size_t n, xb_dap_status *st, xb_err *err)
{
	xb_dap_status local;
	if (!st)
		st = &local;
	*st = (xb_dap_status){.ack = XB_ACK_OK};
	if (c->t->in_flight) {
		st->ack = 0;
		return xb_fail(err, "%s: %u packets still in flight", c->t->name, c->t->in_flight);
	}
	pending ring[TRANSPORT_IN_FLIGHT_MAX];
	unsigned head = 0, count = 0, window = c->info.packet_count;
	size_t op = 0, pos = 0;
	int failed = 0;
	xb_err first_err;
	uint8_t pkt[TRANSPORT_PACKET_MAX], resp[TRANSPORT_PACKET_MAX];
	for (;;) {
		while (op < n && ops[op].n == 0)
			op++;
		while (!failed && count < window && op < n) {
			pending p;
			size_t len = build_next(c, ops, &op, &pos, pkt, &p);
			if (len == 0 || transport_submit(c->t, pkt, len, err)) {
				if (len == 0)
					xb_fail(err, "%s: a transfer does not fit a packet", c->t->name);
				st->ack = 0;
				st->op = p.op;
				return -1; /* broken transport: nothing more to collect */
			}
			ring[(head + count++) % TRANSPORT_IN_FLIGHT_MAX] = p;
			while (op < n && ops[op].n == 0)
				op++;
		}
		if (count == 0)
			break;
		size_t len;
		if (transport_collect(c->t, resp, sizeof resp, &len, err)) {
			st->ack = 0;
			return -1;
		}
		pending p = ring[head];
		head = (head + 1) % TRANSPORT_IN_FLIGHT_MAX;
		count--;
		xb_dap_status bad;
		if (!failed && check_response(c, ops, &p, resp, len, &bad, &first_err)) {
			failed = 1;
			*st = bad;
		}
	}
	if (failed && err)
		*err = first_err;
	return failed ? -1 : 0;
}

int dap_client_transfer(xb_dap_client *c, xb_dap_transfer *x, size_t n, xb_dap_status *st,
			xb_err *err)
{
	xb_dap_op op = {.x = x, .n = n};
	return dap_client_run(c, &op, 1, st, err);
}

int dap_client_transfer_block(xb_dap_client *c, uint8_t req, uint32_t *words, size_t n,
			      xb_dap_status *st, xb_err *err)
{
	xb_dap_op op = {.block = 1, .req = req, .words = words, .n = n};
	return dap_client_run(c, &op, 1, st, err);
}
