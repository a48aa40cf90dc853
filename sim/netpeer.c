/* netpeer: the network peer's wire side: the CDC-ECM glue, received frames, ARP (answers,
 * resolution with retries, the queue of frames waiting for it) and sending. */
#include <stdlib.h>
#include <string.h>

#include "netpeer_int.h"

static const uint8_t broadcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
static const uint8_t default_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};

void netpeer_options_init(xb_netpeer_options *o)
{
	memset(o, 0, sizeof *o);
	static const uint8_t ip[4] = {192, 0, 2, 2}, device_ip[4] = {192, 0, 2, 1};
	memcpy(o->ip, ip, 4);
	memcpy(o->device_ip, device_ip, 4);
	o->arp_retry_ms = 1000;
	o->arp_tries = 3;
	o->arp_queue = 100;
	static const uint8_t mask[4] = {255, 255, 255, 0};
	memcpy(o->netmask, mask, 4);
	o->dhcp_tries = 4;
}

static int mac_is_zero(const uint8_t *m)
{
	static const uint8_t zero[6];
	return memcmp(m, zero, 6) == 0;
}

xb_netpeer *netpeer_new(xb_board *b, const xb_netpeer_wire *w, const xb_netpeer_options *o)
{
	xb_netpeer *np = xcalloc(1, sizeof *np);
	np->b = b;
	np->wire = *w;
	if (o)
		np->opt = *o;
	else
		netpeer_options_init(&np->opt);
	if (!np->opt.arp_tries)
		np->opt.arp_tries = 1;
	if (!np->opt.arp_queue)
		np->opt.arp_queue = 1;
	if (!np->opt.arp_retry_ms)
		np->opt.arp_retry_ms = 1;
	if (!np->opt.dhcp_tries)
		np->opt.dhcp_tries = 4;
	static const uint8_t zero4[4], mask24[4] = {255, 255, 255, 0};
	if (memcmp(np->opt.netmask, zero4, 4) == 0)
		memcpy(np->opt.netmask, mask24, 4);
	memcpy(np->mac, mac_is_zero(np->opt.mac) ? default_mac : np->opt.mac, 6);
	np->pending = xcalloc(np->opt.arp_queue, sizeof *np->pending);
	return np;
}

/* ---- The CDC-ECM wire ---- */

/* The three class drivers sit side by side on the host; the one that bound the device
 * carries the frames. */
static int ecm_wire_send(void *ctx, const uint8_t *frame, size_t len)
{
	xb_netpeer *np = ctx;
	if (rndishost_up(np->rndis))
		return rndishost_send(np->rndis, frame, len);
	if (ncmhost_up(np->ncm))
		return ncmhost_send(np->ncm, frame, len);
	return ecmhost_send(np->ecm, frame, len);
}

static const uint8_t *ecm_wire_mac(void *ctx)
{
	xb_netpeer *np = ctx;
	if (rndishost_up(np->rndis))
		return rndishost_mac(np->rndis);
	if (ncmhost_up(np->ncm))
		return ncmhost_mac(np->ncm);
	return ecmhost_mac(np->ecm);
}

static void ecm_rx(void *ctx, const uint8_t *frame, size_t len, uint64_t cycle)
{
	netpeer_wire_input(ctx, frame, len, cycle);
}

static void ecm_link(void *ctx, int up)
{
	netpeer_wire_link(ctx, up);
}

static void ecm_tx_done(void *ctx, size_t len, int status, uint64_t cycle)
{
	(void)len;
	netpeer_wire_sent(ctx, status, cycle);
}

xb_netpeer *netpeer_new_ecm(xb_board *b, xb_usbhost *h, const xb_ecmhost_options *eo,
			    const xb_netpeer_options *o)
{
	xb_netpeer_wire w = {.send = ecm_wire_send, .mac = ecm_wire_mac};
	xb_netpeer *np = netpeer_new(b, &w, o);
	xb_ecmhost_options e;
	if (eo)
		e = *eo;
	else
		memset(&e, 0, sizeof e);
	e.rx = ecm_rx;
	e.rx_ctx = np;
	e.link = ecm_link;
	e.link_ctx = np;
	e.tx_done = ecm_tx_done;
	e.tx_ctx = np;
	np->ecm = ecmhost_new(h, &e);
	np->rndis = rndishost_new(h, &e);
	np->ncm = ncmhost_new(h, &e);
	np->wire.ctx = np;
	return np;
}

xb_ecmhost *netpeer_ecm(const xb_netpeer *np)
{
	return np->ecm;
}

