/* Clock start-up: crystal oscillator, system PLL at 125 MHz, USB PLL at 48 MHz. */
#include "pico/runtime_init.h"
#include "hardware/address_mapped.h"

#define XOSC_CTRL (*(io_rw_32 *)(XOSC_BASE + 0x00))
#define XOSC_STATUS (*(io_rw_32 *)(XOSC_BASE + 0x04))
#define XOSC_STARTUP (*(io_rw_32 *)(XOSC_BASE + 0x0c))
#define XOSC_STATUS_STABLE_BITS 0x80000000u

#define PLL_CS(base) (*(io_rw_32 *)((base) + 0x0))
#define PLL_PWR(base) (*(io_rw_32 *)((base) + 0x4))
#define PLL_FBDIV_INT(base) (*(io_rw_32 *)((base) + 0x8))
#define PLL_PRIM(base) (*(io_rw_32 *)((base) + 0xc))
#define PLL_CS_LOCK_BITS 0x80000000u

#define CLOCKS_CLK_REF_CTRL (*(io_rw_32 *)(CLOCKS_BASE + 0x30))
#define CLOCKS_CLK_SYS_CTRL (*(io_rw_32 *)(CLOCKS_BASE + 0x3c))
#define CLOCKS_CLK_USB_CTRL (*(io_rw_32 *)(CLOCKS_BASE + 0x54))
#define CLOCKS_CLK_PERI_CTRL (*(io_rw_32 *)(CLOCKS_BASE + 0x48))
#define WATCHDOG_TICK (*(io_rw_32 *)(WATCHDOG_BASE + 0x2c))

static uint32_t configured_freq[4];

static void xosc_init(void)
{
    XOSC_CTRL = 0xaa0u; /* 1-15 MHz range */
    XOSC_STARTUP = ((XOSC_HZ / 1000u) + 128u) / 256u;
    hw_set_bits(&XOSC_CTRL, 0xfab000u); /* enable */
    while (!(XOSC_STATUS & XOSC_STATUS_STABLE_BITS))
        __compiler_memory_barrier();
}

static void pll_init(uint32_t base, uint refdiv, uint vco_freq, uint post_div1, uint post_div2)
{
    uint32_t ref_mhz = XOSC_HZ / refdiv;
    uint32_t fbdiv = vco_freq / ref_mhz;
    PLL_PWR(base) = 0xffffffffu;
    PLL_FBDIV_INT(base) = 0;
    PLL_CS(base) = refdiv;
    PLL_FBDIV_INT(base) = fbdiv;
    hw_clear_bits(&PLL_PWR(base), 0x21u); /* power up the PLL and the VCO */
    while (!(PLL_CS(base) & PLL_CS_LOCK_BITS))
        __compiler_memory_barrier();
    PLL_PRIM(base) = (post_div1 << 16) | (post_div2 << 12);
    hw_clear_bits(&PLL_PWR(base), 0x08u); /* post dividers on */
}

static bool clock_configure(uint clk_index, io_rw_32 *ctrl, uint32_t src, uint32_t auxsrc, uint32_t src_freq,
                            uint32_t freq)
{
    if (freq > src_freq)
        return false;
    *ctrl = (auxsrc << 5) | src;
    configured_freq[clk_index] = freq;
    return true;
}

void runtime_init_clocks(void)
{
    WATCHDOG_TICK = (XOSC_HZ / 1000000u) | (1u << 9);
    xosc_init();
    pll_init(PLL_SYS_BASE, 1, 1500000000u, 6, 2);
    pll_init(PLL_USB_BASE, 1, 1200000000u, 5, 5);
    clock_configure(0, &CLOCKS_CLK_REF_CTRL, 2, 0, XOSC_HZ, XOSC_HZ);
    clock_configure(1, &CLOCKS_CLK_SYS_CTRL, 1, 0, SYS_CLK_HZ, SYS_CLK_HZ);
    clock_configure(2, &CLOCKS_CLK_USB_CTRL, 0, 0, 48000000u, 48000000u);
    clock_configure(3, &CLOCKS_CLK_PERI_CTRL, 0, 0, SYS_CLK_HZ, SYS_CLK_HZ);
}
PICO_RUNTIME_INIT_FUNC(runtime_init_clocks, PICO_RUNTIME_INIT_CLOCKS);

uint32_t clock_get_hz(uint clk_index)
{
    return clk_index < count_of(configured_freq) ? configured_freq[clk_index] : 0;
}
