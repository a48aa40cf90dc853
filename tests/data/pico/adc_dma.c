/* adc_dma.c: the ADC as pico-sdk drives it (adc_init's READY wait, adc_select_input,
 * adc_read) and as pico-examples adc/dma_capture does: free-running conversions (START_MANY)
 * into the FIFO with its DREQ, a DMA channel moving them into a buffer. Reads the
 * temperature sensor, times 100 back-to-back conversions (2 us each at 48 MHz) and 20
 * conversions paced by DIV, captures AIN0 in byte mode (FCS.SHIFT), alternates inputs
 * in round robin, overflows the FIFO and takes the FIFO interrupt. */
#include "rt.h"

#define ADC_BASE 0x4004C000u
#define ADC_CS REG(ADC_BASE + 0x00)
#define ADC_RESULT REG(ADC_BASE + 0x04)
#define ADC_FCS REG(ADC_BASE + 0x08)
#define ADC_FIFO REG(ADC_BASE + 0x0C)
#define ADC_DIV REG(ADC_BASE + 0x10)
#define ADC_INTR REG(ADC_BASE + 0x14)
#define ADC_INTE REG(ADC_BASE + 0x18)
#define CS_EN 1u
#define CS_TS_EN 2u
#define CS_START_ONCE 4u
#define CS_START_MANY 8u
#define CS_READY (1u << 8)
#define FCS_EN 1u
#define FCS_SHIFT 2u
#define FCS_DREQ_EN 8u
#define FCS_EMPTY (1u << 8)
#define FCS_FULL (1u << 9)
#define FCS_OVER (1u << 11)
#define RESET_ADC 1u

#define DMA_BASE 0x50000000u
#define CH(n, off) REG(DMA_BASE + 0x40u * (n) + (off))
#define CTRL_BUSY (1u << 24)
#define DREQ_ADC 36u
#define SCB_VTOR REG(0xE000ED08u)
#define IRQ_ADC_FIFO 22u

static uint16_t samples[100];
static uint8_t bytes[16];
static uint32_t vtable[48] __attribute__((aligned(256)));
static volatile uint32_t fifo_irqs, fifo_sum;

static void on_adc(void)
{
	/* Drain what reached the threshold; INTR falls with the level. */
	while (!(ADC_FCS & FCS_EMPTY)) {
		fifo_sum += ADC_FIFO;
		fifo_irqs++;
	}
}

static void put_kv(const char *k, uint32_t v)
{
	rt_puts(k);
	rt_put_dec(v);
	rt_putc('\n');
}

/* DMA channel 0: n items of size (0 byte, 1 halfword) from the FIFO, paced by DREQ_ADC. */
static void capture(void *dst, unsigned n, unsigned size)
{
	CH(0, 0x00) = ADC_BASE + 0x0C;
	CH(0, 0x04) = (uint32_t)dst;
	CH(0, 0x08) = n;
	CH(0, 0x0C) = 1u | size << 2 | 1u << 5 | DREQ_ADC << 15;
}

/* Timed code runs from SRAM, clear of XIP misses. A START_ONCE conversion: cycles until
 * READY; *busy_seen tells whether READY fell meanwhile. */
RT_RAMFUNC static uint32_t timed_once(uint32_t *busy_seen)
{
	uint32_t t0 = SYST_CVR;
	REG_SET(ADC_BASE + 0x00) = CS_START_ONCE;
	*busy_seen = !(ADC_CS & CS_READY);
	while (!(ADC_CS & CS_READY))
		;
	return (t0 - SYST_CVR) & 0xFFFFFF;
}

/* START_MANY until the DMA channel (set up by capture) is done: cycles. */
RT_RAMFUNC static uint32_t timed_many(void)
{
	uint32_t t0 = SYST_CVR;
	REG_SET(ADC_BASE + 0x00) = CS_START_MANY;
	while (CH(0, 0x0C) & CTRL_BUSY)
		;
	return (t0 - SYST_CVR) & 0xFFFFFF;
}

static void drain(void)
{
	while (!(ADC_FCS & FCS_EMPTY))
		(void)ADC_FIFO;
}

