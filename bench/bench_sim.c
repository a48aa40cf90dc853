/* bench_sim: emulated instructions per second of the virtual Pico with the cache model on,
 * for a pure-compute program (tests/data/sim/crc32.c built with arm-none-eabi-gcc), and the
 * same program under Unicorn with a block hook feeding the same cache model. Best of five
 * runs each, in CPU time. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unicorn/unicorn.h>

#include "../sim/board.h"

#define FLASH 0x10000000u
#define MAILBOX 0x20041000u
#define MAILBOX_IN 0x20041F00u
#define ROUNDS 60u

/* CPU time of this process: other jobs on the machine do not count against a run. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t symbol(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[512], s[400], type;
	unsigned long a;
	uint32_t addr = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%lx %c %399s", &a, &type, s) == 3 && strcmp(s, name) == 0)
			addr = (uint32_t)a;
	fclose(f);
	return addr;
}

typedef struct result {
	double seconds;
	uint64_t instructions, accesses, hits;
	uint32_t crc;
} result;

static int run_board(const xb_target *t, const char *image, size_t len, result *out,
		     xb_err *err)
{
	xb_board *b = board_new(t, err);
	if (!b)
		return -1;
	uint32_t rounds = ROUNDS;
	if (board_load(b, FLASH, image, len, err) || board_load(b, MAILBOX_IN, &rounds, 4, err)) {
		board_free(b);
		return -1;
	}
	board_reset(b);
	board_debug_write(b, 0xE000EDF0u, 4, 0xA05F0001u);
	double t0 = now();
	enum xb_run_result r = board_run(b, 100000000000ull);
	out->seconds = now() - t0;
	xb_board_counters k;
	board_counters(b, &k);
	out->instructions = k.instructions;
	out->accesses = k.xip_accesses;
	out->hits = k.xip_hits;
	board_peek(b, MAILBOX, &out->crc, 4, err);
	board_free(b);
	if (r != XB_RUN_HALTED)
		return xb_fail(err, "the program did not finish (%s)", board_run_result_name(r));
	return 0;
}

/* Unicorn: every translated block that runs feeds its 32-bit code words to the cache. */
static void uc_block(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
	(void)uc;
	xb_cache *c = user;
	uint32_t a = (uint32_t)address & ~3u, end = (uint32_t)address + size;
	if (a - FLASH >= (2u << 20))
		return;
	for (; a < end; a += 4)
		cache_fetch(c, a - FLASH);
}

static int run_unicorn(const xb_target *t, const char *image, size_t len, uint32_t stop,
		       result *out, xb_err *err)
{
	uc_engine *uc;
	if (uc_open(UC_ARCH_ARM, UC_MODE_THUMB | UC_MODE_MCLASS, &uc) != UC_ERR_OK)
		return xb_fail(err, "unicorn: cannot open an ARM M-class engine");
	uc_ctl_set_cpu_model(uc, UC_CPU_ARM_CORTEX_M0);
	xb_cache *cache = cache_new(&t->cache, t->flash_size, err);
	if (!cache) {
		uc_close(uc);
		return -1;
	}
	uc_mem_map(uc, FLASH, t->flash_size, UC_PROT_READ | UC_PROT_EXEC);
	uc_mem_map(uc, 0x20000000u, 0x42000u, UC_PROT_ALL);
	uc_mem_write(uc, FLASH, image, len);
	uint32_t rounds = ROUNDS, sp, pc;
	uc_mem_write(uc, MAILBOX_IN, &rounds, 4);
	memcpy(&sp, image + 0x100, 4);
	memcpy(&pc, image + 0x104, 4);
	uc_reg_write(uc, UC_ARM_REG_SP, &sp);
	uc_hook h;
	uc_hook_add(uc, &h, UC_HOOK_BLOCK, (void *)uc_block, cache, 1, 0);
	double t0 = now();
	uc_err e = uc_emu_start(uc, pc | 1, stop, 0, 0);
	out->seconds = now() - t0;
	out->accesses = cache_total_accesses(cache);
	out->hits = cache_total_hits(cache);
	uc_mem_read(uc, MAILBOX, &out->crc, 4);
	cache_free(cache);
	uc_close(uc);
	if (e != UC_ERR_OK)
		return xb_fail(err, "unicorn: %s", uc_strerror(e));
	return 0;
}

int main(int argc, char **argv)
{
	(void)argc;
	/* The build folder is the one holding bench/ (build/bench/bench_sim). */
	char self[1024], build[1024];
	snprintf(self, sizeof self, "%s", argv[0]);
	snprintf(build, sizeof build, "%s", dirname(dirname(self)));
	char cmd[2200], bin[1100], sym[1100];
	snprintf(cmd, sizeof cmd, "sh tests/data/sim/build.sh '%s/sim-progs'", build);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench_sim: building the test programs failed (%s)\n", cmd);
		return 1;
	}
	snprintf(bin, sizeof bin, "%s/sim-progs/crc32.bin", build);
	snprintf(sym, sizeof sym, "%s/sim-progs/crc32.sym", build);
	xb_target t;
	xb_err err;
	char *image;
	size_t len;
	if (target_load_file(&t, "targets/rp2040.target", &err) ||
	    xb_read_file(bin, &image, &len, &err)) {
		fprintf(stderr, "bench_sim: %s\n", err.msg);
		return 1;
	}
	result ours = {0}, best = {0}, uni = {0}, ubest = {0};
	best.seconds = ubest.seconds = 1e9;
	for (int rep = 0; rep < 5; rep++) {
		if (run_board(&t, image, len, &ours, &err)) {
			fprintf(stderr, "bench_sim: %s\n", err.msg);
			return 1;
		}
		if (ours.seconds < best.seconds)
			best = ours;
	}
	double rate = (double)best.instructions / best.seconds / 1e6;
	printf("emulator, pure compute: %.0f M instructions/s (target >= 100 M/s)\n", rate);
	printf("  %llu instructions, %llu XIP accesses, %llu hits, CRC %08x\n",
	       (unsigned long long)best.instructions, (unsigned long long)best.accesses,
	       (unsigned long long)best.hits, best.crc);
	uint32_t stop = symbol(sym, "program_end");
	for (int rep = 0; rep < 5; rep++) {
		if (run_unicorn(&t, image, len, stop, &uni, &err)) {
			fprintf(stderr, "bench_sim: %s\n", err.msg);
			return 1;
		}
		if (uni.seconds < ubest.seconds)
			ubest = uni;
	}
	double urate = (double)best.instructions / ubest.seconds / 1e6;
	printf("unicorn, same program, block hook into the cache model: %.0f M instructions/s "
	       "(CRC %08x%s)\n",
	       urate, ubest.crc, ubest.crc == best.crc ? ", same" : ", DIFFERENT");
	printf("  ours / unicorn = %.2f\n", rate / urate);
	free(image);
	return ubest.crc == best.crc ? 0 : 1;
}
