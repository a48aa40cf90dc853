/* triage: the triage (core/triage.h) of the image the bench runs, for the triage panel: made
 * from what the workbench has (the image, its ELF's bytes, the live profile's samples, a
 * fetch trace of this image, the build folder's configuration) when the panel is shown and
 * what it reads changed, never on every frame; a run that fails keeps the last good one. And
 * `try`: the selected finding's command, run as if typed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/mpu.h"
#include "../core/trace.h"
#include "../core/triage.h"
#include "../panels/widgets.h"
#include "app.h"
#include "edit.h"

#define TRIAGE_REFRESH_NS 5000000000ull /* new samples: a new triage at most this often */
#define TRIAGE_MAX_SAMPLES 262144.0     /* the live profile's counts are scaled down to this */

struct app_triage {
	xb_triage t;
	int have;               /* t holds a good triage */
	unsigned version;
	/* what the last run read, to see when it changed */
	int ran;
	const xb_image *img;
	char *image;
	const xb_trace *trace;
	unsigned trace_key;
	int window, subtract;
	uint64_t samples_seen;
	uint64_t ran_ns;        /* wall clock */
	/* the ELF's bytes and the build configuration, read again when the image changes */
	char *elf_of, *elf, *cfg_path, *cfg;
	size_t elf_len, cfg_len;
	/* a trace file (--trace, :trace) and the image it was loaded for */
	char *trace_path, *trace_image;
	xb_trace file_trace;
	int file_trace_state;   /* 0 not read, 1 read, -1 unreadable */
	int opt_trace_seen;
	unsigned file_trace_key;
	xb_samples smp;
	int scaled;             /* smp holds fewer samples than the window */
	/* the chip's registers, read over SWD at each run */
	int have_ctrl, have_mpu;
	uint32_t ctrl;
	xb_mpu mpu;
	/* what the model shows */
	char samples_text[128], trace_text[160], regs_text[64], error[sizeof((xb_err *)0)->msg];
};

static uint64_t triage_wall_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static app_triage *triage_state(xb_app *a)
{
	if (!a->triage) {
		a->triage = xcalloc(1, sizeof *a->triage);
		trace_init(&a->triage->file_trace);
		samples_init(&a->triage->smp);
	}
	return a->triage;
}

void app_triage_close(xb_app *a)
{
	app_triage *tr = a->triage;
	if (!tr)
		return;
	if (tr->have)
		triage_free(&tr->t);
	trace_free(&tr->file_trace);
	samples_free(&tr->smp);
	free(tr->image);
	free(tr->elf_of);
	free(tr->elf);
	free(tr->cfg_path);
	free(tr->cfg);
	free(tr->trace_path);
	free(tr->trace_image);
	free(tr);
	a->triage = NULL;
}

void app_triage_trace(xb_app *a, const char *path)
{
	app_triage *tr = triage_state(a);
	const char *image = session_image_path(a->s);
	free(tr->trace_path);
	free(tr->trace_image);
	tr->trace_path = xstrdup(path);
	tr->trace_image = image ? xstrdup(image) : NULL;
	trace_free(&tr->file_trace);
	trace_init(&tr->file_trace);
	tr->file_trace_state = 0;
	tr->file_trace_key++;
}

/* ---- The inputs ---- */

typedef struct live_line {
	uint32_t pc;
	double v;
} live_line;

typedef struct lines_ctx {
	const xb_image *img;
	live_line *v;
	size_t n, cap;
	double sum;
} lines_ctx;

static void on_line(void *ctx, uint32_t line, size_t func, double value)
{
	lines_ctx *x = ctx;
	if (!(value > 0))
		return;
	uint32_t pc = line;
	if (func < x->img->nfuncs && pc < (x->img->funcs[func].addr & ~1u))
		pc = x->img->funcs[func].addr & ~1u; /* a line shared with the function before */
	xb_grow(&x->v, &x->cap, x->n + 1, sizeof *x->v);
	x->v[x->n++] = (live_line){pc, value};
	x->sum += value;
}

static void push_n(xb_samples *s, uint32_t pc, uint32_t flags, double n)
{
	for (long k = lround(n); k > 0; k--)
		samples_push(s, pc, flags);
}

/* The live profile's window as samples: each line's figure (busy, or busy minus idle as the
 * profile shows it) at the line's address, the busy samples in no function and the sleeping
 * ones at 0xFFFFFFFF (counted, never a line); scaled down when there are many. */
static int live_samples(const xb_liveprof *p, const xb_image *img, int window, xb_samples *out)
{
	samples_free(out);
	samples_init(out);
	lines_ctx x = {.img = img};
	liveprof_each_line(p, window, on_line, &x);
	xb_liveprof_totals tot;
	liveprof_totals(p, window, &tot);
	double total = x.sum + (double)tot.unattributed + (double)tot.sleep;
	double scale = total > TRIAGE_MAX_SAMPLES ? TRIAGE_MAX_SAMPLES / total : 1;
	for (size_t i = 0; i < x.n; i++)
		push_n(out, x.v[i].pc, 0, x.v[i].v * scale);
	push_n(out, 0xFFFFFFFFu, 0, (double)tot.unattributed * scale);
	push_n(out, 0xFFFFFFFFu, XB_SAMPLE_SLEEP, (double)tot.sleep * scale);
	free(x.v);
	return scale < 1;
}

