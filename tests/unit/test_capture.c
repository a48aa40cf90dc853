/* test_capture: usbmon records parsed field by field (hand-built headers of both link
 * types and both byte orders), CDC-ECM frames reassembled from bulk transfers (several
 * packets, ZLPs, URB_ZERO_PACKET, usbnet's padding byte, descriptors, failures), the file,
 * stream, live and feed sources, and damaged captures: clear errors, earlier records kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../capture/packet.h"
#include "../../capture/source.h"
#include "../../capture/usbrec.h"
#include "test_capture_common.h"

/* ---- Records, field by field ---- */

/* A bulk IN completion as Linux writes it (link type 220, little endian). */
static const uint8_t rec220[64 + 4] = {
	0x00, 0x14, 0x00, 0x00, 0x80, 0x88, 0xFF, 0xFF, /* id */
	'C', 0x03, 0x82, 0x05, 0x02, 0x00, '-', 0x00,   /* bulk, ep 0x82, dev 5, bus 2 */
	0xD2, 0xF5, 0x53, 0x65, 0x00, 0x00, 0x00, 0x00, /* ts_sec 1700001234 */
	0x53, 0xAA, 0x08, 0x00,                         /* ts_usec 567891 */
	0xB9, 0xFF, 0xFF, 0xFF,                         /* status -71 */
	0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, /* length 4, captured 4 */
	1, 2, 3, 4, 5, 6, 7, 8,                         /* setup bytes (unused) */
	0x07, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, /* interval 7, start frame 9 */
	0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* flags 0x200, ndesc 0 */
	0xDE, 0xAD, 0xBE, 0xEF,
};

static void test_parse_mmapped(void **state)
{
	(void)state;
	xb_usbrec r;
	xb_err err;
	assert_int_equal(usbrec_parse_bytes(&r, rec220, sizeof rec220, 220, 0, &err), 0);
	assert_true(r.id == 0xFFFF888000001400ull);
	assert_int_equal(r.event, 'C');
	assert_int_equal(r.xfer_type, XB_USBREC_BULK);
	assert_int_equal(r.endpoint, 0x82);
	assert_true(usbrec_in(&r));
	assert_int_equal(r.device, 5);
	assert_int_equal(r.bus, 2);
	assert_int_equal(r.setup_flag, '-');
	assert_int_equal(r.data_flag, 0);
	assert_int_equal(r.ts_sec, 1700001234);
	assert_int_equal(r.ts_usec, 567891);
	assert_int_equal(r.status, -71);
	assert_int_equal(r.length, 4);
	assert_int_equal(r.len_cap, 4);
	assert_memory_equal(r.setup, "\1\2\3\4\5\6\7\10", 8);
	assert_int_equal(r.iso_error_count, 0x04030201);
	assert_int_equal(r.interval, 7);
	assert_int_equal(r.start_frame, 9);
	assert_int_equal(r.xfer_flags, 0x200);
	assert_int_equal(r.ndesc, 0);
	assert_int_equal(r.header_len, 64);
	assert_int_equal(r.data_len, 4);
	assert_memory_equal(r.data, "\xDE\xAD\xBE\xEF", 4);
	assert_false(r.truncated);
	assert_string_equal(usbrec_xfer_name(r.xfer_type), "bulk");

	/* The same record written by a big-endian host. */
	uint8_t be[sizeof rec220];
	memcpy(be, rec220, sizeof be);
	static const int fields[][2] = {{0, 8}, {12, 2}, {16, 8}, {24, 4}, {28, 4}, {32, 4},
					{36, 4}, {48, 4}, {52, 4}, {56, 4}, {60, 4}};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		for (int k = 0; k < fields[i][1]; k++)
			be[fields[i][0] + k] = rec220[fields[i][0] + fields[i][1] - 1 - k];
	xb_usbrec b;
	assert_int_equal(usbrec_parse_bytes(&b, be, sizeof be, 220, 1, &err), 0);
	assert_true(b.id == r.id);
	assert_int_equal(b.bus, 2);
	assert_int_equal(b.ts_sec, r.ts_sec);
	assert_int_equal(b.status, -71);
	assert_int_equal(b.interval, 7);
	assert_int_equal(b.xfer_flags, 0x200);
	assert_int_equal(b.data_len, 4);
}

