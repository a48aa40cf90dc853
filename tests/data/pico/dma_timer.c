/* dma_timer.c: DMA paced by its fractional timers (pico-sdk dma_timer_set_fraction): each
 * transfer copies the TIMER's microsecond count into a buffer, so the buffer shows when
 * the transfers happened. Timer 0 at 1/1250 of clk_sys (every 10 us), timer 1 at 3/1000
 * (every 333.3 clk_sys cycles on average), timed with SysTick; and the DREQ counter
 * (CH_DBG_CTDREQ) of a paced channel that was paused. */
#include "rt.h"

#define DMA_BASE 0x50000000u
#define CH(n, off) REG(DMA_BASE + 0x40u * (n) + (off))
#define CH_READ 0x00u
#define CH_WRITE 0x04u
#define CH_COUNT 0x08u
#define CH_CTRL_TRIG 0x0Cu
#define CH_AL1_CTRL 0x10u
#define DMA_TIMER(k) REG(DMA_BASE + 0x420 + 4u * (k))
#define DMA_CTDREQ(n) REG(DMA_BASE + 0x800 + 0x40u * (n))
#define CTRL_BUSY (1u << 24)

static uint32_t stamps[12];
static uint32_t sink[64];

static uint32_t ctrl(unsigned treq, int incr_r, int incr_w)
{
	return 1u | 2u << 2 | (uint32_t)incr_r << 4 | (uint32_t)incr_w << 5 | 0u << 11 |
	       treq << 15;
}

/* Cycles from the timer's write (the fraction restarts) until channel n has made count
 * transfers from src to dst (from SRAM: no XIP misses in the timing). */
RT_RAMFUNC static uint32_t paced(unsigned k, uint32_t fraction, unsigned n, uint32_t src,
				  uint32_t dst, int incr_w, unsigned count)
{
	uint32_t t0 = SYST_CVR;
	DMA_TIMER(k) = fraction;
	CH(n, CH_READ) = src;
	CH(n, CH_WRITE) = dst;
	CH(n, CH_COUNT) = count;
	CH(n, CH_CTRL_TRIG) = ctrl(0x3B + k, 0, incr_w);
	while (CH(n, CH_CTRL_TRIG) & CTRL_BUSY)
		;
	return (t0 - SYST_CVR) & 0xFFFFFF;
}

int main(void)
{
	SYST_RVR = 0xFFFFFF;
	SYST_CVR = 0;
	SYST_CSR = 5;

	/* Timer 0: X/Y = 1/1250: a TREQ every 1250 cycles = 10 us at 125 MHz. */
	uint32_t cycles = paced(0, 1u << 16 | 1250, 0, TIMER_BASE + 0x28 /* TIMERAWL */,
				(uint32_t)stamps, 1, 12);
	rt_puts("timer0 steps");
	for (unsigned i = 1; i < 12; i++) {
		rt_putc(' ');
		rt_put_dec(stamps[i] - stamps[i - 1]);
	}
	rt_puts("\ntimer0 cycles ");
	rt_put_dec(cycles);
	rt_putc('\n');

	/* Timer 1: 3/1000: 30 transfers in 10000 cycles. */
	cycles = paced(1, 3u << 16 | 1000, 1, (uint32_t)sink, (uint32_t)sink + 128, 0, 30);
	rt_puts("timer1 cycles ");
	rt_put_dec(cycles);
	rt_putc('\n');

	/* Paused for about 100 us with timer 0 running: the channel's DREQ counter holds the
	 * ten requests it missed, and they go at once when it resumes. */
	rt_flush(); /* printing below must not wait for the UART */
	CH(2, CH_READ) = (uint32_t)sink;
	CH(2, CH_WRITE) = (uint32_t)sink + 128;
	CH(2, CH_COUNT) = 20;
	CH(2, CH_CTRL_TRIG) = ctrl(0x3B, 0, 0);
	REG_CLR(DMA_BASE + 0x40u * 2 + CH_AL1_CTRL) = 1;
	uint32_t start = rt_time_us();
	while (rt_time_us() - start < 101)
		;
	uint32_t ctdreq = DMA_CTDREQ(2);
	REG_SET(DMA_BASE + 0x40u * 2 + CH_AL1_CTRL) = 1;
	for (volatile int i = 0; i < 20; i++)
		;
	uint32_t left = CH(2, CH_COUNT);
	rt_puts("ctdreq ");
	rt_put_dec(ctdreq);
	rt_puts(" left ");
	rt_put_dec(left);
	rt_putc('\n');
	return 0;
}
