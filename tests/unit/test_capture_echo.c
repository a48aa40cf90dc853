/* test_capture_echo: echo requests matched to replies in captures written with the virtual
 * host's usbmon writer at known times: ICMP by identifier and sequence number, UDP by the
 * payload nonce; turnaround per echo, median, lost, failed, duplicate, unmatched and
 * mismatched replies; the same through the in-process feed; the UDP echo rate over rate
 * steps and passes. With XB_CAPTURE_PCAP_OUT set, the mixed capture is written there for
 * tests/integration/test_capture.sh (tshark as the oracle). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../capture/echo.h"
#include "test_capture_common.h"

#define T0 (CAP_EPOCH * 1000000000ull)

typedef struct matched {
	xb_frames *fs;
	xb_echoes *e;
} matched;

static void match_file(const cap_writer *w, const char *name, const xb_echo_options *o, matched *m)
{
	xb_err err;
	assert_int_equal(cap_read(cap_save(w, name), NULL, &m->fs, &err), XB_CAPTURE_END);
	m->e = echo_new(o, &err);
	assert_non_null(m->e);
	echo_update(m->e, m->fs);
}

static void match_free(matched *m)
{
	echo_free(m->e);
	frames_free(m->fs);
}

static int64_t turnaround(const matched *m, size_t i)
{
	int64_t ns;
	assert_int_equal(echo_turnaround(m->e, m->fs, i, &ns), 0);
	return ns;
}

/* ---- ICMP ---- */

static void test_icmp_turnaround(void **state)
{
	(void)state;
	cap_writer w;
	cap_open(&w);
	cap_icmp_script(&w);
	cap_close(&w);
	matched m;
	match_file(&w, "icmp.pcap", NULL, &m);
	assert_int_equal(echo_count(m.e), 10);
	static const uint16_t seqs[] = {1, 2, 3, 4, 5, 6, 7, 8, 1, 10};
	static const enum xb_echo_state states[] = {
		XB_ECHO_REPLIED, XB_ECHO_REPLIED, XB_ECHO_LOST,    XB_ECHO_REPLIED, XB_ECHO_REPLIED,
		XB_ECHO_FAILED,  XB_ECHO_REPLIED, XB_ECHO_REPLIED, XB_ECHO_REPLIED, XB_ECHO_REPLIED,
	};
	for (size_t i = 0; i < 10; i++) {
		const xb_echo *x = echo_get(m.e, i);
		assert_int_equal(x->kind, XB_ECHO_ICMP);
		assert_int_equal(x->id, 0x4242);
		assert_int_equal(x->seq, seqs[i]);
		assert_int_equal(echo_state(m.e, m.fs, i), states[i]);
	}
	assert_int_equal(echo_get(m.e, 0)->size, 56);
	assert_int_equal(frames_get(m.fs, echo_get(m.e, 2)->request)->flags, XB_FRAME_PADDED);
	/* exact, from the records' times */
	assert_int_equal(turnaround(&m, 0), 800000);
	assert_int_equal(turnaround(&m, 1), 750000);
	assert_int_equal(turnaround(&m, 3), 900000);
	assert_int_equal(turnaround(&m, 4), 820000);
	assert_int_equal(turnaround(&m, 6), 780000);
	assert_int_equal(turnaround(&m, 7), 600000);
	assert_int_equal(turnaround(&m, 8), 810000);
	int64_t ns;
	assert_int_equal(echo_turnaround(m.e, m.fs, 2, &ns), -1);
	assert_int_equal(echo_turnaround(m.e, m.fs, 5, &ns), -1);
	assert_int_equal(echo_turnaround(m.e, m.fs, 9, &ns), -1); /* OUT completion missing */
	assert_int_equal(echo_get(m.e, 6)->duplicates, 1);
	assert_true(echo_get(m.e, 7)->mismatch);
	assert_false(echo_get(m.e, 0)->mismatch);
	assert_int_equal(echo_get(m.e, 0)->reply, echo_get(m.e, 0)->request + 1);
	assert_true(echo_get(m.e, 2)->reply == XB_ECHO_NONE);

	xb_echo_summary s;
	echo_summarize(m.e, m.fs, XB_ECHO_ICMP, &s);
	assert_int_equal(s.requests, 10);
	assert_int_equal(s.replied, 8);
	assert_int_equal(s.lost, 1);
	assert_int_equal(s.failed, 1);
	assert_int_equal(s.duplicates, 1);
	assert_int_equal(s.mismatched, 1);
	assert_int_equal(s.unmatched, 1);
	assert_int_equal(s.turnarounds, 7);
	assert_int_equal(s.min_ns, 600000);
	assert_int_equal(s.max_ns, 900000);
	/* 600 750 780 800 810 820 900 */
	assert_true(s.median_ns == 800000.0);
	assert_true(s.mean_ns == 780000.0);
	echo_summarize(m.e, m.fs, XB_ECHO_UDP, &s);
	assert_int_equal(s.requests, 0);
	assert_int_equal(s.turnarounds, 0);
	match_free(&m);
	free(w.buf);

	/* an even count: the mean of the two middle values */
	cap_open(&w);
	cap_ping(&w, 1, 1, 56, 1000, 700);
	cap_ping(&w, 1, 2, 56, 2000, 800);
	cap_ping(&w, 1, 3, 56, 3000, 900);
	cap_ping(&w, 1, 4, 56, 4000, 1000);
	cap_close(&w);
	match_file(&w, "even.pcap", NULL, &m);
	echo_summarize(m.e, m.fs, 0, &s);
	assert_true(s.median_ns == 850000.0);
	match_free(&m);
	free(w.buf);
}

