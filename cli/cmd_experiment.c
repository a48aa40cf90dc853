/* cmd_experiment: `xipbench experiment`: the layout study (../shared/seeds/000_3922d7c312d3ad89.txt)
 * end to end on the virtual Pico: build the echo firmware's variants, profile them (PC samples through the
 * virtual probe, a fetch trace), plan layouts, relink with the fragments, reflash through
 * the probe, measure with the study's metrics, print the study's two tables with the
 * planner's prediction and the OPT bound beside every row, and keep every run in runs.db. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/export.h"
#include "../core/history.h"
#include "../core/sha256.h"
#include "../core/target.h"
#include "cli.h"
#include "experiment.h"
#include "load.h"

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
	double seconds;       /* wall time of plan, relink and measurement */
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

typedef struct exp_ctx {
	const char *cmd;
	const char *fwdir;
	char *out, *fwbuild, *log, *db;
	xb_target tg;
	xb_measure_plan m;
	unsigned profile_pings;
	int quick, json, pcaps;
	double started;
} exp_ctx;

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
			       .trace_path = p->trace, .samples_path = p->samples};
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
	if (!r->strategy) {
		r->elf = xstrdup(v->elf);
		if (r->profile >= 0) {
			if (exp_predict_stock(&c->tg, r->elf, predict_trace(r->profile), &r->pred, err))
				return -1;
			r->predicted = 1;
		}
	} else {
		char *dir = xasprintf("%s/layouts/%s", c->out, r->name);
		exp_plan_req pr = {.elf = v->elf, .samples = profiles[r->profile].samples,
				   .trace = profiles[r->profile].trace,
				   .predict_trace = predict_trace(r->profile), .strategy = r->strategy,
				   .sram_budget = r->sram_budget, .pad_budget = 32768,
				   .sram_libs = r->sram_libs, .dir = dir};
		progress(c, "%s: plan (%s), relink, verify", r->name, r->strategy);
		r->elf = xasprintf("%s/%s/layouts/%s/echo.elf", c->fwbuild, v->name, r->name);
		int rc = exp_plan(&c->tg, &pr, err);
		if (rc == 0)
			rc = exp_relink(&c->tg, v->elf, c->fwbuild, v->arg, dir, r->name, r->elf, c->log,
					err);
		free(dir);
		if (rc)
			return -1;
		r->pred = pr.pred;
		r->predicted = 1;
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
	int mrc = exp_measure(&c->tg, r->elf, &c->m, pcap, &r->m, err);
	free(pcap);
	if (mrc)
		return -1;
	r->seconds = wall_now() - t0;
	r->ok = 1;
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

/* The study's two tables (core/export.c's), the stock footprint and the method. */
static void print_tables(const exp_ctx *c, FILE *f)
{
	xb_run runs[NROWS];
	xb_export_row trows[NROWS];
	size_t n = 0;
	for (size_t i = 0; i < NROWS; i++) {
		const exp_row *r = &rows[i];
		if (!r->ok)
			continue;
		row_run(r, &runs[n]);
		trows[n].run = &runs[n];
		trows[n].label = r->label;
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

static void print_json(const exp_ctx *c, FILE *f)
{
	fprintf(f, "{\"quick\": %s, \"pings\": %u, \"interval_ms\": %.3f, \"udp_passes\": %u, "
		   "\"udp_rates\": [",
		c->quick ? "true" : "false", c->m.pings, c->m.interval_ms, c->m.passes);
	for (size_t i = 0; i < c->m.nrates; i++)
		fprintf(f, "%s%u", i ? ", " : "", c->m.rates[i]);
	fprintf(f, "], \"cache_lines\": %u, \"db\": ", target_cache_lines(&c->tg));
	xb_json_string(f, c->db);
	fputs(", \"rows\": [", f);
	int first = 1;
	for (size_t i = 0; i < NROWS; i++) {
		const exp_row *r = &rows[i];
		if (!r->ok)
			continue;
		fprintf(f, "%s{\"layout\": ", first ? "" : ", ");
		first = 0;
		xb_json_string(f, r->name);
		fputs(", \"label\": ", f);
		xb_json_string(f, r->label);
		fputs(", \"variant\": ", f);
		xb_json_string(f, variants[r->variant].label);
		fprintf(f, ", \"tables\": [%s%s%s]", r->tables & T1 ? "1" : "",
			(r->tables & T1) && (r->tables & T2) ? ", " : "", r->tables & T2 ? "2" : "");
		fputs(", \"strategy\": ", f);
		if (r->strategy)
			xb_json_string(f, r->strategy);
		else
			fputs("null", f);
		fputs(", \"image\": ", f);
		xb_json_string(f, r->elf);
		fprintf(f, ", \"image_hash\": \"%s\"", r->hash);
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
	"options:\n"
	"  --quick          the short version: 60 pings, fewer layouts and rate steps\n"
	"  --out DIR        builds, profiles, layouts and logs (default xipbench-experiment)\n"
	"  --db FILE        the run history (default DIR/runs.db)\n"
	"  --firmware DIR   the echo firmware's sources (default: the shipped firmware/)\n"
	"  --layouts LIST   only these rows (comma-separated layout names, e.g. stock,colour)\n"
	"  --pings N        pings per measurement instead of 300 (60 with --quick)\n"
	"  --pcaps          keep each measurement's usbmon capture: DIR/captures/LAYOUT.pcap\n"
	"  --json           print one JSON object (keys in docs/cli.md) instead of the tables\n"
	"  -h, --help       print this text\n"
	"\n"
	"layouts: stock, lto, hot, colour, lto-colour, xip-off, colour-sram-4k, -8k, -12k,\n"
	"         -16k, -20k, net-usb-sram\n"
	"\n"
	"exit status: 0 done, 1 a build, a profile or a measurement failed (the message\n"
	"names the step and the log), 2 usage error\n";

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

static int select_rows(const char *list, int quick)
{
	for (size_t i = 0; i < NROWS; i++)
		rows[i].selected = list ? 0 : (!quick || rows[i].quick);
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
		rows[i].selected = 1;
	}
	free(copy);
	return rc;
}

static int run_experiment(int argc, char **argv)
{
	enum { O_QUICK = 256, O_OUT, O_DB, O_FW, O_LAYOUTS, O_PINGS, O_PCAPS, O_JSON };
	static const struct option opts[] = {
		{"quick", no_argument, 0, O_QUICK},
		{"out", required_argument, 0, O_OUT},
		{"db", required_argument, 0, O_DB},
		{"firmware", required_argument, 0, O_FW},
		{"layouts", required_argument, 0, O_LAYOUTS},
		{"pings", required_argument, 0, O_PINGS},
		{"pcaps", no_argument, 0, O_PCAPS},
		{"json", no_argument, 0, O_JSON},
		{0, 0, 0, 0},
	};
	exp_ctx c;
	memset(&c, 0, sizeof c);
	c.cmd = "experiment";
	c.started = wall_now();
	const char *out = "xipbench-experiment", *db = NULL, *fw = NULL, *layouts = NULL;
	uint64_t pings = 0;
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
		default:
			return cli_usage_error(c.cmd, "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error(c.cmd, "unexpected argument '%s'", argv[optind]);
	if (select_rows(layouts, c.quick))
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

	xb_err err;
	char *fwpath = NULL;
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
		return cli_fail(c.cmd, "%s: no Makefile there (is it the echo firmware's folder?)",
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
	char real[PATH_MAX];
	if (!realpath(out, real)) {
		free(fwpath);
		return cli_fail(c.cmd, "%s: %s", out, strerror(errno));
	}
	if (!make_safe(c.cmd, real, "--out") || !make_safe(c.cmd, fwpath, "--firmware")) {
		free(fwpath);
		return XB_EXIT_FAIL;
	}
	c.out = xstrdup(real);
	c.fwbuild = xasprintf("%s/fw", c.out);
	c.log = xasprintf("%s/build.log", c.out);
	c.db = db ? xstrdup(db) : xasprintf("%s/runs.db", c.out);
	int rc = XB_EXIT_OK;
	if (cli_load_target(c.cmd, "rp2040", &c.tg) != 0) {
		rc = XB_EXIT_FAIL;
		goto done;
	}
	xb_history *hist = NULL;
	if (history_open(&hist, c.db, &err)) {
		rc = cli_fail(c.cmd, "%s", err.msg);
		goto done;
	}
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
		if (record_run(&c, hist, r, &err)) {
			rc = cli_fail(c.cmd, "%s", err.msg);
			break;
		}
		char pred[64] = "no prediction";
		if (!isnan(pred_misses(r)))
			snprintf(pred, sizeof pred, "predicted %.1f", pred_misses(r));
		progress(&c, "%s: %.1f misses per echo (%s), turnaround %.3f ms, peak UDP %.0f/s, "
			     "footprint %.0f lines (%.1f s)",
			 r->name, r->m.misses_per_echo, pred, r->m.turnaround_ms,
			 r->m.peak_udp_echo_per_s, r->m.footprint_lines, r->seconds);
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
	for (size_t i = 0; i < NROWS; i++)
		free(rows[i].elf);
	for (size_t i = 0; i < V_N; i++)
		free(variants[i].elf);
	for (size_t i = 0; i < PROF_N; i++) {
		free(profiles[i].trace);
		free(profiles[i].samples);
	}
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
