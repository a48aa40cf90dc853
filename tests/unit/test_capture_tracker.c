/* test_capture_tracker: echoes followed live (capture/tracker.h) against the batch path
 * (frames_read, echo_update, echo_state, echo_turnaround) on the same records: captures
 * written with the virtual host's usbmon writer, and the records of a virtual Pico that
 * answers pings and UDP (some dropped, duplicated, altered); bounded memory over a long
 * stream (frames, echoes and waiting echoes held, the heap in use), eviction with a small
 * max_pending; lost after the timeout in capture time, late and duplicate replies, an idle
 * link; frames_discard and echo_discard directly; the rate counter, fed from the tracker as
 * a live sweep would be, against echo_rate_sweep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <malloc.h>

#include "../../capture/tracker.h"
#include "../../sim/vbench.h"
#include "test_capture_common.h"
#include "test_pico_common.h"
#include "test_sim_common.h"

#define T0 (CAP_EPOCH * 1000000000ull)
#define MS_NS 1000000ull
#define CYCLES_MS 125000u /* virtual Pico cycles per millisecond */

/* ---- Helpers ---- */

typedef struct events {
	xb_echo_event *ev;
	size_t n, cap;
} events;

/* Takes everything settled, a few at a time: oldest request first throughout. */
static void take_all(xb_tracker *t, events *got)
{
	xb_echo_event buf[5];
	size_t n, first = got->n;
	while ((n = tracker_take(t, buf, 5)) > 0) {
		assert_true(n <= 5);
		for (size_t i = 0; i < n; i++) {
			if (got->n > first)
				assert_true(buf[i].echo > got->ev[got->n - 1].echo);
			xb_grow(&got->ev, &got->cap, got->n + 1, sizeof *got->ev);
			got->ev[got->n++] = buf[i];
		}
	}
}

static xb_tracker *tracker_with(uint64_t timeout_ns, size_t max_pending)
{
	xb_tracker_options o;
	tracker_options_init(&o);
	o.loss_timeout_ns = timeout_ns;
	o.max_pending = max_pending;
	xb_err err;
	xb_tracker *t = tracker_new(&o, &err);
	assert_non_null(t);
	return t;
}

static void feed_again(xb_tracker *t, xb_capture_source *feed)
{
	xb_err err;
	assert_int_equal(tracker_feed(t, feed, 0, &err), XB_CAPTURE_AGAIN);
}

/* Every echo of the batch path reported once by the tracker, with the same state, times
 * and turnaround, and the same counts. */
static void check_same(xb_tracker *t, const events *got, const xb_frames *fs, const xb_echoes *e)
{
	size_t n = echo_count(e);
	assert_int_equal(got->n, n);
	uint8_t *seen = xcalloc(n ? n : 1, 1);
	for (size_t k = 0; k < got->n; k++) {
		const xb_echo_event *ev = &got->ev[k];
		assert_true(ev->echo < n);
		assert_false(seen[ev->echo]);
		seen[ev->echo] = 1;
		const xb_echo *x = echo_get(e, ev->echo);
		assert_int_equal(ev->kind, x->kind);
		assert_int_equal(ev->id, x->id);
		assert_int_equal(ev->seq, x->seq);
		assert_int_equal(ev->sport, x->sport);
		assert_int_equal(ev->dport, x->dport);
		assert_memory_equal(ev->nonce, x->nonce, sizeof ev->nonce);
		assert_int_equal(ev->size, x->size);
		assert_int_equal(ev->state, echo_state(e, fs, ev->echo));
		assert_int_equal(ev->mismatch, x->mismatch);
		int64_t ns;
		int has = echo_turnaround(e, fs, ev->echo, &ns) == 0;
		assert_true(ev->turnaround_ns == (has ? ns : -1));
		const xb_frame *req = frames_get(fs, x->request);
		assert_true(ev->submit_ns == req->submit_ns);
		uint64_t want = req->flags & XB_FRAME_PENDING ? req->submit_ns : req->time_ns;
		assert_true(ev->request_ns == want);
		want = x->reply != XB_ECHO_NONE ? frames_get(fs, x->reply)->time_ns : 0;
		assert_true(ev->reply_ns == want);
		if (has)
			assert_true(ev->turnaround_ns == (int64_t)(ev->reply_ns - ev->request_ns));
	}
	free(seen);
	xb_echo_summary s;
	echo_summarize(e, fs, 0, &s);
	xb_tracker_stats st;
	tracker_stats(t, &st);
	xb_frames_stats fst;
	frames_stats(fs, &fst);
	assert_int_equal(st.requests, s.requests);
	assert_int_equal(st.replied, s.replied);
	assert_int_equal(st.lost, s.lost);
	assert_int_equal(st.failed, s.failed);
	assert_int_equal(st.duplicates, s.duplicates);
	assert_int_equal(st.unmatched, s.unmatched);
	assert_int_equal(st.records, fst.records);
	assert_int_equal(st.frames, frames_count(fs));
	assert_int_equal(st.late, 0);
	assert_int_equal(st.evicted, 0);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.pending, 0);
	assert_int_equal(st.ready, 0);
	/* once the clock passed every request by far, nothing is held */
	assert_int_equal(st.frames_held, 0);
	assert_int_equal(st.echoes_held, 0);
}

/* The batch path over a file. */
static void batch(const char *path, xb_frames **fs, xb_echoes **e)
{
	xb_err err;
	assert_int_equal(cap_read(path, NULL, fs, &err), XB_CAPTURE_END);
	*e = echo_new(NULL, &err);
	assert_non_null(*e);
	echo_update(*e, *fs);
}

