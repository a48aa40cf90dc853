/* dap_client: CMSIS-DAP commands from the host side, over any transport: DAP_Info, the
 * SWD port's set-up, DAP_Transfer and DAP_TransferBlock split into packets and pipelined
 * up to the probe's packet count, and every response checked before it is believed. */
#ifndef XB_PROBE_DAP_CLIENT_H
#define XB_PROBE_DAP_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "transport.h"

typedef struct xb_dap_client xb_dap_client;

/* DAP_Info as the probe answered it (strings sanitised: printable ASCII, NUL-terminated;
 * empty when the probe has none). */
typedef struct xb_dap_info {
	char vendor[64], product[96], serial[64], protocol[16], firmware[24];
	uint8_t capabilities;   /* bit 0 SWD, bit 1 JTAG, bit 4 atomic commands ... */
	unsigned packet_count;  /* packets the probe buffers (1 .. 255) */
	unsigned packet_size;   /* bytes per packet, as used (capped by the transport) */
} xb_dap_info;

#define XB_DAP_CAP_SWD 0x01u

/* DAP_Transfer request bits and response values (CMSIS-DAP). */
#define XB_DAP_AP 0x01u      /* APnDP: an AP register (else DP) */
#define XB_DAP_READ 0x02u    /* RnW */
#define XB_DAP_A(reg) ((uint8_t)((reg) & 0x0Cu)) /* A[3:2] of a register address */
#define XB_ACK_OK 1u
#define XB_ACK_WAIT 2u
#define XB_ACK_FAULT 4u
#define XB_ACK_NONE 7u
#define XB_ACK_PROTOCOL 8u   /* bit 3: a protocol error (read data parity) */

/* A name for a transfer response value: "OK", "WAIT", "FAULT", "no ACK" ... */
const char *dap_client_ack_name(unsigned ack);

/*
 * Makes a client on t (owned from now on: dap_client_free closes it, and so does a failing
 * dap_client_new). Asks DAP_Info for the packet size and count, capabilities, vendor,
 * product, serial and versions. Fails when the probe does not answer DAP_Info sensibly
 * (the message names the probe and what was wrong with the answer).
 */
xb_dap_client *dap_client_new(xb_transport *t, xb_err *err);
void dap_client_free(xb_dap_client *c);

const xb_dap_info *dap_client_info(const xb_dap_client *c);
xb_transport *dap_client_transport(xb_dap_client *c);
/* The probe's name for messages (the transport's). */
const char *dap_client_name(const xb_dap_client *c);
/* The transport's clock (virtual nanoseconds for the in-process virtual probe). */
uint64_t dap_client_now_ns(xb_dap_client *c);

/* ---- Commands (each one packet; 0 on success, -1 with err) ---- */

/* A DAP_Info string (id 0x01 .. 0x0A) into out (cap bytes). */
int dap_client_info_string(xb_dap_client *c, uint8_t id, char *out, size_t cap, xb_err *err);
/* DAP_Connect in SWD mode; fails when the probe cannot do SWD. */
int dap_client_connect(xb_dap_client *c, xb_err *err);
int dap_client_disconnect(xb_dap_client *c, xb_err *err);
/* DAP_SWJ_Clock: SWCLK in Hz (the probe picks the nearest it can). */
int dap_client_swj_clock(xb_dap_client *c, uint32_t hz, xb_err *err);
/* DAP_SWJ_Sequence: bits (1 .. 256) from data, LSB first. */
int dap_client_swj_sequence(xb_dap_client *c, unsigned bits, const uint8_t *data, xb_err *err);
/* DAP_SWD_Configure: turnaround 1 .. 4 cycles, data phase on WAIT/FAULT. */
int dap_client_swd_configure(xb_dap_client *c, unsigned turnaround, int data_phase,
			     xb_err *err);
/* DAP_TransferConfigure: idle cycles after a transfer, WAIT retries, value-match retries. */
int dap_client_transfer_configure(xb_dap_client *c, uint8_t idle, uint16_t wait_retry,
				  uint16_t match_retry, xb_err *err);
