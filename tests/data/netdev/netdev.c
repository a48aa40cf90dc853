/* netdev: a minimal IPv4 device for the network peer's tests on the virtual Pico: CDC-ECM
 * over USB (the USB code of tests/data/usb/ecm_loop.c), MAC 02:00:00:00:00:01, address
 * 192.0.2.1; it answers ARP, ICMP echo and UDP echo on port 7, and sends one ARP request
 * for 192.0.2.2 once the link is up. Test knobs in MAILBOX_IN and counters in the mailbox
 * (see the enums below). Interrupt-driven on IRQ 5; main sleeps in WFI. */
#include "usbdev.h"

enum { /* MAILBOX[n]: counters for the test */
	MB_FRAMES = 1,  /* complete frames received */
	MB_ARP_REQUESTS,/* ARP requests for 192.0.2.1 answered */
	MB_ARP_LEARNT,  /* ARP replies from 192.0.2.2 (the host's MAC learnt) */
	MB_ICMP,        /* echo requests answered */
	MB_UDP,         /* UDP datagrams echoed */
	MB_DROPPED,     /* echo requests dropped on purpose (IN_DROP_EVERY) */
	MB_BAD,         /* bad checksums or lengths */
	MB_IGNORED,     /* not for this device */
	MB_HOST_MAC_LO, /* the learnt host MAC, bytes 2-5 (big endian) */
	MB_CONFIG,
};

enum { /* MAILBOX_IN[n]: set by the test after loading, read at every frame */
	IN_NO_ARP = 0,    /* non-zero: no ARP at all (requests neither answered nor sent) */
	IN_DROP_EVERY,    /* n > 0: every n-th echo request (ICMP or UDP) gets no reply */
	IN_DUPLICATE,     /* non-zero: every reply is sent twice */
	IN_WORK,          /* extra work per echo: n passes over an 8 KB table in flash */
	IN_CORRUPT_EVERY, /* n > 0: every n-th reply has its last payload byte changed */
};

#define EP_NOTIFY 1
#define EP_DATA 2
#define BUF_NOTIFY (USB_DPRAM + 0x180u)
#define BUF_OUT (USB_DPRAM + 0x1C0u)
#define BUF_IN (USB_DPRAM + 0x200u)
#define MPS 64u
#define FRAME_MAX 1536u

void *memcpy(void *d, const void *s, unsigned n);
void *memset(void *d, int c, unsigned n);
int memcmp(const void *a, const void *b, unsigned n);
void irq5_handler(void);

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

int memcmp(const void *a, const void *b, unsigned n)
{
	const uint8_t *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

/* ---- USB (as ecm_loop.c) ---- */

static const uint8_t device_desc[18] = {
	18, 1, 0x00, 0x02, 0xEF, 0x02, 0x01, 64,
	0xFE, 0xCA, 0x53, 0x40, 0x00, 0x01, /* VID 0xCAFE, PID 0x4053 */
	1, 2, 3, 1,
};

static const uint8_t config_desc[88] = {
	9, 2, 88, 0, 2, 1, 0, 0x80, 50,
	8, 0x0B, 0, 2, 0x02, 0x06, 0x00, 0,
	9, 4, 0, 0, 1, 0x02, 0x06, 0x00, 4,
	5, 0x24, 0x00, 0x20, 0x01,
	5, 0x24, 0x06, 0, 1,
	13, 0x24, 0x0F, 5, 0, 0, 0, 0, 0xEA, 0x05, 0, 0, 0,
	7, 5, 0x81, 3, 64, 0, 1,
	9, 4, 1, 0, 0, 0x0A, 0x00, 0x00, 0,
	9, 4, 1, 1, 2, 0x0A, 0x00, 0x00, 0,
	7, 5, 0x02, 2, 64, 0, 0,
	7, 5, 0x82, 2, 64, 0, 0,
};

/* iMACAddress is the host side's address (what cdc_ether gives usb0). */
static const char *const strings[] = {
	0, "xipbench", "netdev", "0001", "CDC-ECM", "020000000002",
};

static const uint8_t dev_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t dev_ip[4] = {192, 0, 2, 1};
static const uint8_t host_ip[4] = {192, 0, 2, 2};

static uint8_t desc_buf[64];
static const uint8_t *ep0_ptr;
static uint32_t ep0_left, ep0_pid;
static int ep0_data_in, ep0_zlp, address_pending;
static uint8_t new_address;
static uint32_t notify_pid, notify_state;
static uint32_t out_pid, in_pid;

/* frames: one being received, one being sent */
static uint8_t rx[FRAME_MAX], tx[FRAME_MAX];
static uint32_t rx_len, tx_len, tx_off, tx_repeat;
static int tx_zlp, tx_busy, rx_dropping, rx_held, arp_pending;
static uint8_t host_mac[6];
static int host_mac_known;
static uint32_t echoes, replies;

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
	ep0_zlp = len < wlength && len % MPS == 0;
	ep0_pid = 1;
	ep0_data_in = 1;
	ep0_send_next();
}

