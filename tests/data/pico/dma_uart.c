/* dma_uart.c: DMA paced by UART0's TX DREQ (DREQ 20, gated by UARTDMACR.TXDMAE), as
 * pico-sdk programs stream text to a UART: bytes go to UARTDR one per request. With the
 * transmitter off the FIFO fills (32 bytes with FEN, 1 without) and the request drops, so
 * the channel stops exactly there; it finishes once the transmitter runs. Without TXDMAE
 * the channel does not move at all. With the transmitter running the channel is paced by
 * the line: 32 bytes fill the FIFO and one goes to the shift register at once, then one
 * more each frame (10 bits at 115200 baud: 86.8 us); the line is idle one frame after the
 * last byte leaves the FIFO. */
#include "rt.h"

#define DMA_BASE 0x50000000u
#define CH(n, off) REG(DMA_BASE + 0x40u * (n) + (off))
#define CH_READ 0x00u
#define CH_WRITE 0x04u
#define CH_COUNT 0x08u
#define CH_CTRL_TRIG 0x0Cu
#define DMA_CTDREQ(n) REG(DMA_BASE + 0x800 + 0x40u * (n))
#define CTRL_BUSY (1u << 24)
#define UART_LCR_H REG(UART0_BASE + 0x2C)
#define UART_CR REG(UART0_BASE + 0x30)
#define UART_DMACR REG(UART0_BASE + 0x48)
#define DREQ_UART0_TX 20u

static const char msg[] = "dma says: the quick brown fox jumps over the lazy dog\n";

static void start(unsigned n)
{
	CH(0, CH_READ) = (uint32_t)msg;
	CH(0, CH_WRITE) = UART0_BASE; /* UARTDR */
	CH(0, CH_COUNT) = n;
	/* Bytes, read increments, TREQ_SEL = DREQ_UART0_TX. */
	CH(0, CH_CTRL_TRIG) = 1u | 0u << 2 | 1u << 4 | 0u << 11 | DREQ_UART0_TX << 15;
}

static void wait_idle(void)
{
	for (volatile int i = 0; i < 200; i++)
		;
}

int main(void)
{
	unsigned n = sizeof msg - 1;
	rt_puts("ibrd ");
	rt_put_dec(REG(UART0_BASE + 0x24));
	rt_puts(" fbrd ");
	rt_put_dec(REG(UART0_BASE + 0x28));
	rt_putc('\n');
	rt_flush();
	/* No TXDMAE: the request is low, nothing moves. */
	UART_DMACR = 0;
	start(n);
	wait_idle();
	rt_puts("no txdmae left ");
	rt_put_dec(CH(0, CH_COUNT));
	rt_putc('\n');
	REG(DMA_BASE + 0x444) = 1; /* abort */
	while (REG(DMA_BASE + 0x444))
		;

	/* Transmitter off, FIFO on: 32 bytes go, then the full FIFO holds the request low. */
	rt_flush();
	REG_CLR(UART0_BASE + 0x30) = 0x100; /* CR.TXE off */
	UART_DMACR = 2;                    /* TXDMAE */
	start(n);
	wait_idle();
	uint32_t left_fifo = CH(0, CH_COUNT);
	uint32_t ctdreq = DMA_CTDREQ(0);
	REG_SET(UART0_BASE + 0x30) = 0x100; /* the transmitter drains the FIFO */
	while (CH(0, CH_CTRL_TRIG) & CTRL_BUSY)
		;
	rt_puts("fifo full left ");
	rt_put_dec(left_fifo);
	rt_puts(" dreq ");
	rt_put_dec(ctdreq);
	rt_putc('\n');

	/* FIFO off (FEN clear): a one-byte holding register. */
	rt_flush();
	REG_CLR(UART0_BASE + 0x30) = 0x100;
	REG_CLR(UART0_BASE + 0x2C) = 0x10;
	start(n);
	wait_idle();
	uint32_t left_one = CH(0, CH_COUNT);
	REG_SET(UART0_BASE + 0x30) = 0x100;
	while (CH(0, CH_CTRL_TRIG) & CTRL_BUSY)
		;
	REG_SET(UART0_BASE + 0x2C) = 0x10;
	rt_puts("no fifo left ");
	rt_put_dec(left_one);
	rt_putc('\n');

	/* Transmitter running: the whole text, timed in microseconds from the start to the
	 * channel's end and to the line's last stop bit. */
	rt_flush();
	uint32_t t0 = rt_time_us();
	start(n);
	while (CH(0, CH_CTRL_TRIG) & CTRL_BUSY)
		;
	uint32_t us = rt_time_us() - t0;
	rt_flush();
	uint32_t idle = rt_time_us() - t0;
	UART_DMACR = 0;
	rt_puts("streamed ");
	rt_put_dec(n);
	rt_puts(" bytes in ");
	rt_put_dec(us);
	rt_puts(" us, line idle at ");
	rt_put_dec(idle);
	rt_puts(" us\n");
	return 0;
}
