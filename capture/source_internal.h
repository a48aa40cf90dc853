/* source_internal: what the capture sources share; not for use outside capture/. */
#ifndef XB_CAPTURE_SOURCE_INTERNAL_H
#define XB_CAPTURE_SOURCE_INTERNAL_H

#include <stdio.h>

#include <pcap/pcap.h>

#include "source.h"

/* A source with its table, name (copied) and implementation state; link type 220 and
 * the maximum snap length until the implementation says otherwise. */
xb_capture_source *capture_source_new(const xb_capture_source_ops *ops, const char *name,
				      void *impl);

/* ---- libpcap sources (source_pcap.c) ---- */

typedef struct capture_pcap {
	pcap_t *p;
	FILE *f;             /* offline: the file libpcap reads (for byte offsets); else NULL */
	int offsets;         /* ftell works on f */
	int nano;            /* timestamps are in nanoseconds */
	pcap_dumper_t *dump; /* live: a copy of every record goes there (or NULL) */
} capture_pcap;

/* Wraps an opened (offline) or activated (live) handle into a source: checks that the
 * link type is a usbmon one (otherwise fails with "NAME: ..." and closes p). */
xb_capture_source *capture_pcap_source(const xb_capture_source_ops *ops, pcap_t *p,
				       const char *name, xb_err *err);
/* Opens an offline capture on f (which the source then owns, also on failure). */
xb_capture_source *capture_pcap_offline(const xb_capture_source_ops *ops, FILE *f, const char *name,
					xb_err *err);
int capture_pcap_next(xb_capture_source *s, xb_capture_record *r, xb_err *err);
int capture_pcap_fd(const xb_capture_source *s);
void capture_pcap_close(xb_capture_source *s);

#endif
