/* history: every measured run in a SQLite database (schema in docs/formats-history.md). */
#include "history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sha256.h"

#define HISTORY_SCHEMA 2

struct xb_history {
	sqlite3 *db;
	char *path;
};

/* Schema 1, as xipbench wrote it before schema 2: a new database is made as this and then
 * migrated, so that a new file and a migrated one cannot differ. */
static const char schema1_sql[] =
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
	"CREATE INDEX IF NOT EXISTS runs_image ON runs (image_hash);"
	"INSERT OR REPLACE INTO meta VALUES ('schema', '1');";

/* Schema 1 to 2: what a run needs to be repeated and compared. */
static const char migrate2_sql[] =
	"ALTER TABLE runs ADD COLUMN parent_id INTEGER;"
	"ALTER TABLE runs ADD COLUMN layout_text TEXT;"
	"ALTER TABLE runs ADD COLUMN layout_hash TEXT;"
	"ALTER TABLE runs ADD COLUMN method TEXT;"
	"ALTER TABLE runs ADD COLUMN note TEXT;"
	"ALTER TABLE runs ADD COLUMN set_hot BLOB;"
	"CREATE TABLE images (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL);"
	"CREATE TABLE run_funcs ("
	" run_id INTEGER NOT NULL REFERENCES runs (id),"
	" seq INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" library TEXT,"
	" group_name TEXT,"
	" samples REAL,"
	" bytes INTEGER,"
	" PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
	"INSERT OR REPLACE INTO meta VALUES ('schema', '2');";

void history_run_init(xb_run *r)
{
	memset(r, 0, sizeof *r);
	r->extra_ram_bytes = -1;
	r->pad_bytes = -1;
	r->misses_per_echo = r->predicted_misses_per_echo = r->opt_bound_misses_per_echo = NAN;
	r->turnaround_ms = r->peak_udp_echo_per_s = r->footprint_lines = NAN;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void *memdup(const void *p, size_t n)
{
	if (!p)
		return NULL;
	void *q = xmalloc(n ? n : 1);
	memcpy(q, p, n);
	return q;
}

xb_run *history_run_dup(const xb_run *r)
{
	xb_run *c = xmalloc(sizeof *c);
	*c = *r;
	c->image = dup_or_null(r->image);
	c->variant = dup_or_null(r->variant);
	c->layout = dup_or_null(r->layout);
	c->bench = dup_or_null(r->bench);
	c->layout_text = dup_or_null(r->layout_text);
	c->method = dup_or_null(r->method);
	c->note = dup_or_null(r->note);
	c->image_data = memdup(r->image_data, r->image_len);
	c->set_hot = memdup(r->set_hot, r->nsets * sizeof *r->set_hot);
	if (!r->set_hot)
		c->nsets = 0;
	xb_run_func *f = NULL;
	if (r->funcs && r->nfuncs) {
		f = xcalloc(r->nfuncs, sizeof *f);
		for (size_t i = 0; i < r->nfuncs; i++) {
			f[i] = r->funcs[i];
			f[i].name = xstrdup(r->funcs[i].name ? r->funcs[i].name : "");
			f[i].library = dup_or_null(r->funcs[i].library);
			f[i].group = dup_or_null(r->funcs[i].group);
		}
	} else {
		c->nfuncs = 0;
	}
	c->funcs = f;
	return c;
}

/* The copy owns every pointer it holds, so the casts only undo history_run_dup's const. */
static void free_funcs(xb_run_func *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)f[i].name);
		free((char *)f[i].library);
		free((char *)f[i].group);
	}
	free(f);
}

void history_run_free(xb_run *r)
{
	if (!r)
		return;
	free((char *)r->image);
	free((char *)r->variant);
	free((char *)r->layout);
	free((char *)r->bench);
	free((char *)r->layout_text);
	free((char *)r->method);
	free((char *)r->note);
	free((uint8_t *)r->image_data);
	free((uint16_t *)r->set_hot);
	free_funcs((xb_run_func *)r->funcs, r->nfuncs);
	free(r);
}

static int db_fail(xb_history *h, xb_err *err, const char *what)
{
	int code = sqlite3_errcode(h->db) & 0xff;
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return xb_fail(err, "%s: %s: the run history is busy (another program holds its "
				    "lock); try again",
			       h->path, what);
	return xb_fail(err, "%s: %s: %s", h->path, what, sqlite3_errmsg(h->db));
}

