/* fuzz_uf2: the virtual Pico's UF2 loader on arbitrary bytes: no crash, no leak; a file it
 * accepts loaded something inside memory and set a vector table it holds; a file it refuses
 * left flash unchanged and was named in the message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/loader.h"
#include "fuzz_board.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_board *b = fuzz_board();
	uint32_t fsize;
	uint8_t *flash = board_flash(b, &fsize);
	memset(flash, 0xFF, 0x1000);
	xb_load_info info;
	xb_err err;
	if (loader_load_uf2(b, data, size, "fuzz.uf2", &info, &err) != 0) {
		if (strncmp(err.msg, "fuzz.uf2: ", 10) != 0)
			abort();
		for (uint32_t i = 0; i < 0x1000; i++)
			if (flash[i] != 0xFF)
				abort(); /* a refused file wrote something */
		return 0;
	}
	if (info.format != XB_IMAGE_UF2 || info.lo >= info.hi || info.pieces == 0 ||
	    info.bytes > (size_t)info.pieces * 476)
		abort();
	uint32_t vectors[2];
	if (board_peek(b, info.reset_vtor, vectors, sizeof vectors, &err) != 0)
		abort();
	return 0;
}
