/* echo: matches echo requests to replies among a capture's frames and computes turnaround. */
#include "echo.h"

#include <stdlib.h>
#include <string.h>

#include "packet.h"

/* What a request and its reply share: kind, host and device addresses, then identifier
 * and sequence number (ICMP) or host port and device port (UDP), then the nonce. */
typedef struct echo_key {
	uint8_t b[1 + 4 + 4 + 4 + XB_ECHO_MAX_NONCE];
} echo_key;

typedef struct echo_slot {
	echo_key key;
	size_t echo; /* index + 1; 0: empty */
} echo_slot;

/* A UDP flow that carried requests: kind byte, host and device addresses and ports. */
typedef struct echo_flow {
	uint8_t b[13];
} echo_flow;

struct xb_echoes {
	xb_echo_options opt;
	xb_echo *e;
	size_t n, cap;
	echo_slot *slot; /* open addressing, at most half full */
	size_t nslot, used;
	echo_flow *flow;
	size_t nflow, capflow;
	size_t seen;          /* frames already looked at */
	size_t unmatched[3];  /* by kind */
	size_t mismatched[3]; /* by kind */
};

void echo_options_init(xb_echo_options *o)
{
	memset(o, 0, sizeof *o);
	o->nonce_len = 8;
	o->udp_port = -1;
}

xb_echoes *echo_new(const xb_echo_options *o, xb_err *err)
{
	xb_echo_options d;
	echo_options_init(&d);
	if (o)
		d = *o;
	if (d.nonce_len == 0 || d.nonce_len > XB_ECHO_MAX_NONCE) {
		xb_fail(err, "the UDP nonce must be 1 to %u bytes long (got %u)", XB_ECHO_MAX_NONCE,
			d.nonce_len);
		return NULL;
	}
	xb_echoes *e = xcalloc(1, sizeof *e);
	e->opt = d;
	e->nslot = 64;
	e->slot = xcalloc(e->nslot, sizeof *e->slot);
	return e;
}

void echo_free(xb_echoes *e)
{
	if (!e)
		return;
	free(e->e);
	free(e->slot);
	free(e->flow);
	free(e);
}

/* ---- Keys ---- */

static uint64_t key_hash(const echo_key *k)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < sizeof k->b; i++)
		h = (h ^ k->b[i]) * 1099511628211ull;
	return h;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The key of a packet seen from the host's side: host is the request's source. */
static void key_make(echo_key *k, uint8_t kind, const uint8_t *host, const uint8_t *dev, uint16_t a,
		     uint16_t b, const uint8_t *nonce, size_t nonce_len)
{
	memset(k, 0, sizeof *k);
	k->b[0] = kind;
	memcpy(k->b + 1, host, 4);
	memcpy(k->b + 5, dev, 4);
	put16(k->b + 9, a);
	put16(k->b + 11, b);
	if (nonce)
		memcpy(k->b + 13, nonce, nonce_len);
}

static echo_slot *key_slot(xb_echoes *e, const echo_key *k)
{
	size_t mask = e->nslot - 1;
	for (size_t i = (size_t)key_hash(k) & mask;; i = (i + 1) & mask) {
		echo_slot *s = &e->slot[i];
		if (!s->echo || memcmp(s->key.b, k->b, sizeof k->b) == 0)
			return s;
	}
}

static void key_grow(xb_echoes *e)
{
	echo_slot *old = e->slot;
	size_t n = e->nslot;
	e->nslot *= 2;
	e->slot = xcalloc(e->nslot, sizeof *e->slot);
	for (size_t i = 0; i < n; i++)
		if (old[i].echo)
			*key_slot(e, &old[i].key) = old[i];
	free(old);
}

static int flow_known(const xb_echoes *e, const echo_flow *f)
{
	for (size_t i = 0; i < e->nflow; i++)
		if (memcmp(e->flow[i].b, f->b, sizeof f->b) == 0)
			return 1;
	return 0;
}

static void flow_of(echo_flow *f, const echo_key *k)
{
	memcpy(f->b, k->b, sizeof f->b);
}

