/* cmd_info: `xipbench info`: an image's functions by library and group, sizes and regions. */
#include <getopt.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "../core/profile.h"
#include "cli.h"
#include "load.h"

static const char usage[] =
	"usage: xipbench info ELF [--map MAP] [--target NAME] [--groups FILE] [--samples FILE]\n"
	"                     [--json]\n"
	"       xipbench info --zephyr BUILD_DIR | --pico-sdk BUILD_DIR [...]\n"
	"\n"
	"Lists the functions of a firmware image by library and display group: their sizes,\n"
	"memory regions (flash, SRAM) and, with a map, the input sections and archives they\n"
	"come from. Checks that the map belongs to the ELF.\n"
	"\n"
	"  ELF             the linked firmware (32-bit ARM ELF with its symbol table)\n"
	"  --elf ELF       the same, as an option\n"
	"  --zephyr DIR    a Zephyr build folder: its zephyr/zephyr.elf and zephyr_final.map\n"
	"                  (or zephyr.map), board and relink command\n"
	"  --pico-sdk DIR  a pico-sdk build folder: its NAME.elf and NAME.elf.map, board and\n"
	"                  relink command\n"
	"  --map MAP       its GNU ld map (default: ELF.map or the ELF's name with .map, if\n"
	"                  present; without a map, libraries come from source file names)\n"
	"  --target NAME   target name or file (default rp2040)\n"
	"  --groups FILE   grouping file (default: the shipped groups/default.groups;\n"
	"                  format: docs/formats-groups.md)\n"
	"  --samples FILE  PC samples (docs/formats-samples.md): the batch profile's busy\n"
	"                  samples (not sleeping; an idle window subtracted) and their share\n"
	"                  per library and group\n"
	"  --json          print one JSON object (keys in docs/cli.md)\n";

/* Sizes of a set of functions; aliases count once. */
typedef struct info_sum {
	size_t functions;
	uint64_t bytes, flash, sram;
	double net; /* busy samples (idle subtracted), with --samples */
} info_sum;

typedef struct info_group {
	const char *name;
	size_t libraries;
	info_sum sum;
} info_group;

typedef struct info_totals {
	const xb_profile *prof; /* with --samples, else NULL */
	info_sum *libs;       /* per library */
	info_group *groups;   /* in order of first appearance among the libraries */
	size_t ngroups;
	info_sum all;
} info_totals;

static void sum_add(info_sum *s, const xb_function *f)
{
	s->functions++;
	if (f->alias_of >= 0)
		return;
	s->bytes += f->size;
	if (f->region == XB_REGION_FLASH)
		s->flash += f->size;
	else if (f->region == XB_REGION_SRAM)
		s->sram += f->size;
}

static void totals_compute(const xb_image *img, const xb_profile *prof, info_totals *t)
{
	memset(t, 0, sizeof *t);
	t->prof = prof;
	t->libs = xcalloc(img->nlibraries + 1, sizeof *t->libs);
	t->groups = xcalloc(img->nlibraries + 1, sizeof *t->groups);
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		sum_add(&t->libs[f->library], f);
		sum_add(&t->all, f);
	}
	for (size_t l = 0; prof && l < img->nlibraries; l++) {
		t->libs[l].net = prof->lib_net[l];
		t->all.net += prof->lib_net[l];
	}
	for (size_t l = 0; l < img->nlibraries; l++) {
		if (!t->libs[l].functions)
			continue;
		size_t g = 0;
		while (g < t->ngroups && strcmp(t->groups[g].name, img->libraries[l].group) != 0)
			g++;
		if (g == t->ngroups)
			t->groups[t->ngroups++].name = img->libraries[l].group;
		info_group *gr = &t->groups[g];
		gr->libraries++;
		gr->sum.functions += t->libs[l].functions;
		gr->sum.bytes += t->libs[l].bytes;
		gr->sum.flash += t->libs[l].flash;
		gr->sum.sram += t->libs[l].sram;
		gr->sum.net += t->libs[l].net;
	}
}

static void totals_free(info_totals *t)
{
	free(t->libs);
	free(t->groups);
}

static const xb_map_input *input_of(const xb_image *img, const xb_function *f)
{
	if (!img->has_map || f->input < 0 || (size_t)f->input >= img->map.ninputs)
		return NULL;
	return &img->map.inputs[f->input];
}

