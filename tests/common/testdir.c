/* testdir: one scratch folder per test program. */
#define _XOPEN_SOURCE 700
#include "testdir.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char test_dir[64];

int testdir_setup(void **state)
{
	(void)state;
	snprintf(test_dir, sizeof test_dir, "/tmp/xb-test.XXXXXX");
	return mkdtemp(test_dir) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int testdir_teardown(void **state)
{
	(void)state;
	return nftw(test_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}
