/* test_probe_sampler: the PC sampler (probe/sampler.c) against the virtual Pico in
 * virtual time: 15 samples per TransferBlock packet, the sample rate at 24 MHz SWCLK with 8
 * packets in flight, samples inside the running program's functions, sleep and idle
 * classification, a halted core, stopping early, and a probe that fails mid-session; the
 * streaming sampler through a dap_pipe (timestamps, sleep PCs known from the image or
 * learnt, flags switched mid-stream, FAULT and WAIT episodes ridden out); WFI/WFE found in
 * code; the RP2040's live XIP counters in one packet of the same pipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../core/cache.h"
#include "../common/testdir.h"
#include "test_probe_common.h"

typedef struct fixture {
	vpico v;
	xb_probe p;
	xb_samples s;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	vpico_init(&f->v, 0, NULL);
	samples_init(&f->s);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	samples_free(&f->s);
	probe_close(&f->p);
	vpico_free(&f->v);
	free(f);
	return 0;
}

static void test_sample_rate_and_functions(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "spin", 100000);
	vpico_attach(&f->v, &f->p, 0);
	xb_dap_stats d0, d1;
	dap_stats(f->v.dap, &d0);
	xb_sampler_config cfg = {.busy_seconds = 0.02};
	xb_sampler_stats st;
	assert_int_equal(sampler_run(f->p.adi, &cfg, &f->s, &st, &err), 0);
	dap_stats(f->v.dap, &d1);
	assert_true(st.virtual_time);
	assert_int_equal(st.per_block, 15);
	assert_int_equal(st.in_flight, 8);
	assert_int_equal(st.samples, 15 * st.blocks);
	assert_int_equal(f->s.n, st.samples);
	assert_int_equal(st.busy_samples, st.samples);
	/* every packet was a block or a status read */
	assert_true(d1.packets - d0.packets >= st.blocks + st.status_reads);
	assert_in_range(st.status_reads, st.blocks / 4 - 2, st.blocks / 4 + 2);
	assert_true(st.busy_seconds >= 0.02 && st.busy_seconds < 0.022);
	assert_true(f->s.busy_seconds == st.busy_seconds);
	print_message("# PC sampling, virtual probe, 24 MHz SWCLK, 8 packets in flight: %.1f k "
		      "samples/s of virtual time (%llu samples)\n",
		      st.rate / 1000, (unsigned long long)st.samples);
	assert_true(st.rate >= 50000);
	/* Every sample is an instruction of the running program's functions. */
	xb_image img;
	tp_image(&img, "spin");
	size_t distinct = 0;
	for (size_t i = 0; i < f->s.n; i++) {
		const xb_function *fn = image_function_at(&img, f->s.s[i].pc);
		assert_non_null(fn);
		assert_true(strcmp(fn->base_name, "work") == 0 ||
			    strcmp(fn->base_name, "mix") == 0 || strcmp(fn->base_name, "main") == 0);
		assert_int_equal(f->s.s[i].flags, 0);
		distinct += i && f->s.s[i].pc != f->s.s[i - 1].pc;
	}
	assert_true(distinct > f->s.n / 4);
	image_free(&img);
	/* Memory accesses afterwards work (CSW back to incrementing). */
	uint32_t words[4];
	assert_int_equal(adi_mem_read(f->p.adi, 0x20000000u, words, 4, &err), 0);

	/* One packet in flight: a round trip per 15 samples. */
	xb_sampler_config one = {.busy_seconds = 0.01, .in_flight = 1};
	assert_int_equal(sampler_run(f->p.adi, &one, &f->s, &st, &err), 0);
	assert_int_equal(st.in_flight, 1);
	assert_true(st.rate < 15000);
}

static void windows(void *ctx, int idle)
{
	int *calls = ctx;
	calls[idle]++;
}

