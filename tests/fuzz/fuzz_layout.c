/* fuzz_layout: the layout.txt, name-list and grouping-file parsers on arbitrary bytes,
 * against a small image built in memory (with a map, so qualified names resolve): no crash,
 * no leak, entries, pins and names always name real functions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"net_rx", "helper", "helper", "foo.isra.0", "udp_send"};
#define NF (sizeof names / sizeof names[0])

/* One input section per function but the last (no section); the two helpers are static
 * functions of two members of one archive. */
static const char *const sections[] = {".text.net_rx", ".text.helper", ".text.helper",
				       ".text.foo.isra.0"};
static const char *const members[] = {"rx.o", "ip.o", "udp.o", "foo.o"};
#define NI (sizeof sections / sizeof sections[0])

static void small_image(xb_image *img, xb_function *f, xb_library *libs, xb_map_input *in)
{
	memset(img, 0, sizeof *img);
	for (size_t i = 0; i < NF; i++) {
		f[i] = (xb_function){.name = (char *)names[i], .base_name = (char *)names[i],
				     .suffix = "", .addr = 0x10000200 + 64 * (uint32_t)i,
				     .size = 40, .region = XB_REGION_FLASH, .out_section = -1,
				     .input = i < NI ? (int)i : -1, .alias_of = -1,
				     .library = (int)(i % 2), .file = -1,
				     .same_name = i == 1 || i == 2 ? 2 : 1};
	}
	f[3].base_name = "foo";
	for (size_t i = 0; i < NI; i++)
		in[i] = (xb_map_input){.section = (char *)sections[i],
				       .archive = i == 3 ? NULL : "lib/libnet.a",
				       .member = (char *)members[i], .addr = f[i].addr, .size = 40};
	img->has_map = true;
	img->map.inputs = in;
	img->map.ninputs = NI;
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
	xb_map_input in[NI];
	small_image(&img, f, libs, in);
	xb_layout l;
	layout_init(&l);
	xb_err err;
	if (layout_parse(&l, &img, (const char *)data, size, "fuzz.layout", &err) == 0) {
		for (size_t i = 0; i < l.n; i++)
			if (l.e[i].func < 0 || (size_t)l.e[i].func >= NF)
				abort();
		for (size_t i = 0; i < l.npins; i++)
			if (l.pins[i] < 0 || (size_t)l.pins[i] >= NF)
				abort();
	}
	layout_free(&l);

	xb_name_list nl;
	if (layout_names_parse(&nl, &img, (const char *)data, size, "fuzz.names", &err) == 0) {
		for (size_t i = 0; i < nl.n; i++)
			if (nl.func[i] < 0 || (size_t)nl.func[i] >= NF)
				abort();
		for (size_t i = 0; i < nl.nunknown; i++)
			if (!nl.unknown[i] || !*nl.unknown[i])
				abort();
	}
	layout_names_free(&nl);

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
