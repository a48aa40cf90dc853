/* dap: the virtual CMSIS-DAP probe's packet layer: configuration, virtual time, packets in
 * flight and DAP_QueueCommands, command dispatch and ExecuteCommands, and the commands that
 * do not touch the wire (Info, HostStatus, Connect, configuration, Delay). */
#include "dap.h"

#include <stdlib.h>
#include <string.h>

#include "dap_internal.h"

#define PS_PER_S 1000000000000ull
#define PS_PER_US 1000000ull
#define PS_PER_NS 1000ull

#define DAP_VENDOR "xipbench"
#define DAP_PRODUCT "xipbench virtual probe (CMSIS-DAP)"
#define DAP_PROTOCOL "2.1.0"
#define DAP_FIRMWARE "1.0"
#define DAP_SERIAL_MAX 40
/* SWD (bit 0), atomic commands (bit 4), test domain timer (bit 5). */
#define DAP_CAPABILITIES 0x31u

enum { PORT_DISABLED = 0, PORT_SWD = 1 };

/* ---- Request and response cursors ---- */

uint8_t dap_in_u8(dap_in *in)
{
	uint8_t v = in->pos < in->len ? in->buf[in->pos] : 0;
	in->pos++;
	return v;
}

uint16_t dap_in_u16(dap_in *in)
{
	uint16_t lo = dap_in_u8(in);
	return (uint16_t)(lo | (uint16_t)dap_in_u8(in) << 8);
}

uint32_t dap_in_u32(dap_in *in)
{
	uint32_t lo = dap_in_u16(in);
	return lo | (uint32_t)dap_in_u16(in) << 16;
}

void dap_in_skip(dap_in *in, size_t n)
{
	in->pos += n;
}

int dap_out_room(const dap_out *o, size_t n)
{
	return o->len + n <= o->cap;
}

void dap_out_u8(dap_out *o, uint8_t v)
{
	if (o->len < o->cap)
		o->buf[o->len++] = v;
}

void dap_out_u16(dap_out *o, uint16_t v)
{
	dap_out_u8(o, (uint8_t)v);
	dap_out_u8(o, (uint8_t)(v >> 8));
}

void dap_out_u32(dap_out *o, uint32_t v)
{
	dap_out_u16(o, (uint16_t)v);
	dap_out_u16(o, (uint16_t)(v >> 16));
}

/* ---- Time ---- */

uint64_t dap_ps_to_cycles(const xb_dap *d, uint64_t ps)
{
	return (uint64_t)((unsigned __int128)ps * d->cpu_hz / PS_PER_S);
}

uint64_t dap_cycles_to_ps(const xb_dap *d, uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * PS_PER_S + d->cpu_hz - 1) / d->cpu_hz);
}

void dap_set_clock(xb_dap *d, uint32_t hz)
{
	d->swclk_hz = hz;
	d->period_ps = (PS_PER_S + hz / 2) / hz;
	if (d->period_ps == 0)
		d->period_ps = 1;
}

/* The port's sync callback: the board catches up with the probe's clock. */
static void dap_sync_board(void *ctx)
{
	xb_dap *d = ctx;
	uint64_t target = dap_ps_to_cycles(d, d->now_ps);
	for (;;) {
		uint64_t now = board_cycles(d->board);
		if (now >= target)
			break;
		board_run(d->board, target - now);
		if (board_cycles(d->board) == now)
			break;
	}
	d->board_mark = board_cycles(d->board);
}

/* The host's clock never runs behind the board's when something else ran the board (a
 * serve loop keeping real time); the probe's own runs, which go ahead of the host to the
 * time of the packets in flight, do not move it. */
static void dap_host_catch_up(xb_dap *d)
{
	uint64_t now = board_cycles(d->board);
	if (now == d->board_mark)
		return;
	uint64_t board_ps = dap_cycles_to_ps(d, now);
	if (d->host_ps < board_ps)
		d->host_ps = board_ps;
	d->board_mark = now;
}

uint64_t dap_host_time(const xb_dap *d)
{
	uint64_t t = dap_ps_to_cycles(d, d->host_ps);
	uint64_t b = board_cycles(d->board);
	return b != d->board_mark && b > t ? b : t;
}

