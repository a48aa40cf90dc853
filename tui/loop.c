/* loop: the workbench's one main loop: one poll over the terminal, the session's descriptors
 * and the timers; keys (the terminal's or a key script's) through one input path; a frame
 * drawn when due; KEY_RESIZE handled here and only here; dumps of the canvas. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "crash.h"
#include "term.h"

#define LOOP_FDS 16

static uint64_t wall_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* What an action's flags ask for. */
static void handle(xb_app *a, int flags, const char *msg)
{
	if (flags & XB_ACT_MESSAGE && msg && *msg)
		app_message(a, (flags & XB_ACT_ERROR) != 0, "%s", msg);
	else if (flags & XB_ACT_ERROR && msg && *msg)
		app_message(a, 1, "%s", msg);
	if (flags & XB_ACT_REDRAW && !a->dirty)
		a->dirty = 1;
	if (flags & XB_ACT_QUIT)
		a->quit = 1;
}

/* Runs a ':' command line; returns its flags (msg gets its message). */
static int run_command(xb_app *a, const char *line, char *msg, size_t cap)
{
	msg[0] = 0;
	int flags = actions_command(a, line, msg, cap);
	handle(a, flags, msg);
	return flags;
}

int loop_key(xb_app *a, int key)
{
	if (a->demo && !a->prompt.active && (key == ' ' || (key == 'n' && a->script_paused))) {
		if (key == ' ')
			a->script_paused = !a->script_paused;
		else
			a->script_step = 1;
		a->dirty = a->dirty ? a->dirty : 1;
		return 0;
	}
	char msg[512];
	msg[0] = 0;
	if (a->prompt.active) {
		int r = prompt_key(&a->prompt, key);
		a->dirty = a->dirty ? a->dirty : 1;
		if (r == XB_PROMPT_DONE && a->prompt.buf[0]) {
			char line[XB_PROMPT_MAX];
			snprintf(line, sizeof line, "%s", a->prompt.buf);
			run_command(a, line, msg, sizeof msg);
		}
		return 0;
	}
	a->msg[0] = 0; /* a key clears the last message */
	int flags = actions_key(a, key, msg, sizeof msg);
	if (!flags) {
		char name[32];
		if (key < XB_KEY_UP && key >= 0x20)
			app_message(a, 1, "%s: no such key (? lists them)", key_name(key, name, sizeof name));
		return 0;
	}
	handle(a, flags, msg);
	return flags;
}

static void on_mouse(xb_app *a)
{
	xb_mouse ev;
	if (term_mouse(&ev) != 0)
		return;
	int tab;
	int i = layout_panel_at(a, ev.x, ev.y, &tab);
	if (i < 0)
		return;
	if (tab) {
		if (ev.kind == XB_MOUSE_CLICK || ev.kind == XB_MOUSE_DOUBLE)
			a->focus = (size_t)i;
		a->dirty = 1;
		return;
	}
	if (ev.kind == XB_MOUSE_CLICK || ev.kind == XB_MOUSE_DOUBLE)
		a->focus = (size_t)i;
	xb_panel_result res = {0};
	a->ops[i]->mouse(a->pst[i], &a->model, a->prect[i], &ev, &res);
	if (res.flags & XB_PANEL_SWITCH) {
		int j = app_panel_index(a, res.target);
		if (j >= 0)
			a->focus = (size_t)j;
	}
	if (res.flags & (XB_PANEL_MESSAGE | XB_PANEL_ERROR))
		app_message(a, (res.flags & XB_PANEL_ERROR) != 0, "%s", res.msg);
	a->dirty = 1;
}

static void on_resize(xb_app *a)
{
	int w, h;
	term_size(&w, &h);
	if (w != a->cv->w || h != a->cv->h)
		canvas_resize(a->cv, w, h);
	term_invalidate();
	a->dirty = 2;
}