static void test_parse_linux_and_iso(void **state)
{
	(void)state;
	/* Link type 189: the first 48 bytes, then the data. A control 'S' with setup. */
	uint8_t r189[48 + 2];
	memcpy(r189, rec220, 48);
	r189[8] = 'S';
	r189[9] = XB_USBREC_CONTROL;
	r189[10] = 0x00;
	r189[14] = 0;
	memcpy(r189 + 32, "\x02\0\0\0\x02\0\0\0", 8);
	memcpy(r189 + 40, "\x00\x09\x01\x00\x00\x00\x00\x00", 8); /* SET_CONFIGURATION 1 */
	r189[48] = 0xAA;
	r189[49] = 0xBB;
	xb_usbrec r;
	xb_err err;
	assert_int_equal(usbrec_parse_bytes(&r, r189, sizeof r189, 189, 0, &err), 0);
	assert_int_equal(r.header_len, 48);
	assert_int_equal(r.event, 'S');
	assert_int_equal(r.setup_flag, 0);
	assert_int_equal(r.setup[1], 9);
	assert_int_equal(r.interval, 0);
	assert_int_equal(r.xfer_flags, 0);
	assert_int_equal(r.data_len, 2);
	assert_int_equal(r.data[0], 0xAA);

	/* Iso (220): two 16-byte descriptors sit between the header and the data. */
	uint8_t iso[64 + 32 + 3];
	memset(iso, 0x55, sizeof iso);
	memcpy(iso, rec220, 64);
	iso[9] = XB_USBREC_ISO;
	memcpy(iso + 32, "\x03\0\0\0\x03\0\0\0", 8);
	memcpy(iso + 40, "\x01\0\0\0\x02\0\0\0", 8); /* error count 1, numdesc 2 */
	memcpy(iso + 60, "\x02\0\0\0", 4);
	iso[96] = 0x11;
	assert_int_equal(usbrec_parse_bytes(&r, iso, sizeof iso, 220, 0, &err), 0);
	assert_int_equal(r.iso_error_count, 1);
	assert_int_equal(r.iso_numdesc, 2);
	assert_int_equal(r.ndesc, 2);
	assert_int_equal(r.data_len, 3);
	assert_int_equal(r.data[0], 0x11);
	/* Descriptors that run past the record. */
	memcpy(iso + 60, "\x09\0\0\0", 4);
	assert_int_equal(usbrec_parse_bytes(&r, iso, sizeof iso, 220, 0, &err), -1);
	assert_non_null(strstr(err.msg, "9 iso descriptors"));
}

static void test_parse_errors(void **state)
{
	(void)state;
	xb_usbrec r;
	xb_err err;
	assert_int_equal(usbrec_parse_bytes(&r, rec220, 63, 220, 0, &err), -1);
	assert_string_equal(err.msg, "63 bytes, shorter than the 64-byte usbmon header");
	assert_int_equal(usbrec_parse_bytes(&r, rec220, 40, 189, 0, &err), -1);
	assert_non_null(strstr(err.msg, "48-byte"));
	uint8_t bad[sizeof rec220];
	memcpy(bad, rec220, sizeof bad);
	bad[8] = 'X';
	assert_int_equal(usbrec_parse_bytes(&r, bad, sizeof bad, 220, 0, &err), -1);
	assert_non_null(strstr(err.msg, "event type 0x58"));
	bad[8] = 'C';
	bad[9] = 7;
	assert_int_equal(usbrec_parse_bytes(&r, bad, sizeof bad, 220, 0, &err), -1);
	assert_non_null(strstr(err.msg, "transfer type 7"));
	/* Cut data is not an error. */
	assert_int_equal(usbrec_parse_bytes(&r, rec220, 66, 220, 0, &err), 0);
	assert_int_equal(r.data_len, 2);
	assert_true(r.truncated);
}

/* ---- Frames ---- */

static const xb_frame *only_frame(const xb_frames *fs, size_t i)
{
	const xb_frame *f = frames_get(fs, i);
	assert_non_null(f);
	return f;
}

