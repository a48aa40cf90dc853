/* dap_swd: the virtual probe's SWD engine: bits clocked onto the port in virtual time, SWD
 * transfers (request, turnaround, ACK, data, parity, idle cycles, WAIT retries), and the
 * commands built on them: Transfer, TransferBlock, WriteABORT, SWJ_Pins, SWJ_Sequence and
 * SWD_Sequence. */
#include <stdint.h>

#include "dap_internal.h"

#define PIN_SWCLK (1u << 0)
#define PIN_SWDIO (1u << 1)
#define PIN_NRESET (1u << 7)

/* One SWCLK cycle: the probe's clock moves on by a period, then the bit happens. Until
 * DAP_Connect the pins are off: time passes, nothing is clocked, the line reads high. */
static int dap_clock(xb_dap *d, int bit)
{
	d->now_ps += d->period_ps;
	d->stats.swclk++;
	if (!d->connected)
		return 1;
	return swd_clock(d->swd, bit);
}

/* Drives the low n (at most 64) bits of data, LSB first. */
static void dap_write_bits(xb_dap *d, uint64_t data, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		dap_clock(d, (int)((data >> i) & 1u));
}

/* Releases the line for n cycles (any number); returns the first 64 bits read, LSB first. */
static uint64_t dap_read_bits(xb_dap *d, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t bit = (uint64_t)dap_clock(d, SWD_RELEASE);
		if (i < 64)
			v |= bit << i;
	}
	return v;
}

static void dap_idle(xb_dap *d, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		dap_clock(d, 0);
}

static unsigned dap_parity(uint32_t v)
{
	return (unsigned)__builtin_parity(v);
}

/* One SWD transfer. req: APnDP, RnW, A2, A3 (and TIMESTAMP) as in DAP_Transfer. Reads
 * store into *data when data is not NULL; writes send *data. Returns the ACK (1 OK, 2 WAIT,
 * 4 FAULT, anything else: no valid answer), or DAP_RESP_ERROR for a read whose parity is
 * wrong. */
static unsigned dap_swd_transfer(xb_dap *d, unsigned req, uint32_t *data)
{
	unsigned apndp = req & 1u, rnw = (req >> 1) & 1u, a2 = (req >> 2) & 1u,
		 a3 = (req >> 3) & 1u;
	unsigned header = 1u | apndp << 1 | rnw << 2 | a2 << 3 | a3 << 4 |
			  (apndp ^ rnw ^ a2 ^ a3) << 5 | 1u << 7; /* stop 0, park 1 */
	d->stats.transfers++;
	dap_write_bits(d, header, 8);
	dap_read_bits(d, d->turnaround);
	unsigned ack = (unsigned)dap_read_bits(d, 3);
	if (ack == DAP_ACK_OK) {
		if (rnw) {
			uint64_t v = dap_read_bits(d, 33);
			dap_read_bits(d, d->turnaround);
			uint32_t word = (uint32_t)v;
			if (dap_parity(word) != ((v >> 32) & 1u))
				ack = DAP_RESP_ERROR;
			if (data)
				*data = word;
		} else {
			uint32_t word = data ? *data : 0;
			dap_read_bits(d, d->turnaround);
			dap_write_bits(d, word | (uint64_t)dap_parity(word) << 32, 33);
		}
		if (req & DAP_REQ_TIMESTAMP)
			d->timestamp = (uint32_t)dap_ps_to_cycles(d, d->now_ps);
		dap_idle(d, d->idle_cycles);
		return ack;
	}
	if (ack == DAP_ACK_WAIT || ack == DAP_ACK_FAULT) {
		if (ack == DAP_ACK_WAIT)
			d->stats.waits++;
		else
			d->stats.faults++;
		if (d->data_phase && rnw)
			dap_read_bits(d, 33);
		dap_read_bits(d, d->turnaround);
		if (d->data_phase && !rnw)
			dap_write_bits(d, 0, 33);
		return ack;
	}
	d->stats.no_acks++;
	dap_read_bits(d, d->turnaround + 33); /* back off the data phase */
	return ack;
}

/* A transfer retried while it answers WAIT, at most retry_count more times. */
static unsigned dap_transfer_retry(xb_dap *d, unsigned req, uint32_t *data)
{
	unsigned retry = d->retry_count, ack;
	do
		ack = dap_swd_transfer(d, req, data);
	while (ack == DAP_ACK_WAIT && retry--);
	return ack;
}

/* ---- DAP_Transfer ---- */

/* Bytes a request adds to the answer beyond what is already committed (the answer so far
 * plus the data of a posted AP read still to come). */
static size_t dap_transfer_extra(unsigned req)
{
	size_t ts = (req & DAP_REQ_TIMESTAMP) ? 4 : 0;
	if (!(req & DAP_REQ_RNW))
		return ts;
	if (req & DAP_REQ_MATCH_VALUE)
		return 0;
	return ts + 4; /* a DP read's data, or an AP read's data posted for later */
}

