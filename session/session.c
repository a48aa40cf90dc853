/* session: opening a live session, its loop (descriptors, deadlines, pump), the probe's
 * life (connect, flash, reset, lose, reconnect), the phases and the status. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#include "../probe/cortexm.h"
#include "../probe/rp2040.h"
#include "session_int.h"

#define SS_SWCLK_HZ 24000000u    /* DESIGN.md's probe timing: 24 MHz SWCLK */

void session_options_init(xb_session_options *o)
{
	memset(o, 0, sizeof *o);
	o->bench = XB_SESSION_VIRTUAL;
	o->attach = 1;
	o->flash = -1;
	o->sample = 1;
	o->counters_ns = 100 * SS_MS;
	o->idle_seconds = 2;
	o->ping_rate = 50;
	o->ping_size = 56;
	o->udp_rate = 200;
	o->udp_size = 64;
	o->bringup_s = 5;
	o->sample_ring = 262144;
}

/* ---- Log and status ---- */

void session_note(xb_session *s, int level, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	logring_add(&s->log, s->now, XB_LOG_XIPBENCH, level, buf);
}

void session_problem(xb_session *s, xb_status st, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	/* the log gets each problem once, not once per pump */
	if (s->status.status != st || strcmp(s->status.msg, buf) != 0)
		logring_add(&s->log, s->now, XB_LOG_XIPBENCH, XB_LOG_ERROR, buf);
	s->status.status = st;
	snprintf(s->status.msg, sizeof s->status.msg, "%s", buf);
}

void session_clear_problem(xb_session *s, xb_status only)
{
	if (s->status.status == XB_STATUS_OK || (only && s->status.status != only))
		return;
	session_note(s, XB_LOG_INFO, "%s: resolved", status_info(s->status.status)->summary);
	report_clear(&s->status);
}

void session_progress(const xb_session *s, const char *fmt, ...)
{
	if (!s->o.progress)
		return;
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	s->o.progress(s->o.progress_ctx, buf);
}

/* ---- The probe ---- */

/* Frees the sampler and the pipe (what is in flight is forgotten). */
static void streams_free(xb_session *s)
{
	if (s->sampler) {
		sampler_stream_free(s->sampler);
		s->sampler = NULL;
	}
	if (s->pipe) {
		dap_pipe_free(s->pipe);
		s->pipe = NULL;
	}
	s->ct.in_flight = 0;
}

static void probe_drop(xb_session *s)
{
	streams_free(s);
	if (s->probe_open) {
		probe_close(&s->probe);
		s->probe_open = 0;
	}
}

void session_unfence(xb_session *s)
{
	if (s->bench->ops->set_horizon)
		s->bench->ops->set_horizon(s->bench, UINT64_MAX);
}

void session_probe_release(xb_session *s)
{
	xb_err err;
	session_unfence(s);
	if (s->sampler)
		sampler_stream_stop(s->sampler);
	if (s->pipe && !dap_pipe_idle(s->pipe) && dap_pipe_drain(s->pipe, &err) != 0)
		session_note(s, XB_LOG_WARN, "the probe's last packets: %s", err.msg);
	streams_free(s);
}

static int probe_connect_now(xb_session *s, xb_report *rep)
{
	session_unfence(s); /* the probe's answers need the board's time to move */
	xb_transport *t = s->bench->ops->connect_probe(s->bench, rep);
	if (!t)
		return -1;
	xb_probe_options po = {.swclk_hz = SS_SWCLK_HZ};
	xb_err err;
	if (probe_attach(&s->probe, t, &po, &err) != 0) {
		xb_status st = strstr(err.msg, "no ACK") || strstr(err.msg, "DPIDR")
			? XB_STATUS_TARGET_NOT_RESPONDING : XB_STATUS_PROBE_GONE;
		return report_err(rep, st, &err);
	}
	s->probe_open = 1;
	return 0;
}

