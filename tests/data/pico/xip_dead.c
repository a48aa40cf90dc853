/* xip_dead.c: flash reads while the flash cannot answer them, the mistake flash-writing code
 * makes when something runs from flash in the middle of a command sequence. From SRAM: the
 * SSI disabled, an uncached read through 0x13000000 (it reaches the flash: reported) and a
 * cached read of a line already in the cache (a hit: the flash is not asked); the SSI back
 * on, the same uncached read (answered); then /CS forced high through IO_QSPI
 * GPIO_QSPI_SS_CTRL.OUTOVER and another uncached read (a second report). The values read
 * are the flash's own in every case. */
#include "rt.h"

#define SSI_SSIENR REG(0x18000008u)
#define IO_QSPI_SS_CTRL REG(0x4001800Cu)

static const volatile uint32_t *word(uint32_t addr)
{
	const volatile uint32_t *p;
	__asm volatile("" : "=r"(p) : "0"(addr));
	return p;
}

RT_RAMFUNC static void ssi_off_reads(uint32_t *uncached, uint32_t *cached)
{
	SSI_SSIENR = 0;
	*uncached = *word(0x13000100u);
	*cached = *word(0x10000100u);
	SSI_SSIENR = 1;
}

RT_RAMFUNC static uint32_t cs_high_read(void)
{
	IO_QSPI_SS_CTRL = 3u << 8; /* OUTOVER: drive high */
	uint32_t v = *word(0x13000200u);
	IO_QSPI_SS_CTRL = 0;
	return v;
}

int main(void)
{
	uint32_t primed = *word(0x10000100u), a, b;
	ssi_off_reads(&a, &b);
	uint32_t c = *word(0x13000100u);
	uint32_t d = cs_high_read();
	rt_puts("reads same ");
	rt_put_dec(a == primed && b == primed && c == primed && d == *word(0x13000200u));
	rt_putc('\n');
	return 0;
}