/* ---- UDP ---- */

static void test_udp_nonce(void **state)
{
	(void)state;
	cap_writer w;
	cap_open(&w);
	cap_udp_echo(&w, 40000, 0, 64, 1000, 0);
	cap_udp_echo(&w, 40000, 1, 64, 1200, 0);
	/* replies out of order, then one more request */
	uint8_t f[200];
	size_t n = cap_udp(f, 0, 40000, 7, 1, 64);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 2000 * CAP_US, 0);
	n = cap_udp(f, 0, 40000, 7, 0, 64);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 2300 * CAP_US, 0);
	cap_udp_echo(&w, 40000, 2, 32, 3000, 444);
	/* a nonce nobody sent, in the echo flow: unmatched */
	n = cap_udp(f, 0, 40000, 7, 77, 64);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 4000 * CAP_US, 0);
	/* other UDP traffic from the device (another port pair): not echo traffic */
	n = cap_udp(f, 0, 5353, 5353, 0, 64);
	cap_in(&w, 2, f, (uint32_t)n, 1514, 0, 4100 * CAP_US, 0);
	/* a datagram to another port, and one too short for a nonce */
	cap_udp_echo(&w, 40001, 3, 64, 5000, 0);
	n = cap_ipv4(f, 1, 17, 8 + 4);
	cap_put16(f + 34, 40000);
	cap_put16(f + 36, 7);
	cap_put16(f + 38, 12);
	memset(f + 40, 0, 6);
	cap_out(&w, 2, f, (uint32_t)n + 12, 0, 6000 * CAP_US, 6100 * CAP_US, 0);
	cap_close(&w);

	matched m;
	match_file(&w, "udp.pcap", NULL, &m);
	assert_int_equal(echo_count(m.e), 4);
	const xb_echo *x = echo_get(m.e, 1);
	assert_int_equal(x->kind, XB_ECHO_UDP);
	assert_int_equal(x->sport, 40000);
	assert_int_equal(x->dport, 7);
	assert_memory_equal(x->nonce, "xbnp\0\0\0\1", 8);
	assert_int_equal(x->size, 64);
	/* request 0 OUT done at 1100, its reply at 2300 */
	assert_int_equal(turnaround(&m, 0), 1200000);
	assert_int_equal(turnaround(&m, 1), 700000);
	assert_int_equal(turnaround(&m, 2), 444000);
	assert_int_equal(echo_state(m.e, m.fs, 3), XB_ECHO_LOST);
	xb_echo_summary s;
	echo_summarize(m.e, m.fs, XB_ECHO_UDP, &s);
	assert_int_equal(s.requests, 4);
	assert_int_equal(s.replied, 3);
	assert_int_equal(s.lost, 1);
	assert_int_equal(s.unmatched, 1);
	assert_true(s.median_ns == 700000.0);
	match_free(&m);

	/* --udp-port 7 leaves out the datagram to another port ... it goes to 7 as well here;
	 * port 9 leaves out everything */
	xb_echo_options o;
	echo_options_init(&o);
	o.udp_port = 9;
	match_file(&w, "udp.pcap", &o, &m);
	assert_int_equal(echo_count(m.e), 0);
	match_free(&m);
	/* the nonce as the index alone: 4 bytes at offset 4 */
	echo_options_init(&o);
	o.nonce_offset = 4;
	o.nonce_len = 4;
	match_file(&w, "udp.pcap", &o, &m);
	assert_int_equal(echo_count(m.e), 4);
	assert_memory_equal(echo_get(m.e, 2)->nonce, "\0\0\0\2", 4);
	assert_int_equal(turnaround(&m, 1), 700000);
	match_free(&m);
	/* bad nonce lengths */
	xb_err err;
	o.nonce_len = 0;
	assert_null(echo_new(&o, &err));
	assert_string_equal(err.msg, "the UDP nonce must be 1 to 16 bytes long (got 0)");
	o.nonce_len = 17;
	assert_null(echo_new(&o, &err));
	free(w.buf);
}