xb_rndishost *netpeer_rndis(const xb_netpeer *np)
{
	return np->rndis;
}

xb_ncmhost *netpeer_ncm(const xb_netpeer *np)
{
	return np->ncm;
}

const char *netpeer_usb_class(const xb_netpeer *np)
{
	if (!np->ecm)
		return NULL;
	if (rndishost_up(np->rndis))
		return "RNDIS";
	if (ncmhost_up(np->ncm))
		return "CDC-NCM";
	if (ecmhost_up(np->ecm))
		return "CDC-ECM";
	return NULL;
}

int netpeer_usb_trouble(const xb_netpeer *np, char *out, size_t n)
{
	if (!np->ecm)
		return 0;
	return ecmhost_trouble(np->ecm, out, n) || rndishost_trouble(np->rndis, out, n) ||
	       ncmhost_trouble(np->ncm, out, n);
}

/* ---- Frames waiting for ARP, frames in flight ---- */

static void pending_drop_all(xb_netpeer *np)
{
	while (np->pending_count) {
		netpeer_pending *q = &np->pending[np->pending_head];
		np->pending_head = (np->pending_head + 1) % np->opt.arp_queue;
		np->pending_count--;
		np->stats.arp_dropped++;
		if (NETPEER_IS_ECHO(q->echo))
			netpeer_echo_failed(np, q->echo);
		free(q->frame);
		q->frame = NULL;
	}
	np->pending_head = 0;
}

static void inflight_push(xb_netpeer *np, size_t echo)
{
	if (np->inflight_count == np->inflight_cap) {
		size_t cap = np->inflight_cap ? 2 * np->inflight_cap : 16;
		size_t *n = xmalloc(cap * sizeof *n);
		for (size_t i = 0; i < np->inflight_count; i++)
			n[i] = np->inflight[(np->inflight_head + i) % np->inflight_cap];
		free(np->inflight);
		np->inflight = n;
		np->inflight_cap = cap;
		np->inflight_head = 0;
	}
	np->inflight[(np->inflight_head + np->inflight_count) % np->inflight_cap] = echo;
	np->inflight_count++;
}

/* The link went down: frames in flight will never be reported. */
static void inflight_clear(xb_netpeer *np)
{
	while (np->inflight_count) {
		size_t echo = np->inflight[np->inflight_head];
		np->inflight_head = (np->inflight_head + 1) % np->inflight_cap;
		np->inflight_count--;
		if (NETPEER_IS_ECHO(echo))
			netpeer_echo_failed(np, echo);
	}
	np->inflight_head = 0;
}

void netpeer_wire_sent(xb_netpeer *np, int status, uint64_t cycle)
{
	if (!np->inflight_count)
		return; /* a frame from before the link went down */
	size_t echo = np->inflight[np->inflight_head];
	np->inflight_head = (np->inflight_head + 1) % np->inflight_cap;
	np->inflight_count--;
	if (status)
		np->stats.tx_errors++;
	if (NETPEER_IS_ECHO(echo))
		netpeer_echo_out_done(np, echo, status, cycle);
	else if (echo == NETPEER_MARK_ECHO)
		board_trace_mark_echo(np->b);
}

/* Hands a complete frame to the wire. */
static int wire_send(xb_netpeer *np, const uint8_t *frame, size_t len, size_t echo)
{
	if (!np->link || np->wire.send(np->wire.ctx, frame, len) != 0) {
		np->stats.tx_refused++;
		if (NETPEER_IS_ECHO(echo))
			netpeer_echo_failed(np, echo);
		return -1;
	}
	np->stats.tx_frames++;
	inflight_push(np, echo);
	if (NETPEER_IS_ECHO(echo))
		netpeer_echo_sent(np, echo);
	return 0;
}

/* ---- ARP ---- */

static void arp_send(xb_netpeer *np, uint16_t op, const uint8_t *tha, const uint8_t *tpa,
		     const uint8_t *eth_dst)
{
	xb_netpeer_addr self, target;
	memcpy(self.mac, np->mac, 6);
	memcpy(self.ip, np->opt.ip, 4);
	memcpy(target.mac, tha, 6);
	memcpy(target.ip, tpa, 4);
	uint8_t f[XB_NETPEER_ARP_FRAME];
	size_t n = netpeer_build_arp(f, sizeof f, op, &self, &target, eth_dst);
	if (wire_send(np, f, n, NETPEER_NO_ECHO) == 0) {
		if (op == 1)
			np->stats.arp_requests++;
		else
			np->stats.arp_replies++;
	}
}

