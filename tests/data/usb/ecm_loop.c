/* ecm_loop: a CDC-ECM device for the virtual Pico's USB tests. It enumerates with TinyUSB's
 * ECM descriptor set, answers Linux cdc_ether's bring-up, reports the link, and sends every
 * Ethernet frame it receives back with the source and destination MAC addresses swapped.
 * Interrupt-driven on IRQ 5, written against the RP2040 datasheet's USB registers. Counters
 * for the test are in the mailbox (MAILBOX[1..10], see enum below). */
#include "usbdev.h"

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

#define EP_NOTIFY 1 /* 0x81, interrupt IN */
#define EP_DATA 2   /* 0x02 bulk OUT, 0x82 bulk IN */
#define BUF_NOTIFY (USB_DPRAM + 0x180u)
#define BUF_OUT (USB_DPRAM + 0x1C0u)
#define BUF_IN (USB_DPRAM + 0x200u)
#define MPS 64u
#define FRAME_MAX 1600u

void *memcpy(void *d, const void *s, unsigned n);
void *memset(void *d, int c, unsigned n);
void irq5_handler(void);

/* -ffreestanding still lets the compiler call these. */
void *memcpy(void *d, const void *s, unsigned n)
{
	uint8_t *dd = d;
	const uint8_t *ss = s;
	while (n--)
		*dd++ = *ss++;
	return d;
}

void *memset(void *d, int c, unsigned n)
{
	uint8_t *dd = d;
	while (n--)
		*dd++ = (uint8_t)c;
	return d;
}