void dap_host_wait(xb_dap *d, uint64_t cycles)
{
	dap_host_catch_up(d);
	d->host_ps += dap_cycles_to_ps(d, cycles);
}

/* ---- Life cycle ---- */

void dap_config_init(xb_dap_config *c)
{
	memset(c, 0, sizeof *c);
	c->serial = "xipbench-0";
	c->packet_size = 64;
	c->packet_count = 8;
	c->swclk_hz = 1000000;
	c->usb_out_ns = 500000;
	c->usb_in_ns = 500000;
}

static void dap_reset_settings(xb_dap *d)
{
	d->connected = 0;
	d->turnaround = 1;
	d->data_phase = 0;
	d->idle_cycles = 0;
	d->retry_count = 100;
	d->match_retry = 0;
	d->match_mask = 0;
	d->pin_swclk = 1;
	d->pin_swdio = 1;
	dap_set_clock(d, d->cfg.swclk_hz);
}

xb_dap *dap_new(xb_swd *port, const xb_dap_config *c)
{
	xb_dap *d = xcalloc(1, sizeof *d);
	d->swd = port;
	d->board = swd_board(port);
	if (c)
		d->cfg = *c;
	else
		dap_config_init(&d->cfg);
	if (d->cfg.packet_size < 64)
		d->cfg.packet_size = 64;
	if (d->cfg.packet_size > 1024)
		d->cfg.packet_size = 1024;
	if (d->cfg.packet_count < 1)
		d->cfg.packet_count = 1;
	if (d->cfg.packet_count > 64)
		d->cfg.packet_count = 64;
	if (d->cfg.swclk_hz == 0)
		d->cfg.swclk_hz = 1000000;
	snprintf(d->serial, DAP_SERIAL_MAX + 1, "%s", d->cfg.serial ? d->cfg.serial : "");
	d->cfg.serial = d->serial;
	d->cpu_hz = board_cpu_hz(d->board) ? board_cpu_hz(d->board) : 1;
	size_t n = d->cfg.packet_count, size = d->cfg.packet_size;
	d->queued = xcalloc(n, size);
	d->queued_len = xcalloc(n, sizeof *d->queued_len);
	d->resp = xcalloc(n, size);
	d->resp_len = xcalloc(n, sizeof *d->resp_len);
	d->resp_ps = xcalloc(n, sizeof *d->resp_ps);
	dap_reset_settings(d);
	d->board_mark = board_cycles(d->board);
	d->host_ps = dap_cycles_to_ps(d, d->board_mark);
	d->probe_free_ps = d->host_ps;
	swd_set_sync(port, dap_sync_board, d);
	return d;
}

void dap_free(xb_dap *d)
{
	if (!d)
		return;
	swd_set_sync(d->swd, NULL, NULL);
	free(d->queued);
	free(d->queued_len);
	free(d->resp);
	free(d->resp_len);
	free(d->resp_ps);
	free(d);
}

const xb_dap_config *dap_config(const xb_dap *d)
{
	return &d->cfg;
}

void dap_stats(const xb_dap *d, xb_dap_stats *out)
{
	*out = d->stats;
}

/* ---- Commands that do not touch the wire ---- */

static size_t dap_info_string(uint8_t *out, const char *s)
{
	size_t n = strlen(s) + 1; /* the terminating NUL counts */
	memcpy(out, s, n);
	return n;
}

/* DAP_Info data for id (at most 64 bytes); 0 bytes for what this probe does not have. */
static size_t dap_info(const xb_dap *d, uint8_t id, uint8_t *out)
{
	switch (id) {
	case DAP_INFO_VENDOR: return dap_info_string(out, DAP_VENDOR);
	case DAP_INFO_PRODUCT: return dap_info_string(out, DAP_PRODUCT);
	case DAP_INFO_SERIAL: return dap_info_string(out, d->serial);
	case DAP_INFO_PROTOCOL: return dap_info_string(out, DAP_PROTOCOL);
	case DAP_INFO_FIRMWARE: return dap_info_string(out, DAP_FIRMWARE);
	case DAP_INFO_CAPABILITIES:
		out[0] = DAP_CAPABILITIES;
		return 1;
	case DAP_INFO_TIMER:
		for (int i = 0; i < 4; i++)
			out[i] = (uint8_t)(d->cpu_hz >> (8 * i));
		return 4;
	case DAP_INFO_PACKET_COUNT:
		out[0] = d->cfg.packet_count;
		return 1;
	case DAP_INFO_PACKET_SIZE:
		out[0] = (uint8_t)d->cfg.packet_size;
		out[1] = (uint8_t)(d->cfg.packet_size >> 8);
		return 2;
	default:
		return 0; /* target and board names, SWO and UART buffers: none */
	}
}

