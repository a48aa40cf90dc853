/* test_capture_ncm: CDC-NCM and RNDIS framing. Hand-built NCM Transfer Blocks (NTH16/NDP16,
 * NTH32/NDP32, the CRC variants, one and several datagrams, several NDPs chained, the NDP
 * before or after its datagrams, zero-entry terminators) and REMOTE_NDIS_PACKET_MSG
 * transfers (several messages, padding, per-packet info) decoded field by field; every
 * malformed field gives its message and keeps the frames before the fault; how a device's
 * framing is recognised (configuration descriptors of NCM, RNDIS and composite devices,
 * else the first bytes of a transfer, else the option); transfers over several URBs ended
 * by the NTB's block length; echoes and turnarounds through the batch path and the live
 * tracker, the same as the same traffic over CDC-ECM. With XB_CAPTURE_NCM_OUT set to a
 * folder, the echo captures (ecm, ncm16, ncm32, rndis), the Ethernet frames sent and the
 * frames decoded from each capture are written there for
 * tests/integration/test_capture_ncm.sh (tshark as the oracle). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../capture/echo.h"
#include "../../capture/frames_internal.h"
#include "../../capture/tracker.h"
#include "test_capture_common.h"

#define T0 (CAP_EPOCH * 1000000000ull)

/* ---- Building transfers ---- */

