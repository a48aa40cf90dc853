/* sim_measure: `xipbench sim measure`: the study's measurement of a board from outside, the
 * way the real bench measures a real Pico (session/bench_probe.c: ordinary sockets for the
 * pings and UDP echoes, the usbmon records of the board's bus for the turnaround, XIP
 * counter reads over SWD at the window edges): against the virtual Pico of `sim serve`
 * (its probe socket, its usbmon stream, its TAP interface) or a real board. Its figures
 * are compared with `sim run`'s, measured inside the virtual host, by
 * tests/integration/test_tap.sh. */
#include "sim_net.h"

#include <ctype.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/util.h"
#include "../session/session.h"
#include "cli.h"
#include "load.h"

#define MEASURE_WAIT_MS 10000.0 /* default --link-timeout: the probe and the network */

typedef struct measure_args {
	xb_measure_plan plan;
	uint32_t rate;      /* --udp (0: none) */
	double interval_ms, seconds, wait_ms;
	uint16_t port;
	uint16_t usb_vid, usb_pid; /* --usb-id (0: the bench's default) */
} measure_args;

static int measure_count(const char *cmd, const char *opt, const char *s, unsigned lo,
			 unsigned hi, unsigned *out)
{
	uint64_t v;
	if (xb_parse_u64(s, &v) || v < lo || v > hi)
		return cli_usage_error(cmd, "%s needs a number from %u to %u (got '%s')", opt, lo, hi, s);
	*out = (unsigned)v;
	return XB_EXIT_OK;
}

/* "VID:PID", each 1 to 4 hex digits, neither 0. */
static int measure_usb_id(const char *s, uint16_t *vid, uint16_t *pid)
{
	unsigned long v[2];
	const char *p = s;
	for (int i = 0; i < 2; i++) {
		char *end;
		if (!isxdigit((unsigned char)*p))
			return -1;
		v[i] = strtoul(p, &end, 16);
		if (end - p > 4 || !v[i] || *end != (i ? '\0' : ':'))
			return -1;
		p = end + 1;
	}
	*vid = (uint16_t)v[0];
	*pid = (uint16_t)v[1];
	return 0;
}

static int measure_parse(const char *cmd, const sim_options *o, measure_args *a)
{
	int rc;
	memset(a, 0, sizeof *a);
	a->plan.pings = 300;
	a->plan.ping_size = 56;
	a->plan.udp_size = 64;
	a->interval_ms = 20;
	a->seconds = 1;
	a->wait_ms = MEASURE_WAIT_MS;
	a->port = 7;
	if (o->socket && o->probe)
		return cli_usage_error(cmd, "give one probe: --socket PATH or --probe SERIAL");
	if (o->ping && (rc = measure_count(cmd, "--ping", o->ping, o->udp ? 0 : 1, 100000,
					   &a->plan.pings)))
		return rc;
	if (!o->ping && o->udp)
		a->plan.pings = 0; /* --udp alone: the UDP step only */
	if (o->size && (rc = measure_count(cmd, "--size", o->size, 0, 1472, &a->plan.ping_size)))
		return rc;
	if (o->interval_ms && sim_parse_positive(o->interval_ms, 3600e3, &a->interval_ms))
		return cli_usage_error(cmd, "--interval-ms needs milliseconds above 0 (got '%s')",
				       o->interval_ms);
	unsigned v = 0;
	if (o->udp) {
		if ((rc = measure_count(cmd, "--udp", o->udp, 1, 100000, &v)))
			return rc;
		a->rate = v;
	}
	if (o->seconds && sim_parse_positive(o->seconds, 3600, &a->seconds))
		return cli_usage_error(cmd, "--seconds needs a duration above 0 (got '%s')", o->seconds);
	if (o->udp_size && (rc = measure_count(cmd, "--udp-size", o->udp_size, 8, 1472, &v)))
		return rc;
	if (o->udp_size)
		a->plan.udp_size = v;
	if (o->udp_port && sim_parse_port(o->udp_port, 0, &a->port))
		return cli_usage_error(cmd, "--udp-port needs a port from 1 to 65535 (got '%s')",
				       o->udp_port);
	if (o->link_timeout && sim_parse_positive(o->link_timeout, 3600e3, &a->wait_ms))
		return cli_usage_error(cmd, "--link-timeout needs milliseconds above 0 (got '%s')",
				       o->link_timeout);
	uint8_t ip[4], host[4];
	if (o->device_ip && xb_parse_ipv4(o->device_ip, ip))
		return cli_usage_error(cmd, "--device-ip needs an IPv4 address (got '%s')", o->device_ip);
	if (o->peer_ip && xb_parse_ipv4(o->peer_ip, host))
		return cli_usage_error(cmd, "--peer-ip needs an IPv4 address (got '%s')", o->peer_ip);
	if (o->device_ip && o->peer_ip && memcmp(ip, host, 4) == 0)
		return cli_usage_error(cmd, "the peer and the device need different addresses");
	if (o->usb_id && measure_usb_id(o->usb_id, &a->usb_vid, &a->usb_pid))
		return cli_usage_error(cmd, "--usb-id needs VID:PID in hex, e.g. 2e8a:000a (got '%s')",
				       o->usb_id);
	if ((o->seconds || o->udp_size || o->udp_port) && !o->udp)
		return cli_usage_error(cmd, "--seconds, --udp-size and --udp-port go with --udp");
	if ((o->size || o->interval_ms) && !a->plan.pings)
		return cli_usage_error(cmd, "--size and --interval-ms go with --ping");
	a->plan.interval_ms = a->interval_ms;
	return XB_EXIT_OK;
}

