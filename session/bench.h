/* bench: what a live session talks to, behind one ops table: the virtual Pico
 * (bench_virtual.c) or a real board behind a CMSIS-DAP probe (bench_probe.c). A bench
 * gives what a real bench has: a CMSIS-DAP transport to its probe, the usbmon records of
 * the board's USB, a way to send echo traffic to the board's network interface and see
 * the replies, the board's console; the virtual bench adds what only it can show (the
 * cache's contents and misses per set, speed, pause, a fetch trace). */
#ifndef XB_SESSION_BENCH_H
#define XB_SESSION_BENCH_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../capture/usbrec.h"
#include "../core/target.h"
#include "../probe/transport.h"
#include "status.h"

typedef struct xb_bench xb_bench;

/* A reply the bench's network stack saw (for echo rates and loss when there is no
 * capture, and for `sim serve`'s UDP clients). */
typedef struct xb_bench_reply {
	uint8_t kind;         /* 1 ICMP echo reply, 2 UDP datagram */
	uint16_t id, seq;     /* ICMP */
	uint16_t sport, dport;/* UDP, as on the wire (the device's port, the host's) */
	uint32_t len;         /* payload bytes */
	uint8_t data[64];     /* the payload's first bytes (the nonce, a timestamp) */
	uint8_t *full;        /* the whole payload when the bench keeps it (sim serve), else
			       * NULL; owned by the bench until the next read_replies */
	uint64_t t_ns;        /* the bench clock when it arrived */
} xb_bench_reply;

/* The bench as it is now. */
typedef struct xb_bench_state {
	int is_virtual;
	double speed;         /* virtual: times real time; NaN for a real board */
	int paused;
	double ratio;         /* virtual: virtual / wall time over the last second; NaN before */
	uint64_t dropped_ns;  /* virtual: board time given up because the host was too slow */
	uint64_t now_ns;      /* the bench clock */
	int net_ready;        /* the link is up and the device answers ARP */
	char net[160];        /* "USB configured, CDC-ECM up, link up, ARP resolved" */
	int core;             /* 0 running (or asleep), 1 halted, 2 locked up */
	uint64_t records_lost;/* usbmon records the bench could not hand over (queue full) */
	int probe_served;     /* virtual: a client is connected to the probe socket */
	uint64_t probe_packets; /* virtual: CMSIS-DAP packets the probe processed */
	int tracing;          /* virtual: a fetch trace is being recorded */
	int trace_failed;     /* virtual: the last trace could not be created or written (1),
			       * or passed its size limit (trace_max) and was stopped (2) */
} xb_bench_state;

/* The virtual bench's debug tricks for tests and demos (control "probe"). */
enum { XB_PROBE_TRICK_DROP = 1, XB_PROBE_TRICK_UNPLUG, XB_PROBE_TRICK_FAULT,
       XB_PROBE_TRICK_WAIT, XB_PROBE_TRICK_NORMAL };

