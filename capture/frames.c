/* frames: reassembles the Ethernet frames of CDC-ECM, CDC-NCM and RNDIS devices from the
 * bulk transfers of usbmon records. */
#include "frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	free(fs->cfg);
	frames_decoded_free(&fs->dec);
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

size_t frames_last_done_count(const xb_frames *fs)
{
	return fs->last_done_n;
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
			uint32_t requested, uint32_t count)
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
		.count = count,
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

/* A frame of the transfer collected on s: len bytes from off on (captured as far as the
 * capture holds them), with flags (XB_FRAME_PADDED) to add; part 0 of 1 until the caller
 * says otherwise. */
static xb_frame *frame_add(xb_frames *fs, const frames_stream *s, const xb_usbrec *r, int in,
		      uint8_t proto, uint32_t off, uint32_t len, uint8_t flags)
{
	xb_frame *f = frames_append(fs);
	f->bus = s->bus;
	f->device = s->device;
	f->endpoint = s->endpoint;
	f->submit_ns = s->submit_ns;
	f->record = r->index;
	f->transfer_len = s->transfer;
	f->len = len;
	f->offset = off;
	f->urbs = s->urbs;
	f->parts = 1;
	f->proto = proto;
	uint32_t cap = off < s->captured ? s->captured - off : 0;
	f->captured = cap < len ? cap : len;
	f->data = xmalloc(f->captured ? f->captured : 1);
	if (f->captured)
		memcpy(f->data, s->buf + off, f->captured);
	f->flags = flags;
	if (in) {
		f->flags |= XB_FRAME_IN;
		f->time_ns = r->time_ns;
		f->done_record = r->index;
		fs->stats.frames_in++;
		fs->stats.bytes_in += f->len;
	} else {
		f->flags |= XB_FRAME_PENDING;
		if (s->failed)
			f->flags |= XB_FRAME_FAILED;
		fs->stats.frames_out++;
		fs->stats.bytes_out += f->len;
		fs->stats.pending++;
	}
	if (f->captured < f->len) {
		f->flags |= XB_FRAME_TRUNCATED;
		fs->stats.truncated++;
	}
	xb_frames_device *d = frames_device_find(fs, s->bus, s->device, 1);
	if (in)
		d->frames_in++;
	else
		d->frames_out++;
	return f;
}

/* The CDC-ECM frame collected on s. usbnet's padding byte: an OUT frame of whole packets
 * plus one zero byte whose headers say the packet ends before that byte. */
static void frame_ecm(xb_frames *fs, const frames_stream *s, const xb_usbrec *r, int in,
		      uint32_t max_packet)
{
	uint32_t len = s->transfer;
	uint8_t flags = 0;
	if (!in && len % max_packet == 1 && s->captured == len && s->buf[len - 1] == 0) {
		xb_packet p;
		packet_parse(&p, s->buf, len - 1, len - 1);
		if (p.declared_len && p.declared_len <= len - 1) {
			len--;
			flags = XB_FRAME_PADDED;
			fs->stats.padded++;
		}
	}
	frame_add(fs, s, r, in, XB_FRAMES_PROTO_ECM, 0, len, flags);
}

/* A transfer that broke its protocol's rules: counted and described (fs->dec.err). */
static void frames_malformed(xb_frames *fs, const frames_stream *s, const xb_usbrec *r,
			     uint8_t proto)
{
	fs->stats.malformed++;
	frames_device_find(fs, s->bus, s->device, 1)->malformed++;
	snprintf(fs->error, sizeof fs->error, "record %llu (bus %u device %u endpoint 0x%02x): %s: %s",
		 (unsigned long long)r->index, s->bus, s->device, s->endpoint,
		 frames_proto_name(proto), fs->dec.err);
	if (!fs->warning[0])
		snprintf(fs->warning, sizeof fs->warning, "%s", fs->error);
}

/* The protocol of the transfer collected on s: the device's, else its signature's (which
 * then becomes the device's), else CDC-ECM. */
