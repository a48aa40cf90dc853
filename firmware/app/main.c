/* main.c: boot banner and system start-up: network stack, USB CDC-ECM, the echo server. */
#include "app/app.h"
#include "config.h"
#include "drivers/clock.h"
#include "drivers/console.h"
#include "drivers/xip.h"
#include "echo_server.h"
#include "firewall.h"
#include "kernel/kernel.h"
#include "net/net_core.h"
#include "net/net_if.h"
#include "net/net_stats.h"
#include "sys/log.h"
#include "usb/cdc_ecm.h"
#include "usb/usbd.h"

LOG_MODULE_REGISTER(main, LOG_LEVEL_INF);

#ifndef FW_VARIANT
#define FW_VARIANT "default"
#endif

#define STATS_PERIOD K_SECONDS(60)

#if CONFIG_APP_BUFFER_KB > 0
/* A buffer the application keeps in SRAM (make APP_BUFFER_KB=N): what a frame buffer or a
 * log ring takes in a real application. The banner marks it in use. */
static uint8_t app_buffer[CONFIG_APP_BUFFER_KB * 1024];
#endif

static const uint8_t device_mac[6] = ECHO_DEVICE_MAC;
static const uint8_t host_mac[6] = ECHO_HOST_MAC;
static struct k_work_delayable stats_work;

/* One line of statistics a minute: enough to see at a glance that traffic flows. */
static void stats_line(struct k_work *w)
{
	struct echo_server_stats echo;
	const struct net_stats *s = &net_stats_global;
	UNUSED(w);
	echo_server_stats_get(&echo);
	uint32_t load = k_cpu_load_permille();
	LOG_INF("up %u s, cpu %u.%u%%, frames rx %u tx %u, pings %u, udp echoes %u (%u errors)",
		(unsigned)(k_uptime_get_32() / 1000u), (unsigned)(load / 10u), (unsigned)(load % 10u),
		(unsigned)s->eth.rx_pkts, (unsigned)s->eth.tx_pkts, (unsigned)s->icmp.sent,
		(unsigned)echo.datagrams, (unsigned)(echo.send_errors + echo.recv_errors));
	k_work_schedule(&stats_work, STATS_PERIOD);
}

void app_banner(int clock_status)
{
	static const uint8_t ip[4] = ECHO_IPV4_ADDR;
	printk("\r\n*** xipbench echo firmware (%s) ***\r\n", FW_VARIANT);
	if (clock_status)
		printk("clock bring-up timed out at: %s\r\n", clock_init_error());
	printk("clk_sys %u Hz, clk_usb %u Hz, XIP cache %s\r\n", (unsigned)clock_get_hz(CLK_SYS),
	       (unsigned)clock_get_hz(CLK_USB), xip_cache_enabled() ? "on" : "OFF");
#if CONFIG_APP_BUFFER_KB > 0
	*(volatile uint8_t *)&app_buffer[0] = 1; /* a store the compiler keeps */
	printk("application buffer: %u KB of SRAM\r\n", (unsigned)(sizeof app_buffer / 1024));
#endif
	printk("USB CDC-ECM, IPv4 %u.%u.%u.%u/24, MAC %02x:%02x:%02x:%02x:%02x:%02x, "
	       "UDP echo on port %u\r\n",
	       ip[0], ip[1], ip[2], ip[3], device_mac[0], device_mac[1], device_mac[2],
	       device_mac[3], device_mac[4], device_mac[5], ECHO_UDP_PORT);
}

void app_main(void *p1, void *p2, void *p3)
{
	UNUSED(p1);
	UNUSED(p2);
	UNUSED(p3);
	static const struct in_addr addr = {.s4_addr = ECHO_IPV4_ADDR};
	static const struct in_addr mask = {.s4_addr = ECHO_IPV4_NETMASK};

	net_init();
	int ret = usbd_init();
	if (ret) {
		LOG_ERR("USB device stack: %d", ret);
		return;
	}
	struct net_if *iface = cdc_ecm_init(device_mac, host_mac);
	net_if_ipv4_addr_add(iface, &addr, &mask);
	firewall_init(iface);
	net_if_up(iface);
	ret = usbd_enable();
	if (ret) {
		LOG_ERR("USB attach: %d", ret);
		return;
	}
	echo_server_start();
	k_work_init_delayable(&stats_work, stats_line);
	k_work_schedule(&stats_work, STATS_PERIOD);
	LOG_INF("ready");
}
