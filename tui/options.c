/* options: the workbench's option table and the command line, config file and :set that
 * it drives (see options.h). */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "keys.h"

#define CL XB_OPTF_CMDLINE
#define CF XB_OPTF_CONFIG
#define SET XB_OPTF_SET
#define ALL (CL | CF | SET)
#define CONFIG_LINE_MAX 4096

const xb_option_def workbench_options[] = {
	{"bench", XB_OPT_TEXT, "virtual", 0, 0, NULL, "BENCH",
	 "the bench: virtual, or a CMSIS-DAP probe: probe or probe:SERIAL", CL | CF},
	{"elf", XB_OPT_TEXT, NULL, 0, 0, NULL, "ELF", "the firmware image the bench runs", CL | CF},
	{"map", XB_OPT_TEXT, NULL, 0, 0, NULL, "MAP", "the image's linker map", CL | CF},
	{"zephyr", XB_OPT_TEXT, NULL, 0, 0, NULL, "DIR",
	 "a Zephyr build folder: its ELF, map and relink command (docs/build-folders.md)", CL | CF},
	{"pico-sdk", XB_OPT_TEXT, NULL, 0, 0, NULL, "DIR",
	 "a pico-sdk build folder: its ELF, map and relink command", CL | CF},
	{"west-flash", XB_OPT_FLAG, NULL, 0, 0, NULL, NULL,
	 "with --zephyr: flash relinked images with west flash instead of through the probe", CL},
	{"groups", XB_OPT_TEXT, NULL, 0, 0, NULL, "FILE", "a grouping file: libraries into groups",
	 CL | CF},
	{"trace", XB_OPT_TEXT, NULL, 0, 0, NULL, "TRACE", "a fetch trace for predictions", CL | CF},
	{"probe-socket", XB_OPT_TEXT, NULL, 0, 0, NULL, "PATH",
	 "the virtual probe's socket, from xipbench sim serve", CL | CF},
	{"capture", XB_OPT_TEXT, NULL, 0, 0, NULL, "SOURCE",
	 "probe bench: the board's usbmon records: usbmonN, a pcap file or fifo, - (stdin)",
	 CL | CF},
	{"device-ip", XB_OPT_TEXT, "192.0.2.1", 0, 0, NULL, "ADDR",
	 "the board's IPv4 address for pings and UDP echoes", CL | CF},
	{"peer-ip", XB_OPT_TEXT, "192.0.2.2", 0, 0, NULL, "ADDR",
	 "virtual bench: the virtual host's IPv4 address", CL | CF},
	{"dhcp", XB_OPT_FLAG, NULL, 0, 0, NULL, NULL,
	 "virtual bench: the virtual host takes its address from the board's DHCP server", CL},
	{"udp-target", XB_OPT_TEXT, NULL, 0, 0, NULL, "HOST:PORT",
	 "probe bench: send UDP echoes here instead (e.g. sim serve --udp-port)", CL | CF},
	{"theme", XB_OPT_TEXT, "dark", 0, 0, NULL, "NAME", "the colour theme", ALL},
	{"colours", XB_OPT_CHOICE, "auto", 0, 0, "auto,256,16,8,0", "DEPTH",
	 "colours: auto is what the terminal has, none with NO_COLOR", ALL},
	{"mouse", XB_OPT_BOOL, "on", 0, 0, NULL, "on|off", "clicks select, the wheel scrolls", ALL},
	{"panel", XB_OPT_CHOICE, "libraries", 0, 0,
	 "libraries,functions,cachesets,echoes,log,layout,compare,triage,help",
	 "PANEL", "the panel shown first", ALL},
	{"view", XB_OPT_CHOICE, "auto", 0, 0, "auto,single,overview", "VIEW",
	 "one panel or an overview of several; auto: by the screen's size", ALL},
	{"window", XB_OPT_CHOICE, "10s", 0, 0, "1s,10s,all", "WINDOW",
	 "the time the live figures cover", ALL},
	{"subtract", XB_OPT_BOOL, "on", 0, 0, NULL, "on|off",
	 "profiles show busy minus idle samples", ALL},
	{"speed", XB_OPT_NUMBER, "1", 0.01, 1000, NULL, "FACTOR",
	 "the virtual bench's speed against real time", ALL},
	{"ping-rate", XB_OPT_NUMBER, "50", 0, 10000, NULL, "RATE", "pings per second, 0 for none",
	 ALL},
	{"ping-size", XB_OPT_NUMBER, "56", 0, 1472, NULL, "BYTES", "bytes of ping payload", ALL},
	{"udp-rate", XB_OPT_NUMBER, "200", 0, 100000, NULL, "RATE",
	 "UDP echoes per second, 0 for none", ALL},
	{"udp-size", XB_OPT_NUMBER, "64", 8, 1472, NULL, "BYTES", "bytes of UDP payload", ALL},
	{"idle-seconds", XB_OPT_NUMBER, "2", 0, 600, NULL, "SECONDS",
	 "the idle profile recorded at the start, without traffic", CL | CF},
	{"fps", XB_OPT_NUMBER, "10", 1, 60, NULL, "N", "frames drawn per second at most", ALL},
	{"work-dir", XB_OPT_TEXT, NULL, 0, 0, NULL, "DIR",
	 "the layout loop's folder: layouts, relinked images, the planning profile, runs.db "
	 "(default: $XDG_CACHE_HOME/xipbench/work)", CL | CF},
	{"history", XB_OPT_TEXT, NULL, 0, 0, NULL, "FILE",
	 "the run history (default: runs.db in the work folder)", CL | CF},
	{"build-command", XB_OPT_TEXT, NULL, 0, 0, NULL, "TEMPLATE",
	 "how a layout is relinked: a command with {layout_dir}, {build_dir}, {elf}, {name} (run "
	 "without a shell; the demo firmware's Makefile by default)", ALL},
	{"flash-command", XB_OPT_TEXT, NULL, 0, 0, NULL, "TEMPLATE",
	 "flash a relinked image with this command ({elf}) instead of through the probe", ALL},
	{"turbo", XB_OPT_NUMBER, "64", 0, 1000, NULL, "FACTOR",
	 "the virtual bench's speed while the loop waits for the board (0: unchanged)", ALL},
	{"measure-pings", XB_OPT_NUMBER, "300", 10, 100000, NULL, "N",
	 "pings of a measurement and of the planning profile (the study's method)", CL | CF},
	{"sram-budget", XB_OPT_NUMBER, "8192", 0, 268435456, NULL, "BYTES",
	 "the layout editor's first SRAM budget", CL | CF},
	{"pad-budget", XB_OPT_NUMBER, "32768", 0, 268435456, NULL, "BYTES",
	 "the layout editor's first padding budget", CL | CF},
	{"frames", XB_OPT_NUMBER, NULL, 1, 1e9, NULL, "N", "exit after N frames", CL},
	{"keys", XB_OPT_TEXT, NULL, 0, 0, NULL, "FILE", "a key script fed through the input path",
	 CL},
	{"dump", XB_OPT_TEXT, NULL, 0, 0, NULL, "FILE", "write the screen and its styles at the end",
	 CL},
	{"dump-every", XB_OPT_FLAG, NULL, 0, 0, NULL, NULL, "with --dump: every frame, appended", CL},
	{"headless", XB_OPT_FLAG, NULL, 0, 0, NULL, NULL, "no terminal: draw into a --size canvas",
	 CL},
	{"size", XB_OPT_TEXT, "200x60", 0, 0, NULL, "WxH", "the screen's size without a terminal", CL},
	{"config", XB_OPT_TEXT, NULL, 0, 0, NULL, "FILE", "read this config file instead", CL},
	{"no-config", XB_OPT_FLAG, NULL, 0, 0, NULL, NULL, "read no config file", CL},
	{"list", XB_OPT_CHOICE, NULL, 0, 0, "actions,options,elements,statuses", "WHAT",
	 "print a table of the actions, options, theme elements or status codes (Markdown) "
	 "and exit", CL},
	{NULL, 0, NULL, 0, 0, NULL, NULL, NULL, 0},
};

