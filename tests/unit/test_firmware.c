/* test_firmware: the demo echo firmware (firmware/) on the virtual Pico with the virtual USB
 * host and its CDC-ECM driver: boot banner, enumeration under every addressing scheme, ARP,
 * pings and UDP echoes of several sizes (replies and checksums checked byte by byte), what
 * must not be answered (bad checksums, fragments, broadcasts, other MACs, a closed port),
 * and the property the firmware exists for: one echo touches more code than the XIP cache
 * holds. The image is $XB_FIRMWARE_ELF, or the default variant built into $XB_BUILD. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../sim/ecmhost.h"
#include "../../sim/pico.h"
#include "../../sim/usbhost.h"
#include "test_pico_common.h"
#include "test_sim_common.h"
#include "test_usb_common.h"

#define MS 125000u /* cycles per millisecond at 125 MHz */
#define MAX_FRAMES 64
#define XIP_FLUSH 0x14000004u

static const uint8_t dev_mac[6] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t host_mac[6] = {0x02, 0, 0, 0, 0, 0x02};
static const uint8_t dev_ip[4] = {192, 0, 2, 1};
static const uint8_t host_ip[4] = {192, 0, 2, 2};

typedef struct rx_frame {
	uint8_t data[1600];
	size_t len;
} rx_frame;

typedef struct rig {
	xb_pico *pico;
	xb_usbhost *h;
	xb_ecmhost *e;
	sim_log log;
	rx_frame frames[MAX_FRAMES];
	unsigned n_frames;
	unsigned arp_requests; /* the device's requests the host answered */
} rig;

/* ---- The image ---- */

static const char *firmware_elf(void)
{
	return tp_firmware_elf();
}

/* ---- The rig ---- */

/* The host answers the device's ARP requests for its address, as Linux does. */
static int answer_arp(rig *r, const uint8_t *frame, size_t len)
{
	if (len < 42 || frame[12] != 0x08 || frame[13] != 0x06 || frame[20] != 0 ||
	    frame[21] != 1 || memcmp(frame + 38, host_ip, 4) != 0)
		return 0;
	uint8_t reply[42];
	memcpy(reply, frame + 6, 6);
	memcpy(reply + 6, host_mac, 6);
	memcpy(reply + 12, frame + 12, 8); /* type, hardware and protocol fields */
	reply[20] = 0;
	reply[21] = 2;
	memcpy(reply + 22, host_mac, 6);
	memcpy(reply + 28, host_ip, 4);
	memcpy(reply + 32, frame + 22, 10); /* the asker's MAC and IP */
	r->arp_requests++;
	assert_int_equal(ecmhost_send(r->e, reply, sizeof reply), 0);
	return 1;
}

static void on_rx(void *ctx, const uint8_t *frame, size_t len, uint64_t cycle)
{
	(void)cycle;
	rig *r = ctx;
	if (answer_arp(r, frame, len) || r->n_frames >= MAX_FRAMES)
		return;
	assert_true(len <= sizeof r->frames[0].data);
	memcpy(r->frames[r->n_frames].data, frame, len);
	r->frames[r->n_frames].len = len;
	r->n_frames++;
}

static void run_ms(rig *r, unsigned ms)
{
	for (unsigned i = 0; i < ms; i++) {
		enum xb_pico_stop s = pico_run(r->pico, MS);
		if (s != XB_PICO_BUDGET) {
			xb_pico_summary sum;
			pico_summary(r->pico, &sum);
			fail_msg("the firmware stopped (%s) at pc 0x%08x; UART:\n%s", pico_stop_name(s),
				 sum.pc, pico_uart_output(r->pico, NULL));
		}
	}
}

static int link_up(rig *r)
{
	return ecmhost_up(r->e) && ecmhost_link(r->e);
}

static void rig_open_scheme(rig *r, enum xb_usbhost_scheme scheme)
{
	const char *elf = firmware_elf();
	if (!elf)
		skip();
	memset(r, 0, sizeof *r);
	r->pico = usb_rig_pico(&r->log);
	xb_usbhost_options ho = {.scheme = scheme};
	r->h = usb_rig_host(r->pico, &ho, NULL);
	xb_ecmhost_options eo = {.rx = on_rx, .rx_ctx = r};
	r->e = ecmhost_new(r->h, &eo);
	xb_err err;
	if (pico_load_file(r->pico, elf, XB_IMAGE_AUTO, 0, NULL, &err))
		fail_msg("%s: %s", elf, err.msg);
	for (unsigned ms = 0; ms < 2000 && !link_up(r); ms++)
		run_ms(r, 1);
	if (!link_up(r))
		fail_msg("no link after 2 s (host %s); UART:\n%s",
			 usbhost_state_name(usbhost_state(r->h)), pico_uart_output(r->pico, NULL));
	run_ms(r, 5);
	r->n_frames = 0; /* announcements at link-up are not what the tests look at */
}

