/* actions: the workbench's one table of actions (name, keys, arguments, help): keys and ':'
 * commands run them, the help screen, --help and the man page list them, key scripts are
 * checked against them, and the prompt completes from them (tig's request table style). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/liveprof.h"
#include "../panels/theme.h"
#include "app.h"

#define ACT_MAX_ARGS 16

int act_done(char *msg, size_t cap, int flags, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, cap, fmt, ap);
	va_end(ap);
	return flags | XB_ACT_MESSAGE | XB_ACT_REDRAW;
}

static int from_report(char *msg, size_t cap, const xb_report *rep)
{
	return act_done(msg, cap, XB_ACT_ERROR, "%s", rep->msg);
}

static int parse_number(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

/* ---- Application ---- */

static int act_quit(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)argv;
	(void)msg;
	(void)cap;
	a->quit = 1;
	return XB_ACT_QUIT;
}

static int show_panel(xb_app *a, const char *name, char *msg, size_t cap)
{
	int i = app_panel_index(a, name);
	if (i < 0)
		return act_done(msg, cap, XB_ACT_ERROR, "no panel '%s' (libraries, functions, cachesets, "
			    "echoes, log, layout, compare, triage, help)", name);
	a->focus = (size_t)i;
	return XB_ACT_REDRAW;
}

static int act_panel(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	return show_panel(a, argv[1], msg, cap);
}

#define PANEL_ACTION(fn, name)                                                                  \
	static int fn(xb_app *a, int argc, char **argv, char *msg, size_t cap)                  \
	{                                                                                       \
		(void)argc;                                                                     \
		(void)argv;                                                                     \
		return show_panel(a, name, msg, cap);                                           \
	}
PANEL_ACTION(act_libraries, "libraries")
PANEL_ACTION(act_functions, "functions")
PANEL_ACTION(act_cachesets, "cachesets")
PANEL_ACTION(act_echoes, "echoes")
PANEL_ACTION(act_layout, "layout")
PANEL_ACTION(act_compare, "compare")
PANEL_ACTION(act_triage, "triage")
PANEL_ACTION(act_log, "log")
PANEL_ACTION(act_help, "help")

static int act_next_panel(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)argv;
	(void)msg;
	(void)cap;
	a->focus = (a->focus + 1) % a->npanels;
	return XB_ACT_REDRAW;
}

static int act_prev_panel(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)argv;
	(void)msg;
	(void)cap;
	a->focus = (a->focus + a->npanels - 1) % a->npanels;
	return XB_ACT_REDRAW;
}

static int act_view(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	if (argc > 1) {
		if (strcmp(argv[1], "single") == 0)
			a->view_option = 1;
		else if (strcmp(argv[1], "overview") == 0)
			a->view_option = 2;
		else if (strcmp(argv[1], "auto") == 0)
			a->view_option = 0;
		else
			return act_done(msg, cap, XB_ACT_ERROR, "view: single, overview or auto");
	} else {
		a->view_option = a->view == XB_VIEW_OVERVIEW ? 1 : 2;
	}
	return XB_ACT_REDRAW;
}

/* ---- Navigation: commands for the focused panel ---- */

static int panel_verb(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	char arg[256] = "";
	for (int i = 1; i < argc; i++) {
		size_t n = strlen(arg);
		snprintf(arg + n, sizeof arg - n, "%s%s", i > 1 ? " " : "", argv[i]);
	}
	return app_panel_command(a, -1, argv[0], argc > 1 ? arg : NULL, msg, cap);
}

/* ---- View ---- */

static int act_window(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	int w = argc > 1 ? liveprof_window_find(argv[1]) : (a->model.window + 1) % XB_WINDOW_COUNT;
	if (w < 0)
		return act_done(msg, cap, XB_ACT_ERROR, "window: 1s, 10s or all");
	a->model.window = w;
	return act_done(msg, cap, 0, "profile window: %s", liveprof_window_name(w));
}

