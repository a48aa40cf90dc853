/* resets: the RP2040's RESETS block (block resets with RESET_DONE) and SYSINFO (chip
 * identity) on the virtual Pico. */
#include <stdlib.h>

#include "periph.h"

enum {
	RESETS_RESET = 0x0,
	RESETS_WDSEL = 0x4,
	RESETS_RESET_DONE = 0x8,
};

enum {
	SYSINFO_CHIP_ID = 0x00,
	SYSINFO_PLATFORM = 0x04,
	SYSINFO_GITREF_RP2040 = 0x40,
};

/* A B2 part: REVISION 2, PART 0x0002, MANUFACTURER 0x927 (reference section 2.6). */
#define SYSINFO_CHIP_ID_B2 0x20002927u
#define SYSINFO_PLATFORM_ASIC 0x2u
/* The chip's git hash is not documented; the virtual board reads as 0. */
#define SYSINFO_GITREF 0x0u

typedef struct resets_hook {
	xb_block_reset_fn fn;
	void *ctx;
} resets_hook;

struct xb_resets {
	xb_board *board;
	uint32_t reset, wdsel;
	resets_hook hooks[32];
};

int resets_held(const xb_resets *r, unsigned bit)
{
	return bit < 32 && ((r->reset >> bit) & 1);
}

void resets_on_block(xb_resets *r, unsigned bit, xb_block_reset_fn fn, void *ctx)
{
	if (bit < 32)
		r->hooks[bit] = (resets_hook){fn, ctx};
}

/* Tells each modelled block whose bit changed; held blocks go back to their reset state. */
static void resets_set(xb_resets *r, uint32_t value)
{
	uint32_t old = r->reset;
	r->reset = value & XB_RESETS_MASK;
	uint32_t changed = old ^ r->reset;
	for (unsigned bit = 0; bit < 32; bit++)
		if (((changed >> bit) & 1) && r->hooks[bit].fn)
			r->hooks[bit].fn(r->hooks[bit].ctx, (int)((r->reset >> bit) & 1));
}

static uint32_t resets_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_resets *r = ctx;
	switch (off) {
	case RESETS_RESET:
		return r->reset;
	case RESETS_WDSEL:
		return r->wdsel;
	case RESETS_RESET_DONE:
		/* A block is done as soon as it is released: clocks are not modelled. */
		return ~r->reset & XB_RESETS_MASK;
	}
	bus_report_hole(board_bus(r->board));
	return 0;
}

static void resets_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
			 enum xb_alias_op op)
{
	(void)size;
	xb_resets *r = ctx;
	switch (off) {
	case RESETS_RESET:
		resets_set(r, periph_rw(r->reset, value, op, XB_RESETS_MASK));
		return;
	case RESETS_WDSEL:
		r->wdsel = periph_rw(r->wdsel, value, op, XB_RESETS_MASK);
		return;
	case RESETS_RESET_DONE:
		return; /* read-only */
	}
	bus_report_hole(board_bus(r->board));
}

static const xb_device_ops resets_ops = {
	.read = resets_read,
	.write = resets_write,
};

static uint32_t sysinfo_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_resets *r = ctx;
	switch (off) {
	case SYSINFO_CHIP_ID:
		return SYSINFO_CHIP_ID_B2;
	case SYSINFO_PLATFORM:
		return SYSINFO_PLATFORM_ASIC;
	case SYSINFO_GITREF_RP2040:
		return SYSINFO_GITREF;
	}
	bus_report_hole(board_bus(r->board));
	return 0;
}

static void sysinfo_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
			  enum xb_alias_op op)
{
	(void)value;
	(void)size;
	(void)op;
	xb_resets *r = ctx;
	if (off != SYSINFO_CHIP_ID && off != SYSINFO_PLATFORM && off != SYSINFO_GITREF_RP2040)
		bus_report_hole(board_bus(r->board));
}

static const xb_device_ops sysinfo_ops = {
	.read = sysinfo_read,
	.write = sysinfo_write,
};

/* Power-on: every block in reset. The hooks hear held = 1 whatever the previous state. */
static void resets_system_reset(xb_board *b, void *ctx)
{
	(void)b;
	xb_resets *r = ctx;
	r->reset = XB_RESETS_MASK;
	r->wdsel = 0;
	for (unsigned bit = 0; bit < 32; bit++)
		if (r->hooks[bit].fn)
			r->hooks[bit].fn(r->hooks[bit].ctx, 1);
}

xb_resets *resets_new(xb_board *b)
{
	xb_resets *r = xcalloc(1, sizeof *r);
	r->board = b;
	r->reset = XB_RESETS_MASK;
	xb_bus *bus = board_bus(b);
	if (bus_map(bus, XB_RESETS_BASE, 0x10, "RESETS", &resets_ops, r) ||
	    bus_map(bus, XB_SYSINFO_BASE, 0x44, "SYSINFO", &sysinfo_ops, r)) {
		free(r);
		return NULL;
	}
	board_on_reset(b, resets_system_reset, r);
	return r;
}

void resets_free(xb_resets *r)
{
	free(r);
}
