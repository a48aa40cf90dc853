/* source_feed: usbmon records handed over in process by the virtual host's writer
 * (sim/usbmon.h's record callback), queued until they are read. */
#include <stdlib.h>
#include <string.h>

#include "source_internal.h"

typedef struct feed_record {
	uint8_t *data;
	uint32_t len;
	uint64_t time_ns;
} feed_record;

typedef struct capture_feed {
	feed_record *q;
	size_t head, n, cap; /* a ring of n records from head */
	uint8_t *current;    /* the record last returned, freed by the next call */
	int ended;
} capture_feed;

static const xb_capture_source_ops capture_feed_ops;

xb_capture_source *capture_open_feed(const char *name)
{
	return capture_source_new(&capture_feed_ops, name && *name ? name : "feed",
				  xcalloc(1, sizeof(capture_feed)));
}

static uint64_t feed_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void capture_feed_record(void *source, const uint8_t *rec, size_t len, uint64_t time_ns)
{
	xb_capture_source *s = source;
	capture_feed *f = s->impl;
	if (f->ended)
		return;
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		feed_record *q = xcalloc(cap, sizeof *q);
		for (size_t i = 0; i < f->n; i++)
			q[i] = f->q[(f->head + i) % f->cap];
		free(f->q);
		f->q = q;
		f->cap = cap;
		f->head = 0;
	}
	if (len > s->snaplen)
		len = s->snaplen;
	feed_record *r = &f->q[(f->head + f->n) % f->cap];
	r->data = xmalloc(len ? len : 1);
	memcpy(r->data, rec, len);
	r->len = (uint32_t)len;
	/* The header's seconds (the writer's epoch added) with virtual time's nanoseconds. */
	uint64_t sec = len >= 24 ? feed_le(rec + 16, 8) : time_ns / 1000000000u;
	r->time_ns = sec * 1000000000u + time_ns % 1000000000u;
	f->n++;
}

void capture_feed_end(xb_capture_source *s)
{
	capture_feed *f = s->impl;
	f->ended = 1;
}

static int feed_next(xb_capture_source *s, xb_capture_record *r, xb_err *err)
{
	(void)err;
	capture_feed *f = s->impl;
	free(f->current);
	f->current = NULL;
	if (!f->n)
		return f->ended ? XB_CAPTURE_END : XB_CAPTURE_AGAIN;
	feed_record *q = &f->q[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	f->current = q->data;
	r->data = q->data;
	r->caplen = r->len = q->len;
	r->time_ns = q->time_ns;
	r->big_endian = 0; /* the virtual host writes little-endian headers */
	return XB_CAPTURE_RECORD;
}

static void feed_close(xb_capture_source *s)
{
	capture_feed *f = s->impl;
	for (size_t i = 0; i < f->n; i++)
		free(f->q[(f->head + i) % f->cap].data);
	free(f->q);
	free(f->current);
	free(f);
}

static const xb_capture_source_ops capture_feed_ops = {
	.kind = "feed",
	.next = feed_next,
	.fd = NULL,
	.close = feed_close,
};
