/* vbench: the virtual bench: a virtual Pico with the virtual USB host (a Linux host's
 * cdc_ether driver) and the network peer plugged in, the usbmon records of the bus, and the
 * study's measurement windows in virtual time, timed by board events: bring-up, an idle
 * window then echo traffic. The virtual bench of the live session (session/bench_virtual.c)
 * is built on it; `sim run`'s network mode measures with its windows (the exact reference
 * the session's measurements over SWD are checked against). */
#ifndef XB_VBENCH_H
#define XB_VBENCH_H

#include <stdint.h>
#include <stdio.h>

#include "../core/util.h"
#include "board.h"
#include "netpeer.h"
#include "pico.h"
#include "usbhost.h"
#include "usbmon.h"

#define VBENCH_SETTLE_MS 100u   /* quiet time before each idle window */
#define VBENCH_DRAIN_MS 1000u   /* how long replies may come after a traffic window */
#define VBENCH_PING_ID 0x7862u  /* the ICMP identifier ("xb") */
#define VBENCH_UDP_SPORT 50000u /* the peer's UDP source port */

/* How the bench advances the board: pico_run by default; `sim run --realtime` paces it. */
typedef enum xb_pico_stop (*xb_vbench_run_fn)(void *ctx, xb_pico *p, uint64_t cycles);

typedef struct xb_vbench_options {
	xb_netpeer_options peer;   /* addresses and callbacks of the network peer */
	FILE *pcap;                /* usbmon records go here as a pcap (may be NULL) */
	xb_usbmon_record_fn record; /* and every record to this function (may be NULL) */
	void *record_ctx;
	xb_vbench_run_fn run;      /* NULL: pico_run */
	void *run_ctx;
} xb_vbench_options;

/* Defaults: netpeer_options_init, no pcap, no record function, pico_run. */
void vbench_options_init(xb_vbench_options *o);

typedef struct xb_vbench xb_vbench;

/* Plugs the USB host and the network peer into p, whose image is loaded (the peer's link
 * comes up once the device is enumerated). o is copied. */
xb_vbench *vbench_new(xb_pico *p, const xb_vbench_options *o);
/* Unplugs and frees everything but the pico. */
void vbench_free(xb_vbench *v);

/* What plugs into a bench made elsewhere (`sim serve --tap` puts its TAP beside the peer
 * of the virtual bench that its session makes): the next vbench_new in the process, and
 * only that one, calls fn(ctx, the new bench) before it returns (fn NULL: none). Set it
 * from the thread that then makes the bench. */
typedef void (*xb_vbench_hook_fn)(void *ctx, xb_vbench *v);
void vbench_hook_next(xb_vbench_hook_fn fn, void *ctx);
/* fn(ctx) runs first in vbench_free, while the board, the host and the peer still exist
 * (one per bench: a second call replaces the first). */
void vbench_on_free(xb_vbench *v, void (*fn)(void *ctx), void *ctx);

xb_netpeer *vbench_peer(const xb_vbench *v);
xb_usbhost *vbench_host(const xb_vbench *v);
xb_usbmon *vbench_usbmon(const xb_vbench *v);
xb_board *vbench_board(const xb_vbench *v);
/* 1 once SET_CONFIGURATION completed (seen in the usbmon records), and when (ns). */
int vbench_configured(const xb_vbench *v, uint64_t *ns);

/* Runs to board cycle at (nothing when it has passed); 0, or -1 when the core halted or
 * locked up. */
int vbench_run_to(xb_vbench *v, uint64_t at);
/* 1 when the link is up and the peer knows the device's MAC address. */
int vbench_ready(const xb_vbench *v);
/* Runs until ready, at most timeout cycles. 0, or -1 with err saying how far the USB host,
 * the CDC-ECM driver, the link and ARP got. */
int vbench_bring_up(xb_vbench *v, uint64_t timeout, xb_err *err);

/* The board cycle where the next window may start: the first whole millisecond at least
 * VBENCH_SETTLE_MS from now. */
uint64_t vbench_settled(const xb_vbench *v);

/* One kind of traffic: an idle window, then the traffic window of the same length. The
 * caller fills the parameters; vbench_phase_run the results. */
typedef struct xb_vbench_phase {
	int kind;          /* XB_NETPEER_ICMP or XB_NETPEER_UDP */
	unsigned count;    /* requests */
	unsigned size;     /* ICMP data bytes or UDP payload bytes */
	uint64_t interval; /* ICMP: cycles between requests */
	uint32_t rate;     /* UDP: datagrams per second */
	uint16_t port;     /* UDP: the device's port */
	uint64_t window;   /* cycles: count * interval, or count / rate */
	int no_idle;       /* 1: no idle window (the traffic starts after the settle time) */
	/* results */
	uint64_t idle_start, start;   /* cycles: the idle window, then the traffic window */
	xb_board_counters idle, traffic, end; /* at idle_start, start, start + window */
	long first;        /* the first echo in the peer's table */
	int ran;
	xb_netpeer_summary sum;
	uint64_t unmatched; /* replies that matched no echo during the phase */
	xb_netpeer_stats before; /* the peer's statistics when the phase started */
} xb_vbench_phase;

/* Fills ph's window from its count and interval or rate (cycles of board b). */
void vbench_phase_window(xb_vbench_phase *ph, uint32_t cpu_hz);
/* The settle time (rounded up to a whole millisecond), the idle window, the traffic; then
 * runs until every reply is in or VBENCH_DRAIN_MS after the window. 0, or -1 with err
 * (bad parameters; the core halted or locked up: the results so far are kept). */
int vbench_phase_run(xb_vbench *v, xb_vbench_phase *ph, xb_err *err);
/* The same in two steps, for a caller that runs the board itself in between (e.g. a probe
 * sampling the PC): start schedules the windows and the traffic without running anything;
 * finish runs to the end of the traffic window and drains. */
int vbench_phase_start(xb_vbench *v, xb_vbench_phase *ph, xb_err *err);
int vbench_phase_finish(xb_vbench *v, xb_vbench_phase *ph, xb_err *err);
/* XIP misses in the traffic window, and in the idle window (0 without one). */
uint64_t vbench_traffic_misses(const xb_vbench_phase *ph);
uint64_t vbench_idle_misses(const xb_vbench_phase *ph);
/* The study's misses per echo: (misses in the traffic window - misses in the idle window) /
 * count (without an idle window: traffic misses / count). */
double vbench_misses_per_echo(const xb_vbench_phase *ph);
/* Replies per second of the traffic window. */
double vbench_echo_rate(const xb_vbench *v, const xb_vbench_phase *ph);

#endif