static int parse_on_off(const char *s, int cur)
{
	if (!s)
		return !cur;
	if (strcmp(s, "on") == 0 || strcmp(s, "yes") == 0 || strcmp(s, "1") == 0)
		return 1;
	if (strcmp(s, "off") == 0 || strcmp(s, "no") == 0 || strcmp(s, "0") == 0)
		return 0;
	return -1;
}

static int act_subtract(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	int on = parse_on_off(argc > 1 ? argv[1] : NULL, a->model.subtract);
	if (on < 0)
		return act_done(msg, cap, XB_ACT_ERROR, "subtract: on or off");
	a->model.subtract = on;
	const xb_liveprof *p = session_profile(a->s);
	if (p)
		liveprof_set_subtract((xb_liveprof *)p, on);
	return act_done(msg, cap, 0, "busy minus idle: %s%s", on ? "on" : "off",
		    on && p && liveprof_idle_seconds(p) <= 0 ? " (no idle window recorded yet: I)"
							     : "");
}

static int act_theme(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	if (argc > 1)
		return app_set_theme(a, argv[1], msg, cap);
	size_t n;
	char **names = theme_list(&n);
	size_t i = 0;
	while (i < n && strcmp(names[i], a->theme.name) != 0)
		i++;
	char next[64];
	snprintf(next, sizeof next, "%s", n ? names[(i + 1) % n] : "mono");
	theme_list_free(names, n);
	return app_set_theme(a, next, msg, cap);
}

static int act_set(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	xb_err err;
	if (options_set(&a->opt, argv[1], argv[2], 3, &err) != 0)
		return act_done(msg, cap, XB_ACT_ERROR, "%s", err.msg);
	/* the options that act at once */
	if (strcmp(argv[1], "theme") == 0)
		return app_set_theme(a, argv[2], msg, cap);
	if (strcmp(argv[1], "fps") == 0)
		a->fps = options_number(&a->opt, "fps");
	if (strcmp(argv[1], "build-command") == 0 || strcmp(argv[1], "flash-command") == 0) {
		if (edit_set_commands(a, &err) != 0)
			return act_done(msg, cap, XB_ACT_ERROR, "%s", err.msg);
	}
	return act_done(msg, cap, 0, "%s = %s", argv[1], argv[2]);
}

static int act_redraw(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)argv;
	(void)msg;
	(void)cap;
	a->dirty = 2; /* a full redraw */
	return XB_ACT_REDRAW;
}

static int act_prompt(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)msg;
	(void)cap;
	char init[256] = "";
	if (argc > 1)
		snprintf(init, sizeof init, "%s ", argv[1]);
	prompt_open(&a->prompt, init);
	return XB_ACT_REDRAW;
}

static int act_search_prompt(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)argv;
	(void)msg;
	(void)cap;
	prompt_open(&a->prompt, "search ");
	return XB_ACT_REDRAW;
}

static int act_filter_prompt(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)argv;
	(void)msg;
	(void)cap;
	prompt_open(&a->prompt, "filter ");
	return XB_ACT_REDRAW;
}

/* ---- Traffic ---- */

static int set_traffic(xb_app *a, const char *kind, int argc, char **argv, char *msg, size_t cap)
{
	double rate, size = strcmp(kind, "ping") == 0 ? 56 : 64;
	if (parse_number(argv[0], 0, 100000, &rate))
		return act_done(msg, cap, XB_ACT_ERROR, "%s: the rate is a number of echoes per second",
			    kind);
	if (argc > 1 && parse_number(argv[1], 0, 1472, &size))
		return act_done(msg, cap, XB_ACT_ERROR, "%s: the size is 0 to 1472 bytes", kind);
	xb_report rep;
	int rc = strcmp(kind, "ping") == 0
			 ? session_set_ping(a->s, rate, (unsigned)size, &rep)
			 : session_set_udp(a->s, rate, (unsigned)size, &rep);
	if (rc)
		return from_report(msg, cap, &rep);
	return act_done(msg, cap, 0, "%s: %g per second, %u bytes", kind, rate, (unsigned)size);
}

static int act_ping(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	return set_traffic(a, "ping", argc - 1, argv + 1, msg, cap);
}

