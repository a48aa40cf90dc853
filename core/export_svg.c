/* export_svg: the report's figures as SVG (a cache-set map, alone or before/after; bars of
 * the runs' metrics) and PNG through a converter installed on the machine. */
#include "export.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void export_xml_text(xb_strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': sb_puts(sb, "&amp;"); break;
		case '<': sb_puts(sb, "&lt;"); break;
		case '>': sb_puts(sb, "&gt;"); break;
		case '"': sb_puts(sb, "&quot;"); break;
		case '\'': sb_puts(sb, "&apos;"); break;
		default:
			/* XML 1.0 allows no control characters but tab, LF and CR */
			if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r')
				sb_puts(sb, "?");
			else
				sb_append(sb, s, 1);
		}
	}
}

static void svg_open(xb_strbuf *sb, int width, int height, const char *title)
{
	sb_printf(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		      "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n<title>",
		  width, height, width, height);
	export_xml_text(sb, title);
	sb_printf(sb, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width,
		  height);
}

static void svg_text(xb_strbuf *sb, int x, int y, const char *attrs, const char *text)
{
	sb_printf(sb, "<text x=\"%d\" y=\"%d\"%s%s>", x, y, attrs ? " " : "", attrs ? attrs : "");
	export_xml_text(sb, text);
	sb_puts(sb, "</text>\n");
}

/* ---- The cache-set map ---- */

enum { SET_NONE, SET_PART, SET_FULL, SET_OVER, SET_CLASSES };

static const char *const set_fill[SET_CLASSES] = {"#eeeeee", "#9ecae1", "#fdae6b", "#d62728"};

static int set_class(unsigned hot, unsigned ways)
{
	if (hot == 0)
		return SET_NONE;
	if (hot > ways)
		return SET_OVER;
	return hot == ways ? SET_FULL : SET_PART;
}

static void set_class_text(int c, unsigned ways, char *buf, size_t cap)
{
	switch (c) {
	case SET_NONE: snprintf(buf, cap, "no hot line"); break;
	case SET_PART:
		if (ways == 2)
			snprintf(buf, cap, "1 hot line");
		else
			snprintf(buf, cap, "1 to %u hot lines", ways - 1);
		break;
	case SET_FULL:
		snprintf(buf, cap, "%u hot line%s: as many as the ways", ways, ways == 1 ? "" : "s");
		break;
	default:
		snprintf(buf, cap, "%u or more: more than the %u way%s (in a loop over them every "
				   "access misses)",
			 ways + 1, ways, ways == 1 ? "" : "s");
	}
}

#define CELL 14         /* pitch of a set's cell; the square is one less */
#define AXIS 44         /* the set numbers left of the grid */
#define MARGIN 16

static void setmap_grid(xb_strbuf *sb, const xb_svg_setmap *m, unsigned cols, unsigned ways,
			int x0, int y0)
{
	size_t over = 0;
	for (size_t s = 0; s < m->nsets; s++)
		over += m->set_hot[s] > ways;
	svg_text(sb, x0, y0, "font-size=\"14\" font-weight=\"bold\"", m->title ? m->title : "");
	char line[128];
	snprintf(line, sizeof line, "%zu sets, %zu with more hot lines than ways", m->nsets, over);
	svg_text(sb, x0, y0 + 16, "fill=\"#555555\"", line);
	int gy = y0 + 26;
	size_t rows = (m->nsets + cols - 1) / cols;
	unsigned label_every = rows > 16 ? 4 : 1;
	for (size_t r = 0; r < rows; r += label_every) {
		snprintf(line, sizeof line, "%zu", r * cols);
		sb_printf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"10\" "
			      "fill=\"#555555\">%s</text>\n",
			  x0 + AXIS - 4, gy + (int)r * CELL + CELL - 4, line);
	}
	for (size_t s = 0; s < m->nsets; s++) {
		int x = x0 + AXIS + (int)(s % cols) * CELL, y = gy + (int)(s / cols) * CELL;
		unsigned hot = m->set_hot[s];
		sb_printf(sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
			      "<title>set %zu: %u hot line%s</title></rect>\n",
			  x, y, CELL - 1, CELL - 1, set_fill[set_class(hot, ways)], s, hot,
			  hot == 1 ? "" : "s");
	}
}

