/* source_pcap: reading usbmon records through libpcap, shared by the file, stream and live
 * sources: link type checks, timestamps in nanoseconds, messages naming the record. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source_internal.h"

static int capture_host_big_endian(void)
{
	const uint16_t one = 1;
	uint8_t b;
	memcpy(&b, &one, 1);
	return b == 0;
}

xb_capture_source *capture_pcap_source(const xb_capture_source_ops *ops, pcap_t *p,
				       const char *name, xb_err *err)
{
	int lt = pcap_datalink(p);
	if (lt != (int)XB_CAPTURE_LINKTYPE_USB_LINUX_MMAPPED &&
	    lt != (int)XB_CAPTURE_LINKTYPE_USB_LINUX) {
		char b[64];
		xb_fail(err,
			"%s: link type %s is not a usbmon capture: xipbench reads Linux usbmon "
			"records (link type 220 USB_LINUX_MMAPPED or 189 USB_LINUX), as captured "
			"on a usbmonN interface",
			name, capture_linktype_name(lt, b, sizeof b));
		pcap_close(p);
		return NULL;
	}
	capture_pcap *cp = xcalloc(1, sizeof *cp);
	cp->p = p;
	cp->nano = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	xb_capture_source *s = capture_source_new(ops, name, cp);
	s->linktype = (uint32_t)lt;
	int snap = pcap_snapshot(p);
	s->snaplen = snap > 0 ? (uint32_t)snap : XB_CAPTURE_SNAPLEN;
	return s;
}

xb_capture_source *capture_pcap_offline(const xb_capture_source_ops *ops, FILE *f, const char *name,
					xb_err *err)
{
	char eb[PCAP_ERRBUF_SIZE] = "";
	long start = ftell(f);
	pcap_t *p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, eb);
	if (!p) {
		fclose(f);
		if (strcmp(eb, "unknown file format") == 0)
			xb_fail(err,
				"%s: not a capture: the file starts with neither the pcap nor "
				"the pcapng magic number",
				name);
		else
			xb_fail(err, "%s: not a usable capture: %s", name, eb);
		return NULL;
	}
	xb_capture_source *s = capture_pcap_source(ops, p, name, err);
	if (!s)
		return NULL; /* pcap_close closed f */
	capture_pcap *cp = s->impl;
	cp->f = f;
	cp->offsets = start >= 0 && ftell(f) >= 0;
	return s;
}

int capture_pcap_next(xb_capture_source *s, xb_capture_record *r, xb_err *err)
{
	capture_pcap *cp = s->impl;
	long at = cp->offsets ? ftell(cp->f) : -1;
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = pcap_next_ex(cp->p, &h, &data);
	if (rc == 0)
		return XB_CAPTURE_AGAIN;
	if (rc == PCAP_ERROR_BREAK)
		return XB_CAPTURE_END;
	if (rc != 1) {
		char where[64] = "";
		if (at >= 0)
			snprintf(where, sizeof where, " (byte %ld)", at);
		xb_fail(err, "%s: record %llu%s: %s", s->name, (unsigned long long)s->records + 1,
			where, pcap_geterr(cp->p));
		return XB_CAPTURE_ERROR;
	}
	if (cp->dump) {
		pcap_dump((u_char *)cp->dump, h, data);
		if (pcap_dump_flush(cp->dump) != 0) {
			xb_fail(err, "%s: cannot write the copy of the capture: %s", s->name,
				strerror(errno));
			return XB_CAPTURE_ERROR;
		}
	}
	r->data = data;
	r->caplen = h->caplen;
	r->len = h->len;
	/* unsigned: a garbage pcapng timestamp wraps instead of overflowing */
	uint64_t frac = (uint64_t)h->ts.tv_usec * (cp->nano ? 1u : 1000u);
	r->time_ns = (uint64_t)h->ts.tv_sec * 1000000000u + frac;
	r->big_endian = (uint8_t)capture_host_big_endian(); /* libpcap swaps the usbmon header */
	return XB_CAPTURE_RECORD;
}

int capture_pcap_fd(const xb_capture_source *s)
{
	const capture_pcap *cp = s->impl;
	return pcap_get_selectable_fd(cp->p);
}

void capture_pcap_close(xb_capture_source *s)
{
	capture_pcap *cp = s->impl;
	if (!cp)
		return;
	if (cp->dump)
		pcap_dump_close(cp->dump);
	pcap_close(cp->p); /* offline: also closes the file */
	free(cp);
	s->impl = NULL;
}
