/* layout: where each function goes (default flash, the ordered hot block, a coloured start
 * set in flash, or SRAM), the addresses GNU ld will give every function under a layout, and
 * a trace moved to those addresses. */
#ifndef XB_LAYOUT_H
#define XB_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "layout_calls.h"
#include "target.h"
#include "trace.h"
#include "util.h"

enum xb_place {
	XB_PLACE_DEFAULT = 0, /* left where the general text rule puts it */
	XB_PLACE_HOT,         /* in the hot block, in entry order */
	XB_PLACE_COLOUR,      /* in the hot block, padded to start at a chosen offset in the way */
	XB_PLACE_SRAM,        /* in the RAM function section */
	XB_PLACE_NOALLOC,     /* in the section run through the non-allocating flash alias
			       * (RP2040 0x11000000: a hit is served, a miss does not fill) */
};

typedef struct xb_layout_entry {
	int func;             /* index into image.funcs (the first of aliases) */
	enum xb_place place;
	uint32_t way_offset;  /* XB_PLACE_COLOUR: byte offset within one cache way
			       * (set * line + offset in line) where the function must start */
} xb_layout_entry;

/* A function a planner wanted in SRAM but left in flash, and why. */
typedef struct xb_refusal {
	int func;
	const char *why;      /* a static string */
} xb_refusal;

/* Entries in order: hot and coloured entries in the order of the hot block, SRAM entries
 * in the order of the RAM function section, no-allocate entries in the order of their
 * section. Functions not listed are XB_PLACE_DEFAULT.
 * Pins are the functions the layout editor (layout_edit.h) keeps where they are when a
 * planner fills the layout; they do not change where anything goes. */
typedef struct xb_layout {
	xb_layout_entry *e;
	size_t n, cap;
	char strategy[16];    /* "hot", "colour", "sram", "names", "stock", "edited" */
	xb_refusal *refused;  /* written to layout.txt as comments only */
	size_t nrefused, refused_cap;
	int *pins;            /* pinned functions (first of aliases), each once */
	size_t npins, pins_cap;
} xb_layout;

void layout_init(xb_layout *l);
void layout_free(xb_layout *l);
void layout_add(xb_layout *l, int func, enum xb_place place, uint32_t way_offset);
/* Pins func (once: a function already pinned is not added again). */
void layout_add_pin(xb_layout *l, int func);
const char *layout_place_name(enum xb_place p);

/* layout.txt in a layout folder: "# comments", then one line per entry:
 *   hot NAME | colour NAME 0xOFFSET | sram NAME | noalloc NAME
 * then one line per pinned function:
 *   pin NAME
 * with NAME as image_qualified_name gives it (docs/formats-snippets.md). Files without pin
 * lines (written before pins existed) read as before. */
int layout_write_file(const xb_layout *l, const xb_image *img, const char *path, xb_err *err);
int layout_read_file(xb_layout *l, const xb_image *img, const char *path, xb_err *err);
/* The same from memory; name is used in messages ("NAME:LINE: problem"). On error *l is
 * unchanged. */
int layout_parse(xb_layout *l, const xb_image *img, const char *data, size_t len,
		 const char *name, xb_err *err);

/* A name list (names.txt, as the snippet writer "names" writes it): one function name per
 * line, '#' starts a comment, blank lines are skipped. A name is matched against the image
 * as it is written: a plain symbol name ("net_buf_alloc"), else, when no function has that
 * name, the one function whose name without clone/LTO suffixes is the same
 * ("foo.lto_priv.3" finds "foo.lto_priv.0"); or a qualified name
 * "archive:member(section)" / "object(section)" (archive and object by base name or full
 * path, as image_qualified_name and names.txt write them), which needs the map. Names that
 * match nothing go to unknown, names that match functions of several input sections (a
 * static function several objects define, written unqualified) to ambiguous: neither is
 * an error, so a list kept from another build still loads. */
typedef struct xb_name_list {
	int *func;            /* the functions named (first of aliases), in list order, each once */
	size_t n, cap;
	char **unknown;       /* names not in the image, in list order */
	size_t nunknown, unknown_cap;
	char **ambiguous;     /* names that match several functions, in list order */
	size_t nambiguous, ambiguous_cap;
} xb_name_list;

void layout_names_free(xb_name_list *nl);
/* Fails (leaving *out empty) only for a file that cannot be read, binary data, or a line
 * holding more than one word; name is used in messages ("NAME:LINE: problem"). *out is
 * initialised here. */
int layout_names_parse(xb_name_list *out, const xb_image *img, const char *data, size_t len,
		       const char *name, xb_err *err);
