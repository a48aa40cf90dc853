/* frames: reassembles CDC-ECM Ethernet frames from the bulk transfers of usbmon records. */
#include "frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames_internal.h"
#include "held.h"
#include "packet.h"

#define FRAMES_MAX_PENDING 1024u

/* Linux errnos of transfers that were cancelled rather than failed. */
#define FRAMES_ENOENT (-2)
#define FRAMES_ECONNRESET (-104)
#define FRAMES_ESHUTDOWN (-108)
#define FRAMES_EREMOTEIO (-121) /* a short IN transfer with URB_SHORT_NOT_OK: data is valid */

void frames_options_init(xb_frames_options *o)
{
	memset(o, 0, sizeof *o);
	o->bus = -1;
	o->device = -1;
}

xb_frames *frames_new(const xb_frames_options *o)
{
	xb_frames *fs = xcalloc(1, sizeof *fs);
	fs->last_done = XB_FRAMES_NONE;
	if (o)
		fs->opt = *o;
	else
		frames_options_init(&fs->opt);
	return fs;
}

void frames_free(xb_frames *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->n; i++)
		free(fs->f[fs->off + i].data);
	for (size_t i = 0; i < fs->nst; i++)
		free(fs->st[i].buf);
	free(fs->f);
	free(fs->st);
	free(fs->pend);
	free(fs->dev);
	free(fs);
}

/* ---- The frames held ---- */

/* Frame i's place in fs->f, or SIZE_MAX when it is not held. */
static size_t frame_pos(const xb_frames *fs, size_t i)
{
	return i >= fs->base && i - fs->base < fs->n ? fs->off + (i - fs->base) : SIZE_MAX;
}

/* A new frame at the end (zeroed). */
static xb_frame *frames_append(xb_frames *fs)
{
	held_reserve(&fs->f, sizeof *fs->f, &fs->off, fs->n, &fs->cap);
	xb_frame *f = &fs->f[fs->off + fs->n++];
	memset(f, 0, sizeof *f);
	return f;
}

void frames_discard(xb_frames *fs, size_t before)
{
	while (fs->n && fs->base < before) {
		free(fs->f[fs->off].data);
		fs->off++;
		fs->n--;
		fs->base++;
	}
	held_trim(&fs->f, sizeof *fs->f, &fs->off, fs->n, &fs->cap);
}

size_t frames_held(const xb_frames *fs)
{
	return fs->n;
}

size_t frames_last_done(const xb_frames *fs)
{
	return fs->last_done;
}

/* ---- Transfers waiting for their completion ---- */

static frames_pending *pending_find(xb_frames *fs, const xb_usbrec *r)
{
	for (size_t i = fs->npend; i-- > 0;)
		if (fs->pend[i].id == r->id && fs->pend[i].bus == r->bus &&
		    fs->pend[i].device == r->device)
			return &fs->pend[i];
	return NULL;
}

static void pending_drop(xb_frames *fs, frames_pending *p)
{
	size_t i = (size_t)(p - fs->pend);
	memmove(p, p + 1, (fs->npend - i - 1) * sizeof *p);
	fs->npend--;
}

static void pending_add(xb_frames *fs, const xb_usbrec *r, uint8_t kind, size_t ref,
			uint32_t requested)
{
	frames_pending *old = pending_find(fs, r);
	if (old) /* the id came back: its completion is not in the capture */
		pending_drop(fs, old);
	if (fs->npend == FRAMES_MAX_PENDING)
		pending_drop(fs, &fs->pend[0]); /* the oldest never completed */
	xb_grow(&fs->pend, &fs->cappend, fs->npend + 1, sizeof *fs->pend);
	fs->pend[fs->npend++] = (frames_pending){
		.id = r->id,
		.bus = r->bus,
		.device = r->device,
		.kind = kind,
		.ref = ref,
		.requested = requested,
	};
}

/* ---- Frames being collected, one per endpoint ---- */

static size_t stream_get(xb_frames *fs, const xb_usbrec *r)
{
	for (size_t i = 0; i < fs->nst; i++)
		if (fs->st[i].bus == r->bus && fs->st[i].device == r->device &&
		    fs->st[i].endpoint == r->endpoint)
			return i;
	xb_grow(&fs->st, &fs->capst, fs->nst + 1, sizeof *fs->st);
	frames_stream *s = &fs->st[fs->nst];
	memset(s, 0, sizeof *s);
	s->bus = r->bus;
	s->device = r->device;
	s->endpoint = r->endpoint;
	return fs->nst++;
}

static void stream_reset(frames_stream *s)
{
	s->transfer = s->captured = s->urbs = 0;
	s->submit_ns = 0;
	s->gap = s->failed = 0;
}