static void le16w(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void le32w(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The Ethernet CRC-32 of n bytes. */
static uint32_t crc32_eth(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c >> 1 ^ (0xEDB88320u & (0u - (c & 1)));
	}
	return ~c;
}

/* An NCM Transfer Block being built. */
typedef struct ntb {
	uint8_t b[65536];
	uint32_t len;
	int w32;
	uint32_t last_ndp; /* 0: none linked yet */
} ntb;

static void ntb_start(ntb *n, int w32, uint16_t seq)
{
	memset(n->b, 0, sizeof n->b);
	n->w32 = w32;
	n->last_ndp = 0;
	memcpy(n->b, w32 ? "ncmh" : "NCMH", 4);
	le16w(n->b + 4, w32 ? 16 : 12);
	le16w(n->b + 6, seq);
	n->len = w32 ? 16 : 12;
}

static void ntb_align(ntb *n, uint32_t a)
{
	while (n->len % a)
		n->b[n->len++] = 0xEE; /* not zero: the decoder must not need it */
}

/* A datagram (with its CRC when crc), 4-aligned; returns its index. */
static uint32_t ntb_dgram(ntb *n, const uint8_t *f, uint32_t len, int crc)
{
	ntb_align(n, 4);
	uint32_t at = n->len;
	memcpy(n->b + at, f, len);
	n->len += len;
	if (crc) {
		le32w(n->b + n->len, crc32_eth(f, len));
		n->len += 4;
	}
	return at;
}

static uint32_t ndp_header(const ntb *n)
{
	return n->w32 ? 16 : 8;
}

static uint32_t ndp_entry(const ntb *n)
{
	return n->w32 ? 8 : 4;
}

/* An NDP with room for k entries and the zero entry (all zero for now), linked after the
 * previous one; returns its index. */
static uint32_t ntb_ndp(ntb *n, int crc, uint32_t k)
{
	ntb_align(n, 4);
	uint32_t at = n->len, nlen = ndp_header(n) + (k + 1) * ndp_entry(n);
	memset(n->b + at, 0, nlen);
	memcpy(n->b + at, n->w32 ? (crc ? "ncm1" : "ncm0") : (crc ? "NCM1" : "NCM0"), 4);
	le16w(n->b + at + 4, nlen);
	if (!n->last_ndp) {
		if (n->w32)
			le32w(n->b + 12, at);
		else
			le16w(n->b + 10, at);
	} else if (n->w32) {
		le32w(n->b + n->last_ndp + 8, at);
	} else {
		le16w(n->b + n->last_ndp + 6, at);
	}
	n->last_ndp = at;
	n->len = at + nlen;
	return at;
}

static void ndp_set(ntb *n, uint32_t ndp, uint32_t i, uint32_t index, uint32_t len)
{
	uint8_t *e = n->b + ndp + ndp_header(n) + i * ndp_entry(n);
	if (n->w32) {
		le32w(e, index);
		le32w(e + 4, len);
	} else {
		le16w(e, index);
		le16w(e + 2, len);
	}
}

static uint32_t ntb_end(ntb *n)
{
	if (n->w32)
		le32w(n->b + 8, n->len);
	else
		le16w(n->b + 8, n->len);
	return n->len;
}

/* The frames f[0 .. k) in one NTB: per_ndp datagrams per NDP (the NDPs chained), each NDP
 * before its datagrams when ndp_first, else after them. Returns the length. */
static uint32_t ntb_frames(ntb *n, int w32, int crc, int ndp_first, uint8_t *const *f,
			   const uint32_t *flen, size_t k, size_t per_ndp)
{
	ntb_start(n, w32, 1);
	for (size_t i = 0; i < k; i += per_ndp) {
		size_t m = k - i < per_ndp ? k - i : per_ndp;
		uint32_t idx[16], at = 0;
		assert_true(m <= 16);
		if (ndp_first)
			at = ntb_ndp(n, crc, (uint32_t)m);
		for (size_t j = 0; j < m; j++)
			idx[j] = ntb_dgram(n, f[i + j], flen[i + j], crc);
		if (!ndp_first)
			at = ntb_ndp(n, crc, (uint32_t)m);
		for (size_t j = 0; j < m; j++)
			ndp_set(n, at, (uint32_t)j, idx[j], flen[i + j] + (crc ? 4 : 0));
	}
	return ntb_end(n);
}

/* RNDIS transfers being built. */
typedef struct rnd {
	uint8_t b[65536];
	uint32_t len;
} rnd;

/* A REMOTE_NDIS_PACKET_MSG: ppi bytes of per-packet info before the frame, tail bytes of
 * padding after it inside MessageLength. Returns its offset. */
static uint32_t rndis_msg(rnd *r, const uint8_t *f, uint32_t flen, uint32_t ppi, uint32_t tail)
{
	uint32_t at = r->len, mlen = 44 + ppi + flen + tail;
	uint8_t *p = r->b + at;
	memset(p, 0, mlen);
	le32w(p, 1);
	le32w(p + 4, mlen);
	le32w(p + 8, 36 + ppi);
	le32w(p + 12, flen);
	if (ppi) {
		le32w(p + 28, 36);
		le32w(p + 32, ppi);
		le32w(p + 44, ppi); /* one record: Size, Type (TCP/IP checksum), Offset, value */
		le32w(p + 48, 0);
		le32w(p + 52, 12);
	}
	memcpy(p + 44 + ppi, f, flen);
	r->len += mlen;
	return at;
}

/* ---- Frames ---- */

#define MAXF 8
static uint8_t fr[MAXF][1600];
static uint32_t frl[MAXF];
static uint8_t *frp[MAXF];

/* k frames: pings to the device of growing sizes. */
static void make_frames(size_t k)
{
	for (size_t i = 0; i < k; i++) {
		frl[i] = (uint32_t)cap_icmp(fr[i], 1, 0x77, (uint16_t)(i + 1), 20 + 10 * i);
		frp[i] = fr[i];
	}
}

/* Datagram i of d is frame j of make_frames. */
static void assert_dgram(const frames_decoded *d, size_t i, const uint8_t *b, size_t j)
{
	assert_true(i < d->n);
	assert_int_equal(d->d[i].len, frl[j]);
	assert_memory_equal(b + d->d[i].off, fr[j], frl[j]);
}

/* ---- NCM decoding ---- */

static void test_ncm_well_formed(void **state)
{
	(void)state;
	static ntb n;
	frames_decoded d = {0};
	make_frames(6);
	/* one datagram, NDP after it */
	uint32_t len = ntb_frames(&n, 0, 0, 0, frp, frl, 1, 1);
	frames_decode(XB_FRAMES_PROTO_NCM, n.b, len, len, &d);
	assert_string_equal(d.err, "");
	assert_int_equal(d.n, 1);
	assert_int_equal(d.d[0].off, 12);
	assert_dgram(&d, 0, n.b, 0);
	/* three in one NDP, the NDP first (as Linux's cdc_ncm sends them) */
	len = ntb_frames(&n, 0, 0, 1, frp, frl, 3, 3);
	frames_decode(XB_FRAMES_PROTO_NCM, n.b, len, len, &d);
	assert_string_equal(d.err, "");
	assert_int_equal(d.n, 3);
	assert_int_equal(d.d[0].off, 12 + 8 + 4 * 4);
	for (size_t i = 0; i < 3; i++)
		assert_dgram(&d, i, n.b, i);
	/* six in three chained NDPs, both orders */
	for (int first = 0; first < 2; first++) {
		len = ntb_frames(&n, 0, 0, first, frp, frl, 6, 2);
		frames_decode(XB_FRAMES_PROTO_NCM, n.b, len, len, &d);
		assert_string_equal(d.err, "");
		assert_int_equal(d.n, 6);
		for (size_t i = 0; i < 6; i++)
			assert_dgram(&d, i, n.b, i);
	}
	/* NCM1: each datagram ends with its CRC, which is not part of the frame */
	len = ntb_frames(&n, 0, 1, 0, frp, frl, 4, 2);
	frames_decode(XB_FRAMES_PROTO_NCM, n.b, len, len, &d);
	assert_string_equal(d.err, "");
	assert_int_equal(d.n, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_dgram(&d, i, n.b, i);
		uint8_t *crc = n.b + d.d[i].off + d.d[i].len;
		assert_true((uint32_t)(crc[0] | crc[1] << 8 | crc[2] << 16 | (uint32_t)crc[3] << 24) ==
			    crc32_eth(fr[i], frl[i]));
	}
	/* NTH32 with NDP32s, with and without CRCs */
	for (int crc = 0; crc < 2; crc++) {
		len = ntb_frames(&n, 1, crc, crc, frp, frl, 5, 2);
		assert_memory_equal(n.b, "ncmh", 4);
		frames_decode(XB_FRAMES_PROTO_NCM, n.b, len, len, &d);
		assert_string_equal(d.err, "");
		assert_int_equal(d.n, 5);
		for (size_t i = 0; i < 5; i++)
			assert_dgram(&d, i, n.b, i);
	}
	frames_decoded_free(&d);
}

/* The table ends at the first entry with a zero index or length (NCM 1.0 3.3.1): what
 * follows it is not read; an NDP may be longer than its entries need, or empty. */
static void test_ncm_terminators(void **state)
{
	(void)state;
	static ntb n;
	frames_decoded d = {0};
	make_frames(3);
	ntb_start(&n, 0, 7);
	uint32_t a = ntb_dgram(&n, fr[0], frl[0], 0), b = ntb_dgram(&n, fr[1], frl[1], 0);
	uint32_t ndp = ntb_ndp(&n, 0, 5); /* six entries */
	ndp_set(&n, ndp, 0, a, frl[0]);
	ndp_set(&n, ndp, 1, b, 0);          /* zero length: the end */
	ndp_set(&n, ndp, 2, b, frl[1]);     /* not read */
	ndp_set(&n, ndp, 3, 0xFFFF, 0xFFFF); /* not read either */
	uint32_t len = ntb_end(&n);
	frames_decode(XB_FRAMES_PROTO_NCM, n.b, len, len, &d);
	assert_string_equal(d.err, "");
	assert_int_equal(d.n, 1);
	assert_dgram(&d, 0, n.b, 0);
	ndp_set(&n, ndp, 1, 0, frl[1]); /* zero index: the end too */
	frames_decode(XB_FRAMES_PROTO_NCM, n.b, len, len, &d);
	assert_string_equal(d.err, "");
	assert_int_equal(d.n, 1);
	/* an empty NDP chained before a full one */
	ntb_start(&n, 0, 8);
	ntb_ndp(&n, 0, 1);
	a = ntb_dgram(&n, fr[2], frl[2], 0);
	ndp = ntb_ndp(&n, 0, 1);
	ndp_set(&n, ndp, 0, a, frl[2]);
	len = ntb_end(&n);
	frames_decode(XB_FRAMES_PROTO_NCM, n.b, len, len, &d);
	assert_string_equal(d.err, "");
	assert_int_equal(d.n, 1);
	assert_dgram(&d, 0, n.b, 2);
	/* wBlockLength 0: the block ends with the transfer; bytes after wBlockLength are not
	 * read (a host's padding up to its NTB size) */
	le16w(n.b + 8, 0);
	frames_decode(XB_FRAMES_PROTO_NCM, n.b, len, len, &d);
	assert_string_equal(d.err, "");
	assert_int_equal(d.n, 1);
	le16w(n.b + 8, len);
	memset(n.b + len, 0, 100);
	frames_decode(XB_FRAMES_PROTO_NCM, n.b, len + 100, len + 100, &d);
	assert_string_equal(d.err, "");
	assert_int_equal(d.n, 1);
	frames_decoded_free(&d);
}

/* One transfer decoded with its first fault described (err, "" for none), and the
 * frames before it: frames 0 .. frames of make_frames. */
static void expect_decoded(uint8_t proto, const uint8_t *b, uint32_t captured, uint32_t len,
			   size_t frames, const char *err)
{
	frames_decoded d = {0};
	frames_decode(proto, b, captured, len, &d);
	if (strcmp(d.err, err) != 0)
		fail_msg("got \"%s\", want \"%s\"", d.err, err);
	assert_int_equal(d.n, frames);
	for (size_t i = 0; i < frames; i++)
		assert_dgram(&d, i, b, i);
	frames_decoded_free(&d);
}

/* One malformed NTB. */
static void expect_fault(const ntb *n, uint32_t captured, uint32_t len, size_t frames,
			 const char *err)
{
	expect_decoded(XB_FRAMES_PROTO_NCM, n->b, captured, len, frames, err);
}

/* Three datagrams in one NDP after them (at 12, 76, 148, the NDP at 232). */
static uint32_t three(ntb *n)
{
	make_frames(3);
	uint32_t len = ntb_frames(n, 0, 0, 0, frp, frl, 3, 3);
	assert_int_equal(len, 232 + 24);
	return len;
}

static void test_ncm_malformed_header(void **state)
{
	(void)state;
	static ntb n;
	uint32_t len = three(&n);
	memcpy(n.b, "NCMX", 4);
	expect_fault(&n, len, len, 0,
		     "the transfer starts with \"NCMX\", neither an NTH16 (\"NCMH\") nor an NTH32 "
		     "(\"ncmh\") signature");
	memcpy(n.b, "\x01\0\0\0", 4);
	expect_fault(&n, len, len, 0,
		     "the transfer starts with 0x00000001, neither an NTH16 (\"NCMH\") nor an NTH32 "
		     "(\"ncmh\") signature");
	len = three(&n);
	le16w(n.b + 4, 16);
	expect_fault(&n, len, len, 0, "NTB16: wHeaderLength 16, not 12");
	len = three(&n);
	expect_fault(&n, 10, 10, 0, "a 10-byte transfer is shorter than an NTH16 (12 bytes)");
	expect_fault(&n, 8, len, 0,
		     "the NTH was cut by the snap length (8 of the transfer's 256 bytes captured)");
	le16w(n.b + 8, 11);
	expect_fault(&n, len, len, 0, "NTB16: block length 11 is shorter than the NTH (12 bytes)");
	/* the transfer ends inside the block: the datagrams it holds are kept */
	le16w(n.b + 8, 300);
	expect_fault(&n, len, len, 3, "NTB16: the transfer (256 bytes) ends inside the block (300 bytes)");
	len = three(&n);
	le16w(n.b + 10, 0);
	expect_fault(&n, len, len, 0, "NTB16: no NDP (wNdpIndex 0)");
	le16w(n.b + 10, 8);
	expect_fault(&n, len, len, 0, "NTB16: an NDP at 8 (inside the NTH)");
	le16w(n.b + 10, 230);
	expect_fault(&n, len, len, 0, "NTB16: an NDP at 230 (not a multiple of 4)");
	le16w(n.b + 10, 252);
	expect_fault(&n, len, len, 0, "NTB16: the NDP at 252 runs past the block (256 bytes)");
	/* NTH32 */
	make_frames(2);
	len = ntb_frames(&n, 1, 0, 0, frp, frl, 2, 2);
	le16w(n.b + 4, 12);
	expect_fault(&n, len, len, 0, "NTB32: wHeaderLength 12, not 16");
	expect_fault(&n, 14, 14, 0, "a 14-byte transfer is shorter than an NTH32 (16 bytes)");
	le16w(n.b + 4, 16);
	le32w(n.b + 8, 70000);
	expect_fault(&n, len, len, 2,
		     "NTB32: the transfer (192 bytes) ends inside the block (70000 bytes)");
}

static void test_ncm_malformed_ndp(void **state)
{
	(void)state;
	static ntb n;
	uint32_t len = three(&n);
	memcpy(n.b + 232, "NCM2", 4);
	expect_fault(&n, len, len, 0,
		     "NTB16: the NDP at 232 has signature \"NCM2\", neither \"NCM0\" nor \"NCM1\"");
	memcpy(n.b + 232, "ncm0", 4);
	expect_fault(&n, len, len, 0,
		     "NTB16: the NDP at 232 has signature \"ncm0\", an NDP32's in an NTB16");
	len = three(&n);
	le16w(n.b + 232 + 4, 12);
	expect_fault(&n, len, len, 0,
		     "NTB16: the NDP at 232 has length 12, less than 16 (a datagram and the zero "
		     "entry)");
	le16w(n.b + 232 + 4, 26);
	expect_fault(&n, len, len, 0, "NTB16: the NDP at 232 has length 26, not a multiple of 4");
	le16w(n.b + 232 + 4, 28);
	expect_fault(&n, len, len, 0, "NTB16: the NDP at 232 (28 bytes) runs past the block (256 bytes)");
	le16w(n.b + 232 + 4, 24);
	expect_fault(&n, 240, len, 0,
		     "NTB16: the NDP at 232 (24 bytes) runs past the captured bytes (240 bytes)");
	/* the NDP's last entry is not the zero entry: the datagrams before it are kept */
	len = three(&n);
	le16w(n.b + 232 + 4, 20);
	expect_fault(&n, len, len, 2, "NTB16: the NDP at 232 does not end with a zero entry");
	/* NDP32 sizes: a multiple of 8, at least 32 */
	make_frames(2);
	len = ntb_frames(&n, 1, 0, 0, frp, frl, 2, 2);
	uint32_t ndp = n.last_ndp;
	le16w(n.b + ndp + 4, 36);
	expect_fault(&n, len, len, 0, "NTB32: the NDP at 152 has length 36, not a multiple of 8");
	le16w(n.b + ndp + 4, 24);
	expect_fault(&n, len, len, 0,
		     "NTB32: the NDP at 152 has length 24, less than 32 (a datagram and the zero "
		     "entry)");
	le16w(n.b + ndp + 4, 40);
	memcpy(n.b + ndp, "NCM0", 4);
	expect_fault(&n, len, len, 0,
		     "NTB32: the NDP at 152 has signature \"NCM0\", an NDP16's in an NTB32");
}

static void test_ncm_malformed_datagrams(void **state)
{
	(void)state;
	static ntb n;
	uint32_t len = three(&n);
	ndp_set(&n, 232, 1, 76, 200); /* past the block's end: the first is kept */
	expect_fault(&n, len, len, 1,
		     "NTB16: datagram 1 of the NDP at 232 (200 bytes at 76) is past the block's end");
	len = three(&n);
	ndp_set(&n, 232, 2, 4, frl[2]);
	expect_fault(&n, len, len, 2,
		     "NTB16: datagram 2 of the NDP at 232 (82 bytes at 4) is inside the NTH");
	len = three(&n);
	ndp_set(&n, 232, 1, 76, 13);
	expect_fault(&n, len, len, 1,
		     "NTB16: datagram 1 of the NDP at 232 has 13 bytes, less than an Ethernet header");
	/* overlapping datagrams; a datagram over its NDP */
	len = three(&n);
	ndp_set(&n, 232, 2, 100, 60);
	expect_fault(&n, len, len, 2,
		     "NTB16: datagram 2 of the NDP at 232 (60 bytes at 100) overlaps an NDP or "
		     "another datagram");
	ndp_set(&n, 232, 2, 12, frl[0]); /* the same datagram twice */
	expect_fault(&n, len, len, 2,
		     "NTB16: datagram 2 of the NDP at 232 (62 bytes at 12) overlaps an NDP or "
		     "another datagram");
	ndp_set(&n, 232, 2, 200, 40);
	expect_fault(&n, len, len, 2,
		     "NTB16: datagram 2 of the NDP at 232 (40 bytes at 200) overlaps an NDP or "
		     "another datagram");
	/* CRC variant: a datagram too short for a header and its CRC */
	make_frames(2);
	len = ntb_frames(&n, 0, 1, 0, frp, frl, 2, 2);
	assert_int_equal(n.last_ndp, 156);
	ndp_set(&n, n.last_ndp, 1, 80, 17);
	expect_fault(&n, len, len, 1,
		     "NTB16: datagram 1 of the NDP at 156 has 17 bytes, less than an Ethernet "
		     "header and its CRC");
}

static void test_ncm_malformed_chain(void **state)
{
	(void)state;
	static ntb n;
	/* the second NDP points back to the first: the first's datagrams are kept */
	make_frames(4);
	uint32_t len = ntb_frames(&n, 0, 0, 0, frp, frl, 4, 2);
	uint32_t first = (uint32_t)(n.b[10] | n.b[11] << 8);
	le16w(n.b + n.last_ndp + 6, first);
	assert_int_equal(first, 148);
	assert_int_equal(n.last_ndp, 344);
	expect_fault(&n, len, len, 4, "NTB16: the NDP chain loops back to the NDP at 148");
	/* a datagram over a later NDP: the NDP overlaps it */
	len = ntb_frames(&n, 0, 0, 0, frp, frl, 4, 2);
	ndp_set(&n, first, 1, 340, 20);
	frames_decoded d = {0};
	frames_decode(XB_FRAMES_PROTO_NCM, n.b, len, len, &d);
	assert_string_equal(d.err, "NTB16: the NDP at 344 overlaps an earlier NDP or datagram");
	assert_int_equal(d.n, 2);
	assert_int_equal(d.d[1].off, 340);
	frames_decoded_free(&d);
	/* an NDP over a later datagram: the datagram overlaps it */
	len = ntb_frames(&n, 0, 0, 0, frp, frl, 4, 2);
	le16w(n.b + first + 4, 24);
	expect_fault(&n, len, len, 2,
		     "NTB16: datagram 0 of the NDP at 344 (82 bytes at 168) overlaps an NDP or "
		     "another datagram");
	/* the NDP's next index past the block */
	len = ntb_frames(&n, 0, 0, 0, frp, frl, 4, 2);
	le16w(n.b + first + 6, 0xFFF0);
	expect_fault(&n, len, len, 2, "NTB16: the NDP at 65520 runs past the block (364 bytes)");
	/* too many NDPs: 1025 empty NDPs chained after one with a datagram */
	make_frames(1);
	ntb_start(&n, 0, 1);
	uint32_t a = ntb_dgram(&n, fr[0], frl[0], 0);
	uint32_t ndp = ntb_ndp(&n, 0, 1);
	ndp_set(&n, ndp, 0, a, frl[0]);
	for (int i = 0; i < 1024; i++)
		ntb_ndp(&n, 0, 1);
	len = ntb_end(&n);
	assert_true(len < 65536);
	expect_fault(&n, len, len, 1, "NTB16: more than 1024 NDPs in the chain");
	/* 1024 are fine */
	le16w(n.b + n.last_ndp - 16 + 6, 0);
	len = ntb_end(&n);
	expect_fault(&n, len, len, 1, "");
}

/* ---- RNDIS decoding ---- */

static void expect_rndis(const rnd *r, uint32_t captured, uint32_t len, size_t frames,
			 const char *err)
{
	expect_decoded(XB_FRAMES_PROTO_RNDIS, r->b, captured, len, frames, err);
}

static void test_rndis_well_formed(void **state)
{
	(void)state;
	static rnd r;
	make_frames(4);
	r.len = 0;
	assert_int_equal(rndis_msg(&r, fr[0], frl[0], 0, 0), 0);
	expect_rndis(&r, r.len, r.len, 1, "");
	frames_decoded d = {0};
	frames_decode(XB_FRAMES_PROTO_RNDIS, r.b, r.len, r.len, &d);
	assert_int_equal(d.d[0].off, 44); /* DataOffset 36 counts from byte 8 */
	frames_decoded_free(&d);
	/* several messages: per-packet info before the data, padding inside MessageLength,
	 * zero bytes between messages and a host's one zero byte at the end */
	r.len = 0;
	rndis_msg(&r, fr[0], frl[0], 0, 0);
	rndis_msg(&r, fr[1], frl[1], 16, 3);
	memset(r.b + r.len, 0, 4);
	r.len += 4;
	rndis_msg(&r, fr[2], frl[2], 0, 0);
	rndis_msg(&r, fr[3], frl[3], 0, 0);
	r.b[r.len++] = 0;
	expect_rndis(&r, r.len, r.len, 4, "");
	/* the out-of-band data may be there too (length 0: not read) */
	le32w(r.b + 16, 0xFFFFFFF0u);
	expect_rndis(&r, r.len, r.len, 4, "");
}

static void test_rndis_malformed(void **state)
{
	(void)state;
	static rnd r;
	make_frames(3);
	r.len = 0;
	uint32_t m0 = rndis_msg(&r, fr[0], frl[0], 0, 0);
	uint32_t m1 = rndis_msg(&r, fr[1], frl[1], 0, 0);
	rndis_msg(&r, fr[2], frl[2], 0, 0);
	uint32_t len = r.len;
	assert_int_equal(m1, 44 + frl[0]);
	/* a transfer cut inside its second message: the first is kept */
	expect_rndis(&r, m1 + 50, m1 + 50, 1,
		     "RNDIS: the message at 106: MessageLength 116 runs past the end of the "
		     "transfer");
	expect_rndis(&r, m1 + 20, m1 + 20, 1,
		     "RNDIS: 20 bytes at 106 are neither a REMOTE_NDIS_PACKET_MSG (a 44-byte header "
		     "at least) nor zero padding");
	expect_rndis(&r, m1 + 20, len, 1,
		     "RNDIS: the message at 106 was cut by the snap length (126 bytes captured)");
	/* a control message on the data endpoint */
	le32w(r.b + m1, 0x80000002u);
	expect_rndis(&r, len, len, 1,
		     "RNDIS: the message at 106 has type 0x80000002 (INITIALIZE_CMPLT), not "
		     "REMOTE_NDIS_PACKET_MSG");
	le32w(r.b + m1, 1);
	le32w(r.b + m1 + 4, 40);
	expect_rndis(&r, len, len, 1,
		     "RNDIS: the message at 106: MessageLength 40 is shorter than its 44-byte header");
	le32w(r.b + m1 + 4, 44 + frl[1]);
	/* DataOffset out of range, both ways */
	le32w(r.b + m1 + 8, 30);
	expect_rndis(&r, len, len, 1,
		     "RNDIS: the message at 106: the data (DataOffset 30, DataLength 72) is inside "
		     "the header");
	le32w(r.b + m1 + 8, 40);
	expect_rndis(&r, len, len, 1,
		     "RNDIS: the message at 106: the data (DataOffset 40, DataLength 72) is past its "
		     "MessageLength");
	le32w(r.b + m1 + 8, 0xFFFFFFF8u); /* no wrap-around */
	expect_rndis(&r, len, len, 1,
		     "RNDIS: the message at 106: the data (DataOffset 4294967288, DataLength 72) is "
		     "past its MessageLength");
	le32w(r.b + m1 + 8, 36);
	le32w(r.b + m1 + 12, 10);
	expect_rndis(&r, len, len, 1,
		     "RNDIS: the message at 106: DataLength 10 is less than an Ethernet header");
	le32w(r.b + m1 + 12, frl[1]);
	/* out-of-band data and per-packet info out of range */
	le32w(r.b + m1 + 16, 36);
	le32w(r.b + m1 + 20, 100);
	expect_rndis(&r, len, len, 1,
		     "RNDIS: the message at 106: the out-of-band data (offset 36, length 100) is "
		     "past its MessageLength");
	le32w(r.b + m1 + 20, 0);
	le32w(r.b + m1 + 28, 8);
	le32w(r.b + m1 + 32, 4);
	expect_rndis(&r, len, len, 1,
		     "RNDIS: the message at 106: the per-packet info (offset 8, length 4) is inside "
		     "the header");
	le32w(r.b + m1 + 32, 0);
	expect_rndis(&r, len, len, 3, "");
	/* the first message bad: nothing */
	le32w(r.b + m0, 2);
	expect_rndis(&r, len, len, 0,
		     "RNDIS: the message at 0 has type 0x00000002 (INITIALIZE), not "
		     "REMOTE_NDIS_PACKET_MSG");
	/* longer than any transfer */
	frames_decoded d = {0};
	frames_decode(XB_FRAMES_PROTO_RNDIS, r.b, 10, 70000, &d);
	assert_string_equal(d.err, "a 70000-byte transfer is longer than 65536 bytes");
	assert_int_equal(d.n, 0);
	frames_decoded_free(&d);
}

/* What the first bytes show, and whether the bytes so far are a whole transfer. */
static void test_sniff_and_complete(void **state)
{
	(void)state;
	static ntb n;
	static rnd r;
	make_frames(2);
	uint32_t len = ntb_frames(&n, 0, 0, 0, frp, frl, 2, 2);
	assert_int_equal(frames_sniff(n.b, len), XB_FRAMES_PROTO_NCM);
	assert_int_equal(frames_sniff(n.b, 11), XB_FRAMES_PROTO_AUTO);
	le16w(n.b + 4, 16);
	assert_int_equal(frames_sniff(n.b, len), XB_FRAMES_PROTO_AUTO); /* not a header length */
	le16w(n.b + 4, 12);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_NCM, n.b, 64, 64), 0);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_NCM, n.b, len, len), 1);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_NCM, n.b, 8, 64), -1); /* cut */
	le16w(n.b + 8, 0);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_NCM, n.b, len, len), -1);
	len = ntb_frames(&n, 1, 0, 0, frp, frl, 2, 2);
	assert_int_equal(frames_sniff(n.b, len), XB_FRAMES_PROTO_NCM);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_NCM, n.b, 14, 14), -1);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_NCM, n.b, 64, 64), 0);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_NCM, n.b, len, len), 1);
	/* RNDIS: a well-formed packet message; an Ethernet frame is not one */
	r.len = 0;
	rndis_msg(&r, fr[0], frl[0], 0, 0);
	uint32_t m1 = r.len;
	rndis_msg(&r, fr[1], frl[1], 0, 0);
	assert_int_equal(frames_sniff(r.b, r.len), XB_FRAMES_PROTO_RNDIS);
	assert_int_equal(frames_sniff(r.b, 43), XB_FRAMES_PROTO_AUTO);
	assert_int_equal(frames_sniff(fr[0], frl[0]), XB_FRAMES_PROTO_AUTO);
	le32w(r.b + 12, 10);
	assert_int_equal(frames_sniff(r.b, r.len), XB_FRAMES_PROTO_AUTO);
	le32w(r.b + 12, frl[0]);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_RNDIS, r.b, 64, 64), 0);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_RNDIS, r.b, m1, m1), 1);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_RNDIS, r.b, m1 + 4, m1 + 4), -1);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_RNDIS, r.b, m1 + 64, m1 + 64), 0);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_RNDIS, r.b, r.len, r.len), 1);
	r.b[r.len] = 0;
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_RNDIS, r.b, r.len + 1, r.len + 1), 1);
	assert_int_equal(frames_complete(XB_FRAMES_PROTO_ECM, r.b, r.len, r.len), -1);
}

