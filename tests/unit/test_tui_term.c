/* test_tui_term: the terminal on a pseudo-terminal (no real one needed): failing cleanly
 * without a tty or with an unknown TERM, colour depths, drawing only what changed, ASCII
 * boxes outside UTF-8, keys, mouse and resize, the emergency restore after a crash, and the
 * quit signals. With `--interactive FILE` it is instead a small program for
 * tests/integration/test_tui_term.sh: it draws a screen in the real terminal and logs
 * every key it reads to FILE, until 'q' ('!' aborts, to test the crash path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../panels/canvas.h"
#include "../../panels/theme.h"
#include "../../tui/crash.h"
#include "../../tui/keys.h"
#include "../../tui/term.h"

/* ---- The interactive program ---- */

static void draw_screen(xb_canvas *c, const char *last)
{
	canvas_clear(c, XB_EL_NORMAL);
	canvas_box(c, canvas_bounds(c), XB_EL_BORDER_FOCUS, "xipbench term test", XB_EL_TITLE);
	canvas_text(c, 2, 2, -1, XB_EL_NORMAL, "normal text");
	canvas_text(c, 2, 3, -1, XB_EL_HEAT_5, "heat five");
	canvas_text(c, 14, 3, -1, XB_EL_ALERT, "alert");
	canvas_text(c, 2, 4, -1, XB_EL_DIM, "bar");
	canvas_bar(c, 6, 4, 20, 0.55, XB_EL_CHART, XB_EL_NORMAL);
	for (int i = 0; i <= 8; i++)
		canvas_put(c, 2 + i, 5, canvas_spark(i), XB_EL_CHART);
	canvas_printf(c, 2, 6, -1, XB_EL_KEY, "last key: %s", last);
	canvas_printf(c, 2, 7, -1, XB_EL_NORMAL, "size %dx%d", c->w, c->h);
	if (c->h > 2)
		canvas_field(c, 1, c->h - 2, c->w - 2, XB_EL_STATUS, XB_ALIGN_LEFT,
			     " q quits, ! aborts");
}

static int interactive(const char *path)
{
	FILE *log = fopen(path, "w");
	if (!log) {
		perror(path);
		return 2;
	}
	setvbuf(log, NULL, _IOLBF, 0);
	crash_install(term_emergency_restore);
	xb_term_options o = {.mouse = 1, .colours = -1};
	xb_err err;
	if (term_open(&o, &err)) {
		fprintf(log, "error %s\n", err.msg);
		fclose(log);
		return 1;
	}
	xb_theme t;
	if (theme_load(&t, "dark", &err))
		theme_mono(&t);
	term_set_theme(&t);
	int w, h;
	term_size(&w, &h);
	fprintf(log, "open %dx%d colours %d utf8 %d\n", w, h, term_colours(), term_utf8());
	xb_canvas *c = canvas_new(w, h);
	char last[64] = "none";
	for (;;) {
		draw_screen(c, last);
		term_blit(c, -1, -1);
		struct pollfd p[2] = {{.fd = term_fd(), .events = POLLIN},
				      {.fd = crash_fd(), .events = POLLIN}};
		poll(p, 2, 1000);
		if (crash_quit_requested())
			break;
		for (int k; (k = term_read()) != XB_KEY_NONE;) {
			key_name(k, last, sizeof last);
			if (k == XB_KEY_MOUSE) {
				xb_mouse m = {0};
				term_mouse(&m);
				fprintf(log, "key <Mouse> %d %d,%d\n", m.kind, m.x, m.y);
			} else if (k == XB_KEY_RESIZE) {
				term_size(&w, &h);
				canvas_resize(c, w, h);
				fprintf(log, "key <Resize> %dx%d\n", w, h);
			} else {
				fprintf(log, "key %s\n", last);
			}
			if (k == 'q')
				goto done;
			if (k == '!')
				abort();
			if (k == 'L' - '@')
				term_invalidate();
		}
	}
done:
	canvas_free(c);
	term_close();
	crash_uninstall();
	fprintf(log, "closed\n");
	fclose(log);
	return 0;
}

