/* usbd_ch9.c: control transfers on endpoint 0 (setup, data and status stages) and the
 * standard requests of USB 2.0 chapter 9; class requests go to the interface's class. */
#include <string.h>

#include "sys/log.h"
#include "usbd_internal.h"

LOG_MODULE_REGISTER(usbd_ch9, LOG_LEVEL_WRN);

#define CTRL_BUF_SIZE 256

enum ctrl_stage { CTRL_IDLE, CTRL_DATA_IN, CTRL_DATA_OUT, CTRL_STATUS };

static struct usb_setup_packet setup;
static enum ctrl_stage stage;

static void ctrl_stall(void)
{
	usbd_dev.stats.stalls++;
	LOG_DBG("stall: type %02x request %02x value %04x", setup.bmRequestType, setup.bRequest,
		setup.wValue);
	udc_ep_set_halt(USB_EP0_IN);
	udc_ep_set_halt(USB_EP0_OUT);
	stage = CTRL_IDLE;
}

static void ctrl_enqueue(struct net_buf *buf)
{
	if (udc_ep_enqueue(buf)) {
		udc_ep_buf_free(buf);
		ctrl_stall();
	}
}

/* The status stage: a zero-length packet in the direction opposite to the data. */
static void ctrl_status(uint8_t ep)
{
	struct net_buf *buf = udc_ep_buf_alloc(ep, 0);
	if (!buf) {
		ctrl_stall();
		return;
	}
	udc_get_buf_info(buf)->status = 1;
	stage = CTRL_STATUS;
	ctrl_enqueue(buf);
}

/* ---- Standard requests ---- */

static int std_get_status(uint8_t *buf, size_t *len)
{
	uint8_t recipient = USB_REQTYPE_RECIPIENT(setup.bmRequestType);
	buf[0] = buf[1] = 0;
	*len = 2;
	switch (recipient) {
	case USB_REQTYPE_RECIPIENT_DEVICE:
		return 0; /* bus powered, no remote wake-up */
	case USB_REQTYPE_RECIPIENT_INTERFACE:
		return usbd_class_for_iface((uint8_t)setup.wIndex) ? 0 : -EINVAL;
	case USB_REQTYPE_RECIPIENT_ENDPOINT:
		buf[0] = udc_ep_is_halted((uint8_t)setup.wIndex) ? 1 : 0;
		return 0;
	default:
		return -EINVAL;
	}
}

static int std_feature(bool set)
{
	uint8_t recipient = USB_REQTYPE_RECIPIENT(setup.bmRequestType);
	if (recipient == USB_REQTYPE_RECIPIENT_ENDPOINT &&
	    setup.wValue == USB_FEATURE_ENDPOINT_HALT) {
		uint8_t ep = (uint8_t)setup.wIndex;
		if (usbd_dev.state != USBD_CONFIGURED && USB_EP_IDX(ep) != 0)
			return -EINVAL;
		return set ? udc_ep_set_halt(ep) : udc_ep_clear_halt(ep);
	}
	if (recipient == USB_REQTYPE_RECIPIENT_DEVICE &&
	    setup.wValue == USB_FEATURE_REMOTE_WAKEUP)
		return -ENOTSUP; /* the configuration does not offer it */
	return -EINVAL;
}

static int std_set_address(void)
{
	if (setup.wValue > 127 || usbd_dev.state == USBD_CONFIGURED)
		return -EINVAL;
	usbd_dev.address = (uint8_t)setup.wValue;
	usbd_dev.state = setup.wValue ? USBD_ADDRESSED : USBD_DEFAULT;
	udc_set_address((uint8_t)setup.wValue);
	LOG_DBG("address %u", setup.wValue);
	return 0;
}

static int std_set_configuration(void)
{
	uint8_t config = (uint8_t)setup.wValue;
	if (usbd_dev.state == USBD_DEFAULT || config > 1)
		return -EINVAL;
	if (usbd_dev.configuration)
		usbd_classes_config(false);
	memset(usbd_dev.alt, 0, sizeof(usbd_dev.alt));
	usbd_dev.configuration = config;
	usbd_dev.state = config ? USBD_CONFIGURED : USBD_ADDRESSED;
	if (config)
		usbd_classes_config(true);
	LOG_INF("configuration %u", config);
	return 0;
}

static int std_set_interface(void)
{
	uint8_t iface = (uint8_t)setup.wIndex, alt = (uint8_t)setup.wValue;
	struct usbd_class *c = usbd_class_for_iface(iface);
	if (usbd_dev.state != USBD_CONFIGURED || !c)
		return -EINVAL;
	int ret = c->api->set_alt ? c->api->set_alt(c, iface, alt) : (alt ? -EINVAL : 0);
	if (ret == 0)
		usbd_dev.alt[iface] = alt;
	return ret;
}

static int std_request_in(uint8_t *buf, size_t *len)
{
	switch (setup.bRequest) {
	case USB_SREQ_GET_STATUS:
		return std_get_status(buf, len);
	case USB_SREQ_GET_DESCRIPTOR: {
		int n = usbd_desc_get((uint8_t)(setup.wValue >> 8), (uint8_t)setup.wValue, buf,
				      *len);
		if (n < 0)
			return n;
		*len = (size_t)n;
		return 0;
	}
	case USB_SREQ_GET_CONFIGURATION:
		buf[0] = usbd_dev.configuration;
		*len = 1;
		return 0;
	case USB_SREQ_GET_INTERFACE:
		if (usbd_dev.state != USBD_CONFIGURED || setup.wIndex >= usbd_dev.num_interfaces)
			return -EINVAL;
		buf[0] = usbd_dev.alt[setup.wIndex];
		*len = 1;
		return 0;
	default:
		return -ENOTSUP;
	}
}