void export_setmap_svg(xb_strbuf *sb, const xb_svg_setmap *maps, size_t nmaps, unsigned cols,
		       unsigned ways)
{
	if (nmaps > 2)
		nmaps = 2;
	if (cols == 0)
		cols = 32;
	if (ways == 0)
		ways = 2;
	size_t rows = 0;
	for (size_t i = 0; i < nmaps; i++) {
		size_t r = (maps[i].nsets + cols - 1) / cols;
		rows = r > rows ? r : rows;
	}
	int block = AXIS + (int)cols * CELL;
	int width = 2 * MARGIN + (int)nmaps * block + (nmaps > 1 ? 3 * MARGIN : 0);
	int grid_h = 26 + (int)rows * CELL;
	int legend_y = MARGIN + 14 + grid_h + 24;
	int height = legend_y + SET_CLASSES * 20 + MARGIN;
	if (width < 640)
		width = 640;
	svg_open(sb, width, height, nmaps > 1 ? "cache sets, before and after" : "cache sets");
	for (size_t i = 0; i < nmaps; i++)
		setmap_grid(sb, &maps[i], cols, ways, MARGIN + (int)i * (block + 3 * MARGIN),
			    MARGIN + 14);
	/* the legend: each class and its sets in each map */
	for (int c = 0; c < SET_CLASSES; c++) {
		if (c == SET_PART && ways < 2)
			continue;
		int y = legend_y + c * 20;
		sb_printf(sb, "<rect x=\"%d\" y=\"%d\" width=\"13\" height=\"13\" fill=\"%s\" "
			      "stroke=\"#888888\" stroke-width=\"0.5\"/>\n",
			  MARGIN, y - 11, set_fill[c]);
		char what[160];
		set_class_text(c, ways, what, sizeof what);
		xb_strbuf t = {0};
		sb_printf(&t, "%s: ", what);
		for (size_t i = 0; i < nmaps; i++) {
			size_t k = 0;
			for (size_t s = 0; s < maps[i].nsets; s++)
				k += set_class(maps[i].set_hot[s], ways) == c;
			sb_printf(&t, "%s%zu", i ? " \xe2\x86\x92 " : "", k);
		}
		sb_puts(&t, " sets");
		svg_text(sb, MARGIN + 20, y, NULL, t.buf);
		sb_free(&t);
	}
	sb_puts(sb, "</svg>\n");
}

/* ---- Bars ---- */

typedef struct bar_panel {
	const char *title;
	int metric;      /* enum xb_metric */
	int decimals;
	const char *unit;
} bar_panel;

static const bar_panel bar_panels[] = {
	{"Misses per echo", XB_METRIC_MISSES, 1, ""},
	{"Ping turnaround", XB_METRIC_TURNAROUND, 3, " ms"},
	{"Peak UDP echo", XB_METRIC_PEAK_UDP, 0, "/s"},
};

#define BAR_LABEL 240
#define BAR_WIDTH 360
#define BAR_H 16
#define BAR_GAP 6

static double bar_value(const xb_run *r, const bar_panel *p)
{
	return export_metric(r, p->metric);
}

void export_bars_svg(xb_strbuf *sb, const xb_run *const *list, size_t n,
		     const xb_run *baseline)
{
	size_t np = sizeof bar_panels / sizeof bar_panels[0];
	const xb_run **runs = xcalloc(n ? n : 1, sizeof *runs);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (list[i] == baseline)
			runs[k++] = list[i];
	int grey = k > 0;
	for (size_t i = 0; i < n; i++)
		if (list[i] != baseline)
			runs[k++] = list[i];
	int panel_h = 28 + (int)n * (BAR_H + BAR_GAP);
	int width = 2 * MARGIN + BAR_LABEL + BAR_WIDTH + 100;
	int height = 2 * MARGIN + 20 + (int)np * (panel_h + 12);
	svg_open(sb, width, height, "runs compared");
	svg_text(sb, MARGIN, MARGIN + 12, "font-size=\"14\" font-weight=\"bold\"",
		 grey ? "Runs compared with the baseline (grey)" : "Runs compared");
	int y = MARGIN + 20;
	for (size_t p = 0; p < np; p++) {
		const bar_panel *bp = &bar_panels[p];
		double max = 0;
		for (size_t i = 0; i < n; i++) {
			double v = bar_value(runs[i], bp);
			if (isfinite(v) && v > max)
				max = v;
		}
		svg_text(sb, MARGIN, y + 18, "font-weight=\"bold\"", bp->title);
		int by = y + 28;
		for (size_t i = 0; i < n; i++, by += BAR_H + BAR_GAP) {
			char label[160], lb[128], num[64];
			export_run_label(runs[i], lb, sizeof lb);
			snprintf(label, sizeof label, "#%lld %s", (long long)runs[i]->id, lb);
			sb_printf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">",
				  MARGIN + BAR_LABEL - 8, by + BAR_H - 4);
			export_xml_text(sb, label);
			sb_puts(sb, "</text>\n");
			double v = bar_value(runs[i], bp);
			int x = MARGIN + BAR_LABEL;
			if (!isfinite(v)) {
				svg_text(sb, x + 4, by + BAR_H - 4, "fill=\"#555555\"", "-");
				continue;
			}
			int w = max > 0 && v > 0 ? (int)lround(v / max * BAR_WIDTH) : 0;
			sb_printf(sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				      "fill=\"%s\"/>\n",
				  x, by, w, BAR_H, i == 0 && grey ? "#969696" : "#3182bd");
			snprintf(num, sizeof num, "%.*f%s", bp->decimals, v, bp->unit);
			svg_text(sb, x + w + 6, by + BAR_H - 4, NULL, num);
		}
		y += panel_h + 12;
	}
	sb_puts(sb, "</svg>\n");
	free(runs);
}