static void dap_cmd_connect(xb_dap *d, dap_in *in, dap_out *o)
{
	uint8_t port = dap_in_u8(in);
	if (port == 0 || port == PORT_SWD) {
		d->connected = 1;
		dap_out_u8(o, PORT_SWD);
	} else {
		dap_out_u8(o, PORT_DISABLED); /* JTAG and anything else: not available */
	}
}

static void dap_cmd_swj_clock(xb_dap *d, dap_in *in, dap_out *o)
{
	uint32_t hz = dap_in_u32(in);
	if (hz == 0) {
		dap_out_u8(o, DAP_ERROR);
		return;
	}
	dap_set_clock(d, hz);
	dap_out_u8(o, DAP_OK);
}

/* JTAG commands: their parameters are skipped, the answer is an error status. */
static void dap_cmd_jtag(uint8_t cmd, dap_in *in, dap_out *o)
{
	if (cmd == DAP_CMD_JTAG_SEQUENCE) {
		unsigned n = dap_in_u8(in);
		while (n--) {
			unsigned info = dap_in_u8(in), tck = info & 0x3Fu;
			dap_in_skip(in, ((tck ? tck : 64) + 7) / 8);
		}
	} else if (cmd == DAP_CMD_JTAG_CONFIGURE) {
		dap_in_skip(in, dap_in_u8(in));
	} else {
		dap_in_skip(in, 1);
	}
	dap_out_u8(o, DAP_ERROR);
}

/* Bytes of the answer to cmd that must fit before it runs (variable parts check their own
 * room). */
static size_t dap_fixed_answer(const xb_dap *d, const dap_in *in, uint8_t cmd)
{
	uint8_t info[64];
	switch (cmd) {
	case DAP_CMD_INFO: {
		uint8_t id = in->pos < in->len ? in->buf[in->pos] : 0;
		return 2 + dap_info(d, id, info);
	}
	case DAP_CMD_TRANSFER:
	case DAP_CMD_RESET_TARGET:
		return 3;
	case DAP_CMD_TRANSFER_BLOCK:
		return 4;
	case DAP_CMD_HOST_STATUS:
	case DAP_CMD_CONNECT:
	case DAP_CMD_DISCONNECT:
	case DAP_CMD_TRANSFER_CONFIGURE:
	case DAP_CMD_WRITE_ABORT:
	case DAP_CMD_DELAY:
	case DAP_CMD_SWJ_PINS:
	case DAP_CMD_SWJ_CLOCK:
	case DAP_CMD_SWJ_SEQUENCE:
	case DAP_CMD_SWD_CONFIGURE:
	case DAP_CMD_JTAG_SEQUENCE:
	case DAP_CMD_JTAG_CONFIGURE:
	case DAP_CMD_JTAG_IDCODE:
	case DAP_CMD_SWD_SEQUENCE:
		return 2;
	default:
		return 1;
	}
}

/* Runs one command from in, appending its answer to o. Returns -1 (nothing run, in and o
 * unchanged) when the fixed part of its answer does not fit. */
