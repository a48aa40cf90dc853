/* spi.c: SPI0 driven the way pico-sdk's hardware_spi does it (spi_init, spi_set_baudrate,
 * spi_write_read_blocking; written here from the register descriptions): eight bytes in
 * loopback (CR1.LBM) come back unchanged, in the time the bit rate
 * clk_peri / (CPSDVSR x (1 + SCR)) gives them; then four bytes to the board's external
 * device, which answers each with the one before; then 16-bit frames at a faster rate. */
#include "rt.h"

#define SPI0 0x4003C000u
#define SSPCR0 REG(SPI0 + 0x00)
#define SSPCR1 REG(SPI0 + 0x04)
#define SSPDR REG(SPI0 + 0x08)
#define SSPSR REG(SPI0 + 0x0C)
#define SSPCPSR REG(SPI0 + 0x10)
#define SSPRIS REG(SPI0 + 0x18)
#define SSPICR REG(SPI0 + 0x20)
#define SSPDMACR REG(SPI0 + 0x24)
#define SSPPERIPHID0 REG(SPI0 + 0xFE0)
#define SR_TNF 0x02u
#define SR_RNE 0x04u
#define SR_BSY 0x10u
#define RESET_SPI0 (1u << 16)

/* The SDK's search: the smallest even prescale, then the largest post-divider that still
 * reaches the rate. Returns the rate set. */
static uint32_t set_baud(uint32_t baud)
{
	uint32_t prescale, postdiv;
	for (prescale = 2; prescale <= 254; prescale += 2)
		if ((uint64_t)CPU_HZ < (uint64_t)(prescale + 2) * 256 * baud)
			break;
	for (postdiv = 256; postdiv > 1; --postdiv)
		if (CPU_HZ / (prescale * (postdiv - 1)) > baud)
			break;
	SSPCPSR = prescale;
	SSPCR0 = (SSPCR0 & ~0xFF00u) | (postdiv - 1) << 8;
	return CPU_HZ / (prescale * postdiv);
}

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

static void write_read(const uint16_t *src, uint16_t *dst, int len)
{
	int rx_left = len, tx_left = len;
	while (tx_left || rx_left) {
		if (tx_left && (SSPSR & SR_TNF) && rx_left < tx_left + 8) {
			SSPDR = *src++;
			--tx_left;
		}
		if (rx_left && (SSPSR & SR_RNE)) {
			*dst++ = (uint16_t)SSPDR;
			--rx_left;
		}
	}
}

static void print_frames(const uint16_t *f, int n)
{
	for (int i = 0; i < n; i++) {
		rt_putc(' ');
		rt_put_hex(f[i]);
	}
	rt_putc('\n');
}

/* The whole sequence runs twice: the second pass (after "pass 1") runs from a warm
 * XIP cache, so its cycle counts hold the bus time plus a few cycles of polling. */
static void sequence(void)
{
	rt_reset_block(RESET_SPI0);
	rt_puts("spi id ");
	rt_put_hex(SSPPERIPHID0);
	rt_puts(" sr ");
	rt_put_hex(SSPSR);
	rt_puts(" ris ");
	rt_put_hex(SSPRIS);
	rt_putc('\n');
	uint32_t rate = set_baud(1000000);
	SSPCR0 = (SSPCR0 & ~0xFFu) | 7; /* 8 bits, Motorola, CPOL 0, CPHA 0 */
	SSPDMACR = 3;
	SSPCR1 = 1 | 2; /* loopback, enabled */
	rt_puts("spi rate ");
	rt_put_dec(rate);
	rt_puts(" cpsr ");
	rt_put_dec(SSPCPSR);
	rt_puts(" scr ");
	rt_put_dec(SSPCR0 >> 8);
	rt_putc('\n');

	uint16_t out[8], in[8];
	for (int i = 0; i < 8; i++)
		out[i] = (uint16_t)(0xA0 + i);
	systick_start();
	write_read(out, in, 8);
	while (SSPSR & SR_BSY)
		;
	uint32_t t_loop = systick_elapsed();
	rt_puts("spi loopback");
	print_frames(in, 8);
	rt_puts("spi loopback cycles ");
	rt_put_dec(t_loop);
	rt_putc('\n');
	systick_start();
	write_read(out, in, 4);
	while (SSPSR & SR_BSY)
		;
	t_loop = systick_elapsed();
	rt_puts("spi loopback4 cycles ");
	rt_put_dec(t_loop);
	rt_putc('\n');

	/* The external device: each frame comes back one frame late. */
	SSPCR1 = 2;
	for (int i = 0; i < 4; i++)
		out[i] = (uint16_t)(i + 1);
	write_read(out, in, 4);
	rt_puts("spi device");
	print_frames(in, 4);

	/* 16-bit frames, CPSDVSR 4 and SCR 1: 8 cycles a bit. */
	SSPCR1 = 0;
	SSPCPSR = 4;
	SSPCR0 = 1u << 8 | 15;
	SSPCR1 = 1 | 2;
	out[0] = 0xBEEF;
	out[1] = 0x1234;
	systick_start();
	write_read(out, in, 2);
	while (SSPSR & SR_BSY)
		;
	uint32_t t16 = systick_elapsed();
	rt_puts("spi 16-bit");
	print_frames(in, 2);
	rt_puts("spi 16-bit cycles ");
	rt_put_dec(t16);
	rt_putc('\n');

	/* Overrun: nine frames with nobody reading: the ninth is lost, RORRIS is set. */
	for (int i = 0; i < 8; i++)
		SSPDR = (uint32_t)i;
	while (SSPSR & SR_BSY)
		;
	SSPDR = 8;
	while (SSPSR & SR_BSY)
		;
	uint32_t ris = SSPRIS;
	SSPICR = 1;
	uint32_t cleared = SSPRIS;
	rt_puts("spi overrun ris ");
	rt_put_hex(ris);
	rt_puts(" after icr ");
	rt_put_hex(cleared);
	rt_putc('\n');
	/* 32 bit periods later with data still waiting: the receive timeout. */
	for (volatile int i = 0; i < 100; i++)
		;
	rt_puts("spi timeout ris ");
	rt_put_hex(SSPRIS);
	rt_putc('\n');
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