static double measure_clock_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Pumps the session until the probe is there and the board's network is ready, at most
 * wait_ms of wall time. 0, or -1 with rep. */
static int measure_wait(xb_session *s, double wait_ms, xb_report *rep)
{
	double until = measure_clock_ms() + wait_ms;
	for (;;) {
		if (session_pump(s) != 0) {
			*rep = *session_status(s);
			return -1;
		}
		int st = session_status(s)->status;
		int probe = st != XB_STATUS_PROBE_GONE && st != XB_STATUS_TARGET_NOT_RESPONDING;
		if (probe && session_phase(s) != XB_PHASE_BRINGUP)
			return 0;
		if (measure_clock_ms() > until)
			return report_fail(rep, probe ? XB_STATUS_NETWORK_DOWN : st, "%s after %.0f ms",
					   probe ? "the board's network is not ready"
					   : session_status(s)->msg, wait_ms);
		struct pollfd fds[8];
		int n = session_pollfds(s, fds, 8);
		poll(fds, (nfds_t)n, session_timeout_ms(s));
	}
}

static void measure_print_text(const measure_args *a, const xb_measure_result *r,
			       const xb_bench_state *st, const char *bench)
{
	printf("bench          %s\n", bench);
	printf("network        %s\n", st->net);
	if (a->plan.pings) {
		double window_s = a->plan.pings * a->interval_ms / 1e3;
		printf("ping           %u requests of %u data bytes every %.3f ms\n", a->plan.pings,
		       a->plan.ping_size, a->interval_ms);
		printf("ping received  %u (%u lost)\n", r->pings_replied,
		       r->pings_sent - r->pings_replied);
		if (isnan(r->turnaround_ms))
			printf("ping turnaround unknown (no usbmon records)\n");
		else
			printf("ping turnaround median %.6f ms\n", r->turnaround_ms);
		printf("ping rate      %.2f echoes/s\n", r->pings_replied / window_s);
		printf("ping misses    %.2f per echo (%llu in the traffic window, %llu in the idle "
		       "window)\n", r->misses_per_echo, (unsigned long long)r->misses_traffic,
		       (unsigned long long)r->misses_idle);
	}
	if (a->rate) {
		printf("udp            %u/s for %.3f s, %u bytes to port %u\n", a->rate, a->seconds,
		       a->plan.udp_size, a->port);
		printf("udp  received  %zu of %zu\n", r->udp_replied, r->udp_sent);
		printf("udp  rate      %.2f echoes/s\n", r->peak_udp_echo_per_s);
	}
}