static const uint8_t device_desc[18] = {
	18, 1, 0x00, 0x02, 0xEF, 0x02, 0x01, 64, /* USB 2.0, IAD class triple, EP0 64 */
	0xFE, 0xCA, 0x52, 0x40, 0x00, 0x01,     /* VID 0xCAFE, PID 0x4052, bcdDevice 1.00 */
	1, 2, 3, 1,                             /* manufacturer, product, serial; 1 config */
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

static const char *const strings[] = {
	0, "xipbench", "ECM loopback", "0001", "CDC-ECM", "02A0B0C0D0E0",
};

/* EP0 */
static uint8_t desc_buf[64];
static const uint8_t *ep0_ptr;
static uint32_t ep0_left, ep0_pid;
static int ep0_data_in, ep0_zlp, address_pending;
static uint8_t new_address;
/* notifications */
static uint32_t notify_pid, notify_state;
/* the frame being received, then sent back */
static uint8_t frame[FRAME_MAX];
static uint32_t rx_len, out_pid, in_pid, tx_len, tx_off;
static int tx_zlp, rx_dropping;

static void ep0_send_next(void)
{
	uint32_t n = ep0_left < MPS ? ep0_left : MPS;
	dpram_put(EP0_BUF, ep0_ptr, n);
	ep0_ptr += n;
	ep0_left -= n;
	buf_ctrl_hand_over(BUF_CTRL(0, 1), n | BC_FULL | (ep0_pid ? BC_DATA1 : 0));
	ep0_pid ^= 1;
}

static void ep0_reply(const uint8_t *data, uint32_t len, uint32_t wlength)
{
	if (len > wlength)
		len = wlength;
	ep0_ptr = data;
	ep0_left = len;
	ep0_zlp = len < wlength && len % MPS == 0; /* end a whole-packet reply with a ZLP */
	ep0_pid = 1;
	ep0_data_in = 1;
	ep0_send_next();
}

static void ep0_status_in(void)
{
	ep0_data_in = 0;
	buf_ctrl_hand_over(BUF_CTRL(0, 1), BC_FULL | BC_DATA1);
}

static void ep0_stall(uint32_t what)
{
	REG(USB_EP_STALL_ARM + ALIAS_SET) = 3;
	REG(BUF_CTRL(0, 1)) = BC_STALL;
	REG(BUF_CTRL(0, 0)) = BC_STALL;
	MAILBOX[MB_STALLS]++;
	MAILBOX[MB_LAST_STALL] = what;
}

static uint32_t string_desc(unsigned idx)
{
	if (idx == 0) {
		static const uint8_t langid[4] = {4, 3, 0x09, 0x04};
		memcpy(desc_buf, langid, 4);
		return 4;
	}
	const char *s = strings[idx];
	uint32_t n = 0;
	while (s[n] && n < 31)
		n++;
	desc_buf[0] = (uint8_t)(2 + 2 * n);
	desc_buf[1] = 3;
	for (uint32_t i = 0; i < n; i++) {
		desc_buf[2 + 2 * i] = (uint8_t)s[i];
		desc_buf[3 + 2 * i] = 0;
	}
	return 2 + 2 * n;
}

static void arm_bulk_out(void)
{
	buf_ctrl_hand_over(BUF_CTRL(EP_DATA, 0), MPS | (out_pid ? BC_DATA1 : 0));
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
	MAILBOX[MB_NOTIFICATIONS]++;
}

static void handle_setup(void)
{
	uint8_t s[8];
	dpram_get(s, USB_DPRAM, 8);
	REG(USB_SIE_STATUS + ALIAS_CLR) = SIE_STATUS_SETUP_REC;
	MAILBOX[MB_SETUPS]++;
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
			ep0_reply(desc_buf, string_desc(idx), length);
		else
			ep0_stall(what);
	} else if (s[0] == 0x00 && s[1] == 5) { /* SET_ADDRESS: applied after the status */
		new_address = (uint8_t)(value & 0x7F);
		address_pending = 1;
		ep0_status_in();
	} else if (s[0] == 0x00 && s[1] == 9) { /* SET_CONFIGURATION */
		MAILBOX[MB_CONFIG] = value;
		configure_endpoints();
		ep0_status_in();
	} else if (s[0] == 0x01 && s[1] == 11 && index == 1) { /* SET_INTERFACE(data) */
		MAILBOX[MB_DATA_ALT] = value;
		out_pid = in_pid = 0;
		rx_len = 0;
		if (value == 1)
			arm_bulk_out();
		ep0_status_in();
	} else if (s[0] == 0x21 && s[1] == 0x43) { /* SET_ETHERNET_PACKET_FILTER */
		MAILBOX[MB_FILTER] = value;
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

static void send_in_chunk(void)
{
	uint32_t n = tx_len - tx_off < MPS ? tx_len - tx_off : MPS;
	dpram_put(BUF_IN, frame + tx_off, n);
	tx_off += n;
	buf_ctrl_hand_over(BUF_CTRL(EP_DATA, 1), n | BC_FULL | (in_pid ? BC_DATA1 : 0));
	in_pid ^= 1;
}

static void frame_received(void)
{
	uint8_t mac[6];
	memcpy(mac, frame, 6);
	memcpy(frame, frame + 6, 6);
	memcpy(frame + 6, mac, 6);
	MAILBOX[MB_FRAMES]++;
	tx_len = rx_len;
	tx_off = 0;
	tx_zlp = tx_len % MPS == 0;
	send_in_chunk(); /* OUT stays NAKed until the frame has gone back */
}

static void bulk_out_done(void)
{
	uint32_t n = REG(BUF_CTRL(EP_DATA, 0)) & BC_LEN;
	out_pid ^= 1;
	if (!rx_dropping && rx_len + n <= FRAME_MAX) {
		dpram_get(frame + rx_len, BUF_OUT, n);
		rx_len += n;
	} else {
		rx_dropping = 1;
	}
	if (n == MPS) {
		arm_bulk_out();
	} else if (rx_dropping || rx_len < 14) {
		rx_len = 0;
		rx_dropping = 0;
		arm_bulk_out();
	} else {
		frame_received();
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
		rx_len = 0;
		arm_bulk_out();
	}
}

static void ep0_in_done(void)
{
	if (ep0_data_in) {
		if (ep0_left || ep0_zlp) {
			if (!ep0_left)
				ep0_zlp = 0;
			ep0_send_next();
		} else { /* the host's status stage: a zero-length OUT with DATA1 */
			ep0_data_in = 0;
			buf_ctrl_hand_over(BUF_CTRL(0, 0), BC_DATA1 | MPS);
		}
	} else if (address_pending) {
		address_pending = 0;
		REG(USB_ADDR_ENDP) = new_address;
		MAILBOX[MB_ADDRESS] = new_address;
	}
}

static void handle_buffers(void)
{
	uint32_t status;
	while ((status = REG(USB_BUFF_STATUS)) != 0) {
		for (unsigned bit = 0; bit < 32; bit++) {
			if (!(status & (1u << bit)))
				continue;
			REG(USB_BUFF_STATUS + ALIAS_CLR) = 1u << bit;
			unsigned ep = bit / 2, in = !(bit & 1);
			if (ep == 0 && in)
				ep0_in_done();
			else if (ep == EP_NOTIFY && in && notify_state == 1)
				notify_state = 2, notify();
			else if (ep == EP_DATA && !in)
				bulk_out_done();
			else if (ep == EP_DATA && in)
				bulk_in_done();
		}
	}
}

static void bus_reset(void)
{
	REG(USB_SIE_STATUS + ALIAS_CLR) = SIE_STATUS_BUS_RESET;
	REG(USB_ADDR_ENDP) = 0;
	address_pending = 0;
	ep0_data_in = 0;
	for (unsigned n = 0; n < 16; n++) {
		REG(BUF_CTRL(n, 1)) = 0;
		REG(BUF_CTRL(n, 0)) = 0;
	}
	MAILBOX[MB_BUS_RESETS]++;
}

void irq5_handler(void)
{
	uint32_t ints = REG(USB_INTS);
	if (ints & INT_BUFF_STATUS)
		handle_buffers();
	if (ints & INT_SETUP_REQ)
		handle_setup();
	if (ints & INT_BUS_RESET)
		bus_reset();
}

int main(void)
{
	REG(RESETS_RESET + ALIAS_SET) = RESET_USBCTRL;
	REG(RESETS_RESET + ALIAS_CLR) = RESET_USBCTRL;
	while (!(REG(RESETS_DONE) & RESET_USBCTRL))
		;
	for (uint32_t off = 0; off < 4096; off += 4)
		REG(USB_DPRAM + off) = 0;
	REG(USB_MUXING) = MUXING_TO_PHY_SOFTCON;
	REG(USB_PWR) = PWR_VBUS_OVERRIDE;
	REG(USB_MAIN_CTRL) = MAIN_CTRL_CONTROLLER_EN;
	REG(USB_SIE_CTRL) = SIE_CTRL_EP0_INT_1BUF;
	REG(USB_INTE) = INT_BUFF_STATUS | INT_BUS_RESET | INT_SETUP_REQ;
	NVIC_ISER = 1u << 5;
	REG(USB_SIE_CTRL + ALIAS_SET) = SIE_CTRL_PULLUP_EN;
	enable_irq();
	for (;;)
		wfi();
}
