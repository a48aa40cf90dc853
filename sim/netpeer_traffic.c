/* netpeer_traffic: the network peer's traffic in virtual time: ping series and UDP streams
 * sent from board events, the echo table, reply matching and summaries. */
#include <stdlib.h>
#include <string.h>

#include "netpeer_int.h"
#include "periph.h"

static const uint8_t nonce_magic[4] = {'x', 'b', 'n', 'p'};

/* ---- Payloads (regenerated to check replies) ---- */

/* iputils ping: a struct timeval (16 bytes on a 64-bit Linux, little endian) with the send
 * time, then each byte its own offset; no timestamp when the data is shorter. */
static void icmp_payload(const xb_netpeer *np, const xb_netpeer_echo *e, uint8_t *out)
{
	for (uint32_t i = 0; i < e->size; i++)
		out[i] = (uint8_t)i;
	if (e->size < 16)
		return;
	uint32_t hz = board_cpu_hz(np->b);
	uint64_t sec = e->due / hz;
	uint64_t usec = periph_muldiv(e->due % hz, 1000000u, hz);
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(sec >> (8 * i));
		out[8 + i] = (uint8_t)(usec >> (8 * i));
	}
}

/* The nonce ("xbnp" and the echo's index, big endian), then each byte its own offset. */
static void udp_payload(const xb_netpeer_echo *e, uint8_t *out)
{
	for (uint32_t i = 0; i < e->size; i++)
		out[i] = (uint8_t)i;
	memcpy(out, nonce_magic, 4);
	out[4] = (uint8_t)(e->nonce >> 24);
	out[5] = (uint8_t)(e->nonce >> 16);
	out[6] = (uint8_t)(e->nonce >> 8);
	out[7] = (uint8_t)e->nonce;
}

/* ---- Echo states ---- */

void netpeer_echo_failed(xb_netpeer *np, size_t i)
{
	xb_netpeer_echo *e = &np->echo[i];
	if (e->state != XB_NETPEER_WAITING && e->state != XB_NETPEER_SENT)
		return;
	if (e->out_done_set && e->out_status == 0)
		return; /* it reached the device; a reply may still come */
	e->state = XB_NETPEER_FAILED;
	np->outstanding--;
}

void netpeer_echo_sent(xb_netpeer *np, size_t i)
{
	xb_netpeer_echo *e = &np->echo[i];
	e->state = XB_NETPEER_SENT;
	e->sent_set = 1;
	e->sent = board_cycles(np->b);
}

void netpeer_echo_out_done(xb_netpeer *np, size_t i, int status, uint64_t cycle)
{
	xb_netpeer_echo *e = &np->echo[i];
	e->out_done_set = 1;
	e->out_done = cycle;
	e->out_status = status;
	netpeer_xip_now(np, &e->xip_out);
	board_trace_mark_echo(np->b);
	if (status && e->state == XB_NETPEER_SENT) {
		e->state = XB_NETPEER_FAILED;
		np->outstanding--;
	}
}

/* A reply for echo i with this payload arrived. */
static void echo_reply(xb_netpeer *np, size_t i, const uint8_t *data, size_t len, uint64_t cycle)
{
	xb_netpeer_echo *e = &np->echo[i];
	uint8_t want[XB_NETPEER_MAX_PAYLOAD];
	if (e->kind == XB_NETPEER_ICMP)
		icmp_payload(np, e, want);
	else
		udp_payload(e, want);
	if (len != e->size || memcmp(data, want, len) != 0 ||
	    (e->state != XB_NETPEER_SENT && e->state != XB_NETPEER_REPLIED)) {
		np->stats.unmatched++;
		return;
	}
	if (e->state == XB_NETPEER_REPLIED) {
		e->duplicates++;
		np->stats.duplicates++;
		return;
	}
	e->state = XB_NETPEER_REPLIED;
	e->reply = cycle;
	netpeer_xip_now(np, &e->xip_reply);
	np->outstanding--;
	np->stats.matched++;
	if (np->opt.echo)
		np->opt.echo(np->opt.echo_ctx, i);
}

/* ---- Matching ---- */

void netpeer_icmp_input(xb_netpeer *np, const xb_netpeer_packet *p, uint64_t cycle)
{
	if (p->icmp_type != 0 || p->icmp_code != 0 || memcmp(p->ip_src, np->opt.device_ip, 4)) {
		np->stats.rx_ignored++; /* not an echo reply from the device */
		return;
	}
	/* The newest series with this identifier; within it the latest request sent with this
	 * sequence number (they repeat every 65536). */
	for (size_t s = np->nseries; s-- > 0;) {
		const netpeer_series *se = np->series[s];
		if (se->kind != XB_NETPEER_ICMP || se->ping.id != p->icmp_id)
			continue;
		uint32_t k = (uint16_t)(p->icmp_seq - se->ping.seq);
		if (k >= se->next)
			continue;
		k += (se->next - 1 - k) / 65536u * 65536u;
		echo_reply(np, se->first + k, p->payload, p->payload_len, cycle);
		return;
	}
	if (np->opt.icmp) {
		np->stats.icmp_delivered++;
		np->opt.icmp(np->opt.icmp_ctx, p->icmp_id, p->icmp_seq, p->payload, p->payload_len,
			     cycle);
		return;
	}
	np->stats.unmatched++;
}

