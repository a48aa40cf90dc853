/* Types, macros and little helpers used by every TinyUSB file. */
#ifndef _TUSB_COMMON_H_
#define _TUSB_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tusb_option.h"

#define TU_ATTR_ALIGNED(x) __attribute__((aligned(x)))
#define TU_ATTR_PACKED __attribute__((packed))
#define TU_ATTR_WEAK __attribute__((weak))
#define TU_ATTR_UNUSED __attribute__((unused))
#define TU_ARRAY_SIZE(a) (sizeof(a) / sizeof(a[0]))
#define TU_MIN(a, b) (((a) < (b)) ? (a) : (b))
#define TU_MAX(a, b) (((a) > (b)) ? (a) : (b))
#define TU_U16_HIGH(u16) ((uint8_t)(((u16) >> 8) & 0x00ff))
#define TU_U16_LOW(u16) ((uint8_t)((u16)&0x00ff))
/* TU_VERIFY(cond) returns false when cond fails, TU_VERIFY(cond, ret) returns ret */
#define TU_VERIFY_1(cond) TU_VERIFY_2(cond, false)
#define TU_VERIFY_2(cond, ret) \
    do {                       \
        if (!(cond))           \
            return ret;        \
    } while (0)
#define TU_VERIFY_PICK(_1, _2, name, ...) name
#define TU_VERIFY(...) TU_VERIFY_PICK(__VA_ARGS__, TU_VERIFY_2, TU_VERIFY_1, unused)(__VA_ARGS__)
#define TU_ASSERT(...) TU_VERIFY(__VA_ARGS__)
#define TU_LOG1(...) \
    do {             \
    } while (0)

typedef enum {
    TUSB_DIR_OUT = 0,
    TUSB_DIR_IN = 1,
    TUSB_DIR_IN_MASK = 0x80,
} tusb_dir_t;

typedef enum {
    TUSB_XFER_CONTROL = 0,
    TUSB_XFER_ISOCHRONOUS,
    TUSB_XFER_BULK,
    TUSB_XFER_INTERRUPT,
} tusb_xfer_type_t;

typedef enum {
    XFER_RESULT_SUCCESS = 0,
    XFER_RESULT_FAILED,
    XFER_RESULT_STALLED,
    XFER_RESULT_TIMEOUT,
    XFER_RESULT_INVALID,
} xfer_result_t;

typedef enum {
    TUSB_DESC_DEVICE = 0x01,
    TUSB_DESC_CONFIGURATION = 0x02,
    TUSB_DESC_STRING = 0x03,
    TUSB_DESC_INTERFACE = 0x04,
    TUSB_DESC_ENDPOINT = 0x05,
    TUSB_DESC_CS_INTERFACE = 0x24,
} tusb_desc_type_t;

typedef enum {
    TUSB_REQ_GET_STATUS = 0,
    TUSB_REQ_CLEAR_FEATURE = 1,
    TUSB_REQ_SET_FEATURE = 3,
    TUSB_REQ_SET_ADDRESS = 5,
    TUSB_REQ_GET_DESCRIPTOR = 6,
    TUSB_REQ_GET_CONFIGURATION = 8,
    TUSB_REQ_SET_CONFIGURATION = 9,
    TUSB_REQ_GET_INTERFACE = 10,
    TUSB_REQ_SET_INTERFACE = 11,
} tusb_request_code_t;

enum {
    TUSB_REQ_TYPE_STANDARD = 0,
    TUSB_REQ_TYPE_CLASS,
    TUSB_REQ_TYPE_VENDOR,
};

enum {
    TUSB_REQ_RCPT_DEVICE = 0,
    TUSB_REQ_RCPT_INTERFACE,
    TUSB_REQ_RCPT_ENDPOINT,
};

typedef struct TU_ATTR_PACKED {
    union {
        struct TU_ATTR_PACKED {
            uint8_t recipient : 5;
            uint8_t type : 2;
            uint8_t direction : 1;
        } bmRequestType_bit;
        uint8_t bmRequestType;
    };
    uint8_t bRequest;
    uint16_t wValue;
    uint16_t wIndex;
    uint16_t wLength;
} tusb_control_request_t;

typedef struct TU_ATTR_PACKED {
    uint8_t bLength;
    uint8_t bDescriptorType;
    uint8_t bEndpointAddress;
    uint8_t bmAttributes;
    uint16_t wMaxPacketSize;
    uint8_t bInterval;
} tusb_desc_endpoint_t;

typedef struct TU_ATTR_PACKED {
    uint8_t bLength;
    uint8_t bDescriptorType;
    uint8_t bInterfaceNumber;
    uint8_t bAlternateSetting;
    uint8_t bNumEndpoints;
    uint8_t bInterfaceClass;
    uint8_t bInterfaceSubClass;
    uint8_t bInterfaceProtocol;
    uint8_t iInterface;
} tusb_desc_interface_t;

typedef struct TU_ATTR_PACKED {
    uint8_t bLength;
    uint8_t bDescriptorType;
    uint16_t wTotalLength;
    uint8_t bNumInterfaces;
    uint8_t bConfigurationValue;
    uint8_t iConfiguration;
    uint8_t bmAttributes;
    uint8_t bMaxPower;
} tusb_desc_configuration_t;

static inline uint8_t tu_edpt_number(uint8_t addr) { return (uint8_t)(addr & 0x0f); }
static inline tusb_dir_t tu_edpt_dir(uint8_t addr) { return (addr & 0x80) ? TUSB_DIR_IN : TUSB_DIR_OUT; }
static inline uint8_t tu_edpt_addr(uint8_t num, uint8_t dir) { return (uint8_t)(num | (dir ? 0x80 : 0)); }
static inline uint16_t tu_edpt_packet_size(tusb_desc_endpoint_t const *desc_ep)
{
    return desc_ep->wMaxPacketSize & 0x7ff;
}
static inline uint8_t const *tu_desc_next(void const *desc)
{
    uint8_t const *desc8 = (uint8_t const *)desc;
    return desc8 + desc8[0];
}
static inline uint8_t tu_desc_type(void const *desc) { return ((uint8_t const *)desc)[1]; }

typedef struct {
    volatile uint8_t busy : 1;
    volatile uint8_t stalled : 1;
    volatile uint8_t claimed : 1;
} tu_edpt_state_t;

bool tu_edpt_claim(tu_edpt_state_t *ep_state);
bool tu_edpt_release(tu_edpt_state_t *ep_state);
bool tu_edpt_validate(tusb_desc_endpoint_t const *desc_ep);
uint16_t tu_desc_get_interface_total_len(tusb_desc_interface_t const *desc_itf, uint8_t itf_count, uint16_t max_len);

#endif
