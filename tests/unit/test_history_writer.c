/* test_history_writer: the run history's writer thread (results in order, through its
 * descriptor; deep copies; a bad path; close flushes; a reader alongside) and a writer
 * killed with SIGKILL in the middle of its adds (nothing committed is lost, the file is
 * sound). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/testdir.h"
#include "../../core/history.h"

/* Waits (bounded) for the writer's descriptor and takes what is there. */
static size_t wait_results(xb_history_writer *w, xb_history_result *out, size_t max)
{
	struct pollfd p = {.fd = history_writer_fd(w), .events = POLLIN};
	if (poll(&p, 1, 120000) != 1) /* a bound: a loaded machine can take long to sync */
		return 0;
	return history_writer_results(w, out, max);
}

typedef struct listed {
	int n;
	int64_t last_id;
	double sum_misses;
	int notes_ok;
} listed;

static int list_run(void *ctx, const xb_run *r)
{
	listed *l = ctx;
	l->n++;
	l->last_id = r->id;
	l->sum_misses += r->misses_per_echo;
	char want[64];
	snprintf(want, sizeof want, "run %lld", (long long)(r->misses_per_echo - 1000));
	l->notes_ok += r->note && strcmp(r->note, want) == 0;
	return 0;
}

static void make_run(xb_run *r, int i, char *note, size_t cap, xb_run_func *f, uint16_t *sets,
		     uint8_t *image)
{
	history_run_init(r);
	snprintf(note, cap, "run %d", i);
	r->note = note;
	r->layout = "colour";
	r->misses_per_echo = 1000 + i;
	f->name = "tcp_input";
	f->library = "net";
	f->samples = i;
	f->bytes = 100;
	r->funcs = f;
	r->nfuncs = 1;
	for (int k = 0; k < 16; k++)
		sets[k] = (uint16_t)(k + i);
	r->set_hot = sets;
	r->nsets = 16;
	memset(image, i % 4, 4096); /* four distinct images */
	r->image_data = image;
	r->image_len = 4096;
}

static void test_writer_many(void **state)
{
	(void)state;
	char *path = xasprintf("%s/writer.db", test_dir);
	xb_err err;
	xb_history_writer *w = history_writer_open(path, &err);
	assert_non_null(w);
	enum { N = 150 };
	char note[32];
	xb_run_func f;
	uint16_t sets[16];
	static uint8_t image[4096];
	for (int i = 0; i < N; i++) {
		xb_run r;
		make_run(&r, i, note, sizeof note, &f, sets, image);
		assert_int_equal(history_writer_add(w, &r, 5000 + (uint64_t)i, &err), 0);
		/* the writer copied it: what the caller does with its buffers now is its own */
		memset(note, 'x', sizeof note - 1);
		note[sizeof note - 1] = 0;
		memset(sets, 0xff, sizeof sets);
		memset(image, 0xee, sizeof image);
	}
	assert_true(history_writer_pending(w) > 0);
	/* the results, in the order of the adds, with growing ids; a reader with the short
	 * wait sees each run by the time its result is out */
	xb_history_result res[16];
	int next = 0;
	int64_t last_id = 0;
	while (next < N) {
		size_t k = wait_results(w, res, 16);
		assert_true(k > 0);
		for (size_t i = 0; i < k; i++, next++) {
			assert_int_equal(res[i].token, 5000 + (uint64_t)next);
			assert_string_equal(res[i].error, "");
			assert_true(res[i].id > last_id);
			last_id = res[i].id;
		}
		xb_history *h;
		assert_int_equal(history_open_flags(&h, path, HISTORY_SHORT_WAIT, &err), 0);
		int64_t latest;
		assert_int_equal(history_latest_id(h, &latest, &err), 0);
		assert_true(latest >= last_id);
		history_close(h);
	}
	assert_int_equal(history_writer_pending(w), 0);
	assert_int_equal(history_writer_results(w, res, 16), 0);
	history_writer_close(w);

	xb_history *h;
	assert_int_equal(history_open_flags(&h, path, HISTORY_SHORT_WAIT, &err), 0);
	listed l = {0};
	assert_int_equal(history_list(h, NULL, list_run, &l, &err), 0);
	assert_int_equal(l.n, N);
	assert_int_equal(l.last_id, last_id);
	assert_int_equal(l.notes_ok, N);
	assert_true(l.sum_misses == N * 1000.0 + N * (N - 1) / 2.0);
	history_close(h);

	/* four images kept once each, none of the caller's later bytes */
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT count(*), sum(instr(data, x'ee')) FROM images",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 4);
	assert_int_equal(sqlite3_column_int(st, 1), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);
}

