/* test_capture_common.h: helpers shared by the capture tests (tests/unit/test_capture*.c):
 * captures written with the virtual host's usbmon writer (sim/usbmon.h) at chosen times,
 * Ethernet frames (ARP, ICMP echo, UDP) with their checksums, a CDC-ECM configuration
 * descriptor. Header-only (static functions): each test is one program. */
#ifndef XB_TEST_CAPTURE_COMMON_H
#define XB_TEST_CAPTURE_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../capture/frames.h"
#include "../../sim/usbmon.h"
#include "../common/testdir.h"

#define CAP_EPOCH 1700000000
#define CAP_US 1000ull /* nanoseconds */
#define CAP_BULK_OUT 0x02
#define CAP_BULK_IN 0x82

static const uint8_t cap_host_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
static const uint8_t cap_dev_mac[6] = {0x02, 0xA0, 0xB0, 0xC0, 0xD0, 0xE0};
static const uint8_t cap_host_ip[4] = {192, 0, 2, 2};
static const uint8_t cap_dev_ip[4] = {192, 0, 2, 1};

/* ---- A capture in memory ---- */

typedef struct cap_writer {
	char *buf;
	size_t len;
	FILE *f;
	xb_usbmon *mon;
	uint64_t next_id;
} cap_writer;

static inline void cap_open(cap_writer *w)
{
	memset(w, 0, sizeof *w);
	w->f = open_memstream(&w->buf, &w->len);
	xb_usbmon_options o = {.epoch_sec = CAP_EPOCH};
	w->mon = usbmon_new(w->f, &o);
	w->next_id = 0xFFFF888000001000ull;
}

/* A capture that only goes to fn (e.g. capture_feed_record with a feed): nothing is kept
 * in memory, for streams of any length. */
static inline void cap_open_fn(cap_writer *w, xb_usbmon_record_fn fn, void *ctx)
{
	memset(w, 0, sizeof *w);
	xb_usbmon_options o = {.epoch_sec = CAP_EPOCH};
	w->mon = usbmon_new(NULL, &o);
	usbmon_set_record_fn(w->mon, fn, ctx);
	w->next_id = 0xFFFF888000001000ull;
}

/* Ends the capture: w->buf holds the pcap (the caller frees it). */
static inline void cap_close(cap_writer *w)
{
	usbmon_free(w->mon);
	if (w->f)
		fclose(w->f);
}

/* A bulk URB on device dev (bus 1) of len bytes (OUT: data; IN: the buffer). */
static inline xb_usbmon_urb cap_urb(cap_writer *w, uint8_t dev, uint8_t ep, uint8_t *data,
				    uint32_t len)
{
	xb_usbmon_urb u = {
		.id = w->next_id, .xfer_type = XB_USBMON_BULK, .endpoint = ep & 0x0F,
		.dir_in = (ep & 0x80) != 0, .devnum = dev, .busnum = 1, .buffer = data,
		.length = len, .actual = len, .flags = (ep & 0x80) ? 0x200u : 0,
	};
	w->next_id += 0x100;
	return u;
}

/* One OUT transfer: 'S' at t_s, 'C' at t_c with status (no 'C' when t_c is 0). */
static inline void cap_out(cap_writer *w, uint8_t dev, const uint8_t *data, uint32_t len,
			   uint32_t flags, uint64_t t_s, uint64_t t_c, int32_t status)
{
	xb_usbmon_urb u = cap_urb(w, dev, CAP_BULK_OUT, (uint8_t *)data, len);
	u.flags = flags;
	usbmon_submit(w->mon, &u, t_s);
	if (t_c)
		usbmon_complete(w->mon, &u, status, t_c);
}

/* One IN transfer of a requested-byte buffer that received actual bytes of data. */
static inline void cap_in(cap_writer *w, uint8_t dev, const uint8_t *data, uint32_t actual,
			  uint32_t requested, uint64_t t_s, uint64_t t_c, int32_t status)
{
	static uint8_t buf[65536];
	memcpy(buf, data, actual);
	xb_usbmon_urb u = cap_urb(w, dev, CAP_BULK_IN, buf, requested);
	u.actual = actual;
	if (t_s)
		usbmon_submit(w->mon, &u, t_s);
	usbmon_complete(w->mon, &u, status, t_c);
}

