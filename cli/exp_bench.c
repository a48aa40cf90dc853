/* exp_bench: one firmware image on the virtual bench, the way the study's bench measured a
 * Pico, as a client of a live session in virtual time (session/session.h): flashed and
 * reset through the virtual CMSIS-DAP probe, enumerated by the virtual USB host, measured
 * and profiled by the session's jobs (XIP counters over SWD at the window edges, usbmon
 * records for turnaround and UDP echo rates, PC samples through the probe). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/profile.h"
#include "../session/session.h"
#include "experiment.h"

#define EXP_SAMPLE_IN_FLIGHT 8u /* enough samples for a profile, at a modest host cost */

/* A session in virtual time on a new virtual Pico with the image flashed, its own
 * traffic, idle window and periodic reads off: the jobs do what the study does. */
static xb_session *open_board(const xb_target *tg, const char *elf, const exp_board *b, FILE *pcap,
			      const char *trace, const xb_probe_bench_options *probe, xb_err *err)
{
	xb_session_options so;
	session_options_init(&so);
	so.tg = tg;
	so.elf = elf;
	if (probe) {
		so.bench = XB_SESSION_PROBE;
		so.probe = *probe;
		so.flash = 0; /* the board runs its image already */
		if (b)
			so.map = b->map;
	} else if (b) {
		so.map = b->map;
		so.virt.peer_ip = b->peer_ip;
		so.virt.device_ip = b->device_ip;
		so.virt.netmask = b->netmask;
		so.virt.dhcp = b->dhcp;
		so.udp_port = b->udp_port;
	}
	so.virt.virtual_time = 1;
	so.virt.pcap = pcap;
	so.virt.trace_path = trace;
	so.sample = 0;
	so.sample_in_flight = EXP_SAMPLE_IN_FLIGHT;
	so.counters_ns = 0;
	so.idle_seconds = 0;
	so.ping_rate = so.udp_rate = 0;
	xb_report rep;
	xb_session *s = session_open(&so, &rep);
	if (!s) {
		xb_fail(err, "%s", rep.msg);
		return NULL;
	}
	if (session_wait_ready(s, &rep) != 0) {
		xb_fail(err, "%s: %s", elf, rep.msg);
		session_close(s);
		return NULL;
	}
	return s;
}

static int run_job(xb_session *s, const char *elf, xb_err *err)
{
	xb_report rep;
	if (session_wait_job(s, &rep) != 0)
		return xb_fail(err, "%s: %s", elf, rep.msg);
	return 0;
}

int exp_measure(const xb_target *tg, const char *elf, const xb_measure_plan *m, const char *pcap,
		xb_measure_result *out, xb_err *err)
{
	return exp_measure_on(tg, elf, NULL, m, pcap, out, err);
}

void exp_no_measurement(xb_measure_result *out)
{
	memset(out, 0, sizeof *out);
	out->misses_per_echo = out->turnaround_ms = out->peak_udp_echo_per_s = NAN;
	out->footprint_lines = out->flash_s = NAN;
}

int exp_measure_on(const xb_target *tg, const char *elf, const exp_board *b,
		   const xb_measure_plan *m, const char *pcap, xb_measure_result *out, xb_err *err)
{
	exp_no_measurement(out);
	FILE *pf = NULL;
	if (pcap && !(pf = fopen(pcap, "wb")))
		return xb_fail(err, "%s: cannot create the capture: %s", pcap, strerror(errno));
	xb_session *s = open_board(tg, elf, b, pf, NULL, NULL, err);
	int rc = -1;
	if (s) {
		xb_measure_plan mp = *m;
		if (!mp.nrates || !mp.passes)
			mp.rates = NULL;
		xb_report rep;
		if (session_measure(s, &mp, &rep) != 0)
			xb_fail(err, "%s: %s", elf, rep.msg);
		else if (run_job(s, elf, err) == 0)
			rc = 0;
		session_measure_result(s, out);
		session_close(s);
	}
	if (pf && fclose(pf) != 0 && rc == 0)
		rc = xb_fail(err, "%s: cannot write the capture", pcap);
	return rc;
}

int exp_profile(const xb_target *tg, const char *elf, exp_profile_req *req, xb_err *err)
{
	xb_session *s = open_board(tg, elf, req->board, NULL, req->trace_path, req->probe, err);
	if (!s)
		return -1;
	if (req->ready && req->ready(s, req->ready_ctx, err) != 0) {
		session_close(s);
		return -1;
	}
	xb_samples smp;
	samples_init(&smp);
	xb_profile_plan pp = {.pings = req->pings, .interval_ms = req->interval_ms,
			      .ping_size = req->ping_size ? req->ping_size : 56,
			      .udp_rate = req->udp_rate, .udp_seconds = req->udp_seconds,
			      .udp_size = 64, .in_flight = EXP_SAMPLE_IN_FLIGHT, .samples = &smp};
	xb_report rep;
	int rc = -1;
	if (session_profile_run(s, &pp, &rep) != 0)
		xb_fail(err, "%s: %s", elf, rep.msg);
	else if (run_job(s, elf, err) == 0)
		rc = 0;
	session_close(s); /* completes the trace file */
	if (rc == 0) {
		req->samples = smp.n;
		if (req->samples_out) {
			samples_free(req->samples_out);
			*req->samples_out = smp;
			return 0;
		}
		rc = samples_write_binary(&smp, req->samples_path, err);
	}
	samples_free(&smp);
	return rc;
}
