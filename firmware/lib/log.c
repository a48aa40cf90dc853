/* log.c: formats log lines with an uptime stamp and queues them on the console. */
#include <stdarg.h>
#include <string.h>

#include "drivers/console.h"
#include "kernel/kernel.h"
#include "sys/format.h"
#include "sys/log.h"

#define LINE_MAX 160

extern struct log_source __log_sources_start[], __log_sources_end[];

static const char *const level_names[] = {"", "err", "wrn", "inf", "dbg"};
static uint32_t lines;

struct line_buf {
	char buf[LINE_MAX];
	size_t len;
};

static void line_out(char c, void *ctx)
{
	struct line_buf *l = ctx;
	if (l->len < LINE_MAX - 2) /* room kept for the line end */
		l->buf[l->len++] = c;
}

static void line_printf(struct line_buf *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	format_v(line_out, l, fmt, ap);
	va_end(ap);
}

static void line_start(struct line_buf *l, const struct log_source *src, enum log_level lvl)
{
	uint32_t ms = k_uptime_get_32();
	l->len = 0;
	line_printf(l, "[%5u.%03u] <%s> %s: ", ms / 1000u, ms % 1000u, level_names[lvl], src->name);
}

static void line_end(struct line_buf *l)
{
	l->buf[l->len++] = '\r';
	l->buf[l->len++] = '\n';
	console_write(l->buf, l->len);
	lines++;
}

void log_msg(const struct log_source *src, enum log_level lvl, const char *fmt, ...)
{
	struct line_buf l;
	line_start(&l, src, lvl);
	va_list ap;
	va_start(ap, fmt);
	format_v(line_out, &l, fmt, ap);
	va_end(ap);
	line_end(&l);
}

void log_hexdump(const struct log_source *src, enum log_level lvl, const void *data, size_t len,
		 const char *what)
{
	const uint8_t *p = data;
	struct line_buf l;
	line_start(&l, src, lvl);
	line_printf(&l, "%s (%u bytes)", what, (unsigned)len);
	line_end(&l);
	for (size_t off = 0; off < len; off += 16) {
		l.len = 0;
		line_printf(&l, "    %04x:", (unsigned)off);
		for (size_t i = off; i < len && i < off + 16; i++)
			line_printf(&l, " %02x", p[i]);
		line_end(&l);
	}
}

int log_level_set(const char *name, enum log_level lvl)
{
	int n = 0;
	for (struct log_source *s = __log_sources_start; s < __log_sources_end; s++) {
		if (strcmp(name, "*") == 0 || strcmp(name, s->name) == 0) {
			s->level = (uint8_t)lvl;
			n++;
		}
	}
	return n;
}

uint32_t log_lines(void)
{
	return lines;
}
