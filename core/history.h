/* history: every measured run in a SQLite database (runs.db): image hash, build variant,
 * layout, each metric, time. What the compare view and the experiment tables read back. */
#ifndef XB_HISTORY_H
#define XB_HISTORY_H

#include <stdint.h>

#include "util.h"

typedef struct xb_history xb_history;

/* One run. Metrics that were not measured are NaN (stored as NULL). Strings are owned by
 * whoever filled the struct; history_list hands out records valid during the callback. */
typedef struct xb_run {
	int64_t id;                 /* set by history_add */
	char time[32];              /* ISO 8601 UTC; history_add fills it when empty */
	char image_hash[65];        /* SHA-256 of the ELF, lowercase hex */
	const char *image;          /* the ELF path as given */
	const char *variant;        /* build variant: "stock", "LTO=1", "XIP_CACHE=off" ... */
	const char *layout;         /* layout name: "stock", "hot", "colour", "sram 8K" ... */
	const char *bench;          /* "virtual" or "hardware" */
	int64_t extra_ram_bytes;    /* -1: unknown */
	int64_t pad_bytes;          /* -1: unknown */
	double misses_per_echo;
	double predicted_misses_per_echo;
	double opt_bound_misses_per_echo;
	double turnaround_ms;
	double peak_udp_echo_per_s;
	double footprint_lines;
} xb_run;

/* A run with every metric unmeasured and no strings. */
void history_run_init(xb_run *r);

/* Opens (creating if needed) the database at path. Fails with a message naming the file when
 * it is not a SQLite database, is of a newer schema, or cannot be written. */
int history_open(xb_history **out, const char *path, xb_err *err);
void history_close(xb_history *h);

/* Appends r (one transaction); sets r->id and, if empty, r->time. */
int history_add(xb_history *h, xb_run *r, xb_err *err);

/* Calls fn for every run, oldest first, of one image (image_hash) or of all (NULL). fn
 * returns non-zero to stop. */
typedef int (*xb_run_fn)(void *ctx, const xb_run *r);
int history_list(xb_history *h, const char *image_hash, xb_run_fn fn, void *ctx, xb_err *err);

#endif
