/* image: a firmware image loaded from an ARM ELF (libelf) and, optionally, its GNU ld map:
 * every function with its address, size, sections, memory region and library. */
#ifndef XB_IMAGE_H
#define XB_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mapfile.h"
#include "target.h"
#include "util.h"

typedef struct xb_function {
	char *name;        /* symbol name as in the ELF ("net_buf_alloc", "foo.isra.0") */
	char *base_name;   /* without clone/LTO suffixes ("foo") */
	char *suffix;      /* the suffixes removed (".isra.0"), "" if none */
	uint32_t addr;     /* Thumb bit cleared */
	uint32_t size;
	bool is_local;     /* STB_LOCAL (static) */
	enum xb_region_kind region;
	int out_section;   /* index into image.sections, -1 if none */
	int input;         /* index into image.map.inputs, -1 without a map or if not found */
	int alias_of;      /* index of the first function (by index order) at the same address and
			    * size, or -1: aliases share code, so layouts move them together */
	int library;       /* index into image.libraries (always valid; "unknown" exists) */
	int file;          /* index into image.files (STT_FILE name), -1 if none */
	int same_name;     /* number of functions in the image with this name (>1: static
			    * functions in different objects) */
	bool is_veneer;    /* a long-branch veneer GNU ld made ("__NAME_veneer", or in a stub
			    * section of "linker stubs"): a relink makes its own, a layout never
			    * moves one */
} xb_function;

typedef struct xb_section {
	char *name;
	uint32_t addr, size, align;
	uint32_t flags;    /* sh_flags */
	uint32_t type;     /* sh_type */
	enum xb_region_kind region;
} xb_section;

typedef struct xb_library {
	char *name;        /* "subsys/net/ip", "kernel", "app", "unknown"; without a map,
			    * "file:NAME.c" (the STT_FILE of static functions) */
	char *group;       /* display group ("IP stack"), from the grouping file; = name if none */
} xb_library;

/* A symbol that is not a function but matters to layouts: linker-script markers such as
 * __xipbench_hot_start. */
typedef struct xb_marker {
	char *name;
	uint32_t addr;
} xb_marker;

typedef struct xb_image {
	char *path;
	uint32_t entry;      /* e_entry, Thumb bit cleared */
	xb_function *funcs;  /* sorted by address, then name */
	size_t nfuncs;
	xb_section *sections;
	size_t nsections;
	xb_library *libraries;
	size_t nlibraries;
	char **files;
	size_t nfiles;
	xb_marker *markers;
	size_t nmarkers;
	bool has_map;
	xb_map map;          /* valid if has_map */
	uint32_t *input_align; /* per map input: alignment (bytes), or NULL before
				* image_resolve_alignments */
	bool *input_align_known; /* per map input: read from the object (true) or inferred */
} xb_image;

/* Loads the functions of a 32-bit little-endian ARM ELF. Errors name the file and the
 * problem: not an ELF, truncated, wrong class or machine, no symbol table. The target
 * gives memory regions (NULL: every function is XB_REGION_OTHER). */
int image_load_elf(xb_image *img, const char *path, const xb_target *tg, xb_err *err);

/* The same from an ELF already in memory (len bytes at buf, which the caller keeps and
 * frees); name is used for img->path and in messages. */
int image_load_elf_mem(xb_image *img, const void *buf, size_t len, const char *name,
		       const xb_target *tg, xb_err *err);

/* Attaches a GNU ld map: input section, archive/member and library of every function.
 * Fails if the map does not belong to the ELF (its output sections' addresses and sizes
 * disagree with the ELF's section headers, or its functions are not where the map puts
 * their input sections). On failure the image is unchanged. */
int image_attach_map(xb_image *img, const char *map_path, xb_err *err);

/* Reads a grouping file (groups/default.groups format, docs/formats-groups.md) and sets
 * every library's display group. Call it after image_attach_map, which makes new
 * libraries. */
int image_load_groups(xb_image *img, const char *groups_path, xb_err *err);

/* Finds the alignment of every map input section by reading the objects and archives the
 * map names (paths are tried as written, then relative to the map's folder and to its
 * parent, where Zephyr's paths start; thin archives count as missing). Sections whose
 * object cannot be read get an alignment inferred from where the linker put them (the
 * smallest power of two >= tg->code_align consistent with the placement, and at least 4
 * when the ELF's $d mapping symbols show a literal pool inside) and are marked not
 * known. Never fails for a missing object; fails for an unreadable corrupt one. */
int image_resolve_alignments(xb_image *img, const xb_target *tg, xb_err *err);

void image_free(xb_image *img);

/* Everything at once (core/image_open.c): the ELF, its map (o->map, or ELF.map or the ELF
 * name without .elf plus .map next to it, if one exists), the display groups (o->groups,
 * or the shipped groups/default.groups) and, with need_map, the alignments (a missing
 * map is then an error). On failure nothing is left to free. */
typedef struct xb_image_open {
	const char *elf, *map, *groups;
	int need_map;
} xb_image_open;
int image_open(xb_image *img, const xb_image_open *o, const xb_target *tg, xb_err *err);
/* The map next to an ELF (as image_open looks for it), a new string, or NULL. */
char *image_find_map(const char *elf);

/* The function whose [addr, addr+size) contains addr (the first of aliases), or NULL. */
const xb_function *image_function_at(const xb_image *img, uint32_t addr);
/* Whether n is GNU ld's name for a long-branch veneer, "__" NAME "_veneer"; *target_len
 * (may be NULL) gets NAME's length (NAME starts at n + 2). */
bool image_veneer_name(const char *n, size_t *target_len);
/* Whether a map input section is a stub section of long-branch veneers GNU ld made
 * ("NAME.__stub" from "linker stubs"). */
bool image_input_is_stub(const xb_map_input *in);
/* Index of function by name; if several have the name, the first; -1 if none. */
long image_find_function(const xb_image *img, const char *name);
/* Address of a marker symbol, or -1. */
int64_t image_marker(const xb_image *img, const char *name);

/* Splits clone and LTO suffixes: "foo.isra.0.lto_priv.3" -> base "foo", suffix
 * ".isra.0.lto_priv.3". Recognised: .lto_priv.N .isra.N .part.N .constprop.N .cold
 * .localalias (and chains of them). Returns a new string; *suffix_at gets the offset. */
char *image_base_name(const char *name, size_t *suffix_at);

/* A name that identifies the function uniquely: its name, or for a name several objects
 * define, "archive:member(section)" (or "member(section)") with base names, or full paths
 * where base names clash. Without a map: "file.c:name" from STT_FILE, else "name@0xADDR".
 * Returns a new string. */
char *image_qualified_name(const xb_image *img, const xb_function *f);

#endif
