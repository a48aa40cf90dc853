/* The UDC API (drivers/usb/udc/udc_common.c). */
#include <stdint.h>
struct net_pkt;
static struct net_pkt *queue[8];
static unsigned int head, tail;

int udc_submit_event(struct net_pkt *pkt)
{
	queue[head++ & 7] = pkt;
	return 0;
}

struct net_pkt *udc_buf_get(void)
{
	return tail == head ? (struct net_pkt *)0 : queue[tail++ & 7];
}
