/* cdc_ecm.c: the CDC-ECM function: Ethernet frames over bulk endpoints. */
/* A short packet (under 64 bytes) ends a frame. */
#include "fw.h"

#define EP_NOTIFY 0x81
#define EP_IN 0x82
#define EP_OUT 0x02

static struct net_if *ecm_iface;
static struct net_buf *rx_buf;
static uint32_t rx_frames, rx_overruns, tx_frames;

static void rx_start(void)
{
	rx_buf = net_buf_alloc(K_NO_WAIT);
	if (rx_buf)
		net_buf_reserve(rx_buf, 0);
}

void cdc_ecm_bulk_out(uint8_t ep, const uint8_t *data, uint16_t len)
{
	(void)ep;
	if (!rx_buf)
		rx_start();
	if (!rx_buf) {
		rx_overruns++;
		return;
	}
	if (rx_buf->len + len > NET_BUF_SIZE) {
		rx_overruns++;
		rx_buf->len = 0;
		return;
	}
	memcpy(net_buf_add(rx_buf, len), data, len);
	if (len < 64) {
		rx_frames++;
		net_recv_data(ecm_iface, rx_buf);
		rx_buf = NULL;
	}
}

int cdc_ecm_send(struct net_if *iface, struct net_buf *b)
{
	(void)iface;
	if (!usb_is_configured()) {
		net_buf_unref(b);
		return -1;
	}
	const uint8_t *p = b->data;
	uint16_t left = b->len;
	while (left >= 64) {
		udc_ep_write(EP_IN, p, 64);
		p += 64;
		left -= 64;
	}
	udc_ep_write(EP_IN, p, left);
	tx_frames++;
	net_buf_unref(b);
	return 0;
}

void cdc_ecm_notify(int connected)
{
	static const uint8_t on[8] = {0xa1, 0x00, 1, 0, 0, 0, 0, 0};
	static const uint8_t off[8] = {0xa1, 0x00, 0, 0, 0, 0, 0, 0};
	udc_ep_write(EP_NOTIFY, connected ? on : off, 8);
}

void cdc_ecm_init(struct net_if *iface)
{
	ecm_iface = iface;
	udc_ep_configure(EP_NOTIFY, 3, 16, NULL);
	udc_ep_configure(EP_IN, 2, 64, NULL);
	udc_ep_configure(EP_OUT, 2, 64, cdc_ecm_bulk_out);
}
