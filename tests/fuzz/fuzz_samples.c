/* fuzz_samples: sample files of any bytes must parse or fail cleanly, never crash or leak; a
 * file that parses must survive aggregation against a small image. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../core/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static xb_function funcs[] = {
		{.name = "a", .addr = 0x10000100, .size = 0x40, .alias_of = -1, .library = 0},
		{.name = "a2", .addr = 0x10000100, .size = 0x40, .alias_of = 0, .library = 0},
		{.name = "b", .addr = 0x10000140, .size = 0, .alias_of = -1, .library = 1},
		{.name = "c", .addr = 0x10000144, .size = 0x1000, .alias_of = -1, .library = 1},
	};
	static xb_library libs[] = {{.name = "x", .group = "x"}, {.name = "y", .group = "y"}};
	xb_image img;
	memset(&img, 0, sizeof img);
	img.funcs = funcs;
	img.nfuncs = sizeof funcs / sizeof funcs[0];
	img.libraries = libs;
	img.nlibraries = 2;

	xb_samples s;
	samples_init(&s);
	xb_err err;
	if (samples_parse(&s, data, size, "fuzz", &err) == 0) {
		xb_profile p;
		profile_build(&p, &img, &s, 8);
		profile_line_net(&p, 0x10000100);
		profile_free(&p);
	}
	samples_free(&s);
	return 0;
}
