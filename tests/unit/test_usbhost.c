/* test_usbhost: the virtual USB host. With the CDC-ECM loopback program (tests/data/usb) on
 * the virtual Pico: Linux-style enumeration, the cdc_ether bring-up, frames both ways with
 * their padding, usbmon records of all of it (written to $XB_PCAP_OUT when set, for
 * tests/integration/test_usb_pcap.sh), detach and a second enumeration, determinism. With a
 * scripted device (no program, the test writes the registers): bit-time scheduling, 19
 * bulk packets per frame, NAK retries without polling storms, interrupt intervals, STALL,
 * timeouts, babble, unlink. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../sim/ecmhost.h"
#include "../../sim/pico.h"
#include "../../sim/usbhost.h"
#include "../../sim/usbmon.h"
#include "test_sim_common.h"
#include "test_usb_common.h"

#define MS 125000u /* cycles per millisecond at 125 MHz */

/* ---- The virtual Pico with the loopback program and the host ---- */

#define MAX_FRAMES 32

typedef struct rx_frame {
	uint8_t data[1600];
	size_t len;
	uint64_t cycle;
} rx_frame;

typedef struct rig {
	xb_pico *pico;
	xb_usbctrl *u;
	xb_usbhost *h;
	xb_ecmhost *e;
	xb_usbmon *mon;
	FILE *pcap;
	char *buf;
	size_t len;
	sim_log log;
	rx_frame frames[MAX_FRAMES];
	unsigned n_frames, links_up, links_down, tx_done;
} rig;

static void on_rx(void *ctx, const uint8_t *frame, size_t len, uint64_t cycle)
{
	rig *r = ctx;
	if (r->n_frames >= MAX_FRAMES)
		return;
	rx_frame *f = &r->frames[r->n_frames++];
	assert_true(len <= sizeof f->data);
	memcpy(f->data, frame, len);
	f->len = len;
	f->cycle = cycle;
}

static void on_link(void *ctx, int up)
{
	rig *r = ctx;
	if (up)
		r->links_up++;
	else
		r->links_down++;
}

static void on_tx(void *ctx, size_t len, int status, uint64_t cycle)
{
	(void)len;
	(void)cycle;
	rig *r = ctx;
	assert_int_equal(status, 0);
	r->tx_done++;
}

/* pcap_path NULL: the capture goes to memory (r->buf after rig_close). */
static void rig_open_scheme(rig *r, const char *pcap_path, enum xb_usbhost_scheme scheme)
{
	memset(r, 0, sizeof *r);
	r->pico = usb_rig_pico(&r->log);
	r->u = pico_usb(r->pico);
	assert_non_null(r->u);
	r->pcap = pcap_path ? fopen(pcap_path, "wb") : open_memstream(&r->buf, &r->len);
	assert_non_null(r->pcap);
	r->mon = usbmon_new(r->pcap, NULL);
	xb_usbhost_options ho = {.scheme = scheme};
	r->h = usb_rig_host(r->pico, &ho, r->mon);
	xb_ecmhost_options eo = {
		.rx = on_rx, .rx_ctx = r, .link = on_link, .link_ctx = r,
		.tx_done = on_tx, .tx_ctx = r,
	};
	r->e = ecmhost_new(r->h, &eo);
	usb_rig_load_program(r->pico, "ecm_loop", NULL, 0);
}

static void rig_open(rig *r, const char *pcap_path)
{
	rig_open_scheme(r, pcap_path, XB_USBHOST_NEW_SCHEME);
}

static void rig_close(rig *r)
{
	ecmhost_free(r->e);
	usbhost_free(r->h);
	pico_free(r->pico);
	assert_false(usbmon_write_failed(r->mon));
	usbmon_free(r->mon);
	fclose(r->pcap);
}

/* Runs in 1 ms steps until cond(r) or max_ms; the program must keep running. */
static int run_until(rig *r, int (*cond)(rig *), unsigned max_ms)
{
	for (unsigned ms = 0; ms < max_ms; ms++) {
		if (cond && cond(r))
			return 1;
		enum xb_pico_stop s = pico_run(r->pico, MS);
		if (s != XB_PICO_BUDGET) {
			xb_pico_summary sum;
			pico_summary(r->pico, &sum);
			xb_strbuf sb = {0};
			board_format_fault(&sum.last_fault, &sb);
			fail_msg("the program stopped (%s) at pc 0x%08x: %s", pico_stop_name(s), sum.pc,
				 sb.len ? sb.buf : "no fault");
		}
	}
	return cond ? cond(r) : 1;
}

