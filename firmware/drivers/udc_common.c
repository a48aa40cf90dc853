/* udc_common.c: the controller-independent part of the USB device controller layer:
 * endpoint configurations and their transfer queues, transfer buffer pools, argument
 * checks, and events to the USB device stack. */
#include <string.h>

#include "drivers/udc.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(udc, LOG_LEVEL_WRN);

/* Transfer buffers of every size (a SETUP is 8 bytes, an Ethernet frame up to 1536) share
 * one pool of 64-byte blocks. */
#define UDC_BUF_COUNT 16
#define UDC_BUF_POOL_SIZE (8 * 1024)
#define UDC_BUF_BLOCK 64
#define UDC_BUF_MAX 1536

NET_BUF_POOL_VAR_DEFINE(udc_ep_pool, UDC_BUF_COUNT, UDC_BUF_POOL_SIZE, UDC_BUF_BLOCK);

static struct udc_ep_config ep_cfgs[USB_NUM_EP][2]; /* [index][0: OUT, 1: IN] */
static const struct udc_api *udc_api;
static struct k_mutex udc_lock; /* one driver call at a time (stack, classes, senders) */
static udc_event_cb_t event_cb;
static struct udc_stats stats;

void udc_register_api(const struct udc_api *api)
{
	udc_api = api;
}

struct udc_ep_config *udc_get_ep_cfg(uint8_t ep)
{
	if (USB_EP_IDX(ep) >= USB_NUM_EP)
		return NULL;
	return &ep_cfgs[USB_EP_IDX(ep)][USB_EP_IS_IN(ep) ? 1 : 0];
}

struct net_buf *udc_buf_peek(struct udc_ep_config *cfg)
{
	return k_fifo_peek_head(&cfg->fifo);
}

struct net_buf *udc_buf_get(struct udc_ep_config *cfg)
{
	return k_fifo_get(&cfg->fifo, K_NO_WAIT);
}

int udc_submit_event(enum udc_event_type type, int status)
{
	struct udc_event ev = {.type = (uint8_t)type, .status = (int16_t)status, .buf = NULL};
	stats.events++;
	int ret = event_cb(&ev);
	if (ret)
		stats.events_dropped++;
	return ret;
}

int udc_submit_ep_event(struct net_buf *buf, int err)
{
	struct udc_buf_info *info = udc_get_buf_info(buf);
	info->err = (int16_t)err;
	struct udc_event ev = {.type = UDC_EVT_EP_REQUEST, .status = (int16_t)err, .buf = buf};
	stats.events++;
	int ret = event_cb(&ev);
	if (ret) {
		/* Nobody will see this buffer again: give it back to its pool. */
		stats.events_dropped++;
		LOG_ERR("event lost: ep %02x", info->ep);
		net_buf_unref(buf);
	}
	return ret;
}

int udc_init(udc_event_cb_t cb)
{
	event_cb = cb;
	k_mutex_init(&udc_lock);
	net_buf_pool_init(&udc_ep_pool);
	for (uint8_t i = 0; i < USB_NUM_EP; i++) {
		for (int d = 0; d < 2; d++) {
			struct udc_ep_config *cfg = &ep_cfgs[i][d];
			memset(cfg, 0, sizeof(*cfg));
			k_fifo_init(&cfg->fifo);
			cfg->addr = (uint8_t)(i | (d ? USB_EP_DIR_IN : 0));
		}
	}
	/* Control endpoint 0 exists from the start. */
	for (int d = 0; d < 2; d++) {
		struct udc_ep_config *cfg = &ep_cfgs[0][d];
		cfg->mps = USB_EP0_MPS;
		cfg->attributes = USB_EP_CONTROL;
		cfg->enabled = true;
	}
	udc_rp2040_register();
	if (!udc_api)
		return -ENODEV;
	return udc_api->init();
}

int udc_enable(void)
{
	k_mutex_lock(&udc_lock, K_FOREVER);
	int ret = udc_api->enable();
	k_mutex_unlock(&udc_lock);
	return ret;
}

int udc_disable(void)
{
	k_mutex_lock(&udc_lock, K_FOREVER);
	int ret = udc_api->disable();
	k_mutex_unlock(&udc_lock);
	return ret;
}

int udc_set_address(uint8_t addr)
{
	if (addr > 127)
		return -EINVAL;
	k_mutex_lock(&udc_lock, K_FOREVER);
	int ret = udc_api->set_address(addr);
	k_mutex_unlock(&udc_lock);
	return ret;
}