static uint8_t stream_proto(xb_frames *fs, const frames_stream *s, uint8_t proto)
{
	if (proto != XB_FRAMES_PROTO_AUTO)
		return proto;
	proto = frames_sniff(s->buf, s->captured);
	if (proto == XB_FRAMES_PROTO_AUTO)
		return XB_FRAMES_PROTO_ECM;
	xb_frames_device *d = frames_device_find(fs, s->bus, s->device, 1);
	if (d->proto == XB_FRAMES_PROTO_AUTO) {
		d->proto = proto;
		d->proto_from = XB_FRAMES_FROM_PAYLOAD;
	}
	return proto;
}

/* Whether the transfer collected on s is whole by its own headers (NCM, RNDIS). */
static int stream_complete(const frames_stream *s, uint8_t proto)
{
	if (proto == XB_FRAMES_PROTO_AUTO)
		proto = frames_sniff(s->buf, s->captured);
	return frames_complete(proto, s->buf, s->captured, s->transfer) == 1;
}

/* The transfer collected on s is complete: its frames into the set (*count of them from
 * the returned index on), and s starts over. */
static size_t stream_emit(xb_frames *fs, frames_stream *s, const xb_usbrec *r, int in,
			  uint32_t max_packet, uint8_t proto, uint32_t *count)
{
	size_t first = fs->base + fs->n;
	proto = stream_proto(fs, s, proto);
	if (proto == XB_FRAMES_PROTO_ECM) {
		frame_ecm(fs, s, r, in, max_packet);
		*count = 1;
	} else {
		frames_decode(proto, s->buf, s->captured, s->transfer, &fs->dec);
		size_t n = fs->dec.n < UINT16_MAX ? fs->dec.n : UINT16_MAX;
		for (size_t i = 0; i < n; i++) {
			xb_frame *f = frame_add(fs, s, r, in, proto, fs->dec.d[i].off,
						fs->dec.d[i].len, 0);
			f->part = (uint16_t)i;
			f->parts = (uint16_t)n;
		}
		if (fs->dec.err[0])
			frames_malformed(fs, s, r, proto);
		*count = (uint32_t)n;
	}
	stream_reset(s);
	return first;
}

/* ---- Records ---- */

