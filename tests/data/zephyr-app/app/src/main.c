/* main: registers the echo handler and waits for packets. */
#include <stdint.h>
struct net_pkt;
typedef int (*udp_cb)(struct net_pkt *pkt, uint16_t port);
void net_udp_register(udp_cb cb);
int udp_echo_cb(struct net_pkt *pkt, uint16_t port);
void printk(const char *s);
void k_yield(void);
uint16_t crc16_ccitt(uint16_t seed, const uint8_t *src, unsigned int len);
int flash_rpi_write(uint32_t off, uint32_t v);
static const uint8_t banner[] = "echo";

int main(void)
{
	net_udp_register(udp_echo_cb);
	printk("echo server\n");
	flash_rpi_write(0x1000, crc16_ccitt(0, banner, sizeof banner));
	for (;;)
		k_yield();
	return 0;
}
