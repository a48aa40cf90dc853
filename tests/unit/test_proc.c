/* test_proc: child processes run from a poll loop: lines with and without a final newline,
 * "\r" progress lines, long lines cut, exit codes and signals, cancel and its escalation to
 * SIGKILL on an injected clock, a missing program, a folder that cannot be entered, many
 * lines fast, the environment and working folder, a child killed by proc_free. Waiting is
 * poll() on the child's descriptor with a bound, never a sleep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../session/proc.h"

#define BOUND_MS 20000 /* a generous bound for what takes milliseconds */

typedef struct lines {
	char **v;
	size_t n, cap;
} lines;

static void on_line(void *ctx, const char *line, size_t len)
{
	lines *l = ctx;
	assert_int_equal(strlen(line), len);
	xb_grow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = xstrndup(line, len);
}

static void lines_free(lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static uint64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One turn of a caller's loop: wait for the descriptor (or the deadline) at most max_ms,
 * then pump. */
static int turn(xb_proc *p, int max_ms)
{
	struct pollfd f = {.fd = proc_pollfd(p), .events = POLLIN};
	int to = proc_timeout_ms(p);
	if (to < 0 || to > max_ms)
		to = max_ms;
	poll(&f, f.fd >= 0 ? 1 : 0, to);
	return proc_pump(p);
}

/* Pumps until the child has ended and its output is drained; fails past the bound. */
static void run_to_end(xb_proc *p)
{
	uint64_t t0 = wall_ms();
	while (turn(p, 100))
		if (wall_ms() - t0 > BOUND_MS)
			fail_msg("the child did not end within %d ms", BOUND_MS);
	assert_int_equal(proc_pollfd(p), -1);
	assert_int_equal(proc_pump(p), 0);
}

static xb_proc *start(const char *const *argv, lines *out)
{
	xb_proc_options o = {.argv = argv, .line = on_line, .ctx = out};
	xb_err err;
	xb_proc *p = proc_start(&o, &err);
	if (!p)
		fail_msg("%s", err.msg);
	return p;
}

/* Runs a shell snippet to its end; returns its status. */
static xb_proc_status run_sh(const char *script, lines *out)
{
	const char *argv[] = {"sh", "-c", script, NULL};
	xb_proc *p = start(argv, out);
	run_to_end(p);
	xb_proc_status st;
	proc_status(p, &st);
	proc_free(p);
	return st;
}

static void test_lines(void **state)
{
	(void)state;
	lines l = {0};
	xb_proc_status st = run_sh("printf 'one\\ntwo\\n\\nfour'", &l);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0], "one");
	assert_string_equal(l.v[1], "two");
	assert_string_equal(l.v[2], "");
	assert_string_equal(l.v[3], "four"); /* no final newline: passed at the end */
	assert_false(st.running);
	assert_true(st.exited);
	assert_int_equal(st.code, 0);
	assert_true(st.seconds >= 0);
	lines_free(&l);

	/* a line split across writes waits for its end */
	st = run_sh("printf 'par'; printf 'tial\\n'; printf 'last\\n'", &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "partial");
	assert_string_equal(l.v[1], "last");
	lines_free(&l);

	/* standard error comes through the same pipe */
	st = run_sh("echo out; echo err >&2", &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "out");
	assert_string_equal(l.v[1], "err");
	lines_free(&l);

	/* SIGPIPE is back to its default (this program ignores it): yes dies quietly */
	st = run_sh("yes | head -n 1", &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0], "y");
	lines_free(&l);

	/* standard input is /dev/null: cat ends at once */
	const char *cat[] = {"cat", NULL};
	xb_proc *p = start(cat, &l);
	run_to_end(p);
	proc_status(p, &st);
	assert_int_equal(st.code, 0);
	assert_int_equal(l.n, 0);
	proc_free(p);
}

static void test_carriage_returns(void **state)
{
	(void)state;
	lines l = {0};
	/* ninja's smart-terminal status lines; "\r\n" ends one line, not two */
	run_sh("printf '\\r[1/3] cc a.c\\r[2/3] cc b.c\\r[3/3] ld x.elf\\ndos\\r\\nend\\r'", &l);
	assert_int_equal(l.n, 5);
	assert_string_equal(l.v[0], "[1/3] cc a.c");
	assert_string_equal(l.v[1], "[2/3] cc b.c");
	assert_string_equal(l.v[2], "[3/3] ld x.elf");
	assert_string_equal(l.v[3], "dos");
	assert_string_equal(l.v[4], "end");
	lines_free(&l);
}