/* The in-process feed gives the same echoes, with the writer's nanoseconds. */
static void test_feed_matches_file(void **state)
{
	(void)state;
	cap_writer w;
	cap_open(&w);
	xb_capture_source *feed = capture_open_feed("virtual");
	usbmon_set_record_fn(w.mon, capture_feed_record, feed);
	cap_icmp_script(&w);
	cap_close(&w);
	capture_feed_end(feed);
	matched m;
	match_file(&w, "feed.pcap", NULL, &m);
	xb_frames *fs = frames_new(NULL);
	xb_err err;
	assert_int_equal(frames_read(fs, feed, 0, &err), XB_CAPTURE_END);
	xb_echoes *e = echo_new(NULL, &err);
	echo_update(e, fs);
	xb_echo_summary a, b;
	echo_summarize(m.e, m.fs, 0, &a);
	echo_summarize(e, fs, 0, &b);
	assert_memory_equal(&a, &b, sizeof a);
	echo_free(e);
	frames_free(fs);
	capture_close(feed);
	match_free(&m);
	free(w.buf);
}

/* ---- Echo rate ---- */

static void test_rate_sweep(void **state)
{
	(void)state;
	static const uint32_t rates[] = {100, 200, 400};
	cap_writer w;
	cap_open(&w);
	uint32_t index = 0;
	uint64_t t = 500000; /* 0.5 s */
	/* pass 1: 100 ms steps with 20 ms gaps; the 400/s step loses 10 of its 40 */
	t = cap_rate_step(&w, &index, t, 100, 100, 10) + 20000;
	t = cap_rate_step(&w, &index, t, 200, 100, 20) + 20000;
	t = cap_rate_step(&w, &index, t, 400, 100, 30) + 20000;
	/* a reflash: pass 2 starts 1.234 s later */
	t += 1234000;
	t = cap_rate_step(&w, &index, t, 100, 100, 10) + 20000;
	t = cap_rate_step(&w, &index, t, 200, 100, 20) + 20000;
	t = cap_rate_step(&w, &index, t, 400, 100, 40) + 20000;
	/* three stray requests long after */
	t = cap_rate_step(&w, &index, t + 5000000, 30, 100, 0);
	cap_close(&w);
	matched m;
	match_file(&w, "rate.pcap", NULL, &m);
	assert_int_equal(echo_count(m.e), 140 + 3);
	xb_rate_plan plan = {
		.rates = rates, .nrates = 3, .step_ns = 100000000, .gap_ns = 20000000, .passes = 2};
	xb_rate_result r;
	xb_err err;
	assert_int_equal(echo_rate_sweep(m.e, m.fs, &plan, &r, &err), 0);
	assert_int_equal(r.n, 6);
	assert_int_equal(r.passes_found, 2);
	assert_int_equal(r.outside, 3);
	static const double want[] = {100, 200, 300, 100, 200, 400};
	static const size_t sent[] = {10, 20, 40, 10, 20, 40};
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(r.steps[i].sent, sent[i]);
		assert_true(r.steps[i].reply_rate == want[i]);
		assert_true(r.steps[i].sent_rate == (double)sent[i] * 10);
		assert_int_equal(r.steps[i].rate, rates[i % 3]);
		assert_int_equal(r.steps[i].pass, i / 3);
	}
	assert_true(r.steps[0].start_ns == T0 + 500000 * CAP_US);
	assert_true(r.steps[3].start_ns == T0 + (500000 + 3 * 120000 + 1234000) * CAP_US);
	assert_true(r.peak == 400);
	assert_int_equal(r.peak_step, 5);
	echo_rate_free(&r);
	/* three passes: the third finds only the stray requests */
	plan.passes = 3;
	assert_int_equal(echo_rate_sweep(m.e, m.fs, &plan, &r, &err), 0);
	assert_int_equal(r.passes_found, 3);
	assert_int_equal(r.steps[6].sent, 3);
	assert_int_equal(r.outside, 0);
	echo_rate_free(&r);
	/* four: the last finds nothing */
	plan.passes = 4;
	assert_int_equal(echo_rate_sweep(m.e, m.fs, &plan, &r, &err), 0);
	assert_int_equal(r.passes_found, 3);
	assert_true(r.steps[9].start_ns == 0);
	echo_rate_free(&r);
	/* plans that make no sense */
	plan.passes = 0;
	assert_int_equal(echo_rate_sweep(m.e, m.fs, &plan, &r, &err), -1);
	assert_string_equal(err.msg, "the rate plan has no passes");
	plan.passes = 1;
	plan.step_ns = 0;
	assert_int_equal(echo_rate_sweep(m.e, m.fs, &plan, &r, &err), -1);
	plan.step_ns = 1;
	plan.nrates = 0;
	assert_int_equal(echo_rate_sweep(m.e, m.fs, &plan, &r, &err), -1);
	match_free(&m);
	free(w.buf);
}

