/* source_file: usbmon records from a pcap or pcapng file, through libpcap. */
#include <errno.h>
#include <string.h>

#include "source_internal.h"

static const xb_capture_source_ops capture_file_ops;

xb_capture_source *capture_open_file(const char *path, xb_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		xb_fail(err, "%s: cannot open the capture: %s", path, strerror(errno));
		return NULL;
	}
	return capture_pcap_offline(&capture_file_ops, f, path, err);
}

static const xb_capture_source_ops capture_file_ops = {
	.kind = "file",
	.next = capture_pcap_next,
	.fd = NULL, /* a regular file never blocks */
	.close = capture_pcap_close,
};
