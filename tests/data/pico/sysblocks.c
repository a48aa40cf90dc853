/* sysblocks.c: the small blocks start-up code reads: TBMAN (running on an ASIC?),
 * VREG_AND_CHIP_RESET (the regulator, brown-out detector and the last chip reset's cause),
 * ROSC (status, a 32-bit number from RANDOMBIT as pico_rand gathers entropy, the COUNT
 * down-counter at the ROSC frequency, a write without its password), SYSCFG, PSM and
 * BUSCTRL reset values. */
#include "rt.h"

#define TBMAN_PLATFORM REG(0x4006C000u)
#define VREG REG(0x40064000u)
#define BOD REG(0x40064004u)
#define CHIP_RESET REG(0x40064008u)
#define ROSC 0x40060000u
#define ROSC_CTRL REG(ROSC + 0x00)
#define ROSC_DIV REG(ROSC + 0x10)
#define ROSC_STATUS REG(ROSC + 0x18)
#define ROSC_RANDOMBIT REG(ROSC + 0x1C)
#define ROSC_COUNT REG(ROSC + 0x20)
#define SYSCFG 0x40004000u
#define PSM_DONE REG(0x4001000Cu)
#define BUSCTRL 0x40030000u

static void line(const char *name, uint32_t v)
{
	rt_puts(name);
	rt_putc(' ');
	rt_put_hex(v);
	rt_putc('\n');
}

/* The whole sequence runs twice: the second pass (after "pass 1") runs from a warm
 * XIP cache, so its cycle counts hold the bus time plus a few cycles of polling. */
static void sequence(void)
{
	line("tbman", TBMAN_PLATFORM);
	line("vreg", VREG);
	line("bod", BOD);
	line("chip_reset", CHIP_RESET);
	line("rosc ctrl", ROSC_CTRL);
	line("rosc div", ROSC_DIV);
	line("rosc status", ROSC_STATUS);
	uint32_t r = 0;
	for (int i = 0; i < 32; i++)
		r = r << 1 | (ROSC_RANDOMBIT & 1);
	line("rosc random", r);
	/* COUNT: 130 ticks of the ROSC's 6.5 MHz are 20 us, 2500 CPU cycles. */
	SYST_RVR = 0xFFFFFF;
	SYST_CVR = 0;
	SYST_CSR = 5;
	ROSC_COUNT = 130;
	while (ROSC_COUNT)
		;
	uint32_t t = 0xFFFFFF - SYST_CVR;
	rt_puts("rosc count cycles ");
	rt_put_dec(t);
	rt_putc('\n');
	/* DIV without its 0xAA0 base: BADWRITE, divide by 31. */
	ROSC_DIV = 4;
	line("rosc bad div", ROSC_DIV);
	line("rosc bad status", ROSC_STATUS);
	REG_SET(ROSC + 0x18) = 1u << 24; /* write 1 to clear BADWRITE */
	line("rosc cleared", ROSC_STATUS);
	line("syscfg proc_config", REG(SYSCFG + 0x08));
	line("syscfg dbgforce", REG(SYSCFG + 0x14));
	REG(SYSCFG + 0x00) = 0x00800000u; /* PROC0_NMI_MASK */
	line("syscfg nmi_mask", REG(SYSCFG + 0x00));
	line("psm done", PSM_DONE);
	line("busctrl perfsel0", REG(BUSCTRL + 0x0C));
	REG(BUSCTRL + 0x00) = 0x1;
	line("busctrl ack", REG(BUSCTRL + 0x04));
	ROSC_DIV = 0xAA0 + 16; /* back to divide by 16 for the next pass */
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
