/* frames_decode: the Ethernet frames inside one bulk transfer of a CDC-NCM device (NCM
 * Transfer Blocks, NCM 1.0 section 3) or of an RNDIS device (REMOTE_NDIS_PACKET_MSG, MS
 * RNDIS 1.0), every field checked before it is used; and which of the two a transfer's
 * first bytes show. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames_internal.h"

/* Signatures, as little-endian 32-bit numbers. */
#define NCM_NTH16 0x484D434Eu     /* "NCMH" */
#define NCM_NTH32 0x686D636Eu     /* "ncmh" */
#define NCM_NDP16 0x304D434Eu     /* "NCM0" */
#define NCM_NDP16_CRC 0x314D434Eu /* "NCM1": each datagram ends with its CRC-32 */
#define NCM_NDP32 0x306D636Eu     /* "ncm0" */
#define NCM_NDP32_CRC 0x316D636Eu /* "ncm1" */
#define NCM_MAX_NDPS 1024u        /* NDPs followed in one NTB (as Linux's cdc_ncm) */
#define NCM_CRC 4u

#define RNDIS_PACKET_MSG 1u
#define RNDIS_HEADER 44u      /* REMOTE_NDIS_PACKET_MSG up to Reserved */
#define RNDIS_DATA_FROM 8u    /* DataOffset (and the other offsets) count from the
			       * DataOffset field */