static void test_frames_several_packets(void **state)
{
	(void)state;
	cap_writer w;
	cap_open(&w);
	uint8_t f[300];
	size_t n = cap_icmp(f, 1, 7, 1, 130); /* 172 bytes */
	/* OUT: three transfers of 64, 64, 44 bytes (a host that splits frames) */
	cap_out(&w, 2, f, 64, 0, 1000 * CAP_US, 1100 * CAP_US, 0);
	cap_out(&w, 2, f + 64, 64, 0, 1010 * CAP_US, 1200 * CAP_US, 0);
	cap_out(&w, 2, f + 128, (uint32_t)n - 128, 0, 1020 * CAP_US, 1300 * CAP_US, 0);
	/* IN: 64-byte buffers filled twice, then a short one ends the frame */
	uint8_t r[300];
	size_t m = cap_icmp(r, 0, 7, 1, 130);
	cap_in(&w, 2, r, 64, 64, 1400 * CAP_US, 1500 * CAP_US, 0);
	cap_in(&w, 2, r + 64, 64, 64, 1400 * CAP_US, 1600 * CAP_US, 0);
	cap_in(&w, 2, r + 128, (uint32_t)m - 128, 64, 1400 * CAP_US, 1700 * CAP_US, 0);
	cap_close(&w);
	xb_frames *fs;
	xb_err err;
	assert_int_equal(cap_read(cap_save(&w, "multi.pcap"), NULL, &fs, &err), XB_CAPTURE_END);
	assert_int_equal(frames_count(fs), 2);
	const xb_frame *o = only_frame(fs, 0), *i = only_frame(fs, 1);
	assert_int_equal(o->len, n);
	assert_int_equal(o->urbs, 3);
	assert_memory_equal(o->data, f, n);
	assert_int_equal(o->flags, 0);
	assert_true(o->submit_ns == CAP_EPOCH * 1000000000ull + 1000 * CAP_US);
	assert_true(o->time_ns == CAP_EPOCH * 1000000000ull + 1300 * CAP_US);
	assert_int_equal(o->endpoint, 0x02);
	assert_int_equal(i->len, m);
	assert_int_equal(i->urbs, 3);
	assert_int_equal(i->flags, XB_FRAME_IN);
	assert_memory_equal(i->data, r, m);
	assert_true(i->time_ns == CAP_EPOCH * 1000000000ull + 1700 * CAP_US);
	xb_frames_stats st;
	frames_stats(fs, &st);
	assert_int_equal(st.records, 12);
	assert_int_equal(st.frames_out, 1);
	assert_int_equal(st.frames_in, 1);
	assert_int_equal(st.pending, 0);
	assert_true(st.first_ns == CAP_EPOCH * 1000000000ull + 1000 * CAP_US);
	frames_free(fs);
	free(w.buf);
}

static void test_frames_zlp(void **state)
{
	(void)state;
	cap_writer w;
	cap_open(&w);
	uint8_t f[128];
	for (int i = 0; i < 128; i++)
		f[i] = (uint8_t)i;
	/* IN: a 128-byte frame in two full 64-byte buffers, ended by a ZLP */
	cap_in(&w, 2, f, 64, 64, 1 * CAP_US, 10 * CAP_US, 0);
	cap_in(&w, 2, f + 64, 64, 64, 2 * CAP_US, 11 * CAP_US, 0);
	cap_in(&w, 2, f, 0, 64, 3 * CAP_US, 12 * CAP_US, 0);
	/* IN: one 1514-byte buffer that got 128 bytes (the device's ZLP ended it) */
	cap_in(&w, 2, f, 128, 1514, 13 * CAP_US, 14 * CAP_US, 0);
	/* OUT: 128 bytes with URB_ZERO_PACKET */
	cap_out(&w, 2, f, 128, XB_USBREC_URB_ZERO_PACKET, 20 * CAP_US, 21 * CAP_US, 0);
	/* OUT: 128 bytes, then a zero-length transfer of its own */
	cap_out(&w, 2, f, 128, 0, 30 * CAP_US, 31 * CAP_US, 0);
	cap_out(&w, 2, f, 0, 0, 32 * CAP_US, 33 * CAP_US, 0);
	/* a ZLP with nothing before it is no frame */
	cap_out(&w, 2, f, 0, 0, 34 * CAP_US, 35 * CAP_US, 0);
	/* IN completions whose 'S' is not in the capture end their frame: a live capture
	 * starts with buffers submitted before it */
	cap_in(&w, 2, f, 64, 64, 0, 40 * CAP_US, 0);
	cap_close(&w);
	xb_frames *fs;
	xb_err err;
	assert_int_equal(cap_read(cap_save(&w, "zlp.pcap"), NULL, &fs, &err), XB_CAPTURE_END);
	assert_int_equal(frames_count(fs), 5);
	const xb_frame *a = only_frame(fs, 0);
	assert_int_equal(a->flags, XB_FRAME_IN);
	assert_int_equal(a->len, 128);
	assert_int_equal(a->urbs, 3);
	assert_memory_equal(a->data, f, 128);
	assert_true(a->time_ns == CAP_EPOCH * 1000000000ull + 12 * CAP_US);
	assert_int_equal(only_frame(fs, 1)->len, 128);
	assert_int_equal(only_frame(fs, 1)->urbs, 1);
	const xb_frame *b = only_frame(fs, 2);
	assert_int_equal(b->flags, 0);
	assert_int_equal(b->len, 128);
	assert_true(b->time_ns == CAP_EPOCH * 1000000000ull + 21 * CAP_US);
	const xb_frame *c = only_frame(fs, 3);
	assert_int_equal(c->len, 128);
	assert_int_equal(c->urbs, 2);
	assert_true(c->time_ns == CAP_EPOCH * 1000000000ull + 33 * CAP_US);
	assert_int_equal(only_frame(fs, 4)->len, 64);
	frames_free(fs);
	free(w.buf);
}