static void test_writer_bad_path(void **state)
{
	(void)state;
	xb_err err;
	xb_history_writer *w = history_writer_open("/nonexistent-dir/runs.db", &err);
	assert_non_null(w); /* the thread finds out, not the caller */
	xb_run r;
	history_run_init(&r);
	assert_int_equal(history_writer_add(w, &r, 7, &err), 0);
	assert_int_equal(history_writer_add(w, &r, 8, &err), 0);
	xb_history_result res[4];
	size_t got = 0;
	while (got < 2) {
		size_t k = wait_results(w, res + got, 4 - got);
		assert_true(k > 0);
		got += k;
	}
	assert_int_equal(res[0].token, 7);
	assert_int_equal(res[1].token, 8);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(res[i].id, 0);
		assert_non_null(strstr(res[i].error, "/nonexistent-dir/runs.db"));
	}
	history_writer_close(w);
}

static void test_writer_close_flushes(void **state)
{
	(void)state;
	char *path = xasprintf("%s/flush.db", test_dir);
	xb_err err;
	xb_history_writer *w = history_writer_open(path, &err);
	assert_non_null(w);
	for (int i = 0; i < 40; i++) {
		xb_run r;
		history_run_init(&r);
		r.misses_per_echo = i;
		assert_int_equal(history_writer_add(w, &r, (uint64_t)i, &err), 0);
	}
	history_writer_close(w); /* results never taken */
	xb_history *h;
	assert_int_equal(history_open(&h, path, &err), 0);
	int64_t latest;
	assert_int_equal(history_latest_id(h, &latest, &err), 0);
	assert_int_equal(latest, 40);
	history_close(h);
	history_writer_close(NULL);
	free(path);
}

/* ---- A writer killed at some moment ---- */

/* The child adds runs in a loop (each with an image and a profile, so that a kill can land
 * inside a transaction of several tables) and writes the id of every add that returned to
 * the pipe, until it is killed. */
static void crash_child(const char *path, int fd)
{
	xb_history *h;
	xb_err err;
	if (history_open(&h, path, &err) != 0)
		_exit(2);
	static uint8_t image[64 * 1024];
	xb_run_func funcs[50];
	for (int k = 0; k < 50; k++)
		funcs[k] = (xb_run_func){"func", "lib", "group", k, 10};
	uint16_t sets[1024] = {0};
	for (int i = 0;; i++) {
		xb_run r;
		history_run_init(&r);
		memset(image, i & 0xff, sizeof image); /* a new image for 256 runs */
		r.image_data = image;
		r.image_len = sizeof image;
		r.funcs = funcs;
		r.nfuncs = 50;
		r.set_hot = sets;
		r.nsets = 1024;
		r.misses_per_echo = i;
		if (history_add(h, &r, &err) != 0)
			_exit(3);
		if (write(fd, &r.id, sizeof r.id) != sizeof r.id)
			_exit(4);
	}
}

typedef struct check_ctx {
	size_t found, profiles_ok;
} check_ctx;

static int check_fetched(void *ctx, const xb_run *r)
{
	check_ctx *c = ctx;
	c->found++;
	c->profiles_ok += r->nfuncs == 50 && r->nsets == 1024 && r->image_len == 64 * 1024;
	return 0;
}

static void test_writer_killed(void **state)
{
	(void)state;
	char *path = xasprintf("%s/killed.db", test_dir);
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		crash_child(path, p[1]);
		_exit(0);
	}
	close(p[1]);
	/* wait for 30 committed adds (bounded), then kill at whatever the child is doing */
	static int64_t ids[100000];
	size_t n = 0;
	struct pollfd pf = {.fd = p[0], .events = POLLIN};
	while (n < 30 && poll(&pf, 1, 20000) == 1) {
		if (read(p[0], &ids[n], sizeof ids[n]) != sizeof ids[n])
			break;
		n++;
	}
	assert_int_equal(kill(pid, SIGKILL), 0);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* every id the child reported before it died: its adds had returned */
	while (n < sizeof ids / sizeof ids[0] && read(p[0], &ids[n], sizeof ids[n]) == sizeof ids[n])
		n++;
	close(p[0]);
	assert_true(n >= 30);

	xb_history *h;
	xb_err err;
	assert_int_equal(history_open(&h, path, &err), 0);
	check_ctx c = {0};
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(history_get(h, ids[i], check_fetched, &c, &err), 0);
	}
	assert_int_equal(c.found, n);
	assert_int_equal(c.profiles_ok, n);
	/* an add the kill cut short left nothing: every run has its whole profile */
	int64_t latest;
	assert_int_equal(history_latest_id(h, &latest, &err), 0);
	assert_true(latest == ids[n - 1] || latest == ids[n - 1] + 1);
	c.profiles_ok = 0;
	assert_int_equal(history_get(h, latest, check_fetched, &c, &err), 0);
	assert_int_equal(c.profiles_ok, 1);
	history_close(h);

	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT count(*) FROM runs WHERE (SELECT count(*) FROM"
					    " run_funcs WHERE run_id = runs.id) != 50",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_many),
		cmocka_unit_test(test_writer_bad_path),
		cmocka_unit_test(test_writer_close_flushes),
		cmocka_unit_test(test_writer_killed),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