static void read_terminal(xb_app *a)
{
	for (int n = 0; n < 256; n++) {
		int k = term_read();
		if (k == XB_KEY_NONE)
			return;
		if (k == XB_KEY_RESIZE)
			on_resize(a);
		else if (k == XB_KEY_MOUSE)
			on_mouse(a);
		else
			loop_key(a, k);
	}
}

/* ---- Dumps ---- */

static void write_dump(xb_app *a, const char *path, int append)
{
	xb_strbuf sb = {0};
	if (append)
		sb_printf(&sb, "frame %llu\n", (unsigned long long)a->frames);
	canvas_dump(a->cv, &a->theme, a->colours, &sb);
	xb_err err;
	int rc = 0;
	if (append) {
		FILE *f = fopen(path, a->frames <= 1 ? "w" : "a");
		rc = !f || fwrite(sb.buf, 1, sb.len, f) != sb.len;
		if (f && fclose(f) != 0)
			rc = 1;
		if (rc)
			snprintf(err.msg, sizeof err.msg, "%s: %s", path, strerror(errno));
	} else {
		rc = xb_write_file_atomic(path, sb.buf, sb.len, &err);
	}
	sb_free(&sb);
	if (rc)
		app_message(a, 1, "dump: %s", err.msg);
}

static void draw(xb_app *a)
{
	app_update_model(a);
	int cursor = layout_draw(a);
	if (a->term_open) {
		if (a->dirty == 2)
			term_invalidate();
		term_blit(a->cv, cursor, cursor >= 0 ? a->cv->h - 1 : -1);
	}
	a->frames++;
	a->dirty = 0;
	if (a->dump_path && a->dump_every)
		write_dump(a, a->dump_path, 1);
	if (a->pending_dump) {
		write_dump(a, a->pending_dump, 0);
		free(a->pending_dump);
		a->pending_dump = NULL;
	}
}

/* ---- Key scripts ---- */

static double wait_value(xb_app *a)
{
	const xb_app_wait *w = &a->wait;
	xb_session_figures f;
	session_figures(a->s, &f);
	if (strcmp(w->what, "echoes") == 0)
		return (double)f.replies;
	if (strcmp(w->what, "samples") == 0)
		return (double)f.samples;
	if (strcmp(w->what, "seconds") == 0)
		return (double)session_now(a->s) / 1e9;
	if (strcmp(w->what, "frames") == 0)
		return (double)a->frames;
	return 0;
}

/* 1 when the script's wait is over (the condition holds, or it timed out: an error). */
static int wait_over(xb_app *a)
{
	xb_app_wait *w = &a->wait;
	if (!w->until_ns) {
		w->until_ns = wall_ns() + (uint64_t)(w->timeout_s * 1e9);
		w->start_value = wait_value(a);
	}
	int met;
	if (strcmp(w->what, "running") == 0) {
		met = session_phase(a->s) == XB_PHASE_RUNNING;
	} else if (strcmp(w->what, "loop") == 0) {
		met = !edit_loop_running(a);
	} else if (strcmp(w->what, "status") == 0 || strcmp(w->what, "probe") == 0) {
		xb_status st = session_status(a->s)->status;
		const char *want = strcmp(w->status, "ok") == 0 ? "ok" : w->status;
		met = strcmp(status_name(st), want) == 0 ||
		      (strcmp(w->what, "probe") == 0 && strcmp(want, "ok") == 0 &&
		       strncmp(status_name(st), "probe", 5) != 0);
	} else {
		met = wait_value(a) - w->start_value >= w->target;
	}
	if (met) {
		w->active = 0;
		return 1;
	}
	if (wall_ns() > w->until_ns) {
		app_message(a, 1, "%s:%u: wait %s timed out after %.0f s", a->script.name, w->line,
			    w->what, w->timeout_s);
		fprintf(stderr, "xipbench workbench: %s\n", a->msg);
		a->exit_code = 1;
		a->quit = 1;
		w->active = 0;
		return 1;
	}
	return 0;
}

