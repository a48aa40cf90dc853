/* cmd_report: `xipbench report`: runs of the history as the study's tables in Markdown,
 * CSV, JSON, the cache-set maps and before/after bars as SVG (and PNG where a converter is
 * installed). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../core/export.h"
#include "../core/history.h"
#include "../core/target.h"
#include "cli.h"
#include "load.h"

static const char usage[] =
	"usage: xipbench report --db FILE [--out DIR] [--runs ID,ID,...] [--baseline ID]\n"
	"                       [--format md,csv,json,svg,png] [--method TEXT] [--target NAME]\n"
	"\n"
	"Reports runs of a run history (runs.db, as `xipbench experiment` and the workbench\n"
	"write it): the study's two tables (layouts without extra RAM; layouts with SRAM) in\n"
	"Markdown with the change of each run against a baseline, the method, and the runs'\n"
	"notes. Without --out it prints the report (or the one --format given: md, csv or\n"
	"json) to standard output. With --out it writes DIR/report.md, runs.csv, runs.json,\n"
	"sets-ID.svg for each run with a cache-set map (beside the baseline's), bars.svg, and a\n"
	"PNG of each SVG where rsvg-convert or ImageMagick is installed; it prints the paths.\n"
	"\n"
	"options:\n"
	"  --db FILE        the run history (an existing file; a schema-1 one is migrated)\n"
	"  --out DIR        write the files there (created)\n"
	"  --runs LIST      only these runs, by id, in this order (default: every run)\n"
	"  --baseline ID    compare with this run (default: the first stock run); reported\n"
	"                   first when --runs leaves it out\n"
	"  --format LIST    what to write (comma-separated; default all with --out, md\n"
	"                   without): md, csv, json, svg, png (png implies svg)\n"
	"  --method TEXT    the method paragraph, instead of the one made from the runs' methods\n"
	"  --target NAME    the cache's ways for the set maps (default rp2040)\n"
	"  -h, --help       print this text\n"
	"\n"
	"exit status: 0 done (also when no PNG converter is installed: it says so), 1 a missing\n"
	"or unreadable history, an unknown run, a file that cannot be written, a converter that\n"
	"failed, 2 usage error\n";

static int parse_formats(const char *list, unsigned *out)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{"md", XB_EXPORT_MD},	{"csv", XB_EXPORT_CSV}, {"json", XB_EXPORT_JSON},
		{"svg", XB_EXPORT_SVG}, {"png", XB_EXPORT_PNG},
	};
	char *copy = xstrdup(list), *save = NULL;
	*out = 0;
	int rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i = 0;
		while (i < sizeof names / sizeof names[0] && strcmp(names[i].name, t) != 0)
			i++;
		if (i == sizeof names / sizeof names[0]) {
			rc = cli_usage_error("report", "unknown format '%s' in --format (md, csv, json, "
						       "svg, png)",
					     t);
			break;
		}
		*out |= names[i].bit;
	}
	free(copy);
	if (rc == 0 && !*out)
		rc = cli_usage_error("report", "--format needs at least one of md, csv, json, svg, png");
	return rc;
}

static int parse_id(const char *s, int64_t *id)
{
	uint64_t v;
	if (xb_parse_u64(s, &v) || v == 0 || v > INT64_MAX)
		return -1;
	*id = (int64_t)v;
	return 0;
}

typedef struct report_runs {
	xb_run **runs;
	size_t n, cap;
	int64_t *ids;
	size_t nids, idcap;
} report_runs;

static void add_id(report_runs *rr, int64_t id)
{
	xb_grow(&rr->ids, &rr->idcap, rr->nids + 1, sizeof *rr->ids);
	rr->ids[rr->nids++] = id;
}

static int keep_run(void *ctx, const xb_run *r)
{
	report_runs *rr = ctx;
	xb_grow(&rr->runs, &rr->cap, rr->n + 1, sizeof *rr->runs);
	rr->runs[rr->n++] = history_run_dup(r);
	return 0;
}

static void print_path(void *ctx, const char *path)
{
	(void)ctx;
	printf("%s\n", path);
}

static int run_report(int argc, char **argv)
{
	enum { O_DB = 256, O_OUT, O_RUNS, O_BASELINE, O_FORMAT, O_METHOD, O_TARGET };
	static const struct option opts[] = {
		{"db", required_argument, 0, O_DB},
		{"out", required_argument, 0, O_OUT},
		{"runs", required_argument, 0, O_RUNS},
		{"baseline", required_argument, 0, O_BASELINE},
		{"format", required_argument, 0, O_FORMAT},
		{"method", required_argument, 0, O_METHOD},
		{"target", required_argument, 0, O_TARGET},
		{0, 0, 0, 0},
	};
	const char *db = NULL, *out = NULL, *runs_arg = NULL, *method = NULL, *target = NULL;
	int64_t baseline_id = 0;
	unsigned formats = 0;
	report_runs rr = {0};
	int opt, rc = XB_EXIT_OK;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case O_DB: db = optarg; break;
		case O_OUT: out = optarg; break;
		case O_RUNS: runs_arg = optarg; break;
		case O_BASELINE:
			if (parse_id(optarg, &baseline_id))
				return cli_usage_error("report", "bad --baseline '%s' (a run id)", optarg);
			break;
		case O_FORMAT:
			if (parse_formats(optarg, &formats))
				return XB_EXIT_USAGE;
			break;
		case O_METHOD: method = optarg; break;
		case O_TARGET: target = optarg; break;
		default:
			return cli_usage_error("report", "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (!db)
		return cli_usage_error("report", "--db FILE is required");
	if (out && !formats)
		formats = XB_EXPORT_ALL;
	if (!out && !formats)
		formats = XB_EXPORT_MD;
	if (formats & XB_EXPORT_PNG)
		formats |= XB_EXPORT_SVG;
	if (!out && (formats & (XB_EXPORT_SVG | XB_EXPORT_PNG)))
		return cli_usage_error("report", "svg and png are files: give --out DIR");
	if (!out && formats != XB_EXPORT_MD && formats != XB_EXPORT_CSV && formats != XB_EXPORT_JSON)
		return cli_usage_error("report", "without --out, give one --format of md, csv, json");
	if (runs_arg) {
		char *copy = xstrdup(runs_arg), *save = NULL;
		for (char *t = strtok_r(copy, ",", &save); t && rc == XB_EXIT_OK;
		     t = strtok_r(NULL, ",", &save)) {
			int64_t id;
			if (parse_id(t, &id))
				rc = cli_usage_error("report", "bad run id '%s' in --runs", t);
			else
				add_id(&rr, id);
		}
		free(copy);
		if (rc == XB_EXIT_OK && rr.nids == 0)
			rc = cli_usage_error("report", "--runs needs run ids (e.g. 3,4,7)");
		if (rc) {
			free(rr.ids);
			return rc;
		}
	}

	xb_target tg;
	if (cli_load_target("report", target, &tg) != 0) {
		free(rr.ids);
		return XB_EXIT_FAIL;
	}
	xb_history *h = NULL;
	xb_err err;
	if (history_open_flags(&h, db, 0, &err) != 0) {
		free(rr.ids);
		return cli_fail("report", "%s", err.msg);
	}
	if (!runs_arg) {
		if (history_ids(h, &rr.ids, &rr.nids, &err) != 0) {
			rc = cli_fail("report", "%s", err.msg);
			goto done;
		}
		rr.idcap = rr.nids;
	}
	if (baseline_id) {
		size_t i = 0;
		while (i < rr.nids && rr.ids[i] != baseline_id)
			i++;
		if (i == rr.nids) { /* the baseline leads, the rest keep their order */
			add_id(&rr, 0);
			memmove(rr.ids + 1, rr.ids, (rr.nids - 1) * sizeof *rr.ids);
			rr.ids[0] = baseline_id;
		}
	}
	for (size_t i = 0; i < rr.nids; i++) {
		if (history_get(h, rr.ids[i], keep_run, &rr, &err) != 0) {
			rc = cli_fail("report", "%s%s", err.msg,
				      strstr(err.msg, ": no run ") ? " (`--format csv` lists the runs)"
								  : "");
			goto done;
		}
	}
	const xb_run *base = NULL;
	for (size_t i = 0; i < rr.n && baseline_id; i++)
		if (rr.runs[i]->id == baseline_id)
			base = rr.runs[i];
	if (!baseline_id)
		base = export_default_baseline((const xb_run *const *)rr.runs, rr.n);

	if (!out) {
		xb_strbuf sb = {0};
		const xb_run *const *cr = (const xb_run *const *)rr.runs;
		if (formats == XB_EXPORT_MD)
			export_report_markdown(&sb, cr, rr.n, base, method, db);
		else if (formats == XB_EXPORT_CSV)
			export_runs_csv(&sb, cr, rr.n);
		else
			export_runs_json(&sb, cr, rr.n);
		fwrite(sb.buf ? sb.buf : "", 1, sb.len, stdout);
		sb_free(&sb);
		goto done;
	}
	if (xb_mkdirs(out, &err) != 0) {
		rc = cli_fail("report", "%s", err.msg);
		goto done;
	}
	xb_export_dir o = {.dir = out, .formats = formats, .ways = tg.cache.ways,
			   .method = method, .source = db, .wrote = print_path};
	if (export_write_dir(&o, (const xb_run *const *)rr.runs, rr.n, base, &err) != 0)
		rc = cli_fail("report", "%s", err.msg);
	else if (o.no_png)
		fprintf(stderr, "xipbench report: %s\n", o.png_why.msg);
done:
	history_close(h);
	for (size_t i = 0; i < rr.n; i++)
		history_run_free(rr.runs[i]);
	free(rr.runs);
	free(rr.ids);
	return rc;
}

const xb_command cmd_report = {
	.name = "report",
	.summary = "runs of the history as the study's tables (Markdown), CSV, JSON, SVG and PNG",
	.usage = usage,
	.run = run_report,
};