/* ---- PNG ---- */

/* Runs argv (no shell) with standard input from /dev/null; its standard output and error
 * (the first cap - 1 bytes) go to out. The exit status, or -1 when it could not run or
 * died of a signal. */
static int run_program(char *const argv[], char *out, size_t cap)
{
	int pfd[2];
	out[0] = 0;
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	size_t n = 0;
	char buf[512];
	ssize_t got;
	while ((got = read(pfd[0], buf, sizeof buf)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		size_t k = (size_t)got;
		if (n + k >= cap)
			k = cap - 1 - n;
		memcpy(out + n, buf, k);
		n += k;
	}
	out[n] = 0;
	close(pfd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* convert is also the name of other programs (and of stand-ins): only ImageMagick's will do */
static int is_imagemagick(const char *name)
{
	if (!xb_on_path(name))
		return 0;
	char *argv[] = {(char *)name, "-version", NULL};
	char out[1024];
	return run_program(argv, out, sizeof out) == 0 && strstr(out, "ImageMagick") != NULL;
}

const char *export_png_converter(void)
{
	if (xb_on_path("rsvg-convert"))
		return "rsvg-convert";
	if (is_imagemagick("magick"))
		return "magick";
	if (is_imagemagick("convert"))
		return "convert";
	return NULL;
}

/* A path a converter cannot take for an option. */
static char *plain_path(const char *p)
{
	return p[0] == '-' ? xasprintf("./%s", p) : xstrdup(p);
}

int export_png(const char *svg, const char *png, xb_err *err)
{
	const char *conv = export_png_converter();
	if (!conv) {
		xb_fail(err, "%s: no PNG written: no SVG-to-PNG converter on PATH (rsvg-convert, or "
			     "ImageMagick's convert); install one (Debian: librsvg2-bin or imagemagick) "
			     "to get PNGs",
			png);
		return 1;
	}
	char *in = plain_path(svg), *tmp = xasprintf("%s.tmp%ld.png", png, (long)getpid());
	char *tmp_arg = plain_path(tmp);
	char *in_im = xasprintf("svg:%s", svg), *out_im = xasprintf("png:%s", tmp);
	char *rsvg[] = {(char *)conv, "-f", "png", "-o", tmp_arg, in, NULL};
	char *im[] = {(char *)conv, in_im, out_im, NULL};
	char out[1024];
	int status = run_program(strcmp(conv, "rsvg-convert") == 0 ? rsvg : im, out, sizeof out);
	int rc = 0;
	unsigned char head[8] = {0};
	FILE *f = status == 0 ? fopen(tmp, "rb") : NULL;
	int is_png = f && fread(head, 1, 8, f) == 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0;
	if (f)
		fclose(f);
	if (status != 0 || !is_png) {
		out[strcspn(out, "\n")] = 0;
		rc = xb_fail(err, "%s: %s %s%s%s", png, conv,
			     status != 0 ? "failed" : "wrote no PNG", out[0] ? ": " : "", out);
		unlink(tmp);
	} else if (rename(tmp, png) != 0) {
		rc = xb_fail(err, "%s: %s", png, strerror(errno));
		unlink(tmp);
	}
	free(in);
	free(tmp);
	free(tmp_arg);
	free(in_im);
	free(out_im);
	return rc;
}
