/* test_usbmon: usbmon records byte for byte as Linux's mon_bin writes them (S and C of
 * control, bulk IN, bulk OUT and interrupt URBs, an E record), the pcap global and record
 * headers as libpcap writes them for link type 220, the per-record flush and the callback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../sim/usbmon.h"

#define T_NS 1234567891234ull /* 1234.567891 s */
#define EPOCH 1700000000

static const uint8_t get_desc[8] = {0x80, 0x06, 0x00, 0x01, 0x00, 0x00, 0x40, 0x00};

static xb_usbmon_urb control_in(uint8_t *buf)
{
	xb_usbmon_urb u = {
		.id = 0xFFFF888000000200ull, .xfer_type = XB_USBMON_CONTROL, .endpoint = 0,
		.dir_in = 1, .devnum = 0, .busnum = 1, .setup = get_desc, .buffer = buf,
		.length = 64, .actual = 18, .flags = 0x200,
	};
	return u;
}

static void test_control_in_records(void **state)
{
	(void)state;
	static uint8_t buf[64], rec[XB_USBMON_HEADER + XB_USBMON_MAX_DATA];
	for (int i = 0; i < 18; i++)
		buf[i] = (uint8_t)(0x10 + i);
	xb_usbmon_urb u = control_in(buf);
	uint32_t orig;
	static const uint8_t want_s[64] = {
		0x00, 0x02, 0x00, 0x00, 0x80, 0x88, 0xFF, 0xFF, /* id */
		'S', 0x02, 0x80, 0x00, 0x01, 0x00, 0x00, '<',   /* S, control, ep 0x80, dev 0,
								   * bus 1, setup 0, data '<' */
		0xD2, 0xF5, 0x53, 0x65, 0x00, 0x00, 0x00, 0x00, /* ts_sec 1700001234 */
		0x53, 0xAA, 0x08, 0x00,                         /* ts_usec 567891 */
		0x8D, 0xFF, 0xFF, 0xFF,                         /* status -115 */
		0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* length 64, captured 0 */
		0x80, 0x06, 0x00, 0x01, 0x00, 0x00, 0x40, 0x00, /* setup */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* interval, start frame */
		0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* flags URB_DIR_IN, ndesc */
	};
	size_t n = usbmon_encode(&u, 'S', XB_USBMON_EINPROGRESS, T_NS, EPOCH, rec, &orig);
	assert_int_equal(n, 64);
	assert_memory_equal(rec, want_s, 64);
	assert_int_equal(orig, 64);
	static const uint8_t want_c[64] = {
		0x00, 0x02, 0x00, 0x00, 0x80, 0x88, 0xFF, 0xFF,
		'C', 0x02, 0x80, 0x00, 0x01, 0x00, '-', 0x00,   /* setup '-', data present */
		0xD2, 0xF5, 0x53, 0x65, 0x00, 0x00, 0x00, 0x00,
		0x53, 0xAA, 0x08, 0x00,
		0x00, 0x00, 0x00, 0x00,                         /* status 0 */
		0x12, 0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, /* length 18, captured 18 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	n = usbmon_encode(&u, 'C', 0, T_NS, EPOCH, rec, &orig);
	assert_int_equal(n, 64 + 18);
	assert_memory_equal(rec, want_c, 64);
	assert_memory_equal(rec + 64, buf, 18);
	assert_int_equal(orig, 64 + 18);
	/* A failed completion: the status, and what was received. */
	u.actual = 0;
	n = usbmon_encode(&u, 'C', -32, T_NS, EPOCH, rec, &orig);
	assert_int_equal(n, 64);
	assert_memory_equal(rec + 28, "\xE0\xFF\xFF\xFF", 4);
	assert_int_equal(rec[15], 0); /* IN completion without data: flag 0, as mon_bin */
}

static void test_control_out_no_data(void **state)
{
	(void)state;
	static uint8_t rec[XB_USBMON_HEADER + XB_USBMON_MAX_DATA];
	static const uint8_t set_address[8] = {0x00, 0x05, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00};
	xb_usbmon_urb u = {
		.id = 0x1000, .xfer_type = XB_USBMON_CONTROL, .dir_in = 0, .devnum = 0, .busnum = 1,
		.setup = set_address, .length = 0, .actual = 0,
	};
	uint32_t orig;
	assert_int_equal(usbmon_encode(&u, 'S', -115, 0, 0, rec, &orig), 64);
	assert_int_equal(rec[10], 0x00);
	assert_int_equal(rec[14], 0);
	assert_int_equal(rec[15], 0); /* OUT, nothing to send: no tag */
	assert_memory_equal(rec + 40, set_address, 8);
	assert_int_equal(usbmon_encode(&u, 'C', 0, 0, 0, rec, &orig), 64);
	assert_int_equal(rec[14], '-');
	assert_int_equal(rec[15], '>');
	assert_int_equal(orig, 64);
}

static void test_bulk_out_records(void **state)
{
	(void)state;
	static uint8_t frame[100], rec[XB_USBMON_HEADER + XB_USBMON_MAX_DATA];
	for (int i = 0; i < 100; i++)
		frame[i] = (uint8_t)(255 - i);
	xb_usbmon_urb u = {
		.id = 0xFFFF888000001400ull, .xfer_type = XB_USBMON_BULK, .endpoint = 2,
		.dir_in = 0, .devnum = 2, .busnum = 1, .buffer = frame, .length = 100,
		.actual = 100, .flags = 0,
	};
	uint32_t orig;
	static const uint8_t want_s[64] = {
		0x00, 0x14, 0x00, 0x00, 0x80, 0x88, 0xFF, 0xFF,
		'S', 0x03, 0x02, 0x02, 0x01, 0x00, '-', 0x00,   /* bulk, ep 2 OUT, dev 2, data */
		0xD2, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 1234 s, no epoch */
		0x53, 0xAA, 0x08, 0x00,
		0x8D, 0xFF, 0xFF, 0xFF,
		0x64, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, /* 100, 100 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	size_t n = usbmon_encode(&u, 'S', -115, T_NS, 0, rec, &orig);
	assert_int_equal(n, 164);
	assert_memory_equal(rec, want_s, 64);
	assert_memory_equal(rec + 64, frame, 100);
	assert_int_equal(orig, 164);
	n = usbmon_encode(&u, 'C', 0, T_NS, 0, rec, &orig);
	assert_int_equal(n, 64);
	assert_int_equal(rec[8], 'C');
	assert_int_equal(rec[15], '>');
	assert_memory_equal(rec + 28, "\0\0\0\0\x64\0\0\0\0\0\0\0", 12); /* status, 100, 0 */
	assert_int_equal(orig, 64);
}

static void test_bulk_in_and_interrupt_records(void **state)
{
	(void)state;
	static uint8_t buf[1514], rec[XB_USBMON_HEADER + XB_USBMON_MAX_DATA];
	memset(buf, 0xAB, sizeof buf);
	xb_usbmon_urb u = {
		.id = 0x2000, .xfer_type = XB_USBMON_BULK, .endpoint = 2, .dir_in = 1, .devnum = 2,
		.busnum = 3, .buffer = buf, .length = 1514, .actual = 60, .flags = 0x200,
	};
	uint32_t orig;
	assert_int_equal(usbmon_encode(&u, 'S', -115, 0, 0, rec, &orig), 64);
	assert_memory_equal(rec + 8, "S\x03\x82\x02\x03\x00-<", 8);
	assert_memory_equal(rec + 32, "\xEA\x05\0\0\0\0\0\0", 8); /* 1514, captured 0 */
	assert_int_equal(orig, 64);
	assert_int_equal(usbmon_encode(&u, 'C', 0, 0, 0, rec, &orig), 64 + 60);
	assert_memory_equal(rec + 8, "C\x03\x82\x02\x03\x00-\0", 8);
	assert_memory_equal(rec + 32, "\x3C\0\0\0\x3C\0\0\0", 8);
	assert_int_equal(orig, 124);
	/* Interrupt: the interval is recorded (S and C). */
	u.xfer_type = XB_USBMON_INTERRUPT;
	u.endpoint = 1;
	u.length = 64;
	u.actual = 8;
	u.interval = 2;
	u.flags = 0x300;
	assert_int_equal(usbmon_encode(&u, 'S', -115, 0, 0, rec, &orig), 64);
	assert_memory_equal(rec + 8, "S\x01\x81\x02\x03\x00-<", 8);
	assert_memory_equal(rec + 48, "\x02\0\0\0\0\0\0\0\0\x03\0\0\0\0\0\0", 16);
	assert_int_equal(usbmon_encode(&u, 'C', 0, 0, 0, rec, &orig), 72);
	assert_int_equal(rec[48], 2);
	/* An 'E' record: the error, no lengths, data flag 'E'. */
	assert_int_equal(usbmon_encode(&u, 'E', -108, 0, 0, rec, &orig), 64);
	assert_memory_equal(rec + 8, "E\x01\x81\x02\x03\x00-E", 8);
	assert_memory_equal(rec + 28, "\x94\xFF\xFF\xFF\0\0\0\0\0\0\0\0", 12);
	/* Data beyond mon_bin's limit is cut. */
	static uint8_t big[70000];
	u.xfer_type = XB_USBMON_BULK;
	u.buffer = big;
	u.length = u.actual = sizeof big;
	assert_int_equal(usbmon_encode(&u, 'C', 0, 0, 0, rec, &orig),
			 XB_USBMON_HEADER + XB_USBMON_MAX_DATA);
	assert_int_equal(orig, 64 + sizeof big);
}

typedef struct seen {
	int records;
	size_t last_len;
	uint64_t last_ns;
} seen;

static void on_record(void *ctx, const uint8_t *rec, size_t len, uint64_t ns)
{
	(void)rec;
	seen *s = ctx;
	s->records++;
	s->last_len = len;
	s->last_ns = ns;
}

static void test_pcap_stream(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	xb_usbmon_options o = {.epoch_sec = EPOCH};
	xb_usbmon *m = usbmon_new(f, &o);
	/* The global header is there at once (flushed). */
	static const uint8_t want_global[24] = {
		0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x00, 0x04, 0x00, 0xDC, 0x00, 0x00, 0x00, /* snaplen 262144, link 220 */
	};
	assert_int_equal(len, 24);
	assert_memory_equal(buf, want_global, 24);
	seen s = {0};
	usbmon_set_record_fn(m, on_record, &s);
	static uint8_t data[64];
	xb_usbmon_urb u = control_in(data);
	usbmon_submit(m, &u, T_NS);
	assert_int_equal(len, 24 + 16 + 64); /* flushed per record */
	usbmon_complete(m, &u, 0, T_NS + 86000);
	usbmon_error(m, &u, -108, T_NS + 90000);
	assert_int_equal(s.records, 3);
	assert_int_equal(s.last_len, 64);
	assert_int_equal(s.last_ns, T_NS + 90000);
	assert_int_equal(usbmon_records(m), 3);
	assert_false(usbmon_write_failed(m));
	usbmon_free(m);
	fclose(f);
	assert_int_equal(len, 24 + 16 + 64 + 16 + 82 + 16 + 64);
	const uint8_t *p = (const uint8_t *)buf + 24;
	/* record header: ts_sec, ts_usec, captured, original */
	assert_memory_equal(p, "\xD2\xF5\x53\x65\x53\xAA\x08\x00\x40\0\0\0\x40\0\0\0", 16);
	p += 16 + 64;
	assert_memory_equal(p, "\xD2\xF5\x53\x65\xA9\xAA\x08\x00\x52\0\0\0\x52\0\0\0", 16);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_in_records),
		cmocka_unit_test(test_control_out_no_data),
		cmocka_unit_test(test_bulk_out_records),
		cmocka_unit_test(test_bulk_in_and_interrupt_records),
		cmocka_unit_test(test_pcap_stream),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
