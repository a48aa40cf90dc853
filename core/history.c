/* history: every measured run in a SQLite database. */
#include "history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <string.h>
#include <time.h>

#define HISTORY_SCHEMA 1

struct xb_history {
	sqlite3 *db;
	char *path;
};

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS runs ("
	" id INTEGER PRIMARY KEY,"
	" time TEXT NOT NULL,"
	" image_hash TEXT NOT NULL,"
	" image TEXT,"
	" variant TEXT NOT NULL,"
	" layout TEXT NOT NULL,"
	" bench TEXT NOT NULL,"
	" extra_ram_bytes INTEGER,"
	" pad_bytes INTEGER,"
	" misses_per_echo REAL,"
	" predicted_misses_per_echo REAL,"
	" opt_bound_misses_per_echo REAL,"
	" turnaround_ms REAL,"
	" peak_udp_echo_per_s REAL,"
	" footprint_lines REAL);"
	"CREATE INDEX IF NOT EXISTS runs_image ON runs (image_hash);";

void history_run_init(xb_run *r)
{
	memset(r, 0, sizeof *r);
	r->extra_ram_bytes = -1;
	r->pad_bytes = -1;
	r->misses_per_echo = r->predicted_misses_per_echo = r->opt_bound_misses_per_echo = NAN;
	r->turnaround_ms = r->peak_udp_echo_per_s = r->footprint_lines = NAN;
}

static int db_fail(xb_history *h, xb_err *err, const char *what)
{
	return xb_fail(err, "%s: %s: %s", h->path, what, sqlite3_errmsg(h->db));
}

/* Runs sql; fails with its message. */
static int db_exec(xb_history *h, const char *sql, xb_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(h->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	xb_fail(err, "%s: %s", h->path, msg ? msg : "database error");
	sqlite3_free(msg);
	return -1;
}

/* The schema version stored in meta, 0 for a new database. */
static int schema_version(xb_history *h, int *version, xb_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db, "SELECT value FROM meta WHERE key = 'schema'", -1, &st,
			       NULL) != SQLITE_OK)
		return db_fail(h, err, "reading the schema version");
	*version = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return 0;
}

int history_open(xb_history **out, const char *path, xb_err *err)
{
	*out = NULL;
	xb_history *h = xcalloc(1, sizeof *h);
	h->path = xstrdup(path);
	int version = 0;
	if (sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		db_fail(h, err, "cannot open");
		goto fail;
	}
	sqlite3_busy_timeout(h->db, 5000);
	/* a file that is not a database fails here, before anything is written */
	if (db_exec(h, schema_sql, err) != 0 || schema_version(h, &version, err) != 0)
		goto fail;
	if (version > HISTORY_SCHEMA) {
		xb_fail(err, "%s: run history of a newer xipbench (schema %d, this one reads %d)",
			path, version, HISTORY_SCHEMA);
		goto fail;
	}
	if (version == 0 &&
	    db_exec(h, "INSERT OR REPLACE INTO meta VALUES ('schema', '1')", err) != 0)
		goto fail;
	*out = h;
	return 0;
fail:
	history_close(h);
	return -1;
}

void history_close(xb_history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h->path);
	free(h);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

static void bind_count(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

int history_add(xb_history *h, xb_run *r, xb_err *err)
{
	if (!r->time[0]) {
		time_t now = time(NULL);
		struct tm tm;
		gmtime_r(&now, &tm);
		strftime(r->time, sizeof r->time, "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db,
			       "INSERT INTO runs (time, image_hash, image, variant, layout, bench,"
			       " extra_ram_bytes, pad_bytes, misses_per_echo,"
			       " predicted_misses_per_echo, opt_bound_misses_per_echo,"
			       " turnaround_ms, peak_udp_echo_per_s, footprint_lines)"
			       " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(h, err, "cannot add a run");
	sqlite3_bind_text(st, 1, r->time, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, r->image_hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, r->image ? r->image : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, r->variant ? r->variant : "stock", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, r->layout ? r->layout : "stock", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, r->bench ? r->bench : "virtual", -1, SQLITE_TRANSIENT);
	bind_count(st, 7, r->extra_ram_bytes);
	bind_count(st, 8, r->pad_bytes);
	bind_real(st, 9, r->misses_per_echo);
	bind_real(st, 10, r->predicted_misses_per_echo);
	bind_real(st, 11, r->opt_bound_misses_per_echo);
	bind_real(st, 12, r->turnaround_ms);
	bind_real(st, 13, r->peak_udp_echo_per_s);
	bind_real(st, 14, r->footprint_lines);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(h, err, "cannot add a run");
	sqlite3_finalize(st);
	if (rc == 0)
		r->id = sqlite3_last_insert_rowid(h->db);
	return rc;
}

static double column_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int64_t column_count(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

int history_list(xb_history *h, const char *image_hash, xb_run_fn fn, void *ctx, xb_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db,
			       "SELECT id, time, image_hash, image, variant, layout, bench,"
			       " extra_ram_bytes, pad_bytes, misses_per_echo,"
			       " predicted_misses_per_echo, opt_bound_misses_per_echo,"
			       " turnaround_ms, peak_udp_echo_per_s, footprint_lines"
			       " FROM runs WHERE ?1 IS NULL OR image_hash = ?1 ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(h, err, "cannot read the runs");
	if (image_hash)
		sqlite3_bind_text(st, 1, image_hash, -1, SQLITE_TRANSIENT);
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		xb_run r;
		history_run_init(&r);
		r.id = sqlite3_column_int64(st, 0);
		snprintf(r.time, sizeof r.time, "%s", (const char *)sqlite3_column_text(st, 1));
		snprintf(r.image_hash, sizeof r.image_hash, "%s",
			 (const char *)sqlite3_column_text(st, 2));
		r.image = (const char *)sqlite3_column_text(st, 3);
		r.variant = (const char *)sqlite3_column_text(st, 4);
		r.layout = (const char *)sqlite3_column_text(st, 5);
		r.bench = (const char *)sqlite3_column_text(st, 6);
		r.extra_ram_bytes = column_count(st, 7);
		r.pad_bytes = column_count(st, 8);
		r.misses_per_echo = column_real(st, 9);
		r.predicted_misses_per_echo = column_real(st, 10);
		r.opt_bound_misses_per_echo = column_real(st, 11);
		r.turnaround_ms = column_real(st, 12);
		r.peak_udp_echo_per_s = column_real(st, 13);
		r.footprint_lines = column_real(st, 14);
		if (fn(ctx, &r))
			break;
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		rc = db_fail(h, err, "cannot read the runs");
	sqlite3_finalize(st);
	return rc;
}
