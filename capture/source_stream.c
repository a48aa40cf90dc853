/* source_stream: usbmon records from a pcap stream on a file descriptor (a pipe from the
 * virtual host, standard input), through libpcap, as the records arrive. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "source_internal.h"

static const xb_capture_source_ops capture_stream_ops;

xb_capture_source *capture_open_stream(int fd, const char *name, xb_err *err)
{
	if (!name || !*name)
		name = fd == 0 ? "-" : "stream";
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		xb_fail(err, "%s: cannot read the stream: %s", name, strerror(errno));
		close(fd);
		return NULL;
	}
	/* unbuffered, before libpcap reads: records that stdio had read ahead would wait
	 * unseen by a caller that polls the descriptor (a quiet stream's last records) */
	setvbuf(f, NULL, _IONBF, 0);
	return capture_pcap_offline(&capture_stream_ops, f, name, err);
}

static const xb_capture_source_ops capture_stream_ops = {
	.kind = "stream",
	.next = capture_pcap_next,
	.fd = capture_pcap_fd,
	.close = capture_pcap_close,
};
