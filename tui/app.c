/* app: the workbench application: options, the session, the panels, the theme, and the model
 * the panels draw, gathered from the session once per frame. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "term.h"

/* ---- Messages ---- */

void app_message(xb_app *a, int error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof a->msg, fmt, ap);
	va_end(ap);
	a->msg_error = error;
	if (a->s && error)
		logring_add(session_log_mut(a->s), session_now(a->s), XB_LOG_XIPBENCH, XB_LOG_WARN,
			    a->msg);
	a->dirty = a->dirty ? a->dirty : 1;
}

/* ---- Panels ---- */

int app_panel_index(const xb_app *a, const char *name)
{
	for (size_t i = 0; i < a->npanels; i++)
		if (strcmp(a->ops[i]->name, name) == 0)
			return (int)i;
	return -1;
}

static int panel_result(xb_app *a, size_t i, const char *verb, const xb_panel_result *res,
			char *msg, size_t cap)
{
	int flags = 0;
	if (res->flags & XB_PANEL_REDRAW)
		flags |= XB_ACT_REDRAW;
	if (res->flags & XB_PANEL_SWITCH) {
		int j = app_panel_index(a, res->target);
		if (j >= 0)
			a->focus = (size_t)j;
		flags |= XB_ACT_REDRAW;
	}
	if (res->flags & XB_PANEL_UNHANDLED) {
		snprintf(msg, cap, "the %s panel has no '%s'", a->ops[i]->title, verb);
		return flags | XB_ACT_ERROR | XB_ACT_MESSAGE;
	}
	if (res->flags & (XB_PANEL_MESSAGE | XB_PANEL_ERROR)) {
		snprintf(msg, cap, "%s", res->msg);
		flags |= XB_ACT_MESSAGE | (res->flags & XB_PANEL_ERROR ? XB_ACT_ERROR : 0);
	}
	return flags;
}

int app_panel_command(xb_app *a, long i, const char *verb, const char *arg, char *msg,
		      size_t cap)
{
	size_t k = i < 0 ? a->focus : (size_t)i;
	xb_panel_result res = {0};
	a->ops[k]->command(a->pst[k], &a->model, verb, arg, &res);
	return panel_result(a, k, verb, &res, msg, cap);
}

/* ---- Theme ---- */

int app_set_theme(xb_app *a, const char *name, char *msg, size_t cap)
{
	xb_theme t;
	xb_err err;
	if (theme_load(&t, name, &err) != 0) {
		snprintf(msg, cap, "%s", err.msg);
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	}
	a->theme = t;
	if (a->term_open) {
		term_set_theme(&a->theme);
		term_invalidate();
	}
	snprintf(msg, cap, "theme %s%s", a->theme.name,
		 a->colours == 0 ? " (no colours here: its monochrome attributes)" : "");
	return XB_ACT_MESSAGE | XB_ACT_REDRAW;
}

/* ---- The model ---- */

/* The layout's name: the folder of a relinked image (layouts/NAME/...), else "as linked". */
static void layout_name(const char *elf, char *out, size_t cap)
{
	const char *p = elf ? strstr(elf, "/layouts/") : NULL;
	if (!p) {
		snprintf(out, cap, "as linked");
		return;
	}
	p += 9;
	snprintf(out, cap, "%.*s", (int)strcspn(p, "/"), p);
}