static void test_sleep_and_idle(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "napper", 1000000);
	vpico_attach(&f->v, &f->p, 0);
	int calls[2] = {0, 0};
	xb_sampler_config cfg = {.busy_seconds = 0.05, .idle_seconds = 0.02, .status_every = 2,
				 .window = windows, .ctx = calls};
	xb_sampler_stats st;
	assert_int_equal(sampler_run(f->p.adi, &cfg, &f->s, &st, &err), 0);
	assert_int_equal(calls[0], 1);
	assert_int_equal(calls[1], 1);
	assert_true(st.idle_samples > 0 && st.busy_samples > st.idle_samples);
	assert_true(f->s.idle_seconds >= 0.02 && f->s.idle_seconds < 0.022);
	size_t idle = 0, sleep = 0;
	for (size_t i = 0; i < f->s.n; i++) {
		idle += (f->s.s[i].flags & XB_SAMPLE_IDLE) != 0;
		sleep += (f->s.s[i].flags & XB_SAMPLE_SLEEP) != 0;
	}
	assert_int_equal(idle, st.idle_samples);
	assert_int_equal(sleep, st.sleep_samples);
	/* The sleep PC is main's WFI. */
	assert_int_equal(st.nsleep_pcs, 1);
	size_t len;
	char *dis = dh_program_file("napper", "dis", &len);
	int wfi = 0;
	for (char *line = strtok(dis, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned addr;
		if (sscanf(line, " %x:", &addr) == 1 && addr == st.sleep_pcs[0])
			wfi = strstr(line, "wfi") != NULL;
	}
	assert_true(wfi);
	free(dis);
	/* The flagged share agrees with how often DHCSR said S_SLEEP. */
	double flagged = (double)sleep / (double)f->s.n;
	double seen = (double)st.status_sleeping / (double)st.status_reads;
	print_message("# napper: %.1f %% of samples flagged sleeping, DHCSR.S_SLEEP in %.1f %% "
		      "of %llu status reads\n",
		      100 * flagged, 100 * seen, (unsigned long long)st.status_reads);
	assert_true(flagged > 0.2 && flagged < 0.8);
	assert_true(flagged - seen < 0.1 && seen - flagged < 0.1);
	/* Busy samples are in the SysTick handler's work. */
	xb_image img;
	tp_image(&img, "napper");
	for (size_t i = 0; i < f->s.n; i++) {
		if (f->s.s[i].flags & XB_SAMPLE_SLEEP)
			continue;
		const xb_function *fn = image_function_at(&img, f->s.s[i].pc);
		assert_non_null(fn);
	}
	image_free(&img);
	/* The sample file keeps samples, flags and windows. */
	char path[128];
	snprintf(path, sizeof path, "%s/napper.samples", test_dir);
	assert_int_equal(samples_write_binary(&f->s, path, &err), 0);
	xb_samples back;
	samples_init(&back);
	assert_int_equal(samples_read_file(&back, path, &err), 0);
	assert_int_equal(back.n, f->s.n);
	assert_memory_equal(back.s, f->s.s, f->s.n * sizeof *back.s);
	assert_true(back.busy_seconds == f->s.busy_seconds);
	assert_true(back.idle_seconds == f->s.idle_seconds);
	samples_free(&back);
}

static void test_halted_core(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "spin", 100000);
	vpico_attach(&f->v, &f->p, 0);
	assert_int_equal(cortexm_halt(f->p.adi, 10 * TP_MS, &err), 0);
	xb_sampler_config cfg = {.busy_seconds = 0.003};
	xb_sampler_stats st;
	assert_int_equal(sampler_run(f->p.adi, &cfg, &f->s, &st, &err), 0);
	assert_true(st.samples > 0);
	assert_int_equal(st.halted_samples, st.samples);
	assert_int_equal(st.status_halted, st.status_reads);
	assert_int_equal(st.sleep_samples, 0);
	for (size_t i = 0; i < f->s.n; i++)
		assert_int_equal(f->s.s[i].pc, 0xFFFFFFFFu);
	/* Bad windows are refused. */
	xb_sampler_config bad = {.busy_seconds = 0};
	assert_int_equal(sampler_run(f->p.adi, &bad, &f->s, &st, &err), -1);
	assert_non_null(strstr(err.msg, "busy window"));
}

