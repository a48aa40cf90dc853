/* exp_bench: one firmware image on the virtual bench, the way the study's bench measured a
 * Pico: flashed and reset through the (virtual) CMSIS-DAP probe, enumerated by the (virtual)
 * USB host, pinged and flooded by the network peer, its usbmon records read back by the
 * capture code that reads a real host's, the XIP counters at the window edges. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/echo.h"
#include "../capture/frames.h"
#include "../capture/source.h"
#include "../core/profile.h"
#include "../core/trace.h"
#include "../probe/cortexm.h"
#include "../probe/probe.h"
#include "../probe/rp2040.h"
#include "../probe/sampler.h"
#include "../sim/dap.h"
#include "../sim/swd.h"
#include "../sim/vbench.h"
#include "experiment.h"

#define EXP_LINK_TIMEOUT_S 5.0
#define EXP_SWCLK_HZ 24000000u   /* DESIGN.md's probe timing: 24 MHz SWCLK */
#define EXP_RESET_TIMEOUT_NS 500000000u
#define EXP_SAMPLE_IN_FLIGHT 2u  /* enough samples for a profile, at a modest host cost */

/* A board on the bench: the pico, the probe on its debug port, the host and peer on its
 * USB port, the usbmon records queued for the capture code, optionally the fetch trace. */
typedef struct exp_board {
	xb_pico *p;
	xb_swd *swd;
	xb_dap *dap;
	xb_probe probe;
	int probe_open;
	xb_vbench *vb;
	xb_capture_source *feed;
	FILE *pcap;
	FILE *trace_f;
	xb_trace_stream ts;
	int tracing;
	double flash_s;
	size_t flashed;
	int image_running; /* reports of the blank board before the image are dropped */
} exp_board;

/* The board's reports (unmapped accesses, faults) once the image runs; before it is
 * flashed the blank board's boot faults are expected and dropped. */
static void board_log(void *ctx, const char *msg)
{
	const exp_board *eb = ctx;
	if (eb->image_running)
		fprintf(stderr, "sim: %s\n", msg);
}

/* Puts the step that failed in front of err's message: "STEP: message". Returns -1. */
static int fail_in(xb_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail_in(xb_err *err, const char *fmt, ...)
{
	char *was = xstrdup(err->msg), *step;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&step, fmt, ap) < 0)
		step = NULL;
	va_end(ap);
	xb_fail(err, "%s: %s", step ? step : "", was);
	free(step);
	free(was);
	return -1;
}

static void board_close(exp_board *eb)
{
	if (eb->probe_open)
		probe_close(&eb->probe);
	vbench_free(eb->vb);
	if (eb->dap)
		dap_free(eb->dap);
	if (eb->swd)
		swd_free(eb->swd);
	if (eb->p)
		pico_free(eb->p);
	if (eb->feed)
		capture_close(eb->feed);
	if (eb->pcap)
		fclose(eb->pcap);
	if (eb->tracing) {
		trace_stream_close(&eb->ts);
		fclose(eb->trace_f);
	}
	memset(eb, 0, sizeof *eb);
}

/* Opens a new virtual Pico with everything plugged in, flashes elf through the probe,
 * resets it through the probe and waits for the network. */
static int board_open(exp_board *eb, const xb_target *tg, const char *elf, const char *pcap,
		      const char *trace, xb_err *err)
{
	memset(eb, 0, sizeof *eb);
	xb_pico_options po;
	pico_options_init(&po);
	po.log_fn = board_log;
	po.log_ctx = eb;
	if (trace) {
		if (!(eb->trace_f = fopen(trace, "wb")))
			return xb_fail(err, "%s: cannot create the trace: %s", trace, strerror(errno));
		trace_stream_open(&eb->ts, eb->trace_f);
		eb->tracing = 1;
		po.trace = &eb->ts;
	}
	if (!(eb->p = pico_new(tg, &po, err)))
		goto fail;
	if (pcap && !(eb->pcap = fopen(pcap, "wb"))) {
		xb_fail(err, "%s: cannot create the capture: %s", pcap, strerror(errno));
		goto fail;
	}
	eb->feed = capture_open_feed("the virtual host's usbmon");
	xb_vbench_options vo;
	vbench_options_init(&vo);
	vo.pcap = eb->pcap;
	vo.record = capture_feed_record;
	vo.record_ctx = eb->feed;
	eb->vb = vbench_new(eb->p, &vo);

	xb_board *b = pico_board(eb->p);
	eb->swd = swd_new(b);
	eb->dap = dap_new(eb->swd, NULL);
	xb_probe_options o = {.swclk_hz = EXP_SWCLK_HZ};
	if (probe_attach(&eb->probe, transport_virtual_new(eb->dap, board_cpu_hz(b)), &o, err))
		goto fail;
	eb->probe_open = 1;
	char *data = NULL;
	size_t len = 0;
	if (xb_read_file(elf, &data, &len, err))
		goto fail;
	xb_flash_report rep;
	int rc = rp2040_flash_elf(eb->probe.adi, (const uint8_t *)data, len, elf, 0, &rep, err);
	free(data);
	if (rc) {
		fail_in(err, "flashing %s through the virtual probe", elf);
		goto fail;
	}
	eb->flash_s = rep.seconds;
	eb->image_running = 1;
	eb->flashed = rep.image_bytes;
	if (cortexm_reset(eb->probe.adi, 0, EXP_RESET_TIMEOUT_NS, err)) {
		fail_in(err, "%s: flashed, but the reset through the probe failed", elf);
		goto fail;
	}
	if (vbench_bring_up(eb->vb, (uint64_t)(EXP_LINK_TIMEOUT_S * board_cpu_hz(b)), err)) {
		fail_in(err, "%s: the network was not ready within %.0f s", elf, EXP_LINK_TIMEOUT_S);
		goto fail;
	}
	return 0;
fail:
	board_close(eb);
	return -1;
}