static int act_traffic(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	if (strcmp(argv[1], "off") == 0) {
		xb_report rep;
		if (session_set_ping(a->s, 0, a->model.ping_size, &rep) ||
		    session_set_udp(a->s, 0, a->model.udp_size, &rep))
			return from_report(msg, cap, &rep);
		return act_done(msg, cap, 0, "traffic off");
	}
	if ((strcmp(argv[1], "udp") != 0 && strcmp(argv[1], "ping") != 0) || argc < 3)
		return act_done(msg, cap, XB_ACT_ERROR, "traffic udp RATE [SIZE], traffic ping RATE [SIZE] "
			    "or traffic off");
	return set_traffic(a, argv[1], argc - 2, argv + 2, msg, cap);
}

static int act_sweep(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	xb_report rep;
	if (argc > 1 && strcmp(argv[1], "off") == 0) {
		session_sweep(a->s, NULL, 0, 0, 0, 0, 0, &rep);
		return act_done(msg, cap, 0, "sweep stopped");
	}
	/* the study's steps by default */
	static const uint32_t study[] = {50,   100,  150,  200,  300,  400,  500,  750,  1000,
					 1250, 1500, 1750, 2000, 2500, 3000, 3500, 4000, 5000};
	uint32_t rates[ACT_MAX_ARGS];
	size_t n = 0;
	for (int i = 1; i < argc; i++) {
		double r;
		if (parse_number(argv[i], 1, 100000, &r))
			return act_done(msg, cap, XB_ACT_ERROR, "sweep: rates are 1 to 100000 per second");
		rates[n++] = (uint32_t)r;
	}
	if (session_sweep(a->s, n ? rates : study, n ? n : sizeof study / sizeof *study, 0.1, 0.02,
			  3, a->model.udp_size ? a->model.udp_size : 64, &rep))
		return from_report(msg, cap, &rep);
	return act_done(msg, cap, 0, "UDP sweep started: %zu steps of 0.1 s, 3 passes",
		    n ? n : sizeof study / sizeof *study);
}

static int act_idle(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	double sec = 2;
	if (argc > 1 && parse_number(argv[1], 0.1, 600, &sec))
		return act_done(msg, cap, XB_ACT_ERROR, "idle: 0.1 to 600 seconds");
	xb_report rep;
	if (session_record_idle(a->s, sec, &rep))
		return from_report(msg, cap, &rep);
	return act_done(msg, cap, 0, "recording %.1f s of idle: the traffic pauses", sec);
}

/* ---- Bench ---- */

static int act_speed(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	double sp;
	double cur = isfinite(a->model.speed) ? a->model.speed : 1;
	if (strcmp(argv[0], "faster") == 0)
		sp = cur * 2;
	else if (strcmp(argv[0], "slower") == 0)
		sp = cur / 2;
	else if (argc < 2 || parse_number(argv[1], 0.01, 1000, &sp))
		return act_done(msg, cap, XB_ACT_ERROR, "speed: 0.01 to 1000 times real time");
	if (sp > 1000)
		sp = 1000;
	if (sp < 0.01)
		sp = 0.01;
	xb_report rep;
	if (session_set_speed(a->s, sp, &rep))
		return from_report(msg, cap, &rep);
	return act_done(msg, cap, 0, "speed %g x real time", sp);
}

static int act_pause(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	int on = parse_on_off(argc > 1 ? argv[1] : NULL, a->model.paused);
	if (on < 0)
		return act_done(msg, cap, XB_ACT_ERROR, "pause: on or off");
	xb_report rep;
	if (session_pause(a->s, on, &rep))
		return from_report(msg, cap, &rep);
	return act_done(msg, cap, 0, "%s", on ? "paused (. steps one slice)" : "running");
}

static int act_step(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)argv;
	xb_report rep;
	if (!a->model.paused)
		return act_done(msg, cap, XB_ACT_ERROR, "step: pause first (p)");
	if (session_step(a->s, &rep))
		return from_report(msg, cap, &rep);
	return XB_ACT_REDRAW;
}

