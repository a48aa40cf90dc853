/* test_panels: every panel drawn from a deterministic model (a synthetic image with
 * libraries and groups, a live profile fed at fixed times, series with markers, a log,
 * help entries, a layout editor with a planning profile over the same image, runs of a
 * history in memory; no wall clock) in every shipped theme at 80x24 and 200x60 against
 * golden canvas dumps in tests/golden/panels/ (XB_GOLDEN_UPDATE=1 writes them instead);
 * edge cases; sizes down to 0x0 that must stay inside their rectangle; the widgets; and
 * the commands, tags and mouse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/synth.h"
#include "../common/testdir.h"
#include "../common/triage_fixture.h"
#include "../../core/export.h"
#include "../../core/layout_edit.h"
#include "../../core/profile.h"
#include "../../panels/panel.h"
#include "../../panels/theme.h"
#include "../../panels/widgets.h"

#define SEC 1000000000ull
#define MS 1000000ull
#define NFUNCS 300
#define GOLDEN_DIR XB_SOURCE_DIR "/tests/golden/panels"

enum {
	FX_EMPTY = 1,
	FX_LONGNAME = 2,
	FX_ONESAMPLE = 4,
	FX_NOMAP = 8,      /* the image has no map: no editor */
	FX_NOPLAN = 16,    /* an editor but no planning profile (no prediction, no pending map) */
	FX_NAN = 32,       /* the flashed and pending figures unknown; the last run failed */
	FX_RUNNING = 64,   /* a step of the loop runs */
	FX_OPEN_PENDING = 128, /* draw_set_of: the set in the pending map, in pending mode */
};
#define NRUNS 6

/* ---- the model ---- */

static const struct {
	const char *name, *group;
} fx_libs[] = {
	{"subsys/net/ip", "IP stack"},
	{"kernel", "kernel"},
	{"drivers/usb/device", "USB device driver"},
	{"subsys/usb/device", "USB device stack"},
	{"subsys/net/l2/ethernet", "Ethernet L2"},
	{"lib/net_buf", "net_buf"},
	{"lib/libc/minimal", "libc"},
	{"app", "app"},
	{"subsys/net/lib/sockets", "IP stack"},
	{"drivers/serial", "serial"},
};
#define FX_NLIBS (sizeof fx_libs / sizeof fx_libs[0])
#define LIB_SOCKETS 8
#define LIB_SERIAL 9

static const struct {
	const char *name;
	int lib;
} fx_names[] = {
	{"k_cpu_idle", 1},        {"net_ipv4_input", 0},      {"z_swap", 1},
	{"usb_dc_ep_read", 2},    {"net_buf_alloc_len", 5},   {"memcpy", 6},
	{"net_icmpv4_input", 0},  {"ethernet_recv", 4},       {"usb_transfer_work", 3},
	{"z_impl_k_sem_give", 1}, {"net_if_recv_data", 0},    {"net_udp_input", 0},
	{"zsock_recvfrom_ctx", 8}, {"usb_dc_isr", 2},         {"net_calc_chksum", 0},
	{"memset", 6},            {"net_pkt_read", 0},        {"cdc_ecm_read_cb", 3},
	{"z_sched_ready", 1},     {"net_buf_unref", 5},       {"echo_main", 7},
	{"k_work_submit_to_queue", 1}, {"ethernet_send", 4},  {"usb_write", 3},
	{"net_ipv4_create", 0},   {"zsock_sendto_ctx", 8},    {"net_context_recv", 0},
	{"usb_dc_ep_write", 2},   {"z_thread_timeout", 1},    {"net_pkt_alloc_with_buffer", 0},
};
#define FX_NNAMES (sizeof fx_names / sizeof fx_names[0])
#define FUNC_SRAM (NFUNCS - 1)  /* runs from SRAM */
#define FUNC_SERIAL 250         /* alone in the serial library */
#define FUNC_UDP 12

static const xb_help_entry fx_help[] = {
	{"Tab", "next-panel", "show the next panel", "Panels"},
	{"1", "libraries", "heat per library and display group", "Panels"},
	{"2", "functions", "every function with samples", "Panels"},
	{"3", "cachesets", "the XIP cache's 1,024 sets", "Panels"},
	{"4", "echoes", "turnaround, echo rate, misses per echo", "Panels"},
	{"5", "log", "xipbench, UART0 and build output", "Panels"},
	{"<Enter>", "enter", "drill down: library, function, lines", "Views"},
	{"<BS>", "back", "one level up", "Views"},
	{"s", "sort [FIELD]", "sort by FIELD, or by the next field; the same field again "
			      "reverses the order", "Views"},
	{"/", "search TEXT", "select the next row whose name holds TEXT", "Views"},
	{"n", "next", "the next match", "Views"},
	{"N", "prev", "the previous match", "Views"},
	{"f", "filter [TEXT]", "only rows whose name holds TEXT; empty shows all", "Views"},
	{"m", "mode [NAME]", "a panel's display modes", "Views"},
	{"w", "window 1s|10s|all", "the time window the figures cover", "Views"},
	{"i", "subtract", "busy minus idle on or off", "Views"},
	{"p", "traffic ping RATE [SIZE]", "ICMP echo requests at RATE per second", "Traffic"},
	{"u", "traffic udp RATE [SIZE]", "UDP datagrams at RATE per second", "Traffic"},
	{"", "sweep [FROM TO STEP]", "the UDP echo-rate sweep of the study", "Traffic"},
	{"c", "plan colour", "cache colouring: start sets so that few sets hold more than "
			     "two hot lines", "Layout"},
	{"r", "relink", "build, verify and flash the layout", "Layout"},
	{"q", "quit", "leave xipbench", "Session"},
};

typedef struct fixture {
	xb_target tg;
	xb_image img;
	xb_liveprof *prof;
	xb_setmap sets;
	xb_series series[XB_SERIES_COUNT];
	xb_logring log;
	double *misses;
	/* the layout loop: a planning profile over img, the flashed layout, the editor */
	xb_samples plan_samples;
	xb_profile plan_prof;
	int have_plan;
	xb_plan_input plan_in;
	xb_layout flashed;
	xb_editor *ed;
	xb_setmap pending_sets;
	int have_pending_sets;
	/* the history */
	xb_run runs[NRUNS];
	const xb_run *run_list[NRUNS];
	xb_run_func *run_funcs[NRUNS];
	uint16_t *set_hot[NRUNS];
	xb_triage triage;
	int have_triage;
	xb_model m;
} fixture;

static uint64_t fx_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void fx_rename(xb_function *f, const char *name)
{
	free(f->name);
	free(f->base_name);
	f->name = xstrdup(name);
	f->base_name = xstrdup(name);
}

static void fx_image(fixture *fx, int flags)
{
	synth_image(&fx->img, NFUNCS, 7);
	xb_image *img = &fx->img;
	free(img->libraries[0].name);
	free(img->libraries[0].group);
	free(img->libraries);
	img->libraries = xcalloc(FX_NLIBS, sizeof *img->libraries);
	img->nlibraries = FX_NLIBS;
	for (size_t i = 0; i < FX_NLIBS; i++) {
		img->libraries[i].name = xstrdup(fx_libs[i].name);
		img->libraries[i].group = xstrdup(fx_libs[i].group);
	}
	for (size_t i = 0; i < NFUNCS; i++)
		img->funcs[i].library = (int)(i % 8);
	for (size_t i = 0; i < FX_NNAMES; i++) {
		fx_rename(&img->funcs[i], fx_names[i].name);
		img->funcs[i].library = fx_names[i].lib;
	}
	fx_rename(&img->funcs[FUNC_SERIAL], "uart_rp2040_poll_out");
	img->funcs[FUNC_SERIAL].library = LIB_SERIAL;
	fx_rename(&img->funcs[FUNC_SRAM], "z_arm_pendsv");
	img->funcs[FUNC_SRAM].addr = 0x20000100;
	img->funcs[FUNC_SRAM].size = 96;
	img->funcs[FUNC_SRAM].region = XB_REGION_SRAM;
	img->funcs[FUNC_SRAM].library = 1;
	if (flags & FX_LONGNAME) {
		char big[301];
		const char *part = "net_ipv4_input_with_a_generated_name_";
		for (size_t k = 0; k < 300; k++)
			big[k] = part[k % strlen(part)];
		big[300] = 0;
		fx_rename(&img->funcs[1], big);
	}
}

static void fx_image_free(fixture *fx)
{
	xb_image *img = &fx->img;
	for (size_t i = 0; i < img->nlibraries; i++) {
		free(img->libraries[i].name);
		free(img->libraries[i].group);
	}
	free(img->libraries);
	/* what synth_image_free expects */
	img->libraries = xcalloc(1, sizeof *img->libraries);
	img->libraries[0] = (xb_library){xstrdup("synth"), xstrdup("synth")};
	img->nlibraries = 1;
	synth_image_free(img);
}

static xb_live_sample fx_sample_in(const xb_function *f, uint64_t *r, uint64_t t, uint32_t flags)
{
	return (xb_live_sample){(f->addr + (uint32_t)(fx_rand(r) % f->size)) & ~1u, flags, t};
}

/* 1,000 samples a second from 1 s to 131 s: biased towards the first 110 functions, some
 * in ROM and asleep, the UDP path from 60 s on; an idle recording before. */
static void fx_profile(fixture *fx, int flags)
{
	const xb_image *img = &fx->img;
	fx->prof = liveprof_new(img, 8, NULL);
	if (flags & FX_EMPTY) {
		liveprof_advance(fx->prof, 131 * SEC);
		return;
	}
	uint64_t r = 12345;
	xb_live_sample batch[256];
	size_t nb = 0;
	for (int k = 0; k < 2000; k++) {
		/* idle: asleep but for the timer tick's work */
		const xb_function *f = &img->funcs[k % 3 ? 0 : 2];
		uint32_t fl = XB_SAMPLE_IDLE | (k % 20 ? XB_SAMPLE_SLEEP : 0);
		batch[nb++] = fx_sample_in(f, &r, 500 * MS, fl);
		if (nb == 256) {
			liveprof_add(fx->prof, batch, nb);
			nb = 0;
		}
	}
	liveprof_idle_window(fx->prof, 2.0);
	for (uint64_t k = 0; k < 130000; k++) {
		uint64_t t = SEC + k * MS;
		uint64_t pick = fx_rand(&r) % 100;
		if (pick < 3) {
			batch[nb++] = (xb_live_sample){0x00001234, 0, t};
		} else if (pick < 6) {
			batch[nb++] = fx_sample_in(&img->funcs[0], &r, t, XB_SAMPLE_SLEEP);
		} else if (pick < 9) {
			batch[nb++] = fx_sample_in(&img->funcs[FUNC_SRAM], &r, t, 0);
		} else if (t >= 60 * SEC && pick < 21) {
			const xb_function *f = &img->funcs[pick % 2 ? FUNC_UDP : 25];
			batch[nb++] = fx_sample_in(f, &r, t, 0);
		} else {
			size_t a = fx_rand(&r) % 110, b = fx_rand(&r) % 110;
			batch[nb++] = fx_sample_in(&img->funcs[a < b ? a : b], &r, t, 0);
		}
		if (nb == 256) {
			liveprof_add(fx->prof, batch, nb);
			nb = 0;
		}
	}
	if (flags & FX_ONESAMPLE)
		batch[nb++] = fx_sample_in(&img->funcs[FUNC_SERIAL], &r, 125 * SEC, 0);
	liveprof_add(fx->prof, batch, nb);
	liveprof_set_subtract(fx->prof, 1);
	liveprof_advance(fx->prof, 131 * SEC);
}

