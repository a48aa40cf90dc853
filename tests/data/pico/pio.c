/* pio.c: PIO0 as pico-sdk programs use it (pio_add_program, pio_sm_init, pio_sm_exec,
 * pio_sm_put; written here from the register descriptions). State machine 0 runs the
 * uart_tx program of pico-examples (PULL, SET, OUT, JMP X--, optional side-set, delays) on
 * GPIO2, state machine 1 the uart_rx_mini program (WAIT PIN, IN, autopush) on the same pin
 * and decodes what SM0 sends. The time until SM0 stalls on its empty TX FIFO is measured
 * with SysTick for an integer and a fractional clock divider: 80 machine cycles a byte.
 * State machine 2 raises IRQ 0 (PIO0_IRQ_0, NVIC 7); state machine 3 waits on IRQ 1 until
 * the CPU clears it. */
#include "rt.h"

#define PIO0 0x50200000u
#define CTRL (PIO0 + 0x000)
#define FSTAT REG(PIO0 + 0x004)
#define FDEBUG REG(PIO0 + 0x008)
#define FLEVEL REG(PIO0 + 0x00C)
#define TXF(n) REG(PIO0 + 0x010 + 4u * (n))
#define RXF(n) REG(PIO0 + 0x020 + 4u * (n))
#define PIO_IRQ REG(PIO0 + 0x030)
#define DBG_CFGINFO REG(PIO0 + 0x044)
#define INSTR_MEM(i) REG(PIO0 + 0x048 + 4u * (i))
#define SM_REG(n, r) REG(PIO0 + 0x0C8 + 0x18u * (n) + (r))
#define SM_CLKDIV(n) SM_REG(n, 0x00)
#define SM_EXECCTRL(n) SM_REG(n, 0x04)
#define SM_SHIFTCTRL(n) SM_REG(n, 0x08)
#define SM_ADDR(n) SM_REG(n, 0x0C)
#define SM_INSTR(n) SM_REG(n, 0x10)
#define SM_PINCTRL(n) SM_REG(n, 0x14)
#define IRQ0_INTE REG(PIO0 + 0x12C)
#define NVIC_ISPR REG(0xE000E200u)
#define RESET_PIO0 (1u << 10)
#define PIN 2u

/* uart_tx (.side_set 1 opt) at 0-3, uart_rx_mini at 4-7, an IRQ raiser at 8-9 and an
 * IRQ waiter at 10-12. */
static const uint16_t program[13] = {
	0x9FA0, /* 0: pull block      side 1 [7] */
	0xF727, /* 1: set x, 7        side 0 [7] */
	0x6001, /* 2: out pins, 1 */
	0x0642, /* 3: jmp x-- 2       [6] */
	0x2020, /* 4: wait 0 pin 0 */
	0xEA27, /* 5: set x, 7        [10] */
	0x4001, /* 6: in pins, 1 */
	0x0646, /* 7: jmp x-- 6       [6] */
	0xC000, /* 8: irq nowait 0 */
	0x0009, /* 9: jmp 9 */
	0xC021, /* 10: irq wait 1 */
	0xE045, /* 11: set y, 5 */
	0x000C, /* 12: jmp 12 */
};

static void systick_start(void)
{
	SYST_RVR = 0xFFFFFF;
	SYST_CVR = 0;
	SYST_CSR = 5;
}

static uint32_t systick_elapsed(void)
{
	return 0xFFFFFF - SYST_CVR;
}

static void setup_sms(uint32_t clkdiv)
{
	/* SM0: uart_tx on PIN. */
	SM_CLKDIV(0) = clkdiv;
	SM_PINCTRL(0) = PIN | PIN << 5 | PIN << 10 | 1u << 20 | 1u << 26 | 2u << 29;
	SM_EXECCTRL(0) = 1u << 30 | 3u << 12 | 0u << 7; /* SIDE_EN, wrap 3 -> 0 */
	SM_SHIFTCTRL(0) = 1u << 19 | 1u << 30;          /* OUT right, FJOIN_TX */
	SM_INSTR(0) = 0xE001;                           /* set pins, 1 */
	SM_INSTR(0) = 0xE081;                           /* set pindirs, 1 */
	SM_INSTR(0) = 0x0000;                           /* jmp 0 */
	/* SM1: uart_rx_mini reading PIN. */
	SM_CLKDIV(1) = clkdiv;
	SM_PINCTRL(1) = PIN << 15;
	SM_EXECCTRL(1) = 7u << 12 | 4u << 7;
	SM_SHIFTCTRL(1) = 1u << 18 | 1u << 16 | 8u << 20; /* IN right, autopush at 8 */
	SM_INSTR(1) = 0x0004;                             /* jmp 4 */
}

