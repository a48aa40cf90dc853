/* usbmon: encodes URB events as Linux mon_bin records and writes them as a pcap stream. */
#include "usbmon.h"

#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

struct xb_usbmon {
	FILE *f;
	xb_usbmon_options opt;
	xb_usbmon_record_fn fn;
	void *ctx;
	uint64_t records;
	int failed;
	uint8_t rec[XB_USBMON_HEADER + XB_USBMON_MAX_DATA];
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

size_t usbmon_encode(const xb_usbmon_urb *u, char event, int32_t status, uint64_t time_ns,
		     int64_t epoch_sec, uint8_t *out, uint32_t *orig_len)
{
	memset(out, 0, XB_USBMON_HEADER);
	uint32_t urb_len = 0, cap = 0;
	uint8_t data_flag = 0, setup_flag = '-';
	if (event == 'E') {
		data_flag = 'E';
	} else {
		urb_len = event == 'S' ? u->length : u->actual;
		cap = urb_len < u->length ? urb_len : u->length;
		if (cap > XB_USBMON_MAX_DATA)
			cap = XB_USBMON_MAX_DATA;
		uint8_t tag = 0;
		if (u->dir_in && event == 'S') {
			cap = 0;
			tag = '<';
		} else if (!u->dir_in && event == 'C') {
			cap = 0;
			tag = '>';
		}
		if (cap == 0)
			data_flag = tag;
		else if (!u->buffer)
			data_flag = 'Z', cap = 0; /* mon_bin: no transfer buffer to copy */
		if (u->xfer_type == XB_USBMON_CONTROL && event == 'S') {
			if (u->setup) {
				setup_flag = 0;
				memcpy(out + 40, u->setup, 8);
			} else {
				setup_flag = 'Z';
			}
		}
		if (u->xfer_type == XB_USBMON_INTERRUPT || u->xfer_type == XB_USBMON_ISO)
			put32(out + 48, (uint32_t)u->interval);
		if (u->xfer_type == XB_USBMON_ISO)
			put32(out + 52, (uint32_t)u->start_frame);
		put32(out + 56, u->flags);
		if (cap)
			memcpy(out + XB_USBMON_HEADER, u->buffer, cap);
	}
	put64(out, u->id);
	out[8] = (uint8_t)event;
	out[9] = u->xfer_type;
	out[10] = (uint8_t)((u->endpoint & 0x0F) | (u->dir_in ? 0x80 : 0));
	out[11] = u->devnum;
	put16(out + 12, u->busnum);
	out[14] = setup_flag;
	out[15] = data_flag;
	put64(out + 16, (uint64_t)(epoch_sec + (int64_t)(time_ns / 1000000000u)));
	put32(out + 24, (uint32_t)(time_ns % 1000000000u / 1000u));
	put32(out + 28, (uint32_t)status);
	put32(out + 32, urb_len);
	put32(out + 36, cap);
	if (orig_len)
		*orig_len = XB_USBMON_HEADER + (data_flag ? cap : urb_len);
	return XB_USBMON_HEADER + cap;
}

void usbmon_pcap_header(uint8_t out[24], uint32_t snaplen)
{
	put32(out, 0xA1B2C3D4u);
	put16(out + 4, 2);
	put16(out + 6, 4);
	put32(out + 8, 0);  /* thiszone */
	put32(out + 12, 0); /* sigfigs */
	put32(out + 16, snaplen);
	put32(out + 20, XB_USBMON_LINKTYPE);
}

static void usbmon_write(xb_usbmon *m, const uint8_t *p, size_t n)
{
	if (!m->f || m->failed)
		return;
	if (n && fwrite(p, 1, n, m->f) != n)
		m->failed = 1;
}

xb_usbmon *usbmon_new(FILE *f, const xb_usbmon_options *o)
{
	xb_usbmon *m = xcalloc(1, sizeof *m);
	m->f = f;
	if (o)
		m->opt = *o;
	if (!m->opt.snaplen)
		m->opt.snaplen = XB_USBMON_SNAPLEN;
	if (f) {
		uint8_t h[24];
		usbmon_pcap_header(h, m->opt.snaplen);
		usbmon_write(m, h, sizeof h);
		if (!m->failed && fflush(f))
			m->failed = 1;
	}
	return m;
}

void usbmon_free(xb_usbmon *m)
{
	free(m);
}

void usbmon_set_record_fn(xb_usbmon *m, xb_usbmon_record_fn fn, void *ctx)
{
	m->fn = fn;
	m->ctx = ctx;
}

static void usbmon_event(xb_usbmon *m, const xb_usbmon_urb *u, char event, int32_t status,
			 uint64_t time_ns)
{
	uint32_t orig;
	size_t n = usbmon_encode(u, event, status, time_ns, m->opt.epoch_sec, m->rec, &orig);
	m->records++;
	if (m->fn)
		m->fn(m->ctx, m->rec, n, time_ns);
	if (!m->f || m->failed)
		return;
	size_t keep = n < m->opt.snaplen ? n : m->opt.snaplen;
	uint8_t h[16];
	memcpy(h, m->rec + 16, 4);                   /* ts_sec: the low 32 bits (pcap's u32) */
	memcpy(h + 4, m->rec + 24, 4);               /* ts_usec */
	put32(h + 8, (uint32_t)keep);
	put32(h + 12, orig);
	usbmon_write(m, h, sizeof h);
	usbmon_write(m, m->rec, keep);
	if (!m->failed && fflush(m->f))
		m->failed = 1;
}

void usbmon_submit(xb_usbmon *m, const xb_usbmon_urb *u, uint64_t time_ns)
{
	usbmon_event(m, u, 'S', XB_USBMON_EINPROGRESS, time_ns);
}

void usbmon_complete(xb_usbmon *m, const xb_usbmon_urb *u, int32_t status, uint64_t time_ns)
{
	usbmon_event(m, u, 'C', status, time_ns);
}

void usbmon_error(xb_usbmon *m, const xb_usbmon_urb *u, int32_t error, uint64_t time_ns)
{
	usbmon_event(m, u, 'E', error, time_ns);
}

uint64_t usbmon_records(const xb_usbmon *m)
{
	return m->records;
}

int usbmon_write_failed(const xb_usbmon *m)
{
	return m->failed;
}
