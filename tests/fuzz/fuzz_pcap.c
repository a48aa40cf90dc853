/* fuzz_pcap: any bytes as a capture file through the file source, the usbmon parser, the
 * frame reassembly, echo matching and the rate sweep, and record by record through the
 * live tracker (with a tiny timeout and max_pending, so that expiry, eviction and every
 * memory bound run): clean errors, never a crash or a leak, every echo counted once. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../capture/echo.h"
#include "../../capture/packet.h"
#include "../../capture/tracker.h"

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

static size_t fuzz_take(xb_tracker *t)
{
	xb_echo_event ev[3];
	size_t n, all = 0;
	while ((n = tracker_take(t, ev, 3)) > 0) {
		for (size_t i = 0; i < n; i++)
			if (ev[i].state > XB_ECHO_FAILED || (i && ev[i].echo <= ev[i - 1].echo))
				abort();
		all += n;
	}
	return all;
}

/* The file again, through a tracker: its own counts add up, and its bounds hold. */
static void fuzz_tracker(const char *path, uint64_t timeout_ns, size_t max_pending)
{
	xb_err err;
	xb_capture_source *s = capture_open_file(path, &err);
	if (!s)
		abort(); /* it opened before */
	xb_tracker_options o;
	tracker_options_init(&o);
	o.loss_timeout_ns = timeout_ns;
	o.max_pending = max_pending;
	xb_tracker *t = tracker_new(&o, &err);
	xb_tracker_stats st;
	size_t taken = 0, bound = max_pending ? max_pending : 4096; /* 0: the default */
	int rc;
	while ((rc = tracker_feed(t, s, 3, &err)) == XB_CAPTURE_RECORD) {
		taken += fuzz_take(t);
		tracker_stats(t, &st);
		if (st.pending > bound || st.frames_held > 4 * bound ||
		    st.echoes_held > 4 * bound || st.ready > 4 * bound)
			abort();
	}
	if (rc == XB_CAPTURE_ERROR && strncmp(err.msg, path, strlen(path)) != 0)
		abort();
	tracker_advance(t, UINT64_MAX);
	taken += fuzz_take(t);
	tracker_stats(t, &st);
	if (st.pending || st.replied + st.lost + st.failed != st.requests ||
	    taken + st.dropped != st.requests || st.evicted > st.requests)
		abort();
	tracker_free(t);
	capture_close(s);
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
	if (!s) {
		close(fd);
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
	fuzz_tracker(path, 1000000, 2);
	fuzz_tracker(path, 0, 0);
	close(fd);
	return 0;
}
