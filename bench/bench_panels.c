/* bench_panels: the workbench's drawing cost: every panel drawn into a 200x60 canvas from a
 * full profile (5,000 functions, 1,000,000 samples), a layout editor over them with a
 * colouring and SRAM edits, twelve runs with their profiles (two chosen for the compare
 * panel), and all panels at once in a 3x3 grid; the median frame of many. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/layout_edit.h"
#include "../core/liveprof.h"
#include "../core/profile.h"
#include "../panels/panel.h"
#include "../tests/common/synth.h"

#define BENCH_FUNCTIONS 5000
#define BENCH_HOT 2000
#define BENCH_SAMPLES 1000000
#define BENCH_LIBRARIES 12
#define BENCH_FRAMES 60
#define BENCH_W 200
#define BENCH_H 60
#define BENCH_RUNS 12
#define SEC 1000000000ull

static uint64_t bench_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static const xb_help_entry bench_help[] = {
	{"Tab", "next-panel", "show the next panel", "Panels"},
	{"1", "libraries", "heat per library and display group", "Panels"},
	{"2", "functions", "every function with samples", "Panels"},
	{"3", "cachesets", "the XIP cache's sets", "Panels"},
	{"/", "search TEXT", "select the next row whose name holds TEXT", "Views"},
	{"s", "sort [FIELD]", "sort by FIELD", "Views"},
	{"p", "traffic ping RATE [SIZE]", "ICMP echo requests", "Traffic"},
	{"q", "quit", "leave xipbench", "Session"},
};

/* Libraries in display groups instead of synth's one. */
static void bench_libraries(xb_image *img)
{
	static const char *const groups[] = {"IP stack", "kernel", "USB device driver",
					     "USB device stack", "Ethernet L2", "libc"};
	free(img->libraries[0].name);
	free(img->libraries[0].group);
	free(img->libraries);
	img->libraries = xcalloc(BENCH_LIBRARIES, sizeof *img->libraries);
	img->nlibraries = BENCH_LIBRARIES;
	for (size_t i = 0; i < BENCH_LIBRARIES; i++) {
		img->libraries[i].name = xasprintf("lib/part%zu", i);
		img->libraries[i].group = xstrdup(groups[i % 6]);
	}
	for (size_t i = 0; i < img->nfuncs; i++)
		img->funcs[i].library = (int)(i % BENCH_LIBRARIES);
}

static void bench_libraries_free(xb_image *img)
{
	for (size_t i = 0; i < img->nlibraries; i++) {
		free(img->libraries[i].name);
		free(img->libraries[i].group);
	}
	free(img->libraries);
	img->libraries = xcalloc(1, sizeof *img->libraries);
	img->libraries[0] = (xb_library){xstrdup("synth"), xstrdup("synth")};
	img->nlibraries = 1;
}

/* The median of frames of draw(); ms. */
static double bench_frames(void (*draw)(xb_canvas *, void **, const xb_model *), xb_canvas *c,
			   void **st, const xb_model *m)
{
	double t[BENCH_FRAMES];
	draw(c, st, m); /* warm-up */
	for (int f = 0; f < BENCH_FRAMES; f++) {
		double t0 = bench_now();
		draw(c, st, m);
		t[f] = (bench_now() - t0) * 1e3;
	}
	qsort(t, BENCH_FRAMES, sizeof t[0], bench_cmp);
	return t[BENCH_FRAMES / 2];
}

static void draw_each(xb_canvas *c, void **st, const xb_model *m)
{
	for (size_t p = 0; panels[p]; p++) {
		canvas_clear(c, XB_EL_NORMAL);
		panels[p]->draw(st[p], m, c, canvas_bounds(c), 1);
	}
}

static size_t one_panel; /* the panel draw_one draws */

static void draw_one(xb_canvas *c, void **st, const xb_model *m)
{
	canvas_clear(c, XB_EL_NORMAL);
	panels[one_panel]->draw(st[one_panel], m, c, canvas_bounds(c), 1);
}

static void draw_overview(xb_canvas *c, void **st, const xb_model *m)
{
	canvas_clear(c, XB_EL_NORMAL);
	int cw = c->w / 3, ch = c->h / 3;
	for (size_t p = 0; panels[p] && p < 9; p++) {
		int col = (int)p % 3, row = (int)p / 3;
		xb_rect r = {col * cw, row * ch, col == 2 ? c->w - 2 * cw : cw,
			     row == 2 ? c->h - 2 * ch : ch};
		panels[p]->draw(st[p], m, c, r, p == 0);
	}
}

