/* test_probe_sampler: the PC sampler (probe/sampler.c) against the virtual Pico in
 * virtual time: 15 samples per TransferBlock packet, the sample rate at 24 MHz SWCLK with 8
 * packets in flight, samples inside the running program's functions, sleep and idle
 * classification, a halted core, stopping early, and a probe that fails mid-session. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sample_rate_and_functions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_and_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_halted_core, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_early, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_vanishes, setup, teardown),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