/* ---- Captures ---- */

enum framing { F_ECM, F_NCM16, F_NCM32, F_RNDIS, F_COUNT };
static const char *const framing_name[F_COUNT] = {"ecm", "ncm16", "ncm32", "rndis"};

/* A configuration with one network function of the framing's class (and, when acm, a
 * CDC-ACM function with bulk endpoints 0x83/0x03 before it); bulk IN 0x82, OUT 0x02 of
 * mps bytes. rndis_class picks RNDIS's class triple: 0 E0/01/03, 1 02/02/FF, 2 EF/04/01.
 * Returns the length. */
static uint16_t net_config(uint8_t *d, enum framing f, uint16_t mps, int acm, int rndis_class)
{
	uint16_t n = 9;
	static const uint8_t cfg[] = {9, 2, 0, 0, 2, 1, 0, 0x80, 50};
	memcpy(d, cfg, 9);
	if (acm) {
		static const uint8_t a[] = {
			9, 4, 2, 0, 1, 2, 2, 1, 0,  5, 0x24, 0, 0x10, 1, 5, 0x24, 6, 2, 3,
			7, 5, 0x84, 3, 8, 0, 16,    9, 4, 3, 0, 2, 10, 0, 0, 0,
			7, 5, 0x83, 2, 64, 0, 0,    7, 5, 0x03, 2, 64, 0, 0,
		};
		memcpy(d + n, a, sizeof a);
		n += sizeof a;
		d[4] = 4;
	}
	static const uint8_t rndis_classes[3][3] = {{0xE0, 1, 3}, {2, 2, 0xFF}, {0xEF, 4, 1}};
	uint8_t cls = 2, sub = f == F_ECM ? 6 : 0x0D, prot = 0;
	if (f == F_RNDIS) {
		cls = rndis_classes[rndis_class][0];
		sub = rndis_classes[rndis_class][1];
		prot = rndis_classes[rndis_class][2];
	}
	const uint8_t iad[] = {8, 0x0B, 0, 2, cls, sub, prot, 0};
	const uint8_t comm[] = {9, 4, 0, 0, 1, cls, sub, prot, 0};
	static const uint8_t func[] = {5, 0x24, 0, 0x10, 1, 5, 0x24, 6, 0, 1};
	static const uint8_t notify[] = {7, 5, 0x81, 3, 16, 0, 32};
	memcpy(d + n, iad, sizeof iad);
	n += sizeof iad;
	memcpy(d + n, comm, sizeof comm);
	n += sizeof comm;
	memcpy(d + n, func, sizeof func);
	n += sizeof func;
	if (f == F_NCM16 || f == F_NCM32) {
		static const uint8_t ncm[] = {6, 0x24, 0x1A, 0, 1, 0};
		memcpy(d + n, ncm, sizeof ncm);
		n += sizeof ncm;
	}
	memcpy(d + n, notify, sizeof notify);
	n += sizeof notify;
	if (f != F_RNDIS) { /* alternate setting 0 without endpoints */
		static const uint8_t alt0[] = {9, 4, 1, 0, 0, 10, 0, 0, 0};
		memcpy(d + n, alt0, sizeof alt0);
		n += sizeof alt0;
	}
	const uint8_t data[] = {
		9, 4, 1, f == F_RNDIS ? 0 : 1, 2, 10, 0, f == F_NCM16 || f == F_NCM32 ? 1 : 0, 0,
		7, 5, 0x82, 2, (uint8_t)mps, (uint8_t)(mps >> 8), 0,
		7, 5, 0x02, 2, (uint8_t)mps, (uint8_t)(mps >> 8), 0,
	};
	memcpy(d + n, data, sizeof data);
	n += sizeof data;
	d[2] = (uint8_t)n;
	d[3] = (uint8_t)(n >> 8);
	return n;
}

