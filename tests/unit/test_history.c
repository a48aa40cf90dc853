/* test_history: SHA-256 against the FIPS 180-4 examples, and the SQLite run history. */
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

#include "../common/testdir.h"
#include "../../core/history.h"
#include "../../core/sha256.h"

static void hex(const uint8_t d[32], char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void digest_of(const char *msg, size_t n, char out[65])
{
	xb_sha256 s;
	uint8_t d[32];
	sha256_init(&s);
	sha256_update(&s, msg, n);
	sha256_final(&s, d);
	hex(d, out);
}

static void test_sha256_vectors(void **state)
{
	(void)state;
	char h[65];
	digest_of("abc", 3, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	digest_of("", 0, h);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	digest_of(two, strlen(two), h);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_sha256_file),
		cmocka_unit_test(test_history_round_trip),
		cmocka_unit_test(test_history_bad_files),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
