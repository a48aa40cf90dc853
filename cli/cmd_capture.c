/* cmd_capture: `xipbench capture`: Ethernet frames, echo turnaround and UDP echo rate from a
 * usbmon capture (a pcap file, a stream, or a live usbmonN interface). */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture_print.h"

enum capture_report { REPORT_FRAMES, REPORT_TURNAROUND, REPORT_RATE };

typedef struct capture_options {
	const char *pcap, *iface, *write_to;
	const char *device, *bus, *max_packet, *proto;
	const char *nonce_offset, *nonce_len, *udp_port;
	const char *rates, *step_ms, *gap_ms, *passes, *start;
	const char *duration, *count, *report;
	int json;
} capture_options;

/* ---- Option values ---- */

static int parse_uint(const char *cmd, const char *opt, const char *s, uint64_t max, uint64_t *v)
{
	if (xb_parse_u64(s, v) || *v > max)
		return cli_usage_error(cmd, "%s needs a whole number from 0 to %llu (got '%s')",
				       opt, (unsigned long long)max, s);
	return XB_EXIT_OK;
}

/* A duration (fractions allowed) in units of unit_ns into nanoseconds. */
static int parse_time(const char *cmd, const char *opt, const char *s, int zero_ok, double unit_ns,
		      uint64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < 0 || (!zero_ok && v == 0) ||
	    v * unit_ns > 1e18)
		return cli_usage_error(cmd, "%s needs %s%s (got '%s')", opt,
				       unit_ns == 1e6 ? "milliseconds" : "seconds",
				       zero_ok ? "" : " above 0", s);
	*ns = (uint64_t)llround(v * unit_ns);
	return XB_EXIT_OK;
}

static int parse_ms(const char *cmd, const char *opt, const char *s, int zero_ok, uint64_t *ns)
{
	return parse_time(cmd, opt, s, zero_ok, 1e6, ns);
}

