/* cmd_experiment: `xipbench experiment`: the layout study (../shared/seeds/000_3922d7c312d3ad89.txt)
 * end to end on the virtual Pico: build the echo firmware's variants, profile them (PC samples through the
 * virtual probe, a fetch trace), plan layouts, relink with the fragments, reflash through
 * the probe, measure with the study's metrics, print the study's two tables with the
 * planner's prediction and the OPT bound beside every row, and keep every run in runs.db.
 * On another image (--elf, --zephyr, --pico-sdk) the same measurements and plans: its
 * layouts are relinked by a build command, or, without one, only predicted and marked so. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/buildsys.h"
#include "../core/export.h"
#include "../core/history.h"
#include "../core/sha256.h"
#include "../core/target.h"
#include "cli.h"
#include "experiment.h"
#include "load.h"
#include "sim_net.h"

/* ---- What is run ---- */

enum { T1 = 1, T2 = 2 };
enum { PROF_NONE = -1, PROF_PING = 0, PROF_LTO_PING, PROF_LTO_MIXED, PROF_N };

typedef struct exp_variant {
	const char *name;  /* the firmware Makefile's variant folder */
	const char *arg;   /* its make argument (NULL: none) */
	const char *label; /* for history: the build variant */
	int built;
	char *elf;
} exp_variant;

enum { V_DEFAULT = 0, V_LTO, V_XIP_OFF, V_N };

typedef struct exp_profile_def {
	const char *name;
	int variant;
	int udp;           /* UDP after the pings */
	int predict_with;  /* the profile whose trace predicts ping misses (itself: -1) */
	int done;
	char *trace, *samples;
} exp_profile_def;

typedef struct exp_row {
	const char *name;     /* the layout key (JSON, history, folder) */
	const char *label;    /* the tables' text */
	int variant;
	const char *strategy; /* NULL: the variant's own link */
	int profile;
	uint32_t sram_budget;
	const char *sram_libs;
	int tables;
	int quick;            /* part of --quick */
	/* results */
	int selected, ok;
	char *elf;
	char hash[65];
	xb_measure_result m;
	xb_prediction pred;
	int predicted;
	int measured;         /* 0: planned and predicted only (another image, no build command) */
	char *map;            /* another image: the measured image's map */
	char *skip;           /* another image: why this layout could not be planned */
	double seconds;       /* wall time of plan, relink and measurement */
	double plan_seconds;  /* planning alone */
	xb_plan_search_stats search;
} exp_row;

static exp_variant variants[V_N] = {
	{"default", NULL, "stock", 0, NULL},
	{"lto", "LTO=1", "LTO=1", 0, NULL},
	{"xip_off", "XIP_CACHE=off", "XIP_CACHE=off", 0, NULL},
};

static exp_profile_def profiles[PROF_N] = {
	{.name = "ping", .variant = V_DEFAULT, .predict_with = -1},
	{.name = "lto-ping", .variant = V_LTO, .predict_with = -1},
	{.name = "lto-udp-ping", .variant = V_LTO, .udp = 1, .predict_with = PROF_LTO_PING},
};

#define KB 1024u
static exp_row rows[] = {
	{"stock", "Stock", V_DEFAULT, NULL, PROF_PING, 0, NULL, T1 | T2, 1},
	{"lto", "LTO", V_LTO, NULL, PROF_LTO_PING, 0, NULL, T1, 1},
	{"hot", "Hot block", V_DEFAULT, "hot", PROF_PING, 0, NULL, T1, 1},
	{"colour", "Cache colouring (ping profile)", V_DEFAULT, "colour", PROF_PING, 0, NULL,
	 T1 | T2, 1},
	{"lto-colour", "LTO + colouring (UDP + ping profile)", V_LTO, "colour", PROF_LTO_MIXED, 0,
	 NULL, T1 | T2, 0},
	{"xip-off", "Stock, XIP cache left off at boot", V_XIP_OFF, NULL, PROF_NONE, 0, NULL,
	 T1, 1},
	{"colour-sram-4k", "Coloured + 4 KB in SRAM", V_DEFAULT, "sram", PROF_PING, 4 * KB, NULL, T2,
	 1},
	{"colour-sram-8k", "Coloured + 8 KB in SRAM", V_DEFAULT, "sram", PROF_PING, 8 * KB, NULL, T2,
	 0},
	{"colour-sram-12k", "Coloured + 12 KB in SRAM", V_DEFAULT, "sram", PROF_PING, 12 * KB, NULL,
	 T2, 1},
	{"colour-sram-16k", "Coloured + 16 KB in SRAM", V_DEFAULT, "sram", PROF_PING, 16 * KB, NULL,
	 T2, 0},
	{"colour-sram-20k", "Coloured + 20 KB in SRAM", V_DEFAULT, "sram", PROF_PING, 20 * KB, NULL,
	 T2, 0},
	{"net-usb-sram", "Whole network + USB libraries in SRAM", V_DEFAULT, "sram", PROF_PING,
	 256 * KB, "net,usb", T2, 0},
};
#define NROWS (sizeof rows / sizeof rows[0])

/* The study's method, and the short one of --quick. */
static const uint32_t full_rates[] = {50,   100,  150,  200,  300,  400,  500,  750,  1000,
				      1250, 1500, 1750, 2000, 2500, 3000, 3500, 4000, 5000};
static const uint32_t quick_rates[] = {50, 100, 250, 500, 1000, 1500, 2000, 3000, 4000};

/* Another image (--elf, --zephyr, --pico-sdk) in place of the echo firmware: measured as
 * given, its layouts planned on its own profile, relinked by the build command or, without
 * one, predicted only. */
typedef struct exp_image {
	const char *elf, *map;       /* as given (the map: found beside the ELF when not given) */
	char *copy, *copy_map;       /* the copies in DIR/image/ that everything works on (a
				      * relink in a build folder overwrites the folder's ELF) */
	enum xb_build_kind kind;     /* from its map and functions */
	const char *device_ip, *peer_ip, *netmask; /* as given, or NULL */
	uint8_t dev[4], peer[4], mask[4];
	exp_board board;
	const char *command;         /* the build command template, or NULL */
	xb_builder builder;
	char *build_dir;             /* DIR/build: the template's {build_dir} */
} exp_image;