static void sampler_start(xb_session *s)
{
	if (!s->sampling || s->sampler || !s->pipe || s->phase == XB_PHASE_BRINGUP)
		return;
	xb_sampler_stream_config cfg = {.in_flight = s->o.sample_in_flight,
					.sleep_pcs = s->sleep_pcs,
					.nsleep_pcs = s->nsleep,
					.extra_flags = s->sample_flags,
					.sink = live_sample_sink,
					.sink_ctx = s};
	xb_err err;
	session_unfence(s);
	if (!dap_pipe_idle(s->pipe) && dap_pipe_drain(s->pipe, &err) != 0) {
		session_problem(s, XB_STATUS_PROBE_GONE, "%s", err.msg);
		s->probe_problem = 1;
		return;
	}
	s->sampler = sampler_stream_start(s->probe.adi, s->pipe, &cfg, &err);
	if (!s->sampler) {
		session_problem(s, XB_STATUS_PROBE_FAULT, "starting the PC sampler: %s", err.msg);
		s->probe_problem = 1;
	}
}

int session_eventfd(void)
{
	return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

void session_pipe_start(xb_session *s)
{
	if (!s->probe_open || s->pipe)
		return;
	s->pipe = dap_pipe_new(s->probe.dap, 0, 0);
	s->clock_offset = (int64_t)s->now - (int64_t)dap_client_now_ns(s->probe.dap);
	sampler_start(s);
}

/* The probe went away or broke: drop it (keeping every sample and figure) and try again
 * in a second. */
static void probe_lost(xb_session *s, const char *why)
{
	session_problem(s, XB_STATUS_PROBE_GONE, "the probe is gone: %s (samples and figures are "
			   "kept; reconnecting)", why);
	s->probe_problem = 1;
	probe_drop(s);
	s->retry_ns = s->now + SS_RETRY_NS;
}

static void probe_pump(xb_session *s)
{
	if (!s->o.attach || s->flash)
		return;
	if (!s->probe_open) {
		if (s->now < s->retry_ns)
			return;
		xb_report rep;
		if (probe_connect_now(s, &rep) != 0) {
			session_problem(s, rep.status, "the probe is gone: %s (reconnecting)", rep.msg);
			s->probe_problem = 1;
			s->retry_ns = s->now + SS_RETRY_NS;
			return;
		}
		session_note(s, XB_LOG_INFO, "the probe is back: %s", dap_client_name(s->probe.dap));
		session_pipe_start(s);
		if (s->probe_problem) {
			session_clear_problem(s, 0);
			s->probe_problem = 0;
		}
	}
	if (s->sampler && !s->sampling && sampler_stream_done(s->sampler)) {
		sampler_stream_free(s->sampler);
		s->sampler = NULL;
	}
	sampler_start(s);
	xb_err err;
	if (s->sampler && s->sampling) {
		int n = sampler_stream_pump(s->sampler, &err);
		if (n < 0 && !dap_pipe_failed(s->pipe, NULL)) {
			xb_status st = strstr(err.msg, "WAIT") ? XB_STATUS_PROBE_WAIT : XB_STATUS_PROBE_FAULT;
			session_problem(s, st, "%s (sampling goes on when the target answers)", err.msg);
			s->probe_problem = 1;
		} else if (n > 0 && s->probe_problem && s->status.status != XB_STATUS_PROBE_GONE) {
			session_clear_problem(s, 0);
			s->probe_problem = 0;
		}
	}
	if (s->virtual_time && s->sampler && s->sampling) {
		/* In virtual time the probe's round trips are exact, so samples would come at a
		 * fixed period that can lock onto the traffic's; a pseudo-random pause (the same
		 * every run) before each round spreads them as a real probe's jitter does. */
		s->dither = s->dither * 6364136223846793005ull + 1442695040888963407ull;
		transport_wait(dap_client_transport(s->probe.dap), (s->dither >> 33) % SS_MS);
	}
	if (dap_pipe_pump(s->pipe, &err) < 0 || dap_pipe_failed(s->pipe, &err)) {
		probe_lost(s, err.msg);
		return;
	}
	if (s->sampler && s->sampling) {
		int n = sampler_stream_pump(s->sampler, &err); /* refill after what came back */
		if (n > 0 && s->probe_problem) {
			session_clear_problem(s, 0);
			s->probe_problem = 0;
		}
	}
}

void session_sampling(xb_session *s, int on)
{
	s->sampling = on && s->o.attach;
	if (!s->sampling && s->sampler)
		sampler_stream_stop(s->sampler);
	else if (s->sampling)
		sampler_start(s);
}

void session_sample_flags(xb_session *s, uint32_t flags)
{
	s->sample_flags = flags;
	if (s->sampler)
		sampler_stream_flags(s->sampler, flags);
}

/* ---- Start ---- */

static void pause_pump(xb_session *s);
void session_set_phase(xb_session *s, int phase, const char *fmt, ...)
{
	s->phase = phase;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->phase_text, sizeof s->phase_text, fmt, ap);
	va_end(ap);
}

