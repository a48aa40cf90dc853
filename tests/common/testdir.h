/* testdir: one scratch folder per test program, made by a cmocka group setup and removed
 * with everything in it by the group teardown. */
#ifndef XB_TEST_TESTDIR_H
#define XB_TEST_TESTDIR_H

/* The folder's path, valid between testdir_setup and testdir_teardown. */
extern char test_dir[64];

/* cmocka group setup and teardown: make /tmp/xb-test.XXXXXX, remove it recursively. */
int testdir_setup(void **state);
int testdir_teardown(void **state);

#endif