/* ---- Matching ---- */

/* The nonce of a UDP payload, or NULL when the payload is too short (or not captured). */
static const uint8_t *udp_nonce(const xb_echoes *e, const xb_packet *p)
{
	uint64_t end = (uint64_t)e->opt.nonce_offset + e->opt.nonce_len;
	if (end > p->payload_captured)
		return NULL;
	return p->payload + e->opt.nonce_offset;
}

static void echo_add_request(xb_echoes *e, const xb_packet *p, size_t frame)
{
	xb_echo x = {.request = frame, .reply = XB_ECHO_NONE, .size = p->payload_len};
	echo_key k;
	if (p->kind == XB_PACKET_ICMP) {
		x.kind = XB_ECHO_ICMP;
		x.id = p->icmp_id;
		x.seq = p->icmp_seq;
		key_make(&k, x.kind, p->ip_src, p->ip_dst, x.id, x.seq, NULL, 0);
	} else {
		const uint8_t *nonce = udp_nonce(e, p);
		if (!nonce)
			return;
		x.kind = XB_ECHO_UDP;
		x.sport = p->udp_sport;
		x.dport = p->udp_dport;
		memcpy(x.nonce, nonce, e->opt.nonce_len);
		key_make(&k, x.kind, p->ip_src, p->ip_dst, x.sport, x.dport, nonce,
			 e->opt.nonce_len);
		echo_flow f;
		flow_of(&f, &k);
		if (!flow_known(e, &f)) {
			xb_grow(&e->flow, &e->capflow, e->nflow + 1, sizeof *e->flow);
			e->flow[e->nflow++] = f;
		}
	}
	xb_grow(&e->e, &e->cap, e->n + 1, sizeof *e->e);
	e->e[e->n++] = x;
	echo_slot *s = key_slot(e, &k);
	if (!s->echo) {
		s->key = k;
		e->used++;
	}
	s->echo = e->n; /* a repeated key: later replies go to the newest request */
	if (e->used * 2 > e->nslot)
		key_grow(e);
}

/* Whether the captured payloads of request and reply agree. */
static int same_payload(const xb_frames *fs, const xb_echo *x, const xb_packet *reply)
{
	const xb_frame *f = frames_get(fs, x->request);
	xb_packet q;
	packet_parse(&q, f->data, f->captured, f->len);
	if (q.payload_len != reply->payload_len)
		return 0;
	uint32_t n = q.payload_captured < reply->payload_captured ? q.payload_captured
								  : reply->payload_captured;
	return n == 0 || memcmp(q.payload, reply->payload, n) == 0;
}

static void echo_match_reply(xb_echoes *e, const xb_frames *fs, const xb_packet *p, size_t frame)
{
	echo_key k;
	uint8_t kind;
	if (p->kind == XB_PACKET_ICMP) {
		kind = XB_ECHO_ICMP;
		key_make(&k, kind, p->ip_dst, p->ip_src, p->icmp_id, p->icmp_seq, NULL, 0);
	} else {
		kind = XB_ECHO_UDP;
		key_make(&k, kind, p->ip_dst, p->ip_src, p->udp_dport, p->udp_sport, NULL, 0);
		echo_flow f;
		flow_of(&f, &k);
		if (!flow_known(e, &f))
			return; /* not a reply to echo traffic */
		const uint8_t *nonce = udp_nonce(e, p);
		if (!nonce) {
			e->unmatched[kind]++;
			return;
		}
		memcpy(k.b + 13, nonce, e->opt.nonce_len);
	}
	echo_slot *s = key_slot(e, &k);
	if (!s->echo) {
		e->unmatched[kind]++;
		return;
	}
	xb_echo *x = &e->e[s->echo - 1];
	if (x->reply != XB_ECHO_NONE) {
		x->duplicates++;
		return;
	}
	x->reply = frame;
	if (!same_payload(fs, x, p)) {
		x->mismatch = 1;
		e->mismatched[kind]++;
	}
}