static long option_index(const char *name)
{
	for (long i = 0; workbench_options[i].name; i++)
		if (strcmp(workbench_options[i].name, name) == 0)
			return i;
	return -1;
}

const xb_option_def *options_find(const char *name)
{
	long i = option_index(name);
	return i < 0 ? NULL : &workbench_options[i];
}

/* A number as people write it: whole numbers without a fraction. */
static void format_number(double v, char *buf, size_t cap)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, cap, "%.0f", v);
	else
		snprintf(buf, cap, "%g", v);
}

/* A plain decimal number: [+-]digits[.digits][e[+-]digits] and nothing else, so that hex,
 * "inf", "nan" and blanks are refused. */
static int parse_number(const char *s, double *out)
{
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	int digits = 0;
	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, digits++;
	}
	if (!digits)
		return -1;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static int parse_bool(const char *s, double *out)
{
	static const char *const on[] = {"on", "yes", "true", "1"};
	static const char *const off[] = {"off", "no", "false", "0"};
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(s, on[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(s, off[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

/* The index of s among the comma-separated choices, or -1. */
static int choice_index(const char *choices, const char *s)
{
	size_t n = strlen(s);
	int i = 0;
	for (const char *p = choices; *p; i++) {
		size_t k = strcspn(p, ",");
		if (k == n && strncasecmp(p, s, n) == 0)
			return i;
		p += k;
		if (*p == ',')
			p++;
	}
	return -1;
}

/* The choice at index i, copied into buf. */
static const char *choice_at(const char *choices, int i, char *buf, size_t cap)
{
	const char *p = choices;
	for (; i > 0 && *p; i--) {
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
	}
	snprintf(buf, cap, "%.*s", (int)strcspn(p, ","), p);
	return buf;
}

/* "1s, 10s, all" */
static void choice_list(const char *choices, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = 0;
	for (const char *p = choices; *p && n + 1 < cap;) {
		size_t k = strcspn(p, ",");
		n += (size_t)snprintf(buf + n, cap - n, "%s%.*s", n ? ", " : "", (int)k, p);
		p += k;
		if (*p == ',')
			p++;
	}
}

/* Checks value against option i and sets it; label names the option in messages
 * ("speed", "--speed"). */
static int set_value(xb_options *o, long i, const char *value, int from, const char *label,
		     xb_err *err)
{
	const xb_option_def *d = &workbench_options[i];
	static const int need[4] = {0, XB_OPTF_CONFIG, XB_OPTF_CMDLINE, XB_OPTF_SET};
	if (from < 0 || from > 3)
		from = 3;
	if (need[from] && !(d->where & need[from])) {
		if (from == 1)
			return xb_fail(err, "%s cannot be set in a config file", label);
		if (from == 2)
			return xb_fail(err, "%s cannot be given on the command line", label);
		return xb_fail(err, "%s cannot be changed with :set", label);
	}
	char shown[72];
	if (value)
		xb_quote(shown, sizeof shown, value, strlen(value));
	double num = 0;
	char canon[64];
	const char *text = value;
	switch (d->type) {
	case XB_OPT_FLAG:
	case XB_OPT_BOOL:
		if (!value) {
			if (d->type == XB_OPT_BOOL)
				return xb_fail(err, "%s needs a value: on or off", label);
			num = 1;
			text = "on";
		} else if (parse_bool(value, &num)) {
			return xb_fail(err, "%s: '%s' is not on or off", label, shown);
		}
		break;
	case XB_OPT_NUMBER: {
		if (!value)
			return xb_fail(err, "%s needs a value (%s)", label, d->arg ? d->arg : "a number");
		if (parse_number(value, &num))
			return xb_fail(err, "%s: '%s' is not a number", label, shown);
		char lim[32];
		if (num < d->lo) {
			format_number(d->lo, lim, sizeof lim);
			return xb_fail(err, "%s: %s is below %s", label, shown, lim);
		}
		if (num > d->hi) {
			format_number(d->hi, lim, sizeof lim);
			return xb_fail(err, "%s: %s is above %s", label, shown, lim);
		}
		if (d->lo == floor(d->lo) && d->hi == floor(d->hi) && num != floor(num))
			return xb_fail(err, "%s: %s is not a whole number", label, shown);
		break;
	}
	case XB_OPT_TEXT:
		if (!value)
			return xb_fail(err, "%s needs a value (%s)", label, d->arg ? d->arg : "text");
		break;
	case XB_OPT_CHOICE: {
		char list[256];
		choice_list(d->choices, list, sizeof list);
		if (!value)
			return xb_fail(err, "%s needs a value: one of %s", label, list);
		int k = choice_index(d->choices, value);
		if (k < 0)
			return xb_fail(err, "%s: '%s' is not one of %s", label, shown, list);
		num = k;
		text = choice_at(d->choices, k, canon, sizeof canon);
		break;
	}
	}
	xb_option_value *v = &o->v[i];
	if (from < v->from)
		return 0; /* checked; the higher-ranked source keeps its value */
	free(v->text);
	v->text = xstrdup(text);
	v->num = num;
	v->from = from;
	return 0;
}

int options_set(xb_options *o, const char *name, const char *value, int from, xb_err *err)
{
	long i = option_index(name);
	if (i < 0) {
		char shown[72];
		xb_quote(shown, sizeof shown, name, strlen(name));
		return xb_fail(err, "unknown option '%s'", shown);
	}
	return set_value(o, i, value, from, name, err);
}

void options_init(xb_options *o)
{
	size_t n = 0;
	while (workbench_options[n].name)
		n++;
	o->n = n;
	o->v = xcalloc(n, sizeof *o->v);
	for (size_t i = 0; i < n; i++) {
		const xb_option_def *d = &workbench_options[i];
		xb_err err;
		if (d->def && set_value(o, (long)i, d->def, 0, d->name, &err)) {
			fprintf(stderr, "xipbench: option table: %s\n", err.msg);
			abort();
		}
	}
}

void options_free(xb_options *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->v[i].text);
	free(o->v);
	o->v = NULL;
	o->n = 0;
}

/* ---- The command line ---- */

int options_parse_args(xb_options *o, int argc, char **argv, xb_err *err)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char shown[72];
		xb_quote(shown, sizeof shown, a, strlen(a));
		if (a[0] != '-')
			return xb_fail(err, "unexpected argument '%s'", shown);
		if (a[1] != '-' || !a[2])
			return xb_fail(err, "unknown option '%s'", shown);
		const char *eq = strchr(a + 2, '=');
		size_t nlen = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		char name[64];
		if (nlen >= sizeof name)
			return xb_fail(err, "unknown option '%s'", shown);
		memcpy(name, a + 2, nlen);
		name[nlen] = 0;
		long k = option_index(name);
		if (k < 0) {
			xb_quote(shown, sizeof shown, a, eq ? (size_t)(eq - a) : strlen(a));
			return xb_fail(err, "unknown option '%s'", shown);
		}
		const xb_option_def *d = &workbench_options[k];
		char label[72];
		snprintf(label, sizeof label, "--%s", name);
		const char *value = NULL;
		if (eq)
			value = eq + 1;
		else if (d->type != XB_OPT_FLAG) {
			/* "--keys --headless" forgot the value rather than naming a file "--headless" */
			if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)
				return xb_fail(err, "%s needs a value (%s %s)", label, label,
					       d->arg ? d->arg : "VALUE");
			value = argv[++i];
		}
		if (set_value(o, k, value, 2, label, err))
			return -1;
	}
	return 0;
}

/* ---- Config files ---- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Checks that p[0..n) is printable UTF-8 or tabs. */
static int check_text(const char *name, unsigned line, const char *p, size_t n, xb_err *err)
{
	unsigned col = 1;
	for (size_t i = 0; i < n; col++) {
		int c;
		int k = p[i] == '\t' ? 1 : key_utf8(p + i, n - i, &c);
		if (k < 0)
			return xb_fail(err, "%s:%u: column %u: byte 0x%02X is not valid UTF-8", name,
				       line, col, (unsigned char)p[i]);
		if (p[i] != '\t' && !key_is_char(c))
			return xb_fail(err, "%s:%u: column %u: control character U+%04X", name, line,
				       col, (unsigned)c);
		i += (size_t)k;
	}
	return 0;
}

/* One line (NUL-terminated, bytes checked): NAME = VALUE, a comment or nothing. */
static int config_line(xb_options *o, const char *name, unsigned line, char *b, xb_err *err)
{
	while (is_blank(*b))
		b++;
	if (!*b || *b == '#')
		return 0;
	char *key = b;
	while (*b && !is_blank(*b) && *b != '=')
		b++;
	char *key_end = b;
	while (is_blank(*b))
		b++;
	if (*b != '=' || key_end == key)
		return xb_fail(err, "%s:%u: expected 'NAME = VALUE'", name, line);
	*key_end = 0;
	b++;
	while (is_blank(*b))
		b++;
	char *value = b;
	if (*b == '"') {
		char *w = value;
		b++;
		for (;;) {
			if (!*b)
				return xb_fail(err, "%s:%u: a quoted value without its closing '\"'", name,
					       line);
			if (*b == '"')
				break;
			if (*b == '\\' && (b[1] == '"' || b[1] == '\\'))
				b++;
			*w++ = *b++;
		}
		*w = 0;
		b++;
		while (is_blank(*b))
			b++;
		if (*b && *b != '#')
			return xb_fail(err, "%s:%u: text after the quoted value", name, line);
	} else {
		char *e = b;
		while (*e && !(*e == '#' && (e == value || is_blank(e[-1]))))
			e++;
		while (e > value && is_blank(e[-1]))
			e--;
		*e = 0;
		if (!*value)
			return xb_fail(err, "%s:%u: %s needs a value", name, line, key);
	}
	long i = option_index(key);
	if (i < 0) {
		char shown[72];
		xb_quote(shown, sizeof shown, key, strlen(key));
		return xb_fail(err, "%s:%u: unknown option '%s'", name, line, shown);
	}
	xb_err e2;
	if (set_value(o, i, value, 1, key, &e2))
		return xb_fail(err, "%s:%u: %s", name, line, e2.msg);
	return 0;
}

int options_parse_config(xb_options *o, const char *name, const char *text, size_t len,
			 xb_err *err)
{
	const char *p = text, *end = text + len;
	unsigned line = 0;
	char *buf = xmalloc(CONFIG_LINE_MAX + 1);
	int rc = 0;
	while (p < end && rc == 0) {
		line++;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *next = nl ? nl + 1 : end;
		if (n && p[n - 1] == '\r')
			n--;
		if (n > CONFIG_LINE_MAX)
			rc = xb_fail(err, "%s:%u: line longer than %d bytes", name, line,
				     CONFIG_LINE_MAX);
		else if ((rc = check_text(name, line, p, n, err)) == 0) {
			memcpy(buf, p, n);
			buf[n] = 0;
			rc = config_line(o, name, line, buf, err);
		}
		p = next;
	}
	free(buf);
	return rc;
}

int options_load_config(xb_options *o, const char *path, int optional, xb_err *err)
{
	struct stat st;
	if (optional && stat(path, &st) != 0 && errno == ENOENT)
		return 0;
	char *text;
	size_t len;
	if (xb_read_file(path, &text, &len, err))
		return -1;
	int rc = options_parse_config(o, path, text, len, err);
	free(text);
	return rc;
}

char *options_config_path(void)
{
	const char *x = getenv("XDG_CONFIG_HOME");
	if (x && *x == '/')
		return xasprintf("%s/xipbench/config", x);
	const char *home = getenv("HOME");
	if (home && *home)
		return xasprintf("%s/.config/xipbench/config", home);
	return NULL;
}

/* ---- Accessors ---- */

static const xb_option_value *value_of(const xb_options *o, const char *name)
{
	long i = option_index(name);
	if (i < 0 || (size_t)i >= o->n) {
		fprintf(stderr, "xipbench: no option '%s' in the table\n", name);
		abort();
	}
	return &o->v[i];
}

const char *options_text(const xb_options *o, const char *name)
{
	return value_of(o, name)->text;
}

double options_number(const xb_options *o, const char *name)
{
	return value_of(o, name)->num;
}

int options_flag(const xb_options *o, const char *name)
{
	return value_of(o, name)->num != 0;
}

int options_from(const xb_options *o, const char *name)
{
	return value_of(o, name)->from;
}

/* ---- Help ---- */

/* What an option takes and its default: " (0..10000; default 50)". */
static void option_notes(const xb_option_def *d, char *buf, size_t cap)
{
	char range[300] = "", lo[32], hi[32];
	if (d->type == XB_OPT_NUMBER) {
		format_number(d->lo, lo, sizeof lo);
		format_number(d->hi, hi, sizeof hi);
		snprintf(range, sizeof range, "%s..%s", lo, hi);
	} else if (d->type == XB_OPT_CHOICE) {
		choice_list(d->choices, range, sizeof range);
	}
	if (range[0] && d->def)
		snprintf(buf, cap, " (%s; default %s)", range, d->def);
	else if (range[0])
		snprintf(buf, cap, " (%s)", range);
	else if (d->def && d->type != XB_OPT_FLAG)
		snprintf(buf, cap, " (default %s)", d->def);
	else
		buf[0] = 0;
}

/* Writes text after first (the first line) or rest (the others), wrapped. */
static void print_wrapped(FILE *f, const char *first, const char *rest, const char *text)
{
	const int width = 80; /* --help reads well in an 80-column terminal */
	int col = fprintf(f, "%s", first), fresh = 1;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		int n = (int)strcspn(p, " ");
		if (!n)
			break;
		if (!fresh && col + 1 + n > width) {
			col = fprintf(f, "\n%s", rest) - 1;
			fresh = 1;
		}
		if (!fresh)
			col += fprintf(f, " ");
		col += fprintf(f, "%.*s", n, p);
		fresh = 0;
		p += n;
	}
	fputc('\n', f);
}

