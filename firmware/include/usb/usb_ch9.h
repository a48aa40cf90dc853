/* usb_ch9.h: USB 2.0 chapter 9 definitions: the SETUP packet, requests, descriptor types,
 * features. */
#ifndef USB_USB_CH9_H
#define USB_USB_CH9_H

#include <stdint.h>

struct usb_setup_packet {
	uint8_t bmRequestType;
	uint8_t bRequest;
	uint16_t wValue;
	uint16_t wIndex;
	uint16_t wLength;
};

/* bmRequestType */
#define USB_REQTYPE_DIR_IN 0x80u
#define USB_REQTYPE_TYPE(t) (((t) >> 5) & 0x3u)
#define USB_REQTYPE_TYPE_STANDARD 0u
#define USB_REQTYPE_TYPE_CLASS 1u
#define USB_REQTYPE_TYPE_VENDOR 2u
#define USB_REQTYPE_RECIPIENT(t) ((t) & 0x1Fu)
#define USB_REQTYPE_RECIPIENT_DEVICE 0u
#define USB_REQTYPE_RECIPIENT_INTERFACE 1u
#define USB_REQTYPE_RECIPIENT_ENDPOINT 2u

/* Standard requests */
#define USB_SREQ_GET_STATUS 0x00
#define USB_SREQ_CLEAR_FEATURE 0x01
#define USB_SREQ_SET_FEATURE 0x03
#define USB_SREQ_SET_ADDRESS 0x05
#define USB_SREQ_GET_DESCRIPTOR 0x06
#define USB_SREQ_SET_DESCRIPTOR 0x07
#define USB_SREQ_GET_CONFIGURATION 0x08
#define USB_SREQ_SET_CONFIGURATION 0x09
#define USB_SREQ_GET_INTERFACE 0x0A
#define USB_SREQ_SET_INTERFACE 0x0B
#define USB_SREQ_SYNCH_FRAME 0x0C

/* Descriptor types */
#define USB_DESC_DEVICE 0x01
#define USB_DESC_CONFIGURATION 0x02
#define USB_DESC_STRING 0x03
#define USB_DESC_INTERFACE 0x04
#define USB_DESC_ENDPOINT 0x05
#define USB_DESC_DEVICE_QUALIFIER 0x06
#define USB_DESC_OTHER_SPEED 0x07
#define USB_DESC_INTERFACE_ASSOC 0x0B
#define USB_DESC_CS_INTERFACE 0x24

/* Features */
#define USB_FEATURE_ENDPOINT_HALT 0x00
#define USB_FEATURE_REMOTE_WAKEUP 0x01
#define USB_FEATURE_TEST_MODE 0x02

#endif