void app_update_model(xb_app *a)
{
	static char layout[64], state[600], bench[200];
	xb_model *m = &a->model;
	xb_session *s = a->s;
	xb_bench_state bs;
	session_bench_state(s, &bs);
	xb_session_figures f;
	session_figures(s, &f);
	snprintf(bench, sizeof bench, "%s", session_bench_name(s));
	m->bench = bench;
	m->image = session_image_path(s);
	layout_name(m->image, layout, sizeof layout);
	m->layout = layout;
	const xb_report *st = session_status(s);
	m->alert = st->status != XB_STATUS_OK;
	/* a new problem also goes to the message line, whole */
	if (m->alert && strcmp(st->msg, a->last_status) != 0)
		app_message(a, 1, "%s", st->msg);
	snprintf(a->last_status, sizeof a->last_status, "%s", m->alert ? st->msg : "");
	if (m->alert)
		snprintf(state, sizeof state, "%s", st->msg);
	else if (session_job(s, NULL) == XB_JOB_RUNNING)
		snprintf(state, sizeof state, "%s", session_job_progress(s));
	else
		snprintf(state, sizeof state, "%s", session_phase_text(s));
	m->state = state;
	m->speed = bs.is_virtual ? bs.speed : NAN;
	m->paused = bs.paused;
	m->ratio = bs.ratio;
	m->bench_seconds = (double)bs.now_ns / 1e9;
	m->now_ns = session_now(s);
	m->echo_rate = f.echo_rate;
	m->turnaround_ms = f.turnaround_ms;
	m->misses_per_echo = f.misses_per_echo;
	m->misses_per_s = f.misses_per_s;
	m->idle_misses_per_s = f.idle_misses_per_s;
	m->hit_rate = f.hit_rate;
	m->loss = f.loss;
	m->sample_rate = f.sample_rate;
	m->echoes = f.replies;
	m->samples = f.samples;
	m->samples_lost = f.samples_lost;
	m->ping_rate = f.ping_rate;
	m->ping_size = f.ping_size;
	m->udp_rate = f.udp_rate;
	m->udp_size = f.udp_size;
	m->sweep = f.sweep;
	m->sweep_step = f.sweep_step;
	m->sweep_steps = f.sweep_steps;
	m->sweep_peak = f.sweep_peak;
	m->tg = session_target(s);
	m->img = session_image(s);
	m->prof = session_profile(s);
	m->src = session_srclines(s);
	m->sets = session_sets(s, m->window);
	m->func_misses = session_func_misses(s, &m->func_misses_from);
	m->series[XB_SERIES_TURNAROUND] = session_series(s, XB_SS_TURNAROUND);
	m->series[XB_SERIES_ECHO_RATE] = session_series(s, XB_SS_ECHO_RATE);
	m->series[XB_SERIES_MISSES_PER_ECHO] = session_series(s, XB_SS_MISSES_PER_ECHO);
	m->series[XB_SERIES_HIT_RATE] = session_series(s, XB_SS_HIT_RATE);
	m->log = session_log(s);
	m->help = a->help;
	m->nhelp = a->nhelp;
	edit_update_model(a);
	if (m->loop_running) {
		snprintf(state, sizeof state, "%s", m->loop_progress);
		m->alert = 0;
	}
	if (m->flashed.name)
		m->layout = m->flashed.name;
	app_triage_update(a);
}

/* ---- Start ---- */

static void progress(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "xipbench: %s\n", msg);
}

static int parse_size(const char *s, int *w, int *h)
{
	char *end;
	long x = strtol(s, &end, 10);
	if (*end != 'x')
		return -1;
	long y = strtol(end + 1, &end, 10);
	if (*end || x < 1 || y < 1 || x > 2000 || y > 1000)
		return -1;
	*w = (int)x;
	*h = (int)y;
	return 0;
}

/* A Markdown table cell: '|' escaped. */
static const char *md(const char *s, char *buf, size_t cap)
{
	size_t k = 0;
	for (; *s && k + 2 < cap; s++) {
		if (*s == '|')
			buf[k++] = '\\';
		buf[k++] = *s;
	}
	buf[k] = 0;
	return buf;
}

/* --list WHAT: the tables docs/workbench.md and the man page are made from. */
static void print_list(const char *what)
{
	char b1[256], b2[256], b3[512];
	if (strcmp(what, "actions") == 0) {
		const char *group = "";
		for (const xb_action *x = app_actions; x->name; x++) {
			if (strcmp(group, x->group) != 0) {
				group = x->group;
				printf("%s**%s**\n\n| keys | command | what it does |\n|---|---|---|\n",
				       x == app_actions ? "" : "\n", group);
			}
			char cmd[128];
			snprintf(cmd, sizeof cmd, ":%s%s%s", x->name, x->args[0] ? " " : "", x->args);
			/* each key in backquotes: "<F1>" is not HTML */
			char keys[128] = "";
			char copy[128];
			snprintf(copy, sizeof copy, "%s", x->keys);
			for (char *k = strtok(copy, " "); k; k = strtok(NULL, " ")) {
				size_t n = strlen(keys);
				snprintf(keys + n, sizeof keys - n, "%s`%s`", n ? " " : "", k);
			}
			printf("| %s | `%s` | %s |\n", md(keys, b1, sizeof b1), md(cmd, b2, sizeof b2),
			       md(x->help, b3, sizeof b3));
		}
	} else if (strcmp(what, "options") == 0) {
		printf("| option | value | default | where | what it does |\n|---|---|---|---|---|\n");
		for (const xb_option_def *d = workbench_options; d->name; d++) {
			char where[64] = "";
			if (d->where & XB_OPTF_CMDLINE)
				strcat(where, "command line");
			if (d->where & XB_OPTF_CONFIG)
				strcat(where, where[0] ? ", config" : "config");
			if (d->where & XB_OPTF_SET)
				strcat(where, where[0] ? ", :set" : ":set");
			const char *arg = d->type == XB_OPT_CHOICE ? d->choices : d->arg ? d->arg : "";
			printf("| `--%s` | %s | %s | %s | %s |\n", d->name, md(arg, b1, sizeof b1),
			       d->def ? d->def : "", where, md(d->help, b3, sizeof b3));
		}
	} else if (strcmp(what, "elements") == 0) {
		xb_theme dark;
		xb_err err;
		int have = theme_load(&dark, "dark", &err) == 0;
		printf("| element | dark theme (256 colours) | without colours |\n|---|---|---|\n");
		for (int el = 0; el < XB_EL_COUNT; el++) {
			char d[128] = "", m[128];
			if (have)
				theme_describe(&dark.el[el], 256, d, sizeof d);
			xb_theme mono;
			theme_mono(&mono);
			theme_describe(&mono.el[el], 0, m, sizeof m);
			printf("| `%s` | %s | %s |\n", theme_element_name(el), d, m);
		}
	} else {
		printf("| status | what the workbench says | what to do |\n|---|---|---|\n");
		for (int st = 0; st < XB_STATUS_COUNT; st++) {
			const xb_status_info *i = status_info((xb_status)st);
			printf("| `%s` | %s | %s |\n", i->name, i->summary, i->advice ? i->advice : "");
		}
	}
}