static void fx_sets(fixture *fx, int flags)
{
	xb_setmap *sm = &fx->sets;
	setmap_init(sm, &fx->tg);
	setmap_update(sm, &fx->tg, fx->prof, XB_WINDOW_10S);
	if (flags & FX_EMPTY)
		return;
	double *pred = xmalloc(sm->nsets * sizeof *pred), *live = xmalloc(sm->nsets * sizeof *live);
	int64_t *tags = xmalloc((size_t)sm->nsets * sm->ways * sizeof *tags);
	for (uint32_t s = 0; s < sm->nsets; s++) {
		uint32_t hot = sm->hot[s];
		pred[s] = hot > sm->ways ? (hot - sm->ways) * 1.8 + (s % 5) * 0.1 : hot * 0.05;
		live[s] = hot > sm->ways ? 600.0 + 37 * (s % 11) : hot * 20.0;
		for (uint32_t w = 0; w < sm->ways; w++) {
			size_t k = sm->first[s] + w;
			tags[(size_t)s * sm->ways + w] =
				k < sm->first[s + 1] ? (int64_t)sm->lines[k].line : -1;
		}
	}
	setmap_set_predicted(sm, pred, "trace echo.trace, 300 echoes");
	setmap_set_live(sm, live);
	setmap_set_contents(sm, tags);
	free(pred);
	free(live);
	free(tags);
}

/* The study's figures before and after two layout changes, with a gap at 40-42 s. */
static void fx_series(fixture *fx)
{
	static const struct {
		const char *name, *unit;
		double v[3], wiggle;
	} def[XB_SERIES_COUNT] = {
		[XB_SERIES_TURNAROUND] = {"turnaround", "ms", {1.747, 0.885, 0.536}, 0.004},
		[XB_SERIES_ECHO_RATE] = {"echo rate", "/s", {322, 412, 951}, 3},
		[XB_SERIES_MISSES_PER_ECHO] = {"misses per echo", "", {2277, 940, 610}, 11},
		[XB_SERIES_HIT_RATE] = {"hit rate", "%", {91.2, 95.8, 97.4}, 0.1},
	};
	for (int i = 0; i < XB_SERIES_COUNT; i++) {
		xb_series *s = &fx->series[i];
		series_init(s, def[i].name, def[i].unit, SEC, 120, 0);
		for (int t = 11; t <= 130; t++) {
			if (t >= 40 && t <= 42)
				continue;
			int phase = t < 70 ? 0 : t < 100 ? 1 : 2;
			series_set(s, (uint64_t)t * SEC + 3 * MS,
				   def[i].v[phase] + def[i].wiggle * (t % 5));
		}
		series_mark(s, 70 * SEC, "coloured");
		series_mark(s, 100 * SEC, "+8 KB SRAM");
		fx->m.series[i] = s;
	}
}

static void fx_log(fixture *fx, int flags)
{
	xb_logring *l = &fx->log;
	logring_init(l, 200);
	if (flags & FX_EMPTY)
		return;
	logring_add(l, 0, XB_LOG_XIPBENCH, XB_LOG_INFO,
		    "xipbench 0.9.0: virtual Pico, image build/zephyr/zephyr.elf (92.4 KB)");
	logring_add(l, 400 * MS, XB_LOG_BUILD, XB_LOG_INFO, "ninja: no work to do.");
	const char *uart =
		"*** Booting Zephyr OS build v3.7.0 ***\r\n"
		"[00:00:00.012,000] <inf> net_config: Initializing network\r\n"
		"[00:00:00.210,000] <wrn> usb_cdc_ecm: no MAC address set, using a random one\r\n";
	logring_bytes(l, 900 * MS, XB_LOG_UART, (const uint8_t *)uart, strlen(uart));
	logring_add(l, 1500 * MS, XB_LOG_XIPBENCH, XB_LOG_INFO,
		    "network up: 192.0.2.1 answers ping");
	logring_add(l, 2 * SEC, XB_LOG_XIPBENCH, XB_LOG_INFO,
		    "idle window: 2.0 s recorded (12.1k misses/s)");
	logring_add(l, 60 * SEC, XB_LOG_XIPBENCH, XB_LOG_INFO, "traffic: UDP 400/s, 64 B");
	logring_add(l, 70 * SEC, XB_LOG_XIPBENCH, XB_LOG_INFO,
		    "layout coloured: relinked, verified, flashed in 1.8 s");
	logring_add(l, 71 * SEC, XB_LOG_BUILD, XB_LOG_WARN,
		    "arm-none-eabi-ld: warning: .text.xipbench_hot padded by 26 KB");
	logring_add(l, 80 * SEC, XB_LOG_BUILD, XB_LOG_INFO, "CC\tsubsys/net/ip/ipv4.c");
	logring_add(l, 90 * SEC, XB_LOG_XIPBENCH, XB_LOG_ERROR,
		    "relink failed: region `FLASH' overflowed by 1204 bytes; the last good image "
		    "stays on the board");
	logring_add(l, 100 * SEC, XB_LOG_XIPBENCH, XB_LOG_INFO, "layout +8 KB SRAM: flashed");
	char big[400];
	int n = snprintf(big, sizeof big, "[00:02:00.000,000] <inf> echo: ");
	for (int k = n; k < 320; k++)
		big[k] = (char)('a' + k % 26);
	big[320] = 0;
	logring_add(l, 120 * SEC, XB_LOG_UART, XB_LOG_INFO, big);
	logring_add(l, 125 * SEC, XB_LOG_UART, XB_LOG_INFO,
		    "[00:02:05.000,000] <err> net_pkt: Data buffer (1514) allocation failed.");
}

/* Moves or pins through the editor as the application would, failing the test on a
 * refusal. */
static void fx_edit(xb_editor *ed, int f, enum xb_place place, uint32_t offset)
{
	xb_err err;
	xb_edit_place to = {place, offset};
	int rc = place == XB_PLACE_DEFAULT ? editor_remove(ed, &f, 1, NULL, &err)
					   : editor_place(ed, &f, 1, to, NULL, &err);
	if (rc != 0)
		fail_msg("edit of function %d: %s", f, err.msg);
}

static void fx_pin(xb_editor *ed, int f, bool pinned)
{
	xb_err err;
	if (editor_pin(ed, &f, 1, pinned, NULL, &err) != 0)
		fail_msg("pin of function %d: %s", f, err.msg);
}

/* A flashed layout (two hot functions, one pinned, a coloured one, one in SRAM), an editor
 * that starts from it, and edits that leave a function of each kind pending, one undone. */
static void fx_layout(fixture *fx, int flags)
{
	layout_init(&fx->flashed);
	if (flags & FX_NOMAP)
		fx->img.has_map = false;
	if (flags & (FX_EMPTY | FX_NOMAP))
		return;
	samples_init(&fx->plan_samples);
	fx->have_plan = !(flags & FX_NOPLAN);
	if (fx->have_plan) {
		synth_samples(&fx->plan_samples, &fx->img, 60, 40000, 5);
		profile_build(&fx->plan_prof, &fx->img, &fx->plan_samples, fx->tg.cache.line);
	}
	fx->plan_in = (xb_plan_input){.img = &fx->img, .tg = &fx->tg,
				      .prof = fx->have_plan ? &fx->plan_prof : NULL,
				      .sram_budget = 8192, .pad_budget = 16384};
	layout_add(&fx->flashed, 1, XB_PLACE_HOT, 0);
	layout_add(&fx->flashed, 6, XB_PLACE_HOT, 0);
	layout_add(&fx->flashed, FUNC_UDP, XB_PLACE_COLOUR, 0x100);
	layout_add(&fx->flashed, 14, XB_PLACE_SRAM, 0);
	layout_add_pin(&fx->flashed, 6);
	snprintf(fx->flashed.strategy, sizeof fx->flashed.strategy, "edited");
	xb_err err;
	fx->ed = editor_new(&fx->plan_in, &fx->flashed, &err);
	if (!fx->ed)
		fail_msg("editor: %s", err.msg);
	fx_edit(fx->ed, 2, XB_PLACE_SRAM, 0);
	if (fx->have_plan)
		fx_edit(fx->ed, 3, XB_PLACE_COLOUR, XB_WAY_AUTO);
	fx_edit(fx->ed, 1, XB_PLACE_COLOUR, 0x1a0);
	fx_pin(fx->ed, 6, false);
	fx_edit(fx->ed, 6, XB_PLACE_DEFAULT, 0);
	fx_edit(fx->ed, 5, XB_PLACE_HOT, 0);
	fx_pin(fx->ed, 5, true);
	fx_edit(fx->ed, 7, XB_PLACE_SRAM, 0);
	assert_int_equal(editor_undo(fx->ed, &err), 0);
	if (fx->have_plan) {
		setmap_init(&fx->pending_sets, &fx->tg);
		setmap_update_moved(&fx->pending_sets, &fx->tg, &fx->plan_prof,
				    editor_placement(fx->ed));
		fx->have_pending_sets = 1;
	}
	xb_model *m = &fx->m;
	m->ed = fx->ed;
	m->base = &fx->img;
	m->plan_prof = fx->have_plan ? &fx->plan_prof : NULL;
	m->flashed_layout = &fx->flashed;
	m->pending_sets = fx->have_pending_sets ? &fx->pending_sets : NULL;
	if (flags & FX_NAN) {
		m->flashed.name = "stock";
		m->pending = (xb_prediction){.model = "sample conflict model",
					     .misses_per_echo = NAN, .opt_bound_per_echo = NAN,
					     .conflict_score = 1234.5, .footprint_lines = NAN};
		m->loop_failed = 1;
		m->loop_result = "relink failed: region `FLASH' overflowed by 1204 bytes; the last "
				 "good image stays on the board";
		return;
	}
	m->flashed = (xb_model_image){"colour", 1154.0, 1180.2, 610.3, 0.885, 412, 812, 1024};
	if (fx->have_plan) {
		m->pending = (xb_prediction){.model = "trace replay, measurement windows",
					     .misses_per_echo = 742.1, .opt_bound_per_echo = 601.2,
					     .conflict_score = NAN};
		m->pending.footprint_lines = 640;
	}
	if (flags & FX_RUNNING) {
		m->loop_running = 1;
		m->loop_fraction = 0.4;
		m->loop_progress = "relinking colour-3: 40 %";
	}
	m->loop_result = "colour-2: relinked, verified, flashed and measured: 1154.0 misses per echo";
}

/* Runs of a history: the study's layouts, one of them without a turnaround or peak echo,
 * the last without a profile or a set map; profiles over the image's first 40 functions. */