static void dap_skip_requests(dap_in *in, unsigned n)
{
	while (n--) {
		unsigned req = dap_in_u8(in);
		if (!(req & DAP_REQ_RNW) || (req & DAP_REQ_MATCH_VALUE))
			dap_in_skip(in, 4);
	}
}

/* A read with value match: read until (value & mask) == match or the match retries run
 * out. AP reads are posted once first. */
static unsigned dap_match_read(xb_dap *d, unsigned req, uint32_t match)
{
	uint32_t data = 0;
	unsigned ack, retry = d->match_retry;
	if (req & DAP_REQ_APNDP) {
		ack = dap_transfer_retry(d, req, NULL);
		if (ack != DAP_ACK_OK)
			return ack;
	}
	do {
		ack = dap_transfer_retry(d, req, &data);
		if (ack != DAP_ACK_OK)
			return ack;
	} while ((data & d->match_mask) != match && retry--);
	return (data & d->match_mask) != match ? ack | DAP_RESP_MISMATCH : ack;
}

void dap_cmd_transfer(xb_dap *d, dap_in *in, dap_out *o)
{
	size_t head = o->len;
	dap_out_u8(o, 0); /* count */
	dap_out_u8(o, 0); /* response value */
	dap_in_u8(in);    /* DAP index: one DAP only */
	unsigned count = dap_in_u8(in), done = 0, ack = 0;
	int post_read = 0, check_write = 0;
	if (!d->connected) {
		dap_skip_requests(in, count);
		return;
	}
	for (; done < count; done++) {
		unsigned req = dap_in_u8(in);
		size_t committed = o->len + (post_read ? 4 : 0);
		if (committed + dap_transfer_extra(req) > o->cap) {
			in->pos--; /* no room for its answer: it and the rest do not run */
			break;
		}
		uint32_t data = 0;
		if (req & DAP_REQ_RNW) {
			if (post_read) {
				if ((req & (DAP_REQ_APNDP | DAP_REQ_MATCH_VALUE)) == DAP_REQ_APNDP) {
					/* the previous AP read's data, and this one posted */
					ack = dap_transfer_retry(d, req, &data);
				} else {
					ack = dap_transfer_retry(d, DAP_REQ_RDBUFF, &data);
					post_read = 0;
				}
				if (ack != DAP_ACK_OK) {
					if (req & DAP_REQ_MATCH_VALUE)
						dap_in_skip(in, 4);
					break;
				}
				dap_out_u32(o, data);
				if (post_read && (req & DAP_REQ_TIMESTAMP))
					dap_out_u32(o, d->timestamp);
			}
			if (req & DAP_REQ_MATCH_VALUE) {
				ack = dap_match_read(d, req, dap_in_u32(in));
			} else if (req & DAP_REQ_APNDP) {
				if (!post_read) {
					ack = dap_transfer_retry(d, req, NULL);
					if (ack != DAP_ACK_OK)
						break;
					if (req & DAP_REQ_TIMESTAMP)
						dap_out_u32(o, d->timestamp);
					post_read = 1;
				}
			} else {
				ack = dap_transfer_retry(d, req, &data);
				if (ack != DAP_ACK_OK)
					break;
				if (req & DAP_REQ_TIMESTAMP)
					dap_out_u32(o, d->timestamp);
				dap_out_u32(o, data);
			}
			if (ack != DAP_ACK_OK)
				break;
			check_write = 0;
		} else {
			if (post_read) {
				ack = dap_transfer_retry(d, DAP_REQ_RDBUFF, &data);
				if (ack != DAP_ACK_OK) {
					dap_in_skip(in, 4);
					break;
				}
				dap_out_u32(o, data);
				post_read = 0;
			}
			data = dap_in_u32(in);
			if (req & DAP_REQ_MATCH_MASK) {
				d->match_mask = data;
				ack = DAP_ACK_OK;
			} else {
				ack = dap_transfer_retry(d, req, &data);
				if (ack != DAP_ACK_OK)
					break;
				if (req & DAP_REQ_TIMESTAMP)
					dap_out_u32(o, d->timestamp);
				check_write = 1;
			}
		}
	}
	/* Requests that did not run still occupy the packet. */
	if (done < count)
		dap_skip_requests(in, count - done - (ack != DAP_ACK_OK && ack != 0));
	if (ack == DAP_ACK_OK) {
		uint32_t data = 0;
		if (post_read) {
			ack = dap_transfer_retry(d, DAP_REQ_RDBUFF, &data);
			if (ack == DAP_ACK_OK)
				dap_out_u32(o, data);
		} else if (check_write) {
			ack = dap_transfer_retry(d, DAP_REQ_RDBUFF, NULL); /* was the last write OK? */
		}
	}
	o->buf[head] = (uint8_t)done;
	o->buf[head + 1] = (uint8_t)ack;
}

/* ---- DAP_TransferBlock ---- */

