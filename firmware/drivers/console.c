/* console.c: console output through a ring buffer drained by the UART0 TX interrupt. */
#include <stdarg.h>

#include "drivers/console.h"
#include "drivers/uart.h"
#include "kernel/kernel.h"
#include "sys/format.h"

#define CONSOLE_BAUD 115200u
#define RING_SIZE 4096u /* a power of two */

static char ring[RING_SIZE];
static uint32_t head, tail; /* free-running: head - tail bytes are queued */
static uint32_t dropped;
static bool ready, panicked;

/* Hands queued bytes to the UART FIFO until either runs out; interrupts locked. */
static void ring_drain(void)
{
	while (head != tail) {
		uint32_t at = tail & (RING_SIZE - 1);
		uint32_t run = MIN(head - tail, RING_SIZE - at);
		size_t n = uart_fifo_fill((const uint8_t *)&ring[at], run);
		tail += n;
		if (n < run)
			return; /* FIFO full: the TX interrupt continues */
	}
}

static void console_uart_isr(void)
{
	ring_drain();
	if (head == tail)
		uart_irq_tx_disable();
}

void console_init(void)
{
	uart_init(CONSOLE_BAUD);
	uart_irq_callback_set(console_uart_isr);
	ready = true;
}

void console_write(const char *s, size_t n)
{
	if (!ready)
		return;
	if (panicked) {
		while (n--)
			uart_poll_out(*s++);
		return;
	}
	unsigned key = irq_lock();
	for (size_t i = 0; i < n; i++) {
		if (head - tail == RING_SIZE) {
			dropped += (uint32_t)(n - i);
			break;
		}
		ring[head++ & (RING_SIZE - 1)] = s[i];
	}
	if (!uart_irq_tx_enabled()) {
		ring_drain();
		if (head != tail)
			uart_irq_tx_enable();
	}
	irq_unlock(key);
}

/* printk collects output in chunks so that the ring is locked once per chunk. */
struct printk_buf {
	char buf[64];
	size_t len;
};

static void printk_out(char c, void *ctx)
{
	struct printk_buf *b = ctx;
	b->buf[b->len++] = c;
	if (b->len == sizeof(b->buf)) {
		console_write(b->buf, b->len);
		b->len = 0;
	}
}

int printk(const char *fmt, ...)
{
	struct printk_buf b = {.len = 0};
	va_list ap;
	va_start(ap, fmt);
	int n = format_v(printk_out, &b, fmt, ap);
	va_end(ap);
	console_write(b.buf, b.len);
	return n;
}

void console_flush(void)
{
	while (head != tail)
		k_msleep(1);
	uart_flush();
}

uint32_t console_dropped(void)
{
	return dropped;
}

void console_panic(void)
{
	if (!ready)
		return;
	uart_irq_tx_disable();
	while (head != tail)
		uart_poll_out(ring[tail++ & (RING_SIZE - 1)]);
	panicked = true;
}

static void panic_out(char c, void *ctx)
{
	UNUSED(ctx);
	if (ready)
		uart_poll_out(c);
}

void console_panic_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	format_v(panic_out, NULL, fmt, ap);
	va_end(ap);
	uart_flush();
}