int udc_ep_enable(uint8_t ep, enum usb_ep_type type, uint16_t mps)
{
	struct udc_ep_config *cfg = udc_get_ep_cfg(ep);
	if (!cfg || USB_EP_IDX(ep) == 0 || type == USB_EP_CONTROL || mps == 0 || mps > 64)
		return -EINVAL;
	if (cfg->enabled)
		return -EALREADY;
	k_mutex_lock(&udc_lock, K_FOREVER);
	cfg->attributes = (uint8_t)type;
	cfg->mps = mps;
	cfg->halted = false;
	int ret = udc_api->ep_enable(cfg);
	if (ret == 0)
		cfg->enabled = true;
	k_mutex_unlock(&udc_lock);
	LOG_DBG("ep %02x enabled (%d)", ep, ret);
	return ret;
}

int udc_ep_disable(uint8_t ep)
{
	struct udc_ep_config *cfg = udc_get_ep_cfg(ep);
	if (!cfg || USB_EP_IDX(ep) == 0)
		return -EINVAL;
	if (!cfg->enabled)
		return -EALREADY;
	k_mutex_lock(&udc_lock, K_FOREVER);
	int ret = udc_api->ep_disable(cfg);
	cfg->enabled = false;
	k_mutex_unlock(&udc_lock);
	return ret;
}

int udc_ep_set_halt(uint8_t ep)
{
	struct udc_ep_config *cfg = udc_get_ep_cfg(ep);
	if (!cfg || !cfg->enabled)
		return -ENODEV;
	k_mutex_lock(&udc_lock, K_FOREVER);
	int ret = udc_api->ep_set_halt(cfg);
	if (ret == 0 && USB_EP_IDX(ep) != 0)
		cfg->halted = true;
	k_mutex_unlock(&udc_lock);
	return ret;
}

int udc_ep_clear_halt(uint8_t ep)
{
	struct udc_ep_config *cfg = udc_get_ep_cfg(ep);
	if (!cfg || !cfg->enabled)
		return -ENODEV;
	k_mutex_lock(&udc_lock, K_FOREVER);
	int ret = udc_api->ep_clear_halt(cfg);
	if (ret == 0)
		cfg->halted = false;
	k_mutex_unlock(&udc_lock);
	return ret;
}

bool udc_ep_is_halted(uint8_t ep)
{
	struct udc_ep_config *cfg = udc_get_ep_cfg(ep);
	return cfg && cfg->halted;
}

int udc_ep_enqueue(struct net_buf *buf)
{
	struct udc_buf_info *info = udc_get_buf_info(buf);
	struct udc_ep_config *cfg = udc_get_ep_cfg(info->ep);
	if (!cfg)
		return -EINVAL;
	if (!cfg->enabled)
		return -ENODEV;
	if (!USB_EP_IS_IN(info->ep) && info->size > net_buf_tailroom(buf))
		return -EINVAL;
	info->err = 0;
	LOG_DBG("enqueue ep %02x len %u", info->ep, buf->len);
	k_mutex_lock(&udc_lock, K_FOREVER);
	stats.enqueued++;
	k_fifo_put(&cfg->fifo, buf);
	int ret = udc_api->ep_enqueue(cfg, buf);
	k_mutex_unlock(&udc_lock);
	return ret;
}

int udc_ep_dequeue(uint8_t ep)
{
	struct udc_ep_config *cfg = udc_get_ep_cfg(ep);
	if (!cfg)
		return -EINVAL;
	k_mutex_lock(&udc_lock, K_FOREVER);
	int ret = udc_api->ep_dequeue(cfg);
	k_mutex_unlock(&udc_lock);
	return ret;
}

struct net_buf *udc_ep_buf_alloc(uint8_t ep, size_t size)
{
	if (size > UDC_BUF_MAX)
		return NULL;
	struct net_buf *buf = net_buf_alloc_len(&udc_ep_pool, size, K_NO_WAIT);
	if (!buf) {
		stats.buf_alloc_failures++;
		LOG_DBG("no buffer for ep %02x (%u bytes)", ep, (unsigned)size);
		return NULL;
	}
	struct udc_buf_info *info = udc_get_buf_info(buf);
	info->ep = ep;
	info->size = (uint16_t)size;
	return buf;
}

void udc_ep_buf_free(struct net_buf *buf)
{
	net_buf_unref(buf);
}

void udc_stats_get(struct udc_stats *s)
{
	*s = stats;
}

void udc_ep_stats_get(uint8_t ep, struct udc_ep_stats *s)
{
	struct udc_ep_config *cfg = udc_get_ep_cfg(ep);
	unsigned key = irq_lock();
	if (cfg)
		*s = cfg->stats;
	else
		memset(s, 0, sizeof(*s));
	irq_unlock(key);
}