/* usbnet pads an OUT frame of whole packets with one zero byte; the IP or ARP length says
 * where the packet ends. */
static void test_frames_padding(void **state)
{
	(void)state;
	cap_writer w;
	cap_open(&w);
	uint8_t f[200];
	size_t n = cap_icmp(f, 1, 1, 1, 22); /* 14 + 20 + 8 + 22 = 64 */
	assert_int_equal(n, 64);
	f[64] = 0;
	cap_out(&w, 2, f, 65, 0, 10 * CAP_US, 11 * CAP_US, 0);
	/* ARP with Ethernet padding to 64, then usbnet's byte */
	uint8_t a[65] = {0};
	cap_arp(a);
	cap_out(&w, 2, a, 65, 0, 20 * CAP_US, 21 * CAP_US, 0);
	/* another EtherType: nothing says where it ends, the byte stays */
	uint8_t x[65] = {0};
	memcpy(x, cap_dev_mac, 6);
	memcpy(x + 6, cap_host_mac, 6);
	x[12] = 0x88;
	x[13] = 0xB5;
	cap_out(&w, 2, x, 65, 0, 30 * CAP_US, 31 * CAP_US, 0);
	/* a 65-byte IP packet that ends in a zero byte is not padding */
	size_t k = cap_icmp(f, 1, 1, 2, 23);
	assert_int_equal(k, 65);
	f[64] = 0;
	f[36] = f[37] = 0; /* the checksum does not matter here */
	cap_out(&w, 2, f, 65, 0, 40 * CAP_US, 41 * CAP_US, 0);
	/* the device's IN frames keep what they carry */
	n = cap_icmp(f, 0, 1, 1, 22);
	f[64] = 0;
	cap_in(&w, 2, f, 65, 1514, 50 * CAP_US, 51 * CAP_US, 0);
	cap_close(&w);
	xb_frames *fs;
	xb_err err;
	assert_int_equal(cap_read(cap_save(&w, "pad.pcap"), NULL, &fs, &err), XB_CAPTURE_END);
	assert_int_equal(frames_count(fs), 5);
	const xb_frame *p = only_frame(fs, 0);
	assert_int_equal(p->len, 64);
	assert_int_equal(p->transfer_len, 65);
	assert_int_equal(p->captured, 64);
	assert_int_equal(p->flags, XB_FRAME_PADDED);
	assert_int_equal(only_frame(fs, 1)->len, 64);
	assert_int_equal(only_frame(fs, 1)->flags, XB_FRAME_PADDED);
	assert_int_equal(only_frame(fs, 2)->len, 65);
	assert_int_equal(only_frame(fs, 2)->flags, 0);
	assert_int_equal(only_frame(fs, 3)->len, 65);
	assert_int_equal(only_frame(fs, 4)->len, 65);
	xb_frames_stats st;
	frames_stats(fs, &st);
	assert_int_equal(st.padded, 2);
	assert_int_equal(st.bytes_out, 64 + 64 + 65 + 65);
	frames_free(fs);
	/* with 512-byte packets (high speed) 65 bytes are no whole packets plus one */
	xb_frames_options o;
	frames_options_init(&o);
	o.max_packet = 512;
	assert_int_equal(cap_read(cap_save(&w, "pad.pcap"), &o, &fs, &err), XB_CAPTURE_END);
	assert_int_equal(frames_count(fs), 5);
	assert_int_equal(only_frame(fs, 0)->len, 65);
	assert_int_equal(only_frame(fs, 0)->flags, 0);
	frames_free(fs);
	free(w.buf);
}

/* Devices recognised from their configuration descriptor: only the CDC-ECM data endpoints
 * of a composite device carry frames, with their wMaxPacketSize; a device that is not
 * CDC-ECM is left out unless selected. */
