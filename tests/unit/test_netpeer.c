/* test_netpeer: the network peer. Frames byte for byte against hand-computed bytes
 * (checksums included) and parsing; with a scripted wire on a halted board: ARP answers,
 * resolution with retries and failure, the queue of waiting frames, sends at exact virtual
 * times, reply matching (duplicates, unmatched, altered payloads), the link going down;
 * with the test device of tests/data/netdev on the virtual Pico: ARP both ways, pings and
 * UDP echoes with the request's and reply's times equal to their usbmon 'C' records, per
 * echo XIP deltas, lost, duplicate and altered replies, ARP failure, determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../sim/ecmhost.h"
#include "../../sim/netpeer.h"
#include "../../sim/pico.h"
#include "../../sim/usbhost.h"
#include "../../sim/usbmon.h"
#include "test_pico_common.h"
#include "test_sim_common.h"
#include "test_usb_common.h"

#define MS 125000u /* cycles per millisecond at 125 MHz */

static const uint8_t PEER_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
static const uint8_t DEV_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t PEER_IP[4] = {192, 0, 2, 2};
static const uint8_t DEV_IP[4] = {192, 0, 2, 1};
static const uint8_t BCAST[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

static void addrs(xb_netpeer_addr *peer, xb_netpeer_addr *dev)
{
	memcpy(peer->mac, PEER_MAC, 6);
	memcpy(peer->ip, PEER_IP, 4);
	memcpy(dev->mac, DEV_MAC, 6);
	memcpy(dev->ip, DEV_IP, 4);
}

/* ---- Frames ---- */

static void test_checksum(void **state)
{
	(void)state;
	/* RFC 1071 section 3's example: the sum is ddf2, the checksum its complement. */
	static const uint8_t rfc[8] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
	assert_int_equal(netpeer_checksum_add(0, rfc, 8), 0xddf2);
	assert_int_equal(netpeer_checksum_fold(netpeer_checksum_add(0, rfc, 8)), 0x220d);
	/* an odd last byte is the high byte of a word */
	static const uint8_t odd[3] = {0x12, 0x34, 0x56};
	assert_int_equal(netpeer_checksum_add(0, odd, 3), 0x1234 + 0x5600);
	/* carries wrap around, whatever the length */
	uint8_t ff[4000];
	memset(ff, 0xFF, sizeof ff);
	assert_int_equal(netpeer_checksum_fold(netpeer_checksum_add(0, ff, sizeof ff)), 0);
}

static void test_build_arp(void **state)
{
	(void)state;
	xb_netpeer_addr peer, dev, unknown;
	addrs(&peer, &dev);
	unknown = dev;
	memset(unknown.mac, 0, 6);
	uint8_t f[64];
	static const uint8_t want[42] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x06,
		0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01,             /* Ethernet, IPv4, request */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc0, 0x00, 0x02, 0x02, /* sender */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01, /* target */
	};
	assert_int_equal(netpeer_build_arp(f, sizeof f, 1, &peer, &unknown, BCAST), 42);
	assert_memory_equal(f, want, 42);
	assert_int_equal(netpeer_build_arp(f, 41, 1, &peer, &unknown, BCAST), 0);
}

static void test_build_icmp(void **state)
{
	(void)state;
	xb_netpeer_addr peer, dev;
	addrs(&peer, &dev);
	static const uint8_t data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	/* IPv4 header checksum: 4500 + 0024 + 0001 + 4000 + 4001 + c000 + 0202 + c000 + 0201 =
	 * 2_4929, folded 492b, complement b6d4. ICMP: 0800 + 1234 + 0001 + 0001 + 0203 + 0405 +
	 * 0607 = 2645, complement d9ba. */
	static const uint8_t want[50] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00,
		0x45, 0x00, 0x00, 0x24, 0x00, 0x01, 0x40, 0x00, 0x40, 0x01, 0xb6, 0xd4,
		0xc0, 0x00, 0x02, 0x02, 0xc0, 0x00, 0x02, 0x01,
		0x08, 0x00, 0xd9, 0xba, 0x12, 0x34, 0x00, 0x01,
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	};
	uint8_t f[1600];
	assert_int_equal(netpeer_build_icmp_echo(f, sizeof f, &peer, &dev, 1, 8, 0x1234, 1, data, 8),
			 50);
	assert_memory_equal(f, want, 50);
	assert_int_equal(netpeer_build_icmp_echo(f, 49, &peer, &dev, 1, 8, 0x1234, 1, data, 8), 0);
	static uint8_t big[1473];
	assert_int_equal(netpeer_build_icmp_echo(f, sizeof f, &peer, &dev, 1, 8, 1, 1, big, 1473), 0);
	assert_int_equal(netpeer_build_icmp_echo(f, sizeof f, &peer, &dev, 1, 8, 1, 1, big, 1472),
			 1514);
}

static void test_build_udp(void **state)
{
	(void)state;
	xb_netpeer_addr peer, dev;
	addrs(&peer, &dev);
	/* UDP checksum over the pseudo-header (c000 0202 c000 0201 0011 000d) and the datagram
	 * (c350 0007 000d 0000 6865 6c6c 6f00): complement 74a6. */
	static const uint8_t want[47] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00,
		0x45, 0x00, 0x00, 0x21, 0x00, 0x02, 0x40, 0x00, 0x40, 0x11, 0xb6, 0xc6,
		0xc0, 0x00, 0x02, 0x02, 0xc0, 0x00, 0x02, 0x01,
		0xc3, 0x50, 0x00, 0x07, 0x00, 0x0d, 0x74, 0xa6, 'h', 'e', 'l', 'l', 'o',
	};
	uint8_t f[1600];
	assert_int_equal(netpeer_build_udp(f, sizeof f, &peer, &dev, 2, 50000, 7,
					   (const uint8_t *)"hello", 5),
			 47);
	assert_memory_equal(f, want, 47);
	/* A datagram whose checksum computes to 0 carries ffff (RFC 768). */
	static const uint8_t zero_sum[2] = {0xb8, 0x7e};
	assert_int_equal(netpeer_build_udp(f, sizeof f, &peer, &dev, 2, 50000, 7, zero_sum, 2), 44);
	assert_int_equal(f[40], 0xff);
	assert_int_equal(f[41], 0xff);
	xb_netpeer_packet p;
	assert_int_equal(netpeer_parse(f, 44, &p), XB_NETPEER_PARSE_OK);
}