static void rig_open(rig *r)
{
	rig_open_scheme(r, XB_USBHOST_NEW_SCHEME);
}

static void rig_close(rig *r)
{
	ecmhost_free(r->e);
	usbhost_free(r->h);
	pico_free(r->pico);
}

/* Sends a frame, then runs until a new frame comes back (NULL after ms). */
static const rx_frame *exchange(rig *r, const uint8_t *f, size_t len, unsigned ms)
{
	unsigned before = r->n_frames;
	assert_int_equal(ecmhost_send(r->e, f, len), 0);
	for (unsigned i = 0; i < ms * 10 && r->n_frames == before; i++)
		pico_run(r->pico, MS / 10);
	return r->n_frames > before ? &r->frames[before] : NULL;
}

/* ---- Frames ---- */

static uint16_t csum(const uint8_t *p, size_t n, uint32_t s)
{
	for (; n > 1; p += 2, n -= 2)
		s += (uint32_t)(p[0] << 8 | p[1]);
	if (n)
		s += (uint32_t)(p[0] << 8);
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)~s;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static unsigned get16(const uint8_t *p)
{
	return (unsigned)(p[0] << 8 | p[1]);
}

static size_t eth_hdr(uint8_t *f, const uint8_t *dst, unsigned type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, host_mac, 6);
	put16(f + 12, type);
	return 14;
}

/* An IPv4 header for payload bytes of proto to dst (checksum filled in). */
static size_t ip_hdr(uint8_t *p, unsigned proto, size_t payload, const uint8_t *dst,
		     unsigned frag)
{
	static unsigned id = 1000;
	p[0] = 0x45;
	p[1] = 0;
	put16(p + 2, (unsigned)(20 + payload));
	put16(p + 4, id++);
	put16(p + 6, frag);
	p[8] = 64;
	p[9] = (uint8_t)proto;
	put16(p + 10, 0);
	memcpy(p + 12, host_ip, 4);
	memcpy(p + 16, dst, 4);
	put16(p + 10, csum(p, 20, 0));
	return 20;
}

static size_t make_ping(uint8_t *f, const uint8_t *dst_ip, unsigned seq, size_t data)
{
	size_t o = eth_hdr(f, dev_mac, 0x0800);
	o += ip_hdr(f + o, 1, 8 + data, dst_ip, 0x4000);
	uint8_t *ic = f + o;
	ic[0] = 8;
	ic[1] = 0;
	put16(ic + 2, 0);
	put16(ic + 4, 0x1234);
	put16(ic + 6, seq);
	for (size_t i = 0; i < data; i++)
		ic[8 + i] = (uint8_t)(i * 7 + seq);
	put16(ic + 2, csum(ic, 8 + data, 0));
	return o + 8 + data;
}

static uint32_t udp_pseudo(const uint8_t *src, const uint8_t *dst, size_t len)
{
	uint8_t ph[12];
	memcpy(ph, src, 4);
	memcpy(ph + 4, dst, 4);
	ph[8] = 0;
	ph[9] = 17;
	put16(ph + 10, (unsigned)len);
	uint32_t s = 0;
	for (int i = 0; i < 12; i += 2)
		s += (uint32_t)(ph[i] << 8 | ph[i + 1]);
	return s;
}

static size_t make_udp(uint8_t *f, unsigned sport, unsigned dport, size_t data)
{
	size_t o = eth_hdr(f, dev_mac, 0x0800);
	o += ip_hdr(f + o, 17, 8 + data, dev_ip, 0x4000);
	uint8_t *u = f + o;
	size_t ul = 8 + data;
	put16(u, sport);
	put16(u + 2, dport);
	put16(u + 4, (unsigned)ul);
	put16(u + 6, 0);
	for (size_t i = 0; i < data; i++)
		u[8 + i] = (uint8_t)(i * 3 + sport);
	unsigned c = csum(u, ul, udp_pseudo(host_ip, dev_ip, ul));
	put16(u + 6, c ? c : 0xFFFF);
	return o + ul;
}