/* Appends one transfer's bytes; 0, or -1 when the frame grew too long (dropped). */
static int stream_append(xb_frames *fs, frames_stream *s, const xb_usbrec *r)
{
	if ((uint64_t)s->transfer + r->length > XB_FRAMES_MAX_FRAME) {
		fs->stats.overlong++;
		stream_reset(s);
		return -1;
	}
	if (!s->gap && s->captured == s->transfer) {
		uint32_t n = r->data_len < r->length ? r->data_len : r->length;
		if (n) {
			xb_grow(&s->buf, &s->bufcap, (size_t)s->captured + n, 1);
			memcpy(s->buf + s->captured, r->data, n);
			s->captured += n;
		}
	}
	s->transfer += r->length;
	s->gap = s->captured < s->transfer;
	s->urbs++;
	return 0;
}

/* The frame collected on s is complete: into the set, and s starts over. */
static size_t stream_emit(xb_frames *fs, frames_stream *s, const xb_usbrec *r, int in,
			  uint32_t max_packet)
{
	size_t index = fs->base + fs->n;
	xb_frame *f = frames_append(fs);
	f->bus = s->bus;
	f->device = s->device;
	f->endpoint = s->endpoint;
	f->submit_ns = s->submit_ns;
	f->record = r->index;
	f->transfer_len = f->len = s->transfer;
	f->captured = s->captured;
	f->urbs = s->urbs;
	f->data = xmalloc(s->captured ? s->captured : 1);
	if (s->captured)
		memcpy(f->data, s->buf, s->captured);
	if (in) {
		f->flags = XB_FRAME_IN;
		f->time_ns = r->time_ns;
		f->done_record = r->index;
		fs->stats.frames_in++;
	} else {
		f->flags = XB_FRAME_PENDING;
		if (s->failed)
			f->flags |= XB_FRAME_FAILED;
		fs->stats.frames_out++;
		fs->stats.pending++;
		/* usbnet's padding byte: a frame of whole packets plus one zero byte whose
		 * headers say the packet ends before that byte */
		if (f->len % max_packet == 1 && f->captured == f->len && f->data[f->len - 1] == 0) {
			xb_packet p;
			packet_parse(&p, f->data, f->len - 1, f->len - 1);
			if (p.declared_len && p.declared_len <= f->len - 1) {
				f->len--;
				f->captured--;
				f->flags |= XB_FRAME_PADDED;
				fs->stats.padded++;
			}
		}
	}
	if (f->captured < f->len) {
		f->flags |= XB_FRAME_TRUNCATED;
		fs->stats.truncated++;
	}
	if (in)
		fs->stats.bytes_in += f->len;
	else
		fs->stats.bytes_out += f->len;
	xb_frames_device *d = frames_device_find(fs, f->bus, f->device, 1);
	if (in)
		d->frames_in++;
	else
		d->frames_out++;
	stream_reset(s);
	return index;
}

/* ---- Records ---- */

static void frames_bulk_out(xb_frames *fs, const xb_usbrec *r, uint32_t mps)
{
	if (r->event == 'S') {
		size_t si = stream_get(fs, r);
		frames_stream *s = &fs->st[si];
		if (r->length == 0 && s->urbs == 0)
			return; /* a ZLP with nothing before it ends nothing */
		if (s->urbs == 0)
			s->submit_ns = r->time_ns;
		if (stream_append(fs, s, r))
			return;
		int ends = r->length % mps != 0 || r->length == 0 ||
			   (r->xfer_flags & XB_USBREC_URB_ZERO_PACKET);
		if (ends) {
			uint32_t failed = s->failed != 0;
			pending_add(fs, r, FRAMES_PENDING_OUT_END, stream_emit(fs, s, r, 0, mps),
				    failed);
		} else
			pending_add(fs, r, FRAMES_PENDING_OUT_PART, si, 0);
		return;
	}
	frames_pending *p = pending_find(fs, r); /* 'C' or 'E' */
	if (!p || (p->kind != FRAMES_PENDING_OUT_END && p->kind != FRAMES_PENDING_OUT_PART)) {
		fs->stats.unpaired++;
		return;
	}
	int32_t status = r->event == 'E' && r->status == 0 ? -1 : r->status;
	if (p->kind == FRAMES_PENDING_OUT_PART) {
		if (status != 0)
			fs->st[p->ref].failed = 1;
	} else if (frame_pos(fs, p->ref) == SIZE_MAX) {
		/* discarded while pending: only the stats learn how it ended */
		fs->stats.pending--;
		if (status != 0 || p->requested)
			fs->stats.failed++;
	} else {
		xb_frame *f = &fs->f[frame_pos(fs, p->ref)];
		fs->last_done = p->ref;
		f->time_ns = r->time_ns;
		f->done_record = r->index;
		f->status = status;
		if (f->flags & XB_FRAME_PENDING)
			fs->stats.pending--;
		f->flags &= (uint8_t)~XB_FRAME_PENDING;
		if (status != 0)
			f->flags |= XB_FRAME_FAILED;
		if (f->flags & XB_FRAME_FAILED)
			fs->stats.failed++;
	}
	pending_drop(fs, p);
}