static void fx_runs(fixture *fx, int flags)
{
	static const struct {
		const char *layout, *variant;
		int64_t extra_ram;
		double misses, predicted, opt, turnaround, peak, footprint;
		int recorded;
	} def[NRUNS] = {
		{"stock", "stock", 0, 2277.0, 2301.5, 1101.3, 1.747, 322, 1510, 1},
		{"hot", "stock", 0, 1530.2, 1498.0, 1003.9, 1.204, 371, 1120, 1},
		{"colour", "stock", 0, 1154.0, 1180.2, 610.3, 0.885, 412, 812, 1},
		{"colour", "LTO=1", 0, 1088.5, NAN, NAN, NAN, NAN, 790, 1},
		{"colour + 8 KB SRAM", "stock", 8192, 610.4, 598.7, 402.0, 0.536, 951, 640, 1},
		{"sram 16K", "stock", 16384, 420.0, 433.1, 380.2, 0.498, 1002, 590, 0},
	};
	if (flags & FX_EMPTY)
		return;
	for (size_t k = 0; k < NRUNS; k++) {
		xb_run *r = &fx->runs[k];
		history_run_init(r);
		r->id = (int64_t)k + 1;
		snprintf(r->time, sizeof r->time, "2024-05-01T12:%02zu:07Z", 10 + 3 * k);
		r->image = "build/zephyr/zephyr.elf";
		r->variant = def[k].variant;
		r->layout = def[k].layout;
		r->bench = "virtual";
		r->extra_ram_bytes = def[k].extra_ram;
		r->misses_per_echo = def[k].misses;
		r->predicted_misses_per_echo = def[k].predicted;
		r->opt_bound_misses_per_echo = def[k].opt;
		r->turnaround_ms = def[k].turnaround;
		r->peak_udp_echo_per_s = def[k].peak;
		r->footprint_lines = def[k].footprint;
		fx->run_list[k] = r;
		if (!def[k].recorded)
			continue;
		/* later layouts take the network's share down and the kernel's up */
		fx->run_funcs[k] = xcalloc(40, sizeof *fx->run_funcs[k]);
		for (size_t i = 0; i < 40; i++) {
			const xb_function *f = &fx->img.funcs[i];
			const xb_library *lib = &fx->img.libraries[f->library];
			double w = 4000.0 / (double)(i + 1);
			int net = strncmp(lib->group, "IP", 2) == 0 || strstr(lib->group, "USB");
			w *= net ? 1.0 - 0.12 * (double)k : 1.0 + 0.2 * (double)k;
			fx->run_funcs[k][i] = (xb_run_func){f->name, lib->name, lib->group,
							    floor(w + (double)((i * 7 + k * 3) % 5)),
							    f->size};
		}
		r->funcs = fx->run_funcs[k];
		r->nfuncs = 40;
		fx->set_hot[k] = xcalloc(1024, sizeof *fx->set_hot[k]);
		for (uint32_t set = 0; set < 1024; set++) {
			uint32_t h = (set * 2654435761u + (uint32_t)k * 40503u) >> 24;
			fx->set_hot[k][set] = (uint16_t)(h < 90 ? 0 : h < 170 ? 1 : h < 232 - 6 * k ? 2
							  : h < 250 ? 3 : 4);
		}
		r->set_hot = fx->set_hot[k];
		r->nsets = 1024;
	}
	fx->m.runs = fx->run_list;
	fx->m.nruns = NRUNS;
	fx->m.history = "build/workbench/runs.db";
}

static void fx_build(fixture *fx, int flags)
{
	memset(fx, 0, sizeof *fx);
	xb_err err;
	assert_int_equal(target_load(&fx->tg, "rp2040", &err), 0);
	fx_image(fx, flags);
	fx_profile(fx, flags);
	fx_sets(fx, flags);
	fx_log(fx, flags);
	xb_model *m = &fx->m;
	model_init(m);
	m->bench = "virtual Pico";
	m->image = "build/zephyr/zephyr.elf";
	m->layout = "stock";
	m->state = "running";
	m->now_ns = 131 * SEC;
	m->tg = &fx->tg;
	m->img = &fx->img;
	m->prof = fx->prof;
	m->sets = &fx->sets;
	m->log = &fx->log;
	m->window = XB_WINDOW_10S;
	m->subtract = liveprof_subtract(fx->prof);
	fx_layout(fx, flags);
	fx_runs(fx, flags);
	if (flags & FX_EMPTY)
		return;
	fx_series(fx);
	triage_fixture(&fx->triage, 0);
	fx->have_triage = 1;
	m->triage = &fx->triage;
	m->triage_version = 1;
	m->triage_samples = "live profile, last 10 s, idle subtracted";
	m->speed = m->ratio = 1;
	m->bench_seconds = 131;
	m->echo_rate = 412;
	m->turnaround_ms = 0.885;
	m->misses_per_echo = 940;
	m->misses_per_s = 387300;
	m->idle_misses_per_s = 12100;
	m->hit_rate = 95.8;
	m->loss = 0;
	m->sample_rate = 1000;
	m->echoes = 41234;
	m->samples = 130000;
	m->ping_rate = 50;
	m->ping_size = 56;
	m->udp_rate = 400;
	m->udp_size = 64;
	m->sweep = 1;
	m->sweep_step = 12;
	m->sweep_steps = 60;
	m->sweep_peak = 1650;
	fx->misses = xmalloc(NFUNCS * sizeof *fx->misses);
	for (size_t i = 0; i < NFUNCS; i++) {
		double v = liveprof_func(fx->prof, XB_WINDOW_10S, i);
		fx->misses[i] = v > 0 && i % 7 ? floor(v * 0.25) : NAN;
	}
	m->func_misses = fx->misses;
	m->func_misses_from = "trace replay";
	m->help = fx_help;
	m->nhelp = sizeof fx_help / sizeof fx_help[0];
}

static void fx_free(fixture *fx)
{
	for (int i = 0; i < XB_SERIES_COUNT; i++)
		if (fx->series[i].v)
			series_free(&fx->series[i]);
	logring_free(&fx->log);
	if (fx->have_triage)
		triage_free(&fx->triage);
	setmap_free(&fx->sets);
	for (size_t k = 0; k < NRUNS; k++) {
		free(fx->run_funcs[k]);
		free(fx->set_hot[k]);
	}
	if (fx->have_pending_sets)
		setmap_free(&fx->pending_sets);
	editor_free(fx->ed);
	layout_free(&fx->flashed);
	if (fx->have_plan)
		profile_free(&fx->plan_prof);
	samples_free(&fx->plan_samples);
	liveprof_free(fx->prof);
	fx_image_free(fx);
	free(fx->misses);
}

/* ---- drawing and goldens ---- */

static const char *const theme_names[] = {"dark", "light", "high-contrast", "mono"};
static const int sizes[][2] = {{80, 24}, {200, 60}};

static void load_theme(xb_theme *t, const char *name)
{
	xb_err err;
	if (theme_load(t, name, &err) != 0)
		fail_msg("theme %s: %s", name, err.msg);
}

/* Draws a fresh panel (after the commands, "verb arg" each) into a w x h canvas. */
static xb_canvas *draw_panel(const xb_panel_ops *ops, const xb_model *m, int w, int h,
			     const char *const *cmds)
{
	void *st = ops->create();
	xb_canvas *c = canvas_new(w, h);
	ops->draw(st, m, c, canvas_bounds(c), 1);
	for (size_t i = 0; cmds && cmds[i]; i++) {
		char verb[64];
		const char *sp = strchr(cmds[i], ' ');
		snprintf(verb, sizeof verb, "%.*s", sp ? (int)(sp - cmds[i]) : 63, cmds[i]);
		xb_panel_result res = {0};
		ops->command(st, m, verb, sp ? sp + 1 : NULL, &res);
		assert_false(res.flags & (XB_PANEL_ERROR | XB_PANEL_UNHANDLED));
		ops->draw(st, m, c, canvas_bounds(c), 1);
	}
	ops->destroy(st);
	return c;
}

static int golden_failures, golden_written;

