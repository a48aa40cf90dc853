/* export: runs of the history as the study's two tables (the text `xipbench experiment`
 * prints and the Markdown report, from one table definition), the method paragraph, CSV and
 * JSON (core/export.c); SVG figures, a cache-set map and before/after bars, and PNG through
 * an installed converter (core/export_svg.c). It takes runs in memory: no SQLite, no curses.
 * Everything is built in an xb_strbuf; export_write puts one in a file atomically. The keys
 * and columns are in docs/formats-history.md. */
#ifndef XB_EXPORT_H
#define XB_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "history.h"
#include "util.h"

/* ---- The study's two tables ---- */

enum {
	EXPORT_TABLE_FLASH = 1 << 0, /* "layouts without extra RAM" */
	EXPORT_TABLE_SRAM = 1 << 1,  /* "layouts with SRAM" */
};

typedef struct xb_export_row {
	const xb_run *run;
	const char *label;  /* the Layout column; NULL: export_run_label's */
	unsigned tables;    /* EXPORT_TABLE_* it appears in */
} xb_export_row;

/* A run's name in tables and figures: its layout, with its build variant when that is not
 * "stock" ("colour (LTO=1)"). */
void export_run_label(const xb_run *r, char *buf, size_t cap);

/* Which tables a run of a history goes to: the first when it has no extra RAM (0 or
 * unknown), the second when it has some; the baseline goes to both (the second table's
 * reference row). */
unsigned export_tables_of(const xb_run *r, const xb_run *baseline);

/* The two tables as fixed-width text, each header printed even without rows: what
 * `xipbench experiment` prints. Missing figures print as "-". */
void export_tables_text(xb_strbuf *sb, const xb_export_row *rows, size_t n);

/* The two tables in Markdown under "## Layouts without extra RAM" and "## Layouts with
 * SRAM", with the run's id and build variant and, when baseline is not NULL, a "Change"
 * column after misses per echo, turnaround and peak UDP echo (export_change against the
 * baseline's figure). A table without rows is left out. */
void export_tables_markdown(xb_strbuf *sb, const xb_export_row *rows, size_t n,
			    const xb_run *baseline);

/* The two tables column by column, for other views of them (the workbench's compare
 * panel), so that they show what the exports print. table is EXPORT_TABLE_FLASH or
 * EXPORT_TABLE_SRAM; any other value has no column.
 *
 * export_table_columns: the number of columns after the run's label, and the table's
 * title in *title ("Layouts without extra RAM"; title may be NULL). */
size_t export_table_columns(unsigned table, const char **title);
/* Column col's heading ("Misses/echo"), NULL past the end; *change (may be NULL) gets 0
 * when the Markdown export has no change column after it, else -1 when a lower figure is
 * better (misses, turnaround) and 1 when a higher one is (peak UDP echo). */
const char *export_table_head(unsigned table, size_t col, int *change);
/* Run r's figure in column col (NaN when the run lacks it or past the end), and when buf is
 * not NULL the text the exports print for it ("1154.0", "0.885 ms", "12.0 KB", "-"). */
double export_table_value(unsigned table, size_t col, const xb_run *r, char *buf, size_t cap);

/* (v - base) / base as text: "−37 %" (U+2212), "+5.2 %" (one decimal below 10 %), "0 %";
 * "-" when either is missing or base is 0. */
void export_change(double v, double base, char *buf, size_t cap);

/* ---- The method ---- */

#define EXPORT_METHOD_MAX_RATES 256

/* How runs were measured (session/session.h's xb_measure_plan as numbers). NaN and
 * nrates 0: not given. */
typedef struct xb_method {
	double pings, interval_ms, ping_size;
	double rates[EXPORT_METHOD_MAX_RATES]; /* offered UDP rates per second */
	size_t nrates;
	double step_s, gap_s, passes, udp_size;
	double footprint_ms;
} xb_method;

void export_method_init(xb_method *m);

/* The method as one JSON object (what runs keep in xb_run.method): the fields given, and
 * idle_window_ms (pings × interval_ms: the idle window is as long as the pings'). */
void export_method_json(xb_strbuf *sb, const xb_method *m);

/* Reads the keys export_method_json writes from a JSON object's text into m (initialised
 * here); other keys, of any value, are skipped. Fails, with the offset and what was wrong,
 * on text that is not one JSON object or a known key whose value is of another type. */
int export_method_parse(const char *json, xb_method *m, xb_err *err);

/* The method paragraph on one line: one clause for the pings, the UDP steps and the
 * footprint each, when given, and what the predicted and OPT columns are; with
 * virtual_bench, "Virtual time on the virtual Pico." at the end. */
void export_method_text(xb_strbuf *sb, const xb_method *m, int virtual_bench);

/* Appends text in lines of at most width columns, broken at spaces. */
void export_wrap(xb_strbuf *sb, const char *text, size_t width);

/* ---- A run's figures ---- */

/* The figures of a run that the tables, the bars, the compare panel and the demo's
 * captions show. */
enum xb_metric {
	XB_METRIC_MISSES, XB_METRIC_PREDICTED, XB_METRIC_OPT, XB_METRIC_TURNAROUND,
	XB_METRIC_FOOTPRINT, XB_METRIC_EXTRA_RAM_KB, XB_METRIC_PEAK_UDP, XB_METRICS
};

