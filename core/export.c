/* export: the study's two tables (text and Markdown from one definition), the method
 * paragraph and its JSON, the Markdown report, CSV and JSON of runs. */
#include "export.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The study's two tables ---- */

typedef struct table_col {
	const char *head;
	int width;       /* text: right-aligned in this many columns */
	int metric;
	int decimals;
	const char *unit;
	int change;      /* Markdown: a change column follows */
} table_col;

static const table_col flash_cols[] = {
	{"Misses/echo", 12, XB_METRIC_MISSES, 1, "", 1},
	{"Predicted", 11, XB_METRIC_PREDICTED, 1, "", 0},
	{"OPT bound", 11, XB_METRIC_OPT, 1, "", 0},
	{"Turnaround", 12, XB_METRIC_TURNAROUND, 3, " ms", 1},
	{"Footprint", 11, XB_METRIC_FOOTPRINT, 0, "", 0},
};

static const table_col sram_cols[] = {
	{"Extra RAM", 10, XB_METRIC_EXTRA_RAM_KB, 1, " KB", 0},
	{"Peak UDP echo", 15, XB_METRIC_PEAK_UDP, 0, "/s", 1},
	{"Ping turnaround", 17, XB_METRIC_TURNAROUND, 3, " ms", 1},
	{"Misses/echo", 13, XB_METRIC_MISSES, 1, "", 1},
	{"Predicted", 11, XB_METRIC_PREDICTED, 1, "", 0},
	{"OPT bound", 11, XB_METRIC_OPT, 1, "", 0},
};

typedef struct table_def {
	const char *title;
	unsigned mask;
	const table_col *cols;
	size_t ncols;
} table_def;

static const table_def tables[] = {
	{"Layouts without extra RAM", EXPORT_TABLE_FLASH, flash_cols,
	 sizeof flash_cols / sizeof flash_cols[0]},
	{"Layouts with SRAM", EXPORT_TABLE_SRAM, sram_cols, sizeof sram_cols / sizeof sram_cols[0]},
};

#define LABEL_WIDTH 42

double export_metric(const xb_run *r, int m)
{
	switch (m) {
	case XB_METRIC_MISSES: return r->misses_per_echo;
	case XB_METRIC_PREDICTED: return r->predicted_misses_per_echo;
	case XB_METRIC_OPT: return r->opt_bound_misses_per_echo;
	case XB_METRIC_TURNAROUND: return r->turnaround_ms;
	case XB_METRIC_FOOTPRINT: return r->footprint_lines;
	case XB_METRIC_EXTRA_RAM_KB: return r->extra_ram_bytes < 0 ? NAN : r->extra_ram_bytes / 1024.0;
	case XB_METRIC_PEAK_UDP: return r->peak_udp_echo_per_s;
	}
	return NAN;
}

static const char *const metric_keys[XB_METRICS] = {
	[XB_METRIC_MISSES] = "misses_per_echo", [XB_METRIC_PREDICTED] = "predicted",
	[XB_METRIC_OPT] = "opt_bound",	   [XB_METRIC_TURNAROUND] = "turnaround",
	[XB_METRIC_FOOTPRINT] = "footprint",	   [XB_METRIC_EXTRA_RAM_KB] = "extra_ram_kb",
	[XB_METRIC_PEAK_UDP] = "peak_udp",
};

int export_metric_find(const char *key)
{
	for (int m = 0; m < XB_METRICS; m++)
		if (strcmp(metric_keys[m], key) == 0)
			return m;
	return -1;
}

const char *export_metric_key(int m)
{
	return m >= 0 && m < XB_METRICS ? metric_keys[m] : "?";
}

static void format_value(char *buf, size_t cap, double v, int decimals, const char *unit)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%.*f%s", decimals, v, unit);
}

void export_run_label(const xb_run *r, char *buf, size_t cap)
{
	const char *layout = r->layout ? r->layout : "stock";
	if (r->variant && strcmp(r->variant, "stock") != 0)
		snprintf(buf, cap, "%s (%s)", layout, r->variant);
	else
		snprintf(buf, cap, "%s", layout);
}

unsigned export_tables_of(const xb_run *r, const xb_run *baseline)
{
	if (r == baseline)
		return EXPORT_TABLE_FLASH | EXPORT_TABLE_SRAM;
	return r->extra_ram_bytes > 0 ? EXPORT_TABLE_SRAM : EXPORT_TABLE_FLASH;
}

static const char *row_label(const xb_export_row *row, char *buf, size_t cap)
{
	if (row->label)
		return row->label;
	export_run_label(row->run, buf, cap);
	return buf;
}

