/* fuzz_map: the GNU ld map parser on arbitrary bytes: no crash, no leak, sane answers. */
#include <stdint.h>
#include <stdlib.h>

#include "../../core/mapfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_map m;
	xb_err err;
	if (mapfile_parse(&m, (const char *)data, size, "fuzz.map", &err) != 0)
		return 0;
	for (size_t i = 0; i < m.ninputs; i++) {
		const xb_map_input *in = &m.inputs[i];
		char *lib = mapfile_library_name(in->archive, in->member);
		free(lib);
		long at = mapfile_input_at(&m, in->addr);
		if (at >= 0 && (in->addr < m.inputs[at].addr ||
				in->addr - m.inputs[at].addr >= m.inputs[at].size))
			abort(); /* an answer must contain the address */
		(void)mapfile_input_at(&m, in->addr + in->size);
	}
	for (size_t i = 0; i < m.nsymbols; i++)
		if (m.symbols[i].input < 0 || (size_t)m.symbols[i].input >= m.ninputs)
			abort();
	mapfile_free(&m);
	return 0;
}