static void frames_bulk_in(xb_frames *fs, const xb_usbrec *r, uint32_t mps)
{
	if (r->event == 'S') {
		pending_add(fs, r, FRAMES_PENDING_IN, 0, r->length);
		return;
	}
	frames_pending *p = pending_find(fs, r);
	uint32_t requested = 0;
	if (p && p->kind == FRAMES_PENDING_IN)
		requested = p->requested;
	if (p)
		pending_drop(fs, p);
	if (r->event == 'E')
		return;
	size_t si = stream_get(fs, r); /* before taking fs->st: it may move */
	frames_stream *s = &fs->st[si];
	if (r->status != 0 && r->status != FRAMES_EREMOTEIO) {
		if (r->status == FRAMES_ENOENT || r->status == FRAMES_ECONNRESET ||
		    r->status == FRAMES_ESHUTDOWN)
			fs->stats.in_cancelled++;
		else
			fs->stats.in_errors++;
		stream_reset(s);
		return;
	}
	if (r->length == 0 && s->urbs == 0)
		return; /* a ZLP with nothing before it */
	if (stream_append(fs, s, r))
		return;
	int ends = r->length % mps != 0 || r->length == 0 || !requested || r->length < requested;
	if (ends)
		stream_emit(fs, s, r, 1, mps);
}

static void frames_control(xb_frames *fs, const xb_usbrec *r)
{
	if (r->event == 'S') {
		/* GET_DESCRIPTOR(CONFIGURATION): device-to-host, standard, to the device */
		if (r->setup_flag == 0 && r->setup[0] == 0x80 && r->setup[1] == 6 &&
		    r->setup[3] == 2)
			pending_add(fs, r, FRAMES_PENDING_CONFIG, 0,
				    (uint32_t)(r->setup[6] | r->setup[7] << 8));
		return;
	}
	frames_pending *p = pending_find(fs, r);
	if (!p || p->kind != FRAMES_PENDING_CONFIG)
		return;
	pending_drop(fs, p);
	if (r->event == 'C' && r->status == 0)
		frames_device_config(fs, r->bus, r->device, r->data, r->data_len);
}

void frames_add(xb_frames *fs, const xb_usbrec *r)
{
	fs->last_done = XB_FRAMES_NONE;
	if (!fs->stats.records)
		fs->stats.first_ns = r->time_ns;
	fs->stats.records++;
	if (r->truncated)
		fs->stats.truncated_records++;
	uint32_t mps;
	if (r->xfer_type == XB_USBREC_CONTROL)
		frames_control(fs, r);
	if (r->xfer_type != XB_USBREC_BULK || !frames_device_wants(fs, r, &mps)) {
		fs->stats.ignored_records++;
		return;
	}
	if (usbrec_in(r))
		frames_bulk_in(fs, r, mps);
	else
		frames_bulk_out(fs, r, mps);
}

typedef struct frames_reader {
	xb_frames *fs;
	const xb_capture_source *s;
} frames_reader;

static void frames_read_one(void *ctx, const xb_usbrec *r)
{
	frames_reader *rd = ctx;
	xb_frames *fs = rd->fs;
	if (r->truncated && !fs->warning[0])
		snprintf(fs->warning, sizeof fs->warning,
			 "%s: record %llu: cut to %u of its %u bytes by the snap length "
			 "(%u); a frame in it is incomplete",
			 rd->s->name, (unsigned long long)r->index, r->header_len + r->data_len,
			 r->header_len + r->len_cap, rd->s->snaplen);
	frames_add(fs, r);
}

int frames_read(xb_frames *fs, xb_capture_source *s, uint64_t max, xb_err *err)
{
	frames_reader rd = {fs, s};
	return usbrec_read(s, max, frames_read_one, &rd, err);
}

size_t frames_count(const xb_frames *fs)
{
	return fs->base + fs->n;
}

const xb_frame *frames_get(const xb_frames *fs, size_t i)
{
	size_t pos = frame_pos(fs, i);
	return pos == SIZE_MAX ? NULL : &fs->f[pos];
}

size_t frames_device_count(const xb_frames *fs)
{
	return fs->ndev;
}

const xb_frames_device *frames_device(const xb_frames *fs, size_t i)
{
	return i < fs->ndev ? &fs->dev[i] : NULL;
}

void frames_stats(const xb_frames *fs, xb_frames_stats *out)
{
	*out = fs->stats;
}

const char *frames_warning(const xb_frames *fs)
{
	return fs->warning;
}
