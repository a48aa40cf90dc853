/* uart1.c: UART1 brought up as pico-sdk's uart_init(uart1, 115200) does, on GPIO4 (its TX
 * pin with FUNCSEL 2, which then idles high): a line of text through it, UART1_IRQ (21)
 * from TXIM, and UART0 left alone. */
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
	put1("hello from uart1\r\n");
	put1("second line\n");
	NVIC_ICPR = 1u << 21;
	REG(UART1 + 0x38) = 0x20; /* TXIM */
	rt_puts("uart1 irq ");
	rt_put_dec((NVIC_ISPR >> 21) & 1);
	rt_puts(" uart0 irq ");
	rt_put_dec((NVIC_ISPR >> 20) & 1);
	rt_putc('\n');
	REG(UART1 + 0x38) = 0;
	return 0;
}
