/* fuzz_frames: any bytes as the bulk transfers of a USB network device, straight into the
 * frame decoder: the whole input as one CDC-NCM and one RNDIS transfer (frames_decode,
 * frames_sniff, frames_complete), then as a script of transfers fed record by record to
 * a frame set and to a live tracker (CDC-NCM, RNDIS, CDC-ECM or recognised from the
 * payload; 64- or 512-byte packets; cut by a snap length). Every datagram lies inside its
 * transfer, every malformed transfer is described, every echo counted once; never a crash
 * or a leak.
 *
 * Input: byte 0: bits 0-1 the protocol option (0 auto, 1 CDC-ECM, 2 CDC-NCM, 3 RNDIS), bit
 * 2 512-byte packets, bits 3-7 a snap length in 32-byte steps (0: none). Then transfers:
 * one control byte (bit 0 IN, bit 1 URB_ZERO_PACKET, bit 2 an error status, bit 3 no 'S'
 * record for IN / no 'C' for OUT, bit 4 an IN buffer as long as the data, else 2048
 * bytes), a little-endian 16-bit length, that many bytes (fewer at the end of the input).
 * The bytes after byte 0 are also the one transfer given to the decoder directly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../capture/echo.h"
#include "../../capture/frames_internal.h"
#include "../../capture/tracker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The decoder alone: its datagrams lie inside the transfer and after the header. */
static void fuzz_decode(uint8_t proto, const uint8_t *b, uint32_t len)
{
	frames_decoded d = {0};
	for (uint32_t captured = len;; captured = len / 2) {
		frames_decode(proto, b, captured, len, &d);
		if (strlen(d.err) >= sizeof d.err - 1) /* a message the buffer cut */
			abort();
		for (size_t i = 0; i < d.n; i++)
			if ((uint64_t)d.d[i].off + d.d[i].len > len || d.d[i].off < 12 ||
			    d.d[i].len < 10)
				abort();
		frames_complete(proto, b, captured, len);
		if (captured == len / 2)
			break;
	}
	frames_decoded_free(&d);
	frames_sniff(b, len);
}

typedef struct fuzz_feed {
	xb_frames *fs;
	xb_tracker *t;
	uint64_t index, id, t_ns;
	uint32_t snap;
} fuzz_feed;

static void feed_one(fuzz_feed *f, char event, uint8_t ep, uint32_t length, const uint8_t *p,
		     uint32_t n, int32_t status, uint32_t flags)
{
	xb_usbrec r;
	memset(&r, 0, sizeof r);
	r.id = f->id;
	r.event = event;
	r.xfer_type = XB_USBREC_BULK;
	r.endpoint = ep;
	r.device = 2;
	r.bus = 1;
	r.setup_flag = '-';
	r.status = status;
	r.length = length;
	r.len_cap = n;
	r.xfer_flags = flags;
	r.header_len = XB_USBREC_HEADER_MMAPPED;
	r.data = p;
	r.data_len = f->snap && n > f->snap ? f->snap : n;
	r.truncated = r.data_len < n;
	f->t_ns += 1000;
	r.time_ns = f->t_ns;
	r.index = ++f->index;
	frames_add(f->fs, &r);
	tracker_add(f->t, &r);
}

static void fuzz_records(const uint8_t *data, size_t size)
{
	xb_tracker_options o;
	tracker_options_init(&o);
	o.frames.proto = data[0] & 3;
	o.frames.max_packet = data[0] & 4 ? 512 : 0;
	o.loss_timeout_ns = 50000;
	o.max_pending = 4;
	xb_err err;
	fuzz_feed f = {.id = 0x1000, .snap = (uint32_t)(data[0] >> 3) * 32};
	f.fs = frames_new(&o.frames);
	f.t = tracker_new(&o, &err);
	if (!f.t)
		abort();
	for (size_t at = 1; at + 3 <= size;) {
		uint8_t ctl = data[at];
		uint32_t n = (uint32_t)(data[at + 1] | data[at + 2] << 8);
		at += 3;
		if (n > size - at)
			n = (uint32_t)(size - at);
		const uint8_t *p = data + at;
		at += n;
		int32_t status = ctl & 4 ? -71 : 0;
		f.id += 0x100;
		if (ctl & 1) {
			uint32_t req = ctl & 16 ? n : 2048;
			if (req < n)
				req = n;
			if (!(ctl & 8))
				feed_one(&f, 'S', 0x82, req, NULL, 0, XB_USBREC_EINPROGRESS, 0x200);
			feed_one(&f, 'C', 0x82, n, p, n, status, 0x200);
		} else {
			uint32_t flags = ctl & 2 ? XB_USBREC_URB_ZERO_PACKET : 0;
			feed_one(&f, 'S', 0x02, n, p, n, XB_USBREC_EINPROGRESS, flags);
			if (!(ctl & 8))
				feed_one(&f, 'C', 0x02, n, NULL, 0, status, flags);
		}
	}
	xb_frames_stats st;
	frames_stats(f.fs, &st);
	if ((st.malformed != 0) != (frames_error(f.fs)[0] != 0))
		abort();
	uint64_t dev_malformed = 0;
	for (size_t i = 0; i < frames_device_count(f.fs); i++)
		dev_malformed += frames_device(f.fs, i)->malformed;
	if (dev_malformed != st.malformed)
		abort();
	for (size_t i = 0; i < frames_count(f.fs); i++) {
		const xb_frame *x = frames_get(f.fs, i);
		if (x->captured > x->len || x->part >= x->parts ||
		    (uint64_t)x->offset + x->len > x->transfer_len)
			abort();
	}
	xb_echoes *e = echo_new(NULL, &err);
	echo_update(e, f.fs);
	xb_echo_summary s;
	echo_summarize(e, f.fs, 0, &s);
	if (s.replied + s.lost + s.failed != s.requests)
		abort();
	echo_free(e);
	tracker_advance(f.t, UINT64_MAX);
	xb_echo_event ev[4];
	size_t taken = 0, k;
	while ((k = tracker_take(f.t, ev, 4)) > 0)
		taken += k;
	xb_tracker_stats ts;
	tracker_stats(f.t, &ts);
	if (ts.pending || ts.replied + ts.lost + ts.failed != ts.requests ||
	    taken + ts.dropped != ts.requests || ts.frames != frames_count(f.fs))
		abort();
	tracker_free(f.t);
	frames_free(f.fs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > XB_FRAMES_MAX_FRAME)
		return 0;
	fuzz_decode(XB_FRAMES_PROTO_NCM, data + 1, (uint32_t)(size - 1));
	fuzz_decode(XB_FRAMES_PROTO_RNDIS, data + 1, (uint32_t)(size - 1));
	fuzz_records(data, size);
	return 0;
}