void export_tables_text(xb_strbuf *sb, const xb_export_row *rows, size_t n)
{
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		const table_def *d = &tables[t];
		if (t)
			sb_puts(sb, "\n");
		sb_printf(sb, "%-*s", LABEL_WIDTH, "Layout");
		for (size_t c = 0; c < d->ncols; c++)
			sb_printf(sb, "%*s", d->cols[c].width, d->cols[c].head);
		sb_puts(sb, "\n");
		for (size_t i = 0; i < n; i++) {
			if (!(rows[i].tables & d->mask))
				continue;
			char lb[128], v[64];
			sb_printf(sb, "%-*s", LABEL_WIDTH, row_label(&rows[i], lb, sizeof lb));
			for (size_t c = 0; c < d->ncols; c++) {
				const table_col *col = &d->cols[c];
				format_value(v, sizeof v, export_metric(rows[i].run, col->metric), col->decimals,
					     col->unit);
				sb_printf(sb, "%*s", col->width, v);
			}
			sb_puts(sb, "\n");
		}
	}
}

static const table_def *table_find(unsigned table)
{
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
		if (tables[t].mask == table)
			return &tables[t];
	return NULL;
}

size_t export_table_columns(unsigned table, const char **title)
{
	const table_def *d = table_find(table);
	if (title)
		*title = d ? d->title : NULL;
	return d ? d->ncols : 0;
}

const char *export_table_head(unsigned table, size_t col, int *change)
{
	const table_def *d = table_find(table);
	if (change)
		*change = 0;
	if (!d || col >= d->ncols)
		return NULL;
	if (change && d->cols[col].change)
		*change = d->cols[col].metric == XB_METRIC_PEAK_UDP ? 1 : -1;
	return d->cols[col].head;
}

double export_table_value(unsigned table, size_t col, const xb_run *r, char *buf, size_t cap)
{
	const table_def *d = table_find(table);
	double v = d && col < d->ncols && r ? export_metric(r, d->cols[col].metric) : NAN;
	if (buf && cap)
		format_value(buf, cap, v, d && col < d->ncols ? d->cols[col].decimals : 0,
			     d && col < d->ncols ? d->cols[col].unit : "");
	return v;
}

void export_change(double v, double base, char *buf, size_t cap)
{
	if (isnan(v) || isnan(base) || base == 0) {
		snprintf(buf, cap, "-");
		return;
	}
	double pct = (v - base) / base * 100;
	int decimals = fabs(pct) < 9.95 ? 1 : 0;
	char num[32];
	snprintf(num, sizeof num, "%.*f", decimals, fabs(pct));
	if (strspn(num, "0.") == strlen(num))
		snprintf(buf, cap, "0 %%");
	else
		snprintf(buf, cap, "%s%s %%", pct < 0 ? "\xe2\x88\x92" : "+", num);
}

/* Markdown text in a table cell or a paragraph: punctuation that would start markup is
 * escaped, line breaks become spaces. */
static void md_text(xb_strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n' || *s == '\r' || *s == '\t') {
			sb_puts(sb, " ");
			continue;
		}
		if (strchr("\\`*[]<>|", *s))
			sb_puts(sb, "\\");
		sb_append(sb, s, 1);
	}
}

void export_tables_markdown(xb_strbuf *sb, const xb_export_row *rows, size_t n,
			    const xb_run *baseline)
{
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		const table_def *d = &tables[t];
		size_t shown = 0;
		for (size_t i = 0; i < n; i++)
			shown += (rows[i].tables & d->mask) != 0;
		if (!shown)
			continue;
		sb_printf(sb, "## %s\n\n| Run | Layout |", d->title);
		for (size_t c = 0; c < d->ncols; c++)
			sb_printf(sb, " %s |%s", d->cols[c].head,
				  d->cols[c].change && baseline ? " Change |" : "");
		sb_puts(sb, "\n|---:|---|");
		for (size_t c = 0; c < d->ncols; c++)
			sb_puts(sb, d->cols[c].change && baseline ? "---:|---:|" : "---:|");
		sb_puts(sb, "\n");
		for (size_t i = 0; i < n; i++) {
			if (!(rows[i].tables & d->mask))
				continue;
			const xb_run *r = rows[i].run;
			char lb[128], v[64];
			sb_printf(sb, "| %lld | ", (long long)r->id);
			md_text(sb, row_label(&rows[i], lb, sizeof lb));
			sb_puts(sb, " |");
			for (size_t c = 0; c < d->ncols; c++) {
				const table_col *col = &d->cols[c];
				double x = export_metric(r, col->metric);
				format_value(v, sizeof v, x, col->decimals, col->unit);
				sb_printf(sb, " %s |", v);
				if (!col->change || !baseline)
					continue;
				if (r == baseline)
					snprintf(v, sizeof v, "baseline");
				else
					export_change(x, export_metric(baseline, col->metric), v, sizeof v);
				sb_printf(sb, " %s |", v);
			}
			sb_puts(sb, "\n");
		}
		sb_puts(sb, "\n");
	}
}

