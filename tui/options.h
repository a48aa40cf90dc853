/* options: the workbench's settings in one table (name, type, range, default, help) that
 * drives the command line (`xipbench workbench --NAME VALUE`), the config file
 * ($XDG_CONFIG_HOME/xipbench/config, `NAME = VALUE` lines), `:set NAME VALUE` and the
 * help texts, so that they cannot drift (tmux options-table.c style). No curses here. */
#ifndef XB_TUI_OPTIONS_H
#define XB_TUI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "../core/util.h"

enum xb_option_type {
	XB_OPT_FLAG,   /* on the command line: present or not; elsewhere on/off, yes/no, 1/0 */
	XB_OPT_BOOL,   /* on, off */
	XB_OPT_NUMBER, /* a decimal number in [lo, hi]; a whole one when lo and hi are */
	XB_OPT_TEXT,   /* any text (a path, a name) */
	XB_OPT_CHOICE, /* one of the comma-separated choices (num: its index) */
};

enum {
	XB_OPTF_CMDLINE = 1, /* may be given on the command line */
	XB_OPTF_CONFIG = 2,  /* may be given in the config file */
	XB_OPTF_SET = 4,     /* may be changed with :set while running */
};

typedef struct xb_option_def {
	const char *name;    /* "theme", "ping-rate" */
	int type;            /* enum xb_option_type */
	const char *def;     /* default as text ("dark", "50"); NULL: unset */
	double lo, hi;       /* NUMBER range */
	const char *choices; /* CHOICE: "1s,10s,all" */
	const char *arg;     /* for help: "NAME", "RATE" */
	const char *help;    /* one line */
	int where;           /* XB_OPTF_* */
} xb_option_def;

/* The table: every workbench option, ended by a NULL name. It holds:
 *   bench (TEXT "virtual"; virtual, probe or probe:SERIAL), elf, map, zephyr, pico-sdk
 *   (TEXT: build folders, docs/build-folders.md), west-flash (FLAG), groups (TEXT),
 *   trace (TEXT: a fetch trace for predictions), probe-socket (TEXT), capture, device-ip,
 *   peer-ip, udp-target (TEXT), dhcp (FLAG),
 *   theme (TEXT "dark"), colours (CHOICE "auto": auto,256,16,8,0), mouse (BOOL on),
 *   panel (CHOICE "libraries": the panel names), view (CHOICE "auto": auto,single,overview),
 *   window (CHOICE "10s": 1s,10s,all), subtract (BOOL on: busy minus idle),
 *   speed (NUMBER 1, 0.01..1000), ping-rate (NUMBER 50, 0..10000), ping-size (NUMBER 56,
 *   0..1472), udp-rate (NUMBER 200, 0..100000), udp-size (NUMBER 64, 8..1472),
 *   idle-seconds (NUMBER 2, 0..600: the idle window recorded at the start),
 *   fps (NUMBER 10, 1..60), frames (NUMBER, 1..1e9: headless, exit after N frames),
 *   keys (TEXT: a key script), dump (TEXT: the canvas at the end), dump-every (FLAG: a
 *   dump of every frame, appended), headless (FLAG: no terminal), size (TEXT "200x60":
 *   the canvas size without a terminal), config (TEXT: another config file),
 *   no-config (FLAG).
 * The command line takes every XB_OPTF_CMDLINE option as --NAME VALUE or --NAME=VALUE
 * (FLAG: --NAME alone). */
extern const xb_option_def workbench_options[];
const xb_option_def *options_find(const char *name);

/* Values, one per table entry (text as given, the number parsed). */
typedef struct xb_option_value {
	char *text;   /* NULL: unset */
	double num;   /* NUMBER, BOOL/FLAG (0/1) */
	int from;     /* 0 default, 1 config file, 2 command line, 3 :set */
} xb_option_value;

typedef struct xb_options {
	xb_option_value *v; /* one per workbench_options entry */
	size_t n;
} xb_options;

/* Defaults from the table. */
void options_init(xb_options *o);
void options_free(xb_options *o);

/* Sets one option from text, checking its type and range; from is where it came from
 * (and what XB_OPTF_* it needs: 1 config, 2 command line, 3 :set; 0 needs none). -1 with
 * err: "unknown option 'foo'", "speed: 0 is below 0.01", "window: 'week' is not one of
 * 1s, 10s, all", "elf cannot be changed with :set"; the value stays as it was. A value
 * from a source that ranks below the one the option has now (a config file after the
 * command line) is checked but does not replace it: the command line wins whatever the
 * order of reading. value NULL: a FLAG is set (on the command line, --NAME alone), any
 * other type needs a value. */
int options_set(xb_options *o, const char *name, const char *value, int from, xb_err *err);

/* The command line: argv[0] is the command; options as above; anything else is an error
 * ("unexpected argument 'x'"). -1 with err. */
int options_parse_args(xb_options *o, int argc, char **argv, xb_err *err);
/* A config file: '#' comments (a line, or after a blank), blank lines, `NAME = VALUE`
 * (VALUE may be quoted with "", with \" and \\ inside). Errors name the file and line.
 * A missing file is not an error when optional is set. */
int options_load_config(xb_options *o, const char *path, int optional, xb_err *err);
/* The same for text held in memory (len bytes; name is used in messages). */
int options_parse_config(xb_options *o, const char *name, const char *text, size_t len,
			 xb_err *err);
/* The default config file's path: $XDG_CONFIG_HOME/xipbench/config, else
 * ~/.config/xipbench/config (a new string; NULL without a home). */
char *options_config_path(void);

/* Accessors by name (the name must exist in the table: a programming error otherwise). */
const char *options_text(const xb_options *o, const char *name); /* NULL when unset */
double options_number(const xb_options *o, const char *name);
int options_flag(const xb_options *o, const char *name);
/* Where the value came from: 0 default, 1 config file, 2 command line, 3 :set. */
int options_from(const xb_options *o, const char *name);

/* The options part of --help, from the table ("  --theme NAME   colour theme ... (default
 * dark)"), and the same as a config file template (every option commented out with its
 * default: for docs and `--print-config`). */
void options_print_help(FILE *f);
void options_print_config(FILE *f);

#endif
