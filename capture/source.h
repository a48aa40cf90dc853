/* source: where usbmon records come from: a live usbmonN interface, a pcap file, a pcap
 * stream on a file descriptor (all three through libpcap), or an in-process feed from the
 * virtual host's usbmon writer. */
#ifndef XB_CAPTURE_SOURCE_H
#define XB_CAPTURE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

/* The two link types of Linux usbmon captures. */
#define XB_CAPTURE_LINKTYPE_USB_LINUX 189u         /* 48-byte header (text and old readers) */
#define XB_CAPTURE_LINKTYPE_USB_LINUX_MMAPPED 220u /* 64-byte header (what live captures give) */
#define XB_CAPTURE_SNAPLEN 262144u                 /* libpcap's maximum, and its live default */

/* What capture_next returns. */
enum xb_capture_next {
	XB_CAPTURE_ERROR = -1, /* err says what and where; earlier records stay valid results */
	XB_CAPTURE_END = 0,    /* no more records: end of file or stream, feed ended */
	XB_CAPTURE_RECORD = 1, /* *r holds the next record */
	XB_CAPTURE_AGAIN = 2,  /* nothing yet (live timeout, empty feed): call again later */
};

/* One record as the source holds it. data is valid until the next capture_next or
 * capture_close on the same source. */
typedef struct xb_capture_record {
	const uint8_t *data; /* the usbmon header, then what was captured of the data */
	uint32_t caplen;     /* bytes at data */
	uint32_t len;        /* the record's original length (above caplen when cut) */
	uint64_t time_ns;    /* nanoseconds since 1970 (microsecond files: a multiple of 1000) */
	uint64_t index;      /* 1 for the first record of the source */
	uint32_t linktype;   /* XB_CAPTURE_LINKTYPE_USB_LINUX or _MMAPPED */
	uint8_t big_endian;  /* the header's fields are big endian (libpcap: the host's order) */
} xb_capture_record;

typedef struct xb_capture_source xb_capture_source;

/* One implementation per file (source_file.c, source_stream.c, source_live.c,
 * source_feed.c), each ending in its const table. */
typedef struct xb_capture_source_ops {
	const char *kind; /* "file", "stream", "live", "feed" */
	/* The next record; index and linktype are filled by capture_next. */
	int (*next)(xb_capture_source *s, xb_capture_record *r, xb_err *err);
	/* A descriptor that poll() reports readable when a record may be waiting, or -1. */
	int (*fd)(const xb_capture_source *s);
	void (*close)(xb_capture_source *s);
} xb_capture_source_ops;

struct xb_capture_source {
	const xb_capture_source_ops *ops;
	char *name;        /* file name, "-" for standard input, interface, feed name */
	uint32_t linktype; /* of every record */
	uint32_t snaplen;  /* records are cut to this many bytes */
	uint64_t records;  /* returned so far */
	void *impl;        /* the implementation's state */
	int state;         /* XB_CAPTURE_RECORD while reading, then _END or _ERROR */
	xb_err error;      /* the error, once state is XB_CAPTURE_ERROR */
};

/* A pcap or pcapng file of link type 220 or 189 (libpcap reads both formats and either
 * byte order). Fails with "PATH: reason" when the file cannot be opened, is not a capture
 * (wrong magic), or holds another link type. */
xb_capture_source *capture_open_file(const char *path, xb_err *err);

/* A pcap stream read from descriptor fd as it arrives (a pipe from `xipbench sim serve
 * --pcap -`, standard input). name is used in messages ("-" for standard input). The
 * source owns fd from now on, also on failure. Reads block until a whole record is there;
 * poll capture_fd first to wait without blocking. */
xb_capture_source *capture_open_stream(int fd, const char *name, xb_err *err);

/* A live capture on a Linux usbmon interface ("usbmon0": every bus; "usbmonN": bus N).
 * It needs the usbmon module (`modprobe usbmon`) and read access to /dev/usbmonN, which
 * only root has by default; the messages say so. */
typedef struct xb_capture_live_options {
	uint32_t snaplen;     /* 0: XB_CAPTURE_SNAPLEN */
	int timeout_ms;       /* longest wait of one capture_next before XB_CAPTURE_AGAIN; 0: 100 */
	int buffer_bytes;     /* kernel ring size; 0: libpcap's default */
	const char *write_to; /* also write every record to this pcap file (NULL: no) */
	const char *root;     /* where capture_live_check looks for /sys, /dev, /proc (NULL: /) */
} xb_capture_live_options;
xb_capture_source *capture_open_live(const char *iface, const xb_capture_live_options *o,
				     xb_err *err);
/* What a live capture on iface needs, looked for under root (NULL: "/"; a test gives a
 * folder laid out as one): the usbmon module (/sys/module/usbmon, or "usbmon" in
 * /proc/devices); for usbmonN, bus N (/sys/bus/usb/devices/usbN); /dev/usbmonN, or without
 * it usbmon's text interface in debugfs (/sys/kernel/debug/usb/usbmon), which libpcap
 * then reads; read access to what it reads, for user uid (-1: this process, by
 * access(2); otherwise judged by the file's owner, group and mode). 0 when nothing is
 * missing, or -1 with err naming the first missing piece and the exact command that
 * provides it. capture_open_live explains its failures with it. */
int capture_live_check(const char *iface, const char *root, int uid, xb_err *err);

/* An in-process feed. capture_feed_record has the signature of sim/usbmon.h's
 * xb_usbmon_record_fn: `usbmon_set_record_fn(mon, capture_feed_record, source)` queues a
 * copy of every record the virtual host writes (link type 220, little endian). A record's
 * time is the header's ts_sec with the nanoseconds of the writer's virtual time. The
 * queue grows until the records are read; capture_next returns XB_CAPTURE_AGAIN while it
 * is empty, XB_CAPTURE_END once capture_feed_end was called and it is empty. Not thread
 * safe: feed and read in the thread that runs the board. */
xb_capture_source *capture_open_feed(const char *name);
void capture_feed_record(void *source, const uint8_t *rec, size_t len, uint64_t time_ns);
void capture_feed_end(xb_capture_source *s);

/* The next record (see enum xb_capture_next). Errors name the source and the record
 * ("FILE: record 12 (byte 1441): ..."). After an error or END, calls return the same. */
int capture_next(xb_capture_source *s, xb_capture_record *r, xb_err *err);
/* See the fd operation; -1 for sources that never block. */
int capture_fd(const xb_capture_source *s);
/* Closes and frees (NULL is fine). */
void capture_close(xb_capture_source *s);

/* A link type as "220 (USB_LINUX_MMAPPED)" (or just the number), for messages. */
const char *capture_linktype_name(int linktype, char *buf, size_t cap);

#endif