static const char *region_name(enum xb_region_kind k)
{
	return target_region_kind_name(k);
}

/* With --samples: the busy samples and their share of all attributed ones, then the
 * line's end. */
static void print_share(const info_totals *t, const info_sum *s)
{
	if (t->prof)
		printf(" %9.0f %6.1f %%", s->net, t->all.net > 0 ? 100.0 * s->net / t->all.net : 0.0);
	putchar('\n');
}

/* The build system, from the folder given or the image, and its RAM region. */
static void print_build_text(const xb_image *img, const xb_target *tg, const xb_build_folder *b)
{
	char region[64];
	enum xb_build_kind k = b ? b->kind : buildsys_detect(img);
	printf("build system: %s%s", buildsys_kind_name(k), b ? "" : " (from the image)");
	if (b && b->board)
		printf(", board %s", b->board);
	if (buildsys_ram_region(img, tg, region, sizeof region) == 0)
		printf(", RAM region %s", region);
	putchar('\n');
	if (b)
		printf("relink: %s\n", b->relink);
}

static void print_text(const xb_image *img, const xb_target *tg, const info_totals *t,
		       const xb_build_folder *b)
{
	printf("%s: %zu functions, %llu bytes of code (flash %llu, SRAM %llu)\n", img->path,
	       t->all.functions, (unsigned long long)t->all.bytes,
	       (unsigned long long)t->all.flash, (unsigned long long)t->all.sram);
	if (img->has_map)
		printf("map: %s (%zu input sections, %llu bytes of fill)\n", img->map.path,
		       img->map.ninputs, (unsigned long long)img->map.total_fill);
	else
		printf("map: none (libraries from source file names)\n");
	printf("target: %s\n", tg->name);
	print_build_text(img, tg, b);
	putchar('\n');

	printf("%-18s %-10s %10s %10s\n", "section", "address", "size", "region");
	for (size_t i = 0; i < img->nsections; i++) {
		const xb_section *s = &img->sections[i];
		if (!(s->flags & SHF_ALLOC) || !s->size)
			continue;
		printf("%-18s 0x%08x %10u %10s\n", s->name, s->addr, s->size,
		       region_name(s->region));
	}

	printf("\n%-24s %9s %9s %9s %9s %9s%s\n", "group", "libraries", "functions", "bytes",
	       "flash", "SRAM", t->prof ? "   samples   share" : "");
	for (size_t g = 0; g < t->ngroups; g++) {
		const info_group *gr = &t->groups[g];
		printf("%-24s %9zu %9zu %9llu %9llu %9llu", gr->name, gr->libraries,
		       gr->sum.functions, (unsigned long long)gr->sum.bytes,
		       (unsigned long long)gr->sum.flash, (unsigned long long)gr->sum.sram);
		print_share(t, &gr->sum);
	}

	printf("\n%-24s %-24s %9s %9s %9s %9s%s\n", "library", "group", "functions", "bytes",
	       "flash", "SRAM", t->prof ? "   samples   share" : "");
	for (size_t l = 0; l < img->nlibraries; l++) {
		const info_sum *s = &t->libs[l];
		if (!s->functions)
			continue;
		printf("%-24s %-24s %9zu %9llu %9llu %9llu", img->libraries[l].name,
		       img->libraries[l].group, s->functions, (unsigned long long)s->bytes,
		       (unsigned long long)s->flash, (unsigned long long)s->sram);
		print_share(t, s);
	}
	printf("%-24s %-24s %9zu %9llu %9llu %9llu\n", "total", "", t->all.functions,
	       (unsigned long long)t->all.bytes, (unsigned long long)t->all.flash,
	       (unsigned long long)t->all.sram);

	printf("\n%-10s %6s %-6s %-16s %-36s %s\n", "address", "size", "region", "library",
	       "input section", "function");
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		const xb_map_input *in = input_of(img, f);
		char *q = image_qualified_name(img, f);
		printf("0x%08x %6u %-6s %-16s %-36s %s", f->addr, f->size, region_name(f->region),
		       img->libraries[f->library].name, in ? in->section : "-", q);
		if (f->alias_of >= 0)
			printf(" (alias of %s)", img->funcs[f->alias_of].name);
		putchar('\n');
		free(q);
	}
}

