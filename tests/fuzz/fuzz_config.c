/* fuzz_config: the workbench's config file parser (tui/options.c) on arbitrary bytes: no
 * crash, no leak; errors name the file and line; after a failure the options still hold
 * valid values (checked by setting each again from its own text). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tui/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_options o;
	options_init(&o);
	xb_err err;
	if (options_parse_config(&o, "fuzz.conf", (const char *)data, size, &err) != 0 &&
	    strncmp(err.msg, "fuzz.conf:", 10) != 0)
		abort();
	/* whatever was taken is a value its option accepts */
	xb_options check;
	options_init(&check);
	for (size_t i = 0; i < o.n; i++) {
		const xb_option_def *d = &workbench_options[i];
		if (!o.v[i].text)
			continue;
		if (o.v[i].from == 1 && !(d->where & XB_OPTF_CONFIG))
			abort();
		if (options_set(&check, d->name, o.v[i].text, 0, &err) != 0)
			abort();
		if (check.v[i].num != o.v[i].num)
			abort();
	}
	options_free(&check);
	options_free(&o);
	return 0;
}
