/* unmodelled.c: touches registers the virtual Pico does not model: an APB slot no RP2040
 * peripheral uses (0x40070000) read three times, RTC's CLKDIV_M1 written and its CTRL set
 * through the SET alias (+0x2000) and read back, as an RTC driver would, and one address
 * outside every block. The board reads them as 0; `sim run --peripherals` lists each with
 * its counts and first PC. */
#include "rt.h"

#define APB_FREE_SLOT 0x40070000u
#define RTC_CLKDIV_M1 0x4005C000u
#define RTC_CTRL 0x4005C00Cu

int main(void)
{
	uint32_t v = 0;
	for (int i = 0; i < 3; i++)
		v += REG(APB_FREE_SLOT);
	REG(RTC_CLKDIV_M1) = 46874;
	REG_SET(RTC_CTRL) = 1;
	v += REG(RTC_CTRL);
	v += REG(0xA0000000u);
	rt_puts("unmodelled read ");
	rt_put_hex(v);
	rt_putc('\n');
	return 0;
}