void netpeer_udp_input(xb_netpeer *np, const xb_netpeer_packet *p, uint64_t cycle)
{
	int traffic = 0;
	for (size_t s = 0; s < np->nseries && !traffic; s++)
		traffic = np->series[s]->kind == XB_NETPEER_UDP &&
			  np->series[s]->stream.sport == p->udp_dport;
	if (!traffic) {
		np->stats.udp_delivered++;
		if (np->opt.udp)
			np->opt.udp(np->opt.udp_ctx, p->udp_sport, p->udp_dport, p->payload,
				    p->payload_len, cycle);
		return;
	}
	const uint8_t *d = p->payload;
	if (p->payload_len < XB_NETPEER_NONCE || memcmp(d, nonce_magic, 4) != 0 ||
	    memcmp(p->ip_src, np->opt.device_ip, 4) != 0) {
		np->stats.unmatched++;
		return;
	}
	uint32_t nonce = (uint32_t)d[4] << 24 | (uint32_t)d[5] << 16 | (uint32_t)d[6] << 8 | d[7];
	const xb_netpeer_echo *e = nonce < np->nechoes ? &np->echo[nonce] : NULL;
	if (!e || e->kind != XB_NETPEER_UDP || e->sport != p->udp_dport ||
	    e->dport != p->udp_sport) {
		np->stats.unmatched++;
		return;
	}
	echo_reply(np, nonce, p->payload, p->payload_len, cycle);
}

/* ---- Series ---- */

static uint64_t series_due(const xb_netpeer *np, const netpeer_series *s, unsigned i)
{
	if (s->kind == XB_NETPEER_ICMP)
		return s->ping.start + (uint64_t)i * s->ping.interval;
	return s->stream.start + periph_muldiv(i, board_cpu_hz(np->b), s->stream.rate);
}

static unsigned series_count(const netpeer_series *s)
{
	return s->kind == XB_NETPEER_ICMP ? s->ping.count : s->stream.count;
}

static void series_event(xb_board *b, void *ctx);

static void series_schedule(xb_netpeer *np, netpeer_series *s)
{
	s->event = s->next < series_count(s)
			   ? board_schedule(np->b, series_due(np, s, s->next), series_event, s)
			   : 0;
}

static void series_event(xb_board *b, void *ctx)
{
	(void)b;
	netpeer_series *s = ctx;
	xb_netpeer *np = s->np;
	size_t i = s->first + s->next++;
	xb_netpeer_echo *e = &np->echo[i];
	e->state = XB_NETPEER_WAITING;
	np->outstanding++;
	xb_netpeer_addr self, device;
	netpeer_addrs(np, &self, &device);
	uint8_t data[XB_NETPEER_MAX_PAYLOAD], f[XB_NETPEER_MAX_FRAME];
	size_t n;
	if (e->kind == XB_NETPEER_ICMP) {
		icmp_payload(np, e, data);
		n = netpeer_build_icmp_echo(f, sizeof f, &self, &device, ++np->ip_id, 8, e->id,
					    e->seq, data, e->size);
	} else {
		udp_payload(e, data);
		n = netpeer_build_udp(f, sizeof f, &self, &device, ++np->ip_id, e->sport, e->dport,
				      data, e->size);
	}
	series_schedule(np, s); /* before sending: the wire may take a while to answer */
	netpeer_transmit(np, f, n, i);
}

static long series_add(xb_netpeer *np, netpeer_series *s)
{
	unsigned count = series_count(s);
	s->np = np;
	s->first = np->nechoes;
	xb_grow(&np->echo, &np->echo_cap, np->nechoes + count, sizeof *np->echo);
	for (unsigned i = 0; i < count; i++) {
		xb_netpeer_echo *e = &np->echo[np->nechoes + i];
		memset(e, 0, sizeof *e);
		e->kind = s->kind;
		e->due = series_due(np, s, i);
		if (s->kind == XB_NETPEER_ICMP) {
			e->id = s->ping.id;
			e->seq = (uint16_t)(s->ping.seq + i);
			e->size = s->ping.size;
		} else {
			e->sport = s->stream.sport;
			e->dport = s->stream.dport;
			e->nonce = (uint32_t)(np->nechoes + i);
			e->size = s->stream.size;
		}
	}
	np->nechoes += count;
	xb_grow(&np->series, &np->series_cap, np->nseries + 1, sizeof *np->series);
	np->series[np->nseries++] = s;
	series_schedule(np, s);
	return (long)s->first;
}