static int dap_command(xb_dap *d, dap_in *in, dap_out *o)
{
	size_t start = in->pos;
	uint8_t cmd = dap_in_u8(in);
	if (!dap_out_room(o, dap_fixed_answer(d, in, cmd))) {
		in->pos = start;
		return -1;
	}
	d->stats.commands++;
	dap_out_u8(o, cmd);
	switch (cmd) {
	case DAP_CMD_INFO: {
		uint8_t info[64];
		size_t n = dap_info(d, dap_in_u8(in), info);
		dap_out_u8(o, (uint8_t)n);
		for (size_t i = 0; i < n; i++)
			dap_out_u8(o, info[i]);
		break;
	}
	case DAP_CMD_HOST_STATUS: {
		uint8_t type = dap_in_u8(in);
		dap_in_skip(in, 1);
		dap_out_u8(o, type <= 1 ? DAP_OK : DAP_ERROR); /* connected / running lights */
		break;
	}
	case DAP_CMD_CONNECT:
		dap_cmd_connect(d, in, o);
		break;
	case DAP_CMD_DISCONNECT:
		d->connected = 0;
		dap_out_u8(o, DAP_OK);
		break;
	case DAP_CMD_TRANSFER_CONFIGURE:
		d->idle_cycles = dap_in_u8(in);
		d->retry_count = dap_in_u16(in);
		d->match_retry = dap_in_u16(in);
		dap_out_u8(o, DAP_OK);
		break;
	case DAP_CMD_TRANSFER:
		dap_cmd_transfer(d, in, o);
		break;
	case DAP_CMD_TRANSFER_BLOCK:
		dap_cmd_transfer_block(d, in, o);
		break;
	case DAP_CMD_WRITE_ABORT:
		dap_cmd_write_abort(d, in, o);
		break;
	case DAP_CMD_DELAY:
		d->now_ps += dap_in_u16(in) * PS_PER_US;
		dap_out_u8(o, DAP_OK);
		break;
	case DAP_CMD_RESET_TARGET:
		dap_out_u8(o, DAP_OK);
		dap_out_u8(o, 0); /* no device-specific reset sequence */
		break;
	case DAP_CMD_SWJ_PINS:
		dap_cmd_swj_pins(d, in, o);
		break;
	case DAP_CMD_SWJ_CLOCK:
		dap_cmd_swj_clock(d, in, o);
		break;
	case DAP_CMD_SWJ_SEQUENCE:
		dap_cmd_swj_sequence(d, in, o);
		break;
	case DAP_CMD_SWD_CONFIGURE: {
		uint8_t cfg = dap_in_u8(in);
		d->turnaround = (cfg & 3u) + 1;
		d->data_phase = (cfg >> 2) & 1u;
		dap_out_u8(o, DAP_OK);
		break;
	}
	case DAP_CMD_JTAG_SEQUENCE:
	case DAP_CMD_JTAG_CONFIGURE:
	case DAP_CMD_JTAG_IDCODE:
		dap_cmd_jtag(cmd, in, o);
		break;
	case DAP_CMD_SWD_SEQUENCE:
		dap_cmd_swd_sequence(d, in, o);
		break;
	default:
		o->buf[o->len - 1] = DAP_CMD_INVALID;
		break;
	}
	return 0;
}

/* ExecuteCommands (and a queued DAP_QueueCommands packet): NumCmd commands; the answer
 * says how many ran. */
static void dap_execute(xb_dap *d, dap_in *in, dap_out *o)
{
	unsigned n = dap_in_u8(in);
	dap_out_u8(o, DAP_CMD_EXECUTE_COMMANDS);
	size_t count_at = o->len;
	dap_out_u8(o, 0);
	unsigned done = 0;
	while (done < n && dap_command(d, in, o) == 0)
		done++;
	o->buf[count_at] = (uint8_t)done;
}

/* ---- Packets ---- */

/* Plays one packet (already padded to the packet size) at the probe's clock; stores its
 * response, due at the host when the probe is done plus the USB delay. */
static void dap_run_packet(xb_dap *d, const uint8_t *pkt)
{
	unsigned slot = (d->resp_head + d->nresp) % d->cfg.packet_count;
	uint8_t *resp = d->resp + (size_t)slot * d->cfg.packet_size;
	dap_in in = {pkt, 0, d->cfg.packet_size};
	dap_out o = {resp, 0, d->cfg.packet_size};
	d->stats.packets++;
	if (pkt[0] == DAP_CMD_EXECUTE_COMMANDS || pkt[0] == DAP_CMD_QUEUE_COMMANDS) {
		in.pos = 1;
		dap_execute(d, &in, &o);
	} else {
		dap_command(d, &in, &o);
	}
	d->resp_len[slot] = o.len;
	d->resp_ps[slot] = d->now_ps + d->cfg.usb_in_ns * PS_PER_NS;
	d->nresp++;
}

unsigned dap_in_flight(const xb_dap *d)
{
	return d->nqueued + d->nresp;
}

