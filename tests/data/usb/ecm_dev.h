/* ecm_dev.h: the USB side of the virtual Pico's CDC-ECM test devices (ecm_loop.c, and
 * tests/data/netdev/netdev.c), included once by each program: TinyUSB's ECM descriptor set,
 * EP0 with the standard and CDC requests Linux cdc_ether sends, the connection and speed
 * notifications, the bulk endpoints, the interrupt handler on IRQ 5 and main. Interrupt
 * driven, written against the RP2040 datasheet's USB registers (usbdev.h).
 *
 * Before including it, a program defines FRAME_MAX (bytes of the largest frame it takes),
 * ECM_PID (the USB product ID; vendor 0xCAFE), ECM_PRODUCT (the product string) and
 * ECM_MAC (iMACAddress: the host side's MAC, 12 hex digits); after it, the three hooks
 * declared below. */
#ifndef ECM_DEV_H
#define ECM_DEV_H

#include "usbdev.h"

#define EP_NOTIFY 1 /* 0x81, interrupt IN */
#define EP_DATA 2   /* 0x02 bulk OUT, 0x82 bulk IN */
#define BUF_NOTIFY (USB_DPRAM + 0x180u)
#define BUF_OUT (USB_DPRAM + 0x1C0u)
#define BUF_IN (USB_DPRAM + 0x200u)
#define MPS 64u

/* What happened on the bus, for the program's counters and state. */
enum ecm_event {
	ECM_BUS_RESET,
	ECM_SETUP,         /* a SETUP packet */
	ECM_ADDRESS,       /* value: the address, now in effect */
	ECM_CONFIG,        /* value: SET_CONFIGURATION's */
	ECM_DATA_ALT,      /* value: the data interface's alternate setting */
	ECM_FILTER,        /* value: SET_ETHERNET_PACKET_FILTER's */
	ECM_NOTIFICATION,  /* a notification was queued */
	ECM_STALL,         /* value: bmRequestType | bRequest << 8 | wValue << 16 */
	ECM_LINK_UP,       /* the host has both notifications */
};

/* The program's hooks. */
static void ecm_event(enum ecm_event e, uint32_t value);
/* A whole frame is in rx[0..rx_len); the OUT endpoint stays NAKed until the program calls
 * ecm_receive_next. */
static void ecm_frame_received(void);
/* The frame given to ecm_send has gone (its IN transfers completed). */
static void ecm_sent(void);

void irq5_handler(void);

static const uint8_t device_desc[18] = {
	18, 1, 0x00, 0x02, 0xEF, 0x02, 0x01, 64,      /* USB 2.0, IAD class triple, EP0 64 */
	0xFE, 0xCA, ECM_PID & 0xFF, ECM_PID >> 8, 0x00, 0x01, /* VID 0xCAFE, bcdDevice 1.00 */
	1, 2, 3, 1,                                   /* manufacturer, product, serial; 1 config */
};

/* Configuration + TUD_CDC_ECM_DESCRIPTOR (reference 6.1): 9 + 79 = 88 bytes. */
static const uint8_t config_desc[88] = {
	9, 2, 88, 0, 2, 1, 0, 0x80, 50,
	8, 0x0B, 0, 2, 0x02, 0x06, 0x00, 0,           /* IAD */
	9, 4, 0, 0, 1, 0x02, 0x06, 0x00, 4,           /* comm interface, iInterface 4 */
	5, 0x24, 0x00, 0x20, 0x01,                    /* CDC header 1.20 */
	5, 0x24, 0x06, 0, 1,                          /* union: 0 controls 1 */
	13, 0x24, 0x0F, 5, 0, 0, 0, 0, 0xEA, 0x05, 0, 0, 0, /* Ethernet: iMAC 5, 1514 */
	7, 5, 0x81, 3, 64, 0, 1,                      /* notification EP */
	9, 4, 1, 0, 0, 0x0A, 0x00, 0x00, 0,           /* data interface alt 0: no EPs */
	9, 4, 1, 1, 2, 0x0A, 0x00, 0x00, 0,           /* data interface alt 1 */
	7, 5, 0x02, 2, 64, 0, 0,                      /* bulk OUT */
	7, 5, 0x82, 2, 64, 0, 0,                      /* bulk IN */
};