int layout_names_read_file(xb_name_list *out, const xb_image *img, const char *path,
			   xb_err *err);

/* Where the linker will put things. new_addr[i] is the address of image.funcs[i] under the
 * layout (aliases follow their first function). Needs a map (input sections and their
 * order) and resolved alignments. extra_ram gets the bytes the RAM sections grow by
 * (functions, veneers, alignment), pad_bytes the colouring padding, hot_bytes the size of
 * the hot block.
 *
 * Veneers: a call (BL) between flash and SRAM is out of reach, so GNU ld sends it through a
 * 16-byte long-branch veneer, one per called function and output section of the caller,
 * in a stub section right after the last code input section of that output section (for
 * .text its end, for the RAM function section after the last RAM function); what follows
 * moves up. ld orders the veneers inside a stub section by a hash; xipbench assumes the
 * order of the called functions' stock addresses (the colouring keeps the whole stub
 * section on sets where the order does not matter). */
typedef struct xb_veneer {
	uint32_t addr;        /* under the layout */
	uint32_t target;      /* the called address in the stock image */
	int out;              /* map output section whose stub section holds it */
} xb_veneer;

/* A call that goes through a veneer under the layout. */
typedef struct xb_veneer_call {
	uint32_t site;        /* the BL's first halfword, stock address */
	uint32_t target;      /* stock address */
	size_t veneer;        /* index into veneers */
} xb_veneer_call;

typedef struct xb_placement {
	uint32_t *new_addr;
	size_t n;
	uint32_t *input_addr;    /* per map input: its address under the layout */
	uint32_t *output_addr;   /* per map output: its address under the layout */
	uint32_t *output_load;   /* per map output: its load address under the layout */
	size_t ninputs, noutputs;
	xb_veneer *veneers;      /* by stub section, then target */
	size_t nveneers;
	xb_veneer_call *vcalls;  /* sorted by site */
	size_t nvcalls;
	const xb_code *code;     /* the calls given to layout_place_calls (borrowed), or NULL */
	uint32_t hot_start, hot_end;
	uint32_t ram_start, ram_end;
	uint32_t extra_ram;
	uint32_t pad_bytes;
	uint32_t flash_growth;   /* bytes the function-bearing flash sections grow by */
	uint32_t veneer_bytes_flash, veneer_bytes_ram;
	/* Zephyr's code relocation route (an image without xipbench's RAM marker): the SRAM
	 * functions go to the section zephyr_code_relocate() makes, and the relink also adds
	 * the copy (data_copy_xip_relocation, bss_zeroing_relocation, called from the
	 * start-up path, which grows) */
	bool code_relocation;
} xb_placement;

#define XB_VENEER_BYTES 16u

/* calls may be NULL: then no veneer is modelled. */
int layout_place_calls(const xb_image *img, const xb_target *tg, const xb_layout *l,
		       const xb_calls *calls, xb_placement *out, xb_err *err);
int layout_place(const xb_image *img, const xb_target *tg, const xb_layout *l,
		 xb_placement *out, xb_err *err);
void placement_free(xb_placement *p);

/* Where a byte of the stock image (a canonical flash or RAM address) is under the
 * placement: by the input section holding it, else by its output section (or that
 * section's load image), else by its function; other addresses are kept. */
uint32_t placement_move(const xb_image *img, const xb_placement *p, uint32_t addr);
/* The same for addresses that come in order: *hint (start with -1) remembers the input
 * section of the last one (mapfile_input_near). */
uint32_t placement_move_near(const xb_image *img, const xb_placement *p, uint32_t a, long *hint);

/* Writes "0xADDRESS NAME" for every function under the placement (names as in the ELF, so
 * static functions that share a name appear once each), sorted by address. */
int placement_write_addresses(const xb_image *img, const xb_placement *p, const char *path,
			      xb_err *err);

/* Moves every fetch to where placement_move puts its byte; a fetch through another alias of
 * flash (0x11..., 0x13...) keeps its alias while the byte stays in flash. With the image's
 * code (the calls given to layout_place_calls) the trace's 32-bit word fetches are followed
 * halfword by halfword through the stock code (where each run of execution entered and
 * left its word), so a function moved by 2 bytes mod 4 fetches the words it will fetch; a
 * call that goes through a veneer under the placement gets the veneer's fetches after the
 * BL: its first word, the load of its literal (offset 12; from flash only), its second and
 * third words. out is initialised here. */
void layout_apply_trace(const xb_image *img, const xb_target *tg, const xb_placement *p,
			const xb_trace *in, xb_trace *out);

#endif
