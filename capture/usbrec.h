/* usbrec: one Linux usbmon record (link type 220 or 189) parsed field by field. */
#ifndef XB_CAPTURE_USBREC_H
#define XB_CAPTURE_USBREC_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "source.h"

/*
 * The header (Linux Documentation/usb/usbmon.rst, struct mon_bin_hdr), in the capturing
 * host's byte order (libpcap converts it to the reading host's):
 *
 *   0 id (u64)  8 event  9 transfer type  10 endpoint (bit 7: IN)  11 device  12 bus (u16)
 *  14 setup flag (0: setup present)  15 data flag (0: data present)  16 ts_sec (s64)
 *  24 ts_usec (s32)  28 status (s32)  32 urb length (u32)  36 captured length (u32)
 *  40 setup[8], or for iso: error count (s32), descriptor count (s32)
 *  link type 220 only: 48 interval (s32)  52 start frame (s32)  56 transfer flags (u32)
 *                      60 iso descriptors (u32), then that many 16-byte iso descriptors
 *  then the data: OUT data on 'S' records, IN data on 'C' records.
 */

#define XB_USBREC_HEADER_MMAPPED 64u /* link type 220 */
#define XB_USBREC_HEADER_LINUX 48u   /* link type 189 */
#define XB_USBREC_ISO_DESCRIPTOR 16u

enum xb_usbrec_xfer {
	XB_USBREC_ISO = 0,
	XB_USBREC_INTERRUPT = 1,
	XB_USBREC_CONTROL = 2,
	XB_USBREC_BULK = 3,
};

typedef struct xb_usbrec {
	uint64_t id;       /* the URB: pairs an 'S' with its 'C' or 'E' */
	char event;        /* 'S' submission, 'C' completion, 'E' submission error */
	uint8_t xfer_type; /* enum xb_usbrec_xfer */
	uint8_t endpoint;  /* number and bit 7 for IN (control: the URB's direction) */
	uint8_t device;    /* address on its bus */
	uint16_t bus;
	uint8_t setup_flag; /* 0 when setup holds the setup packet */
	uint8_t data_flag;  /* 0 when data was captured; '<', '>', 'Z', 'E' ... otherwise */
	int64_t ts_sec;     /* the header's own timestamp */
	int32_t ts_usec;
	int32_t status;   /* -115 (-EINPROGRESS) on 'S'; 0 or a negative errno */
	uint32_t length;  /* 'S': the buffer's length; 'C': the bytes transferred */
	uint32_t len_cap; /* data bytes the kernel captured for this record */
	uint8_t setup[8]; /* the raw bytes at offset 40 */
	int32_t iso_error_count, iso_numdesc; /* the same bytes, for iso URBs */
	/* link type 220 only (0 for 189) */
	int32_t interval;    /* interrupt and iso URBs, in frames */
	int32_t start_frame; /* iso */
	uint32_t xfer_flags; /* the URB's transfer_flags (URB_ZERO_PACKET 0x40, URB_DIR_IN 0x200) */
	uint32_t ndesc;      /* iso descriptors in the record */
	/* what follows the header */
	uint32_t header_len; /* 64 or 48 */
	const uint8_t *data; /* the captured data (into the record) */
	uint32_t data_len;   /* bytes at data: len_cap, or less when the record was cut */
	uint8_t truncated;   /* data_len < len_cap: cut by the capture's snap length */
	uint64_t time_ns;    /* the capture record's time (nanoseconds since 1970) */
	uint64_t index;      /* the capture record's number */
} xb_usbrec;

#define XB_USBREC_URB_ZERO_PACKET 0x40u
#define XB_USBREC_EINPROGRESS (-115)

/* Parses a record of a source. Fails (message without a prefix: the caller names the file
 * and record) when the record is shorter than its header, the event is not 'S', 'C' or
 * 'E', the transfer type is above 3, or the iso descriptors run past the record. A record
 * cut by the snap length is not an error: data_len and truncated say how much is there. */
int usbrec_parse(xb_usbrec *r, const xb_capture_record *rec, xb_err *err);

/* Parses raw bytes (link type and byte order given). */
int usbrec_parse_bytes(xb_usbrec *r, const uint8_t *p, size_t caplen, uint32_t linktype,
		       int big_endian, xb_err *err);

/* Reads records from s until it ends, has nothing now, fails or max records (0: no limit)
 * were read, parsing each and calling fn; returns the last capture_next result
 * (XB_CAPTURE_RECORD when max was reached). A record that is not a usbmon record stops it
 * with XB_CAPTURE_ERROR ("NAME: record N: not a usbmon record: ..."). What frames_read and
 * tracker_feed share. */
int usbrec_read(xb_capture_source *s, uint64_t max, void (*fn)(void *ctx, const xb_usbrec *r),
		void *ctx, xb_err *err);

/* The endpoint is IN (bit 7). */
static inline int usbrec_in(const xb_usbrec *r)
{
	return (r->endpoint & 0x80) != 0;
}

/* "bulk", "interrupt", "control", "iso". */
const char *usbrec_xfer_name(uint8_t xfer_type);

#endif