/* iMACAddress is the host side's address (what cdc_ether gives usb0). */
static const char *const strings[] = {
	0, "xipbench", ECM_PRODUCT, "0001", "CDC-ECM", ECM_MAC,
};

/* EP0 */
static uint8_t desc_buf[64];
static int address_pending;
static uint8_t new_address;
/* notifications */
static uint32_t notify_pid, notify_state;
/* bulk: the frame being received, the one being sent */
static uint32_t out_pid, in_pid;
static uint8_t rx[FRAME_MAX];
static uint32_t rx_len;
static int rx_dropping;
static const uint8_t *tx_data;
static uint32_t tx_len, tx_off;
static int tx_zlp;

static void ep0_stall(uint32_t what)
{
	ep0_stall_both();
	ecm_event(ECM_STALL, what);
}

static void arm_bulk_out(void)
{
	buf_ctrl_hand_over(BUF_CTRL(EP_DATA, 0), MPS | (out_pid ? BC_DATA1 : 0));
}

/* The program is done with rx: take the next frame. */
static void ecm_receive_next(void)
{
	rx_len = 0;
	arm_bulk_out();
}

static void send_in_chunk(void)
{
	uint32_t n = tx_len - tx_off < MPS ? tx_len - tx_off : MPS;
	dpram_put(BUF_IN, tx_data + tx_off, n);
	tx_off += n;
	buf_ctrl_hand_over(BUF_CTRL(EP_DATA, 1), n | BC_FULL | (in_pid ? BC_DATA1 : 0));
	in_pid ^= 1;
}

/* Sends data[0..len) (kept until ecm_sent), ended by a ZLP when len is a multiple of 64. */
static void ecm_send(const uint8_t *data, uint32_t len)
{
	tx_data = data;
	tx_len = len;
	tx_off = 0;
	tx_zlp = len % MPS == 0;
	send_in_chunk();
}

static void configure_endpoints(void)
{
	REG(EP_CTRL(EP_NOTIFY, 1)) =
		EP_CTRL_ENABLE | EP_CTRL_INT_PER_BUFF | EP_TYPE_INTERRUPT | (BUF_NOTIFY - USB_DPRAM);
	REG(EP_CTRL(EP_DATA, 0)) =
		EP_CTRL_ENABLE | EP_CTRL_INT_PER_BUFF | EP_TYPE_BULK | (BUF_OUT - USB_DPRAM);
	REG(EP_CTRL(EP_DATA, 1)) =
		EP_CTRL_ENABLE | EP_CTRL_INT_PER_BUFF | EP_TYPE_BULK | (BUF_IN - USB_DPRAM);
	notify_pid = out_pid = in_pid = 0;
	notify_state = 0;
}

/* NETWORK_CONNECTION (connected), then CONNECTION_SPEED_CHANGE (1.8 Mb/s both ways). */
static void notify(void)
{
	static const uint8_t connected[8] = {0xA1, 0x00, 1, 0, 0, 0, 0, 0};
	static const uint8_t speed[16] = {0xA1, 0x2A, 0, 0, 0, 0, 8, 0,
					  0x00, 0x1B, 0xB7, 0x00, 0x00, 0x1B, 0xB7, 0x00};
	const uint8_t *msg = notify_state == 1 ? connected : speed;
	uint32_t n = notify_state == 1 ? 8 : 16;
	dpram_put(BUF_NOTIFY, msg, n);
	buf_ctrl_hand_over(BUF_CTRL(EP_NOTIFY, 1), n | BC_FULL | (notify_pid ? BC_DATA1 : 0));
	notify_pid ^= 1;
	ecm_event(ECM_NOTIFICATION, notify_state);
}