static int open_session(xb_app *a, const char *elf)
{
	xb_session_options so;
	session_options_init(&so);
	so.tg = &a->tg;
	so.elf = elf;
	so.map = options_text(&a->opt, "map");
	so.groups = options_text(&a->opt, "groups");
	so.ping_rate = options_number(&a->opt, "ping-rate");
	so.ping_size = (unsigned)options_number(&a->opt, "ping-size");
	so.udp_rate = options_number(&a->opt, "udp-rate");
	so.udp_size = (unsigned)options_number(&a->opt, "udp-size");
	so.idle_seconds = options_number(&a->opt, "idle-seconds");
	so.progress = progress;
	const char *bench = options_text(&a->opt, "bench");
	if (bench && strncmp(bench, "probe", 5) == 0) {
		so.bench = XB_SESSION_PROBE;
		if (bench[5] == ':')
			so.probe.serial = bench + 6;
		so.probe.socket = options_text(&a->opt, "probe-socket");
		so.probe.capture = options_text(&a->opt, "capture");
		so.probe.device_ip = options_text(&a->opt, "device-ip");
		so.probe.udp_target = options_text(&a->opt, "udp-target");
	} else if (bench && strcmp(bench, "virtual") != 0) {
		fprintf(stderr, "xipbench workbench: --bench %s: virtual, probe or probe:SERIAL\n", bench);
		return -1;
	} else {
		/* the virtual host's addresses; with --dhcp the board's server decides unless
		 * --device-ip was given */
		static const char *const addr_opts[] = {"peer-ip", "device-ip"};
		uint8_t *addrs[] = {a->peer_ip, a->device_ip};
		for (int i = 0; i < 2; i++) {
			const char *text = options_text(&a->opt, addr_opts[i]);
			if (xb_parse_ipv4(text, addrs[i]) != 0) {
				fprintf(stderr, "xipbench workbench: --%s needs an IPv4 address (got '%s')\n",
					addr_opts[i], text ? text : "");
				return -1;
			}
		}
		if (memcmp(a->peer_ip, a->device_ip, 4) == 0) {
			fprintf(stderr, "xipbench workbench: the virtual host and the board need different "
					"addresses\n");
			return -1;
		}
		so.virt.peer_ip = a->peer_ip;
		int given = options_from(&a->opt, "device-ip") > 0;
		so.virt.device_ip = given || !options_flag(&a->opt, "dhcp") ? a->device_ip : NULL;
		so.virt.dhcp = options_flag(&a->opt, "dhcp");
		so.virt.speed = options_number(&a->opt, "speed");
	}
	xb_report rep;
	a->s = session_open(&so, &rep);
	if (!a->s) {
		fprintf(stderr, "xipbench workbench: %s\n", rep.msg);
		return -1;
	}
	const char *trace = options_text(&a->opt, "trace");
	if (trace && session_load_trace(a->s, trace, &rep) != 0)
		logring_add(session_log_mut(a->s), 0, XB_LOG_XIPBENCH, XB_LOG_ERROR, rep.msg);
	return 0;
}

