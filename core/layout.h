/* layout: where each function goes (default flash, the ordered hot block, a coloured start
 * set in flash, or SRAM), the addresses GNU ld will give every function under a layout, and
 * a trace moved to those addresses. */
#ifndef XB_LAYOUT_H
#define XB_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "target.h"
#include "trace.h"
#include "util.h"

enum xb_place {
	XB_PLACE_DEFAULT = 0, /* left where the general text rule puts it */
	XB_PLACE_HOT,         /* in the hot block, in entry order */
	XB_PLACE_COLOUR,      /* in the hot block, padded to start at a chosen offset in the way */
	XB_PLACE_SRAM,        /* in the RAM function section */
};

typedef struct xb_layout_entry {
	int func;             /* index into image.funcs (the first of aliases) */
	enum xb_place place;
	uint32_t way_offset;  /* XB_PLACE_COLOUR: byte offset within one cache way
			       * (set * line + offset in line) where the function must start */
} xb_layout_entry;

/* Entries in order: hot and coloured entries in the order of the hot block, SRAM entries
 * in the order of the RAM function section. Functions not listed are XB_PLACE_DEFAULT. */
typedef struct xb_layout {
	xb_layout_entry *e;
	size_t n, cap;
	char strategy[16];    /* "hot", "colour", "sram", "names", "stock" */
} xb_layout;

void layout_init(xb_layout *l);
void layout_free(xb_layout *l);
void layout_add(xb_layout *l, int func, enum xb_place place, uint32_t way_offset);
const char *layout_place_name(enum xb_place p);

/* layout.txt in a layout folder: "# comments", then one line per entry:
 *   hot NAME | colour NAME 0xOFFSET | sram NAME
 * with NAME as image_qualified_name gives it. */
int layout_write_file(const xb_layout *l, const xb_image *img, const char *path, xb_err *err);
int layout_read_file(xb_layout *l, const xb_image *img, const char *path, xb_err *err);
/* The same from memory; name is used in messages ("NAME:LINE: problem"). On error *l is
 * unchanged. */
int layout_parse(xb_layout *l, const xb_image *img, const char *data, size_t len,
		 const char *name, xb_err *err);

/* Where the linker will put things. new_addr[i] is the address of image.funcs[i] under the
 * layout (aliases follow their first function). Needs a map (input sections and their
 * order) and resolved alignments. extra_ram gets the bytes the RAM function section grows
 * by, pad_bytes the colouring padding, hot_bytes the size of the hot block. */
typedef struct xb_placement {
	uint32_t *new_addr;
	size_t n;
	uint32_t hot_start, hot_end;
	uint32_t ram_start, ram_end;
	uint32_t extra_ram;
	uint32_t pad_bytes;
	uint32_t flash_growth;   /* bytes the function-bearing flash sections grow by */
} xb_placement;

int layout_place(const xb_image *img, const xb_target *tg, const xb_layout *l,
		 xb_placement *out, xb_err *err);
void placement_free(xb_placement *p);

/* Writes "0xADDRESS NAME" for every function under the placement (names as in the ELF, so
 * static functions that share a name appear once each), sorted by address. */
int placement_write_addresses(const xb_image *img, const xb_placement *p, const char *path,
			      xb_err *err);

/* Moves every fetch of a function to its new address (same offset in the function). A fetch
 * through another alias of flash (0x11..., 0x13...) keeps its alias while the function stays
 * in flash. Fetches outside any function are kept as they are. out is initialised here. */
void layout_apply_trace(const xb_image *img, const xb_target *tg, const xb_placement *p,
			const xb_trace *in, xb_trace *out);

#endif