/* ---- Tests on a pseudo-terminal ---- */

typedef struct pty {
	int master, slave;
	int saved_in, saved_out;
	char out[65536]; /* what the terminal was sent */
	size_t nout;
} pty;

static int pty_setup(void **state)
{
	pty *p = calloc(1, sizeof *p);
	struct winsize ws = {.ws_row = 10, .ws_col = 40};
	if (!p || openpty(&p->master, &p->slave, NULL, NULL, &ws) != 0)
		return -1;
	fcntl(p->master, F_SETFL, O_NONBLOCK);
	fflush(stdout);
	p->saved_in = dup(0);
	p->saved_out = dup(1);
	dup2(p->slave, 0);
	dup2(p->slave, 1);
	setenv("TERM", "xterm-256color", 1);
	unsetenv("NO_COLOR");
	*state = p;
	return 0;
}

static int pty_teardown(void **state)
{
	pty *p = *state;
	term_close();
	fflush(stdout);
	dup2(p->saved_in, 0);
	dup2(p->saved_out, 1);
	close(p->saved_in);
	close(p->saved_out);
	close(p->slave);
	close(p->master);
	free(p);
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Reads what the terminal was sent, from p->out[from], until it holds want (bounded). */
static int pty_wait_output(pty *p, size_t from, const char *want)
{
	long end = now_ms() + 5000;
	for (;;) {
		p->out[p->nout] = 0;
		if (memmem(p->out + from, p->nout - from, want, strlen(want)))
			return 0;
		if (now_ms() > end || p->nout + 1 >= sizeof p->out)
			return -1;
		struct pollfd pf = {.fd = p->master, .events = POLLIN};
		poll(&pf, 1, 100);
		ssize_t n = read(p->master, p->out + p->nout, sizeof p->out - 1 - p->nout);
		if (n > 0)
			p->nout += (size_t)n;
	}
}

static void pty_send(pty *p, const char *bytes)
{
	size_t n = strlen(bytes);
	assert_int_equal(write(p->master, bytes, n), (ssize_t)n);
}

/* The next input (bounded wait), XB_KEY_NONE when none came. */
static int next_key(void)
{
	long end = now_ms() + 3000;
	while (now_ms() < end) {
		int k = term_read();
		if (k != XB_KEY_NONE)
			return k;
		struct pollfd pf = {.fd = term_fd(), .events = POLLIN};
		poll(&pf, 1, 50);
	}
	return XB_KEY_NONE;
}

static void open_ok(int colours)
{
	xb_term_options o = {.mouse = 1, .colours = colours};
	xb_err err = {{0}};
	if (term_open(&o, &err))
		fail_msg("%s", err.msg);
}

static void test_no_tty(void **state)
{
	(void)state;
	int saved = dup(0);
	int null = open("/dev/null", O_RDONLY);
	dup2(null, 0);
	xb_term_options o = {.mouse = 1, .colours = -1};
	xb_err err = {{0}};
	int rc = term_open(&o, &err);
	dup2(saved, 0);
	close(saved);
	close(null);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.msg, "needs a terminal"));
	assert_non_null(strstr(err.msg, "--headless"));
	/* nothing is open: everything else is harmless */
	assert_int_equal(term_fd(), -1);
	assert_int_equal(term_read(), XB_KEY_NONE);
	xb_mouse m;
	assert_int_equal(term_mouse(&m), -1);
	xb_canvas *c = canvas_new(4, 2);
	term_blit(c, -1, -1);
	canvas_free(c);
	term_invalidate();
	term_emergency_restore();
	term_close();
	term_close();
	int w = 1, h = 1;
	term_size(&w, &h);
	assert_int_equal(w, 0);
	assert_int_equal(h, 0);
	assert_int_equal(term_colours(), 0);
}