static int act_probe(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	static const struct {
		const char *name;
		int trick;
	} tricks[] = {{"drop", XB_PROBE_TRICK_DROP},   {"unplug", XB_PROBE_TRICK_UNPLUG},
		      {"fault", XB_PROBE_TRICK_FAULT}, {"wait", XB_PROBE_TRICK_WAIT},
		      {"normal", XB_PROBE_TRICK_NORMAL}};
	double sec = 3;
	for (size_t i = 0; i < sizeof tricks / sizeof *tricks; i++) {
		if (strcmp(argv[1], tricks[i].name) != 0)
			continue;
		if (argc > 2 && parse_number(argv[2], 0.1, 3600, &sec))
			return act_done(msg, cap, XB_ACT_ERROR, "probe unplug SECONDS: 0.1 to 3600");
		xb_report rep;
		if (session_probe_trick(a->s, tricks[i].trick, sec, &rep))
			return from_report(msg, cap, &rep);
		return act_done(msg, cap, 0, "the virtual probe: %s", argv[1]);
	}
	return act_done(msg, cap, XB_ACT_ERROR, "probe drop, unplug [S], fault, wait or normal");
}

static int act_trace(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	xb_report rep;
	if (session_load_trace(a->s, argv[1], &rep))
		return from_report(msg, cap, &rep);
	app_triage_trace(a, argv[1]);
	return act_done(msg, cap, 0, "predictions from %s", argv[1]);
}

static int act_mark(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	char label[64] = "";
	for (int i = 1; i < argc; i++) {
		size_t n = strlen(label);
		snprintf(label + n, sizeof label - n, "%s%s", i > 1 ? " " : "", argv[i]);
	}
	session_mark(a->s, label);
	return act_done(msg, cap, 0, "marker '%s'", label);
}

/* ---- Scripts ---- */

static int act_dump(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)msg;
	(void)cap;
	free(a->pending_dump);
	a->pending_dump = xstrdup(argv[1]);
	return XB_ACT_REDRAW;
}

static int act_wait(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	static const char *const kinds[] = {"echoes", "samples", "seconds", "frames", "running",
					    "status", "probe", "loop"};
	xb_app_wait *w = &a->wait;
	memset(w, 0, sizeof *w);
	size_t k;
	for (k = 0; k < sizeof kinds / sizeof *kinds; k++)
		if (strcmp(argv[1], kinds[k]) == 0)
			break;
	if (k == sizeof kinds / sizeof *kinds)
		return act_done(msg, cap, XB_ACT_ERROR, "wait echoes N | samples N | seconds S | frames N | "
			    "running | status NAME | probe ok | loop [TIMEOUT]");
	snprintf(w->what, sizeof w->what, "%s", argv[1]);
	int at = 2;
	if (k <= 3) {
		if (argc < 3 || parse_number(argv[2], 0, 1e12, &w->target))
			return act_done(msg, cap, XB_ACT_ERROR, "wait %s needs a number", argv[1]);
		at = 3;
	} else if (k == 5 || k == 6) {
		if (argc < 3)
			return act_done(msg, cap, XB_ACT_ERROR, "wait %s needs a status name", argv[1]);
		snprintf(w->status, sizeof w->status, "%s", argv[2]);
		at = 3;
	}
	w->timeout_s = 60;
	if (argc > at && parse_number(argv[at], 0.1, 3600, &w->timeout_s))
		return act_done(msg, cap, XB_ACT_ERROR, "wait: the timeout is 0.1 to 3600 seconds");
	w->active = 1;
	return XB_ACT_REDRAW;
}

static int act_caption(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	char text[1024] = "", why[512];
	for (int i = 1; i < argc; i++) {
		size_t k = strlen(text);
		snprintf(text + k, sizeof text - k, "%s%s", i > 1 ? " " : "", argv[i]);
	}
	if (caption_check(text, why, sizeof why) != 0)
		return act_done(msg, cap, XB_ACT_ERROR, "caption: %s", why);
	snprintf(a->caption, sizeof a->caption, "%s", text);
	return XB_ACT_REDRAW;
}

static int act_command(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	return act_prompt(a, argc, argv, msg, cap);
}

/* ---- The table ---- */

