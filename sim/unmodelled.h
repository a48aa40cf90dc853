/* unmodelled: which registers the firmware touched that the virtual Pico does not model
 * (`xipbench sim run --peripherals`): per register, its block (named from the RP2040's
 * address map, not from what is modelled today), offset, reads, writes and the first PC. */
#ifndef XB_UNMODELLED_H
#define XB_UNMODELLED_H

#include <stddef.h>
#include <stdint.h>

#include "bus.h"

typedef struct xb_unmodelled xb_unmodelled;

typedef struct xb_unmod_reg {
	const char *block;  /* "SPI0", "PIO1", "SIO", ...; "-" outside every block */
	uint32_t offset;    /* from the block's base (atomic alias bits removed) */
	uint32_t addr;      /* the block's base + offset: the RW alias's address */
	uint64_t reads, writes;
	uint32_t first_pc;  /* the instruction that touched it first */
} xb_unmod_reg;

/* At most this many registers are kept; accesses to further ones are only counted. */
#define XB_UNMOD_MAX 4096u

/* Starts collecting on bus (bus_set_unmapped_hook: the bus must outlive the collection or
 * be given to unmodelled_free first). Accesses through the debug port are not counted. */
xb_unmodelled *unmodelled_new(xb_bus *bus);
/* Stops collecting on bus (if it is not NULL: a bus already freed is left alone) and frees. */
void unmodelled_free(xb_unmodelled *u, xb_bus *bus);

/* The registers seen, in address order (valid until the next access or free). */
const xb_unmod_reg *unmodelled_list(xb_unmodelled *u, size_t *count);
/* Accesses to registers beyond XB_UNMOD_MAX (not in the list). */
uint64_t unmodelled_dropped(const xb_unmodelled *u);

/* The block of the RP2040 address map holding addr (datasheet 2.2, pico-sdk addressmap.h)
 * and the offset in it, atomic alias bits removed; "-" and addr itself outside them. */
const char *unmodelled_block(uint32_t addr, uint32_t *offset);

#endif