static uint64_t cycles_of(const exp_board *eb, double seconds)
{
	return (uint64_t)llround(seconds * board_cpu_hz(pico_board(eb->p)));
}

static void ping_phase(const exp_board *eb, xb_vbench_phase *ph, unsigned count, double ms,
		       unsigned size)
{
	memset(ph, 0, sizeof *ph);
	ph->kind = XB_NETPEER_ICMP;
	ph->count = count;
	ph->size = size;
	ph->interval = cycles_of(eb, ms / 1000.0);
	vbench_phase_window(ph, board_cpu_hz(pico_board(eb->p)));
}

/* ---- Capture ---- */

typedef struct exp_capture {
	xb_frames *fs;
	xb_echoes *e;
} exp_capture;

static int capture_load(exp_board *eb, exp_capture *c, xb_err *err)
{
	c->fs = frames_new(NULL);
	c->e = NULL;
	capture_feed_end(eb->feed);
	if (frames_read(c->fs, eb->feed, 0, err) == XB_CAPTURE_ERROR)
		return -1;
	if (!(c->e = echo_new(NULL, err)))
		return -1;
	echo_update(c->e, c->fs);
	return 0;
}

static void capture_free(exp_capture *c)
{
	echo_free(c->e);
	frames_free(c->fs);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The median turnaround (ms) of the pings with identifier VBENCH_PING_ID and sequence
 * numbers below count, from the capture's records; NaN when none has one. */
static double capture_ping_turnaround(const exp_capture *c, unsigned count, unsigned *replied)
{
	size_t n = echo_count(c->e), k = 0;
	int64_t *t = xcalloc(n ? n : 1, sizeof *t);
	*replied = 0;
	for (size_t i = 0; i < n; i++) {
		const xb_echo *x = echo_get(c->e, i);
		if (x->kind != XB_ECHO_ICMP || x->id != VBENCH_PING_ID || x->seq >= count)
			continue;
		int64_t ns;
		if (echo_state(c->e, c->fs, i) == XB_ECHO_REPLIED)
			(*replied)++;
		if (echo_turnaround(c->e, c->fs, i, &ns) == 0)
			t[k++] = ns;
	}
	double med = NAN;
	if (k) {
		qsort(t, k, sizeof *t, cmp_i64);
		med = k % 2 ? (double)t[k / 2] : ((double)t[k / 2 - 1] + (double)t[k / 2]) / 2;
		med /= 1e6;
	}
	free(t);
	return med;
}

/* ---- Measuring ---- */

/* The UDP steps: every pass runs every rate for step_s with gap_s after it; passes are
 * separated by the settle time. The peak comes from the capture (echo_rate_sweep). */
static int udp_sweep(exp_board *eb, const exp_method *m, uint64_t *first_ns, xb_err *err)
{
	xb_board *b = pico_board(eb->p);
	uint32_t hz = board_cpu_hz(b);
	*first_ns = 0;
	for (unsigned pass = 0; pass < m->passes; pass++) {
		uint64_t ms = hz / 1000;
		uint64_t t = vbench_settled(eb->vb);
		uint64_t step = cycles_of(eb, m->step_s), gap = cycles_of(eb, m->gap_s);
		for (size_t i = 0; i < m->nrates; i++) {
			unsigned count = (unsigned)llround(m->rates[i] * m->step_s);
			if (count < 1)
				count = 1;
			xb_netpeer_stream st = {.start = t + i * (step + gap), .rate = m->rates[i],
						.count = count, .size = m->udp_size,
						.sport = VBENCH_UDP_SPORT, .dport = 7};
			if (netpeer_udp_stream(vbench_peer(eb->vb), &st, err) < 0)
				return -1;
		}
		if (pass == 0)
			*first_ns = (uint64_t)((unsigned __int128)t * 1000000000u / hz);
		uint64_t end = t + m->nrates * (step + gap);
		if (vbench_run_to(eb->vb, end))
			return xb_fail(err, "the core stopped during the UDP steps");
		uint64_t drain = end + VBENCH_DRAIN_MS * ms;
		while (netpeer_outstanding(vbench_peer(eb->vb)) && board_cycles(b) < drain)
			if (vbench_run_to(eb->vb, board_cycles(b) + ms))
				return xb_fail(err, "the core stopped during the UDP steps");
	}
	return 0;
}

int exp_measure(const xb_target *tg, const char *elf, const exp_method *m, const char *pcap,
		exp_metrics *out, xb_err *err)
{
	memset(out, 0, sizeof *out);
	out->misses_per_echo = out->turnaround_ms = out->peak_udp_echo_per_s = NAN;
	out->footprint_lines = NAN;
	exp_board eb;
	if (board_open(&eb, tg, elf, pcap, NULL, err))
		return -1;
	out->flash_s = eb.flash_s;
	out->flashed_bytes = eb.flashed;
	int rc = -1;
	exp_capture cap = {0};
	xb_vbench_phase ph;
	ping_phase(&eb, &ph, m->pings, m->interval_ms, m->ping_size);
	if (vbench_phase_run(eb.vb, &ph, err))
		goto done;
	out->misses_per_echo = vbench_misses_per_echo(&ph);
	out->xip_misses_traffic = vbench_traffic_misses(&ph);
	out->xip_misses_idle = vbench_idle_misses(&ph);
	out->pings_sent = (unsigned)ph.sum.sent;

	xb_vbench_footprint fp;
	if (vbench_footprint(eb.vb, m->ping_size, cycles_of(&eb, m->footprint_ms / 1000.0), &fp,
			     err))
		goto done;
	if (!fp.replied) {
		xb_fail(err, "%s: the footprint's ping was not answered within %.1f ms", elf,
			m->footprint_ms);
		goto done;
	}
	out->footprint_lines = fp.lines;

	uint64_t first_ns = 0;
	if (m->nrates && m->passes && udp_sweep(&eb, m, &first_ns, err))
		goto done;
	if (capture_load(&eb, &cap, err))
		goto done;
	out->turnaround_ms = capture_ping_turnaround(&cap, m->pings, &out->pings_replied);
	if (m->nrates && m->passes) {
		xb_rate_plan plan = {.rates = m->rates, .nrates = m->nrates,
				     .step_ns = (uint64_t)llround(m->step_s * 1e9),
				     .gap_ns = (uint64_t)llround(m->gap_s * 1e9),
				     .passes = m->passes, .start_ns = first_ns};
		xb_rate_result rr;
		if (echo_rate_sweep(cap.e, cap.fs, &plan, &rr, err))
			goto done;
		out->peak_udp_echo_per_s = rr.peak;
		for (size_t i = 0; i < rr.n; i++) {
			out->udp_sent += rr.steps[i].sent;
			out->udp_replied += rr.steps[i].replied;
		}
		echo_rate_free(&rr);
	}
	rc = 0;
done:
	if (cap.fs)
		capture_free(&cap);
	board_close(&eb);
	return rc;
}

int exp_profile(const xb_target *tg, const char *elf, exp_profile_req *req, xb_err *err)
{
	exp_board eb;
	if (board_open(&eb, tg, elf, NULL, req->trace_path, err))
		return -1;
	int rc = -1;
	xb_samples s;
	samples_init(&s);
	xb_vbench_phase phases[2];
	size_t nph = 0;
	ping_phase(&eb, &phases[nph++], req->pings, req->interval_ms, 56);
	if (req->udp_rate) {
		xb_vbench_phase *u = &phases[nph++];
		memset(u, 0, sizeof *u);
		u->kind = XB_NETPEER_UDP;
		u->rate = req->udp_rate;
		u->count = (unsigned)llround(req->udp_rate * req->udp_seconds);
		u->size = 64;
		u->port = 7;
		vbench_phase_window(u, board_cpu_hz(pico_board(eb.p)));
	}
	for (size_t i = 0; i < nph; i++) {
		xb_vbench_phase *ph = &phases[i];
		if (vbench_phase_start(eb.vb, ph, err) || vbench_run_to(eb.vb, ph->start))
			goto done;
		xb_sampler_config cfg = {
			.busy_seconds = (double)ph->window / board_cpu_hz(pico_board(eb.p)),
			.in_flight = EXP_SAMPLE_IN_FLIGHT};
		xb_sampler_stats st;
		if (sampler_run(eb.probe.adi, &cfg, &s, &st, err)) {
			fail_in(err, "%s: sampling through the virtual probe", elf);
			goto done;
		}
		if (vbench_phase_finish(eb.vb, ph, err))
			goto done;
		if (ph->sum.received < ph->count) {
			xb_fail(err, "%s: %zu of %u echoes answered during the profile run", elf,
				ph->sum.received, ph->count);
			goto done;
		}
	}
	req->samples = s.n;
	if (samples_write_binary(&s, req->samples_path, err))
		goto done;
	rc = 0;
done:
	samples_free(&s);
	int tracing = eb.tracing;
	FILE *tf = eb.trace_f;
	eb.tracing = 0;
	if (tracing) {
		int bad = trace_stream_close(&eb.ts) != 0;
		bad |= fclose(tf) != 0;
		if (bad && rc == 0)
			rc = xb_fail(err, "%s: cannot write the trace", req->trace_path);
	}
	board_close(&eb);
	return rc;
}
