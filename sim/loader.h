/* loader: putting a firmware image into a virtual Pico's memory: ELF program segments, UF2
 * blocks or a raw binary, and the vector table the core boots from. */
#ifndef XB_LOADER_H
#define XB_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "board.h"

enum xb_image_format {
	XB_IMAGE_AUTO = 0, /* by content: ELF magic, UF2 magic, else refused (a raw binary
			    * needs an address) */
	XB_IMAGE_ELF,
	XB_IMAGE_UF2,
	XB_IMAGE_BIN,
};
const char *loader_format_name(enum xb_image_format f);

/* What a load put where. */
typedef struct xb_load_info {
	enum xb_image_format format;
	uint32_t lo, hi;       /* lowest address loaded and one past the highest */
	size_t bytes;          /* bytes written */
	unsigned pieces;       /* ELF segments or UF2 blocks loaded */
	unsigned skipped;      /* UF2 blocks for another family or not for main flash */
	uint32_t reset_vtor;   /* what board_set_reset_vtor was given */
} xb_load_info;

/*
 * Every loader checks the whole input before it writes anything, so a bad image leaves the
 * board as it was. Errors name the input (name) and say what is wrong: "fw.elf: segment 2
 * (0x30000000, 64 bytes) is outside the board's SRAM and flash", "fw.uf2: block 3 (byte
 * 1536): bad magic". No input crashes them.
 *
 * ELF: 32-bit little-endian ARM executables; every PT_LOAD segment's file bytes go to its
 * physical address p_paddr (the load address: .data's initial values in flash), as a
 * debugger's `load` does; the part of a segment past its file bytes (.bss) is left to the
 * start-up code. UF2: 512-byte blocks with the three magic numbers; blocks flagged
 * "not main flash" or "file container", and blocks whose family ID is not the RP2040's
 * (0xe48bff56), are skipped; every RP2040 block numbered 0..N-1 must be present once or
 * more. BIN: the bytes at addr.
 *
 * Images go to flash (any XIP alias) or SRAM, never the bootrom. Afterwards the loader sets
 * the reset vector table (board_set_reset_vtor): flash base + 0x100 (where boot2 leaves
 * it, the board's default) when the image covers that address; otherwise the image's
 * lowest address if it holds a vector table (an initial SP in SRAM, a Thumb reset address
 * inside the image), as an SDK no-flash build does; otherwise the load fails ("no vector
 * table"). It does not reset the board.
 */
int loader_load_elf(xb_board *b, const uint8_t *data, size_t len, const char *name,
		    xb_load_info *info, xb_err *err);
int loader_load_uf2(xb_board *b, const uint8_t *data, size_t len, const char *name,
		    xb_load_info *info, xb_err *err);
int loader_load_bin(xb_board *b, const uint8_t *data, size_t len, uint32_t addr,
		    const char *name, xb_load_info *info, xb_err *err);

/* The format by content (ELF or UF2 magic), or XB_IMAGE_AUTO when neither. */
enum xb_image_format loader_detect(const uint8_t *data, size_t len);

/* Reads path and loads it as fmt (AUTO: by content). bin_addr is the address for
 * XB_IMAGE_BIN. info may be NULL. */
int loader_load_file(xb_board *b, const char *path, enum xb_image_format fmt, uint32_t bin_addr,
		     xb_load_info *info, xb_err *err);

/* How the core starts after a reset (sim/ssi.c, docs/sim-peripherals.md "Booting"):
 * boot2 as the RP2040 does (the bootrom checks the CRC-32 of the first 252 bytes of flash,
 * copies them to SRAM and runs them; a mismatch is where the chip would enter USB boot),
 * or a direct start from the vector table the loader found, with the SSI and the flash
 * already in the state pico-sdk's boot2_w25q080 leaves. Auto: boot2 when the image has a
 * valid boot2 in front of the vector table at 0x10000100, the direct start otherwise. */
enum xb_boot_mode { XB_BOOT_AUTO = 0, XB_BOOT_DIRECT, XB_BOOT_BOOT2 };

typedef struct xb_boot_info {
	enum xb_boot_mode requested, used; /* used: direct or boot2 */
	int boot2_valid;          /* the CRC in flash matched at the last check */
	uint32_t crc_computed, crc_image;
	int usb_boot;             /* a boot2 boot found a bad CRC: the chip would enter USB boot */
} xb_boot_info;
/* "auto", "direct", "boot2". */
const char *loader_boot_name(enum xb_boot_mode m);

#endif
