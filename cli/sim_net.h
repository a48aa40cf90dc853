/* sim_net: what `xipbench sim run` and `xipbench sim serve` share (cli/cmd_sim.c parses the
 * options): the network mode of `sim run` (the USB host plugged in, the network peer, traffic
 * in virtual time, the usbmon capture; cli/sim_net.c) and `sim serve` (cli/sim_serve.c). */
#ifndef XB_CLI_SIM_NET_H
#define XB_CLI_SIM_NET_H

#include <stdint.h>
#include <stdio.h>

#include "../sim/loader.h"
#include "../sim/pico.h"

/* The options as given (strings are parsed and checked by the code that uses them). */
typedef struct sim_options {
	const char *image, *at, *cycles, *uart, *trace, *until, *target, *speed;
	enum xb_image_format format;
	int strict, json, realtime;
	int peripherals; /* sim run --peripherals: the unmodelled registers' table */
	const char *boot;    /* sim run --boot auto|direct|boot2 */
	const char *netmask; /* the peer's netmask (--netmask) */
	int dhcp;            /* --dhcp: the peer takes its address from the device's DHCP server */
	/* the network (sim run and sim serve) */
	const char *ping, *interval_ms, *size, *udp, *seconds, *udp_port, *udp_size, *pcap;
	const char *peer_ip, *device_ip, *link_timeout;
	int usb;
	/* sim serve */
	const char *probe_socket;
	const char *tap, *netns, *tap_ip; /* the TAP interface, its namespace, its address */
	int netns_create;
	/* sim measure */
	const char *socket, *probe, *capture, *netif, *usb_id;
} sim_options;

/* 1 when `sim run` needs the USB host and the network peer. */
int sim_net_wanted(const sim_options *o);

typedef struct sim_net sim_net;

/* Checks the network options (usage errors: XB_EXIT_USAGE, printed) and plugs the USB host
 * and the network peer into p, whose image is loaded; opens the --pcap file (written under
 * a temporary name until sim_net_close). Returns XB_EXIT_OK with *out set, or an exit code. */
int sim_net_open(const char *cmd, const sim_options *o, xb_pico *p, sim_net **out);
/* Runs the session: bring-up (enumeration, link, ARP), then for each kind of traffic asked
 * for an idle window and the traffic, in virtual time (paced to the wall clock with
 * --realtime). Without traffic, runs for --cycles. Returns an exit code (failures printed). */
int sim_net_run(sim_net *n);
/* The report's network part: text lines, or the JSON keys "usb", "ping" and "udp" (each
 * preceded by ", "; null when not used: n may be NULL). */
void sim_net_print_text(const sim_net *n, FILE *f);
void sim_net_print_json(const sim_net *n, FILE *f);
/* Frees everything; the capture is renamed to --pcap when keep is set. Returns an exit
 * code (a capture that could not be written is a failure). */
int sim_net_close(sim_net *n, int keep);

/* `xipbench sim serve`. */
int sim_serve(const char *cmd, const sim_options *o);
/* `xipbench sim measure` (cli/sim_measure.c). */
int sim_measure(const char *cmd, const sim_options *o);

/* Parsing helpers shared by both (IPv4 addresses: xb_parse_ipv4 in core/util.h): a decimal
 * number above 0 (at most max), a port (0 allowed when zero_ok). Return 0 or -1. */
int sim_parse_positive(const char *s, double max, double *out);
int sim_parse_port(const char *s, int zero_ok, uint16_t *out);
struct xb_netpeer_options;
/* --peer-ip, --device-ip and --netmask into po (those not given keep po's values; sets
 * device_ip_set), checked: addresses, a contiguous netmask, peer and device apart. Returns
 * XB_EXIT_OK or XB_EXIT_USAGE (printed). */
int sim_parse_addresses(const char *cmd, const sim_options *o, struct xb_netpeer_options *po);

#endif
