/* test_history: SHA-256 against the FIPS 180-4 examples, and the SQLite run history: the
 * schema-2 fields round trip, history_get, kept images, the migration of a schema-1 file,
 * files that are refused, and a reader that does not wait for a writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/testdir.h"
#include "../../core/history.h"
#include "../../core/sha256.h"

static void hex(const uint8_t d[32], char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void test_sha256_vectors(void **state)
{
	(void)state;
	char h[65];
	sha256_hex("abc", 3, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("", 0, h);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha256_hex(two, strlen(two), h);
	assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* a million 'a', fed in uneven pieces */
	xb_sha256 s;
	sha256_init(&s);
	char a[997];
	memset(a, 'a', sizeof a);
	size_t left = 1000000;
	while (left) {
		size_t k = left < sizeof a ? left : sizeof a;
		sha256_update(&s, a, k);
		left -= k;
	}
	uint8_t d[32];
	sha256_final(&s, d);
	hex(d, h);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_sha256_file(void **state)
{
	(void)state;
	char *path = xasprintf("%s/abc", test_dir), h[65];
	FILE *f = fopen(path, "wb");
	fputs("abc", f);
	fclose(f);
	xb_err err;
	assert_int_equal(sha256_file_hex(path, h, &err), 0);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	free(path);
	assert_int_equal(sha256_file_hex("/nonexistent/x.elf", h, &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent/x.elf"));
}

typedef struct seen {
	int n;
	xb_run last;
	char layout[32];
} seen;

static int count_run(void *ctx, const xb_run *r)
{
	seen *s = ctx;
	s->n++;
	s->last = *r;
	snprintf(s->layout, sizeof s->layout, "%s", r->layout);
	s->last.layout = s->layout;
	s->last.image = s->last.variant = s->last.bench = NULL;
	return 0;
}

static void test_history_round_trip(void **state)
{
	(void)state;
	char *path = xasprintf("%s/runs.db", test_dir);
	xb_history *h;
	xb_err err;
	assert_int_equal(history_open(&h, path, &err), 0);
	xb_run r;
	history_run_init(&r);
	strcpy(r.image_hash, "00aa");
	r.image = "echo.elf";
	r.variant = "LTO=1";
	r.layout = "colour";
	r.bench = "virtual";
	r.misses_per_echo = 812.5;
	r.turnaround_ms = 0.885;
	r.extra_ram_bytes = 0;
	strcpy(r.time, "2026-11-30T00:00:00Z");
	assert_int_equal(history_add(h, &r, &err), 0);
	assert_true(r.id > 0);
	xb_run r2;
	history_run_init(&r2);
	strcpy(r2.image_hash, "11bb");
	r2.layout = "stock";
	assert_int_equal(history_add(h, &r2, &err), 0);
	assert_true(r2.time[0] != 0); /* filled in */
	history_close(h);

	/* it persists, and NULL stays "not measured" */
	assert_int_equal(history_open(&h, path, &err), 0);
	seen s = {0};
	assert_int_equal(history_list(h, NULL, count_run, &s, &err), 0);
	assert_int_equal(s.n, 2);
	memset(&s, 0, sizeof s);
	assert_int_equal(history_list(h, "00aa", count_run, &s, &err), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.layout, "colour");
	assert_true(s.last.misses_per_echo == 812.5);
	assert_true(s.last.turnaround_ms == 0.885);
	assert_true(isnan(s.last.peak_udp_echo_per_s));
	assert_int_equal(s.last.extra_ram_bytes, 0);
	assert_int_equal(s.last.pad_bytes, -1);
	assert_string_equal(s.last.time, "2026-11-30T00:00:00Z");
	history_close(h);
	free(path);
}

static void test_history_bad_files(void **state)
{
	(void)state;
	xb_history *h;
	xb_err err;
	char *junk = xasprintf("%s/junk.db", test_dir);
	FILE *f = fopen(junk, "wb");
	for (int i = 0; i < 200; i++)
		fputs("this is not a database ", f);
	fclose(f);
	assert_int_equal(history_open(&h, junk, &err), -1);
	assert_null(h);
	assert_non_null(strstr(err.msg, "junk.db"));
	/* and the file is left as it was */
	f = fopen(junk, "rb");
	char head[8] = {0};
	assert_int_equal(fread(head, 1, 7, f), 7);
	fclose(f);
	assert_string_equal(head, "this is");
	free(junk);

	char *newer = xasprintf("%s/newer.db", test_dir);
	assert_int_equal(history_open(&h, newer, &err), 0);
	history_close(h);
	/* a database written by a newer schema is refused, not misread */
	sqlite3 *db;
	assert_int_equal(sqlite3_open(newer, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE meta SET value = '99' WHERE key = 'schema'", NULL,
				      NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(history_open(&h, newer, &err), -1);
	assert_non_null(strstr(err.msg, "newer"));
	free(newer);
	assert_int_equal(history_open(&h, "/nonexistent-dir/runs.db", &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent-dir/runs.db"));
}


/* ---- Schema 2 ---- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every field of a listed or fetched run, copied out of the callback. */
typedef struct got {
	int n;
	xb_run *run;
} got;

static int keep(void *ctx, const xb_run *r)
{
	got *g = ctx;
	g->n++;
	history_run_free(g->run);
	g->run = history_run_dup(r);
	return 0;
}

static const uint8_t image_bytes[] = {0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0xff, 0x00, 0x42};
static const char layout_txt[] = "# layout\nhot tcp_input\ncolour udp_input 0x40\nsram memcpy\n";

static void fill_v2(xb_run *r, const xb_run_func *funcs, size_t nfuncs, const uint16_t *sets,
		    size_t nsets)
{
	history_run_init(r);
	r->image = "echo.elf";
	r->variant = "stock";
	r->layout = "colour";
	r->bench = "virtual";
	r->misses_per_echo = 1159.9;
	r->parent_id = 1;
	r->layout_text = layout_txt;
	r->image_data = image_bytes;
	r->image_len = sizeof image_bytes;
	r->method = "{\"pings\": 60, \"interval_ms\": 20}";
	r->note = "moved udp_input, \"quoted\", a comma";
	r->funcs = funcs;
	r->nfuncs = nfuncs;
	r->set_hot = sets;
	r->nsets = nsets;
}

static void test_history_schema2(void **state)
{
	(void)state;
	char *path = xasprintf("%s/v2.db", test_dir);
	xb_history *h;
	xb_err err;
	assert_int_equal(history_open(&h, path, &err), 0);
	int64_t latest = -1;
	assert_int_equal(history_latest_id(h, &latest, &err), 0);
	assert_int_equal(latest, 0);

	xb_run_func funcs[3] = {
		{"tcp_input", "net", "IP stack", 120.5, 1024},
		{"usb_irq", NULL, NULL, 7, 96},
		{"memcpy", "libc", "C library", 0, 40},
	};
	uint16_t sets[1024];
	for (size_t i = 0; i < 1024; i++)
		sets[i] = (uint16_t)(i % 5 == 0 ? 3 : i % 3);
	sets[1023] = 65535; /* the whole range survives the blob */
	xb_run r;
	fill_v2(&r, funcs, 3, sets, 1024);
	assert_int_equal(history_add(h, &r, &err), 0);
	char want[65];
	sha256_hex((const char *)image_bytes, sizeof image_bytes, want);
	assert_string_equal(r.image_hash, want); /* filled from the bytes */
	sha256_hex(layout_txt, strlen(layout_txt), want);
	assert_string_equal(r.layout_hash, want);
	int64_t first = r.id;

	/* the same image again is kept once; a run without bytes of the same hash shares it */
	xb_run r2;
	fill_v2(&r2, NULL, 0, NULL, 0);
	r2.note = NULL;
	r2.parent_id = first;
	assert_int_equal(history_add(h, &r2, &err), 0);
	xb_run r3;
	history_run_init(&r3);
	memcpy(r3.image_hash, r.image_hash, sizeof r3.image_hash);
	assert_int_equal(history_add(h, &r3, &err), 0);
	assert_int_equal(history_latest_id(h, &latest, &err), 0);
	assert_int_equal(latest, r3.id);
	history_close(h);

	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*), sum(size) FROM images", -1, &st,
					    NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 1);
	assert_int_equal(sqlite3_column_int(st, 1), sizeof image_bytes);
	sqlite3_finalize(st);
	sqlite3_close(db);

	/* listed: the scalar fields, no profile or map */
	assert_int_equal(history_open(&h, path, &err), 0);
	got g = {0};
	assert_int_equal(history_list(h, r.image_hash, keep, &g, &err), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.run->id, r3.id);
	assert_int_equal(g.run->image_len, sizeof image_bytes); /* kept under its hash */
	assert_null(g.run->method);
	assert_int_equal(g.run->parent_id, 0);
	g.n = 0;
	assert_int_equal(history_list(h, NULL, keep, &g, &err), 0); /* the last is r3 again */
	assert_int_equal(g.n, 3);

	/* fetched: everything */
	assert_int_equal(history_get(h, first, keep, &g, &err), 0);
	xb_run *x = g.run;
	assert_int_equal(x->id, first);
	assert_int_equal(x->parent_id, 1);
	assert_string_equal(x->layout_text, layout_txt);
	assert_string_equal(x->layout_hash, r.layout_hash);
	assert_string_equal(x->method, r.method);
	assert_string_equal(x->note, r.note);
	assert_null(x->image_data);
	assert_int_equal(x->image_len, sizeof image_bytes);
	assert_true(x->misses_per_echo == 1159.9);
	assert_int_equal(x->nfuncs, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(x->funcs[i].name, funcs[i].name);
		assert_true(x->funcs[i].samples == funcs[i].samples);
		assert_int_equal(x->funcs[i].bytes, funcs[i].bytes);
	}
	assert_string_equal(x->funcs[0].library, "net");
	assert_string_equal(x->funcs[0].group, "IP stack");
	assert_null(x->funcs[1].library);
	assert_null(x->funcs[1].group);
	assert_int_equal(x->nsets, 1024);
	assert_memory_equal(x->set_hot, sets, sizeof sets);
	assert_int_equal(history_get(h, r2.id, keep, &g, &err), 0);
	assert_int_equal(g.run->parent_id, first);
	assert_int_equal(g.run->nfuncs, 0);
	assert_int_equal(g.run->nsets, 0);
	assert_null(g.run->note);
	assert_int_equal(history_get(h, 999, keep, &g, &err), -1);
	assert_non_null(strstr(err.msg, "no run 999"));
	history_run_free(g.run);

	/* the kept bytes */
	uint8_t *data;
	size_t len;
	assert_int_equal(history_image(h, r.image_hash, &data, &len, &err), 0);
	assert_int_equal(len, sizeof image_bytes);
	assert_memory_equal(data, image_bytes, len);
	free(data);
	assert_int_equal(history_image(h, "00ff", &data, &len, &err), -1);
	assert_null(data);
	assert_non_null(strstr(err.msg, "00ff"));

	/* a hash that is not the bytes' is refused, and nothing of that run is stored */
	xb_run bad;
	fill_v2(&bad, funcs, 3, NULL, 0);
	strcpy(bad.image_hash, "00aa");
	assert_int_equal(history_add(h, &bad, &err), -1);
	assert_non_null(strstr(err.msg, "image_hash"));
	assert_int_equal(history_latest_id(h, &latest, &err), 0);
	assert_int_equal(latest, r3.id);
	history_close(h);
	free(path);
}

/* The CREATE statements of schema 1, as core/history.c made them before schema 2. */
static const char schema1[] =
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY, time TEXT NOT NULL, image_hash TEXT NOT NULL, image TEXT,"
	" variant TEXT NOT NULL, layout TEXT NOT NULL, bench TEXT NOT NULL,"
	" extra_ram_bytes INTEGER, pad_bytes INTEGER, misses_per_echo REAL,"
	" predicted_misses_per_echo REAL, opt_bound_misses_per_echo REAL,"
	" turnaround_ms REAL, peak_udp_echo_per_s REAL, footprint_lines REAL);"
	"CREATE INDEX runs_image ON runs (image_hash);"
	"INSERT INTO meta VALUES ('schema', '1');"
	"INSERT INTO runs VALUES (1, '2026-11-30T00:00:00Z', 'aa', 'a.elf', 'stock', 'stock',"
	" 'virtual', 0, 0, 1836.9, 1836.9, 508.6, 1.1, 550, 3009);"
	"INSERT INTO runs VALUES (2, '2026-11-30T00:01:00Z', 'bb', 'b.elf', 'stock',"
	" 'colour-sram-4k', 'virtual', 4096, 2916, 674.0, NULL, NULL, 0.698, 750, NULL);";

static void test_history_migrate(void **state)
{
	(void)state;
	char *path = xasprintf("%s/v1.db", test_dir);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, schema1, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	xb_history *h;
	xb_err err;
	assert_int_equal(history_open(&h, path, &err), 0);
	got g = {0};
	assert_int_equal(history_get(h, 2, keep, &g, &err), 0);
	xb_run *x = g.run;
	assert_string_equal(x->layout, "colour-sram-4k");
	assert_int_equal(x->extra_ram_bytes, 4096);
	assert_int_equal(x->pad_bytes, 2916);
	assert_true(x->misses_per_echo == 674.0);
	assert_true(isnan(x->predicted_misses_per_echo));
	assert_true(isnan(x->footprint_lines));
	assert_true(x->peak_udp_echo_per_s == 750);
	assert_int_equal(x->parent_id, 0);
	assert_null(x->layout_text);
	assert_string_equal(x->layout_hash, "");
	assert_null(x->method);
	assert_null(x->note);
	assert_int_equal(x->image_len, 0);
	assert_int_equal(x->nfuncs, 0);
	assert_int_equal(x->nsets, 0);
	assert_int_equal(history_get(h, 1, keep, &g, &err), 0);
	assert_true(g.run->turnaround_ms == 1.1);
	assert_string_equal(g.run->time, "2026-11-30T00:00:00Z");
	history_run_free(g.run);
	/* a new run goes after the old ones, with the new fields */
	uint16_t sets[4] = {0, 1, 2, 3};
	xb_run r;
	fill_v2(&r, NULL, 0, sets, 4);
	assert_int_equal(history_add(h, &r, &err), 0);
	assert_int_equal(r.id, 3);
	history_close(h);

	/* schema 2 is recorded, and the file is sound */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
					    " (SELECT count(*) FROM runs)",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "2");
	assert_int_equal(sqlite3_column_int(st, 1), 3);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);
	/* opening again does not migrate twice */
	assert_int_equal(history_open(&h, path, &err), 0);
	history_close(h);
	free(path);
}

/* A migration that cannot finish leaves the schema-1 file as it was: one transaction. */
static void test_history_migrate_atomic(void **state)
{
	(void)state;
	char *path = xasprintf("%s/v1-blocked.db", test_dir);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, schema1, NULL, NULL, NULL), SQLITE_OK);
	/* a table named as one schema 2 adds makes the migration fail half-way */
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE run_funcs (x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	xb_history *h;
	xb_err err;
	assert_int_equal(history_open(&h, path, &err), -1);
	assert_non_null(strstr(err.msg, "schema 2"));
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT (SELECT value FROM meta WHERE key = 'schema'),"
					    " (SELECT count(*) FROM pragma_table_info('runs')),"
					    " (SELECT count(*) FROM sqlite_master WHERE name = 'images')",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "1");
	assert_int_equal(sqlite3_column_int(st, 1), 15); /* no column added */
	assert_int_equal(sqlite3_column_int(st, 2), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);
}

