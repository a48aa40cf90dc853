/* snippet: linker-script fragments and name lists that make GNU ld (and Zephyr's build)
 * place functions as a layout says. Symbol names never reach a linker script; a section or
 * file name that ld would read as a pattern or that could end the rule is refused. */
#ifndef XB_SNIPPET_H
#define XB_SNIPPET_H

#include "image.h"
#include "layout.h"
#include "target.h"
#include "util.h"

/* One writer: produces one file in a layout folder. write appends the file's text to out;
 * tg may be NULL unless the layout colours (the padding needs the cache way size). */
typedef struct xb_snippet_writer {
	const char *name;        /* "hot-ld" */
	const char *file;        /* "xipbench_hot.ld", relative to the layout folder */
	const char *summary;
	int (*write)(const xb_image *img, const xb_target *tg, const xb_layout *l,
		     xb_strbuf *out, xb_err *err);
} xb_snippet_writer;

/* All writers, ended by a NULL name (docs/formats-snippets.md describes every file):
 *   xipbench_hot.ld      generic INCLUDE for the first output section after the vector
 *                        table: marker symbols, one input-section rule per hot function in
 *                        order, colouring padding as
 *                        `. = . + ((ABSOLUTE(OFF) - ABSOLUTE(.)) & (WAY-1));`
 *   xipbench_ramfunc.ld  generic INCLUDE for a RAM section copied at boot; it must come before
 *                        the general text rule in the script
 *   xipbench_noalloc.ld  generic INCLUDE for a section run through the non-allocating flash
 *                        alias and loaded in flash; before the general text rule too
 *   zephyr/rom_start.ld  for zephyr_linker_sources(ROM_START ...) (section names quoted)
 *   zephyr/ramfunc.ld    for zephyr_linker_sources(RAMFUNC_SECTION ...)
 *   zephyr/relocate.cmake  zephyr_code_relocate(LIBRARY|FILES ... FILTER ... LOCATION SRAM_TEXT)
 *   zephyr/snippet/...   a Zephyr module (zephyr/module.yml, CMakeLists.txt, Kconfig, copies
 *                        of the three files above, README.txt) providing the snippet
 *                        xipbench-layout (snippets/xipbench-layout/snippet.yml)
 *   names.txt            plain list of the SRAM functions' names (the reusable form)
 * Rules work per input section: functions sharing one get one rule, at the first of them.
 * A layout is refused (err names the function) for a function without an input section, a
 * name ld would misread, a selector that cannot be made unique, a section the layout sends
 * both to the hot block and to SRAM, or a colour offset outside the cache way. */
extern const xb_snippet_writer snippet_writers[];

/* Writes every file into dir (folders created as needed), atomically per file. All files are
 * generated first: when a writer refuses the layout, nothing is written. */
int snippet_write_all(const xb_image *img, const xb_target *tg, const xb_layout *l,
		      const char *dir, xb_err *err);

/* Writes the empty fragments (markers only) a linker script INCLUDEs for a stock build:
 * xipbench_hot.ld, xipbench_ramfunc.ld and xipbench_noalloc.ld, each a comment line and the
 * two marker lines. */
int snippet_write_stock(const char *dir, xb_err *err);

/* Appends the input-section selector for a function: "*(.text.foo)" when the section name
 * occurs once in the map, else qualified by file as "libnet.a:ipv4.o(.text.foo)" or
 * "main.o(.text.foo)", with a leading star-slash wildcard when the archive or object path has
 * a folder (docs/formats-snippets.md). Fails, naming the symbol, for a function without an
 * input section, a section or file name that ld would read as a pattern or script syntax
 * (anything outside [A-Za-z0-9_.$+-], '/' allowed in paths), or a selector that would also
 * match another input of the map. */
int snippet_selector(const xb_image *img, const xb_function *f, xb_strbuf *out, xb_err *err);

#endif