/* ---- The method ---- */

void export_method_init(xb_method *m)
{
	memset(m, 0, sizeof *m);
	m->pings = m->interval_ms = m->ping_size = NAN;
	m->step_s = m->gap_s = m->passes = m->udp_size = m->footprint_ms = NAN;
}

/* A number as JSON takes it, as short as reads back the same. */
static void json_number(xb_strbuf *sb, double v)
{
	if (!isfinite(v)) {
		sb_puts(sb, "null");
		return;
	}
	char buf[40];
	for (int p = 15; p <= 17; p++) {
		snprintf(buf, sizeof buf, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	sb_puts(sb, buf);
}

/* The method's keys, in the order export_method_json writes them. */
typedef struct method_key {
	const char *key;
	size_t offset;  /* of a double in xb_method */
} method_key;

static const method_key method_keys[] = {
	{"pings", offsetof(xb_method, pings)},
	{"interval_ms", offsetof(xb_method, interval_ms)},
	{"ping_size", offsetof(xb_method, ping_size)},
	{"step_s", offsetof(xb_method, step_s)},
	{"gap_s", offsetof(xb_method, gap_s)},
	{"passes", offsetof(xb_method, passes)},
	{"udp_size", offsetof(xb_method, udp_size)},
	{"footprint_ms", offsetof(xb_method, footprint_ms)},
};
#define NMETHOD_KEYS (sizeof method_keys / sizeof method_keys[0])

static double *method_field(xb_method *m, size_t k)
{
	return (double *)((char *)m + method_keys[k].offset);
}

void export_method_json(xb_strbuf *sb, const xb_method *m)
{
	const char *sep = "";
	sb_puts(sb, "{");
	for (size_t k = 0; k < NMETHOD_KEYS; k++) {
		double v = *method_field((xb_method *)m, k);
		if (isnan(v))
			continue;
		sb_printf(sb, "%s\"%s\": ", sep, method_keys[k].key);
		json_number(sb, v);
		sep = ", ";
		if (k == 1 && !isnan(m->pings)) { /* after interval_ms */
			sb_printf(sb, ", \"idle_window_ms\": ");
			json_number(sb, m->pings * m->interval_ms);
		}
	}
	if (m->nrates) {
		sb_printf(sb, "%s\"rates\": [", sep);
		for (size_t i = 0; i < m->nrates; i++) {
			sb_puts(sb, i ? ", " : "");
			json_number(sb, m->rates[i]);
		}
		sb_puts(sb, "]");
	}
	sb_puts(sb, "}");
}

/* A strict reader of one JSON object (RFC 8259), keeping the method's keys. */
typedef struct json_reader {
	const char *s;
	size_t i;
	int depth;
	xb_err *err;
} json_reader;

#define JSON_MAX_DEPTH 64

static int json_fail(json_reader *j, const char *what)
{
	return xb_fail(j->err, "method JSON, offset %zu: %s", j->i, what);
}

static void json_ws(json_reader *j)
{
	while (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' || j->s[j->i] == '\r')
		j->i++;
}

/* A string; its first cap - 1 bytes go to buf when not NULL, escapes not decoded (a key
 * spelled with escapes is none of the method's). */
static int json_read_string(json_reader *j, char *buf, size_t cap)
{
	size_t n = 0;
	if (j->s[j->i] != '"')
		return json_fail(j, "a string was expected");
	j->i++;
	for (;;) {
		unsigned char c = (unsigned char)j->s[j->i];
		if (c == 0)
			return json_fail(j, "the string does not end");
		if (c < 0x20)
			return json_fail(j, "a control character in a string");
		j->i++;
		if (c == '"')
			break;
		if (c == '\\') {
			char e = j->s[j->i];
			if (e == 'u') {
				for (int k = 1; k <= 4; k++)
					if (xb_hex_digit(j->s[j->i + k]) < 0)
						return json_fail(j, "a bad \\u escape");
				j->i += 5;
			} else if (e && strchr("\"\\/bfnrt", e)) {
				j->i++;
			} else {
				return json_fail(j, "a bad escape in a string");
			}
		}
		if (buf && n + 1 < cap)
			buf[n++] = (char)c;
	}
	if (buf && cap)
		buf[n] = 0;
	return 0;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int json_read_number(json_reader *j, double *out)
{
	size_t start = j->i;
	const char *s = j->s;
	if (s[j->i] == '-')
		j->i++;
	if (s[j->i] == '0')
		j->i++;
	else if (is_digit(s[j->i]))
		while (is_digit(s[j->i]))
			j->i++;
	else
		return json_fail(j, "a number was expected");
	if (s[j->i] == '.') {
		j->i++;
		if (!is_digit(s[j->i]))
			return json_fail(j, "a digit must follow the decimal point");
		while (is_digit(s[j->i]))
			j->i++;
	}
	if (s[j->i] == 'e' || s[j->i] == 'E') {
		j->i++;
		if (s[j->i] == '+' || s[j->i] == '-')
			j->i++;
		if (!is_digit(s[j->i]))
			return json_fail(j, "a digit must follow the exponent");
		while (is_digit(s[j->i]))
			j->i++;
	}
	char buf[64];
	size_t n = j->i - start;
	if (n >= sizeof buf)
		n = sizeof buf - 1; /* only precision is lost: the text was checked above */
	memcpy(buf, s + start, n);
	buf[n] = 0;
	double v = strtod(buf, NULL);
	if (out && !isfinite(v))
		return json_fail(j, "a number out of range");
	if (out)
		*out = v;
	return 0;
}

static int json_skip_value(json_reader *j);

/* An object or an array: its members are read by member (NULL: skipped). */
static int json_skip_container(json_reader *j, char open, char close)
{
	if (++j->depth > JSON_MAX_DEPTH)
		return json_fail(j, "nested too deep");
	j->i++; /* open */
	json_ws(j);
	if (j->s[j->i] == close) {
		j->i++;
		j->depth--;
		return 0;
	}
	for (;;) {
		json_ws(j);
		if (open == '{') {
			if (json_read_string(j, NULL, 0))
				return -1;
			json_ws(j);
			if (j->s[j->i] != ':')
				return json_fail(j, "':' was expected");
			j->i++;
			json_ws(j);
		}
		if (json_skip_value(j))
			return -1;
		json_ws(j);
		if (j->s[j->i] == ',') {
			j->i++;
			continue;
		}
		if (j->s[j->i] == close) {
			j->i++;
			j->depth--;
			return 0;
		}
		return json_fail(j, open == '{' ? "',' or '}' was expected" : "',' or ']' was expected");
	}
}

static int json_skip_value(json_reader *j)
{
	const char *p = j->s + j->i;
	switch (*p) {
	case '"': return json_read_string(j, NULL, 0);
	case '{': return json_skip_container(j, '{', '}');
	case '[': return json_skip_container(j, '[', ']');
	case 't': if (strncmp(p, "true", 4) == 0) { j->i += 4; return 0; } break;
	case 'f': if (strncmp(p, "false", 5) == 0) { j->i += 5; return 0; } break;
	case 'n': if (strncmp(p, "null", 4) == 0) { j->i += 4; return 0; } break;
	default: return json_read_number(j, NULL);
	}
	return json_fail(j, "a value was expected");
}

static int json_read_rates(json_reader *j, xb_method *m)
{
	if (j->s[j->i] != '[')
		return json_fail(j, "\"rates\" must be an array of numbers");
	j->i++;
	m->nrates = 0;
	json_ws(j);
	if (j->s[j->i] == ']') {
		j->i++;
		return 0;
	}
	for (;;) {
		json_ws(j);
		double v;
		if (json_read_number(j, &v))
			return -1;
		if (m->nrates < EXPORT_METHOD_MAX_RATES)
			m->rates[m->nrates++] = v;
		json_ws(j);
		if (j->s[j->i] == ',') {
			j->i++;
			continue;
		}
		if (j->s[j->i] == ']') {
			j->i++;
			return 0;
		}
		return json_fail(j, "',' or ']' was expected in \"rates\"");
	}
}

int export_method_parse(const char *json, xb_method *m, xb_err *err)
{
	export_method_init(m);
	json_reader j = {.s = json, .err = err};
	json_ws(&j);
	if (json[j.i] != '{')
		return json_fail(&j, "an object was expected");
	j.i++;
	json_ws(&j);
	if (json[j.i] == '}') {
		j.i++;
	} else {
		for (;;) {
			char key[32];
			json_ws(&j);
			if (json_read_string(&j, key, sizeof key))
				return -1;
			json_ws(&j);
			if (json[j.i] != ':')
				return json_fail(&j, "':' was expected");
			j.i++;
			json_ws(&j);
			size_t k = 0;
			while (k < NMETHOD_KEYS && strcmp(method_keys[k].key, key) != 0)
				k++;
			int rc;
			if (k < NMETHOD_KEYS)
				rc = json_read_number(&j, method_field(m, k));
			else if (strcmp(key, "rates") == 0)
				rc = json_read_rates(&j, m);
			else
				rc = json_skip_value(&j);
			if (rc)
				return -1;
			json_ws(&j);
			if (json[j.i] == ',') {
				j.i++;
				continue;
			}
			if (json[j.i] == '}') {
				j.i++;
				break;
			}
			return json_fail(&j, "',' or '}' was expected");
		}
	}
	json_ws(&j);
	if (json[j.i])
		return json_fail(&j, "text after the object");
	return 0;
}

/* A count or size as the method paragraph prints it. */
static unsigned count_of(double v)
{
	return v > 0 && v < 4e9 ? (unsigned)llround(v) : 0;
}

void export_method_text(xb_strbuf *sb, const xb_method *m, int virtual_bench)
{
	const char *sep = "Method: ";
	if (!isnan(m->pings) && !isnan(m->interval_ms)) {
		sb_printf(sb, "%s%u pings", sep, count_of(m->pings));
		if (!isnan(m->ping_size))
			sb_printf(sb, " of %u bytes", count_of(m->ping_size));
		sb_printf(sb, " every %.0f ms after an idle window as long (misses per echo: traffic "
			      "minus idle, per ping; turnaround: median, from the usbmon records)",
			  m->interval_ms);
		sep = "; ";
	}
	if (m->nrates && !isnan(m->step_s)) {
		sb_printf(sb, "%sUDP echo: %zu rate steps of %.2f s", sep, m->nrates, m->step_s);
		if (!isnan(m->passes))
			sb_printf(sb, ", %u passes", count_of(m->passes));
		if (!isnan(m->udp_size))
			sb_printf(sb, ", %u-byte datagrams", count_of(m->udp_size));
		sb_puts(sb, " (peak: highest reply rate)");
		sep = "; ";
	}
	if (!isnan(m->footprint_ms) && m->footprint_ms > 0) {
		sb_printf(sb, "%sfootprint: cache flushed, one ping, misses in %.0f ms minus an idle "
			      "window",
			  sep, m->footprint_ms);
		sep = "; ";
	}
	sb_printf(sb, "%sPredicted: the profile's fetch trace moved to the layout's addresses (for "
		      "a relinked image, its veneers where GNU ld put them) and replayed through "
		      "the cache model; OPT bound: the prediction less the misses "
		      "Belady's OPT on a fully associative cache of the same size saves (a model, not "
		      "a measurement).",
		  strcmp(sep, "; ") == 0 ? ". " : "");
	if (virtual_bench)
		sb_puts(sb, " Virtual time on the virtual Pico.");
}

void export_wrap(xb_strbuf *sb, const char *text, size_t width)
{
	const char *p = text;
	while (*p) {
		size_t n = strlen(p);
		if (n > width) {
			n = width;
			while (n > 0 && p[n] != ' ')
				n--;
			if (n == 0)
				n = strcspn(p, " ");
		}
		sb_append(sb, p, n);
		sb_puts(sb, "\n");
		p += n;
		while (*p == ' ')
			p++;
	}
}

/* ---- The report ---- */

const xb_run *export_default_baseline(const xb_run *const *runs, size_t n)
{
	const xb_run *any = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!runs[i]->layout || strcmp(runs[i]->layout, "stock") != 0)
			continue;
		if (!runs[i]->variant || strcmp(runs[i]->variant, "stock") == 0)
			return runs[i];
		if (!any)
			any = runs[i];
	}
	return any;
}

/* Run ids as "1–3, 7" (ranges of consecutive ids). */
static void id_list(xb_strbuf *sb, const xb_run *const *runs, const size_t *pick, size_t npick)
{
	for (size_t k = 0; k < npick;) {
		size_t e = k;
		while (e + 1 < npick && runs[pick[e + 1]]->id == runs[pick[e]]->id + 1)
			e++;
		sb_printf(sb, "%s%lld", k ? ", " : "", (long long)runs[pick[k]]->id);
		if (e > k)
			sb_printf(sb, "%s%lld", e == k + 1 ? ", " : "\xe2\x80\x93",
				  (long long)runs[pick[e]]->id);
		k = e + 1;
	}
}

static int same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* One paragraph per distinct method of the runs (none counts as one). */
static void report_methods(xb_strbuf *sb, const xb_run *const *runs, size_t n)
{
	size_t *pick = xcalloc(n ? n : 1, sizeof *pick);
	char *done = xcalloc(n ? n : 1, 1);
	int several = 0;
	for (size_t i = 1; i < n; i++)
		several |= !same_text(runs[i]->method, runs[0]->method);
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		size_t npick = 0;
		int virtual_bench = 1;
		for (size_t k = i; k < n; k++) {
			if (done[k] || !same_text(runs[k]->method, runs[i]->method))
				continue;
			done[k] = 1;
			pick[npick++] = k;
			virtual_bench &= runs[k]->bench && strcmp(runs[k]->bench, "virtual") == 0;
		}
		xb_strbuf para = {0};
		if (several) {
			sb_puts(&para, npick > 1 ? "Runs " : "Run ");
			id_list(&para, runs, pick, npick);
			sb_puts(&para, ": ");
		}
		xb_method m;
		xb_err err;
		if (!runs[i]->method) {
			sb_puts(&para, several ? "the method was not recorded." : "The method was not "
										  "recorded.");
		} else if (export_method_parse(runs[i]->method, &m, &err) == 0) {
			export_method_text(&para, &m, virtual_bench);
		} else {
			sb_puts(&para, "method as recorded: ");
			md_text(&para, runs[i]->method);
		}
		export_wrap(sb, para.buf, 100);
		sb_puts(sb, "\n");
		sb_free(&para);
	}
	free(pick);
	free(done);
}

void export_report_markdown(xb_strbuf *sb, const xb_run *const *runs, size_t n,
			    const xb_run *baseline, const char *method_text, const char *source)
{
	sb_puts(sb, "# Layout runs\n\n");
	if (n == 0) {
		sb_puts(sb, "No runs in ");
		md_text(sb, source ? source : "the history");
		sb_puts(sb, ".\n");
		return;
	}
	size_t *all = xcalloc(n, sizeof *all);
	for (size_t i = 0; i < n; i++)
		all[i] = i;
	sb_puts(sb, n > 1 ? "Runs " : "Run ");
	id_list(sb, runs, all, n);
	free(all);
	if (source) {
		sb_puts(sb, " of ");
		md_text(sb, source);
	}
	if (baseline) {
		char lb[128];
		export_run_label(baseline, lb, sizeof lb);
		sb_printf(sb, "; the change columns compare each run with run %lld (",
			  (long long)baseline->id);
		md_text(sb, lb);
		sb_puts(sb, ").\n\n");
	} else {
		sb_puts(sb, "; no baseline (no stock run), so no change columns.\n\n");
	}
	xb_export_row *rows = xcalloc(n, sizeof *rows);
	for (size_t i = 0; i < n; i++) {
		rows[i].run = runs[i];
		rows[i].tables = export_tables_of(runs[i], baseline);
	}
	/* the baseline leads the second table: the row the SRAM layouts are read against */
	if (baseline) {
		size_t b = 0;
		while (b < n && runs[b] != baseline)
			b++;
		if (b < n) {
			xb_export_row keep = rows[b];
			memmove(rows + 1, rows, b * sizeof *rows);
			rows[0] = keep;
		}
	}
	export_tables_markdown(sb, rows, n, baseline);
	free(rows);
	sb_puts(sb, "## Method\n\n");
	if (method_text) {
		xb_strbuf para = {0};
		md_text(&para, method_text);
		export_wrap(sb, para.buf ? para.buf : "", 100);
		sb_puts(sb, "\n");
		sb_free(&para);
	} else {
		report_methods(sb, runs, n);
	}
	int notes = 0;
	for (size_t i = 0; i < n; i++) {
		if (!runs[i]->note || !runs[i]->note[0])
			continue;
		if (!notes++)
			sb_puts(sb, "## Notes\n\n");
		sb_printf(sb, "- Run %lld: ", (long long)runs[i]->id);
		md_text(sb, runs[i]->note);
		sb_puts(sb, "\n");
	}
	if (notes)
		sb_puts(sb, "\n");
}

/* ---- CSV and JSON ---- */

enum { F_INT, F_COUNT, F_ID, F_REAL, F_TEXT, F_HASH, F_SIZE, F_METHOD };

typedef struct run_field {
	const char *key;
	int type;
	size_t offset;
} run_field;

#define FIELD(key, type) {#key, type, offsetof(xb_run, key)}
static const run_field run_fields[] = {
	FIELD(id, F_INT),
	FIELD(time, F_HASH),
	FIELD(image_hash, F_HASH),
	FIELD(image, F_TEXT),
	FIELD(variant, F_TEXT),
	FIELD(layout, F_TEXT),
	FIELD(bench, F_TEXT),
	FIELD(extra_ram_bytes, F_COUNT),
	FIELD(pad_bytes, F_COUNT),
	FIELD(misses_per_echo, F_REAL),
	FIELD(predicted_misses_per_echo, F_REAL),
	FIELD(opt_bound_misses_per_echo, F_REAL),
	FIELD(turnaround_ms, F_REAL),
	FIELD(peak_udp_echo_per_s, F_REAL),
	FIELD(footprint_lines, F_REAL),
	FIELD(parent_id, F_ID),
	FIELD(layout_hash, F_HASH),
	{"image_bytes", F_SIZE, offsetof(xb_run, image_len)},
	FIELD(method, F_METHOD),
	FIELD(note, F_TEXT),
};
#define NRUN_FIELDS (sizeof run_fields / sizeof run_fields[0])

/* The field's value as text for CSV; NULL when it is missing. JSON-ready for numbers. */
static const char *field_text(const xb_run *r, const run_field *f, char *buf, size_t cap)
{
	const char *p = (const char *)r + f->offset;
	int64_t i;
	switch (f->type) {
	case F_INT:
		memcpy(&i, p, sizeof i);
		snprintf(buf, cap, "%lld", (long long)i);
		return buf;
	case F_COUNT:
	case F_ID:
		memcpy(&i, p, sizeof i);
		if (f->type == F_COUNT ? i < 0 : i <= 0)
			return NULL;
		snprintf(buf, cap, "%lld", (long long)i);
		return buf;
	case F_REAL: {
		double v;
		memcpy(&v, p, sizeof v);
		if (!isfinite(v))
			return NULL;
		xb_strbuf num = {0};
		json_number(&num, v);
		snprintf(buf, cap, "%s", num.buf);
		sb_free(&num);
		return buf;
	}
	case F_HASH:
		return p[0] ? p : NULL;
	case F_SIZE: {
		size_t z;
		memcpy(&z, p, sizeof z);
		if (!z)
			return NULL;
		snprintf(buf, cap, "%zu", z);
		return buf;
	}
	default: {
		const char *s;
		memcpy(&s, p, sizeof s);
		return s;
	}
	}
}

static void csv_field(xb_strbuf *sb, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		sb_puts(sb, s);
		return;
	}
	sb_puts(sb, "\"");
	for (; *s; s++) {
		if (*s == '"')
			sb_puts(sb, "\"");
		sb_append(sb, s, 1);
	}
	sb_puts(sb, "\"");
}

