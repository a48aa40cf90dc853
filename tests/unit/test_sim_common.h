/* test_sim_common.h: helpers shared by the virtual Pico tests (tests/unit/test_sim_*.c):
 * the rp2040 target, the test programs of tests/data/sim built with arm-none-eabi-gcc, a log
 * collector. Header-only (static functions): each test is one program. */
#ifndef XB_TEST_SIM_COMMON_H
#define XB_TEST_SIM_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/board.h"

#define SIM_MAILBOX 0x20041000u
#define SIM_MAILBOX_IN 0x20041F00u
#define SIM_DHCSR 0xE000EDF0u

/* Collects log lines (unmapped accesses, faults) instead of printing them. */
typedef struct sim_log {
	int lines;
	char last[512];
	char all[8192];
} sim_log;

static inline void sim_log_fn(void *ctx, const char *msg)
{
	sim_log *l = ctx;
	l->lines++;
	snprintf(l->last, sizeof l->last, "%s", msg);
	size_t n = strlen(l->all);
	if (n + strlen(msg) + 2 < sizeof l->all)
		snprintf(l->all + n, sizeof l->all - n, "%s\n", msg);
}

static inline void sim_target(xb_target *t)
{
	xb_err err;
	if (target_load_file(t, "targets/rp2040.target", &err)) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
}

/* A fresh rp2040 board whose reports go to log (may be NULL: silent). */
static inline xb_board *sim_board(sim_log *log)
{
	xb_target t;
	sim_target(&t);
	xb_err err;
	xb_board *b = board_new(&t, &err);
	if (!b) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	if (log) {
		memset(log, 0, sizeof *log);
		board_set_log(b, sim_log_fn, log);
	} else {
		board_set_log(b, NULL, NULL);
	}
	return b;
}

/* Folder of the built test programs; builds them the first time (tests run from the source
 * tree; XB_BUILD names the build folder). */
static inline const char *sim_programs(void)
{
	static char dir[1024];
	if (dir[0])
		return dir;
	const char *build = getenv("XB_BUILD");
	snprintf(dir, sizeof dir, "%s/sim-progs", build && *build ? build : "build");
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "sh tests/data/sim/build.sh '%s'", dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "building the test programs failed: %s\n", cmd);
		abort();
	}
	return dir;
}

/* Loads NAME.bin into flash, writes the inputs (n words at MAILBOX_IN), resets and turns
 * the debugger on so that the final BKPT halts the core. */
static inline void sim_load(xb_board *b, const char *name, const uint32_t *in, size_t n)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s.bin", sim_programs(), name);
	char *data;
	size_t len;
	xb_err err;
	if (xb_read_file(path, &data, &len, &err) || board_load(b, 0x10000000u, data, len, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	free(data);
	if (n && board_load(b, SIM_MAILBOX_IN, in, n * 4, &err))
		abort();
	board_reset(b);
	board_debug_write(b, SIM_DHCSR, 4, 0xA05F0001u);
}

/* Address of a symbol of program NAME (from NAME.sym), or 0. */
static inline uint32_t sim_symbol(const char *name, const char *sym)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s.sym", sim_programs(), name);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[512];
	uint32_t addr = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long a;
		char type, s[400];
		if (sscanf(line, "%lx %c %399s", &a, &type, s) == 3 && strcmp(s, sym) == 0) {
			addr = (uint32_t)a;
			break;
		}
	}
	fclose(f);
	return addr;
}

static inline uint32_t sim_word(const xb_board *b, uint32_t addr)
{
	uint32_t v = 0;
	xb_err err;
	if (board_peek(b, addr, &v, 4, &err))
		abort();
	return v;
}

static inline uint32_t sim_mailbox(const xb_board *b, unsigned i)
{
	return sim_word(b, SIM_MAILBOX + 4 * i);
}

#endif
