/* usbd_core.c: the USB device stack's thread and state: controller events, the class list,
 * endpoint ownership and transfer helpers for classes. */
#include <string.h>

#include "sys/log.h"
#include "usbd_internal.h"

LOG_MODULE_REGISTER(usbd, LOG_LEVEL_INF);

#define USBD_THREAD_STACK_SIZE 1536
/* Below the controller's thread, above the network threads: completions free buffers and
 * wake senders. */
#define USBD_THREAD_PRIO 2
#define USBD_EVENT_QUEUE_LEN 32

struct usbd_device usbd_dev;

static struct k_thread usbd_thread;
static K_THREAD_STACK_DEFINE(usbd_stack, USBD_THREAD_STACK_SIZE);
static struct k_msgq event_q;
static struct udc_event event_buf[USBD_EVENT_QUEUE_LEN];

static struct usbd_class **ep_owner_slot(uint8_t ep)
{
	return &usbd_dev.ep_owner[USB_EP_IDX(ep)][USB_EP_IS_IN(ep) ? 1 : 0];
}

struct usbd_class *usbd_class_for_iface(uint8_t iface)
{
	for (int i = 0; i < usbd_dev.num_classes; i++) {
		struct usbd_class *c = usbd_dev.classes[i];
		if (iface >= c->first_iface && iface < c->first_iface + c->num_ifaces)
			return c;
	}
	return NULL;
}

void usbd_classes_config(bool configured)
{
	for (int i = 0; i < usbd_dev.num_classes; i++) {
		struct usbd_class *c = usbd_dev.classes[i];
		if (c->api->config)
			c->api->config(c, configured);
	}
}

static void usbd_bus_reset(void)
{
	LOG_DBG("bus reset");
	usbd_dev.stats.resets++;
	if (usbd_dev.configuration)
		usbd_classes_config(false);
	for (uint8_t i = 1; i < USB_NUM_EP; i++) {
		usbd_ep_disable(i);
		usbd_ep_disable((uint8_t)(i | USB_EP_DIR_IN));
	}
	udc_ep_dequeue(USB_EP0_IN);
	udc_ep_dequeue(USB_EP0_OUT);
	usbd_dev.state = USBD_DEFAULT;
	usbd_dev.address = 0;
	usbd_dev.configuration = 0;
	memset(usbd_dev.alt, 0, sizeof(usbd_dev.alt));
	usbd_ch9_reset();
}

static void usbd_suspend(bool suspended)
{
	if (usbd_dev.suspended == suspended)
		return;
	usbd_dev.suspended = suspended;
	LOG_DBG("%s", suspended ? "suspended" : "resumed");
	for (int i = 0; i < usbd_dev.num_classes; i++) {
		struct usbd_class *c = usbd_dev.classes[i];
		if (c->api->suspended)
			c->api->suspended(c, suspended);
	}
}

/* A finished transfer: EP0 to the control transfer code, others to their class. */
static void usbd_ep_request(struct net_buf *buf, int err)
{
	struct udc_buf_info *info = udc_get_buf_info(buf);
	usbd_dev.stats.xfers_completed++;
	LOG_DBG("ep %02x: %u bytes, err %d", info->ep, buf->len, err);
	if (USB_EP_IDX(info->ep) == 0) {
		usbd_ch9_request(buf, err);
		return;
	}
	struct usbd_class *c = *ep_owner_slot(info->ep);
	if (!c || !c->api->request) {
		LOG_DBG("ep %02x has no owner", info->ep);
		usbd_ep_buf_free(buf);
		return;
	}
	c->api->request(c, buf, err);
}

static void usbd_handle_event(const struct udc_event *ev)
{
	switch (ev->type) {
	case UDC_EVT_RESET:
		usbd_bus_reset();
		break;
	case UDC_EVT_EP_REQUEST:
		usbd_ep_request(ev->buf, ev->status);
		break;
	case UDC_EVT_SUSPEND:
		usbd_suspend(true);
		break;
	case UDC_EVT_RESUME:
		usbd_suspend(false);
		break;
	case UDC_EVT_ERROR:
		LOG_DBG("controller error %d", ev->status);
		break;
	default:
		LOG_WRN("unknown event %u", ev->type);
		break;
	}
}

