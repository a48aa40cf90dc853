/* load: what plan, predict and info share: target, image, map, grouping, alignments. */
#include "load.h"

#include "cli.h"

#include <stdlib.h>

int cli_load_target(const char *cmd, const char *name, xb_target *tg)
{
	xb_err err;
	if (target_load(tg, name ? name : "rp2040", &err) != 0) {
		cli_fail(cmd, "%s", err.msg);
		return -1;
	}
	return 0;
}

int cli_load(const char *cmd, const cli_load_opts *o, xb_target *tg, xb_image *img)
{
	xb_err err;
	if (cli_load_target(cmd, o->target, tg) != 0)
		return -1;
	xb_image_open io = {.elf = o->elf, .map = o->map, .groups = o->groups,
			    .need_map = o->need_map};
	if (image_open(img, &io, tg, &err) != 0) {
		cli_fail(cmd, "%s", err.msg);
		return -1;
	}
	return 0;
}

static xb_build_folder build_folder;

static void free_build_folder(void)
{
	buildsys_free(&build_folder);
}

int cli_load_build(const char *cmd, enum xb_build_kind kind, const char *dir, int nbuild,
		   cli_load_opts *o, const xb_build_folder **b)
{
	if (b)
		*b = NULL;
	if (nbuild > 1)
		return cli_usage_error(cmd, "give one build folder (--zephyr or --pico-sdk)");
	if (!dir)
		return XB_EXIT_OK;
	if (o->elf || o->map)
		return cli_usage_error(cmd, "--%s finds the ELF and the map: leave out --elf and --map",
				       buildsys_kind_name(kind));
	xb_err err;
	buildsys_free(&build_folder);
	if (buildsys_find(&build_folder, kind, dir, &err) != 0)
		return cli_fail(cmd, "%s", err.msg);
	static int registered;
	if (!registered++)
		atexit(free_build_folder);
	o->elf = build_folder.elf;
	o->map = build_folder.map;
	if (b)
		*b = &build_folder;
	return XB_EXIT_OK;
}

int cli_load_option(int c, const char *arg, cli_load_opts *lo, cli_build_arg *b)
{
	switch (c) {
	case CLI_O_ELF: lo->elf = arg; return 1;
	case CLI_O_MAP: lo->map = arg; return 1;
	case CLI_O_TARGET: lo->target = arg; return 1;
	case CLI_O_ZEPHYR:
	case CLI_O_PICO:
		b->dir = arg;
		b->kind = c == CLI_O_ZEPHYR ? XB_BUILD_ZEPHYR : XB_BUILD_PICO_SDK;
		b->n++;
		return 1;
	}
	return 0;
}
