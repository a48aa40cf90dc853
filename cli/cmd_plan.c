/* cmd_plan: `xipbench plan`: plan a layout from samples or a trace and write its snippets. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../core/plan.h"
#include "../core/snippet.h"
#include "cli.h"
#include "load.h"
#include "report.h"
#include "sim_net.h"

static const char usage[] =
	"usage: xipbench plan --elf ELF [--map MAP] [--samples FILE] [--trace FILE]\n"
	"                     --strategy hot|colour|sram|names|noalloc [--sram-budget BYTES]\n"
	"                     [--sram-libraries LIB,...] [--pad-budget BYTES]\n"
	"                     [--search-moves N] [--search-seconds S] [--seed N]\n"
	"                     [--target NAME] --out DIR [--json]\n"
	"\n"
	"Plans a layout of the image's functions and writes it to DIR: layout.txt, addresses.txt\n"
	"(every function's predicted address), the GNU ld fragments (xipbench_hot.ld, xipbench_ramfunc.ld,\n"
	"xipbench_noalloc.ld), the Zephyr files and names.txt.\n"
	"Prints the predicted misses per echo beside the stock layout's and the OPT bound\n"
	"(trace replay when --trace is given, else a conflict model from the samples).\n"
	"\n"
	"  --elf ELF            the stock build's ELF (linked with empty xipbench fragments)\n"
	"  --map MAP            its GNU ld map (default: ELF.map or the ELF's name with .map)\n"
	"  --samples FILE       PC samples (binary or text, see docs/formats-samples.md)\n"
	"  --trace FILE         fetch trace with echo boundaries (docs/formats-target-trace.md)\n"
	"  --strategy S         hot: sampled functions in one block, hottest first\n"
	"                       colour: each hot function padded to a start set\n"
	"                       sram: densest functions to SRAM within --sram-budget, rest coloured\n"
	"                       names: only the SRAM name list, no colouring\n"
	"                       noalloc: densest functions to SRAM within --sram-budget, the other\n"
	"                       sampled ones through the flash alias that never fills the cache\n"
	"  --sram-budget BYTES  SRAM for functions and their veneers (default 12288)\n"
	"  --sram-libraries L   sram/names: every function of the libraries L (comma-separated\n"
	"                       names as `info` lists them, e.g. net,usb) to SRAM instead of the\n"
	"                       densest ones; the budget does not apply\n"
	"  --pad-budget BYTES   colouring padding (default 32768)\n"
	"  --target NAME        target name or file (default rp2040)\n"
	"  --search-moves N     colour/sram with --trace: improve the colouring by a local\n"
	"                       search of N candidates, each judged by exact trace replay\n"
	"                       (default 0: the greedy colouring alone)\n"
	"  --search-seconds S   stop the search after S seconds (default 30)\n"
	"  --seed N             the search's random seed (default 1): the same seed and\n"
	"                       moves give the same layout\n"
	"  --out DIR            where to write the layout (created)\n"
	"  --json               print the result as JSON (keys in docs/cli.md)\n";

static int run_plan(int argc, char **argv)
{
	enum { O_SAMPLES = 1, O_TRACE, O_STRATEGY, O_SRAM, O_LIBS, O_PAD,
	       O_OUT, O_JSON, O_MOVES, O_SECONDS, O_SEED };
	static const struct option opts[] = {
		CLI_LOAD_LONGOPTS,
		{"samples", required_argument, 0, O_SAMPLES},
		{"trace", required_argument, 0, O_TRACE},
		{"strategy", required_argument, 0, O_STRATEGY},
		{"sram-budget", required_argument, 0, O_SRAM},
		{"sram-libraries", required_argument, 0, O_LIBS},
		{"pad-budget", required_argument, 0, O_PAD},
		{"out", required_argument, 0, O_OUT},
		{"search-moves", required_argument, 0, O_MOVES},
		{"search-seconds", required_argument, 0, O_SECONDS},
		{"seed", required_argument, 0, O_SEED},
		{"json", no_argument, 0, O_JSON},
		{0, 0, 0, 0},
	};
	cli_load_opts lo = {.need_map = 1};
	const char *samples = NULL, *trace = NULL, *strategy = NULL, *out = NULL, *libs = NULL;
	uint64_t sram_budget = 12288, pad_budget = 32768, moves = 0, seed = 1;
	double seconds = 30;
	int json = 0, c;
	cli_build_arg ba = {NULL, XB_BUILD_OTHER, 0};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cli_load_option(c, optarg, &lo, &ba))
			continue;
		switch (c) {
		case O_SAMPLES: samples = optarg; break;
		case O_TRACE: trace = optarg; break;
		case O_STRATEGY: strategy = optarg; break;
		case O_SRAM:
			if (xb_parse_u64(optarg, &sram_budget) != 0 || sram_budget > UINT32_MAX)
				return cli_usage_error("plan", "bad --sram-budget '%s'", optarg);
			break;
		case O_LIBS:
			if (!*optarg || strchr(",", optarg[0]) || optarg[strlen(optarg) - 1] == ',' ||
			    strstr(optarg, ",,"))
				return cli_usage_error("plan", "bad --sram-libraries '%s' (names separated "
						       "by commas)", optarg);
			libs = optarg;
			break;
		case O_PAD:
			if (xb_parse_u64(optarg, &pad_budget) != 0 || pad_budget > UINT32_MAX)
				return cli_usage_error("plan", "bad --pad-budget '%s'", optarg);
			break;
		case O_OUT: out = optarg; break;
		case O_MOVES:
			if (xb_parse_u64(optarg, &moves) != 0 || moves > UINT32_MAX)
				return cli_usage_error("plan", "bad --search-moves '%s'", optarg);
			break;
		case O_SECONDS:
			if (sim_parse_positive(optarg, 86400, &seconds) != 0)
				return cli_usage_error("plan", "bad --search-seconds '%s'", optarg);
			break;
		case O_SEED:
			if (xb_parse_u64(optarg, &seed) != 0)
				return cli_usage_error("plan", "bad --seed '%s'", optarg);
			break;
		case O_JSON: json = 1; break;
		default: return cli_usage_error("plan", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("plan", "unexpected argument '%s'", argv[optind]);
	int brc = cli_load_build("plan", ba.kind, ba.dir, ba.n, &lo, NULL);
	if (brc != XB_EXIT_OK)
		return brc;
	if (!lo.elf || !strategy || !out)
		return cli_usage_error("plan", "--elf, --strategy and --out are required");
	const xb_planner *pl = plan_find(strategy);
	if (!pl)
		return cli_usage_error("plan", "unknown strategy '%s' (hot, colour, sram, names, noalloc)",
				       strategy);
	if (!samples && !trace)
		return cli_usage_error("plan", "give PC samples (--samples) or a trace (--trace)");
	if (libs && pl != &plan_sram && pl != &plan_names && pl != &plan_noalloc)
		return cli_usage_error("plan", "--sram-libraries goes with --strategy sram or names");

	xb_target tg;
	xb_image img;
	if (cli_load("plan", &lo, &tg, &img) != 0)
		return XB_EXIT_FAIL;
	xb_plan_input in = {.img = &img, .tg = &tg, .sram_budget = (uint32_t)sram_budget,
			    .pad_budget = (uint32_t)pad_budget, .sram_libraries = libs,
			    .search_moves = (uint32_t)moves, .search_seconds = moves ? seconds : 0,
			    .search_seed = seed};
	xb_plan_search_stats ss = {0};
	in.search_stats = &ss;
	xb_plan_inputs ci;
	xb_err err;
	if (plan_inputs_load(&ci, samples, trace, &in, &err) != 0) {
		cli_fail("plan", "%s", err.msg);
		image_free(&img);
		return XB_EXIT_FAIL;
	}
	int rc = XB_EXIT_FAIL;
	xb_layout l;
	layout_init(&l);
	cli_report r = {.strategy = pl->name, .elf = lo.elf, .map = img.map.path, .trace = trace,
			.samples = samples, .layout_dir = out};
	if (pl->plan(&in, &l, &err) != 0 || cli_report_predict(&r, &in, &l, &err) != 0) {
		cli_fail("plan", "%s", err.msg);
		goto done;
	}
	if (plan_write_layout_dir(&in, &l, out, &err) != 0) {
		cli_fail("plan", "%s", err.msg);
		goto done;
	}
	cli_report_print(&r, json, stdout);
	if (!json && ss.moves)
		printf("  search: %u candidates (%u taken, %u of them SRAM trades of %u counted anew; %u "
		       "SRAM exchanges; %u restarts) in %.1f s%s: %.1f -> %.1f misses per echo on the "
		       "planning trace\n",
		       ss.moves, ss.accepted, ss.trades, ss.trade_checks, ss.exchanges, ss.restarts,
		       ss.seconds,
		       ss.timed_out ? " (stopped by --search-seconds: another machine may stop "
				      "elsewhere)" : "",
		       ss.start_misses, ss.end_misses);
	if (!json)
		printf("  wrote %s/: layout.txt, addresses.txt and the linker fragments\n", out);
	rc = XB_EXIT_OK;
done:
	cli_report_free(&r);
	layout_free(&l);
	plan_inputs_free(&ci);
	image_free(&img);
	return rc;
}

const xb_command cmd_plan = {
	.name = "plan",
	.summary = "plan a layout (hot block, colouring, SRAM, name list) and write its snippets",
	.usage = usage,
	.run = run_plan,
};