void export_runs_csv(xb_strbuf *sb, const xb_run *const *runs, size_t n)
{
	for (size_t k = 0; k < NRUN_FIELDS; k++)
		sb_printf(sb, "%s%s", k ? "," : "", run_fields[k].key);
	sb_puts(sb, "\r\n");
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < NRUN_FIELDS; k++) {
			char buf[64];
			const char *v = field_text(runs[i], &run_fields[k], buf, sizeof buf);
			if (k)
				sb_puts(sb, ",");
			if (v)
				csv_field(sb, v);
		}
		sb_puts(sb, "\r\n");
	}
}

/* True when text is one JSON object (so it can be embedded as it is). */
static int json_object_text(const char *text)
{
	xb_err err;
	json_reader j = {.s = text, .err = &err};
	json_ws(&j);
	if (text[j.i] != '{' || json_skip_value(&j))
		return 0;
	json_ws(&j);
	return text[j.i] == 0;
}

void export_runs_json(xb_strbuf *sb, const xb_run *const *runs, size_t n)
{
	sb_puts(sb, "{\"runs\": [");
	for (size_t i = 0; i < n; i++) {
		sb_puts(sb, i ? ",\n  {" : "\n  {");
		for (size_t k = 0; k < NRUN_FIELDS; k++) {
			const run_field *f = &run_fields[k];
			char buf[64];
			const char *v = field_text(runs[i], f, buf, sizeof buf);
			sb_printf(sb, "%s\"%s\": ", k ? ", " : "", f->key);
			if (!v)
				sb_puts(sb, "null");
			else if (f->type == F_TEXT || f->type == F_HASH)
				sb_json_string(sb, v);
			else if (f->type == F_METHOD && json_object_text(v))
				sb_puts(sb, v);
			else if (f->type == F_METHOD)
				sb_json_string(sb, v);
			else
				sb_puts(sb, v);
		}
		sb_puts(sb, "}");
	}
	sb_puts(sb, n ? "\n]}\n" : "]}\n");
}