xb_session *session_open(const xb_session_options *o, xb_report *rep)
{
	xb_session *s = xcalloc(1, sizeof *s);
	s->o = *o;
	s->tg = *o->tg;
	s->o.tg = &s->tg;
	s->is_virtual = o->bench == XB_SESSION_VIRTUAL;
	s->virtual_time = s->is_virtual && o->virt.virtual_time;
	if (s->o.flash < 0)
		s->o.flash = s->is_virtual;
	s->sampling = o->sample && o->attach;
	logring_init(&s->log, 2000);
	traffic_init(s);
	counters_init(s);
	xb_err err;
	if (o->elf) {
		s->elf = xstrdup(o->elf);
		session_progress(s, "loading %s", o->elf);
		if (session_load_first_image(s, rep) != 0) {
			session_close(s);
			return NULL;
		}
	}
	xb_report brep;
	report_clear(&brep);
	if (s->is_virtual) {
		xb_virtual_options vo = o->virt;
		vo.tg = &s->tg;
		session_progress(s, "starting the virtual Pico%s", vo.virtual_time ? " (virtual time)" : "");
		s->bench = bench_virtual_open(&vo, &brep);
	} else {
		xb_probe_bench_options po = o->probe;
		po.tg = &s->tg;
		session_progress(s, "opening the bench");
		s->bench = bench_probe_open(&po, &brep);
		if (s->bench && brep.status != XB_STATUS_OK)
			session_problem(s, brep.status, "%s (turnaround unknown without it)", brep.msg);
	}
	if (!s->bench) {
		if (rep)
			*rep = brep;
		session_close(s);
		return NULL;
	}
	s->now = s->bench->ops->now_ns(s->bench);
	live_init(s);
	xb_tracker_options to;
	tracker_options_init(&to);
	s->tracker = tracker_new(&to, &err);
	s->have_capture = s->is_virtual || (o->probe.capture && !s->status.status);
	if (o->attach) {
		session_progress(s, "connecting to the probe");
		xb_report prep;
		if (probe_connect_now(s, &prep) != 0) {
			if (s->o.flash) { /* the image must go through it: nothing to do without it */
				if (rep)
					*rep = prep;
				session_close(s);
				return NULL;
			}
			/* a board that already runs its image: the session waits for its probe */
			session_problem(s, prep.status, "the probe is not there: %s (trying again)",
					prep.msg);
			s->probe_problem = 1;
			s->retry_ns = s->now + SS_RETRY_NS;
		}
	}
	if (o->attach && s->probe_open) {
		if (s->o.flash && s->elf && session_flash_first_image(s, rep) != 0) {
			session_close(s);
			return NULL;
		}
		s->now = s->bench->ops->now_ns(s->bench);
		session_pipe_start(s);
	}
	s->now = s->bench->ops->now_ns(s->bench);
	session_bringup(s);
	session_progress(s, "bringing up the board's network");
	return s;
}

void session_bringup(xb_session *s)
{
	s->bringup_deadline = s->now + (uint64_t)(s->o.bringup_s * SS_NS);
	session_set_phase(s, XB_PHASE_BRINGUP, "bringing up the board's network");
}

void session_close(xb_session *s)
{
	if (!s)
		return;
	jobs_free(s);
	session_reflash_free(s);
	probe_drop(s);
	if (s->ring)
		live_free(s);
	if (s->bench)
		s->bench->ops->close(s->bench);
	tracker_free(s->tracker);
	traffic_free(s);
	srclines_free(s->src);
	if (s->have_img)
		image_free(&s->img);
	logring_free(&s->log);
	free(s->sleep_pcs);
	free(s->elf);
	free(s);
}

/* ---- Phases ---- */

static void start_idle(xb_session *s, double seconds)
{
	traffic_live(s, 0);
	s->phase_until = s->now + SS_SETTLE_NS + (uint64_t)(seconds * SS_NS);
	session_set_phase(s, XB_PHASE_IDLE, "recording %.1f s of idle (no traffic)", seconds);
	session_note(s, XB_LOG_INFO, "idle window: %.1f s without traffic", seconds);
}