static int open_screen(xb_app *a)
{
	const char *col = options_text(&a->opt, "colours");
	int force = !col || strcmp(col, "auto") == 0 ? -1 : atoi(col);
	int no_color = getenv("NO_COLOR") != NULL;
	if (a->headless) {
		int w = 200, h = 60;
		const char *size = options_text(&a->opt, "size");
		if (size && parse_size(size, &w, &h) != 0) {
			fprintf(stderr, "xipbench workbench: --size %s: WIDTHxHEIGHT, e.g. 200x60\n", size);
			return -1;
		}
		a->cv = canvas_new(w, h);
		a->colours = force >= 0 ? force : no_color ? 0 : 256;
	} else {
		xb_term_options to = {.mouse = options_flag(&a->opt, "mouse"), .colours = force};
		xb_err err;
		if (term_open(&to, &err) != 0) {
			fprintf(stderr, "xipbench workbench: %s (without a terminal: --headless "
					"--frames N --dump FILE)\n",
				err.msg);
			return -1;
		}
		a->term_open = 1;
		a->colours = term_colours();
		int w, h;
		term_size(&w, &h);
		a->cv = canvas_new(w, h);
	}
	char msg[256];
	const char *theme = a->colours == 0 ? "mono" : options_text(&a->opt, "theme");
	if (app_set_theme(a, theme ? theme : "dark", msg, sizeof msg) & XB_ACT_ERROR) {
		app_message(a, 1, "%s (using mono)", msg);
		theme_mono(&a->theme);
		if (a->term_open)
			term_set_theme(&a->theme);
	}
	return 0;
}

/* --zephyr DIR / --pico-sdk DIR: the folder's ELF and map, and its relink (and with
 * --west-flash its flash) command unless one was given. 0, or -1 with err. */
static int open_build_folder(xb_app *a, xb_err *err)
{
	const char *z = options_text(&a->opt, "zephyr"), *p = options_text(&a->opt, "pico-sdk");
	if (!z && !p) {
		if (options_flag(&a->opt, "west-flash"))
			return xb_fail(err, "--west-flash needs --zephyr DIR");
		return 0;
	}
	if (z && p)
		return xb_fail(err, "--zephyr and --pico-sdk: one build folder at a time");
	const char *opt = z ? "--zephyr" : "--pico-sdk";
	static const char *const replaced[] = {"elf", "map"};
	for (size_t i = 0; i < 2; i++) {
		if (options_from(&a->opt, replaced[i]) >= 2)
			return xb_fail(err, "%s finds the ELF and the map: no --%s with it", opt,
				       replaced[i]);
	}
	if (buildsys_find(&a->build, z ? XB_BUILD_ZEPHYR : XB_BUILD_PICO_SDK, z ? z : p, err) != 0)
		return -1;
	if (options_set(&a->opt, "elf", a->build.elf, 2, err) != 0 ||
	    options_set(&a->opt, "map", a->build.map, 2, err) != 0)
		return -1;
	if (!options_text(&a->opt, "build-command")) {
		char *cmd = buildsys_workbench_command(&a->build);
		int rc = options_set(&a->opt, "build-command", cmd, 2, err);
		free(cmd);
		if (rc != 0)
			return -1;
	}
	if (options_flag(&a->opt, "west-flash")) {
		if (!a->build.flash)
			return xb_fail(err, "--west-flash: %s", a->build.kind == XB_BUILD_ZEPHYR
									? "west is not on PATH"
									: "needs --zephyr DIR");
		if (options_set(&a->opt, "flash-command", a->build.flash, 2, err) != 0)
			return -1;
	}
	return 0;
}