int export_write(const char *path, const xb_strbuf *sb, xb_err *err)
{
	return xb_write_file_atomic(path, sb->buf ? sb->buf : "", sb->len, err);
}

/* ---- A report folder ---- */

static unsigned grid_cols(size_t nsets)
{
	unsigned cols = 1;
	while ((size_t)cols * cols < nsets)
		cols *= 2;
	return cols;
}

static int dir_file(xb_export_dir *o, const char *name, const xb_strbuf *sb, xb_err *err)
{
	char *path = xasprintf("%s/%s", o->dir, name);
	int rc = export_write(path, sb, err);
	if (rc == 0) {
		o->files++;
		if (o->wrote)
			o->wrote(o->ctx, path);
	}
	free(path);
	return rc;
}

/* An SVG, and its PNG when asked for and a converter is installed. */
static int dir_svg(xb_export_dir *o, const char *name, const xb_strbuf *sb, xb_err *err)
{
	if (dir_file(o, name, sb, err) != 0)
		return -1;
	if (!(o->formats & XB_EXPORT_PNG) || o->no_png)
		return 0;
	char *svg = xasprintf("%s/%s", o->dir, name);
	char *png = xasprintf("%s/%.*s.png", o->dir, (int)(strlen(name) - 4), name);
	int rc = export_png(svg, png, &o->png_why);
	if (rc == 0) {
		o->files++;
		if (o->wrote)
			o->wrote(o->ctx, png);
	} else if (rc == 1) {
		o->no_png = 1;
		rc = 0;
	} else if (err) {
		*err = o->png_why;
	}
	free(svg);
	free(png);
	return rc;
}