static void json_number(const char *key, double v)
{
	if (isnan(v))
		printf(", \"%s\": null", key);
	else
		printf(", \"%s\": %.6f", key, v);
}

static void measure_print_json(const measure_args *a, const xb_measure_result *r,
			       const xb_bench_state *st, const char *bench)
{
	printf("{\"bench\": ");
	xb_json_string(stdout, bench);
	printf(", \"network\": ");
	xb_json_string(stdout, st->net);
	printf(", \"ping\": ");
	if (a->plan.pings) {
		double window_s = a->plan.pings * a->interval_ms / 1e3;
		printf("{\"count\": %u, \"size\": %u, \"interval_ms\": %.3f, \"received\": %u",
		       a->plan.pings, a->plan.ping_size, a->interval_ms, r->pings_replied);
		json_number("turnaround_ms", r->turnaround_ms);
		json_number("echo_rate", r->pings_replied / window_s);
		json_number("misses_per_echo", r->misses_per_echo);
		printf("}");
	} else {
		printf("null");
	}
	printf(", \"udp\": ");
	if (a->rate) {
		printf("{\"rate\": %u, \"seconds\": %.3f, \"size\": %u, \"sent\": %zu, \"received\": %zu",
		       a->rate, a->seconds, a->plan.udp_size, r->udp_sent, r->udp_replied);
		json_number("echo_rate", r->peak_udp_echo_per_s);
		printf("}");
	} else {
		printf("null");
	}
	printf("}\n");
}

int sim_measure(const char *cmd, const sim_options *o)
{
	measure_args a;
	int rc = measure_parse(cmd, o, &a);
	if (rc != XB_EXIT_OK)
		return rc;
	xb_target t;
	if (cli_load_target(cmd, o->target, &t))
		return XB_EXIT_FAIL;
	if (a.rate) {
		a.plan.rates = &a.rate;
		a.plan.nrates = 1;
		a.plan.step_s = a.seconds;
		a.plan.gap_s = 0;
		a.plan.passes = 1;
	}
	xb_session_options so;
	session_options_init(&so);
	so.tg = &t;
	so.elf = o->image;
	so.bench = XB_SESSION_PROBE;
	so.probe.socket = o->socket;
	so.probe.serial = o->probe;
	so.probe.capture = o->capture;
	so.probe.device_ip = o->device_ip;
	so.probe.host_ip = o->peer_ip;
	so.probe.usb_vid = a.usb_vid;
	so.probe.usb_pid = a.usb_pid;
	so.probe.udp_port = a.port;
	so.probe.netif = o->netif;
	so.flash = 0;  /* the board runs its image already */
	so.sample = 0; /* the measurement reads counters, it does not sample */
	so.counters_ns = 0;
	so.idle_seconds = 0;
	so.ping_rate = so.udp_rate = 0;
	so.bringup_s = a.wait_ms / 1e3;
	xb_report rep;
	xb_session *s = session_open(&so, &rep);
	if (!s)
		return cli_fail(cmd, "%s", rep.msg);
	if (o->capture && session_status(s)->status == XB_STATUS_CAPTURE_NOT_PERMITTED)
		rc = cli_fail(cmd, "%s", session_status(s)->msg);
	else if (measure_wait(s, a.wait_ms, &rep) != 0)
		rc = cli_fail(cmd, "%s", rep.msg);
	else if (session_measure(s, &a.plan, &rep) != 0 || session_wait_job(s, &rep) != 0)
		rc = cli_fail(cmd, "%s", rep.msg);
	if (rc == XB_EXIT_OK) {
		xb_measure_result r;
		session_measure_result(s, &r);
		xb_bench_state st;
		session_bench_state(s, &st);
		if (o->json)
			measure_print_json(&a, &r, &st, session_bench_name(s));
		else
			measure_print_text(&a, &r, &st, session_bench_name(s));
		if (a.plan.pings && r.pings_replied == 0)
			rc = cli_fail(cmd, "no ping was answered: %s", session_status(s)->msg);
	}
	session_close(s);
	if (fflush(stdout) != 0)
		rc = cli_fail(cmd, "cannot write the output");
	return rc;
}