static void test_parse(void **state)
{
	(void)state;
	xb_netpeer_addr peer, dev;
	addrs(&peer, &dev);
	uint8_t f[1600], data[56];
	for (int i = 0; i < 56; i++)
		data[i] = (uint8_t)(i * 3);
	xb_netpeer_packet p;
	size_t n = netpeer_build_icmp_echo(f, sizeof f, &dev, &peer, 7, 0, 0xBEEF, 9, data, 56);
	assert_int_equal(netpeer_parse(f, n, &p), XB_NETPEER_PARSE_OK);
	assert_int_equal(p.kind, XB_NETPEER_ICMP);
	assert_memory_equal(p.eth_dst, PEER_MAC, 6);
	assert_memory_equal(p.ip_src, DEV_IP, 4);
	assert_int_equal(p.icmp_type, 0);
	assert_int_equal(p.icmp_id, 0xBEEF);
	assert_int_equal(p.icmp_seq, 9);
	assert_int_equal(p.ip_id, 7);
	assert_int_equal(p.ip_ttl, 64);
	assert_int_equal(p.payload_len, 56);
	assert_memory_equal(p.payload, data, 56);
	assert_int_equal(p.trailer, 0);
	/* usbnet's extra byte and Ethernet padding are not part of the packet */
	f[n] = 0;
	assert_int_equal(netpeer_parse(f, n + 1, &p), XB_NETPEER_PARSE_OK);
	assert_int_equal(p.trailer, 1);
	assert_int_equal(p.payload_len, 56);
	/* a bad IPv4 header checksum, a bad ICMP checksum, truncation */
	f[24] ^= 1;
	assert_int_equal(netpeer_parse(f, n, &p), XB_NETPEER_PARSE_IP_CHECKSUM);
	f[24] ^= 1;
	f[n - 1] ^= 1;
	assert_int_equal(netpeer_parse(f, n, &p), XB_NETPEER_PARSE_CHECKSUM);
	f[n - 1] ^= 1;
	assert_int_equal(netpeer_parse(f, n - 1, &p), XB_NETPEER_PARSE_SHORT);
	assert_int_equal(netpeer_parse(f, 13, &p), XB_NETPEER_PARSE_SHORT);
	/* a fragment (MF set) is refused; the header checksum is made right first */
	uint8_t g[1600];
	memcpy(g, f, n);
	g[20] |= 0x20;
	g[24] = g[25] = 0;
	uint16_t c = netpeer_checksum_fold(netpeer_checksum_add(0, g + 14, 20));
	g[24] = (uint8_t)(c >> 8);
	g[25] = (uint8_t)c;
	assert_int_equal(netpeer_parse(g, n, &p), XB_NETPEER_PARSE_FRAGMENT);
	/* another protocol (TCP), another EtherType, a bad version */
	memcpy(g, f, n);
	g[23] = 6;
	g[24] = g[25] = 0;
	c = netpeer_checksum_fold(netpeer_checksum_add(0, g + 14, 20));
	g[24] = (uint8_t)(c >> 8);
	g[25] = (uint8_t)c;
	assert_int_equal(netpeer_parse(g, n, &p), XB_NETPEER_PARSE_PROTOCOL);
	memcpy(g, f, n);
	g[12] = 0x86;
	g[13] = 0xDD;
	assert_int_equal(netpeer_parse(g, n, &p), XB_NETPEER_PARSE_ETHERTYPE);
	memcpy(g, f, n);
	g[14] = 0x65;
	assert_int_equal(netpeer_parse(g, n, &p), XB_NETPEER_PARSE_IP_HEADER);

	/* UDP, padded to Ethernet's 60 bytes; a zero checksum means none */
	n = netpeer_build_udp(f, sizeof f, &dev, &peer, 3, 7, 50000, (const uint8_t *)"ab", 2);
	assert_int_equal(n, 44);
	memset(f + n, 0, 60 - n);
	assert_int_equal(netpeer_parse(f, 60, &p), XB_NETPEER_PARSE_OK);
	assert_int_equal(p.kind, XB_NETPEER_UDP);
	assert_int_equal(p.udp_sport, 7);
	assert_int_equal(p.udp_dport, 50000);
	assert_int_equal(p.payload_len, 2);
	assert_int_equal(p.trailer, 16);
	f[43] ^= 1;
	assert_int_equal(netpeer_parse(f, 60, &p), XB_NETPEER_PARSE_CHECKSUM);
	f[40] = f[41] = 0;
	assert_int_equal(netpeer_parse(f, 60, &p), XB_NETPEER_PARSE_OK);
	/* ARP with padding */
	n = netpeer_build_arp(f, sizeof f, 2, &dev, &peer, PEER_MAC);
	memset(f + n, 0, 18);
	assert_int_equal(netpeer_parse(f, 60, &p), XB_NETPEER_PARSE_OK);
	assert_int_equal(p.kind, XB_NETPEER_ARP);
	assert_int_equal(p.arp_op, 2);
	assert_memory_equal(p.arp_sha, DEV_MAC, 6);
	assert_memory_equal(p.arp_tpa, PEER_IP, 4);
	assert_int_equal(p.trailer, 18);
	f[17] = 0xDD; /* protocol type 0x86DD */
	assert_int_equal(netpeer_parse(f, 60, &p), XB_NETPEER_PARSE_ARP_FORMAT);
	assert_string_equal(netpeer_parse_message(XB_NETPEER_PARSE_FRAGMENT),
			    "IPv4 fragment (not reassembled)");
}

/* ---- A scripted wire on a halted board ---- */

#define MAX_SENT 64

typedef struct sent {
	uint8_t d[1600];
	size_t len;
	uint64_t cycle;
} sent;

