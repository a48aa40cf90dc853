/* cmd_predict: `xipbench predict`: a layout's misses per echo from a trace, without relinking. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../core/plan.h"
#include "cli.h"
#include "load.h"
#include "report.h"

static const char usage[] =
	"usage: xipbench predict --elf ELF [--map MAP] --layout DIR --trace FILE\n"
	"                        [--samples FILE] [--target NAME] [--json]\n"
	"\n"
	"Computes where GNU ld will put every function under the layout in DIR (its layout.txt),\n"
	"moves the trace's fetches there and replays it through the target's cache: misses per\n"
	"echo beside the stock layout's, the OPT bound for a fully associative cache of the same\n"
	"lines, and the 3C classification (compulsory, capacity, conflict).\n";

static int run_predict(int argc, char **argv)
{
	enum { O_LAYOUT = 1, O_TRACE, O_SAMPLES, O_JSON };
	static const struct option opts[] = {
		CLI_LOAD_LONGOPTS,
		{"layout", required_argument, 0, O_LAYOUT},
		{"trace", required_argument, 0, O_TRACE},
		{"samples", required_argument, 0, O_SAMPLES},
		{"json", no_argument, 0, O_JSON},
		{0, 0, 0, 0},
	};
	cli_load_opts lo = {.need_map = 1};
	const char *layout_dir = NULL, *trace = NULL, *samples = NULL;
	int json = 0, c;
	cli_build_arg ba = {NULL, XB_BUILD_OTHER, 0};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cli_load_option(c, optarg, &lo, &ba))
			continue;
		switch (c) {
		case O_LAYOUT: layout_dir = optarg; break;
		case O_TRACE: trace = optarg; break;
		case O_SAMPLES: samples = optarg; break;
		case O_JSON: json = 1; break;
		default: return cli_usage_error("predict", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("predict", "unexpected argument '%s'", argv[optind]);
	int brc = cli_load_build("predict", ba.kind, ba.dir, ba.n, &lo, NULL);
	if (brc != XB_EXIT_OK)
		return brc;
	if (!lo.elf || !layout_dir || !trace)
		return cli_usage_error("predict", "--elf, --layout and --trace are required");

	xb_target tg;
	xb_image img;
	if (cli_load("predict", &lo, &tg, &img) != 0)
		return XB_EXIT_FAIL;
	xb_plan_input in = {.img = &img, .tg = &tg};
	xb_plan_inputs ci;
	xb_err err;
	if (plan_inputs_load(&ci, samples, trace, &in, &err) != 0) {
		cli_fail("predict", "%s", err.msg);
		image_free(&img);
		return XB_EXIT_FAIL;
	}
	int rc = XB_EXIT_FAIL;
	xb_layout l;
	layout_init(&l);
	char *lpath = xasprintf("%s/layout.txt", layout_dir);
	cli_report r = {.elf = lo.elf, .map = img.map.path, .trace = trace, .samples = samples,
			.layout_dir = layout_dir};
	if (layout_read_file(&l, &img, lpath, &err) != 0 ||
	    cli_report_predict(&r, &in, &l, &err) != 0) {
		cli_fail("predict", "%s", err.msg);
		goto done;
	}
	r.strategy = l.strategy;
	cli_report_print(&r, json, stdout);
	rc = XB_EXIT_OK;
done:
	cli_report_free(&r);
	free(lpath);
	layout_free(&l);
	plan_inputs_free(&ci);
	image_free(&img);
	return rc;
}

const xb_command cmd_predict = {
	.name = "predict",
	.summary = "predict a layout's misses per echo from a trace (OPT bound, 3C)",
	.usage = usage,
	.run = run_predict,
};
