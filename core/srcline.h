/* srcline: source file and line of a code address, from the ELF's DWARF line tables
 * (libdw), for the workbench's lines view. Images without line tables have none. */
#ifndef XB_SRCLINE_H
#define XB_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct xb_srclines xb_srclines;

/* Reads every line table of the ELF at path (each compile unit's, once) into a table
 * sorted by address. Returns 0 with *out set; 0 with *out NULL when the file has no line
 * tables (no -g); -1 with err (naming the file) when the file cannot be read, is no ELF or
 * its DWARF is corrupt as far as libdw can tell. */
int srclines_load(xb_srclines **out, const char *path, xb_err *err);
/* The same from an ELF in memory (len bytes at buf, copied: the caller keeps buf); name is
 * used in messages. Any bytes are safe input. */
int srclines_load_mem(xb_srclines **out, const void *buf, size_t len, const char *name,
		      xb_err *err);
void srclines_free(xb_srclines *s);
/* The row that covers addr (Thumb bit ignored): the last row at or below addr within its
 * sequence (of several rows at one address, the last, as GNU addr2line takes it; an
 * address at or past a sequence's end is covered by no row of it). *file is the file name
 * as GNU addr2line shows it (libdw's name, put after the compilation folder when
 * relative; owned by s). 0 when found, -1 when no row covers addr or s is NULL. */
int srclines_find(const xb_srclines *s, uint32_t addr, const char **file, unsigned *line);
/* Rows in the table. */
size_t srclines_count(const xb_srclines *s);

#endif
