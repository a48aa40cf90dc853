/* main.c: boot banner and system start-up. */
#include "app/app.h"
#include "drivers/clock.h"
#include "drivers/console.h"
#include "drivers/xip.h"
#include "kernel/kernel.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(main, LOG_LEVEL_INF);

#ifndef FW_VARIANT
#define FW_VARIANT "default"
#endif

void app_banner(int clock_status)
{
	printk("\r\n*** xipbench echo firmware (%s) ***\r\n", FW_VARIANT);
	if (clock_status)
		printk("clock bring-up timed out at: %s\r\n", clock_init_error());
	printk("clk_sys %u Hz, clk_usb %u Hz, XIP cache %s\r\n", (unsigned)clock_get_hz(CLK_SYS),
	       (unsigned)clock_get_hz(CLK_USB), xip_cache_enabled() ? "on" : "OFF");
}

void app_main(void *p1, void *p2, void *p3)
{
	UNUSED(p1);
	UNUSED(p2);
	UNUSED(p3);
	LOG_INF("kernel running");
	for (int i = 0; i < 3; i++) {
		k_msleep(10);
		LOG_INF("tick %d uptime %u ms", i, (unsigned)k_uptime_get_32());
	}
}
