/* pwm_wrap.c: PWM wrap interrupts the way pico-sdk's hardware_pwm sets them up
 * (pwm_config_set_clkdiv, pwm_config_set_wrap, pwm_set_irq_enabled): the interval between
 * PWM_IRQ_WRAP interrupts is (TOP + 1) * (PH_CORRECT + 1) * DIV clk_sys cycles (datasheet
 * 4.5.2.6), timed with SysTick; the counter read back, two slices started together through
 * the EN register, and a DMA channel paced by a slice's wrap DREQ writing one CC value per
 * period (the LED-fade idiom). */
#include "rt.h"

#define PWM_BASE 0x40050000u
#define SL(n, off) REG(PWM_BASE + 0x14u * (n) + (off))
#define SL_CSR 0x00u
#define SL_DIV 0x04u
#define SL_CTR 0x08u
#define SL_CC 0x0Cu
#define SL_TOP 0x10u
#define PWM_EN REG(PWM_BASE + 0xA0)
#define PWM_INTR REG(PWM_BASE + 0xA4)
#define PWM_INTE REG(PWM_BASE + 0xA8)
#define PWM_INTS REG(PWM_BASE + 0xB0)
#define CSR_EN 1u
#define CSR_PH_CORRECT 2u
#define SCB_VTOR REG(0xE000ED08u)
#define IRQ_PWM_WRAP 4u
#define RESET_PWM (1u << 14)

#define DMA_BASE 0x50000000u
#define CH(n, off) REG(DMA_BASE + 0x40u * (n) + (off))
#define CTRL_BUSY (1u << 24)
#define DREQ_PWM_WRAP0 24u

static uint32_t vtable[48] __attribute__((aligned(256)));
static volatile uint32_t stamp[8];
static volatile uint32_t nstamp;
static volatile uint32_t seen_ints;
static uint32_t levels[10] = {100, 200, 300, 400, 500, 600, 700, 800, 900, 1000};

/* Timed code runs from SRAM, clear of XIP misses. */
RT_RAMFUNC static void on_wrap(void)
{
	uint32_t t = SYST_CVR;
	seen_ints |= PWM_INTS;
	PWM_INTR = PWM_INTS;
	if (nstamp < 8)
		stamp[nstamp++] = t;
}

/* Slice 2 enabled until DMA channel 0 (paced by its wraps) is done: cycles. */
RT_RAMFUNC static uint32_t timed_wraps(void)
{
	uint32_t t0 = SYST_CVR;
	SL(2, SL_CSR) = CSR_EN;
	while (CH(0, 0x0C) & CTRL_BUSY)
		;
	return (t0 - SYST_CVR) & 0xFFFFFF;
}

/* SysTick and slice 1's counter read twice with the same spacing. */
RT_RAMFUNC static void count_pair(uint32_t *c, uint32_t *s)
{
	s[0] = SYST_CVR;
	c[0] = SL(1, SL_CTR);
	for (volatile int i = 0; i < 50; i++)
		;
	s[1] = SYST_CVR;
	c[1] = SL(1, SL_CTR);
}

static void put_kv(const char *k, uint32_t v)
{
	rt_puts(k);
	rt_put_dec(v);
	rt_putc('\n');
}

/* Interrupt intervals of slice n over 7 wraps (SysTick counts down). */
static void measure(const char *name, unsigned n, uint32_t csr)
{
	nstamp = 0;
	seen_ints = 0;
	PWM_INTR = 0xFF;
	PWM_INTE = 1u << n;
	SL(n, SL_CTR) = 0;
	SL(n, SL_CSR) = csr | CSR_EN;
	while (nstamp < 8)
		rt_wfi();
	SL(n, SL_CSR) = csr;
	PWM_INTE = 0;
	rt_puts(name);
	for (unsigned i = 1; i < 8; i++) {
		rt_putc(' ');
		rt_put_dec((stamp[i - 1] - stamp[i]) & 0xFFFFFF);
	}
	rt_puts(" ints ");
	rt_put_dec(seen_ints);
	rt_putc('\n');
}

