/* load: what plan, predict and info share: target, image, map, grouping, alignments. */
#include "load.h"

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