/* Compares a dump with its golden file (or writes it with XB_GOLDEN_UPDATE=1). */
static void golden(const char *name, const xb_canvas *c, const xb_theme *t, int colours)
{
	xb_strbuf sb = {0};
	canvas_dump(c, t, colours, &sb);
	char path[512];
	snprintf(path, sizeof path, "%s/%s.txt", GOLDEN_DIR, name);
	const char *update = getenv("XB_GOLDEN_UPDATE");
	if (update && strcmp(update, "1") == 0) {
		xb_err err;
		assert_int_equal(xb_mkdirs(GOLDEN_DIR, &err), 0);
		assert_int_equal(xb_write_file_atomic(path, sb.buf, sb.len, &err), 0);
		printf("# wrote %s\n", path);
		golden_written++;
		sb_free(&sb);
		return;
	}
	char *want = NULL;
	size_t len = 0;
	xb_err err;
	if (xb_read_file(path, &want, &len, &err) != 0) {
		printf("# %s: missing golden (%s); XB_GOLDEN_UPDATE=1 writes it\n", name, err.msg);
		golden_failures++;
		sb_free(&sb);
		return;
	}
	if (len != sb.len || memcmp(want, sb.buf, len) != 0) {
		const char *a = want, *b = sb.buf;
		int line = 1;
		while (*a && *a == *b) {
			if (*a == '\n')
				line++;
			a++;
			b++;
		}
		while (a > want && a[-1] != '\n')
			a--, b--;
		printf("# %s: differs at line %d\n#  golden: %.*s\n#  drawn:  %.*s\n", name, line,
		       (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
		golden_failures++;
	}
	free(want);
	sb_free(&sb);
}

static void test_goldens_themes(void **state)
{
	(void)state;
	fixture fx;
	fx_build(&fx, 0);
	for (size_t t = 0; t < sizeof theme_names / sizeof theme_names[0]; t++) {
		xb_theme th;
		load_theme(&th, theme_names[t]);
		int colours = strcmp(theme_names[t], "mono") ? 256 : 0;
		for (size_t p = 0; panels[p]; p++)
			for (size_t z = 0; z < 2; z++) {
				xb_canvas *c = draw_panel(panels[p], &fx.m, sizes[z][0],
							  sizes[z][1], NULL);
				char name[128];
				snprintf(name, sizeof name, "%s-%s-%dx%d", panels[p]->name,
					 theme_names[t], sizes[z][0], sizes[z][1]);
				golden(name, c, &th, colours);
				canvas_free(c);
			}
	}
	fx_free(&fx);
	assert_int_equal(golden_failures, 0);
}

/* Views after commands, and the edge cases, in the dark theme. open: a function whose
 * first line's set the cache-sets panel opens (-1 none). */
typedef struct golden_case {
	const char *panel, *suffix;
	int flags;
	long open;
	const char *cmds[8];
} golden_case;

static const golden_case cases[] = {
	{"libraries", "functions", 0, -1, {"enter"}},
	{"libraries", "lines", 0, -1, {"enter", "enter"}},
	{"libraries", "by-library", 0, -1, {"mode libraries"}},
	{"functions", "by-bytes", 0, -1, {"sort bytes"}},
	{"cachesets", "open", 0, 1, {NULL}},
	{"cachesets", "live", 0, -1, {"mode live"}},
	{"cachesets", "predicted", 0, -1, {"mode predicted"}},
	{"log", "scrolled", 0, -1, {"search usb"}},
	{"libraries", "empty", FX_EMPTY, -1, {NULL}},
	{"functions", "empty", FX_EMPTY, -1, {NULL}},
	{"cachesets", "empty", FX_EMPTY, -1, {NULL}},
	{"echoes", "empty", FX_EMPTY, -1, {NULL}},
	{"log", "empty", FX_EMPTY, -1, {NULL}},
	{"help", "empty", FX_EMPTY, -1, {NULL}},
	{"triage", "empty", FX_EMPTY, -1, {NULL}},
	{"libraries", "longname", FX_LONGNAME, -1, {"enter"}},
	{"functions", "longname", FX_LONGNAME, -1, {NULL}},
	{"cachesets", "longname", FX_LONGNAME, 1, {NULL}},
	{"libraries", "onesample", FX_ONESAMPLE, -1, {"mode libraries"}},
	{"functions", "onesample", FX_ONESAMPLE, -1, {"search uart_rp2040"}},
	{"cachesets", "onesample", FX_ONESAMPLE, FUNC_SERIAL, {NULL}},
	{"cachesets", "pending", 0, -1, {"mode pending"}},
	{"cachesets", "pending-open", FX_OPEN_PENDING, 1, {NULL}},
	{"cachesets", "pending-none", FX_NOPLAN, -1, {"mode pending"}},
	{"layout", "empty", FX_EMPTY, -1, {NULL}},
	{"layout", "nomap", FX_NOMAP, -1, {NULL}},
	{"layout", "noplan", FX_NOPLAN, -1, {NULL}},
	{"layout", "nan", FX_NAN, -1, {NULL}},
	{"layout", "running", FX_RUNNING, -1, {NULL}},
	{"layout", "longname", FX_LONGNAME, -1, {NULL}},
	{"layout", "by-pending", 0, -1, {"sort pending"}},
	{"layout", "tagged", 0, -1, {"search net_ipv4", "tag", "tag", "filter net_"}},
	{"compare", "empty", FX_EMPTY, -1, {NULL}},
	{"compare", "chosen", 0, -1, {"enter", "down", "down", "enter"}},
	{"compare", "diff", 0, -1, {"enter", "down", "down", "enter", "mode diff"}},
	{"compare", "unrecorded", 0, -1, {"enter", "end", "enter", "mode diff"}},
	{"compare", "longname", FX_LONGNAME, -1, {"enter", "down", "down", "down", "enter",
						  "mode diff"}},
};

/* Draws the cache-sets panel with the set of a function's first line opened (pending: in
 * pending mode, the set where the pending layout puts it). */
static xb_canvas *draw_set_of(const fixture *fx, size_t func, int w, int h, int pending)
{
	void *st = panel_cachesets.create();
	xb_canvas *c = canvas_new(w, h);
	xb_panel_result res;
	if (pending)
		panel_cachesets.command(st, &fx->m, "mode", "pending", &res);
	panel_cachesets.command(st, &fx->m, "home", NULL, &res);
	uint32_t set = pending ? setmap_set_of(&fx->pending_sets,
					       editor_placement(fx->ed)->new_addr[func])
			       : setmap_set_of(&fx->sets, fx->img.funcs[func].addr);
	for (uint32_t k = 0; k < set; k++)
		panel_cachesets.command(st, &fx->m, "right", NULL, &res);
	panel_cachesets.command(st, &fx->m, "enter", NULL, &res);
	panel_cachesets.draw(st, &fx->m, c, canvas_bounds(c), 1);
	panel_cachesets.destroy(st);
	return c;
}

static void test_goldens_cases(void **state)
{
	(void)state;
	xb_theme th;
	load_theme(&th, "dark");
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const golden_case *gc = &cases[k];
		fixture fx;
		fx_build(&fx, gc->flags);
		const xb_panel_ops *ops = panel_find(gc->panel);
		assert_non_null(ops);
		for (size_t z = 0; z < 2; z++) {
			xb_canvas *c = gc->open >= 0 ? draw_set_of(&fx, (size_t)gc->open,
								   sizes[z][0], sizes[z][1],
								   gc->flags & FX_OPEN_PENDING)
						     : draw_panel(ops, &fx.m, sizes[z][0],
								  sizes[z][1], gc->cmds);
			char name[128];
			snprintf(name, sizeof name, "%s-dark-%dx%d-%s", gc->panel, sizes[z][0],
				 sizes[z][1], gc->suffix);
			golden(name, c, &th, 256);
			canvas_free(c);
		}
		fx_free(&fx);
	}
	assert_int_equal(golden_failures, 0);
}

/* Every panel at many sizes, placed inside a larger canvas filled with a sentinel: it must
 * draw its whole rectangle and nothing outside it. */
/* Draws a panel in r of a canvas filled with a sentinel; every cell of r must be drawn and
 * none outside it. */
static void draw_in_sentinel(const xb_panel_ops *ops, void *st, const xb_model *m,
			     xb_canvas *c, xb_rect r, int focused)
{
	canvas_fill(c, canvas_bounds(c), '#', XB_EL_MATCH);
	ops->draw(st, m, c, r, focused);
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < c->w; x++) {
			xb_cell cell = canvas_get(c, x, y);
			int inside = x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
			int sentinel = cell.ch == '#' && cell.el == XB_EL_MATCH;
			if (inside == sentinel)
				fail_msg("%s %dx%d: cell %d,%d %s", ops->name, r.w, r.h, x, y,
					 inside ? "not drawn" : "drawn outside");
		}
}

static void test_tiny_and_odd_sizes(void **state)
{
	(void)state;
	static const int ws[] = {0, 1, 2, 3, 5, 8, 13, 20, 33, 47, 80, 121, 200};
	static const int hs[] = {0, 1, 2, 3, 4, 5, 7, 9, 13, 24, 37, 60};
	static const int small[][2] = {{20, 5}, {1, 1}, {0, 0}};
	for (int variant = 0; variant < 2; variant++) {
		fixture fx;
		fx_build(&fx, variant ? FX_EMPTY : 0);
		for (size_t p = 0; panels[p]; p++) {
			void *st = panels[p]->create();
			xb_canvas *c = canvas_new(210, 66);
			for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
				for (size_t j = 0; j < sizeof hs / sizeof hs[0]; j++) {
					xb_rect r = {4, 3, ws[i], hs[j]};
					draw_in_sentinel(panels[p], st, &fx.m, c, r, (int)(i % 2));
				}
			/* the whole canvas at 20x5, 1x1 and 0x0 */
			for (size_t k = 0; k < 3; k++) {
				xb_canvas *s = canvas_new(small[k][0], small[k][1]);
				panels[p]->draw(st, &fx.m, s, canvas_bounds(s), 1);
				canvas_free(s);
			}
			canvas_free(c);
			panels[p]->destroy(st);
		}
		fx_free(&fx);
	}
}

/* ---- behaviour ---- */

/* The text of canvas row y. */
static const char *row_text(const xb_canvas *c, int y, char *buf, size_t cap)
{
	size_t o = 0;
	for (int x = 0; x < c->w && o + 5 < cap; x++)
		o += (size_t)canvas_utf8(canvas_get(c, x, y).ch, buf + o);
	buf[o] = 0;
	return buf;
}

/* The first row holding text, or -1. */
static int find_row(const xb_canvas *c, const char *text)
{
	char buf[2048];
	for (int y = 0; y < c->h; y++)
		if (strstr(row_text(c, y, buf, sizeof buf), text))
			return y;
	return -1;
}

/* The row drawn selected (its cells XB_EL_SELECTED at x = 1), or -1. */
static int selected_row(const xb_canvas *c)
{
	for (int y = 1; y < c->h - 1; y++)
		if (canvas_get(c, 1, y).el == XB_EL_SELECTED && canvas_get(c, c->w - 2, y).el ==
								    XB_EL_SELECTED)
			return y;
	return -1;
}

typedef struct live_panel {
	const xb_panel_ops *ops;
	void *st;
	xb_canvas *c;
	const xb_model *m;
	xb_panel_result res;
} live_panel;

static void lp_open(live_panel *p, const char *name, const xb_model *m, int w, int h)
{
	p->ops = panel_find(name);
	assert_non_null(p->ops);
	p->st = p->ops->create();
	p->c = canvas_new(w, h);
	p->m = m;
	p->ops->draw(p->st, m, p->c, canvas_bounds(p->c), 1);
}

static int lp_cmd(live_panel *p, const char *verb, const char *arg)
{
	memset(&p->res, 0, sizeof p->res);
	int flags = p->ops->command(p->st, p->m, verb, arg, &p->res);
	assert_int_equal(flags, p->res.flags);
	canvas_clear(p->c, XB_EL_NORMAL);
	p->ops->draw(p->st, p->m, p->c, canvas_bounds(p->c), 1);
	return flags;
}

static int lp_click(live_panel *p, int kind, int x, int y)
{
	memset(&p->res, 0, sizeof p->res);
	xb_mouse ev = {kind, x, y};
	int flags = p->ops->mouse(p->st, p->m, canvas_bounds(p->c), &ev, &p->res);
	p->ops->draw(p->st, p->m, p->c, canvas_bounds(p->c), 1);
	return flags;
}

static void lp_close(live_panel *p)
{
	p->ops->destroy(p->st);
	canvas_free(p->c);
}

static void test_registry(void **state)
{
	(void)state;
	static const char *const order[] = {"libraries", "functions", "cachesets", "echoes", "log",
					    "layout",    "compare",   "triage",  "help"};
	size_t n = 0;
	for (; panels[n]; n++) {
		assert_string_equal(panels[n]->name, order[n]);
		assert_ptr_equal(panel_find(order[n]), panels[n]);
		assert_non_null(panels[n]->title);
	}
	assert_int_equal(n, 9);
	/* only the layout panel chooses functions for edits */
	for (size_t i = 0; panels[i]; i++)
		assert_true((panels[i]->targets != NULL) == (panels[i] == &panel_layout));
	assert_null(panel_find("nope"));
	assert_null(panel_find(NULL));
	xb_model m;
	model_init(&m);
	assert_true(isnan(m.turnaround_ms) && isnan(m.hit_rate) && isnan(m.sweep_peak));
	assert_null(m.prof);
	assert_int_equal(m.window, XB_WINDOW_10S);
	/* unknown commands, on a model with nothing in it too */
	fixture fx;
	fx_build(&fx, 0);
	for (size_t i = 0; panels[i]; i++) {
		for (int empty = 0; empty < 2; empty++) {
			live_panel p;
			lp_open(&p, panels[i]->name, empty ? &m : &fx.m, 80, 24);
			assert_int_equal(lp_cmd(&p, "frobnicate", NULL), XB_PANEL_UNHANDLED);
			/* every move and list command is safe on any panel */
			static const char *const verbs[] = {"up", "down", "page-up", "page-down",
							    "home", "end", "left", "right", "enter",
							    "back", "next", "prev"};
			for (size_t v = 0; v < sizeof verbs / sizeof verbs[0]; v++)
				lp_cmd(&p, verbs[v], NULL);
			lp_close(&p);
		}
	}
	fx_free(&fx);
}