static void ep0_status_in(void)
{
	ep0_data_in = 0;
	buf_ctrl_hand_over(BUF_CTRL(0, 1), BC_FULL | BC_DATA1);
}

static void ep0_stall(void)
{
	REG(USB_EP_STALL_ARM + ALIAS_SET) = 3;
	REG(BUF_CTRL(0, 1)) = BC_STALL;
	REG(BUF_CTRL(0, 0)) = BC_STALL;
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
}

static void handle_setup(void)
{
	uint8_t s[8];
	dpram_get(s, USB_DPRAM, 8);
	REG(USB_SIE_STATUS + ALIAS_CLR) = SIE_STATUS_SETUP_REC;
	uint32_t value = s[2] | s[3] << 8, index = s[4] | s[5] << 8, length = s[6] | s[7] << 8;
	REG(BUF_CTRL(0, 1)) = 0;
	REG(BUF_CTRL(0, 0)) = 0;
	ep0_data_in = 0;
	if (s[0] == 0x80 && s[1] == 6) {
		unsigned type = value >> 8, idx = value & 0xFF;
		if (type == 1)
			ep0_reply(device_desc, sizeof device_desc, length);
		else if (type == 2 && idx == 0)
			ep0_reply(config_desc, sizeof config_desc, length);
		else if (type == 3 && idx < sizeof strings / sizeof *strings)
			ep0_reply(desc_buf, string_desc(idx), length);
		else
			ep0_stall();
	} else if (s[0] == 0x00 && s[1] == 5) {
		new_address = (uint8_t)(value & 0x7F);
		address_pending = 1;
		ep0_status_in();
	} else if (s[0] == 0x00 && s[1] == 9) {
		MAILBOX[MB_CONFIG] = value;
		configure_endpoints();
		ep0_status_in();
	} else if (s[0] == 0x01 && s[1] == 11 && index == 1) {
		out_pid = in_pid = 0;
		rx_len = 0;
		tx_busy = rx_held = 0;
		if (value == 1)
			arm_bulk_out();
		ep0_status_in();
	} else if (s[0] == 0x21 && s[1] == 0x43) {
		ep0_status_in();
		if (notify_state == 0) {
			notify_state = 1;
			notify();
		}
	} else if (s[0] == 0x02 && s[1] == 1 && value == 0) {
		if ((index & 0x0F) == EP_DATA) {
			if (index & 0x80)
				in_pid = 0;
			else
				out_pid = 0;
		}
		ep0_status_in();
	} else {
		ep0_stall();
	}
}