static int link_is_up(rig *r)
{
	return ecmhost_up(r->e) && ecmhost_link(r->e);
}

static unsigned want_frames;
static int frames_back(rig *r)
{
	return r->n_frames >= want_frames;
}

static uint32_t mailbox(rig *r, unsigned i)
{
	return sim_mailbox(pico_board(r->pico), i);
}

static size_t make_frame(uint8_t *f, size_t len, unsigned seed)
{
	static const uint8_t dst[6] = {0x02, 0xA0, 0xB0, 0xC0, 0xD0, 0xE1};
	static const uint8_t src[6] = {0x02, 0xA0, 0xB0, 0xC0, 0xD0, 0xE0};
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;
	f[13] = 0xB5; /* local experimental EtherType */
	for (size_t i = 14; i < len; i++)
		f[i] = (uint8_t)(i * 7 + seed);
	return len;
}

/* ---- usbmon records read back from the capture ---- */

typedef struct rec {
	const uint8_t *h; /* 64-byte header */
	const uint8_t *data;
	uint32_t cap;
	uint64_t t_us;
} rec;

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Splits a pcap buffer into records (at most max). */
static size_t parse_pcap(const uint8_t *p, size_t n, rec *out, size_t max)
{
	assert_true(n >= 24);
	assert_int_equal(rd32(p), 0xA1B2C3D4u);
	assert_int_equal(rd32(p + 20), 220);
	size_t k = 0;
	for (size_t off = 24; off + 16 <= n && k < max;) {
		uint32_t incl = rd32(p + off + 8);
		assert_true(off + 16 + incl <= n);
		rec *r = &out[k++];
		r->h = p + off + 16;
		r->cap = incl - 64;
		r->data = r->h + 64;
		r->t_us = (uint64_t)rd32(p + off) * 1000000u + rd32(p + off + 4);
		off += 16 + incl;
	}
	return k;
}

/* ---- Tests with the loopback program ---- */

static void check_enumeration_records(const uint8_t *buf, size_t len)
{
	static rec recs[4096];
	size_t n = parse_pcap(buf, len, recs, 4096);
	assert_true(n > 30);
	/* The control requests in order, with the address they went to. */
	static const struct {
		uint8_t dev, setup[8];
	} want[] = {
		{0, {0x80, 0x06, 0x00, 0x01, 0x00, 0x00, 0x40, 0x00}}, /* device, 64 */
		{0, {0x00, 0x05, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00}}, /* SET_ADDRESS 2 */
		{2, {0x80, 0x06, 0x00, 0x01, 0x00, 0x00, 0x12, 0x00}}, /* device, 18 */
		{2, {0x80, 0x06, 0x00, 0x02, 0x00, 0x00, 0x09, 0x00}}, /* configuration, 9 */
		{2, {0x80, 0x06, 0x00, 0x02, 0x00, 0x00, 0x58, 0x00}}, /* configuration, 88 */
		{2, {0x80, 0x06, 0x00, 0x03, 0x00, 0x00, 0xFF, 0x00}}, /* LANGID */
		{2, {0x80, 0x06, 0x02, 0x03, 0x09, 0x04, 0xFF, 0x00}}, /* iProduct */
		{2, {0x80, 0x06, 0x01, 0x03, 0x09, 0x04, 0xFF, 0x00}}, /* iManufacturer */
		{2, {0x80, 0x06, 0x03, 0x03, 0x09, 0x04, 0xFF, 0x00}}, /* iSerialNumber */
		{2, {0x00, 0x09, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00}}, /* SET_CONFIGURATION 1 */
		{2, {0x80, 0x06, 0x04, 0x03, 0x09, 0x04, 0xFF, 0x00}}, /* iInterface */
		{2, {0x01, 0x0B, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00}}, /* SET_INTERFACE(1, 1) */
		{2, {0x21, 0x43, 0x0C, 0x00, 0x00, 0x00, 0x00, 0x00}}, /* packet filter */
		{2, {0x80, 0x06, 0x05, 0x03, 0x09, 0x04, 0xFF, 0x00}}, /* iMACAddress */
	};
	size_t w = 0;
	uint64_t last_s = 0;
	for (size_t i = 0; i < n && w < sizeof want / sizeof *want; i++) {
		const uint8_t *h = recs[i].h;
		if (h[8] != 'S' || h[9] != 2)
			continue;
		assert_int_equal(h[14], 0);             /* setup present */
		assert_int_equal(h[11], want[w].dev);
		assert_memory_equal(h + 40, want[w].setup, 8);
		assert_int_equal(rd32(h + 28), (uint32_t)-115);
		/* its completion comes later with the same id, status 0 */
		size_t j = i + 1;
		while (j < n && !(memcmp(recs[j].h, h, 8) == 0 && recs[j].h[8] == 'C'))
			j++;
		assert_true(j < n);
		assert_int_equal(rd32(recs[j].h + 28), 0);
		assert_int_equal(recs[j].h[14], '-');
		assert_true(recs[i].t_us >= last_s);
		last_s = recs[i].t_us;
		if (w == 0) { /* the device answered 18 bytes to the 64 asked for */
			assert_int_equal(rd32(recs[j].h + 32), 18);
			assert_int_equal(recs[j].cap, 18);
			assert_int_equal(recs[j].h[10], 0x80);
			assert_int_equal(rd32(recs[j].h + 56), 0x200); /* URB_DIR_IN */
		}
		w++;
	}
	assert_int_equal(w, sizeof want / sizeof *want);
	/* The status URB: interrupt IN on 0x81 every 2 frames (usbnet's max(1, 3) -> 2),
	 * URB_FREE_BUFFER | URB_DIR_IN; the notifications in C records. */
	int status_s = 0, link_c = 0, bulk_in_s = 0;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *h = recs[i].h;
		if (h[9] == 1 && h[8] == 'S') {
			status_s++;
			assert_int_equal(h[10], 0x81);
			assert_int_equal(rd32(h + 48), 2);
			assert_int_equal(rd32(h + 56), 0x300);
			assert_int_equal(h[15], '<');
			assert_int_equal(rd32(h + 32), 64);
		}
		if (h[9] == 1 && h[8] == 'C' && recs[i].cap == 8 && recs[i].data[1] == 0x00)
			link_c++;
		if (h[9] == 3 && h[8] == 'S' && h[10] == 0x82) {
			bulk_in_s++;
			assert_int_equal(rd32(h + 32), 1514);
		}
	}
	assert_true(status_s >= 2);
	assert_int_equal(link_c, 2); /* one per enumeration */
	assert_true(bulk_in_s >= 4);
}