int main(void)
{
	/* adc_init */
	rt_reset_block(RESET_ADC);
	ADC_CS = CS_EN;
	while (!(ADC_CS & CS_READY))
		;
	SYST_RVR = 0xFFFFFF;
	SYST_CVR = 0;
	SYST_CSR = 5;

	/* adc_read of the temperature sensor: START_ONCE, poll READY. */
	REG_SET(ADC_BASE + 0x00) = CS_TS_EN;
	REG_XOR(ADC_BASE + 0x00) = (ADC_CS ^ (4u << 12)) & (7u << 12); /* AINSEL 4 */
	uint32_t busy_seen;
	uint32_t once = timed_once(&busy_seen);
	uint32_t raw = ADC_RESULT;
	/* T = 27 - (V - 0.706) / 0.001721, V = raw * 3.3 / 4096, in millidegrees. */
	int32_t uv = (int32_t)(raw * 3300000u / 4096u);
	int32_t mc = 27000 - (uv - 706000) * 1000 / 1721;
	put_kv("once busy ", busy_seen);
	put_kv("once cycles ", once);
	put_kv("temp raw ", raw);
	rt_puts("temp mC ");
	rt_put_sdec64(mc);
	rt_putc('\n');

	/* dma_capture: FIFO with DREQ at threshold 1, 100 back-to-back conversions. */
	ADC_FCS = FCS_EN | FCS_DREQ_EN | 1u << 24;
	ADC_DIV = 0;
	capture(samples, 100, 1);
	uint32_t many = timed_many();
	REG_CLR(ADC_BASE + 0x00) = CS_START_MANY;
	while (!(ADC_CS & CS_READY))
		;
	drain();
	uint32_t same = 0;
	for (unsigned i = 0; i < 100; i++)
		same += samples[i] == raw;
	put_kv("many cycles ", many);
	put_kv("many same ", same);

	/* DIV: a conversion every 1 + 479 clk_adc cycles (10 us, 100 kS/s). */
	ADC_DIV = 479u << 8;
	capture(samples, 20, 1);
	uint32_t paced = timed_many();
	REG_CLR(ADC_BASE + 0x00) = CS_START_MANY;
	while (!(ADC_CS & CS_READY))
		;
	drain();
	ADC_DIV = 0;
	put_kv("div cycles ", paced);

	/* AIN0 in byte mode (FCS.SHIFT: the top 8 bits), captured into bytes. */
	REG_XOR(ADC_BASE + 0x00) = ADC_CS & (7u << 12); /* AINSEL 0 */
	ADC_FCS = FCS_EN | FCS_DREQ_EN | FCS_SHIFT | 1u << 24;
	capture(bytes, 8, 0);
	REG_SET(ADC_BASE + 0x00) = CS_START_MANY;
	while (CH(0, 0x0C) & CTRL_BUSY)
		;
	REG_CLR(ADC_BASE + 0x00) = CS_START_MANY;
	while (!(ADC_CS & CS_READY))
		;
	drain();
	put_kv("ain0 byte ", bytes[7]);
	put_kv("ain0 result ", ADC_RESULT);

	/* Round robin over AIN0 and the sensor (RROBIN bits 0 and 4), starting at AINSEL 0. */
	ADC_FCS = FCS_EN | FCS_DREQ_EN | 1u << 24;
	REG_SET(ADC_BASE + 0x00) = 0x11u << 16;
	capture(samples, 6, 1);
	REG_SET(ADC_BASE + 0x00) = CS_START_MANY;
	while (CH(0, 0x0C) & CTRL_BUSY)
		;
	REG_CLR(ADC_BASE + 0x00) = CS_START_MANY | 0x1Fu << 16;
	while (!(ADC_CS & CS_READY))
		;
	drain();
	rt_puts("rrobin");
	for (unsigned i = 0; i < 6; i++) {
		rt_putc(' ');
		rt_put_dec(samples[i]);
	}
	rt_putc('\n');

	/* Nobody reads: four results fill the FIFO, the fifth overflows. */
	ADC_FCS = FCS_EN;
	REG_SET(ADC_BASE + 0x00) = CS_START_MANY;
	uint32_t start = rt_time_us();
	while (rt_time_us() - start < 12)
		;
	REG_CLR(ADC_BASE + 0x00) = CS_START_MANY;
	while (!(ADC_CS & CS_READY))
		;
	uint32_t fcs = ADC_FCS;
	put_kv("full level ", (fcs >> 16) & 0xF);
	put_kv("full flags ", ((fcs & FCS_FULL) != 0) + 2 * ((fcs & FCS_OVER) != 0));
	ADC_FCS = FCS_OVER; /* write 1 to clear (and FIFO off) */
	drain();
	put_kv("over cleared ", (ADC_FCS & FCS_OVER) != 0);

	/* The FIFO interrupt at threshold 2, three START_ONCE conversions each. */
	for (unsigned i = 0; i < 48; i++)
		vtable[i] = ((const uint32_t *)0x10000100u)[i];
	vtable[16 + IRQ_ADC_FIFO] = (uint32_t)on_adc;
	SCB_VTOR = (uint32_t)vtable;
	ADC_FCS = FCS_EN | 2u << 24;
	ADC_INTE = 1;
	NVIC_ICPR = 1u << IRQ_ADC_FIFO;
	NVIC_ISER = 1u << IRQ_ADC_FIFO;
	rt_enable_irq();
	for (unsigned i = 0; i < 4; i++) {
		REG_SET(ADC_BASE + 0x00) = CS_START_ONCE;
		while (!(ADC_CS & CS_READY))
			;
	}
	rt_disable_irq();
	put_kv("irq drained ", fifo_irqs);
	put_kv("irq level left ", (ADC_FCS >> 16) & 0xF);
	return 0;
}
