/* mapfile: GNU ld map files (zephyr.map, pico-sdk *.elf.map, -Wl,-Map output). */
#ifndef XB_MAPFILE_H
#define XB_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* One input section placed by the linker ("Linker script and memory map" part). */
typedef struct xb_map_input {
	char *section;   /* ".text.net_ipv4_input" */
	char *archive;   /* "zephyr/subsys/net/ip/libsubsys__net__ip.a", or NULL for a plain object */
	char *member;    /* "ipv4.c.obj" inside the archive, or the object path */
	uint64_t addr, size;
	uint32_t fill_before; /* bytes of *fill* the linker put right before this section */
	int out_section;  /* index into xb_map.outputs */
	int line;         /* line in the map file, for messages */
	unsigned same_section; /* inputs of the map with this section name (1: unique; 0: not
				* counted, see mapfile_count_sections) */
} xb_map_input;

typedef struct xb_map_output {
	char *name;       /* ".text" */
	uint64_t addr, size;
	uint64_t lma;     /* load address if the map gives one ("load address 0x..."), else addr */
} xb_map_output;

/* A global symbol the map lists under an input section. */
typedef struct xb_map_symbol {
	char *name;
	uint64_t addr;
	int input;        /* index into xb_map.inputs */
} xb_map_symbol;

typedef struct xb_map_region {
	char *name;
	uint64_t origin, length;
	char attributes[16];
} xb_map_region;

typedef struct xb_map {
	char *path;
	xb_map_input *inputs;   /* in map order (ascending address within an output section) */
	size_t ninputs, inputs_cap;
	xb_map_output *outputs;
	size_t noutputs, outputs_cap;
	xb_map_symbol *symbols;
	size_t nsymbols, symbols_cap;
	xb_map_region *regions;
	size_t nregions, regions_cap;
	uint64_t total_fill;    /* all *fill* bytes in placed output sections */
} xb_map;

/* Parses map text. Fails with "NAME:LINE: problem" when the text is not a GNU ld map
 * (no "Linker script and memory map" part, malformed numbers ...). Input sections of size
 * 0, those under "Discarded input sections" and those of sections that hold no code
 * (.debug*, .comment, .ARM.attributes ...) are not listed; nothing after "Cross Reference
 * Table" is read. */
int mapfile_parse(xb_map *m, const char *text, size_t len, const char *name, xb_err *err);
/* Fills every input's same_section (mapfile_parse does; a map built by hand calls it). */
void mapfile_count_sections(xb_map *m);
int mapfile_load(xb_map *m, const char *path, xb_err *err);
void mapfile_free(xb_map *m);

/* Index of the input section containing addr (binary search), or -1. */
long mapfile_input_at(const xb_map *m, uint64_t addr);
/* The same, trying *hint and the input after it first (addresses that come in order stay
 * in one input or move to the next); *hint is updated to the input found. Start with -1. */
long mapfile_input_near(const xb_map *m, uint64_t addr, long *hint);

/* Library name for an input: the archive's base name without "lib" and ".a", with "__"
 * read as "/" (Zephyr: libsubsys__net.a -> subsys/net); for a plain object, the folder
 * that names its component (pico-sdk: .../src/rp2_common/hardware_gpio/gpio.c.obj ->
 * hardware_gpio; CMakeFiles/app.dir/main.c.obj -> app; build/obj/app/main.o -> app).
 * The toolchain's libc.a, libc_nano.a ... are "libc", libgcc.a "libgcc"; LTO partitions
 * (*.ltrans.o) "lto"; no file "unknown". Returns a new string. */
char *mapfile_library_name(const char *archive, const char *member);

#endif
