/* hello.c: prints a greeting, then sleeps for ever with the TIMER counting. */
#include "rt.h"

int main(void)
{
	rt_puts("hello from the virtual pico\n");
	for (;;)
		rt_wfi();
}