static void test_long_lines(void **state)
{
	(void)state;
	lines l = {0};
	char script[256];
	/* a line of 3 x the limit, one of exactly the limit, then a short one */
	snprintf(script, sizeof script,
		 "head -c %d /dev/zero | tr '\\0' x; echo; head -c %d /dev/zero | tr '\\0' y; "
		 "echo; echo short",
		 3 * XB_PROC_LINE_MAX, XB_PROC_LINE_MAX);
	run_sh(script, &l);
	assert_int_equal(l.n, 3);
	assert_int_equal(strlen(l.v[0]), XB_PROC_LINE_MAX + 3);
	assert_memory_equal(l.v[0] + XB_PROC_LINE_MAX, "...", 3);
	assert_int_equal(l.v[0][XB_PROC_LINE_MAX - 1], 'x');
	assert_int_equal(strlen(l.v[1]), XB_PROC_LINE_MAX); /* exactly the limit: not cut */
	assert_int_equal(l.v[1][0], 'y');
	assert_string_equal(l.v[2], "short");
	lines_free(&l);
}

static void test_exit_codes_and_signals(void **state)
{
	(void)state;
	lines l = {0};
	char buf[96];
	xb_proc_status st = run_sh("echo bye; exit 3", &l);
	assert_true(st.exited);
	assert_int_equal(st.code, 3);
	assert_false(st.cancelled);
	assert_string_equal(proc_status_text(&st, buf, sizeof buf), "exited with status 3");
	lines_free(&l);

	st = run_sh("kill -USR1 $$", &l);
	assert_false(st.exited);
	assert_int_equal(st.signal, SIGUSR1);
	assert_non_null(strstr(proc_status_text(&st, buf, sizeof buf), "killed by signal"));
	lines_free(&l);
}

typedef struct fake_clock {
	uint64_t t;
} fake_clock;

static uint64_t fake_now(void *ctx)
{
	return ((fake_clock *)ctx)->t;
}

/* Pumps until a line equal to text has come; fails past the bound. */
static void wait_line(xb_proc *p, lines *l, const char *text)
{
	uint64_t t0 = wall_ms();
	for (;;) {
		for (size_t i = 0; i < l->n; i++)
			if (strcmp(l->v[i], text) == 0)
				return;
		if (!turn(p, 100))
			fail_msg("the child ended before it printed '%s'", text);
		if (wall_ms() - t0 > BOUND_MS)
			fail_msg("no line '%s' within %d ms", text, BOUND_MS);
	}
}

static void test_cancel_escalates(void **state)
{
	(void)state;
	lines l = {0};
	fake_clock clk = {.t = 5000};
	/* the shell and the sleep it becomes ignore SIGTERM */
	const char *argv[] = {"sh", "-c", "trap '' TERM; echo ready; exec sleep 600", NULL};
	xb_proc_options o = {.argv = argv, .line = on_line, .ctx = &l, .clock = fake_now,
			     .clock_ctx = &clk, .grace_ns = 1000};
	xb_err err;
	xb_proc *p = proc_start(&o, &err);
	assert_non_null(p);
	wait_line(p, &l, "ready");
	assert_int_equal(proc_next_deadline(p), XB_PROC_NO_DEADLINE);
	assert_int_equal(proc_timeout_ms(p), -1);

	proc_cancel(p);
	assert_int_equal(proc_next_deadline(p), 6000);
	/* before the deadline: SIGTERM only, which it ignores */
	for (int i = 0; i < 3; i++)
		assert_int_equal(turn(p, 50), 1);
	xb_proc_status st;
	proc_status(p, &st);
	assert_true(st.running);
	assert_true(st.cancelled);
	assert_false(st.killed);

	clk.t = 6000; /* the grace period is over: the next pump kills */
	assert_int_equal(proc_timeout_ms(p), 0);
	uint64_t t0 = wall_ms();
	while (turn(p, 100))
		if (wall_ms() - t0 > BOUND_MS)
			fail_msg("SIGKILL did not end the child");
	proc_status(p, &st);
	assert_false(st.running);
	assert_false(st.exited);
	assert_int_equal(st.signal, SIGKILL);
	assert_true(st.cancelled);
	assert_true(st.killed);
	proc_free(p);
	lines_free(&l);
}

static void test_cancel_terminates(void **state)
{
	(void)state;
	lines l = {0};
	/* a child that obeys SIGTERM ends before any SIGKILL; its group goes too */
	const char *argv[] = {"sh", "-c", "sleep 600 & echo ready; wait", NULL};
	xb_proc *p = start(argv, &l);
	wait_line(p, &l, "ready");
	proc_cancel(p);
	proc_cancel(p); /* a second cancel changes nothing */
	run_to_end(p); /* the pipe closes only once the background sleep is gone too */
	xb_proc_status st;
	proc_status(p, &st);
	assert_int_equal(st.signal, SIGTERM);
	assert_true(st.cancelled);
	assert_false(st.killed);
	proc_cancel(p); /* after the end: nothing */
	proc_free(p);
	lines_free(&l);
}

