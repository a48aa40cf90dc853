/* serial_dma.c: DMA paced by the DREQs of SPI0 and PIO0, as pico-sdk's spi and pio DMA
 * examples set it up: 32 bytes through SPI0 in loopback with one channel feeding SSPDR
 * (DREQ_SPI0_TX, 16) and one draining it (DREQ_SPI0_RX, 17), timed against the frame time;
 * then 64 words through a PIO0 state machine running `out x, 32; in x, 32` with autopull
 * and autopush, fed by DREQ_PIO0_TX0 (0) and drained by DREQ_PIO0_RX0 (4). */
#include "rt.h"

#define DMA_CH(n, r) REG(0x50000000u + 0x40u * (n) + (r))
#define READ_ADDR 0x0
#define WRITE_ADDR 0x4
#define TRANS_COUNT 0x8
#define CTRL_TRIG 0xC
#define CTRL_BUSY (1u << 24)
#define SPI0 0x4003C000u
#define PIO0 0x50200000u
#define RESET_DMA (1u << 2)
#define RESET_PIO0 (1u << 10)
#define RESET_SPI0 (1u << 16)

static uint8_t src8[32], dst8[32];
static uint32_t src32[64], dst32[64];

/* EN, DATA_SIZE, INCR_READ/WRITE, CHAIN_TO itself (no chain), TREQ_SEL. */
static uint32_t ctrl(unsigned ch, unsigned size, int incr_read, int incr_write, unsigned treq)
{
	return 1u | size << 2 | (incr_read ? 1u << 4 : 0) | (incr_write ? 1u << 5 : 0) |
	       ch << 11 | treq << 15;
}

static void start(unsigned ch, const volatile void *from, volatile void *to, uint32_t count,
		  uint32_t ctrl_word)
{
	DMA_CH(ch, READ_ADDR) = (uint32_t)from;
	DMA_CH(ch, WRITE_ADDR) = (uint32_t)to;
	DMA_CH(ch, TRANS_COUNT) = count;
	DMA_CH(ch, CTRL_TRIG) = ctrl_word;
}

static void systick_start(void)
{
	SYST_RVR = 0xFFFFFF;
	SYST_CVR = 0;
	SYST_CSR = 5;
}

/* The whole sequence runs twice: the second pass (after "pass 1") runs from a warm
 * XIP cache, so its cycle counts hold the transfer time plus a few cycles of polling. */
static void sequence(void)
{
	rt_reset_block(RESET_DMA | RESET_PIO0 | RESET_SPI0);

	/* SPI0: 8-bit frames, CPSDVSR 2, SCR 62 (126 cycles a bit), loopback, DMA on. */
	for (int i = 0; i < 32; i++)
		src8[i] = (uint8_t)(i * 7 + 3);
	REG(SPI0 + 0x10) = 2;
	REG(SPI0 + 0x00) = 62u << 8 | 7;
	REG(SPI0 + 0x24) = 3;
	REG(SPI0 + 0x04) = 1 | 2;
	systick_start();
	start(1, (void *)(SPI0 + 0x08), dst8, 32, ctrl(1, 0, 0, 1, 17));
	start(0, src8, (void *)(SPI0 + 0x08), 32, ctrl(0, 0, 1, 0, 16));
	while (DMA_CH(1, CTRL_TRIG) & CTRL_BUSY)
		;
	uint32_t t = 0xFFFFFF - SYST_CVR;
	int same = 1;
	for (int i = 0; i < 32; i++)
		same &= dst8[i] == src8[i];
	rt_puts("spi dma ");
	rt_puts(same ? "same" : "differs");
	rt_puts(" cycles ");
	rt_put_dec(t);
	rt_putc('\n');

	/* PIO0 SM0: out x, 32; in x, 32 with autopull and autopush at 32 bits. */
	REG(PIO0 + 0x048) = 0x6020; /* out x, 32 */
	REG(PIO0 + 0x04C) = 0x4020; /* in x, 32 */
	REG(PIO0 + 0x0CC) = 1u << 12 | 0u << 7;            /* wrap 1 -> 0 */
	REG(PIO0 + 0x0D0) = 1u << 16 | 1u << 17 | 3u << 18; /* autopush, autopull, right */
	REG(PIO0 + 0x000) = 1;
	for (int i = 0; i < 64; i++)
		src32[i] = 0x01010101u * (uint32_t)i ^ 0xA5A50000u;
	systick_start();
	start(3, (void *)(PIO0 + 0x020), dst32, 64, ctrl(3, 2, 0, 1, 4));
	start(2, src32, (void *)(PIO0 + 0x010), 64, ctrl(2, 2, 1, 0, 0));
	while (DMA_CH(3, CTRL_TRIG) & CTRL_BUSY)
		;
	t = 0xFFFFFF - SYST_CVR;
	same = 1;
	for (int i = 0; i < 64; i++)
		same &= dst32[i] == src32[i];
	rt_puts("pio dma ");
	rt_puts(same ? "same" : "differs");
	rt_puts(" cycles ");
	rt_put_dec(t);
	rt_putc('\n');
	REG(PIO0 + 0x000) = 0;
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