static void test_ecm_loopback(void **state)
{
	(void)state;
	static rig R;
	rig *r = &R;
	const char *out = getenv("XB_PCAP_OUT");
	rig_open(r, out && *out ? out : NULL);
	assert_int_equal(usbhost_state(r->h), XB_USBHOST_DETACHED);
	assert_true(run_until(r, link_is_up, 1000));
	/* Linux's timing: 100 ms debounce, two resets of 50 + 50 ms, 10 ms after SET_ADDRESS. */
	uint64_t up = board_cycles(pico_board(r->pico));
	assert_true(up > 310 * (uint64_t)MS && up < 330 * (uint64_t)MS);
	assert_int_equal(usbhost_state(r->h), XB_USBHOST_CONFIGURED);
	assert_int_equal(usbhost_address(r->h), 2);
	assert_int_equal(mailbox(r, 5), 2);            /* the program's ADDR_ENDP */
	assert_int_equal(mailbox(r, 1), 2);            /* two bus resets */
	assert_int_equal(mailbox(r, 4), 1);            /* configuration 1 */
	assert_int_equal(mailbox(r, 8), 1);            /* data interface alt 1 */
	assert_int_equal(mailbox(r, 9), 0x000C);       /* directed | broadcast */
	assert_int_equal(mailbox(r, 6), 0);            /* nothing stalled */
	const uint8_t *dd = usbhost_device_descriptor(r->h);
	assert_non_null(dd);
	assert_int_equal(dd[8] | dd[9] << 8, 0xCAFE);
	assert_string_equal(usbhost_string(r->h, 1), "xipbench");
	assert_string_equal(usbhost_string(r->h, 2), "ECM loopback");
	assert_string_equal(usbhost_string(r->h, 3), "0001");
	assert_string_equal(usbhost_string(r->h, 4), "CDC-ECM");
	size_t clen;
	assert_non_null(usbhost_config(r->h, &clen));
	assert_int_equal(clen, 88);
	static const uint8_t mac[6] = {0x02, 0xA0, 0xB0, 0xC0, 0xD0, 0xE0};
	assert_non_null(ecmhost_mac(r->e));
	assert_memory_equal(ecmhost_mac(r->e), mac, 6);
	assert_int_equal(r->links_up, 1);
	run_until(r, NULL, 5); /* the speed notification follows the link */
	xb_ecmhost_stats es;
	ecmhost_stats(r->e, &es);
	assert_int_equal(es.downlink_bps, 12000000u);
	assert_int_equal(es.uplink_bps, 12000000u);

	/* Frames of several sizes come back with the MACs swapped; a multiple of 64 carries
	 * usbnet's padding byte both ways. */
	static const size_t sizes[] = {60, 64, 100, 1514, 128, 14};
	uint8_t f[1600];
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		size_t len = make_frame(f, sizes[i], (unsigned)i);
		uint64_t sent = board_cycles(pico_board(r->pico));
		assert_int_equal(ecmhost_send(r->e, f, len), 0);
		want_frames = (unsigned)i + 1;
		assert_true(run_until(r, frames_back, 50));
		rx_frame *got = &r->frames[i];
		size_t expect = len % 64 == 0 ? len + 1 : len;
		assert_int_equal(got->len, expect);
		assert_memory_equal(got->data, f + 6, 6);
		assert_memory_equal(got->data + 6, f, 6);
		assert_memory_equal(got->data + 12, f + 12, len - 12);
		if (expect > len)
			assert_int_equal(got->data[len], 0);
		assert_true(got->cycle > sent);
	}
	/* Several frames queued at once all come back, in order. */
	size_t base = r->n_frames;
	for (unsigned i = 0; i < 6; i++) {
		make_frame(f, 200 + i, 100 + i);
		assert_int_equal(ecmhost_send(r->e, f, 200 + i), 0);
	}
	want_frames = (unsigned)base + 6;
	assert_true(run_until(r, frames_back, 100));
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(r->frames[base + i].len, 200 + i);
	assert_int_equal(r->tx_done, sizeof sizes / sizeof *sizes + 6);
	assert_int_equal(mailbox(r, 3), sizeof sizes / sizeof *sizes + 6);
	/* Bad frames are refused. */
	assert_int_equal(ecmhost_send(r->e, f, 13), -1);
	assert_int_equal(ecmhost_send(r->e, f, 1515), -1);

	xb_usbhost_stats hs;
	usbhost_stats(r->h, &hs);
	assert_int_equal(hs.enumerations, 1);
	assert_true(hs.sofs > 100);
	assert_int_equal(hs.timeouts, 0);
	assert_true(hs.max_bulk_per_frame <= 19);
	/* No NAK storm although four bulk IN URBs wait all the time. */
	assert_true(hs.naks < 4 * hs.frames);
	assert_int_equal(r->log.lines, 0);

	/* Unplug: everything completes with -ESHUTDOWN, the link goes down; plug in again: a
	 * new enumeration at the next address. */
	usbhost_set_vbus(r->h, 0);
	assert_int_equal(usbhost_state(r->h), XB_USBHOST_DETACHED);
	assert_false(ecmhost_up(r->e));
	assert_int_equal(r->links_down, 1);
	assert_int_equal(ecmhost_send(r->e, f, 100), -1);
	run_until(r, NULL, 10);
	usbhost_set_vbus(r->h, 1);
	assert_true(run_until(r, link_is_up, 1000));
	assert_int_equal(usbhost_address(r->h), 3);
	assert_int_equal(r->links_up, 2);
	make_frame(f, 90, 7);
	assert_int_equal(ecmhost_send(r->e, f, 90), 0);
	want_frames = r->n_frames + 1;
	assert_true(run_until(r, frames_back, 50));
	rig_close(r);
	if (!(out && *out)) {
		check_enumeration_records((const uint8_t *)r->buf, r->len);
		free(r->buf);
	}
}