/* A fetch trace of this image: the planning profile's when the image is the loop's base,
 * else a trace file given for it. */
static const xb_trace *pick_trace(xb_app *a, app_triage *tr, const char *image, unsigned *key)
{
	*key = 0;
	if (a->edit && a->edit->loop) {
		xb_plan_input *in = editloop_plan_input(a->edit->loop);
		if (in->trace && in->img && in->img->path && strcmp(in->img->path, image) == 0) {
			*key = editloop_inputs_version(a->edit->loop) << 1;
			snprintf(tr->trace_text, sizeof tr->trace_text, "the planning profile's");
			return in->trace;
		}
	}
	if (!tr->opt_trace_seen) { /* --trace: a trace of the image the workbench started on */
		tr->opt_trace_seen = 1;
		const char *opt = options_text(&a->opt, "trace");
		if (opt && !tr->trace_path) {
			tr->trace_path = xstrdup(opt);
			tr->trace_image = a->elf ? xstrdup(a->elf) : NULL;
		}
	}
	if (!tr->trace_path || !tr->trace_image || strcmp(tr->trace_image, image) != 0)
		return NULL;
	if (tr->file_trace_state == 0) {
		xb_err err;
		int rc = trace_read_file(&tr->file_trace, tr->trace_path, &err);
		tr->file_trace_state = rc == 0 ? 1 : -1;
		if (rc != 0)
			app_message(a, 1, "triage: %s", err.msg);
	}
	if (tr->file_trace_state < 0)
		return NULL;
	const char *slash = strrchr(tr->trace_path, '/');
	snprintf(tr->trace_text, sizeof tr->trace_text, "%s", slash ? slash + 1 : tr->trace_path);
	*key = tr->file_trace_key << 1 | 1;
	return &tr->file_trace;
}

/* The ELF's bytes and the build folder's configuration, when the image is another. A
 * folder without its configuration file has none (as `xipbench triage` takes it). */
static int read_files(xb_app *a, app_triage *tr, const char *image, xb_err *err)
{
	if (tr->elf_of && strcmp(tr->elf_of, image) == 0)
		return 0;
	char *elf = NULL;
	size_t len = 0;
	if (xb_read_file(image, &elf, &len, err) != 0)
		return -1;
	free(tr->elf);
	free(tr->elf_of);
	tr->elf = elf;
	tr->elf_len = len;
	tr->elf_of = xstrdup(image);
	free(tr->cfg);
	free(tr->cfg_path);
	tr->cfg = tr->cfg_path = NULL;
	tr->cfg_len = 0;
	if (a->build.kind == XB_BUILD_ZEPHYR || a->build.kind == XB_BUILD_PICO_SDK) {
		char *path = xasprintf(a->build.kind == XB_BUILD_ZEPHYR ? "%s/zephyr/.config"
									: "%s/CMakeCache.txt",
				       a->build.dir);
		xb_err e2;
		if (xb_read_file(path, &tr->cfg, &tr->cfg_len, &e2) == 0)
			tr->cfg_path = path;
		else
			free(path);
	}
	return 0;
}

/* ---- Running it ---- */

void app_triage_invalidate(xb_app *a)
{
	if (a->triage)
		a->triage->ran = 0;
}

/* XIP_CTRL and, on a target whose MPU sets the flash's cacheability, the MPU: read over SWD
 * through the session's probe, as the command line's --bench does. A bench without a probe
 * (or one that fails) leaves them out: the rules say so. */
static void read_registers(xb_app *a, app_triage *tr, const xb_target *tg, char *note, size_t cap)
{
	tr->have_ctrl = tr->have_mpu = 0;
	note[0] = 0;
	if (!a->s)
		return;
	xb_report rep;
	if (tg->reg_ctrl) {
		xb_mem_access acc = {.addr = tg->reg_ctrl};
		if (session_swd_access(a->s, &acc, 1, &rep) == 0) {
			tr->have_ctrl = 1;
			tr->ctrl = acc.value;
			snprintf(note, cap, "XIP_CTRL 0x%08x", acc.value);
		}
	}
	if (tg->mpu != XB_MPU_NONE && session_read_mpu(a->s, &tr->mpu, &rep) == 0) {
		tr->have_mpu = 1;
		snprintf(note + strlen(note), cap - strlen(note), "%sthe MPU's %d regions",
			 note[0] ? ", " : "", tr->mpu.nregions);
	}
}