/* Runs sql; fails with its message. */
static int db_exec(xb_history *h, const char *sql, const char *what, xb_err *err)
{
	if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	return db_fail(h, err, what);
}

static void db_rollback(xb_history *h)
{
	if (!sqlite3_get_autocommit(h->db))
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Runs a query of one integer; *out gets 0 when it gives no row. */
static int db_int(xb_history *h, const char *sql, int64_t *out, const char *what, xb_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(h, err, what);
	int step = sqlite3_step(st);
	*out = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : db_fail(h, err, what);
}

/* The schema version stored in meta: 0 for an empty database; -1 with err for a SQLite
 * database of something else. Reading sqlite_master is also what refuses a file that is
 * not a database, before anything is written to it. */
static int schema_version(xb_history *h, int64_t *version, xb_err *err)
{
	int64_t tables, meta;
	if (db_int(h, "SELECT count(*) FROM sqlite_master", &tables, "cannot read", err) ||
	    db_int(h, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
		   &meta, "cannot read", err))
		return -1;
	*version = 0;
	if (tables == 0)
		return 0;
	if (!meta)
		return xb_fail(err, "%s: a SQLite database, but not a run history (no meta table)",
			       h->path);
	return db_int(h, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'schema'", version,
		      "reading the schema version", err);
}

/* Brings the schema up to HISTORY_SCHEMA in one transaction. The version is read again
 * inside it: another program may have done the work meanwhile. */
static int upgrade(xb_history *h, xb_err *err)
{
	int64_t version;
	if (db_exec(h, "BEGIN IMMEDIATE", "cannot migrate the run history", err))
		return -1;
	if (schema_version(h, &version, err))
		goto fail;
	if (version < 1 && db_exec(h, schema1_sql, "cannot create the run history", err))
		goto fail;
	if (version < 2 && db_exec(h, migrate2_sql, "cannot migrate the run history to schema 2",
				   err))
		goto fail;
	if (db_exec(h, "COMMIT", "cannot migrate the run history", err))
		goto fail;
	return 0;
fail:
	db_rollback(h);
	return -1;
}

/* WAL: a reader never waits for a writer's transaction, and a killed writer leaves the
 * database as of its last commit. The mode stays in the file. */
static int use_wal(xb_history *h, xb_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db, "PRAGMA journal_mode", -1, &st, NULL) != SQLITE_OK)
		return db_fail(h, err, "cannot read the journal mode");
	int wal = sqlite3_step(st) == SQLITE_ROW &&
		  strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
	sqlite3_finalize(st);
	if (!wal && db_exec(h, "PRAGMA journal_mode = WAL", "cannot switch to WAL", err))
		return -1;
	/* FULL: a commit survives a power cut, not only a killed process; the writer's thread
	 * pays for it, not a UI */
	return db_exec(h, "PRAGMA synchronous = FULL", "cannot set synchronous", err);
}

int history_open_flags(xb_history **out, const char *path, unsigned flags, xb_err *err)
{
	*out = NULL;
	struct stat stt;
	if (!(flags & HISTORY_CREATE) && stat(path, &stt) != 0)
		return xb_fail(err, "%s: no such file (no run history there)", path);
	xb_history *h = xcalloc(1, sizeof *h);
	h->path = xstrdup(path);
	int64_t version = 0;
	int mode = SQLITE_OPEN_READWRITE | (flags & HISTORY_CREATE ? SQLITE_OPEN_CREATE : 0);
	if (sqlite3_open_v2(path, &h->db, mode, NULL) != SQLITE_OK) {
		db_fail(h, err, "cannot open");
		goto fail;
	}
	sqlite3_busy_timeout(h->db, flags & HISTORY_SHORT_WAIT ? HISTORY_SHORT_WAIT_MS
							 : HISTORY_WAIT_MS);
	if (schema_version(h, &version, err) != 0)
		goto fail;
	if (version > HISTORY_SCHEMA) {
		xb_fail(err, "%s: run history of a newer xipbench (schema %lld, this one reads %d)",
			path, (long long)version, HISTORY_SCHEMA);
		goto fail;
	}
	if (use_wal(h, err) != 0)
		goto fail;
	if (version < HISTORY_SCHEMA && upgrade(h, err) != 0)
		goto fail;
	*out = h;
	return 0;
fail:
	history_close(h);
	return -1;
}