/* The frames f[0 .. k) as one transfer's bytes in the framing (ECM: k must be 1). */
static uint32_t wrap(enum framing f, uint8_t *const *fp, const uint32_t *fl, size_t k,
		     uint8_t *out)
{
	static ntb n;
	static rnd r;
	if (f == F_ECM) {
		assert_int_equal(k, 1);
		memcpy(out, fp[0], fl[0]);
		return fl[0];
	}
	if (f == F_RNDIS) {
		r.len = 0;
		for (size_t i = 0; i < k; i++)
			rndis_msg(&r, fp[i], fl[i], i == 1 ? 16 : 0, 0);
		memcpy(out, r.b, r.len);
		return r.len;
	}
	uint32_t len = ntb_frames(&n, f == F_NCM32, 0, 1, fp, fl, k, 2);
	memcpy(out, n.b, len);
	return len;
}

/* Ground truth: the Ethernet frames sent, in the order frames_add appends them. */
typedef struct sent {
	uint8_t f[64][1600];
	uint32_t len[64];
	int in[64];
	size_t n;
} sent;

/* Frames f[0 .. k) sent in direction in, into s (when not NULL). */
static void sent_add(sent *s, uint8_t *const *fp, const uint32_t *fl, size_t k, int in)
{
	for (size_t i = 0; s && i < k; i++) {
		memcpy(s->f[s->n], fp[i], fl[i]);
		s->len[s->n] = fl[i];
		s->in[s->n++] = in;
	}
}

