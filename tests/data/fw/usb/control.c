/* control.c: the USB device stack's control endpoint: standard and CDC class requests. */
#include "fw.h"

static uint8_t configuration;
static uint8_t alt_setting;
static uint16_t packet_filter;
static const uint8_t *tx_ptr;
static uint16_t tx_left;
static uint32_t setup_count, stall_count;

/* Same name as a static function in the network stack: both stay in the image. */
static __attribute__((noipa)) int helper(const struct usb_setup *s, int type)
{
	if (((s->bmRequestType >> 5) & 3) != type)
		return 0;
	return (s->bmRequestType & 0x1f) + 1;
}

static void parse_setup(const uint8_t *raw, struct usb_setup *s)
{
	s->bmRequestType = raw[0];
	s->bRequest = raw[1];
	s->wValue = (uint16_t)(raw[2] | raw[3] << 8);
	s->wIndex = (uint16_t)(raw[4] | raw[5] << 8);
	s->wLength = (uint16_t)(raw[6] | raw[7] << 8);
}

static void control_send(const uint8_t *data, uint16_t len, uint16_t max)
{
	tx_ptr = data;
	tx_left = len < max ? len : max;
	uint16_t n = tx_left > 64 ? 64 : tx_left;
	udc_ep_write(0x80, tx_ptr, n);
	tx_ptr += n;
	tx_left -= n;
}

static void control_status(void)
{
	udc_ep_write(0x80, NULL, 0);
}

static void control_stall(void)
{
	stall_count++;
	udc_ep_stall(0x80);
	udc_ep_stall(0x00);
}

static int standard_request(const struct usb_setup *s)
{
	uint16_t len;
	const uint8_t *d;
	switch (s->bRequest) {
	case 6: /* GET_DESCRIPTOR */
		d = usb_get_descriptor((uint8_t)(s->wValue >> 8), (uint8_t)s->wValue, &len);
		if (!d)
			return -1;
		control_send(d, len, s->wLength);
		return 0;
	case 5: /* SET_ADDRESS */
		udc_set_address((uint8_t)s->wValue);
		control_status();
		return 0;
	case 9: /* SET_CONFIGURATION */
		configuration = (uint8_t)s->wValue;
		if (configuration)
			cdc_ecm_notify(1);
		control_status();
		return 0;
	case 8: /* GET_CONFIGURATION */
		control_send(&configuration, 1, s->wLength);
		return 0;
	case 11: /* SET_INTERFACE */
		alt_setting = (uint8_t)s->wValue;
		control_status();
		return 0;
	default:
		return -1;
	}
}

static int class_request(const struct usb_setup *s)
{
	switch (s->bRequest) {
	case 0x43: /* SET_ETHERNET_PACKET_FILTER */
		packet_filter = s->wValue;
		control_status();
		return 0;
	default:
		return -1;
	}
}

void usb_handle_setup(const uint8_t *raw)
{
	struct usb_setup s;
	parse_setup(raw, &s);
	setup_count++;
	int r = -1;
	if (helper(&s, 0))
		r = standard_request(&s);
	else if (helper(&s, 1))
		r = class_request(&s);
	if (r != 0)
		control_stall();
	if ((setup_count & 0x1f) == 0)
		usb_gen_00(setup_count);
}

static void ep0_in_done(uint8_t ep, const uint8_t *data, uint16_t len)
{
	(void)ep;
	(void)data;
	(void)len;
	if (tx_left) {
		uint16_t n = tx_left > 64 ? 64 : tx_left;
		udc_ep_write(0x80, tx_ptr, n);
		tx_ptr += n;
		tx_left -= n;
	}
}

void usb_init(void)
{
	configuration = 0;
	alt_setting = 0;
	udc_setup_handler(usb_handle_setup);
	udc_ep_configure(0x80, 0, 64, ep0_in_done);
}

int usb_is_configured(void)
{
	return configuration != 0 && alt_setting == 1 && (packet_filter & 0x1f) != 0;
}