/* Both paths over a capture; the tracker reads chunk records at a time (0: all there is). */
static void check_file(const cap_writer *w, const char *name, uint64_t chunk, size_t echoes)
{
	const char *path = cap_save(w, name);
	xb_frames *fs;
	xb_echoes *e;
	batch(path, &fs, &e);
	assert_int_equal(echo_count(e), echoes);
	xb_tracker *t = tracker_with(0, 0);
	xb_err err;
	xb_capture_source *s = capture_open_file(path, &err);
	assert_non_null(s);
	events got = {0};
	int rc;
	while ((rc = tracker_feed(t, s, chunk, &err)) == XB_CAPTURE_RECORD)
		take_all(t, &got);
	assert_int_equal(rc, XB_CAPTURE_END);
	take_all(t, &got);
	tracker_advance(t, UINT64_MAX);
	take_all(t, &got);
	check_same(t, &got, fs, e);
	capture_close(s);
	free(got.ev);
	tracker_free(t);
	echo_free(e);
	frames_free(fs);
}

/* ---- The tracker against the batch path ---- */

static void mixed_script(cap_writer *w)
{
	cap_icmp_script(w);
	uint8_t f[1600];
	size_t n = cap_arp(f);
	cap_out(w, 2, f, (uint32_t)n, 0, 200000 * CAP_US, 200100 * CAP_US, 0);
	for (uint32_t i = 0; i < 5; i++)
		cap_udp_echo(w, 40000, i, 64 + 16 * i, 210000 + i * 10000,
			     i == 3 ? 0 : 600 + 10 * i);
	cap_ping(w, 0x4343, 1, 1000, 300000, 1900); /* a 1042-byte frame */
	cap_ping(w, 0x4343, 2, 1046, 310000, 1950); /* 1088 = 17 * 64 bytes: padded */
	/* the reply is in before the request's OUT completion */
	n = cap_icmp(f, 1, 0x4343, 3, 56);
	xb_usbmon_urb u = cap_urb(w, 2, CAP_BULK_OUT, f, (uint32_t)n);
	usbmon_submit(w->mon, &u, 320000 * CAP_US);
	uint8_t r[200];
	size_t rn = cap_icmp(r, 0, 0x4343, 3, 56);
	cap_in(w, 2, r, (uint32_t)rn, 1514, 0, 320200 * CAP_US, 0);
	usbmon_complete(w->mon, &u, 0, 320300 * CAP_US);
	/* other UDP traffic, and an ARP reply */
	n = cap_udp(f, 0, 5353, 5353, 0, 64);
	cap_in(w, 2, f, (uint32_t)n, 1514, 0, 330000 * CAP_US, 0);
	n = cap_arp(f);
	cap_in(w, 2, f, (uint32_t)n, 1514, 0, 331000 * CAP_US, 0);
	/* pings answered out of order */
	cap_ping(w, 0x4343, 4, 56, 340000, 3000);
	cap_ping(w, 0x4343, 5, 56, 341000, 500);
}

static void test_same_as_batch_scripts(void **state)
{
	(void)state;
	cap_writer w;
	cap_open(&w);
	cap_icmp_script(&w);
	cap_close(&w);
	check_file(&w, "icmp.pcap", 0, 10);
	check_file(&w, "icmp.pcap", 1, 10);
	free(w.buf);

	cap_open(&w);
	mixed_script(&w);
	cap_close(&w);
	for (uint64_t chunk = 0; chunk < 8; chunk++)
		check_file(&w, "mixed.pcap", chunk, 10 + 5 + 2 + 3);
	free(w.buf);
}

/* Every record to two feeds: one read live, one read at the end (a pcap file would keep
 * only microseconds). */
static void two_feeds(void *ctx, const uint8_t *rec, size_t len, uint64_t time_ns)
{
	xb_capture_source **feed = ctx;
	capture_feed_record(feed[0], rec, len, time_ns);
	capture_feed_record(feed[1], rec, len, time_ns);
}

/* A virtual Pico answering pings and UDP echoes (every 5th request dropped, every reply
 * sent twice, every 7th altered); the tracker reads the records as the board runs. */
static void test_same_as_batch_virtual_pico(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	xb_err err;
	assert_int_equal(pico_load_file(p, tp_netdev_elf(), XB_IMAGE_AUTO, 0, NULL, &err), 0);
	uint32_t in[5] = {0, 5, 1, 0, 7}; /* no ARP off, drop, duplicate, work, corrupt */
	assert_int_equal(board_load(pico_board(p), SIM_MAILBOX_IN, in, sizeof in, &err), 0);
	xb_capture_source *feeds[2] = {capture_open_feed("live"), capture_open_feed("batch")};
	xb_capture_source *feed = feeds[0];
	xb_vbench_options o;
	vbench_options_init(&o);
	o.record = two_feeds;
	o.record_ctx = feeds;
	xb_vbench *v = vbench_new(p, &o);
	xb_tracker *t = tracker_with(0, 0);
	events got = {0};
	assert_int_equal(vbench_bring_up(v, 5000 * CYCLES_MS, &err), 0);
	feed_again(t, feed);

	xb_vbench_phase ph[2];
	memset(ph, 0, sizeof ph);
	ph[0].kind = XB_NETPEER_ICMP;
	ph[0].count = 20;
	ph[0].size = 56;
	ph[0].interval = 5 * CYCLES_MS;
	ph[0].no_idle = 1;
	ph[1].kind = XB_NETPEER_UDP;
	ph[1].count = 150;
	ph[1].size = 64;
	ph[1].rate = 1500;
	ph[1].port = 7;
	ph[1].no_idle = 1;
	for (int k = 0; k < 2; k++) {
		vbench_phase_window(&ph[k], 125000000u);
		assert_int_equal(vbench_phase_start(v, &ph[k], &err), 0);
		uint64_t end = ph[k].start + ph[k].window;
		for (uint64_t c = board_cycles(vbench_board(v)); c < end; c += CYCLES_MS) {
			assert_int_equal(vbench_run_to(v, c + CYCLES_MS), 0);
			feed_again(t, feed);
			take_all(t, &got);
		}
		assert_int_equal(vbench_phase_finish(v, &ph[k], &err), 0);
		feed_again(t, feed);
		take_all(t, &got);
	}
	vbench_free(v); /* unplugging cancels what was submitted: more records */
	pico_free(p);
	capture_feed_end(feed);
	assert_int_equal(tracker_feed(t, feed, 0, &err), XB_CAPTURE_END);
	tracker_advance(t, UINT64_MAX);
	take_all(t, &got);
	capture_close(feed);

	capture_feed_end(feeds[1]);
	xb_frames *fs = frames_new(NULL);
	assert_int_equal(frames_read(fs, feeds[1], 0, &err), XB_CAPTURE_END);
	capture_close(feeds[1]);
	xb_echoes *e = echo_new(NULL, &err);
	echo_update(e, fs);
	assert_int_equal(echo_count(e), 20 + 150);
	check_same(t, &got, fs, e);
	xb_tracker_stats st;
	tracker_stats(t, &st);
	assert_int_equal(st.lost, 34); /* every 5th of 170 */
	assert_true(st.duplicates > 100);
	size_t turnarounds = 0, mismatched = 0;
	for (size_t i = 0; i < got.n; i++) {
		turnarounds += got.ev[i].turnaround_ns > 0;
		mismatched += got.ev[i].mismatch;
	}
	assert_int_equal(turnarounds, st.replied);
	assert_int_equal(mismatched, st.replied / 7); /* every 7th reply altered */
	free(got.ev);
	tracker_free(t);
	echo_free(e);
	frames_free(fs);
}

