/* The network core (subsys/net/ip/net_core.c). */
#include <stdint.h>
struct net_pkt;
int net_ipv4_input(struct net_pkt *pkt);
void net_pkt_unref(struct net_pkt *pkt);
int udc_rpi_ep_enqueue(int ep, struct net_pkt *pkt);
void k_sem_give(void *sem);
static uint32_t rx_sem[2] = {0, 8};

static void process_rx_packet(struct net_pkt *pkt)
{
	if (net_ipv4_input(pkt) < 0)
		net_pkt_unref(pkt);
}

int net_recv_data(struct net_pkt *pkt)
{
	process_rx_packet(pkt);
	k_sem_give(rx_sem);
	return 0;
}

int net_send_data(struct net_pkt *pkt) { return udc_rpi_ep_enqueue(0x81, pkt); }
