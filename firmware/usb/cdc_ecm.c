/* cdc_ecm.c: the CDC-ECM class: descriptors, class requests, link notifications on the
 * interrupt endpoint, and the data path: a finished bulk OUT transfer becomes a network
 * packet; a packet to send becomes one bulk IN transfer, ended by a short packet or a ZLP,
 * and the sender waits until the host has taken it. */
#include <string.h>

#include "net/ethernet.h"
#include "net/net_core.h"
#include "sys/format.h"
#include "sys/log.h"
#include "usb/cdc_ecm.h"
#include "usb/usbd.h"

LOG_MODULE_REGISTER(cdc_ecm, LOG_LEVEL_INF);

#define ECM_EP_NOTIFY 0x81u
#define ECM_EP_IN 0x82u
#define ECM_EP_OUT 0x02u
#define ECM_NOTIFY_MPS 16
#define ECM_BULK_MPS 64
/* A whole frame per transfer, with room for the byte Linux appends to frames whose length
 * is a multiple of 64; rounded to whole packets. */
#define ECM_FRAME_BUF 1536
#define ECM_RX_QUEUED 2 /* OUT transfers kept queued: the next frame can come in at once */
/* How long a sender waits for the host to take a frame before giving up on it. */
#define ECM_TX_TIMEOUT K_MSEC(500)

/* Class requests (CDC ECM 1.2 table 6) */
#define ECM_SET_ETHERNET_MULTICAST_FILTERS 0x40
#define ECM_SET_ETHERNET_PM_PATTERN_FILTER 0x41
#define ECM_GET_ETHERNET_PM_PATTERN_FILTER 0x42
#define ECM_SET_ETHERNET_PACKET_FILTER 0x43
#define ECM_GET_ETHERNET_STATISTIC 0x44
/* Notifications (CDC 1.2 table 20) */
#define ECM_NOTIFY_NETWORK_CONNECTION 0x00
#define ECM_NOTIFY_CONNECTION_SPEED_CHANGE 0x2A
#define ECM_FULL_SPEED_BPS 12000000u
/* Packet filter bits (CDC ECM 1.2 table 8): what the host wants forwarded to it. */
#define ECM_FILTER_PROMISCUOUS 0x01u
#define ECM_FILTER_ALL_MULTICAST 0x02u
#define ECM_FILTER_DIRECTED 0x04u
#define ECM_FILTER_BROADCAST 0x08u
#define ECM_FILTER_MULTICAST 0x10u /* groups of the multicast filter list (none here) */
/* Until the host sets its filter: everything but promiscuous mode. */
#define ECM_FILTER_DEFAULT \
	(ECM_FILTER_ALL_MULTICAST | ECM_FILTER_DIRECTED | ECM_FILTER_BROADCAST | ECM_FILTER_MULTICAST)

#define ECM_IFACE_COMM 0 /* relative to the class's first interface */
#define ECM_IFACE_DATA 1

struct cdc_ecm {
	struct usbd_class cls;
	struct net_if iface;
	struct k_mutex tx_lock;  /* one frame in flight on the bulk IN endpoint */
	struct k_sem tx_done;    /* given when that frame's transfer ends */
	int tx_status;
	uint8_t rx_queued;       /* OUT transfers waiting for frames */
	uint8_t data_alt;
	uint8_t notify_pending;  /* notifications queued, not yet taken by the host */
	uint16_t packet_filter;  /* the host's SET_ETHERNET_PACKET_FILTER */
	uint8_t host_mac[6];
	struct cdc_ecm_stats stats;
	char mac_string[13];
};

static struct cdc_ecm ecm;

/* Interfaces 0 (communication) and 1 (data), as the USB stack numbers them for the only
 * class; the configuration descriptor is built from this block. */
