/* cmd_workbench: `xipbench workbench` and `xipbench` alone: the interactive workbench
 * (tui/app.h) on the virtual Pico running the demo firmware (built the first time, into
 * the user's cache folder) or on another image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../tui/app.h"
#include "../tui/options.h"
#include "cli.h"
#include "experiment.h"

static double seconds_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Builds the demo echo firmware if it is not built (make decides what is out of date);
 * returns its ELF's path, or NULL after saying why. */
static char *demo_firmware(void)
{
	xb_err err;
	char *fw = builder_firmware_dir(&err);
	if (!fw) {
		cli_fail("workbench", "%s; give an image with --elf FILE", err.msg);
		return NULL;
	}
	char *dir = xb_cache_path("firmware"); /* the demo firmware's build folder */
	char *log = xasprintf("%s/build.log", dir);
	char *elf = xasprintf("%s/default/echo.elf", dir);
	struct stat st;
	int fresh = stat(elf, &st) != 0;
	free(elf);
	if (fresh)
		fprintf(stderr, "xipbench: building the demo firmware into %s (once; the log is %s)\n",
			dir, log);
	double t0 = seconds_now();
	if (exp_build_firmware(fw, dir, log, &elf, &err) != 0)
		cli_fail("workbench", "%s", err.msg);
	else if (fresh)
		fprintf(stderr, "xipbench: the demo firmware is built (%.1f s)\n", seconds_now() - t0);
	free(log);
	free(dir);
	free(fw);
	return elf;
}

static void print_usage(FILE *f)
{
	fputs("usage: xipbench workbench [--elf FILE [--map FILE]] [--bench virtual|probe[:SERIAL]]\n"
	      "                          [options]\n"
	      "       xipbench   (in a terminal: the same, on the demo firmware)\n"
	      "\n"
	      "The interactive workbench: live PC-sample heat per library, function and line,\n"
	      "the cache sets of the current layout, echo rates and turnaround, on a live bench:\n"
	      "the virtual Pico (the default: it runs the demo echo firmware, built the first\n"
	      "time, or --elf FILE) or a real board behind a CMSIS-DAP probe. Pings and UDP\n"
	      "echoes run at a default rate after an idle window, so the heat is alive within\n"
	      "seconds. Every key is also a ':' command; settings come from the command line,\n"
	      "then $XDG_CONFIG_HOME/xipbench/config (NAME = VALUE lines). docs/workbench.md\n"
	      "describes every panel; `man xipbench` too.\n"
	      "\n"
	      "options:\n",
	      f);
	options_print_help(f);
	fputs("\nkeys and commands:\n", f);
	actions_print(f);
	fputs("\nexit status: 0 done, 1 the bench, the image or a key script's wait failed, 2 usage\n"
	      "error (an unknown option, a key script that does not parse)\n",
	      f);
}

/* Runs the workbench (or the demo) on --elf's image or on the demo firmware. */
static int run_app(int argc, char **argv, int (*app)(const char *, int, char **))
{
	const char *elf = NULL;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--elf") == 0 || strncmp(argv[i], "--elf=", 6) == 0 ||
		    strcmp(argv[i], "--zephyr") == 0 || strncmp(argv[i], "--zephyr=", 9) == 0 ||
		    strcmp(argv[i], "--pico-sdk") == 0 || strncmp(argv[i], "--pico-sdk=", 11) == 0 ||
		    strcmp(argv[i], "--list") == 0 || strncmp(argv[i], "--list=", 7) == 0)
			elf = "given"; /* no demo firmware needed */
	char *demo = NULL;
	if (!elf && !(demo = demo_firmware()))
		return XB_EXIT_FAIL;
	int rc = app(demo, argc, argv);
	free(demo);
	return rc;
}

/* (cli_main answers --help before a command runs) */
static int run_workbench(int argc, char **argv)
{
	return run_app(argc, argv, app_main);
}

static void print_demo_usage(FILE *f)
{
	fputs("usage: xipbench demo [--keys FILE] [workbench options]\n"
	      "\n"
	      "The layout study played on the workbench for an audience: the virtual Pico runs\n"
	      "the demo echo firmware while a key script (the shipped demos/study.keys, or\n"
	      "--keys FILE) goes through the study step by step, each step measured live and\n"
	      "explained by a caption whose figures are the measured ones: the stock image and\n"
	      "its overfull cache sets, one echo's footprint against the cache's lines, the\n"
	      "hot block, colouring, colouring with 4 and 8 KB of SRAM, the same 8 KB with the\n"
	      "rest of the sampled code through the non-allocating flash alias, 16 KB of SRAM,\n"
	      "the cache switched off, and the study's tables in the compare panel at the end.\n"
	      "Space pauses the\n"
	      "script, n plays its next step while paused, :speed changes the pace (the waits\n"
	      "are in the bench's time); every workbench key and command works meanwhile.\n"
	      "Options are the workbench's (xipbench workbench --help); with --headless the demo\n"
	      "runs to its end without a terminal (--dump FILE keeps the last screen).\n",
	      f);
}

static int run_demo(int argc, char **argv)
{
	return run_app(argc, argv, app_demo);
}

const xb_command cmd_demo = {
	.name = "demo",
	.summary = "the layout study played on the workbench with captions, for an audience",
	.usage = "usage: xipbench demo [--keys FILE] [workbench options]\n",
	.run = run_demo,
	.help = print_demo_usage,
};

const xb_command cmd_workbench = {
	.name = "workbench",
	.summary = "the interactive workbench on a live bench (the default with no command)",
	.usage = "usage: xipbench workbench [--elf FILE] [--bench virtual|probe[:SERIAL]] [options]\n"
		 "(`xipbench workbench --help` lists every option, key and command)\n",
	.run = run_workbench,
	.help = print_usage,
};
