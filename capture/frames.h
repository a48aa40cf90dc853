/* frames: the Ethernet frames inside a capture's bulk transfers of a USB network device
 * (CDC-ECM, CDC-NCM or RNDIS), with the times the seed's metrics need (the end of each
 * transfer). */
#ifndef XB_CAPTURE_FRAMES_H
#define XB_CAPTURE_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "source.h"
#include "usbrec.h"

/*
 * A network transfer is the data of the bulk transfers (URBs) up to the end of a USB
 * transfer: a short packet (or a zero-length one) ends it. In usbmon records:
 *
 *  - OUT transfers (host to device) are the data of 'S' records. A transfer ends when its
 *    length is not a multiple of the endpoint's wMaxPacketSize, when it is 0 (a ZLP on its
 *    own), or when it has URB_ZERO_PACKET; otherwise the next OUT transfer continues it.
 *    Its frames' time is the 'C' record of the transfer that ended it (until that record
 *    arrives they are pending); a 'C' with an error status, or an 'E', fails them.
 *  - IN transfers (device to host) are the data of 'C' records. A completion ends it when
 *    it moved fewer bytes than its 'S' asked for, or a length that is not a multiple of
 *    wMaxPacketSize, or 0, or when its 'S' is not in the capture (a live capture starts
 *    with transfers submitted before it). Otherwise (the buffer filled with whole packets)
 *    the next completion continues it. Its frames' time is that 'C' record's.
 *    Completions with an error drop what was collected.
 *  - CDC-NCM and RNDIS transfers also end where their own headers say they do (the NTB's
 *    block length; the last RNDIS message's length), whatever the packets.
 *
 * What a transfer holds depends on the device's protocol (enum xb_frames_proto):
 *
 *  - CDC-ECM: one Ethernet frame (no FCS). Linux's usbnet appends one zero byte to an OUT
 *    frame whose length is a multiple of wMaxPacketSize instead of sending a ZLP: that
 *    byte is stripped when the ARP, IPv4 or IPv6 length says the packet ends before it.
 *  - CDC-NCM: one NCM Transfer Block (NCM 1.0 section 3): an NTH16 ("NCMH") or NTH32
 *    ("ncmh") header, then a chain of datagram pointer tables (NDP16 "NCM0"/"NCM1", NDP32
 *    "ncm0"/"ncm1") whose (index, length) entries give the frames, several per transfer.
 *  - RNDIS: REMOTE_NDIS_PACKET_MSG messages one after another, each with one frame at its
 *    DataOffset and DataLength. Zero bytes after the last message are padding.
 *
 * A transfer that breaks its protocol's rules (signatures or header lengths, indexes or
 * lengths out of range, overlapping NDPs or datagrams, a loop or more than 1024 NDPs in
 * the chain, a table without its zero entry, out-of-band data or per-packet info outside
 * the message, a transfer that ends inside a block or message) counts
 * once in stats.malformed, and frames_error describes it; the frames found before the
 * fault are kept (as Linux's cdc_ncm and rndis_host deliver them), nothing after it.
 *
 * Which transfers: bulk transfers of every device, or of --device/--bus only. A device
 * whose configuration descriptor is in the capture (an enumeration was recorded) is
 * recognised by its interfaces: a communications interface of class 2 and subclass 6 is
 * CDC-ECM, of subclass 0x0D CDC-NCM; class 0xE0/1/3, 2/2/0xFF or 0xEF/4/1 is RNDIS. Only
 * the bulk endpoints of its data interface (class 10) count, with their wMaxPacketSize;
 * when several configurations were read, SET_CONFIGURATION says which one is in use. A
 * device without any of these is left out unless selected. Without a descriptor the
 * protocol comes from the payload: a transfer that starts with an NTH signature makes the
 * device CDC-NCM, one that starts with a well-formed REMOTE_NDIS_PACKET_MSG makes it
 * RNDIS (for the rest of the capture); until then transfers are CDC-ECM frames, and
 * wMaxPacketSize is 64 (full speed). xb_frames_options.proto overrides all of this.
 */

enum {
	XB_FRAME_IN = 1,        /* device to host */
	XB_FRAME_PADDED = 2,    /* usbnet's padding byte was stripped */
	XB_FRAME_TRUNCATED = 4, /* the capture holds only the first `captured` bytes */
	XB_FRAME_PENDING = 8,   /* OUT: the completion is not (yet) in the capture */
	XB_FRAME_FAILED = 16,   /* OUT: the transfer failed (status, or an 'E' record) */
};

#define XB_FRAMES_MAX_FRAME 65536u /* longer transfers without an end are dropped */

