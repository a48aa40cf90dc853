/* cmd_triage: `xipbench triage`: why is this build slow? The rules of core/triage on an
 * image, its samples, its build configuration and (given) XIP_CTRL. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../core/trace.h"
#include "../core/triage.h"
#include "cli.h"
#include "load.h"

static const char usage[] =
	"usage: xipbench triage ELF [--map MAP] [--samples FILE] [--trace FILE]\n"
	"                       [--config FILE] [--xip-ctrl VALUE] [--target NAME]\n"
	"                       [--groups FILE] [--json]\n"
	"       xipbench triage --zephyr BUILD_DIR | --pico-sdk BUILD_DIR [...]\n"
	"\n"
	"Why is this build slow? Rules look at the image, its PC samples, its build\n"
	"configuration and the cache's control register, and each finding says how severe\n"
	"it is, the evidence it rests on (numbers, registers, functions, flags) and a fix:\n"
	"the flash cache off or bypassed, hot lines that evict each other, byte-at-a-time\n"
	"copy and checksum loops, the optimisation level, debug features on the hot path,\n"
	"and how the traffic window is spent; with a trace, one echo's footprint against\n"
	"the cache and code reused in the non-allocating alias. docs/triage.md describes\n"
	"every rule.\n"
	"\n"
	"  ELF              the linked firmware (--elf ELF, the same)\n"
	"  --zephyr DIR     a Zephyr build folder: its image, map and .config\n"
	"  --pico-sdk DIR   a pico-sdk build folder: its image, map and CMakeCache.txt\n"
	"  --map MAP        its GNU ld map (default: next to the ELF, if present)\n"
	"  --samples FILE   PC samples taken during traffic (docs/formats-samples.md), as\n"
	"                   the workbench, `probe sample` and `experiment` record them\n"
	"  --trace FILE     a fetch trace with echo boundaries (docs/formats-target-trace.md),\n"
	"                   as `xipbench experiment` (profiles/ping.trace) records it\n"
	"  --config FILE    the build's configuration: a Zephyr .config or a CMakeCache.txt\n"
	"  --xip-ctrl VALUE XIP_CTRL as read from the board (e.g. with `xipbench probe`)\n"
	"  --target NAME    target name or file (default rp2040)\n"
	"  --groups FILE    grouping file (default: the shipped groups/default.groups)\n"
	"  --json           print one JSON object (keys in docs/cli.md)\n"
	"\n"
	"Exit status: 0 the triage ran (whatever it found); 1 an input could not be used;\n"
	"2 usage error.\n";

static void print_text(const xb_triage_in *in, const xb_triage *t, const char *samples)
{
	printf("triage of %s%s%s\n", in->img->path, in->img->has_map ? " with its map" : "",
	       samples ? "" : " (no samples: the rules that need them were not checked)");
	if (samples)
		printf("samples   %s: %.0f busy and awake in the traffic window\n", samples,
		       t->busy_samples);
	if (!t->n)
		printf("\nnothing found\n");
	for (size_t i = 0; i < t->n; i++) {
		const xb_finding *f = &t->f[i];
		printf("\n%-8s %s: %s\n", triage_severity_name(f->severity), f->rule, f->summary);
		for (size_t k = 0; k < f->nevidence; k++)
			printf("  evidence  %s\n", f->evidence[k]);
		if (f->gain)
			printf("  gain      %s\n", f->gain);
		if (f->fix)
			printf("  fix       %s\n", f->fix);
		if (f->action)
			printf("  try it    %s (in the workbench)\n", f->action);
	}
	if (t->nskipped)
		printf("\n");
	for (size_t i = 0; i < t->nskipped; i++)
		printf("not checked  %s: %s\n", t->skipped[i].rule, t->skipped[i].why);
}

static void json_or_null(const char *key, const char *v)
{
	printf(", \"%s\": ", key);
	if (v)
		xb_json_string(stdout, v);
	else
		printf("null");
}

static void print_json(const xb_triage_in *in, const xb_triage *t, const char *samples,
		       const char *trace)
{
	printf("{\"elf\": ");
	xb_json_string(stdout, in->img->path);
	json_or_null("map", in->img->has_map ? in->img->map.path : NULL);
	json_or_null("samples", samples);
	json_or_null("trace", trace);
	json_or_null("config", in->config_name);
	printf(", \"target\": ");
	xb_json_string(stdout, in->tg->name);
	printf(", \"busy_samples\": %.0f, \"findings\": [", t->busy_samples);
	for (size_t i = 0; i < t->n; i++) {
		const xb_finding *f = &t->f[i];
		printf("%s{\"rule\": ", i ? ", " : "");
		xb_json_string(stdout, f->rule);
		printf(", \"severity\": \"%s\", \"summary\": ", triage_severity_name(f->severity));
		xb_json_string(stdout, f->summary);
		printf(", \"evidence\": [");
		for (size_t k = 0; k < f->nevidence; k++) {
			printf("%s", k ? ", " : "");
			xb_json_string(stdout, f->evidence[k]);
		}
		printf("]");
		json_or_null("gain", f->gain);
		json_or_null("fix", f->fix);
		json_or_null("action", f->action);
		printf("}");
	}
	printf("], \"not_checked\": [");
	for (size_t i = 0; i < t->nskipped; i++) {
		printf("%s{\"rule\": ", i ? ", " : "");
		xb_json_string(stdout, t->skipped[i].rule);
		printf(", \"why\": ");
		xb_json_string(stdout, t->skipped[i].why);
		printf("}");
	}
	printf("]}\n");
}

static int run_triage(int argc, char **argv)
{
	enum { O_GROUPS = 1, O_SAMPLES, O_TRACE, O_CONFIG, O_XIP, O_JSON };
	static const struct option opts[] = {
		CLI_LOAD_LONGOPTS,
		{"groups", required_argument, 0, O_GROUPS},
		{"samples", required_argument, 0, O_SAMPLES},
		{"trace", required_argument, 0, O_TRACE},
		{"config", required_argument, 0, O_CONFIG},
		{"xip-ctrl", required_argument, 0, O_XIP},
		{"json", no_argument, 0, O_JSON},
		{0, 0, 0, 0},
	};
	cli_load_opts lo = {0};
	const char *samples = NULL, *trace = NULL, *config = NULL, *xip = NULL;
	int json = 0, c;
	cli_build_arg ba = {NULL, XB_BUILD_OTHER, 0};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cli_load_option(c, optarg, &lo, &ba))
			continue;
		switch (c) {
		case O_GROUPS: lo.groups = optarg; break;
		case O_SAMPLES: samples = optarg; break;
		case O_TRACE: trace = optarg; break;
		case O_CONFIG: config = optarg; break;
		case O_XIP: xip = optarg; break;
		case O_JSON: json = 1; break;
		default:
			return cli_usage_error("triage", "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc && !lo.elf)
		lo.elf = argv[optind++];
	if (optind < argc)
		return cli_usage_error("triage", "unexpected argument '%s'", argv[optind]);
	xb_triage_in in = {0};
	if (xip) {
		char *end;
		unsigned long v = strtoul(xip, &end, 0);
		if (!*xip || *end || v > 0xFFFFFFFFul)
			return cli_usage_error("triage", "--xip-ctrl needs a 32-bit value (got '%s')",
					       xip);
		in.have_xip_ctrl = 1;
		in.xip_ctrl = (uint32_t)v;
	}
	const xb_build_folder *build;
	int brc = cli_load_build("triage", ba.kind, ba.dir, ba.n, &lo, &build);
	if (brc != XB_EXIT_OK)
		return brc;
	if (!lo.elf)
		return cli_usage_error("triage", "no ELF given");
	char *cfg_path = NULL;
	if (!config && build) /* the folder's own configuration */
		cfg_path = xasprintf(build->kind == XB_BUILD_ZEPHYR ? "%s/zephyr/.config"
								    : "%s/CMakeCache.txt",
				     build->dir);

	xb_target tg;
	xb_image img;
	if (cli_load("triage", &lo, &tg, &img) != 0) {
		free(cfg_path);
		return XB_EXIT_FAIL;
	}
	xb_err err;
	char *elf = NULL, *cfg = NULL;
	size_t elf_len = 0, cfg_len = 0;
	xb_samples smp;
	samples_init(&smp);
	xb_trace tr;
	trace_init(&tr);
	int rc = XB_EXIT_OK;
	if (xb_read_file(lo.elf, &elf, &elf_len, &err) != 0 ||
	    (samples && samples_read_file(&smp, samples, &err) != 0) ||
	    (trace && trace_read_file(&tr, trace, &err) != 0)) {
		rc = cli_fail("triage", "%s", err.msg);
		goto out;
	}
	if (config || cfg_path) {
		const char *p = config ? config : cfg_path;
		if (xb_read_file(p, &cfg, &cfg_len, &err) != 0) {
			if (config) {
				rc = cli_fail("triage", "%s", err.msg);
				goto out;
			}
		} else {
			in.config = cfg;
			in.config_len = cfg_len;
			in.config_name = p;
		}
	}
	in.img = &img;
	in.tg = &tg;
	in.samples = samples ? &smp : NULL;
	in.trace = trace ? &tr : NULL;
	in.elf = (const uint8_t *)elf;
	in.elf_len = elf_len;
	xb_triage t;
	if (triage_run(&in, &t, &err) != 0) {
		rc = cli_fail("triage", "%s", err.msg);
		goto out;
	}
	if (json)
		print_json(&in, &t, samples, trace);
	else
		print_text(&in, &t, samples);
	triage_free(&t);
	if (fflush(stdout) != 0)
		rc = cli_fail("triage", "cannot write the output");
out:
	samples_free(&smp);
	trace_free(&tr);
	free(elf);
	free(cfg);
	free(cfg_path);
	image_free(&img);
	return rc;
}

const xb_command cmd_triage = {
	.name = "triage",
	.summary = "why is this build slow: findings with evidence and fixes",
	.usage = usage,
	.run = run_triage,
};