static volatile sig_atomic_t stop_flag;

static void stop_at_idle(void *ctx, int idle)
{
	(void)ctx;
	if (idle)
		stop_flag = 1;
}

static void test_stop_early(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "spin", 100000);
	vpico_attach(&f->v, &f->p, 0);
	/* Set before the session: nothing is sampled. */
	stop_flag = 1;
	xb_sampler_config cfg = {.busy_seconds = 0.002, .idle_seconds = 10, .stop = &stop_flag};
	xb_sampler_stats st;
	assert_int_equal(sampler_run(f->p.adi, &cfg, &f->s, &st, &err), 0);
	assert_int_equal(st.samples, 0);
	/* Set as the idle window starts (10 s of it): it ends at once. */
	stop_flag = 0;
	cfg.window = stop_at_idle;
	assert_int_equal(sampler_run(f->p.adi, &cfg, &f->s, &st, &err), 0);
	assert_true(st.busy_samples > 0);
	assert_int_equal(st.idle_samples, 0);
	assert_true(st.idle_seconds < 0.001);
}

/* A transport that fails after a number of responses, as an unplugged probe does. */
typedef struct dying {
	xb_transport base;
	xb_transport *inner;
	int left;
} dying;

static int dying_submit(xb_transport *t, const uint8_t *req, size_t len, xb_err *err)
{
	dying *d = (dying *)t;
	return transport_submit(d->inner, req, len, err);
}

static int dying_collect(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err)
{
	dying *d = (dying *)t;
	if (d->left-- <= 0)
		return xb_fail(err, "%s: the probe disappeared (unplugged?)", t->name);
	return transport_collect(d->inner, resp, cap, rlen, err);
}

static int dying_xfer(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp,
		      size_t cap, size_t *rlen, xb_err *err)
{
	if (dying_submit(t, req, len, err))
		return -1;
	return dying_collect(t, resp, cap, rlen, err);
}

static uint64_t dying_now(xb_transport *t)
{
	return transport_now_ns(((dying *)t)->inner);
}

static void dying_close(xb_transport *t)
{
	transport_close(((dying *)t)->inner);
	free(t);
}

static const xb_transport_ops dying_ops = {
	.kind = "dying",
	.xfer = dying_xfer,
	.submit = dying_submit,
	.collect = dying_collect,
	.now_ns = dying_now,
	.close = dying_close,
};

static void test_probe_vanishes(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "spin", 100000);
	dying *d = xcalloc(1, sizeof *d);
	transport_init(&d->base, &dying_ops, "a dying probe");
	d->inner = vpico_transport(&f->v);
	d->base.packet_size = 64;
	d->base.link_max = 64;
	d->base.virtual_time = 1;
	d->left = 1000000;
	xb_probe_options o = {.swclk_hz = TP_SWCLK};
	assert_int_equal(probe_attach(&f->p, &d->base, &o, &err), 0);
	d->left = 60; /* a few packets into the session */
	xb_sampler_config cfg = {.busy_seconds = 1};
	xb_sampler_stats st;
	assert_int_equal(sampler_run(f->p.adi, &cfg, &f->s, &st, &err), -1);
	assert_non_null(strstr(err.msg, "disappeared"));
	assert_true(f->s.n > 0 && f->s.n == st.samples);
	assert_true(f->s.busy_seconds > 0 && f->s.busy_seconds < 0.1);
	/* The transport stays broken with the same message; nothing crashes. */
	uint32_t v;
	assert_int_equal(adi_mem_read32(f->p.adi, 0x20000000u, &v, &err), -1);
	assert_non_null(strstr(err.msg, "disappeared"));
}

/* ---- Streaming ---- */

typedef struct recorded {
	uint32_t pc, flags;
	uint64_t t_ns;
} recorded;

typedef struct recorder {
	recorded *s;
	size_t n, cap;
} recorder;

