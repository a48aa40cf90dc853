/* dap: the virtual CMSIS-DAP probe (the firmware side of a Raspberry Pi Debug Probe): request
 * packets in, response packets out, every command played as SWD bits on an xb_swd port, in
 * virtual time; and a Unix socket server that carries its packets. */
#ifndef XB_DAP_H
#define XB_DAP_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "swd.h"

/*
 * Commands (CMSIS-DAP 2.1, SWD only; byte formats as the specification gives them):
 * Info, HostStatus, Connect (port 0 = default = SWD; JTAG and others answer port 0,
 * i.e. failure), Disconnect, TransferConfigure, Transfer (posted AP reads, value match with
 * the match mask, timestamps), TransferBlock, WriteABORT, Delay, ResetTarget (answers "no
 * device-specific reset sequence"), SWJ_Pins, SWJ_Clock, SWJ_Sequence, SWD_Configure,
 * SWD_Sequence, ExecuteCommands, QueueCommands. JTAG_Sequence, JTAG_Configure and
 * JTAG_IDCODE answer status 0xFF. TransferAbort, sent as a packet of its own, has no
 * response (the CMSIS-DAP firmware catches it as the packet arrives); every command runs
 * to completion before the next packet is read (the WAIT retry count bounds it), so there
 * is never a transfer in progress to abort. Any other
 * command (SWO, UART, vendor, or 0x07/0x7E/0x7F inside ExecuteCommands) answers the single
 * byte 0xFF.
 *
 * DAP_Info: vendor "xipbench", product "xipbench virtual probe (CMSIS-DAP)", serial from the
 * configuration, protocol version "2.1.0", firmware version "1.0", capabilities SWD +
 * atomic commands + test domain timer (0x31), test domain timer = the board's clock
 * (cpu_hz; a timestamp is the low 32 bits of the board cycle at the end of the transfer's
 * data phase), packet count and size from the configuration. Target and board names are
 * empty: this probe is not tied to one target, as the Debug Probe is not.
 *
 * Pins: the probe has SWCLK and SWDIO only (the Debug Probe's 3-pin SWD cable). SWJ_Pins
 * reads back SWCLK and SWDIO as driven, nRESET as 1 (not connected, pulled up on the
 * board), TDI, TDO and nTRST as 0; a rising SWCLK edge through SWJ_Pins clocks one bit with
 * the SWDIO pin's level. Until DAP_Connect the pins are off: sequences take their time but
 * clock nothing, and transfers answer as CMSIS-DAP does without a port (no transfers).
 *
 * Robustness: a request is treated as zero-padded to the packet size (as CMSIS-DAP v1 HID
 * reports are); a response never exceeds the packet size: a Transfer stops before the first
 * transfer whose answer would not fit (the count tells how many ran), a TransferBlock read
 * is shortened to what fits, an SWD_Sequence whose captured data would not fit answers
 * status 0xFF, and ExecuteCommands stops before the first command whose answer would not fit
 * (NumCmd tells how many ran).
 *
 * Timing model (virtual time; docs/sim.md "Debug port and probe"):
 *  - SWCLK period = 1 / swclk_hz (1 MHz until DAP_SWJ_Clock), rounded to whole picoseconds.
 *    A transfer is 8 request bits, turnaround, 3 ACK bits, 33 data bits, turnaround (reads:
 *    after the data; writes: before it), then the configured idle cycles; DAP_Delay waits.
 *  - USB: a request reaches the probe usb_out_ns after the host sends it, a response reaches
 *    the host usb_in_ns after the probe finishes it (500 us each by default: one 1 ms
 *    full-speed frame per round trip). Up to packet_count packets may be in flight; the
 *    probe works on them one at a time, in order. The bus bandwidth is not modelled: 8
 *    packets of 64 bytes per frame are well under the 19 bulk packets a frame can carry.
 *  - The host's clock: it sends at dap_host_time and moves on to the arrival time of each
 *    response it collects; when something other than the probe ran the board (a serve
 *    loop keeping real time), it catches up with the board's time first.
 *  - Before every memory access of the AP the board runs up to that access's virtual time
 *    (board_run(b, t - board_cycles(b))), so a DWT_PCSR read returns the PC of the running
 *    program at that instant. The probe never runs the board otherwise.
 *
 * Processing is eager: a packet is played on the port when it is submitted (at its virtual
 * arrival time); collecting only hands the response over. A probe is used by one thread.
 */

typedef struct xb_dap xb_dap;

typedef struct xb_dap_config {
	const char *serial;     /* DAP_Info serial number; copied (default "xipbench-0") */
	uint16_t packet_size;   /* 64 .. 1024 (default 64) */
	uint8_t packet_count;   /* 1 .. 64 (default 8) */
	uint32_t swclk_hz;      /* SWCLK until DAP_SWJ_Clock (default 1000000) */
	uint32_t usb_out_ns;    /* host to probe (default 500000) */
	uint32_t usb_in_ns;     /* probe to host (default 500000) */
} xb_dap_config;

/* The Raspberry Pi Debug Probe's figures (see above). */
void dap_config_init(xb_dap_config *c);

/* A probe attached to port (not owned; the probe installs the port's sync callback and
 * removes it in dap_free). c may be NULL (defaults); out-of-range values are clamped. */
xb_dap *dap_new(xb_swd *port, const xb_dap_config *c);
void dap_free(xb_dap *d);
const xb_dap_config *dap_config(const xb_dap *d);

/* ---- Packets ---- */

/* Sends one request packet (1 .. packet_size bytes) at the host's current virtual time.
 * Fails (-1, err) when the packet is empty or too long, or when packet_count packets are
 * already in flight (collect responses first). A DAP_QueueCommands packet is held until a
 * packet of another kind arrives; a DAP_TransferAbort packet (first byte 0x07, whatever
 * follows) has no response and is not in flight. */