/* The IPv4 reply's header and payload checksums hold. */
static void assert_ip_checksums(const rx_frame *fr)
{
	const uint8_t *ip = fr->data + 14;
	size_t ihl = (size_t)(ip[0] & 15) * 4, tl = get16(ip + 2);
	assert_int_equal(get16(fr->data + 12), 0x0800);
	assert_true(14 + tl <= fr->len);
	assert_int_equal(csum(ip, ihl, 0), 0);
	if (ip[9] == 1)
		assert_int_equal(csum(ip + ihl, tl - ihl, 0), 0);
	if (ip[9] == 17)
		assert_int_equal(csum(ip + ihl, tl - ihl, udp_pseudo(ip + 12, ip + 16, tl - ihl)), 0);
}

/* ---- Tests ---- */

static void test_boot_and_enumeration(void **state)
{
	(void)state;
	static const enum xb_usbhost_scheme schemes[] = {
		XB_USBHOST_NEW_SCHEME, XB_USBHOST_OLD_SCHEME, XB_USBHOST_XHCI};
	for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
		rig r;
		rig_open_scheme(&r, schemes[i]);
		/* The console drains at 115200 baud: wait (a bounded 0.2 s of virtual time) for the
		 * last line of the start-up to leave the UART. */
		if (!strstr(pico_uart_output(r.pico, NULL), "data interface up"))
			pico_run_until_uart(r.pico, "data interface up", 25000000);
		const char *uart = pico_uart_output(r.pico, NULL);
		assert_non_null(strstr(uart, "*** xipbench echo firmware"));
		assert_non_null(strstr(uart, "clk_sys 125000000 Hz, clk_usb 48000000 Hz"));
		assert_non_null(strstr(uart, "<inf> main: ready"));
		assert_non_null(strstr(uart, "data interface up"));
		assert_int_equal(usbhost_state(r.h), XB_USBHOST_CONFIGURED);
		size_t len;
		assert_non_null(usbhost_config(r.h, &len));
		assert_int_equal(len, 88); /* 9 + the 79-byte ECM set */
		const uint8_t *dd = usbhost_device_descriptor(r.h);
		assert_non_null(dd);
		assert_string_equal(usbhost_string(r.h, dd[15]), "xipbench echo (CDC-ECM)");
		assert_non_null(ecmhost_mac(r.e));
		assert_memory_equal(ecmhost_mac(r.e), host_mac, 6);
		xb_pico_summary sum;
		pico_summary(r.pico, &sum);
		assert_int_equal(sum.faults, 0);
		rig_close(&r);
	}
}

static void test_arp(void **state)
{
	(void)state;
	rig r;
	rig_open(&r);
	uint8_t f[64];
	static const uint8_t bcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
	size_t o = eth_hdr(f, bcast, 0x0806);
	uint8_t *a = f + o;
	put16(a, 1);
	put16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, 1);
	memcpy(a + 8, host_mac, 6);
	memcpy(a + 14, host_ip, 4);
	memset(a + 18, 0, 6);
	memcpy(a + 24, dev_ip, 4);
	const rx_frame *fr = exchange(&r, f, o + 28, 20);
	assert_non_null(fr);
	assert_int_equal(fr->len, 42);
	assert_memory_equal(fr->data, host_mac, 6);
	assert_memory_equal(fr->data + 6, dev_mac, 6);
	assert_int_equal(get16(fr->data + 12), 0x0806);
	assert_int_equal(get16(fr->data + 14 + 6), 2); /* reply */
	assert_memory_equal(fr->data + 14 + 8, dev_mac, 6);
	assert_memory_equal(fr->data + 14 + 14, dev_ip, 4);
	assert_memory_equal(fr->data + 14 + 18, host_mac, 6);
	assert_memory_equal(fr->data + 14 + 24, host_ip, 4);
	rig_close(&r);
}

