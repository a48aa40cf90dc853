/* source: the calls every capture source shares (dispatch through its table, sticky end and
 * error states, record numbering). */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "source_internal.h"

xb_capture_source *capture_source_new(const xb_capture_source_ops *ops, const char *name,
				      void *impl)
{
	xb_capture_source *s = xcalloc(1, sizeof *s);
	s->ops = ops;
	s->name = xstrdup(name && *name ? name : ops->kind);
	s->linktype = XB_CAPTURE_LINKTYPE_USB_LINUX_MMAPPED;
	s->snaplen = XB_CAPTURE_SNAPLEN;
	s->impl = impl;
	s->state = XB_CAPTURE_RECORD;
	return s;
}

int capture_next(xb_capture_source *s, xb_capture_record *r, xb_err *err)
{
	memset(r, 0, sizeof *r);
	if (s->state == XB_CAPTURE_END)
		return XB_CAPTURE_END;
	if (s->state == XB_CAPTURE_ERROR) {
		if (err)
			*err = s->error;
		return XB_CAPTURE_ERROR;
	}
	int rc = s->ops->next(s, r, &s->error);
	if (rc == XB_CAPTURE_RECORD) {
		r->index = ++s->records;
		r->linktype = s->linktype;
		if (r->len < r->caplen)
			r->len = r->caplen;
	} else if (rc == XB_CAPTURE_ERROR || rc == XB_CAPTURE_END) {
		s->state = rc;
		if (rc == XB_CAPTURE_ERROR && err)
			*err = s->error;
	}
	return rc;
}

int capture_fd(const xb_capture_source *s)
{
	return s->ops->fd ? s->ops->fd(s) : -1;
}

void capture_close(xb_capture_source *s)
{
	if (!s)
		return;
	if (s->ops->close)
		s->ops->close(s);
	free(s->name);
	free(s);
}

const char *capture_linktype_name(int linktype, char *buf, size_t cap)
{
	const char *n = pcap_datalink_val_to_name(linktype);
	if (n)
		snprintf(buf, cap, "%d (%s)", linktype, n);
	else
		snprintf(buf, cap, "%d", linktype);
	return buf;
}