static void test_functions_commands(void **state)
{
	(void)state;
	fixture fx;
	fx_build(&fx, 0);
	live_panel p;
	lp_open(&p, "functions", &fx.m, 120, 30);
	char buf[2048];
	/* default: by samples, the hottest first; the sort column marked */
	int head = find_row(p.c, "samples\u25BC");
	assert_true(head > 0);
	assert_non_null(strstr(row_text(p.c, head, buf, sizeof buf), "function"));
	/* by bytes: the first row is the largest function with samples */
	assert_int_equal(lp_cmd(&p, "sort", "bytes") & XB_PANEL_REDRAW, XB_PANEL_REDRAW);
	size_t big = 0;
	uint32_t bytes = 0;
	for (size_t i = 0; i < NFUNCS; i++)
		if (liveprof_func(fx.prof, XB_WINDOW_10S, i) > 0 && fx.img.funcs[i].size > bytes) {
			bytes = fx.img.funcs[i].size;
			big = i;
		}
	assert_non_null(strstr(row_text(p.c, head + 1, buf, sizeof buf), fx.img.funcs[big].name));
	assert_non_null(strstr(row_text(p.c, head, buf, sizeof buf), "bytes\u25BC"));
	/* the same field again reverses */
	lp_cmd(&p, "sort", "bytes");
	assert_non_null(strstr(row_text(p.c, head, buf, sizeof buf), "bytes\u25B2"));
	/* a bad field: an error naming the fields */
	int flags = lp_cmd(&p, "sort", "colour");
	assert_true(flags & XB_PANEL_ERROR);
	assert_non_null(strstr(p.res.msg, "no sort field 'colour'"));
	assert_non_null(strstr(p.res.msg, "samples, share, bytes, density"));
	/* filter: only matching rows */
	lp_cmd(&p, "filter", "net_ipv4");
	int rows = 0;
	for (int y = head + 1; y < p.c->h - 1; y++) {
		row_text(p.c, y, buf, sizeof buf);
		if (strspn(buf + 3, " ") < 40) {
			rows++;
			assert_non_null(strstr(buf, "net_ipv4"));
		}
	}
	assert_int_equal(rows, 2); /* net_ipv4_input, net_ipv4_create */
	lp_cmd(&p, "filter", "");
	/* search: the selected row holds the name; a function without samples is found too */
	lp_cmd(&p, "sort", "samples");
	lp_cmd(&p, "search", "z_swap");
	int y = selected_row(p.c);
	assert_true(y > head);
	assert_non_null(strstr(row_text(p.c, y, buf, sizeof buf), "z_swap"));
	lp_cmd(&p, "search", "f299x");
	assert_true(p.res.flags & XB_PANEL_ERROR);
	lp_cmd(&p, "search", "f270");
	y = selected_row(p.c);
	assert_true(y > head);
	assert_non_null(strstr(row_text(p.c, y, buf, sizeof buf), "f270"));
	/* next and prev move between matches */
	lp_cmd(&p, "search", "net_");
	int first = selected_row(p.c);
	lp_cmd(&p, "next", NULL);
	int second = selected_row(p.c);
	assert_true(second != first);
	lp_cmd(&p, "prev", NULL);
	assert_int_equal(selected_row(p.c), first);
	/* a click selects the row under it */
	assert_int_equal(lp_click(&p, XB_MOUSE_CLICK, 10, head + 3), XB_PANEL_REDRAW);
	assert_int_equal(selected_row(p.c), head + 3);
	assert_int_equal(lp_click(&p, XB_MOUSE_CLICK, 10, 0), XB_PANEL_UNHANDLED);
	lp_close(&p);
	fx_free(&fx);
}

static void test_libraries_drill_down(void **state)
{
	(void)state;
	fixture fx;
	fx_build(&fx, 0);
	live_panel p;
	lp_open(&p, "libraries", &fx.m, 200, 40);
	char buf[2048];
	/* groups first: IP stack (two libraries) is the hottest */
	int head = find_row(p.c, "samples/s");
	assert_true(head > 0);
	assert_non_null(strstr(row_text(p.c, head + 1, buf, sizeof buf), "IP stack"));
	assert_non_null(strstr(row_text(p.c, 1, buf, sizeof buf), "by display group"));
	assert_non_null(strstr(row_text(p.c, 1, buf, sizeof buf), "idle subtracted (2.0 s"));
	/* into IP stack: its functions, sockets included */
	assert_int_equal(lp_cmd(&p, "enter", NULL), XB_PANEL_REDRAW);
	assert_non_null(strstr(row_text(p.c, 0, buf, sizeof buf), "Libraries > IP stack"));
	assert_true(find_row(p.c, "zsock_recvfrom_ctx") > 0);
	assert_true(find_row(p.c, "z_swap") < 0);
	/* filter at this level, then search to net_ipv4_input and into its lines */
	lp_cmd(&p, "filter", "zsock");
	assert_true(find_row(p.c, "net_ipv4_input") < 0);
	lp_cmd(&p, "filter", "");
	lp_cmd(&p, "search", "net_ipv4_input");
	assert_non_null(
		strstr(row_text(p.c, selected_row(p.c), buf, sizeof buf), "net_ipv4_input"));
	lp_cmd(&p, "enter", NULL);
	assert_non_null(strstr(row_text(p.c, 0, buf, sizeof buf),
			       "Libraries > IP stack > net_ipv4_input"));
	/* one row per 8-byte line of the function */
	uint32_t firstl, count;
	liveprof_func_lines(fx.prof, 1, &firstl, &count);
	char addr[16];
	snprintf(addr, sizeof addr, "0x%08x", firstl);
	assert_true(find_row(p.c, addr) > 0);
	lp_cmd(&p, "end", NULL);
	snprintf(addr, sizeof addr, "0x%08x", firstl + 8 * (count - 1));
	assert_int_equal(find_row(p.c, addr), selected_row(p.c));
	assert_int_equal(find_row(p.c, addr), p.c->h - 2);
	assert_true(lp_cmd(&p, "sort", "bytes") & XB_PANEL_ERROR); /* not at this level */
	assert_non_null(strstr(p.res.msg, "address, samples"));
	/* back twice, then back at the top is not this panel's */
	lp_cmd(&p, "back", NULL);
	assert_non_null(strstr(row_text(p.c, 0, buf, sizeof buf), "Libraries > IP stack"));
	assert_null(strstr(row_text(p.c, 0, buf, sizeof buf), "net_ipv4_input"));
	lp_cmd(&p, "back", NULL);
	assert_int_equal(lp_cmd(&p, "back", NULL), XB_PANEL_UNHANDLED);
	/* libraries mode: the two IP stack libraries apart */
	lp_cmd(&p, "mode", "libraries");
	assert_non_null(strstr(row_text(p.c, 1, buf, sizeof buf), "by library"));
	assert_true(find_row(p.c, "subsys/net/lib/sockets") > 0);
	assert_true(lp_cmd(&p, "mode", "flames") & XB_PANEL_ERROR);
	assert_non_null(strstr(p.res.msg, "groups, libraries"));
	/* sort by name, a click and a double click */
	lp_cmd(&p, "sort", "name");
	assert_non_null(strstr(row_text(p.c, head + 1, buf, sizeof buf), "app"));
	lp_click(&p, XB_MOUSE_CLICK, 5, head + 2);
	assert_int_equal(selected_row(p.c), head + 2);
	lp_click(&p, XB_MOUSE_DOUBLE, 5, head + 1);
	assert_non_null(strstr(row_text(p.c, 0, buf, sizeof buf), "Libraries > app"));
	lp_close(&p);
	fx_free(&fx);
}

static void test_cachesets_commands(void **state)
{
	(void)state;
	fixture fx;
	fx_build(&fx, 0);
	live_panel p;
	lp_open(&p, "cachesets", &fx.m, 200, 60);
	char buf[2048];
	assert_true(fx.sets.sets_over > 0);
	snprintf(buf, sizeof buf, "%u sets over 2 ways", fx.sets.sets_over);
	assert_true(find_row(p.c, buf) > 0);
	/* arrows move the selected set by one and by a row of 32 */
	lp_cmd(&p, "right", NULL);
	lp_cmd(&p, "down", NULL);
	lp_cmd(&p, "enter", NULL);
	assert_true(find_row(p.c, "set 33 \u00B7") > 0);
	lp_cmd(&p, "left", NULL);
	assert_true(find_row(p.c, "set 32 \u00B7") > 0);
	lp_cmd(&p, "up", NULL);
	lp_cmd(&p, "up", NULL); /* stops at 0 */
	assert_true(find_row(p.c, "set 0 \u00B7") > 0);
	/* back closes the list; a click on a cell opens that set */
	lp_cmd(&p, "back", NULL);
	assert_true(find_row(p.c, "sets over 2 ways, the worst first") > 0);
	int gx = -1, gy = -1;
	for (int y = 3; y < p.c->h && gy < 0; y++)
		if (strncmp(row_text(p.c, y, buf, sizeof buf), "\u2502  64 ", 8) == 0)
			gy = y;
	assert_true(gy > 0);
	gx = 6 + 2 * 5; /* set 64 + 5 */
	assert_int_equal(lp_click(&p, XB_MOUSE_CLICK, gx, gy), XB_PANEL_REDRAW);
	assert_true(find_row(p.c, "set 69 \u00B7") > 0);
	assert_int_equal(canvas_get(p.c, gx, gy).el, XB_EL_SELECTED);
	/* the hot lines of a set over its ways are listed with their functions */
	uint32_t over = 0;
	while (fx.sets.hot[over] <= fx.sets.ways)
		over++;
	lp_cmd(&p, "home", NULL);
	for (uint32_t k = 0; k < over; k++)
		lp_cmd(&p, "right", NULL);
	const xb_setmap_line *l = &fx.sets.lines[fx.sets.first[over]];
	snprintf(buf, sizeof buf, "0x%08x  %s", l->line, fx.img.funcs[l->func].name);
	assert_true(find_row(p.c, buf) > 0);
	assert_true(find_row(p.c, "the cache holds") > 0);
	/* modes; predicted without a trace says so */
	lp_cmd(&p, "mode", "live");
	assert_true(find_row(p.c, "only the virtual bench") > 0);
	assert_true(lp_cmd(&p, "mode", "bogus") & XB_PANEL_ERROR);
	setmap_set_predicted(&fx.sets, NULL, NULL);
	lp_cmd(&p, "mode", "predicted");
	assert_true(find_row(p.c, "no trace") > 0);
	lp_close(&p);
	/* narrow: every set is still shown (two per cell) or the hidden ones are counted */
	lp_open(&p, "cachesets", &fx.m, 40, 20);
	assert_true(find_row(p.c, "not shown") < 0);
	lp_close(&p);
	lp_open(&p, "cachesets", &fx.m, 30, 9);
	assert_true(find_row(p.c, "sets not shown") > 0);
	lp_close(&p);
	fx_free(&fx);
}

/* "21,344" */
static const char *grouped(char *buf, size_t cap, uint32_t v)
{
	char d[16];
	int n = snprintf(d, sizeof d, "%u", v), k = 0;
	for (int i = 0; i < n && (size_t)k + 2 < cap; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = d[i];
	}
	buf[k] = 0;
	return buf;
}

/* The row holding both texts, or -1. */
static int find_row2(const xb_canvas *c, const char *a, const char *b)
{
	char buf[2048];
	for (int y = 0; y < c->h; y++) {
		row_text(c, y, buf, sizeof buf);
		if (strstr(buf, a) && strstr(buf, b))
			return y;
	}
	return -1;
}

/* The function of the selected row of the layout panel (its name starts at x = 3). */
static long layout_selected(const fixture *fx, const xb_canvas *c)
{
	int y = selected_row(c);
	if (y < 0)
		return -1;
	char buf[2048];
	row_text(c, y, buf, sizeof buf);
	for (size_t i = 0; i < fx->img.nfuncs; i++) {
		size_t n = strlen(fx->img.funcs[i].name);
		/* the frame's bar (3 bytes), the tag column and a blank, then the name */
		const char *at = strstr(buf, fx->img.funcs[i].name);
		if (at && at - buf == 5 && at[n] == ' ')
			return (long)i;
	}
	return -1;
}

