/* rt.c: start-up and runtime of the virtual Pico test programs: an empty boot2, the vector
 * table at 0x10000100, .data/.bss set-up, the bring-up an SDK program does before main
 * (resets, XOSC, PLLs at 125 and 48 MHz, clocks, 1 us watchdog tick, UART0 at 115200 on
 * GPIO0/1), printing, the timer, and the fault and exit paths. */
#include <stddef.h>

#include "rt.h"

/* The virtual board does not run boot2: its bootrom goes straight to the vector table. */
__attribute__((section(".boot2"), used)) const uint8_t rt_boot2[256];

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end, __stack_top;

void rt_reset(void);
void isr_default(void);
#define RT_WEAK_ISR(name) void name(void) __attribute__((weak, alias("isr_default")))
RT_WEAK_ISR(isr_nmi);
RT_WEAK_ISR(isr_svcall);
RT_WEAK_ISR(isr_pendsv);
RT_WEAK_ISR(isr_systick);
RT_WEAK_ISR(isr_timer0);
RT_WEAK_ISR(isr_timer1);
RT_WEAK_ISR(isr_timer2);
RT_WEAK_ISR(isr_timer3);
void isr_hardfault(void);

typedef void (*rt_vector)(void);
__attribute__((section(".vectors"), used)) const rt_vector rt_vectors[48] = {
	(rt_vector)&__stack_top, rt_reset, isr_nmi, isr_hardfault,
	isr_default, isr_default, isr_default, isr_default, isr_default, isr_default,
	isr_default, isr_svcall, isr_default, isr_default, isr_pendsv, isr_systick,
	isr_timer0, isr_timer1, isr_timer2, isr_timer3,
	[20 ... 47] = isr_default,
};