static void usbd_thread_main(void *p1, void *p2, void *p3)
{
	UNUSED(p1);
	UNUSED(p2);
	UNUSED(p3);
	for (;;) {
		struct udc_event ev;
		if (k_msgq_get(&event_q, &ev, K_FOREVER) == 0)
			usbd_handle_event(&ev);
	}
}

/* The controller layer's callback: queue for the thread (never blocks: it may be an ISR). */
static int usbd_event_cb(const struct udc_event *ev)
{
	int ret = k_msgq_put(&event_q, ev, K_NO_WAIT);
	if (ret)
		usbd_dev.stats.events_dropped++;
	return ret;
}

int usbd_init(void)
{
	memset(&usbd_dev, 0, sizeof(usbd_dev));
	k_msgq_init(&event_q, event_buf, sizeof(event_buf[0]), USBD_EVENT_QUEUE_LEN);
	usbd_ch9_init();
	int ret = udc_init(usbd_event_cb);
	if (ret)
		return ret;
	k_thread_create(&usbd_thread, usbd_stack, sizeof(usbd_stack), usbd_thread_main, NULL,
			NULL, NULL, USBD_THREAD_PRIO, "usbd");
	return 0;
}

int usbd_register_class(struct usbd_class *c)
{
	if (usbd_dev.num_classes == USBD_MAX_CLASSES ||
	    usbd_dev.num_interfaces + c->num_ifaces > USBD_MAX_INTERFACES)
		return -ENOMEM;
	c->first_iface = usbd_dev.num_interfaces;
	usbd_dev.num_interfaces += c->num_ifaces;
	usbd_dev.classes[usbd_dev.num_classes++] = c;
	return 0;
}

int usbd_set_string(uint8_t idx, const char *s)
{
	return usbd_desc_set_string(idx, s);
}

int usbd_enable(void)
{
	int ret = usbd_desc_build_config();
	if (ret < 0)
		return ret;
	usbd_dev.state = USBD_DEFAULT;
	udc_enable();
	LOG_INF("attached (%u interfaces, configuration %d bytes)", usbd_dev.num_interfaces, ret);
	return 0;
}

enum usbd_state usbd_state_get(void)
{
	return usbd_dev.state;
}

int usbd_ep_enable(struct usbd_class *c, uint8_t ep, enum usb_ep_type type, uint16_t mps)
{
	int ret = udc_ep_enable(ep, type, mps);
	if (ret == 0 || ret == -EALREADY)
		*ep_owner_slot(ep) = c;
	return ret == -EALREADY ? 0 : ret;
}

int usbd_ep_disable(uint8_t ep)
{
	int ret = udc_ep_disable(ep);
	return ret == -EALREADY ? 0 : ret;
}

struct net_buf *usbd_ep_buf_alloc(struct usbd_class *c, uint8_t ep, size_t size)
{
	UNUSED(c);
	return udc_ep_buf_alloc(ep, size);
}

void usbd_ep_buf_free(struct net_buf *buf)
{
	udc_ep_buf_free(buf);
}

int usbd_ep_enqueue(struct usbd_class *c, struct net_buf *buf)
{
	struct udc_buf_info *info = udc_get_buf_info(buf);
	if (usbd_dev.state != USBD_CONFIGURED || *ep_owner_slot(info->ep) != c)
		return -EPERM;
	return udc_ep_enqueue(buf);
}

int usbd_ep_dequeue(uint8_t ep)
{
	return udc_ep_dequeue(ep);
}

void usbd_stats_get(struct usbd_stats *s)
{
	*s = usbd_dev.stats;
	s->configuration = usbd_dev.configuration;
	s->address = usbd_dev.address;
}
