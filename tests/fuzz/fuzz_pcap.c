/* fuzz_pcap: any bytes as a capture file through the file source, the usbmon parser, the
 * frame reassembly, echo matching and the rate sweep: clean errors, never a crash or a leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../capture/echo.h"
#include "../../capture/packet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bytes as a file with a path: a memory file seen through /proc. */
static int fuzz_file(const uint8_t *data, size_t size, char *path, size_t cap)
{
	int fd = memfd_create("fuzz.pcap", 0);
	if (fd < 0)
		abort();
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	snprintf(path, cap, "/proc/self/fd/%d", fd);
	return fd;
}

static void fuzz_frames(const xb_frames *fs)
{
	static const uint32_t rates[] = {100, 200};
	char line[160];
	for (size_t i = 0; i < frames_count(fs); i++) {
		const xb_frame *f = frames_get(fs, i);
		if (f->captured > f->len)
			abort();
		xb_packet p;
		packet_parse(&p, f->data, f->captured, f->len);
		packet_summary(&p, line, sizeof line);
	}
	xb_err err;
	xb_echoes *e = echo_new(NULL, &err);
	echo_update(e, fs);
	xb_echo_summary s;
	echo_summarize(e, fs, 0, &s);
	if (s.replied + s.lost + s.failed != s.requests)
		abort();
	for (size_t i = 0; i < echo_count(e); i++) {
		int64_t ns;
		echo_turnaround(e, fs, i, &ns);
	}
	xb_rate_plan plan = {.rates = rates, .nrates = 2, .step_ns = 1000000, .passes = 2};
	xb_rate_result r;
	if (echo_rate_sweep(e, fs, &plan, &r, &err))
		abort();
	echo_rate_free(&r);
	echo_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the record parser alone, on the raw bytes, both header layouts */
	xb_usbrec r;
	xb_err err;
	usbrec_parse_bytes(&r, data, size, 220, 0, &err);
	usbrec_parse_bytes(&r, data, size, 189, 1, &err);

	char path[64];
	int fd = fuzz_file(data, size, path, sizeof path);
	xb_capture_source *s = capture_open_file(path, &err);
	close(fd);
	if (!s) {
		if (strncmp(err.msg, path, strlen(path)) != 0)
			abort(); /* every message names the file */
		return 0;
	}
	xb_frames *fs = frames_new(NULL);
	int rc = frames_read(fs, s, 0, &err);
	if (rc == XB_CAPTURE_ERROR && strncmp(err.msg, path, strlen(path)) != 0)
		abort();
	if (rc != XB_CAPTURE_ERROR && rc != XB_CAPTURE_END)
		abort();
	fuzz_frames(fs);
	frames_free(fs);
	capture_close(s);
	return 0;
}