/* ---- Bounded memory ---- */

/* A long stream written in time order: ICMP and UDP echoes every step_us, their replies
 * after turn_us (some after the next request, some twice, some never, some after the
 * loss timeout), ARP, other UDP traffic and replies nobody asked for in between. */
enum { LONG_NORMAL, LONG_SLOW, LONG_LOST, LONG_DUP, LONG_LATE };

typedef struct long_reply {
	uint64_t t_us;
	uint32_t i;
	int kind; /* 0 echo reply, 1 unmatched ICMP */
} long_reply;

typedef struct long_stream {
	cap_writer w;
	uint64_t step_us, late_us;
	long_reply due[64];
	size_t ndue;
} long_stream;

static int long_kind(uint32_t i)
{
	if (i % 1000 == 500)
		return LONG_LATE;
	if (i % 50 == 0)
		return LONG_LOST;
	if (i % 101 == 0)
		return LONG_DUP;
	if (i % 7 == 0)
		return LONG_SLOW;
	return LONG_NORMAL;
}

static uint64_t long_turn_us(uint32_t i)
{
	return long_kind(i) == LONG_SLOW ? 400 : 150;
}

static size_t long_frame(uint8_t *f, int to_dev, uint32_t i)
{
	if (i % 2)
		return cap_udp(f, to_dev, 40000, 7, i, 32);
	return cap_icmp(f, to_dev, 0x77, (uint16_t)i, 24);
}

static void long_due(long_stream *s, uint64_t t_us, uint32_t i, int kind)
{
	assert_true(s->ndue < 64);
	s->due[s->ndue++] = (long_reply){.t_us = t_us, .i = i, .kind = kind};
}

/* Writes the replies due by t_us, in time order. */
static void long_flush(long_stream *s, uint64_t t_us)
{
	for (;;) {
		size_t best = SIZE_MAX;
		for (size_t k = 0; k < s->ndue; k++)
			if (s->due[k].t_us <= t_us && (best == SIZE_MAX ||
						       s->due[k].t_us < s->due[best].t_us))
				best = k;
		if (best == SIZE_MAX)
			return;
		long_reply r = s->due[best];
		s->due[best] = s->due[--s->ndue];
		uint8_t f[200];
		size_t n = r.kind ? cap_icmp(f, 0, 0x99, (uint16_t)r.i, 24) : long_frame(f, 0, r.i);
		cap_in(&s->w, 2, f, (uint32_t)n, 1514, 0, r.t_us * CAP_US, 0);
	}
}

static void long_echo(long_stream *s, uint32_t i)
{
	uint64_t t = 1000 + (uint64_t)i * s->step_us;
	long_flush(s, t);
	uint8_t f[200];
	size_t n = long_frame(f, 1, i);
	xb_usbmon_urb u = cap_urb(&s->w, 2, CAP_BULK_OUT, f, (uint32_t)n);
	usbmon_submit(s->w.mon, &u, t * CAP_US);
	long_flush(s, t + 100);
	usbmon_complete(s->w.mon, &u, 0, (t + 100) * CAP_US);
	int kind = long_kind(i);
	if (kind == LONG_LATE)
		long_due(s, t + 100 + s->late_us, i, 0);
	else if (kind != LONG_LOST)
		long_due(s, t + 100 + long_turn_us(i), i, 0);
	if (kind == LONG_DUP)
		long_due(s, t + 100 + long_turn_us(i) + 50, i, 0);
	if (i % 333 == 0)
		long_due(s, t + 120, i, 1);
	if (i % 50 == 25) { /* not echo traffic */
		n = cap_arp(f);
		cap_out(&s->w, 2, f, (uint32_t)n, 0, (t + 110) * CAP_US, (t + 120) * CAP_US, 0);
		n = cap_udp(f, 0, 5353, 5353, i, 40);
		long_flush(s, t + 130);
		cap_in(&s->w, 2, f, (uint32_t)n, 1514, 0, (t + 130) * CAP_US, 0);
	}
}

static size_t heap_in_use(void)
{
	return mallinfo2().uordblks;
}