int main(void)
{
	xb_err err;
	xb_target tg;
	if (target_load(&tg, "rp2040", &err) != 0) {
		fprintf(stderr, "bench_panels: %s\n", err.msg);
		return 1;
	}
	xb_image img;
	synth_image(&img, BENCH_FUNCTIONS, 11);
	bench_libraries(&img);
	xb_liveprof *prof = liveprof_new(&img, 8, NULL);
	uint64_t r = 77;
	xb_live_sample batch[1024];
	size_t nb = 0;
	for (uint64_t k = 0; k < BENCH_SAMPLES; k++) {
		size_t a = bench_rand(&r) % BENCH_HOT, b = bench_rand(&r) % BENCH_HOT;
		const xb_function *f = &img.funcs[a < b ? a : b];
		batch[nb++] = (xb_live_sample){
			(f->addr + (uint32_t)(bench_rand(&r) % f->size)) & ~1u,
			k % 50 ? 0 : XB_SAMPLE_SLEEP, SEC + k * (120 * SEC / BENCH_SAMPLES)};
		if (nb == 1024) {
			liveprof_add(prof, batch, nb);
			nb = 0;
		}
	}
	liveprof_add(prof, batch, nb);
	liveprof_advance(prof, 121 * SEC);
	xb_setmap sets;
	setmap_init(&sets, &tg);
	setmap_update(&sets, &tg, prof, XB_WINDOW_10S);
	double *per_set = xmalloc(sets.nsets * sizeof *per_set);
	for (uint32_t s = 0; s < sets.nsets; s++)
		per_set[s] = sets.hot[s] * 1.5;
	setmap_set_predicted(&sets, per_set, "bench");
	setmap_set_live(&sets, per_set);
	xb_series series[XB_SERIES_COUNT];
	xb_logring log;
	logring_init(&log, 1000);
	for (int i = 0; i < 1000; i++)
		logring_printf(&log, (uint64_t)i * SEC / 10, i % 3, i % 7 == 0 ? XB_LOG_WARN : 0,
			       "line %d of the log: something the board or xipbench said", i);
	xb_model m;
	model_init(&m);
	for (int i = 0; i < XB_SERIES_COUNT; i++) {
		series_init(&series[i], "figure", "/s", SEC, 600, 0);
		for (int t = 0; t < 600; t++)
			series_set(&series[i], (uint64_t)t * SEC, 100 + 50 * sin(t / 20.0) + i);
		series_mark(&series[i], 300 * SEC, "layout");
		m.series[i] = &series[i];
	}
	m.tg = &tg;
	m.img = &img;
	m.prof = prof;
	m.sets = &sets;
	m.log = &log;
	m.help = bench_help;
	m.nhelp = sizeof bench_help / sizeof bench_help[0];
	m.echo_rate = 412;
	m.turnaround_ms = 0.885;
	m.misses_per_echo = 940;

	/* the layout loop: a planning profile, an editor with a colouring and SRAM edits, a
	 * flashed layout, the pending set map, and runs with profiles and set maps */
	xb_samples ps;
	samples_init(&ps);
	synth_samples(&ps, &img, BENCH_HOT, 200000, 9);
	xb_profile pp;
	profile_build(&pp, &img, &ps, tg.cache.line);
	xb_plan_input in = {.img = &img, .tg = &tg, .prof = &pp, .sram_budget = 16384,
			    .pad_budget = 16384};
	xb_editor *ed = editor_new(&in, NULL, &err);
	if (!ed || editor_apply_preset(ed, "colour", 0, NULL, &err) != 0) {
		fprintf(stderr, "bench_panels: the layout editor: %s\n", err.msg);
		return 1;
	}
	for (int f = 0; f < 20; f++) {
		int x = BENCH_HOT + f;
		editor_place(ed, &x, 1, (xb_edit_place){XB_PLACE_SRAM, 0}, NULL, &err);
	}
	xb_layout flashed;
	layout_init(&flashed);
	for (int f = 0; f < 100; f++)
		layout_add(&flashed, f, XB_PLACE_HOT, 0);
	xb_setmap psets;
	setmap_init(&psets, &tg);
	setmap_update_moved(&psets, &tg, &pp, editor_placement(ed));
	m.ed = ed;
	m.base = &img;
	m.plan_prof = &pp;
	m.flashed_layout = &flashed;
	m.pending_sets = &psets;
	m.flashed = (xb_model_image){"colour", 1154, 1180, 610, 0.885, 412, 2812, 0};
	m.pending.model = "trace replay";
	m.pending.misses_per_echo = 742;
	m.pending.opt_bound_per_echo = 601;
	static xb_run runs[BENCH_RUNS];
	static const xb_run *run_list[BENCH_RUNS];
	xb_run_func *rf = xcalloc((size_t)BENCH_RUNS * BENCH_FUNCTIONS, sizeof *rf);
	uint16_t *hot = xcalloc((size_t)BENCH_RUNS * sets.nsets, sizeof *hot);
	for (int k = 0; k < BENCH_RUNS; k++) {
		xb_run *run = &runs[k];
		history_run_init(run);
		run->id = k + 1;
		run->layout = k ? "colour" : "stock";
		run->extra_ram_bytes = k % 3 ? 0 : 4096 * k;
		run->misses_per_echo = 2000 - 100 * k;
		snprintf(run->time, sizeof run->time, "2026-05-01T12:%02d:00Z", k);
		for (int i = 0; i < BENCH_FUNCTIONS; i++) {
			xb_run_func *f = &rf[(size_t)k * BENCH_FUNCTIONS + i];
			const xb_library *lib = &img.libraries[img.funcs[i].library];
			*f = (xb_run_func){img.funcs[i].name, lib->name, lib->group,
					   (double)((i * 7 + k * 13) % 97), img.funcs[i].size};
		}
		run->funcs = &rf[(size_t)k * BENCH_FUNCTIONS];
		run->nfuncs = BENCH_FUNCTIONS;
		for (uint32_t s = 0; s < sets.nsets; s++)
			hot[(size_t)k * sets.nsets + s] = (uint16_t)((s * 7 + (uint32_t)k) % 5);
		run->set_hot = &hot[(size_t)k * sets.nsets];
		run->nsets = sets.nsets;
		run_list[k] = run;
	}
	m.runs = run_list;
	m.nruns = BENCH_RUNS;
	m.history = "runs.db";

	void *st[16];
	size_t np = 0;
	for (; panels[np]; np++)
		st[np] = panels[np]->create();
	xb_panel_result res;
	for (size_t p = 0; p < np; p++)
		if (panels[p] == &panel_compare) { /* runs A and B chosen: the diff is drawn */
			panels[p]->command(st[p], &m, "enter", NULL, &res);
			panels[p]->command(st[p], &m, "down", NULL, &res);
			panels[p]->command(st[p], &m, "enter", NULL, &res);
		}
	xb_canvas *c = canvas_new(BENCH_W, BENCH_H);
	double each = bench_frames(draw_each, c, st, &m);
	double overview = bench_frames(draw_overview, c, st, &m);
	printf("workbench frame %dx%d, every panel: %.2f ms (target < 5 ms, aim 1 ms)\n", BENCH_W,
	       BENCH_H, each);
	printf("workbench overview %dx%d, every panel in a 3x3 grid: %.2f ms (target < 5 ms, aim "
	       "1 ms)\n", BENCH_W, BENCH_H, overview);
	printf("  each panel at %dx%d:", BENCH_W, BENCH_H);
	for (one_panel = 0; one_panel < np; one_panel++)
		printf(" %s %.2f ms%s", panels[one_panel]->name, bench_frames(draw_one, c, st, &m),
		       one_panel + 1 < np ? "," : "\n");
	canvas_free(c);
	for (size_t p = 0; p < np; p++)
		panels[p]->destroy(st[p]);
	for (int i = 0; i < XB_SERIES_COUNT; i++)
		series_free(&series[i]);
	logring_free(&log);
	free(per_set);
	setmap_free(&sets);
	setmap_free(&psets);
	editor_free(ed);
	layout_free(&flashed);
	profile_free(&pp);
	samples_free(&ps);
	free(rf);
	free(hot);
	liveprof_free(prof);
	bench_libraries_free(&img);
	synth_image_free(&img);
	return 0;
}
