/* PL011 UART driver: baud rate divisors, line format, blocking I/O. */
#include "hardware/uart.h"
#include "hardware/resets.h"
#include "hardware/timer.h"

#define UART_UARTLCR_H_FEN_BITS 0x10u
#define UART_UARTCR_UARTEN_BITS 0x001u
#define UART_UARTCR_TXE_BITS 0x100u
#define UART_UARTCR_RXE_BITS 0x200u
#define UART_UARTDMACR_TXDMAE_BITS 0x2u
#define UART_UARTDMACR_RXDMAE_BITS 0x1u

static uint uart_char_bits[NUM_UARTS];

static inline void uart_reset(uart_inst_t *uart)
{
    reset_block(1u << (uart_get_index(uart) ? RESET_UART1 : RESET_UART0));
}

static inline void uart_unreset(uart_inst_t *uart)
{
    unreset_block_wait(1u << (uart_get_index(uart) ? RESET_UART1 : RESET_UART0));
}

uint uart_init(uart_inst_t *uart, uint baudrate)
{
    uart_reset(uart);
    uart_unreset(uart);
    uint baud = uart_set_baudrate(uart, baudrate);
    uart_set_format(uart, 8, 1, UART_PARITY_NONE);
    UART_REG(uart, UART_UARTCR_OFFSET) = UART_UARTCR_UARTEN_BITS | UART_UARTCR_TXE_BITS | UART_UARTCR_RXE_BITS;
    hw_set_bits(&UART_REG(uart, UART_UARTLCR_H_OFFSET), UART_UARTLCR_H_FEN_BITS);
    UART_REG(uart, UART_UARTDMACR_OFFSET) = UART_UARTDMACR_TXDMAE_BITS | UART_UARTDMACR_RXDMAE_BITS;
    return baud;
}

void uart_deinit(uart_inst_t *uart)
{
    uart_reset(uart);
}

uint uart_set_baudrate(uart_inst_t *uart, uint baudrate)
{
    uint32_t baud_rate_div = (8u * 48000000u / baudrate) + 1u;
    uint32_t baud_ibrd = baud_rate_div >> 7u;
    uint32_t baud_fbrd;
    if (baud_ibrd == 0) {
        baud_ibrd = 1;
        baud_fbrd = 0;
    } else if (baud_ibrd >= 65535) {
        baud_ibrd = 65535;
        baud_fbrd = 0;
    } else {
        baud_fbrd = (baud_rate_div & 0x7fu) >> 1u;
    }
    UART_REG(uart, UART_UARTIBRD_OFFSET) = baud_ibrd;
    UART_REG(uart, UART_UARTFBRD_OFFSET) = baud_fbrd;
    /* a write to LCR_H latches the divisors */
    hw_set_bits(&UART_REG(uart, UART_UARTLCR_H_OFFSET), 0);
    return (4u * 48000000u) / (64u * baud_ibrd + baud_fbrd);
}

void uart_set_format(uart_inst_t *uart, uint data_bits, uint stop_bits, uart_parity_t parity)
{
    uint32_t lcr = ((data_bits - 5u) << 5u) | ((stop_bits - 1u) << 3u);
    if (parity != UART_PARITY_NONE)
        lcr |= 0x2u | (parity == UART_PARITY_EVEN ? 0x4u : 0u);
    hw_write_masked(&UART_REG(uart, UART_UARTLCR_H_OFFSET), lcr, 0x6eu);
    uart_char_bits[uart_get_index(uart)] = 1u + data_bits + stop_bits + (parity != UART_PARITY_NONE);
}

void uart_set_fifo_enabled(uart_inst_t *uart, bool enabled)
{
    hw_write_masked(&UART_REG(uart, UART_UARTLCR_H_OFFSET), enabled ? UART_UARTLCR_H_FEN_BITS : 0u,
                    UART_UARTLCR_H_FEN_BITS);
}

void uart_set_irq_enables(uart_inst_t *uart, bool rx_has_data, bool tx_needs_data)
{
    UART_REG(uart, UART_UARTIMSC_OFFSET) = (rx_has_data ? 0x50u : 0u) | (tx_needs_data ? 0x20u : 0u);
}

void uart_putc_raw(uart_inst_t *uart, char c)
{
    while (!uart_is_writable(uart))
        __compiler_memory_barrier();
    UART_REG(uart, UART_UARTDR_OFFSET) = (uint8_t)c;
}

void uart_write_blocking(uart_inst_t *uart, const uint8_t *src, size_t len)
{
    for (size_t i = 0; i < len; i++)
        uart_putc_raw(uart, (char)src[i]);
}

void uart_puts(uart_inst_t *uart, const char *s)
{
    while (*s) {
        if (*s == '\n')
            uart_putc_raw(uart, '\r');
        uart_putc_raw(uart, *s++);
    }
}

char uart_getc(uart_inst_t *uart)
{
    while (!uart_is_readable(uart))
        __compiler_memory_barrier();
    return (char)UART_REG(uart, UART_UARTDR_OFFSET);
}

void uart_read_blocking(uart_inst_t *uart, uint8_t *dst, size_t len)
{
    for (size_t i = 0; i < len; i++)
        dst[i] = (uint8_t)uart_getc(uart);
}

void uart_tx_wait_blocking(uart_inst_t *uart)
{
    while (UART_REG(uart, UART_UARTFR_OFFSET) & UART_UARTFR_BUSY_BITS)
        __compiler_memory_barrier();
}

bool uart_is_readable_within_us(uart_inst_t *uart, uint32_t us)
{
    uint32_t t = time_us_32();
    do {
        if (uart_is_readable(uart))
            return true;
    } while ((time_us_32() - t) <= us);
    return false;
}
