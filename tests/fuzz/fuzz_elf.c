/* fuzz_elf: the ELF loader on arbitrary bytes: no crash, no leak, consistent lookups. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_image img;
	xb_err err;
	if (image_load_elf_mem(&img, data, size, "fuzz.elf", NULL, &err) != 0)
		return 0;
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