typedef struct wire {
	xb_board *b;
	xb_netpeer *np;
	sent f[MAX_SENT];
	unsigned n;
	int refuse;
	/* datagrams the udp callback saw */
	unsigned udp_n;
	uint16_t udp_sport, udp_dport;
	char udp_data[64];
	unsigned echoes_done;
} wire;

static int w_send(void *ctx, const uint8_t *frame, size_t len)
{
	wire *w = ctx;
	if (w->refuse)
		return -1;
	assert_true(w->n < MAX_SENT);
	sent *s = &w->f[w->n++];
	memcpy(s->d, frame, len);
	s->len = len;
	s->cycle = board_cycles(w->b);
	return 0;
}

static const uint8_t *w_mac(void *ctx)
{
	(void)ctx;
	return PEER_MAC;
}

static void w_udp(void *ctx, uint16_t sport, uint16_t dport, const uint8_t *data, size_t len,
		  uint64_t cycle)
{
	(void)cycle;
	wire *w = ctx;
	w->udp_n++;
	w->udp_sport = sport;
	w->udp_dport = dport;
	snprintf(w->udp_data, sizeof w->udp_data, "%.*s", (int)len, (const char *)data);
}

static void w_echo(void *ctx, size_t echo)
{
	(void)echo;
	((wire *)ctx)->echoes_done++;
}

static void wire_open(wire *w)
{
	memset(w, 0, sizeof *w);
	w->b = sim_board(NULL);
	board_halt(w->b);
	xb_netpeer_wire nw = {.send = w_send, .mac = w_mac, .ctx = w};
	xb_netpeer_options o;
	netpeer_options_init(&o);
	o.udp = w_udp;
	o.udp_ctx = w;
	o.echo = w_echo;
	o.echo_ctx = w;
	w->np = netpeer_new(w->b, &nw, &o);
}

static void wire_close(wire *w)
{
	netpeer_free(w->np);
	board_free(w->b);
}

static void run_to(wire *w, uint64_t cycle)
{
	uint64_t now = board_cycles(w->b);
	if (cycle > now)
		board_run(w->b, cycle - now);
	assert_int_equal(board_cycles(w->b), cycle > now ? cycle : now);
}

/* The device's frames, as the wire would deliver them. */
static void dev_arp(wire *w, uint16_t op, const uint8_t *tha, const uint8_t *tpa,
		    const uint8_t *eth_dst, uint64_t cycle)
{
	xb_netpeer_addr dev, target;
	memcpy(dev.mac, DEV_MAC, 6);
	memcpy(dev.ip, DEV_IP, 4);
	memcpy(target.mac, tha, 6);
	memcpy(target.ip, tpa, 4);
	uint8_t f[64];
	size_t n = netpeer_build_arp(f, sizeof f, op, &dev, &target, eth_dst);
	netpeer_wire_input(w->np, f, n, cycle);
}

/* The reply to a frame the peer sent: ICMP type 0 or the UDP ports swapped. */
static void dev_reply(wire *w, const sent *req, uint64_t cycle, int alter)
{
	xb_netpeer_packet p;
	assert_int_equal(netpeer_parse(req->d, req->len, &p), XB_NETPEER_PARSE_OK);
	xb_netpeer_addr peer, dev;
	addrs(&peer, &dev);
	uint8_t data[1500], f[1600];
	memcpy(data, p.payload, p.payload_len);
	if (alter)
		data[p.payload_len - 1] ^= 1;
	size_t n = p.kind == XB_NETPEER_ICMP
			   ? netpeer_build_icmp_echo(f, sizeof f, &dev, &peer, 100, 0, p.icmp_id,
						     p.icmp_seq, data, p.payload_len)
			   : netpeer_build_udp(f, sizeof f, &dev, &peer, 100, p.udp_dport, p.udp_sport,
					       data, p.payload_len);
	netpeer_wire_input(w->np, f, n, cycle);
}

static void test_arp_answer(void **state)
{
	(void)state;
	static wire W;
	wire *w = &W;
	wire_open(w);
	run_to(w, 1000);
	netpeer_wire_link(w->np, 1);
	assert_int_equal(netpeer_link_cycle(w->np), 1000);
	/* the link came up: a broadcast request for the device at once */
	assert_int_equal(w->n, 1);
	assert_int_equal(w->f[0].cycle, 1000);
	assert_int_equal(w->f[0].len, 42);
	assert_memory_equal(w->f[0].d, BCAST, 6);
	assert_int_equal(w->f[0].d[21], 1);
	assert_null(netpeer_device_mac(w->np));
	netpeer_wire_sent(w->np, 0, 2000);
	/* the device asks for the peer: answered to its MAC, and its entry made */
	static const uint8_t zero[6];
	dev_arp(w, 1, zero, PEER_IP, BCAST, 5000);
	assert_int_equal(w->n, 2);
	static const uint8_t want[42] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x06,
		0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x02,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc0, 0x00, 0x02, 0x02,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0xc0, 0x00, 0x02, 0x01,
	};
	assert_memory_equal(w->f[1].d, want, 42);
	assert_non_null(netpeer_device_mac(w->np));
	assert_memory_equal(netpeer_device_mac(w->np), DEV_MAC, 6);
	assert_int_equal(netpeer_resolved_cycle(w->np), 5000);
	/* a request for another address is not answered */
	static const uint8_t other_ip[4] = {192, 0, 2, 9};
	dev_arp(w, 1, zero, other_ip, BCAST, 6000);
	assert_int_equal(w->n, 2);
	/* no retry comes: the entry is valid */
	run_to(w, 10 * 125000000ull);
	assert_int_equal(w->n, 2);
	xb_netpeer_stats s;
	netpeer_stats(w->np, &s);
	assert_int_equal(s.arp_requests, 1);
	assert_int_equal(s.arp_replies, 1);
	assert_int_equal(s.rx_arp, 2);
	wire_close(w);
}