static void test_bad_term(void **state)
{
	pty *p = *state;
	(void)p;
	xb_err err = {{0}};
	setenv("TERM", "xb-no-such-terminal", 1);
	assert_int_equal(term_open(NULL, &err), -1);
	assert_non_null(strstr(err.msg, "terminal type 'xb-no-such-terminal' is not in the "
					 "terminfo database"));
	unsetenv("TERM");
	assert_int_equal(term_open(NULL, &err), -1);
	assert_non_null(strstr(err.msg, "TERM is not set"));
	assert_int_equal(term_fd(), -1);
	setenv("TERM", "xterm-256color", 1);
	open_ok(-1);
	assert_int_equal(term_fd(), 0);
	open_ok(-1); /* opening again is harmless */
	term_close();
	assert_int_equal(term_fd(), -1);
}

static void test_depths(void **state)
{
	(void)state;
	open_ok(-1);
	assert_int_equal(term_colours(), 256);
	int w, h;
	term_size(&w, &h);
	assert_int_equal(w, 40);
	assert_int_equal(h, 10);
	assert_false(term_utf8()); /* main() chose the C locale */
	term_close();
	open_ok(16);
	assert_int_equal(term_colours(), 16);
	term_close();
	setenv("NO_COLOR", "", 1); /* set, even empty: no colours */
	open_ok(-1);
	assert_int_equal(term_colours(), 0);
	term_close();
	open_ok(8); /* asking wins over NO_COLOR */
	assert_int_equal(term_colours(), 8);
	term_close();
	unsetenv("NO_COLOR");
	setenv("TERM", "xterm", 1); /* 8 colours: more cannot be forced */
	open_ok(256);
	assert_int_equal(term_colours(), 8);
	term_close();
	setenv("TERM", "vt100", 1);
	open_ok(-1);
	assert_int_equal(term_colours(), 0);
	term_close();
	open_ok(0);
	assert_int_equal(term_colours(), 0);
	term_close();
}

static void small_theme(xb_theme *t)
{
	static const char text[] = "normal = 196 default\n"
				   "title = 46 21 bold mono underline\n";
	xb_err err = {{0}};
	if (theme_parse(t, "test.theme", text, sizeof text - 1, NULL, NULL, &err))
		fail_msg("%s", err.msg);
}