static const uint8_t ecm_desc[] = {
	/* Interface association: 2 interfaces, CDC / ECM */
	8, USB_DESC_INTERFACE_ASSOC, 0, 2, 0x02, 0x06, 0x00, 0,
	/* Communication interface: 1 endpoint, CDC / ECM / no protocol */
	9, USB_DESC_INTERFACE, 0, 0, 1, 0x02, 0x06, 0x00, 0,
	/* CDC header, bcdCDC 1.20 */
	5, USB_DESC_CS_INTERFACE, 0x00, 0x20, 0x01,
	/* Union: control interface 0, subordinate 1 */
	5, USB_DESC_CS_INTERFACE, 0x06, 0, 1,
	/* Ethernet networking: iMACAddress, no statistics, wMaxSegmentSize 1514, no
	 * multicast or power filters */
	13, USB_DESC_CS_INTERFACE, 0x0F, USBD_STR_CLASS_FIRST, 0, 0, 0, 0,
	NET_ETH_MAX_FRAME & 0xFF, NET_ETH_MAX_FRAME >> 8, 0, 0, 0,
	/* Notification endpoint: interrupt IN, 16 bytes, every frame */
	7, USB_DESC_ENDPOINT, ECM_EP_NOTIFY, USB_EP_INTERRUPT, ECM_NOTIFY_MPS, 0, 1,
	/* Data interface, alternate 0: no endpoints (no traffic) */
	9, USB_DESC_INTERFACE, 1, 0, 0, 0x0A, 0x00, 0x00, 0,
	/* Data interface, alternate 1: bulk IN and OUT */
	9, USB_DESC_INTERFACE, 1, 1, 2, 0x0A, 0x00, 0x00, 0,
	7, USB_DESC_ENDPOINT, ECM_EP_IN, USB_EP_BULK, ECM_BULK_MPS, 0, 0,
	7, USB_DESC_ENDPOINT, ECM_EP_OUT, USB_EP_BULK, ECM_BULK_MPS, 0, 0,
};

/* ---- Notifications ---- */

static int ecm_notify(const uint8_t *msg, size_t len)
{
	struct net_buf *buf = usbd_ep_buf_alloc(&ecm.cls, ECM_EP_NOTIFY, len);
	if (!buf)
		return -ENOMEM;
	net_buf_add_mem(buf, msg, len);
	int ret = usbd_ep_enqueue(&ecm.cls, buf);
	if (ret) {
		usbd_ep_buf_free(buf);
		return ret;
	}
	ecm.notify_pending++;
	return 0;
}

/* Queues NETWORK_CONNECTION (and, when connected, CONNECTION_SPEED_CHANGE) on the interrupt
 * endpoint; the host takes them once its interface is up. */
static void ecm_notify_link(bool connected)
{
	uint16_t itf = ecm.cls.first_iface + ECM_IFACE_COMM;
	uint8_t msg[16];
	msg[0] = 0xA1; /* class, interface, device to host */
	msg[1] = ECM_NOTIFY_NETWORK_CONNECTION;
	sys_put_le16(connected ? 1 : 0, msg + 2);
	sys_put_le16(itf, msg + 4);
	sys_put_le16(0, msg + 6);
	if (ecm_notify(msg, 8))
		LOG_DBG("connection notification not queued");
	if (!connected)
		return;
	msg[1] = ECM_NOTIFY_CONNECTION_SPEED_CHANGE;
	sys_put_le16(0, msg + 2);
	sys_put_le16(8, msg + 6);
	sys_put_le32(ECM_FULL_SPEED_BPS, msg + 8);  /* downstream */
	sys_put_le32(ECM_FULL_SPEED_BPS, msg + 12); /* upstream */
	if (ecm_notify(msg, 16))
		LOG_DBG("speed notification not queued");
}

/* ---- Receive: one bulk OUT transfer per frame ---- */

static int ecm_out_start(void)
{
	struct net_buf *buf = usbd_ep_buf_alloc(&ecm.cls, ECM_EP_OUT, ECM_FRAME_BUF);
	if (!buf)
		return -ENOMEM;
	int ret = usbd_ep_enqueue(&ecm.cls, buf);
	if (ret) {
		usbd_ep_buf_free(buf);
		return ret;
	}
	ecm.rx_queued++;
	return 0;
}

/* A frame from the host: into a network packet for the RX thread. Its time of reception is
 * the controller's (the transfer's last packet), not this thread's. */
static void ecm_frame_received(const uint8_t *frame, size_t len, uint32_t timestamp)
{
	if (len < NET_ETH_HDR_LEN) {
		if (len)
			ecm.stats.rx_errors++;
		return;
	}
	LOG_DBG("rx frame %u bytes", (unsigned)len);
	struct net_pkt *pkt =
		net_pkt_rx_alloc_with_buffer(&ecm.iface, len, AF_UNSPEC, 0, K_NO_WAIT);
	if (!pkt) {
		ecm.stats.rx_no_buffer++;
		return;
	}
	pkt->timestamp = timestamp;
	if (net_pkt_write(pkt, frame, len) || net_recv_data(&ecm.iface, pkt) < 0) {
		ecm.stats.rx_errors++;
		net_pkt_unref(pkt);
		return;
	}
	ecm.stats.rx_frames++;
	ecm.stats.rx_bytes += len;
}

