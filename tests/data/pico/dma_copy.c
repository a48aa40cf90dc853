/* dma_copy.c: the DMA the way pico-sdk's hardware_dma drives it: a 256-word SRAM copy
 * chained to a 64-byte copy whose completion raises DMA_IRQ_0 (timed with SysTick: the
 * DMA moves one item per clk_sys cycle), a read ring, MULTI_CHAN_TRIGGER, a control-block
 * chain through the AL3 aliases ending on a null trigger with IRQ_QUIET (pico-examples
 * dma/control_blocks), a pause through EN, an abort, a bus error, and reset_block. */
#include "rt.h"

#define DMA_BASE 0x50000000u
#define CH(n, off) REG(DMA_BASE + 0x40u * (n) + (off))
#define CH_READ 0x00u
#define CH_WRITE 0x04u
#define CH_COUNT 0x08u
#define CH_CTRL_TRIG 0x0Cu
#define CH_AL1_CTRL 0x10u
#define CH_AL3_COUNT 0x38u
#define DMA_INTR REG(DMA_BASE + 0x400)
#define DMA_INTE0 REG(DMA_BASE + 0x404)
#define DMA_INTS0 REG(DMA_BASE + 0x40C)
#define DMA_MULTI REG(DMA_BASE + 0x430)
#define DMA_ABORT REG(DMA_BASE + 0x444)
#define DMA_NCH REG(DMA_BASE + 0x448)
#define DMA_DBG_TCR(n) REG(DMA_BASE + 0x804 + 0x40u * (n))
#define CTRL_BUSY (1u << 24)
#define CTRL_READ_ERROR (1u << 30)
#define CTRL_AHB_ERROR (1u << 31)
#define RESET_DMA (1u << 2)
#define SCB_VTOR REG(0xE000ED08u)
#define IRQ_DMA_0 11u
#define TREQ_PERMANENT 0x3Fu

/* CTRL: EN, DATA_SIZE (0 byte, 1 halfword, 2 word), increments, CHAIN_TO, TREQ_SEL. */
static uint32_t ctrl(unsigned size, int incr_r, int incr_w, unsigned chain, unsigned treq)
{
	return 1u | size << 2 | (uint32_t)incr_r << 4 | (uint32_t)incr_w << 5 | chain << 11 |
	       treq << 15;
}

static uint32_t vtable[48] __attribute__((aligned(256)));
static volatile uint32_t irq_count, irq_ints;

/* Timed code runs from SRAM, clear of XIP misses. */
RT_RAMFUNC static void on_dma(void)
{
	irq_ints = DMA_INTS0;
	DMA_INTS0 = irq_ints; /* write-1-to-clear */
	irq_count++;
}

static uint32_t src[256], dst[256];
static uint8_t bytes_src[64], bytes_dst[64];
static uint32_t ring_dst[16];
static const uint32_t ring_src[4] __attribute__((aligned(16))) = {0xA, 0xB, 0xC, 0xD};
static char text[16];
/* Control blocks for channel 4: {TRANS_COUNT, READ_ADDR_TRIG} pairs, then a null one. */
static const char word1[] = "hello", word2[] = " world";
static const uint32_t blocks[3][2] __attribute__((aligned(8))) = {
	{5, (uint32_t)word1}, {6, (uint32_t)word2}, {0, 0}};

/* Channel 0 (256 words, quiet) chained to channel 1 (configured by the caller): cycles
 * from the trigger until both are idle. */
RT_RAMFUNC static uint32_t timed_copy(void)
{
	CH(0, CH_READ) = (uint32_t)src;
	CH(0, CH_WRITE) = (uint32_t)dst;
	CH(0, CH_COUNT) = 256;
	uint32_t t0 = SYST_CVR;
	CH(0, CH_CTRL_TRIG) = ctrl(2, 1, 1, 1, TREQ_PERMANENT) | 1u << 21; /* IRQ_QUIET */
	while ((CH(0, CH_CTRL_TRIG) | CH(1, CH_CTRL_TRIG)) & CTRL_BUSY)
		;
	return (t0 - SYST_CVR) & 0xFFFFFF;
}