void options_print_help(FILE *f)
{
	int width = 0;
	for (const xb_option_def *d = workbench_options; d->name; d++) {
		if (!(d->where & XB_OPTF_CMDLINE))
			continue;
		int n = 2 + (int)strlen(d->name) + (d->arg ? 1 + (int)strlen(d->arg) : 0);
		if (n > width)
			width = n;
	}
	for (const xb_option_def *d = workbench_options; d->name; d++) {
		if (!(d->where & XB_OPTF_CMDLINE))
			continue;
		char first[128], rest[64], text[512], notes[400];
		snprintf(first, sizeof first, "  --%s%s%s", d->name, d->arg ? " " : "",
			 d->arg ? d->arg : "");
		snprintf(first + strlen(first), sizeof first - strlen(first), "%*s",
			 width + 4 - (int)strlen(first), "");
		snprintf(rest, sizeof rest, "%*s", width + 4, "");
		option_notes(d, notes, sizeof notes);
		snprintf(text, sizeof text, "%s%s", d->help, notes);
		print_wrapped(f, first, rest, text);
	}
}

void options_print_config(FILE *f)
{
	fprintf(f, "# xipbench workbench settings: $XDG_CONFIG_HOME/xipbench/config (by default\n"
		   "# ~/.config/xipbench/config). One `NAME = VALUE` a line; the command line\n"
		   "# (--NAME VALUE) wins over this file. Every setting is shown with its default.\n");
	for (const xb_option_def *d = workbench_options; d->name; d++) {
		if (!(d->where & XB_OPTF_CONFIG))
			continue;
		char text[512], notes[400];
		option_notes(d, notes, sizeof notes);
		snprintf(text, sizeof text, "%s%s%s", d->help, notes,
			 d->where & XB_OPTF_SET ? "; :set changes it" : "");
		fputc('\n', f);
		print_wrapped(f, "# ", "# ", text);
		fprintf(f, "#%s = %s\n", d->name, d->def ? d->def : d->arg ? d->arg : "");
	}
}