/* How a device frames Ethernet in its bulk transfers. */
enum xb_frames_proto {
	XB_FRAMES_PROTO_AUTO = 0,  /* options: from the descriptors, else the payload;
				    * a device: not known (yet) */
	XB_FRAMES_PROTO_ECM = 1,   /* CDC-ECM: one frame per transfer */
	XB_FRAMES_PROTO_NCM = 2,   /* CDC-NCM: NTB16 or NTB32, several frames per transfer */
	XB_FRAMES_PROTO_RNDIS = 3, /* RNDIS: REMOTE_NDIS_PACKET_MSG, several per transfer */
	XB_FRAMES_PROTO_NONE = 4,  /* a device: its descriptors show no network function */
};

/* Where a device's protocol came from. */
enum xb_frames_proto_from {
	XB_FRAMES_FROM_NONE = 0,
	XB_FRAMES_FROM_DESCRIPTOR = 1, /* its configuration descriptor */
	XB_FRAMES_FROM_PAYLOAD = 2,    /* an NTH or RNDIS signature in a transfer */
	XB_FRAMES_FROM_OPTION = 3,     /* xb_frames_options.proto */
};

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
	uint32_t transfer_len; /* bytes the transfers carried (NCM, RNDIS: the whole
				* transfer its frames came in) */
	uint32_t len;          /* the frame: ECM: transfer_len less a stripped padding byte;
				* NCM, RNDIS: the datagram's length (less an NCM1 CRC) */
	uint32_t captured;     /* bytes at data (len unless truncated) */
	uint32_t urbs;         /* transfers it took */
	uint32_t offset;       /* where the frame starts in the transfer (ECM: 0) */
	uint16_t part, parts;  /* the frame is number part (from 0) of the parts frames its
				* transfer held (ECM: 0 of 1) */
	uint8_t proto;         /* enum xb_frames_proto it was decoded with */
	uint8_t *data;
} xb_frame;

typedef struct xb_frames_device {
	uint16_t bus;
	uint8_t device;
	int8_t ecm;     /* 1 CDC-ECM, 0 not, -1 unknown (no descriptor in the capture) */
	uint8_t proto;  /* enum xb_frames_proto: the descriptors', the payload's or the
			 * option's (XB_FRAMES_PROTO_AUTO while unknown) */
	uint8_t proto_from; /* enum xb_frames_proto_from */
	uint8_t in_endpoint, out_endpoint; /* its network function's data endpoints, from
					    * the descriptors (0 when unknown) */
	uint16_t in_max_packet, out_max_packet;
	uint64_t frames_out, frames_in;
	uint64_t malformed; /* its transfers that broke their protocol's rules */
} xb_frames_device;

typedef struct xb_frames_options {
	int bus;             /* only this bus; -1 (default): any */
	int device;          /* only this device address; -1 (default): any */
	uint32_t max_packet; /* wMaxPacketSize to assume; 0 (default): from the descriptors,
			      * else 64 */
	int proto;           /* enum xb_frames_proto for every device; XB_FRAMES_PROTO_AUTO
			      * (default): from the descriptors, else the payload */
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
	uint64_t malformed;           /* NCM or RNDIS transfers that broke their protocol's
				       * rules, or whose headers the snap length cut
				       * (frames_error) */
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
/* The first warning (a record cut by the snap length, a malformed transfer ...), "" when
 * none. */
const char *frames_warning(const xb_frames *fs);
/* The last malformed transfer (stats.malformed), "" when none:
 * "record N (bus B device D endpoint 0xE): CDC-NCM: ...". */
const char *frames_error(const xb_frames *fs);

/* "CDC-ECM", "CDC-NCM", "RNDIS", "none" (XB_FRAMES_PROTO_NONE), "unknown"
 * (XB_FRAMES_PROTO_AUTO). */
const char *frames_proto_name(int proto);
/* The same as keys: "ecm", "ncm", "rndis", "none", "unknown" (JSON, frames_proto_parse). */
const char *frames_proto_key(int proto);
/* "auto", "ecm", "ncm", "rndis" (any case) as an enum xb_frames_proto; -1 for others. */
int frames_proto_parse(const char *s);

/* ---- Bounded memory (a live capture of any length) ---- */

#define XB_FRAMES_NONE SIZE_MAX

/* Forgets the frames of index below before (at most frames_count) and frees their data;
 * frames_count still counts them and frames_get returns NULL for them. A completion that
 * comes later for a discarded OUT frame still counts in the stats (pending, failed) and
 * is otherwise dropped. */
void frames_discard(xb_frames *fs, size_t before);
/* Frames held now: frames_count less those discarded. */
size_t frames_held(const xb_frames *fs);
/* The first OUT frame the last record given to frames_add completed (a 'C' or 'E' of the
 * transfer that ended it; its time, status and flags changed), or XB_FRAMES_NONE. For
 * callers that follow the frames record by record (tracker.h). */
size_t frames_last_done(const xb_frames *fs);
/* How many frames from frames_last_done on it completed: 1 for CDC-ECM, as many as the
 * transfer held for NCM and RNDIS (0 with XB_FRAMES_NONE). A record can also end several
 * frames at once (frames_count grows by more than one). */
size_t frames_last_done_count(const xb_frames *fs);

#endif