/* k frames in one OUT transfer at t_us (its 'C' 100 us later); ECM: k transfers. */
static void send_out(cap_writer *w, enum framing f, uint8_t *const *fp, const uint32_t *fl,
		     size_t k, uint64_t t_us, sent *s)
{
	static uint8_t buf[65536];
	sent_add(s, fp, fl, k, 0);
	if (f == F_ECM) {
		for (size_t i = 0; i < k; i++)
			cap_out(w, 2, fp[i], fl[i], 0, t_us * CAP_US, (t_us + 100) * CAP_US, 0);
		return;
	}
	uint32_t len = wrap(f, fp, fl, k, buf);
	cap_out(w, 2, buf, len, 0, t_us * CAP_US, (t_us + 100) * CAP_US, 0);
}

/* k frames in one IN transfer completed at t_us into a 2048-byte buffer. */
static void send_in(cap_writer *w, enum framing f, uint8_t *const *fp, const uint32_t *fl,
		    size_t k, uint64_t t_us, sent *s)
{
	static uint8_t buf[65536];
	sent_add(s, fp, fl, k, 1);
	if (f == F_ECM) {
		for (size_t i = 0; i < k; i++)
			cap_in(w, 2, fp[i], fl[i], 2048, (t_us - 50) * CAP_US, t_us * CAP_US, 0);
		return;
	}
	uint32_t len = wrap(f, fp, fl, k, buf);
	cap_in(w, 2, buf, len, 2048, (t_us - 50) * CAP_US, t_us * CAP_US, 0);
}