static void test_long_stream_bounded(void **state)
{
	(void)state;
	enum { N = 200000, TAKE_EVERY = 64 };
	const uint64_t timeout_us = 20000;
	xb_capture_source *feed = capture_open_feed("long");
	long_stream s = {.step_us = 250, .late_us = timeout_us * 3 / 2};
	cap_open_fn(&s.w, capture_feed_record, feed);
	xb_tracker *t = tracker_with(timeout_us * 1000, 0);
	size_t counts[5] = {0}, unmatched = 0, taken = 0, replied = 0, lost = 0;
	size_t max_pending = 0, max_frames = 0, max_echoes = 0, heap_early = 0;
	xb_tracker_stats st;
	xb_echo_event ev[TAKE_EVERY];
	for (uint32_t i = 0; i < N; i++) {
		counts[long_kind(i)]++;
		unmatched += i % 333 == 0;
		long_echo(&s, i);
		if (i % TAKE_EVERY != TAKE_EVERY - 1)
			continue;
		feed_again(t, feed);
		size_t n = tracker_take(t, ev, TAKE_EVERY);
		for (size_t k = 0; k < n; k++) {
			uint32_t j = (uint32_t)ev[k].echo;
			int kind = long_kind(j);
			if (ev[k].state == XB_ECHO_REPLIED) {
				replied++;
				assert_true(kind != LONG_LOST && kind != LONG_LATE);
				assert_true(ev[k].turnaround_ns == (int64_t)(long_turn_us(j) * 1000));
				assert_true(ev[k].request_ns == T0 + (1000 + j * 250ull + 100) * 1000);
			} else {
				lost++;
				assert_int_equal(ev[k].state, XB_ECHO_LOST);
				assert_true(kind == LONG_LOST || kind == LONG_LATE);
				assert_true(ev[k].turnaround_ns == -1);
			}
			assert_int_equal(ev[k].kind, j % 2 ? XB_ECHO_UDP : XB_ECHO_ICMP);
		}
		taken += n;
		tracker_stats(t, &st);
		max_pending = st.pending > max_pending ? st.pending : max_pending;
		max_frames = st.frames_held > max_frames ? st.frames_held : max_frames;
		max_echoes = st.echoes_held > max_echoes ? st.echoes_held : max_echoes;
		if (!heap_early && i >= N / 10)
			heap_early = heap_in_use();
	}
	long_flush(&s, UINT64_MAX);
	feed_again(t, feed);
	size_t heap_late = heap_in_use();
	tracker_advance(t, T0 + (1000 + N * 250ull) * 1000 + 10 * timeout_us * 1000);
	size_t n;
	while ((n = tracker_take(t, ev, TAKE_EVERY)) > 0) {
		for (size_t k = 0; k < n; k++)
			lost += ev[k].state == XB_ECHO_LOST;
		taken += n;
	}
	tracker_stats(t, &st);
	/* everything counted ... */
	assert_int_equal(st.requests, N);
	assert_int_equal(taken, N);
	assert_int_equal(st.lost, counts[LONG_LOST] + counts[LONG_LATE]);
	assert_int_equal(st.lost, lost);
	assert_int_equal(st.replied, N - st.lost);
	assert_true(replied > N / 2);
	assert_int_equal(st.late, counts[LONG_LATE]);
	assert_int_equal(st.duplicates, counts[LONG_DUP]);
	assert_int_equal(st.unmatched, unmatched);
	assert_int_equal(st.failed, 0);
	assert_int_equal(st.evicted, 0);
	assert_int_equal(st.dropped, 0);
	assert_true(st.frames >= 2 * (uint64_t)N);
	/* ... in little memory: about the loss timeout's worth (80 echoes) */
	assert_true(max_pending <= 16);
	assert_true(max_frames <= 400);
	assert_true(max_echoes <= 400);
	assert_int_equal(st.pending, 0);
	assert_int_equal(st.echoes_held, 0);
	assert_int_equal(st.frames_held, 0);
	if (heap_early) /* mallinfo2 says nothing under a sanitizer's allocator */
		assert_true(heap_late < heap_early + 512 * 1024);
	cap_close(&s.w);
	capture_close(feed);
	tracker_free(t);
}

/* A small max_pending: the oldest waiting echoes are evicted as lost, and settled echoes
 * nobody takes are dropped; every bound holds at every step. */
static void test_eviction(void **state)
{
	(void)state;
	enum { N = 3000, MAX_PENDING = 4 };
	xb_capture_source *feed = capture_open_feed("evict");
	cap_writer w;
	cap_open_fn(&w, capture_feed_record, feed);
	xb_tracker *t = tracker_with(10000 * MS_NS, MAX_PENDING);
	xb_tracker_stats st;
	size_t lost = 0;
	for (uint32_t i = 0; i < N; i++) {
		int answer = i % 3 != 0;
		lost += !answer;
		cap_ping(&w, 0x55, (uint16_t)i, 16, 1000 + i * 1000ull, answer ? 150 : 0);
		feed_again(t, feed);
		tracker_stats(t, &st);
		assert_true(st.pending <= MAX_PENDING);
		assert_true(st.frames_held <= 4 * MAX_PENDING);
		assert_true(st.echoes_held <= 4 * MAX_PENDING);
		assert_true(st.ready <= 4 * MAX_PENDING);
	}
	tracker_stats(t, &st);
	assert_true(st.evicted >= lost - MAX_PENDING);
	assert_true(st.dropped > 0);
	tracker_advance(t, UINT64_MAX);
	xb_echo_event ev[4 * MAX_PENDING + 1];
	size_t n = tracker_take(t, ev, 4 * MAX_PENDING + 1);
	assert_true(n <= 4 * MAX_PENDING);
	for (size_t k = 1; k < n; k++)
		assert_true(ev[k].echo > ev[k - 1].echo);
	tracker_stats(t, &st);
	assert_int_equal(st.requests, N);
	assert_int_equal(st.lost, lost); /* no echo in flight was evicted */
	assert_int_equal(st.replied, N - lost);
	assert_int_equal(st.dropped + n, N);
	assert_int_equal(st.pending, 0);
	cap_close(&w);
	capture_close(feed);
	tracker_free(t);
}