static void phase_pump(xb_session *s)
{
	switch (s->phase) {
	case XB_PHASE_BRINGUP:
		if (s->bst.net_ready) {
			session_note(s, XB_LOG_INFO, "the board's network is up (%s) at %.3f s", s->bst.net,
				    s->now / 1e9);
			session_clear_problem(s, XB_STATUS_NETWORK_DOWN);
			if (s->o.idle_seconds > 0 && !s->job) {
				start_idle(s, s->o.idle_seconds);
			} else {
				session_set_phase(s, XB_PHASE_RUNNING, "running");
				if (!s->job)
					traffic_live(s, 1);
			}
		} else if (s->now > s->bringup_deadline) {
			session_problem(s, XB_STATUS_NETWORK_DOWN, "the board's network is not up after "
					   "%.0f s: %s", s->o.bringup_s, s->bst.net);
			s->bringup_deadline = s->now + (uint64_t)(s->o.bringup_s * SS_NS);
		}
		break;
	case XB_PHASE_IDLE:
		if (!s->ct.idle_recording && s->now >= s->phase_until - (uint64_t)(s->o.idle_seconds * SS_NS) &&
		    !traffic_outstanding(s)) {
			counters_idle(s, 1);
			session_sample_flags(s, XB_SAMPLE_IDLE);
		}
		if (s->now >= s->phase_until && s->ct.idle_recording) {
			counters_idle(s, 0);
			session_sample_flags(s, 0);
			liveprof_idle_window(s->prof, s->ct.idle_s);
			session_note(s, XB_LOG_INFO, "idle window recorded: %.0f misses per second over %.2f s",
				    s->ct.idle_rate, s->ct.idle_s);
			session_set_phase(s, XB_PHASE_RUNNING, "running");
			/* a job that started during the window sends its own traffic */
			traffic_live(s, session_job(s, NULL) != XB_JOB_RUNNING);
		}
		break;
	default:
		break;
	}
}

/* ---- The loop ---- */

static void read_console(xb_session *s)
{
	uint8_t buf[4096];
	size_t n;
	while ((n = s->bench->ops->read_console(s->bench, buf, sizeof buf)) > 0)
		logring_bytes(&s->log, s->now, XB_LOG_UART, buf, n);
}

static void on_record(void *ctx, const xb_usbrec *r)
{
	xb_session *s = ctx;
	tracker_add(s->tracker, r);
	/* the capture's clock against the session's (a live usbmon's is the epoch, a stream
	 * from sim serve the board's), for advancing the tracker while the link is quiet */
	s->capture_offset = (int64_t)r->time_ns - (int64_t)s->now;
	s->have_capture_clock = 1;
}

static void bench_state(xb_session *s)
{
	int core = s->bst.core;
	s->bench->ops->state(s->bench, &s->bst);
	if (s->bst.core != core) {
		if (s->bst.core == 1)
			session_problem(s, XB_STATUS_CORE_HALTED, "the core is halted");
		else if (s->bst.core == 2)
			session_problem(s, XB_STATUS_CORE_LOCKED_UP, "the core locked up");
		else if (core)
			session_clear_problem(s, core == 1 ? XB_STATUS_CORE_HALTED : XB_STATUS_CORE_LOCKED_UP);
	}
}