typedef struct xb_bench_ops {
	const char *kind; /* "virtual", "probe" */
	int schedules;    /* send_* keep their at_ns exactly (the virtual bench); else they
			   * send when called, and the caller sends when the time comes */
	/* A new connection to the bench's probe (close the previous one first): a transport
	 * the caller owns; NULL with rep when the probe is not there now. */
	xb_transport *(*connect_probe)(xb_bench *b, xb_report *rep);
	/* The usbmon records that arrived: fn for each, in order. Returns how many, or -1
	 * with rep when the capture failed (and will deliver nothing more). */
	int (*read_records)(xb_bench *b, void (*fn)(void *ctx, const xb_usbrec *r), void *ctx,
			    xb_report *rep);
	/* Sends one ICMP echo request / UDP datagram to the board's echo service at bench time
	 * at_ns (in the past or 0: now). 0, or -1 with rep (the link is down ...). */
	int (*send_ping)(xb_bench *b, uint64_t at_ns, uint16_t id, uint16_t seq,
			 const uint8_t *data, size_t len, xb_report *rep);
	int (*send_udp)(xb_bench *b, uint64_t at_ns, uint16_t sport, uint16_t dport,
			const uint8_t *data, size_t len, xb_report *rep);
	/* Replies that arrived (at most max); returns how many. */
	size_t (*read_replies)(xb_bench *b, xb_bench_reply *out, size_t max);
	/* Bytes the board's console (UART0) sent; returns how many (at most cap). */
	size_t (*read_console)(xb_bench *b, uint8_t *buf, size_t cap);
	/* Descriptors to poll (at most max); returns how many. */
	int (*pollfds)(xb_bench *b, struct pollfd *fds, int max);
	/* A live bench services its queues; a bench in virtual time (the caller's thread)
	 * also runs the board up to bench time until_ns. -1 with rep when the bench broke. */
	int (*pump)(xb_bench *b, uint64_t until_ns, xb_report *rep);
	/* The bench clock (ns): virtual time for the virtual bench, CLOCK_MONOTONIC for a
	 * real one. */
	uint64_t (*now_ns)(xb_bench *b);
	void (*state)(xb_bench *b, xb_bench_state *out);
	/* Changes: "speed" (value = factor), "pause" (1/0), "step", "probe" (value = an
	 * XB_PROBE_TRICK_*; UNPLUG takes seconds in value2), "trace-mark" (value = an
	 * XB_TRACE_MARK_*), "flush" (the cache, as the XIP FLUSH register would). Benches
	 * that cannot do one answer XB_STATUS_UNSUPPORTED. */
	int (*control)(xb_bench *b, const char *what, double value, double value2,
		       xb_report *rep);
	/* Virtual bench only (NULL elsewhere): the cache's contents (nsets * ways line
	 * addresses, -1 empty; NULL to skip) and each set's misses since the bench started
	 * (NULL to skip), as last published (at most a few tens of ms old when live). */
	int (*cache_view)(xb_bench *b, int64_t *tags, uint64_t *set_misses, uint32_t nsets,
			  uint32_t ways);
	/* A live virtual bench only (NULL elsewhere): the board runs no further than bench
	 * time ns until the caller moves the horizon on (UINT64_MAX: no bound). The caller
	 * has given the bench every request due before it, so that none goes out late
	 * however much faster than real time the board runs. */
	void (*set_horizon)(xb_bench *b, uint64_t ns);
	/* Virtual bench only (NULL elsewhere): starts recording the board's fetch trace (the
	 * binary form of core/trace.h) into path, from now on; NULL stops the recording and
	 * completes the file. Live, it happens on the board's next slice: the state's
	 * `tracing` says when. */
	int (*trace)(xb_bench *b, const char *path, xb_report *rep);
	void (*close)(xb_bench *b);
} xb_bench_ops;

struct xb_bench {
	const xb_bench_ops *ops;
	char name[160]; /* "virtual Pico", "probe E6614103E7... (usbmon3, usb0)" */
};

/* ---- The virtual bench ---- */

typedef struct xb_virtual_options {
	const xb_target *tg;
	int virtual_time;       /* 1: run in the caller's thread in virtual time (batch,
				 * reproducible); 0: own thread, paced to the wall clock */
	double speed;           /* paced: start speed (0: 1.0) */
	const char *load;       /* an image to load straight into flash before the first
				 * reset (a board already flashed: `sim serve`); NULL: blank */
	int load_format;        /* enum xb_image_format of sim/loader.h (0: detect) */
	uint32_t load_at;       /* where a raw binary goes */
	int strict;
	const char *trace_path; /* record the fetch trace of the whole run (binary form) */
	uint64_t trace_max;     /* bytes a fetch trace may take before it is stopped (0: 4 GB) */
	FILE *pcap;             /* also write the usbmon records here (pcap stream) */
	FILE *uart;             /* also write UART0's bytes here as they come */
	const char *probe_socket; /* serve the virtual probe on this Unix socket for other
				   * tools, instead of to the session (connect_probe fails) */
	const uint8_t *peer_ip, *device_ip; /* 4 bytes each, NULL: 192.0.2.2 / 192.0.2.1 */
	const uint8_t *netmask;            /* the peer's netmask, NULL: 255.255.255.0 */
	int dhcp;                          /* the peer asks the device's DHCP server for its
					    * address (netpeer.h) */
	size_t reply_keep;      /* bytes of each reply payload kept in `full` (0: none) */
} xb_virtual_options;

