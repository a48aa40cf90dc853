/* vbench: the virtual bench (see vbench.h). */
#include "vbench.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ecmhost.h"

struct xb_vbench {
	xb_pico *p;
	xb_board *b;
	uint32_t hz;
	xb_vbench_options o;
	xb_usbmon *mon;
	xb_usbhost *h;
	xb_netpeer *np;
	/* SET_CONFIGURATION seen in the usbmon records */
	uint64_t config_id, configured_ns;
	int config_pending, configured;
	void (*on_free)(void *ctx);
	void *on_free_ctx;
};

/* vbench_hook_next's one-shot hook */
static pthread_mutex_t hook_mu = PTHREAD_MUTEX_INITIALIZER;
static xb_vbench_hook_fn hook_fn;
static void *hook_ctx;

void vbench_hook_next(xb_vbench_hook_fn fn, void *ctx)
{
	pthread_mutex_lock(&hook_mu);
	hook_fn = fn;
	hook_ctx = ctx;
	pthread_mutex_unlock(&hook_mu);
}

void vbench_on_free(xb_vbench *v, void (*fn)(void *ctx), void *ctx)
{
	v->on_free = fn;
	v->on_free_ctx = ctx;
}

void vbench_options_init(xb_vbench_options *o)
{
	memset(o, 0, sizeof *o);
	netpeer_options_init(&o->peer);
}

/* Every usbmon record passes here: the completion of SET_CONFIGURATION is "enumerated". */
static void vbench_record(void *ctx, const uint8_t *rec, size_t len, uint64_t ns)
{
	xb_vbench *v = ctx;
	if (v->o.record)
		v->o.record(v->o.record_ctx, rec, len, ns);
	if (len < 64 || rec[9] != XB_USBMON_CONTROL)
		return;
	if (rec[8] == 'S' && rec[14] == 0 && rec[40] == 0x00 && rec[41] == 9) {
		memcpy(&v->config_id, rec, 8);
		v->config_pending = 1;
	} else if (rec[8] == 'C' && v->config_pending && memcmp(&v->config_id, rec, 8) == 0) {
		v->config_pending = 0;
		int32_t status;
		memcpy(&status, rec + 28, 4);
		if (status == 0) {
			v->configured = 1;
			v->configured_ns = ns;
		}
	}
}

xb_vbench *vbench_new(xb_pico *p, const xb_vbench_options *o)
{
	xb_vbench *v = xcalloc(1, sizeof *v);
	v->p = p;
	v->b = pico_board(p);
	v->hz = board_cpu_hz(v->b);
	if (o)
		v->o = *o;
	else
		vbench_options_init(&v->o);
	v->mon = usbmon_new(v->o.pcap, NULL);
	usbmon_set_record_fn(v->mon, vbench_record, v);
	v->h = usbhost_new(v->b, pico_usb(p), NULL);
	usbhost_set_monitor(v->h, v->mon);
	v->np = netpeer_new_ecm(v->b, v->h, NULL, &v->o.peer);
	pthread_mutex_lock(&hook_mu);
	xb_vbench_hook_fn fn = hook_fn;
	void *ctx = hook_ctx;
	hook_fn = NULL;
	hook_ctx = NULL;
	pthread_mutex_unlock(&hook_mu);
	if (fn)
		fn(ctx, v);
	return v;
}

void vbench_free(xb_vbench *v)
{
	if (!v)
		return;
	if (v->on_free)
		v->on_free(v->on_free_ctx);
	netpeer_free(v->np);
	usbhost_free(v->h);
	usbmon_free(v->mon);
	free(v);
}

xb_netpeer *vbench_peer(const xb_vbench *v) { return v->np; }
xb_usbhost *vbench_host(const xb_vbench *v) { return v->h; }
xb_usbmon *vbench_usbmon(const xb_vbench *v) { return v->mon; }
xb_board *vbench_board(const xb_vbench *v) { return v->b; }

int vbench_configured(const xb_vbench *v, uint64_t *ns)
{
	if (ns)
		*ns = v->configured_ns;
	return v->configured;
}

int vbench_run_to(xb_vbench *v, uint64_t at)
{
	uint64_t now = board_cycles(v->b);
	if (at <= now)
		return 0;
	enum xb_pico_stop s = v->o.run ? v->o.run(v->o.run_ctx, v->p, at - now)
				       : pico_run(v->p, at - now);
	return s == XB_PICO_HALTED || s == XB_PICO_LOCKUP ? -1 : 0;
}

int vbench_ready(const xb_vbench *v)
{
	return netpeer_link(v->np) && netpeer_device_mac(v->np) != NULL;
}

