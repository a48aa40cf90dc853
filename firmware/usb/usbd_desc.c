/* usbd_desc.c: the device descriptor, the configuration descriptor assembled from the
 * registered classes, and string descriptors (ASCII kept, UTF-16LE sent). */
#include <string.h>

#include "sys/log.h"
#include "usbd_internal.h"

LOG_MODULE_REGISTER(usbd_desc, LOG_LEVEL_WRN);

/* pid.codes test VID/PID (1209:0001): for devices that never leave the lab. */
#define USBD_VID 0x1209
#define USBD_PID 0x0001
#define USBD_BCD_DEVICE 0x0100
#define USBD_MAX_POWER_MA 100

static const uint8_t device_desc[18] = {
	18, USB_DESC_DEVICE,
	0x00, 0x02,       /* bcdUSB 2.00 (full speed only: no device qualifier) */
	0xEF, 0x02, 0x01, /* miscellaneous / common / interface association */
	USB_EP0_MPS,
	USBD_VID & 0xFF, USBD_VID >> 8,
	USBD_PID & 0xFF, USBD_PID >> 8,
	USBD_BCD_DEVICE & 0xFF, USBD_BCD_DEVICE >> 8,
	USBD_STR_MANUFACTURER, USBD_STR_PRODUCT, USBD_STR_SERIAL,
	1, /* bNumConfigurations */
};

static uint8_t config_desc[USBD_CONFIG_DESC_MAX];
static uint16_t config_len;

static const char *strings[USBD_STR_MAX] = {
	[USBD_STR_MANUFACTURER] = "xipbench",
	[USBD_STR_PRODUCT] = "xipbench echo (CDC-ECM)",
	[USBD_STR_SERIAL] = "XB0001",
};

int usbd_desc_set_string(uint8_t idx, const char *s)
{
	if (idx == USBD_STR_LANGID || idx >= USBD_STR_MAX)
		return -EINVAL;
	strings[idx] = s;
	return 0;
}

int usbd_desc_build_config(void)
{
	size_t len = 9;
	for (int i = 0; i < usbd_dev.num_classes; i++) {
		const struct usbd_class *c = usbd_dev.classes[i];
		if (len + c->desc_len > sizeof(config_desc))
			return -ENOMEM;
		memcpy(config_desc + len, c->desc, c->desc_len);
		len += c->desc_len;
	}
	uint8_t *h = config_desc;
	h[0] = 9;
	h[1] = USB_DESC_CONFIGURATION;
	sys_put_le16((uint16_t)len, h + 2); /* wTotalLength */
	h[4] = usbd_dev.num_interfaces;
	h[5] = 1;    /* bConfigurationValue */
	h[6] = 0;    /* iConfiguration */
	h[7] = 0x80; /* bus powered */
	h[8] = USBD_MAX_POWER_MA / 2;
	config_len = (uint16_t)len;
	return (int)len;
}

static int string_desc(uint8_t index, uint8_t *buf, size_t len)
{
	uint8_t desc[2 + 2 * 32];
	size_t n;
	if (index == USBD_STR_LANGID) {
		desc[2] = 0x09; /* English (United States) */
		desc[3] = 0x04;
		n = 4;
	} else {
		if (index >= USBD_STR_MAX || !strings[index])
			return -ENOENT;
		const char *s = strings[index];
		n = 2;
		for (; *s && n + 2 <= sizeof(desc); s++) {
			desc[n++] = (uint8_t)*s;
			desc[n++] = 0;
		}
	}
	desc[0] = (uint8_t)n;
	desc[1] = USB_DESC_STRING;
	n = MIN(n, len);
	memcpy(buf, desc, n);
	return (int)n;
}

int usbd_desc_get(uint8_t type, uint8_t index, uint8_t *buf, size_t len)
{
	switch (type) {
	case USB_DESC_DEVICE:
		len = MIN(len, sizeof(device_desc));
		memcpy(buf, device_desc, len);
		return (int)len;
	case USB_DESC_CONFIGURATION:
		if (index != 0)
			return -ENOENT;
		len = MIN(len, (size_t)config_len);
		memcpy(buf, config_desc, len);
		return (int)len;
	case USB_DESC_STRING:
		return string_desc(index, buf, len);
	default:
		/* A full-speed-only device has no device qualifier: a request error. */
		LOG_DBG("no descriptor type %u", type);
		return -ENOENT;
	}
}