const xb_action app_actions[] = {
	{"quit", "q", "", "leave the workbench (the terminal is restored)", "Application", 0, 0,
	 act_quit},
	{"help", "? <F1>", "", "this screen", "Application", 0, 0, act_help},
	{"command", ":", "", "the command line: every action is a ':' command", "Application", 0, 0,
	 act_command},
	{"redraw", "<C-l>", "", "draw the whole screen again", "Application", 0, 0, act_redraw},
	{"set", "", "NAME VALUE", "change an option (theme, fps ...; docs/workbench.md)",
	 "Application", 2, 2, act_set},

	{"libraries", "1", "", "the heat per library and display group", "Panels", 0, 0,
	 act_libraries},
	{"functions", "2", "", "every function with samples", "Panels", 0, 0, act_functions},
	{"cachesets", "3", "", "the 1,024 cache sets and their hot lines", "Panels", 0, 0,
	 act_cachesets},
	{"echoes", "4", "", "turnaround, echo rate, misses per echo over time", "Panels", 0, 0,
	 act_echoes},
	{"log", "5", "", "messages and the board's UART0", "Panels", 0, 0, act_log},
	{"layout", "6", "", "the pending layout against the flashed one; its prediction",
	 "Panels", 0, 0, act_layout},
	{"compare", "7", "", "the measured runs as the study's tables; what changed between two",
	 "Panels", 0, 0, act_compare},
	{"triage", "8", "", "why the image is slow: findings with evidence, fix and a command to "
	 "try", "Panels", 0, 0, act_triage},
	{"panel", "", "NAME", "show a panel by name", "Panels", 1, 1, act_panel},
	{"next-panel", "<Tab>", "", "the next panel", "Panels", 0, 0, act_next_panel},
	{"prev-panel", "<S-Tab>", "", "the previous panel", "Panels", 0, 0, act_prev_panel},
	{"view", "v", "[single|overview|auto]", "one panel, or every panel at once (wide screens)",
	 "Panels", 0, 1, act_view},

	{"up", "<Up> k", "", "move the selection up", "Navigation", 0, 0, panel_verb},
	{"down", "<Down> j", "", "move the selection down", "Navigation", 0, 0, panel_verb},
	{"left", "<Left> h", "", "move left (cache sets) or scroll", "Navigation", 0, 0, panel_verb},
	{"right", "<Right> l", "", "move right (cache sets) or scroll", "Navigation", 0, 0,
	 panel_verb},
	{"page-up", "<PageUp>", "", "a page up", "Navigation", 0, 0, panel_verb},
	{"page-down", "<PageDown> <Space>", "", "a page down", "Navigation", 0, 0, panel_verb},
	{"home", "<Home> g", "", "the first row", "Navigation", 0, 0, panel_verb},
	{"end", "<End> G", "", "the last row", "Navigation", 0, 0, panel_verb},
	{"enter", "<Enter>", "", "drill down (library, function, lines; a set's lines)",
	 "Navigation", 0, 0, panel_verb},
	{"back", "<BS> <Esc>", "", "one level up", "Navigation", 0, 0, panel_verb},
	{"sort", "s", "[FIELD]", "sort by FIELD, or by the next field", "Navigation", 0, 1,
	 panel_verb},
	{"filter", "", "[TEXT]", "only rows whose name contains TEXT (none: all rows)",
	 "Navigation", 0, 4, panel_verb},
	{"filter-prompt", "f", "", "type a filter", "Navigation", 0, 0, act_filter_prompt},
	{"search", "", "TEXT", "select the next row whose name contains TEXT", "Navigation", 1, 4,
	 panel_verb},
	{"search-prompt", "/", "", "type a search", "Navigation", 0, 0, act_search_prompt},
	{"next", "n", "", "the next match of the search", "Navigation", 0, 0, panel_verb},
	{"prev", "N", "", "the previous match", "Navigation", 0, 0, panel_verb},
	{"mode", "m", "[NAME]", "the panel's display mode (groups/libraries, occupancy/live/"
	 "predicted, follow/scroll)", "Navigation", 0, 1, panel_verb},

	{"window", "w", "[1s|10s|all]", "the profile's time window, or the next one", "View", 0, 1,
	 act_window},
	{"subtract", "i", "[on|off]", "busy minus idle: subtract the recorded idle window", "View",
	 0, 1, act_subtract},
	{"theme", "t", "[NAME]", "colour theme (dark, light, high-contrast, mono, yours)", "View",
	 0, 1, act_theme},

	{"ping", "", "RATE [SIZE]", "pings per second (0: off) and their data bytes", "Traffic", 1,
	 2, act_ping},
	{"traffic", "", "udp|ping RATE [SIZE] | off", "echo traffic: UDP echoes or pings per second",
	 "Traffic", 1, 3, act_traffic},
	{"sweep", "", "[RATE ...] | off", "the study's UDP step sweep (peak echo rate)", "Traffic",
	 0, ACT_MAX_ARGS, act_sweep},
	{"idle", "I", "[SECONDS]", "pause the traffic and record an idle window", "Traffic", 0, 1,
	 act_idle},

	{"speed", "", "FACTOR", "the virtual bench's speed (times real time)", "Bench", 1, 1,
	 act_speed},
	{"faster", "+", "", "twice as fast", "Bench", 0, 0, act_speed},
	{"slower", "-", "", "half as fast", "Bench", 0, 0, act_speed},
	{"pause", "p", "[on|off]", "pause the virtual bench (time stands still)", "Bench", 0, 1,
	 act_pause},
	{"step", ".", "", "paused: run one slice (1 ms of board time)", "Bench", 0, 0, act_step},
	{"probe", "", "drop|unplug [S]|fault|wait|normal",
	 "the virtual probe misbehaves (to see what the workbench does)", "Bench", 1, 2, act_probe},
	{"trace", "", "FILE", "replay a fetch trace of this image: predicted misses per set and "
	 "function", "Bench", 1, 1, act_trace},
	{"mark", "", "LABEL", "a marker on the charts", "Bench", 1, 8, act_mark},

	{"tag", "x", "", "tag the selected function (edits apply to the tagged ones)", "Layout", 0,
	 0, panel_verb},
	{"tag-none", "", "", "untag every function", "Layout", 0, 0, panel_verb},
	{"sram", "S", "", "the chosen functions to SRAM", "Layout", 0, 0, act_place},
	{"hot", "H", "", "the chosen functions into the hot block", "Layout", 0, 0, act_place},
	{"colour", "C", "[SET|auto]", "the chosen functions coloured: from cache set SET, or one "
	 "chosen for them", "Layout", 0, 1, act_place},
	{"default", "D", "", "the chosen functions back where the linker puts them", "Layout", 0, 0,
	 act_place},
	{"noalloc", "A", "", "the chosen functions through the flash alias that never fills the "
	 "cache", "Layout", 0, 0, act_place},
	{"pin", "!", "[on|off]", "pin the chosen functions (presets leave them alone), or unpin",
	 "Layout", 0, 1, act_pin},
	{"hot-up", "[", "", "the selected function one place earlier in the hot block", "Layout", 0,
	 0, act_hot_step},
	{"hot-down", "]", "", "one place later", "Layout", 0, 0, act_hot_step},
	{"library", "", "NAME sram|hot|colour [SET]|noalloc|default", "every function of a library",
	 "Layout", 2, 4, act_library},
	{"group", "", "NAME sram|hot|colour [SET]|noalloc|default", "every function of a display "
	 "group (\"IP stack\")", "Layout", 2, 8, act_library},
	{"preset", "", "hot|colour|sram SIZE|noalloc SIZE|names FILE", "fill the pending layout "
	 "from a planner (pinned functions stay)", "Layout", 1, 2, act_preset},
	{"budget", "", "sram|pad SIZE", "the SRAM or padding bytes edits and presets may use",
	 "Layout", 2, 2, act_budget},
	{"undo", "u", "", "undo the last edit of the pending layout", "Layout", 0, 0, act_undo},
	{"redo", "<C-r>", "", "redo it", "Layout", 0, 0, act_undo},
	{"save-layout", "", "FILE", "write the pending layout (layout.txt form, pins kept)", "Layout",
	 1, 1, act_layout_file},
	{"load-layout", "", "FILE", "a layout file as the pending layout", "Layout", 1, 1,
	 act_layout_file},
	{"save-names", "", "FILE", "write the SRAM functions' names (a list that survives a code "
	 "change)", "Layout", 1, 1, act_layout_file},
	{"load-names", "", "FILE", "a name list: those functions to SRAM", "Layout", 1, 1,
	 act_layout_file},

	{"profile", "P", "", "record the planning profile (PC samples and a fetch trace during "
	 "pings)", "Loop", 0, 0, act_profile},
	{"relink", "", "[NAME]", "write the pending layout's fragments, relink and verify",
	 "Loop", 0, 1, act_loop},
	{"flash", "", "", "flash the last relinked image and bring it up", "Loop", 0, 0, act_loop},
	{"measure", "M", "[NAME]", "measure the flashed image by the study's method; into the "
	 "history (under NAME: a run of its own)", "Loop", 0, 1, act_loop},
	{"xip-cache", "", "on|off", "switch the XIP cache on or off over SWD (XIP_CTRL.EN)",
	 "Loop", 1, 1, act_xip_cache},
	{"loop", "R", "[NAME]", "the whole loop on the pending layout: relink, verify, flash, "
	 "measure, compare", "Loop", 0, 1, act_loop},
	{"revert", "B", "", "back to the image before the flashed one (and its layout)", "Loop", 0,
	 0, act_revert},
	{"cancel", "X", "", "stop the loop's running step (the board keeps the last good image)",
	 "Loop", 0, 0, act_cancel},
	{"export", "", "DIR", "the runs as report.md, runs.csv, runs.json and SVGs (xipbench "
	 "report)", "Loop", 1, 1, act_export},
	{"try", "T", "", "the triage panel: run the selected finding's command (a layout preset: "
	 "then the loop)", "Loop", 0, 0, act_try},

	{"caption", "", "[TEXT]", "a caption over the panels; {figures} in it show measured values "
	 "(none: no caption)", "Scripts", 0, ACT_MAX_ARGS, act_caption},
	{"dump", "", "FILE", "write the screen as text and styles to FILE", "Scripts", 1, 1,
	 act_dump},
	{"wait", "", "WHAT [N] [TIMEOUT]", "key scripts: wait for echoes N, samples N, seconds S, "
	 "frames N, running, status NAME, loop (until its step ends)", "Scripts", 1, 3, act_wait},
	{NULL, NULL, NULL, NULL, NULL, 0, 0, NULL},
};

