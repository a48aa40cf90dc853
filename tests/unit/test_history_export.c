/* test_history_export: the exports of runs (core/export.h): the experiment's text tables as
 * they were printed before the table code moved, the Markdown report with its change
 * columns, the method's JSON, parser and paragraph, CSV and JSON quoting, the SVG figures,
 * and PNG conversion through converters found on PATH (stand-ins made here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/testdir.h"
#include "../../core/export.h"

/* The runs of a quick experiment as the experiment fills them. */
static xb_run runs[4];

static void make_runs(void)
{
	for (int i = 0; i < 4; i++) {
		history_run_init(&runs[i]);
		runs[i].id = i + 1;
		runs[i].variant = "stock";
		runs[i].bench = "virtual";
		runs[i].extra_ram_bytes = 0;
	}
	xb_run *r = &runs[0];
	r->layout = "stock";
	r->misses_per_echo = 1839.4;
	r->predicted_misses_per_echo = 1839.3666666666666;
	r->opt_bound_misses_per_echo = 513.0666666666664;
	r->turnaround_ms = 1.1;
	r->peak_udp_echo_per_s = 520;
	r->footprint_lines = 2992;
	r = &runs[1];
	r->layout = "colour";
	r->misses_per_echo = 1159.8833333333334;
	r->predicted_misses_per_echo = 1164.4;
	r->opt_bound_misses_per_echo = 511.06;
	r->turnaround_ms = 0.875832;
	r->peak_udp_echo_per_s = 660;
	r->footprint_lines = 2767;
	r = &runs[2];
	r->layout = "xip-off";
	r->variant = "XIP_CACHE=off";
	r->misses_per_echo = 28287.3;
	r->turnaround_ms = 10.233956;
	r->peak_udp_echo_per_s = 80;
	r->footprint_lines = 28435;
	r = &runs[3];
	r->layout = "colour-sram-4k";
	r->extra_ram_bytes = 4096;
	r->misses_per_echo = 707.0166666666667;
	r->predicted_misses_per_echo = 686.7333333333333;
	r->opt_bound_misses_per_echo = 169.8666666666668;
	r->turnaround_ms = 0.71554;
	r->peak_udp_echo_per_s = 860;
	r->footprint_lines = 2287;
}

/* What `xipbench experiment --quick --layouts stock,colour,xip-off,colour-sram-4k` printed
 * with its own table code, before the tables moved to core/export.c. */
static const char old_tables[] =
	"Layout                                     Misses/echo  Predicted  OPT bound  Turnaround  Footprint\n"
	"Stock                                           1839.4     1839.4      513.1    1.100 ms       2992\n"
	"Cache colouring (ping profile)                  1159.9     1164.4      511.1    0.876 ms       2767\n"
	"Stock, XIP cache left off at boot              28287.3          -          -   10.234 ms      28435\n"
	"\n"
	"Layout                                     Extra RAM  Peak UDP echo  Ping turnaround  Misses/echo  Predicted  OPT bound\n"
	"Stock                                         0.0 KB          520/s         1.100 ms       1839.4     1839.4      513.1\n"
	"Cache colouring (ping profile)                0.0 KB          660/s         0.876 ms       1159.9     1164.4      511.1\n"
	"Coloured + 4 KB in SRAM                       4.0 KB          860/s         0.716 ms        707.0      686.7      169.9\n";

static void test_tables_text(void **state)
{
	(void)state;
	make_runs();
	xb_export_row rows[4] = {
		{&runs[0], "Stock", EXPORT_TABLE_FLASH | EXPORT_TABLE_SRAM},
		{&runs[1], "Cache colouring (ping profile)", EXPORT_TABLE_FLASH | EXPORT_TABLE_SRAM},
		{&runs[2], "Stock, XIP cache left off at boot", EXPORT_TABLE_FLASH},
		{&runs[3], "Coloured + 4 KB in SRAM", EXPORT_TABLE_SRAM},
	};
	xb_strbuf sb = {0};
	export_tables_text(&sb, rows, 4);
	assert_string_equal(sb.buf, old_tables);
	sb_free(&sb);
	/* no rows: the headers alone, as the experiment prints them */
	export_tables_text(&sb, rows, 0);
	assert_non_null(strstr(sb.buf, "Misses/echo  Predicted  OPT bound  Turnaround  Footprint\n\n"
				       "Layout "));
	sb_free(&sb);
}