#define ETH_HEADER 14u

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The first fault of the transfer (later ones are consequences). */
static void fault(frames_decoded *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fault(frames_decoded *o, const char *fmt, ...)
{
	if (o->err[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->err, sizeof o->err, fmt, ap);
	va_end(ap);
}

static void dgram_add(frames_decoded *o, uint32_t off, uint32_t len)
{
	xb_grow(&o->d, &o->cap, o->n + 1, sizeof *o->d);
	o->d[o->n++] = (frames_dgram){off, len};
}

void frames_decoded_free(frames_decoded *o)
{
	free(o->d);
	free(o->used);
	o->d = NULL;
	o->used = NULL;
	o->n = o->cap = o->usedcap = 0;
}

/* The bytes of the block that NCM structures have taken so far: one bit per byte. */
static void used_clear(frames_decoded *o, uint32_t end)
{
	size_t n = ((size_t)end + 7) / 8;
	xb_grow(&o->used, &o->usedcap, n ? n : 1, 1);
	memset(o->used, 0, n);
}

/* Takes bytes [off, off + n) of the block (within the end given to used_clear); 0, or -1
 * when one of them was already taken (nothing is taken then). */
static int used_take(frames_decoded *o, uint64_t off, uint64_t n)
{
	for (uint64_t i = off; i < off + n; i++)
		if (o->used[i / 8] & (1u << (i % 8)))
			return -1;
	for (uint64_t i = off; i < off + n; i++)
		o->used[i / 8] |= (uint8_t)(1u << (i % 8));
	return 0;
}

/* A signature as text: "NCM0" when printable, else its hexadecimal number. */
static const char *sig_text(uint32_t sig, char *buf, size_t cap)
{
	char c[4];
	int printable = 1;
	for (int i = 0; i < 4; i++) {
		c[i] = (char)(sig >> (8 * i));
		if (c[i] < 0x21 || c[i] > 0x7E)
			printable = 0;
	}
	if (printable)
		snprintf(buf, cap, "\"%c%c%c%c\"", c[0], c[1], c[2], c[3]);
	else
		snprintf(buf, cap, "0x%08x", sig);
	return buf;
}

uint8_t frames_sniff(const uint8_t *b, uint32_t captured)
{
	if (captured >= 12 && le32(b) == NCM_NTH16 && le16(b + 4) == 12)
		return XB_FRAMES_PROTO_NCM;
	if (captured >= 16 && le32(b) == NCM_NTH32 && le16(b + 4) == 16)
		return XB_FRAMES_PROTO_NCM;
	if (captured >= RNDIS_HEADER && le32(b) == RNDIS_PACKET_MSG) {
		uint64_t mlen = le32(b + 4), doff = le32(b + 8), dlen = le32(b + 12);
		if (mlen >= RNDIS_HEADER && mlen <= XB_FRAMES_MAX_FRAME &&
		    doff + RNDIS_DATA_FROM >= RNDIS_HEADER && dlen >= ETH_HEADER &&
		    doff + RNDIS_DATA_FROM + dlen <= mlen)
			return XB_FRAMES_PROTO_RNDIS;
	}
	return XB_FRAMES_PROTO_AUTO;
}

/* ---- CDC-NCM ---- */

/* The NTB's header: 16- or 32-bit, its block length and first NDP; 0, or -1 (a fault). */
typedef struct ncm_nth {
	int w32;
	uint32_t hlen;     /* the NTH's length */
	uint64_t block;    /* the NTB's length (0: up to the end of the transfer) */
	uint64_t ndp;      /* the first NDP's index */
	const char *name;  /* "NTB16", "NTB32" */
} ncm_nth;

static int ncm_header(const uint8_t *b, uint32_t avail, uint32_t len, ncm_nth *h,
		      frames_decoded *o)
{
	char sig[16];
	uint32_t need = avail >= 4 && le32(b) == NCM_NTH32 ? 16 : 12;
	if (len < need || avail < need) {
		if (len < need)
			fault(o, "a %u-byte transfer is shorter than an NTH%s (%u bytes)", len,
			      need == 16 ? "32" : "16", need);
		else
			fault(o, "the NTH was cut by the snap length (%u of the transfer's %u "
				 "bytes captured)", avail, len);
		return -1;
	}
	uint32_t s = le32(b);
	if (s == NCM_NTH16) {
		*h = (ncm_nth){0, 12, le16(b + 8), le16(b + 10), "NTB16"};
	} else if (s == NCM_NTH32) {
		*h = (ncm_nth){1, 16, le32(b + 8), le32(b + 12), "NTB32"};
	} else {
		fault(o, "the transfer starts with %s, neither an NTH16 (\"NCMH\") nor an NTH32 "
			 "(\"ncmh\") signature", sig_text(s, sig, sizeof sig));
		return -1;
	}
	if (le16(b + 4) != h->hlen) {
		fault(o, "%s: wHeaderLength %u, not %u", h->name, le16(b + 4), h->hlen);
		return -1;
	}
	return 0;
}

/* One NDP of the chain at index at, within the block's end bytes (avail captured): its
 * datagrams into o; the next NDP's index, or 0 at the end of the chain or on a fault. */
static uint64_t ncm_ndp(const uint8_t *b, uint32_t avail, uint32_t end, const ncm_nth *h,
			uint64_t at, frames_decoded *o)
{
	char sig[16];
	uint32_t nhdr = h->w32 ? 16 : 8, ent = h->w32 ? 8 : 4;
	if (at < h->hlen || at % 4) {
		fault(o, "%s: an NDP at %llu (%s)", h->name, (unsigned long long)at,
		      at < h->hlen ? "inside the NTH" : "not a multiple of 4");
		return 0;
	}
	if (at + nhdr > end || at + nhdr > avail) {
		fault(o, "%s: the NDP at %llu runs past the %s (%u bytes)", h->name,
		      (unsigned long long)at, end <= avail ? "block" : "captured bytes",
		      end <= avail ? end : avail);
		return 0;
	}
	const uint8_t *p = b + at;
	uint32_t s = le32(p), crc;
	if (s == (h->w32 ? NCM_NDP32 : NCM_NDP16)) {
		crc = 0;
	} else if (s == (h->w32 ? NCM_NDP32_CRC : NCM_NDP16_CRC)) {
		crc = NCM_CRC;
	} else {
		int other = s == (h->w32 ? NCM_NDP16 : NCM_NDP32) ||
			    s == (h->w32 ? NCM_NDP16_CRC : NCM_NDP32_CRC);
		fault(o, "%s: the NDP at %llu has signature %s, %s", h->name,
		      (unsigned long long)at, sig_text(s, sig, sizeof sig),
		      other ? (h->w32 ? "an NDP16's in an NTB32" : "an NDP32's in an NTB16")
		      : (h->w32 ? "neither \"ncm0\" nor \"ncm1\"" : "neither \"NCM0\" nor \"NCM1\""));
		return 0;
	}
	uint32_t nlen = le16(p + 4), align = h->w32 ? 8 : 4;
	uint64_t next = h->w32 ? le32(p + 8) : le16(p + 6);
	if (nlen < nhdr + 2 * ent || nlen % align) {
		if (nlen % align)
			fault(o, "%s: the NDP at %llu has length %u, not a multiple of %u", h->name,
			      (unsigned long long)at, nlen, align);
		else
			fault(o, "%s: the NDP at %llu has length %u, less than %u (a datagram "
				 "and the zero entry)", h->name, (unsigned long long)at, nlen,
			      nhdr + 2 * ent);
		return 0;
	}
	if (at + nlen > end || at + nlen > avail) {
		fault(o, "%s: the NDP at %llu (%u bytes) runs past the %s (%u bytes)", h->name,
		      (unsigned long long)at, nlen, end <= avail ? "block" : "captured bytes",
		      end <= avail ? end : avail);
		return 0;
	}
	if (used_take(o, at, nlen)) {
		fault(o, "%s: the NDP at %llu overlaps an earlier NDP or datagram", h->name,
		      (unsigned long long)at);
		return 0;
	}
	uint32_t n = (nlen - nhdr) / ent;
	for (uint32_t k = 0; k < n; k++) {
		const uint8_t *q = p + nhdr + (size_t)k * ent;
		uint64_t di = h->w32 ? le32(q) : le16(q), dl = h->w32 ? le32(q + 4) : le16(q + 2);
		if (di == 0 || dl == 0) /* the end of the table (NCM 1.0 3.3.1) */
			return next;
		if (k == n - 1) {
			fault(o, "%s: the NDP at %llu does not end with a zero entry", h->name,
			      (unsigned long long)at);
			return 0;
		}
		if (di < h->hlen || di + dl > end) {
			fault(o, "%s: datagram %u of the NDP at %llu (%llu bytes at %llu) is %s",
			      h->name, k, (unsigned long long)at, (unsigned long long)dl,
			      (unsigned long long)di,
			      di < h->hlen ? "inside the NTH" : "past the block's end");
			return 0;
		}
		if (dl < ETH_HEADER + crc) {
			fault(o, "%s: datagram %u of the NDP at %llu has %llu bytes, less than an "
				 "Ethernet header%s", h->name, k, (unsigned long long)at,
			      (unsigned long long)dl, crc ? " and its CRC" : "");
			return 0;
		}
		if (used_take(o, di, dl)) {
			fault(o, "%s: datagram %u of the NDP at %llu (%llu bytes at %llu) overlaps "
				 "an NDP or another datagram", h->name, k, (unsigned long long)at,
			      (unsigned long long)dl, (unsigned long long)di);
			return 0;
		}
		dgram_add(o, (uint32_t)di, (uint32_t)(dl - crc));
	}
	return next; /* not reached: the last entry is the end or a fault */
}

static void ncm_decode(const uint8_t *b, uint32_t avail, uint32_t len, frames_decoded *o)
{
	ncm_nth h;
	if (ncm_header(b, avail, len, &h, o))
		return;
	uint64_t block = h.block ? h.block : len; /* 0: the transfer's end ends it */
	if (block < h.hlen) {
		fault(o, "%s: block length %llu is shorter than the NTH (%u bytes)", h.name,
		      (unsigned long long)block, h.hlen);
		return;
	}
	uint32_t end = (uint32_t)(block < len ? block : len);
	if (block > len) /* a cut transfer: the datagrams it holds still count */
		fault(o, "%s: the transfer (%u bytes) ends inside the block (%llu bytes)", h.name,
		      len, (unsigned long long)block);
	if (!h.ndp) {
		fault(o, "%s: no NDP (wNdpIndex 0)", h.name);
		return;
	}
	used_clear(o, end);
	used_take(o, 0, h.hlen);
	uint64_t seen[NCM_MAX_NDPS];
	size_t nseen = 0;
	for (uint64_t at = h.ndp; at;) {
		for (size_t i = 0; i < nseen; i++)
			if (seen[i] == at) {
				fault(o, "%s: the NDP chain loops back to the NDP at %llu", h.name,
				      (unsigned long long)at);
				return;
			}
		if (nseen == NCM_MAX_NDPS) {
			fault(o, "%s: more than %u NDPs in the chain", h.name, NCM_MAX_NDPS);
			return;
		}
		seen[nseen++] = at;
		at = ncm_ndp(b, avail, end, &h, at, o);
	}
}

/* ---- RNDIS ---- */

/* The name of an RNDIS message type (MS RNDIS 1.0 section 2.2). */
static const char *rndis_msg_name(uint32_t type)
{
	static const char *const names[] = {
		NULL, "PACKET", "INITIALIZE", "HALT", "QUERY", "SET", "RESET",
		"INDICATE_STATUS", "KEEPALIVE",
	};
	static const char *const done[] = {
		NULL, NULL, "INITIALIZE_CMPLT", NULL, "QUERY_CMPLT", "SET_CMPLT", "RESET_CMPLT",
		NULL, "KEEPALIVE_CMPLT",
	};
	uint32_t t = type & 0x7FFFFFFFu;
	const char *name = t < 9 ? (type >> 31 ? done : names)[t] : NULL;
	return name ? name : "unknown";
}

/* The bytes from o on up to the next non-zero one (RNDIS: padding between and after
 * messages; a message starts with its type, 1). */
static uint32_t skip_zeros(const uint8_t *b, uint32_t o, uint32_t avail)
{
	while (o < avail && b[o] == 0)
		o++;
	return o;
}

static void rndis_decode(const uint8_t *b, uint32_t avail, uint32_t len, frames_decoded *o)
{
	for (uint32_t at = 0;;) {
		at = skip_zeros(b, at, avail);
		if (at >= len)
			return;
		if (at >= avail || avail - at < RNDIS_HEADER) {
			if (len - at < RNDIS_HEADER)
				fault(o, "RNDIS: %u bytes at %u are neither a REMOTE_NDIS_PACKET_MSG "
					 "(a 44-byte header at least) nor zero padding", len - at, at);
			else
				fault(o, "RNDIS: the message at %u was cut by the snap length (%u "
					 "bytes captured)", at, avail);
			return;
		}
		const uint8_t *p = b + at;
		uint32_t type = le32(p), mlen = le32(p + 4);
		uint64_t doff = le32(p + 8), dlen = le32(p + 12);
		char what[48];
		snprintf(what, sizeof what, "RNDIS: the message at %u", at);
		if (type != RNDIS_PACKET_MSG) {
			fault(o, "%s has type 0x%08x (%s), not REMOTE_NDIS_PACKET_MSG", what, type,
			      rndis_msg_name(type));
			return;
		}
		if (mlen < RNDIS_HEADER || mlen > len - at) {
			fault(o, "%s: MessageLength %u %s", what, mlen,
			      mlen < RNDIS_HEADER ? "is shorter than its 44-byte header"
						  : "runs past the end of the transfer");
			return;
		}
		if (doff + RNDIS_DATA_FROM < RNDIS_HEADER || doff + RNDIS_DATA_FROM + dlen > mlen) {
			fault(o, "%s: the data (DataOffset %llu, DataLength %llu) is %s", what,
			      (unsigned long long)doff, (unsigned long long)dlen,
			      doff + RNDIS_DATA_FROM < RNDIS_HEADER ? "inside the header"
								    : "past its MessageLength");
			return;
		}
		if (dlen < ETH_HEADER) {
			fault(o, "%s: DataLength %llu is less than an Ethernet header", what,
			      (unsigned long long)dlen);
			return;
		}
		/* out-of-band data and per-packet info: offset, length; nothing when 0 long */
		static const struct {
			uint8_t off, len;
			const char *name;
		} extra[] = {{16, 20, "out-of-band data"}, {28, 32, "per-packet info"}};
		for (size_t i = 0; i < 2; i++) {
			uint64_t xoff = le32(p + extra[i].off), xlen = le32(p + extra[i].len);
			if (xlen && (xoff + RNDIS_DATA_FROM < RNDIS_HEADER ||
				     xoff + RNDIS_DATA_FROM + xlen > mlen)) {
				fault(o, "%s: the %s (offset %llu, length %llu) is %s", what,
				      extra[i].name, (unsigned long long)xoff,
				      (unsigned long long)xlen,
				      xoff + RNDIS_DATA_FROM < RNDIS_HEADER ? "inside the header"
									    : "past its MessageLength");
				return;
			}
		}
		dgram_add(o, at + RNDIS_DATA_FROM + (uint32_t)doff, (uint32_t)dlen);
		at += mlen;
	}
}

/* ---- Both ---- */

int frames_complete(uint8_t proto, const uint8_t *b, uint32_t captured, uint32_t len)
{
	uint32_t avail = captured < len ? captured : len;
	if (proto == XB_FRAMES_PROTO_NCM) {
		if (avail < 16 && !(avail >= 12 && le32(b) == NCM_NTH16))
			return -1;
		uint32_t s = le32(b);
		if (s != NCM_NTH16 && s != NCM_NTH32)
			return 1; /* not an NTB: it ends here, with a fault */
		uint32_t block = s == NCM_NTH16 ? le16(b + 8) : le32(b + 8);
		return block == 0 ? -1 : len >= block;
	}
	if (proto != XB_FRAMES_PROTO_RNDIS)
		return -1;
	for (uint32_t at = 0;;) {
		at = skip_zeros(b, at, avail);
		if (at >= len)
			return 1;
		if (at >= avail || avail - at < 8)
			return -1;
		uint32_t mlen = le32(b + at + 4);
		if (le32(b + at) != RNDIS_PACKET_MSG || mlen < RNDIS_HEADER)
			return 1; /* not a message: it ends here, with a fault */
		if (mlen > len - at)
			return 0;
		at += mlen;
	}
}

void frames_decode(uint8_t proto, const uint8_t *b, uint32_t captured, uint32_t len,
		   frames_decoded *out)
{
	out->n = 0;
	out->err[0] = 0;
	if (len > XB_FRAMES_MAX_FRAME) {
		fault(out, "a %u-byte transfer is longer than %u bytes", len, XB_FRAMES_MAX_FRAME);
		return;
	}
	uint32_t avail = captured < len ? captured : len;
	if (proto == XB_FRAMES_PROTO_NCM)
		ncm_decode(b, avail, len, out);
	else if (proto == XB_FRAMES_PROTO_RNDIS)
		rndis_decode(b, avail, len, out);
}