/* ---- Time ---- */

static void test_timeout_late_idle(void **state)
{
	(void)state;
	xb_capture_source *feed = capture_open_feed("time");
	cap_writer w;
	cap_open_fn(&w, capture_feed_record, feed);
	xb_tracker *t = tracker_with(100 * MS_NS, 0);
	xb_echo_event ev[4];
	xb_tracker_stats st;

	/* seq 1 is not answered; seq 2, sent later, is: reported at once */
	cap_ping(&w, 9, 1, 56, 1000, 0);
	feed_again(t, feed);
	assert_int_equal(tracker_take(t, ev, 4), 0);
	cap_ping(&w, 9, 2, 56, 50000, 300);
	feed_again(t, feed);
	assert_int_equal(tracker_take(t, ev, 4), 1);
	assert_int_equal(ev[0].seq, 2);
	assert_int_equal(ev[0].echo, 1);
	assert_int_equal(ev[0].state, XB_ECHO_REPLIED);
	assert_true(ev[0].turnaround_ns == 300000);
	assert_true(ev[0].submit_ns == T0 + 50000 * CAP_US);
	assert_true(ev[0].request_ns == T0 + 50100 * CAP_US);
	assert_true(ev[0].reply_ns == T0 + 50400 * CAP_US);
	tracker_stats(t, &st);
	assert_int_equal(st.pending, 1);

	/* an idle link: seq 1 is lost once the clock passes its request + 100 ms */
	uint64_t lost_at = T0 + 1100 * CAP_US + 100 * MS_NS;
	tracker_advance(t, lost_at);
	assert_int_equal(tracker_take(t, ev, 4), 0);
	tracker_advance(t, lost_at - 5 * MS_NS); /* back in time: ignored */
	tracker_stats(t, &st);
	assert_true(st.now_ns == lost_at);
	tracker_advance(t, lost_at + 1);
	assert_int_equal(tracker_take(t, ev, 4), 1);
	assert_int_equal(ev[0].seq, 1);
	assert_int_equal(ev[0].state, XB_ECHO_LOST);
	assert_true(ev[0].reply_ns == 0);
	assert_true(ev[0].turnaround_ns == -1);
	tracker_stats(t, &st);
	assert_int_equal(st.lost, 1);
	assert_int_equal(st.pending, 0);

	/* its reply comes late: counted, not reported again; seq 2 answered twice */
	uint8_t f[200];
	size_t n = cap_icmp(f, 0, 9, 1, 56);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 150000 * CAP_US, 0);
	n = cap_icmp(f, 0, 9, 2, 56);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 151000 * CAP_US, 0);
	feed_again(t, feed);
	assert_int_equal(tracker_take(t, ev, 4), 0);
	tracker_stats(t, &st);
	assert_int_equal(st.late, 1);
	assert_int_equal(st.duplicates, 1);
	assert_int_equal(st.lost, 1);
	assert_int_equal(st.replied, 1);

	/* seq 3's reply is in before its OUT completion: reported with the completion */
	n = cap_icmp(f, 1, 9, 3, 56);
	xb_usbmon_urb u = cap_urb(&w, 2, CAP_BULK_OUT, f, (uint32_t)n);
	usbmon_submit(w.mon, &u, 200000 * CAP_US);
	uint8_t r[200];
	size_t rn = cap_icmp(r, 0, 9, 3, 56);
	cap_in(&w, 2, r, (uint32_t)rn, 1514, 0, 200200 * CAP_US, 0);
	feed_again(t, feed);
	assert_int_equal(tracker_take(t, ev, 4), 0);
	usbmon_complete(w.mon, &u, 0, 200300 * CAP_US);
	feed_again(t, feed);
	assert_int_equal(tracker_take(t, ev, 4), 1);
	assert_int_equal(ev[0].seq, 3);
	assert_int_equal(ev[0].state, XB_ECHO_REPLIED);
	assert_true(ev[0].turnaround_ns == -100000); /* as echo_turnaround has it */

	/* seq 4's OUT transfer fails: reported at once */
	n = cap_icmp(f, 1, 9, 4, 56);
	cap_out(&w, 2, f, (uint32_t)n, 0, 210000 * CAP_US, 210100 * CAP_US, -32);
	feed_again(t, feed);
	assert_int_equal(tracker_take(t, ev, 4), 1);
	assert_int_equal(ev[0].state, XB_ECHO_FAILED);
	assert_true(ev[0].turnaround_ns == -1);

	/* seq 5's completion never comes: lost at the timeout, timed from its 'S' */
	n = cap_icmp(f, 1, 9, 5, 56);
	cap_out(&w, 2, f, (uint32_t)n, 0, 220000 * CAP_US, 0, 0);
	feed_again(t, feed);
	tracker_advance(t, T0 + 220000 * CAP_US + 100 * MS_NS + 1);
	assert_int_equal(tracker_take(t, ev, 4), 1);
	assert_int_equal(ev[0].state, XB_ECHO_LOST);
	assert_true(ev[0].request_ns == T0 + 220000 * CAP_US);
	assert_true(ev[0].submit_ns == T0 + 220000 * CAP_US);

	/* two timeouts after its request, seq 1 is forgotten: a reply is unmatched */
	tracker_stats(t, &st);
	assert_int_equal(st.unmatched, 0);
	n = cap_icmp(f, 0, 9, 1, 56);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 400000 * CAP_US, 0);
	feed_again(t, feed);
	tracker_stats(t, &st);
	assert_int_equal(st.unmatched, 1);
	assert_int_equal(st.late, 1);
	assert_int_equal(st.requests, 5);
	assert_int_equal(st.replied + st.lost + st.failed, 5);
	assert_int_equal(st.frames_held, 0); /* nothing waits */
	cap_close(&w);
	capture_close(feed);
	tracker_free(t);
}