static void test_blit(void **state)
{
	pty *p = *state;
	xb_theme t;
	small_theme(&t);
	term_set_theme(&t);
	open_ok(-1);
	xb_canvas *c = canvas_new(40, 10);
	canvas_box(c, (xb_rect){0, 0, 12, 4}, XB_EL_BORDER, NULL, XB_EL_NORMAL);
	canvas_text(c, 2, 1, -1, XB_EL_NORMAL, "hello");
	canvas_text(c, 2, 2, -1, XB_EL_TITLE, "title");
	canvas_bar(c, 14, 1, 8, 0.5, XB_EL_CHART, XB_EL_NORMAL);
	canvas_put(c, 14, 2, 0x2026, XB_EL_NORMAL); /* an ellipsis */
	canvas_put(c, 15, 2, 0x4E2D, XB_EL_NORMAL); /* two columns wide: never drawn so */
	term_blit(c, -1, -1);
	assert_int_equal(pty_wait_output(p, 0, "title"), 0);
	assert_int_equal(pty_wait_output(p, 0, "hello"), 0);
	/* not UTF-8: boxes and blocks in ASCII, nothing else */
	assert_int_equal(pty_wait_output(p, 0, "+-"), 0);
	assert_int_equal(pty_wait_output(p, 0, "##"), 0);
	assert_int_equal(pty_wait_output(p, 0, "~?"), 0);
	for (size_t i = 0; i < p->nout; i++)
		assert_true((unsigned char)p->out[i] < 0x80);
	/* the theme's colours at 256 */
	assert_int_equal(pty_wait_output(p, 0, "38;5;46"), 0);
	assert_int_equal(pty_wait_output(p, 0, "48;5;21"), 0);
	assert_int_equal(pty_wait_output(p, 0, "38;5;196"), 0);

	/* the same canvas again and one changed cell: only that cell goes out */
	size_t before = p->nout;
	term_blit(c, -1, -1);
	canvas_put(c, 30, 5, 'Q', XB_EL_NORMAL);
	term_blit(c, -1, -1);
	assert_int_equal(pty_wait_output(p, before, "Q"), 0);
	assert_true(p->nout - before < 40);
	assert_null(memmem(p->out + before, p->nout - before, "hello", 5));
	/* after term_invalidate everything is drawn again */
	before = p->nout;
	term_invalidate();
	term_blit(c, -1, -1);
	assert_int_equal(pty_wait_output(p, before, "hello"), 0);
	assert_int_equal(pty_wait_output(p, before, "title"), 0);
	/* the cursor shows where asked, and hides again */
	before = p->nout;
	term_blit(c, 3, 3);
	assert_int_equal(pty_wait_output(p, before, "\033[?25h"), 0);
	before = p->nout;
	term_blit(c, -1, -1);
	assert_int_equal(pty_wait_output(p, before, "\033[?25l"), 0);
	/* a smaller canvas than the screen is fine, and so is an empty one */
	xb_canvas *small = canvas_new(3, 1);
	term_blit(small, -1, -1);
	canvas_resize(small, 0, 0);
	term_blit(small, -1, -1);
	canvas_free(small);
	/* no colours: the monochrome attributes, no colour at all */
	term_close();
	assert_int_equal(pty_wait_output(p, before, "\033[?1049l"), 0); /* the old screen's end */
	before = p->nout;
	open_ok(0);
	term_blit(c, -1, -1);
	assert_int_equal(pty_wait_output(p, before, "title"), 0);
	assert_null(memmem(p->out + before, p->nout - before, "38;5", 4));
	assert_non_null(memmem(p->out + before, p->nout - before, "4m", 2)); /* underline */
	canvas_free(c);
	xb_theme mono;
	theme_mono(&mono);
	term_set_theme(&mono);
}

static void test_keys(void **state)
{
	pty *p = *state;
	open_ok(-1);
	static const struct {
		const char *bytes;
		int key;
	} seq[] = {
		{"a", 'a'},          {"\t", XB_KEY_TAB},        {"\r", XB_KEY_ENTER},
		{"\n", XB_KEY_ENTER}, {"\177", XB_KEY_BACKSPACE}, {"\014", 12},
		{"\033OA", XB_KEY_UP}, {"\033OB", XB_KEY_DOWN},  {"\033OC", XB_KEY_RIGHT},
		{"\033OD", XB_KEY_LEFT}, {"\033[Z", XB_KEY_BACKTAB}, {"\033[3~", XB_KEY_DELETE},
		{"\033[2~", XB_KEY_INSERT}, {"\033[5~", XB_KEY_PAGE_UP},
		{"\033[6~", XB_KEY_PAGE_DOWN}, {"\033OH", XB_KEY_HOME}, {"\033OF", XB_KEY_END},
		{"\033OP", XB_KEY_F1}, {"\033[15~", XB_KEY_F1 + 4}, {"\033[24~", XB_KEY_F12},
		{"<", '<'},          {" ", ' '},
	};
	for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
		pty_send(p, seq[i].bytes);
		int k = next_key();
		char want[32], got[32];
		if (k != seq[i].key)
			fail_msg("%zu: got %s, wanted %s", i, key_name(k, got, sizeof got),
				 key_name(seq[i].key, want, sizeof want));
	}
	/* Esc alone is Esc; Alt+key and unknown sequences are dropped, the keys after stay */
	pty_send(p, "\033");
	assert_int_equal(next_key(), XB_KEY_ESC);
	pty_send(p, "\033xy");
	assert_int_equal(next_key(), 'y');
	pty_send(p, "\033[200~z");
	assert_int_equal(next_key(), 'z');
	pty_send(p, "\033[1;9Qw");
	assert_int_equal(next_key(), 'w');
	assert_int_equal(term_read(), XB_KEY_NONE);
	(void)p;
}