static void test_ping(void **state)
{
	(void)state;
	rig r;
	rig_open(&r);
	/* 1000 and 1472 bytes span several 128-byte buffers on both sides */
	static const size_t sizes[] = {56, 0, 1, 63, 1000, 1472};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		uint8_t f[1600];
		size_t n = make_ping(f, dev_ip, (unsigned)i, sizes[i]);
		const rx_frame *fr = exchange(&r, f, n, 50);
		if (!fr)
			fail_msg("no reply to a ping of %zu bytes", sizes[i]);
		assert_int_equal(fr->len, n);
		assert_memory_equal(fr->data, host_mac, 6);
		assert_memory_equal(fr->data + 6, dev_mac, 6);
		assert_ip_checksums(fr);
		const uint8_t *ip = fr->data + 14;
		assert_memory_equal(ip + 12, dev_ip, 4);
		assert_memory_equal(ip + 16, host_ip, 4);
		assert_int_equal(ip[9], 1);
		assert_int_equal(ip[20], 0); /* echo reply */
		assert_int_equal(ip[21], 0);
		/* identifier, sequence number and data come back unchanged */
		assert_memory_equal(ip + 24, f + 14 + 24, 4 + sizes[i]);
		run_ms(&r, 2);
	}
	rig_close(&r);
}

static void test_udp_echo(void **state)
{
	(void)state;
	rig r;
	rig_open(&r);
	static const size_t sizes[] = {64, 1, 0, 200, 1000, 1472};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		uint8_t f[1600];
		unsigned sport = 40000 + (unsigned)i;
		size_t n = make_udp(f, sport, 7, sizes[i]);
		const rx_frame *fr = exchange(&r, f, n, 50);
		if (!fr)
			fail_msg("no echo of a %zu-byte datagram", sizes[i]);
		assert_ip_checksums(fr);
		const uint8_t *ip = fr->data + 14, *u = ip + 20;
		assert_int_equal(ip[9], 17);
		assert_memory_equal(ip + 12, dev_ip, 4);
		assert_memory_equal(ip + 16, host_ip, 4);
		assert_int_equal(get16(u), 7);
		assert_int_equal(get16(u + 2), sport);
		assert_int_equal(get16(u + 4), 8 + sizes[i]);
		assert_memory_equal(u + 8, f + 14 + 20 + 8, sizes[i]);
		run_ms(&r, 2);
	}
	rig_close(&r);
}

static void test_closed_port(void **state)
{
	(void)state;
	rig r;
	rig_open(&r);
	uint8_t f[128];
	size_t n = make_udp(f, 40100, 9999, 16);
	const rx_frame *fr = exchange(&r, f, n, 50);
	assert_non_null(fr);
	assert_ip_checksums(fr);
	const uint8_t *ip = fr->data + 14;
	assert_int_equal(ip[9], 1);
	assert_int_equal(ip[20], 3); /* destination unreachable */
	assert_int_equal(ip[21], 3); /* port unreachable */
	/* it quotes the offending IP header and the UDP header */
	assert_memory_equal(ip + 28, f + 14, 28);
	rig_close(&r);
}

/* What a host must not answer; a good ping afterwards still works. */
static void test_not_answered(void **state)
{
	(void)state;
	rig r;
	rig_open(&r);
	uint8_t f[256];
	size_t n;
	static const uint8_t bcast_ip[4] = {192, 0, 2, 255};
	static const uint8_t other_mac[6] = {0x02, 0, 0, 0, 0, 0x77};

	n = make_ping(f, dev_ip, 1, 56);
	f[14 + 10] ^= 0x55; /* IP header checksum */
	assert_null(exchange(&r, f, n, 10));

	n = make_ping(f, dev_ip, 2, 56);
	f[14 + 20 + 2] ^= 0x55; /* ICMP checksum */
	assert_null(exchange(&r, f, n, 10));

	n = make_udp(f, 40200, 7, 32);
	f[14 + 20 + 6] ^= 0x55; /* UDP checksum */
	assert_null(exchange(&r, f, n, 10));

	n = make_ping(f, dev_ip, 3, 56);
	put16(f + 14 + 6, 0x2000); /* more fragments */
	put16(f + 14 + 10, 0);
	put16(f + 14 + 10, csum(f + 14, 20, 0));
	assert_null(exchange(&r, f, n, 10));

	n = make_ping(f, bcast_ip, 4, 56); /* to the subnet broadcast */
	assert_null(exchange(&r, f, n, 10));

	n = make_ping(f, dev_ip, 5, 56);
	memcpy(f, other_mac, 6); /* for another station */
	assert_null(exchange(&r, f, n, 10));

	n = make_ping(f, dev_ip, 6, 56);
	const rx_frame *fr = exchange(&r, f, n, 50);
	assert_non_null(fr);
	assert_int_equal(fr->data[14 + 20], 0);
	rig_close(&r);
}

/* Unplugged and plugged in again: a new enumeration, the link back up, echoes as before,
 * and no buffer lost on the way (a second cycle would fail otherwise). */