/* m's figure of r (extra RAM in KB); NaN when the run lacks it. */
double export_metric(const xb_run *r, int m);
/* The metric a caption names: "misses_per_echo", "predicted", "opt_bound", "turnaround",
 * "footprint", "extra_ram_kb", "peak_udp"; -1 for another name. */
int export_metric_find(const char *key);
/* Metric m's name (export_metric_find's). */
const char *export_metric_key(int m);

/* ---- The report, CSV, JSON ---- */

/* The baseline when none is given: the first run whose layout is "stock" (of the stock
 * build variant when there is one); NULL when there is none. */
const xb_run *export_default_baseline(const xb_run *const *runs, size_t n);

/* The Markdown report of runs: a heading and a line naming source and the baseline, the two
 * tables (export_tables_of places the runs) against baseline (NULL: no change columns),
 * then "## Method": method_text when not NULL, else each distinct method of the runs
 * (export_method_text; "Runs 3, 4:" before each when they differ; "not recorded" for runs
 * without one), then the runs' notes. */
void export_report_markdown(xb_strbuf *sb, const xb_run *const *runs, size_t n,
			    const xb_run *baseline, const char *method_text, const char *source);

/* One header line and one line per run of every scalar field (not layout_text, the image
 * bytes, the profile or the set map), RFC 4180 quoting, missing values empty. */
void export_runs_csv(xb_strbuf *sb, const xb_run *const *runs, size_t n);

/* {"runs": [{...}, ...]}: every scalar field, missing values null, the method as an
 * object (as a string when its text is not a JSON object). */
void export_runs_json(xb_strbuf *sb, const xb_run *const *runs, size_t n);

/* ---- Figures (core/export_svg.c) ---- */

typedef struct xb_svg_setmap {
	const uint16_t *set_hot; /* hot lines per set */
	size_t nsets;
	const char *title;       /* above the grid ("run 3: colour") */
} xb_svg_setmap;

/* A cache-set map as an SVG: the sets as a grid of cols cells a row (32 for the RP2040's
 * 1,024 sets), set 0 at the top left, coloured by hot lines per set: none, 1 to ways - 1,
 * as many as the ways, more than the ways (in a loop over them every access misses); a
 * legend with the sets of each class. With two maps, side by side (before, after). */
void export_setmap_svg(xb_strbuf *sb, const xb_svg_setmap *maps, size_t nmaps, unsigned cols,
		       unsigned ways);

/* Before/after bars as an SVG: one panel each for misses per echo, turnaround and peak UDP
 * echo, a horizontal bar per run on the panel's own scale with its number beside it ("-"
 * and no bar when the run lacks the figure). The baseline (NULL: none), when it is one of
 * the runs, comes first and in grey. */
void export_bars_svg(xb_strbuf *sb, const xb_run *const *runs, size_t n,
		     const xb_run *baseline);

/* Text escaped for XML (& < > " '), appended. */
void export_xml_text(xb_strbuf *sb, const char *s);

/* ---- Files ---- */

/* Writes sb's text to path atomically (temporary file, fsync, rename). */
int export_write(const char *path, const xb_strbuf *sb, xb_err *err);

/* The SVG-to-PNG converter found on PATH: "rsvg-convert", else ImageMagick's "magick" or
 * "convert" (taken only when its -version names ImageMagick); NULL when none. */
const char *export_png_converter(void);

/* Converts the SVG file svg to the PNG file png with export_png_converter's program, run
 * without a shell; it writes a temporary file that must start with the PNG signature, then
 * renamed. 0 done; 1 no converter is installed (err says so and what to install: not a
 * failure of the export); -1 the converter failed (err has the first line it printed). */
int export_png(const char *svg, const char *png, xb_err *err);

/* ---- A report folder (xipbench report --out, the workbench's :export) ---- */

enum { XB_EXPORT_MD = 1, XB_EXPORT_CSV = 2, XB_EXPORT_JSON = 4, XB_EXPORT_SVG = 8,
       XB_EXPORT_PNG = 16, XB_EXPORT_ALL = 31 };

typedef struct xb_export_dir {
	const char *dir;          /* an existing folder */
	unsigned formats;         /* XB_EXPORT_* (PNG only with SVG) */
	unsigned ways;            /* the cache's ways, for the set maps */
	const char *method, *source; /* export_report_markdown's method_text and source */
	void (*wrote)(void *ctx, const char *path); /* each file written; may be NULL */
	void *ctx;
	/* out */
	size_t files;             /* files written */
	int no_png;               /* no converter is installed: no PNG (png_why says so) */
	xb_err png_why;
} xb_export_dir;

/* Writes the runs' report into o->dir: sets-ID.svg for each run with a set map (beside the
 * baseline's), bars.svg, a PNG of each SVG (export_png), report.md (with the figures when
 * SVGs are written), runs.csv, runs.json, as o->formats asks. Stops at the first file that
 * cannot be written or converter that fails (-1, err); a missing converter is not a
 * failure. */
int export_write_dir(xb_export_dir *o, const xb_run *const *runs, size_t n,
		     const xb_run *baseline, xb_err *err);

#endif