static void test_arp_retries(void **state)
{
	(void)state;
	static wire W;
	wire *w = &W;
	wire_open(w);
	netpeer_wire_link(w->np, 1);
	/* a ping while unresolved waits; requests at 0, 1 s, 2 s; failure at 3 s */
	xb_netpeer_ping pg = {.start = 10, .interval = 0, .count = 1, .size = 56, .id = 1, .seq = 1};
	assert_int_equal(netpeer_ping(w->np, &pg, NULL), 0);
	run_to(w, 3 * 125000000ull - 1);
	assert_int_equal(w->n, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(w->f[i].cycle, i * 125000000ull);
		assert_int_equal(w->f[i].d[21], 1); /* all ARP requests */
		netpeer_wire_sent(w->np, 0, w->f[i].cycle + 100);
	}
	assert_int_equal(netpeer_echo(w->np, 0)->state, XB_NETPEER_WAITING);
	assert_int_equal(netpeer_outstanding(w->np), 1);
	run_to(w, 3 * 125000000ull);
	assert_int_equal(w->n, 3);
	assert_int_equal(netpeer_echo(w->np, 0)->state, XB_NETPEER_FAILED);
	assert_int_equal(netpeer_outstanding(w->np), 0);
	xb_netpeer_stats s;
	netpeer_stats(w->np, &s);
	assert_int_equal(s.arp_failures, 1);
	assert_int_equal(s.arp_dropped, 1);
	/* the next datagram starts a new resolution; a reply sends it (the frames that waited
	 * go in order with the device's MAC) */
	assert_int_equal(netpeer_send_udp(w->np, 4000, 9, (const uint8_t *)"one", 3), 0);
	assert_int_equal(netpeer_send_udp(w->np, 4000, 9, (const uint8_t *)"two", 3), 0);
	assert_int_equal(w->n, 4);
	dev_arp(w, 2, PEER_MAC, PEER_IP, PEER_MAC, board_cycles(w->b) + 50);
	assert_int_equal(w->n, 6);
	xb_netpeer_packet p;
	assert_int_equal(netpeer_parse(w->f[4].d, w->f[4].len, &p), XB_NETPEER_PARSE_OK);
	assert_memory_equal(p.eth_dst, DEV_MAC, 6);
	assert_memory_equal(p.payload, "one", 3);
	assert_int_equal(netpeer_parse(w->f[5].d, w->f[5].len, &p), XB_NETPEER_PARSE_OK);
	assert_memory_equal(p.payload, "two", 3);
	/* a gratuitous ARP with a new MAC updates the entry */
	static const uint8_t new_mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
	uint8_t f[64];
	xb_netpeer_addr d, t;
	memcpy(d.mac, new_mac, 6);
	memcpy(d.ip, DEV_IP, 4);
	memset(t.mac, 0, 6);
	memcpy(t.ip, DEV_IP, 4);
	netpeer_wire_input(w->np, f, netpeer_build_arp(f, sizeof f, 1, &d, &t, BCAST), 9999999);
	assert_memory_equal(netpeer_device_mac(w->np), new_mac, 6);
	wire_close(w);
}

static void test_arp_queue_and_link(void **state)
{
	(void)state;
	static wire W;
	wire *w = &W;
	memset(w, 0, sizeof *w);
	w->b = sim_board(NULL);
	board_halt(w->b);
	xb_netpeer_wire nw = {.send = w_send, .ctx = w}; /* no MAC from the wire */
	xb_netpeer_options o;
	netpeer_options_init(&o);
	o.arp_queue = 2;
	static const uint8_t ip[4] = {10, 1, 2, 3}, dip[4] = {10, 1, 2, 4};
	memcpy(o.ip, ip, 4);
	memcpy(o.device_ip, dip, 4);
	w->np = netpeer_new(w->b, &nw, &o);
	static const uint8_t def_mac[6] = {0x02, 0, 0, 0, 0, 0x02};
	assert_memory_equal(netpeer_mac(w->np), def_mac, 6);
	/* link down: refused */
	assert_int_equal(netpeer_send_udp(w->np, 1, 2, (const uint8_t *)"x", 1), -1);
	netpeer_wire_link(w->np, 1);
	assert_int_equal(w->n, 1);
	assert_memory_equal(w->f[0].d + 38, dip, 4); /* who has 10.1.2.4 */
	assert_memory_equal(w->f[0].d + 28, ip, 4);
	/* three frames into a queue of two: the oldest is dropped */
	netpeer_send_udp(w->np, 1, 2, (const uint8_t *)"a", 1);
	netpeer_send_udp(w->np, 1, 2, (const uint8_t *)"b", 1);
	netpeer_send_udp(w->np, 1, 2, (const uint8_t *)"c", 1);
	xb_netpeer_stats s;
	netpeer_stats(w->np, &s);
	assert_int_equal(s.arp_dropped, 1);
	/* the device's request for the peer resolves it too */
	static const uint8_t zero[6];
	xb_netpeer_addr d, t;
	memcpy(d.mac, DEV_MAC, 6);
	memcpy(d.ip, dip, 4);
	memcpy(t.mac, zero, 6);
	memcpy(t.ip, ip, 4);
	uint8_t f[64];
	netpeer_wire_input(w->np, f, netpeer_build_arp(f, sizeof f, 1, &d, &t, BCAST), 77);
	/* as Linux's arp_process: the new entry sends b and c, then the reply goes */
	assert_int_equal(w->n, 4);
	assert_int_equal(w->f[1].d[42], 'b');
	assert_int_equal(w->f[2].d[42], 'c');
	assert_int_equal(w->f[3].d[21], 2);
	/* a ping in flight when the link goes down fails; its series goes on and fails too */
	xb_netpeer_ping pg = {.start = 1000, .interval = 1000, .count = 3, .size = 0, .id = 5};
	assert_int_equal(netpeer_ping(w->np, &pg, NULL), 0);
	run_to(w, 1000);
	assert_int_equal(w->n, 5);
	assert_int_equal(netpeer_echo(w->np, 0)->state, XB_NETPEER_SENT);
	netpeer_wire_link(w->np, 0);
	assert_int_equal(netpeer_echo(w->np, 0)->state, XB_NETPEER_FAILED);
	run_to(w, 5000);
	assert_int_equal(netpeer_echo(w->np, 1)->state, XB_NETPEER_FAILED);
	assert_int_equal(netpeer_echo(w->np, 2)->state, XB_NETPEER_FAILED);
	assert_true(netpeer_traffic_done(w->np));
	assert_int_equal(netpeer_outstanding(w->np), 0);
	/* up again: the wire refuses the ARP request */
	w->refuse = 1;
	netpeer_wire_link(w->np, 1);
	netpeer_stats(w->np, &s);
	assert_int_equal(s.tx_refused, 4); /* the datagram, two pings, the request */
	wire_close(w);
}