static void test_frames_descriptors(void **state)
{
	(void)state;
	cap_writer w;
	cap_open(&w);
	uint8_t cfg[256];
	uint16_t n = cap_ecm_config(cfg, 512, 1);
	cap_config(&w, 2, cfg, n, 1 * CAP_US);
	/* a mass-storage-like device at address 3 */
	static const uint8_t msc[] = {
		9, 2, 32, 0, 1, 1, 0, 0x80, 50, 9, 4, 0, 0, 2, 8, 6, 0x50, 0,
		7, 5, 0x81, 2, 64, 0, 0, 7, 5, 0x02, 2, 64, 0, 0,
	};
	cap_config(&w, 3, msc, sizeof msc, 2 * CAP_US);
	uint8_t f[600] = {0};
	size_t k = cap_icmp(f, 1, 1, 1, 512 - 42); /* 512 bytes: one whole high-speed packet */
	assert_int_equal(k, 512);
	cap_out(&w, 2, f, 513, 0, 10 * CAP_US, 11 * CAP_US, 0); /* padded for 512 */
	xb_usbmon_urb u = cap_urb(&w, 2, 0x03, f, 100); /* the vendor function's bulk OUT */
	usbmon_submit(w.mon, &u, 12 * CAP_US);
	usbmon_complete(w.mon, &u, 0, 13 * CAP_US);
	cap_out(&w, 3, f, 100, 0, 14 * CAP_US, 15 * CAP_US, 0); /* not CDC-ECM */
	cap_close(&w);
	const char *path = cap_save(&w, "desc.pcap");
	xb_frames *fs;
	xb_err err;
	assert_int_equal(cap_read(path, NULL, &fs, &err), XB_CAPTURE_END);
	assert_int_equal(frames_count(fs), 1);
	assert_int_equal(only_frame(fs, 0)->len, 512);
	assert_int_equal(only_frame(fs, 0)->flags, XB_FRAME_PADDED);
	assert_int_equal(frames_device_count(fs), 2);
	const xb_frames_device *d = frames_device(fs, 0);
	assert_int_equal(d->device, 2);
	assert_int_equal(d->ecm, 1);
	assert_int_equal(d->in_endpoint, 0x82);
	assert_int_equal(d->out_endpoint, 0x02);
	assert_int_equal(d->in_max_packet, 512);
	assert_int_equal(d->out_max_packet, 512);
	assert_int_equal(d->frames_out, 1);
	assert_int_equal(frames_device(fs, 1)->ecm, 0);
	assert_null(frames_device(fs, 2));
	xb_frames_stats st;
	frames_stats(fs, &st);
	assert_int_equal(st.ignored_records, 4 + 4);
	frames_free(fs);
	/* selecting device 3 reads its bulk transfers as frames all the same */
	xb_frames_options o;
	frames_options_init(&o);
	o.device = 3;
	assert_int_equal(cap_read(path, &o, &fs, &err), XB_CAPTURE_END);
	assert_int_equal(frames_count(fs), 1);
	assert_int_equal(only_frame(fs, 0)->device, 3);
	frames_free(fs);
	o.device = -1;
	o.bus = 2;
	assert_int_equal(cap_read(path, &o, &fs, &err), XB_CAPTURE_END);
	assert_int_equal(frames_count(fs), 0);
	frames_free(fs);
	free(w.buf);
}

/* An OUT transfer that fails, one whose completion the capture lacks, an 'E' record, IN
 * completions with errors, completions without their submission. */
