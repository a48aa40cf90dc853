/* trace: fetched addresses with echo boundaries, in memory, in a compact binary file form
 * and in a text form for interchange (docs/formats-target-trace.md describes both). */
#ifndef XB_TRACE_H
#define XB_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

/* An in-memory trace. addr[0..n) are fetch addresses in program order (full bus addresses,
 * e.g. 0x10001234, including SRAM fetches). echo[0..necho) are indices into addr: echo i
 * starts at addr[echo[i]] and runs to the next boundary or the end of the trace. Fetches
 * before the first boundary are warm-up: they fill the cache but are not counted per echo.
 * A trace with no boundary counts as one echo spanning the whole trace. */
typedef struct xb_trace {
	uint32_t *addr;
	size_t n, cap;
	size_t *echo;
	size_t necho, echo_cap;
} xb_trace;

/* Window marks: addresses no code has (the ARMv6-M EXC_RETURN range, never fetched), which
 * the virtual Pico's recorder puts in a trace where a measurement's windows start and end,
 * so that a replay can count misses as the measurement does (traffic minus idle). They are
 * not flash addresses, so a cache replay ignores them. */
#define XB_TRACE_MARK_IDLE    0xFFFFFFF0u /* an idle window starts */
#define XB_TRACE_MARK_TRAFFIC 0xFFFFFFF1u /* the traffic window starts (the idle one ends) */
#define XB_TRACE_MARK_END     0xFFFFFFF2u /* the traffic window ends */

void trace_init(xb_trace *t);
void trace_free(xb_trace *t);
void trace_push(xb_trace *t, uint32_t addr);
/* Marks an echo boundary before the next pushed address. */
void trace_mark_echo(xb_trace *t);

/* Reads a trace file; the binary form is recognised by its magic, anything else is read
 * as text. Errors name the file and, for text, the line ("t.txt:12: bad hex address
 * 'xyz'"); for binary, the byte offset ("t.bin: byte 40: truncated varint"). Both
 * initialise *t themselves (pass an empty or uninitialised trace: nothing in it is freed)
 * and leave it empty on error. Never crash on any input. */
int trace_read_file(xb_trace *t, const char *path, xb_err *err);
int trace_parse(xb_trace *t, const uint8_t *data, size_t len, const char *name, xb_err *err);

/* Writers (atomic: temporary file + rename). */
int trace_write_binary(const xb_trace *t, const char *path, xb_err *err);
int trace_write_text(const xb_trace *t, const char *path, xb_err *err);

/* The same two forms appended to a buffer (what the writers write). */
void trace_encode_binary(const xb_trace *t, xb_strbuf *out);
void trace_encode_text(const xb_trace *t, xb_strbuf *out);

/* Streaming binary writer for long runs (the virtual Pico's --trace): records go to f as
 * they come (open writes the magic); trace_stream_close writes nothing more than a
 * terminator, then flushes f. The caller opens and closes f. A file whose writer never
 * closed lacks the terminator and reads as truncated. */
typedef struct xb_trace_stream {
	FILE *f;
	uint32_t prev;
	int failed;
} xb_trace_stream;
int trace_stream_open(xb_trace_stream *s, FILE *f);
void trace_stream_push(xb_trace_stream *s, uint32_t addr);
void trace_stream_mark_echo(xb_trace_stream *s);
int trace_stream_close(xb_trace_stream *s); /* returns -1 if any write failed */

/* Range of indices counted for echo i: [*begin, *end). */
void trace_echo_range(const xb_trace *t, size_t i, size_t *begin, size_t *end);
/* Number of counted echoes (necho, or 1 when there is no boundary). */
size_t trace_echo_count(const xb_trace *t);
/* Index of the first counted fetch (echo[0], or 0). */
size_t trace_counted_from(const xb_trace *t);

#endif