/* ---- frames_discard, echo_discard ---- */

static void test_discard(void **state)
{
	(void)state;
	xb_capture_source *feed = capture_open_feed("discard");
	cap_writer w;
	cap_open_fn(&w, capture_feed_record, feed);
	xb_frames *fs = frames_new(NULL);
	xb_err err;
	xb_echoes *e = echo_new(NULL, &err);
	for (uint16_t i = 0; i < 6; i++)
		cap_ping(&w, 1, i, 32, 1000 + i * 1000ull, i < 5 ? 200 : 0);
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	echo_update(e, fs);
	assert_int_equal(frames_count(fs), 11);
	assert_int_equal(echo_count(e), 6);

	/* frames */
	frames_discard(fs, 4);
	assert_int_equal(frames_count(fs), 11);
	assert_int_equal(frames_held(fs), 7);
	for (size_t i = 0; i < 4; i++)
		assert_null(frames_get(fs, i));
	assert_non_null(frames_get(fs, 4));
	assert_null(frames_get(fs, 11));
	frames_discard(fs, 2); /* already gone */
	assert_int_equal(frames_held(fs), 7);

	/* echoes: 0 and 1 have no frames left, 2 .. 5 do */
	assert_int_equal(echo_state(e, fs, 0), XB_ECHO_REPLIED);
	int64_t ns;
	assert_int_equal(echo_turnaround(e, fs, 0, &ns), -1);
	assert_int_equal(echo_turnaround(e, fs, 2, &ns), 0);
	assert_true(ns == 200000);
	echo_discard(e, 2);
	assert_int_equal(echo_count(e), 6);
	assert_int_equal(echo_held(e), 4);
	assert_null(echo_get(e, 0));
	assert_null(echo_get(e, 1));
	assert_int_equal(echo_get(e, 2)->seq, 2);
	assert_int_equal(echo_state(e, fs, 1), XB_ECHO_LOST);
	assert_int_equal(echo_turnaround(e, fs, 1, &ns), -1);
	xb_echo_summary s;
	echo_summarize(e, fs, 0, &s);
	assert_int_equal(s.requests, 4);
	assert_int_equal(s.replied, 3);

	/* a reply to a forgotten echo is unmatched; one to echo 5, whose request frame is
	 * gone, still matches it (no payload to compare, no turnaround) */
	frames_discard(fs, frames_count(fs) + 100);
	assert_int_equal(frames_held(fs), 0);
	assert_int_equal(frames_count(fs), 11);
	uint8_t f[200];
	size_t n = cap_icmp(f, 0, 1, 1, 32);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 9000 * CAP_US, 0);
	n = cap_icmp(f, 0, 1, 5, 32);
	f[50] ^= 1; /* would be a mismatch */
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 9100 * CAP_US, 0);
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	echo_update(e, fs);
	assert_int_equal(echo_last_reply(e), 5);
	assert_int_equal(echo_unmatched(e, 0), 1);
	assert_int_equal(echo_unmatched(e, XB_ECHO_UDP), 0);
	assert_int_equal(echo_get(e, 5)->reply, 12);
	assert_false(echo_get(e, 5)->mismatch);
	assert_int_equal(echo_state(e, fs, 5), XB_ECHO_REPLIED);
	assert_int_equal(echo_turnaround(e, fs, 5, &ns), -1);

	/* an OUT frame discarded before its completion: the completion is dropped, the
	 * stats still learn how it ended */
	n = cap_icmp(f, 1, 1, 6, 32);
	xb_usbmon_urb u = cap_urb(&w, 2, CAP_BULK_OUT, f, (uint32_t)n);
	usbmon_submit(w.mon, &u, 10000 * CAP_US);
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	xb_frames_stats fst;
	frames_stats(fs, &fst);
	assert_int_equal(fst.pending, 1);
	frames_discard(fs, frames_count(fs));
	usbmon_complete(w.mon, &u, -71, 10100 * CAP_US);
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	assert_int_equal(frames_last_done(fs), XB_FRAMES_NONE);
	frames_stats(fs, &fst);
	assert_int_equal(fst.pending, 0);
	assert_int_equal(fst.failed, 1);
	/* ... and one held: frames_last_done names it */
	cap_out(&w, 2, f, (uint32_t)n, 0, 11000 * CAP_US, 0, 0);
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	size_t out = frames_count(fs) - 1;
	assert_int_equal(frames_last_done(fs), XB_FRAMES_NONE);
	cap_out(&w, 2, f, (uint32_t)n, 0, 12000 * CAP_US, 12100 * CAP_US, 0);
	assert_int_equal(frames_read(fs, feed, 1, &err), XB_CAPTURE_RECORD);
	assert_int_equal(frames_read(fs, feed, 1, &err), XB_CAPTURE_RECORD);
	assert_int_equal(frames_last_done(fs), out + 1);
	assert_true(frames_get(fs, out)->flags & XB_FRAME_PENDING);
	assert_false(frames_get(fs, out + 1)->flags & XB_FRAME_PENDING);
	echo_update(e, fs);

	/* a request taking over a key: forgetting the older one keeps the newer matched */
	size_t a = echo_count(e);
	cap_ping(&w, 2, 7, 32, 20000, 0);
	cap_ping(&w, 2, 7, 32, 21000, 0);
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	echo_update(e, fs);
	echo_discard(e, a + 1);
	n = cap_icmp(f, 0, 2, 7, 32);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 22000 * CAP_US, 0);
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	echo_update(e, fs);
	assert_int_equal(echo_last_reply(e), a + 1);
	echo_discard(e, a + 2);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 23000 * CAP_US, 0);
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	echo_update(e, fs);
	assert_int_equal(echo_last_reply(e), XB_ECHO_NONE);
	assert_int_equal(echo_unmatched(e, XB_ECHO_ICMP), 2);

	/* UDP: once no echo of a flow is held, its datagrams are not echo traffic */
	cap_udp_echo(&w, 40000, 1, 32, 30000, 200);
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	echo_update(e, fs);
	assert_int_equal(echo_last_reply(e), echo_count(e) - 1);
	n = cap_udp(f, 0, 40000, 7, 99, 32);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 31000 * CAP_US, 0);
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	echo_update(e, fs);
	assert_int_equal(echo_unmatched(e, XB_ECHO_UDP), 1);
	echo_discard(e, echo_count(e));
	assert_int_equal(echo_held(e), 0);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 32000 * CAP_US, 0);
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	echo_update(e, fs);
	assert_int_equal(echo_unmatched(e, XB_ECHO_UDP), 1);

	/* a burst: 5000 requests held, the first half forgotten, the replies in reverse
	 * order (the key table grows, loses half its keys and shrinks) */
	a = echo_count(e);
	for (uint32_t i = 0; i < 5000; i++) {
		n = i % 2 ? cap_udp(f, 1, (uint16_t)(41000 + i % 7), 7, i, 16)
			  : cap_icmp(f, 1, 3, (uint16_t)i, 16);
		cap_out(&w, 2, f, (uint32_t)n, 0, (40000 + i) * CAP_US, (40000 + i) * CAP_US, 0);
	}
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
	echo_update(e, fs);
	assert_int_equal(echo_held(e), 5000);
	frames_discard(fs, frames_count(fs));
	echo_discard(e, a + 2500);
	size_t unmatched = echo_unmatched(e, 0);
	for (uint32_t i = 5000; i-- > 0;) {
		n = i % 2 ? cap_udp(f, 0, (uint16_t)(41000 + i % 7), 7, i, 16)
			  : cap_icmp(f, 0, 3, (uint16_t)i, 16);
		cap_in(&w, 2, f, (uint32_t)n, 1514, 0, (50000 + 5000 - i) * CAP_US, 0);
		assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_AGAIN);
		echo_update(e, fs);
		assert_int_equal(echo_last_reply(e), i >= 2500 ? a + i : XB_ECHO_NONE);
		frames_discard(fs, frames_count(fs));
	}
	assert_int_equal(echo_unmatched(e, 0), unmatched + 2500);
	echo_summarize(e, fs, 0, &s);
	assert_int_equal(s.requests, 2500);
	assert_int_equal(s.replied, 2500);
	assert_int_equal(s.turnarounds, 0); /* their frames are gone */
	echo_discard(e, SIZE_MAX);
	assert_int_equal(echo_held(e), 0);
	assert_int_equal(echo_count(e), a + 5000);
	assert_int_equal(frames_held(fs), 0);

	cap_close(&w);
	capture_close(feed);
	echo_free(e);
	frames_free(fs);
}