static void test_ping_matching(void **state)
{
	(void)state;
	static wire W;
	wire *w = &W;
	wire_open(w);
	netpeer_wire_link(w->np, 1);
	static const uint8_t zero[6];
	dev_arp(w, 1, zero, PEER_IP, BCAST, 10);
	netpeer_wire_sent(w->np, 0, 20); /* the ARP request */
	netpeer_wire_sent(w->np, 0, 30); /* the ARP reply */
	unsigned base = w->n;
	/* five requests at exact cycles, 56 bytes of data with iputils' layout */
	xb_netpeer_ping pg = {.start = 1000001, .interval = 2500001, .count = 5, .size = 56,
			      .id = 0x4242, .seq = 65534};
	assert_int_equal(netpeer_ping(w->np, &pg, NULL), 0);
	assert_int_equal(netpeer_echoes(w->np), 5);
	assert_int_equal(netpeer_echo(w->np, 4)->state, XB_NETPEER_SCHEDULED);
	run_to(w, 1000001 + 4 * 2500001ull);
	assert_int_equal(w->n, base + 5);
	for (unsigned i = 0; i < 5; i++) {
		const sent *s = &w->f[base + i];
		assert_int_equal(s->cycle, 1000001 + i * 2500001ull);
		xb_netpeer_packet p;
		assert_int_equal(netpeer_parse(s->d, s->len, &p), XB_NETPEER_PARSE_OK);
		assert_int_equal(p.icmp_type, 8);
		assert_int_equal(p.icmp_id, 0x4242);
		assert_int_equal(p.icmp_seq, (uint16_t)(65534 + i)); /* wraps */
		assert_int_equal(p.payload_len, 56);
		/* struct timeval: the send time (0.008000008 s for the first), then 16, 17 ... */
		uint64_t t = s->cycle, usec = (t % 125000000u) * 1000000u / 125000000u;
		assert_int_equal(p.payload[0], (uint8_t)(t / 125000000u));
		assert_int_equal(p.payload[8], (uint8_t)usec);
		assert_int_equal(p.payload[9], (uint8_t)(usec >> 8));
		assert_int_equal(p.payload[16], 16);
		assert_int_equal(p.payload[55], 55);
		assert_int_equal(p.ip_id, i + 1);
		const xb_netpeer_echo *e = netpeer_echo(w->np, i);
		assert_int_equal(e->state, XB_NETPEER_SENT);
		assert_int_equal(e->due, s->cycle);
		assert_int_equal(e->sent, s->cycle);
		netpeer_wire_sent(w->np, 0, s->cycle + 1000);
	}
	/* replies: 0 and 2 on time, 3 twice, 4 altered, one for a seq never sent */
	dev_reply(w, &w->f[base + 0], w->f[base + 0].cycle + 5000, 0);
	dev_reply(w, &w->f[base + 2], w->f[base + 2].cycle + 9000, 0);
	dev_reply(w, &w->f[base + 3], w->f[base + 3].cycle + 7000, 0);
	dev_reply(w, &w->f[base + 3], w->f[base + 3].cycle + 8000, 0);
	dev_reply(w, &w->f[base + 4], w->f[base + 4].cycle + 6000, 1);
	xb_netpeer_packet q;
	assert_int_equal(netpeer_parse(w->f[base + 1].d, w->f[base + 1].len, &q), XB_NETPEER_PARSE_OK);
	xb_netpeer_addr peer, dev;
	addrs(&peer, &dev);
	uint8_t f[1600];
	size_t n = netpeer_build_icmp_echo(f, sizeof f, &dev, &peer, 1, 0, 0x4242, 99, q.payload,
					   q.payload_len);
	netpeer_wire_input(w->np, f, n, 1); /* seq 99 was never sent */
	assert_int_equal(w->echoes_done, 3);
	const xb_netpeer_echo *e = netpeer_echo(w->np, 3);
	assert_int_equal(e->state, XB_NETPEER_REPLIED);
	assert_int_equal(e->duplicates, 1);
	assert_int_equal(e->out_done, e->sent + 1000);
	assert_int_equal(e->reply, e->sent + 7000);
	assert_int_equal(netpeer_echo(w->np, 1)->state, XB_NETPEER_SENT);
	assert_int_equal(netpeer_echo(w->np, 4)->state, XB_NETPEER_SENT);
	assert_int_equal(netpeer_outstanding(w->np), 2);
	xb_netpeer_summary sum;
	netpeer_summarize(w->np, 0, 100, &sum);
	assert_int_equal(sum.echoes, 5);
	assert_int_equal(sum.sent, 5);
	assert_int_equal(sum.received, 3);
	assert_int_equal(sum.lost, 2);
	assert_int_equal(sum.duplicates, 1);
	assert_int_equal(sum.turnaround_min, 4000);
	assert_int_equal(sum.turnaround_max, 8000);
	assert_true(sum.turnaround_median == 6000.0);
	assert_int_equal(sum.rtt_min, 5000);
	assert_true(sum.rtt_median == 7000.0);
	netpeer_summarize(w->np, 2, 2, &sum); /* echoes 2 and 3: an even count */
	assert_true(sum.turnaround_median == (8000.0 + 6000.0) / 2);
	xb_netpeer_stats s;
	netpeer_stats(w->np, &s);
	assert_int_equal(s.matched, 3);
	assert_int_equal(s.duplicates, 1);
	assert_int_equal(s.unmatched, 2);
	/* bad parameters */
	xb_err err;
	xb_netpeer_ping bad = {.count = 2, .interval = 0};
	assert_int_equal(netpeer_ping(w->np, &bad, &err), -1);
	assert_non_null(strstr(err.msg, "interval"));
	bad.count = 1;
	bad.size = 2000;
	assert_int_equal(netpeer_ping(w->np, &bad, &err), -1);
	wire_close(w);
}

