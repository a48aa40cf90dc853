/* cmd_verify: `xipbench verify`: is a relinked image what the plan said (core/verify.h)? */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../core/verify.h"
#include "cli.h"
#include "load.h"

static const char usage[] =
	"usage: xipbench verify --elf STOCK [--map MAP] --layout DIR --built NEW.elf\n"
	"                       [--built-map MAP] [--target NAME] [--json]\n"
	"\n"
	"Checks a relinked image against its plan before it is flashed: every function of the\n"
	"stock image must be where `xipbench predict` computes it for the layout in DIR (its\n"
	"layout.txt): the hot block in its order, coloured functions at their planned offset\n"
	"in the cache way, SRAM functions in SRAM, every other function where the layout\n"
	"moved it; GNU ld's long-branch veneers where predicted; no function missing and none\n"
	"new. Functions are matched by name (same-named static functions by object, file and\n"
	"size; LTO clones renumbered by base name and size). Veneers that GNU ld placed\n"
	"otherwise than the placement's model (its own order within a stub section, one veneer\n"
	"per alias called) are listed as notes: they move no function and fail nothing.\n"
	"\n"
	"options:\n"
	"  --elf STOCK      the stock image the layout was planned on\n"
	"  --map MAP        its map (default: STOCK.map, or STOCK without .elf plus .map)\n"
	"  --layout DIR     the layout folder (xipbench plan --out)\n"
	"  --built NEW.elf  the relinked image\n"
	"  --built-map MAP  its map (default: found the same way, if there; it tells\n"
	"                   same-named static functions apart by object)\n"
	"  --target NAME    target name or path (default rp2040)\n"
	"  --json           print one JSON object instead of the text\n"
	"  -h, --help       print this text\n"
	"\n"
	"exit status: 0 the image is what the plan said, 1 it is not (every problem is listed:\n"
	"function, role, expected and found address) or an input cannot be used, 2 usage error\n";

/* The role names of the JSON output: lower case, as in layout.txt. */
static const char *json_role(int role)
{
	return role == XB_VERIFY_SRAM ? "sram" : verify_role_name(role);
}

static void json_field(FILE *f, const char *key, const char *value)
{
	fprintf(f, "  \"%s\": ", key);
	if (value)
		xb_json_string(f, value);
	else
		fputs("null", f);
	fputs(",\n", f);
}

static void print_list(FILE *f, const char *key, const xb_verify_problem *v, size_t n, int last)
{
	fprintf(f, "  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		const xb_verify_problem *pr = &v[i];
		xb_strbuf text = {0};
		verify_problem_text(pr, &text);
		fputs(i ? ",\n    {\"function\": " : "\n    {\"function\": ", f);
		xb_json_string(f, pr->name);
		fprintf(f, ", \"role\": \"%s\", \"kind\": \"%s\", ", json_role(pr->role),
			verify_kind_name(pr->kind));
		if (pr->kind == XB_VERIFY_UNEXPECTED)
			fputs("\"expected\": null, ", f);
		else
			fprintf(f, "\"expected\": %u, ", pr->expected);
		if (pr->kind == XB_VERIFY_ABSENT)
			fputs("\"found\": null, ", f);
		else
			fprintf(f, "\"found\": %u, ", pr->found);
		fputs("\"text\": ", f);
		xb_json_string(f, text.buf);
		fputs("}", f);
		sb_free(&text);
	}
	fputs(n ? "\n  ]" : "]", f);
	fputs(last ? "\n" : ",\n", f);
}

static void print_json(FILE *f, const xb_verify_result *r, const char *summary, const char *stock,
		       const char *built, const char *layout_dir, const char *strategy)
{
	fprintf(f, "{\n  \"verified\": %s,\n", verify_ok(r) ? "true" : "false");
	json_field(f, "stock", stock);
	json_field(f, "built", built);
	json_field(f, "layout", layout_dir);
	json_field(f, "strategy", strategy);
	fprintf(f, "  \"functions\": %zu,\n  \"placed\": %zu,\n  \"hot\": %zu,\n"
		   "  \"coloured\": %zu,\n  \"sram\": %zu,\n  \"noalloc\": %zu,\n"
		   "  \"veneers_placed\": %zu,\n"
		   "  \"veneers_built\": %zu,\n  \"veneers_predicted\": %zu,\n",
		r->functions, r->placed, r->hot, r->coloured, r->sram, r->noalloc, r->veneers,
		r->veneers_built,
		r->veneers_predicted);
	json_field(f, "summary", summary);
	print_list(f, "problems", r->problems, r->nproblems, 0);
	print_list(f, "veneer_notes", r->notes, r->nnotes, 1);
	fputs("}\n", f);
}

