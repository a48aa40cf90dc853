/* sampler: the PC sampling pipeline: TransferBlock reads of DWT_PCSR, DHCSR status reads
 * between blocks, busy and idle windows, sleep classification. */
#include "sampler.h"

#include <string.h>

#include "cortexm.h"

#define NS_PER_S 1e9
#define DHCSR_STATE (CORTEXM_S_HALT | CORTEXM_S_SLEEP | CORTEXM_S_LOCKUP)

typedef struct session {
	xb_adi *a;
	xb_dap_client *c;
	const xb_sampler_config *cfg;
	xb_samples *out;
	xb_sampler_stats *st;
	uint8_t block[5];   /* the TransferBlock request */
	uint8_t status[15]; /* the DAP_Transfer status request */
	unsigned window;    /* packets in flight */
	unsigned every;     /* blocks between status reads */
	unsigned since_status;
	/* kinds of the packets in flight, oldest first: 1 block, 0 status */
	uint8_t kind[TRANSPORT_IN_FLIGHT_MAX];
	unsigned head, count;
} session;

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void build_requests(session *s)
{
	unsigned per = (unsigned)((dap_client_info(s->c)->packet_size - 4) / 4);
	if (per > 65535)
		per = 65535;
	s->st->per_block = per;
	s->block[0] = 0x06; /* DAP_TransferBlock */
	s->block[1] = 0;
	s->block[2] = (uint8_t)per;
	s->block[3] = (uint8_t)(per >> 8);
	s->block[4] = ADI_REQ_DRW_READ;
	/* DAP_Transfer: TAR = DHCSR, DRW read, TAR = DWT_PCSR, DRW read */
	uint8_t *p = s->status;
	p[0] = 0x05;
	p[1] = 0;
	p[2] = 4;
	p[3] = ADI_REQ_TAR_WRITE;
	put_u32(p + 4, CORTEXM_DHCSR);
	p[8] = ADI_REQ_DRW_READ;
	p[9] = ADI_REQ_TAR_WRITE;
	put_u32(p + 10, CORTEXM_DWT_PCSR);
	p[14] = ADI_REQ_DRW_READ;
}

static void note_sleep_pc(xb_sampler_stats *st, uint32_t pc)
{
	if (pc == 0xFFFFFFFFu)
		return;
	for (unsigned i = 0; i < st->nsleep_pcs; i++)
		if (st->sleep_pcs[i] == pc)
			return;
	if (st->nsleep_pcs < SAMPLER_SLEEP_PCS)
		st->sleep_pcs[st->nsleep_pcs++] = pc;
}

static int submit_next(session *s, xb_err *err)
{
	int block = s->since_status < s->every;
	const uint8_t *req = block ? s->block : s->status;
	size_t len = block ? sizeof s->block : sizeof s->status;
	if (dap_client_submit(s->c, req, len, err))
		return -1;
	s->since_status = block ? s->since_status + 1 : 0;
	s->kind[(s->head + s->count++) % TRANSPORT_IN_FLIGHT_MAX] = (uint8_t)block;
	return 0;
}

static int collect_one(session *s, uint32_t flags, xb_err *err)
{
	uint8_t resp[TRANSPORT_PACKET_MAX];
	size_t len;
	if (dap_client_collect(s->c, resp, sizeof resp, &len, err))
		return -1;
	int block = s->kind[s->head];
	s->head = (s->head + 1) % TRANSPORT_IN_FLIGHT_MAX;
	s->count--;
	xb_sampler_stats *st = s->st;
	if (block) {
		uint32_t pcs[TRANSPORT_PACKET_MAX / 4];
		size_t got;
		unsigned ack;
		if (dap_client_parse_block_read(s->c, resp, len, st->per_block, pcs, &got, &ack,
						err))
			return -1;
		for (size_t i = 0; i < got; i++) {
			samples_push(s->out, pcs[i], flags);
			st->halted_samples += pcs[i] == 0xFFFFFFFFu;
		}
		st->samples += got;
		if (flags & XB_SAMPLE_IDLE)
			st->idle_samples += got;
		else
			st->busy_samples += got;
		st->blocks++;
		if (ack != XB_ACK_OK)
			return xb_fail(err, "%s: reading DWT_PCSR: the target answered %s",
				       adi_name(s->a), dap_client_ack_name(ack));
		return 0;
	}
	xb_dap_transfer x[4] = {{ADI_REQ_TAR_WRITE, CORTEXM_DHCSR},
				{ADI_REQ_DRW_READ, 0},
				{ADI_REQ_TAR_WRITE, CORTEXM_DWT_PCSR},
				{ADI_REQ_DRW_READ, 0}};
	size_t done;
	unsigned ack;
	if (dap_client_parse_transfer(s->c, resp, len, x, 4, &done, &ack, err))
		return -1;
	if (ack != XB_ACK_OK)
		return xb_fail(err, "%s: reading DHCSR: the target answered %s", adi_name(s->a),
			       dap_client_ack_name(ack));
	uint32_t dhcsr = x[1].value;
	st->status_reads++;
	st->status_halted += (dhcsr & CORTEXM_S_HALT) != 0;
	st->status_lockup += (dhcsr & CORTEXM_S_LOCKUP) != 0;
	if ((dhcsr & DHCSR_STATE) == CORTEXM_S_SLEEP) {
		st->status_sleeping++;
		note_sleep_pc(st, x[3].value);
	}
	return 0;
}

