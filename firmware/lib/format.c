/* format.c: the printf-style formatter behind log, console and snprintk. */
#include <stdint.h>

#include "sys/format.h"

struct format_state {
	format_out_fn out;
	void *ctx;
	int count;
};

static void emit(struct format_state *s, char c)
{
	s->out(c, s->ctx);
	s->count++;
}

static void emit_padded(struct format_state *s, const char *str, int len, int width, int zero,
			int left)
{
	int pad = width > len ? width - len : 0;
	if (!left) {
		/* A sign goes before zero padding. */
		if (zero && len > 0 && str[0] == '-') {
			emit(s, '-');
			str++;
			len--;
		}
		while (pad-- > 0)
			emit(s, zero ? '0' : ' ');
	}
	for (int i = 0; i < len; i++)
		emit(s, str[i]);
	if (left)
		while (pad-- > 0)
			emit(s, ' ');
}

/* Digits of v in base (10 or 16), written backwards into the end of buf. */
static int utoa_rev(uint32_t v, unsigned base, int upper, char *end)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0;
	do {
		*--end = digits[base == 16 ? (v & 15u) : (v % 10u)];
		v = base == 16 ? v >> 4 : v / 10u;
		n++;
	} while (v);
	return n;
}

int format_v(format_out_fn out, void *ctx, const char *fmt, va_list ap)
{
	struct format_state s = {out, ctx, 0};
	char buf[12];
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			emit(&s, *fmt);
			continue;
		}
		fmt++;
		int left = 0, zero = 0, width = 0;
		for (;; fmt++) {
			if (*fmt == '-')
				left = 1;
			else if (*fmt == '0')
				zero = 1;
			else
				break;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l' || *fmt == 'z')
			fmt++;
		char *end = buf + sizeof(buf);
		int n;
		switch (*fmt) {
		case 'd':
		case 'i': {
			int32_t v = va_arg(ap, int32_t);
			uint32_t mag = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
			n = utoa_rev(mag, 10, 0, end);
			if (v < 0) {
				*(end - n - 1) = '-';
				n++;
			}
			emit_padded(&s, end - n, n, width, zero, left);
			break;
		}
		case 'u':
			n = utoa_rev(va_arg(ap, uint32_t), 10, 0, end);
			emit_padded(&s, end - n, n, width, zero, left);
			break;
		case 'x':
		case 'X':
			n = utoa_rev(va_arg(ap, uint32_t), 16, *fmt == 'X', end);
			emit_padded(&s, end - n, n, width, zero, left);
			break;
		case 'p':
			emit(&s, '0');
			emit(&s, 'x');
			n = utoa_rev((uint32_t)va_arg(ap, void *), 16, 0, end);
			emit_padded(&s, end - n, n, 8, 1, 0);
			break;
		case 'c':
			buf[0] = (char)va_arg(ap, int);
			emit_padded(&s, buf, 1, width, 0, left);
			break;
		case 's': {
			const char *str = va_arg(ap, const char *);
			if (!str)
				str = "(null)";
			int len = 0;
			while (str[len])
				len++;
			emit_padded(&s, str, len, width, 0, left);
			break;
		}
		case '%':
			emit(&s, '%');
			break;
		case '\0':
			return s.count;
		default:
			emit(&s, '%');
			emit(&s, *fmt);
			break;
		}
	}
	return s.count;
}

struct buf_ctx {
	char *buf;
	size_t size, len;
};

static void buf_out(char c, void *ctx)
{
	struct buf_ctx *b = ctx;
	if (b->len + 1 < b->size)
		b->buf[b->len] = c;
	b->len++;
}

int vsnprintk(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct buf_ctx b = {buf, size, 0};
	int n = format_v(buf_out, &b, fmt, ap);
	if (size > 0)
		buf[b.len < size ? b.len : size - 1] = '\0';
	return n;
}

int snprintk(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintk(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