/* The same inputs give the same capture, byte for byte. */
static void run_script(char **buf, size_t *len)
{
	static rig R;
	rig *r = &R;
	rig_open(r, NULL);
	assert_true(run_until(r, link_is_up, 1000));
	uint8_t f[300];
	for (unsigned i = 0; i < 3; i++) {
		make_frame(f, 100 + 64 * i, i);
		assert_int_equal(ecmhost_send(r->e, f, 100 + 64 * i), 0);
		run_until(r, NULL, 3);
	}
	run_until(r, NULL, 10);
	rig_close(r);
	*buf = r->buf;
	*len = r->len;
}

static void test_ecm_deterministic(void **state)
{
	(void)state;
	char *a, *b;
	size_t na, nb;
	run_script(&a, &na);
	run_script(&b, &nb);
	assert_true(na > 1000);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
}

/* The other Linux flows: the old scheme (SET_ADDRESS first, then 8 and 18 bytes) and xHCI
 * (the same on the bus, but SET_ADDRESS is the controller's command, not an URB). */
static void check_scheme(enum xb_usbhost_scheme scheme)
{
	static rig R;
	rig *r = &R;
	rig_open_scheme(r, NULL, scheme);
	assert_true(run_until(r, link_is_up, 1000));
	assert_int_equal(mailbox(r, 1), 1); /* one bus reset */
	assert_int_equal(mailbox(r, 5), 2); /* the address arrived on the bus either way */
	rig_close(r);
	static rec recs[512];
	size_t n = parse_pcap((const uint8_t *)r->buf, r->len, recs, 512);
	static const uint8_t set_address[8] = {0x00, 0x05, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00};
	static const uint8_t get8[8] = {0x80, 0x06, 0x00, 0x01, 0x00, 0x00, 0x08, 0x00};
	static const uint8_t get18[8] = {0x80, 0x06, 0x00, 0x01, 0x00, 0x00, 0x12, 0x00};
	const uint8_t *want[3] = {set_address, get8, get18};
	const uint8_t dev[3] = {0, 2, 2};
	size_t w = scheme == XB_USBHOST_XHCI ? 1 : 0;
	for (size_t i = 0; i < n && w < 3; i++) {
		if (recs[i].h[8] != 'S' || recs[i].h[9] != 2)
			continue;
		assert_memory_equal(recs[i].h + 40, want[w], 8);
		assert_int_equal(recs[i].h[11], dev[w]);
		w++;
	}
	assert_int_equal(w, 3);
	for (size_t i = 0; i < n; i++)
		assert_false(recs[i].h[9] == 2 && recs[i].h[41] == 0x05 && scheme == XB_USBHOST_XHCI);
	free(r->buf);
}