/* DAP_WriteABORT: the DP's ABORT register. */
int dap_client_write_abort(xb_dap_client *c, uint32_t value, xb_err *err);
/* DAP_Delay: the probe waits us microseconds. */
int dap_client_delay(xb_dap_client *c, uint16_t us, xb_err *err);

/* ---- Transfers ---- */

/* One DP or AP register access: req is XB_DAP_AP / XB_DAP_READ / XB_DAP_A(reg) (no value
 * match, no timestamps); value is written, or receives what a read returned. */
typedef struct xb_dap_transfer {
	uint8_t req;
	uint32_t value;
} xb_dap_transfer;

/* A run of transfers (DAP_Transfer) or of one register (DAP_TransferBlock: req says which,
 * words are written from or read into words[0..n)). */
typedef struct xb_dap_op {
	int block;
	uint8_t req;            /* block: the register's request bits */
	xb_dap_transfer *x;     /* transfers: x[0..n) */
	uint32_t *words;        /* block: words[0..n) */
	size_t n;
} xb_dap_op;

/* Where a run of ops stopped. */
typedef struct xb_dap_status {
	unsigned ack;           /* XB_ACK_OK when everything ran; else the failing transfer's
				 * response value; 0 when the transport or a malformed
				 * response failed */
	size_t op;              /* the failing op */
	size_t done;            /* its transfers that completed before the failure */
} xb_dap_status;

/*
 * Runs ops[0..n) in order: each split into as many packets as its requests and responses
 * need (a DAP_Transfer packet holds at most 255 transfers; a block at most what a packet
 * carries: 15 reads or 14 writes at 64 bytes), up to the probe's packet count in flight.
 * AP reads are posted on the wire; the probe resolves that (CMSIS-DAP returns each read's
 * own value). Returns 0 when every transfer answered OK. Otherwise -1 with err and st
 * telling which: the transfers that follow a failure in the same packet did not run, but
 * packets already in flight did (with a sticky error set, their transfers answer FAULT);
 * their answers are discarded. st may be NULL.
 */
int dap_client_run(xb_dap_client *c, xb_dap_op *ops, size_t n, xb_dap_status *st, xb_err *err);
/* The same for one run of transfers, or one block. */
int dap_client_transfer(xb_dap_client *c, xb_dap_transfer *x, size_t n, xb_dap_status *st,
			xb_err *err);
int dap_client_transfer_block(xb_dap_client *c, uint8_t req, uint32_t *words, size_t n,
			      xb_dap_status *st, xb_err *err);

/* ---- Raw packets (for the PC sampler's own pipeline) ---- */

/* Sends one packet; at most the probe's packet count may be in flight. */
int dap_client_submit(xb_dap_client *c, const uint8_t *req, size_t len, xb_err *err);
/* The oldest response (cap >= packet size). */
int dap_client_collect(xb_dap_client *c, uint8_t *resp, size_t cap, size_t *len, xb_err *err);
unsigned dap_client_in_flight(const xb_dap_client *c);
/* Parses a DAP_TransferBlock read response to a request for want words: *got words into
 * words, the response value into *ack. -1 with err when it is malformed. */
int dap_client_parse_block_read(xb_dap_client *c, const uint8_t *resp, size_t len, size_t want,
				uint32_t *words, size_t *got, unsigned *ack, xb_err *err);
/* Parses a DAP_Transfer response to the request x[0..n): read values into x, *done and
 * *ack as the probe reported them. -1 with err when it is malformed. */
int dap_client_parse_transfer(xb_dap_client *c, const uint8_t *resp, size_t len,
			      xb_dap_transfer *x, size_t n, size_t *done, unsigned *ack,
			      xb_err *err);
/* Builds the DAP_Transfer request for x[0..n) into pkt (cap bytes); returns its length, or
 * 0 when it does not fit. */
size_t dap_client_build_transfer(const xb_dap_transfer *x, size_t n, uint8_t *pkt, size_t cap);

#endif