static void run(xb_app *a, app_triage *tr, const xb_trace *trace)
{
	const xb_model *m = &a->model;
	xb_err err;
	tr->ran = 1;
	tr->ran_ns = triage_wall_ns();
	tr->samples_seen = m->samples;
	if (read_files(a, tr, m->image, &err) != 0) {
		snprintf(tr->error, sizeof tr->error, "%s", err.msg);
		app_message(a, 1, "triage: %s", err.msg);
		return;
	}
	const xb_target *tg = m->tg ? m->tg : &a->tg;
	read_registers(a, tr, tg, tr->regs_text, sizeof tr->regs_text);
	if (m->prof) {
		tr->scaled = live_samples(m->prof, m->img, m->window, &tr->smp);
		snprintf(tr->samples_text, sizeof tr->samples_text, "live profile, %s, %s%s",
			 wg_window_name(m->window),
			 m->subtract ? "idle subtracted" : "idle not subtracted",
			 tr->scaled ? ", scaled down" : "");
	}
	xb_triage_in in = {0};
	in.img = m->img;
	in.tg = tg;
	in.have_xip_ctrl = tr->have_ctrl;
	in.xip_ctrl = tr->ctrl;
	in.mpu = tr->have_mpu ? &tr->mpu : NULL;
	in.samples = m->prof && tr->smp.n ? &tr->smp : NULL;
	in.trace = trace;
	in.elf = (const uint8_t *)tr->elf;
	in.elf_len = tr->elf_len;
	in.config = tr->cfg;
	in.config_name = tr->cfg_path;
	xb_triage t;
	if (triage_run(&in, &t, &err) != 0) {
		snprintf(tr->error, sizeof tr->error, "%s", err.msg);
		app_message(a, 1, "triage: %s (the last good triage stays)", err.msg);
		return;
	}
	if (tr->have)
		triage_free(&tr->t);
	tr->t = t;
	tr->have = 1;
	tr->version++;
	tr->error[0] = 0;
	if (!in.samples)
		tr->samples_text[0] = 0;
	if (!trace)
		tr->trace_text[0] = 0;
}

void app_triage_update(xb_app *a)
{
	app_triage *tr = triage_state(a);
	xb_model *m = &a->model;
	int i = app_panel_index(a, "triage");
	int shown = i >= 0 && ((size_t)i == a->focus || a->prect[i].w > 0);
	if (shown && m->img && m->image) {
		unsigned key;
		const xb_trace *trace = pick_trace(a, tr, m->image, &key);
		int changed = !tr->ran || m->img != tr->img || !tr->image ||
			      strcmp(m->image, tr->image) != 0 || trace != tr->trace ||
			      key != tr->trace_key || m->window != tr->window ||
			      m->subtract != tr->subtract;
		int fresh = m->samples != tr->samples_seen &&
			    triage_wall_ns() - tr->ran_ns >= TRIAGE_REFRESH_NS;
		if (changed || fresh) {
			tr->img = m->img;
			free(tr->image);
			tr->image = xstrdup(m->image);
			tr->trace = trace;
			tr->trace_key = key;
			tr->window = m->window;
			tr->subtract = m->subtract;
			run(a, tr, trace);
		}
	}
	m->triage = tr->have ? &tr->t : NULL;
	m->triage_version = tr->version;
	m->triage_samples = tr->have && tr->samples_text[0] ? tr->samples_text : NULL;
	m->triage_trace = tr->have && tr->trace_text[0] ? tr->trace_text : NULL;
	m->triage_config = tr->have ? tr->cfg_path : NULL;
	m->triage_registers = tr->have && tr->regs_text[0] ? tr->regs_text : NULL;
	m->triage_error = tr->error[0] ? tr->error : NULL;
}

/* ---- try ---- */

int act_try(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)argv;
	size_t k = a->focus;
	if (strcmp(a->ops[k]->name, "triage") != 0)
		return act_done(msg, cap, XB_ACT_ERROR, "try: the triage panel's findings have "
			    "commands to try (8 shows it)");
	xb_panel_result res = {0};
	a->ops[k]->command(a->pst[k], &a->model, "try", NULL, &res);
	if (!(res.flags & XB_PANEL_RUN))
		return act_done(msg, cap, res.flags & XB_PANEL_ERROR ? XB_ACT_ERROR : 0, "%s",
				res.msg);
	char line[sizeof res.msg + 64];
	snprintf(line, sizeof line, "%s", res.msg[0] == ':' ? res.msg + 1 : res.msg);
	int flags = actions_command(a, line, msg, cap);
	if (flags & XB_ACT_ERROR)
		return flags;
	/* a layout edit is tried by the loop: relink, verify, flash, measure */
	char verb[32];
	snprintf(verb, sizeof verb, "%.*s", (int)strcspn(line, " "), line);
	const xb_action *x = NULL;
	for (const xb_action *y = app_actions; y->name; y++)
		if (strcmp(y->name, verb) == 0)
			x = y;
	if (!x || strcmp(x->group, "Layout") != 0)
		return flags;
	char done[256];
	snprintf(done, sizeof done, "%s", msg);
	flags = actions_command(a, "loop", msg, cap);
	if (flags & XB_ACT_ERROR)
		return flags;
	size_t n = strlen(msg);
	snprintf(msg + n, cap - n, " (after :%s: %s)", line, done);
	return flags;
}