/* GET_DESCRIPTOR(CONFIGURATION) answered with cfg, at t. */
static inline void cap_config(cap_writer *w, uint8_t dev, const uint8_t *cfg, uint16_t len,
			      uint64_t t)
{
	static const uint8_t setup_tmpl[8] = {0x80, 0x06, 0x00, 0x02, 0x00, 0x00, 0, 0};
	uint8_t setup[8];
	memcpy(setup, setup_tmpl, 8);
	setup[6] = (uint8_t)len;
	setup[7] = (uint8_t)(len >> 8);
	static uint8_t buf[1024];
	memcpy(buf, cfg, len);
	xb_usbmon_urb u = {
		.id = w->next_id, .xfer_type = XB_USBMON_CONTROL, .dir_in = 1, .devnum = dev,
		.busnum = 1, .setup = setup, .buffer = buf, .length = len, .actual = len,
		.flags = 0x200,
	};
	w->next_id += 0x100;
	usbmon_submit(w->mon, &u, t);
	usbmon_complete(w->mon, &u, 0, t + 100 * CAP_US);
}

/* A CDC-ECM device's configuration: communications interface 02/06/00 with its
 * functional descriptors and an interrupt endpoint, data interface (alt 0 empty, alt 1
 * with bulk IN 0x82 and OUT 0x02 of mps bytes) and, when extra, a vendor interface with
 * two more bulk endpoints (0x83, 0x03). Returns the length. */
static inline uint16_t cap_ecm_config(uint8_t *d, uint16_t mps, int extra)
{
	static const uint8_t head[] = {
		9, 2, 0, 0, 0, 1, 0, 0x80, 50,           /* configuration (lengths below) */
		9, 4, 0, 0, 1, 2, 6, 0, 0,               /* interface 0: CDC ECM */
		5, 0x24, 0x00, 0x10, 0x01,               /* header */
		5, 0x24, 0x06, 0, 1,                     /* union */
		13, 0x24, 0x0F, 4, 0, 0, 0, 0, 0xEA, 5, 0, 0, 0, /* Ethernet networking */
		7, 5, 0x81, 3, 16, 0, 32,                /* notification endpoint */
		9, 4, 1, 0, 0, 10, 0, 0, 0,              /* interface 1 alt 0: no endpoints */
		9, 4, 1, 1, 2, 10, 0, 0, 0,              /* interface 1 alt 1 */
		7, 5, 0x82, 2, 0, 0, 0,                  /* bulk IN */
		7, 5, 0x02, 2, 0, 0, 0,                  /* bulk OUT */
	};
	static const uint8_t vendor[] = {
		9, 4, 2, 0, 2, 0xFF, 0, 0, 0,
		7, 5, 0x83, 2, 64, 0, 0,
		7, 5, 0x03, 2, 64, 0, 0,
	};
	uint16_t n = sizeof head;
	memcpy(d, head, sizeof head);
	d[n - 10] = (uint8_t)mps;
	d[n - 9] = (uint8_t)(mps >> 8);
	d[n - 3] = (uint8_t)mps;
	d[n - 2] = (uint8_t)(mps >> 8);
	if (extra) {
		memcpy(d + n, vendor, sizeof vendor);
		n += sizeof vendor;
		d[4] = 3;
	}
	d[2] = (uint8_t)n;
	d[3] = (uint8_t)(n >> 8);
	return n;
}

/* ---- Ethernet frames ---- */

static inline uint16_t cap_checksum(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

static inline void cap_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet + IPv4 header for an l4-byte payload of protocol proto; returns 34. to_dev
 * picks the direction. */
static inline size_t cap_ipv4(uint8_t *f, int to_dev, uint8_t proto, size_t l4)
{
	memcpy(f, to_dev ? cap_dev_mac : cap_host_mac, 6);
	memcpy(f + 6, to_dev ? cap_host_mac : cap_dev_mac, 6);
	cap_put16(f + 12, 0x0800);
	uint8_t *ip = f + 14;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	cap_put16(ip + 2, (uint16_t)(20 + l4));
	cap_put16(ip + 4, 1);
	ip[6] = 0x40; /* DF */
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, to_dev ? cap_host_ip : cap_dev_ip, 4);
	memcpy(ip + 16, to_dev ? cap_dev_ip : cap_host_ip, 4);
	cap_put16(ip + 10, cap_checksum(ip, 20, 0));
	return 34;
}