typedef struct exp_ctx {
	const char *cmd;
	const char *fwdir;
	char *out, *fwbuild, *log, *db;
	xb_target tg;
	xb_measure_plan m;
	unsigned profile_pings;
	int quick, json, pcaps;
	double started;
	int ext;                     /* another image: img */
	exp_image img;
	uint64_t search_moves, seed; /* the colouring's local search (xb_plan_input) */
	double search_seconds;
} exp_ctx;

/* The local search of the colour and SRAM rows, unless --search-moves says otherwise. */
#define EXP_SEARCH_MOVES 150000
#define EXP_SEARCH_SECONDS 60.0

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(const exp_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(const exp_ctx *c, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "[%6.1f s] ", wall_now() - c->started);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- Steps ---- */

static int build_variant(exp_ctx *c, int v, xb_err *err)
{
	exp_variant *x = &variants[v];
	if (x->built)
		return 0;
	char *bd = xasprintf("BUILD_DIR=%s", c->fwbuild);
	const char *args[3] = {bd, x->arg, NULL};
	progress(c, "build the firmware, variant %s", x->name);
	int rc = exp_make(c->fwdir, args, c->log, err);
	free(bd);
	if (rc)
		return -1;
	x->elf = xasprintf("%s/%s/echo.elf", c->fwbuild, x->name);
	if (access(x->elf, R_OK) != 0)
		return xb_fail(err, "the build gave no %s (see %s)", x->elf, c->log);
	x->built = 1;
	return 0;
}

static int run_profile(exp_ctx *c, int pi, xb_err *err)
{
	exp_profile_def *p = &profiles[pi];
	if (p->done)
		return 0;
	if (build_variant(c, p->variant, err))
		return -1;
	p->trace = xasprintf("%s/profiles/%s.trace", c->out, p->name);
	p->samples = xasprintf("%s/profiles/%s.samples", c->out, p->name);
	char *dir = xasprintf("%s/profiles", c->out);
	int rc = xb_mkdirs(dir, err);
	free(dir);
	if (rc)
		return -1;
	exp_profile_req req = {.pings = c->profile_pings, .interval_ms = c->m.interval_ms,
			       .udp_rate = p->udp ? 500 : 0, .udp_seconds = c->quick ? 0.2 : 0.6,
			       .trace_path = p->trace, .samples_path = p->samples,
			       .board = c->ext ? &c->img.board : NULL};
	progress(c, "profile %s: %u pings%s, PC samples through the virtual probe, fetch trace",
		 p->name, req.pings, p->udp ? " then UDP echoes" : "");
	if (exp_profile(&c->tg, variants[p->variant].elf, &req, err))
		return -1;
	p->done = 1;
	return 0;
}

static const char *predict_trace(int pi)
{
	const exp_profile_def *p = &profiles[pi];
	return p->predict_with >= 0 ? profiles[p->predict_with].trace : p->trace;
}

/* Another image's layout, relinked by the build command into DIR/images/NAME.elf and
 * verified against the plan (and with pred, predicted as linked from trace). */
static int relink_image(exp_ctx *c, exp_row *r, const char *dir, const char *trace,
			xb_prediction *pred, xb_err *err)
{
	r->elf = xasprintf("%s/images/%s.elf", c->out, r->name);
	exp_relink_req q = {.builder = &c->img.builder, .stock_elf = c->img.copy,
			    .stock_map = c->img.copy_map, .build_dir = c->img.build_dir,
			    .layout_dir = dir, .name = r->name, .elf = r->elf, .log = c->log,
			    .predict_trace = trace, .pred = pred};
	int rc = exp_relink_with(&c->tg, &q, err);
	r->map = q.map_out;
	return rc;
}

static int run_row(exp_ctx *c, exp_row *r, xb_err *err)
{
	double t0 = wall_now();
	if (build_variant(c, r->variant, err))
		return -1;
	if (r->profile >= 0) {
		if (run_profile(c, r->profile, err))
			return -1;
		const exp_profile_def *p = &profiles[r->profile];
		if (p->predict_with >= 0 && run_profile(c, p->predict_with, err))
			return -1;
	}
	const exp_variant *v = &variants[r->variant];
	const char *stock_map = c->ext ? c->img.copy_map : NULL;
	if (!r->strategy) {
		r->elf = xstrdup(v->elf);
		r->map = stock_map ? xstrdup(stock_map) : NULL;
		if (r->profile >= 0) {
			if (exp_predict_stock(&c->tg, r->elf, stock_map, predict_trace(r->profile),
					      &r->pred, err))
				return -1;
			r->predicted = 1;
		}
	} else {
		char *dir = xasprintf("%s/layouts/%s", c->out, r->name);
		exp_plan_req pr = {.elf = v->elf, .samples = profiles[r->profile].samples,
				   .trace = profiles[r->profile].trace,
				   .predict_trace = predict_trace(r->profile), .strategy = r->strategy,
				   .sram_budget = r->sram_budget, .pad_budget = 32768,
				   .sram_libs = r->sram_libs, .dir = dir, .map = stock_map,
				   .search_moves = (uint32_t)c->search_moves,
				   .search_seconds = c->search_moves ? c->search_seconds : 0,
				   .search_seed = c->seed};
		int relink = !c->ext || c->img.command;
		if (relink)
			progress(c, "%s: plan (%s), relink, verify", r->name, r->strategy);
		else
			progress(c, "%s: plan (%s) and predict (no build command: not relinked)", r->name,
				 r->strategy);
		int rc = exp_plan(&c->tg, &pr, err);
		if (rc && c->ext) {
			/* a layout the image cannot take (no place for the hot block before the
			 * build system's one-time step ...) is noted, and the others go on */
			free(dir);
			r->skip = xstrdup(err->msg);
			return 0;
		}
		if (rc == 0) {
			r->pred = pr.pred;
			r->predicted = 1;
			r->plan_seconds = pr.plan_seconds;
			r->search = pr.search;
			if (pr.search.moves)
				progress(c, "%s: planned in %.1f s; the search tried %u candidates (%u SRAM "
					    "trades, %u exchanges)%s, %.1f -> %.1f misses per echo on the "
					    "planning trace",
					 r->name, pr.plan_seconds, pr.search.moves, pr.search.trades,
					 pr.search.exchanges,
					 pr.search.timed_out ? ", stopped by --search-seconds" : "",
					 pr.search.start_misses, pr.search.end_misses);
			else
				progress(c, "%s: planned in %.2f s", r->name, pr.plan_seconds);
		}
		if (!relink) {
			/* the plan's prediction is all there is: the row says so */
			free(dir);
			r->ok = 1;
			exp_no_measurement(&r->m);
			r->seconds = wall_now() - t0;
			return 0;
		}
		/* the relinked image's prediction: its veneers where GNU ld put them */
		xb_prediction built;
		const char *trace = r->profile >= 0 ? predict_trace(r->profile) : NULL;
		xb_prediction *pred = trace ? &built : NULL;
		if (rc == 0 && c->ext) {
			rc = relink_image(c, r, dir, trace, pred, err);
		} else if (rc == 0) {
			r->elf = xasprintf("%s/%s/layouts/%s/echo.elf", c->fwbuild, v->name, r->name);
			rc = exp_relink(&c->tg, v->elf, c->fwbuild, v->arg, dir, r->name, r->elf, c->log,
					trace, pred, err);
		}
		if (rc == 0 && pred) {
			if (fabs(built.misses_per_echo - r->pred.misses_per_echo) >= 0.05)
				progress(c, "%s: as linked, predicted %.1f misses per echo (the plan's "
					    "%.1f: GNU ld orders the veneers its own way)",
					 r->name, built.misses_per_echo, r->pred.misses_per_echo);
			r->pred = built;
		}
		free(dir);
		if (rc)
			return -1;
	}
	if (sha256_file_hex(r->elf, r->hash, err))
		return -1;
	progress(c, "%s: flash through the virtual probe, measure", r->name);
	char *pcap = NULL;
	if (c->pcaps) {
		char *dir = xasprintf("%s/captures", c->out);
		int rc = xb_mkdirs(dir, err);
		free(dir);
		if (rc)
			return -1;
		pcap = xasprintf("%s/captures/%s.pcap", c->out, r->name);
	}
	exp_board b = c->img.board;
	b.map = r->map;
	int mrc = exp_measure_on(&c->tg, r->elf, c->ext ? &b : NULL, &c->m, pcap, &r->m, err);
	free(pcap);
	if (mrc)
		return -1;
	r->seconds = wall_now() - t0;
	r->ok = r->measured = 1;
	return 0;
}

/* ---- Output ---- */

static double pred_misses(const exp_row *r)
{
	return r->predicted ? r->pred.misses_per_echo : NAN;
}

static double pred_opt(const exp_row *r)
{
	return r->predicted ? r->pred.opt_bound_per_echo : NAN;
}

static long extra_ram(const exp_row *r)
{
	return r->strategy && r->predicted ? (long)r->pred.extra_ram : 0;
}

/* A measured row as a run of the history: what record_run keeps and the tables print. */
static void row_run(const exp_row *r, xb_run *run)
{
	history_run_init(run);
	memcpy(run->image_hash, r->hash, sizeof run->image_hash);
	run->image = r->elf;
	run->variant = variants[r->variant].label;
	run->layout = r->name;
	run->bench = "virtual";
	run->extra_ram_bytes = extra_ram(r);
	run->pad_bytes = r->strategy && r->predicted ? (int64_t)r->pred.pad_bytes : 0;
	run->misses_per_echo = r->m.misses_per_echo;
	run->predicted_misses_per_echo = pred_misses(r);
	run->opt_bound_misses_per_echo = pred_opt(r);
	run->turnaround_ms = r->m.turnaround_ms;
	run->peak_udp_echo_per_s = r->m.peak_udp_echo_per_s;
	run->footprint_lines = r->m.footprint_lines;
}

/* What another image's output says besides the rows: the image, the network, what was
 * only predicted and why, what was not measured. notes[] gets new strings; returns how
 * many. */
#define EXP_MAX_NOTES (NROWS + 4)
static size_t image_notes(const exp_ctx *c, char **notes)
{
	const exp_image *im = &c->img;
	size_t n = 0;
	char net[160];
	if (im->board.dhcp && !im->device_ip)
		snprintf(net, sizeof net, "the virtual host took its address from the image's DHCP "
					  "server and pinged that server's address");
	else if (im->board.dhcp)
		snprintf(net, sizeof net, "the virtual host took its address from the image's DHCP "
					  "server and pinged the image at %s", im->device_ip);
	else
		snprintf(net, sizeof net, "the virtual host %s pinged the image at %s",
			 im->peer_ip ? im->peer_ip : "192.0.2.2",
			 im->device_ip ? im->device_ip : "192.0.2.1");
	notes[n++] = xasprintf("Image: %s with its map %s (build system: %s), measured as given; %s.",
			       im->elf, im->map, buildsys_kind_name(im->kind), net);
	int predicted_only = 0;
	for (size_t i = 0; i < NROWS; i++)
		predicted_only += rows[i].ok && !rows[i].measured;
	if (predicted_only)
		notes[n++] = xasprintf(
			"Rows marked \"(predicted only)\" were planned on the stock image's profile but "
			"not relinked (no build command: --build-command, --zephyr or --pico-sdk): "
			"their Predicted and OPT bound columns are the planner's cache model replaying "
			"the stock image's measured fetch trace moved to the layout's addresses, and "
			"their Extra RAM is the plan's; nothing in them was measured.");
	if (!im->board.udp_port)
		notes[n++] = xasprintf("Peak UDP echo rate: not measured (no --udp-port: the port "
				       "where the image echoes UDP).");
	/* the rows that could not be planned, one note per reason */
	for (size_t i = 0; i < NROWS && n < EXP_MAX_NOTES; i++) {
		if (!rows[i].skip)
			continue;
		size_t j = 0;
		while (j < i && !(rows[j].skip && strcmp(rows[j].skip, rows[i].skip) == 0))
			j++;
		if (j < i)
			continue; /* noted with an earlier row */
		xb_strbuf names = {0};
		for (size_t k = i; k < NROWS; k++)
			if (rows[k].skip && strcmp(rows[k].skip, rows[i].skip) == 0)
				sb_printf(&names, "%s%s", names.len ? ", " : "", rows[k].name);
		notes[n++] = xasprintf("%s: not planned, no prediction: %s", names.buf, rows[i].skip);
		sb_free(&names);
	}
	return n;
}

/* A row's text in the tables: another image's rows that were only predicted say so. */
static const char *row_label(const exp_row *r, char *buf, size_t cap)
{
	if (r->measured)
		return r->label;
	size_t n = strcspn(r->label, "("); /* "Cache colouring (ping profile)": the first part */
	while (n > 0 && r->label[n - 1] == ' ')
		n--;
	snprintf(buf, cap, "%.*s (predicted only)", (int)n, r->label);
	return buf;
}

/* The planned rows: planning time, the search, and misses per echo against the OPT bound
 * and the stock layout. */
static void planning_table(const exp_ctx *c, xb_strbuf *sb)
{
	const exp_row *s = &rows[0];
	int any = 0;
	for (size_t i = 0; i < NROWS; i++) {
		const exp_row *r = &rows[i];
		if (!r->ok || !r->strategy || !r->predicted)
			continue;
		if (!any++)
			sb_printf(sb, "\nPlanning (seed %llu)                       Plan time  Candidates  "
				      "Misses/echo  x OPT bound  x stock\n",
				  (unsigned long long)c->seed);
		double m = r->measured ? r->m.misses_per_echo : r->pred.misses_per_echo;
		double stock = s->ok ? s->m.misses_per_echo : NAN;
		char label[96];
		sb_printf(sb, "%-42.42s %8.2f s  %10u  %11.1f  %11.2f  %7.3f\n",
			  row_label(r, label, sizeof label), r->plan_seconds, r->search.moves, m,
			  r->pred.opt_bound_per_echo > 0 ? m / r->pred.opt_bound_per_echo : NAN,
			  stock > 0 ? m / stock : NAN);
	}
	if (any)
		sb_puts(sb, "\n");
}

/* The study's two tables (core/export.c's), the stock footprint and the method. */
static void print_tables(const exp_ctx *c, FILE *f)
{
	xb_run runs[NROWS];
	xb_export_row trows[NROWS];
	char labels[NROWS][96];
	size_t n = 0;
	for (size_t i = 0; i < NROWS; i++) {
		const exp_row *r = &rows[i];
		if (!r->ok)
			continue;
		row_run(r, &runs[n]);
		trows[n].run = &runs[n];
		trows[n].label = row_label(r, labels[n], sizeof labels[n]);
		trows[n].tables = (r->tables & T1 ? EXPORT_TABLE_FLASH : 0) |
				  (r->tables & T2 ? EXPORT_TABLE_SRAM : 0);
		n++;
	}
	xb_strbuf sb = {0}, method = {0};
	export_tables_text(&sb, trows, n);
	const exp_row *s = &rows[0];
	if (s->ok)
		sb_printf(&sb, "\nFootprint of one ping (stock): %.0f lines (%.1f KB); the cache holds "
			       "%u lines (%u KB).\n",
			  s->m.footprint_lines, s->m.footprint_lines * c->tg.cache.line / 1024.0,
			  target_cache_lines(&c->tg), c->tg.cache.size / 1024);
	if (c->ext) {
		char *notes[EXP_MAX_NOTES];
		size_t nn = image_notes(c, notes);
		for (size_t i = 0; i < nn; i++) {
			sb_puts(&sb, "\n");
			export_wrap(&sb, notes[i], 100);
			free(notes[i]);
		}
		sb_puts(&sb, "\n");
	}
	planning_table(c, &sb);
	xb_method m;
	session_measure_method(&c->m, &m);
	export_method_text(&method, &m, 1);
	export_wrap(&sb, method.buf, 100);
	fputs(sb.buf, f);
	sb_free(&sb);
	sb_free(&method);
}

static void json_num(FILE *f, const char *key, double v, int decimals)
{
	fprintf(f, ", \"%s\": ", key);
	if (isnan(v))
		fputs("null", f);
	else
		fprintf(f, "%.*f", decimals, v);
}

static void json_text_or_null(FILE *f, const char *key, const char *v)
{
	fprintf(f, ", \"%s\": ", key);
	if (v)
		xb_json_string(f, v);
	else
		fputs("null", f);
}

/* Another image's keys: what was measured, how, and what was not. */
static void print_image_json(const exp_ctx *c, FILE *f)
{
	const exp_image *im = &c->img;
	json_text_or_null(f, "elf", im->elf);
	json_text_or_null(f, "map", im->map);
	json_text_or_null(f, "build_system", buildsys_kind_name(im->kind));
	json_text_or_null(f, "device_ip", im->device_ip);
	json_text_or_null(f, "peer_ip", im->peer_ip);
	fprintf(f, ", \"dhcp\": %s", im->board.dhcp ? "true" : "false");
	if (im->board.udp_port)
		fprintf(f, ", \"udp_port\": %u", im->board.udp_port);
	else
		fputs(", \"udp_port\": null", f);
	json_text_or_null(f, "build_command", im->command);
	fputs(", \"not_planned\": [", f);
	int first = 1;
	for (size_t i = 0; i < NROWS; i++) {
		if (!rows[i].skip)
			continue;
		fprintf(f, "%s{\"layout\": ", first ? "" : ", ");
		first = 0;
		xb_json_string(f, rows[i].name);
		fputs(", \"reason\": ", f);
		xb_json_string(f, rows[i].skip);
		fputc('}', f);
	}
	fputs("], \"notes\": [", f);
	char *notes[EXP_MAX_NOTES];
	size_t nn = image_notes(c, notes);
	for (size_t i = 0; i < nn; i++) {
		fputs(i ? ", " : "", f);
		xb_json_string(f, notes[i]);
		free(notes[i]);
	}
	fputc(']', f);
}

static void print_json(const exp_ctx *c, FILE *f)
{
	fprintf(f, "{\"quick\": %s, \"pings\": %u, \"interval_ms\": %.3f, \"udp_passes\": %u, "
		   "\"udp_rates\": [",
		c->quick ? "true" : "false", c->m.pings, c->m.interval_ms, c->m.passes);
	for (size_t i = 0; i < c->m.nrates; i++)
		fprintf(f, "%s%u", i ? ", " : "", c->m.rates[i]);
	fprintf(f, "], \"cache_lines\": %u, \"db\": ", target_cache_lines(&c->tg));
	xb_json_string(f, c->db);
	if (c->ext)
		print_image_json(c, f);
	fputs(", \"rows\": [", f);
	int first = 1;
	for (size_t i = 0; i < NROWS; i++) {
		const exp_row *r = &rows[i];
		if (!r->ok)
			continue;
		fprintf(f, "%s{\"layout\": ", first ? "" : ", ");
		first = 0;
		xb_json_string(f, r->name);
		char label[96];
		fputs(", \"label\": ", f);
		xb_json_string(f, row_label(r, label, sizeof label));
		if (c->ext)
			fprintf(f, ", \"measured\": %s", r->measured ? "true" : "false");
		fputs(", \"variant\": ", f);
		xb_json_string(f, variants[r->variant].label);
		fprintf(f, ", \"tables\": [%s%s%s]", r->tables & T1 ? "1" : "",
			(r->tables & T1) && (r->tables & T2) ? ", " : "", r->tables & T2 ? "2" : "");
		json_text_or_null(f, "strategy", r->strategy);
		json_text_or_null(f, "image", r->elf);
		json_text_or_null(f, "image_hash", r->measured ? r->hash : NULL);
		fprintf(f, ", \"extra_ram_bytes\": %ld", extra_ram(r));
		fprintf(f, ", \"pad_bytes\": %ld",
			r->strategy && r->predicted ? (long)r->pred.pad_bytes : 0L);
		json_num(f, "misses_per_echo", r->m.misses_per_echo, 3);
		json_num(f, "predicted_misses_per_echo", pred_misses(r), 3);
		json_num(f, "opt_bound_misses_per_echo", pred_opt(r), 3);
		json_num(f, "turnaround_ms", r->m.turnaround_ms, 6);
		json_num(f, "peak_udp_echo_per_s", r->m.peak_udp_echo_per_s, 1);
		json_num(f, "footprint_lines", r->m.footprint_lines, 0);
		fprintf(f, ", \"pings_sent\": %u, \"pings_replied\": %u, \"udp_sent\": %zu, "
			   "\"udp_replied\": %zu, \"idle_window_misses\": %llu, "
			   "\"traffic_window_misses\": %llu, \"flashed_bytes\": %zu",
			r->m.pings_sent, r->m.pings_replied, r->m.udp_sent, r->m.udp_replied,
			(unsigned long long)r->m.misses_idle,
			(unsigned long long)r->m.misses_traffic, r->m.flashed_bytes);
		json_num(f, "flash_seconds", r->m.flash_s, 6);
		json_num(f, "loop_wall_seconds", r->seconds, 3);
		json_num(f, "plan_seconds", r->strategy ? r->plan_seconds : NAN, 3);
		fprintf(f, ", \"search_candidates\": %u", r->search.moves);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

/* Adds a measured row to the history (as soon as it is measured: an experiment stopped
 * later keeps it), with what it takes to repeat it: the method, the image's bytes, the
 * layout's text. */
static int record_run(const exp_ctx *c, xb_history *h, const exp_row *r, xb_err *err)
{
	xb_run run;
	row_run(r, &run);
	xb_method m;
	session_measure_method(&c->m, &m);
	xb_strbuf method = {0};
	export_method_json(&method, &m);
	run.method = method.buf;
	char *elf = NULL, *layout = NULL;
	size_t elf_len = 0, layout_len = 0;
	int rc = xb_read_file(r->elf, &elf, &elf_len, err);
	if (rc == 0 && r->strategy) {
		char *path = xasprintf("%s/layouts/%s/layout.txt", c->out, r->name);
		rc = xb_read_file(path, &layout, &layout_len, err);
		free(path);
	}
	if (rc == 0) {
		run.image_data = (const uint8_t *)elf;
		run.image_len = elf_len;
		run.layout_text = layout;
		rc = history_add(h, &run, err);
	}
	free(elf);
	free(layout);
	sb_free(&method);
	return rc;
}

/* ---- The command ---- */

static const char usage[] =
	"usage: xipbench experiment [--quick] [--out DIR] [--db FILE] [--firmware DIR]\n"
	"                           [--layouts LIST] [--pings N] [--pcaps] [--json]\n"
	"       xipbench experiment (--elf FILE [--map FILE] | --zephyr DIR | --pico-sdk DIR)\n"
	"                           [--device-ip ADDR] [--peer-ip ADDR] [--netmask MASK]\n"
	"                           [--dhcp] [--udp-port PORT] [--build-command TEMPLATE]\n"
	"                           [the options above but --firmware]\n"
	"\n"
	"The layout study on the virtual Pico, end to end: can the arrangement of code in\n"
	"flash make a USB network stack fast on the Pico without much SRAM? It builds the echo\n"
	"firmware (stock, LTO=1, XIP_CACHE=off), profiles it (PC samples through the\n"
	"virtual CMSIS-DAP probe and a fetch trace, during pings; for LTO + colouring also\n"
	"UDP echoes), plans layouts (hot block, colouring, colouring + 4 to 20 KB of SRAM,\n"
	"the network and USB libraries in SRAM), relinks each with the fragments, flashes\n"
	"every image through the virtual probe and measures it: misses per echo (pings\n"
	"every 20 ms minus an idle window as long), ping turnaround (median, from the usbmon\n"
	"records), peak UDP echo rate (rate steps, several passes) and the footprint of one\n"
	"ping. Prints two tables (layouts without extra RAM; layouts with SRAM) with the\n"
	"predicted misses and the OPT bound beside every row and adds every run to the\n"
	"SQLite history. Virtual time: the results depend only on the firmware and the\n"
	"method.\n"
	"\n"
	"On another image (a pico-sdk or Zephyr network firmware, unmodified): the image as\n"
	"given is measured the same way (the UDP rate only with --udp-port) and profiled;\n"
	"the hot, colour and colour + SRAM layouts are planned on its profile, then relinked\n"
	"by the build command and measured, or, without one, only predicted: those rows say\n"
	"\"(predicted only)\" and nothing in them is measured.\n"
	"\n"
	"options:\n"
	"  --quick          the short version: 60 pings, fewer layouts and rate steps\n"
	"  --out DIR        builds, profiles, layouts and logs (default xipbench-experiment)\n"
	"  --db FILE        the run history (default DIR/runs.db)\n"
	"  --firmware DIR   the echo firmware's sources (default: the shipped firmware/)\n"
	"  --layouts LIST   only these rows (comma-separated layout names, e.g. stock,colour)\n"
	"  --pings N        pings per measurement instead of 300 (60 with --quick)\n"
	"  --pcaps          keep each measurement's usbmon capture: DIR/captures/LAYOUT.pcap\n"
	"  --json           print one JSON object (keys in docs/cli.md) instead of the tables\n"
	"  --elf FILE       measure this image instead of the echo firmware (with its map)\n"
	"  --map FILE       its map (default: FILE.map or FILE-without-.elf.map beside it)\n"
	"  --zephyr DIR, --pico-sdk DIR\n"
	"                   a build folder's image and map; its relink is the build command\n"
	"  --device-ip ADDR the image's address (default 192.0.2.1, or the DHCP server's)\n"
	"  --peer-ip ADDR   the virtual host's address (default 192.0.2.2)\n"
	"  --netmask MASK   the virtual host's netmask (default 255.255.255.0)\n"
	"  --dhcp           the virtual host takes its address from the image's DHCP server\n"
	"  --udp-port PORT  where the image echoes UDP: measure the peak UDP echo rate\n"
	"  --build-command TEMPLATE\n"
	"                   relinks a layout ({layout_dir}, {build_dir}, {elf}, {name}; see\n"
	"                   docs/cli.md): the planned layouts are relinked and measured\n"
	"  --search-moves N the colouring's local search (colour and SRAM rows): N candidates,\n"
	"                   each judged by exact trace replay (default 150000; 0: greedy only)\n"
	"  --search-seconds S  at most S seconds of search per layout (default 60)\n"
	"  --seed N         the search's random seed (default 1)\n"
	"  -h, --help       print this text\n"
	"\n"
	"layouts: stock, lto, hot, colour, lto-colour, xip-off, colour-sram-4k, -8k, -12k,\n"
	"         -16k, -20k, net-usb-sram (another image: stock, hot, colour, colour-sram-*)\n"
	"\n"
	"exit status: 0 done, 1 a build, a profile or a measurement failed (the message\n"
	"names the step and the log) or the image cannot be read, 2 usage error\n";

/* The folders go to make as BUILD_DIR= and LAYOUT=: characters that make splits or expands
 * there would build somewhere else. Prints why and returns 0 for such a path. */
static int make_safe(const char *cmd, const char *path, const char *opt)
{
	if (!strpbrk(path, " \t\n$#:;%*?[]\\'\"`"))
		return 1;
	cli_fail(cmd, "%s: make cannot take a folder whose path has blanks or any of "
		      "$ # : ; %% * ? [ ] \\ ' \" `; choose another %s",
		 path, opt);
	return 0;
}

/* Whether a row can be made of another image: the rows of its own build and the layouts
 * planned on it (the variants and the echo firmware's libraries need the firmware). */
static int row_for_image(const exp_row *r)
{
	return r->variant == V_DEFAULT && !r->sram_libs;
}

static int select_rows(const char *list, int quick, int ext)
{
	for (size_t i = 0; i < NROWS; i++)
		rows[i].selected = list ? 0 : (!quick || rows[i].quick) && (!ext || row_for_image(&rows[i]));
	if (!list)
		return 0;
	char *copy = xstrdup(list), *save = NULL;
	int rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i;
		for (i = 0; i < NROWS; i++)
			if (strcmp(rows[i].name, t) == 0)
				break;
		if (i == NROWS) {
			rc = cli_usage_error("experiment", "unknown layout '%s' in --layouts", t);
			break;
		}
		if (ext && !row_for_image(&rows[i])) {
			rc = cli_usage_error("experiment", "layout '%s' needs the echo firmware's "
					     "builds: on another image, stock, hot, colour, colour-sram-*",
					     t);
			break;
		}
		rows[i].selected = 1;
	}
	free(copy);
	return rc;
}

/* Another image's options, checked before anything runs. 0, or an exit status. */
static int check_image_options(exp_ctx *c, const char *fw)
{
	exp_image *im = &c->img;
	if (!c->ext) {
		const char *given = im->device_ip  ? "--device-ip"
				    : im->peer_ip  ? "--peer-ip"
				    : im->netmask  ? "--netmask"
				    : im->board.dhcp ? "--dhcp"
				    : im->board.udp_port ? "--udp-port"
				    : im->command  ? "--build-command"
				    : im->map      ? "--map"
						   : NULL;
		if (given)
			return cli_usage_error(c->cmd, "%s goes with another image: --elf FILE, "
					       "--zephyr DIR or --pico-sdk DIR", given);
		return 0;
	}
	if (fw)
		return cli_usage_error(c->cmd, "--firmware builds the echo firmware: not with "
				       "another image (--elf, --zephyr, --pico-sdk)");
	static const char *const names[] = {"--device-ip", "--peer-ip", "--netmask"};
	const char *texts[] = {im->device_ip, im->peer_ip, im->netmask};
	uint8_t *bytes[] = {im->dev, im->peer, im->mask};
	const uint8_t **to[] = {&im->board.device_ip, &im->board.peer_ip, &im->board.netmask};
	for (int i = 0; i < 3; i++) {
		if (!texts[i])
			continue;
		if (xb_parse_ipv4(texts[i], bytes[i]))
			return cli_usage_error(c->cmd, "%s needs an IPv4 address (got '%s')", names[i],
					       texts[i]);
		*to[i] = bytes[i];
	}
	if (im->device_ip && im->peer_ip && memcmp(im->dev, im->peer, 4) == 0)
		return cli_usage_error(c->cmd, "the virtual host and the image need different "
				       "addresses (--peer-ip, --device-ip)");
	if (im->command) {
		xb_builder_config cfg = {.command = im->command};
		xb_err err;
		if (builder_command.check(&cfg, &err) != 0)
			return cli_usage_error(c->cmd, "--build-command: %s", err.msg);
	}
	return 0;
}

/* Another image: its ELF and map (a build folder's, or as given) loaded once, so that a
 * file that is not an image with its map stops the experiment before anything runs. 0, or
 * an exit status. */
static int open_image(exp_ctx *c, const char *zephyr, const char *pico, char **owned_map,
		      char **owned_command)
{
	exp_image *im = &c->img;
	cli_load_opts o = {.elf = im->elf, .map = im->map, .need_map = 1};
	const xb_build_folder *b;
	int r = cli_load_build(c->cmd, zephyr ? XB_BUILD_ZEPHYR : XB_BUILD_PICO_SDK,
			       zephyr ? zephyr : pico, !!zephyr + !!pico, &o, &b);
	if (r != XB_EXIT_OK)
		return r;
	if (b) {
		im->elf = o.elf;
		if (!im->command)
			im->command = *owned_command = buildsys_workbench_command(b);
	}
	xb_target tg;
	xb_image img;
	if (cli_load(c->cmd, &o, &tg, &img) != 0)
		return XB_EXIT_FAIL;
	im->kind = buildsys_detect(&img);
	im->map = *owned_map = xstrdup(img.map.path);
	image_free(&img);
	return 0;
}

/* Copies the image and its map into DIR/image/ (everything works on the copies: a relink
 * in a build folder overwrites the folder's own ELF). 0, or -1 with err. */
static int copy_image(exp_ctx *c, xb_err *err)
{
	exp_image *im = &c->img;
	char *dir = xasprintf("%s/image", c->out);
	const char *base = strrchr(im->elf, '/');
	base = base ? base + 1 : im->elf;
	im->copy = xasprintf("%s/%s", dir, base);
	im->copy_map = xasprintf("%s.map", im->copy);
	const char *from[] = {im->elf, im->map}, *to[] = {im->copy, im->copy_map};
	int rc = xb_mkdirs(dir, err);
	for (int i = 0; i < 2 && rc == 0; i++) {
		char *data = NULL;
		size_t len = 0;
		rc = xb_read_file(from[i], &data, &len, err);
		if (rc == 0)
			rc = xb_write_file_atomic(to[i], data, len, err);
		free(data);
	}
	free(dir);
	return rc;
}

static int run_experiment(int argc, char **argv)
{
	enum { O_QUICK = 256, O_OUT, O_DB, O_FW, O_LAYOUTS, O_PINGS, O_PCAPS, O_JSON, O_ELF,
	       O_MAP, O_ZEPHYR, O_PICO, O_DEVICE_IP, O_PEER_IP, O_NETMASK, O_DHCP, O_UDP_PORT,
	       O_BUILD_CMD, O_MOVES, O_SECONDS, O_SEED };
	static const struct option opts[] = {
		{"quick", no_argument, 0, O_QUICK},
		{"out", required_argument, 0, O_OUT},
		{"db", required_argument, 0, O_DB},
		{"firmware", required_argument, 0, O_FW},
		{"layouts", required_argument, 0, O_LAYOUTS},
		{"pings", required_argument, 0, O_PINGS},
		{"pcaps", no_argument, 0, O_PCAPS},
		{"json", no_argument, 0, O_JSON},
		{"elf", required_argument, 0, O_ELF},
		{"map", required_argument, 0, O_MAP},
		{"zephyr", required_argument, 0, O_ZEPHYR},
		{"pico-sdk", required_argument, 0, O_PICO},
		{"device-ip", required_argument, 0, O_DEVICE_IP},
		{"peer-ip", required_argument, 0, O_PEER_IP},
		{"netmask", required_argument, 0, O_NETMASK},
		{"dhcp", no_argument, 0, O_DHCP},
		{"udp-port", required_argument, 0, O_UDP_PORT},
		{"build-command", required_argument, 0, O_BUILD_CMD},
		{"search-moves", required_argument, 0, O_MOVES},
		{"search-seconds", required_argument, 0, O_SECONDS},
		{"seed", required_argument, 0, O_SEED},
		{0, 0, 0, 0},
	};
	exp_ctx c;
	memset(&c, 0, sizeof c);
	c.cmd = "experiment";
	c.started = wall_now();
	c.search_moves = EXP_SEARCH_MOVES;
	c.search_seconds = EXP_SEARCH_SECONDS;
	c.seed = 1;
	exp_image *im = &c.img;
	const char *out = "xipbench-experiment", *db = NULL, *fw = NULL, *layouts = NULL;
	const char *zephyr = NULL, *pico = NULL;
	uint64_t pings = 0;
	uint16_t port;
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case O_QUICK: c.quick = 1; break;
		case O_OUT: out = optarg; break;
		case O_DB: db = optarg; break;
		case O_FW: fw = optarg; break;
		case O_LAYOUTS: layouts = optarg; break;
		case O_PINGS:
			if (xb_parse_u64(optarg, &pings) || pings < 1 || pings > 100000)
				return cli_usage_error(c.cmd, "--pings needs 1 to 100000 (got '%s')",
						       optarg);
			break;
		case O_PCAPS: c.pcaps = 1; break;
		case O_JSON: c.json = 1; break;
		case O_ELF: im->elf = optarg; break;
		case O_MAP: im->map = optarg; break;
		case O_ZEPHYR: zephyr = optarg; break;
		case O_PICO: pico = optarg; break;
		case O_DEVICE_IP: im->device_ip = optarg; break;
		case O_PEER_IP: im->peer_ip = optarg; break;
		case O_NETMASK: im->netmask = optarg; break;
		case O_DHCP: im->board.dhcp = 1; break;
		case O_UDP_PORT:
			if (sim_parse_port(optarg, 0, &port))
				return cli_usage_error(c.cmd, "--udp-port needs a port, 1 to 65535 (got "
						       "'%s')", optarg);
			im->board.udp_port = port;
			break;
		case O_BUILD_CMD: im->command = optarg; break;
		case O_MOVES:
			if (xb_parse_u64(optarg, &c.search_moves) || c.search_moves > UINT32_MAX)
				return cli_usage_error(c.cmd, "bad --search-moves '%s'", optarg);
			break;
		case O_SECONDS:
			if (sim_parse_positive(optarg, 86400, &c.search_seconds) != 0)
				return cli_usage_error(c.cmd, "bad --search-seconds '%s'", optarg);
			break;
		case O_SEED:
			if (xb_parse_u64(optarg, &c.seed))
				return cli_usage_error(c.cmd, "bad --seed '%s'", optarg);
			break;
		default:
			return cli_usage_error(c.cmd, "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error(c.cmd, "unexpected argument '%s'", argv[optind]);
	c.ext = im->elf || zephyr || pico;
	int orc = check_image_options(&c, fw);
	if (orc)
		return orc;
	if (select_rows(layouts, c.quick, c.ext))
		return XB_EXIT_USAGE;

	c.m.pings = pings ? (unsigned)pings : c.quick ? 60 : 300;
	c.m.interval_ms = 20;
	c.m.ping_size = 56;
	c.m.udp_size = 64;
	c.m.rates = c.quick ? quick_rates : full_rates;
	c.m.nrates = c.quick ? sizeof quick_rates / sizeof quick_rates[0]
			     : sizeof full_rates / sizeof full_rates[0];
	c.m.step_s = c.quick ? 0.05 : 0.1;
	c.m.gap_s = 0.02;
	c.m.passes = c.quick ? 2 : 3;
	c.m.footprint_ms = 20;
	c.profile_pings = c.m.pings;
	if (c.ext && !im->board.udp_port) { /* no UDP echo port known: no sweep */
		c.m.rates = NULL;
		c.m.nrates = 0;
		c.m.passes = 0;
	}

	xb_err err;
	char *fwpath = NULL, *owned_map = NULL, *owned_command = NULL;
	int rc = XB_EXIT_OK;
	if (c.ext) {
		if ((rc = open_image(&c, zephyr, pico, &owned_map, &owned_command)) != 0)
			goto done;
		if (xb_mkdirs(out, &err)) {
			rc = cli_fail(c.cmd, "%s", err.msg);
			goto done;
		}
	} else {
		if (fw) {
			fwpath = xstrdup(fw);
		} else if (!(fwpath = builder_firmware_dir(&err))) {
			return cli_fail(c.cmd, "%s; give --firmware DIR", err.msg);
		}
		c.fwdir = fwpath;
		char *mk = xasprintf("%s/Makefile", fwpath);
		int have_mk = access(mk, R_OK) == 0;
		free(mk);
		if (!have_mk) {
			free(fwpath);
			return cli_fail(c.cmd, "%s: no Makefile there (is it the echo firmware's "
					       "folder?)",
					fw);
		}
		if (!make_safe(c.cmd, out, "--out")) {
			free(fwpath);
			return XB_EXIT_FAIL;
		}
		if (xb_mkdirs(out, &err)) {
			free(fwpath);
			return cli_fail(c.cmd, "%s", err.msg);
		}
	}
	char real[PATH_MAX];
	if (!realpath(out, real)) {
		rc = cli_fail(c.cmd, "%s: %s", out, strerror(errno));
		goto done;
	}
	if (!c.ext && (!make_safe(c.cmd, real, "--out") || !make_safe(c.cmd, fwpath, "--firmware"))) {
		rc = XB_EXIT_FAIL;
		goto done;
	}
	c.out = xstrdup(real);
	c.fwbuild = xasprintf("%s/fw", c.out);
	c.log = xasprintf("%s/build.log", c.out);
	c.db = db ? xstrdup(db) : xasprintf("%s/runs.db", c.out);
	if (cli_load_target(c.cmd, "rp2040", &c.tg) != 0) {
		rc = XB_EXIT_FAIL;
		goto done;
	}
	if (c.ext) {
		if (copy_image(&c, &err) != 0) {
			rc = cli_fail(c.cmd, "%s", err.msg);
			goto done;
		}
		/* the image as given is the stock build: nothing to build */
		variants[V_DEFAULT].elf = xstrdup(im->copy);
		variants[V_DEFAULT].built = 1;
		im->board.map = im->copy_map;
		im->build_dir = xasprintf("%s/build", c.out);
		im->builder = (xb_builder){.ops = &builder_command, .cfg = {.command = im->command}};
	}
	xb_history *hist = NULL;
	if (history_open(&hist, c.db, &err)) {
		rc = cli_fail(c.cmd, "%s", err.msg);
		goto done;
	}
	if (c.ext)
		progress(&c, "the layout study on the virtual Pico%s: image %s (%s), %s, output %s",
			 c.quick ? " (quick)" : "", im->elf, buildsys_kind_name(im->kind),
			 im->command ? "layouts relinked by the build command"
				     : "layouts predicted only (no build command)",
			 c.out);
	else
		progress(&c, "the layout study on the virtual Pico%s: firmware %s, output %s",
			 c.quick ? " (quick)" : "", c.fwdir, c.out);
	for (size_t i = 0; i < NROWS; i++) {
		exp_row *r = &rows[i];
		if (!r->selected)
			continue;
		if (run_row(&c, r, &err)) {
			rc = cli_fail(c.cmd, "%s: %s", r->name, err.msg);
			break;
		}
		if (r->skip) {
			progress(&c, "%s: not planned, no prediction: %s", r->name, r->skip);
			continue;
		}
		if (!r->measured) {
			progress(&c, "%s: predicted %.1f misses per echo, OPT bound %.1f, %u bytes of "
				     "extra RAM (a prediction: not relinked, not measured)",
				 r->name, r->pred.misses_per_echo, r->pred.opt_bound_per_echo,
				 r->pred.extra_ram);
			continue;
		}
		if (record_run(&c, hist, r, &err)) {
			rc = cli_fail(c.cmd, "%s", err.msg);
			break;
		}
		char pred[64] = "no prediction", udp[64] = "not measured";
		if (!isnan(pred_misses(r)))
			snprintf(pred, sizeof pred, "predicted %.1f", pred_misses(r));
		if (!isnan(r->m.peak_udp_echo_per_s) || !c.ext)
			snprintf(udp, sizeof udp, "%.0f/s", r->m.peak_udp_echo_per_s);
		progress(&c, "%s: %.1f misses per echo (%s), turnaround %.3f ms, peak UDP %s, "
			     "footprint %.0f lines (%.1f s)",
			 r->name, r->m.misses_per_echo, pred, r->m.turnaround_ms, udp,
			 r->m.footprint_lines, r->seconds);
	}
	history_close(hist);
	if (rc == XB_EXIT_OK) {
		if (c.json)
			print_json(&c, stdout);
		else
			print_tables(&c, stdout);
		progress(&c, "done; runs added to %s", c.db);
	}
done:
	for (size_t i = 0; i < NROWS; i++) {
		free(rows[i].elf);
		free(rows[i].map);
		free(rows[i].skip);
	}
	for (size_t i = 0; i < V_N; i++)
		free(variants[i].elf);
	for (size_t i = 0; i < PROF_N; i++) {
		free(profiles[i].trace);
		free(profiles[i].samples);
	}
	free(im->copy);
	free(im->copy_map);
	free(im->build_dir);
	free(owned_map);
	free(owned_command);
	free(c.out);
	free(c.fwbuild);
	free(c.log);
	free(c.db);
	free(fwpath);
	return rc;
}

const xb_command cmd_experiment = {
	.name = "experiment",
	.summary = "the layout study end to end on the virtual Pico: build, profile, "
		   "plan, relink, reflash, measure",
	.usage = usage,
	.run = run_experiment,
};
