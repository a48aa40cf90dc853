/* ecm_loop: a CDC-ECM device for the virtual Pico's USB tests (the USB side is ecm_dev.h).
 * It enumerates with TinyUSB's ECM descriptor set, answers Linux cdc_ether's bring-up,
 * reports the link, and sends every Ethernet frame it receives back with the source and
 * destination MAC addresses swapped. Counters for the test are in the mailbox
 * (MAILBOX[1..10], see enum below). */
#define FRAME_MAX 1600u
#define ECM_PID 0x4052u
#define ECM_PRODUCT "ECM loopback"
#define ECM_MAC "02A0B0C0D0E0"
#include "ecm_dev.h"

enum {
	MB_BUS_RESETS = 1,
	MB_SETUPS,
	MB_FRAMES,
	MB_CONFIG,
	MB_ADDRESS,
	MB_STALLS,
	MB_LAST_STALL, /* bmRequestType | bRequest << 8 | wValue << 16 */
	MB_DATA_ALT,
	MB_FILTER,
	MB_NOTIFICATIONS,
};

static void ecm_event(enum ecm_event e, uint32_t value)
{
	switch (e) {
	case ECM_BUS_RESET: MAILBOX[MB_BUS_RESETS]++; break;
	case ECM_SETUP: MAILBOX[MB_SETUPS]++; break;
	case ECM_ADDRESS: MAILBOX[MB_ADDRESS] = value; break;
	case ECM_CONFIG: MAILBOX[MB_CONFIG] = value; break;
	case ECM_DATA_ALT: MAILBOX[MB_DATA_ALT] = value; break;
	case ECM_FILTER: MAILBOX[MB_FILTER] = value; break;
	case ECM_NOTIFICATION: MAILBOX[MB_NOTIFICATIONS]++; break;
	case ECM_STALL:
		MAILBOX[MB_STALLS]++;
		MAILBOX[MB_LAST_STALL] = value;
		break;
	case ECM_LINK_UP: break;
	}
}

/* The frame goes back from rx itself: OUT stays NAKed until it has gone. */
static void ecm_frame_received(void)
{
	uint8_t mac[6];
	memcpy(mac, rx, 6);
	memcpy(rx, rx + 6, 6);
	memcpy(rx + 6, mac, 6);
	MAILBOX[MB_FRAMES]++;
	ecm_send(rx, rx_len);
}

static void ecm_sent(void)
{
	ecm_receive_next();
}
