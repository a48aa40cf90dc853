/* The RP2040 USB device controller driver (drivers/usb/udc/udc_rpi_pico.c). */
#include <stdint.h>
struct net_pkt;
int udc_submit_event(struct net_pkt *pkt);
struct net_pkt *udc_buf_get(void);
int net_recv_data(struct net_pkt *pkt);
#define USB_REGS ((volatile uint32_t *)0x50110000)

static void rpi_handle_xfer(unsigned int ep)
{
	struct net_pkt *pkt = udc_buf_get();
	if (pkt && (ep & 1))
		net_recv_data(pkt);
	USB_REGS[0x98 / 4] = 1u << ep;
}

void udc_rpi_isr(void)
{
	uint32_t status = USB_REGS[0x8c / 4];
	for (unsigned int ep = 0; ep < 32; ep++)
		if (status & (1u << ep))
			rpi_handle_xfer(ep);
}

int udc_rpi_ep_enqueue(int ep, struct net_pkt *pkt)
{
	USB_REGS[0x100 / 4 + (ep & 15)] = (uint32_t)(uintptr_t)pkt;
	return udc_submit_event(pkt);
}