static void ecm_out_done(struct net_buf *buf, int err)
{
	ecm.rx_queued--;
	if (err == -EOVERFLOW)
		ecm.stats.rx_errors++;
	else if (!err)
		ecm_frame_received(buf->data, buf->len, udc_get_buf_info(buf)->timestamp);
	usbd_ep_buf_free(buf);
	/* Keep transfers queued while the data interface is up. */
	while (ecm.data_alt == 1 && ecm.rx_queued < ECM_RX_QUEUED)
		if (ecm_out_start())
			break;
}

static void ecm_in_done(struct net_buf *buf, int err)
{
	usbd_ep_buf_free(buf);
	ecm.tx_status = err;
	k_sem_give(&ecm.tx_done);
}

static int ecm_request(struct usbd_class *c, struct net_buf *buf, int err)
{
	UNUSED(c);
	uint8_t ep = udc_get_buf_info(buf)->ep;
	switch (ep) {
	case ECM_EP_OUT:
		ecm_out_done(buf, err);
		break;
	case ECM_EP_IN:
		ecm_in_done(buf, err);
		break;
	case ECM_EP_NOTIFY:
		ecm.notify_pending--;
		if (!err)
			ecm.stats.notifications++;
		usbd_ep_buf_free(buf);
		break;
	default:
		usbd_ep_buf_free(buf);
		break;
	}
	return 0;
}

/* ---- Send: the network interface's device ---- */

/* Whether the host's packet filter lets a frame for dst through to it. */
static bool ecm_host_accepts(const uint8_t *dst)
{
	uint16_t f = ecm.packet_filter;
	if (f & ECM_FILTER_PROMISCUOUS)
		return true;
	if (net_eth_is_addr_broadcast((const struct net_eth_addr *)dst))
		return (f & ECM_FILTER_BROADCAST) != 0;
	if (dst[0] & 0x01)
		return (f & ECM_FILTER_ALL_MULTICAST) != 0;
	return (f & ECM_FILTER_DIRECTED) && memcmp(dst, ecm.host_mac, 6) == 0;
}

static int ecm_send(struct net_if *iface, struct net_pkt *pkt)
{
	UNUSED(iface);
	if (ecm.data_alt != 1)
		return -ENETDOWN;
	size_t len = net_pkt_get_len(pkt);
	if (len > ECM_FRAME_BUF)
		return -EMSGSIZE;

	k_mutex_lock(&ecm.tx_lock, K_FOREVER);
	int ret = -ENOMEM;
	struct net_buf *buf = usbd_ep_buf_alloc(&ecm.cls, ECM_EP_IN, len);
	if (!buf) {
		ecm.stats.tx_busy++;
		goto out;
	}
	/* The frame leaves as one transfer: copy the fragments out, in order. */
	net_pkt_cursor_init(pkt);
	net_pkt_set_overwrite(pkt, true);
	if (net_pkt_read(pkt, net_buf_add(buf, len), len)) {
		usbd_ep_buf_free(buf);
		ret = -EIO;
		goto out;
	}
	if (!ecm_host_accepts(buf->data)) {
		/* Not for the host: as good as sent on a real Ethernet. */
		LOG_DBG("filtered by the host's packet filter");
		ecm.stats.tx_filtered++;
		usbd_ep_buf_free(buf);
		ret = 0;
		goto out;
	}
	udc_ep_buf_set_zlp(buf); /* a frame of whole packets ends with a zero-length one */
	k_sem_reset(&ecm.tx_done);
	ret = usbd_ep_enqueue(&ecm.cls, buf);
	if (ret) {
		usbd_ep_buf_free(buf);
		goto out;
	}
	LOG_DBG("tx frame %u bytes", (unsigned)len);
	if (k_sem_take(&ecm.tx_done, ECM_TX_TIMEOUT)) {
		/* The host does not read: take the frame back, it comes back cancelled. */
		LOG_WRN("tx timeout");
		usbd_ep_dequeue(ECM_EP_IN);
		k_sem_take(&ecm.tx_done, K_FOREVER);
		ecm.stats.tx_errors++;
		ret = -ETIMEDOUT;
		goto out;
	}
	ret = ecm.tx_status;
	if (ret) {
		ecm.stats.tx_errors++;
	} else {
		ecm.stats.tx_frames++;
		ecm.stats.tx_bytes += len;
	}
out:
	k_mutex_unlock(&ecm.tx_lock);
	return ret;
}

static enum net_if_caps ecm_get_capabilities(struct net_if *iface)
{
	UNUSED(iface);
	return 0; /* no checksum offload: USB carries the frames as they are */
}