static void test_udp_stream(void **state)
{
	(void)state;
	static wire W;
	wire *w = &W;
	wire_open(w);
	netpeer_wire_link(w->np, 1);
	dev_arp(w, 2, PEER_MAC, PEER_IP, PEER_MAC, 10);
	netpeer_wire_sent(w->np, 0, 20);
	unsigned base = w->n;
	/* 3 per second: every 41,666,666.67 cycles, rounded down from the start */
	xb_netpeer_stream st = {.start = 7, .rate = 3, .count = 4, .size = 20, .sport = 40000,
				.dport = 7};
	assert_int_equal(netpeer_udp_stream(w->np, &st, NULL), 0);
	run_to(w, 200000000);
	assert_int_equal(w->n, base + 4);
	static const uint64_t at[4] = {7, 7 + 41666666, 7 + 83333333, 7 + 125000000};
	for (unsigned i = 0; i < 4; i++) {
		const sent *s = &w->f[base + i];
		assert_int_equal(s->cycle, at[i]);
		xb_netpeer_packet p;
		assert_int_equal(netpeer_parse(s->d, s->len, &p), XB_NETPEER_PARSE_OK);
		assert_int_equal(p.udp_sport, 40000);
		assert_int_equal(p.udp_dport, 7);
		assert_int_equal(p.payload_len, 20);
		static const uint8_t head[8] = {'x', 'b', 'n', 'p', 0, 0, 0, 0};
		assert_memory_equal(p.payload, head, 7);
		assert_int_equal(p.payload[7], i); /* the nonce: the echo's index */
		assert_int_equal(p.payload[8], 8);
		assert_int_equal(p.payload[19], 19);
		assert_int_equal(netpeer_echo(w->np, i)->nonce, i);
		netpeer_wire_sent(w->np, 0, s->cycle + 10);
	}
	/* replies out of order are matched by nonce */
	dev_reply(w, &w->f[base + 2], at[3] + 100, 0);
	dev_reply(w, &w->f[base + 0], at[3] + 200, 0);
	dev_reply(w, &w->f[base + 1], at[3] + 300, 1); /* altered */
	assert_int_equal(netpeer_echo(w->np, 2)->reply, at[3] + 100);
	assert_int_equal(netpeer_echo(w->np, 0)->reply, at[3] + 200);
	assert_int_equal(netpeer_echo(w->np, 1)->state, XB_NETPEER_SENT);
	/* a reply from the wrong port, and a datagram for another port (a service's) */
	xb_netpeer_packet q;
	assert_int_equal(netpeer_parse(w->f[base + 3].d, w->f[base + 3].len, &q), XB_NETPEER_PARSE_OK);
	xb_netpeer_addr peer, dev;
	addrs(&peer, &dev);
	uint8_t f[128];
	size_t n = netpeer_build_udp(f, sizeof f, &dev, &peer, 5, 9, 40000, q.payload, q.payload_len);
	netpeer_wire_input(w->np, f, n, at[3] + 400); /* from port 9, not 7 */
	n = netpeer_build_udp(f, sizeof f, &dev, &peer, 5, 7, 4321,
				     (const uint8_t *)"service", 7);
	netpeer_wire_input(w->np, f, n, at[3] + 500);
	assert_int_equal(w->udp_n, 1);
	assert_int_equal(w->udp_sport, 7);
	assert_int_equal(w->udp_dport, 4321);
	assert_string_equal(w->udp_data, "service");
	/* one not for the peer's address, one not for its MAC */
	xb_netpeer_addr elsewhere = peer;
	elsewhere.ip[3] = 77;
	n = netpeer_build_udp(f, sizeof f, &dev, &elsewhere, 5, 7, 4321, (const uint8_t *)"x", 1);
	netpeer_wire_input(w->np, f, n, at[3] + 600);
	elsewhere = peer;
	elsewhere.mac[5] = 77;
	n = netpeer_build_udp(f, sizeof f, &dev, &elsewhere, 5, 7, 4321, (const uint8_t *)"x", 1);
	netpeer_wire_input(w->np, f, n, at[3] + 700);
	assert_int_equal(w->udp_n, 1);
	xb_netpeer_stats s;
	netpeer_stats(w->np, &s);
	assert_int_equal(s.matched, 2);
	assert_int_equal(s.unmatched, 2);
	assert_int_equal(s.udp_delivered, 1);
	assert_int_equal(s.rx_ignored, 2);
	xb_netpeer_summary sum;
	netpeer_summarize(w->np, 0, 4, &sum);
	assert_int_equal(sum.received, 2);
	assert_int_equal(sum.lost, 2);
	/* bad streams */
	xb_err err;
	st.size = 7;
	assert_int_equal(netpeer_udp_stream(w->np, &st, &err), -1);
	assert_non_null(strstr(err.msg, "nonce"));
	st.size = 8;
	st.rate = 0;
	assert_int_equal(netpeer_udp_stream(w->np, &st, &err), -1);
	wire_close(w);
}

/* ---- The test device on the virtual Pico ---- */

enum { /* tests/data/netdev/netdev.c */
	MB_FRAMES = 1, MB_ARP_REQUESTS, MB_ARP_LEARNT, MB_ICMP, MB_UDP, MB_DROPPED, MB_BAD,
	MB_IGNORED, MB_HOST_MAC_LO,
	IN_NO_ARP = 0, IN_DROP_EVERY, IN_DUPLICATE, IN_WORK, IN_CORRUPT_EVERY,
};

#define MAX_RECS 4096

typedef struct rec {
	uint8_t h[64];
	uint8_t data[1600];
	uint32_t cap;
	uint64_t ns;
} rec;

typedef struct rig {
	xb_pico *pico;
	xb_usbhost *h;
	xb_netpeer *np;
	xb_usbmon *mon;
	FILE *pcap;
	char *buf;
	size_t len;
	sim_log log;
	rec *recs;
	size_t nrecs;
} rig;