void echo_update(xb_echoes *e, const xb_frames *fs)
{
	size_t n = frames_count(fs);
	for (; e->seen < n; e->seen++) {
		const xb_frame *f = frames_get(fs, e->seen);
		xb_packet p;
		packet_parse(&p, f->data, f->captured, f->len);
		int in = (f->flags & XB_FRAME_IN) != 0;
		if (p.kind == XB_PACKET_ICMP) {
			if (!in && p.icmp_type == 8 && p.icmp_code == 0)
				echo_add_request(e, &p, e->seen);
			else if (in && p.icmp_type == 0 && p.icmp_code == 0)
				echo_match_reply(e, fs, &p, e->seen);
		} else if (p.kind == XB_PACKET_UDP) {
			if (!in && (e->opt.udp_port < 0 || p.udp_dport == e->opt.udp_port))
				echo_add_request(e, &p, e->seen);
			else if (in)
				echo_match_reply(e, fs, &p, e->seen);
		}
	}
}

/* ---- Results ---- */

size_t echo_count(const xb_echoes *e)
{
	return e->n;
}

const xb_echo *echo_get(const xb_echoes *e, size_t i)
{
	return i < e->n ? &e->e[i] : NULL;
}

enum xb_echo_state echo_state(const xb_echoes *e, const xb_frames *fs, size_t i)
{
	const xb_echo *x = &e->e[i];
	if (x->reply != XB_ECHO_NONE)
		return XB_ECHO_REPLIED;
	if (frames_get(fs, x->request)->flags & XB_FRAME_FAILED)
		return XB_ECHO_FAILED;
	return XB_ECHO_LOST;
}

const char *echo_state_name(enum xb_echo_state s)
{
	return s == XB_ECHO_REPLIED ? "replied" : s == XB_ECHO_FAILED ? "failed" : "lost";
}

const char *echo_kind_name(uint8_t kind)
{
	return kind == XB_ECHO_ICMP ? "icmp" : kind == XB_ECHO_UDP ? "udp" : "unknown";
}

int echo_turnaround(const xb_echoes *e, const xb_frames *fs, size_t i, int64_t *ns)
{
	*ns = 0;
	const xb_echo *x = &e->e[i];
	if (x->reply == XB_ECHO_NONE)
		return -1;
	const xb_frame *req = frames_get(fs, x->request), *rep = frames_get(fs, x->reply);
	if (req->flags & (XB_FRAME_PENDING | XB_FRAME_FAILED))
		return -1;
	*ns = (int64_t)(rep->time_ns - req->time_ns);
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void echo_summarize(const xb_echoes *e, const xb_frames *fs, int kind, xb_echo_summary *s)
{
	memset(s, 0, sizeof *s);
	int64_t *t = xmalloc((e->n ? e->n : 1) * sizeof *t);
	double sum = 0;
	for (size_t i = 0; i < e->n; i++) {
		const xb_echo *x = &e->e[i];
		if (kind && x->kind != kind)
			continue;
		s->requests++;
		s->duplicates += x->duplicates;
		enum xb_echo_state st = echo_state(e, fs, i);
		if (st == XB_ECHO_REPLIED)
			s->replied++;
		else if (st == XB_ECHO_FAILED)
			s->failed++;
		else
			s->lost++;
		int64_t ns;
		if (echo_turnaround(e, fs, i, &ns) == 0) {
			t[s->turnarounds++] = ns;
			sum += (double)ns;
		}
	}
	for (int k = 1; k <= 2; k++)
		if (!kind || kind == k) {
			s->unmatched += e->unmatched[k];
			s->mismatched += e->mismatched[k];
		}
	size_t n = s->turnarounds;
	if (n) {
		qsort(t, n, sizeof *t, cmp_i64);
		s->min_ns = t[0];
		s->max_ns = t[n - 1];
		s->median_ns =
			n % 2 ? (double)t[n / 2] : ((double)t[n / 2 - 1] + (double)t[n / 2]) / 2;
		s->mean_ns = sum / (double)n;
	}
	free(t);
}