/* ---- A mixed capture for the tshark comparison ---- */

static void test_mixed_capture(void **state)
{
	(void)state;
	cap_writer w;
	cap_open(&w);
	cap_icmp_script(&w);
	uint8_t f[100];
	size_t n = cap_arp(f);
	cap_out(&w, 2, f, (uint32_t)n, 0, 200000 * CAP_US, 200100 * CAP_US, 0);
	for (uint32_t i = 0; i < 5; i++)
		cap_udp_echo(&w, 40000, i, 64 + 16 * i, 210000 + i * 10000,
			     i == 3 ? 0 : 600 + 10 * i);
	cap_ping(&w, 0x4343, 1, 1000, 300000, 1900); /* a 1042-byte frame */
	cap_ping(&w, 0x4343, 2, 1046, 310000, 1950); /* 1088 = 17 * 64 bytes: padded */
	cap_close(&w);
	matched m;
	match_file(&w, "mixed.pcap", NULL, &m);
	assert_int_equal(echo_count(m.e), 10 + 5 + 2);
	match_free(&m);
	const char *out = getenv("XB_CAPTURE_PCAP_OUT");
	if (out && *out) {
		FILE *fo = fopen(out, "wb");
		assert_non_null(fo);
		assert_int_equal(fwrite(w.buf, 1, w.len, fo), w.len);
		assert_int_equal(fclose(fo), 0);
	}
	free(w.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_icmp_turnaround),   cmocka_unit_test(test_udp_nonce),
		cmocka_unit_test(test_feed_matches_file), cmocka_unit_test(test_rate_sweep),
		cmocka_unit_test(test_mixed_capture),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
