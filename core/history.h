/* history: every measured run in a SQLite database (runs.db): what was measured (image hash,
 * build variant, layout, bench, each metric, time) and what it takes to repeat and compare
 * it (the layout's text, the ELF bytes, the method, the profile, the cache-set map). What the
 * compare view, the experiment and `xipbench report` read back; the file's tables are in
 * docs/formats-history.md. */
#ifndef XB_HISTORY_H
#define XB_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct xb_history xb_history;

/* One function of a run's profile: its busy samples during the measurement. */
typedef struct xb_run_func {
	const char *name;
	const char *library;        /* NULL: not known */
	const char *group;          /* display group ("IP stack" ...); NULL: not known */
	double samples;
	uint32_t bytes;             /* the function's size */
} xb_run_func;

/* One run. Metrics that were not measured are NaN (stored as NULL); counts that are not
 * known are -1; ids and lengths that are not known are 0; strings that are not known are
 * NULL. Strings and arrays are owned by whoever filled the struct; history_list and
 * history_get hand out records valid during the callback (history_run_dup keeps one). */
typedef struct xb_run {
	int64_t id;                 /* set by history_add */
	char time[32];              /* ISO 8601 UTC; history_add fills it when empty */
	char image_hash[65];        /* SHA-256 of the ELF, lowercase hex; history_add fills it
				     * from image_data when empty */
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
	/* schema 2 */
	int64_t parent_id;          /* the run this one was derived from; 0: none */
	const char *layout_text;    /* the layout itself, as layout_write_file writes it */
	char layout_hash[65];       /* SHA-256 of layout_text; history_add fills it when empty */
	const uint8_t *image_data;  /* the ELF's bytes, kept so that the run can be flashed
				     * again (stored once per image_hash); NULL: not kept */
	size_t image_len;           /* history_list and history_get: the kept image's size,
				     * with image_data NULL (history_image reads it) */
	const char *method;         /* the method's parameters as a JSON object's text */
	const char *note;           /* free text */
	const xb_run_func *funcs;   /* the profile; history_list passes none */
	size_t nfuncs;
	const uint16_t *set_hot;    /* hot lines per cache set under the run's layout;
				     * history_list passes none */
	size_t nsets;
} xb_run;

/* A run with every metric unmeasured and no strings. */
void history_run_init(xb_run *r);

/* A deep copy of r (strings, image bytes, profile, set map) in memory of its own, for a
 * record that must outlive a callback; history_run_free releases it (NULL is fine). */
xb_run *history_run_dup(const xb_run *r);
void history_run_free(xb_run *r);

/* How long a connection waits for another connection's lock before it fails. The database
 * is in WAL mode, so readers never wait for a writer's transaction; they can wait only
 * while the file is created or migrated, or recovered after a crash. */
#define HISTORY_WAIT_MS 5000
#define HISTORY_SHORT_WAIT_MS 50

enum {
	HISTORY_CREATE = 1 << 0,     /* create the file when it does not exist */
	HISTORY_SHORT_WAIT = 1 << 1, /* wait HISTORY_SHORT_WAIT_MS, not HISTORY_WAIT_MS: for a
				      * reader on a UI thread. A lock held longer fails the call
				      * with "... is busy ...; try again" */
};

/* Opens the database at path. A new file gets schema 2; a schema-1 file is migrated in
 * place (one transaction: old runs keep their values, the new fields are NULL). Fails with
 * a message naming the file when it does not exist (without HISTORY_CREATE), is not a
 * SQLite database (the file is left as it was), is of a newer schema, or cannot be
 * written. history_open is history_open_flags with HISTORY_CREATE. */
int history_open(xb_history **out, const char *path, xb_err *err);
int history_open_flags(xb_history **out, const char *path, unsigned flags, xb_err *err);
void history_close(xb_history *h);

/* Appends r in one transaction (the run, its image bytes unless that image is kept
 * already, its profile): a crash at any moment leaves either all of it or none. Sets
 * r->id, and when empty r->time, r->image_hash (from image_data) and r->layout_hash (from
 * layout_text). Fails when image_hash is given and is not the digest of image_data. */
int history_add(xb_history *h, xb_run *r, xb_err *err);

/* Calls fn for every run, oldest first, of one image (image_hash) or of all (NULL), with
 * every field but image_data, funcs and set_hot. fn returns non-zero to stop. */
typedef int (*xb_run_fn)(void *ctx, const xb_run *r);
int history_list(xb_history *h, const char *image_hash, xb_run_fn fn, void *ctx, xb_err *err);

/* Every run's id, oldest first: *ids (the caller frees; NULL when there is none), *n. */
int history_ids(xb_history *h, int64_t **ids, size_t *n, xb_err *err);

/* Calls fn once for run id, with its profile (funcs) and set map (set_hot) too, valid during
 * the call. Fails with "PATH: no run ID" when there is none. */
int history_get(xb_history *h, int64_t id, xb_run_fn fn, void *ctx, xb_err *err);

/* The kept ELF bytes of image_hash: *data (the caller frees) and *len. Fails when the
 * history does not keep that image. */
int history_image(xb_history *h, const char *image_hash, uint8_t **data, size_t *len,
		  xb_err *err);

/* The newest run's id (0: none). Ids only grow, so a client that remembers the last id it
 * saw finds new runs with one cheap query. */
int history_latest_id(xb_history *h, int64_t *id, xb_err *err);

/* ---- A writer that never blocks its caller (core/history_writer.c) ----
 * The writer owns a thread with its own connection (HISTORY_CREATE, HISTORY_WAIT_MS). Adds
 * are copied and queued and written in the order given, one transaction each; each gives
 * one result. */
typedef struct xb_history_writer xb_history_writer;

typedef struct xb_history_result {
	uint64_t token;             /* as given to history_writer_add */
	int64_t id;                 /* the run's id; 0 when the add failed */
	char error[512];            /* why it failed ("" when it did not) */
} xb_history_result;

/* Starts the writer on path. The database is opened by the writer's thread at the first
 * add (and again at the next add after a failure), so this never waits on the disk: a path
 * that cannot be opened fails the adds, each result giving the reason. NULL only when the
 * thread or its descriptor cannot be made (err says why). */
xb_history_writer *history_writer_open(const char *path, xb_err *err);

/* Queues a deep copy of r (the caller may free r at once) with the caller's token, and
 * returns at once. Fails only after history_writer_close has begun. */
int history_writer_add(xb_history_writer *w, const xb_run *r, uint64_t token, xb_err *err);

/* A descriptor that polls readable while results are waiting. */
int history_writer_fd(const xb_history_writer *w);

/* Moves up to max finished adds' results, oldest first, into out; returns how many. */
size_t history_writer_results(xb_history_writer *w, xb_history_result *out, size_t max);

/* Adds whose results history_writer_results has not handed out yet (queued, being
 * written, or finished and waiting). */
size_t history_writer_pending(xb_history_writer *w);

/* Writes everything still queued, stops the thread and frees the writer; results not taken
 * are dropped. NULL is fine. */
void history_writer_close(xb_history_writer *w);

#endif