/* A packet the host sent at sent_ps (NULL: now, by its clock after catching up). */
static int dap_submit_at(xb_dap *d, const uint8_t *req, size_t len, const uint64_t *sent_ps,
			 xb_err *err)
{
	size_t size = d->cfg.packet_size;
	if (len == 0 || len > size)
		return xb_fail(err, "CMSIS-DAP request of %zu bytes: the probe takes packets of 1 to "
				    "%zu bytes", len, size);
	if (req[0] == DAP_CMD_TRANSFER_ABORT) {
		d->stats.packets++;
		return 0; /* nothing is ever in progress to abort */
	}
	if (dap_in_flight(d) >= d->cfg.packet_count)
		return xb_fail(err, "CMSIS-DAP: %u packets already in flight (the probe's packet "
				    "count); collect a response first", d->cfg.packet_count);
	if (!sent_ps)
		dap_host_catch_up(d);
	uint64_t arrive = (sent_ps ? *sent_ps : d->host_ps) + d->cfg.usb_out_ns * PS_PER_NS;
	if (req[0] == DAP_CMD_QUEUE_COMMANDS) {
		uint8_t *q = d->queued + (size_t)d->nqueued * size;
		memset(q, 0, size);
		memcpy(q, req, len);
		d->queued_len[d->nqueued++] = len;
		return 0;
	}
	d->now_ps = arrive > d->probe_free_ps ? arrive : d->probe_free_ps;
	for (unsigned i = 0; i < d->nqueued; i++)
		dap_run_packet(d, d->queued + (size_t)i * size);
	d->nqueued = 0;
	uint8_t *pkt = xcalloc(1, size);
	memcpy(pkt, req, len);
	dap_run_packet(d, pkt);
	free(pkt);
	d->probe_free_ps = d->now_ps;
	return 0;
}

int dap_submit(xb_dap *d, const uint8_t *req, size_t len, xb_err *err)
{
	return dap_submit_at(d, req, len, NULL, err);
}

int dap_submit_sent(xb_dap *d, const uint8_t *req, size_t len, uint64_t sent_ps, xb_err *err)
{
	return dap_submit_at(d, req, len, &sent_ps, err);
}

int dap_collect(xb_dap *d, uint8_t *resp, size_t cap, size_t *len, uint64_t *at)
{
	if (d->nresp == 0)
		return 0;
	unsigned slot = d->resp_head;
	size_t n = d->resp_len[slot];
	if (n > cap)
		n = cap;
	memcpy(resp, d->resp + (size_t)slot * d->cfg.packet_size, n);
	*len = n;
	if (d->host_ps < d->resp_ps[slot])
		d->host_ps = d->resp_ps[slot];
	if (at)
		*at = dap_ps_to_cycles(d, d->resp_ps[slot]);
	d->resp_head = (d->resp_head + 1) % d->cfg.packet_count;
	d->nresp--;
	return 1;
}

int dap_peek_response(const xb_dap *d, uint64_t *at)
{
	if (d->nresp == 0) {
		if (at)
			*at = 0;
		return 0;
	}
	if (at)
		*at = dap_ps_to_cycles(d, d->resp_ps[d->resp_head]);
	return 1;
}

void dap_discard(xb_dap *d)
{
	d->nqueued = 0;
	d->nresp = 0;
	d->resp_head = 0;
}

int dap_transact(xb_dap *d, const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		 size_t *rlen, xb_err *err)
{
	*rlen = 0;
	if (d->nresp)
		return xb_fail(err, "CMSIS-DAP: %u responses not collected; a synchronous request "
				    "needs none", d->nresp);
	if (dap_submit(d, req, len, err))
		return -1;
	if (d->nresp == 0)
		return 0; /* queued, or TransferAbort */
	/* This packet's answer is the newest; answers to queued packets stay for dap_collect. */
	unsigned slot = (d->resp_head + d->nresp - 1) % d->cfg.packet_count;
	size_t n = d->resp_len[slot] < cap ? d->resp_len[slot] : cap;
	memcpy(resp, d->resp + (size_t)slot * d->cfg.packet_size, n);
	*rlen = n;
	if (d->host_ps < d->resp_ps[slot])
		d->host_ps = d->resp_ps[slot];
	d->nresp--;
	return 0;
}
