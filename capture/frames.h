/* frames: the CDC-ECM Ethernet frames inside a capture's bulk transfers, with the times the
 * seed's metrics need (the end of each transfer). */
#ifndef XB_CAPTURE_FRAMES_H
#define XB_CAPTURE_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "source.h"
#include "usbrec.h"

/*
 * CDC-ECM sends one Ethernet frame (no FCS) per bulk transfer; a short packet (or a
 * zero-length one) ends it. In usbmon records:
 *
 *  - OUT frames (host to device) are the data of 'S' records. A transfer ends the frame
 *    when its length is not a multiple of the endpoint's wMaxPacketSize, when it is 0 (a
 *    ZLP on its own), or when it has URB_ZERO_PACKET; otherwise the next OUT transfer
 *    continues the frame. Linux's usbnet appends one zero byte to a frame whose length is
 *    a multiple of wMaxPacketSize instead of sending a ZLP: that byte is stripped when the
 *    ARP, IPv4 or IPv6 length says the packet ends before it (other EtherTypes keep it).
 *    The frame's time is the 'C' record of the transfer that ended it (until that record
 *    arrives the frame is pending); a 'C' with an error status, or an 'E', fails it.
 *  - IN frames (device to host) are the data of 'C' records. A completion ends the frame
 *    when it moved fewer bytes than its 'S' asked for, or a length that is not a multiple
 *    of wMaxPacketSize, or 0, or when its 'S' is not in the capture (a live capture starts
 *    with transfers submitted before it). Otherwise (the buffer filled with whole packets)
 *    the next completion continues it. The frame's time is that 'C' record's.
 *    Completions with an error drop what was collected.
 *
 * Which transfers: bulk transfers of every device, or of --device/--bus only. A device
 * whose configuration descriptor is in the capture (an enumeration was recorded) is
 * recognised: for a CDC-ECM device (a communications interface of subclass 6) only the
 * bulk endpoints of its data interface count, with their wMaxPacketSize; a device that is
 * not CDC-ECM is left out unless selected. Otherwise wMaxPacketSize is 64 (full speed).
 */

enum {
	XB_FRAME_IN = 1,        /* device to host */
	XB_FRAME_PADDED = 2,    /* usbnet's padding byte was stripped */
	XB_FRAME_TRUNCATED = 4, /* the capture holds only the first `captured` bytes */
	XB_FRAME_PENDING = 8,   /* OUT: the completion is not (yet) in the capture */
	XB_FRAME_FAILED = 16,   /* OUT: the transfer failed (status, or an 'E' record) */
};

#define XB_FRAMES_MAX_FRAME 65536u /* longer transfers without an end are dropped */

typedef struct xb_frame {
	uint64_t time_ns;     /* end of the transfer: its 'C' record (0 while pending) */
	uint64_t submit_ns;   /* the 'S' record of its first transfer (IN: 0 when not seen) */
	uint64_t record;      /* the record that ended its data ('S' for OUT, 'C' for IN) */
	uint64_t done_record; /* the record giving time_ns (0 while pending) */
	uint16_t bus;
	uint8_t device;
	uint8_t endpoint;      /* number, and bit 7 for IN */
	uint8_t flags;         /* XB_FRAME_... */
	int32_t status;        /* OUT: the completion's status (0 when it succeeded) */
	uint32_t transfer_len; /* bytes the transfers carried */
	uint32_t len;          /* the frame: transfer_len less a stripped padding byte */
	uint32_t captured;     /* bytes at data (len unless truncated) */
	uint32_t urbs;         /* transfers it took */
	uint8_t *data;
} xb_frame;

typedef struct xb_frames_device {
	uint16_t bus;
	uint8_t device;
	int8_t ecm; /* 1 CDC-ECM, 0 not, -1 unknown (no descriptor in the capture) */
	uint8_t in_endpoint, out_endpoint; /* ECM data endpoints (0 when unknown) */
	uint16_t in_max_packet, out_max_packet;
	uint64_t frames_out, frames_in;
} xb_frames_device;