/* ---- The network ---- */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, uint32_t n)
{
	for (; n >= 2; p += 2, n -= 2)
		sum += get16(p);
	if (n)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t udp_pseudo(const uint8_t *ip, uint32_t ulen)
{
	uint32_t sum = csum_add(0, ip + 12, 8);
	return sum + 17 + ulen;
}

/* An 8 KB table in flash: passes over it make cache traffic (IN_WORK). */
static const uint32_t work_table[2048] = {1, 2, 3, 4, 5, 6, 7, 8};
static volatile uint32_t work_sink;

__attribute__((noinline)) static void echo_work(uint32_t passes)
{
	uint32_t s = 0;
	for (uint32_t p = 0; p < passes; p++)
		for (uint32_t i = 0; i < 2048; i += 2)
			s += ((const volatile uint32_t *)work_table)[i];
	work_sink = s;
}

static void send_in_chunk(void)
{
	uint32_t n = tx_len - tx_off < MPS ? tx_len - tx_off : MPS;
	dpram_put(BUF_IN, tx + tx_off, n);
	tx_off += n;
	buf_ctrl_hand_over(BUF_CTRL(EP_DATA, 1), n | BC_FULL | (in_pid ? BC_DATA1 : 0));
	in_pid ^= 1;
}

static void tx_start(uint32_t len)
{
	tx_len = len;
	tx_off = 0;
	tx_zlp = len % MPS == 0;
	tx_busy = 1;
	send_in_chunk();
}

static void eth_header(const uint8_t *dst)
{
	memcpy(tx, dst, 6);
	memcpy(tx + 6, dev_mac, 6);
}

static void send_arp(uint32_t op, const uint8_t *tha, const uint8_t *tpa, const uint8_t *dst)
{
	eth_header(dst);
	put16(tx + 12, 0x0806);
	uint8_t *a = tx + 14;
	put16(a, 1);
	put16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, op);
	memcpy(a + 8, dev_mac, 6);
	memcpy(a + 14, dev_ip, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	tx_start(42);
}

static void handle_arp(const uint8_t *a, uint32_t n)
{
	if (n < 28 || get16(a) != 1 || get16(a + 2) != 0x0800) {
		MAILBOX[MB_BAD]++;
		return;
	}
	uint32_t op = get16(a + 6);
	if (memcmp(a + 14, host_ip, 4) == 0 && (op == 2 || memcmp(a + 24, dev_ip, 4) == 0)) {
		memcpy(host_mac, a + 8, 6);
		host_mac_known = 1;
		MAILBOX[MB_HOST_MAC_LO] = (uint32_t)host_mac[2] << 24 | host_mac[3] << 16 |
					  host_mac[4] << 8 | host_mac[5];
		if (op == 2)
			MAILBOX[MB_ARP_LEARNT]++;
	}
	if (op == 1 && memcmp(a + 24, dev_ip, 4) == 0 && !MAILBOX_IN[IN_NO_ARP]) {
		uint8_t sha[6], spa[4];
		memcpy(sha, a + 8, 6);
		memcpy(spa, a + 14, 4);
		MAILBOX[MB_ARP_REQUESTS]++;
		send_arp(2, sha, spa, sha);
	}
}

/* An echo request in rx (ICMP or UDP to port 7): the reply is built in tx. */
static void send_echo(uint32_t ip_len, uint32_t l4_len, int icmp)
{
	uint32_t drop = MAILBOX_IN[IN_DROP_EVERY], corrupt = MAILBOX_IN[IN_CORRUPT_EVERY];
	echoes++;
	if (MAILBOX_IN[IN_WORK])
		echo_work(MAILBOX_IN[IN_WORK]);
	if (drop && echoes % drop == 0) {
		MAILBOX[MB_DROPPED]++;
		return;
	}
	memcpy(tx, rx, 14 + ip_len);
	eth_header(host_mac_known ? host_mac : rx + 6);
	uint8_t *ip = tx + 14, *l4 = ip + 20;
	memcpy(ip + 12, rx + 14 + 16, 4);
	memcpy(ip + 16, rx + 14 + 12, 4);
	ip[8] = 64;
	put16(ip + 10, 0);
	put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	replies++;
	if (corrupt && replies % corrupt == 0)
		l4[l4_len - 1] ^= 0x5A; /* checksums below still hold: only the contents differ */
	if (icmp) {
		l4[0] = 0;
		put16(l4 + 2, 0);
		put16(l4 + 2, csum_fold(csum_add(0, l4, l4_len)));
		MAILBOX[MB_ICMP]++;
	} else {
		uint8_t port[2] = {l4[0], l4[1]};
		l4[0] = l4[2];
		l4[1] = l4[3];
		l4[2] = port[0];
		l4[3] = port[1];
		put16(l4 + 6, 0);
		uint16_t c = csum_fold(csum_add(udp_pseudo(ip, l4_len), l4, l4_len));
		put16(l4 + 6, c ? c : 0xFFFF);
		MAILBOX[MB_UDP]++;
	}
	tx_repeat = MAILBOX_IN[IN_DUPLICATE] ? 1 : 0;
	tx_start(14 + ip_len);
}

static void handle_ipv4(const uint8_t *ip, uint32_t n)
{
	if (n < 20 || ip[0] != 0x45 || get16(ip + 2) > n || get16(ip + 2) < 28 ||
	    csum_fold(csum_add(0, ip, 20)) != 0) {
		MAILBOX[MB_BAD]++;
		return;
	}
	if (memcmp(ip + 16, dev_ip, 4) != 0) {
		MAILBOX[MB_IGNORED]++;
		return;
	}
	uint32_t len = get16(ip + 2), l4_len = len - 20;
	const uint8_t *l4 = ip + 20;
	if (ip[9] == 1 && l4[0] == 8) {
		if (csum_fold(csum_add(0, l4, l4_len)) != 0) {
			MAILBOX[MB_BAD]++;
			return;
		}
		send_echo(len, l4_len, 1);
	} else if (ip[9] == 17 && get16(l4 + 2) == 7 && get16(l4 + 4) == l4_len) {
		if (get16(l4 + 6) && csum_fold(csum_add(udp_pseudo(ip, l4_len), l4, l4_len)) != 0) {
			MAILBOX[MB_BAD]++;
			return;
		}
		send_echo(len, l4_len, 0);
	} else {
		MAILBOX[MB_IGNORED]++;
	}
}

static void handle_frame(void)
{
	static const uint8_t bcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
	MAILBOX[MB_FRAMES]++;
	if (memcmp(rx, dev_mac, 6) != 0 && memcmp(rx, bcast, 6) != 0) {
		MAILBOX[MB_IGNORED]++;
		return;
	}
	uint32_t type = get16(rx + 12);
	if (type == 0x0806)
		handle_arp(rx + 14, rx_len - 14);
	else if (type == 0x0800)
		handle_ipv4(rx + 14, rx_len - 14);
	else
		MAILBOX[MB_IGNORED]++;
}

/* The frame in rx is complete: handle it now, or after the frame being sent. */
static void frame_received(void)
{
	if (tx_busy) {
		rx_held = 1; /* OUT stays NAKed until then */
		return;
	}
	handle_frame();
	rx_len = 0;
	arm_bulk_out();
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
		rx_len = 0;
		rx_dropping = 0;
		arm_bulk_out();
	} else {
		frame_received();
	}
}