static void test_missing_program(void **state)
{
	(void)state;
	const char *argv[] = {"nosuch-xipbench-tool", "x", NULL};
	xb_proc_options o = {.argv = argv};
	xb_err err;
	assert_null(proc_start(&o, &err));
	assert_string_equal(err.msg,
			    "cannot run 'nosuch-xipbench-tool': No such file or directory");

	const char *sh[] = {"sh", "-c", "true", NULL};
	o.argv = sh;
	o.cwd = "/nonexistent-xipbench-folder";
	assert_null(proc_start(&o, &err));
	assert_string_equal(err.msg, "cannot run 'sh' in /nonexistent-xipbench-folder: No such "
				     "file or directory");
	o.cwd = "/dev/null";
	assert_null(proc_start(&o, &err));
	assert_non_null(strstr(err.msg, "Not a directory"));

	const char *env[] = {"NOEQUALS", NULL};
	o.cwd = NULL;
	o.env = env;
	assert_null(proc_start(&o, &err));
	assert_non_null(strstr(err.msg, "NOEQUALS"));

	const char *empty[] = {NULL};
	o.argv = empty;
	o.env = NULL;
	assert_null(proc_start(&o, &err));
}

static void test_many_lines(void **state)
{
	(void)state;
	lines l = {0};
	const char *argv[] = {"seq", "1", "200000", NULL};
	xb_proc *p = start(argv, &l);
	run_to_end(p);
	proc_free(p);
	assert_int_equal(l.n, 200000);
	for (size_t i = 0; i < l.n; i++)
		if ((size_t)atol(l.v[i]) != i + 1)
			fail_msg("line %zu is '%s'", i + 1, l.v[i]);
	lines_free(&l);
}

static void test_environment_and_folder(void **state)
{
	(void)state;
	lines l = {0};
	setenv("XB_PROC_KEEP", "kept", 1);
	setenv("XB_PROC_OVER", "old", 1);
	const char *argv[] = {"sh", "-c", "echo \"$XB_PROC_KEEP $XB_PROC_OVER $XB_PROC_NEW\"; pwd",
			      NULL};
	const char *env[] = {"XB_PROC_OVER=new", "XB_PROC_NEW=a b 'c'", NULL};
	xb_proc_options o = {.argv = argv, .cwd = "/", .env = env, .line = on_line, .ctx = &l};
	xb_err err;
	xb_proc *p = proc_start(&o, &err);
	assert_non_null(p);
	assert_true(proc_pid(p) > 0);
	run_to_end(p);
	proc_free(p);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "kept new a b 'c'");
	assert_string_equal(l.v[1], "/");
	lines_free(&l);
	unsetenv("XB_PROC_KEEP");
	unsetenv("XB_PROC_OVER");
}

static void test_output_closed_early(void **state)
{
	(void)state;
	lines l = {0};
	/* the child closes its output and goes on: its end is still noticed */
	const char *argv[] = {"sh", "-c", "echo bye; exec >/dev/null 2>&1; sleep 0.2; exit 4",
			      NULL};
	xb_proc *p = start(argv, &l);
	int first = proc_pollfd(p), other = -1;
	uint64_t t0 = wall_ms();
	while (turn(p, 100)) {
		if (proc_pollfd(p) != first)
			other = proc_pollfd(p);
		if (wall_ms() - t0 > BOUND_MS)
			fail_msg("the end of the child was not noticed");
	}
	xb_proc_status st;
	proc_status(p, &st);
	assert_int_equal(st.code, 4);
	assert_true(other >= 0 || proc_next_deadline(p) == XB_PROC_NO_DEADLINE);
	assert_int_equal(l.n, 1);
	proc_free(p);
	lines_free(&l);
}

/* Whether the process is gone or a zombie. */
static int dead(long pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *rp = strrchr(buf, ')');
	return !rp || rp[1] != ' ' || rp[2] == 'Z' || rp[2] == 'X';
}

static void test_free_kills(void **state)
{
	(void)state;
	lines l = {0};
	const char *argv[] = {"sh", "-c", "sleep 600 & echo $!; wait", NULL};
	xb_proc *p = start(argv, &l);
	uint64_t t0 = wall_ms();
	while (l.n == 0 && turn(p, 100))
		if (wall_ms() - t0 > BOUND_MS)
			fail_msg("no pid printed");
	assert_int_equal(l.n, 1);
	long child = proc_pid(p), grandchild = atol(l.v[0]);
	assert_true(grandchild > 0);
	assert_false(dead(grandchild));
	proc_free(p);
	assert_true(dead(child));
	t0 = wall_ms();
	while (!dead(grandchild)) {
		if (wall_ms() - t0 > BOUND_MS)
			fail_msg("the child's group outlived proc_free");
		poll(NULL, 0, 10);
	}
	lines_free(&l);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* the children must not inherit it ignored */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_carriage_returns),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_exit_codes_and_signals),
		cmocka_unit_test(test_cancel_escalates),
		cmocka_unit_test(test_cancel_terminates),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_many_lines),
		cmocka_unit_test(test_environment_and_folder),
		cmocka_unit_test(test_output_closed_early),
		cmocka_unit_test(test_free_kills),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