static void frames_bulk_out(xb_frames *fs, const xb_usbrec *r, uint32_t mps, uint8_t proto)
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
			   (r->xfer_flags & XB_USBREC_URB_ZERO_PACKET) || stream_complete(s, proto);
		if (ends) {
			uint32_t failed = s->failed != 0, count;
			size_t first = stream_emit(fs, s, r, 0, mps, proto, &count);
			pending_add(fs, r, FRAMES_PENDING_OUT_END, first, failed, count);
		} else
			pending_add(fs, r, FRAMES_PENDING_OUT_PART, si, 0, 0);
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
		pending_drop(fs, p);
		return;
	}
	size_t held = p->ref > fs->base ? p->ref : fs->base; /* discarding takes the front */
	if (held < p->ref + p->count) {
		fs->last_done = held;
		fs->last_done_n = p->ref + p->count - held;
	}
	for (size_t i = p->ref; i < p->ref + p->count; i++) {
		if (frame_pos(fs, i) == SIZE_MAX) {
			/* discarded while pending: only the stats learn how it ended */
			fs->stats.pending--;
			if (status != 0 || p->requested)
				fs->stats.failed++;
			continue;
		}
		xb_frame *f = &fs->f[frame_pos(fs, i)];
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

static void frames_bulk_in(xb_frames *fs, const xb_usbrec *r, uint32_t mps, uint8_t proto)
{
	if (r->event == 'S') {
		pending_add(fs, r, FRAMES_PENDING_IN, 0, r->length, 0);
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
	int ends = r->length % mps != 0 || r->length == 0 || !requested ||
		   r->length < requested || stream_complete(s, proto);
	uint32_t count;
	if (ends)
		stream_emit(fs, s, r, 1, mps, proto, &count);
}

/* Control transfers: the descriptors and configuration that say what a device is (RNDIS
 * control messages on EP0 carry no frames). */
static void frames_control(xb_frames *fs, const xb_usbrec *r)
{
	if (r->event == 'S') {
		if (r->setup_flag != 0)
			return;
		/* GET_DESCRIPTOR(CONFIGURATION): device-to-host, standard, to the device */
		if (r->setup[0] == 0x80 && r->setup[1] == 6 && r->setup[3] == 2)
			pending_add(fs, r, FRAMES_PENDING_CONFIG, 0,
				    (uint32_t)(r->setup[6] | r->setup[7] << 8), 0);
		/* SET_CONFIGURATION: host-to-device, standard, to the device */
		else if (r->setup[0] == 0x00 && r->setup[1] == 9)
			pending_add(fs, r, FRAMES_PENDING_SET_CONFIG, 0, r->setup[2], 0);
		return;
	}
	frames_pending *p = pending_find(fs, r);
	if (!p || (p->kind != FRAMES_PENDING_CONFIG && p->kind != FRAMES_PENDING_SET_CONFIG))
		return;
	uint8_t kind = p->kind, value = (uint8_t)p->requested;
	pending_drop(fs, p);
	if (r->event != 'C' || r->status != 0)
		return;
	if (kind == FRAMES_PENDING_CONFIG)
		frames_device_config(fs, r->bus, r->device, r->data, r->data_len);
	else
		frames_device_set_config(fs, r->bus, r->device, value);
}

void frames_add(xb_frames *fs, const xb_usbrec *r)
{
	fs->last_done = XB_FRAMES_NONE;
	fs->last_done_n = 0;
	if (!fs->stats.records)
		fs->stats.first_ns = r->time_ns;
	fs->stats.records++;
	if (r->truncated)
		fs->stats.truncated_records++;
	uint32_t mps;
	uint8_t proto;
	if (r->xfer_type == XB_USBREC_CONTROL)
		frames_control(fs, r);
	if (r->xfer_type != XB_USBREC_BULK || !frames_device_wants(fs, r, &mps, &proto)) {
		fs->stats.ignored_records++;
		return;
	}
	if (usbrec_in(r))
		frames_bulk_in(fs, r, mps, proto);
	else
		frames_bulk_out(fs, r, mps, proto);
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
	int quiet = !fs->warning[0];
	uint64_t malformed = fs->stats.malformed;
	frames_add(fs, r);
	if (quiet && fs->stats.malformed != malformed) /* the warning names the capture too */
		snprintf(fs->warning, sizeof fs->warning, "%s: %s", rd->s->name, fs->error);
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

const char *frames_error(const xb_frames *fs)
{
	return fs->error;
}

/* Each protocol's name and key, by enum xb_frames_proto. */
static const struct {
	const char *name, *key;
} frames_protos[] = {
	[XB_FRAMES_PROTO_AUTO] = {"unknown", "unknown"},
	[XB_FRAMES_PROTO_ECM] = {"CDC-ECM", "ecm"},
	[XB_FRAMES_PROTO_NCM] = {"CDC-NCM", "ncm"},
	[XB_FRAMES_PROTO_RNDIS] = {"RNDIS", "rndis"},
	[XB_FRAMES_PROTO_NONE] = {"none", "none"},
};

/* proto's entry in frames_protos; others are XB_FRAMES_PROTO_AUTO's ("unknown"). */
static int frames_proto_index(int proto)
{
	return proto > XB_FRAMES_PROTO_AUTO && proto <= XB_FRAMES_PROTO_NONE ? proto
									      : XB_FRAMES_PROTO_AUTO;
}

const char *frames_proto_name(int proto)
{
	return frames_protos[frames_proto_index(proto)].name;
}

const char *frames_proto_key(int proto)
{
	return frames_protos[frames_proto_index(proto)].key;
}

int frames_proto_parse(const char *s)
{
	if (!strcasecmp(s, "auto"))
		return XB_FRAMES_PROTO_AUTO;
	for (int i = XB_FRAMES_PROTO_ECM; i <= XB_FRAMES_PROTO_RNDIS; i++)
		if (!strcasecmp(s, frames_protos[i].key))
			return i;
	return -1;
}