static void json_key(const char *key, int first)
{
	printf("%s", first ? "" : ",");
	xb_json_string(stdout, key);
	putchar(':');
}

static void json_str_or_null(const char *key, const char *s)
{
	json_key(key, 0);
	if (s)
		xb_json_string(stdout, s);
	else
		printf("null");
}

static void json_sum(const info_totals *t, const info_sum *s)
{
	printf(",\"functions\":%zu,\"bytes\":%llu,\"flash_bytes\":%llu,\"sram_bytes\":%llu",
	       s->functions, (unsigned long long)s->bytes, (unsigned long long)s->flash,
	       (unsigned long long)s->sram);
	if (t->prof)
		printf(",\"samples\":%.1f,\"share\":%.3f", s->net,
		       t->all.net > 0 ? 100.0 * s->net / t->all.net : 0.0);
}

static void json_function(const xb_image *img, const xb_function *f)
{
	const xb_map_input *in = input_of(img, f);
	const xb_library *lib = &img->libraries[f->library];
	char *q = image_qualified_name(img, f);
	putchar('{');
	json_key("name", 1);
	xb_json_string(stdout, f->name);
	json_str_or_null("base_name", f->base_name);
	json_str_or_null("suffix", f->suffix);
	json_str_or_null("qualified_name", q);
	printf(",\"addr\":%u,\"size\":%u", f->addr, f->size);
	json_str_or_null("region", region_name(f->region));
	json_str_or_null("library", lib->name);
	json_str_or_null("group", lib->group);
	json_str_or_null("input_section", in ? in->section : NULL);
	json_str_or_null("archive", in ? in->archive : NULL);
	json_str_or_null("member", in ? in->member : NULL);
	json_str_or_null("output_section",
			 f->out_section >= 0 ? img->sections[f->out_section].name : NULL);
	json_str_or_null("alias_of", f->alias_of >= 0 ? img->funcs[f->alias_of].name : NULL);
	printf(",\"local\":%s", f->is_local ? "true" : "false");
	json_str_or_null("file", f->file >= 0 ? img->files[f->file] : NULL);
	printf(",\"same_name\":%d", f->same_name);
	if (in && img->input_align)
		printf(",\"input_align\":%u,\"input_align_known\":%s", img->input_align[f->input],
		       img->input_align_known[f->input] ? "true" : "false");
	else
		printf(",\"input_align\":null,\"input_align_known\":false");
	putchar('}');
	free(q);
}

static void print_build_json(const xb_image *img, const xb_target *tg, const xb_build_folder *b)
{
	char region[64];
	enum xb_build_kind k = b ? b->kind : buildsys_detect(img);
	printf(",\"build\":{\"system\":");
	xb_json_string(stdout, buildsys_kind_name(k));
	json_str_or_null("folder", b ? b->dir : NULL);
	json_str_or_null("board", b ? b->board : NULL);
	json_str_or_null("ram_region",
			 buildsys_ram_region(img, tg, region, sizeof region) == 0 ? region : NULL);
	json_str_or_null("relink", b ? b->relink : NULL);
	putchar('}');
}

