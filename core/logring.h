/* logring: the session's log: xipbench's messages, the board's UART0 output, build and
 * flash output, each line with a time, a source and a level, in a fixed ring (the oldest
 * lines go first), for the log panel. */
#ifndef XB_LOGRING_H
#define XB_LOGRING_H

#include <stddef.h>
#include <stdint.h>

enum xb_log_source { XB_LOG_XIPBENCH = 0, XB_LOG_UART, XB_LOG_BUILD };
enum xb_log_level { XB_LOG_INFO = 0, XB_LOG_WARN, XB_LOG_ERROR };

#define XB_LOGRING_LINE 240 /* bytes of a line kept (longer lines are cut, "..." appended) */

typedef struct xb_log_line {
	uint64_t t_ns;
	uint64_t seq;      /* 1 for the first line ever added */
	uint8_t source;    /* enum xb_log_source */
	uint8_t level;     /* enum xb_log_level */
	char text[XB_LOGRING_LINE + 4];
} xb_log_line;

typedef struct xb_logring {
	xb_log_line *lines;
	size_t cap, n;     /* ring of cap; n kept */
	size_t head;       /* slot of the next line */
	uint64_t seq;      /* lines ever added */
	/* partial lines of byte streams (UART, build output), per source */
	char partial[3][XB_LOGRING_LINE + 1];
	size_t partial_len[3];
} xb_logring;

void logring_init(xb_logring *r, size_t cap);
void logring_free(xb_logring *r);
/* One line (a trailing newline is dropped; inner newlines split it into several lines;
 * "\r\n" ends a line like "\n"; ANSI escape sequences such as the colours of Zephyr's log
 * output are dropped; other control characters than tab become '?'). A UART line at
 * level info whose text holds Zephyr's "<err>" or "<wrn>" gets level error or warn. */
void logring_add(xb_logring *r, uint64_t t_ns, int source, int level, const char *text);
void logring_printf(xb_logring *r, uint64_t t_ns, int source, int level, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Bytes of a stream (UART0): complete lines are added as they end ("\n", "\r\n"); a
 * partial line waits for the rest (cut at XB_LOGRING_LINE). */
void logring_bytes(xb_logring *r, uint64_t t_ns, int source, const uint8_t *bytes, size_t n);
/* Lines kept, and line i from the oldest kept (0) to the newest (count - 1). */
size_t logring_count(const xb_logring *r);
const xb_log_line *logring_get(const xb_logring *r, size_t i);
const char *logring_source_name(int source); /* "xipbench", "uart", "build" */

#endif
