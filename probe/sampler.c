/* sampler: the PC sampling pipeline: TransferBlock reads of DWT_PCSR and DHCSR status reads
 * streamed through a dap_pipe, timestamps, sleep classification, FAULT and WAIT episodes;
 * sampler_run's busy and idle windows on top of the stream. */
#include "sampler.h"

#include <stdlib.h>
#include <string.h>

#include "cortexm.h"

#define NS_PER_S 1e9
#define DHCSR_STATE (CORTEXM_S_HALT | CORTEXM_S_SLEEP | CORTEXM_S_LOCKUP)
#define RING (2 * TRANSPORT_IN_FLIGHT_MAX)
#define WAIT_MS 10u

enum packet_kind { KIND_BLOCK, KIND_STATUS, KIND_RECOVER };

/* A packet of the stream in the pipe. */
typedef struct stream_packet {
	uint8_t kind;
	uint32_t flags; /* extra_flags when it was queued */
} stream_packet;

struct xb_sampler_stream {
	xb_adi *a;
	xb_dap_pipe *pipe;
	xb_dap_client *c;
	xb_transport *t;
	xb_sample_sink_fn sink;
	void *sink_ctx;
	uint32_t extra_flags;
	unsigned limit;         /* block and status packets in the pipe at most */
	unsigned every, since_status;
	uint8_t block[5];       /* TransferBlock: per_block DRW reads */
	uint8_t status[15];     /* Transfer: TAR = DHCSR, DRW read, TAR = DWT_PCSR, DRW read */
	uint8_t recover[13];    /* Transfer: ABORT (sticky flags, DAPABORT), TAR = DWT_PCSR */
	stream_packet ring[RING]; /* the stream's packets in the pipe, oldest first */
	unsigned head, count;
	unsigned sampling;      /* of them, blocks and status reads */
	int recovering;         /* a recover packet is in the pipe */
	uint32_t known[SAMPLER_STREAM_SLEEP_PCS];
	size_t nknown;
	xb_sampler_stats st;    /* learnt sleep PCs in st.sleep_pcs */
	uint64_t last_ns;       /* the previous response (the start at first) */
	uint64_t flags_since_ns, busy_ns, idle_ns;
	int stopped, failed;
	xb_err fail_err;
	int episode;            /* the target answers anything but OK */
	int report;             /* an episode began and was not reported yet */
	xb_err report_err;
	/* sampler_run's window: queue nothing from end_ns on, or once *stop is set */
	uint64_t end_ns;
	volatile sig_atomic_t *stop;
};

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void build_requests(xb_sampler_stream *s)
{
	unsigned per = (unsigned)((dap_client_info(s->c)->packet_size - 4) / 4);
	if (per > 65535)
		per = 65535;
	s->st.per_block = per;
	s->block[0] = 0x06; /* DAP_TransferBlock */
	s->block[1] = 0;
	s->block[2] = (uint8_t)per;
	s->block[3] = (uint8_t)(per >> 8);
	s->block[4] = ADI_REQ_DRW_READ;
	uint8_t *p = s->status;
	p[0] = 0x05; /* DAP_Transfer */
	p[1] = 0;
	p[2] = 4;
	p[3] = ADI_REQ_TAR_WRITE;
	put_u32(p + 4, CORTEXM_DHCSR);
	p[8] = ADI_REQ_DRW_READ;
	p[9] = ADI_REQ_TAR_WRITE;
	put_u32(p + 10, CORTEXM_DWT_PCSR);
	p[14] = ADI_REQ_DRW_READ;
	/* After FAULT or WAIT: clear the sticky flags (and a stuck AP transfer), and put TAR
	 * back, which a status read that failed half-way left at DHCSR. */
	p = s->recover;
	p[0] = 0x05;
	p[1] = 0;
	p[2] = 2;
	p[3] = XB_DAP_A(ADI_DP_ABORT); /* a DP write */
	put_u32(p + 4, ADI_ABORT_CLEAR_STICKY | ADI_ABORT_DAPABORT);
	p[8] = ADI_REQ_TAR_WRITE;
	put_u32(p + 9, CORTEXM_DWT_PCSR);
}