static const xb_action *find_action(const char *name)
{
	for (const xb_action *x = app_actions; x->name; x++)
		if (strcmp(x->name, name) == 0)
			return x;
	return NULL;
}

/* Whether key is one of the action's keys. */
static int has_key(const xb_action *x, int key)
{
	const char *p = x->keys;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		int k;
		size_t len;
		if (key_parse(p, &k, &len) != 0)
			return 0;
		if (k == key)
			return 1;
		p += len;
	}
	return 0;
}

int actions_key(xb_app *a, int key, char *msg, size_t cap)
{
	for (const xb_action *x = app_actions; x->name; x++)
		if (*x->keys && has_key(x, key)) {
			char *argv[1] = {(char *)x->name};
			msg[0] = 0;
			return x->run(a, 1, argv, msg, cap);
		}
	return 0;
}

/* Splits a line into words (blanks separate; "..." quotes). Returns the count, -1 when a
 * quote is not closed. */
static int split_words(char *line, char **argv, int max)
{
	int n = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return n;
		if (*p == '"') {
			argv[n++] = ++p;
			char *q = strchr(p, '"');
			if (!q)
				return -1;
			*q = 0;
			p = q + 1;
			continue;
		}
		argv[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
	}
}

/* Finds the action and checks its arguments; -1 with why. */
static const xb_action *parse_command(char *copy, char **argv, int *argc, char *why, size_t cap)
{
	*argc = split_words(copy, argv, ACT_MAX_ARGS + 1);
	if (*argc < 0) {
		snprintf(why, cap, "a quote is not closed");
		return NULL;
	}
	if (*argc == 0) {
		snprintf(why, cap, "an empty command");
		return NULL;
	}
	const xb_action *x = find_action(argv[0]);
	if (!x) {
		char shown[64];
		xb_quote(shown, sizeof shown, argv[0], strlen(argv[0]));
		snprintf(why, cap, "unknown command '%s' (? lists them)", shown);
		return NULL;
	}
	int nargs = *argc - 1;
	if (nargs < x->min_args || nargs > x->max_args) {
		snprintf(why, cap, "%s takes %s%s%s", x->name, x->args[0] ? x->args : "no arguments",
			 x->args[0] ? " (" : "", x->args[0] ? "see ?)" : "");
		return NULL;
	}
	return x;
}