static void test_frames_failures(void **state)
{
	(void)state;
	cap_writer w;
	cap_open(&w);
	uint8_t f[100];
	size_t n = cap_icmp(f, 1, 1, 1, 20);
	cap_out(&w, 2, f, (uint32_t)n, 0, 10 * CAP_US, 11 * CAP_US, -32); /* STALL */
	xb_usbmon_urb u = cap_urb(&w, 2, CAP_BULK_OUT, f, (uint32_t)n);
	usbmon_submit(w.mon, &u, 12 * CAP_US);
	usbmon_error(w.mon, &u, -19, 13 * CAP_US); /* refused at submission */
	/* an IN transfer that collected 64 bytes, then one that failed: both dropped */
	cap_in(&w, 2, f, 64, 64, 14 * CAP_US, 15 * CAP_US, 0);
	cap_in(&w, 2, f, 10, 64, 16 * CAP_US, 17 * CAP_US, -71);
	cap_in(&w, 2, f, 0, 1514, 18 * CAP_US, 19 * CAP_US, -2); /* unlinked */
	cap_in(&w, 2, f, 0, 1514, 18 * CAP_US, 19 * CAP_US, -108);
	/* a completion whose submission came before the capture */
	xb_usbmon_urb v = cap_urb(&w, 2, CAP_BULK_OUT, f, (uint32_t)n);
	usbmon_complete(w.mon, &v, 0, 20 * CAP_US);
	cap_out(&w, 2, f, (uint32_t)n, 0, 30 * CAP_US, 0, 0); /* still pending at the end */
	cap_close(&w);
	xb_frames *fs;
	xb_err err;
	assert_int_equal(cap_read(cap_save(&w, "fail.pcap"), NULL, &fs, &err), XB_CAPTURE_END);
	assert_int_equal(frames_count(fs), 3);
	const xb_frame *a = only_frame(fs, 0);
	assert_int_equal(a->flags, XB_FRAME_FAILED);
	assert_int_equal(a->status, -32);
	assert_int_equal(only_frame(fs, 1)->flags, XB_FRAME_FAILED);
	assert_int_equal(only_frame(fs, 1)->status, -19);
	const xb_frame *c = only_frame(fs, 2);
	assert_int_equal(c->flags, XB_FRAME_PENDING);
	assert_true(c->time_ns == 0);
	assert_int_equal(c->done_record, 0);
	xb_frames_stats st;
	frames_stats(fs, &st);
	assert_int_equal(st.failed, 2);
	assert_int_equal(st.pending, 1);
	assert_int_equal(st.frames_in, 0);
	assert_int_equal(st.in_errors, 1);
	assert_int_equal(st.in_cancelled, 2);
	assert_int_equal(st.unpaired, 1);
	frames_free(fs);
	free(w.buf);
}

/* ---- Sources ---- */

static void test_stream_and_feed_sources(void **state)
{
	(void)state;
	/* The same records three ways: a file, a pipe, the in-process feed. */
	cap_writer w;
	cap_open(&w);
	xb_capture_source *feed = capture_open_feed("virtual host");
	usbmon_set_record_fn(w.mon, capture_feed_record, feed);
	uint8_t f[100];
	size_t n = cap_icmp(f, 1, 9, 3, 40);
	cap_out(&w, 2, f, (uint32_t)n, 0, 1000 * CAP_US + 123, 1200 * CAP_US + 456, 0);
	n = cap_icmp(f, 0, 9, 3, 40);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 900 * CAP_US, 2000 * CAP_US + 789, 0);
	cap_close(&w);

	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], w.buf, w.len), (ssize_t)w.len);
	close(p[1]);
	xb_err err;
	xb_capture_source *s = capture_open_stream(p[0], NULL, &err);
	assert_non_null(s);
	assert_string_equal(s->name, "stream");
	assert_string_equal(s->ops->kind, "stream");
	assert_int_equal(capture_fd(s), p[0]);
	assert_int_equal(s->linktype, 220);
	assert_int_equal(s->snaplen, XB_USBMON_SNAPLEN);
	xb_frames *a = frames_new(NULL);
	assert_int_equal(frames_read(a, s, 0, &err), XB_CAPTURE_END);
	assert_int_equal(capture_next(s, &(xb_capture_record){0}, &err), XB_CAPTURE_END);
	capture_close(s);

	assert_int_equal(feed->linktype, 220);
	assert_int_equal(capture_fd(feed), -1);
	xb_frames *b = frames_new(NULL);
	assert_int_equal(frames_read(b, feed, 2, &err), XB_CAPTURE_RECORD);
	assert_int_equal(frames_read(b, feed, 0, &err), XB_CAPTURE_AGAIN);
	capture_feed_end(feed);
	assert_int_equal(frames_read(b, feed, 0, &err), XB_CAPTURE_END);
	assert_int_equal(feed->records, 4);
	assert_int_equal(frames_count(a), 2);
	assert_int_equal(frames_count(b), 2);
	for (size_t i = 0; i < 2; i++) {
		const xb_frame *x = frames_get(a, i), *y = frames_get(b, i);
		assert_int_equal(x->len, y->len);
		assert_memory_equal(x->data, y->data, x->len);
		/* the pcap has microseconds, the feed the writer's nanoseconds */
		assert_true(y->time_ns / 1000 == x->time_ns / 1000);
		assert_true(x->time_ns % 1000 == 0);
	}
	assert_true(frames_get(b, 0)->time_ns ==
		    CAP_EPOCH * 1000000000ull + 1200 * CAP_US + 456);
	assert_true(frames_get(b, 1)->time_ns ==
		    CAP_EPOCH * 1000000000ull + 2000 * CAP_US + 789);
	frames_free(a);
	frames_free(b);
	capture_close(feed);
	/* records left in a feed are freed with it */
	feed = capture_open_feed(NULL);
	capture_feed_record(feed, (const uint8_t *)w.buf + 24 + 16, 64, 5);
	assert_string_equal(feed->name, "feed");
	capture_close(feed);
	free(w.buf);
}

