/* dap_internal: what the virtual probe's packet and command layer (dap.c) and its SWD
 * engine (dap_swd.c) share. Internal to sim/. */
#ifndef XB_DAP_INTERNAL_H
#define XB_DAP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/cmsis_dap.h"
#include "dap.h"

/* Transfer request and response bits. */
#define DAP_REQ_APNDP (1u << 0)
#define DAP_REQ_RNW (1u << 1)
#define DAP_REQ_A2 (1u << 2)
#define DAP_REQ_A3 (1u << 3)
#define DAP_REQ_MATCH_VALUE (1u << 4)
#define DAP_REQ_MATCH_MASK (1u << 5)
#define DAP_REQ_TIMESTAMP (1u << 7)
#define DAP_REQ_RDBUFF (DAP_REQ_A2 | DAP_REQ_A3 | DAP_REQ_RNW) /* DP RDBUFF read */
#define DAP_REQ_ABORT 0x00u                                   /* DP ABORT write */

#define DAP_ACK_OK 1u
#define DAP_ACK_WAIT 2u
#define DAP_ACK_FAULT 4u
#define DAP_ACK_NONE 7u
#define DAP_RESP_ERROR (1u << 3)    /* protocol error (read data parity) */
#define DAP_RESP_MISMATCH (1u << 4) /* value match failed */

/* A request, zero-padded to the packet size. */
typedef struct dap_in {
	const uint8_t *buf;
	size_t pos, len;
} dap_in;

/* A response being built; never longer than cap. */
typedef struct dap_out {
	uint8_t *buf;
	size_t len, cap;
} dap_out;

uint8_t dap_in_u8(dap_in *in);
uint16_t dap_in_u16(dap_in *in);
uint32_t dap_in_u32(dap_in *in);
void dap_in_skip(dap_in *in, size_t n);
int dap_out_room(const dap_out *o, size_t n);
void dap_out_u8(dap_out *o, uint8_t v);
void dap_out_u16(dap_out *o, uint16_t v);
void dap_out_u32(dap_out *o, uint32_t v);

struct xb_dap {
	xb_swd *swd;
	xb_board *board;
	xb_dap_config cfg;
	char serial[64];
	uint32_t cpu_hz;
	/* time, in picoseconds since board cycle 0 */
	uint64_t host_ps;       /* the host's clock */
	uint64_t probe_free_ps; /* when the probe finishes its last packet */
	uint64_t now_ps;        /* the probe's clock while it works */
	uint64_t period_ps;     /* SWCLK period */
	uint64_t board_mark;    /* board cycles after the probe last ran it */
	uint32_t swclk_hz;
	/* port configuration */
	int connected;          /* DAP_Connect chose SWD */
	unsigned turnaround;    /* 1 .. 4 */
	int data_phase;
	uint8_t idle_cycles;
	uint16_t retry_count, match_retry;
	uint32_t match_mask;
	uint32_t timestamp;     /* of the last transfer asking for one */
	int pin_swclk, pin_swdio;
	/* packets held by DAP_QueueCommands and responses not yet collected */
	uint8_t *queued;        /* packet_count packets of packet_size bytes */
	size_t *queued_len;
	unsigned nqueued;
	uint8_t *resp;          /* ring of packet_count responses */
	size_t *resp_len;
	uint64_t *resp_ps;
	unsigned resp_head, nresp;
	xb_dap_stats stats;
};

/* dap_submit for a packet the host sent at sent_ps (its clock then; the host's clock is
 * not moved): it reaches the probe usb_out_ns later. For a server that holds packets
 * until the board has reached their arrival (paced mode of dap_socket.c). */
int dap_submit_sent(xb_dap *d, const uint8_t *req, size_t len, uint64_t sent_ps, xb_err *err);

/* Time conversions. */
uint64_t dap_ps_to_cycles(const xb_dap *d, uint64_t ps);
uint64_t dap_cycles_to_ps(const xb_dap *d, uint64_t cycles);
/* SWCLK frequency (hz > 0). */
void dap_set_clock(xb_dap *d, uint32_t hz);

/* Commands played on the port (dap_swd.c). Each reads its parameters from in (after the
 * command byte) and appends its answer (after the command byte) to o; the caller checked
 * that o has room for the fixed part of the answer. */
void dap_cmd_transfer(xb_dap *d, dap_in *in, dap_out *o);
void dap_cmd_transfer_block(xb_dap *d, dap_in *in, dap_out *o);
void dap_cmd_write_abort(xb_dap *d, dap_in *in, dap_out *o);
void dap_cmd_swj_pins(xb_dap *d, dap_in *in, dap_out *o);
void dap_cmd_swj_sequence(xb_dap *d, dap_in *in, dap_out *o);
void dap_cmd_swd_sequence(xb_dap *d, dap_in *in, dap_out *o);

#endif