int export_write_dir(xb_export_dir *o, const xb_run *const *runs, size_t n,
		     const xb_run *base, xb_err *err)
{
	xb_strbuf sb = {0}, figures = {0};
	int rc = 0;
	if (o->formats & XB_EXPORT_SVG) {
		for (size_t i = 0; i < n && rc == 0; i++) {
			const xb_run *r = runs[i];
			if (!r->nsets)
				continue;
			char lb[128], ta[160], tb[160], name[64];
			xb_svg_setmap maps[2];
			size_t nmaps = 0;
			if (base && base != r && base->nsets == r->nsets) {
				export_run_label(base, lb, sizeof lb);
				snprintf(ta, sizeof ta, "before: run %lld, %s", (long long)base->id, lb);
				maps[nmaps++] = (xb_svg_setmap){base->set_hot, base->nsets, ta};
			}
			export_run_label(r, lb, sizeof lb);
			snprintf(tb, sizeof tb, "%srun %lld, %s", nmaps ? "after: " : "",
				 (long long)r->id, lb);
			maps[nmaps++] = (xb_svg_setmap){r->set_hot, r->nsets, tb};
			export_setmap_svg(&sb, maps, nmaps, grid_cols(r->nsets), o->ways);
			snprintf(name, sizeof name, "sets-%lld.svg", (long long)r->id);
			rc = dir_svg(o, name, &sb, err);
			sb.len = 0;
			sb_printf(&figures, "![cache sets of run %lld](%s)\n\n", (long long)r->id, name);
		}
		if (rc == 0) {
			export_bars_svg(&sb, runs, n, base);
			rc = dir_svg(o, "bars.svg", &sb, err);
			sb.len = 0;
		}
	}
	if (rc == 0 && (o->formats & XB_EXPORT_MD)) {
		export_report_markdown(&sb, runs, n, base, o->method, o->source);
		if (o->formats & XB_EXPORT_SVG)
			sb_printf(&sb, "## Figures\n\n![the runs compared](bars.svg)\n\n%s",
				  figures.buf ? figures.buf : "");
		rc = dir_file(o, "report.md", &sb, err);
		sb.len = 0;
	}
	if (rc == 0 && (o->formats & XB_EXPORT_CSV)) {
		export_runs_csv(&sb, runs, n);
		rc = dir_file(o, "runs.csv", &sb, err);
		sb.len = 0;
	}
	if (rc == 0 && (o->formats & XB_EXPORT_JSON)) {
		export_runs_json(&sb, runs, n);
		rc = dir_file(o, "runs.json", &sb, err);
	}
	sb_free(&sb);
	sb_free(&figures);
	return rc;
}