int actions_command(xb_app *a, const char *line, char *msg, size_t cap)
{
	char copy[1024];
	snprintf(copy, sizeof copy, "%s", line);
	char *argv[ACT_MAX_ARGS + 2];
	int argc;
	char why[256];
	const xb_action *x = parse_command(copy, argv, &argc, why, sizeof why);
	if (!x)
		return act_done(msg, cap, XB_ACT_ERROR | XB_ACT_UNKNOWN, "%s", why);
	msg[0] = 0;
	return x->run(a, argc, argv, msg, cap);
}

int actions_check(void *ctx, const char *line, char *why, size_t cap)
{
	(void)ctx;
	char copy[1024];
	snprintf(copy, sizeof copy, "%s", line);
	char *argv[ACT_MAX_ARGS + 2];
	int argc;
	return parse_command(copy, argv, &argc, why, cap) ? 0 : -1;
}

void actions_help(xb_help_entry **out, size_t *n)
{
	size_t k = 0;
	for (const xb_action *x = app_actions; x->name; x++)
		k++;
	xb_help_entry *h = xcalloc(k, sizeof *h);
	k = 0;
	for (const xb_action *x = app_actions; x->name; x++, k++) {
		h[k].keys = x->keys;
		h[k].command = x->args[0] ? xasprintf("%s %s", x->name, x->args) : xstrdup(x->name);
		h[k].help = x->help;
		h[k].group = x->group;
	}
	*out = h;
	*n = k;
}