static void record(void *ctx, uint32_t pc, uint32_t flags, uint64_t t_ns)
{
	recorder *r = ctx;
	xb_grow(&r->s, &r->cap, r->n + 1, sizeof *r->s);
	r->s[r->n++] = (recorded){pc, flags, t_ns};
}

/* The address of the first WFI in program NAME's disassembly. */
static uint32_t dis_wfi(const char *name)
{
	size_t len;
	char *dis = dh_program_file(name, "dis", &len);
	uint32_t wfi = 0;
	for (char *line = strtok(dis, "\n"); line && !wfi; line = strtok(NULL, "\n")) {
		unsigned addr;
		if (sscanf(line, " %x:", &addr) == 1 && strstr(line, "\twfi"))
			wfi = addr;
	}
	free(dis);
	assert_true(wfi != 0);
	return wfi;
}

/* Pumps s until r holds at least n samples (bounded); every pump succeeds. */
static void pump_until(xb_sampler_stream *s, recorder *r, size_t n)
{
	xb_err err;
	for (int i = 0; i < 100000 && r->n < n; i++)
		if (sampler_stream_pump(s, &err) < 0)
			fail_msg("sampler_stream_pump: %s", err.msg);
	assert_true(r->n >= n);
}

static void stream_finish(xb_sampler_stream *s)
{
	xb_err err;
	sampler_stream_stop(s);
	for (int i = 0; i < 1000 && !sampler_stream_done(s); i++)
		assert_true(sampler_stream_pump(s, &err) >= 0);
	assert_true(sampler_stream_done(s));
}

static int in_functions(const xb_image *img, uint32_t pc, const char *const *names)
{
	const xb_function *fn = image_function_at(img, pc);
	for (int i = 0; fn && names[i]; i++)
		if (strcmp(fn->base_name, names[i]) == 0)
			return 1;
	return 0;
}