int history_open(xb_history **out, const char *path, xb_err *err)
{
	return history_open_flags(out, path, HISTORY_CREATE, err);
}

void history_close(xb_history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h->path);
	free(h);
}

/* ---- Adding ---- */

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

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}


/* The set map as stored: little-endian 16-bit counts, whatever the host. */
static uint8_t *set_blob(const xb_run *r)
{
	uint8_t *b = xmalloc(2 * r->nsets + 1);
	for (size_t i = 0; i < r->nsets; i++) {
		b[2 * i] = (uint8_t)(r->set_hot[i] & 0xff);
		b[2 * i + 1] = (uint8_t)(r->set_hot[i] >> 8);
	}
	return b;
}

static int add_image(xb_history *h, const xb_run *r, xb_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db, "INSERT OR IGNORE INTO images (hash, size, data) VALUES (?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(h, err, "cannot keep the image");
	sqlite3_bind_text(st, 1, r->image_hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)r->image_len);
	sqlite3_bind_blob64(st, 3, r->image_data, r->image_len, SQLITE_STATIC);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(h, err, "cannot keep the image");
	sqlite3_finalize(st);
	return rc;
}

static int add_row(xb_history *h, xb_run *r, xb_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db,
			       "INSERT INTO runs (time, image_hash, image, variant, layout, bench,"
			       " extra_ram_bytes, pad_bytes, misses_per_echo,"
			       " predicted_misses_per_echo, opt_bound_misses_per_echo,"
			       " turnaround_ms, peak_udp_echo_per_s, footprint_lines, parent_id,"
			       " layout_text, layout_hash, method, note, set_hot)"
			       " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(h, err, "cannot add a run");
	sqlite3_bind_text(st, 1, r->time, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->image_hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->image ? r->image : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->variant ? r->variant : "stock", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, r->layout ? r->layout : "stock", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, r->bench ? r->bench : "virtual", -1, SQLITE_STATIC);
	bind_count(st, 7, r->extra_ram_bytes);
	bind_count(st, 8, r->pad_bytes);
	bind_real(st, 9, r->misses_per_echo);
	bind_real(st, 10, r->predicted_misses_per_echo);
	bind_real(st, 11, r->opt_bound_misses_per_echo);
	bind_real(st, 12, r->turnaround_ms);
	bind_real(st, 13, r->peak_udp_echo_per_s);
	bind_real(st, 14, r->footprint_lines);
	if (r->parent_id > 0)
		sqlite3_bind_int64(st, 15, r->parent_id);
	bind_text(st, 16, r->layout_text);
	bind_text(st, 17, r->layout_hash[0] ? r->layout_hash : NULL);
	bind_text(st, 18, r->method);
	bind_text(st, 19, r->note);
	uint8_t *blob = r->set_hot && r->nsets ? set_blob(r) : NULL;
	if (blob)
		sqlite3_bind_blob64(st, 20, blob, 2 * (sqlite3_uint64)r->nsets, SQLITE_STATIC);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(h, err, "cannot add a run");
	sqlite3_finalize(st);
	free(blob);
	if (rc == 0)
		r->id = sqlite3_last_insert_rowid(h->db);
	return rc;
}

static int add_funcs(xb_history *h, const xb_run *r, xb_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db,
			       "INSERT INTO run_funcs (run_id, seq, name, library, group_name,"
			       " samples, bytes) VALUES (?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(h, err, "cannot add the run's profile");
	int rc = 0;
	for (size_t i = 0; i < r->nfuncs && rc == 0; i++) {
		const xb_run_func *f = &r->funcs[i];
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, r->id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		sqlite3_bind_text(st, 3, f->name ? f->name : "", -1, SQLITE_STATIC);
		bind_text(st, 4, f->library);
		bind_text(st, 5, f->group);
		bind_real(st, 6, f->samples);
		sqlite3_bind_int64(st, 7, f->bytes);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = db_fail(h, err, "cannot add the run's profile");
	}
	sqlite3_finalize(st);
	return rc;
}

