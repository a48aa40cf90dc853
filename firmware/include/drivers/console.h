/* console.h: the text console on UART0: a ring buffer the UART interrupt drains, so that
 * printing never waits for the wire; a polled mode for panics. */
#ifndef DRIVERS_CONSOLE_H
#define DRIVERS_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

/* Brings up UART0 at 115200 and the ring. Output before this is lost. */
void console_init(void);
/* Queues n bytes; what does not fit is dropped and counted. Any context. */
void console_write(const char *s, size_t n);
/* printf-style output to the console (sys/format.h conversions). */
int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Waits until everything queued has been handed to the UART (threads only). */
void console_flush(void);
/* Bytes dropped because the ring was full. */
uint32_t console_dropped(void);
/* Panic mode: interrupts are off for good; writes the ring out by polling, then prints
 * synchronously from here on. */
void console_panic(void);
void console_panic_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
