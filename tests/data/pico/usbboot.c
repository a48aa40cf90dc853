/* usbboot.c: reset_to_usb_boot found with rom_func_lookup('U', 'B') and called as pico-sdk's
 * reset_usb_boot(1 << 25, 0) does (activity LED on GPIO25, both interfaces): the chip would
 * reboot into BOOTSEL mode, so nothing after the call may run. */
#include "rt.h"

#define ROM_CODE(a, b) ((uint32_t)(a) | (uint32_t)(b) << 8)

typedef void *(*rom_lookup_fn)(const uint16_t *table, uint32_t code);

static uint16_t rom_hword(uint32_t addr)
{
	const volatile uint16_t *p;
	__asm volatile("" : "=r"(p) : "0"(addr));
	return *p;
}

int main(void)
{
	rom_lookup_fn lookup = (rom_lookup_fn)(uintptr_t)rom_hword(0x18);
	void (*reset_usb_boot)(uint32_t, uint32_t) =
		lookup((const uint16_t *)(uintptr_t)rom_hword(0x14), ROM_CODE('U', 'B'));
	rt_puts("to bootsel\n");
	rt_flush(); /* the reboot would lose what is still in the FIFO */
	reset_usb_boot(1u << 25, 0);
	rt_puts("still running\n");
	return 1;
}