static void test_history_open_flags(void **state)
{
	(void)state;
	xb_history *h;
	xb_err err;
	char *missing = xasprintf("%s/missing.db", test_dir);
	assert_int_equal(history_open_flags(&h, missing, 0, &err), -1);
	assert_non_null(strstr(err.msg, "missing.db"));
	assert_non_null(strstr(err.msg, "no such file"));
	FILE *f = fopen(missing, "rb");
	assert_null(f); /* not created */
	free(missing);

	/* a SQLite database of something else is refused and left alone */
	char *other = xasprintf("%s/other.db", test_dir);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(other, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE songs (title TEXT)", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(history_open(&h, other, &err), -1);
	assert_non_null(strstr(err.msg, "not a run history"));
	free(other);

	/* an empty file (as `touch` makes) becomes a history */
	char *empty = xasprintf("%s/empty.db", test_dir);
	f = fopen(empty, "wb");
	fclose(f);
	assert_int_equal(history_open_flags(&h, empty, 0, &err), 0);
	history_close(h);
	free(empty);
}

/* In WAL mode a reader with the short wait reads while another connection is in the middle
 * of a write, and a lock that does hold it off fails it in about the short wait, not the
 * writer's five seconds. */
static void test_history_reader_waits_little(void **state)
{
	(void)state;
	char *path = xasprintf("%s/wal.db", test_dir);
	xb_history *h;
	xb_err err;
	assert_int_equal(history_open(&h, path, &err), 0);
	xb_run r;
	history_run_init(&r);
	assert_int_equal(history_add(h, &r, &err), 0);
	history_close(h);

	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "BEGIN IMMEDIATE; INSERT INTO runs (time, image_hash, variant,"
				      " layout, bench) VALUES ('t', 'x', 's', 'l', 'b')",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	double t0 = now_s();
	assert_int_equal(history_open_flags(&h, path, HISTORY_SHORT_WAIT, &err), 0);
	seen s = {0};
	assert_int_equal(history_list(h, NULL, count_run, &s, &err), 0);
	assert_int_equal(s.n, 1); /* the uncommitted run is not seen */
	assert_true(now_s() - t0 < 1.0);
	history_close(h);
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);

	/* exclusive locking mode keeps every reader out: the short wait gives up quickly */
	assert_int_equal(sqlite3_exec(db,
				      "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;"
				      " UPDATE runs SET note = 'x'",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	t0 = now_s();
	int rc = history_open_flags(&h, path, HISTORY_SHORT_WAIT, &err);
	if (rc == 0) {
		rc = history_list(h, NULL, count_run, &s, &err);
		history_close(h);
	}
	double took = now_s() - t0;
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.msg, "busy"));
	assert_true(took < 2.0);
	sqlite3_close(db);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_sha256_file),
		cmocka_unit_test(test_history_round_trip),
		cmocka_unit_test(test_history_bad_files),
		cmocka_unit_test(test_history_schema2),
		cmocka_unit_test(test_history_migrate),
		cmocka_unit_test(test_history_migrate_atomic),
		cmocka_unit_test(test_history_open_flags),
		cmocka_unit_test(test_history_reader_waits_little),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