/* Opens the virtual bench (a powered virtual Pico with the USB host, network peer and
 * probe plugged in; blank flash unless o->load). NULL with rep. */
xb_bench *bench_virtual_open(const xb_virtual_options *o, xb_report *rep);

/* ---- A real bench ---- */

typedef struct xb_probe_bench_options {
	const xb_target *tg;
	const char *serial;     /* USB probe by serial (NULL: the only one) */
	const char *socket;     /* or the virtual probe of `sim serve --probe-socket` */
	const char *capture;    /* usbmonN, a pcap file or fifo, "-" for standard input, or
				 * NULL: none (no turnaround; rates and loss from the sockets) */
	const char *device_ip;  /* the board's address; NULL: found on the board's interface
				 * (bench_board_ip's rule), else 192.0.2.1 */
	const char *host_ip;    /* the host's address: the sockets are bound to it, so that
				 * the traffic leaves from it (NULL: the kernel's choice) */
	uint16_t udp_port;      /* its UDP echo port (default 7) */
	const char *udp_target; /* HOST:PORT to send UDP echoes to instead (a forwarder such
				 * as `sim serve --udp-port`); ICMP then goes nowhere */
	const char *netif;      /* the board's network interface (usb0, a TAP); NULL: the one
				 * the board's USB device brought (bench_netif_find), if any.
				 * While it is known, the network is ready when it is up */
	uint16_t usb_vid, usb_pid; /* the board's USB IDs (0: 1209:0001, the demo firmware's) */
	const char *sysfs, *procfs; /* tests: folders standing for /sys and /proc (NULL: those) */
} xb_probe_bench_options;

xb_bench *bench_probe_open(const xb_probe_bench_options *o, xb_report *rep);

/* The board's network interface, found in sysfs (Linux): /sys/class/net/NAME/device is a
 * USB interface (…/1-1/1-1:1.0) bound to cdc_ether, rndis_host or cdc_ncm, whose parent
 * directory is the USB device with idVendor vid and idProduct pid. sysfs NULL: /sys. Fills
 * out with up to max of them, sorted by name; returns how many there are. */
typedef struct xb_board_netif {
	char name[16];   /* usb0 */
	char driver[16]; /* cdc_ether */
	char usb[32];    /* the USB interface: 1-1:1.0 */
} xb_board_netif;
size_t bench_netif_find(const char *sysfs, uint16_t vid, uint16_t pid, xb_board_netif *out,
			size_t max);
/* The complete IPv4 neighbours (ARP entries) on interface ifname, from procfs/net/arp
 * (procfs NULL: /proc); returns how many (up to max). */
size_t bench_netif_neighbours(const char *procfs, const char *ifname, uint8_t (*out)[4],
			      size_t max);
/* The board's address on an interface where the host is host/prefix. The rule, first
 * that applies: (1) the interface's point-to-point peer (peer, NULL: none); (2) its only
 * IPv4 neighbour inside the subnet (neigh, n of them); (3) by the subnet: in a /31 the
 * other address, in a /30 the other host, in a wider one the subnet's first host (its
 * address + 1: 192.0.2.1 in 192.0.2.0/24, where the demo firmware is), or its second when
 * the host has the first. 0 with out and the rule in words (why, cap bytes), or -1 for a
 * /32. */
int bench_board_ip(const uint8_t host[4], unsigned prefix, const uint8_t *peer,
		   const uint8_t (*neigh)[4], size_t n, uint8_t out[4], char *why, size_t cap);

#endif