int history_add(xb_history *h, xb_run *r, xb_err *err)
{
	if (r->image_data) {
		char digest[65];
		sha256_hex(r->image_data, r->image_len, digest);
		if (r->image_hash[0] && strcmp(r->image_hash, digest) != 0)
			return xb_fail(err, "%s: cannot add a run: its image_hash %.16s... is not the "
					    "SHA-256 of its image bytes (%.16s...)",
				       h->path, r->image_hash, digest);
		memcpy(r->image_hash, digest, sizeof digest);
	}
	if (r->layout_text && !r->layout_hash[0])
		sha256_hex(r->layout_text, strlen(r->layout_text), r->layout_hash);
	if (!r->time[0]) {
		time_t now = time(NULL);
		struct tm tm;
		gmtime_r(&now, &tm);
		strftime(r->time, sizeof r->time, "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	if (db_exec(h, "BEGIN IMMEDIATE", "cannot add a run", err))
		return -1;
	if ((r->image_data && add_image(h, r, err)) || add_row(h, r, err) ||
	    add_funcs(h, r, err) || db_exec(h, "COMMIT", "cannot add a run", err)) {
		db_rollback(h);
		r->id = 0;
		return -1;
	}
	return 0;
}

/* ---- Reading ---- */

static double column_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int64_t column_count(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

static const char *column_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i); /* NULL for NULL */
}

/* What read_run reads, in its order; then RUN_FROM. */
#define RUN_COLUMNS                                                                        \
	"SELECT runs.id, time, image_hash, image, variant, layout, bench, extra_ram_bytes,"  \
	" pad_bytes, misses_per_echo, predicted_misses_per_echo, opt_bound_misses_per_echo," \
	" turnaround_ms, peak_udp_echo_per_s, footprint_lines, parent_id, layout_text,"      \
	" layout_hash, method, note, images.size"
#define RUN_FROM " FROM runs LEFT JOIN images ON images.hash = runs.image_hash"

/* One row of RUN_COLUMNS into r; its strings point into st's row. */
static void read_run(sqlite3_stmt *st, xb_run *r)
{
	history_run_init(r);
	r->id = sqlite3_column_int64(st, 0);
	snprintf(r->time, sizeof r->time, "%s", column_text(st, 1) ? column_text(st, 1) : "");
	snprintf(r->image_hash, sizeof r->image_hash, "%s",
		 column_text(st, 2) ? column_text(st, 2) : "");
	r->image = column_text(st, 3);
	r->variant = column_text(st, 4);
	r->layout = column_text(st, 5);
	r->bench = column_text(st, 6);
	r->extra_ram_bytes = column_count(st, 7);
	r->pad_bytes = column_count(st, 8);
	r->misses_per_echo = column_real(st, 9);
	r->predicted_misses_per_echo = column_real(st, 10);
	r->opt_bound_misses_per_echo = column_real(st, 11);
	r->turnaround_ms = column_real(st, 12);
	r->peak_udp_echo_per_s = column_real(st, 13);
	r->footprint_lines = column_real(st, 14);
	r->parent_id = sqlite3_column_int64(st, 15); /* NULL reads as 0 */
	r->layout_text = column_text(st, 16);
	snprintf(r->layout_hash, sizeof r->layout_hash, "%s",
		 column_text(st, 17) ? column_text(st, 17) : "");
	r->method = column_text(st, 18);
	r->note = column_text(st, 19);
	r->image_len = (size_t)sqlite3_column_int64(st, 20);
}

int history_list(xb_history *h, const char *image_hash, xb_run_fn fn, void *ctx, xb_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db,
			       RUN_COLUMNS RUN_FROM
			       " WHERE ?1 IS NULL OR image_hash = ?1 ORDER BY runs.id",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(h, err, "cannot read the runs");
	if (image_hash)
		sqlite3_bind_text(st, 1, image_hash, -1, SQLITE_STATIC);
	int rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		xb_run r;
		read_run(st, &r);
		if (fn(ctx, &r))
			break;
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		rc = db_fail(h, err, "cannot read the runs");
	sqlite3_finalize(st);
	return rc;
}

/* The run's profile, in the order it was given; the strings are copies. */
static int read_funcs(xb_history *h, int64_t id, xb_run_func **out, size_t *n, xb_err *err)
{
	sqlite3_stmt *st;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(h->db,
			       "SELECT name, library, group_name, samples, bytes FROM run_funcs"
			       " WHERE run_id = ? ORDER BY seq",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(h, err, "cannot read the run's profile");
	sqlite3_bind_int64(st, 1, id);
	size_t cap = 0;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		xb_grow(out, &cap, *n + 1, sizeof **out);
		xb_run_func *f = &(*out)[(*n)++];
		f->name = xstrdup(column_text(st, 0) ? column_text(st, 0) : "");
		f->library = dup_or_null(column_text(st, 1));
		f->group = dup_or_null(column_text(st, 2));
		f->samples = column_real(st, 3);
		f->bytes = (uint32_t)sqlite3_column_int64(st, 4);
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : db_fail(h, err, "cannot read the run's profile");
}

typedef struct id_list {
	int64_t *ids;
	size_t n, cap;
} id_list;

static int list_id(void *ctx, const xb_run *r)
{
	id_list *l = ctx;
	xb_grow(&l->ids, &l->cap, l->n + 1, sizeof *l->ids);
	l->ids[l->n++] = r->id;
	return 0;
}

int history_ids(xb_history *h, int64_t **ids, size_t *n, xb_err *err)
{
	id_list l = {0};
	int rc = history_list(h, NULL, list_id, &l, err);
	if (rc != 0) {
		free(l.ids);
		l.ids = NULL;
		l.n = 0;
	}
	*ids = l.ids;
	*n = l.n;
	return rc;
}

int history_get(xb_history *h, int64_t id, xb_run_fn fn, void *ctx, xb_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db, RUN_COLUMNS ", set_hot" RUN_FROM " WHERE runs.id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(h, err, "cannot read the run");
	sqlite3_bind_int64(st, 1, id);
	int step = sqlite3_step(st);
	if (step != SQLITE_ROW) {
		int rc = step == SQLITE_DONE
				 ? xb_fail(err, "%s: no run %lld", h->path, (long long)id)
				 : db_fail(h, err, "cannot read the run");
		sqlite3_finalize(st);
		return rc;
	}
	xb_run r;
	read_run(st, &r);
	const uint8_t *blob = sqlite3_column_blob(st, 21);
	size_t nsets = (size_t)sqlite3_column_bytes(st, 21) / 2;
	uint16_t *sets = NULL;
	if (blob && nsets) {
		sets = xmalloc(nsets * sizeof *sets);
		for (size_t i = 0; i < nsets; i++)
			sets[i] = (uint16_t)(blob[2 * i] | blob[2 * i + 1] << 8);
		r.set_hot = sets;
		r.nsets = nsets;
	}
	xb_run_func *funcs;
	size_t nfuncs;
	int rc = read_funcs(h, id, &funcs, &nfuncs, err);
	if (rc == 0) {
		r.funcs = funcs;
		r.nfuncs = nfuncs;
		fn(ctx, &r);
		free_funcs(funcs, nfuncs);
	}
	free(sets);
	sqlite3_finalize(st);
	return rc;
}

int history_image(xb_history *h, const char *image_hash, uint8_t **data, size_t *len,
		  xb_err *err)
{
	*data = NULL;
	*len = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db, "SELECT data FROM images WHERE hash = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_fail(h, err, "cannot read the image");
	sqlite3_bind_text(st, 1, image_hash, -1, SQLITE_STATIC);
	int step = sqlite3_step(st), rc = 0;
	if (step == SQLITE_ROW) {
		*len = (size_t)sqlite3_column_bytes(st, 0);
		*data = memdup(sqlite3_column_blob(st, 0), *len);
		if (!*data)
			*data = xmalloc(1);
	} else if (step == SQLITE_DONE) {
		rc = xb_fail(err, "%s: the history keeps no image %.64s", h->path, image_hash);
	} else {
		rc = db_fail(h, err, "cannot read the image");
	}
	sqlite3_finalize(st);
	return rc;
}

int history_latest_id(xb_history *h, int64_t *id, xb_err *err)
{
	return db_int(h, "SELECT coalesce(max(id), 0) FROM runs", id, "cannot read the runs", err);
}