static int std_request_out(void)
{
	switch (setup.bRequest) {
	case USB_SREQ_CLEAR_FEATURE:
		return std_feature(false);
	case USB_SREQ_SET_FEATURE:
		return std_feature(true);
	case USB_SREQ_SET_ADDRESS:
		return std_set_address();
	case USB_SREQ_SET_CONFIGURATION:
		return std_set_configuration();
	case USB_SREQ_SET_INTERFACE:
		return std_set_interface();
	default:
		return -ENOTSUP;
	}
}

/* A class request goes to the class owning the interface in wIndex. */
static int class_request(uint8_t *buf, size_t *len)
{
	if (USB_REQTYPE_RECIPIENT(setup.bmRequestType) != USB_REQTYPE_RECIPIENT_INTERFACE)
		return -ENOTSUP;
	struct usbd_class *c = usbd_class_for_iface((uint8_t)setup.wIndex);
	if (!c || !c->api->control)
		return -ENOTSUP;
	usbd_dev.stats.class_requests++;
	return c->api->control(c, &setup, buf, len);
}

/* Runs the request; for a device-to-host one, *len is the room in, the reply size out. */
static int ctrl_dispatch(uint8_t *buf, size_t *len)
{
	switch (USB_REQTYPE_TYPE(setup.bmRequestType)) {
	case USB_REQTYPE_TYPE_STANDARD:
		usbd_dev.stats.std_requests++;
		if (setup.bmRequestType & USB_REQTYPE_DIR_IN)
			return std_request_in(buf, len);
		return std_request_out();
	case USB_REQTYPE_TYPE_CLASS:
		return class_request(buf, len);
	default:
		return -ENOTSUP;
	}
}

static void ctrl_setup(void)
{
	usbd_dev.stats.setups++;
	LOG_DBG("setup %02x %02x %04x %04x %u", setup.bmRequestType, setup.bRequest, setup.wValue,
		setup.wIndex, setup.wLength);

	if (setup.bmRequestType & USB_REQTYPE_DIR_IN) {
		struct net_buf *buf = udc_ep_buf_alloc(USB_EP0_IN, CTRL_BUF_SIZE);
		if (!buf) {
			ctrl_stall();
			return;
		}
		size_t len = MIN((size_t)setup.wLength, net_buf_tailroom(buf));
		if (ctrl_dispatch(buf->data, &len) < 0) {
			udc_ep_buf_free(buf);
			ctrl_stall();
			return;
		}
		net_buf_add(buf, MIN(len, (size_t)setup.wLength));
		struct udc_buf_info *info = udc_get_buf_info(buf);
		info->data = 1;
		/* Shorter than asked: a short packet (or a ZLP) tells the host it is all. */
		info->zlp = buf->len < setup.wLength;
		stage = CTRL_DATA_IN;
		ctrl_enqueue(buf);
		return;
	}
	if (setup.wLength == 0) {
		size_t len = 0;
		if (ctrl_dispatch(NULL, &len) < 0)
			ctrl_stall();
		else
			ctrl_status(USB_EP0_IN);
		return;
	}
	if (setup.wLength > CTRL_BUF_SIZE) {
		ctrl_stall();
		return;
	}
	/* Host-to-device data first; the request runs when it has arrived. */
	struct net_buf *buf = udc_ep_buf_alloc(USB_EP0_OUT, setup.wLength);
	if (!buf) {
		ctrl_stall();
		return;
	}
	udc_get_buf_info(buf)->data = 1;
	stage = CTRL_DATA_OUT;
	ctrl_enqueue(buf);
}

void usbd_ch9_request(struct net_buf *buf, int err)
{
	struct udc_buf_info *info = udc_get_buf_info(buf);
	if (info->setup) {
		const uint8_t *raw = buf->data;
		setup.bmRequestType = raw[0];
		setup.bRequest = raw[1];
		setup.wValue = sys_get_le16(raw + 2);
		setup.wIndex = sys_get_le16(raw + 4);
		setup.wLength = sys_get_le16(raw + 6);
		udc_ep_buf_free(buf);
		if (!err)
			ctrl_setup();
		return;
	}
	if (err) {
		/* Cancelled by a new SETUP or a reset: nothing more to do. */
		udc_ep_buf_free(buf);
		return;
	}
	if (info->status) {
		udc_ep_buf_free(buf);
		stage = CTRL_IDLE;
		return;
	}
	if (USB_EP_IS_IN(info->ep)) {
		udc_ep_buf_free(buf);
		ctrl_status(USB_EP0_OUT);
		return;
	}
	size_t len = buf->len;
	int ret = ctrl_dispatch(buf->data, &len);
	udc_ep_buf_free(buf);
	if (ret < 0)
		ctrl_stall();
	else
		ctrl_status(USB_EP0_IN);
}

void usbd_ch9_reset(void)
{
	stage = CTRL_IDLE;
}

void usbd_ch9_init(void)
{
	stage = CTRL_IDLE;
}