static void on_record(void *ctx, const uint8_t *r, size_t len, uint64_t ns)
{
	rig *g = ctx;
	if (g->nrecs >= MAX_RECS)
		return;
	rec *x = &g->recs[g->nrecs++];
	memcpy(x->h, r, 64);
	x->cap = (uint32_t)(len - 64 < sizeof x->data ? len - 64 : sizeof x->data);
	memcpy(x->data, r + 64, x->cap);
	x->ns = ns;
}

/* inputs: MAILBOX_IN words 0..4 (NULL: all zero) */
static void rig_open(rig *g, const uint32_t *inputs)
{
	memset(g, 0, sizeof *g);
	g->recs = xcalloc(MAX_RECS, sizeof *g->recs);
	g->pico = usb_rig_pico(&g->log);
	g->pcap = open_memstream(&g->buf, &g->len);
	g->mon = usbmon_new(g->pcap, NULL);
	usbmon_set_record_fn(g->mon, on_record, g);
	g->h = usb_rig_host(g->pico, NULL, g->mon);
	g->np = netpeer_new_ecm(pico_board(g->pico), g->h, NULL, NULL);
	uint32_t in[5] = {0};
	if (inputs)
		memcpy(in, inputs, sizeof in);
	usb_rig_load(g->pico, tp_netdev_elf(), in, sizeof in);
}

static void rig_close(rig *g)
{
	netpeer_free(g->np);
	usbhost_free(g->h);
	pico_free(g->pico);
	usbmon_free(g->mon);
	fclose(g->pcap);
	free(g->buf);
	free(g->recs);
}

static uint32_t mb(rig *g, unsigned i)
{
	return sim_mailbox(pico_board(g->pico), i);
}

static void rig_run(rig *g, uint64_t cycles)
{
	usb_rig_run(g->pico, cycles, &g->log);
}

/* Runs until the link is up and the device's MAC is known; returns the cycle. */
static uint64_t rig_ready(rig *g)
{
	for (unsigned ms = 0; ms < 2000; ms++) {
		if (netpeer_link(g->np) && netpeer_device_mac(g->np))
			return board_cycles(pico_board(g->pico));
		rig_run(g, MS);
	}
	fail_msg("the link did not come up");
	return 0;
}

/* The usbmon record of the bulk transfer that carried ICMP seq or UDP nonce: the 'C'
 * record's time (for OUT, the 'S' holds the frame; for IN, the 'C'). */
static uint64_t record_time(rig *g, int in, int icmp, uint32_t key)
{
	for (size_t i = 0; i < g->nrecs; i++) {
		const rec *r = &g->recs[i];
		if (r->h[9] != 3 || !!(r->h[10] & 0x80) != in || r->h[8] != (in ? 'C' : 'S'))
			continue;
		xb_netpeer_packet p;
		if (netpeer_parse(r->data, r->cap, &p) != XB_NETPEER_PARSE_OK)
			continue;
		int hit = icmp ? p.kind == XB_NETPEER_ICMP && p.icmp_seq == key
			       : p.kind == XB_NETPEER_UDP && p.payload_len >= 8 &&
					 p.payload[7] == (uint8_t)key && p.payload[6] == (uint8_t)(key >> 8);
		if (!hit)
			continue;
		if (in)
			return r->ns;
		for (size_t j = i + 1; j < g->nrecs; j++)
			if (memcmp(g->recs[j].h, r->h, 8) == 0 && g->recs[j].h[8] == 'C')
				return g->recs[j].ns;
	}
	fail_msg("no usbmon record for %s %u", icmp ? "seq" : "nonce", key);
	return 0;
}

static void test_device_ping(void **state)
{
	(void)state;
	static rig G;
	rig *g = &G;
	rig_open(g, NULL);
	uint64_t ready = rig_ready(g);
	/* enumeration, bring-up, link: about 311 ms (docs/sim.md) */
	assert_true(netpeer_link_cycle(g->np) > 300 * (uint64_t)MS);
	assert_true(ready < 400 * (uint64_t)MS);
	assert_memory_equal(netpeer_device_mac(g->np), DEV_MAC, 6);
	assert_memory_equal(netpeer_mac(g->np), PEER_MAC, 6); /* from iMACAddress */
	rig_run(g, 5 * MS);
	/* the device asked for the peer's MAC and got it */
	assert_int_equal(mb(g, MB_ARP_LEARNT), 1);
	assert_int_equal(mb(g, MB_HOST_MAC_LO), 0x00000002);
	assert_int_equal(mb(g, MB_ARP_REQUESTS), 1); /* the peer's request answered */
	uint64_t start = board_cycles(pico_board(g->pico)) + 10 * MS;
	xb_netpeer_ping pg = {.start = start, .interval = 20 * MS, .count = 5, .size = 56, .id = 7};
	assert_int_equal(netpeer_ping(g->np, &pg, NULL), 0);
	rig_run(g, 120 * MS);
	assert_int_equal(mb(g, MB_ICMP), 5);
	assert_int_equal(mb(g, MB_BAD), 0);
	xb_netpeer_summary s;
	netpeer_summarize(g->np, 0, 5, &s);
	assert_int_equal(s.received, 5);
	assert_int_equal(s.lost, 0);
	for (unsigned i = 0; i < 5; i++) {
		const xb_netpeer_echo *e = netpeer_echo(g->np, i);
		assert_int_equal(e->state, XB_NETPEER_REPLIED);
		/* sent exactly on time (an event runs at the next instruction boundary: a few
		 * cycles late at most) */
		assert_true(e->sent >= start + i * 20 * MS && e->sent < start + i * 20 * MS + 8);
		/* the times are those of the usbmon 'C' records (1 cycle = 8 ns) */
		assert_int_equal(e->out_done * 8, record_time(g, 0, 1, i));
		assert_int_equal(e->reply * 8, record_time(g, 1, 1, i));
		assert_true(e->out_done > e->sent && e->reply > e->out_done);
		/* the device's code runs from flash: the cache saw it */
		assert_true(e->xip_reply.accesses > e->xip_out.accesses);
		assert_true(e->xip_reply.hits >= e->xip_out.hits);
	}
	assert_true(s.turnaround_min > 0 && s.turnaround_max < 5 * MS);
	rig_close(g);
}

