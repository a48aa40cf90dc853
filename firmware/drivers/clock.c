/* clock.c: resets, XOSC, PLLs, clock generators and the watchdog tick, brought up as the
 * pico-sdk runtime does (RP2040 datasheet 2.14-2.18; order in the SDK's runtime_init). */
#include <errno.h>

#include "drivers/clock.h"
#include "rp2040/regs.h"
#include "sys/util.h"

#define XOSC_HZ 12000000u
#define MHZ 1000000u
/* Status polls give up after this many reads: a stuck oscillator must not hang the boot
 * silently; the banner reports it instead. */
#define POLL_LIMIT 1000000u

/* Clock generator registers: CTRL at base, DIV at +4, SELECTED at +8. */
struct clock_gen {
	uint32_t ctrl;
	uint32_t auxsrc_mask;
	bool has_div;
	bool glitchless; /* ref and sys: a glitchless mux with SRC and SELECTED */
};

static const struct clock_gen clock_gens[CLK_COUNT] = {
	[CLK_REF] = {CLK_REF_CTRL, 0x3u << CLK_CTRL_AUXSRC_SHIFT, true, true},
	[CLK_SYS] = {CLK_SYS_CTRL, 0x7u << CLK_CTRL_AUXSRC_SHIFT, true, true},
	[CLK_PERI] = {CLK_PERI_CTRL, 0x7u << CLK_CTRL_AUXSRC_SHIFT, false, false},
	[CLK_USB] = {CLK_USB_CTRL, 0x7u << CLK_CTRL_AUXSRC_SHIFT, true, false},
	[CLK_ADC] = {CLK_ADC_CTRL, 0x7u << CLK_CTRL_AUXSRC_SHIFT, true, false},
	[CLK_RTC] = {CLK_RTC_CTRL, 0x7u << CLK_CTRL_AUXSRC_SHIFT, true, false},
};

static uint32_t clock_hz[CLK_COUNT];
static const char *init_error;

static bool poll_bits(uint32_t addr, uint32_t mask, uint32_t want, const char *what)
{
	for (uint32_t i = 0; i < POLL_LIMIT; i++)
		if ((hw_read(addr) & mask) == want)
			return true;
	if (!init_error)
		init_error = what;
	return false;
}

void reset_block(uint32_t mask)
{
	hw_set_bits(RESETS_RESET, mask);
}

void unreset_block_wait(uint32_t mask)
{
	hw_clear_bits(RESETS_RESET, mask);
	poll_bits(RESETS_RESET_DONE, mask, mask, "RESET_DONE");
}

static void xosc_init(void)
{
	hw_write(XOSC_CTRL, XOSC_CTRL_FREQ_RANGE_1_15MHZ);
	/* Startup delay in units of 256 cycles: about 1 ms, times the SDK's margin of 6. */
	hw_write(XOSC_STARTUP, ((XOSC_HZ / 1000u) + 128u) / 256u * 6u);
	hw_set_bits(XOSC_CTRL, XOSC_CTRL_ENABLE_VALUE);
	poll_bits(XOSC_STATUS, XOSC_STATUS_STABLE, XOSC_STATUS_STABLE, "XOSC stable");
}

/* VCO = 12 MHz / refdiv * fbdiv; output = VCO / (postdiv1 * postdiv2). */
static void pll_init(uint32_t base, uint32_t reset_bit, uint32_t refdiv, uint32_t fbdiv,
		     uint32_t postdiv1, uint32_t postdiv2)
{
	uint32_t prim = (postdiv1 << PLL_PRIM_POSTDIV1_SHIFT) | (postdiv2 << PLL_PRIM_POSTDIV2_SHIFT);
	if ((hw_read(base + PLL_CS) & PLL_CS_LOCK) && (hw_read(base + PLL_CS) & 0x3F) == refdiv &&
	    (hw_read(base + PLL_FBDIV_INT) & 0xFFF) == fbdiv &&
	    (hw_read(base + PLL_PRIM) & 0x77000u) == prim)
		return; /* already running as wanted (a warm start) */
	reset_block(reset_bit);
	unreset_block_wait(reset_bit);
	hw_write(base + PLL_CS, refdiv);
	hw_write(base + PLL_FBDIV_INT, fbdiv);
	hw_clear_bits(base + PLL_PWR, PLL_PWR_PD | PLL_PWR_VCOPD);
	poll_bits(base + PLL_CS, PLL_CS_LOCK, PLL_CS_LOCK, "PLL lock");
	hw_write(base + PLL_PRIM, prim);
	hw_clear_bits(base + PLL_PWR, PLL_PWR_POSTDIVPD);
}