static void arp_request(xb_netpeer *np)
{
	static const uint8_t unknown[6];
	np->arp_tries++;
	arp_send(np, 1, unknown, np->opt.device_ip, broadcast);
}

static void arp_retry_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_netpeer *np = ctx;
	np->arp_event = 0;
	if (np->arp_state != NETPEER_ARP_RESOLVING)
		return;
	if (np->arp_tries >= np->opt.arp_tries) {
		np->arp_state = NETPEER_ARP_NONE;
		np->stats.arp_failures++;
		pending_drop_all(np);
		return;
	}
	arp_request(np);
	np->arp_event = board_schedule(np->b,
				       board_cycles(np->b) +
					       (uint64_t)np->opt.arp_retry_ms * board_cpu_hz(np->b) / 1000,
				       arp_retry_event, np);
}

void netpeer_resolve(xb_netpeer *np)
{
	if (!np->link || np->arp_state != NETPEER_ARP_NONE)
		return;
	np->arp_state = NETPEER_ARP_RESOLVING;
	np->arp_tries = 0;
	arp_request(np);
	np->arp_event = board_schedule(np->b,
				       board_cycles(np->b) +
					       (uint64_t)np->opt.arp_retry_ms * board_cpu_hz(np->b) / 1000,
				       arp_retry_event, np);
}

/* The device's MAC address is known (again): frames that waited go, in order. */
static void arp_learn(xb_netpeer *np, const uint8_t *mac, uint64_t cycle)
{
	if (np->arp_state != NETPEER_ARP_VALID || memcmp(np->device_mac, mac, 6) != 0)
		np->resolved_cycle = cycle;
	memcpy(np->device_mac, mac, 6);
	np->arp_state = NETPEER_ARP_VALID;
	if (np->arp_event) {
		board_cancel(np->b, np->arp_event);
		np->arp_event = 0;
	}
	while (np->pending_count && np->link) {
		netpeer_pending q = np->pending[np->pending_head];
		np->pending[np->pending_head].frame = NULL;
		np->pending_head = (np->pending_head + 1) % np->opt.arp_queue;
		np->pending_count--;
		memcpy(q.frame, np->device_mac, 6);
		wire_send(np, q.frame, q.len, q.echo);
		free(q.frame);
	}
}

static void arp_input(xb_netpeer *np, const xb_netpeer_packet *p, uint64_t cycle)
{
	np->stats.rx_arp++;
	int from_device = memcmp(p->arp_spa, np->opt.device_ip, 4) == 0 &&
			  !(p->arp_sha[0] & 1) && !mac_is_zero(p->arp_sha);
	int for_us = memcmp(p->arp_tpa, np->opt.ip, 4) == 0;
	if (p->arp_op == 1 && for_us) {
		/* Linux creates the sender's entry from a request for its own address. */
		if (from_device)
			arp_learn(np, p->arp_sha, cycle);
		arp_send(np, 2, p->arp_sha, p->arp_spa, p->arp_sha);
		return;
	}
	if (from_device && np->arp_state != NETPEER_ARP_NONE &&
	    (p->arp_op == 2 || p->arp_op == 1))
		arp_learn(np, p->arp_sha, cycle);
	else if (!for_us)
		np->stats.rx_ignored++;
}

/* ---- Sending ---- */

int netpeer_transmit(xb_netpeer *np, const uint8_t *frame, size_t len, size_t echo)
{
	if (!np->link) {
		np->stats.tx_refused++;
		if (NETPEER_IS_ECHO(echo))
			netpeer_echo_failed(np, echo);
		return -1;
	}
	if (np->arp_state == NETPEER_ARP_VALID) {
		uint8_t f[XB_NETPEER_MAX_FRAME];
		memcpy(f, frame, len);
		memcpy(f, np->device_mac, 6);
		return wire_send(np, f, len, echo);
	}
	if (np->pending_count == np->opt.arp_queue) { /* Linux drops the oldest */
		netpeer_pending *old = &np->pending[np->pending_head];
		np->stats.arp_dropped++;
		if (NETPEER_IS_ECHO(old->echo))
			netpeer_echo_failed(np, old->echo);
		free(old->frame);
		old->frame = NULL;
		np->pending_head = (np->pending_head + 1) % np->opt.arp_queue;
		np->pending_count--;
	}
	netpeer_pending *q = &np->pending[(np->pending_head + np->pending_count) % np->opt.arp_queue];
	q->frame = xmalloc(len);
	memcpy(q->frame, frame, len);
	q->len = len;
	q->echo = echo;
	np->pending_count++;
	netpeer_resolve(np);
	return 0;
}