static void test_mouse(void **state)
{
	pty *p = *state;
	open_ok(-1);
	assert_int_equal(pty_wait_output(p, 0, "1000h"), 0); /* reporting on */
	xb_mouse m = {0};
	pty_send(p, "\033[<0;5;3M\033[<0;5;3m"); /* a click at column 5, row 3 (from 1) */
	assert_int_equal(next_key(), XB_KEY_MOUSE);
	assert_int_equal(term_mouse(&m), 0);
	assert_int_equal(m.kind, XB_MOUSE_CLICK);
	assert_int_equal(m.x, 4);
	assert_int_equal(m.y, 2);
	pty_send(p, "\033[<64;10;4M");
	assert_int_equal(next_key(), XB_KEY_MOUSE);
	assert_int_equal(term_mouse(&m), 0);
	assert_int_equal(m.kind, XB_MOUSE_WHEEL_UP);
	assert_int_equal(m.x, 9);
	assert_int_equal(m.y, 3);
	pty_send(p, "\033[<65;1;1M");
	assert_int_equal(next_key(), XB_KEY_MOUSE);
	assert_int_equal(term_mouse(&m), 0);
	assert_int_equal(m.kind, XB_MOUSE_WHEEL_DOWN);
	/* a key after a mouse event: the event is gone */
	pty_send(p, "k");
	assert_int_equal(next_key(), 'k');
	assert_int_equal(term_mouse(&m), -1);
	size_t before = p->nout;
	term_close();
	assert_int_equal(pty_wait_output(p, before, "\033[?1049l"), 0);
	/* without the mouse, reporting is not turned on */
	before = p->nout;
	xb_term_options o = {.mouse = 0, .colours = -1};
	xb_err err;
	assert_int_equal(term_open(&o, &err), 0);
	xb_canvas *c = canvas_new(40, 10);
	canvas_text(c, 0, 0, -1, XB_EL_NORMAL, "no mouse");
	term_blit(c, -1, -1);
	assert_int_equal(pty_wait_output(p, before, "no mouse"), 0);
	assert_null(memmem(p->out + before, p->nout - before, "1000h", 5));
	canvas_free(c);
}

static void test_resize(void **state)
{
	pty *p = *state;
	open_ok(-1);
	xb_canvas *c = canvas_new(40, 10);
	term_blit(c, -1, -1);
	struct winsize ws = {.ws_row = 12, .ws_col = 50};
	ioctl(p->master, TIOCSWINSZ, &ws);
	raise(SIGWINCH); /* the pty is not our controlling terminal: tell curses ourselves */
	assert_int_equal(next_key(), XB_KEY_RESIZE);
	int w, h;
	term_size(&w, &h);
	assert_int_equal(w, 50);
	assert_int_equal(h, 12);
	/* the next blit covers the new size */
	size_t before = p->nout;
	canvas_resize(c, 50, 12);
	canvas_text(c, 45, 11, -1, XB_EL_NORMAL, "end");
	term_blit(c, -1, -1);
	assert_int_equal(pty_wait_output(p, before, "end"), 0);
	canvas_free(c);
}

/* A crash in a child: the terminal comes back (alternate screen left, cursor shown,
 * mouse off, cooked mode) and the child dies of the signal. */