static void test_stream_sleep_pcs_and_flags(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "napper", 1000000);
	vpico_attach(&f->v, &f->p, 0);
	/* The sleep PCs from the image's code. */
	size_t len;
	uint8_t *bin = (uint8_t *)dh_program_file("napper", "bin", &len);
	uint32_t pcs[16];
	size_t npcs = sampler_find_sleep_pcs(bin, len, 0x10000000u, pcs, 16);
	free(bin);
	uint32_t wfi = dis_wfi("napper");
	int found = 0;
	for (size_t i = 0; i < npcs; i++)
		found |= pcs[i] == wfi;
	assert_true(found);
	xb_dap_pipe *pipe = dap_pipe_new(f->p.dap, 0, 0);
	recorder r = {0};
	/* No status reads at all: the flags come from the given PCs alone. */
	xb_sampler_stream_config cfg = {.status_every = 1000000, .sleep_pcs = pcs,
					.nsleep_pcs = npcs, .sink = record, .sink_ctx = &r};
	xb_transport *t = dap_client_transport(f->p.dap);
	uint64_t t_start = transport_now_ns(t);
	xb_sampler_stream *s = sampler_stream_start(f->p.adi, pipe, &cfg, &err);
	assert_non_null(s);
	pump_until(s, &r, 3000);
	size_t busy_n = r.n;
	sampler_stream_flags(s, XB_SAMPLE_IDLE);
	pump_until(s, &r, busy_n + 1500);
	stream_finish(s);
	uint64_t t_end = transport_now_ns(t);
	xb_sampler_stats st;
	sampler_stream_stats(s, &st);
	sampler_stream_free(s);
	assert_int_equal(st.samples, r.n);
	assert_int_equal(st.status_reads, 0);
	assert_int_equal(st.nsleep_pcs, 0);
	assert_int_equal(st.per_block, 15);
	assert_int_equal(st.in_flight, 8);
	assert_true(st.virtual_time);
	assert_true(st.busy_seconds > 0 && st.idle_seconds > 0);
	assert_true(st.rate >= 50000);
	/* Timestamps: in the stream's time, never going back. */
	assert_true(r.s[0].t_ns > t_start);
	assert_true(r.s[r.n - 1].t_ns <= t_end);
	for (size_t i = 1; i < r.n; i++)
		assert_true(r.s[i].t_ns >= r.s[i - 1].t_ns);
	assert_true(r.s[r.n - 1].t_ns - r.s[0].t_ns > 20 * TP_MS); /* spread, not bunched */
	/* Sleep: every sample at the WFI is flagged, from the first; nothing else is. */
	xb_image img;
	tp_image(&img, "napper");
	static const char *const busy_fns[] = {"systick_handler", "churn", "main", NULL};
	size_t sleeping = 0, idle = 0, first_idle = r.n;
	for (size_t i = 0; i < r.n; i++) {
		const recorded *x = &r.s[i];
		int sleep_flag = (x->flags & XB_SAMPLE_SLEEP) != 0;
		int at_sleep_pc = 0;
		for (size_t k = 0; k < npcs; k++)
			at_sleep_pc |= x->pc == pcs[k];
		assert_int_equal(sleep_flag, at_sleep_pc);
		if (x->pc == wfi)
			assert_true(sleep_flag);
		if (!sleep_flag)
			assert_true(in_functions(&img, x->pc, busy_fns));
		sleeping += sleep_flag;
		/* the idle flag applies from one packet on, to every packet after it */
		if (x->flags & XB_SAMPLE_IDLE) {
			idle++;
			if (first_idle == r.n)
				first_idle = i;
		} else {
			assert_int_equal(first_idle, r.n);
		}
	}
	assert_int_equal(sleeping, st.sleep_samples);
	assert_int_equal(idle, st.idle_samples);
	assert_true(first_idle >= busy_n && first_idle <= busy_n + 8 * 15);
	double share = (double)sleeping / (double)r.n;
	print_message("# stream on napper: %.1f %% of %zu samples at the image's WFI\n",
		      100 * share, r.n);
	assert_true(share > 0.2 && share < 0.8);

	/* Without the image's PCs the status reads learn the WFI; samples there are flagged
	 * from then on. */
	r.n = 0;
	xb_sampler_stream_config learn = {.status_every = 2, .sink = record, .sink_ctx = &r};
	s = sampler_stream_start(f->p.adi, pipe, &learn, &err);
	assert_non_null(s);
	pump_until(s, &r, 3000);
	stream_finish(s);
	sampler_stream_stats(s, &st);
	sampler_stream_free(s);
	assert_true(st.status_reads > 0 && st.status_sleeping > 0);
	/* the WFI first; a DHCSR read just before the core woke can add a busy PC */
	assert_true(st.nsleep_pcs >= 1);
	assert_int_equal(st.sleep_pcs[0], wfi);
	size_t flagged = 0, last_unflagged = 0;
	for (size_t i = 0; i < r.n; i++) {
		if (r.s[i].flags & XB_SAMPLE_SLEEP) {
			int learnt = 0;
			for (unsigned k = 0; k < st.nsleep_pcs; k++)
				learnt |= r.s[i].pc == st.sleep_pcs[k];
			assert_true(learnt);
			flagged++;
		} else if (r.s[i].pc == wfi) {
			last_unflagged = i;
		}
	}
	assert_int_equal(flagged, st.sleep_samples);
	assert_true(flagged > 0);
	assert_true(last_unflagged < r.n / 2); /* only before it was learnt */
	image_free(&img);
	free(r.s);
	dap_pipe_free(pipe);
	/* The probe works as before afterwards. */
	uint32_t v;
	assert_int_equal(adi_mem_read32(f->p.adi, 0x20000000u, &v, &err), 0);
}

/* Pumps while the target does not answer: returns how many pumps reported an episode. */
static int pump_through_trouble(xb_sampler_stream *s, const char *what)
{
	int reports = 0;
	xb_err err;
	for (int i = 0; i < 300; i++) {
		if (sampler_stream_pump(s, &err) < 0) {
			reports++;
			assert_non_null(strstr(err.msg, what));
			assert_non_null(strstr(err.msg, "the target answered"));
		}
	}
	return reports;
}

