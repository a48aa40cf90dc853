/* fuzz_layout: the layout.txt and grouping-file parsers on arbitrary bytes, against a small
 * image built in memory: no crash, no leak, entries always name real functions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"net_rx", "helper", "helper", "foo.isra.0", "udp_send"};
#define NF (sizeof names / sizeof names[0])

static void small_image(xb_image *img, xb_function *f, xb_library *libs)
{
	memset(img, 0, sizeof *img);
	for (size_t i = 0; i < NF; i++) {
		f[i] = (xb_function){.name = (char *)names[i], .base_name = (char *)names[i],
				     .suffix = "", .addr = 0x10000200 + 64 * (uint32_t)i,
				     .size = 40, .region = XB_REGION_FLASH, .out_section = -1,
				     .input = -1, .alias_of = -1, .library = (int)(i % 2),
				     .file = -1, .same_name = i == 1 || i == 2 ? 2 : 1};
	}
	libs[0] = (xb_library){.name = "subsys/net/ip", .group = NULL};
	libs[1] = (xb_library){.name = "kernel", .group = NULL};
	img->funcs = f;
	img->nfuncs = NF;
	img->libraries = libs;
	img->nlibraries = 2;
	img->path = "fuzz.elf";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_image img;
	xb_function f[NF];
	xb_library libs[2];
	small_image(&img, f, libs);
	xb_layout l;
	layout_init(&l);
	xb_err err;
	if (layout_parse(&l, &img, (const char *)data, size, "fuzz.layout", &err) == 0)
		for (size_t i = 0; i < l.n; i++)
			if (l.e[i].func < 0 || (size_t)l.e[i].func >= NF)
				abort();
	layout_free(&l);

	/* the grouping file reader takes a path */
	char path[] = "/tmp/xb-fuzz-groups-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		if (image_load_groups(&img, path, &err) == 0)
			for (size_t i = 0; i < img.nlibraries; i++)
				if (!img.libraries[i].group)
					abort();
	}
	close(fd);
	unlink(path);
	for (size_t i = 0; i < img.nlibraries; i++)
		free(img.libraries[i].group);
	return 0;
}