/* Sends four bytes with SM0 (filled while it is stopped) and returns the cycles until it
 * stalls on the empty FIFO; *rx gets what SM1 decoded. */
static uint32_t send(const uint8_t *bytes, uint8_t *rx)
{
	for (int i = 0; i < 4; i++)
		TXF(0) = bytes[i];
	rt_puts("pio flevel ");
	rt_put_hex(FLEVEL);
	rt_puts(" fstat ");
	rt_put_hex(FSTAT);
	rt_putc('\n');
	FDEBUG = 0xFFFFFFFFu;
	systick_start();
	REG_SET(CTRL) = 1; /* enable SM0 */
	while (!(FDEBUG & (1u << 24)))
		; /* TXSTALL of SM0 */
	uint32_t t = systick_elapsed();
	for (int i = 0; i < 4; i++) {
		while (FSTAT & (1u << 9))
			; /* RXEMPTY of SM1 */
		rx[i] = (uint8_t)(RXF(1) >> 24);
	}
	return t;
}

static void print_bytes(const char *what, const uint8_t *b)
{
	rt_puts(what);
	for (int i = 0; i < 4; i++) {
		rt_putc(' ');
		rt_putc("0123456789abcdef"[b[i] >> 4]);
		rt_putc("0123456789abcdef"[b[i] & 15]);
	}
	rt_putc('\n');
}

/* The whole sequence runs twice: the second pass (after "pass 1") runs from a warm
 * XIP cache, so its cycle counts hold the bus time plus a few cycles of polling. */
static void sequence(void)
{
	rt_reset_block(RESET_PIO0);
	rt_puts("pio cfginfo ");
	rt_put_hex(DBG_CFGINFO);
	rt_puts(" fstat ");
	rt_put_hex(FSTAT);
	rt_putc('\n');
	for (unsigned i = 0; i < sizeof program / sizeof program[0]; i++)
		INSTR_MEM(i) = program[i];
	REG(IO_BANK0_BASE + 8 * PIN + 4) = 6; /* GPIO2: PIO0 */

	setup_sms(10u << 16);
	REG_SET(CTRL) = 2; /* SM1 listens */
	uint8_t rx[4];
	const uint8_t msg[4] = {'P', 'I', 'O', '!'};
	uint32_t t = send(msg, rx);
	print_bytes("pio rx", rx);
	rt_puts("pio div 10 cycles ");
	rt_put_dec(t);
	rt_putc('\n');

	/* Divider 2.5 (INT 2, FRAC 128): restart both machines and their dividers. */
	REG(CTRL) = 0;
	setup_sms(2u << 16 | 128u << 8);
	REG(CTRL) = 3u << 4 | 3u << 8; /* SM_RESTART, CLKDIV_RESTART for SM0-1 */
	REG_SET(CTRL) = 2;
	const uint8_t msg2[4] = {0x00, 0xFF, 0x55, 0x81};
	t = send(msg2, rx);
	print_bytes("pio rx2", rx);
	rt_puts("pio div 2.5 cycles ");
	rt_put_dec(t);
	rt_putc('\n');

	/* SM2 raises IRQ 0, which INTE routes to PIO0_IRQ_0. */
	NVIC_ICPR = 1u << 7;
	IRQ0_INTE = 1u << 8;
	SM_INSTR(2) = 0x0008; /* jmp 8 */
	REG_SET(CTRL) = 4;
	while (!(PIO_IRQ & 1))
		;
	rt_puts("pio irq ");
	rt_put_hex(PIO_IRQ);
	rt_puts(" nvic ");
	rt_put_dec((NVIC_ISPR >> 7) & 1);
	PIO_IRQ = 1; /* write 1 to clear */
	NVIC_ICPR = 1u << 7;
	rt_puts(" cleared ");
	rt_put_hex(PIO_IRQ);
	rt_putc(' ');
	rt_put_dec((NVIC_ISPR >> 7) & 1);
	rt_putc('\n');

	/* SM3 sets IRQ 1 and waits until it is cleared. */
	SM_INSTR(3) = 0x000A; /* jmp 10 */
	REG_SET(CTRL) = 8;
	while (!(PIO_IRQ & 2))
		;
	for (volatile int i = 0; i < 50; i++)
		;
	rt_puts("pio wait addr ");
	rt_put_dec(SM_ADDR(3));
	PIO_IRQ = 2;
	for (volatile int i = 0; i < 50; i++)
		;
	rt_puts(" released addr ");
	rt_put_dec(SM_ADDR(3));
	rt_putc('\n');
	REG(CTRL) = 0;
}

int main(void)
{
	for (uint32_t pass = 0; pass < 2; pass++) {
		rt_puts("pass ");
		rt_put_dec(pass);
		rt_putc('\n');
		sequence();
	}
	return 0;
}