static void test_layout_commands(void **state)
{
	(void)state;
	fixture fx;
	fx_build(&fx, 0);
	live_panel p;
	lp_open(&p, "layout", &fx.m, 200, 60);
	char buf[2048], want[256], a[32], b[32];
	/* the header: budgets and what the pending layout uses; its prediction beside the
	 * flashed image's; what undo and redo would do */
	xb_edit_usage u;
	editor_usage(fx.ed, &u);
	snprintf(want, sizeof want, "extra SRAM %s / %s B", grouped(a, sizeof a, u.extra_ram),
		 grouped(b, sizeof b, u.sram_budget));
	assert_int_equal(find_row(p.c, want), 1);
	snprintf(want, sizeof want, "%zu coloured (%zu auto)", u.functions[XB_PLACE_COLOUR],
		 u.auto_colours);
	assert_int_equal(find_row(p.c, want), 2);
	char change[32];
	export_change(742.1, 1180.2, change, sizeof change);
	assert_string_equal(change, "\u221237 %");
	assert_true(find_row2(p.c, "change", change) > 0);
	assert_true(find_row2(p.c, "flashed: colour", "1154.0") > 0);
	assert_true(find_row2(p.c, "pending", "trace replay, measurement windows") > 0);
	snprintf(want, sizeof want, "undo: %s", editor_undo_label(fx.ed));
	assert_true(find_row(p.c, want) > 0);
	snprintf(want, sizeof want, "redo: %s", editor_redo_label(fx.ed));
	assert_true(find_row(p.c, want) > 0);
	assert_true(find_row(p.c, "colour-2: relinked") > 0);
	/* each function's pending and flashed placement and what changed */
	const xb_function *f = fx.img.funcs;
	xb_edit_func e3;
	editor_function(fx.ed, 3, &e3);
	assert_true(e3.auto_colour);
	assert_int_equal(e3.place, XB_PLACE_COLOUR);
	/* resolved by the editor: an offset, or packed as a plain hot entry */
	const xb_layout *pl = editor_layout(fx.ed);
	int packed = 0;
	for (size_t k = 0; k < pl->n; k++)
		packed |= pl->e[k].func == 3 && pl->e[k].place == XB_PLACE_HOT;
	if (packed)
		snprintf(want, sizeof want, "auto\u2192hot %ld", e3.position);
	else
		snprintf(want, sizeof want, "colour auto\u21920x%x", e3.way_offset);
	int y = find_row2(p.c, f[3].name, want);
	assert_true(y > 0);
	row_text(p.c, y, buf, sizeof buf);
	assert_non_null(strstr(buf, "moved"));
	y = find_row2(p.c, f[1].name, "colour 0x1a0");
	assert_true(y > 0);
	assert_non_null(strstr(row_text(p.c, y, buf, sizeof buf), "hot 0"));
	assert_non_null(strstr(buf, "moved"));
	y = find_row2(p.c, f[2].name, "SRAM");
	assert_true(y > 0);
	assert_non_null(strstr(row_text(p.c, y, buf, sizeof buf), "flash"));
	y = find_row2(p.c, f[5].name, "pin");
	assert_true(y > 0);
	y = find_row2(p.c, f[6].name, "hot 1"); /* flashed there, back to flash pending */
	assert_true(y > 0);
	assert_non_null(strstr(row_text(p.c, y, buf, sizeof buf), "moved"));
	/* targets: the selected function while none is tagged */
	int out[8];
	assert_true(lp_cmd(&p, "search", f[2].name) & XB_PANEL_REDRAW);
	assert_int_equal(layout_selected(&fx, p.c), 2);
	assert_int_equal(panel_layout.targets(p.st, &fx.m, out, 8), 1);
	assert_int_equal(out[0], 2);
	/* tag: toggles and moves down; the tagged ones are the targets, in index order */
	assert_true(lp_cmd(&p, "tag", NULL) & XB_PANEL_MESSAGE);
	assert_non_null(strstr(p.res.msg, "tagged (1 tagged)"));
	long next = layout_selected(&fx, p.c);
	assert_true(next >= 0 && next != 2);
	lp_cmd(&p, "tag", NULL);
	assert_int_equal(panel_layout.targets(p.st, &fx.m, out, 8), 2);
	assert_int_equal(out[0], next < 2 ? next : 2);
	assert_int_equal(out[1], next < 2 ? 2 : next);
	assert_int_equal(panel_layout.targets(p.st, &fx.m, out, 1), 2);
	assert_int_equal(panel_layout.targets(p.st, &fx.m, NULL, 0), 2);
	y = find_row(p.c, f[2].name);
	assert_int_equal(canvas_get(p.c, 1, y).ch, '*');
	assert_int_equal(canvas_get(p.c, 3, y).el, XB_EL_MATCH);
	assert_int_equal(find_row(p.c, "Layout \u00B7 2 tagged"), 0);
	/* enter toggles in place; tag-none and back untag */
	long here = layout_selected(&fx, p.c);
	lp_cmd(&p, "enter", NULL);
	assert_int_equal(layout_selected(&fx, p.c), here);
	assert_int_equal(panel_layout.targets(p.st, &fx.m, out, 8), 3);
	lp_cmd(&p, "tag-none", NULL);
	assert_non_null(strstr(p.res.msg, "3 functions untagged"));
	assert_int_equal(panel_layout.targets(p.st, &fx.m, out, 8), 1);
	assert_int_equal(out[0], here);
	assert_int_equal(lp_cmd(&p, "back", NULL), XB_PANEL_UNHANDLED);
	lp_cmd(&p, "tag", NULL);
	assert_true(lp_cmd(&p, "back", NULL) & XB_PANEL_REDRAW);
	assert_int_equal(panel_layout.targets(p.st, &fx.m, out, 8), 1);
	/* an edit the application makes shows at the next draw, with its undo label */
	fx_edit(fx.ed, 9, XB_PLACE_SRAM, 0);
	lp_cmd(&p, "home", NULL);
	assert_true(find_row2(p.c, f[9].name, "SRAM") > 0);
	snprintf(want, sizeof want, "undo: moving %s to SRAM", f[9].name);
	assert_true(find_row(p.c, want) > 0);
	/* sort pending: the hot block in its order first */
	lp_cmd(&p, "sort", "pending");
	int head = find_row(p.c, "pending\u25B2");
	assert_true(head > 0);
	assert_non_null(strstr(row_text(p.c, head + 1, buf, sizeof buf), "hot 0"));
	assert_true(lp_cmd(&p, "sort", "colour") & XB_PANEL_ERROR);
	assert_non_null(strstr(p.res.msg, "samples, bytes, density, name, address, pending"));
	/* a filter shows functions without samples or a placement too */
	lp_cmd(&p, "filter", "f27");
	assert_true(find_row(p.c, "f275") > 0);
	assert_true(find_row(p.c, f[1].name) < 0);
	lp_cmd(&p, "filter", "");
	assert_true(find_row(p.c, "f275") < 0);
	lp_cmd(&p, "search", "f275");
	assert_int_equal(layout_selected(&fx, p.c), 275);
	/* mouse: a click selects, a double click tags */
	lp_cmd(&p, "home", NULL);
	assert_int_equal(lp_click(&p, XB_MOUSE_CLICK, 10, head + 3), XB_PANEL_REDRAW);
	assert_int_equal(selected_row(p.c), head + 3);
	assert_true(lp_click(&p, XB_MOUSE_DOUBLE, 10, head + 3) & XB_PANEL_MESSAGE);
	assert_int_equal(canvas_get(p.c, 1, head + 3).ch, '*');
	assert_int_equal(lp_click(&p, XB_MOUSE_CLICK, 10, 0), XB_PANEL_UNHANDLED);
	/* without an editor: nothing to target, the tags kept aside */
	xb_model bare = fx.m;
	bare.ed = NULL;
	assert_int_equal(panel_layout.targets(p.st, &bare, out, 8), 0);
	assert_true(panel_layout.targets(p.st, &fx.m, out, 8) >= 1);
	lp_close(&p);
	/* at 80x24 the header keeps the prediction and the undo label */
	lp_open(&p, "layout", &fx.m, 80, 24);
	assert_true(find_row(p.c, change) > 0);
	assert_true(find_row(p.c, "undo: moving") > 0);
	assert_true(find_row(p.c, "samples\u25BC") > 0);
	lp_close(&p);
	fx_free(&fx);
}

/* The share of samples of function i in run k's profile. */
static double run_share(const fixture *fx, size_t k, size_t i)
{
	double t = 0;
	for (size_t j = 0; j < fx->runs[k].nfuncs; j++)
		t += fx->runs[k].funcs[j].samples;
	return fx->runs[k].funcs[i].samples / t;
}