/* "50:3000:50" (first:last:step) or "100,200,400". */
static int parse_rates(const char *cmd, const char *s, uint32_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	uint64_t a, b, step;
	char *copy = xstrdup(s);
	char *c1 = strchr(copy, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	int rc = XB_EXIT_OK;
	if (c1 && c2) {
		*c1 = *c2 = 0;
		if (xb_parse_u64(copy, &a) || xb_parse_u64(c1 + 1, &b) ||
		    xb_parse_u64(c2 + 1, &step) || !a || !step || b < a || b > UINT32_MAX ||
		    (b - a) / step >= 100000)
			rc = cli_usage_error(cmd,
					     "--rates FIRST:LAST:STEP needs rates from 1 with "
					     "FIRST <= LAST and STEP > 0 (got '%s')",
					     s);
		else
			for (uint64_t r = a; r <= b; r += step) {
				*out = xrealloc(*out, (*n + 1) * sizeof **out);
				(*out)[(*n)++] = (uint32_t)r;
			}
	} else {
		for (char *tok = strtok(copy, ","); tok && rc == XB_EXIT_OK;
		     tok = strtok(NULL, ",")) {
			if (xb_parse_u64(tok, &a) || !a || a > UINT32_MAX || *n >= 100000) {
				rc = cli_usage_error(cmd,
						     "--rates needs datagrams per second above 0, "
						     "as FIRST:LAST:STEP or a list R1,R2,... "
						     "(got '%s')",
						     s);
				break;
			}
			*out = xrealloc(*out, (*n + 1) * sizeof **out);
			(*out)[(*n)++] = (uint32_t)a;
		}
		if (rc == XB_EXIT_OK && !*n)
			rc = cli_usage_error(cmd, "--rates needs at least one rate");
	}
	free(copy);
	if (rc != XB_EXIT_OK) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

static int capture_parse(const char *cmd, int argc, char **argv, capture_options *o)
{
	enum {
		OPT_PCAP = 256,
		OPT_IFACE,
		OPT_WRITE,
		OPT_DEVICE,
		OPT_BUS,
		OPT_MAX_PACKET,
		OPT_PROTO,
		OPT_NONCE_OFFSET,
		OPT_NONCE_LEN,
		OPT_UDP_PORT,
		OPT_RATES,
		OPT_STEP,
		OPT_GAP,
		OPT_PASSES,
		OPT_START,
		OPT_DURATION,
		OPT_COUNT,
		OPT_REPORT,
		OPT_JSON
	};
	static const struct option longopts[] = {
		{"pcap", required_argument, NULL, OPT_PCAP},
		{"iface", required_argument, NULL, OPT_IFACE},
		{"write", required_argument, NULL, OPT_WRITE},
		{"device", required_argument, NULL, OPT_DEVICE},
		{"bus", required_argument, NULL, OPT_BUS},
		{"max-packet", required_argument, NULL, OPT_MAX_PACKET},
		{"proto", required_argument, NULL, OPT_PROTO},
		{"nonce-offset", required_argument, NULL, OPT_NONCE_OFFSET},
		{"nonce-len", required_argument, NULL, OPT_NONCE_LEN},
		{"udp-port", required_argument, NULL, OPT_UDP_PORT},
		{"rates", required_argument, NULL, OPT_RATES},
		{"step-ms", required_argument, NULL, OPT_STEP},
		{"gap-ms", required_argument, NULL, OPT_GAP},
		{"passes", required_argument, NULL, OPT_PASSES},
		{"start", required_argument, NULL, OPT_START},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"count", required_argument, NULL, OPT_COUNT},
		{"report", required_argument, NULL, OPT_REPORT},
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_PCAP: o->pcap = optarg; break;
		case OPT_IFACE: o->iface = optarg; break;
		case OPT_WRITE: o->write_to = optarg; break;
		case OPT_DEVICE: o->device = optarg; break;
		case OPT_BUS: o->bus = optarg; break;
		case OPT_MAX_PACKET: o->max_packet = optarg; break;
		case OPT_PROTO: o->proto = optarg; break;
		case OPT_NONCE_OFFSET: o->nonce_offset = optarg; break;
		case OPT_NONCE_LEN: o->nonce_len = optarg; break;
		case OPT_UDP_PORT: o->udp_port = optarg; break;
		case OPT_RATES: o->rates = optarg; break;
		case OPT_STEP: o->step_ms = optarg; break;
		case OPT_GAP: o->gap_ms = optarg; break;
		case OPT_PASSES: o->passes = optarg; break;
		case OPT_START: o->start = optarg; break;
		case OPT_DURATION: o->duration = optarg; break;
		case OPT_COUNT: o->count = optarg; break;
		case OPT_REPORT: o->report = optarg; break;
		case OPT_JSON: o->json = 1; break;
		case 'h': cli_print_usage(cmd, stdout); return -1;
		case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	return XB_EXIT_OK;
}

/* ---- Reading ---- */

static volatile sig_atomic_t capture_stop;

static void capture_on_signal(int sig)
{
	(void)sig;
	capture_stop = 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads a stream or live source until it ends, --duration, --count records or Ctrl-C
 * (then what was read is reported, as at the end of the input). */
static int capture_read_until(xb_frames *fs, xb_capture_source *src, double duration,
			      uint64_t count, xb_err *err)
{
	struct sigaction sa, old_int, old_term;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = capture_on_signal; /* no SA_RESTART: a blocked read returns */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	capture_stop = 0;
	double until = duration > 0 ? now_s() + duration : 0;
	xb_frames_stats st;
	int rc = XB_CAPTURE_AGAIN;
	for (;;) {
		frames_stats(fs, &st);
		if (capture_stop || (until && now_s() >= until) || (count && st.records >= count))
			break;
		rc = frames_read(fs, src, count ? count - st.records : 1, err);
		if (rc == XB_CAPTURE_ERROR || rc == XB_CAPTURE_END)
			break;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc == XB_CAPTURE_ERROR && !capture_stop ? -1 : 0;
}

static int capture_options_to(const char *cmd, const capture_options *o, xb_frames_options *fo,
			      xb_echo_options *eo)
{
	uint64_t v;
	frames_options_init(fo);
	echo_options_init(eo);
	int rc = XB_EXIT_OK;
	if (rc == XB_EXIT_OK && o->device &&
	    !(rc = parse_uint(cmd, "--device", o->device, 127, &v)))
		fo->device = (int)v;
	if (rc == XB_EXIT_OK && o->bus && !(rc = parse_uint(cmd, "--bus", o->bus, 65535, &v)))
		fo->bus = (int)v;
	if (rc == XB_EXIT_OK && o->max_packet &&
	    !(rc = parse_uint(cmd, "--max-packet", o->max_packet, 1024, &v))) {
		if (v == 0)
			return cli_usage_error(cmd, "--max-packet needs 1 to 1024 bytes");
		fo->max_packet = (uint32_t)v;
	}
	if (rc == XB_EXIT_OK && o->proto) {
		int pr = frames_proto_parse(o->proto);
		if (pr < 0)
			return cli_usage_error(cmd, "--proto: '%s' is not auto, ecm, ncm or rndis",
					       o->proto);
		fo->proto = pr;
	}
	if (rc == XB_EXIT_OK && o->nonce_offset &&
	    !(rc = parse_uint(cmd, "--nonce-offset", o->nonce_offset, 65535, &v)))
		eo->nonce_offset = (uint32_t)v;
	if (rc == XB_EXIT_OK && o->nonce_len &&
	    !(rc = parse_uint(cmd, "--nonce-len", o->nonce_len, XB_ECHO_MAX_NONCE, &v))) {
		if (v == 0)
			return cli_usage_error(cmd, "--nonce-len needs 1 to %u bytes",
					       XB_ECHO_MAX_NONCE);
		eo->nonce_len = (uint32_t)v;
	}
	if (rc == XB_EXIT_OK && o->udp_port &&
	    !(rc = parse_uint(cmd, "--udp-port", o->udp_port, 65535, &v)))
		eo->udp_port = (int)v;
	return rc;
}

/* ---- The subcommands ---- */

static int capture_rate_plan(const char *cmd, const capture_options *o, xb_rate_plan *p,
			     uint32_t **rates)
{
	memset(p, 0, sizeof *p);
	if (!o->rates || !o->step_ms)
		return cli_usage_error(cmd, "rate needs --rates and --step-ms");
	int rc = parse_rates(cmd, o->rates, rates, &p->nrates);
	if (rc == XB_EXIT_OK)
		p->rates = *rates;
	if (rc == XB_EXIT_OK)
		rc = parse_ms(cmd, "--step-ms", o->step_ms, 0, &p->step_ns);
	if (rc == XB_EXIT_OK && o->gap_ms)
		rc = parse_ms(cmd, "--gap-ms", o->gap_ms, 1, &p->gap_ns);
	uint64_t v = 1;
	if (rc == XB_EXIT_OK && o->passes &&
	    !(rc = parse_uint(cmd, "--passes", o->passes, 1000, &v)) && v == 0)
		rc = cli_usage_error(cmd, "--passes needs at least 1");
	p->passes = (unsigned)v;
	if (rc == XB_EXIT_OK && o->start)
		rc = parse_ms(cmd, "--start", o->start, 1, &p->start_ns); /* made absolute later */
	return rc;
}

static xb_capture_source *capture_open(const char *cmd, const capture_options *o, int live)
{
	xb_err err;
	xb_capture_source *s;
	if (live) {
		xb_capture_live_options lo = {.write_to = o->write_to};
		s = capture_open_live(o->iface, &lo, &err);
	} else if (strcmp(o->pcap, "-") == 0) {
		s = capture_open_stream(0, "-", &err);
	} else {
		s = capture_open_file(o->pcap, &err);
	}
	if (!s)
		cli_fail(cmd, "%s", err.msg);
	return s;
}

static int capture_run(const char *cmd, const char *sub, const capture_options *o)
{
	int live = strcmp(sub, "live") == 0;
	enum capture_report report = REPORT_FRAMES;
	if (strcmp(sub, "turnaround") == 0)
		report = REPORT_TURNAROUND;
	else if (strcmp(sub, "rate") == 0)
		report = REPORT_RATE;
	else if (live && o->report && strcmp(o->report, "turnaround") == 0)
		report = REPORT_TURNAROUND;
	else if (live && o->report && strcmp(o->report, "frames") != 0)
		return cli_usage_error(cmd, "--report must be frames or turnaround (got '%s')",
				       o->report);
	if (live ? !o->iface || o->pcap : !o->pcap || o->iface)
		return cli_usage_error(cmd,
				       live ? "live needs --iface usbmonN (and no --pcap)"
					    : "%s needs --pcap FILE (or - for standard input)",
				       sub);
	if (!live && (o->write_to || o->duration || o->count || o->report))
		return cli_usage_error(cmd,
				       "--write, --duration, --count and --report go with live");
	if (report != REPORT_RATE && (o->rates || o->step_ms || o->gap_ms || o->passes || o->start))
		return cli_usage_error(cmd, "--rates, --step-ms, --gap-ms, --passes and --start go "
					    "with rate");
	xb_frames_options fo;
	xb_echo_options eo;
	int rc = capture_options_to(cmd, o, &fo, &eo);
	xb_rate_plan plan;
	uint32_t *rates = NULL;
	if (rc == XB_EXIT_OK && report == REPORT_RATE)
		rc = capture_rate_plan(cmd, o, &plan, &rates);
	uint64_t count = 0;
	double duration = 0;
	if (rc == XB_EXIT_OK && o->count)
		rc = parse_uint(cmd, "--count", o->count, UINT64_MAX, &count);
	if (rc == XB_EXIT_OK && o->duration) {
		uint64_t ns;
		rc = parse_time(cmd, "--duration", o->duration, 0, 1e9, &ns);
		duration = (double)ns / 1e9;
	}
	if (rc != XB_EXIT_OK) {
		free(rates);
		return rc;
	}
	xb_capture_source *src = capture_open(cmd, o, live);
	if (!src) {
		free(rates);
		return XB_EXIT_FAIL;
	}
	xb_frames *fs = frames_new(&fo);
	xb_err err = {{0}};
	int failed = strcmp(src->ops->kind, "file") != 0
			     ? capture_read_until(fs, src, duration, count, &err) != 0
			     : frames_read(fs, src, 0, &err) == XB_CAPTURE_ERROR;
	capture_result c = {
		.src = src, .fs = fs, .eopt = &eo, .plan = &plan, .error = failed ? err.msg : NULL};
	xb_echoes *ec = report == REPORT_FRAMES ? NULL : echo_new(&eo, NULL);
	if (ec)
		echo_update(ec, fs);
	c.echoes = ec;
	xb_rate_result rr = {0};
	int bad_plan = 0;
	if (report == REPORT_RATE && o->start) {
		xb_frames_stats st;
		frames_stats(fs, &st);
		plan.start_ns += st.first_ns;
	}
	xb_err plan_err;
	if (report == REPORT_RATE && echo_rate_sweep(ec, fs, &plan, &rr, &plan_err)) {
		bad_plan = 1;
		cli_fail(cmd, "%s", plan_err.msg);
	}
	c.rate = &rr;
	if (!bad_plan) {
		if (report == REPORT_FRAMES)
			capture_print_frames(&c, o->json, stdout);
		else if (report == REPORT_TURNAROUND)
			capture_print_turnaround(&c, o->json, stdout);
		else
			capture_print_rate(&c, o->json, stdout);
	}
	rc = XB_EXIT_OK;
	if (failed)
		rc = cli_fail(cmd, "%s", err.msg);
	if (bad_plan)
		rc = XB_EXIT_FAIL;
	echo_rate_free(&rr);
	echo_free(ec);
	frames_free(fs);
	capture_close(src);
	free(rates);
	if (fflush(stdout) != 0)
		rc = cli_fail(cmd, "cannot write the output");
	return rc;
}

static int run_capture(int argc, char **argv)
{
	const char *cmd = argv[0];
	static const char *const subs[] = {"frames", "turnaround", "rate", "live"};
	if (argc < 2)
		return cli_usage_error(cmd,
				       "expected a subcommand: frames, turnaround, rate or live");
	const char *sub = NULL;
	for (size_t i = 0; i < sizeof subs / sizeof *subs; i++)
		if (strcmp(argv[1], subs[i]) == 0)
			sub = subs[i];
	if (!sub)
		return cli_usage_error(
			cmd, "unknown subcommand '%s' (frames, turnaround, rate, live)", argv[1]);
	capture_options o = {0};
	int rc = capture_parse(cmd, argc - 1, argv + 1, &o);
	if (rc < 0)
		return XB_EXIT_OK; /* --help */
	if (rc != XB_EXIT_OK)
		return rc;
	return capture_run(cmd, sub, &o);
}

const xb_command cmd_capture = {
	.name = "capture",
	.summary = "Ethernet frames, echo turnaround and UDP echo rate from a usbmon capture",
	.usage =
		"usage: xipbench capture (frames | turnaround | rate) --pcap FILE|- [options]\n"
		"       xipbench capture live --iface usbmonN [--report frames|turnaround] "
		"[options]\n"
		"\n"
		"Reads Linux usbmon records (link type 220 or 189: a pcap or pcapng file, a "
		"stream\n"
		"on standard input such as `xipbench sim serve --pcap -`, or a live usbmonN\n"
		"interface), reassembles the CDC-ECM Ethernet frames of the bulk transfers and\n"
		"reports:\n"
		"  frames       every frame: time (end of its transfer), direction, length, "
		"summary\n"
		"  turnaround   ICMP echoes matched by identifier and sequence number, UDP echoes\n"
		"               by a payload nonce; per echo and the median, from the end of the\n"
		"               OUT transfer of the request to the end of the IN transfer of the\n"
		"               reply\n"
		"  rate         UDP replies per second over fixed rate steps and passes; the peak\n"
		"  live         capture on usbmonN until --duration, --count or Ctrl-C, then "
		"report\n"
		"               (needs the usbmon module and read access to /dev/usbmonN: root)\n"
		"\n"
		"options:\n"
		"  --pcap FILE|-       the capture (- reads a pcap stream from standard input)\n"
		"  --iface usbmonN     live: the interface (usbmon0: every bus)\n"
		"  --device ADDR       only this device address (default: every CDC-ECM device)\n"
		"  --bus N             only this bus\n"
		"  --max-packet N      wMaxPacketSize of the bulk endpoints (default: from the\n"
		"                      descriptors in the capture, else 64)\n"
		"  --proto P           how the device frames Ethernet: auto (default: from the\n"
		"                      descriptors, else the transfers), ecm, ncm or rndis\n"
		"  --nonce-offset N    UDP: where the nonce starts in the payload (default 0)\n"
		"  --nonce-len N       UDP: nonce bytes, 1 to 16 (default 8)\n"
		"  --udp-port N        UDP: requests go to this port (default: any)\n"
		"  --rates LIST        rate: offered rates, FIRST:LAST:STEP or R1,R2,...\n"
		"  --step-ms MS        rate: length of each step\n"
		"  --gap-ms MS         rate: pause after each step (default 0)\n"
		"  --passes N          rate: passes over the steps (default 1)\n"
		"  --start MS          rate: the first pass starts MS after the first record\n"
		"                      (default: at the first UDP request)\n"
		"  --duration S        live: stop after S seconds\n"
		"  --count N           live: stop after N records\n"
		"  --report R          live: frames (default) or turnaround\n"
		"  --write FILE        live: also write the records to the pcap FILE\n"
		"  --json              print one JSON object (keys in docs/cli.md)\n"
		"  -h, --help          print this text\n"
		"\n"
		"Exit status: 0 done; 1 the capture could not be opened or is damaged (what was\n"
		"read before the damage is reported, the message names the file and record); 2\n"
		"usage error. Details: docs/capture.md and docs/cli.md.\n",
	.run = run_capture,
};