static void test_change(void **state)
{
	(void)state;
	char b[32];
	export_change(707.0, 1839.4, b, sizeof b);
	assert_string_equal(b, "\xe2\x88\x92" "62 %");
	export_change(860, 520, b, sizeof b);
	assert_string_equal(b, "+65 %");
	export_change(100, 103, b, sizeof b);
	assert_string_equal(b, "\xe2\x88\x92" "2.9 %");
	export_change(90.04, 100, b, sizeof b);
	assert_string_equal(b, "\xe2\x88\x92" "10 %");
	export_change(1.0004, 1, b, sizeof b);
	assert_string_equal(b, "0 %");
	export_change(5, 5, b, sizeof b);
	assert_string_equal(b, "0 %");
	export_change(NAN, 5, b, sizeof b);
	assert_string_equal(b, "-");
	export_change(5, NAN, b, sizeof b);
	assert_string_equal(b, "-");
	export_change(5, 0, b, sizeof b);
	assert_string_equal(b, "-");
}

static void test_report_markdown(void **state)
{
	(void)state;
	make_runs();
	const char *method = "{\"pings\": 60, \"interval_ms\": 20, \"ping_size\": 56}";
	for (int i = 0; i < 4; i++)
		runs[i].method = method;
	runs[1].note = "moved | things";
	runs[2].variant = "LTO=1";
	const xb_run *list[4] = {&runs[1], &runs[0], &runs[2], &runs[3]};
	const xb_run *base = export_default_baseline(list, 4);
	assert_ptr_equal(base, &runs[0]);
	assert_int_equal(export_tables_of(&runs[0], base), EXPORT_TABLE_FLASH | EXPORT_TABLE_SRAM);
	assert_int_equal(export_tables_of(&runs[3], base), EXPORT_TABLE_SRAM);
	assert_int_equal(export_tables_of(&runs[1], base), EXPORT_TABLE_FLASH);
	xb_strbuf sb = {0};
	export_report_markdown(&sb, list, 4, base, NULL, "runs.db");
	const char *md = sb.buf;
	assert_non_null(strstr(md, "Runs 2, 1, 3, 4 of runs.db; the change columns compare each "
				   "run with run 1 (stock)."));
	assert_non_null(strstr(md, "## Layouts without extra RAM\n\n| Run | Layout | Misses/echo | "
				   "Change | Predicted | OPT bound | Turnaround | Change | Footprint |\n"));
	/* the baseline leads both tables */
	assert_non_null(strstr(md, "|---:|---:|\n| 1 | stock | 1839.4 | baseline | 1839.4 | 513.1 | "
				   "1.100 ms | baseline | 2992 |\n| 2 | colour | 1159.9 | \xe2\x88\x92"
				   "37 % | 1164.4 | 511.1 | 0.876 ms | \xe2\x88\x92" "20 % | 2767 |\n"));
	assert_non_null(strstr(md, "| 3 | xip-off (LTO=1) | 28287.3 | +1438 % | - | - | 10.234 ms | "
				   "+830 % | 28435 |\n"));
	assert_non_null(strstr(md, "| 1 | stock | 0.0 KB | 520/s | baseline | 1.100 ms | baseline | "
				   "1839.4 | baseline | 1839.4 | 513.1 |\n| 4 | colour-sram-4k | 4.0 KB | "
				   "860/s | +65 % | 0.716 ms | \xe2\x88\x92" "35 % | 707.0 | "
				   "\xe2\x88\x92" "62 % | 686.7 | 169.9 |\n"));
	/* one method for all: one paragraph without run numbers */
	assert_non_null(strstr(md, "## Method\n\nMethod: 60 pings of 56 bytes every 20 ms after an "
				   "idle window as long"));
	assert_non_null(strstr(md, "Virtual time on the virtual\nPico.\n"));
	assert_non_null(strstr(md, "## Notes\n\n- Run 2: moved \\| things\n"));
	sb_free(&sb);

	/* methods that differ, one missing, one not JSON; a hardware run; no baseline */
	runs[3].method = "{\"pings\": 300, \"interval_ms\": 20}";
	runs[3].bench = "hardware";
	runs[2].method = NULL;
	runs[1].method = "pings=5";
	export_report_markdown(&sb, list, 4, NULL, NULL, NULL);
	md = sb.buf;
	assert_null(strstr(md, "Change"));
	assert_non_null(strstr(md, "no baseline"));
	assert_non_null(strstr(md, "Run 2: method as recorded: pings=5\n"));
	assert_non_null(strstr(md, "Run 1: Method: 60 pings of 56 bytes"));
	assert_non_null(strstr(md, "Run 3: the method was not recorded."));
	const char *r4 = strstr(md, "Run 4: Method: 300 pings every 20 ms");
	assert_non_null(r4);
	assert_null(strstr(r4, "Virtual time")); /* a hardware run */
	sb_free(&sb);

	/* a method text of the caller's; no runs */
	export_report_markdown(&sb, list, 4, base, "Measured by hand.", "x.db");
	assert_non_null(strstr(sb.buf, "## Method\n\nMeasured by hand.\n"));
	sb_free(&sb);
	export_report_markdown(&sb, list, 0, NULL, NULL, "x.db");
	assert_non_null(strstr(sb.buf, "No runs in x.db."));
	sb_free(&sb);
}