static void test_other_schemes(void **state)
{
	(void)state;
	check_scheme(XB_USBHOST_OLD_SCHEME);
	check_scheme(XB_USBHOST_XHCI);
}

/* ---- A scripted device: no program; the test plays the driver between transactions ---- */

#define DP XB_USBCTRL_DPRAM_BASE
#define REGS XB_USBCTRL_REGS_BASE
#define BC(n, in) (DP + 0x80u + 8u * (n) + ((in) ? 0u : 4u))
#define EPC(n, in) (DP + 8u * (n) + ((in) ? 0u : 4u))
#define FULL 0x8000u
#define DATA1 0x2000u
#define STALL 0x0800u
#define AVAIL 0x0400u

typedef struct fake {
	xb_board *b;
	xb_usbctrl *u;
	xb_usbhost *h;
	sim_log log;
	int out_pid, auto_out, clear_stall_on_setup;
	uint8_t out_data[8192];
	size_t out_len;
	unsigned setups;
	/* completions */
	unsigned done;
	int last_status;
	uint64_t last_cycle;
} fake;

static void w32(fake *f, uint32_t addr, uint32_t v)
{
	assert_int_equal(bus_write(board_bus(f->b), addr, 4, v), 0);
}

static uint32_t r32(fake *f, uint32_t addr)
{
	uint32_t v;
	assert_int_equal(bus_read(board_bus(f->b), addr, 4, &v), 0);
	return v;
}

/* Every 2 us: take what arrived on EP2 OUT and hand the buffer back; answer SETUPs with
 * a zero-length status (and clear EP2 IN's stall when asked to). */
static void fake_tick(xb_board *b, void *ctx)
{
	fake *f = ctx;
	if (f->auto_out && (r32(f, BC(2, 0)) & FULL)) {
		uint32_t n = r32(f, BC(2, 0)) & 0x3FF;
		memcpy(f->out_data + f->out_len, usbctrl_dpram(f->u) + 0x180, n);
		f->out_len += n;
		f->out_pid ^= 1;
		w32(f, REGS + 0x3058, 1u << 5);
		w32(f, BC(2, 0), 64 | (f->out_pid ? DATA1 : 0));
		w32(f, BC(2, 0), 64 | (f->out_pid ? DATA1 : 0) | AVAIL);
	}
	if (r32(f, REGS + 0x50) & (1u << 17)) {
		w32(f, REGS + 0x3050, 1u << 17);
		f->setups++;
		if (f->clear_stall_on_setup)
			w32(f, BC(2, 1), 0);
		w32(f, BC(0, 1), FULL | DATA1 | AVAIL);
	}
	board_schedule(b, board_cycles(b) + 250, fake_tick, f);
}