static void tx_finished(void)
{
	tx_busy = 0;
	if (tx_repeat) {
		tx_repeat--;
		tx_start(tx_len);
		return;
	}
	if (arp_pending) {
		static const uint8_t zero[6], bcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
		arp_pending = 0;
		send_arp(1, zero, host_ip, bcast);
		return;
	}
	if (rx_held) {
		rx_held = 0;
		handle_frame();
		rx_len = 0;
		arm_bulk_out();
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
		tx_finished();
	}
}

/* The link is up: ask for the host's MAC address once. */
static void link_up(void)
{
	if (MAILBOX_IN[IN_NO_ARP])
		return;
	arp_pending = 1;
	if (!tx_busy)
		tx_finished();
}

static void ep0_in_done(void)
{
	if (ep0_data_in) {
		if (ep0_left || ep0_zlp) {
			if (!ep0_left)
				ep0_zlp = 0;
			ep0_send_next();
		} else {
			ep0_data_in = 0;
			buf_ctrl_hand_over(BUF_CTRL(0, 0), BC_DATA1 | MPS);
		}
	} else if (address_pending) {
		address_pending = 0;
		REG(USB_ADDR_ENDP) = new_address;
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
			if (ep == 0 && in) {
				ep0_in_done();
			} else if (ep == EP_NOTIFY && in && notify_state == 1) {
				notify_state = 2;
				notify();
			} else if (ep == EP_NOTIFY && in && notify_state == 2) {
				notify_state = 3;
				link_up();
			} else if (ep == EP_DATA && !in) {
				bulk_out_done();
			} else if (ep == EP_DATA && in) {
				bulk_in_done();
			}
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