static void test_method(void **state)
{
	(void)state;
	static const uint32_t quick_rates[] = {50, 100, 250, 500, 1000, 1500, 2000, 3000, 4000};
	xb_method m;
	export_method_init(&m);
	m.pings = 60;
	m.interval_ms = 20;
	m.ping_size = 56;
	for (size_t i = 0; i < 9; i++)
		m.rates[m.nrates++] = quick_rates[i];
	m.step_s = 0.05;
	m.gap_s = 0.02;
	m.passes = 2;
	m.udp_size = 64;
	m.footprint_ms = 20;
	/* the paragraph the experiment printed with its own format string */
	char *old = xasprintf(
		"Method: %u pings of %u bytes every %.0f ms after an idle window as long "
		"(misses per echo: traffic minus idle, per ping; turnaround: median, from the "
		"usbmon records); UDP echo: %zu rate steps of %.2f s, %u passes, %u-byte "
		"datagrams (peak: highest reply rate); footprint: cache flushed, one ping, misses "
		"in %.0f ms minus an idle window. Predicted: the profile's fetch trace moved to "
		"the layout's addresses (for a relinked image, its veneers where GNU ld put them) "
		"and replayed through the cache model; OPT bound: the "
		"prediction less the misses Belady's OPT on a fully associative cache of the same "
		"size saves (a model, not a measurement). "
		"Virtual time on the virtual Pico.",
		60u, 56u, 20.0, (size_t)9, 0.05, 2u, 64u, 20.0);
	xb_strbuf sb = {0};
	export_method_text(&sb, &m, 1);
	assert_string_equal(sb.buf, old);
	free(old);
	sb_free(&sb);

	/* JSON and back */
	export_method_json(&sb, &m);
	assert_non_null(strstr(sb.buf, "\"idle_window_ms\": 1200"));
	xb_method back;
	xb_err err;
	assert_int_equal(export_method_parse(sb.buf, &back, &err), 0);
	assert_true(back.pings == 60 && back.interval_ms == 20 && back.ping_size == 56);
	assert_true(back.step_s == 0.05 && back.gap_s == 0.02 && back.passes == 2);
	assert_true(back.udp_size == 64 && back.footprint_ms == 20);
	assert_int_equal(back.nrates, 9);
	assert_true(back.rates[8] == 4000);
	sb_free(&sb);

	/* other keys, of any shape, are skipped */
	assert_int_equal(export_method_parse(" {\"bench\": {\"a\": [1, {\"b\": null}, true]},"
					     " \"note\": \"x\\\"y\\u00e9\", \"pings\": 3e2} ",
					     &back, &err),
			 0);
	assert_true(back.pings == 300);
	assert_true(isnan(back.interval_ms));
	assert_int_equal(back.nrates, 0);
	assert_int_equal(export_method_parse("{}", &back, &err), 0);

	static const char *const bad[] = {
		"", "[1]", "{\"pings\": \"60\"}", "{\"pings\": 1,}", "{\"pings\": 1} x",
		"{\"rates\": [1, \"a\"]}", "{\"pings\": 01}", "{\"pings\": 1.}", "{\"a\": tru}",
		"{\"a\": \"\\x\"}", "{\"a\" 1}", "{\"pings\": -}", "{\"a\": [1 2]}", "{\"pings\": 1e999}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err.msg[0] = 0;
		assert_int_equal(export_method_parse(bad[i], &back, &err), -1);
		assert_non_null(strstr(err.msg, "method JSON, offset"));
	}
	char deep[300];
	memset(deep, '[', sizeof deep);
	memcpy(deep, "{\"a\": ", 6);
	deep[sizeof deep - 1] = 0;
	assert_int_equal(export_method_parse(deep, &back, &err), -1);
	assert_non_null(strstr(err.msg, "nested too deep"));

	/* a method with only the pings: one clause, no dangling separators */
	export_method_init(&m);
	m.pings = 300;
	m.interval_ms = 20;
	export_method_text(&sb, &m, 0);
	assert_non_null(strstr(sb.buf, "Method: 300 pings every 20 ms after an idle window as long "
				       "(misses per echo: traffic minus idle, per ping; turnaround: "
				       "median, from the usbmon records). Predicted:"));
	assert_null(strstr(sb.buf, "Virtual"));
	sb_free(&sb);
	export_wrap(&sb, "aaaa bbbb cccc", 9);
	assert_string_equal(sb.buf, "aaaa bbbb\ncccc\n");
	sb_free(&sb);
}