/* ICMP echo (type 8 to the device, 0 from it) with size data bytes; returns the length. */
static inline size_t cap_icmp(uint8_t *f, int to_dev, uint16_t id, uint16_t seq, size_t size)
{
	size_t o = cap_ipv4(f, to_dev, 1, 8 + size);
	uint8_t *icmp = f + o;
	icmp[0] = to_dev ? 8 : 0;
	icmp[1] = 0;
	cap_put16(icmp + 2, 0);
	cap_put16(icmp + 4, id);
	cap_put16(icmp + 6, seq);
	for (size_t i = 0; i < size; i++)
		icmp[8 + i] = (uint8_t)(i + seq);
	cap_put16(icmp + 2, cap_checksum(icmp, 8 + size, 0));
	return o + 8 + size;
}

/* UDP host:sport -> device:dport (or back) with payload: nonce "xbnp" + index (big
 * endian), then filler; size >= 8. */
static inline size_t cap_udp(uint8_t *f, int to_dev, uint16_t host_port, uint16_t dev_port,
			     uint32_t index, size_t size)
{
	size_t o = cap_ipv4(f, to_dev, 17, 8 + size);
	uint8_t *u = f + o;
	cap_put16(u, to_dev ? host_port : dev_port);
	cap_put16(u + 2, to_dev ? dev_port : host_port);
	cap_put16(u + 4, (uint16_t)(8 + size));
	cap_put16(u + 6, 0);
	memcpy(u + 8, "xbnp", 4);
	u[12] = (uint8_t)(index >> 24);
	u[13] = (uint8_t)(index >> 16);
	u[14] = (uint8_t)(index >> 8);
	u[15] = (uint8_t)index;
	for (size_t i = 8; i < size; i++)
		u[8 + i] = (uint8_t)(i * 3);
	/* pseudo-header: addresses, protocol, UDP length */
	uint32_t sum = 17 + (uint32_t)(8 + size);
	const uint8_t *ip = f + 14;
	for (int i = 12; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	uint16_t c = cap_checksum(u, 8 + size, sum);
	cap_put16(u + 6, c ? c : 0xFFFF);
	return o + 8 + size;
}

/* ARP request from the host for the device; 42 bytes. */
static inline size_t cap_arp(uint8_t *f)
{
	memset(f, 0xFF, 6);
	memcpy(f + 6, cap_host_mac, 6);
	cap_put16(f + 12, 0x0806);
	uint8_t *a = f + 14;
	cap_put16(a, 1);
	cap_put16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	cap_put16(a + 6, 1);
	memcpy(a + 8, cap_host_mac, 6);
	memcpy(a + 14, cap_host_ip, 4);
	memset(a + 18, 0, 6);
	memcpy(a + 24, cap_dev_ip, 4);
	return 42;
}

/* ---- Echoes ---- */

/* One ping: request submitted at t (us), its OUT transfer done 100 us later, the reply's
 * IN transfer done turn_us after that (no reply when turn_us is 0). */
static inline void cap_ping(cap_writer *w, uint16_t id, uint16_t seq, size_t size,
			    uint64_t t_us, uint64_t turn_us)
{
	uint8_t f[1600];
	size_t n = cap_icmp(f, 1, id, seq, size);
	uint32_t len = (uint32_t)n;
	if (n % 64 == 0)
		f[len++] = 0; /* usbnet */
	cap_out(w, 2, f, len, 0, t_us * CAP_US, (t_us + 100) * CAP_US, 0);
	if (!turn_us)
		return;
	n = cap_icmp(f, 0, id, seq, size);
	cap_in(w, 2, f, (uint32_t)n, 1514, t_us * CAP_US, (t_us + 100 + turn_us) * CAP_US, 0);
}

/* The same for a UDP echo from host port sport to port 7 with nonce index. */
static inline void cap_udp_echo(cap_writer *w, uint16_t sport, uint32_t index, size_t size,
				uint64_t t_us, uint64_t turn_us)
{
	uint8_t f[1600];
	size_t n = cap_udp(f, 1, sport, 7, index, size);
	cap_out(w, 2, f, (uint32_t)n, 0, t_us * CAP_US, (t_us + 100) * CAP_US, 0);
	if (!turn_us)
		return;
	n = cap_udp(f, 0, sport, 7, index, size);
	cap_in(w, 2, f, (uint32_t)n, 1514, t_us * CAP_US, (t_us + 100 + turn_us) * CAP_US, 0);
}

/* Pings of every kind of outcome (test_capture_echo.c checks each echo): 10 requests, 8
 * replied (one twice, one altered, one whose OUT completion is missing), one lost, one
 * whose OUT transfer fails, a reply nobody asked for, an echo request from the device. */
static inline void cap_icmp_script(cap_writer *w)
{
	uint8_t cfg[256];
	cap_config(w, 2, cfg, cap_ecm_config(cfg, 64, 0), 1);
	cap_ping(w, 0x4242, 1, 56, 1000, 800);  /* 0 */
	cap_ping(w, 0x4242, 2, 56, 21000, 750); /* 1 */
	cap_ping(w, 0x4242, 3, 22, 41000, 0);   /* 2: lost; a 64-byte frame, padded */
	cap_ping(w, 0x4242, 4, 56, 61000, 900); /* 3 */
	cap_ping(w, 0x4242, 5, 56, 81000, 820); /* 4 */
	/* 5: its OUT transfer stalls; nothing comes back */
	uint8_t f[200];
	size_t n = cap_icmp(f, 1, 0x4242, 6, 56);
	cap_out(w, 2, f, (uint32_t)n, 0, 101000 * CAP_US, 101100 * CAP_US, -32);
	/* 6: answered twice */
	cap_ping(w, 0x4242, 7, 56, 121000, 780);
	n = cap_icmp(f, 0, 0x4242, 7, 56);
	cap_in(w, 2, f, (uint32_t)n, 1514, 0, 122500 * CAP_US, 0);
	/* a reply nobody asked for */
	n = cap_icmp(f, 0, 0x4242, 99, 56);
	cap_in(w, 2, f, (uint32_t)n, 1514, 0, 130000 * CAP_US, 0);
	/* 7: the reply's data differs */
	n = cap_icmp(f, 1, 0x4242, 8, 56);
	cap_out(w, 2, f, (uint32_t)n, 0, 141000 * CAP_US, 141100 * CAP_US, 0);
	n = cap_icmp(f, 0, 0x4242, 8, 56);
	f[60] ^= 0xFF;
	cap_in(w, 2, f, (uint32_t)n, 1514, 0, 141700 * CAP_US, 0);
	/* 8: a second request with seq 1 takes over the key: its reply is its own */
	cap_ping(w, 0x4242, 1, 56, 161000, 810);
	/* 9: a request whose completion the capture does not hold */
	n = cap_icmp(f, 1, 0x4242, 10, 56);
	cap_out(w, 2, f, (uint32_t)n, 0, 181000 * CAP_US, 0, 0);
	n = cap_icmp(f, 0, 0x4242, 10, 56);
	cap_in(w, 2, f, (uint32_t)n, 1514, 0, 182000 * CAP_US, 0);
	/* echo requests from the device and replies from the host are not ours */
	n = cap_icmp(f, 0, 0x1111, 1, 8);
	f[34] = 8;
	cap_in(w, 2, f, (uint32_t)n, 1514, 0, 190000 * CAP_US, 0);
}

/* Requests at rate/s for step_ms, from start_us; replies to the first `answer` of them. */
static inline uint64_t cap_rate_step(cap_writer *w, uint32_t *index, uint64_t start_us,
				     uint32_t rate, uint32_t step_ms, uint32_t answer)
{
	uint32_t n = rate * step_ms / 1000;
	for (uint32_t i = 0; i < n; i++)
		cap_udp_echo(w, 40000, (*index)++, 64, start_us + (uint64_t)i * 1000000 / rate,
			     i < answer ? 300 : 0);
	return start_us + step_ms * 1000ull;
}

/* ---- Reading back ---- */

/* Writes the capture to test_dir/name and returns the path (static buffer). */
static inline const char *cap_save(const cap_writer *w, const char *name)
{
	static char path[256];
	snprintf(path, sizeof path, "%s/%s", test_dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(w->buf, 1, w->len, f) != w->len || fclose(f)) {
		fprintf(stderr, "cannot write %s\n", path);
		abort();
	}
	return path;
}

/* Reads a file's frames (o may be NULL); returns frames_read's result. */
static inline int cap_read(const char *path, const xb_frames_options *o, xb_frames **fs,
			   xb_err *err)
{
	*fs = frames_new(o);
	xb_capture_source *s = capture_open_file(path, err);
	if (!s)
		return XB_CAPTURE_ERROR;
	int rc = frames_read(*fs, s, 0, err);
	capture_close(s);
	return rc;
}

#endif