void actions_help_free(xb_help_entry *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)h[i].command);
	free(h);
}

size_t actions_complete(void *ctx, const char *line, size_t word_start, const char **out,
			size_t max)
{
	xb_app *a = ctx;
	size_t n = 0;
	const char *word = line + word_start;
	size_t wl = strlen(word);
	if (word_start == 0 || strspn(line, " ") >= word_start) {
		for (const xb_action *x = app_actions; x->name && n < max; x++)
			if (strncmp(x->name, word, wl) == 0)
				out[n++] = x->name;
		return n;
	}
	/* arguments: panel names, themes, windows, on/off */
	static const char *const words[] = {"libraries", "functions", "cachesets", "echoes", "log",
					    "triage", "help", "1s", "10s", "all", "on", "off", "udp",
					    "ping", "single", "overview", "auto", "dark", "light",
					    "high-contrast", "mono", "drop", "unplug", "fault",
					    "wait", "normal", "samples", "share", "bytes",
					    "density", "lines", "misses", "name", "address",
					    "groups", "occupancy", "live", "predicted", "follow",
					    "scroll"};
	(void)a;
	for (size_t i = 0; i < sizeof words / sizeof *words && n < max; i++)
		if (strncmp(words[i], word, wl) == 0)
			out[n++] = words[i];
	return n;
}

void actions_print(FILE *f)
{
	const char *group = "";
	for (const xb_action *x = app_actions; x->name; x++) {
		if (strcmp(group, x->group) != 0) {
			group = x->group;
			fprintf(f, "%s%s:\n", x == app_actions ? "" : "\n", group);
		}
		char cmd[96];
		snprintf(cmd, sizeof cmd, ":%s%s%s", x->name, x->args[0] ? " " : "", x->args);
		fprintf(f, "  %-12s %-32s %s\n", x->keys[0] ? x->keys : "", cmd, x->help);
	}
}