static void test_stream_fault_and_wait(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "spin", 100000);
	vpico_attach(&f->v, &f->p, 0);
	xb_dap_pipe *pipe = dap_pipe_new(f->p.dap, 0, 0);
	recorder r = {0};
	xb_sampler_stream_config cfg = {.sink = record, .sink_ctx = &r};
	xb_sampler_stream *s = sampler_stream_start(f->p.adi, pipe, &cfg, &err);
	assert_non_null(s);
	pump_until(s, &r, 300);
	xb_image img;
	tp_image(&img, "spin");
	static const char *const fns[] = {"work", "mix", "main", NULL};
	static const int modes[2] = {SWD_INJECT_FAULT, SWD_INJECT_WAIT};
	static const char *const names[2] = {"FAULT", "WAIT"};
	for (int m = 0; m < 2; m++) {
		/* Every memory access fails: reported once, however long it lasts ... */
		swd_set_fault_injection(f->v.swd, modes[m]);
		size_t on = r.n;
		assert_int_equal(pump_through_trouble(s, names[m]), 1);
		assert_true(r.n - on <= 8 * 15); /* at most what was on its way */
		/* ... and the stream resumes by itself when the target answers again. */
		swd_set_fault_injection(f->v.swd, SWD_INJECT_OFF);
		size_t off = r.n;
		pump_until(s, &r, off + 600);
		for (size_t i = off + 8 * 15; i < r.n; i++)
			assert_true(in_functions(&img, r.s[i].pc, fns)); /* TAR back at DWT_PCSR */
	}
	/* A new episode is reported again. */
	swd_set_fault_injection(f->v.swd, SWD_INJECT_FAULT);
	assert_int_equal(pump_through_trouble(s, "FAULT"), 1);
	swd_set_fault_injection(f->v.swd, SWD_INJECT_OFF);
	pump_until(s, &r, r.n + 100);
	stream_finish(s);
	sampler_stream_free(s);
	dap_pipe_free(pipe);
	image_free(&img);
	free(r.s);
	uint32_t v;
	assert_int_equal(adi_mem_read32(f->p.adi, 0x20000000u, &v, &err), 0);
}

static void test_stream_pipe_fails(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "spin", 100000);
	xb_dap_server *srv;
	xb_transport *t = tp_socketpair(&f->v, &srv);
	xb_probe_options o = {.swclk_hz = TP_SWCLK};
	assert_int_equal(probe_attach(&f->p, t, &o, &err), 0);
	xb_dap_pipe *pipe = dap_pipe_new(f->p.dap, 0, 0);
	recorder r = {0};
	xb_sampler_stream_config cfg = {.sink = record, .sink_ctx = &r};
	xb_sampler_stream *s = sampler_stream_start(f->p.adi, pipe, &cfg, &err);
	assert_non_null(s);
	/* A busy pipe refuses a second stream's start. */
	assert_true(sampler_stream_pump(s, &err) >= 0);
	assert_null(sampler_stream_start(f->p.adi, pipe, &cfg, &err));
	assert_non_null(strstr(err.msg, "idle pipe"));
	for (int i = 0; i < 1000 && r.n < 300; i++) {
		assert_true(dap_socket_service(srv, &err) >= 0);
		assert_true(sampler_stream_pump(s, &err) >= 0);
	}
	assert_true(r.n >= 300);
	/* The probe goes away: the stream ends at once with the pipe's error. */
	size_t kept = r.n;
	dap_socket_drop_client(srv);
	uint64_t t0 = transport_wall_ns();
	int rc = 0;
	for (int i = 0; i < 10 && rc >= 0; i++)
		rc = sampler_stream_pump(s, &err);
	assert_int_equal(rc, -1);
	assert_true(transport_wall_ns() - t0 < 200 * TP_MS);
	assert_non_null(strstr(err.msg, "closed the connection"));
	assert_true(sampler_stream_done(s));
	assert_int_equal(sampler_stream_pump(s, &err), -1);
	assert_true(r.n >= kept);
	sampler_stream_free(s);
	dap_pipe_free(pipe);
	dap_socket_close(srv);
	free(r.s);
}

