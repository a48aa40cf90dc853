/* USB descriptors of the application: one CDC-ECM configuration (communication interface
 * with a notification endpoint, data interface with bulk IN and OUT). */
#include "tusb.h"

static const uint8_t desc_device[18] = {
    18, TUSB_DESC_DEVICE, 0x00, 0x02, 0x02, 0x00, 0x00, CFG_TUD_ENDPOINT0_SIZE,
    0x8a, 0x2e, 0x0a, 0x40, 0x00, 0x01, 1, 2, 3, 1,
};

static const uint8_t desc_config[] = {
    /* configuration: 2 interfaces */
    9, TUSB_DESC_CONFIGURATION, 71, 0, 2, 1, 0, 0x80, 50,
    /* communication interface, CDC ECM */
    9, TUSB_DESC_INTERFACE, 0, 0, 1, 0x02, 0x06, 0x00, 4,
    5, TUSB_DESC_CS_INTERFACE, 0x00, 0x20, 0x01,
    5, TUSB_DESC_CS_INTERFACE, 0x06, 0, 1,
    13, TUSB_DESC_CS_INTERFACE, 0x0f, 5, 0, 0, 0, 0, 0xea, 0x05, 0, 0, 0,
    7, TUSB_DESC_ENDPOINT, 0x81, 0x03, 8, 0, 1,
    /* data interface: alternate 0 (none) and 1 (bulk pair) */
    9, TUSB_DESC_INTERFACE, 1, 0, 0, 0x0a, 0, 0, 0,
    9, TUSB_DESC_INTERFACE, 1, 1, 2, 0x0a, 0, 0, 0,
    7, TUSB_DESC_ENDPOINT, 0x02, 0x02, 64, 0, 0,
    7, TUSB_DESC_ENDPOINT, 0x82, 0x02, 64, 0, 0,
};

static const char *const strings[] = {"xipbench", "net_motor", "0001", "CDC-ECM", "020284"};
static uint16_t desc_str[32];

uint8_t const *tud_descriptor_device_cb(void)
{
    return desc_device;
}

uint8_t const *tud_descriptor_configuration_cb(uint8_t index)
{
    (void)index;
    return desc_config;
}

uint16_t const *tud_descriptor_string_cb(uint8_t index, uint16_t langid)
{
    (void)langid;
    uint8_t n = 0;
    if (index == 0) {
        desc_str[1] = 0x0409;
        n = 1;
    } else if (index <= sizeof strings / sizeof strings[0]) {
        for (const char *s = strings[index - 1]; *s && n < 31; s++)
            desc_str[1 + n++] = (uint16_t)*s;
    } else {
        return NULL;
    }
    desc_str[0] = (uint16_t)((TUSB_DESC_STRING << 8) | (2 * n + 2));
    return desc_str;
}
