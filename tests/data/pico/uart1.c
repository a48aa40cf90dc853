/* uart1.c: UART1 brought up as pico-sdk's uart_init(uart1, 115200) does, on GPIO4 (its TX
 * pin with FUNCSEL 2, which then idles high): two lines of text through it, timed to the
 * line's last stop bit; the transmit interrupt (UART1_IRQ, 21) raised as the FIFO drains
 * through its trigger level (half, IFLS's reset value), not while it is above it; UART0 left
 * alone. */
#include "rt.h"

#define UART1 0x40038000u
#define RESET_UART1 (1u << 23)
#define NVIC_ISPR REG(0xE000E200u)

static void put1(const char *s)
{
	while (*s) {
		while (REG(UART1 + 0x18) & 0x20) /* TXFF */
			;
		REG(UART1 + 0x00) = (uint8_t)*s++;
	}
}

int main(void)
{
	rt_reset_block(RESET_UART1);
	REG(IO_BANK0_BASE + 8 * 4 + 4) = 2; /* GPIO4: UART1 TX */
	uint32_t div = 8 * CPU_HZ / 115200 + 1;
	REG(UART1 + 0x24) = div >> 7;
	REG(UART1 + 0x28) = (div & 0x7F) >> 1;
	REG(UART1 + 0x2C) = 0x70;
	REG(UART1 + 0x30) = 0x301;
	rt_puts("uart1 periphid ");
	rt_put_hex(REG(UART1 + 0xFE0));
	rt_puts(" gpio4 status ");
	rt_put_hex(REG(IO_BANK0_BASE + 8 * 4));
	rt_putc('\n');
	rt_flush();
	uint32_t t0 = rt_time_us();
	put1("hello from uart1\r\n");
	put1("second line\n");
	/* 30 bytes: 29 in the FIFO, above the trigger level: no transmit interrupt yet. */
	uint32_t ris_full = REG(UART1 + 0x3C) & 0x20;
	while (REG(UART1 + 0x18) & 0x08) /* BUSY */
		;
	uint32_t us = rt_time_us() - t0;
	NVIC_ICPR = 1u << 21;
	REG(UART1 + 0x38) = 0x20; /* TXIM */
	rt_puts("uart1 30 bytes in ");
	rt_put_dec(us);
	rt_puts(" us ris while full ");
	rt_put_dec(ris_full >> 5);
	rt_puts(" irq ");
	rt_put_dec((NVIC_ISPR >> 21) & 1);
	rt_puts(" uart0 irq ");
	rt_put_dec((NVIC_ISPR >> 20) & 1);
	rt_putc('\n');
	REG(UART1 + 0x38) = 0;
	return 0;
}