/* gcc may turn loops into calls to these. */
void *memcpy(void *d, const void *s, size_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;
	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memset(void *d, int c, size_t n)
{
	uint8_t *dp = d;
	while (n--)
		*dp++ = (uint8_t)c;
	return d;
}

/* ---- Printing ---- */

void rt_putc(char c)
{
	while (UART_FR & UART_FR_TXFF)
		;
	UART_DR = (uint8_t)c;
}

void rt_puts(const char *s)
{
	while (*s)
		rt_putc(*s++);
}

void rt_flush(void)
{
	while (UART_FR & UART_FR_BUSY)
		;
}

/* ---- Core 1 ---- */

void rt_fifo_drain(void)
{
	while (SIO_FIFO_ST & FIFO_VLD)
		(void)SIO_FIFO_RD;
}

void rt_fifo_push(uint32_t v)
{
	while (!(SIO_FIFO_ST & FIFO_RDY))
		;
	SIO_FIFO_WR = v;
	rt_sev();
}

uint32_t rt_fifo_pop(void)
{
	while (!(SIO_FIFO_ST & FIFO_VLD))
		rt_wfe();
	return SIO_FIFO_RD;
}

unsigned rt_launch_core1(void (*entry)(void), uint32_t *sp, uint32_t vtor)
{
	const uint32_t seq[] = {0, 0, 1, vtor, (uint32_t)(uintptr_t)sp, (uint32_t)(uintptr_t)entry};
	unsigned i = 0, sent = 0;
	do {
		uint32_t cmd = seq[i];
		if (!cmd) {
			rt_fifo_drain();
			rt_sev();
		}
		rt_fifo_push(cmd);
		sent++;
		uint32_t resp = rt_fifo_pop();
		i = cmd == resp ? i + 1 : 0;
	} while (i < sizeof seq / sizeof seq[0] && sent < 100);
	return sent;
}

void rt_put_dec64(uint64_t v)
{
	char buf[21];
	int i = 20;
	buf[i] = 0;
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	rt_puts(buf + i);
}

void rt_put_dec(uint32_t v)
{
	char buf[11];
	int i = 10;
	buf[i] = 0;
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	rt_puts(buf + i);
}

void rt_put_sdec64(int64_t v)
{
	if (v < 0) {
		rt_putc('-');
		rt_put_dec64(0 - (uint64_t)v);
	} else {
		rt_put_dec64((uint64_t)v);
	}
}

void rt_put_hex(uint32_t v)
{
	for (int i = 28; i >= 0; i -= 4)
		rt_putc("0123456789abcdef"[(v >> i) & 15]);
}

/* ---- Time ---- */

uint32_t rt_time_us(void)
{
	return TIMER_RAWL;
}

uint64_t rt_time_us64(void)
{
	uint32_t hi = TIMER_RAWH, lo, next;
	for (;;) {
		lo = TIMER_RAWL;
		next = TIMER_RAWH;
		if (next == hi)
			return (uint64_t)hi << 32 | lo;
		hi = next;
	}
}

/* ---- Bring-up ---- */

static void rt_unreset_wait(uint32_t bits)
{
	REG_CLR(RESETS_RESET) = bits;
	while (~REG(RESETS_DONE) & bits)
		;
}

void rt_reset_block(uint32_t bits)
{
	REG_SET(RESETS_RESET) = bits;
	rt_unreset_wait(bits);
}

static void rt_pll_init(uint32_t base, uint32_t reset_bit, uint32_t fbdiv, uint32_t pd1,
			uint32_t pd2)
{
	rt_reset_block(reset_bit);
	REG(base + 0x0) = 1;                  /* CS: REFDIV 1 */
	REG(base + 0x8) = fbdiv;              /* FBDIV_INT */
	REG_CLR(base + 0x4) = 0x21;           /* PWR: power up PD and VCOPD */
	while (!(REG(base + 0x0) & 0x80000000u)) /* CS.LOCK */
		;
	REG(base + 0xC) = pd1 << 16 | pd2 << 12; /* PRIM */
	REG_CLR(base + 0x4) = 0x08;           /* POSTDIVPD */
}

static void rt_clocks_init(void)
{
	REG(CLOCKS_BASE + 0x78) = 0; /* SYS_RESUS_CTRL */
	REG(XOSC_BASE + 0x00) = 0xAA0;             /* CTRL: 1-15 MHz */
	REG(XOSC_BASE + 0x0C) = (12000 + 128) / 256 * 6; /* STARTUP: 1 ms x 6 */
	REG_SET(XOSC_BASE + 0x00) = 0xFAB000;       /* enable */
	while (!(REG(XOSC_BASE + 0x04) & 0x80000000u))
		;
	REG_CLR(CLOCKS_BASE + 0x3C) = 1; /* clk_sys from clk_ref while the PLLs change */
	while (REG(CLOCKS_BASE + 0x44) != 1)
		;
	REG_CLR(CLOCKS_BASE + 0x30) = 3; /* clk_ref from the ROSC */
	while (REG(CLOCKS_BASE + 0x38) != 1)
		;
	rt_pll_init(PLL_SYS_BASE, RESET_PLL_SYS, 125, 6, 2); /* 1500 MHz / 12 = 125 MHz */
	rt_pll_init(PLL_USB_BASE, RESET_PLL_USB, 100, 5, 5); /* 1200 MHz / 25 = 48 MHz */
	REG(CLOCKS_BASE + 0x34) = 1u << 8;                     /* clk_ref = XOSC / 1 */
	REG_XOR(CLOCKS_BASE + 0x30) = (REG(CLOCKS_BASE + 0x30) ^ 2) & 3;
	while (!(REG(CLOCKS_BASE + 0x38) & (1u << 2)))
		;
	REG(CLOCKS_BASE + 0x40) = 1u << 8;      /* clk_sys = PLL_SYS / 1 */
	REG_SET(CLOCKS_BASE + 0x3C) = 1;        /* SRC = aux (AUXSRC 0 = PLL_SYS) */
	while (!(REG(CLOCKS_BASE + 0x44) & (1u << 1)))
		;
	REG(CLOCKS_BASE + 0x48) = 1u << 11;     /* clk_peri = clk_sys, enabled */
	REG(WATCHDOG_TICK) = 12 | 0x200;         /* 1 us from the 12 MHz clk_ref */
}

static void rt_uart_init(void)
{
	rt_unreset_wait(RESET_UART0);
	REG(IO_BANK0_BASE + 0x04) = 2; /* GPIO0 = UART0_TX */
	REG(IO_BANK0_BASE + 0x0C) = 2; /* GPIO1 = UART0_RX */
	uint32_t div = 8 * CPU_HZ / 115200 + 1;
	REG(UART0_BASE + 0x24) = div >> 7;           /* IBRD */
	REG(UART0_BASE + 0x28) = (div & 0x7F) >> 1;  /* FBRD */
	REG(UART0_BASE + 0x2C) = 0x70;               /* LCR_H: 8 bits, FIFOs */
	REG(UART0_BASE + 0x30) = 0x301;              /* CR: UARTEN, TXE, RXE */
}

void rt_reset(void)
{
	for (uint32_t *s = &__data_load, *d = &__data_start; d < &__data_end;)
		*d++ = *s++;
	for (uint32_t *d = &__bss_start; d < &__bss_end;)
		*d++ = 0;
	/* As the SDK does: everything into reset except what flash and the PLLs need, then
	 * out of reset except what the clocks must feed first. */
	REG_SET(RESETS_RESET) = RESET_ALL & ~(RESET_IO_QSPI | RESET_PADS_QSPI | RESET_PLL_SYS |
					      RESET_PLL_USB | RESET_SYSCFG | RESET_USBCTRL);
	rt_unreset_wait(RESET_ALL & ~(RESET_UART0 | (1u << 23) | (1u << 16) | (1u << 17) |
				      (1u << 15) | 1u | RESET_USBCTRL));
	rt_clocks_init();
	rt_unreset_wait(RESET_ALL & ~RESET_USBCTRL);
	rt_uart_init();
	rt_exit(main());
}

void rt_exit(int code)
{
	rt_puts("exit ");
	rt_put_dec((uint32_t)code);
	rt_putc('\n');
	for (;;)
		__asm volatile("bkpt #0");
}

void isr_hardfault(void)
{
	rt_puts("HardFault\n");
	for (;;)
		__asm volatile("bkpt #1");
}

void isr_default(void)
{
	rt_puts("unexpected exception ");
	rt_put_dec(rt_ipsr());
	rt_putc('\n');
	for (;;)
		__asm volatile("bkpt #2");
}