static int is_sleep_pc(const xb_sampler_stream *s, uint32_t pc)
{
	for (size_t i = 0; i < s->nknown; i++)
		if (s->known[i] == pc)
			return 1;
	for (unsigned i = 0; i < s->st.nsleep_pcs; i++)
		if (s->st.sleep_pcs[i] == pc)
			return 1;
	return 0;
}

static void learn_sleep_pc(xb_sampler_stats *st, uint32_t pc)
{
	if (pc == 0xFFFFFFFFu)
		return;
	for (unsigned i = 0; i < st->nsleep_pcs; i++)
		if (st->sleep_pcs[i] == pc)
			return;
	if (st->nsleep_pcs < SAMPLER_SLEEP_PCS)
		st->sleep_pcs[st->nsleep_pcs++] = pc;
}

static void stream_response(void *ctx, const uint8_t *resp, size_t len, uint64_t t_ns,
			    const xb_err *err);

static int stream_push(xb_sampler_stream *s, enum packet_kind kind, const uint8_t *req,
		       size_t len)
{
	if (s->count == RING || dap_pipe_queue(s->pipe, req, len, stream_response, s, NULL))
		return -1;
	s->ring[(s->head + s->count++) % RING] = (stream_packet){(uint8_t)kind, s->extra_flags};
	return 0;
}

static int window_over(xb_sampler_stream *s)
{
	if (s->stop && *s->stop)
		return 1;
	return s->end_ns && transport_now_ns(s->t) >= s->end_ns;
}

/* Keeps up to limit blocks and status reads in the pipe. */
static void stream_fill(xb_sampler_stream *s)
{
	while (!s->stopped && !s->failed && s->sampling < s->limit && !window_over(s)) {
		int block = s->since_status < s->every;
		if (stream_push(s, block ? KIND_BLOCK : KIND_STATUS, block ? s->block : s->status,
				block ? sizeof s->block : sizeof s->status)) {
			if (dap_pipe_failed(s->pipe, &s->fail_err))
				s->failed = 1;
			return; /* the queue is full: more on the next pump */
		}
		s->since_status = block ? s->since_status + 1 : 0;
		s->sampling++;
	}
}

/* The target answered anything but OK (or the probe's answer made no sense): reported once
 * per episode; the port is cleared so that the stream can go on. */
static void stream_trouble(xb_sampler_stream *s, const xb_err *e)
{
	if (!s->episode) {
		s->episode = 1;
		s->report = 1;
		s->report_err = *e;
	}
	if (!s->recovering && !s->stopped &&
	    stream_push(s, KIND_RECOVER, s->recover, sizeof s->recover) == 0)
		s->recovering = 1;
}

static void stream_block(xb_sampler_stream *s, const stream_packet *pk, const uint8_t *resp,
			 size_t len, uint64_t prev, uint64_t t_ns)
{
	xb_sampler_stats *st = &s->st;
	uint32_t pcs[TRANSPORT_PACKET_MAX / 4];
	size_t got;
	unsigned ack;
	xb_err e;
	if (dap_client_parse_block_read(s->c, resp, len, st->per_block, pcs, &got, &ack, &e)) {
		stream_trouble(s, &e);
		return;
	}
	for (size_t i = 0; i < got; i++) {
		uint32_t flags = pk->flags;
		if (is_sleep_pc(s, pcs[i])) {
			flags |= XB_SAMPLE_SLEEP;
			st->sleep_samples++;
		}
		st->halted_samples += pcs[i] == 0xFFFFFFFFu;
		/* the reads of one packet are spread over the time since the previous answer */
		uint64_t at = prev + (t_ns - prev) * (i + 1) / got;
		if (s->sink)
			s->sink(s->sink_ctx, pcs[i], flags, at);
	}
	st->samples += got;
	if (pk->flags & XB_SAMPLE_IDLE)
		st->idle_samples += got;
	else
		st->busy_samples += got;
	st->blocks++;
	if (ack != XB_ACK_OK) {
		xb_fail(&e, "%s: reading DWT_PCSR: the target answered %s", adi_name(s->a),
			dap_client_ack_name(ack));
		stream_trouble(s, &e);
	} else {
		s->episode = 0;
	}
}