/* Echo traffic batched as NCM and RNDIS hosts and devices batch it: pings 1-2 in one
 * transfer, answered in one; ping 3 and UDP echoes 0-1 in one, answered in two; ping 4
 * lost; a 1400-byte ping answered with an ARP request beside it; ping 6 answered twice.
 * Expected turnarounds (us): 700, 700, 600, 900, 900, 800, 650. */
static void echo_traffic(cap_writer *w, enum framing f, int descriptors, sent *s)
{
	static uint8_t q[8][1600], a[8][1600];
	uint8_t *qp[8], *ap[8];
	uint32_t ql[8], al[8];
	for (int i = 0; i < 8; i++) {
		qp[i] = q[i];
		ap[i] = a[i];
	}
	if (descriptors) {
		uint8_t cfg[256];
		cap_config(w, 2, cfg, net_config(cfg, f, 64, 0, 0), 1);
	}
	/* 1, 2 */
	ql[0] = (uint32_t)cap_icmp(q[0], 1, 0x4242, 1, 56);
	ql[1] = (uint32_t)cap_icmp(q[1], 1, 0x4242, 2, 56);
	send_out(w, f, qp, ql, 2, 1000, s);
	al[0] = (uint32_t)cap_icmp(a[0], 0, 0x4242, 1, 56);
	al[1] = (uint32_t)cap_icmp(a[1], 0, 0x4242, 2, 56);
	send_in(w, f, ap, al, 2, 1800, s);
	/* 3, UDP 0, UDP 1 */
	ql[0] = (uint32_t)cap_icmp(q[0], 1, 0x4242, 3, 56);
	ql[1] = (uint32_t)cap_udp(q[1], 1, 40000, 7, 0, 64);
	ql[2] = (uint32_t)cap_udp(q[2], 1, 40000, 7, 1, 64);
	send_out(w, f, qp, ql, 3, 21000, s);
	al[0] = (uint32_t)cap_icmp(a[0], 0, 0x4242, 3, 56);
	send_in(w, f, ap, al, 1, 21700, s);
	al[1] = (uint32_t)cap_udp(a[1], 0, 40000, 7, 0, 64);
	al[2] = (uint32_t)cap_udp(a[2], 0, 40000, 7, 1, 64);
	send_in(w, f, ap + 1, al + 1, 2, 22000, s);
	/* 4: lost */
	ql[0] = (uint32_t)cap_icmp(q[0], 1, 0x4242, 4, 56);
	send_out(w, f, qp, ql, 1, 41000, s);
	/* 5: 1400 bytes, its reply beside an ARP request */
	ql[0] = (uint32_t)cap_icmp(q[0], 1, 0x4242, 5, 1400);
	send_out(w, f, qp, ql, 1, 61000, s);
	al[0] = (uint32_t)cap_arp(a[0]);
	al[1] = (uint32_t)cap_icmp(a[1], 0, 0x4242, 5, 1400);
	send_in(w, f, ap, al, 2, 61900, s);
	/* 6: answered twice */
	ql[0] = (uint32_t)cap_icmp(q[0], 1, 0x4242, 6, 56);
	send_out(w, f, qp, ql, 1, 81000, s);
	al[0] = (uint32_t)cap_icmp(a[0], 0, 0x4242, 6, 56);
	al[1] = al[0];
	memcpy(a[1], a[0], al[0]);
	send_in(w, f, ap, al, 2, 81750, s);
}

/* Writes n bytes to dir/name. */
static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* An Ethernet pcap (link type 1) of frames, one per second from the epoch on (or at the
 * times given). */
static void write_eth(const char *dir, const char *name, size_t n, const uint8_t *const *f,
		      const uint32_t *len, const uint64_t *time_ns)
{
	size_t cap = 24, used = 0;
	for (size_t i = 0; i < n; i++)
		cap += 16 + len[i];
	uint8_t *b = xmalloc(cap);
	usbmon_pcap_header(b, 65536);
	le32w(b + 20, 1); /* Ethernet, not usbmon */
	used = 24;
	for (size_t i = 0; i < n; i++) {
		uint64_t t = time_ns ? time_ns[i] : T0 + i * 1000000000ull;
		le32w(b + used, (uint32_t)(t / 1000000000u));
		le32w(b + used + 4, (uint32_t)(t % 1000000000u / 1000u));
		le32w(b + used + 8, len[i]);
		le32w(b + used + 12, len[i]);
		memcpy(b + used + 16, f[i], len[i]);
		used += 16 + len[i];
	}
	write_file(dir, name, b, used);
	free(b);
}

static xb_frames *read_capture(const cap_writer *w, const char *name,
			       const xb_frames_options *o)
{
	xb_frames *fs;
	xb_err err;
	assert_int_equal(cap_read(cap_save(w, name), o, &fs, &err), XB_CAPTURE_END);
	return fs;
}

/* The frames of fs are those of s, in order, with the right directions. */
static void assert_sent(const xb_frames *fs, const sent *s)
{
	assert_int_equal(frames_count(fs), s->n);
	for (size_t i = 0; i < s->n; i++) {
		const xb_frame *x = frames_get(fs, i);
		assert_int_equal(x->len, s->len[i]);
		assert_int_equal(x->captured, s->len[i]);
		assert_int_equal(!!(x->flags & XB_FRAME_IN), s->in[i]);
		assert_memory_equal(x->data, s->f[i], s->len[i]);
	}
}

/* The same echoes and turnarounds in every framing, with descriptors or without; the
 * frames are those sent. */
