/* netdev: a minimal IPv4 device for the network peer's tests on the virtual Pico: CDC-ECM
 * over USB (tests/data/usb/ecm_dev.h), MAC 02:00:00:00:00:01, address
 * 192.0.2.1; it answers ARP, ICMP echo and UDP echo on port 7, and sends one ARP request
 * for 192.0.2.2 once the link is up. Test knobs in MAILBOX_IN and counters in the mailbox
 * (see the enums below). Interrupt-driven on IRQ 5; main sleeps in WFI. */
#define FRAME_MAX 1536u
#define ECM_PID 0x4053u
#define ECM_PRODUCT "netdev"
#define ECM_MAC "020000000002"
#include "ecm_dev.h"

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

int memcmp(const void *a, const void *b, unsigned n);

int memcmp(const void *a, const void *b, unsigned n)
{
	const uint8_t *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

static const uint8_t dev_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t dev_ip[4] = {192, 0, 2, 1};
static const uint8_t host_ip[4] = {192, 0, 2, 2};

/* the frame being sent (rx, of ecm_dev.h, holds the one received) */
static uint8_t tx[FRAME_MAX];
static uint32_t tx_repeat;
static int tx_busy, rx_held, arp_pending;
static uint8_t host_mac[6];
static int host_mac_known;
static uint32_t echoes, replies;

/* ---- The network ---- */

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

static void tx_start(uint32_t len)
{
	tx_busy = 1;
	ecm_send(tx, len);
}

static void eth_header(const uint8_t *dst)
{
	memcpy(tx, dst, 6);
	memcpy(tx + 6, dev_mac, 6);
}

static void send_arp(uint32_t op, const uint8_t *tha, const uint8_t *tpa, const uint8_t *dst)
{
	eth_header(dst);
	put16be(tx + 12, 0x0806);
	uint8_t *a = tx + 14;
	put16be(a, 1);
	put16be(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	put16be(a + 6, op);
	memcpy(a + 8, dev_mac, 6);
	memcpy(a + 14, dev_ip, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	tx_start(42);
}

static void handle_arp(const uint8_t *a, uint32_t n)
{
	if (n < 28 || get16be(a) != 1 || get16be(a + 2) != 0x0800) {
		MAILBOX[MB_BAD]++;
		return;
	}
	uint32_t op = get16be(a + 6);
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
	put16be(ip + 10, 0);
	put16be(ip + 10, csum_fold(csum_add(0, ip, 20)));
	replies++;
	if (corrupt && replies % corrupt == 0)
		l4[l4_len - 1] ^= 0x5A; /* checksums below still hold: only the contents differ */
	if (icmp) {
		l4[0] = 0;
		put16be(l4 + 2, 0);
		put16be(l4 + 2, csum_fold(csum_add(0, l4, l4_len)));
		MAILBOX[MB_ICMP]++;
	} else {
		uint8_t port[2] = {l4[0], l4[1]};
		l4[0] = l4[2];
		l4[1] = l4[3];
		l4[2] = port[0];
		l4[3] = port[1];
		put16be(l4 + 6, 0);
		uint16_t c = csum_fold(csum_add(udp_pseudo(ip, l4_len), l4, l4_len));
		put16be(l4 + 6, c ? c : 0xFFFF);
		MAILBOX[MB_UDP]++;
	}
	tx_repeat = MAILBOX_IN[IN_DUPLICATE] ? 1 : 0;
	tx_start(14 + ip_len);
}

static void handle_ipv4(const uint8_t *ip, uint32_t n)
{
	if (n < 20 || ip[0] != 0x45 || get16be(ip + 2) > n || get16be(ip + 2) < 28 ||
	    csum_fold(csum_add(0, ip, 20)) != 0) {
		MAILBOX[MB_BAD]++;
		return;
	}
	if (memcmp(ip + 16, dev_ip, 4) != 0) {
		MAILBOX[MB_IGNORED]++;
		return;
	}
	uint32_t len = get16be(ip + 2), l4_len = len - 20;
	const uint8_t *l4 = ip + 20;
	if (ip[9] == 1 && l4[0] == 8) {
		if (csum_fold(csum_add(0, l4, l4_len)) != 0) {
			MAILBOX[MB_BAD]++;
			return;
		}
		send_echo(len, l4_len, 1);
	} else if (ip[9] == 17 && get16be(l4 + 2) == 7 && get16be(l4 + 4) == l4_len) {
		if (get16be(l4 + 6) && csum_fold(csum_add(udp_pseudo(ip, l4_len), l4, l4_len)) != 0) {
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
	uint32_t type = get16be(rx + 12);
	if (type == 0x0806)
		handle_arp(rx + 14, rx_len - 14);
	else if (type == 0x0800)
		handle_ipv4(rx + 14, rx_len - 14);
	else
		MAILBOX[MB_IGNORED]++;
}

/* The frame in rx is complete: handle it now, or after the frame being sent. */
static void ecm_frame_received(void)
{
	if (tx_busy) {
		rx_held = 1; /* OUT stays NAKed until then */
		return;
	}
	handle_frame();
	ecm_receive_next();
}

static void ecm_sent(void)
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
		ecm_receive_next();
	}
}

static void ecm_event(enum ecm_event e, uint32_t value)
{
	(void)value;
	if (e == ECM_DATA_ALT) {
		tx_busy = rx_held = 0;
	} else if (e == ECM_LINK_UP && !MAILBOX_IN[IN_NO_ARP]) {
		/* the link is up: ask for the host's MAC address once */
		arp_pending = 1;
		if (!tx_busy)
			ecm_sent();
	}
}
