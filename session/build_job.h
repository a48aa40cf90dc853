/* build_job: a relink run as a job of the caller's loop: a builder's command (builder.h)
 * run through proc.h, every output line passed on as it comes (the session puts them in
 * its log as XB_LOG_BUILD lines), progress when the build tool reports it, cancel, and a
 * result that says whether the image is there: ok (the ELF exists and was written by this
 * build), failed (how the command ended and the lines worth showing) or cancelled. */
#ifndef XB_SESSION_BUILD_JOB_H
#define XB_SESSION_BUILD_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "builder.h"
#include "proc.h"

/* Lines kept for a failed build's report: the first error lines and, when there are
 * none, the last lines of the output. */
#define XB_BUILD_SHOW_LINES 8

typedef struct xb_build_job xb_build_job;

/* One output line; error is 1 for a line the builder counts as an error (to be logged
 * at error level). Called from build_pump only. */
typedef void (*xb_build_line_fn)(void *ctx, const char *line, size_t len, int error);

typedef struct xb_build_options {
	xb_build_line_fn line;    /* NULL: lines are only kept for the report */
	void *ctx;
	xb_proc_clock_fn clock;   /* passed to proc (NULL: CLOCK_MONOTONIC) */
	void *clock_ctx;
	uint64_t grace_ns;        /* cancel: SIGTERM, then SIGKILL after this (0: proc's) */
} xb_build_options;

enum xb_build_state {
	XB_BUILD_RUNNING = 0,
	XB_BUILD_OK,              /* the command succeeded and wrote the ELF */
	XB_BUILD_FAILED,          /* it failed, or succeeded without writing a new ELF */
	XB_BUILD_CANCELLED,       /* build_cancel ended it */
};

typedef struct xb_build_result {
	int state;                /* enum xb_build_state */
	xb_proc_status exit;      /* how the command ended */
	const char *elf;          /* the ELF (OK: it exists and is newer than the start) */
	const char *map;          /* OK: its map beside it (as image_find_map finds it), or
				   * NULL */
	const char *const *lines; /* FAILED: the lines to show (the first error lines, else
				   * the last lines), oldest first */
	size_t nlines;
	size_t output_lines;      /* lines of output in all */
	char message[512];        /* one line: "built ELF in 1.2 s", "the build failed (make
				   * exited with status 2): FIRST ERROR LINE", "the build was
				   * cancelled" */
} xb_build_result;

/* Checks the request and the builder's settings, prepares the command, creates the build
 * folder and the ELF's folder, removes an old ELF the command will write, and starts it.
 * NULL with err when any of that fails (nothing to free). */
xb_build_job *build_start(const xb_builder *b, const xb_build_request *rq,
			  const xb_build_options *o, xb_err *err);

/* The caller's loop, as proc's: a descriptor to poll for input (-1: none now), the time
 * until build_pump is due anyway, and the pump (1 while running, 0 once the result is
 * there). */
int build_pollfd(const xb_build_job *j);
int build_timeout_ms(const xb_build_job *j);
int build_pump(xb_build_job *j);

/* Stops the build (proc_cancel); the result becomes CANCELLED once it has ended. */
void build_cancel(xb_build_job *j);

int build_state(const xb_build_job *j);
/* The last fraction the build tool reported (0..1), or -1 when it reported none. */
double build_progress(const xb_build_job *j);
/* The command as one line for the log ("make -C firmware 'LAYOUT=/a b'"), quoted where
 * a shell would need it. */
const char *build_command_line(const xb_build_job *j);
const xb_build_result *build_result(const xb_build_job *j);

/* Frees the job; a build still running is killed (proc_free). */
void build_free(xb_build_job *j);

#endif