static void fake_done(xb_urb *u)
{
	fake *f = u->context;
	f->done++;
	f->last_status = u->status;
	f->last_cycle = u->done_cycle;
}

static int fake_ready(fake *f)
{
	return usbhost_state(f->h) == XB_USBHOST_READY;
}

static void fake_run(fake *f, uint64_t cycles)
{
	board_run(f->b, cycles);
}

static void fake_open(fake *f)
{
	memset(f, 0, sizeof *f);
	f->b = sim_board(&f->log);
	board_halt(f->b); /* no program: events only */
	f->u = usbctrl_new(f->b);
	xb_usbhost_options o = {.manual = 1};
	f->h = usbhost_new(f->b, f->u, &o);
	w32(f, REGS + 0x40, 1);                 /* MAIN_CTRL */
	w32(f, REGS + 0x4C, (1u << 29) | (1u << 16)); /* EP0_INT_1BUF, PULLUP_EN */
	/* EP1 IN interrupt, EP2 OUT/IN bulk, EP4 IN bulk */
	w32(f, EPC(1, 1), 0xA0000000u | 3u << 26 | 0x240);
	w32(f, EPC(2, 0), 0xA0000000u | 2u << 26 | 0x180);
	w32(f, EPC(2, 1), 0xA0000000u | 2u << 26 | 0x1C0);
	w32(f, EPC(4, 1), 0xA0000000u | 2u << 26 | 0x200);
	board_schedule(f->b, 250, fake_tick, f);
	for (int i = 0; i < 400 && !fake_ready(f); i++)
		fake_run(f, MS);
	assert_true(fake_ready(f));
	assert_int_equal(f->log.lines, 0);
}

static void fake_close(fake *f)
{
	usbhost_free(f->h);
	board_free(f->b);
	usbctrl_free(f->u);
}

static void urb_init(xb_urb *u, fake *f, uint8_t type, uint8_t ep, uint8_t *buf, uint32_t len)
{
	memset(u, 0, sizeof *u);
	u->type = type;
	u->endpoint = ep;
	u->buffer = buf;
	u->length = len;
	u->complete = fake_done;
	u->context = f;
}

/* The first cycle of the next frame (the host's frames start at cycle 0 here). */
static uint64_t next_frame(fake *f)
{
	return (board_cycles(f->b) / MS + 1) * MS;
}

static void test_bulk_out_19_per_frame(void **state)
{
	(void)state;
	static fake F;
	fake *f = &F;
	fake_open(f);
	assert_int_equal(usbhost_add_endpoint(f->h, 0x02, XB_USBMON_BULK, 64, 0), 0);
	f->auto_out = 1;
	w32(f, BC(2, 0), 64 | AVAIL);
	static uint8_t data[40 * 64];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 13);
	xb_urb u;
	urb_init(&u, f, XB_USBMON_BULK, 0x02, data, sizeof data);
	fake_run(f, next_frame(f) - board_cycles(f->b));
	uint64_t start = board_cycles(f->b);
	assert_int_equal(start % MS, 0);
	assert_int_equal(usbhost_submit(f->h, &u), 0);
	assert_int_equal(u.status, XB_URB_EINPROGRESS);
	fake_run(f, 5 * MS);
	assert_int_equal(f->done, 1);
	assert_int_equal(u.status, 0);
	assert_int_equal(u.actual, sizeof data);
	assert_int_equal(f->out_len, sizeof data);
	assert_memory_equal(f->out_data, data, sizeof data);
	xb_usbhost_stats s;
	usbhost_stats(f->h, &s);
	assert_int_equal(s.max_bulk_per_frame, 19);
	/* 19 + 19 + 2 packets: done in the third frame, 2 x 616 bit times after its SOF. */
	assert_int_equal((u.done_cycle - start) / MS, 2);
	uint64_t in_frame = u.done_cycle - start - 2 * MS;
	assert_true(in_frame >= (35 + 2 * 616) * 125 / 12 && in_frame <= (35 + 2 * 616) * 125 / 12 + 11);
	fake_close(f);
}