static void test_replug(void **state)
{
	(void)state;
	rig r;
	rig_open(&r);
	uint8_t f[256];
	for (int cycle = 0; cycle < 2; cycle++) {
		size_t n = make_udp(f, 40500, 7, 100);
		assert_non_null(exchange(&r, f, n, 50));
		usbhost_set_vbus(r.h, 0);
		run_ms(&r, 50);
		assert_false(ecmhost_up(r.e));
		usbhost_set_vbus(r.h, 1);
		unsigned ms;
		for (ms = 0; ms < 2000 && !link_up(&r); ms++)
			run_ms(&r, 1);
		assert_true(link_up(&r));
		run_ms(&r, 5);
		n = make_ping(f, dev_ip, 30 + (unsigned)cycle, 56);
		const rx_frame *fr = exchange(&r, f, n, 50);
		assert_non_null(fr);
		assert_int_equal(fr->data[14 + 20], 0);
	}
	xb_pico_summary sum;
	pico_summary(r.pico, &sum);
	assert_int_equal(sum.faults, 0);
	rig_close(&r);
}

/* Cold-cache misses of one echo minus those of an idle window as long: the distinct 8-byte
 * lines it touches (the study's footprint). */
static long footprint(rig *r, const uint8_t *f, size_t n)
{
	xb_board *b = pico_board(r->pico);
	xb_board_counters c0, c1, c2, c3;
	run_ms(r, 10);
	board_debug_write(b, XIP_FLUSH, 4, 1);
	run_ms(r, 1);
	board_counters(b, &c0);
	assert_non_null(exchange(r, f, n, 50));
	run_ms(r, 1);
	board_counters(b, &c1);
	run_ms(r, 10);
	board_debug_write(b, XIP_FLUSH, 4, 1);
	run_ms(r, 1);
	board_counters(b, &c2);
	pico_run(r->pico, c1.cycles - c0.cycles);
	board_counters(b, &c3);
	return (long)(c1.xip_misses - c0.xip_misses) - (long)(c3.xip_misses - c2.xip_misses);
}

static void test_footprint_exceeds_cache(void **state)
{
	(void)state;
	rig r;
	rig_open(&r);
	uint8_t f[256];
	size_t n = make_ping(f, dev_ip, 9, 56);
	assert_non_null(exchange(&r, f, n, 50)); /* ARP entry and first-use paths warm */
	n = make_udp(f, 40300, 7, 64);
	assert_non_null(exchange(&r, f, n, 50));

	n = make_ping(f, dev_ip, 10, 56);
	long ping = footprint(&r, f, n);
	n = make_udp(f, 40301, 7, 64);
	long udp = footprint(&r, f, n);
	print_message("footprint: ping %ld lines (%ld bytes), UDP echo %ld lines (%ld bytes); "
		      "the cache holds 2048\n",
		      ping, ping * 8, udp, udp * 8);
	assert_true(udp > ping);

	/* Misses of an echo with the cache warm (the third of three in a row): what a layout
	 * changes. Reported, not checked. */
	xb_board *b = pico_board(r.pico);
	long warm[2] = {0, 0};
	for (int kind = 0; kind < 2; kind++) {
		for (int i = 0; i < 3; i++) {
			n = kind ? make_udp(f, 40400, 7, 64) : make_ping(f, dev_ip, 20 + (unsigned)i, 56);
			xb_board_counters c0, c1;
			run_ms(&r, 5);
			board_counters(b, &c0);
			assert_non_null(exchange(&r, f, n, 50));
			board_counters(b, &c1);
			warm[kind] = (long)(c1.xip_misses - c0.xip_misses);
		}
	}
	print_message("misses per echo, cache warm: ping %ld, UDP echo %ld\n", warm[0], warm[1]);
	/* The study's premise, for the default build (other variants differ in size): an echo
	 * through the socket does not fit in the 16 KB cache, a ping nearly does not. */
	if (strstr(pico_uart_output(r.pico, NULL), "firmware (default)")) {
		assert_true(udp > 2048);
		assert_true(ping > 1400);
	}
	rig_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boot_and_enumeration),
		cmocka_unit_test(test_arp),
		cmocka_unit_test(test_ping),
		cmocka_unit_test(test_udp_echo),
		cmocka_unit_test(test_closed_port),
		cmocka_unit_test(test_not_answered),
		cmocka_unit_test(test_replug),
		cmocka_unit_test(test_footprint_exceeds_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