static void stream_status(xb_sampler_stream *s, const uint8_t *resp, size_t len)
{
	xb_sampler_stats *st = &s->st;
	xb_dap_transfer x[4] = {{ADI_REQ_TAR_WRITE, CORTEXM_DHCSR},
				{ADI_REQ_DRW_READ, 0},
				{ADI_REQ_TAR_WRITE, CORTEXM_DWT_PCSR},
				{ADI_REQ_DRW_READ, 0}};
	size_t done;
	unsigned ack;
	xb_err e;
	if (dap_client_parse_transfer(s->c, resp, len, x, 4, &done, &ack, &e)) {
		stream_trouble(s, &e);
		return;
	}
	if (ack != XB_ACK_OK) {
		xb_fail(&e, "%s: reading DHCSR: the target answered %s", adi_name(s->a),
			dap_client_ack_name(ack));
		stream_trouble(s, &e);
		return;
	}
	s->episode = 0;
	uint32_t dhcsr = x[1].value;
	st->status_reads++;
	st->status_halted += (dhcsr & CORTEXM_S_HALT) != 0;
	st->status_lockup += (dhcsr & CORTEXM_S_LOCKUP) != 0;
	if ((dhcsr & DHCSR_STATE) == CORTEXM_S_SLEEP) {
		st->status_sleeping++;
		learn_sleep_pc(st, x[3].value);
	}
}

static void stream_response(void *ctx, const uint8_t *resp, size_t len, uint64_t t_ns,
			    const xb_err *err)
{
	xb_sampler_stream *s = ctx;
	stream_packet pk = s->ring[s->head];
	s->head = (s->head + 1) % RING;
	s->count--;
	if (pk.kind == KIND_RECOVER)
		s->recovering = 0;
	else
		s->sampling--;
	if (err) {
		if (!s->failed) {
			s->failed = 1;
			s->fail_err = *err;
		}
		return;
	}
	uint64_t prev = s->last_ns;
	if (t_ns < prev)
		t_ns = prev;
	s->last_ns = t_ns;
	if (pk.kind == KIND_BLOCK)
		stream_block(s, &pk, resp, len, prev, t_ns);
	else if (pk.kind == KIND_STATUS)
		stream_status(s, resp, len);
	stream_fill(s); /* keeps the window full within one pipe pump */
}

xb_sampler_stream *sampler_stream_start(xb_adi *a, xb_dap_pipe *pipe,
					const xb_sampler_stream_config *cfg, xb_err *err)
{
	xb_dap_client *c = adi_client(a);
	if (dap_pipe_client(pipe) != c) {
		xb_fail(err, "%s: the sampler's pipe belongs to another probe", adi_name(a));
		return NULL;
	}
	if (dap_pipe_failed(pipe, err))
		return NULL;
	if (!dap_pipe_idle(pipe)) {
		xb_fail(err, "%s: sampling starts on an idle pipe (%u packets in flight, %zu "
			     "queued)",
			adi_name(a), dap_pipe_in_flight(pipe), dap_pipe_queued(pipe));
		return NULL;
	}
	if (cortexm_enable_dwt(a, err) || adi_repeat_reads(a, CORTEXM_DWT_PCSR, err))
		return NULL;
	xb_sampler_stream *s = xcalloc(1, sizeof *s);
	s->a = a;
	s->pipe = pipe;
	s->c = c;
	s->t = dap_client_transport(c);
	s->sink = cfg->sink;
	s->sink_ctx = cfg->sink_ctx;
	s->extra_flags = cfg->extra_flags;
	unsigned window = dap_pipe_window(pipe);
	s->limit = cfg->in_flight && cfg->in_flight < window ? cfg->in_flight : window;
	s->every = cfg->status_every ? cfg->status_every : SAMPLER_STATUS_EVERY;
	s->nknown = cfg->nsleep_pcs < SAMPLER_STREAM_SLEEP_PCS ? cfg->nsleep_pcs
							       : SAMPLER_STREAM_SLEEP_PCS;
	if (s->nknown)
		memcpy(s->known, cfg->sleep_pcs, s->nknown * sizeof *s->known);
	build_requests(s);
	s->st.in_flight = s->limit;
	s->st.virtual_time = s->t->virtual_time;
	s->last_ns = s->flags_since_ns = transport_now_ns(s->t);
	return s;
}