int dap_submit(xb_dap *d, const uint8_t *req, size_t len, xb_err *err);

/* Takes the oldest response: copies it to resp (cap bytes; packet_size is always enough),
 * sets *len and, if at is not NULL, *at to the board cycle at which it reached the host; the
 * host's clock moves on to that time. Returns 1, or 0 when no response is waiting (nothing
 * in flight, or only queued commands). */
int dap_collect(xb_dap *d, uint8_t *resp, size_t cap, size_t *len, uint64_t *at);

/* Whether a response is waiting (1) or not (0), without taking it: *at (may be NULL) gets
 * the board cycle at which the oldest uncollected one reaches the host (as dap_collect
 * would report it), 0 when none is waiting. For a server that releases responses in
 * paced virtual time. */
int dap_peek_response(const xb_dap *d, uint64_t *at);

/* Packets in flight: submitted and not yet collected. */
unsigned dap_in_flight(const xb_dap *d);
/* Forgets queued packets and uncollected responses (the host went away). */
void dap_discard(xb_dap *d);

/* One packet and its response (the synchronous way): fails when responses are waiting to be
 * collected. *rlen is 0 for packets without a response (DAP_QueueCommands,
 * DAP_TransferAbort); when the packet runs queued commands, their responses come before
 * this one and stay for dap_collect. The host's clock moves on to the response's arrival. */
int dap_transact(xb_dap *d, const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		 size_t *rlen, xb_err *err);

/* ---- Time ---- */

/* The host's clock, in board cycles. */
uint64_t dap_host_time(const xb_dap *d);
/* The host spends cycles doing something else before its next packet. */
void dap_host_wait(xb_dap *d, uint64_t cycles);

typedef struct xb_dap_stats {
	uint64_t packets;     /* request packets processed (queued ones included) */
	uint64_t commands;    /* commands executed */
	uint64_t transfers;   /* SWD packets (request + ACK ...) the probe sent */
	uint64_t waits, faults, no_acks; /* transfers answered WAIT, FAULT, nothing valid */
	uint64_t swclk;       /* SWCLK cycles */
} xb_dap_stats;
void dap_stats(const xb_dap *d, xb_dap_stats *out);

/* ---- Unix socket server ---- */

/*
 * The probe's packets over a Unix stream socket (never TCP): every packet, both ways, is
 * framed by a 2-byte little-endian length. One client at a time; a second one is accepted
 * and closed at once. A frame of length 0 or above packet_size, or a client that sends more
 * than packet_count packets without reading responses while its output is blocked, is
 * dropped (the connection closed, the server keeps listening). Responses are written as soon
 * as the probe has produced them (unless paced, below); their virtual times are the timing
 * model's, not the socket's.
 */
typedef struct xb_dap_server xb_dap_server;

/* Listens on path (an existing socket file there is replaced; any other file is an error).
 * The server uses d (not owned). */
xb_dap_server *dap_socket_open(const char *path, xb_dap *d, xb_err *err);
/* A server with one client already connected on fd (owned: a socketpair end; made
 * non-blocking) and no listener; when the client goes away the server has no client until
 * dap_socket_adopt_fd gives it another. */
xb_dap_server *dap_socket_adopt(int fd, xb_dap *d);
/* Gives s a new client on fd (owned), dropping the one it has. -1 when fd is not a usable
 * descriptor (then it is closed and s has no client). */
int dap_socket_adopt_fd(xb_dap_server *s, int fd);
/* Paced mode (for a board that runs paced to the wall clock): a packet counts as sent when
 * it is read, at the host time max(host clock, board time); it is played once the board's
 * time has reached its arrival at the probe (usb_out_ns later), and its response is
 * written only once the board's time has reached the response's arrival
 * (dap_peek_response). So the client sees the probe's timing model in real time and
 * cannot drive virtual time ahead by sending fast: the probe runs the board (to the time
 * of each memory access) at most one packet's work beyond where the owner ran it, and a
 * board that stands still (paused) gets no further. Held packets and responses stay in
 * order; while packet_count of them are held, further frames wait in the socket. The
 * owner of the board calls dap_socket_service again once the board has reached
 * dap_socket_next_due. Off by default (packets are played when read and responses
 * written as soon as they exist). */
void dap_socket_set_paced(xb_dap_server *s, int paced);
/* Paced mode: the board cycle at which the next held packet or response is due (0: none
 * held). */
uint64_t dap_socket_next_due(const xb_dap_server *s);
/* Paced mode: what the board's time allows now without touching the socket (responses
 * queued for writing, held packets played): for a board that stops where packets fall due
 * within a slice and services the socket at its end. Returns packets played. */
int dap_socket_advance(xb_dap_server *s);
/* Drops the client (as if it had gone away): for tests of a lost probe. */
void dap_socket_drop_client(xb_dap_server *s);
/* Closes the client and the listener and removes the socket file. */
void dap_socket_close(xb_dap_server *s);

/* Fills fds (room for max entries, at least 2 needed to see everything) with the listener
 * and the client, with the events to wait for; returns how many. */
int dap_socket_pollfds(const xb_dap_server *s, struct pollfd *fds, int max);
/* Does whatever can be done without blocking: accepts, reads frames, runs them through the
 * probe, writes responses. Call it after poll() says one of the fds is ready (or any time).
 * Returns the number of packets processed, or -1 when the listener itself failed (err). */
int dap_socket_service(xb_dap_server *s, xb_err *err);
/* 1 while a client is connected. */
int dap_socket_connected(const xb_dap_server *s);

#endif
