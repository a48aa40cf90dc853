/* The two PL011 UARTs. */
#ifndef _HARDWARE_UART_H
#define _HARDWARE_UART_H

#include "pico.h"
#include "hardware/address_mapped.h"

typedef struct uart_inst uart_inst_t;

#define uart0 ((uart_inst_t *)UART0_BASE)
#define uart1 ((uart_inst_t *)UART1_BASE)

#define UART_UARTDR_OFFSET 0x00
#define UART_UARTFR_OFFSET 0x18
#define UART_UARTIBRD_OFFSET 0x24
#define UART_UARTFBRD_OFFSET 0x28
#define UART_UARTLCR_H_OFFSET 0x2c
#define UART_UARTCR_OFFSET 0x30
#define UART_UARTIMSC_OFFSET 0x38
#define UART_UARTDMACR_OFFSET 0x48

#define UART_UARTFR_TXFF_BITS 0x20u
#define UART_UARTFR_RXFE_BITS 0x10u
#define UART_UARTFR_BUSY_BITS 0x08u

#define UART_REG(uart, off) (*(io_rw_32 *)((uintptr_t)(uart) + (off)))

typedef enum { UART_PARITY_NONE, UART_PARITY_EVEN, UART_PARITY_ODD } uart_parity_t;

static inline uint uart_get_index(uart_inst_t *uart)
{
    return uart == uart1 ? 1 : 0;
}

static inline bool uart_is_writable(uart_inst_t *uart)
{
    return !(UART_REG(uart, UART_UARTFR_OFFSET) & UART_UARTFR_TXFF_BITS);
}

static inline bool uart_is_readable(uart_inst_t *uart)
{
    return !(UART_REG(uart, UART_UARTFR_OFFSET) & UART_UARTFR_RXFE_BITS);
}

uint uart_init(uart_inst_t *uart, uint baudrate);
void uart_deinit(uart_inst_t *uart);
uint uart_set_baudrate(uart_inst_t *uart, uint baudrate);
void uart_set_format(uart_inst_t *uart, uint data_bits, uint stop_bits, uart_parity_t parity);
void uart_set_fifo_enabled(uart_inst_t *uart, bool enabled);
void uart_set_irq_enables(uart_inst_t *uart, bool rx_has_data, bool tx_needs_data);
void uart_write_blocking(uart_inst_t *uart, const uint8_t *src, size_t len);
void uart_read_blocking(uart_inst_t *uart, uint8_t *dst, size_t len);
void uart_putc_raw(uart_inst_t *uart, char c);
void uart_puts(uart_inst_t *uart, const char *s);
char uart_getc(uart_inst_t *uart);
void uart_tx_wait_blocking(uart_inst_t *uart);
bool uart_is_readable_within_us(uart_inst_t *uart, uint32_t us);

#endif