/* ---- The rate counter ---- */

static void rate_gap_stray(cap_writer *w, uint32_t *index, uint64_t t_us)
{
	cap_udp_echo(w, 40000, (*index)++, 64, t_us, 300);
}

/* Three passes of four steps (100 ms, 20 ms gaps), a reflash between passes, replies
 * missing at the end of each step, stray requests in the gaps and before the first pass. */
static void rate_script(cap_writer *w)
{
	static const uint32_t rates[] = {100, 200, 400, 800};
	uint32_t index = 0;
	rate_gap_stray(w, &index, 100000);
	uint64_t t = 500000;
	for (int pass = 0; pass < 3; pass++) {
		for (int s = 0; s < 4; s++) {
			uint32_t sent = rates[s] / 10;
			t = cap_rate_step(w, &index, t, rates[s], 100, sent - (uint32_t)(s + pass));
			rate_gap_stray(w, &index, t + 5000);
			t += 20000;
		}
		t += pass == 0 ? 1234000 : 700000;
	}
}

static void assert_rates_equal(const xb_rate_result *a, const xb_rate_result *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->passes_found, b->passes_found);
	assert_int_equal(a->outside, b->outside);
	assert_true(a->peak == b->peak);
	assert_int_equal(a->peak_step, b->peak_step);
	for (size_t i = 0; i < a->n; i++) {
		const xb_rate_step *x = &a->steps[i], *y = &b->steps[i];
		assert_int_equal(x->pass, y->pass);
		assert_int_equal(x->step, y->step);
		assert_int_equal(x->rate, y->rate);
		assert_true(x->start_ns == y->start_ns);
		assert_int_equal(x->sent, y->sent);
		assert_int_equal(x->replied, y->replied);
		assert_true(x->sent_rate == y->sent_rate);
		assert_true(x->reply_rate == y->reply_rate);
	}
}