static void test_live_source_errors(void **state)
{
	(void)state;
	xb_err err;
	assert_null(capture_open_live("eth0", NULL, &err));
	assert_non_null(strstr(err.msg, "eth0: not a usbmon interface"));
	/* No such bus here (or no usbmon module, or no permission): the message says what to
	 * do in each case. */
	xb_capture_source *s = capture_open_live("usbmon99", NULL, &err);
	if (s) {
		capture_close(s);
		skip();
	}
	assert_true(strstr(err.msg, "modprobe usbmon") || strstr(err.msg, "root") ||
		    strstr(err.msg, "no USB bus 99"));
	assert_non_null(strstr(err.msg, "usbmon99"));
}

/* ---- Damaged captures ---- */

/* A small good capture: one ping out, its reply in (4 records). */
static void good_capture(cap_writer *w)
{
	cap_open(w);
	uint8_t f[100];
	size_t n = cap_icmp(f, 1, 1, 1, 56);
	cap_out(w, 2, f, (uint32_t)n, 0, 10 * CAP_US, 11 * CAP_US, 0);
	n = cap_icmp(f, 0, 1, 1, 56);
	cap_in(w, 2, f, (uint32_t)n, 1514, 5 * CAP_US, 20 * CAP_US, 0);
	cap_close(w);
}

static const char *save_bytes(const char *name, const void *p, size_t n)
{
	cap_writer t = {.buf = (char *)p, .len = n};
	return cap_save(&t, name);
}

static void test_damaged_captures(void **state)
{
	(void)state;
	cap_writer w;
	good_capture(&w);
	xb_frames *fs;
	xb_err err;
	/* cut inside the last record: the first three records are read */
	const char *path = save_bytes("cut.pcap", w.buf, w.len - 10);
	assert_int_equal(cap_read(path, NULL, &fs, &err), XB_CAPTURE_ERROR);
	char want[512];
	snprintf(want, sizeof want, "%s: record 4 (byte %zu): truncated dump file", path,
		 w.len - (16 + 64 + 98));
	assert_memory_equal(err.msg, want, strlen(want));
	assert_int_equal(frames_count(fs), 1);
	xb_frames_stats st;
	frames_stats(fs, &st);
	assert_int_equal(st.records, 3);
	frames_free(fs);
	/* cut inside a record header */
	path = save_bytes("cut2.pcap", w.buf, 24 + 16 + 64 + 98 + 5);
	assert_int_equal(cap_read(path, NULL, &fs, &err), XB_CAPTURE_ERROR);
	if (!strstr(err.msg, "record 2 (byte 202): truncated dump file; tried to read 16 header "
			     "bytes, only got 5"))
		fail_msg("%s", err.msg);
	frames_free(fs);
	/* wrong magic, empty, missing */
	uint8_t bad[64];
	memcpy(bad, w.buf, 64);
	memcpy(bad, "GIF8", 4);
	path = save_bytes("magic.pcap", bad, 64);
	assert_int_equal(cap_read(path, NULL, &fs, &err), XB_CAPTURE_ERROR);
	snprintf(want, sizeof want, "%s: not a capture: the file starts with neither the pcap "
				   "nor the pcapng magic number", path);
	assert_string_equal(err.msg, want);
	frames_free(fs);
	path = save_bytes("empty.pcap", bad, 0);
	assert_int_equal(cap_read(path, NULL, &fs, &err), XB_CAPTURE_ERROR);
	assert_non_null(strstr(err.msg, "empty.pcap: not a usable capture: truncated dump file"));
	frames_free(fs);
	snprintf(want, sizeof want, "%s/missing.pcap", test_dir);
	assert_int_equal(cap_read(want, NULL, &fs, &err), XB_CAPTURE_ERROR);
	assert_non_null(strstr(err.msg, "missing.pcap: cannot open the capture: No such file"));
	frames_free(fs);
	/* Ethernet (link type 1) */
	memcpy(bad, w.buf, 64);
	bad[20] = 1;
	path = save_bytes("eth.pcap", bad, 64);
	assert_int_equal(cap_read(path, NULL, &fs, &err), XB_CAPTURE_ERROR);
	assert_non_null(strstr(err.msg, "eth.pcap: link type 1 (EN10MB) is not a usbmon capture"));
	frames_free(fs);
	/* a record above the snap length: libpcap keeps the first snaplen bytes; the frame
	 * in it is cut and a warning names the record */
	char *copy = xmalloc(w.len);
	memcpy(copy, w.buf, w.len);
	uint32_t snap = 100;
	memcpy(copy + 16, &snap, 4);
	path = save_bytes("snap.pcap", copy, w.len);
	assert_int_equal(cap_read(path, NULL, &fs, &err), XB_CAPTURE_END);
	snprintf(want, sizeof want, "%s: record 1: cut to 100 of its 162 bytes by the snap length "
				   "(100); a frame in it is incomplete", path);
	assert_string_equal(frames_warning(fs), want);
	assert_int_equal(frames_count(fs), 2);
	assert_int_equal(only_frame(fs, 0)->len, 98);
	assert_int_equal(only_frame(fs, 0)->captured, 36);
	assert_int_equal(only_frame(fs, 0)->flags, XB_FRAME_TRUNCATED);
	frames_stats(fs, &st);
	assert_int_equal(st.truncated_records, 2);
	assert_int_equal(st.truncated, 2);
	frames_free(fs);
	/* a record above libpcap's maximum: an error at that record */
	memcpy(copy, w.buf, w.len);
	uint32_t huge = 300000;
	memcpy(copy + 24 + 16 + 64 + 98 + 8, &huge, 4); /* record 2's captured length */
	path = save_bytes("huge.pcap", copy, w.len);
	assert_int_equal(cap_read(path, NULL, &fs, &err), XB_CAPTURE_ERROR);
	assert_non_null(
		strstr(err.msg, "record 2 (byte 202): invalid packet capture length 300000"));
	frames_stats(fs, &st);
	assert_int_equal(st.records, 1);
	frames_free(fs);
	/* a record that is not a usbmon record */
	memcpy(copy, w.buf, w.len);
	copy[24 + 16 + 64 + 98 + 16 + 8] = 'Q';
	path = save_bytes("event.pcap", copy, w.len);
	assert_int_equal(cap_read(path, NULL, &fs, &err), XB_CAPTURE_ERROR);
	snprintf(want, sizeof want, "%s: record 2: not a usbmon record: event type 0x51 ('Q') is "
				   "none of 'S', 'C', 'E'", path);
	assert_string_equal(err.msg, want);
	assert_int_equal(frames_count(fs), 1);
	frames_free(fs);
	free(copy);
	free(w.buf);
}