static void test_csv_json(void **state)
{
	(void)state;
	make_runs();
	runs[0].note = "moved \"x\", then y\nsecond line";
	runs[0].method = "{\"pings\": 60}";
	runs[1].method = "not json";
	runs[1].parent_id = 1;
	strcpy(runs[1].layout_hash, "abcd");
	runs[1].image_len = 4096;
	const xb_run *list[2] = {&runs[0], &runs[1]};
	xb_strbuf sb = {0};
	export_runs_csv(&sb, list, 2);
	assert_true(strncmp(sb.buf, "id,time,image_hash,image,variant,layout,bench,extra_ram_bytes,"
				    "pad_bytes,misses_per_echo,",
			    88) == 0);
	assert_non_null(strstr(sb.buf, ",\"moved \"\"x\"\", then y\nsecond line\"\r\n"));
	assert_non_null(strstr(sb.buf, "\r\n2,,,,stock,colour,virtual,0,,1159.8833333333334,1164.4,"
				       "511.06,0.875832,660,2767,1,abcd,4096,not json,\r\n"));
	assert_non_null(strstr(sb.buf, ",\"{\"\"pings\"\": 60}\","));
	sb_free(&sb);

	export_runs_json(&sb, list, 2);
	assert_true(strncmp(sb.buf, "{\"runs\": [\n  {\"id\": 1, \"time\": null, ", 37) == 0);
	assert_non_null(strstr(sb.buf, "\"method\": {\"pings\": 60}, \"note\": \"moved \\\"x\\\", then "
				       "y\\u000asecond line\"}"));
	assert_non_null(strstr(sb.buf, "\"parent_id\": 1, \"layout_hash\": \"abcd\", \"image_bytes\": "
				       "4096, \"method\": \"not json\", \"note\": null}"));
	assert_non_null(strstr(sb.buf, "\"predicted_misses_per_echo\": 1164.4, "));
	assert_non_null(strstr(sb.buf, "\"pad_bytes\": null, "));
	sb_free(&sb);
	export_runs_json(&sb, list, 0);
	assert_string_equal(sb.buf, "{\"runs\": []}\n");
	sb_free(&sb);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void test_svg(void **state)
{
	(void)state;
	uint16_t a[1024], b[1024];
	for (size_t i = 0; i < 1024; i++) {
		a[i] = (uint16_t)(i % 4); /* 256 sets of each class */
		b[i] = i < 1000 ? 0 : 7;
	}
	xb_svg_setmap maps[2] = {{a, 1024, "before: <run 1> & 'x'"}, {b, 1024, "after"}};
	xb_strbuf sb = {0};
	export_setmap_svg(&sb, maps, 1, 32, 2);
	const char *svg = sb.buf;
	assert_true(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=", 50) == 0);
	assert_int_equal(count(svg, "<title>set "), 1024);
	assert_non_null(strstr(svg, "<title>set 1023: 3 hot lines</title>"));
	assert_non_null(strstr(svg, "before: &lt;run 1&gt; &amp; &apos;x&apos;"));
	assert_non_null(strstr(svg, "1024 sets, 256 with more hot lines than ways"));
	assert_non_null(strstr(svg, "no hot line: 256 sets"));
	assert_non_null(strstr(svg, "3 or more: more than the 2 ways (in a loop over them every "
				    "access misses): 256 sets"));
	/* 32 columns: set 33 is in the second row, second column */
	assert_non_null(strstr(svg, "fill=\"#9ecae1\"><title>set 33: 1 hot line</title>"));
	assert_null(strstr(svg, "<run"));
	sb_free(&sb);

	export_setmap_svg(&sb, maps, 2, 32, 2);
	assert_int_equal(count(sb.buf, "<title>set "), 2048);
	assert_non_null(strstr(sb.buf, "no hot line: 256 \xe2\x86\x92 1000 sets"));
	assert_non_null(strstr(sb.buf, "every access misses): 256 \xe2\x86\x92 24 sets"));
	sb_free(&sb);

	make_runs();
	runs[2].layout = "a<b";
	runs[3].turnaround_ms = NAN;
	const xb_run *list[4] = {&runs[1], &runs[2], &runs[0], &runs[3]};
	export_bars_svg(&sb, list, 4, &runs[0]);
	assert_non_null(strstr(sb.buf, ">1839.4</text>"));
	assert_non_null(strstr(sb.buf, ">707.0</text>"));
	assert_non_null(strstr(sb.buf, ">0.876 ms</text>"));
	assert_non_null(strstr(sb.buf, ">860/s</text>"));
	assert_non_null(strstr(sb.buf, "#3 a&lt;b (XIP_CACHE=off)"));
	assert_int_equal(count(sb.buf, "fill=\"#969696\""), 3); /* the baseline, in each panel */
	/* ... first: its label comes before the others' */
	assert_true(strstr(sb.buf, "#1 stock") < strstr(sb.buf, "#2 colour"));
	assert_non_null(strstr(sb.buf, "with the baseline (grey)"));
	/* the longest bar of a panel is the full width; 0 before 1839.4 */
	assert_non_null(strstr(sb.buf, "width=\"360\" height=\"16\""));
	assert_int_equal(count(sb.buf, ">-</text>"), 1); /* run 4 has no turnaround */
	sb_free(&sb);
	export_bars_svg(&sb, list, 4, NULL);
	assert_int_equal(count(sb.buf, "fill=\"#969696\""), 0);
	assert_true(strstr(sb.buf, "#2 colour") < strstr(sb.buf, "#1 stock"));
	sb_free(&sb);
}

/* ---- PNG through converters found on PATH ---- */

static char *saved_path;

static void write_script(const char *dir, const char *name, const char *body)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s", body);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	free(path);
}

static void use_path(const char *dir)
{
	assert_int_equal(setenv("PATH", dir, 1), 0);
}

static int is_png(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char h[8] = {0};
	int ok = f && fread(h, 1, 8, f) == 8 && memcmp(h, "\x89PNG\r\n\x1a\n", 8) == 0;
	if (f)
		fclose(f);
	return ok;
}

static void test_png(void **state)
{
	(void)state;
	saved_path = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	char *svg = xasprintf("%s/f.svg", test_dir), *png = xasprintf("%s/f.png", test_dir);
	xb_strbuf sb = {0};
	sb_puts(&sb, "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n");
	xb_err err;
	assert_int_equal(export_write(svg, &sb, &err), 0);
	sb_free(&sb);
	char *none = xasprintf("%s/none", test_dir), *fake = xasprintf("%s/fake", test_dir);
	assert_int_equal(mkdir(none, 0755), 0);
	assert_int_equal(mkdir(fake, 0755), 0);

	/* nothing installed: said so, not a failure */
	use_path(none);
	assert_null(export_png_converter());
	assert_int_equal(export_png(svg, png, &err), 1);
	assert_non_null(strstr(err.msg, "no SVG-to-PNG converter"));
	assert_non_null(strstr(err.msg, "librsvg2-bin"));
	assert_int_equal(access(png, F_OK), -1);

	/* a convert that is not ImageMagick's is not taken */
	write_script(fake, "convert", "echo 'not that convert' >&2\nexit 1\n");
	use_path(fake);
	assert_null(export_png_converter());
	/* ImageMagick's is, with the formats spelled out ("png:FILE") */
	write_script(fake, "convert",
		     "if [ \"$1\" = -version ]; then echo 'Version: ImageMagick 6.9.11'; exit 0; fi\n"
		     "case \"$1\" in svg:*) ;; *) exit 3 ;; esac\n"
		     "out=${2#png:}; printf '\\211PNG\\r\\n\\032\\nIM' >\"$out\"\n");
	assert_string_equal(export_png_converter(), "convert");
	assert_int_equal(export_png(svg, png, &err), 0);
	assert_true(is_png(png));
	unlink(png);

	/* rsvg-convert comes first; its arguments are -f png -o OUT IN */
	write_script(fake, "rsvg-convert",
		     "[ \"$1 $2 $3\" = '-f png -o' ] || exit 3\n"
		     "[ -f \"$5\" ] || exit 4\n"
		     "printf '\\211PNG\\r\\n\\032\\nRS' >\"$4\"\n");
	assert_string_equal(export_png_converter(), "rsvg-convert");
	assert_int_equal(export_png(svg, png, &err), 0);
	assert_true(is_png(png));

	/* a converter that fails: its message, and the old PNG stays as it was */
	write_script(fake, "rsvg-convert", "echo 'rsvg-convert: cannot parse f.svg' >&2\nexit 1\n");
	assert_int_equal(export_png(svg, png, &err), -1);
	assert_non_null(strstr(err.msg, "rsvg-convert failed: rsvg-convert: cannot parse f.svg"));
	assert_true(is_png(png));
	/* one that writes something that is not a PNG */
	write_script(fake, "rsvg-convert", "echo hello >\"$4\"\n");
	assert_int_equal(export_png(svg, png, &err), -1);
	assert_non_null(strstr(err.msg, "wrote no PNG"));
	assert_true(is_png(png));
	char *tmp = xasprintf("%s.tmp%ld.png", png, (long)getpid());
	assert_int_equal(access(tmp, F_OK), -1); /* no temporary file left */
	free(tmp);

	use_path(saved_path);
	free(saved_path);
	free(svg);
	free(png);
	free(none);
	free(fake);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_text),
		cmocka_unit_test(test_change),
		cmocka_unit_test(test_report_markdown),
		cmocka_unit_test(test_method),
		cmocka_unit_test(test_csv_json),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_png),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