static void put_kv(const char *k, uint32_t v)
{
	rt_puts(k);
	rt_put_dec(v);
	rt_putc('\n');
}

int main(void)
{
	const uint32_t *flash_vt = (const uint32_t *)0x10000100u;
	for (unsigned i = 0; i < 48; i++)
		vtable[i] = flash_vt[i];
	vtable[16 + IRQ_DMA_0] = (uint32_t)on_dma;
	SCB_VTOR = (uint32_t)vtable;
	put_kv("channels ", DMA_NCH);

	for (unsigned i = 0; i < 256; i++)
		src[i] = i * 0x01010101u ^ 0x5A5A0000u;
	for (unsigned i = 0; i < 64; i++)
		bytes_src[i] = (uint8_t)(200 - i);

	/* Channel 0: 256 words, quiet, chained to channel 1 (64 bytes) which interrupts. */
	DMA_INTE0 = 1u << 1;
	NVIC_ICPR = 1u << IRQ_DMA_0;
	NVIC_ISER = 1u << IRQ_DMA_0;
	rt_enable_irq();
	CH(1, CH_READ) = (uint32_t)bytes_src;
	CH(1, CH_WRITE) = (uint32_t)bytes_dst;
	CH(1, CH_COUNT) = 64;
	CH(1, CH_AL1_CTRL) = ctrl(0, 1, 1, 1, TREQ_PERMANENT); /* not a trigger */
	SYST_RVR = 0xFFFFFF;
	SYST_CVR = 0;
	SYST_CSR = 5; /* processor clock, no interrupt */
	put_kv("copy cycles ", timed_copy());
	while (!irq_count)
		rt_wfi();
	put_kv("irq count ", irq_count);
	put_kv("irq ints ", irq_ints);
	uint32_t bad = 0;
	for (unsigned i = 0; i < 256; i++)
		bad += dst[i] != src[i];
	for (unsigned i = 0; i < 64; i++)
		bad += bytes_dst[i] != bytes_src[i];
	put_kv("copy mismatches ", bad);
	put_kv("ch0 read advanced ", CH(0, CH_READ) - (uint32_t)src);
	put_kv("ch0 count ", CH(0, CH_COUNT));
	put_kv("ch0 tcr ", DMA_DBG_TCR(0));
	put_kv("ch0 busy ", (CH(0, CH_CTRL_TRIG) & CTRL_BUSY) != 0);

	/* Channel 2: a 16-byte read ring (RING_SIZE 4, RING_SEL read) spread over 16 words. */
	CH(2, CH_READ) = (uint32_t)ring_src;
	CH(2, CH_WRITE) = (uint32_t)ring_dst;
	CH(2, CH_COUNT) = 16;
	CH(2, CH_AL1_CTRL) = ctrl(2, 1, 1, 2, TREQ_PERMANENT) | 4u << 6;
	DMA_MULTI = 1u << 2;
	while (CH(2, CH_CTRL_TRIG) & CTRL_BUSY)
		;
	rt_puts("ring");
	for (unsigned i = 0; i < 16; i++) {
		rt_putc(' ');
		rt_put_hex(ring_dst[i]);
	}
	rt_putc('\n');
	put_kv("ring read ", CH(2, CH_READ) - (uint32_t)ring_src);

	/* Control blocks: channel 3 writes each pair to channel 4's AL3 TRANS_COUNT and
	 * READ_ADDR_TRIG (a write ring of 8 bytes), channel 4 copies the bytes and chains
	 * back; the null block's trigger raises channel 4's IRQ (IRQ_QUIET). */
	irq_count = 0;
	DMA_INTE0 = 1u << 4;
	CH(4, CH_WRITE) = (uint32_t)text;
	CH(4, CH_AL1_CTRL) = ctrl(0, 1, 1, 3, TREQ_PERMANENT) | 1u << 21;
	CH(3, CH_READ) = (uint32_t)blocks;
	CH(3, CH_WRITE) = DMA_BASE + 0x40u * 4 + CH_AL3_COUNT;
	CH(3, CH_COUNT) = 2;
	CH(3, CH_CTRL_TRIG) = ctrl(2, 1, 1, 3, TREQ_PERMANENT) | 3u << 6 | 1u << 10;
	while (!irq_count)
		rt_wfi();
	rt_puts("blocks '");
	rt_puts(text);
	rt_puts("' ints ");
	rt_put_hex(irq_ints);
	rt_putc('\n');

	/* EN cleared while busy pauses (BUSY stays); set again, the copy resumes. */
	rt_disable_irq();
	DMA_INTE0 = 0;
	for (unsigned i = 0; i < 256; i++)
		dst[i] = 0;
	CH(5, CH_READ) = (uint32_t)src;
	CH(5, CH_WRITE) = (uint32_t)dst;
	CH(5, CH_COUNT) = 200;
	CH(5, CH_CTRL_TRIG) = ctrl(2, 1, 1, 5, TREQ_PERMANENT);
	REG_CLR(DMA_BASE + 0x40u * 5 + CH_AL1_CTRL) = 1; /* EN off through the CLR alias */
	uint32_t left = CH(5, CH_COUNT);
	for (volatile int i = 0; i < 100; i++)
		;
	put_kv("paused moved ", left - CH(5, CH_COUNT));
	put_kv("paused busy ", (CH(5, CH_CTRL_TRIG) & CTRL_BUSY) != 0);
	REG_SET(DMA_BASE + 0x40u * 5 + CH_AL1_CTRL) = 1;
	while (CH(5, CH_CTRL_TRIG) & CTRL_BUSY)
		;
	put_kv("resumed count ", CH(5, CH_COUNT));
	put_kv("resumed last ", dst[199] == src[199] && dst[200] == 0);

	/* An abort ends a sequence without an IRQ or a chain. */
	DMA_INTR = 0xFFFF;
	CH(6, CH_READ) = (uint32_t)src;
	CH(6, CH_WRITE) = (uint32_t)dst;
	CH(6, CH_COUNT) = 0x100000;
	CH(6, CH_CTRL_TRIG) = ctrl(2, 0, 0, 7, 0x3B); /* paced by timer 0, which is off */
	DMA_ABORT = 1u << 6;
	while (DMA_ABORT)
		;
	put_kv("aborted busy ", (CH(6, CH_CTRL_TRIG) & CTRL_BUSY) != 0);
	put_kv("aborted intr ", DMA_INTR);

	/* A read from the SIO (not on the DMA's bus) is a read error: the channel stops and
	 * flags its IRQ. */
	CH(7, CH_READ) = 0xD0000000u;
	CH(7, CH_WRITE) = (uint32_t)dst;
	CH(7, CH_COUNT) = 4;
	CH(7, CH_CTRL_TRIG) = ctrl(2, 1, 1, 7, TREQ_PERMANENT);
	while (CH(7, CH_CTRL_TRIG) & CTRL_BUSY)
		;
	uint32_t c7 = CH(7, CH_CTRL_TRIG);
	put_kv("error flags ", (c7 & (CTRL_READ_ERROR | CTRL_AHB_ERROR)) ==
				      (CTRL_READ_ERROR | CTRL_AHB_ERROR));
	put_kv("error intr ", DMA_INTR);
	CH(7, CH_AL1_CTRL) = CTRL_READ_ERROR; /* write 1 to clear (EN off too) */
	put_kv("error cleared ", CH(7, CH_CTRL_TRIG));

	/* reset_block / unreset_block_wait put the DMA back to its reset values. */
	rt_reset_block(RESET_DMA);
	put_kv("after reset ", CH(0, CH_READ) | CH(0, CH_CTRL_TRIG) | DMA_INTR | DMA_INTE0);
	return 0;
}