void netpeer_addrs(const xb_netpeer *np, xb_netpeer_addr *self, xb_netpeer_addr *device)
{
	memcpy(self->mac, np->mac, 6);
	memcpy(self->ip, np->opt.ip, 4);
	if (np->arp_state == NETPEER_ARP_VALID)
		memcpy(device->mac, np->device_mac, 6);
	else
		memset(device->mac, 0, 6);
	memcpy(device->ip, np->opt.device_ip, 4);
}

void netpeer_xip_now(const xb_netpeer *np, xb_netpeer_xip *x)
{
	xb_board_counters k;
	board_counters(np->b, &k);
	x->accesses = k.xip_accesses;
	x->hits = k.xip_hits;
}

/* A request sent on its own (no echo-table entry): the frame of a UDP datagram (kind
 * XB_NETPEER_UDP: a = sport, b = dport) or an ICMP echo request (a = id, b = seq). */
static int send_request(xb_netpeer *np, int kind, uint16_t a, uint16_t b, const uint8_t *data,
			size_t len)
{
	if (!np->link || len > XB_NETPEER_MAX_PAYLOAD) {
		np->stats.tx_refused++;
		return -1;
	}
	xb_netpeer_addr self, device;
	netpeer_addrs(np, &self, &device);
	uint8_t f[XB_NETPEER_MAX_FRAME];
	size_t n = kind == XB_NETPEER_UDP
			   ? netpeer_build_udp(f, sizeof f, &self, &device, ++np->ip_id, a, b, data, len)
			   : netpeer_build_icmp_echo(f, sizeof f, &self, &device, ++np->ip_id, 8, a, b,
						     data, len);
	return netpeer_transmit(np, f, n, NETPEER_MARK_ECHO);
}

int netpeer_send_udp(xb_netpeer *np, uint16_t sport, uint16_t dport, const uint8_t *data,
		     size_t len)
{
	return send_request(np, XB_NETPEER_UDP, sport, dport, data, len);
}

int netpeer_send_ping(xb_netpeer *np, uint16_t id, uint16_t seq, const uint8_t *data, size_t len)
{
	return send_request(np, XB_NETPEER_ICMP, id, seq, data, len);
}

void netpeer_set_frame_fn(xb_netpeer *np, xb_netpeer_frame_fn fn, void *ctx)
{
	np->frame_fn = fn;
	np->frame_ctx = fn ? ctx : NULL;
}

int netpeer_send_frame(xb_netpeer *np, const uint8_t *frame, size_t len)
{
	if (!np->link || len < XB_NETPEER_ETH_HLEN || len > XB_NETPEER_MAX_FRAME ||
	    np->wire.send(np->wire.ctx, frame, len) != 0)
		return -1;
	inflight_push(np, NETPEER_NO_ECHO); /* its completion is reported in order */
	return 0;
}

/* ---- Receiving ---- */

/* IPv6 from the device (lwIP's and Zephyr's stacks send router solicitations, duplicate
 * address detection and MLD reports as soon as the link is up): counted and dropped, as a
 * host whose usb0 has no IPv6 address on that link does (a router solicitation is for
 * routers; a DAD solicitation for a tentative address is answered only by its owner). */
static void ipv6_input(xb_netpeer *np, const uint8_t *frame, size_t len)
{
	np->stats.rx_ipv6++;
	const uint8_t *ip = frame + XB_NETPEER_ETH_HLEN;
	size_t n = len - XB_NETPEER_ETH_HLEN;
	if (n < 40 || ip[0] >> 4 != 6) {
		np->stats.ipv6_other++;
		return;
	}
	uint8_t next = ip[6];
	const uint8_t *l4 = ip + 40;
	size_t left = n - 40;
	if (next == 0 && left >= 8) { /* hop-by-hop options (MLD's router alert) */
		size_t hl = 8u * (l4[1] + 1u);
		next = l4[0];
		if (hl > left) {
			np->stats.ipv6_other++;
			return;
		}
		l4 += hl;
		left -= hl;
	}
	if (next != 58 || left < 4) {
		np->stats.ipv6_other++;
		return;
	}
	switch (l4[0]) {
	case 133: np->stats.ipv6_rs++; break;
	case 135: np->stats.ipv6_ns++; break;
	case 136: np->stats.ipv6_na++; break;
	case 130: case 131: case 132: case 143: np->stats.ipv6_mld++; break;
	default: np->stats.ipv6_other++; break;
	}
}

