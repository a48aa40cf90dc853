/* unmapped.c: reads an address nothing answers. The virtual Pico reports it and reads 0;
 * in strict mode the read is a bus error and the HardFault handler runs instead. */
#include "rt.h"

int main(void)
{
	uint32_t v = REG(0xA0000000u);
	rt_puts("read ");
	rt_put_hex(v);
	rt_putc('\n');
	return 0;
}
