/* test_pico_common.h: helpers the virtual Pico peripheral and program tests share: a pico on
 * the rp2040 target with its reports collected, an idle loop to let virtual time pass,
 * calling code through the CPU, and the test programs of tests/data/pico. Header-only. */
#ifndef XB_TEST_PICO_COMMON_H
#define XB_TEST_PICO_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/pico.h"

/* Reports (unmapped accesses, holes, flash misuse) land here instead of stderr. */
typedef struct tp_log {
	int lines;
	char last[512];
} tp_log;

static inline void tp_log_fn(void *ctx, const char *msg)
{
	tp_log *l = ctx;
	l->lines++;
	snprintf(l->last, sizeof l->last, "%s", msg);
}

static inline void tp_target(xb_target *t)
{
	xb_err err;
	if (target_load_file(t, "targets/rp2040.target", &err)) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
}

/* A fresh pico; log may be NULL (silent). */
static inline xb_pico *tp_pico(tp_log *log, int strict)
{
	xb_target t;
	tp_target(&t);
	xb_pico_options o;
	pico_options_init(&o);
	o.strict = strict;
	if (log) {
		memset(log, 0, sizeof *log);
		o.log_fn = tp_log_fn;
		o.log_ctx = log;
	} else {
		o.quiet = 1;
	}
	xb_err err;
	xb_pico *p = pico_new(&t, &o, &err);
	if (!p) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	return p;
}

#define TP_IDLE_VECTORS 0x20000000u
#define TP_BKPT 0x20000010u

/* Boots the core from a vector table in SRAM into `wfi; b .` (idle = 1: board_run then
 * lets exactly the asked time pass, a sleeping core jumps from event to event) or into a
 * BKPT where the attached debugger halts it (idle = 0: ready for tp_call). */
static inline void tp_boot(xb_pico *p, int idle)
{
	xb_board *b = pico_board(p);
	const uint8_t image[] = {
		0x00, 0x10, 0x04, 0x20, /* SP 0x20041000 */
		0x11, 0x00, 0x00, 0x20, /* reset 0x20000010 | 1 (patched for idle) */
		0x30, 0xBF, 0xFD, 0xE7, /* wfi; b . - 2 */
		0x00, 0xBF, 0x00, 0xBF, /* nop; nop */
		0x00, 0xBE, 0xFE, 0xE7, /* bkpt #0; b . */
	};
	uint8_t copy[sizeof image];
	memcpy(copy, image, sizeof image);
	if (idle)
		copy[4] = 0x09; /* reset 0x20000008 | 1 */
	xb_err err;
	if (board_load(b, TP_IDLE_VECTORS, copy, sizeof copy, &err))
		abort();
	board_set_reset_vtor(b, TP_IDLE_VECTORS);
	pico_reset(p);
	board_run(b, 16); /* into the WFI, or halted at the BKPT */
}

static inline void tp_idle(xb_pico *p)
{
	tp_boot(p, 1);
}

static inline uint32_t tp_read(xb_pico *p, uint32_t addr)
{
	uint32_t v = 0;
	bus_read(board_bus(pico_board(p)), addr, 4, &v);
	return v;
}

static inline void tp_write(xb_pico *p, uint32_t addr, uint32_t v)
{
	bus_write(board_bus(pico_board(p)), addr, 4, v);
}

/* Calls the Thumb function at fn with four arguments through the CPU (the debugger is
 * attached, so the BKPT it returns to halts the core) and returns R0. Needs tp_boot(p, 0). */
static inline uint32_t tp_call(xb_pico *p, uint32_t fn, uint32_t a0, uint32_t a1, uint32_t a2,
			       uint32_t a3)
{
	xb_board *b = pico_board(p);
	if (board_halted(b))
		board_resume(b);
	uint32_t args[4] = {a0, a1, a2, a3};
	for (unsigned i = 0; i < 4; i++)
		board_set_reg(b, i, args[i]);
	board_set_reg(b, XB_REG_LR, TP_BKPT | 1);
	board_set_reg(b, XB_REG_SP, 0x20041000u);
	board_set_reg(b, XB_REG_XPSR, 0x01000000u);
	board_set_reg(b, XB_REG_PC, fn & ~1u);
	enum xb_run_result r = board_run(b, 1000000000u);
	if (r != XB_RUN_HALTED || board_reg(b, XB_REG_PC) != TP_BKPT) {
		fprintf(stderr, "call of 0x%08x ended %s at 0x%08x\n", fn, board_run_result_name(r),
			board_reg(b, XB_REG_PC));
		abort();
	}
	return board_reg(b, 0);
}

/* Builds something into $XB_BUILD/folder (default build/folder) with the shell command cmd
 * (its %s is that folder) the first time it is asked for; path (cap bytes, static in the
 * caller) gets the folder, or the folder and file when file is not NULL. */
static inline const char *tp_built(char *path, size_t cap, const char *folder, const char *cmd,
				   const char *file)
{
	if (path[0])
		return path;
	const char *build = getenv("XB_BUILD");
	char dir[900], line[2048];
	snprintf(dir, sizeof dir, "%s/%s", build && *build ? build : "build", folder);
	snprintf(line, sizeof line, cmd, dir);
	if (system(line) != 0) {
		fprintf(stderr, "building %s failed: %s\n", folder, line);
		abort();
	}
	if (file)
		snprintf(path, cap, "%s/%s", dir, file);
	else
		snprintf(path, cap, "%s", dir);
	return path;
}

/* The demo echo firmware's image: $XB_FIRMWARE_ELF, or built into $XB_BUILD/firmware the
 * first time; NULL without arm-none-eabi-gcc. */
static inline const char *tp_firmware_elf(void)
{
	static char path[1024];
	if (path[0])
		return path;
	const char *env = getenv("XB_FIRMWARE_ELF");
	if (env && *env) {
		snprintf(path, sizeof path, "%s", env);
		return path;
	}
	if (system("command -v arm-none-eabi-gcc >/dev/null 2>&1") != 0)
		return NULL;
	return tp_built(path, sizeof path, "firmware",
			"make -s -C firmware BUILD_DIR='%s' >/dev/null", "echo.elf");
}

/* Folder of the built test programs of tests/data/pico; builds them the first time. */
static inline const char *tp_programs(void)
{
	static char dir[1024];
	return tp_built(dir, sizeof dir, "pico-progs", "sh tests/data/pico/build.sh '%s'", NULL);
}

static inline char *tp_program_path(const char *name, const char *ext)
{
	return xasprintf("%s/%s.%s", tp_programs(), name, ext);
}

/* The test device of tests/data/netdev (a CDC-ECM device answering ARP, pings and UDP
 * echoes); built the first time. */
static inline const char *tp_netdev_elf(void)
{
	static char path[1100];
	return tp_built(path, sizeof path, "netdev-progs", "sh tests/data/netdev/build.sh '%s'",
			"netdev.elf");
}

#ifdef fail_msg /* with cmocka.h before this header */
/* Fails unless the program's output holds line. */
static inline void tp_expect_line(const char *out, const char *line)
{
	if (!out || !strstr(out, line))
		fail_msg("expected \"%s\" in the output:\n%s", line, out ? out : "(none)");
}
#endif

#endif