static void test_device_udp_faults(void **state)
{
	(void)state;
	static rig G;
	rig *g = &G;
	/* every 4th echo dropped, every 3rd reply altered, every reply sent twice */
	uint32_t in[5] = {0, 4, 1, 0, 3};
	rig_open(g, in);
	rig_ready(g);
	uint64_t start = board_cycles(pico_board(g->pico)) + 10 * MS;
	xb_netpeer_stream st = {.start = start, .rate = 200, .count = 12, .size = 64,
				.sport = 50000, .dport = 7};
	assert_int_equal(netpeer_udp_stream(g->np, &st, NULL), 0);
	rig_run(g, 100 * MS);
	assert_int_equal(mb(g, MB_UDP), 9);
	assert_int_equal(mb(g, MB_DROPPED), 3);
	xb_netpeer_summary s;
	netpeer_summarize(g->np, 0, 12, &s);
	assert_int_equal(s.echoes, 12);
	assert_int_equal(s.received, 6); /* 9 replies, 3 of them altered */
	assert_int_equal(s.lost, 6);
	assert_int_equal(s.duplicates, 6);
	xb_netpeer_stats k;
	netpeer_stats(g->np, &k);
	assert_int_equal(k.unmatched, 6); /* each altered reply twice */
	for (unsigned i = 0; i < 12; i++) {
		const xb_netpeer_echo *e = netpeer_echo(g->np, i);
		if (e->state == XB_NETPEER_REPLIED) {
			assert_int_equal(e->out_done * 8, record_time(g, 0, 0, i));
			assert_int_equal(e->reply * 8, record_time(g, 1, 0, i));
		}
	}
	rig_close(g);
}

/* Per-echo cache accesses grow with the device's work per echo. */
static uint64_t accesses_per_echo(uint32_t work)
{
	static rig G;
	rig *g = &G;
	uint32_t in[5] = {0, 0, 0, work, 0};
	rig_open(g, in);
	rig_ready(g);
	xb_netpeer_ping pg = {.start = board_cycles(pico_board(g->pico)), .interval = 10 * MS,
			      .count = 3, .size = 56, .id = 1};
	netpeer_ping(g->np, &pg, NULL);
	rig_run(g, 40 * MS);
	xb_netpeer_summary s;
	netpeer_summarize(g->np, 0, 3, &s);
	assert_int_equal(s.received, 3);
	rig_close(g);
	return s.xip_accesses / 3;
}

static void test_device_xip(void **state)
{
	(void)state;
	uint64_t idle = accesses_per_echo(0), busy = accesses_per_echo(2);
	/* two passes read 2 x 1024 words of the table from flash */
	assert_true(busy >= idle + 2048);
	assert_true(busy < idle + 2048 * 8);
}

static void test_device_no_arp(void **state)
{
	(void)state;
	static rig G;
	rig *g = &G;
	uint32_t in[5] = {1, 0, 0, 0, 0};
	rig_open(g, in);
	for (unsigned ms = 0; ms < 1000 && !netpeer_link(g->np); ms++)
		rig_run(g, MS);
	assert_true(netpeer_link(g->np));
	uint64_t up = netpeer_link_cycle(g->np);
	xb_netpeer_ping pg = {.start = up + MS, .interval = 10 * MS, .count = 2, .size = 8, .id = 1};
	netpeer_ping(g->np, &pg, NULL);
	while (board_cycles(pico_board(g->pico)) < up + 3100 * (uint64_t)MS)
		rig_run(g, 100 * MS);
	xb_netpeer_stats k;
	netpeer_stats(g->np, &k);
	assert_int_equal(k.arp_requests, 3);
	assert_int_equal(k.arp_failures, 1);
	assert_int_equal(netpeer_echo(g->np, 0)->state, XB_NETPEER_FAILED);
	assert_int_equal(netpeer_echo(g->np, 1)->state, XB_NETPEER_FAILED);
	assert_int_equal(mb(g, MB_ICMP), 0);
	rig_close(g);
}

static void test_device_deterministic(void **state)
{
	(void)state;
	static rig A, B;
	rig *g[2] = {&A, &B};
	for (int k = 0; k < 2; k++) {
		rig_open(g[k], NULL);
		rig_ready(g[k]);
		xb_netpeer_ping pg = {.start = 400 * MS, .interval = 7 * MS, .count = 4, .size = 100};
		netpeer_ping(g[k]->np, &pg, NULL);
		xb_netpeer_stream st = {.start = 401 * MS, .rate = 300, .count = 6, .size = 32,
					.sport = 50001, .dport = 7};
		netpeer_udp_stream(g[k]->np, &st, NULL);
		rig_run(g[k], 450 * MS - board_cycles(pico_board(g[k]->pico)));
		fflush(g[k]->pcap);
	}
	assert_int_equal(netpeer_echoes(A.np), 10);
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(netpeer_echo(A.np, i)->state, XB_NETPEER_REPLIED);
		assert_memory_equal(netpeer_echo(A.np, i), netpeer_echo(B.np, i),
				    sizeof(xb_netpeer_echo));
	}
	assert_int_equal(A.len, B.len);
	assert_memory_equal(A.buf, B.buf, A.len);
	rig_close(&A);
	rig_close(&B);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checksum),
		cmocka_unit_test(test_build_arp),
		cmocka_unit_test(test_build_icmp),
		cmocka_unit_test(test_build_udp),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_arp_answer),
		cmocka_unit_test(test_arp_retries),
		cmocka_unit_test(test_arp_queue_and_link),
		cmocka_unit_test(test_ping_matching),
		cmocka_unit_test(test_udp_stream),
		cmocka_unit_test(test_device_ping),
		cmocka_unit_test(test_device_udp_faults),
		cmocka_unit_test(test_device_xip),
		cmocka_unit_test(test_device_no_arp),
		cmocka_unit_test(test_device_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