int session_pollfds(xb_session *s, struct pollfd *fds, int max)
{
	int n = s->bench->ops->pollfds(s->bench, fds, max);
	if (session_reflash_fd(s) >= 0 && n < max)
		fds[n++] = (struct pollfd){.fd = session_reflash_fd(s), .events = POLLIN};
	if (s->pipe && n < max && dap_pipe_in_flight(s->pipe)) {
		int fd = dap_pipe_fd(s->pipe);
		if (fd >= 0)
			fds[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
	}
	return n;
}

/* The next session time something is due. */
static uint64_t next_due(xb_session *s)
{
	uint64_t t = UINT64_MAX;
	uint64_t c = counters_next_due(s), tr = traffic_next_due(s), j = jobs_next_due(s);
	if (c < t)
		t = c;
	if (tr < t)
		t = tr;
	if (j < t)
		t = j;
	if (s->phase == XB_PHASE_IDLE) {
		/* the window starts after the settle time, and ends at phase_until */
		uint64_t start = s->phase_until - (uint64_t)(s->o.idle_seconds * SS_NS);
		uint64_t at = s->ct.idle_recording || s->now >= start ? s->phase_until : start;
		if (at < t)
			t = at;
	}
	if (s->series_next < t)
		t = s->series_next;
	if (s->bench->ops->set_horizon && !s->virtual_time) {
		/* again before the board reaches the horizon */
		uint64_t h = s->now + (traffic_horizon(s) - s->now) / 2;
		if (h < t)
			t = h;
	}
	if (!s->probe_open && s->o.attach && s->retry_ns < t)
		t = s->retry_ns;
	return t;
}

int session_timeout_ms(xb_session *s)
{
	if (s->virtual_time)
		return 0;
	uint64_t now = s->bench->ops->now_ns(s->bench);
	uint64_t t = next_due(s);
	if (s->pipe && (dap_pipe_ready(s->pipe) ||
			(dap_pipe_in_flight(s->pipe) && dap_pipe_fd(s->pipe) < 0)))
		return 0;
	if (s->pause_pending)
		return 1;
	if (t <= now)
		return 0;
	double ms = (double)(t - now) / 1e6 / session_speed(s);
	return ms > 100 ? 100 : (int)ceil(ms);
}

double session_speed(const xb_session *s)
{
	if (!s->is_virtual || s->virtual_time || !(s->bst.speed > 0))
		return 1.0;
	/* asked for more than the host gives: what it gives (measured over the last second;
	 * before a second has passed, a bound no host gets past by much) */
	double speed = s->bst.speed, got = s->bst.ratio > 0 ? s->bst.ratio : 16;
	if (speed > got)
		speed = got > 1 ? got : 1;
	return speed;
}

int session_pump(xb_session *s)
{
	if (s->phase == XB_PHASE_FAILED)
		return -1;
	xb_report rep;
	report_clear(&rep);
	if (s->virtual_time) {
		/* advance to the next thing due; while the probe streams, its packets advance
		 * the board themselves (as a real probe's reads interleave with the run) */
		s->now = s->bench->ops->now_ns(s->bench);
		uint64_t t = next_due(s);
		int streaming = s->pipe && !dap_pipe_idle(s->pipe);
		if (!streaming && t > s->now && t != UINT64_MAX)
			s->bench->ops->pump(s->bench, t, &rep);
		else if (!streaming && t == UINT64_MAX)
			s->bench->ops->pump(s->bench, s->now + SS_MS, &rep);
	} else if (s->bench->ops->pump(s->bench, 0, &rep) != 0) {
		session_problem(s, rep.status, "%s", rep.msg);
	}
	s->now = s->bench->ops->now_ns(s->bench);
	bench_state(s);
	read_console(s);
	if (s->have_capture) {
		xb_report crep;
		if (s->bench->ops->read_records(s->bench, on_record, s, &crep) < 0) {
			session_problem(s, crep.status, "%s (turnaround unknown from now on)", crep.msg);
			s->have_capture = 0;
		}
	}
	traffic_echoes(s);
	session_reflash_pump(s);
	probe_pump(s);
	live_drain(s);
	counters_pump(s);
	phase_pump(s);
	jobs_pump(s);
	pause_pump(s);
	traffic_sweep_pump(s);
	traffic_pump(s);
	if (s->bench->ops->set_horizon && !s->virtual_time)
		s->bench->ops->set_horizon(s->bench, traffic_horizon(s));
	live_series(s);
	return 0;
}

uint64_t session_now(xb_session *s)
{
	return s->bench->ops->now_ns(s->bench);
}

int session_phase(const xb_session *s)
{
	return s->phase;
}

const char *session_phase_text(const xb_session *s)
{
	return s->phase_text;
}

const xb_report *session_status(const xb_session *s)
{
	return &s->status;
}

int session_wait_ready(xb_session *s, xb_report *rep)
{
	/* the pump re-arms the deadline to report the network down again later: wait for the
	 * first one */
	uint64_t until = s->bringup_deadline;
	while (s->phase == XB_PHASE_BRINGUP) {
		if (session_pump(s) != 0 || s->now > until)
			return report_fail(rep, XB_STATUS_NETWORK_DOWN,
					   "the board's network was not ready within %.0f s: %s%s",
					   s->o.bringup_s, s->bst.net,
					   s->bst.core == 1   ? " (the core is halted)"
					   : s->bst.core == 2 ? " (the core locked up)"
							      : "");
		if (!s->virtual_time) {
			struct pollfd fds[8];
			int n = session_pollfds(s, fds, 8);
			poll(fds, (nfds_t)n, session_timeout_ms(s));
		}
	}
	return 0;
}

/* ---- Accessors ---- */

const xb_target *session_target(const xb_session *s)
{
	return &s->tg;
}

const xb_image *session_image(const xb_session *s)
{
	return s->have_img ? &s->img : NULL;
}

const char *session_image_path(const xb_session *s)
{
	return s->elf;
}

const xb_srclines *session_srclines(const xb_session *s)
{
	return s->src;
}

const xb_logring *session_log(const xb_session *s)
{
	return &s->log;
}

xb_logring *session_log_mut(xb_session *s)
{
	return &s->log;
}

void session_flash_info(const xb_session *s, double *seconds, size_t *bytes)
{
	*seconds = s->flash_s;
	*bytes = s->flash_bytes;
}

xb_bench *session_bench(xb_session *s)
{
	return s->bench;
}

const char *session_bench_name(const xb_session *s)
{
	return s->bench->name;
}

void session_bench_state(xb_session *s, xb_bench_state *out)
{
	*out = s->bst;
}

/* ---- Controls ---- */

int session_set_speed(xb_session *s, double speed, xb_report *rep)
{
	if (s->bench->ops->control(s->bench, "speed", speed, 0, rep) != 0)
		return -1;
	session_note(s, XB_LOG_INFO, "speed %g x real time", speed);
	return 0;
}

/* Pausing stops the probe's streams first: a paused board answers no probe packet (its
 * time stands still), so packets in flight would only time out. The bench pauses once
 * they are answered (pause_pump), and the streams start again when it runs. */
int session_pause(xb_session *s, int paused, xb_report *rep)
{
	if (!s->bench->ops->control || !s->is_virtual || s->virtual_time)
		return s->bench->ops->control(s->bench, "pause", paused, 0, rep);
	if (paused && (s->paused || s->pause_pending))
		return 0;
	if (paused) {
		s->pause_pending = 1;
		s->resume_sampling = s->sampling;
		session_sampling(s, 0);
		return 0;
	}
	if (!s->paused && !s->pause_pending)
		return 0;
	s->pause_pending = 0;
	if (s->paused && s->bench->ops->control(s->bench, "pause", 0, 0, rep) != 0)
		return -1;
	s->paused = 0;
	session_sampling(s, s->resume_sampling);
	session_note(s, XB_LOG_INFO, "running again");
	return 0;
}

static void pause_pump(xb_session *s)
{
	if (!s->pause_pending || (s->pipe && !dap_pipe_idle(s->pipe)))
		return;
	xb_report rep;
	s->pause_pending = 0;
	if (s->bench->ops->control(s->bench, "pause", 1, 0, &rep) != 0) {
		session_problem(s, rep.status, "%s", rep.msg);
		session_sampling(s, s->resume_sampling);
		return;
	}
	s->paused = 1;
	session_note(s, XB_LOG_INFO, "paused: the board's time stands still");
}

int session_step(xb_session *s, xb_report *rep)
{
	return s->bench->ops->control(s->bench, "step", 0, 0, rep);
}

int session_probe_trick(xb_session *s, int trick, double seconds, xb_report *rep)
{
	if (s->bench->ops->control(s->bench, "probe", trick, seconds, rep) != 0)
		return -1;
	static const char *const names[] = {"", "dropped", "unplugged", "answering FAULT",
					    "answering WAIT", "back to normal"};
	session_note(s, XB_LOG_WARN, "the virtual probe: %s",
		    trick >= 1 && trick <= 5 ? names[trick] : "?");
	return 0;
}

int session_record_idle(xb_session *s, double seconds, xb_report *rep)
{
	if (!(seconds > 0 && seconds <= 600))
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "an idle window of %g s: 0 to 600 s",
				   seconds);
	if (s->job)
		return report_fail(rep, XB_STATUS_BUSY, "a job is running: %s", session_job_progress(s));
	if (s->phase != XB_PHASE_RUNNING)
		return report_fail(rep, XB_STATUS_BUSY, "%s", s->phase_text);
	s->o.idle_seconds = seconds;
	start_idle(s, seconds);
	return 0;
}