static void test_nak_retry_and_wake(void **state)
{
	(void)state;
	static fake F;
	fake *f = &F;
	fake_open(f);
	assert_int_equal(usbhost_add_endpoint(f->h, 0x82, XB_USBMON_BULK, 64, 0), 0);
	uint8_t buf[64];
	xb_urb u;
	urb_init(&u, f, XB_USBMON_BULK, 0x82, buf, sizeof buf);
	xb_usbhost_stats s0, s1;
	usbhost_stats(f->h, &s0);
	assert_int_equal(usbhost_submit(f->h, &u), 0);
	fake_run(f, 10 * MS);
	usbhost_stats(f->h, &s1);
	/* Nothing armed: one NAK per frame, not a storm. */
	assert_true(s1.naks - s0.naks >= 10 && s1.naks - s0.naks <= 11);
	assert_int_equal(f->done, 0);
	/* The driver arms a packet: the host picks it up on its retry grid. */
	for (unsigned i = 0; i < 64; i++)
		usbctrl_dpram(f->u)[0x1C0 + i] = (uint8_t)(0x40 + i);
	fake_run(f, MS / 2);
	uint64_t t = board_cycles(f->b);
	w32(f, BC(2, 1), FULL | 64 | AVAIL);
	fake_run(f, MS);
	assert_int_equal(f->done, 1);
	assert_int_equal(u.status, 0);
	assert_int_equal(u.actual, 64);
	assert_int_equal(buf[63], 0x40 + 63);
	/* within one NAK round (61 bit times) plus the transaction (104 + 512) */
	assert_true(u.done_cycle > t);
	assert_true(u.done_cycle - t <= (61 + 616) * 125 / 12 + 12);
	/* Asking for NAK reports keeps the host polling. */
	w32(f, EPC(2, 1), 0xA0000000u | 2u << 26 | 0x1C0 | 1u << 16);
	urb_init(&u, f, XB_USBMON_BULK, 0x82, buf, sizeof buf);
	usbhost_stats(f->h, &s0);
	assert_int_equal(usbhost_submit(f->h, &u), 0);
	fake_run(f, MS);
	usbhost_stats(f->h, &s1);
	assert_true(s1.naks - s0.naks > 150);
	assert_int_equal(usbhost_unlink(f->h, &u), 0);
	assert_int_equal(u.status, XB_URB_ENOENT);
	assert_int_equal(f->done, 2);
	assert_int_equal(usbhost_unlink(f->h, &u), -1);
	fake_close(f);
}

static void test_interrupt_interval(void **state)
{
	(void)state;
	static fake F;
	fake *f = &F;
	fake_open(f);
	assert_int_equal(usbhost_add_endpoint(f->h, 0x81, XB_USBMON_INTERRUPT, 8, 6), 0);
	uint8_t buf[8];
	xb_urb u;
	urb_init(&u, f, XB_USBMON_INTERRUPT, 0x81, buf, sizeof buf);
	fake_run(f, next_frame(f) - board_cycles(f->b));
	xb_usbhost_stats s0, s1;
	usbhost_stats(f->h, &s0);
	assert_int_equal(usbhost_submit(f->h, &u), 0);
	assert_int_equal(u.interval, 4); /* 6 rounded down to a power of 2 */
	fake_run(f, 40 * MS);
	usbhost_stats(f->h, &s1);
	assert_int_equal(s1.naks - s0.naks, 10);
	static const uint8_t note[8] = {0xA1, 0x00, 1, 0, 0, 0, 0, 0};
	memcpy(usbctrl_dpram(f->u) + 0x240, note, 8);
	w32(f, BC(1, 1), FULL | 8 | AVAIL);
	fake_run(f, 5 * MS);
	assert_int_equal(f->done, 1);
	assert_int_equal(u.actual, 8);
	assert_memory_equal(buf, note, 8);
	assert_int_equal((u.done_cycle / MS) % 4, 0); /* polled in frames 0, 4, 8 ... */
	fake_close(f);
}