static void test_find_sleep_pcs(void **state)
{
	(void)state;
	const uint8_t code[] = {0x30, 0xBF, 0x00, 0xBF, 0x20, 0xBF, 0xBF, 0x30,
				0x30, 0xBF, 0x20, 0xBF};
	uint32_t out[8];
	assert_int_equal(sampler_find_sleep_pcs(code, sizeof code, 0x10000100u, out, 8), 4);
	assert_int_equal(out[0], 0x10000100u);
	assert_int_equal(out[1], 0x10000104u);
	assert_int_equal(out[2], 0x10000108u); /* bf 30 at 0x...106 is not halfword 0xBF30 */
	assert_int_equal(out[3], 0x1000010Au);
	/* at most max written; an odd start skips to the first halfword */
	assert_int_equal(sampler_find_sleep_pcs(code, sizeof code, 0x10000100u, out, 2), 2);
	assert_int_equal(sampler_find_sleep_pcs(code + 1, sizeof code - 1, 0x10000101u, out, 8),
			 3);
	assert_int_equal(out[0], 0x10000104u);
	assert_int_equal(sampler_find_sleep_pcs(code, 1, 0x10000100u, out, 8), 0);
}

/* ---- Live XIP counters ---- */

typedef struct captured {
	uint8_t resp[TRANSPORT_PACKET_MAX];
	size_t len;
	int calls;
} captured;

static void capture(void *ctx, const uint8_t *resp, size_t len, uint64_t t_ns,
		    const xb_err *err)
{
	(void)t_ns;
	captured *c = ctx;
	c->calls++;
	assert_null(err);
	memcpy(c->resp, resp, len);
	c->len = len;
}

static void run_packet(xb_dap_pipe *pipe, const uint8_t *pkt, size_t len, captured *c)
{
	xb_err err;
	c->calls = 0;
	assert_int_equal(dap_pipe_queue(pipe, pkt, len, capture, c, &err), 0);
	assert_int_equal(dap_pipe_drain(pipe, &err), 0);
	assert_int_equal(c->calls, 1);
}

static uint32_t board_timer(xb_board *b)
{
	uint32_t v = 0;
	assert_int_equal(board_debug_read(b, RP2040_TIMERAWL, 4, &v), 0);
	return v;
}

