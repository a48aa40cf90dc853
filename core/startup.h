/* startup: the code that runs before the start-up code has copied the RAM sections, found
 * in the image's code without running it. A function on that path cannot move to SRAM:
 * its copy is not there yet when it runs (docs/formats-snippets.md, "The start-up path").
 *
 * The walk starts at the reset vector's target (the first vector table found: a word
 * pointing into RAM followed by a Thumb pointer to a function, at the start of an
 * executable flash section or 0x100 into flash, after a boot2) and at the ELF entry point.
 * A function's code is its symbol's size or, for a size-0 symbol (assembly such as
 * Zephyr's z_arm_reset or pico-sdk's _reset_handler), everything up to the next function
 * symbol or the end of its section. Calls are BL instructions and "LDR Rn, =function"
 * followed by BLX Rn or BX Rn. The copy is the code that holds the load address of a RAM
 * output section loaded from flash (a literal or a copy table: Zephyr's z_data_copy,
 * pico-sdk's data_cpy_table in _reset_handler).
 *
 * On the path to the copy, a function's calls count in address order: those before the last
 * one that leads to the copy (or, in the function holding the load address, before the
 * last instruction that loads it) run before the copy, with everything they call. After
 * that point, calls of leaf routines may still be the copy's (memcpy, data_cpy) and count
 * too; the first other call starts what runs after the copy (Zephyr's z_cstart, pico-sdk's
 * runtime_init): that function stays in flash itself, but what it calls is not followed. */
#ifndef XB_STARTUP_H
#define XB_STARTUP_H

#include <stddef.h>

#include "image.h"
#include "layout_calls.h"
#include "target.h"

typedef struct xb_startup {
	const char **why;   /* per function of the image: why it stays in flash, or NULL */
	long reset;         /* the reset handler's function index, -1 if none found */
	long copy;          /* the function holding a load address (the copy), -1 if none */
	size_t nstay;       /* functions with a reason */
} xb_startup;

extern const char startup_why_reset[];
extern const char startup_why_before[];
extern const char startup_why_copy[];
extern const char startup_why_after[];
extern const char startup_why_called[];

/* Finds the start-up path of img (with its map: the output sections' load addresses) in
 * the code c. Never fails; without a copy found it keeps the reset handler and the entry
 * point and what they call directly (startup_why_called). Free with startup_free. */
void startup_find(xb_startup *s, const xb_image *img, const xb_code *c, const xb_target *tg);
void startup_free(xb_startup *s);

#endif
