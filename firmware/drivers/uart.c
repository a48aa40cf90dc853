/* uart.c: UART0 (an Arm PL011) at 115200 8N1 on GPIO0/1, polled or interrupt driven. */
#include "drivers/clock.h"
#include "drivers/uart.h"
#include "kernel/kernel.h"
#include "rp2040/regs.h"

#define UART_REG(off) (UART0_BASE + (off))
#define UART_IRQ_PRIO 3

static uart_irq_callback_t irq_callback;
static void uart0_isr(const void *arg);
static bool tx_irq_on;

static void gpio_set_uart(unsigned pin)
{
	/* Input enabled, output not disabled, as gpio_set_function leaves the pad. */
	hw_write_masked(PADS_BANK0_GPIO(pin), PADS_IE, PADS_IE | PADS_OD);
	hw_write(IO_BANK0_GPIO_CTRL(pin), GPIO_FUNC_UART);
}

uint32_t uart_init(uint32_t baud)
{
	reset_block(RESET_UART0);
	unreset_block_wait(RESET_UART0);

	/* Baud divisor in 1/64ths, rounded: div = 8 * clk / baud + 1, IBRD = div >> 7. */
	uint32_t clk = clock_get_hz(CLK_PERI);
	uint32_t div = 8u * clk / baud + 1u;
	uint32_t ibrd = div >> 7, fbrd = (div & 0x7F) >> 1;
	if (ibrd == 0) {
		ibrd = 1;
		fbrd = 0;
	} else if (ibrd >= 0xFFFF) {
		ibrd = 0xFFFF;
		fbrd = 0;
	}
	hw_write(UART_REG(UART_IBRD), ibrd);
	hw_write(UART_REG(UART_FBRD), fbrd);
	/* The LCR_H write latches the divisors. */
	hw_write(UART_REG(UART_LCR_H), UART_LCR_H_WLEN_8 | UART_LCR_H_FEN);
	hw_write(UART_REG(UART_CR), UART_CR_UARTEN | UART_CR_TXE | UART_CR_RXE);
	gpio_set_uart(0);
	gpio_set_uart(1);

	irq_connect(IRQ_UART0, UART_IRQ_PRIO, uart0_isr, NULL);
	irq_enable(IRQ_UART0);
	return 4u * clk / (64u * ibrd + fbrd);
}

void uart_poll_out(char c)
{
	while (hw_read(UART_REG(UART_FR)) & UART_FR_TXFF)
		;
	hw_write(UART_REG(UART_DR), (uint8_t)c);
}

size_t uart_fifo_fill(const uint8_t *buf, size_t len)
{
	size_t n = 0;
	while (n < len && !(hw_read(UART_REG(UART_FR)) & UART_FR_TXFF))
		hw_write(UART_REG(UART_DR), buf[n++]);
	return n;
}

void uart_flush(void)
{
	while (hw_read(UART_REG(UART_FR)) & UART_FR_BUSY)
		;
}

void uart_irq_callback_set(uart_irq_callback_t cb)
{
	irq_callback = cb;
}

void uart_irq_tx_enable(void)
{
	tx_irq_on = true;
	hw_set_bits(UART_REG(UART_IMSC), UART_INT_TX);
}

void uart_irq_tx_disable(void)
{
	tx_irq_on = false;
	hw_clear_bits(UART_REG(UART_IMSC), UART_INT_TX);
	hw_write(UART_REG(UART_ICR), UART_INT_TX);
}

bool uart_irq_tx_enabled(void)
{
	return tx_irq_on;
}

static void uart0_isr(const void *arg)
{
	UNUSED(arg);
	if ((hw_read(UART_REG(UART_MIS)) & UART_INT_TX) && irq_callback)
		irq_callback();
}