int sampler_stream_pump(xb_sampler_stream *s, xb_err *err)
{
	if (s->failed) {
		if (err)
			*err = s->fail_err;
		return -1;
	}
	uint64_t before = s->st.samples;
	stream_fill(s);
	xb_err e;
	if (dap_pipe_pump(s->pipe, &e) < 0 && !s->failed) {
		s->failed = 1;
		s->fail_err = e;
	}
	if (s->failed) {
		if (err)
			*err = s->fail_err;
		return -1;
	}
	stream_fill(s);
	if (s->report) {
		s->report = 0;
		if (err)
			*err = s->report_err;
		return -1;
	}
	return (int)(s->st.samples - before);
}

/* Adds the time since the flags last changed to the busy or the idle share. */
static void account_time(xb_sampler_stream *s, uint64_t now)
{
	if (now > s->flags_since_ns) {
		if (s->extra_flags & XB_SAMPLE_IDLE)
			s->idle_ns += now - s->flags_since_ns;
		else
			s->busy_ns += now - s->flags_since_ns;
		s->flags_since_ns = now;
	}
}

void sampler_stream_flags(xb_sampler_stream *s, uint32_t extra_flags)
{
	account_time(s, transport_now_ns(s->t));
	s->extra_flags = extra_flags;
}

void sampler_stream_stop(xb_sampler_stream *s)
{
	s->stopped = 1;
}

void sampler_stream_resume(xb_sampler_stream *s)
{
	s->stopped = 0;
}

int sampler_stream_done(const xb_sampler_stream *s)
{
	return (s->stopped || s->failed) && s->count == 0;
}

void sampler_stream_free(xb_sampler_stream *s)
{
	if (!s)
		return;
	dap_pipe_forget(s->pipe, s);
	adi_forget(s->a); /* TAR moved under the raw packets; CSW goes back on the next access */
	free(s);
}

void sampler_stream_stats(const xb_sampler_stream *s, xb_sampler_stats *out)
{
	*out = s->st;
	uint64_t busy = s->busy_ns, idle = s->idle_ns;
	if (s->last_ns > s->flags_since_ns) {
		if (s->extra_flags & XB_SAMPLE_IDLE)
			idle += s->last_ns - s->flags_since_ns;
		else
			busy += s->last_ns - s->flags_since_ns;
	}
	out->busy_seconds = (double)busy / NS_PER_S;
	out->idle_seconds = (double)idle / NS_PER_S;
	double total = out->busy_seconds + out->idle_seconds;
	out->rate = total > 0 ? (double)out->samples / total : 0;
}

size_t sampler_find_sleep_pcs(const uint8_t *bytes, size_t len, uint32_t addr, uint32_t *out,
			      size_t max)
{
	size_t n = 0;
	for (size_t i = addr & 1u; i + 1 < len && n < max; i += 2) {
		unsigned hw = bytes[i] | (unsigned)bytes[i + 1] << 8;
		if (hw == 0xBF30u || hw == 0xBF20u)
			out[n++] = addr + (uint32_t)i;
	}
	return n;
}

/* ---- sampler_run: windows over one stream ---- */