static void test_compare_commands(void **state)
{
	(void)state;
	fixture fx;
	fx_build(&fx, 0);
	live_panel p;
	lp_open(&p, "compare", &fx.m, 200, 60);
	char buf[2048], want[256];
	/* the two tables: the stock baseline in both, the SRAM runs in the second */
	int t1 = find_row(p.c, "Layouts without extra RAM"), t2 = find_row(p.c, "Layouts with SRAM");
	assert_true(t1 > 0 && t2 > t1);
	assert_true(find_row(p.c, "changes against run 1 stock") == t1);
	char change[32];
	export_change(1154.0, 2277.0, change, sizeof change);
	int y = find_row2(p.c, "colour ", "1154.0");
	assert_true(y > t1 && y < t2);
	assert_non_null(strstr(row_text(p.c, y, buf, sizeof buf), change));
	assert_non_null(strstr(buf, "05-01 12:16"));
	assert_true(find_row2(p.c, "colour + 8 KB SRAM", "8.0 KB") > t2);
	assert_true(find_row2(p.c, "stock", "0.0 KB") > t2);
	y = find_row(p.c, "colour (LTO=1)");
	assert_true(y > t1 && y < t2);
	assert_non_null(strstr(row_text(p.c, y, buf, sizeof buf), " - "));
	/* the columns and figures are the exports' */
	int dir;
	assert_string_equal(export_table_head(EXPORT_TABLE_SRAM, 1, &dir), "Peak UDP echo");
	assert_int_equal(dir, 1);
	assert_string_equal(export_table_head(EXPORT_TABLE_FLASH, 0, &dir), "Misses/echo");
	assert_int_equal(dir, -1);
	assert_null(export_table_head(EXPORT_TABLE_FLASH, 99, &dir));
	assert_int_equal(export_table_columns(EXPORT_TABLE_FLASH | EXPORT_TABLE_SRAM, NULL), 0);
	assert_true(isnan(export_table_value(EXPORT_TABLE_FLASH, 3, &fx.runs[3], want, 32)));
	assert_string_equal(want, "-");
	export_table_value(EXPORT_TABLE_FLASH, 3, &fx.runs[2], want, 32);
	assert_string_equal(want, "0.885 ms");
	assert_true(find_row2(p.c, "Peak UDP echo", "Ping turnaround") > t2);
	/* A, then B */
	lp_cmd(&p, "enter", NULL);
	assert_non_null(strstr(p.res.msg, "A: run 1 stock"));
	assert_true(find_row(p.c, "choose run B") > 0);
	lp_cmd(&p, "down", NULL);
	lp_cmd(&p, "down", NULL);
	lp_cmd(&p, "enter", NULL);
	assert_non_null(strstr(p.res.msg, "B: run 3 colour"));
	y = find_row2(p.c, "stock", "2277.0");
	assert_int_equal(canvas_get(p.c, 1, y).ch, 'A');
	assert_true(find_row(p.c, "A run 1 stock \u2192 B run 3 colour") > t2);
	/* the diff: sets by hot lines, the functions by the size of their change */
	lp_cmd(&p, "mode", "diff");
	assert_true(find_row(p.c, "Compare: what changed") == 0);
	size_t best = 0, second = 1;
	double db = -1, ds = -1;
	for (size_t i = 0; i < 40; i++) {
		double d = fabs(run_share(&fx, 2, i) - run_share(&fx, 0, i));
		if (d > db) {
			second = best, ds = db;
			best = i, db = d;
		} else if (d > ds) {
			second = i, ds = d;
		}
	}
	int fh = find_row2(p.c, "function", "change");
	assert_true(fh > 0);
	assert_non_null(strstr(row_text(p.c, fh + 1, buf, sizeof buf), fx.img.funcs[best].name));
	double pts = (run_share(&fx, 2, best) - run_share(&fx, 0, best)) * 100;
	snprintf(want, sizeof want, "%s%.1f pts", pts < 0 ? "\u2212" : "+", fabs(pts));
	assert_non_null(strstr(buf, want));
	assert_true(find_row2(p.c, "display group", "change") > 0);
	assert_true(find_row(p.c, "IP stack") > 0);
	for (size_t k = 0; k < 3; k += 2) {
		size_t cls[5] = {0};
		for (size_t set = 0; set < 1024; set++) {
			unsigned h = fx.set_hot[k][set];
			cls[h < 3 ? h : 3]++;
			cls[4] += h > 2;
		}
		char label[64];
		snprintf(label, sizeof label, "%s run %zu %s", k ? "B" : "A", k + 1,
			 k ? "colour" : "stock");
		snprintf(want, sizeof want, "%-30s%8zu%8zu%8zu%8zu%16zu", label, cls[0], cls[1],
			 cls[2], cls[3], cls[4]);
		assert_true(find_row(p.c, want) > 0);
	}
	/* back clears A and B; then it is not this panel's */
	lp_cmd(&p, "back", NULL);
	assert_true(find_row(p.c, "choose two runs") > 0);
	assert_int_equal(lp_cmd(&p, "back", NULL), XB_PANEL_UNHANDLED);
	/* a third choice starts again at A; the same run cannot be A and B */
	lp_cmd(&p, "mode", NULL);
	lp_cmd(&p, "enter", NULL);
	assert_true(lp_cmd(&p, "enter", NULL) & XB_PANEL_ERROR);
	assert_non_null(strstr(p.res.msg, "is A already"));
	lp_cmd(&p, "end", NULL);
	lp_cmd(&p, "enter", NULL);
	assert_non_null(strstr(p.res.msg, "B: run 6 sram 16K"));
	assert_true(find_row(p.c, "profile not recorded for run B") > 0);
	assert_true(find_row(p.c, "set map not recorded") > 0);
	lp_cmd(&p, "home", NULL);
	lp_cmd(&p, "enter", NULL);
	assert_non_null(strstr(p.res.msg, "A: run 1 stock"));
	assert_true(find_row(p.c, "choose run B") > 0);
	/* a double click chooses the run under it */
	y = find_row2(p.c, "hot", "1530.2");
	assert_true(lp_click(&p, XB_MOUSE_DOUBLE, 20, y) & XB_PANEL_MESSAGE);
	assert_non_null(strstr(p.res.msg, "B: run 2 hot"));
	assert_true(lp_cmd(&p, "mode", "flames") & XB_PANEL_ERROR);
	assert_non_null(strstr(p.res.msg, "tables, diff"));
	lp_close(&p);
	/* 80x24: the tables with fewer columns and the diff's first rows */
	lp_open(&p, "compare", &fx.m, 80, 24);
	lp_cmd(&p, "enter", NULL);
	lp_cmd(&p, "down", NULL);
	lp_cmd(&p, "down", NULL);
	lp_cmd(&p, "enter", NULL);
	assert_true(find_row(p.c, "Layouts with SRAM") > 0);
	assert_true(find_row(p.c, "sets over 2 ways") > 0);
	assert_true(find_row(p.c, fx.img.funcs[best].name) > 0);
	/* in the diff, down scrolls the function rows */
	lp_cmd(&p, "mode", "diff");
	fh = find_row2(p.c, "function", "change");
	assert_true(fh > 0);
	assert_non_null(strstr(row_text(p.c, fh + 1, buf, sizeof buf), fx.img.funcs[best].name));
	lp_cmd(&p, "down", NULL);
	assert_non_null(strstr(row_text(p.c, fh + 1, buf, sizeof buf), fx.img.funcs[second].name));
	lp_cmd(&p, "home", NULL);
	assert_non_null(strstr(row_text(p.c, fh + 1, buf, sizeof buf), fx.img.funcs[best].name));
	lp_close(&p);
	/* no runs: how runs are made */
	xb_model none = fx.m;
	none.runs = NULL;
	none.nruns = 0;
	lp_open(&p, "compare", &none, 120, 20);
	assert_true(find_row(p.c, "no runs yet") > 0);
	assert_true(find_row(p.c, "measure (M)") > 0);
	assert_true(find_row(p.c, "build/workbench/runs.db") > 0);
	assert_int_equal(lp_cmd(&p, "enter", NULL) & XB_PANEL_ERROR, XB_PANEL_ERROR);
	lp_close(&p);
	fx_free(&fx);
}

static void test_cachesets_pending(void **state)
{
	(void)state;
	fixture fx;
	fx_build(&fx, 0);
	live_panel p;
	lp_open(&p, "cachesets", &fx.m, 200, 60);
	lp_cmd(&p, "mode", "predicted");
	lp_cmd(&p, "mode", NULL); /* the next one */
	assert_true(find_row(p.c, "Cache sets: pending layout") == 0);
	char want[256];
	snprintf(want, sizeof want, "pending layout \u00B7 %u sets over 2 ways \u00B7 %u now",
		 fx.pending_sets.sets_over, fx.sets.sets_over);
	assert_int_equal(find_row(p.c, want), 1);
	/* the set where the pending layout colours net_ipv4_input at 0x1a0: its lines are
	 * the planning profile's, named from the base image */
	uint32_t addr = editor_placement(fx.ed)->new_addr[1];
	assert_int_equal(addr & 0x1fff, 0x1a0);
	uint32_t set = setmap_set_of(&fx.pending_sets, addr);
	assert_int_equal(set, 0x1a0 / 8);
	lp_cmd(&p, "home", NULL);
	for (uint32_t k = 0; k < set; k++)
		lp_cmd(&p, "right", NULL);
	lp_cmd(&p, "enter", NULL);
	snprintf(want, sizeof want, "set %u \u00B7", set);
	assert_true(find_row(p.c, want) > 0);
	snprintf(want, sizeof want, "0x%08x %s", addr & ~7u, fx.img.funcs[1].name);
	assert_true(find_row(p.c, want) > 0);
	assert_true(find_row(p.c, "the cache holds") < 0);
	lp_close(&p);
	/* the names come from the base image, not the flashed one */
	xb_model m = fx.m;
	m.img = NULL;
	m.prof = NULL;
	m.sets = NULL;
	lp_open(&p, "cachesets", &m, 200, 60);
	lp_cmd(&p, "mode", "pending");
	assert_true(find_row(p.c, "now") < 0);
	for (uint32_t k = 0; k < set; k++)
		lp_cmd(&p, "right", NULL);
	lp_cmd(&p, "enter", NULL);
	assert_true(find_row(p.c, want) > 0);
	/* none: what to do */
	m.pending_sets = NULL;
	lp_cmd(&p, "home", NULL);
	assert_true(find_row(p.c, "no pending layout to show: record a planning profile (P)") > 0);
	lp_close(&p);
	fx_free(&fx);
}

/* The new panels' views (tags, runs chosen, the diff, a pending set) at every size. */
static void test_loop_panels_sizes(void **state)
{
	(void)state;
	static const int ws[] = {0, 1, 2, 3, 5, 8, 13, 20, 33, 47, 80, 121, 200};
	static const int hs[] = {0, 1, 2, 3, 4, 5, 7, 9, 13, 24, 37, 60};
	static const struct {
		const char *panel;
		const char *cmds[8];
	} views[] = {
		{"layout", {"tag", "tag", "sort pending"}},
		{"compare", {"enter", "down", "enter"}},
		{"compare", {"enter", "down", "enter", "mode diff", "page-down"}},
		{"compare", {"enter", "end", "enter", "mode diff"}},
		{"cachesets", {"mode pending", "end", "enter"}},
	};
	for (int variant = 0; variant < 3; variant++) {
		fixture fx;
		fx_build(&fx, variant == 0 ? 0 : variant == 1 ? FX_LONGNAME : FX_NAN | FX_RUNNING);
		for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
			const xb_panel_ops *ops = panel_find(views[v].panel);
			void *st = ops->create();
			xb_canvas *c = canvas_new(210, 66);
			ops->draw(st, &fx.m, c, (xb_rect){0, 0, 200, 60}, 1);
			for (size_t k = 0; views[v].cmds[k]; k++) {
				char verb[32];
				const char *sp = strchr(views[v].cmds[k], ' ');
				snprintf(verb, sizeof verb, "%.*s",
					 sp ? (int)(sp - views[v].cmds[k]) : 31, views[v].cmds[k]);
				xb_panel_result res = {0};
				ops->command(st, &fx.m, verb, sp ? sp + 1 : NULL, &res);
			}
			for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
				for (size_t j = 0; j < sizeof hs / sizeof hs[0]; j++)
					draw_in_sentinel(ops, st, &fx.m, c,
							 (xb_rect){4, 3, ws[i], hs[j]}, (int)(i % 2));
			canvas_free(c);
			ops->destroy(st);
		}
		fx_free(&fx);
	}
}

