/* format.h: a small printf-style formatter (no floating point, no 64-bit conversions) that
 * writes through a callback; log, console and snprintk use it. */
#ifndef SYS_FORMAT_H
#define SYS_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/* Receives each output character. */
typedef void (*format_out_fn)(char c, void *ctx);

/* Supports %d %i %u %x %X %c %s %p %% with flags '-' and '0', a width and the length
 * modifiers l and z (ignored: int, long and size_t are all 32 bits here). Returns the
 * number of characters produced. */
int format_v(format_out_fn out, void *ctx, const char *fmt, va_list ap);

/* Formats into buf (always NUL-terminated when size > 0); returns the length it wanted. */
int snprintk(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vsnprintk(char *buf, size_t size, const char *fmt, va_list ap);

#endif