static void test_echo_captures(void **state)
{
	(void)state;
	static const int64_t turn_us[] = {700, 700, 600, 900, 900, 800, 650};
	const char *out = getenv("XB_CAPTURE_NCM_OUT");
	for (int f = 0; f < F_COUNT; f++)
		for (int desc = 1; desc >= 0; desc--) {
			static sent s;
			s.n = 0;
			cap_writer w;
			cap_open(&w);
			echo_traffic(&w, (enum framing)f, desc, &s);
			cap_close(&w);
			char name[64];
			snprintf(name, sizeof name, "%s%s.pcap", framing_name[f], desc ? "" : "-bare");
			xb_frames *fs = read_capture(&w, name, NULL);
			assert_sent(fs, &s);
			xb_frames_stats st;
			frames_stats(fs, &st);
			assert_int_equal(st.malformed, 0);
			assert_int_equal(st.pending, 0);
			assert_string_equal(frames_error(fs), "");
			assert_string_equal(frames_warning(fs), "");
			const xb_frames_device *d = frames_device(fs, 0);
			assert_non_null(d);
			uint8_t want = f == F_ECM ? XB_FRAMES_PROTO_ECM
				       : f == F_RNDIS ? XB_FRAMES_PROTO_RNDIS
						      : XB_FRAMES_PROTO_NCM;
			/* without descriptors a CDC-ECM device stays unknown: its frames are
			 * CDC-ECM frames all the same */
			assert_int_equal(d->proto, desc || f != F_ECM ? want : XB_FRAMES_PROTO_AUTO);
			assert_int_equal(d->proto_from, desc ? XB_FRAMES_FROM_DESCRIPTOR
							 : f == F_ECM ? XB_FRAMES_FROM_NONE
								      : XB_FRAMES_FROM_PAYLOAD);
			assert_int_equal(d->ecm, desc ? f == F_ECM : -1);
			for (size_t i = 0; i < frames_count(fs); i++)
				assert_int_equal(frames_get(fs, i)->proto, want);
			/* the batched frames: part of parts, one time for all */
			if (f != F_ECM) {
				const xb_frame *a = frames_get(fs, 4), *b = frames_get(fs, 6);
				assert_int_equal(a->part, 0);
				assert_int_equal(a->parts, 3);
				assert_int_equal(b->part, 2);
				assert_int_equal(b->parts, 3);
				assert_true(a->time_ns == b->time_ns);
				assert_true(a->time_ns == T0 + 21100 * CAP_US);
				assert_int_equal(a->transfer_len, b->transfer_len);
				assert_true(b->offset > a->offset);
			}
			/* echoes */
			xb_err err;
			xb_echoes *e = echo_new(NULL, &err);
			echo_update(e, fs);
			xb_echo_summary sum;
			echo_summarize(e, fs, XB_ECHO_ICMP, &sum);
			assert_int_equal(sum.requests, 6);
			assert_int_equal(sum.replied, 5);
			assert_int_equal(sum.lost, 1);
			assert_int_equal(sum.duplicates, 1);
			assert_int_equal(sum.unmatched, 0);
			echo_summarize(e, fs, XB_ECHO_UDP, &sum);
			assert_int_equal(sum.requests, 2);
			assert_int_equal(sum.replied, 2);
			size_t k = 0;
			for (size_t i = 0; i < echo_count(e); i++) {
				int64_t ns;
				if (echo_turnaround(e, fs, i, &ns) == 0) {
					assert_true(k < 7);
					/* order: pings 1, 2, 3, UDP 0, 1, pings 5, 6 */
					assert_true(ns == turn_us[k] * (int64_t)CAP_US);
					k++;
				}
			}
			assert_int_equal(k, 7);
			echo_free(e);
			if (out && *out && desc) {
				write_file(out, name, w.buf, w.len);
				const uint8_t *fp[64];
				uint32_t fl[64];
				uint64_t ft[64];
				for (size_t i = 0; i < frames_count(fs); i++) {
					const xb_frame *x = frames_get(fs, i);
					fp[i] = x->data;
					fl[i] = x->captured;
					ft[i] = x->time_ns;
				}
				snprintf(name, sizeof name, "%s.frames.pcap", framing_name[f]);
				write_eth(out, name, frames_count(fs), fp, fl, ft);
				if (f == F_ECM) {
					for (size_t i = 0; i < s.n; i++)
						fp[i] = s.f[i];
					write_eth(out, "sent.pcap", s.n, fp, s.len, NULL);
				}
			}
			frames_free(fs);
			free(w.buf);
		}
}

/* The live tracker settles every echo of a transfer that carries several, as soon as
 * their replies come, with the batch path's turnarounds. */
static void test_tracker_batched(void **state)
{
	(void)state;
	for (int f = F_NCM16; f < F_COUNT; f++) {
		cap_writer w;
		cap_open(&w);
		echo_traffic(&w, (enum framing)f, 1, NULL);
		cap_close(&w);
		const char *path = cap_save(&w, "tracker.pcap");
		xb_err err;
		xb_capture_source *src = capture_open_file(path, &err);
		assert_non_null(src);
		xb_tracker *t = tracker_new(NULL, &err);
		assert_non_null(t);
		/* by echo: pings 1-3, UDP 0, 1, ping 4 (lost), pings 5, 6 */
		static const int64_t turn_us[] = {700, 700, 600, 900, 900, -1, 800, 650};
		xb_echo_event ev[16];
		size_t got = 0;
		int rc;
		while ((rc = tracker_feed(t, src, 1, &err)) == XB_CAPTURE_RECORD) {
			size_t n = tracker_take(t, ev + got, 16 - got);
			for (size_t i = got; i < got + n; i++) {
				/* settled by their reply, before any timeout */
				assert_int_equal(ev[i].state, XB_ECHO_REPLIED);
				assert_true(ev[i].echo < 8);
				assert_true(ev[i].turnaround_ns ==
					    turn_us[ev[i].echo] * (int64_t)CAP_US);
				assert_int_equal(ev[i].echo, i < 5 ? i : i + 1);
			}
			got += n;
		}
		assert_int_equal(rc, XB_CAPTURE_END);
		assert_int_equal(got, 7); /* ping 4 waits for the timeout */
		tracker_advance(t, UINT64_MAX);
		got += tracker_take(t, ev + got, 16 - got);
		assert_int_equal(got, 8);
		assert_int_equal(ev[7].echo, 5);
		assert_int_equal(ev[7].state, XB_ECHO_LOST);
		xb_tracker_stats st;
		tracker_stats(t, &st);
		assert_int_equal(st.requests, 8);
		assert_int_equal(st.replied, 7);
		assert_int_equal(st.lost, 1);
		assert_int_equal(st.duplicates, 1);
		assert_int_equal(st.late, 0);
		tracker_free(t);
		capture_close(src);
		free(w.buf);
	}
}

/* Descriptors: each RNDIS class triple; a composite device whose CDC-ACM bulk endpoints
 * carry no frames; high-speed packets. */
static void test_descriptors(void **state)
{
	(void)state;
	static ntb n;
	static rnd r;
	make_frames(2);
	for (int variant = 0; variant < 4; variant++) {
		enum framing f = variant < 3 ? F_RNDIS : F_NCM16;
		cap_writer w;
		cap_open(&w);
		uint8_t cfg[256];
		cap_config(&w, 2, cfg, net_config(cfg, f, 512, 1, variant % 3), 1);
		uint32_t len;
		const uint8_t *b;
		if (f == F_RNDIS) {
			r.len = 0;
			rndis_msg(&r, fr[0], frl[0], 0, 0);
			rndis_msg(&r, fr[1], frl[1], 0, 0);
			len = r.len;
			b = r.b;
		} else {
			len = ntb_frames(&n, 0, 0, 0, frp, frl, 2, 2);
			b = n.b;
		}
		cap_out(&w, 2, b, len, 0, 10 * CAP_US, 11 * CAP_US, 0);
		/* the ACM function's bulk OUT: not frames */
		xb_usbmon_urb u = cap_urb(&w, 2, 0x03, (uint8_t *)b, len);
		usbmon_submit(w.mon, &u, 12 * CAP_US);
		usbmon_complete(w.mon, &u, 0, 13 * CAP_US);
		cap_close(&w);
		xb_frames *fs = read_capture(&w, "desc.pcap", NULL);
		assert_int_equal(frames_count(fs), 2);
		const xb_frames_device *d = frames_device(fs, 0);
		assert_int_equal(d->proto, f == F_RNDIS ? XB_FRAMES_PROTO_RNDIS : XB_FRAMES_PROTO_NCM);
		assert_int_equal(d->proto_from, XB_FRAMES_FROM_DESCRIPTOR);
		assert_int_equal(d->ecm, 0);
		assert_int_equal(d->in_endpoint, 0x82);
		assert_int_equal(d->out_endpoint, 0x02);
		assert_int_equal(d->out_max_packet, 512);
		assert_int_equal(d->frames_out, 2);
		xb_frames_stats st;
		frames_stats(fs, &st);
		assert_int_equal(st.ignored_records, 2 + 2);
		frames_free(fs);
		free(w.buf);
	}
	assert_string_equal(frames_proto_name(XB_FRAMES_PROTO_NCM), "CDC-NCM");
	assert_string_equal(frames_proto_name(XB_FRAMES_PROTO_RNDIS), "RNDIS");
	assert_int_equal(frames_proto_parse("NCM"), XB_FRAMES_PROTO_NCM);
	assert_int_equal(frames_proto_parse("rndis"), XB_FRAMES_PROTO_RNDIS);
	assert_int_equal(frames_proto_parse("eem"), -1);
	assert_int_equal(frames_proto_parse("Auto"), XB_FRAMES_PROTO_AUTO);
	assert_string_equal(frames_proto_key(XB_FRAMES_PROTO_NCM), "ncm");
	assert_string_equal(frames_proto_key(XB_FRAMES_PROTO_AUTO), "unknown");
	assert_int_equal(frames_proto_parse(frames_proto_key(XB_FRAMES_PROTO_RNDIS)),
			 XB_FRAMES_PROTO_RNDIS);
}

