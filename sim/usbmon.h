/* usbmon: Linux usbmon records (the binary mon_bin layout) in a pcap stream of link type 220,
 * written exactly as a Linux host's capture of a usbmonN interface would hold them. */
#ifndef XB_USBMON_H
#define XB_USBMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Record layout (Linux Documentation/usb/usbmon.rst, struct mon_bin_hdr; every field little
 * endian, the byte order of the x86 and Arm hosts the captures are compared with):
 *
 *   0 id (u64)        the URB's identity: pairs an 'S' with its 'C' or 'E'
 *   8 event           'S' submission, 'C' completion, 'E' submission error
 *   9 transfer type   0 iso, 1 interrupt, 2 control, 3 bulk
 *  10 endpoint        number, bit 7 set for the IN direction (control: the URB's direction)
 *  11 device address
 *  12 bus number (u16)
 *  14 setup flag      0 when setup bytes follow (control 'S' only), '-' otherwise
 *  15 data flag       0 when data is captured; '<' on an IN 'S', '>' on an OUT 'C', 'E' on
 *                     an 'E'; 0 when the length is 0 otherwise (as mon_bin does)
 *  16 ts_sec (s64)    24 ts_usec (s32): virtual time plus the options' epoch
 *  28 status (s32)    -115 (-EINPROGRESS) on 'S'; 0 or the negative errno on 'C' and 'E'
 *  32 urb length      'S': transfer_buffer_length; 'C': actual_length
 *  36 captured length the data bytes that follow the header
 *  40 setup[8]        control 'S'; zero otherwise (iso: error count, descriptor count)
 *  48 interval        interrupt and iso URBs only, in frames; 0 otherwise
 *  52 start frame     iso only
 *  56 transfer flags  the URB's transfer_flags (URB_DIR_IN 0x200 ...)
 *  60 iso descriptor count (0: iso descriptors are not written)
 *  64 data            OUT data on 'S', IN data on 'C'
 *
 * Each pcap record carries the record's timestamp; its captured length is 64 + captured
 * data, its original length 64 + urb length when data was captured and 64 + captured length
 * when the data flag says there is none (what libpcap reports for live usbmon captures).
 * Data longer than XB_USBMON_MAX_DATA bytes is cut there, as mon_bin's default buffer does.
 */

enum {
	XB_USBMON_ISO = 0,
	XB_USBMON_INTERRUPT = 1,
	XB_USBMON_CONTROL = 2,
	XB_USBMON_BULK = 3,
};

#define XB_USBMON_LINKTYPE 220u
#define XB_USBMON_HEADER 64u
#define XB_USBMON_MAX_DATA 61440u /* mon_bin: buffer size (300 KiB) / 5 */
#define XB_USBMON_SNAPLEN 262144u
#define XB_USBMON_EINPROGRESS (-115)

/* What a record says about an URB (the fields Linux copies from struct urb). */
typedef struct xb_usbmon_urb {
	uint64_t id;
	uint8_t xfer_type;      /* XB_USBMON_ISO ... XB_USBMON_BULK */
	uint8_t endpoint;       /* endpoint number 0..15 (without the direction bit) */
	uint8_t dir_in;         /* 1: the URB moves data to the host */
	uint8_t devnum;         /* device address */
	uint16_t busnum;
	const uint8_t *setup;   /* control URBs: the 8 setup bytes; NULL otherwise */
	const uint8_t *buffer;  /* the transfer buffer (length bytes; may be NULL when 0) */
	uint32_t length;        /* transfer_buffer_length */
	uint32_t actual;        /* actual_length (used by completions) */
	int32_t interval;       /* interrupt and iso URBs: urb->interval in frames */
	int32_t start_frame;    /* iso URBs */
	uint32_t flags;         /* transfer_flags */
} xb_usbmon_urb;

/* Encodes one record (header and data) into out, which must hold XB_USBMON_HEADER +
 * XB_USBMON_MAX_DATA bytes. event is 'S', 'C' or 'E'; status is the record's status
 * (XB_USBMON_EINPROGRESS for 'S'). time_ns is virtual time, epoch_sec is added to its
 * seconds. Returns the record's length. *orig_len (may be NULL) gets the original length
 * libpcap would report. */
size_t usbmon_encode(const xb_usbmon_urb *u, char event, int32_t status, uint64_t time_ns,
		     int64_t epoch_sec, uint8_t *out, uint32_t *orig_len);

/* The 24-byte pcap global header: magic a1b2c3d4 (microseconds), version 2.4, zone 0,
 * sigfigs 0, snaplen, link type 220; little endian. */
void usbmon_pcap_header(uint8_t out[24], uint32_t snaplen);

typedef struct xb_usbmon xb_usbmon;

typedef struct xb_usbmon_options {
	int64_t epoch_sec; /* added to virtual time's seconds in timestamps (default 0) */
	uint32_t snaplen;  /* pcap snaplen (default XB_USBMON_SNAPLEN) */
} xb_usbmon_options;

/* Receives every record as encoded (the 64-byte header then the data), with its time. */
typedef void (*xb_usbmon_record_fn)(void *ctx, const uint8_t *rec, size_t len,
				    uint64_t time_ns);

/* A writer. When f is not NULL the pcap global header is written to it at once and every
 * record follows with its pcap record header, flushed per record (f may be a pipe); the
 * caller keeps ownership of f. o may be NULL (defaults). */
xb_usbmon *usbmon_new(FILE *f, const xb_usbmon_options *o);
void usbmon_free(xb_usbmon *m);
/* Also (or instead) hand each record to fn. */
void usbmon_set_record_fn(xb_usbmon *m, xb_usbmon_record_fn fn, void *ctx);

/* One record each: an URB submitted ('S', status -115), completed ('C', status 0 or the
 * error) or refused at submission ('E', the error). */
void usbmon_submit(xb_usbmon *m, const xb_usbmon_urb *u, uint64_t time_ns);
void usbmon_complete(xb_usbmon *m, const xb_usbmon_urb *u, int32_t status, uint64_t time_ns);
void usbmon_error(xb_usbmon *m, const xb_usbmon_urb *u, int32_t error, uint64_t time_ns);

/* Records written so far, and 1 once a write to f failed (later records are dropped from f
 * but still reach the callback). */
uint64_t usbmon_records(const xb_usbmon *m);
int usbmon_write_failed(const xb_usbmon *m);

#endif