static void handle_setup(void)
{
	uint8_t s[8];
	dpram_get(s, USB_DPRAM, 8);
	REG(USB_SIE_STATUS + ALIAS_CLR) = SIE_STATUS_SETUP_REC;
	ecm_event(ECM_SETUP, 0);
	uint32_t value = s[2] | s[3] << 8, index = s[4] | s[5] << 8, length = s[6] | s[7] << 8;
	uint32_t what = s[0] | s[1] << 8 | value << 16;
	/* A new request cancels what EP0 was doing. */
	REG(BUF_CTRL(0, 1)) = 0;
	REG(BUF_CTRL(0, 0)) = 0;
	ep0_data_in = 0;
	if (s[0] == 0x80 && s[1] == 6) { /* GET_DESCRIPTOR */
		unsigned type = value >> 8, idx = value & 0xFF;
		if (type == 1)
			ep0_reply(device_desc, sizeof device_desc, length);
		else if (type == 2 && idx == 0)
			ep0_reply(config_desc, sizeof config_desc, length);
		else if (type == 3 && idx < sizeof strings / sizeof *strings)
			ep0_reply(desc_buf, usb_string_desc(strings, idx, desc_buf), length);
		else
			ep0_stall(what);
	} else if (s[0] == 0x00 && s[1] == 5) { /* SET_ADDRESS: applied after the status */
		new_address = (uint8_t)(value & 0x7F);
		address_pending = 1;
		ep0_status_in();
	} else if (s[0] == 0x00 && s[1] == 9) { /* SET_CONFIGURATION */
		ecm_event(ECM_CONFIG, value);
		configure_endpoints();
		ep0_status_in();
	} else if (s[0] == 0x01 && s[1] == 11 && index == 1) { /* SET_INTERFACE(data) */
		ecm_event(ECM_DATA_ALT, value);
		out_pid = in_pid = 0;
		rx_len = 0;
		if (value == 1)
			arm_bulk_out();
		ep0_status_in();
	} else if (s[0] == 0x21 && s[1] == 0x43) { /* SET_ETHERNET_PACKET_FILTER */
		ecm_event(ECM_FILTER, value);
		ep0_status_in();
		if (notify_state == 0) {
			notify_state = 1;
			notify();
		}
	} else if (s[0] == 0x02 && s[1] == 1 && value == 0) { /* CLEAR_FEATURE(HALT) */
		if ((index & 0x0F) == EP_DATA) {
			if (index & 0x80)
				in_pid = 0;
			else
				out_pid = 0;
		}
		ep0_status_in();
	} else {
		ep0_stall(what);
	}
}

static void bulk_out_done(void)
{
	uint32_t n = REG(BUF_CTRL(EP_DATA, 0)) & BC_LEN;
	out_pid ^= 1;
	if (!rx_dropping && rx_len + n <= FRAME_MAX) {
		dpram_get(rx + rx_len, BUF_OUT, n);
		rx_len += n;
	} else {
		rx_dropping = 1;
	}
	if (n == MPS) {
		arm_bulk_out();
	} else if (rx_dropping || rx_len < 14) {
		rx_dropping = 0;
		ecm_receive_next();
	} else {
		ecm_frame_received();
	}
}

static void bulk_in_done(void)
{
	if (tx_off < tx_len) {
		send_in_chunk();
	} else if (tx_zlp) {
		tx_zlp = 0;
		send_in_chunk();
	} else {
		ecm_sent();
	}
}

static void ep0_in_done(void)
{
	if (!ep0_in_continue() && address_pending) {
		address_pending = 0;
		REG(USB_ADDR_ENDP) = new_address;
		ecm_event(ECM_ADDRESS, new_address);
	}
}

static void on_buffer(unsigned ep, unsigned in)
{
	if (ep == 0 && in) {
		ep0_in_done();
	} else if (ep == EP_NOTIFY && in && notify_state == 1) {
		notify_state = 2;
		notify();
	} else if (ep == EP_NOTIFY && in && notify_state == 2) {
		notify_state = 3;
		ecm_event(ECM_LINK_UP, 0);
	} else if (ep == EP_DATA && !in) {
		bulk_out_done();
	} else if (ep == EP_DATA && in) {
		bulk_in_done();
	}
}

static void bus_reset(void)
{
	usb_bus_reset_endpoints();
	address_pending = 0;
	ecm_event(ECM_BUS_RESET, 0);
}

void irq5_handler(void)
{
	usb_irq(on_buffer, handle_setup, bus_reset);
}

int main(void)
{
	usb_device_start();
	for (;;)
		wfi();
}

#endif
