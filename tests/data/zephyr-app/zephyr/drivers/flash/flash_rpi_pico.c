/* The flash driver (drivers/flash/flash_rpi_pico.c): its write routine runs from RAM
 * (__ramfunc, the .ramfunc section) and calls code in flash, so the stock image has
 * long-branch veneers. */
#include <stdint.h>
void printk(const char *s);

__attribute__((noinline)) static void flash_busy_wait(void)
{
	while (*(volatile uint32_t *)0x18000028 & 1)
		;
}

__attribute__((section(".ramfunc"), noinline)) void flash_rpi_write_ram(uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(0x18000060) = off;
	*(volatile uint32_t *)(0x18000060) = v;
	flash_busy_wait();
}

int flash_rpi_write(uint32_t off, uint32_t v)
{
	flash_rpi_write_ram(off, v);
	printk("w");
	return 0;
}

static int flash_rpi_init(void) { return flash_rpi_write(0, 0); }
__attribute__((used, section(".z_init_POST_KERNEL_50_"))) static int (*const flash_init_entry)(void) =
	flash_rpi_init;
