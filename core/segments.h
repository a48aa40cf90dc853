/* segments: the loadable segments of a firmware ELF (PT_LOAD program headers, libelf), the
 * one walker that the virtual Pico's loader and the probe's flash programmer share. */
#ifndef XB_SEGMENTS_H
#define XB_SEGMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* One PT_LOAD segment with file contents. */
typedef struct xb_segment {
	size_t index;         /* program header number (for messages: "segment 2") */
	uint32_t paddr;       /* physical (load) address: where a debugger's `load` puts it */
	uint32_t vaddr;       /* where it runs (differs for .data: SRAM vs. its flash copy) */
	uint32_t filesz;      /* bytes in the file; what gets loaded */
	uint32_t memsz;       /* bytes in memory (the rest, .bss, is the start-up code's) */
	const uint8_t *bytes; /* filesz bytes inside the caller's buffer */
} xb_segment;

typedef struct xb_segments {
	xb_segment *s;
	size_t n, cap;
} xb_segments;

/*
 * Reads the PT_LOAD program headers of a 32-bit little-endian ARM executable held in
 * data[0..len) (the caller keeps it alive: segments point into it) and appends, in
 * program-header order, every one with file bytes (filesz > 0) to out (zeroed or from an
 * earlier call). Errors name the input (name) and say what is wrong: not an ELF, the wrong
 * class, byte order, machine or type ("not an executable: link the firmware first"), a
 * corrupt or truncated program header, segment bytes past the end of the file, no segment
 * with file contents. On failure out is unchanged. No input crashes it.
 */
int segments_read_elf(xb_segments *out, const uint8_t *data, size_t len, const char *name,
		      xb_err *err);
void segments_free(xb_segments *s);

#endif