int main(void)
{
	rt_reset_block(RESET_PWM);
	put_kv("reset top ", SL(0, SL_TOP));
	put_kv("reset div ", SL(0, SL_DIV));

	for (unsigned i = 0; i < 48; i++)
		vtable[i] = ((const uint32_t *)0x10000100u)[i];
	vtable[16 + IRQ_PWM_WRAP] = (uint32_t)on_wrap;
	SCB_VTOR = (uint32_t)vtable;
	NVIC_ICPR = 1u << IRQ_PWM_WRAP;
	NVIC_ISER = 1u << IRQ_PWM_WRAP;
	SYST_RVR = 0xFFFFFF;
	SYST_CVR = 0;
	SYST_CSR = 5;
	rt_enable_irq();

	/* Slice 0: TOP 999, DIV 2.5 (INT 2, FRAC 8): 1000 * 2.5 = 2500 cycles (20 us). */
	SL(0, SL_TOP) = 999;
	SL(0, SL_DIV) = 2u << 4 | 8u;
	measure("trailing", 0, 0);
	/* Slice 3 phase-correct: TOP 99, DIV 4: 2 * 100 * 4 = 800 cycles. */
	SL(3, SL_TOP) = 99;
	SL(3, SL_DIV) = 4u << 4;
	measure("phase", 3, CSR_PH_CORRECT);
	/* Slice 5: TOP 249, DIV 1.0625 (17/16): 250 * 17 / 16 = 265.625 cycles on average. */
	SL(5, SL_TOP) = 249;
	SL(5, SL_DIV) = 1u << 4 | 1u;
	measure("fraction", 5, 0);

	/* The counter: slice 1 at DIV 1 counts clk_sys cycles; TOP 60000. */
	SL(1, SL_TOP) = 60000;
	SL(1, SL_DIV) = 1u << 4;
	SL(1, SL_CTR) = 0;
	rt_disable_irq();
	uint32_t c[2], s[2];
	PWM_EN = 1u << 1;
	count_pair(c, s);
	PWM_EN = 0;
	uint32_t c2 = SL(1, SL_CTR);
	put_kv("counter moved ", c[1] - c[0]);
	put_kv("systick moved ", (s[0] - s[1]) & 0xFFFFFF);
	put_kv("stopped holds ", SL(1, SL_CTR) == c2);

	/* Slices 6 and 7 started by one EN write stay in step. */
	SL(6, SL_TOP) = 5000;
	SL(7, SL_TOP) = 5000;
	SL(6, SL_CTR) = 0;
	SL(7, SL_CTR) = 0;
	PWM_EN = 3u << 6;
	for (volatile int i = 0; i < 30; i++)
		;
	uint32_t a = SL(6, SL_CTR), b = SL(7, SL_CTR);
	PWM_EN = 0;
	put_kv("in step ", (b - a) & 0xFFFF); /* read one APB access apart: 3 cycles */

	/* DMA paced by DREQ_PWM_WRAP0 + 2: one CC write per period of slice 2. */
	SL(2, SL_TOP) = 499;
	SL(2, SL_DIV) = 1u << 4;
	SL(2, SL_CC) = 0;
	SL(2, SL_CTR) = 0;
	CH(0, 0x00) = (uint32_t)levels;
	CH(0, 0x04) = PWM_BASE + 0x14u * 2 + SL_CC;
	CH(0, 0x08) = 10;
	CH(0, 0x0C) = 1u | 2u << 2 | 1u << 4 | (DREQ_PWM_WRAP0 + 2) << 15;
	put_kv("dma wraps cycles ", timed_wraps());
	put_kv("dma last cc ", SL(2, SL_CC));
	SL(2, SL_CSR) = 0;
	return 0;
}