static void test_stall_timeout_babble(void **state)
{
	(void)state;
	static fake F;
	fake *f = &F;
	fake_open(f);
	assert_int_equal(usbhost_add_endpoint(f->h, 0x82, XB_USBMON_BULK, 64, 0), 0);
	assert_int_equal(usbhost_add_endpoint(f->h, 0x83, XB_USBMON_BULK, 64, 0), 0);
	assert_int_equal(usbhost_add_endpoint(f->h, 0x84, XB_USBMON_BULK, 32, 0), 0);
	uint8_t buf[256];
	xb_urb a, b;
	/* STALL: -EPIPE; the endpoint is halted until CLEAR_FEATURE(ENDPOINT_HALT). */
	w32(f, BC(2, 1), STALL);
	urb_init(&a, f, XB_USBMON_BULK, 0x82, buf, 64);
	urb_init(&b, f, XB_USBMON_BULK, 0x82, buf + 64, 64);
	assert_int_equal(usbhost_submit(f->h, &a), 0);
	assert_int_equal(usbhost_submit(f->h, &b), 0);
	assert_int_equal(usbhost_submit(f->h, &b), XB_URB_EBUSY);
	fake_run(f, 2 * MS);
	assert_int_equal(a.status, XB_URB_EPIPE);
	assert_int_equal(b.status, XB_URB_EINPROGRESS);
	f->clear_stall_on_setup = 1;
	assert_int_equal(usbhost_clear_halt(f->h, 0x82, NULL, NULL), 0);
	fake_run(f, 2 * MS);
	assert_int_equal(f->setups, 1);
	assert_memory_equal(usbctrl_dpram(f->u), "\x02\x01\x00\x00\x82\x00\x00\x00", 8);
	usbctrl_dpram(f->u)[0x1C0] = 0x77;
	w32(f, BC(2, 1), FULL | 1 | AVAIL); /* DATA0 after the halt was cleared */
	fake_run(f, 2 * MS);
	assert_int_equal(b.status, 0);
	assert_int_equal(b.actual, 1);
	assert_int_equal(buf[64], 0x77);
	/* A device that does not answer: three tries, then -EPROTO. */
	xb_usbhost_stats s0, s1;
	usbhost_stats(f->h, &s0);
	urb_init(&a, f, XB_USBMON_BULK, 0x83, buf, 64);
	assert_int_equal(usbhost_submit(f->h, &a), 0);
	fake_run(f, 2 * MS);
	usbhost_stats(f->h, &s1);
	assert_int_equal(a.status, XB_URB_EPROTO);
	assert_int_equal(s1.timeouts - s0.timeouts, 3);
	/* Babble: 64 bytes from an endpoint of 32. */
	w32(f, BC(4, 1), FULL | 64 | AVAIL);
	urb_init(&a, f, XB_USBMON_BULK, 0x84, buf, 128);
	assert_int_equal(usbhost_submit(f->h, &a), 0);
	fake_run(f, 2 * MS);
	assert_int_equal(a.status, XB_URB_EOVERFLOW);
	/* A repeated packet (DATA0 where DATA1 is due) is dropped; the next one is taken. */
	w32(f, BC(2, 1), FULL | 2 | AVAIL);
	urb_init(&a, f, XB_USBMON_BULK, 0x82, buf, 64);
	assert_int_equal(usbhost_submit(f->h, &a), 0);
	fake_run(f, MS);
	assert_int_equal(a.status, XB_URB_EINPROGRESS);
	usbctrl_dpram(f->u)[0x1C0] = 0x55;
	w32(f, BC(2, 1), FULL | DATA1 | 1 | AVAIL);
	fake_run(f, MS);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.actual, 1);
	assert_int_equal(buf[0], 0x55);
	/* Refused submissions. */
	urb_init(&a, f, XB_USBMON_BULK, 0x85, buf, 64);
	assert_int_equal(usbhost_submit(f->h, &a), XB_URB_EINVAL);
	urb_init(&a, f, XB_USBMON_INTERRUPT, 0x82, buf, 64);
	assert_int_equal(usbhost_submit(f->h, &a), XB_URB_EINVAL);
	urb_init(&a, f, XB_USBMON_CONTROL, 0, buf, 4);
	a.setup[0] = 0x80;
	a.setup[6] = 8;
	assert_int_equal(usbhost_submit(f->h, &a), XB_URB_EINVAL);
	usbhost_set_vbus(f->h, 0);
	urb_init(&a, f, XB_USBMON_BULK, 0x82, buf, 64);
	assert_int_equal(usbhost_submit(f->h, &a), XB_URB_ENODEV);
	fake_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ecm_loopback),
		cmocka_unit_test(test_ecm_deterministic),
		cmocka_unit_test(test_other_schemes),
		cmocka_unit_test(test_bulk_out_19_per_frame),
		cmocka_unit_test(test_nak_retry_and_wake),
		cmocka_unit_test(test_interrupt_interval),
		cmocka_unit_test(test_stall_timeout_babble),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
