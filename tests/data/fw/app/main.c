/* main.c: the echo application: ICMP echo and a UDP echo port over USB CDC-ECM. */
#include "fw.h"

static const uint8_t device_mac[6] = {0x02, 0x00, 0x5e, 0x10, 0x00, 0x01};
static struct k_thread main_thread = {.name = "main", .prio = 5};
static struct k_timeout housekeeping;
static uint32_t echo_count, echo_bytes;
uint32_t app_config_flags = 0x3;

static void udp_echo(struct net_if *iface, struct net_buf *b, uint32_t src, uint16_t sport)
{
	echo_count++;
	echo_bytes += b->len;
	if (udp_sendto(iface, b, src, 7, sport) < 0)
		net_buf_unref(b);
}

static void housekeeping_fn(struct k_timeout *t)
{
	arp_timer(k_uptime_ms());
	if (app_config_flags & 2)
		app_gen_00(echo_count ^ net_stats_get(0));
	k_timeout_add(t, 1000, housekeeping_fn);
}

uint32_t app_echo_rate(uint32_t window_ms)
{
	static uint32_t last_count, last_ms;
	uint32_t now = k_uptime_ms();
	uint32_t dt = now - last_ms;
	if (dt < window_ms)
		return 0;
	uint32_t rate = (echo_count - last_count) * 1000u / dt;
	last_count = echo_count;
	last_ms = now;
	return rate;
}

int main(void)
{
	k_sched_init();
	k_sched_add(&main_thread);
	udc_init();
	usb_init();
	net_if_init(&net_default_if, device_mac, 0xc0a80702, 0xffffff00);
	cdc_ecm_init(&net_default_if);
	udp_bind(7, udp_echo);
	k_timeout_add(&housekeeping, 1000, housekeeping_fn);
	for (;;) {
		net_process();
		k_work_run();
		if (app_config_flags & 1)
			app_echo_rate(1000);
		k_yield();
	}
}
