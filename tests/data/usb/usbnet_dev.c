/* usbnet_dev: a USB network device for the virtual host's class-driver tests, with the
 * descriptor sets TinyUSB's net examples offer, chosen by MAILBOX_IN at reset:
 *   IN_MODE 0: two configurations, RNDIS first (value 1) and CDC-ECM second (value 2), as
 *              TinyUSB's net_lwip_webserver (CFG_TUD_ECM_RNDIS); IN_RNDIS_CLASS picks the
 *              RNDIS class triple: 0 TinyUSB's 0xE0/1/3, 1 the CDC one 2/2/0xFF;
 *   IN_MODE 1: RNDIS only;  IN_MODE 2: CDC-NCM only (TinyUSB's default build);
 *   IN_MODE 3: CDC-ECM only.
 *   IN_MODE | 0x100: the RNDIS function refuses SET (OID_GEN_CURRENT_PACKET_FILTER) with
 *              RNDIS_STATUS_NOT_SUPPORTED, so that the host's bring-up gives up.
 *   IN_MODE | 0x200: the CDC-ECM function sends no notification at all (as Zephyr's legacy
 *              CDC-ECM function): its network is up once the packet filter is set.
 * Whatever configuration the host sets decides the framing (raw Ethernet, RNDIS
 * REMOTE_NDIS_PACKET_MSG, NCM NTB16). On top, a small IPv4 device, MAC 02:00:00:00:00:01:
 * ARP, ICMP echo, UDP echo on port 7; with IN_DHCP it is 192.168.7.1 and runs a DHCP server
 * handing out 192.168.7.2 (TinyUSB's example serves 192.168.7.2-4 from 192.168.7.1),
 * else it is 192.0.2.1; with IN_IPV6 it sends, once the link is up, what lwIP sends: a
 * router solicitation, a DAD neighbour solicitation and an MLDv2 report. Counters in the
 * mailbox (enum below). Interrupt driven on IRQ 5, registers as in usbdev.h. */
#include "usbdev.h"

enum { IN_MODE = 0, IN_RNDIS_CLASS, IN_DHCP, IN_IPV6 };
enum {
	MB_CONFIG = 1,  /* SET_CONFIGURATION's value */
	MB_PROTO,       /* 1 ECM, 2 RNDIS, 3 NCM */
	MB_FRAMES,      /* Ethernet frames received */
	MB_ARP,         /* ARP requests answered */
	MB_ICMP,        /* echo requests answered */
	MB_UDP,         /* UDP datagrams echoed */
	MB_DHCP_OFFERS,
	MB_DHCP_ACKS,
	MB_IPV6,        /* IPv6 frames sent */
	MB_RNDIS_MSGS,  /* RNDIS control messages handled */
	MB_BAD,         /* malformed frames, NTBs or messages */
	MB_NTB_IN_SIZE, /* SET_NTB_INPUT_SIZE's value */
	MB_STALLS,
	MB_LINK,        /* 1 once the link is up */
	MB_RNDIS_FILTER,/* the packet filter the host set */
};

#define EP_NOTIFY 1
#define EP_DATA 2
#define BUF_NOTIFY (USB_DPRAM + 0x180u)
#define BUF_OUT (USB_DPRAM + 0x1C0u)
#define BUF_IN (USB_DPRAM + 0x200u)
#define EP0_OUT_BUF EP0_BUF /* single buffered EP0: one buffer both ways */
#define MPS 64u
#define NTB_MAX 2048u

int memcmp(const void *a, const void *b, unsigned n);
void irq5_handler(void);

