/* source_live: usbmon records from a live usbmonN interface through libpcap, with messages
 * that say what a failed start needs (the usbmon module, read access to /dev/usbmonN). */
#include <stdlib.h>
#include <string.h>

#include "source_internal.h"

static const xb_capture_source_ops capture_live_ops;

/* Why pcap_activate failed, in terms of what to do about it. */
static void capture_live_explain(const char *iface, int rc, const char *pcap_msg, xb_err *err)
{
	if (rc == PCAP_ERROR_PERM_DENIED) {
		xb_fail(err,
			"%s: permission denied (%s): a live usbmon capture reads /dev/%s, which "
			"only root may read by default: run as root, or give your user read "
			"access (e.g. `sudo setfacl -m u:$USER:r /dev/%s`, or a udev rule "
			"SUBSYSTEM==\"usbmon\", GROUP=\"wireshark\", MODE=\"0640\")",
			iface, pcap_msg, iface, iface);
	} else if (rc == PCAP_ERROR_NO_SUCH_DEVICE) {
		xb_fail(err,
			"%s: no such usbmon interface (%s): load the module with `sudo "
			"modprobe usbmon`; usbmon0 sees every bus, usbmonN bus N (lsusb shows "
			"the Pico's bus)",
			iface, pcap_msg);
	} else {
		xb_fail(err, "%s: cannot start the capture: %s", iface, pcap_msg);
	}
}

xb_capture_source *capture_open_live(const char *iface, const xb_capture_live_options *o,
				     xb_err *err)
{
	xb_capture_live_options d = {0};
	if (o)
		d = *o;
	if (strncmp(iface, "usbmon", 6) != 0) {
		xb_fail(err,
			"%s: not a usbmon interface: live captures read usbmon0 (every bus) "
			"or usbmonN (bus N)",
			iface);
		return NULL;
	}
	char eb[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(iface, eb);
	if (!p) {
		xb_fail(err, "%s: cannot start the capture: %s", iface, eb);
		return NULL;
	}
	pcap_set_snaplen(p, d.snaplen ? (int)d.snaplen : (int)XB_CAPTURE_SNAPLEN);
	pcap_set_timeout(p, d.timeout_ms > 0 ? d.timeout_ms : 100);
	if (d.buffer_bytes > 0)
		pcap_set_buffer_size(p, d.buffer_bytes);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO); /* refused: microseconds */
	int rc = pcap_activate(p);
	if (rc < 0) {
		char msg[PCAP_ERRBUF_SIZE];
		snprintf(msg, sizeof msg, "%s",
			 rc == PCAP_ERROR ? pcap_geterr(p) : pcap_statustostr(rc));
		pcap_close(p);
		capture_live_explain(iface, rc, msg, err);
		return NULL;
	}
	xb_capture_source *s = capture_pcap_source(&capture_live_ops, p, iface, err);
	if (!s)
		return NULL;
	if (d.write_to) {
		capture_pcap *cp = s->impl;
		cp->dump = pcap_dump_open(p, d.write_to);
		if (!cp->dump) {
			xb_fail(err, "%s: cannot write the capture to %s: %s", iface, d.write_to,
				pcap_geterr(p));
			capture_close(s);
			return NULL;
		}
	}
	return s;
}

static const xb_capture_source_ops capture_live_ops = {
	.kind = "live",
	.next = capture_pcap_next,
	.fd = capture_pcap_fd,
	.close = capture_pcap_close,
};
