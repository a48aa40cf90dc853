/* fuzz_elf: the ELF loader, the code reader (calls, Thumb stretches, data marks) and the
 * DWARF line tables on arbitrary bytes: no crash, no leak, consistent lookups, sorted
 * tables. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/image.h"
#include "../../core/layout_calls.h"
#include "../../core/srcline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t find_line(const xb_srclines *s, uint32_t a)
{
	const char *file = NULL;
	unsigned line;
	if (srclines_find(s, a, &file, &line) != 0)
		return 0;
	if (!file)
		abort();
	return strlen(file); /* the name is a whole string */
}

/* A table that loads answers lookups (at the functions' addresses and at words of the
 * input) with a file name, without reading past itself. */
static void check_srclines(const uint8_t *data, size_t size, const xb_image *img)
{
	xb_srclines *s;
	xb_err err = {{0}};
	if (srclines_load_mem(&s, data, size, "fuzz.elf", &err) != 0) {
		if (!err.msg[0])
			abort(); /* a failure says why */
		return;
	}
	if (!s)
		return;
	if (srclines_count(s) == 0)
		abort(); /* an empty table is NULL */
	size_t names = 0;
	for (size_t i = 0; img && i < img->nfuncs; i++)
		names += find_line(s, img->funcs[i].addr) + find_line(s, img->funcs[i].addr + 2);
	for (size_t i = 0; i + 4 <= size && i < 4096; i += 4)
		names += find_line(s, (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 |
					      (uint32_t)data[i + 2] << 16 |
					      (uint32_t)data[i + 3] << 24);
	(void)names;
	srclines_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_image img;
	xb_err err;
	xb_code code;
	if (calls_load_elf_mem(&code, data, size, "fuzz.elf", &err) == 0) {
		for (size_t i = 1; i < code.n; i++)
			if (code.v[i - 1].site > code.v[i].site)
				abort(); /* not sorted */
		for (size_t i = 1; i < code.nret; i++)
			if (code.ret[i - 1] > code.ret[i])
				abort();
		calls_free(&code);
	}
	if (image_load_elf_mem(&img, data, size, "fuzz.elf", NULL, &err) != 0) {
		check_srclines(data, size, NULL);
		return 0;
	}
	check_srclines(data, size, &img);
	for (size_t i = 0; i < img.nfuncs; i++) {
		const xb_function *f = &img.funcs[i];
		if (i && img.funcs[i - 1].addr > f->addr)
			abort(); /* not sorted */
		if (f->library < 0 || (size_t)f->library >= img.nlibraries)
			abort();
		if (strcmp(f->base_name, f->name) != 0 &&
		    strncmp(f->name, f->base_name, strlen(f->base_name)) != 0)
			abort();
		const xb_function *g = image_function_at(&img, f->addr);
		if (f->size && !g)
			abort();
		char *q = image_qualified_name(&img, f);
		free(q);
	}
	(void)image_marker(&img, "__xipbench_hot_start");
	image_free(&img);
	return 0;
}