void dap_cmd_transfer_block(xb_dap *d, dap_in *in, dap_out *o)
{
	size_t head = o->len;
	dap_out_u16(o, 0); /* count */
	dap_out_u8(o, 0);  /* response value */
	dap_in_u8(in);     /* DAP index */
	unsigned count = dap_in_u16(in), done = 0, ack = 0;
	unsigned req = dap_in_u8(in) & (DAP_REQ_APNDP | DAP_REQ_RNW | DAP_REQ_A2 | DAP_REQ_A3);
	if (!d->connected || count == 0) {
		if (!(req & DAP_REQ_RNW))
			dap_in_skip(in, 4 * (size_t)count);
		goto end;
	}
	if (req & DAP_REQ_RNW) {
		unsigned room = (unsigned)((o->cap - o->len) / 4);
		unsigned n = count < room ? count : room;
		if (req & DAP_REQ_APNDP) {
			ack = dap_transfer_retry(d, req, NULL); /* post the first read */
			if (ack != DAP_ACK_OK)
				goto end;
		}
		for (; done < n; done++) {
			uint32_t data = 0;
			unsigned r = (done + 1 == n && (req & DAP_REQ_APNDP)) ? DAP_REQ_RDBUFF : req;
			ack = dap_transfer_retry(d, r, &data);
			if (ack != DAP_ACK_OK)
				goto end;
			dap_out_u32(o, data);
		}
	} else {
		for (; done < count; done++) {
			uint32_t data = dap_in_u32(in);
			ack = dap_transfer_retry(d, req, &data);
			if (ack != DAP_ACK_OK) {
				dap_in_skip(in, 4 * (size_t)(count - done - 1));
				goto end;
			}
		}
		ack = dap_transfer_retry(d, DAP_REQ_RDBUFF, NULL); /* was the last write OK? */
	}
end:
	o->buf[head] = (uint8_t)done;
	o->buf[head + 1] = (uint8_t)(done >> 8);
	o->buf[head + 2] = (uint8_t)ack;
}

/* ---- Other commands on the wire ---- */

void dap_cmd_write_abort(xb_dap *d, dap_in *in, dap_out *o)
{
	dap_in_u8(in); /* DAP index */
	uint32_t data = dap_in_u32(in);
	if (!d->connected) {
		dap_out_u8(o, DAP_ERROR);
		return;
	}
	dap_swd_transfer(d, DAP_REQ_ABORT, &data); /* its ACK is not reported */
	dap_out_u8(o, DAP_OK);
}

void dap_cmd_swj_pins(xb_dap *d, dap_in *in, dap_out *o)
{
	unsigned value = dap_in_u8(in), select = dap_in_u8(in);
	dap_in_u32(in); /* wait: the virtual pins settle at once */
	if (select & PIN_SWDIO)
		d->pin_swdio = (value & PIN_SWDIO) ? 1 : 0;
	if (select & PIN_SWCLK) {
		int clk = (value & PIN_SWCLK) ? 1 : 0;
		if (clk && !d->pin_swclk)
			dap_clock(d, d->pin_swdio); /* a rising edge clocks one bit */
		d->pin_swclk = clk;
	}
	dap_out_u8(o, (uint8_t)((d->pin_swclk ? PIN_SWCLK : 0) | (d->pin_swdio ? PIN_SWDIO : 0) |
				PIN_NRESET));
}

void dap_cmd_swj_sequence(xb_dap *d, dap_in *in, dap_out *o)
{
	unsigned count = dap_in_u8(in);
	if (count == 0)
		count = 256;
	uint8_t byte = 0;
	for (unsigned i = 0; i < count; i++) {
		if (i % 8 == 0)
			byte = dap_in_u8(in);
		dap_clock(d, (byte >> (i % 8)) & 1);
	}
	dap_out_u8(o, DAP_OK);
}

void dap_cmd_swd_sequence(xb_dap *d, dap_in *in, dap_out *o)
{
	size_t status_at = o->len;
	dap_out_u8(o, DAP_OK);
	unsigned n = dap_in_u8(in);
	int stopped = 0;
	while (n--) {
		unsigned info = dap_in_u8(in), cycles = info & 0x3Fu;
		if (cycles == 0)
			cycles = 64;
		unsigned bytes = (cycles + 7) / 8;
		if (info & 0x80u) { /* input: the line is released and sampled */
			if (stopped || !dap_out_room(o, bytes)) {
				stopped = 1; /* its data would not fit: this and the rest do not run */
				continue;
			}
			uint64_t v = dap_read_bits(d, cycles);
			for (unsigned i = 0; i < bytes; i++)
				dap_out_u8(o, (uint8_t)(v >> (8 * i)));
		} else {
			uint64_t v = 0;
			for (unsigned i = 0; i < bytes; i++)
				v |= (uint64_t)dap_in_u8(in) << (8 * i);
			if (!stopped)
				dap_write_bits(d, v, cycles);
		}
	}
	if (stopped)
		o->buf[status_at] = DAP_ERROR;
}