int memcmp(const void *a, const void *b, unsigned n)
{
	const uint8_t *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

static void put16le(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static uint32_t get16le(const uint8_t *p) { return (uint32_t)(p[0] | p[1] << 8); }
static void put32le(uint8_t *p, uint32_t v) { put16le(p, v); put16le(p + 2, v >> 16); }
static uint32_t get32le(const uint8_t *p) { return get16le(p) | get16le(p + 2) << 16; }

/* ---- Descriptors ---- */

enum { PROTO_ECM = 1, PROTO_RNDIS, PROTO_NCM };

static uint8_t device_desc[18] = {
	18, 1, 0x00, 0x02, 0xEF, 0x02, 0x01, 64, 0xFE, 0xCA, 0x60, 0x40, 0x01, 0x01,
	1, 2, 3, 2,
};

/* TUD_CONFIG_DESCRIPTOR + TUD_RNDIS_DESCRIPTOR: 9 + 66 bytes, 100 mA. */
static uint8_t rndis_config[75] = {
	9, 2, 75, 0, 2, 1, 0, 0x80, 50,
	8, 0x0B, 0, 2, 0xE0, 0x01, 0x03, 0,
	9, 4, 0, 0, 1, 0xE0, 0x01, 0x03, 4,
	5, 0x24, 0x00, 0x10, 0x01,
	5, 0x24, 0x01, 0, 1,
	4, 0x24, 0x02, 0,
	5, 0x24, 0x06, 0, 1,
	7, 5, 0x81, 3, 8, 0, 1,
	9, 4, 1, 0, 2, 0x0A, 0, 0, 0,
	7, 5, 0x82, 2, 64, 0, 0,
	7, 5, 0x02, 2, 64, 0, 0,
};

/* TUD_CONFIG_DESCRIPTOR + TUD_CDC_ECM_DESCRIPTOR: 9 + 79 bytes. */
static uint8_t ecm_config[88] = {
	9, 2, 88, 0, 2, 2, 0, 0x80, 50,
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

/* TUD_CONFIG_DESCRIPTOR + TUD_CDC_NCM_DESCRIPTOR: 9 + 85 bytes. */
static const uint8_t ncm_config[94] = {
	9, 2, 94, 0, 2, 1, 0, 0x80, 50,
	8, 0x0B, 0, 2, 0x02, 0x0D, 0x00, 0,
	9, 4, 0, 0, 1, 0x02, 0x0D, 0x00, 4,
	5, 0x24, 0x00, 0x10, 0x01,
	5, 0x24, 0x06, 0, 1,
	13, 0x24, 0x0F, 5, 0, 0, 0, 0, 0xEA, 0x05, 0, 0, 0,
	6, 0x24, 0x1A, 0x00, 0x01, 0x00,
	7, 5, 0x81, 3, 64, 0, 50,
	9, 4, 1, 0, 0, 0x0A, 0x00, 0x01, 0,
	9, 4, 1, 1, 2, 0x0A, 0x00, 0x01, 0,
	7, 5, 0x82, 2, 64, 0, 0,
	7, 5, 0x02, 2, 64, 0, 0,
};

/* NCM 1.0 table 6-3: NTB16 only, 2048-byte NTBs both ways, 4-byte alignment. */
static const uint8_t ntb_params[28] = {
	28, 0, 0x01, 0x00, 0x00, 0x08, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0,
	0x00, 0x08, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, /* wNtbOutMaxDatagrams 0: no limit */
};

static const char *const strings[] = {
	0, "xipbench", "usbnet", "0001", "Network", "020000000002",
};

static int mode, proto, link_up, rndis_notify_pending, refuse_filter, no_notify;

/* ---- EP0 ---- */

static uint8_t ep0_data[128];
static uint32_t ep0_out_len, ep0_out_want;
static int ep0_data_out, address_pending;
static uint8_t new_address, setup[8];

static void ep0_stall(void)
{
	ep0_stall_both();
	MAILBOX[MB_STALLS]++;
}

static uint8_t str_buf[64];

/* ---- Notifications ---- */

static uint32_t notify_pid, notify_state;

static void notify_send(const uint8_t *msg, uint32_t n)
{
	dpram_put(BUF_NOTIFY, msg, n);
	buf_ctrl_hand_over(BUF_CTRL(EP_NOTIFY, 1), n | BC_FULL | (notify_pid ? BC_DATA1 : 0));
	notify_pid ^= 1;
}

/* ECM and NCM: NETWORK_CONNECTION, then CONNECTION_SPEED_CHANGE (CDC 1.2, 6.3). */
static void notify_next(void)
{
	static const uint8_t connected[8] = {0xA1, 0x00, 1, 0, 0, 0, 0, 0};
	static const uint8_t speed[16] = {0xA1, 0x2A, 0, 0, 0, 0, 8, 0,
					  0x00, 0x1B, 0xB7, 0x00, 0x00, 0x1B, 0xB7, 0x00};
	if (notify_state == 1)
		notify_send(connected, 8);
	else
		notify_send(speed, 16);
}

/* ---- Data ---- */

static uint32_t out_pid, in_pid;
static uint8_t rx[NTB_MAX + 64];
static uint32_t rx_len;
static int rx_busy;
static uint8_t txb[NTB_MAX];
static uint32_t tx_len, tx_off;
static int tx_busy, tx_zlp;

static void arm_bulk_out(void)
{
	buf_ctrl_hand_over(BUF_CTRL(EP_DATA, 0), MPS | (out_pid ? BC_DATA1 : 0));
}

static void send_in_chunk(void)
{
	uint32_t n = tx_len - tx_off < MPS ? tx_len - tx_off : MPS;
	dpram_put(BUF_IN, txb + tx_off, n);
	tx_off += n;
	buf_ctrl_hand_over(BUF_CTRL(EP_DATA, 1), n | BC_FULL | (in_pid ? BC_DATA1 : 0));
	in_pid ^= 1;
}

/* A queue of frames waiting for the IN endpoint. */
#define TXQ 4
static uint8_t txq[TXQ][1536];
static uint32_t txq_len[TXQ], txq_head, txq_count;

/* Frames the framing (RNDIS header, NTB) around the next queued frame and sends it. */
static void tx_kick(void)
{
	if (tx_busy || !txq_count)
		return;
	const uint8_t *f = txq[txq_head];
	uint32_t len = txq_len[txq_head];
	txq_head = (txq_head + 1) % TXQ;
	txq_count--;
	uint32_t off = 0;
	if (proto == PROTO_RNDIS) {
		memset(txb, 0, 44);
		put32le(txb, 1);
		put32le(txb + 4, 44 + len);
		put32le(txb + 8, 36);
		put32le(txb + 12, len);
		off = 44;
	} else if (proto == PROTO_NCM) { /* NTH16, NDP16 at 12 with one entry, frame at 28 */
		static uint16_t seq;
		memset(txb, 0, 28);
		put32le(txb, 0x484D434Eu);
		put16le(txb + 4, 12);
		put16le(txb + 6, seq++);
		put16le(txb + 8, 28 + len);
		put16le(txb + 10, 12);
		put32le(txb + 12, 0x304D434Eu);
		put16le(txb + 16, 16);
		put16le(txb + 20, 28);
		put16le(txb + 22, len);
		off = 28;
	}
	memcpy(txb + off, f, len);
	tx_len = off + len;
	tx_off = 0;
	tx_zlp = tx_len % MPS == 0;
	tx_busy = 1;
	send_in_chunk();
}

static void frame_send(const uint8_t *f, uint32_t len)
{
	if (txq_count == TXQ) {
		MAILBOX[MB_BAD]++;
		return;
	}
	uint32_t at = (txq_head + txq_count) % TXQ;
	memcpy(txq[at], f, len);
	txq_len[at] = len;
	txq_count++;
	tx_kick();
}

/* ---- The IPv4 device ---- */

static const uint8_t dev_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static uint8_t dev_ip[4] = {192, 0, 2, 1};
static const uint8_t bcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
static uint8_t f[1536];

static void ip_header(uint8_t *ip, const uint8_t *src, const uint8_t *dst, uint32_t proto_no,
		      uint32_t l4_len)
{
	static uint16_t id;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16be(ip + 2, 20 + l4_len);
	put16be(ip + 4, ++id);
	ip[8] = 64;
	ip[9] = (uint8_t)proto_no;
	memcpy(ip + 12, src, 4);
	memcpy(ip + 16, dst, 4);
	put16be(ip + 10, csum_fold(csum_add(0, ip, 20)));
}

static uint16_t udp_csum(const uint8_t *ip, const uint8_t *udp, uint32_t len)
{
	uint32_t sum = csum_add(0, ip + 12, 8) + 17 + len;
	uint16_t c = csum_fold(csum_add(sum, udp, len));
	return c ? c : 0xFFFF;
}

static void handle_arp(const uint8_t *fr, uint32_t n)
{
	const uint8_t *a = fr + 14;
	if (n < 42 || get16be(a) != 1 || get16be(a + 2) != 0x0800) {
		MAILBOX[MB_BAD]++;
		return;
	}
	if (get16be(a + 6) != 1 || memcmp(a + 24, dev_ip, 4) != 0)
		return;
	memcpy(f, a + 8, 6);
	memcpy(f + 6, dev_mac, 6);
	put16be(f + 12, 0x0806);
	uint8_t *r = f + 14;
	put16be(r, 1);
	put16be(r + 2, 0x0800);
	r[4] = 6, r[5] = 4;
	put16be(r + 6, 2);
	memcpy(r + 8, dev_mac, 6);
	memcpy(r + 14, dev_ip, 4);
	memcpy(r + 18, a + 8, 10);
	MAILBOX[MB_ARP]++;
	frame_send(f, 42);
}

/* DHCP server (RFC 2131): OFFER for a DISCOVER, ACK for a REQUEST, 192.168.7.2. */
static void handle_dhcp(const uint8_t *m, uint32_t n)
{
	if (n < 240 || m[0] != 1)
		return;
	uint32_t type = 0;
	for (uint32_t i = 240; i + 2 <= n && m[i] != 255;) {
		if (m[i] == 0) {
			i++;
			continue;
		}
		if (m[i] == 53)
			type = m[i + 2];
		i += 2u + m[i + 1];
	}
	if (type != 1 && type != 3)
		return;
	static const uint8_t yiaddr[4] = {192, 168, 7, 2}, mask[4] = {255, 255, 255, 0};
	static const uint8_t all[4] = {255, 255, 255, 255};
	memcpy(f, bcast, 6);
	memcpy(f + 6, dev_mac, 6);
	put16be(f + 12, 0x0800);
	uint8_t *ip = f + 14, *udp = ip + 20, *d = udp + 8;
	memset(d, 0, 300);
	d[0] = 2, d[1] = 1, d[2] = 6;
	memcpy(d + 4, m + 4, 4);    /* xid */
	memcpy(d + 16, yiaddr, 4);
	memcpy(d + 28, m + 28, 16); /* chaddr */
	d[236] = 99, d[237] = 130, d[238] = 83, d[239] = 99;
	uint8_t *o = d + 240;
	*o++ = 53, *o++ = 1, *o++ = (uint8_t)(type == 1 ? 2 : 5);
	*o++ = 54, *o++ = 4;
	memcpy(o, dev_ip, 4), o += 4;
	*o++ = 51, *o++ = 4, *o++ = 0, *o++ = 1, *o++ = 0x51, *o++ = 0x80; /* 86400 s */
	*o++ = 1, *o++ = 4;
	memcpy(o, mask, 4), o += 4;
	*o++ = 3, *o++ = 4;
	memcpy(o, dev_ip, 4), o += 4;
	*o++ = 255;
	uint32_t len = 8 + 300;
	put16be(udp, 67);
	put16be(udp + 2, 68);
	put16be(udp + 4, len);
	put16be(udp + 6, 0);
	ip_header(ip, dev_ip, all, 17, len);
	put16be(udp + 6, udp_csum(ip, udp, len));
	MAILBOX[type == 1 ? MB_DHCP_OFFERS : MB_DHCP_ACKS]++;
	frame_send(f, 14 + 20 + len);
}

static void handle_ipv4(const uint8_t *fr, uint32_t n)
{
	const uint8_t *ip = fr + 14;
	if (n < 34 || ip[0] != 0x45 || get16be(ip + 2) > n - 14 ||
	    csum_fold(csum_add(0, ip, 20)) != 0) {
		MAILBOX[MB_BAD]++;
		return;
	}
	uint32_t len = get16be(ip + 2), l4_len = len - 20;
	const uint8_t *l4 = ip + 20;
	if (ip[9] == 17 && l4_len >= 8 && get16be(l4 + 2) == 67 && MAILBOX_IN[IN_DHCP]) {
		handle_dhcp(l4 + 8, l4_len - 8);
		return;
	}
	if (memcmp(ip + 16, dev_ip, 4) != 0)
		return;
	int icmp = ip[9] == 1 && l4_len >= 8 && l4[0] == 8;
	int udp = ip[9] == 17 && l4_len >= 8 && get16be(l4 + 2) == 7;
	if (!icmp && !udp)
		return;
	memcpy(f, fr + 6, 6);
	memcpy(f + 6, dev_mac, 6);
	memcpy(f + 12, fr + 12, 2 + len);
	uint8_t *rip = f + 14, *r4 = rip + 20;
	memcpy(rip + 12, ip + 16, 4);
	memcpy(rip + 16, ip + 12, 4);
	put16be(rip + 10, 0);
	put16be(rip + 10, csum_fold(csum_add(0, rip, 20)));
	if (icmp) {
		r4[0] = 0;
		put16be(r4 + 2, 0);
		put16be(r4 + 2, csum_fold(csum_add(0, r4, l4_len)));
		MAILBOX[MB_ICMP]++;
	} else {
		put16be(r4, 7);
		put16be(r4 + 2, get16be(l4));
		put16be(r4 + 6, 0);
		put16be(r4 + 6, udp_csum(rip, r4, l4_len));
		MAILBOX[MB_UDP]++;
	}
	frame_send(f, 14 + len);
}

static void handle_frame(const uint8_t *fr, uint32_t n)
{
	MAILBOX[MB_FRAMES]++;
	if (n < 14 || (memcmp(fr, dev_mac, 6) != 0 && memcmp(fr, bcast, 6) != 0))
		return;
	uint32_t type = get16be(fr + 12);
	if (type == 0x0806)
		handle_arp(fr, n);
	else if (type == 0x0800)
		handle_ipv4(fr, n);
}

/* What lwIP sends when an IPv6 link comes up: an RS to ff02::2, a DAD NS for its
 * link-local address (from ::), an MLDv2 report to ff02::16 with a hop-by-hop router
 * alert. ICMPv6 checksums are computed over the pseudo-header (RFC 4443 2.3). */
static void ipv6_send(const uint8_t *dst_mac, const uint8_t *src, const uint8_t *dst,
		      const uint8_t *body, uint32_t blen, int hbh)
{
	memcpy(f, dst_mac, 6);
	memcpy(f + 6, dev_mac, 6);
	put16be(f + 12, 0x86DD);
	uint8_t *ip = f + 14;
	memset(ip, 0, 40);
	ip[0] = 0x60;
	uint32_t plen = blen + (hbh ? 8 : 0);
	put16be(ip + 4, plen);
	ip[6] = hbh ? 0 : 58;
	ip[7] = 255;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	uint8_t *p = ip + 40;
	if (hbh) {
		static const uint8_t ra[8] = {58, 0, 5, 2, 0, 0, 1, 0}; /* router alert, PadN */
		memcpy(p, ra, 8);
		ip[7] = 1;
		p += 8;
	}
	memcpy(p, body, blen);
	uint32_t sum = csum_add(0, ip + 8, 32) + blen + 58;
	put16be(p + 2, 0);
	put16be(p + 2, csum_fold(csum_add(sum, p, blen)));
	MAILBOX[MB_IPV6]++;
	frame_send(f, 14 + 40 + plen);
}

static void ipv6_hello(void)
{
	static const uint8_t ll[16] = {0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0xFF, 0xFE,
				       0x00, 0x00, 0x01};
	static const uint8_t any[16];
	static const uint8_t routers[16] = {0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
	static const uint8_t mld[16] = {0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x16};
	static const uint8_t sol[16] = {0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0, 0, 1};
	static const uint8_t mac_routers[6] = {0x33, 0x33, 0, 0, 0, 2};
	static const uint8_t mac_mld[6] = {0x33, 0x33, 0, 0, 0, 0x16};
	static const uint8_t mac_sol[6] = {0x33, 0x33, 0xFF, 0, 0, 1};
	uint8_t b[28];
	memset(b, 0, sizeof b); /* RS: type 133 */
	b[0] = 133;
	ipv6_send(mac_routers, ll, routers, b, 8, 0);
	memset(b, 0, sizeof b); /* NS: type 135, target = the tentative address */
	b[0] = 135;
	memcpy(b + 8, ll, 16);
	ipv6_send(mac_sol, any, sol, b, 24, 0);
	memset(b, 0, sizeof b); /* MLDv2 report: one record, CHANGE_TO_EXCLUDE of sol */
	b[0] = 143;
	put16be(b + 6, 1);
	b[8] = 4;
	memcpy(b + 12, sol, 16);
	ipv6_send(mac_mld, ll, mld, b, 28, 1);
}

static void link_is_up(void)
{
	if (link_up)
		return;
	link_up = 1;
	MAILBOX[MB_LINK] = 1;
	if (MAILBOX_IN[IN_IPV6])
		ipv6_hello();
}

/* ---- RNDIS control (MS RNDIS 1.0 section 2.2) ---- */

static uint8_t rndis_resp[96];
static uint32_t rndis_resp_len;

static void rndis_message(const uint8_t *m, uint32_t n)
{
	static const uint8_t respond_available[8] = {1, 0, 0, 0, 0, 0, 0, 0};
	if (n < 12) {
		MAILBOX[MB_BAD]++;
		return;
	}
	MAILBOX[MB_RNDIS_MSGS]++;
	uint32_t type = get32le(m);
	memset(rndis_resp, 0, sizeof rndis_resp);
	put32le(rndis_resp, type | 0x80000000u);
	memcpy(rndis_resp + 8, m + 8, 4); /* request ID */
	switch (type) {
	case 2: /* INITIALIZE: INITIALIZE_CMPLT, 52 bytes */
		rndis_resp_len = 52;
		put32le(rndis_resp + 16, 1);
		put32le(rndis_resp + 24, 1);    /* RNDIS_DF_CONNECTIONLESS */
		put32le(rndis_resp + 32, 1);    /* one packet per transfer */
		put32le(rndis_resp + 36, 1580); /* MaxTransferSize */
		put32le(rndis_resp + 40, 2);
		break;
	case 4: { /* QUERY */
		uint32_t oid = get32le(m + 12);
		rndis_resp_len = 24;
		put32le(rndis_resp + 20, 16);
		if (oid == 0x00010202u) { /* PHYSICAL_MEDIUM: 802.3 */
			put32le(rndis_resp + 16, 4);
			put32le(rndis_resp + 24, 0);
			rndis_resp_len = 28;
		} else if (oid == 0x01010101u || oid == 0x01010102u) { /* addresses */
			static const uint8_t host[6] = {0x02, 0, 0, 0, 0, 0x02};
			put32le(rndis_resp + 16, 6);
			memcpy(rndis_resp + 24, host, 6);
			rndis_resp_len = 30;
		} else {
			put32le(rndis_resp + 12, 0xC00000BBu); /* RNDIS_STATUS_NOT_SUPPORTED */
			put32le(rndis_resp + 20, 0);
		}
		break;
	}
	case 5: /* SET */
		rndis_resp_len = 16;
		if (refuse_filter) {
			put32le(rndis_resp + 12, 0xC00000BBu); /* RNDIS_STATUS_NOT_SUPPORTED */
		} else if (get32le(m + 12) == 0x0001010Eu && n >= 32) {
			MAILBOX[MB_RNDIS_FILTER] = get32le(m + 8 + get32le(m + 20));
			link_is_up();
		}
		break;
	case 8: /* KEEPALIVE */
		rndis_resp_len = 16;
		break;
	case 6: /* RESET */
		rndis_resp_len = 16;
		break;
	default: /* HALT and the rest: no answer */
		rndis_resp_len = 0;
		return;
	}
	put32le(rndis_resp + 4, rndis_resp_len);
	if (!rndis_notify_pending) { /* one RESPONSE_AVAILABLE until the host has taken it */
		rndis_notify_pending = 1;
		notify_send(respond_available, 8);
	}
}

/* ---- Setup ---- */

static void set_config(uint32_t value)
{
	MAILBOX[MB_CONFIG] = value;
	proto = mode == 2 ? PROTO_NCM : mode == 3 ? PROTO_ECM
		: (mode == 0 && value == 2) ? PROTO_ECM : PROTO_RNDIS;
	MAILBOX[MB_PROTO] = (uint32_t)proto;
	REG(EP_CTRL(EP_NOTIFY, 1)) =
		EP_CTRL_ENABLE | EP_CTRL_INT_PER_BUFF | EP_TYPE_INTERRUPT | (BUF_NOTIFY - USB_DPRAM);
	REG(EP_CTRL(EP_DATA, 0)) =
		EP_CTRL_ENABLE | EP_CTRL_INT_PER_BUFF | EP_TYPE_BULK | (BUF_OUT - USB_DPRAM);
	REG(EP_CTRL(EP_DATA, 1)) =
		EP_CTRL_ENABLE | EP_CTRL_INT_PER_BUFF | EP_TYPE_BULK | (BUF_IN - USB_DPRAM);
	notify_pid = out_pid = in_pid = 0;
	notify_state = 0;
	rndis_notify_pending = 0;
	rx_len = 0;
	tx_busy = rx_busy = 0;
	txq_count = 0;
	if (proto == PROTO_RNDIS)
		arm_bulk_out(); /* no alternate setting to wait for */
}

static const uint8_t *config_by_index(unsigned idx, uint32_t *len)
{
	if (mode == 2 && idx == 0)
		return *len = sizeof ncm_config, ncm_config;
	if (mode == 3 && idx == 0)
		return *len = sizeof ecm_config, ecm_config;
	if ((mode == 0 || mode == 1) && idx == 0)
		return *len = sizeof rndis_config, rndis_config;
	if (mode == 0 && idx == 1)
		return *len = sizeof ecm_config, ecm_config;
	return 0;
}

/* A request with an OUT data stage got all its data (ep0_data). */
static void ep0_out_complete(void)
{
	if (setup[0] == 0x21 && setup[1] == 0x00)
		rndis_message(ep0_data, ep0_out_len);
	else if (setup[0] == 0x21 && setup[1] == 0x86 && ep0_out_len >= 4)
		MAILBOX[MB_NTB_IN_SIZE] = get32le(ep0_data);
	ep0_status_in();
}

static void handle_setup(void)
{
	dpram_get(setup, USB_DPRAM, 8);
	REG(USB_SIE_STATUS + ALIAS_CLR) = SIE_STATUS_SETUP_REC;
	uint32_t value = get16le(setup + 2), index = get16le(setup + 4), length = get16le(setup + 6);
	REG(BUF_CTRL(0, 1)) = 0;
	REG(BUF_CTRL(0, 0)) = 0;
	ep0_data_in = ep0_data_out = 0;
	uint8_t rt = setup[0], req = setup[1];
	if (rt == 0x80 && req == 6) {
		unsigned type = value >> 8, idx = value & 0xFF;
		uint32_t len = 0;
		const uint8_t *c;
		if (type == 1)
			ep0_reply(device_desc, sizeof device_desc, length);
		else if (type == 2 && (c = config_by_index(idx, &len)))
			ep0_reply(c, len, length);
		else if (type == 3 && idx < sizeof strings / sizeof *strings)
			ep0_reply(str_buf, usb_string_desc(strings, idx, str_buf), length);
		else
			ep0_stall();
	} else if (rt == 0x00 && req == 5) {
		new_address = (uint8_t)(value & 0x7F);
		address_pending = 1;
		ep0_status_in();
	} else if (rt == 0x00 && req == 9) {
		set_config(value);
		ep0_status_in();
	} else if (rt == 0x01 && req == 11 && index == 1) {
		out_pid = in_pid = 0;
		rx_len = 0;
		tx_busy = 0;
		if (value == 1)
			arm_bulk_out();
		ep0_status_in();
	} else if (rt == 0x21 && req == 0x43) { /* SET_ETHERNET_PACKET_FILTER */
		ep0_status_in();
		if (no_notify && proto == PROTO_ECM) {
			link_is_up();
		} else if (notify_state == 0) {
			notify_state = 1;
			notify_next();
		}
	} else if (rt == 0xA1 && req == 0x80 && proto == PROTO_NCM) { /* GET_NTB_PARAMETERS */
		ep0_reply(ntb_params, sizeof ntb_params, length);
	} else if (rt == 0xA1 && req == 0x01 && proto == PROTO_RNDIS) {
		if (rndis_resp_len) { /* GET_ENCAPSULATED_RESPONSE */
			static uint8_t r[96];
			uint32_t n = rndis_resp_len;
			memcpy(r, rndis_resp, n);
			rndis_resp_len = 0;
			ep0_reply(r, n, length);
		} else {
			static const uint8_t none[1] = {0};
			ep0_reply(none, 1, length);
		}
	} else if (rt == 0x21 && length && length <= sizeof ep0_data) { /* class OUT with data */
		ep0_data_out = 1;
		ep0_out_len = 0;
		ep0_out_want = length;
		ep0_pid = 1;
		buf_ctrl_hand_over(BUF_CTRL(0, 0), MPS | BC_DATA1);
	} else if (rt == 0x21 || (rt == 0x02 && req == 1 && value == 0)) {
		if (rt == 0x02 && (index & 0x0F) == EP_DATA) {
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

/* ---- Bulk ---- */

static void ncm_received(void)
{
	const uint8_t *b = rx;
	uint32_t n = rx_len;
	if (n < 12 || get32le(b) != 0x484D434Eu) {
		MAILBOX[MB_BAD]++;
		return;
	}
	uint32_t ndp = get16le(b + 10);
	if (ndp + 16 > n || get32le(b + ndp) != 0x304D434Eu) {
		MAILBOX[MB_BAD]++;
		return;
	}
	uint32_t entries = (get16le(b + ndp + 4) - 8) / 4;
	for (uint32_t i = 0; i < entries; i++) {
		uint32_t off = get16le(b + ndp + 8 + 4 * i), len = get16le(b + ndp + 10 + 4 * i);
		if (!off || !len)
			break;
		if (off + len > n) {
			MAILBOX[MB_BAD]++;
			break;
		}
		handle_frame(b + off, len);
	}
}

static void transfer_received(void)
{
	if (proto == PROTO_ECM) {
		handle_frame(rx, rx_len);
	} else if (proto == PROTO_RNDIS) {
		uint32_t dlen = get32le(rx + 12), off = get32le(rx + 8);
		if (rx_len < 44 || get32le(rx) != 1 || off + 8 + dlen > rx_len)
			MAILBOX[MB_BAD]++;
		else
			handle_frame(rx + 8 + off, dlen);
	} else {
		ncm_received();
	}
	rx_len = 0;
}

static void bulk_out_done(void)
{
	uint32_t n = REG(BUF_CTRL(EP_DATA, 0)) & BC_LEN;
	out_pid ^= 1;
	if (rx_len + n <= sizeof rx) {
		dpram_get(rx + rx_len, BUF_OUT, n);
		rx_len += n;
	}
	if (n < MPS)
		transfer_received();
	arm_bulk_out();
}

static void bulk_in_done(void)
{
	if (tx_off < tx_len) {
		send_in_chunk();
	} else if (tx_zlp) {
		tx_zlp = 0;
		send_in_chunk();
	} else {
		tx_busy = 0;
		tx_kick();
	}
}

static void ep0_in_done(void)
{
	if (!ep0_in_continue() && address_pending) {
		address_pending = 0;
		REG(USB_ADDR_ENDP) = new_address;
	}
}

static void ep0_out_done(void)
{
	if (!ep0_data_out)
		return; /* the status stage of an IN request */
	uint32_t n = REG(BUF_CTRL(0, 0)) & BC_LEN;
	if (ep0_out_len + n <= sizeof ep0_data)
		dpram_get(ep0_data + ep0_out_len, EP0_OUT_BUF, n);
	ep0_out_len += n;
	ep0_pid ^= 1;
	if (ep0_out_len >= ep0_out_want || n < MPS) {
		ep0_data_out = 0;
		ep0_out_complete();
	} else {
		buf_ctrl_hand_over(BUF_CTRL(0, 0), MPS | (ep0_pid ? BC_DATA1 : 0));
	}
}

static void on_buffer(unsigned ep, unsigned in)
{
	if (ep == 0 && in) {
		ep0_in_done();
	} else if (ep == 0) {
		ep0_out_done();
	} else if (ep == EP_NOTIFY && in && proto == PROTO_RNDIS) {
		rndis_notify_pending = 0;
	} else if (ep == EP_NOTIFY && in) {
		if (notify_state == 1) {
			notify_state = 2;
			notify_next();
		} else if (notify_state == 2) {
			notify_state = 3;
			link_is_up();
		}
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
	ep0_data_out = 0;
}

void irq5_handler(void)
{
	usb_irq(on_buffer, handle_setup, bus_reset);
}

int main(void)
{
	mode = (int)(MAILBOX_IN[IN_MODE] & 0xFF);
	refuse_filter = (MAILBOX_IN[IN_MODE] & 0x100) != 0;
	no_notify = (MAILBOX_IN[IN_MODE] & 0x200) != 0;
	device_desc[17] = mode == 0 ? 2 : 1;
	if (MAILBOX_IN[IN_RNDIS_CLASS]) { /* the CDC triple Linux's is_rndis knows */
		rndis_config[13] = rndis_config[22] = 0x02;
		rndis_config[14] = rndis_config[23] = 0x02;
		rndis_config[15] = rndis_config[24] = 0xFF;
	}
	if (MAILBOX_IN[IN_DHCP]) {
		dev_ip[0] = 192, dev_ip[1] = 168, dev_ip[2] = 7, dev_ip[3] = 1;
	}
	usb_device_start();
	for (;;)
		wfi();
}