/* src: for ref/sys the glitchless SRC value; auxsrc: the AUXSRC field value; div: the
 * divider in 24.8 fixed point (0x100 = divide by 1). */
static void clock_configure(enum clock_id id, uint32_t src, uint32_t auxsrc, uint32_t src_hz,
			    uint32_t div)
{
	const struct clock_gen *g = &clock_gens[id];
	uint32_t div_reg = g->ctrl + 4, selected = g->ctrl + 8;

	/* Raise the divider first so that the output never runs too fast while switching. */
	if (g->has_div && div > hw_read(div_reg))
		hw_write(div_reg, div);

	if (g->glitchless && src == CLK_SYS_SRC_AUX) { /* SRC 1 is the aux mux for ref and sys */
		/* Moving to the aux source: step the glitchless mux back to clk_ref first. */
		hw_clear_bits(g->ctrl, id == CLK_SYS ? 0x1u : 0x3u);
		poll_bits(selected, 0x1u, 0x1u, "clock mux to ref");
	} else {
		/* Non-glitchless clocks must be stopped while the aux mux changes. Nothing
		 * was running from them yet (first configuration), so no wait is needed. */
		hw_clear_bits(g->ctrl, CLK_CTRL_ENABLE);
	}

	hw_write_masked(g->ctrl, auxsrc << CLK_CTRL_AUXSRC_SHIFT, g->auxsrc_mask);
	if (g->glitchless) {
		uint32_t src_mask = id == CLK_SYS ? 0x1u : 0x3u;
		hw_write_masked(g->ctrl, src, src_mask);
		poll_bits(selected, 1u << src, 1u << src, "clock mux select");
	}
	hw_set_bits(g->ctrl, CLK_CTRL_ENABLE);
	if (g->has_div)
		hw_write(div_reg, div);
	clock_hz[id] = src_hz / (div >> 8); /* integer dividers only here */
}

int clock_init(void)
{
	/* Reset everything the boot does not depend on (flash, PLLs, USB stay as they are),
	 * then release what only clk_sys/clk_ref clock. */
	reset_block(~(RESET_IO_QSPI | RESET_PADS_QSPI | RESET_PLL_USB | RESET_USBCTRL |
		      RESET_SYSCFG | RESET_PLL_SYS) &
		    RESET_ALL);
	unreset_block_wait(RESET_ALL & ~(RESET_ADC | RESET_RTC | RESET_SPI0 | RESET_SPI1 |
					 RESET_UART0 | RESET_UART1 | RESET_USBCTRL));

	hw_write(CLK_SYS_RESUS_CTRL, 0);
	xosc_init();

	/* Run sys and ref from their defaults (clk_ref, ROSC) before the PLLs change. */
	hw_clear_bits(CLK_SYS_CTRL, 0x1u);
	poll_bits(CLK_SYS_SELECTED, 0xFFFFFFFFu, 0x1u, "clk_sys to clk_ref");
	hw_clear_bits(CLK_REF_CTRL, 0x3u);
	poll_bits(CLK_REF_SELECTED, 0xFFFFFFFFu, 0x1u, "clk_ref to ROSC");

	pll_init(PLL_SYS_BASE, RESET_PLL_SYS, 1, 125, 6, 2); /* 1500 MHz VCO -> 125 MHz */
	pll_init(PLL_USB_BASE, RESET_PLL_USB, 1, 100, 5, 5); /* 1200 MHz VCO -> 48 MHz */

	clock_configure(CLK_REF, CLK_REF_SRC_XOSC, 0, XOSC_HZ, 0x100);
	clock_configure(CLK_SYS, CLK_SYS_SRC_AUX, 0 /* PLL_SYS */, 125 * MHZ, 0x100);
	clock_configure(CLK_USB, 0, 0 /* PLL_USB */, 48 * MHZ, 0x100);
	clock_configure(CLK_ADC, 0, 0 /* PLL_USB */, 48 * MHZ, 0x100);
	clock_configure(CLK_RTC, 0, 0 /* PLL_USB */, 48 * MHZ, 1024u << 8); /* 46875 Hz */
	clock_configure(CLK_PERI, 0, 0 /* clk_sys */, 125 * MHZ, 0x100);

	/* The tick (1 us from the 12 MHz clk_ref) clocks TIMER and the watchdog. */
	hw_write(WATCHDOG_TICK, WATCHDOG_TICK_ENABLE | (XOSC_HZ / MHZ));

	unreset_block_wait(RESET_ALL & ~RESET_USBCTRL);
	return init_error ? -ETIMEDOUT : 0;
}

uint32_t clock_get_hz(enum clock_id id)
{
	return id < CLK_COUNT ? clock_hz[id] : 0;
}

const char *clock_init_error(void)
{
	return init_error;
}