static void test_log_follow_and_search(void **state)
{
	(void)state;
	fixture fx;
	fx_build(&fx, 0);
	live_panel p;
	lp_open(&p, "log", &fx.m, 100, 10);
	char buf[2048];
	assert_true(find_row(p.c, "(following)") == 0);
	/* following: the newest line is the last row */
	assert_true(find_row(p.c, "allocation failed") == p.c->h - 2);
	assert_true(find_row(p.c, "Booting") < 0);
	/* a new line shows up at the bottom */
	logring_add(&fx.log, 130 * SEC, XB_LOG_XIPBENCH, XB_LOG_INFO, "a new line");
	lp_cmd(&p, "down", NULL);
	assert_true(find_row(p.c, "a new line") == p.c->h - 2);
	/* up leaves follow mode; the view stays while lines come */
	lp_cmd(&p, "up", NULL);
	assert_true(find_row(p.c, "(following)") < 0);
	int y = selected_row(p.c);
	assert_true(y > 0);
	row_text(p.c, y, buf, sizeof buf);
	assert_non_null(strstr(buf, "allocation failed"));
	logring_add(&fx.log, 131 * SEC, XB_LOG_XIPBENCH, XB_LOG_INFO, "another line");
	lp_cmd(&p, "home", NULL);
	assert_true(find_row(p.c, "xipbench 0.9.0") > 0);
	/* search finds the newest match first */
	lp_cmd(&p, "search", "usb");
	y = selected_row(p.c);
	assert_non_null(strstr(row_text(p.c, y, buf, sizeof buf), "usb_cdc_ecm"));
	lp_cmd(&p, "search", "no such text");
	assert_true(p.res.flags & XB_PANEL_ERROR);
	/* tabs are expanded, colours follow source and level */
	lp_cmd(&p, "search", "ipv4.c");
	y = selected_row(p.c);
	assert_non_null(strstr(row_text(p.c, y, buf, sizeof buf), "CC      subsys"));
	lp_cmd(&p, "end", NULL);
	assert_true(find_row(p.c, "(following)") == 0);
	assert_true(find_row(p.c, "another line") == p.c->h - 2);
	int err = find_row(p.c, "allocation failed");
	assert_int_equal(canvas_get(p.c, 30, err).el, XB_EL_ALERT);
	lp_cmd(&p, "filter", "uart");
	assert_true(find_row(p.c, "Booting") > 0);
	assert_true(find_row(p.c, "relink") < 0);
	assert_true(lp_cmd(&p, "mode", "scroll") & XB_PANEL_REDRAW);
	assert_true(find_row(p.c, "(following)") < 0);
	lp_close(&p);
	fx_free(&fx);
}

static void test_help_search(void **state)
{
	(void)state;
	fixture fx;
	fx_build(&fx, 0);
	live_panel p;
	lp_open(&p, "help", &fx.m, 80, 12);
	assert_true(find_row(p.c, "':' command") > 0);
	assert_true(find_row(p.c, "Panels") > 0);
	assert_true(find_row(p.c, "leave xipbench") < 0); /* below the fold */
	lp_cmd(&p, "search", "quit");
	int y = find_row(p.c, "leave xipbench");
	assert_true(y > 0);
	assert_int_equal(canvas_get(p.c, 3, y).el, XB_EL_MATCH);
	lp_cmd(&p, "home", NULL);
	lp_cmd(&p, "filter", "traffic");
	assert_true(find_row(p.c, "Traffic") > 0);
	assert_true(find_row(p.c, "Panels") < 0);
	lp_cmd(&p, "filter", "");
	lp_cmd(&p, "end", NULL);
	assert_true(find_row(p.c, "Session") > 0);
	lp_close(&p);
	fx_free(&fx);
}

static void test_widgets(void **state)
{
	(void)state;
	char b[WG_NUM];
	assert_string_equal(wg_count(b, NAN), "-");
	assert_string_equal(wg_count(b, 0), "0");
	assert_string_equal(wg_count(b, 2.5), "2.5");
	assert_string_equal(wg_count(b, 9999), "9999");
	assert_string_equal(wg_count(b, 12345), "12.3k");
	assert_string_equal(wg_count(b, 123456), "123k");
	assert_string_equal(wg_count(b, 999999), "1.00M");
	assert_string_equal(wg_count(b, 3.4e6), "3.40M");
	assert_string_equal(wg_count(b, 34e6), "34.0M");
	assert_string_equal(wg_count(b, 1.5e9), "1.50G");
	assert_string_equal(wg_count(b, -12345), "-12.3k");
	assert_string_equal(wg_percent(b, 12.54), "12.5 %");
	assert_string_equal(wg_percent(b, 0.01), "<0.1 %");
	assert_string_equal(wg_percent(b, 100), "100 %");
	assert_string_equal(wg_percent(b, NAN), "-");
	assert_string_equal(wg_fixed(b, 0.8851, 3), "0.885");
	assert_string_equal(wg_duration(b, 120), "2 min");
	assert_string_equal(wg_duration(b, 30), "30 s");
	assert_string_equal(wg_clock(b, 65 * SEC + 42 * MS), "01:05.042");
	assert_int_equal(wg_heat_level(0), 0);
	assert_int_equal(wg_heat_level(NAN), 0);
	assert_int_equal(wg_heat_level(0.001), 1);
	assert_int_equal(wg_heat_level(0.02), 2);
	assert_int_equal(wg_heat_level(0.05), 3);
	assert_int_equal(wg_heat_level(0.1), 4);
	assert_int_equal(wg_heat_level(0.22), 5);
	/* columns go by drop order; the flexible one takes the rest */
	wg_column cols[] = {
		{"name", 0, 10, XB_ALIGN_LEFT, 0, NULL},
		{"a", 6, 0, XB_ALIGN_RIGHT, 1, NULL},
		{"b", 6, 0, XB_ALIGN_RIGHT, 3, NULL},
		{"c", 6, 0, XB_ALIGN_RIGHT, 2, NULL},
	};
	int x[4], w[4];
	wg_table_layout(cols, 4, 40, x, w);
	assert_int_equal(w[0], 40 - 18 - 3);
	assert_int_equal(x[3], 40 - 6);
	wg_table_layout(cols, 4, 28, x, w);
	assert_int_equal(w[2], 0); /* b goes first */
	assert_true(w[1] == 6 && w[3] == 6 && w[0] == 14);
	wg_table_layout(cols, 4, 12, x, w);
	assert_true(w[1] == 0 && w[2] == 0 && w[3] == 0 && w[0] == 12);
	/* fields */
	xb_panel_result res = {0};
	assert_int_equal(wg_choose("a,b,c", "mode", 2, NULL, &res), 0);
	assert_int_equal(wg_choose("a,b,c", "mode", 0, "B", &res), 1);
	assert_int_equal(wg_choose("a,b,c", "mode", 0, "z", &res), -1);
	assert_string_equal(res.msg, "no mode 'z'; modes: a, b, c");
	/* a chart in one row: title, value, sparkline; markers on the axis */
	xb_series s;
	series_init(&s, "rate", "/s", SEC, 50, 0);
	for (int t = 0; t < 50; t++)
		series_set(&s, (uint64_t)t * SEC, t < 25 ? 100 : 200);
	series_mark(&s, 25 * SEC, "flash");
	xb_canvas *c = canvas_new(60, 6);
	wg_chart ch = {&s, "Echo rate", -1, 1};
	wg_chart_draw(c, (xb_rect){0, 0, 60, 1}, &ch);
	char buf[512];
	assert_non_null(strstr(row_text(c, 0, buf, sizeof buf), "Echo rate  200/s"));
	assert_non_null(strstr(buf, "\u2588"));
	wg_chart_draw(c, (xb_rect){0, 0, 60, 6}, &ch);
	int marker = -1;
	for (int xx = 0; xx < 60; xx++)
		if (canvas_get(c, xx, 5).ch == 0x25B2)
			marker = xx;
	assert_true(marker > 0);
	assert_int_equal(canvas_get(c, marker, 5).el, XB_EL_CHART_MARKER);
	assert_non_null(strstr(row_text(c, 5, buf, sizeof buf), "flash"));
	/* the newest point is at the right edge, full height */
	assert_int_equal(canvas_get(c, 59, 1).ch, 0x2588);
	canvas_free(c);
	series_free(&s);
}

/* The lines view names each line's source from the DWARF line tables of a program built
 * here: every row of `work` lies in its body (lines 3 to 9 of w.c). */
static const char src_w[] = "int acc;\n"
			    "void entry(void);\n"
			    "__attribute__((noinline)) int work(int n)\n"
			    "{\n"
			    "\tint s = 0;\n"
			    "\tfor (int i = 0; i < n; i++)\n"
			    "\t\ts += i * acc + (s >> 3);\n"
			    "\treturn s;\n"
			    "}\n"
			    "void entry(void)\n"
			    "{\n"
			    "\tfor (;;)\n"
			    "\t\tacc += work(acc);\n"
			    "}\n";

static void test_lines_with_source(void **state)
{
	(void)state;
	if (system("command -v arm-none-eabi-gcc >/dev/null 2>&1") != 0)
		skip();
	char path[128], cmd[512];
	snprintf(path, sizeof path, "%s/w.c", test_dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(src_w, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "cd '%s' && arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb "
		 "-ffreestanding -nostdlib -g -O1 -Wl,-Ttext=0x10000100 -Wl,-e,entry w.c -o w.elf",
		 test_dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof path, "%s/w.elf", test_dir);
	xb_target tg;
	xb_err err;
	assert_int_equal(target_load(&tg, "rp2040", &err), 0);
	xb_image img;
	if (image_load_elf(&img, path, &tg, &err) != 0)
		fail_msg("%s", err.msg);
	xb_srclines *src = NULL;
	assert_int_equal(srclines_load(&src, path, &err), 0);
	assert_non_null(src);
	long work = image_find_function(&img, "work");
	assert_true(work >= 0);
	xb_liveprof *prof = liveprof_new(&img, 8, NULL);
	const xb_function *fw = &img.funcs[work];
	for (uint32_t a = 0; a < fw->size; a += 2) {
		xb_live_sample smp = {fw->addr + a, 0, SEC + a * MS};
		liveprof_add(prof, &smp, 1);
	}
	liveprof_advance(prof, 3 * SEC);
	xb_model m;
	model_init(&m);
	m.tg = &tg;
	m.img = &img;
	m.prof = prof;
	m.src = src;
	m.window = XB_WINDOW_ALL;
	live_panel p;
	lp_open(&p, "libraries", &m, 120, 30);
	lp_cmd(&p, "enter", NULL);
	lp_cmd(&p, "search", "work");
	lp_cmd(&p, "enter", NULL);
	char buf[2048];
	assert_non_null(strstr(row_text(p.c, 0, buf, sizeof buf), "> work"));
	uint32_t first, count;
	liveprof_func_lines(prof, (size_t)work, &first, &count);
	assert_true(count > 1);
	int rows = 0;
	for (uint32_t k = 0; k < count && k < 20; k++) {
		char addr[16];
		snprintf(addr, sizeof addr, "0x%08x", first + 8 * k);
		int y = find_row(p.c, addr);
		assert_true(y > 0);
		const char *at = strstr(row_text(p.c, y, buf, sizeof buf), "w.c:");
		if (!at)
			continue; /* a line the tables do not cover */
		int line = atoi(at + 4);
		if (line < 3 || line > 9)
			fail_msg("%s: w.c:%d is outside work (lines 3-9)", addr, line);
		rows++;
	}
	assert_true(rows > 0);
	lp_close(&p);
	liveprof_free(prof);
	srclines_free(src);
	image_free(&img);
}

int main(void)
{
	/* themes from the source tree, not the user's */
	setenv("XDG_CONFIG_HOME", "/nonexistent-xipbench-test", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widgets),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_goldens_themes),
		cmocka_unit_test(test_goldens_cases),
		cmocka_unit_test(test_tiny_and_odd_sizes),
		cmocka_unit_test(test_functions_commands),
		cmocka_unit_test(test_libraries_drill_down),
		cmocka_unit_test(test_cachesets_commands),
		cmocka_unit_test(test_layout_commands),
		cmocka_unit_test(test_compare_commands),
		cmocka_unit_test(test_cachesets_pending),
		cmocka_unit_test(test_loop_panels_sizes),
		cmocka_unit_test(test_log_follow_and_search),
		cmocka_unit_test(test_help_search),
		cmocka_unit_test(test_lines_with_source),
	};
	int rc = cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
	if (golden_written)
		printf("# %d golden files written to %s\n", golden_written, GOLDEN_DIR);
	return rc;
}
