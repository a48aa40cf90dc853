/* app: the workbench application: one live session (session/session.h), the panels that
 * draw it (panels/), the actions table that keys, ':' commands, the help screen and key
 * scripts share (tui/actions.c), the screen's layout (tui/layout.c) and the main loop
 * (tui/loop.c). tui/term.c is the only file that talks to the terminal. */
#ifndef XB_TUI_APP_H
#define XB_TUI_APP_H

#include <stddef.h>
#include <stdint.h>

#include "../core/buildsys.h"
#include "../panels/panel.h"
#include "../session/session.h"
#include "keys.h"
#include "options.h"
#include "prompt.h"

#define XB_APP_PANELS 12

enum { XB_VIEW_SINGLE = 0, XB_VIEW_OVERVIEW };

/* A ':wait' of a key script: the script stops until the condition holds. */
typedef struct xb_app_wait {
	int active;
	char what[16];     /* "echoes", "samples", "seconds", "running", "status", "frames" */
	double target;
	char status[32];   /* "status NAME" */
	uint64_t until_ns; /* wall clock: the wait's bound */
	double timeout_s;
	unsigned line;
	uint64_t start_frames;
	double start_value;
} xb_app_wait;

typedef struct app_edit app_edit;
typedef struct app_triage app_triage;

typedef struct xb_app {
	xb_options opt;
	xb_build_folder build; /* --zephyr / --pico-sdk (kind XB_BUILD_OTHER: none) */
	uint8_t peer_ip[4], device_ip[4]; /* the virtual bench's addresses */
	xb_target tg;
	xb_session *s;
	char *elf;
	xb_model model;
	xb_help_entry *help;
	size_t nhelp;
	/* panels */
	const xb_panel_ops *ops[XB_APP_PANELS];
	void *pst[XB_APP_PANELS];
	xb_rect prect[XB_APP_PANELS]; /* where each was drawn last (0 x 0: not drawn) */
	size_t npanels;
	size_t focus;
	int view_option;              /* auto, single, overview */
	int view;                     /* what the last frame used */
	/* the screen */
	xb_canvas *cv;
	xb_theme theme;
	int colours;                  /* the depth the theme is drawn at */
	int headless;
	int term_open;
	xb_prompt prompt;
	char msg[256];
	int msg_error;
	int too_small;
	/* frames, scripts, dumps */
	uint64_t frames, max_frames;
	double fps;
	uint64_t next_frame_ns;
	xb_script script;
	size_t script_pos;
	xb_app_wait wait;
	char *dump_path;              /* --dump */
	int dump_every;
	char *pending_dump;           /* :dump FILE, written after the next draw */
	int quit;
	int exit_code;
	int dirty;
	uint64_t start_ns;            /* wall clock when the loop started */
	char last_status[512];        /* the session's problem the message line last showed */
	app_edit *edit;               /* the layout loop (tui/edit.c) */
	app_triage *triage;           /* the triage panel's triage (tui/triage.c) */
	/* the demo (xipbench demo) */
	char caption[1024];           /* shown with its {figures} filled in; "" none */
	int demo;                     /* Space pauses the key script, n steps it */
	int script_paused;
	int script_step;              /* paused: run the script to its next caption */
} xb_app;

/* ---- actions.c ---- */

/* What an action asks the loop to do. */
enum { XB_ACT_REDRAW = 1, XB_ACT_QUIT = 2, XB_ACT_ERROR = 4, XB_ACT_MESSAGE = 8,
       XB_ACT_UNKNOWN = 16 };

typedef struct xb_action {
	const char *name;   /* the ':' command */
	const char *keys;   /* keys bound to it, separated by blanks ("q", "<Tab>"), or "" */
	const char *args;   /* for help: "RATE [SIZE]" */
	const char *help;   /* one line */
	const char *group;  /* "Panels", "Navigation", "Traffic", "Bench", "View", "Scripts" */
	int min_args, max_args;
	int (*run)(xb_app *a, int argc, char **argv, char *msg, size_t cap);
} xb_action;

/* The table, ended by a NULL name. */
extern const xb_action app_actions[];
/* An action's message (printf-style, into msg) and its flags: the flags given, MESSAGE and
 * REDRAW. */
