/* fuzz_sim_elf: the virtual Pico's ELF loader (program segments into flash and SRAM) on
 * arbitrary bytes: no crash, no leak; refusals name the file; an accepted image set a
 * reset vector table that lies in memory. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/loader.h"
#include "fuzz_board.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_board *b = fuzz_board();
	xb_load_info info;
	xb_err err;
	if (loader_load_elf(b, data, size, "fuzz.elf", &info, &err) != 0) {
		if (strncmp(err.msg, "fuzz.elf: ", 10) != 0 && strncmp(err.msg, "libelf", 6) != 0)
			abort();
		return 0;
	}
	if (info.format != XB_IMAGE_ELF || info.lo >= info.hi || info.pieces == 0)
		abort();
	uint32_t vectors[2];
	if (board_peek(b, info.reset_vtor, vectors, sizeof vectors, &err) != 0)
		abort();
	if (loader_detect(data, size) != XB_IMAGE_ELF)
		abort();
	return 0;
}
