/* echo: matches echo requests to replies among a capture's frames and computes turnaround. */
#include "echo.h"

#include <stdlib.h>
#include <string.h>

#include "held.h"
#include "packet.h"

/* What a request and its reply share: kind, host and device addresses, then identifier
 * and sequence number (ICMP) or host port and device port (UDP), then the nonce. A UDP
 * flow is the first ECHO_FLOW_LEN bytes of its echoes' keys, the rest zero. */
typedef struct echo_key {
	uint8_t b[1 + 4 + 4 + 4 + XB_ECHO_MAX_NONCE];
} echo_key;

#define ECHO_FLOW_LEN 13u
#define ECHO_TABLE_MIN 64u

/* Keys to values by open addressing with linear probing, at most half full; value 0 is an
 * empty slot. A deletion moves the entries after it back (no tombstones), so a table that
 * keeps losing old keys and gaining new ones stays as small as what it holds. */
typedef struct echo_slot {
	echo_key key;
	size_t value;
} echo_slot;

typedef struct echo_table {
	echo_slot *slot;
	size_t nslot, used; /* nslot: a power of two */
} echo_table;

typedef struct echo_entry {
	xb_echo x;
	echo_key key;
} echo_entry;

/* The echoes held are e[off .. off + n), of absolute indices base .. base + n. */
struct xb_echoes {
	xb_echo_options opt;
	echo_entry *e;
	size_t off, n, cap, base;
	echo_table keys;      /* value: the newest request's index + 1 */
	echo_table flows;     /* UDP flows of the echoes held; value: how many */
	size_t seen;          /* frames already looked at */
	size_t last_reply;    /* echo_last_reply */
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
	e->last_reply = XB_ECHO_NONE;
	e->keys.nslot = e->flows.nslot = ECHO_TABLE_MIN;
	e->keys.slot = xcalloc(ECHO_TABLE_MIN, sizeof *e->keys.slot);
	e->flows.slot = xcalloc(ECHO_TABLE_MIN, sizeof *e->flows.slot);
	return e;
}

void echo_free(xb_echoes *e)
{
	if (!e)
		return;
	free(e->e);
	free(e->keys.slot);
	free(e->flows.slot);
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

static void flow_of(echo_key *flow, const echo_key *k)
{
	memset(flow, 0, sizeof *flow);
	memcpy(flow->b, k->b, ECHO_FLOW_LEN);
}

/* The slot holding k, or the empty slot where it would go. */
static echo_slot *table_find(const echo_table *t, const echo_key *k)
{
	size_t mask = t->nslot - 1;
	for (size_t i = (size_t)key_hash(k) & mask;; i = (i + 1) & mask) {
		echo_slot *s = &t->slot[i];
		if (!s->value || memcmp(s->key.b, k->b, sizeof k->b) == 0)
			return s;
	}
}

static void table_resize(echo_table *t, size_t nslot)
{
	echo_slot *old = t->slot;
	size_t n = t->nslot;
	t->nslot = nslot;
	t->slot = xcalloc(nslot, sizeof *t->slot);
	for (size_t i = 0; i < n; i++)
		if (old[i].value)
			*table_find(t, &old[i].key) = old[i];
	free(old);
}

/* Fills the empty slot s (from table_find) with k; s is invalid afterwards. */
static void table_insert(echo_table *t, echo_slot *s, const echo_key *k, size_t value)
{
	s->key = *k;
	s->value = value;
	t->used++;
	if (t->used * 2 > t->nslot)
		table_resize(t, t->nslot * 2);
}

/* Empties s and moves back the entries of its probe run that may no longer be reached
 * past the hole (Knuth's algorithm R). */
static void table_delete(echo_table *t, echo_slot *s)
{
	size_t mask = t->nslot - 1;
	size_t hole = (size_t)(s - t->slot);
	for (size_t j = (hole + 1) & mask; t->slot[j].value; j = (j + 1) & mask) {
		size_t home = (size_t)key_hash(&t->slot[j].key) & mask;
		/* it stays when its home lies cyclically in (hole, j] */
		int stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
		if (stays)
			continue;
		t->slot[hole] = t->slot[j];
		hole = j;
	}
	t->slot[hole].value = 0;
	t->used--;
}

/* Gives back the slots that a burst of keys left empty. */
static void table_shrink(echo_table *t)
{
	if (t->nslot <= ECHO_TABLE_MIN || t->used * 8 >= t->nslot)
		return;
	size_t n = ECHO_TABLE_MIN;
	while (n < t->used * 4)
		n *= 2;
	table_resize(t, n);
}

/* ---- The echoes held ---- */

static echo_entry *echo_at(const xb_echoes *e, size_t i)
{
	return i >= e->base && i - e->base < e->n ? &e->e[e->off + (i - e->base)] : NULL;
}

static echo_entry *echo_append(xb_echoes *e)
{
	held_reserve(&e->e, sizeof *e->e, &e->off, e->n, &e->cap);
	return &e->e[e->off + e->n++];
}

void echo_discard(xb_echoes *e, size_t before)
{
	while (e->n && e->base < before) {
		const echo_entry *x = &e->e[e->off];
		echo_slot *s = table_find(&e->keys, &x->key);
		if (s->value == e->base + 1) /* no newer request took the key over */
			table_delete(&e->keys, s);
		if (x->x.kind == XB_ECHO_UDP) {
			echo_key flow;
			flow_of(&flow, &x->key);
			s = table_find(&e->flows, &flow);
			if (s->value && --s->value == 0)
				table_delete(&e->flows, s);
		}
		e->off++;
		e->n--;
		e->base++;
	}
	held_trim(&e->e, sizeof *e->e, &e->off, e->n, &e->cap);
	table_shrink(&e->keys);
	table_shrink(&e->flows);
}

size_t echo_held(const xb_echoes *e)
{
	return e->n;
}

size_t echo_last_reply(const xb_echoes *e)
{
	return e->last_reply;
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
		echo_key flow;
		flow_of(&flow, &k);
		echo_slot *s = table_find(&e->flows, &flow);
		if (s->value)
			s->value++;
		else
			table_insert(&e->flows, s, &flow, 1);
	}
	size_t index = e->base + e->n;
	echo_entry *en = echo_append(e);
	en->x = x;
	en->key = k;
	echo_slot *s = table_find(&e->keys, &k);
	if (s->value)
		s->value = index + 1; /* a repeated key: later replies go to the newest request */
	else
		table_insert(&e->keys, s, &k, index + 1);
}

