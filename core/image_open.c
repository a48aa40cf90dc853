/* image_open: an image with everything that goes with it: the ELF, its map (given, or found
 * next to it), the display groups and, when asked, the input sections' alignments. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image.h"

char *image_find_map(const char *elf)
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

int image_open(xb_image *img, const xb_image_open *o, const xb_target *tg, xb_err *err)
{
	if (image_load_elf(img, o->elf, tg, err) != 0)
		return -1;
	char *map = o->map ? xstrdup(o->map) : image_find_map(o->elf);
	if (!map && o->need_map) {
		image_free(img);
		return xb_fail(err, "%s: no map file found next to it; give one with --map", o->elf);
	}
	if (map && image_attach_map(img, map, err) != 0) {
		free(map);
		image_free(img);
		return -1;
	}
	free(map);
	char *groups = o->groups ? xstrdup(o->groups) : xb_data_path("groups/default.groups");
	int rc = groups ? image_load_groups(img, groups, err) : 0;
	free(groups);
	if (rc == 0 && img->has_map && o->need_map)
		rc = image_resolve_alignments(img, tg, err);
	if (rc != 0)
		image_free(img);
	return rc;
}