static int app_run(const char *elf, int argc, char **argv, int demo)
{
	xb_app app;
	xb_app *a = &app;
	memset(a, 0, sizeof *a);
	a->demo = demo;
	options_init(&a->opt);
	xb_err err;
	int no_config = 0;
	const char *config = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-config") == 0)
			no_config = 1;
		else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			config = argv[i + 1];
		else if (strncmp(argv[i], "--config=", 9) == 0)
			config = argv[i] + 9;
	}
	int rc = 0;
	if (!no_config) {
		char *path = config ? xstrdup(config) : options_config_path();
		if (path && options_load_config(&a->opt, path, !config, &err) != 0) {
			fprintf(stderr, "xipbench workbench: %s\n", err.msg);
			rc = 2;
		}
		free(path);
	}
	if (rc == 0 && options_parse_args(&a->opt, argc, argv, &err) != 0) {
		fprintf(stderr, "xipbench workbench: %s\n", err.msg);
		rc = 2;
	}
	const char *list = rc == 0 ? options_text(&a->opt, "list") : NULL;
	if (list) {
		print_list(list);
		options_free(&a->opt);
		return 0;
	}
	if (rc == 0 && open_build_folder(a, &err) != 0) {
		fprintf(stderr, "xipbench workbench: %s\n", err.msg);
		rc = 2;
	}
	const char *opt_elf = options_text(&a->opt, "elf");
	/* the demo firmware (no --elf): its Makefile relinks it, in its own build folder */
	char *demo_build = NULL;
	const char *tail = "/default/echo.elf";
	if (!opt_elf && elf && strlen(elf) > strlen(tail) &&
	    strcmp(elf + strlen(elf) - strlen(tail), tail) == 0)
		demo_build = xasprintf("%.*s", (int)(strlen(elf) - strlen(tail)), elf);
	if (opt_elf)
		elf = opt_elf;
	const char *keys = options_text(&a->opt, "keys");
	if (rc == 0 && keys && script_load(&a->script, keys, actions_check, a, &err) != 0) {
		fprintf(stderr, "xipbench workbench: %s\n", err.msg);
		rc = 2;
	}
	if (rc == 0 && target_load(&a->tg, "rp2040", &err) != 0) {
		fprintf(stderr, "xipbench workbench: %s\n", err.msg);
		rc = 1;
	}
	a->headless = options_flag(&a->opt, "headless");
	if (rc == 0 && !a->headless && (!isatty(0) || !isatty(1))) {
		fprintf(stderr, "xipbench workbench: standard input and output must be a terminal "
				"(or use --headless --frames N --dump FILE)\n");
		rc = 2;
	}
	if (rc == 0 && open_session(a, elf) != 0)
		rc = 1;
	if (rc == 0 && open_screen(a) != 0)
		rc = 1;
	if (rc == 0) {
		a->elf = xstrdup(elf);
		actions_help(&a->help, &a->nhelp);
		for (size_t i = 0; panels[i] && a->npanels < XB_APP_PANELS; i++) {
			a->ops[a->npanels] = panels[i];
			a->pst[a->npanels] = panels[i]->create();
			a->npanels++;
		}
		model_init(&a->model);
		const char *panel = options_text(&a->opt, "panel");
		int p = panel ? app_panel_index(a, panel) : 0;
		a->focus = p >= 0 ? (size_t)p : 0;
		const char *view = options_text(&a->opt, "view");
		a->view_option = !view || strcmp(view, "auto") == 0 ? 0 : strcmp(view, "single") == 0 ? 1 : 2;
		const char *win = options_text(&a->opt, "window");
		a->model.window = win && liveprof_window_find(win) >= 0 ? liveprof_window_find(win)
									: XB_WINDOW_10S;
		a->model.subtract = options_flag(&a->opt, "subtract");
		if (session_profile(a->s))
			liveprof_set_subtract((xb_liveprof *)session_profile(a->s), a->model.subtract);
		a->fps = options_number(&a->opt, "fps");
		a->max_frames = (uint64_t)options_number(&a->opt, "frames");
		const char *dump = options_text(&a->opt, "dump");
		a->dump_path = dump ? xstrdup(dump) : NULL;
		a->dump_every = options_flag(&a->opt, "dump-every");
		prompt_init(&a->prompt, actions_complete, a);
		edit_open(a, demo_build);
		rc = loop_run(a);
		prompt_free(&a->prompt);
	}
	if (a->term_open)
		term_close();
	for (size_t i = 0; i < a->npanels; i++)
		a->ops[i]->destroy(a->pst[i]);
	actions_help_free(a->help, a->nhelp);
	edit_close(a);
	app_triage_close(a);
	session_close(a->s);
	canvas_free(a->cv);
	script_free(&a->script);
	options_free(&a->opt);
	buildsys_free(&a->build);
	free(a->elf);
	free(demo_build);
	free(a->dump_path);
	free(a->pending_dump);
	return rc;
}

int app_main(const char *elf, int argc, char **argv)
{
	return app_run(elf, argc, argv, 0);
}

int app_demo(const char *elf, int argc, char **argv)
{
	int has_keys = 0;
	for (int i = 1; i < argc; i++)
		has_keys |= strcmp(argv[i], "--keys") == 0 || strncmp(argv[i], "--keys=", 7) == 0;
	if (has_keys)
		return app_run(elf, argc, argv, 1);
	char *script = xb_data_path("demos/study.keys");
	if (!script) {
		fprintf(stderr, "xipbench demo: the study's script (demos/study.keys) was not found\n");
		return 1;
	}
	char **args = xcalloc((size_t)argc + 3, sizeof *args);
	for (int i = 0; i < argc; i++)
		args[i] = argv[i];
	args[argc] = (char *)"--keys";
	args[argc + 1] = script;
	int rc = app_run(elf, argc + 2, args, 1);
	free(args);
	free(script);
	return rc;
}
