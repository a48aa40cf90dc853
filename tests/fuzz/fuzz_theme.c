/* fuzz_theme: the theme file parser (panels/theme.h) on arbitrary bytes, with base themes
 * found by a lookup that knows a small theme, one that names itself (a loop) and one
 * that is broken: no crash, no leak; on failure the theme is unchanged and the message
 * names a file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../panels/theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *lookup(void *ctx, const char *name, size_t *len, char *path, size_t cap)
{
	(void)ctx;
	static const char small[] = "# small\nnormal = 252/white/white default\n"
				    "title = 81 default bold\nselected = 16 110 reverse mono bold\n";
	static const char loop[] = "base = loop\nnormal = red default\n";
	static const char broken[] = "normal = purpel default\n";
	const char *text = strcmp(name, "small") == 0    ? small
			   : strcmp(name, "loop") == 0   ? loop
			   : strcmp(name, "broken") == 0 ? broken
							 : NULL;
	if (!text)
		return NULL;
	snprintf(path, cap, "themes/%s.theme", name);
	*len = strlen(text);
	char *copy = malloc(*len + 1);
	if (!copy)
		abort();
	memcpy(copy, text, *len + 1);
	return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_theme t, before;
	theme_mono(&t);
	before = t;
	xb_err err;
	if (theme_parse(&t, "fuzz.theme", (const char *)data, size, lookup, NULL, &err) == 0) {
		for (int el = 0; el < XB_EL_COUNT; el++) {
			const xb_style *s = &t.el[el];
			if (s->fg.c256 < -1 || s->fg.c256 > 255 || s->fg.c16 < -1 || s->fg.c16 > 15 ||
			    s->fg.c8 < -1 || s->fg.c8 > 7 || s->bg.c256 < -1 || s->bg.c256 > 255 ||
			    s->bg.c16 < -1 || s->bg.c16 > 15 || s->bg.c8 < -1 || s->bg.c8 > 7)
				abort();
			char d[128];
			theme_describe(s, 256, d, sizeof d);
			theme_describe(s, 0, d, sizeof d);
		}
	} else {
		if (memcmp(&t, &before, sizeof t) != 0)
			abort();
		if (!strstr(err.msg, ".theme"))
			abort();
	}
	/* the same text without a lookup: base themes cannot be found, nothing else changes */
	theme_parse(&t, "fuzz.theme", (const char *)data, size, NULL, NULL, &err);
	return 0;
}
