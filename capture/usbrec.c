/* usbrec: parses usbmon records (both header layouts, either byte order). */
#include "usbrec.h"

#include <string.h>

static uint64_t rd(const uint8_t *p, int n, int big_endian)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[big_endian ? i : n - 1 - i];
	return v;
}

const char *usbrec_xfer_name(uint8_t xfer_type)
{
	static const char *const names[] = {"iso", "interrupt", "control", "bulk"};
	return xfer_type < 4 ? names[xfer_type] : "unknown";
}

int usbrec_parse_bytes(xb_usbrec *r, const uint8_t *p, size_t caplen, uint32_t linktype, int be,
		       xb_err *err)
{
	memset(r, 0, sizeof *r);
	uint32_t hl = linktype == XB_CAPTURE_LINKTYPE_USB_LINUX ? XB_USBREC_HEADER_LINUX
								: XB_USBREC_HEADER_MMAPPED;
	if (caplen < hl)
		return xb_fail(err, "%zu bytes, shorter than the %u-byte usbmon header", caplen,
			       hl);
	r->header_len = hl;
	r->id = rd(p, 8, be);
	r->event = (char)p[8];
	r->xfer_type = p[9];
	r->endpoint = p[10];
	r->device = p[11];
	r->bus = (uint16_t)rd(p + 12, 2, be);
	r->setup_flag = p[14];
	r->data_flag = p[15];
	r->ts_sec = (int64_t)rd(p + 16, 8, be);
	r->ts_usec = (int32_t)rd(p + 24, 4, be);
	r->status = (int32_t)rd(p + 28, 4, be);
	r->length = (uint32_t)rd(p + 32, 4, be);
	r->len_cap = (uint32_t)rd(p + 36, 4, be);
	memcpy(r->setup, p + 40, 8);
	r->iso_error_count = (int32_t)rd(p + 40, 4, be);
	r->iso_numdesc = (int32_t)rd(p + 44, 4, be);
	if (r->event != 'S' && r->event != 'C' && r->event != 'E') {
		char q[16];
		xb_quote(q, sizeof q, (const char *)p + 8, 1);
		return xb_fail(err, "event type 0x%02x ('%s') is none of 'S', 'C', 'E'", p[8], q);
	}
	if (r->xfer_type > XB_USBREC_BULK)
		return xb_fail(err, "transfer type %u is none of 0 (iso) to 3 (bulk)",
			       r->xfer_type);
	size_t off = hl;
	if (hl == XB_USBREC_HEADER_MMAPPED) {
		r->interval = (int32_t)rd(p + 48, 4, be);
		r->start_frame = (int32_t)rd(p + 52, 4, be);
		r->xfer_flags = (uint32_t)rd(p + 56, 4, be);
		r->ndesc = (uint32_t)rd(p + 60, 4, be);
		/* mon_bin puts the iso descriptors between the header and the data; the
		 * captured length counts the data only */
		if (r->ndesc) {
			uint64_t iso = (uint64_t)r->ndesc * XB_USBREC_ISO_DESCRIPTOR;
			if (iso > caplen - off)
				return xb_fail(err, "%u iso descriptors run past the record",
					       r->ndesc);
			off += (size_t)iso;
		}
	}
	size_t have = caplen - off;
	r->data = p + off;
	r->data_len = r->len_cap < have ? r->len_cap : (uint32_t)have;
	r->truncated = r->data_len < r->len_cap;
	return 0;
}

int usbrec_parse(xb_usbrec *r, const xb_capture_record *rec, xb_err *err)
{
	int rc = usbrec_parse_bytes(r, rec->data, rec->caplen, rec->linktype, rec->big_endian, err);
	r->time_ns = rec->time_ns;
	r->index = rec->index;
	return rc;
}

int usbrec_read(xb_capture_source *s, uint64_t max, void (*fn)(void *ctx, const xb_usbrec *r),
		void *ctx, xb_err *err)
{
	for (uint64_t n = 0; !max || n < max; n++) {
		xb_capture_record rec;
		int rc = capture_next(s, &rec, err);
		if (rc != XB_CAPTURE_RECORD)
			return rc;
		xb_usbrec r;
		xb_err e;
		if (usbrec_parse(&r, &rec, &e)) {
			xb_fail(err, "%s: record %llu: not a usbmon record: %s", s->name,
				(unsigned long long)rec.index, e.msg);
			return XB_CAPTURE_ERROR;
		}
		fn(ctx, &r);
	}
	return XB_CAPTURE_RECORD;
}