static int run_verify(int argc, char **argv)
{
	enum { O_LAYOUT = 1, O_BUILT, O_BUILT_MAP, O_JSON };
	static const struct option opts[] = {
		CLI_LOAD_LONGOPTS,
		{"layout", required_argument, 0, O_LAYOUT},
		{"built", required_argument, 0, O_BUILT},
		{"built-map", required_argument, 0, O_BUILT_MAP},
		{"json", no_argument, 0, O_JSON},
		{0, 0, 0, 0},
	};
	cli_load_opts lo = {.need_map = 1};
	const char *layout_dir = NULL, *built = NULL, *built_map = NULL;
	int json = 0, c;
	cli_build_arg ba = {NULL, XB_BUILD_OTHER, 0};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cli_load_option(c, optarg, &lo, &ba))
			continue;
		switch (c) {
		case O_LAYOUT: layout_dir = optarg; break;
		case O_BUILT: built = optarg; break;
		case O_BUILT_MAP: built_map = optarg; break;
		case O_JSON: json = 1; break;
		default:
			return cli_usage_error("verify", "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("verify", "unexpected argument '%s'", argv[optind]);
	int brc = cli_load_build("verify", ba.kind, ba.dir, ba.n, &lo, NULL);
	if (brc != XB_EXIT_OK)
		return brc;
	if (!lo.elf || !layout_dir || !built)
		return cli_usage_error("verify", "--elf, --layout and --built are required");

	xb_target tg;
	xb_image img;
	if (cli_load("verify", &lo, &tg, &img) != 0)
		return XB_EXIT_FAIL;
	int rc = XB_EXIT_FAIL;
	xb_err err;
	xb_layout l;
	xb_calls calls;
	xb_verify_result vr;
	int have_vr = 0;
	layout_init(&l);
	calls_init(&calls);
	char *lpath = xasprintf("%s/layout.txt", layout_dir);
	xb_image_open bo = {.elf = built, .map = built_map};
	xb_plan_input in = {.img = &img, .tg = &tg, .calls = &calls};
	if (layout_read_file(&l, &img, lpath, &err) != 0 ||
	    calls_load_elf(&calls, img.path, &err) != 0 ||
	    verify_relink(&in, &l, &bo, &vr, &err) != 0) {
		cli_fail("verify", "%s", err.msg);
		goto done;
	}
	have_vr = 1;
	xb_strbuf summary = {0};
	verify_summary(&vr, &summary);
	if (json) {
		print_json(stdout, &vr, summary.buf, lo.elf, built, layout_dir, l.strategy);
	} else {
		printf("%s: %s\n", built, summary.buf);
		for (size_t i = 0; i < vr.nproblems + vr.nnotes; i++) {
			int note = i >= vr.nproblems;
			if (i == vr.nproblems)
				printf("differences the plan allows (veneers; the copy code "
				       "relocation adds to the start-up path):\n");
			xb_strbuf t = {0};
			verify_problem_text(note ? &vr.notes[i - vr.nproblems] : &vr.problems[i], &t);
			printf("  %s\n", t.buf);
			sb_free(&t);
		}
	}
	sb_free(&summary);
	rc = verify_ok(&vr) ? XB_EXIT_OK : XB_EXIT_FAIL;
done:
	if (have_vr)
		verify_free(&vr);
	free(lpath);
	calls_free(&calls);
	layout_free(&l);
	image_free(&img);
	return rc;
}

const xb_command cmd_verify = {
	.name = "verify",
	.summary = "check that a relinked image is what the plan said, before flashing it",
	.usage = usage,
	.run = run_verify,
};