long netpeer_ping(xb_netpeer *np, const xb_netpeer_ping *p, xb_err *err)
{
	if (p->count < 1)
		return xb_fail(err, "a ping series needs at least one request");
	if (p->count > 1 && p->interval == 0)
		return xb_fail(err, "a ping series of %u requests needs an interval above 0",
			       p->count);
	if (p->size > XB_NETPEER_MAX_PAYLOAD)
		return xb_fail(err, "ping data of %u bytes does not fit in one frame (at most %u)",
			       p->size, XB_NETPEER_MAX_PAYLOAD);
	if (np->nechoes + p->count > UINT32_MAX)
		return xb_fail(err, "too many echoes for one peer");
	netpeer_series *s = xcalloc(1, sizeof *s);
	s->kind = XB_NETPEER_ICMP;
	s->ping = *p;
	return series_add(np, s);
}

long netpeer_udp_stream(xb_netpeer *np, const xb_netpeer_stream *st, xb_err *err)
{
	if (st->count < 1 || st->rate < 1)
		return xb_fail(err, "a UDP stream needs at least one datagram and a rate of at "
				    "least 1 per second");
	if (st->size < XB_NETPEER_NONCE || st->size > XB_NETPEER_MAX_PAYLOAD)
		return xb_fail(err, "UDP payload of %u bytes: it must hold the %u-byte nonce and fit "
				    "in one frame (%u to %u bytes)",
			       st->size, XB_NETPEER_NONCE, XB_NETPEER_NONCE, XB_NETPEER_MAX_PAYLOAD);
	if (st->sport == 0 || st->dport == 0)
		return xb_fail(err, "UDP ports must not be 0");
	if (np->nechoes + st->count > UINT32_MAX)
		return xb_fail(err, "too many echoes for one peer");
	netpeer_series *s = xcalloc(1, sizeof *s);
	s->kind = XB_NETPEER_UDP;
	s->stream = *st;
	return series_add(np, s);
}

int netpeer_traffic_done(const xb_netpeer *np)
{
	for (size_t s = 0; s < np->nseries; s++)
		if (np->series[s]->next < series_count(np->series[s]))
			return 0;
	return 1;
}

size_t netpeer_outstanding(const xb_netpeer *np)
{
	return np->outstanding;
}

size_t netpeer_echoes(const xb_netpeer *np)
{
	return np->nechoes;
}

const xb_netpeer_echo *netpeer_echo(const xb_netpeer *np, size_t i)
{
	return i < np->nechoes ? &np->echo[i] : NULL;
}

void netpeer_traffic_free(xb_netpeer *np)
{
	for (size_t s = 0; s < np->nseries; s++) {
		if (np->series[s]->event)
			board_cancel(np->b, np->series[s]->event);
		free(np->series[s]);
	}
	free(np->series);
	np->series = NULL;
	np->nseries = 0;
}

/* ---- Summaries ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double median_of(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, cmp_u64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

void netpeer_summarize(const xb_netpeer *np, size_t first, size_t n, xb_netpeer_summary *s)
{
	memset(s, 0, sizeof *s);
	if (first > np->nechoes)
		first = np->nechoes;
	if (n > np->nechoes - first)
		n = np->nechoes - first;
	uint64_t *turn = xmalloc((n ? n : 1) * sizeof *turn);
	uint64_t *rtt = xmalloc((n ? n : 1) * sizeof *rtt);
	size_t k = 0;
	for (size_t i = first; i < first + n; i++) {
		const xb_netpeer_echo *e = &np->echo[i];
		if (e->state == XB_NETPEER_SCHEDULED)
			continue;
		s->echoes++;
		s->duplicates += e->duplicates;
		if (e->state == XB_NETPEER_FAILED)
			s->failed++;
		if (e->sent_set)
			s->sent++;
		if (e->state != XB_NETPEER_REPLIED)
			continue;
		s->received++;
		if (!e->out_done_set)
			continue; /* a reply before the request's transfer ended: a test wire only */
		turn[k] = e->reply - e->out_done;
		rtt[k] = e->reply - e->sent;
		s->xip_accesses += e->xip_reply.accesses - e->xip_out.accesses;
		s->xip_misses += (e->xip_reply.accesses - e->xip_reply.hits) -
				 (e->xip_out.accesses - e->xip_out.hits);
		if (!k || turn[k] < s->turnaround_min)
			s->turnaround_min = turn[k];
		if (turn[k] > s->turnaround_max)
			s->turnaround_max = turn[k];
		if (!k || rtt[k] < s->rtt_min)
			s->rtt_min = rtt[k];
		if (rtt[k] > s->rtt_max)
			s->rtt_max = rtt[k];
		k++;
	}
	s->lost = s->echoes - s->received;
	s->timed = k;
	s->turnaround_median = median_of(turn, k);
	s->rtt_median = median_of(rtt, k);
	free(turn);
	free(rtt);
}