/* Drains the pipeline after a failure, so that the probe is left idle (errors ignored:
 * the first one is what the caller reports). */
static void drain(session *s)
{
	while (s->count) {
		uint8_t resp[TRANSPORT_PACKET_MAX];
		size_t len;
		if (dap_client_collect(s->c, resp, sizeof resp, &len, NULL))
			break;
		s->head = (s->head + 1) % TRANSPORT_IN_FLIGHT_MAX;
		s->count--;
	}
}

/* One window: packets sent until its time is up, then the pipeline emptied. */
static int sample_window(session *s, double seconds, uint32_t flags, double *measured,
			 xb_err *err)
{
	uint64_t start = dap_client_now_ns(s->c);
	uint64_t end = start + (uint64_t)(seconds * NS_PER_S);
	int rc = 0;
	for (;;) {
		int stopping = s->cfg->stop && *s->cfg->stop;
		while (!stopping && s->count < s->window && dap_client_now_ns(s->c) < end)
			if ((rc = submit_next(s, err)) != 0)
				break;
		if (rc || s->count == 0)
			break;
		if ((rc = collect_one(s, flags, err)) != 0)
			break;
		if (s->count == 0 && (stopping || dap_client_now_ns(s->c) >= end))
			break;
	}
	if (rc)
		drain(s);
	*measured = (double)(dap_client_now_ns(s->c) - start) / NS_PER_S;
	return rc;
}

/* Flags the session's samples at a sleep PC. */
static void classify_sleep(xb_samples *out, size_t from, xb_sampler_stats *st)
{
	for (size_t i = from; i < out->n; i++)
		for (unsigned k = 0; k < st->nsleep_pcs; k++)
			if (out->s[i].pc == st->sleep_pcs[k]) {
				out->s[i].flags |= XB_SAMPLE_SLEEP;
				st->sleep_samples++;
				break;
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
	session s = {.a = a, .c = adi_client(a), .cfg = cfg, .out = out, .st = st};
	const xb_dap_info *info = dap_client_info(s.c);
	s.window = cfg->in_flight && cfg->in_flight < info->packet_count ? cfg->in_flight
									 : info->packet_count;
	s.every = cfg->status_every ? cfg->status_every : SAMPLER_STATUS_EVERY;
	st->in_flight = s.window;
	st->virtual_time = dap_client_transport(s.c)->virtual_time;
	build_requests(&s);
	if (cortexm_enable_dwt(a, err) || adi_repeat_reads(a, CORTEXM_DWT_PCSR, err))
		return -1;
	size_t first = out->n;
	int rc = 0;
	if (cfg->window)
		cfg->window(cfg->ctx, 0);
	rc = sample_window(&s, cfg->busy_seconds, 0, &st->busy_seconds, err);
	if (rc == 0 && cfg->idle_seconds > 0 && !(cfg->stop && *cfg->stop)) {
		if (cfg->window)
			cfg->window(cfg->ctx, 1);
		rc = sample_window(&s, cfg->idle_seconds, XB_SAMPLE_IDLE, &st->idle_seconds, err);
	}
	adi_forget(a); /* TAR moved under the raw packets; CSW goes back on the next access */
	classify_sleep(out, first, st);
	out->busy_seconds += st->busy_seconds;
	out->idle_seconds += st->idle_seconds;
	double total = st->busy_seconds + st->idle_seconds;
	st->rate = total > 0 ? (double)st->samples / total : 0;
	return rc;
}