int act_done(char *msg, size_t cap, int flags, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Runs the action a key is bound to; 0 when none is. */
int actions_key(xb_app *a, int key, char *msg, size_t cap);
/* Runs a ':' command line (without the ':'). XB_ACT_ERROR with msg for an unknown command
 * or wrong arguments. */
int actions_command(xb_app *a, const char *line, char *msg, size_t cap);
/* For key scripts: whether a command line names an action with a fitting number of
 * arguments (0), or -1 with why. */
int actions_check(void *ctx, const char *line, char *why, size_t cap);
/* Help entries from the table (a malloc'd array whose strings are the table's or owned by
 * the app: free with actions_help_free). */
void actions_help(xb_help_entry **out, size_t *n);
void actions_help_free(xb_help_entry *h, size_t n);
/* Completion for the prompt (tui/prompt.h). */
size_t actions_complete(void *ctx, const char *line, size_t word_start, const char **out,
			size_t max);
/* The keys and commands, for --help and the man page. */
void actions_print(FILE *f);

/* ---- layout.c ---- */

/* The smallest screen the workbench draws on; below it a notice says so. */
#define XB_APP_MIN_W 40
#define XB_APP_MIN_H 10
/* Draws the whole frame into a->cv: status bar, tabs, panels, the message or prompt line
 * (or the "too small" notice). Returns the prompt cursor's column (-1 when hidden). */
int layout_draw(xb_app *a);
/* The panel under canvas cell (x, y), or -1; *tab is set when it is the tab bar. */
int layout_panel_at(const xb_app *a, int x, int y, int *tab);

/* ---- app.c ---- */

/* Fills a->model from the session (once per frame). */
void app_update_model(xb_app *a);
/* Shows a message (error: an alert) on the message line and in the log. */
void app_message(xb_app *a, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Loads and applies a theme by name (the terminal's colours too). */
int app_set_theme(xb_app *a, const char *name, char *msg, size_t cap);
/* The index of a panel by name, or -1. */
int app_panel_index(const xb_app *a, const char *name);
/* Routes a panel command to the focused panel (or panel i). */
int app_panel_command(xb_app *a, long i, const char *verb, const char *arg, char *msg,
		      size_t cap);

/* ---- edit.c, edit_actions.c: the layout loop ---- */

/* Opens the layout loop on the session's image (demo_build: the demo firmware's build
 * folder when the image is the demo firmware: its Makefile relinks it). Never fatal: a
 * loop that cannot be made says why in the log and the layout panel. */
int edit_open(xb_app *a, const char *demo_build);
void edit_close(xb_app *a);
int edit_pollfds(xb_app *a, struct pollfd *fds, int max);
int edit_timeout_ms(xb_app *a);
void edit_pump(xb_app *a);
/* Fills the model's layout-loop and history fields (from app_update_model). */
void edit_update_model(xb_app *a);
int edit_loop_running(const xb_app *a);
/* The build and flash commands from the options again (after :set). */
int edit_set_commands(xb_app *a, xb_err *err);
int act_place(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_pin(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_hot_step(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_library(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_preset(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_budget(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_undo(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_layout_file(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_profile(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_loop(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_revert(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_xip_cache(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_cancel(xb_app *a, int argc, char **argv, char *msg, size_t cap);
int act_export(xb_app *a, int argc, char **argv, char *msg, size_t cap);

/* ---- triage.c: the triage of the running image ---- */

/* Runs the triage again when the triage panel is shown and what it reads changed (the
 * image, the trace, the window; new samples at most every few seconds) and fills the
 * model's triage fields (from app_update_model). A run that fails keeps the last good
 * triage and says why on the message line. */
void app_triage_update(xb_app *a);
void app_triage_close(xb_app *a);
/* A trace file of the image the bench runs now (`:trace FILE`) for the next triage. */
void app_triage_trace(xb_app *a, const char *path);
/* The board changed under the triage (XIP_CTRL written): run it again when shown. */
void app_triage_invalidate(xb_app *a);
/* `try`: the triage panel's selected finding's command, run as if typed; a layout edit is
 * then tried by the loop (relink, verify, flash, measure). */
int act_try(xb_app *a, int argc, char **argv, char *msg, size_t cap);

/* ---- caption.c: the demo's captions ---- */

/* text with every {figure} replaced by its value now ("?" while not measured): run:NAME.FIELD
 * (the latest run of layout NAME: misses_per_echo, predicted, opt_bound, turnaround,
 * peak_udp, footprint, extra_ram_kb), cache.lines, cache.kb, sets.over, pending.sets_over,
 * pending.misses_per_echo, pending.extra_ram_kb, live.misses_per_echo, live.turnaround. */
void caption_expand(const xb_model *m, const char *text, char *out, size_t cap);
/* 0, or -1 with why for a {name} that is not a figure. */
int caption_check(const char *text, char *why, size_t cap);
/* Draws a->caption (if any) at the bottom of area; returns the rows it took. */
int caption_draw(xb_app *a, xb_rect area);

/* ---- loop.c ---- */

/* Runs the main loop until quit; returns the exit code. */
int loop_run(xb_app *a);
/* One key through the input path (the terminal's, or a script's). */
int loop_key(xb_app *a, int key);

/* `xipbench workbench` (and `xipbench` with no arguments): elf is the image (the built
 * demo firmware by default); argv holds the options (argv[0] the command's name). */
int app_main(const char *elf, int argc, char **argv);
/* `xipbench demo`: the same, playing a key script (the shipped study by default) with
 * captions; Space pauses it, n steps it. */
int app_demo(const char *elf, int argc, char **argv);

#endif
