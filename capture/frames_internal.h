/* frames_internal: the frame set's state, shared by frames.c (transfers into frames) and
 * frames_devices.c (devices recognised from their descriptors); not for use elsewhere. */
#ifndef XB_CAPTURE_FRAMES_INTERNAL_H
#define XB_CAPTURE_FRAMES_INTERNAL_H

#include "frames.h"

/* A transfer waiting for its completion, by URB id. */
enum frames_pending_kind {
	FRAMES_PENDING_OUT_END,  /* ends an OUT frame: ref is the frame's (absolute) index,
				  * requested is 1 when one of its transfers failed */
	FRAMES_PENDING_OUT_PART, /* part of an OUT frame still collected: ref is the stream */
	FRAMES_PENDING_IN,       /* requested: the buffer's length */
	FRAMES_PENDING_CONFIG,   /* GET_DESCRIPTOR(CONFIGURATION); requested: wLength */
};

typedef struct frames_pending {
	uint64_t id;
	uint16_t bus;
	uint8_t device;
	uint8_t kind;
	size_t ref;
	uint32_t requested;
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

/* The frames held are f[off .. off + n), of absolute indices base .. base + n: discarded
 * frames leave the front, and the array is compacted (or shrunk) once half of it is free. */
struct xb_frames {
	xb_frames_options opt;
	xb_frame *f;
	size_t off, n, cap;
	size_t base;
	size_t last_done; /* frames_last_done */
	frames_stream *st;
	size_t nst, capst;
	frames_pending *pend;
	size_t npend, cappend;
	xb_frames_device *dev;
	size_t ndev, capdev;
	xb_frames_stats stats;
	char warning[512];
};

/* The device's entry (created as unknown when create is set; else NULL if absent). */
xb_frames_device *frames_device_find(xb_frames *fs, uint16_t bus, uint8_t device, int create);
/* A configuration descriptor (with its interfaces and endpoints) read from the device. */
void frames_device_config(xb_frames *fs, uint16_t bus, uint8_t device, const uint8_t *d, size_t n);
/* Whether the bulk transfers of r's endpoint carry frames, and the wMaxPacketSize. */
int frames_device_wants(xb_frames *fs, const xb_usbrec *r, uint32_t *max_packet);

#endif
