/* proc: a child process driven from the caller's loop: started from an argv (never a
 * shell), its output read line by line without blocking, its end noticed without blocking,
 * and cancelled without blocking (SIGTERM to its process group, SIGKILL after a grace
 * period). The build jobs (build_job.h) run builds with it. */
#ifndef XB_SESSION_PROC_H
#define XB_SESSION_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

/* Bytes of a line passed to the line callback; a longer line is cut there, "..." is
 * appended and the rest of it, up to its end, is dropped. */
#define XB_PROC_LINE_MAX 1024
/* Time between SIGTERM and SIGKILL when cancelled, unless the options say otherwise. */
#define XB_PROC_GRACE_NS 2000000000ull
/* No deadline (proc_next_deadline). */
#define XB_PROC_NO_DEADLINE UINT64_MAX

typedef struct xb_proc xb_proc;

/* One line of output without its end ("\n", "\r\n" or a lone "\r", the way progress
 * meters such as ninja's overwrite a line: each counts as a line end; a line ended by a
 * lone "\r" with nothing in it is not passed). line[len] is 0. Called from proc_pump
 * only; it may call proc_cancel but not proc_free. */
typedef void (*xb_proc_line_fn)(void *ctx, const char *line, size_t len);
/* A clock in nanoseconds (CLOCK_MONOTONIC unless the options give one: tests). */
typedef uint64_t (*xb_proc_clock_fn)(void *ctx);

typedef struct xb_proc_options {
	const char *const *argv;  /* required, NULL-terminated; argv[0] is looked up in the
				   * caller's PATH (execvp); nothing is read by a shell */
	const char *cwd;          /* the child's working folder (NULL: the caller's) */
	const char *const *env;   /* "NAME=VALUE" set in the child's environment on top of
				   * the caller's, NULL-terminated (NULL: none) */
	xb_proc_line_fn line;     /* standard output and error, merged (NULL: dropped) */
	void *ctx;
	xb_proc_clock_fn clock;   /* NULL: CLOCK_MONOTONIC */
	void *clock_ctx;
	uint64_t grace_ns;        /* cancel: SIGTERM, then SIGKILL this long after (0:
				   * XB_PROC_GRACE_NS) */
} xb_proc_options;

/* Starts the child: standard input /dev/null, standard output and error into one pipe
 * (non-blocking on this side, close-on-exec), in a process group of its own, with the
 * default signal dispositions and no signal blocked. Fails (nothing to free) with
 * "cannot run 'nosuch': No such file or directory", or "cannot run 'make' in DIR: ..."
 * when the folder cannot be entered, or with a bad environment entry. */
xb_proc *proc_start(const xb_proc_options *o, xb_err *err);

/* The descriptor to poll for input (POLLIN) while the child runs: its output pipe, then,
 * once that is closed, one that becomes readable when the child ends (a pidfd). -1 when
 * finished, or when there is nothing to poll (then proc_next_deadline is near). */
int proc_pollfd(const xb_proc *p);
/* When proc_pump must be called again even if the descriptor stays quiet, on the proc's
 * clock: the SIGKILL of a cancel, the end of waiting for output after the child ended;
 * XB_PROC_NO_DEADLINE when nothing is timed. */
uint64_t proc_next_deadline(const xb_proc *p);
/* The same as milliseconds from now for poll(): 0 when due, -1 when nothing is timed. */
int proc_timeout_ms(const xb_proc *p);

/* Reads what output is there (at most 64 KB per call, so a chatty child cannot hold the
 * caller's loop) and passes every complete line to the line callback; a partial line
 * waits for its end (or for the end of the output). Notices the child's end (waitpid with
 * WNOHANG) and sends a due SIGKILL. Returns 1 while there is more to come, 0 once the
 * child has ended and its output is drained (then always 0). If the child ended but
 * something it started keeps the pipe open, its output is waited for for the grace
 * period and then abandoned. */
int proc_pump(xb_proc *p);

/* Asks the child to stop: SIGTERM to its process group now, SIGKILL from proc_pump once
 * the grace period has passed. No-op once the child has ended or after the first call. */
void proc_cancel(xb_proc *p);

typedef struct xb_proc_status {
	int running;              /* 1 until the child's end was noticed */
	int exited;               /* it exited (code) rather than being killed (signal) */
	int code;                 /* the exit code (exited) */
	int signal;               /* the signal that ended it (not exited) */
	int cancelled;            /* proc_cancel was called before it ended */
	int killed;               /* the cancel had to send SIGKILL */
	double seconds;           /* how long it ran (so far, while running) */
} xb_proc_status;
void proc_status(const xb_proc *p, xb_proc_status *st);
/* "running", "exited with status 2", "killed by signal 9 (Killed)": into buf, returned. */
const char *proc_status_text(const xb_proc_status *st, char *buf, size_t cap);
int proc_pid(const xb_proc *p);

/* Frees the proc; a child still running is killed (SIGKILL to its group) and reaped. */
void proc_free(xb_proc *p);

#endif
