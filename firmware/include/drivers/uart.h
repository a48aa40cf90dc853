/* uart.h: the UART0 driver (PL011 on GPIO0/1): polled output and an interrupt-driven
 * transmit path for the console. */
#ifndef DRIVERS_UART_H
#define DRIVERS_UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Called from the UART interrupt while the transmitter wants data. */
typedef void (*uart_irq_callback_t)(void);

/* Takes UART0 out of reset, sets baud (8N1, FIFOs on) for clk_peri and routes GPIO0 (TX)
 * and GPIO1 (RX) to it. Returns the baud rate actually set. */
uint32_t uart_init(uint32_t baud);
/* Waits for room in the FIFO, then queues c. */
void uart_poll_out(char c);
/* Queues as many bytes of buf as the FIFO takes now; returns how many. */
size_t uart_fifo_fill(const uint8_t *buf, size_t len);
/* Waits until the last bit has left. */
void uart_flush(void);
void uart_irq_callback_set(uart_irq_callback_t cb);
void uart_irq_tx_enable(void);
void uart_irq_tx_disable(void);
bool uart_irq_tx_enabled(void);

#endif