static const struct net_if_api ecm_if_api = {
	.send = ecm_send,
	.get_capabilities = ecm_get_capabilities,
};

/* ---- USB class callbacks ---- */

static void ecm_data_down(void)
{
	if (ecm.data_alt == 0)
		return;
	ecm.data_alt = 0;
	/* Queued transfers come back through ecm_request, cancelled. */
	usbd_ep_disable(ECM_EP_IN);
	usbd_ep_disable(ECM_EP_OUT);
	net_if_carrier_off(&ecm.iface);
}

static int ecm_set_alt(struct usbd_class *c, uint8_t iface, uint8_t alt)
{
	uint8_t rel = (uint8_t)(iface - ecm.cls.first_iface);
	if (rel == ECM_IFACE_COMM)
		return alt == 0 ? 0 : -EINVAL;
	if (alt > 1)
		return -EINVAL;
	if (alt == 0) {
		ecm_data_down();
		ecm_notify_link(false);
		return 0;
	}
	if (ecm.data_alt == 1)
		return 0;
	int ret = usbd_ep_enable(c, ECM_EP_IN, USB_EP_BULK, ECM_BULK_MPS);
	if (!ret)
		ret = usbd_ep_enable(c, ECM_EP_OUT, USB_EP_BULK, ECM_BULK_MPS);
	if (ret)
		return ret;
	ecm.data_alt = 1;
	for (int i = 0; i < ECM_RX_QUEUED; i++)
		ecm_out_start();
	net_if_carrier_on(&ecm.iface);
	ecm_notify_link(true);
	LOG_INF("data interface up");
	return 0;
}

static void ecm_config(struct usbd_class *c, bool configured)
{
	if (configured) {
		usbd_ep_enable(c, ECM_EP_NOTIFY, USB_EP_INTERRUPT, ECM_NOTIFY_MPS);
		return;
	}
	ecm_data_down();
	usbd_ep_disable(ECM_EP_NOTIFY);
}

static int ecm_control(struct usbd_class *c, const struct usb_setup_packet *setup,
		       uint8_t *data, size_t *len)
{
	UNUSED(c);
	UNUSED(data);
	UNUSED(len);
	switch (setup->bRequest) {
	case ECM_SET_ETHERNET_PACKET_FILTER:
		ecm.packet_filter = setup->wValue;
		ecm.stats.packet_filter = setup->wValue;
		LOG_INF("host packet filter 0x%02x", setup->wValue);
		return 0;
	case ECM_SET_ETHERNET_MULTICAST_FILTERS:
		/* No multicast filter slots (wNumberMCFilters 0): accepted, nothing kept. */
		return 0;
	default:
		LOG_DBG("class request 0x%02x not supported", setup->bRequest);
		return -ENOTSUP;
	}
}

static const struct usbd_class_api ecm_class_api = {
	.config = ecm_config,
	.set_alt = ecm_set_alt,
	.control = ecm_control,
	.request = ecm_request,
};

struct net_if *cdc_ecm_init(const uint8_t mac[6], const uint8_t host_mac[6])
{
	ecm.cls.name = "cdc_ecm";
	ecm.cls.api = &ecm_class_api;
	ecm.cls.desc = ecm_desc;
	ecm.cls.desc_len = sizeof(ecm_desc);
	ecm.cls.num_ifaces = 2;
	ecm.cls.priv = &ecm;
	k_mutex_init(&ecm.tx_lock);
	k_sem_init(&ecm.tx_done, 0, 1);
	ecm.packet_filter = ECM_FILTER_DEFAULT;
	memcpy(ecm.host_mac, host_mac, sizeof(ecm.host_mac));

	/* iMACAddress: exactly 12 hex digits (Linux rejects anything else). */
	snprintk(ecm.mac_string, sizeof(ecm.mac_string), "%02X%02X%02X%02X%02X%02X", host_mac[0],
		 host_mac[1], host_mac[2], host_mac[3], host_mac[4], host_mac[5]);
	usbd_set_string(USBD_STR_CLASS_FIRST, ecm.mac_string);
	usbd_register_class(&ecm.cls);

	ecm.iface.name = "ecm0";
	ecm.iface.api = &ecm_if_api;
	ecm.iface.l2 = &net_l2_ethernet;
	ecm.iface.dev_data = &ecm;
	memcpy(ecm.iface.mac, mac, 6);
	net_if_register(&ecm.iface);
	return &ecm.iface;
}

void cdc_ecm_stats_get(struct cdc_ecm_stats *s)
{
	*s = ecm.stats;
	s->data_alt = ecm.data_alt;
}
