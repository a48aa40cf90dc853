/* frames_internal: the frame set's state, shared by frames.c (transfers into frames),
 * frames_devices.c (devices recognised from their descriptors) and frames_decode.c (the
 * frames inside an NCM or RNDIS transfer); not for use elsewhere. */
#ifndef XB_CAPTURE_FRAMES_INTERNAL_H
#define XB_CAPTURE_FRAMES_INTERNAL_H

#include "frames.h"

/* A transfer waiting for its completion, by URB id. */
enum frames_pending_kind {
	FRAMES_PENDING_OUT_END,  /* ends an OUT transfer: ref is its first frame's (absolute)
				  * index, count its frames, requested is 1 when one of its
				  * transfers failed */
	FRAMES_PENDING_OUT_PART, /* part of an OUT frame still collected: ref is the stream */
	FRAMES_PENDING_IN,       /* requested: the buffer's length */
	FRAMES_PENDING_CONFIG,   /* GET_DESCRIPTOR(CONFIGURATION); requested: wLength */
	FRAMES_PENDING_SET_CONFIG, /* SET_CONFIGURATION; requested: the value */
};

typedef struct frames_pending {
	uint64_t id;
	uint16_t bus;
	uint8_t device;
	uint8_t kind;
	size_t ref;
	uint32_t requested;
	uint32_t count;
} frames_pending;

/* The frame being collected on one endpoint. */
typedef struct frames_stream {
	uint16_t bus;
	uint8_t device, endpoint;
	uint8_t *buf;
	size_t bufcap;
	uint32_t transfer, captured, urbs;
	uint64_t submit_ns;
	int gap;    /* data went missing: later data is not appended */
	int failed; /* one of its OUT transfers failed */
} frames_stream;

/* A configuration's network function (from its descriptor). */
typedef struct frames_function {
	uint8_t proto; /* XB_FRAMES_PROTO_ECM, _NCM, _RNDIS, or XB_FRAMES_PROTO_NONE */
	uint8_t in, out;
	uint16_t in_mps, out_mps;
} frames_function;

/* A configuration descriptor read from a device, by bConfigurationValue. */
typedef struct frames_config {
	uint16_t bus;
	uint8_t device, value;
	frames_function fn;
} frames_config;

/* One frame inside a transfer (frames_decode). */
typedef struct frames_dgram {
	uint32_t off, len; /* in the transfer; len without an NCM1 CRC */
} frames_dgram;

/* What frames_decode found in one transfer. */
typedef struct frames_decoded {
	frames_dgram *d;
	size_t n, cap;
	uint8_t *used; /* NCM: the block's bytes taken by the NTH, NDPs and datagrams */
	size_t usedcap;
	char err[200]; /* "" when the transfer followed the rules */
} frames_decoded;

/* The frames held are f[off .. off + n), of absolute indices base .. base + n: discarded
 * frames leave the front, and the array is compacted (or shrunk) once half of it is free. */
struct xb_frames {
	xb_frames_options opt;
	xb_frame *f;
	size_t off, n, cap;
	size_t base;
	size_t last_done, last_done_n; /* frames_last_done, frames_last_done_count */
	frames_stream *st;
	size_t nst, capst;
	frames_pending *pend;
	size_t npend, cappend;
	xb_frames_device *dev;
	size_t ndev, capdev;
	frames_config *cfg;
	size_t ncfg, capcfg;
	frames_decoded dec;
	xb_frames_stats stats;
	char warning[512];
	char error[320]; /* frames_error */
};

/* The device's entry (created as unknown when create is set; else NULL if absent). */
xb_frames_device *frames_device_find(xb_frames *fs, uint16_t bus, uint8_t device, int create);
/* A configuration descriptor (with its interfaces and endpoints) read from the device. */
void frames_device_config(xb_frames *fs, uint16_t bus, uint8_t device, const uint8_t *d, size_t n);
/* SET_CONFIGURATION(value) succeeded: the device's function is that configuration's. */
void frames_device_set_config(xb_frames *fs, uint16_t bus, uint8_t device, uint8_t value);
/* Whether the bulk transfers of r's endpoint carry frames, the wMaxPacketSize and the
 * protocol (XB_FRAMES_PROTO_AUTO: not known yet, see frames_sniff). */
int frames_device_wants(xb_frames *fs, const xb_usbrec *r, uint32_t *max_packet,
			uint8_t *proto);

/* ---- frames_decode.c ---- */

/* The protocol a transfer's first bytes show: XB_FRAMES_PROTO_NCM (an NTH signature),
 * XB_FRAMES_PROTO_RNDIS (a well-formed REMOTE_NDIS_PACKET_MSG header), else XB_FRAMES_PROTO_AUTO.
 * b holds captured bytes of a transfer of at most len bytes collected so far. */
uint8_t frames_sniff(const uint8_t *b, uint32_t captured);
/* Whether the len bytes collected so far (captured of them at b) make a whole NCM or
 * RNDIS transfer by its own headers: 1 yes, 0 more is declared, -1 they do not say. */
int frames_complete(uint8_t proto, const uint8_t *b, uint32_t captured, uint32_t len);
/* The frames of one NCM or RNDIS transfer of len bytes, captured of them at b, into
 * out (out->err describes the first fault; the frames before it are kept). */
void frames_decode(uint8_t proto, const uint8_t *b, uint32_t captured, uint32_t len,
		   frames_decoded *out);
/* Frees what frames_decode allocated in o (o itself is the caller's). */
void frames_decoded_free(frames_decoded *o);

#endif