/* Transfers over several URBs: 64-byte packets until the NTB's block length (or the last
 * RNDIS message) says the transfer is whole, with no short packet or ZLP needed; a ZLP
 * after it ends nothing. The option overrides what the payload says. */
static void test_urbs_and_option(void **state)
{
	(void)state;
	static ntb n;
	static rnd r;
	make_frames(3);
	for (int f = F_NCM16; f < F_COUNT; f++) {
		uint32_t len;
		const uint8_t *b;
		if (f == F_RNDIS) {
			r.len = 0;
			for (int i = 0; i < 3; i++)
				rndis_msg(&r, fr[i], frl[i], 0, 0);
			b = r.b;
		} else {
			ntb_frames(&n, f == F_NCM32, 0, 0, frp, frl, 3, 3);
			while (n.len % 64)
				n.b[n.len++] = 0;
			b = n.b;
		}
		len = f == F_RNDIS ? r.len : ntb_end(&n);
		if (f == F_RNDIS) /* a device's zero padding up to whole packets */
			while (len % 64)
				r.b[len++] = 0;
		assert_int_equal(len % 64, 0);
		cap_writer w;
		cap_open(&w);
		for (uint32_t o = 0; o < len; o += 64)
			cap_out(&w, 2, b + o, 64, 0, (10 + o) * CAP_US, (11 + o) * CAP_US, 0);
		cap_out(&w, 2, b, 0, 0, 5000 * CAP_US, 5001 * CAP_US, 0);
		for (uint32_t o = 0; o < len; o += 64)
			cap_in(&w, 2, b + o, 64, 64, (6000 + o) * CAP_US, (6001 + o) * CAP_US, 0);
		cap_close(&w);
		xb_frames *fs = read_capture(&w, "urbs.pcap", NULL);
		assert_int_equal(frames_count(fs), 6);
		for (size_t i = 0; i < 6; i++) {
			const xb_frame *x = frames_get(fs, i);
			assert_int_equal(x->len, frl[i % 3]);
			assert_memory_equal(x->data, fr[i % 3], frl[i % 3]);
			assert_int_equal(x->urbs, len / 64);
			assert_int_equal(x->transfer_len, len);
			assert_true(x->time_ns == T0 + ((i < 3 ? 11 : 6001) + len - 64) * CAP_US);
		}
		xb_frames_stats st;
		frames_stats(fs, &st);
		assert_int_equal(st.malformed, 0);
		frames_free(fs);
		/* read as CDC-ECM by the option: each 64-byte packet is part of one frame that
		 * the ZLP ends */
		xb_frames_options o;
		frames_options_init(&o);
		o.proto = XB_FRAMES_PROTO_ECM;
		fs = read_capture(&w, "urbs.pcap", &o);
		assert_int_equal(frames_count(fs), 1);
		assert_int_equal(frames_get(fs, 0)->len, len);
		assert_int_equal(frames_device(fs, 0)->proto_from, XB_FRAMES_FROM_OPTION);
		frames_free(fs);
		free(w.buf);
	}
}

/* A malformed transfer in a capture: counted once, described with its record, the frames
 * before the fault kept, and the transfers after it decoded as usual. */
static void test_malformed_in_capture(void **state)
{
	(void)state;
	static ntb n;
	static rnd r;
	make_frames(3);
	for (int f = F_NCM16; f < F_COUNT; f += 2) {
		cap_writer w;
		cap_open(&w);
		uint8_t cfg[256];
		cap_config(&w, 2, cfg, net_config(cfg, (enum framing)f, 64, 0, 0), 1);
		const uint8_t *b;
		uint32_t len;
		if (f == F_RNDIS) {
			r.len = 0;
			for (int i = 0; i < 3; i++)
				rndis_msg(&r, fr[i], frl[i], 0, 0);
			le32w(r.b + 44 + frl[0] + 12, 3); /* the second's DataLength */
			b = r.b;
			len = r.len;
		} else {
			len = three(&n);
			ndp_set(&n, 232, 1, 76, 300);
			b = n.b;
		}
		cap_in(&w, 2, b, len, 2048, 5 * CAP_US, 10 * CAP_US, 0);  /* records 3, 4 */
		cap_in(&w, 2, fr[2], frl[2], 2048, 15 * CAP_US, 20 * CAP_US, 0); /* no header */
		if (f == F_RNDIS)
			le32w(r.b + 44 + frl[0] + 12, frl[1]);
		else
			ndp_set(&n, 232, 1, 76, frl[1]);
		cap_in(&w, 2, b, len, 2048, 25 * CAP_US, 30 * CAP_US, 0);
		cap_close(&w);
		xb_frames *fs = read_capture(&w, "bad.pcap", NULL);
		assert_int_equal(frames_count(fs), 4);
		assert_memory_equal(frames_get(fs, 0)->data, fr[0], frl[0]);
		for (size_t i = 1; i < 4; i++)
			assert_memory_equal(frames_get(fs, i)->data, fr[i - 1], frl[i - 1]);
		xb_frames_stats st;
		frames_stats(fs, &st);
		assert_int_equal(st.malformed, 2);
		assert_int_equal(frames_device(fs, 0)->malformed, 2);
		const char *first = f == F_RNDIS
			? "record 4 (bus 1 device 2 endpoint 0x82): RNDIS: RNDIS: the message at 106: "
			  "DataLength 3 is less than an Ethernet header"
			: "record 4 (bus 1 device 2 endpoint 0x82): CDC-NCM: NTB16: datagram 1 of the "
			  "NDP at 232 (300 bytes at 76) is past the block's end";
		const char *last = f == F_RNDIS
			? "record 6 (bus 1 device 2 endpoint 0x82): RNDIS: RNDIS: the message at 0 has "
			  "type 0xc0b0a002 (unknown), not REMOTE_NDIS_PACKET_MSG"
			: "record 6 (bus 1 device 2 endpoint 0x82): CDC-NCM: the transfer starts with "
			  "0xc0b0a002, neither an NTH16 (\"NCMH\") nor an NTH32 (\"ncmh\") signature";
		assert_string_equal(frames_error(fs), last);
		char want[400];
		snprintf(want, sizeof want, "%s: %s", cap_save(&w, "bad.pcap"), first);
		assert_string_equal(frames_warning(fs), want);
		const char *out = getenv("XB_CAPTURE_NCM_OUT");
		if (out && *out)
			write_file(out, f == F_RNDIS ? "rndis-bad.pcap" : "ncm16-bad.pcap", w.buf, w.len);
		frames_free(fs);
		free(w.buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ncm_well_formed),
		cmocka_unit_test(test_ncm_terminators),
		cmocka_unit_test(test_ncm_malformed_header),
		cmocka_unit_test(test_ncm_malformed_ndp),
		cmocka_unit_test(test_ncm_malformed_datagrams),
		cmocka_unit_test(test_ncm_malformed_chain),
		cmocka_unit_test(test_rndis_well_formed),
		cmocka_unit_test(test_rndis_malformed),
		cmocka_unit_test(test_sniff_and_complete),
		cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_urbs_and_option),
		cmocka_unit_test(test_malformed_in_capture),
		cmocka_unit_test(test_echo_captures),
		cmocka_unit_test(test_tracker_batched),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
