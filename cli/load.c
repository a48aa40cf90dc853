/* load: what plan, predict and info share: target, image, map, grouping, alignments. */
#include "load.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_load_target(const char *cmd, const char *name, xb_target *tg)
{
	xb_err err;
	if (target_load(tg, name ? name : "rp2040", &err) != 0) {
		cli_fail(cmd, "%s", err.msg);
		return -1;
	}
	return 0;
}

static char *find_map(const char *elf)
{
	char *p = xasprintf("%s.map", elf);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	size_t n = strlen(elf);
	if (n > 4 && strcmp(elf + n - 4, ".elf") == 0) {
		p = xasprintf("%.*s.map", (int)(n - 4), elf);
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

int cli_load(const char *cmd, const cli_load_opts *o, xb_target *tg, xb_image *img)
{
	xb_err err;
	if (cli_load_target(cmd, o->target, tg) != 0)
		return -1;
	if (image_load_elf(img, o->elf, tg, &err) != 0) {
		cli_fail(cmd, "%s", err.msg);
		return -1;
	}
	char *map = o->map ? xstrdup(o->map) : find_map(o->elf);
	if (!map && o->need_map) {
		image_free(img);
		cli_fail(cmd, "%s: no map file found next to it; give one with --map", o->elf);
		return -1;
	}
	if (map && image_attach_map(img, map, &err) != 0) {
		free(map);
		image_free(img);
		cli_fail(cmd, "%s", err.msg);
		return -1;
	}
	free(map);
	char *groups = o->groups ? xstrdup(o->groups) : xb_data_path("groups/default.groups");
	if (groups && image_load_groups(img, groups, &err) != 0) {
		free(groups);
		image_free(img);
		cli_fail(cmd, "%s", err.msg);
		return -1;
	}
	free(groups);
	if (img->has_map && o->need_map && image_resolve_alignments(img, tg, &err) != 0) {
		image_free(img);
		cli_fail(cmd, "%s", err.msg);
		return -1;
	}
	return 0;
}
