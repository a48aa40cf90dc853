/* snippet: linker-script fragments and name lists that make GNU ld (and Zephyr's build)
 * place functions as a layout says. Symbol names never reach a linker script unchecked:
 * a name that ld would read as a pattern or that could end the rule is refused. */
#ifndef XB_SNIPPET_H
#define XB_SNIPPET_H

#include "image.h"
#include "layout.h"
#include "target.h"
#include "util.h"

/* One writer: produces one file in a layout folder. */
typedef struct xb_snippet_writer {
	const char *name;        /* "hot-ld" */
	const char *file;        /* "xipbench_hot.ld", relative to the layout folder */
	const char *summary;
	int (*write)(const xb_image *img, const xb_target *tg, const xb_layout *l,
		     xb_strbuf *out, xb_err *err);
} xb_snippet_writer;

/* All writers, ended by a NULL name. The files:
 *   xipbench_hot.ld      generic INCLUDE for the first output section after the vector
 *                        table: marker symbols, one input-section rule per hot function in
 *                        order, colouring padding as `. = . + ((OFF - ABSOLUTE(.)) & (WAY-1));`
 *   xipbench_ramfunc.ld  generic INCLUDE for the RAM function section (copied at boot)
 *   zephyr/rom_start.ld  for zephyr_linker_sources(ROM_START ...)
 *   zephyr/ramfunc.ld    for zephyr_linker_sources(RAMFUNC_SECTION ...)
 *   zephyr/relocate.cmake  zephyr_code_relocate(FILES ... FILTER ... LOCATION SRAM_TEXT)
 *   zephyr/snippet/...   a Zephyr snippet folder (snippet.yml + CMake + the two .ld files)
 *   names.txt            plain list of the SRAM functions' names (the reusable form) */
extern const xb_snippet_writer snippet_writers[];

/* Writes every file into dir (created if needed), atomically per file. */
int snippet_write_all(const xb_image *img, const xb_target *tg, const xb_layout *l,
		      const char *dir, xb_err *err);

/* Writes the empty fragments (markers only) a linker script INCLUDEs for a stock build. */
int snippet_write_stock(const char *dir, xb_err *err);

/* The input-section selector for a function: "*(.text.foo)" or, when several objects define
 * the name, "*libnet.a:ipv4.o(.text.foo)". Fails, naming the symbol, for a section or file
 * name ld would read as a pattern or that contains characters outside [A-Za-z0-9_.$/+-]. */
int snippet_selector(const xb_image *img, const xb_function *f, xb_strbuf *out, xb_err *err);

#endif