void netpeer_wire_input(xb_netpeer *np, const uint8_t *frame, size_t len, uint64_t cycle)
{
	if (np->frame_fn)
		np->frame_fn(np->frame_ctx, frame, len, cycle);
	np->stats.rx_frames++;
	if (len >= XB_NETPEER_ETH_HLEN && frame[12] == 0x86 && frame[13] == 0xDD) {
		ipv6_input(np, frame, len);
		return;
	}
	xb_netpeer_packet p;
	enum xb_netpeer_parse r = netpeer_parse(frame, len, &p);
	if (r == XB_NETPEER_PARSE_ETHERTYPE || r == XB_NETPEER_PARSE_PROTOCOL) {
		np->stats.rx_ignored++;
		return;
	}
	if (memcmp(p.eth_dst, np->mac, 6) != 0 && memcmp(p.eth_dst, broadcast, 6) != 0) {
		np->stats.rx_ignored++; /* another station's, or multicast */
		return;
	}
	if (r != XB_NETPEER_PARSE_OK) {
		np->stats.rx_errors++;
		return;
	}
	if (p.kind == XB_NETPEER_ARP) {
		arp_input(np, &p, cycle);
		return;
	}
	if (p.kind == XB_NETPEER_UDP && p.udp_dport == 68 && p.udp_sport == 67) {
		np->stats.rx_udp++;
		netpeer_dhcp_input(np, &p); /* broadcast or to the address being offered */
		return;
	}
	if (memcmp(p.ip_dst, np->opt.ip, 4) != 0) {
		np->stats.rx_ignored++;
		return;
	}
	if (p.kind == XB_NETPEER_ICMP) {
		np->stats.rx_icmp++;
		netpeer_icmp_input(np, &p, cycle);
	} else {
		np->stats.rx_udp++;
		netpeer_udp_input(np, &p, cycle);
	}
}

void netpeer_wire_link(xb_netpeer *np, int up)
{
	if (up == np->link)
		return;
	np->link = up;
	if (!up) {
		if (np->arp_event)
			board_cancel(np->b, np->arp_event);
		np->arp_event = 0;
		np->arp_state = NETPEER_ARP_NONE;
		netpeer_dhcp_stop(np);
		pending_drop_all(np);
		inflight_clear(np);
		return;
	}
	np->link_cycle = board_cycles(np->b);
	const uint8_t *m = np->wire.mac ? np->wire.mac(np->wire.ctx) : NULL;
	if (mac_is_zero(np->opt.mac) && m)
		memcpy(np->mac, m, 6);
	if (!netpeer_dhcp_link_up(np)) /* with DHCP, ARP waits for the lease */
		netpeer_resolve(np);
}

/* ---- State ---- */

const uint8_t *netpeer_mac(const xb_netpeer *np)
{
	return np->mac;
}

const uint8_t *netpeer_ip(const xb_netpeer *np)
{
	return np->opt.ip;
}

const uint8_t *netpeer_device_ip(const xb_netpeer *np)
{
	return np->opt.device_ip;
}

int netpeer_link(const xb_netpeer *np)
{
	return np->link;
}

uint64_t netpeer_link_cycle(const xb_netpeer *np)
{
	return np->link_cycle;
}

const uint8_t *netpeer_device_mac(const xb_netpeer *np)
{
	return np->arp_state == NETPEER_ARP_VALID ? np->device_mac : NULL;
}

uint64_t netpeer_resolved_cycle(const xb_netpeer *np)
{
	return np->resolved_cycle;
}

void netpeer_stats(const xb_netpeer *np, xb_netpeer_stats *out)
{
	*out = np->stats;
}

void netpeer_free(xb_netpeer *np)
{
	if (!np)
		return;
	if (np->arp_event)
		board_cancel(np->b, np->arp_event);
	netpeer_dhcp_stop(np);
	netpeer_traffic_free(np);
	if (np->ecm) {
		/* Their URBs are unlinked; nothing they report may reach the peer any more. */
		ecmhost_free(np->ecm);
		rndishost_free(np->rndis);
		ncmhost_free(np->ncm);
	}
	for (size_t i = 0; i < np->pending_count; i++)
		free(np->pending[(np->pending_head + i) % np->opt.arp_queue].frame);
	free(np->pending);
	free(np->inflight);
	free(np->echo);
	free(np);
}