static void run_sink(void *ctx, uint32_t pc, uint32_t flags, uint64_t t_ns)
{
	(void)t_ns;
	samples_push(ctx, pc, flags);
}

/* One window: packets queued until its time is up (or *stop), then the ones in flight
 * collected. */
static int run_window(xb_sampler_stream *s, double seconds, double *measured, xb_err *err)
{
	uint64_t start = transport_now_ns(s->t);
	s->end_ns = start + (uint64_t)(seconds * NS_PER_S);
	sampler_stream_resume(s);
	int rc = 0;
	for (;;) {
		int n = sampler_stream_pump(s, err);
		if (n < 0) {
			rc = -1;
			break;
		}
		if (s->count == 0 && window_over(s))
			break;
		if (n == 0)
			dap_pipe_wait(s->pipe, WAIT_MS);
	}
	sampler_stream_stop(s);
	while (!sampler_stream_done(s)) {
		int n = dap_pipe_pump(s->pipe, NULL);
		if (n < 0)
			break;
		if (n == 0)
			dap_pipe_wait(s->pipe, WAIT_MS);
	}
	*measured = (double)(transport_now_ns(s->t) - start) / NS_PER_S;
	return rc;
}

/* Flags the session's samples at a sleep PC learnt at any time of the session (the stream
 * flags those known when each sample came) and counts them. */
static void classify_sleep(xb_samples *out, size_t from, xb_sampler_stats *st)
{
	st->sleep_samples = 0;
	for (size_t i = from; i < out->n; i++) {
		for (unsigned k = 0; k < st->nsleep_pcs; k++)
			if (out->s[i].pc == st->sleep_pcs[k]) {
				out->s[i].flags |= XB_SAMPLE_SLEEP;
				break;
			}
		st->sleep_samples += (out->s[i].flags & XB_SAMPLE_SLEEP) != 0;
	}
}

int sampler_run(xb_adi *a, const xb_sampler_config *cfg, xb_samples *out, xb_sampler_stats *st,
		xb_err *err)
{
	xb_sampler_stats local;
	st = st ? st : &local;
	memset(st, 0, sizeof *st);
	if (!(cfg->busy_seconds > 0) || cfg->idle_seconds < 0)
		return xb_fail(err, "sampling needs a busy window of more than 0 seconds and an idle "
				    "window of 0 or more");
	xb_dap_client *c = adi_client(a);
	xb_dap_pipe *pipe = dap_pipe_new(c, cfg->in_flight, 0);
	st->in_flight = dap_pipe_window(pipe);
	st->virtual_time = dap_client_transport(c)->virtual_time;
	xb_sampler_stream_config scfg = {.status_every = cfg->status_every,
					 .sink = run_sink,
					 .sink_ctx = out};
	xb_sampler_stream *s = sampler_stream_start(a, pipe, &scfg, err);
	if (!s) {
		dap_pipe_free(pipe);
		return -1;
	}
	s->stop = cfg->stop;
	s->stopped = 1; /* until the first window */
	size_t first = out->n;
	double busy = 0, idle = 0;
	if (cfg->window)
		cfg->window(cfg->ctx, 0);
	int rc = run_window(s, cfg->busy_seconds, &busy, err);
	if (rc == 0 && cfg->idle_seconds > 0 && !(cfg->stop && *cfg->stop)) {
		if (cfg->window)
			cfg->window(cfg->ctx, 1);
		sampler_stream_flags(s, XB_SAMPLE_IDLE);
		rc = run_window(s, cfg->idle_seconds, &idle, err);
	}
	sampler_stream_stats(s, st);
	sampler_stream_free(s);
	dap_pipe_free(pipe);
	st->busy_seconds = busy;
	st->idle_seconds = idle;
	classify_sleep(out, first, st);
	out->busy_seconds += st->busy_seconds;
	out->idle_seconds += st->idle_seconds;
	double total = st->busy_seconds + st->idle_seconds;
	st->rate = total > 0 ? (double)st->samples / total : 0;
	return rc;
}