typedef struct xb_frames_options {
	int bus;             /* only this bus; -1 (default): any */
	int device;          /* only this device address; -1 (default): any */
	uint32_t max_packet; /* wMaxPacketSize to assume; 0 (default): from the descriptors,
			      * else 64 */
} xb_frames_options;

typedef struct xb_frames_stats {
	uint64_t records;           /* records parsed */
	uint64_t truncated_records; /* records cut by the snap length */
	uint64_t ignored_records;   /* other devices, endpoints, transfer types */
	uint64_t frames_out, frames_in;
	uint64_t bytes_out, bytes_in; /* frame lengths */
	uint64_t padded;              /* OUT frames whose padding byte was stripped */
	uint64_t pending;             /* OUT frames whose completion is not in the capture */
	uint64_t failed;              /* OUT frames whose transfer failed */
	uint64_t truncated;           /* frames not captured whole */
	uint64_t in_errors;           /* IN completions with an error status (data dropped) */
	uint64_t in_cancelled;        /* IN transfers unlinked or shut down (-ENOENT,
				       * -ECONNRESET, -ESHUTDOWN) */
	uint64_t unpaired;            /* OUT completions whose submission is not in the capture */
	uint64_t overlong;            /* transfers past XB_FRAMES_MAX_FRAME without an end */
	uint64_t first_ns;            /* time of the first record (0 before any) */
} xb_frames_stats;

typedef struct xb_frames xb_frames;

void frames_options_init(xb_frames_options *o);
/* o may be NULL (defaults). */
xb_frames *frames_new(const xb_frames_options *o);
void frames_free(xb_frames *fs);

/* Feeds one parsed record. Frames are appended in the order their data ends (the 'S' of
 * an OUT frame, the 'C' of an IN frame); an OUT frame's time, status and flags change
 * when its completion comes. */
void frames_add(xb_frames *fs, const xb_usbrec *r);

/* Reads records from s into fs until the source ends, has nothing now, fails, or max
 * records (0: no limit) were read; returns the last capture_next result (XB_CAPTURE_RECORD
 * when max was reached). A record that is not a usbmon record stops it with
 * XB_CAPTURE_ERROR ("NAME: record N: ..."). Frames from earlier records stay. */
int frames_read(xb_frames *fs, xb_capture_source *s, uint64_t max, xb_err *err);

/* Frames ever appended: indices are absolute (frames_discard does not renumber). */
size_t frames_count(const xb_frames *fs);
/* Frame i, or NULL when i is not held (discarded, or not appended yet). The pointer is
 * valid until the next frames_add or frames_discard. */
const xb_frame *frames_get(const xb_frames *fs, size_t i);

size_t frames_device_count(const xb_frames *fs);
const xb_frames_device *frames_device(const xb_frames *fs, size_t i);
void frames_stats(const xb_frames *fs, xb_frames_stats *out);
/* The first warning (a record cut by the snap length ...), "" when none. */
const char *frames_warning(const xb_frames *fs);

/* ---- Bounded memory (a live capture of any length) ---- */

#define XB_FRAMES_NONE SIZE_MAX

/* Forgets the frames of index below before (at most frames_count) and frees their data;
 * frames_count still counts them and frames_get returns NULL for them. A completion that
 * comes later for a discarded OUT frame still counts in the stats (pending, failed) and
 * is otherwise dropped. */
void frames_discard(xb_frames *fs, size_t before);
/* Frames held now: frames_count less those discarded. */
size_t frames_held(const xb_frames *fs);
/* The OUT frame the last record given to frames_add completed (a 'C' or 'E' of the
 * transfer that ended it; its time, status and flags changed), or XB_FRAMES_NONE. For
 * callers that follow the frames record by record (tracker.h). */
size_t frames_last_done(const xb_frames *fs);

#endif
