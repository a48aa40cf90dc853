/* fuzz_board.h: the one virtual Pico board the loader fuzz targets load into, made from a
 * built-in copy of the rp2040 target's memory map (the fuzzers run from any folder).
 * Header-only: each fuzz target is one program. */
#ifndef XB_FUZZ_BOARD_H
#define XB_FUZZ_BOARD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/board.h"

static const char fuzz_rp2040_target[] =
	"name = rp2040\n"
	"cpu_hz = 125000000\n"
	"flash_size = 2M\n"
	"code_align = 2\n"
	"[region rom]\nkind = rom\nbase = 0x00000000\nsize = 16K\n"
	"[region flash]\nkind = flash\nbase = 0x10000000\nsize = 2M\n"
	"[region xip_sram]\nkind = sram\nbase = 0x15000000\nsize = 16K\n"
	"[region sram]\nkind = sram\nbase = 0x20000000\nsize = 264K\n"
	"[alias]\nbase = 0x10000000\nmode = cached-alloc\n"
	"[alias]\nbase = 0x11000000\nmode = cached-noalloc\n"
	"[alias]\nbase = 0x12000000\nmode = uncached-alloc\n"
	"[alias]\nbase = 0x13000000\nmode = uncached-noalloc\n"
	"[cache]\nsize = 16K\nways = 2\nline = 8\nfill = 8\npolicy = lru\nseed = 1\n"
	"sram_base = 0x15000000\nhit_cycles = 1\nmiss_penalty = 70\nflush_cycles = 1024\n";

static inline xb_board *fuzz_board(void)
{
	static xb_board *b;
	if (b)
		return b;
	xb_target t;
	xb_err err;
	if (target_parse(&t, fuzz_rp2040_target, strlen(fuzz_rp2040_target), "fuzz.target",
			 &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	b = board_new(&t, &err);
	if (!b) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	board_set_log(b, NULL, NULL);
	return b;
}

#endif