static void test_live_counters(void **state)
{
	fixture *f = *state;
	xb_err err;
	dh_load_program(f->v.b, "spin");
	/* TIMER counting, as the SDK starts it: out of reset (RESETS bit 21, through the
	 * atomic clear alias) and the 1 us tick (TICK = 12 MHz | ENABLE) */
	assert_int_equal(board_debug_write(f->v.b, 0x4000F000u, 4, 1u << 21), 0);
	assert_int_equal(board_debug_write(f->v.b, 0x4005802Cu, 4, 0x20Cu), 0);
	pico_run(f->v.pico, 2000000);
	vpico_attach(&f->v, &f->p, 0);
	xb_adi *a = f->p.adi;
	assert_int_equal(cortexm_enable_dwt(a, &err), 0);
	assert_int_equal(adi_repeat_reads(a, CORTEXM_DWT_PCSR, &err), 0);
	xb_dap_pipe *pipe = dap_pipe_new(f->p.dap, 0, 0);
	xb_cache *cache = board_cache(f->v.b);
	uint8_t pkt[64];
	assert_int_equal(rp2040_live_counters_request(pkt, 20, CORTEXM_DWT_PCSR, 0), 0);
	size_t len = rp2040_live_counters_request(pkt, sizeof pkt, CORTEXM_DWT_PCSR, 0);
	assert_int_equal(len, 32);
	/* The board's own counters before and after the packet bracket what it read. */
	uint32_t h0 = cache_ctr_hit(cache), a0 = cache_ctr_acc(cache), t0 = board_timer(f->v.b);
	captured c;
	run_packet(pipe, pkt, len, &c);
	uint32_t h1 = cache_ctr_hit(cache), a1 = cache_ctr_acc(cache), t1 = board_timer(f->v.b);
	xb_xip_live live;
	assert_int_equal(rp2040_live_counters_parse(f->p.dap, c.resp, c.len, 0, &live, &err), 0);
	assert_int_equal(live.cleared, 0);
	assert_true(h0 <= live.hit0 && live.hit0 < live.hit1 && live.hit1 <= h1);
	assert_true(a0 <= live.acc && live.acc <= a1);
	assert_true(live.hit0 <= live.acc);
	assert_true(h0 > 100000); /* the program has been running from flash */
	assert_true(t0 <= live.timer_us && live.timer_us <= t1 && t0 < t1);
	assert_true(live.timer_us > 10000); /* 2 M cycles and more at 125 MHz */
	/* TAR is back at DWT_PCSR: a block read samples the program. */
	const uint8_t block[5] = {0x06, 0, 15, 0, ADI_REQ_DRW_READ};
	run_packet(pipe, block, sizeof block, &c);
	uint32_t pcs[15];
	size_t got;
	unsigned ack;
	assert_int_equal(dap_client_parse_block_read(f->p.dap, c.resp, c.len, 15, pcs, &got, &ack,
						     &err),
			 0);
	assert_int_equal(ack, XB_ACK_OK);
	assert_int_equal(got, 15);
	xb_image img;
	tp_image(&img, "spin");
	static const char *const fns[] = {"work", "mix", "main", NULL};
	for (size_t i = 0; i < got; i++)
		assert_true(in_functions(&img, pcs[i], fns));
	image_free(&img);
	/* With clear: read, then both counters cleared. */
	len = rp2040_live_counters_request(pkt, sizeof pkt, CORTEXM_DWT_PCSR, 1);
	assert_int_equal(len, 52);
	run_packet(pipe, pkt, len, &c);
	assert_int_equal(rp2040_live_counters_parse(f->p.dap, c.resp, c.len, 1, &live, &err), 0);
	assert_int_equal(live.cleared, 1);
	assert_true(live.hit0 >= h1 && live.acc >= a1);
	assert_int_equal(cache_ctr_acc(cache), 0);
	assert_true(cache_ctr_hit(cache) < 1000); /* only between the two clears */
	/* Bad answers are refused with what was wrong. */
	assert_int_equal(rp2040_live_counters_parse(f->p.dap, c.resp, 10, 1, &live, &err), -1);
	assert_non_null(strstr(err.msg, "malformed"));
	assert_int_equal(rp2040_live_counters_parse(f->p.dap, c.resp, c.len, 0, &live, &err), -1);
	swd_set_fault_injection(f->v.swd, SWD_INJECT_FAULT);
	len = rp2040_live_counters_request(pkt, sizeof pkt, CORTEXM_DWT_PCSR, 0);
	run_packet(pipe, pkt, len, &c);
	assert_int_equal(rp2040_live_counters_parse(f->p.dap, c.resp, c.len, 0, &live, &err), -1);
	assert_non_null(strstr(err.msg, "FAULT"));
	assert_non_null(strstr(err.msg, "XIP counters"));
	swd_set_fault_injection(f->v.swd, SWD_INJECT_OFF);
	dap_pipe_free(pipe);
	adi_forget(a);
	/* The adi's own recovery clears the sticky error. */
	xb_xip_counters xc;
	if (rp2040_xip_counters(a, &xc, &err))
		assert_int_equal(rp2040_xip_counters(a, &xc, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sample_rate_and_functions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_and_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_halted_core, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_early, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_vanishes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_sleep_pcs_and_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_fault_and_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_pipe_fails, setup, teardown),
		cmocka_unit_test(test_find_sleep_pcs),
		cmocka_unit_test_setup_teardown(test_live_counters, setup, teardown),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