/* Whether the captured payloads of request and reply agree (yes when the request's frame
 * was discarded: nothing to compare). */
static int same_payload(const xb_frames *fs, const xb_echo *x, const xb_packet *reply)
{
	const xb_frame *f = frames_get(fs, x->request);
	if (!f)
		return 1;
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
		if (!table_find(&e->flows, &k)->value)
			return; /* not a reply to echo traffic */
		const uint8_t *nonce = udp_nonce(e, p);
		if (!nonce) {
			e->unmatched[kind]++;
			return;
		}
		memcpy(k.b + 13, nonce, e->opt.nonce_len);
	}
	const echo_slot *s = table_find(&e->keys, &k);
	if (!s->value) {
		e->unmatched[kind]++;
		return;
	}
	xb_echo *x = &echo_at(e, s->value - 1)->x;
	e->last_reply = s->value - 1;
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
	echo_update_until(e, fs, frames_count(fs));
}

void echo_update_until(xb_echoes *e, const xb_frames *fs, size_t end)
{
	size_t n = frames_count(fs), first = n - frames_held(fs);
	if (end < n)
		n = end;
	if (e->seen < first)
		e->seen = first; /* discarded before they were looked at */
	for (; e->seen < n; e->seen++) {
		e->last_reply = XB_ECHO_NONE;
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
	return e->base + e->n;
}

const xb_echo *echo_get(const xb_echoes *e, size_t i)
{
	const echo_entry *x = echo_at(e, i);
	return x ? &x->x : NULL;
}

enum xb_echo_state echo_state(const xb_echoes *e, const xb_frames *fs, size_t i)
{
	const xb_echo *x = echo_get(e, i);
	if (!x)
		return XB_ECHO_LOST;
	if (x->reply != XB_ECHO_NONE)
		return XB_ECHO_REPLIED;
	const xb_frame *req = frames_get(fs, x->request);
	if (req && (req->flags & XB_FRAME_FAILED))
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
	const xb_echo *x = echo_get(e, i);
	if (!x || x->reply == XB_ECHO_NONE)
		return -1;
	const xb_frame *req = frames_get(fs, x->request), *rep = frames_get(fs, x->reply);
	if (!req || !rep || (req->flags & (XB_FRAME_PENDING | XB_FRAME_FAILED)))
		return -1;
	*ns = (int64_t)(rep->time_ns - req->time_ns);
	return 0;
}

size_t echo_unmatched(const xb_echoes *e, int kind)
{
	size_t n = 0;
	for (int k = 1; k <= 2; k++)
		if (!kind || kind == k)
			n += e->unmatched[k];
	return n;
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
	for (size_t i = e->base; i < e->base + e->n; i++) {
		const xb_echo *x = echo_get(e, i);
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
	s->unmatched = echo_unmatched(e, kind);
	for (int k = 1; k <= 2; k++)
		if (!kind || kind == k)
			s->mismatched += e->mismatched[k];
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