static void test_rate_counter(void **state)
{
	(void)state;
	static const uint32_t rates[] = {100, 200, 400, 800};
	cap_writer w;
	cap_open(&w);
	rate_script(&w);
	cap_close(&w);
	const char *path = cap_save(&w, "rate.pcap");
	xb_frames *fs;
	xb_echoes *e;
	batch(path, &fs, &e);
	assert_int_equal(echo_count(e), 1 + 3 * (150 + 4));
	xb_rate_plan plan = {.rates = rates, .nrates = 4, .step_ns = 100 * MS_NS,
			     .gap_ns = 20 * MS_NS, .passes = 3};
	xb_err err;
	for (int k = 0; k < 3; k++) {
		/* k = 0: from the first request (the stray one); 1: from a given start; 2:
		 * the same with one pass more than there are */
		plan.start_ns = k >= 1 ? T0 + 500000 * CAP_US : 0;
		plan.passes = k == 2 ? 4 : 3;
		xb_rate_result want, got;
		assert_int_equal(echo_rate_sweep(e, fs, &plan, &want, &err), 0);
		/* live: the tracker's events as they settle (lost ones at their timeout) */
		xb_tracker *t = tracker_with(50 * MS_NS, 0);
		xb_rate_counter *c = rate_counter_new(&plan, &err);
		assert_non_null(c);
		xb_capture_source *s = capture_open_file(path, &err);
		events ev = {0};
		size_t done = 0, late = 0;
		int rc;
		while ((rc = tracker_feed(t, s, 5, &err)) == XB_CAPTURE_RECORD) {
			take_all(t, &ev);
			for (; done < ev.n; done++) {
				const xb_echo_event *x = &ev.ev[done];
				late += done > 0 && x->echo < ev.ev[done - 1].echo;
				rate_counter_add(c, x->submit_ns, x->state == XB_ECHO_REPLIED);
			}
		}
		assert_int_equal(rc, XB_CAPTURE_END);
		tracker_advance(t, UINT64_MAX);
		take_all(t, &ev);
		for (; done < ev.n; done++)
			rate_counter_add(c, ev.ev[done].submit_ns,
					 ev.ev[done].state == XB_ECHO_REPLIED);
		assert_true(late > 0); /* some came out of order */
		assert_int_equal(rate_counter_result(c, &got, &err), 0);
		assert_rates_equal(&got, &want);
		if (k == 0) { /* the stray request starts the first pass: nothing fits */
			assert_int_equal(want.passes_found, 3);
		} else {
			assert_int_equal(want.passes_found, 3);
			assert_int_equal(want.outside, 1 + 12);
			assert_int_equal(want.steps[0].sent, 10);
			assert_int_equal(want.steps[0].replied, 10);
			assert_int_equal(want.steps[11].sent, 80);
			assert_int_equal(want.steps[11].replied, 75);
			assert_true(want.peak == 770); /* pass 0's last step: 77 of 80 */
			assert_int_equal(want.peak_step, 3);
		}
		if (k == 2)
			assert_true(want.steps[12].start_ns == 0);
		echo_rate_free(&want);
		echo_rate_free(&got);
		rate_counter_free(c);
		capture_close(s);
		free(ev.ev);
		tracker_free(t);
	}

	/* by hand: out of order within a pass, before the start, no time */
	plan.start_ns = 1000;
	plan.passes = 2;
	xb_rate_counter *c = rate_counter_new(&plan, &err);
	rate_counter_add(c, 999, 1);                     /* before the start */
	rate_counter_add(c, 1000 + 120 * MS_NS + 5, 1);  /* step 1 */
	rate_counter_add(c, 1000 + 50 * MS_NS, 0);       /* step 0, late */
	rate_counter_add(c, 1000 + 110 * MS_NS, 1);      /* the gap after step 0 */
	rate_counter_add(c, 0, 1);                       /* no time */
	rate_counter_add(c, 1000 + 500 * MS_NS, 1);      /* pass 2, step 0 */
	rate_counter_add(c, 1000 + 130 * MS_NS, 1);      /* pass 1, step 1, late */
	rate_counter_add(c, 1000 + 490 * MS_NS, 1);      /* between the passes */
	rate_counter_add(c, 1000 + 2000 * MS_NS, 1);     /* after the last pass */
	xb_rate_result r;
	assert_int_equal(rate_counter_result(c, &r, &err), 0);
	assert_int_equal(r.passes_found, 2);
	assert_int_equal(r.outside, 5);
	assert_int_equal(r.steps[0].sent, 1);
	assert_int_equal(r.steps[0].replied, 0);
	assert_int_equal(r.steps[1].sent, 2);
	assert_int_equal(r.steps[1].replied, 2);
	assert_int_equal(r.steps[4].sent, 1);
	assert_true(r.steps[4].start_ns == 1000 + 500 * MS_NS);
	assert_true(r.peak == 20);
	assert_int_equal(r.peak_step, 1);
	echo_rate_free(&r);
	rate_counter_free(c);
	assert_int_equal(rate_counter_result(NULL, &r, &err), -1);
	plan.passes = 0;
	assert_null(rate_counter_new(&plan, &err));
	assert_string_equal(err.msg, "the rate plan has no passes");
	echo_free(e);
	frames_free(fs);
	free(w.buf);
}

/* Bad options, and records that are not usbmon records. */
static void test_errors(void **state)
{
	(void)state;
	xb_tracker_options o;
	tracker_options_init(&o);
	assert_true(o.loss_timeout_ns == 1000 * MS_NS);
	assert_int_equal(o.max_pending, 4096);
	o.echo.nonce_len = 0;
	xb_err err;
	assert_null(tracker_new(&o, &err));
	assert_string_equal(err.msg, "the UDP nonce must be 1 to 16 bytes long (got 0)");
	xb_tracker *t = tracker_new(NULL, &err);
	xb_capture_source *feed = capture_open_feed("bad");
	uint8_t junk[20] = {0};
	capture_feed_record(feed, junk, sizeof junk, 5);
	assert_int_equal(tracker_feed(t, feed, 0, &err), XB_CAPTURE_ERROR);
	assert_non_null(strstr(err.msg, "bad: record 1: not a usbmon record"));
	capture_close(feed);
	tracker_free(t);
	tracker_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_batch_scripts),
		cmocka_unit_test(test_same_as_batch_virtual_pico),
		cmocka_unit_test(test_long_stream_bounded),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_timeout_late_idle),
		cmocka_unit_test(test_discard),
		cmocka_unit_test(test_rate_counter),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
