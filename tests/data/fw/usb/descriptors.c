/* descriptors.c: USB descriptors of a CDC-ECM network device (one configuration). */
#include "fw.h"

static const uint8_t device_desc[18] = {
	18, 1, 0x00, 0x02, 0x02, 0x00, 0x00, 64, 0x34, 0x12, 0x78, 0x56, 0x00, 0x01, 1, 2, 3, 1,
};

static const uint8_t config_desc[] = {
	9, 2, 71, 0, 2, 1, 0, 0x80, 50,
	/* communication interface: CDC ECM */
	9, 4, 0, 0, 1, 0x02, 0x06, 0x00, 0,
	5, 0x24, 0x00, 0x10, 0x01,
	5, 0x24, 0x06, 0, 1,
	13, 0x24, 0x0f, 4, 0, 0, 0, 0, 0xea, 0x05, 0, 0, 0,
	7, 5, 0x81, 3, 16, 0, 9,
	/* data interface, alternate 0 (no endpoints) and 1 */
	9, 4, 1, 0, 0, 0x0a, 0, 0, 0,
	9, 4, 1, 1, 2, 0x0a, 0, 0, 0,
	7, 5, 0x82, 2, 64, 0, 0,
	7, 5, 0x02, 2, 64, 0, 0,
};

static const uint8_t lang_desc[4] = {4, 3, 0x09, 0x04};
static const char *const strings[] = {"xipbench", "Test CDC-ECM", "0001", "02005E100001"};
static uint8_t string_buf[64];

static uint16_t make_string(const char *s)
{
	uint16_t n = 2;
	for (; *s && n + 2 <= sizeof string_buf; s++, n += 2) {
		string_buf[n] = (uint8_t)*s;
		string_buf[n + 1] = 0;
	}
	string_buf[0] = (uint8_t)n;
	string_buf[1] = 3;
	return n;
}

const uint8_t *usb_get_descriptor(uint8_t type, uint8_t index, uint16_t *len)
{
	switch (type) {
	case 1:
		*len = sizeof device_desc;
		return device_desc;
	case 2:
		*len = sizeof config_desc;
		return config_desc;
	case 3:
		if (index == 0) {
			*len = sizeof lang_desc;
			return lang_desc;
		}
		if (index <= ARRAY_SIZE(strings)) {
			*len = make_string(strings[index - 1]);
			return string_buf;
		}
		return NULL;
	default:
		return NULL;
	}
}