/* Feeds the script's items through the input path until one waits or it ends. */
static void feed_script(xb_app *a)
{
	while (!a->quit && a->script_pos < a->script.n) {
		if (a->wait.active && !wait_over(a))
			return;
		if (a->script_paused && !a->script_step)
			return;
		if (a->quit)
			return;
		if (a->pending_dump) /* a dump shows what the keys before it did */
			return;
		const xb_script_item *it = &a->script.items[a->script_pos++];
		if (it->command && a->script_step && strncmp(it->command, "caption", 7) == 0)
			a->script_step = 0; /* a step goes to the next caption */
		if (it->command) {
			char msg[512];
			if (run_command(a, it->command, msg, sizeof msg) & XB_ACT_ERROR) {
				fprintf(stderr, "xipbench workbench: %s:%u: %s\n", a->script.name, it->line,
					msg);
				a->exit_code = 1;
			}
			if (a->wait.active)
				a->wait.line = it->line;
		} else {
			loop_key(a, it->key);
		}
	}
	if (a->wait.active)
		wait_over(a);
	/* a headless run without a frame limit ends with its script */
	if (a->headless && !a->max_frames && a->script.n && a->script_pos == a->script.n &&
	    !a->wait.active && !a->pending_dump)
		a->quit = 1;
}

/* ---- The loop ---- */

int loop_run(xb_app *a)
{
	crash_install(term_emergency_restore);
	a->start_ns = wall_ns();
	uint64_t frame_ns = (uint64_t)(1e9 / (a->fps > 0 ? a->fps : 10));
	a->next_frame_ns = a->start_ns;
	a->dirty = 2;
	while (!a->quit) {
		if (a->script.n)
			feed_script(a);
		if (session_pump(a->s) != 0)
			app_message(a, 1, "%s", session_status(a->s)->msg);
		edit_pump(a);
		uint64_t now = wall_ns();
		if (now >= a->next_frame_ns || a->dirty || a->pending_dump) {
			draw(a);
			if (now >= a->next_frame_ns)
				a->next_frame_ns = now - a->next_frame_ns > frame_ns ? now + frame_ns
										   : a->next_frame_ns + frame_ns;
			if (a->max_frames && a->frames >= a->max_frames)
				break;
		}
		if (a->quit)
			break;
		struct pollfd fds[LOOP_FDS];
		int n = 0, term_at = -1;
		if (a->term_open) {
			term_at = n;
			fds[n++] = (struct pollfd){.fd = term_fd(), .events = POLLIN};
		}
		if (crash_fd() >= 0)
			fds[n++] = (struct pollfd){.fd = crash_fd(), .events = POLLIN};
		n += session_pollfds(a->s, fds + n, LOOP_FDS - n);
		n += edit_pollfds(a, fds + n, LOOP_FDS - n);
		now = wall_ns();
		int ms = a->next_frame_ns > now ? (int)((a->next_frame_ns - now + 999999) / 1000000) : 0;
		int sm = session_timeout_ms(a->s);
		if (sm < ms)
			ms = sm;
		int em = edit_timeout_ms(a);
		if (em >= 0 && em < ms)
			ms = em;
		if (a->wait.active || (a->script.n && a->script_pos < a->script.n && ms > 10))
			ms = 10; /* a script's conditions are looked at often */
		if (poll(fds, (nfds_t)n, ms) < 0 && errno != EINTR)
			break;
		/* also after a signal (SIGWINCH interrupts the poll: curses then has a KEY_RESIZE
		 * for us without the tty being readable) */
		if (term_at >= 0)
			read_terminal(a);
		if (crash_quit_requested())
			a->quit = 1;
	}
	if (a->dump_path && !a->dump_every) {
		draw(a);
		write_dump(a, a->dump_path, 0);
	}
	crash_uninstall();
	return a->exit_code;
}