int vbench_bring_up(xb_vbench *v, uint64_t timeout, xb_err *err)
{
	uint64_t deadline = board_cycles(v->b) + timeout, ms = v->hz / 1000;
	while (!vbench_ready(v) && board_cycles(v->b) < deadline) {
		uint64_t left = deadline - board_cycles(v->b);
		if (vbench_run_to(v, board_cycles(v->b) + (left < ms ? left : ms)))
			break;
	}
	if (vbench_ready(v))
		return 0;
	const char *cls = netpeer_usb_class(v->np);
	char trouble[256];
	int why = netpeer_usb_trouble(v->np, trouble, sizeof trouble);
	return xb_fail(err, "USB %s, %s %s, link %s, device %s%s%s",
		       usbhost_state_name(usbhost_state(v->h)), cls ? cls : "CDC-ECM/RNDIS/NCM",
		       cls ? "up" : "not up",
		       netpeer_link(v->np) ? "up" : "down",
		       netpeer_link(v->np) ? "did not answer ARP" : "not reached",
		       why ? "; " : "", why ? trouble : "");
}

/* ---- Windows ---- */

static void snap_event(xb_board *b, void *ctx)
{
	board_counters(b, ctx);
}

/* The window edges: the counters, and a mark in the fetch trace (if one is recorded) so
 * that a replay of the trace can count as the measurement does. */
static void snap_idle(xb_board *b, void *ctx)
{
	board_trace_mark(b, XB_TRACE_MARK_IDLE);
	snap_event(b, ctx);
}

static void snap_traffic(xb_board *b, void *ctx)
{
	board_trace_mark(b, XB_TRACE_MARK_TRAFFIC);
	snap_event(b, ctx);
}

static void snap_end(xb_board *b, void *ctx)
{
	board_trace_mark(b, XB_TRACE_MARK_END);
	snap_event(b, ctx);
}

uint64_t vbench_settled(const xb_vbench *v)
{
	uint64_t ms = v->hz / 1000, now = board_cycles(v->b);
	return (now + ms - 1) / ms * ms + VBENCH_SETTLE_MS * ms;
}

void vbench_phase_window(xb_vbench_phase *ph, uint32_t cpu_hz)
{
	if (ph->kind == XB_NETPEER_ICMP)
		ph->window = ph->interval * ph->count;
	else if (ph->rate)
		ph->window = (uint64_t)((unsigned __int128)ph->count * cpu_hz / ph->rate);
}

int vbench_phase_start(xb_vbench *v, xb_vbench_phase *ph, xb_err *err)
{
	ph->idle_start = vbench_settled(v);
	ph->start = ph->no_idle ? ph->idle_start : ph->idle_start + ph->window;
	if (!ph->no_idle)
		board_schedule(v->b, ph->idle_start, snap_idle, &ph->idle);
	board_schedule(v->b, ph->start, snap_traffic, &ph->traffic);
	board_schedule(v->b, ph->start + ph->window, snap_end, &ph->end);
	if (ph->kind == XB_NETPEER_ICMP) {
		xb_netpeer_ping pg = {.start = ph->start, .interval = ph->interval, .count = ph->count,
				      .size = ph->size, .id = VBENCH_PING_ID, .seq = 0};
		ph->first = netpeer_ping(v->np, &pg, err);
	} else {
		xb_netpeer_stream st = {.start = ph->start, .rate = ph->rate, .count = ph->count,
					.size = ph->size, .sport = VBENCH_UDP_SPORT,
					.dport = ph->port};
		ph->first = netpeer_udp_stream(v->np, &st, err);
	}
	if (ph->first < 0)
		return -1;
	netpeer_stats(v->np, &ph->before);
	return 0;
}

int vbench_phase_finish(xb_vbench *v, xb_vbench_phase *ph, xb_err *err)
{
	uint64_t ms = v->hz / 1000;
	int stopped = vbench_run_to(v, ph->start + ph->window);
	uint64_t drain_end = ph->start + ph->window + VBENCH_DRAIN_MS * ms;
	while (!stopped && (!netpeer_traffic_done(v->np) || netpeer_outstanding(v->np)) &&
	       board_cycles(v->b) < drain_end)
		stopped = vbench_run_to(v, board_cycles(v->b) + ms);
	xb_netpeer_stats after;
	netpeer_stats(v->np, &after);
	ph->ran = 1;
	ph->unmatched = after.unmatched - ph->before.unmatched;
	netpeer_summarize(v->np, (size_t)ph->first, ph->count, &ph->sum);
	if (stopped)
		return xb_fail(err, "the core %s during the traffic",
			       board_locked_up(v->b) ? "locked up" : "halted");
	return 0;
}

int vbench_phase_run(xb_vbench *v, xb_vbench_phase *ph, xb_err *err)
{
	if (vbench_phase_start(v, ph, err))
		return -1;
	return vbench_phase_finish(v, ph, err);
}

uint64_t vbench_traffic_misses(const xb_vbench_phase *ph)
{
	return ph->end.xip_misses - ph->traffic.xip_misses;
}

uint64_t vbench_idle_misses(const xb_vbench_phase *ph)
{
	return ph->no_idle ? 0 : ph->traffic.xip_misses - ph->idle.xip_misses;
}


double vbench_misses_per_echo(const xb_vbench_phase *ph)
{
	double traffic = (double)vbench_traffic_misses(ph);
	double idle = (double)vbench_idle_misses(ph);
	return ph->count ? (traffic - idle) / ph->count : 0;
}

double vbench_echo_rate(const xb_vbench *v, const xb_vbench_phase *ph)
{
	return ph->window ? (double)ph->sum.received * v->hz / (double)ph->window : 0;
}