/* ---- Packets ---- */

static void test_packet_summaries(void **state)
{
	(void)state;
	uint8_t f[200];
	char s[160];
	xb_packet p;
	size_t n = cap_icmp(f, 1, 0x1234, 7, 56);
	packet_parse(&p, f, n, n);
	packet_summary(&p, s, sizeof s);
	assert_string_equal(s, "ICMP echo request 192.0.2.2 > 192.0.2.1 id 0x1234 seq 7, 56 bytes");
	assert_int_equal(p.declared_len, n);
	n = cap_udp(f, 0, 40000, 7, 3, 64);
	packet_parse(&p, f, n, n);
	packet_summary(&p, s, sizeof s);
	assert_string_equal(s, "UDP 192.0.2.1:7 > 192.0.2.2:40000, 64 bytes");
	assert_memory_equal(p.payload, "xbnp\0\0\0\3", 8);
	n = cap_arp(f);
	packet_parse(&p, f, n, n);
	packet_summary(&p, s, sizeof s);
	assert_string_equal(s, "ARP who-has 192.0.2.1 tell 192.0.2.2");
	packet_parse(&p, f, 10, 10);
	packet_summary(&p, s, sizeof s);
	assert_string_equal(s, "shorter than an Ethernet header");
	/* captured bytes bound the payload */
	n = cap_icmp(f, 0, 1, 1, 100);
	packet_parse(&p, f, 50, n);
	assert_int_equal(p.kind, XB_PACKET_ICMP);
	assert_int_equal(p.payload_len, 100);
	assert_int_equal(p.payload_captured, 50 - 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_mmapped),
		cmocka_unit_test(test_parse_linux_and_iso),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_frames_several_packets),
		cmocka_unit_test(test_frames_zlp),
		cmocka_unit_test(test_frames_padding),
		cmocka_unit_test(test_frames_descriptors),
		cmocka_unit_test(test_frames_failures),
		cmocka_unit_test(test_stream_and_feed_sources),
		cmocka_unit_test(test_live_source_errors),
		cmocka_unit_test(test_damaged_captures),
		cmocka_unit_test(test_packet_summaries),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