static void test_emergency_restore(void **state)
{
	pty *p = *state;
	struct termios tio;
	assert_int_equal(tcgetattr(p->slave, &tio), 0);
	assert_true(tio.c_lflag & ICANON);
	size_t before = p->nout;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = {0, 0};
		setrlimit(RLIMIT_CORE, &no_core);
		xb_term_options o = {.mouse = 1, .colours = -1};
		if (term_open(&o, NULL))
			_exit(98);
		crash_install(term_emergency_restore);
		xb_canvas *c = canvas_new(40, 10);
		canvas_text(c, 0, 0, -1, XB_EL_NORMAL, "before the crash");
		term_blit(c, -1, -1);
		raise(SIGSEGV);
		_exit(99);
	}
	assert_int_equal(pty_wait_output(p, before, "before the crash"), 0);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSEGV);
	assert_int_equal(pty_wait_output(p, before, "\033[?1049l"), 0);
	size_t crash_at = p->nout;
	/* what the restore wrote comes after the screen: find it from the crash text on */
	char *text = memmem(p->out + before, crash_at - before, "before the crash", 16);
	assert_non_null(text);
	size_t from = (size_t)(text - p->out);
	assert_non_null(memmem(p->out + from, p->nout - from, "\033[?1000l", 8));
	assert_non_null(memmem(p->out + from, p->nout - from, "\033[?1006l", 8));
	assert_non_null(memmem(p->out + from, p->nout - from, "\033[?25h", 6));
	assert_int_equal(tcgetattr(p->slave, &tio), 0);
	assert_true(tio.c_lflag & ICANON);
	assert_true(tio.c_lflag & ECHO);
}

static void test_quit_signals(void **state)
{
	(void)state;
	assert_int_equal(crash_fd(), -1);
	struct sigaction before;
	sigaction(SIGTERM, NULL, &before);
	crash_install(NULL);
	int fd = crash_fd();
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(crash_quit_requested(), 0);
	raise(SIGTERM);
	assert_int_equal(crash_quit_requested(), SIGTERM);
	struct pollfd pf = {.fd = fd, .events = POLLIN};
	assert_int_equal(poll(&pf, 1, 0), 1);
	char b = 0;
	assert_int_equal(read(fd, &b, 1), 1);
	assert_int_equal(b, SIGTERM);
	assert_int_equal(read(fd, &b, 1), -1);
	assert_int_equal(errno, EAGAIN);
	raise(SIGHUP);
	raise(SIGINT);
	assert_int_equal(crash_quit_requested(), SIGINT);
	/* SIGPIPE does nothing; a write to a closed pipe fails with EPIPE */
	raise(SIGPIPE);
	int pp[2];
	assert_int_equal(pipe(pp), 0);
	close(pp[0]);
	assert_int_equal(write(pp[1], "x", 1), -1);
	assert_int_equal(errno, EPIPE);
	close(pp[1]);
	/* installing again clears the request */
	crash_install(NULL);
	assert_int_equal(crash_quit_requested(), 0);
	crash_uninstall();
	assert_int_equal(crash_fd(), -1);
	struct sigaction after;
	sigaction(SIGTERM, NULL, &after);
	assert_ptr_equal(after.sa_handler, before.sa_handler);
	crash_uninstall(); /* twice is harmless */
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--interactive") == 0)
		return interactive(argv[2]);
	/* a known locale: ASCII boxes, and the same results wherever the tests run */
	setenv("LC_ALL", "C", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_tty),
		cmocka_unit_test_setup_teardown(test_bad_term, pty_setup, pty_teardown),
		cmocka_unit_test_setup_teardown(test_depths, pty_setup, pty_teardown),
		cmocka_unit_test_setup_teardown(test_blit, pty_setup, pty_teardown),
		cmocka_unit_test_setup_teardown(test_keys, pty_setup, pty_teardown),
		cmocka_unit_test_setup_teardown(test_mouse, pty_setup, pty_teardown),
		cmocka_unit_test_setup_teardown(test_resize, pty_setup, pty_teardown),
		cmocka_unit_test_setup_teardown(test_emergency_restore, pty_setup, pty_teardown),
		cmocka_unit_test(test_quit_signals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
