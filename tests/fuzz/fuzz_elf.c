/* fuzz_elf: the ELF loader and the code reader (calls, Thumb stretches, data marks) on
 * arbitrary bytes: no crash, no leak, consistent lookups, sorted tables. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/image.h"
#include "../../core/layout_calls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