static void print_json(const xb_image *img, const xb_target *tg, const info_totals *t,
		       const xb_build_folder *b)
{
	putchar('{');
	json_key("elf", 1);
	xb_json_string(stdout, img->path);
	json_str_or_null("map", img->has_map ? img->map.path : NULL);
	json_str_or_null("target", tg->name);
	printf(",\"entry\":%u", img->entry);
	print_build_json(img, tg, b);
	if (img->has_map)
		printf(",\"map_total_fill\":%llu", (unsigned long long)img->map.total_fill);
	printf(",\"totals\":{\"libraries\":%zu,\"groups\":%zu", img->nlibraries, t->ngroups);
	json_sum(t, &t->all);
	printf("},\"sections\":[");
	for (size_t i = 0; i < img->nsections; i++) {
		const xb_section *s = &img->sections[i];
		printf("%s{\"name\":", i ? "," : "");
		xb_json_string(stdout, s->name);
		printf(",\"addr\":%u,\"size\":%u,\"align\":%u,\"alloc\":%s,\"exec\":%s,"
		       "\"nobits\":%s",
		       s->addr, s->size, s->align, (s->flags & SHF_ALLOC) ? "true" : "false",
		       (s->flags & SHF_EXECINSTR) ? "true" : "false",
		       s->type == SHT_NOBITS ? "true" : "false");
		json_str_or_null("region", region_name(s->region));
		putchar('}');
	}
	printf("],\"functions\":[");
	for (size_t i = 0; i < img->nfuncs; i++) {
		if (i)
			putchar(',');
		putchar('\n');
		json_function(img, &img->funcs[i]);
	}
	printf("],\n\"libraries\":[");
	int first = 1;
	for (size_t l = 0; l < img->nlibraries; l++) {
		if (!t->libs[l].functions)
			continue;
		printf("%s{\"name\":", first ? "" : ",");
		first = 0;
		xb_json_string(stdout, img->libraries[l].name);
		json_str_or_null("group", img->libraries[l].group);
		json_sum(t, &t->libs[l]);
		putchar('}');
	}
	printf("],\n\"groups\":[");
	for (size_t g = 0; g < t->ngroups; g++) {
		printf("%s{\"name\":", g ? "," : "");
		xb_json_string(stdout, t->groups[g].name);
		printf(",\"libraries\":%zu", t->groups[g].libraries);
		json_sum(t, &t->groups[g].sum);
		putchar('}');
	}
	printf("],\n\"markers\":[");
	for (size_t i = 0; i < img->nmarkers; i++) {
		printf("%s{\"name\":", i ? "," : "");
		xb_json_string(stdout, img->markers[i].name);
		printf(",\"addr\":%u}", img->markers[i].addr);
	}
	printf("]}\n");
}

static int run_info(int argc, char **argv)
{
	enum { O_GROUPS = 1, O_SAMPLES, O_JSON };
	static const struct option opts[] = {
		CLI_LOAD_LONGOPTS,
		{"groups", required_argument, 0, O_GROUPS},
		{"samples", required_argument, 0, O_SAMPLES},
		{"json", no_argument, 0, O_JSON},
		{0, 0, 0, 0},
	};
	cli_load_opts lo = {0};
	const char *samples = NULL;
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
		case O_JSON: json = 1; break;
		default:
			return cli_usage_error("info", "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc && !lo.elf)
		lo.elf = argv[optind++];
	if (optind < argc)
		return cli_usage_error("info", "unexpected argument '%s'", argv[optind]);
	const xb_build_folder *build;
	int brc = cli_load_build("info", ba.kind, ba.dir, ba.n, &lo, &build);
	if (brc != XB_EXIT_OK)
		return brc;
	if (!lo.elf)
		return cli_usage_error("info", "no ELF given");

	xb_target tg;
	xb_image img;
	if (cli_load("info", &lo, &tg, &img) != 0)
		return XB_EXIT_FAIL;
	xb_err err;
	if (img.has_map && image_resolve_alignments(&img, &tg, &err) != 0) {
		image_free(&img);
		return cli_fail("info", "%s", err.msg);
	}
	xb_samples smp;
	xb_profile prof;
	samples_init(&smp);
	if (samples && samples_read_file(&smp, samples, &err) != 0) {
		image_free(&img);
		return cli_fail("info", "%s", err.msg);
	}
	if (samples) {
		/* the share of the time the core works: sleeping samples (WFI/WFE) are left out */
		size_t k = 0;
		for (size_t i = 0; i < smp.n; i++)
			if (!(smp.s[i].flags & XB_SAMPLE_SLEEP))
				smp.s[k++] = smp.s[i];
		smp.n = k;
		profile_build(&prof, &img, &smp, tg.cache.line);
	}
	info_totals t;
	totals_compute(&img, samples ? &prof : NULL, &t);
	if (json)
		print_json(&img, &tg, &t, build);
	else
		print_text(&img, &tg, &t, build);
	totals_free(&t);
	if (samples)
		profile_free(&prof);
	samples_free(&smp);
	image_free(&img);
	return XB_EXIT_OK;
}

const xb_command cmd_info = {
	.name = "info",
	.summary = "functions of a firmware image by library and group",
	.usage = usage,
	.run = run_info,
};
