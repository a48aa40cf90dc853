/* bench_virtual: the virtual Pico as a bench: the board, its USB host and network peer and
 * its CMSIS-DAP probe, reached only the way a real bench is reached (probe packets,
 * usbmon records, echo traffic, the console). Live, the board runs in a thread of its own,
 * paced to the wall clock (sim/pacer.h), and the probe speaks over a socketpair; in
 * virtual time everything runs in the caller's thread, as fast as it can, reproducibly. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../sim/board.h"
#include "../sim/dap.h"
#include "../sim/ecmhost.h"
#include "../sim/netpeer.h"
#include "../sim/pacer.h"
#include "../sim/pico.h"
#include "../sim/swd.h"
#include "../sim/usbmon.h"
#include "../sim/vbench.h"
#include "bench.h"

#define VB_CMDS 8192u           /* commands waiting for the board thread */
#define VB_RECORD_RING (16u << 20) /* bytes of usbmon records waiting for the session */
#define VB_CONSOLE_RING 65536u
#define VB_REPLIES 4096u
#define VB_VIEW_EVERY_NS 50000000u /* the cache view is published at most this often */

static const xb_bench_ops bench_virtual_ops;

enum { CMD_SEND_PING = 1, CMD_SEND_UDP, CMD_CONTROL, CMD_ADOPT, CMD_TRACE, CMD_STOP };

typedef struct vb_cmd {
	uint8_t kind;
	char what[16];
	double value, value2;
	uint64_t at;   /* board cycle */
	uint16_t a, b;
	int fd;
	uint16_t len;
	uint8_t *data; /* a send's payload (malloc'd; the command owns it) */
} vb_cmd;

typedef struct bench_virtual bench_virtual;

/* The largest fetch trace recorded unless the options say (60 pings of a polling TinyUSB
 * firmware made 289 MB); trace_failed says VB_TRACE_TOO_BIG when it stopped there. */
#define VB_TRACE_MAX ((uint64_t)4 << 30)
#define VB_TRACE_TOO_BIG 2
#define VB_TRACE_CHECK 1000000u /* cycles between looks at the trace's size (8 ms) */

/* A send scheduled on the board at its exact cycle (in the bench's list until it runs). */
typedef struct vb_send {
	bench_virtual *v;
	uint64_t event;
	uint8_t kind;
	uint16_t a, b;
	uint16_t len;
	uint8_t *data;
	struct vb_send *prev, *next;
} vb_send;

/* A byte ring (records, console). */
typedef struct vb_ring {
	uint8_t *buf;
	size_t cap, head, len;
} vb_ring;

struct bench_virtual {
	xb_bench base;
	xb_virtual_options o;
	uint32_t hz;
	/* the board side (the board thread's, or the caller's in virtual time) */
	xb_pico *p;
	xb_board *b;
	xb_swd *swd;
	xb_dap *dap;
	xb_vbench *vb;
	xb_dap_server *srv;
	FILE *trace_f;
	xb_trace_stream ts;
	int tracing;
	int trace_failed; /* the last trace could not be written (published with the state) */
	uint64_t trace_check; /* the board event that looks at the trace's size (0: none) */
	vb_send *sends;  /* scheduled, not sent yet */
	xb_pacer pacer;
	uint64_t unplugged_until; /* board cycle before which the probe refuses connections */
	uint64_t view_ns;
	int live;
	/* the thread and what crosses it */
	pthread_t thread;
	int thread_started;
	pthread_mutex_t mu;
	int board_wake;   /* eventfd: commands for the board thread */
	int session_wake; /* eventfd: data for the session */
	int session_signalled;
	vb_cmd *cmds;
	size_t ncmds;
	vb_ring records, console;
	uint64_t records_lost, console_lost, replies_lost, sends_lost;
	xb_bench_reply *replies;
	uint8_t *reply_data; /* VB_REPLIES * reply_keep */
	size_t rhead, rlen;
	xb_bench_state st;          /* published */
	int64_t *view_tags;         /* published cache view */
	uint64_t *view_misses;
	int view_wanted;
	atomic_uint_fast64_t cycles; /* published board time */
	atomic_uint_fast64_t horizon; /* board cycle the board thread stops at (set_horizon) */
	/* virtual time: the probe's connection, cut by the DROP trick */
	unsigned probe_gen, probe_cut_gen;
	/* session side scratch */
	uint8_t *scratch;
	size_t scratch_cap;
	xb_bench_reply *taken; /* replies handed out by the last read_replies */
	size_t ntaken;
};

static uint64_t wall_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t ns_of(const bench_virtual *v, uint64_t cycles)
{
	return (uint64_t)((unsigned __int128)cycles * 1000000000u / v->hz);
}

static uint64_t cycles_of(const bench_virtual *v, uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * v->hz / 1000000000u);
}

static void lock(bench_virtual *v)
{
	pthread_mutex_lock(&v->mu);
}

static void unlock(bench_virtual *v)
{
	pthread_mutex_unlock(&v->mu);
}

static void wake(int fd)
{
	uint64_t one = 1;
	if (fd >= 0 && write(fd, &one, sizeof one) < 0) {
		/* the counter is full: the reader is already woken */
	}
}

static void drain_wake(int fd)
{
	uint64_t n;
	if (fd >= 0 && read(fd, &n, sizeof n) < 0) {
		/* EAGAIN: nothing was signalled */
	}
}

/* Under the lock: wakes the session once until it reads. */
static void signal_session(bench_virtual *v)
{
	if (!v->session_signalled) {
		v->session_signalled = 1;
		wake(v->session_wake);
	}
}

/* ---- Rings (under the lock) ---- */

static int ring_put(vb_ring *r, const void *p, size_t n)
{
	if (r->cap - r->len < n)
		return -1;
	const uint8_t *s = p;
	for (size_t i = 0; i < n; i++)
		r->buf[(r->head + r->len + i) % r->cap] = s[i];
	r->len += n;
	return 0;
}

static size_t ring_get(vb_ring *r, void *p, size_t n)
{
	if (n > r->len)
		n = r->len;
	uint8_t *d = p;
	for (size_t i = 0; i < n; i++)
		d[i] = r->buf[(r->head + i) % r->cap];
	r->head = (r->head + n) % r->cap;
	r->len -= n;
	return n;
}

/* ---- Board side: what the board's own thread does ---- */

static void on_record(void *ctx, const uint8_t *rec, size_t len, uint64_t ns)
{
	bench_virtual *v = ctx;
	uint32_t n = (uint32_t)len;
	lock(v);
	if (v->records.cap - v->records.len < sizeof n + sizeof ns + len) {
		v->records_lost++;
	} else {
		ring_put(&v->records, &n, sizeof n);
		ring_put(&v->records, &ns, sizeof ns);
		ring_put(&v->records, rec, len);
		signal_session(v);
	}
	unlock(v);
}

static void on_uart(void *ctx, uint8_t byte)
{
	bench_virtual *v = ctx;
	if (v->o.uart) {
		fputc(byte, v->o.uart);
		if (byte == '\n')
			fflush(v->o.uart);
	}
	lock(v);
	if (ring_put(&v->console, &byte, 1) != 0)
		v->console_lost++;
	else
		signal_session(v);
	unlock(v);
}

static void push_reply(bench_virtual *v, const xb_bench_reply *r, const uint8_t *data, size_t len)
{
	lock(v);
	if (v->rlen == VB_REPLIES) {
		v->replies_lost++;
	} else {
		size_t slot = (v->rhead + v->rlen) % VB_REPLIES;
		v->replies[slot] = *r;
		if (v->o.reply_keep) {
			size_t k = len < v->o.reply_keep ? len : v->o.reply_keep;
			memcpy(v->reply_data + slot * v->o.reply_keep, data, k);
		}
		v->rlen++;
		signal_session(v);
	}
	unlock(v);
}

static void fill_reply(xb_bench_reply *r, const uint8_t *data, size_t len, uint64_t ns)
{
	r->len = (uint32_t)len;
	memcpy(r->data, data, len < sizeof r->data ? len : sizeof r->data);
	r->t_ns = ns;
	r->full = NULL;
}

static void on_udp(void *ctx, uint16_t sport, uint16_t dport, const uint8_t *data, size_t len,
		   uint64_t cycle)
{
	bench_virtual *v = ctx;
	xb_bench_reply r = {.kind = 2, .sport = sport, .dport = dport};
	fill_reply(&r, data, len, ns_of(v, cycle));
	push_reply(v, &r, data, len);
}

static void on_icmp(void *ctx, uint16_t id, uint16_t seq, const uint8_t *data, size_t len,
		    uint64_t cycle)
{
	bench_virtual *v = ctx;
	xb_bench_reply r = {.kind = 1, .id = id, .seq = seq};
	fill_reply(&r, data, len, ns_of(v, cycle));
	push_reply(v, &r, data, len);
}

static void send_now(bench_virtual *v, int kind, uint16_t a, uint16_t b, const uint8_t *data,
		     size_t len)
{
	xb_netpeer *np = vbench_peer(v->vb);
	int rc = kind == CMD_SEND_PING ? netpeer_send_ping(np, a, b, data, len)
				       : netpeer_send_udp(np, a, b, data, len);
	if (rc != 0) {
		lock(v);
		v->sends_lost++;
		unlock(v);
	}
}

static void send_unlink(vb_send *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		s->v->sends = s->next;
	if (s->next)
		s->next->prev = s->prev;
	free(s->data);
	free(s);
}

static void send_event(xb_board *b, void *ctx)
{
	(void)b;
	vb_send *s = ctx;
	send_now(s->v, s->kind, s->a, s->b, s->data, s->len);
	send_unlink(s);
}

/* Takes the command's payload. */
static void exec_send(bench_virtual *v, const vb_cmd *c)
{
	if (c->at <= board_cycles(v->b)) {
		send_now(v, c->kind, c->a, c->b, c->data, c->len);
		free(c->data);
		return;
	}
	vb_send *s = xcalloc(1, sizeof *s);
	*s = (vb_send){.v = v, .kind = c->kind, .a = c->a, .b = c->b, .len = c->len,
		       .data = c->data, .next = v->sends};
	if (v->sends)
		v->sends->prev = s;
	v->sends = s;
	s->event = board_schedule(v->b, c->at, send_event, s);
}

static void probe_trick(bench_virtual *v, int trick, double seconds)
{
	switch (trick) {
	case XB_PROBE_TRICK_UNPLUG:
		v->unplugged_until = board_cycles(v->b) + (uint64_t)(seconds * v->hz);
		/* unplugging drops the connection too */
		/* fall through */
	case XB_PROBE_TRICK_DROP:
		if (v->srv && !v->o.probe_socket)
			dap_socket_drop_client(v->srv);
		v->probe_cut_gen = v->probe_gen;
		break;
	case XB_PROBE_TRICK_FAULT:
		swd_set_fault_injection(v->swd, 1);
		break;
	case XB_PROBE_TRICK_WAIT:
		swd_set_fault_injection(v->swd, 2);
		break;
	case XB_PROBE_TRICK_NORMAL:
		swd_set_fault_injection(v->swd, 0);
		v->unplugged_until = 0;
		break;
	}
}

static void exec_control(bench_virtual *v, const char *what, double value, double value2)
{
	uint64_t now = wall_ns(), c = board_cycles(v->b);
	if (strcmp(what, "speed") == 0)
		pacer_set_speed(&v->pacer, value, now, c);
	else if (strcmp(what, "pause") == 0)
		pacer_pause(&v->pacer, value != 0, now, c);
	else if (strcmp(what, "step") == 0)
		pacer_step(&v->pacer);
	else if (strcmp(what, "probe") == 0)
		probe_trick(v, (int)value, value2);
	else if (strcmp(what, "trace-mark") == 0)
		board_trace_mark(v->b, (uint32_t)value);
}

/* Ends the fetch trace being recorded (the file is complete afterwards). */
static void trace_end(bench_virtual *v)
{
	if (!v->tracing)
		return;
	if (v->b) {
		board_set_trace(v->b, NULL);
		board_cancel(v->b, v->trace_check);
	}
	trace_stream_close(&v->ts);
	if (fclose(v->trace_f) != 0)
		v->trace_failed = 1;
	v->trace_f = NULL;
	v->tracing = 0;
}

/* A board event every VB_TRACE_CHECK cycles while a trace is recorded: a firmware that
 * never answers (or fetches without pause for long) would fill the disk, so the trace
 * stops at its limit, and the job that wanted it fails saying why. */
static void trace_check(xb_board *b, void *ctx)
{
	bench_virtual *v = ctx;
	if ((uint64_t)ftello(v->trace_f) > (v->o.trace_max ? v->o.trace_max : VB_TRACE_MAX)) {
		v->trace_check = 0;
		trace_end(v);
		v->trace_failed = VB_TRACE_TOO_BIG;
		return;
	}
	v->trace_check = board_schedule(b, board_cycles(b) + VB_TRACE_CHECK, trace_check, v);
}

/* Starts recording the fetch trace into path (NULL: stops it). */
static void exec_trace(bench_virtual *v, const char *path)
{
	trace_end(v);
	if (!path)
		return;
	if (!(v->trace_f = fopen(path, "wb"))) {
		v->trace_failed = 1;
		return;
	}
	trace_stream_open(&v->ts, v->trace_f);
	board_set_trace(v->b, &v->ts);
	v->tracing = 1;
	v->trace_failed = 0;
	v->trace_check = board_schedule(v->b, board_cycles(v->b) + VB_TRACE_CHECK, trace_check, v);
}

static void exec_cmd(bench_virtual *v, const vb_cmd *c)
{
	switch (c->kind) {
	case CMD_SEND_PING:
	case CMD_SEND_UDP:
		exec_send(v, c);
		break;
	case CMD_CONTROL:
		exec_control(v, c->what, c->value, c->value2);
		break;
	case CMD_TRACE:
		exec_trace(v, (const char *)c->data);
		free(c->data);
		break;
	case CMD_ADOPT:
		if (!v->srv) {
			v->srv = dap_socket_adopt(c->fd, v->dap);
			dap_socket_set_paced(v->srv, 1);
		} else if (dap_socket_adopt_fd(v->srv, c->fd) != 0) {
			close(c->fd);
		}
		break;
	default:
		break;
	}
}

static const char *net_text(bench_virtual *v, char *buf, size_t cap)
{
	xb_netpeer *np = vbench_peer(v->vb);
	const char *cls = netpeer_usb_class(np);
	snprintf(buf, cap, "USB %s, %s %s, link %s, %s",
		 usbhost_state_name(usbhost_state(vbench_host(v->vb))), cls ? cls : "CDC-ECM",
		 cls ? "up" : "down", netpeer_link(np) ? "up" : "down",
		 netpeer_device_mac(np) ? "ARP resolved" : "not resolved");
	return buf;
}

/* Publishes the board's state (and, when asked for and due, the cache view). */
static void publish(bench_virtual *v, uint64_t now_wall)
{
	atomic_store(&v->cycles, board_cycles(v->b));
	int want_view = 0;
	lock(v);
	v->st.is_virtual = 1;
	v->st.now_ns = ns_of(v, board_cycles(v->b));
	v->st.speed = v->pacer.speed;
	v->st.paused = v->pacer.paused;
	v->st.ratio = v->live ? pacer_ratio(&v->pacer) : NAN;
	v->st.dropped_ns = ns_of(v, v->pacer.dropped);
	v->st.net_ready = vbench_ready(v->vb);
	net_text(v, v->st.net, sizeof v->st.net);
	v->st.core = board_locked_up(v->b) ? 2 : board_halted(v->b) ? 1 : 0;
	v->st.records_lost = v->records_lost;
	v->st.tracing = v->tracing;
	v->st.trace_failed = v->trace_failed;
	v->st.probe_served = v->srv && dap_socket_connected(v->srv);
	xb_dap_stats ds;
	dap_stats(v->dap, &ds);
	v->st.probe_packets = ds.packets;
	if (v->view_wanted && now_wall >= v->view_ns + VB_VIEW_EVERY_NS)
		want_view = 1;
	unlock(v);
	if (!want_view)
		return;
	xb_cache *c = board_cache(v->b);
	uint32_t nsets = cache_nsets(c), ways = cache_config(c)->ways;
	lock(v);
	for (uint32_t s = 0; s < nsets; s++) {
		xb_cache_set_stats st;
		cache_set_stats(c, s, &st);
		v->view_misses[s] = st.misses;
		for (uint32_t w = 0; w < ways; w++) {
			int64_t t = cache_peek(c, s, w);
			v->view_tags[(size_t)s * ways + w] = t;
		}
	}
	v->view_ns = now_wall;
	unlock(v);
}

/* Runs the board for n cycles; time passes while the core is halted, too. Returns 0 when
 * the board would not move. */
static int run_cycles(bench_virtual *v, uint64_t n)
{
	uint64_t end = board_cycles(v->b) + n;
	while (board_cycles(v->b) < end) {
		uint64_t before = board_cycles(v->b);
		enum xb_run_result r = board_run(v->b, end - before);
		if (r == XB_RUN_STOPPED && board_cycles(v->b) == before)
			return 0;
	}
	return 1;
}

/* Runs one slice of n cycles, stopping wherever a probe packet or response the probe
 * holds falls due: the probe's reads (PC samples among them) then happen at the times of
 * its timing model, spread over the slice, not in a burst at the slice's end. */
static void run_slice(bench_virtual *v, uint64_t n)
{
	uint64_t end = board_cycles(v->b) + n;
	for (uint64_t c; (c = board_cycles(v->b)) < end;) {
		uint64_t to = end;
		if (v->srv) {
			uint64_t due = dap_socket_next_due(v->srv);
			if (due > c && due < to)
				to = due;
		}
		if (!run_cycles(v, to - c))
			return;
		if (v->srv)
			dap_socket_advance(v->srv);
	}
}

static void *board_thread(void *arg)
{
	bench_virtual *v = arg;
	vb_cmd *batch = xcalloc(VB_CMDS, sizeof *batch);
	uint64_t jitter = 0x9E3779B97F4A7C15ull;
	for (;;) {
		lock(v);
		size_t n = v->ncmds;
		memcpy(batch, v->cmds, n * sizeof *batch);
		v->ncmds = 0;
		unlock(v);
		int stop = 0;
		for (size_t i = 0; i < n; i++) {
			if (batch[i].kind == CMD_STOP)
				stop = 1;
			else
				exec_cmd(v, &batch[i]);
		}
		if (stop)
			break;
		if (v->srv) {
			xb_err err;
			dap_socket_service(v->srv, &err);
		}
		uint64_t now = wall_ns();
		uint64_t c = board_cycles(v->b);
		uint64_t allow = pacer_allow(&v->pacer, now, c);
		/* no further than the session has sent the traffic (set_horizon) */
		uint64_t fence = atomic_load(&v->horizon);
		int fenced = fence <= c || allow >= fence - c;
		if (fenced)
			allow = fence > c ? fence - c : 0;
		if (allow >= v->pacer.slice || ((v->pacer.paused || fenced) && allow)) {
			/* Slices of a random length (half to one and a half of the pacer's): what
			 * the host sent while the board waited is read at a slice's start, and
			 * slices that always started on the USB host's 1 ms frames would sample
			 * the PC in step with them. */
			jitter = jitter * 6364136223846793005ull + 1442695040888963407ull;
			uint64_t len = v->pacer.slice / 2 + (jitter >> 33) % v->pacer.slice;
			uint64_t k = allow < len ? allow : len;
			run_slice(v, k);
			pacer_ran(&v->pacer, k, wall_ns(), board_cycles(v->b));
			publish(v, now);
			continue;
		}
		publish(v, now);
		if (fenced) {
			/* at the horizon: the session sends what comes next and moves it on */
			lock(v);
			signal_session(v);
			unlock(v);
		}
		/* nothing to run yet: wait for the next slice, a command or a probe packet */
		uint64_t due = pacer_next_ns(&v->pacer, c);
		struct pollfd fds[4];
		int nf = 0;
		fds[nf++] = (struct pollfd){.fd = v->board_wake, .events = POLLIN};
		if (v->srv)
			nf += dap_socket_pollfds(v->srv, fds + nf, 3);
		int ms = due == UINT64_MAX || fenced ? 100
			 : due <= now ? 0 : (int)((due - now + 999999) / 1000000);
		if (ms > 100)
			ms = 100;
		if (poll(fds, (nfds_t)nf, ms) > 0 && fds[0].revents)
			drain_wake(v->board_wake);
	}
	free(batch);
	return NULL;
}

/* ---- Session side ---- */

static bench_virtual *V(xb_bench *b)
{
	return (bench_virtual *)b;
}

/* Live: queues a command for the board thread; virtual time: runs it now. */
static int submit_cmd(bench_virtual *v, const vb_cmd *c, xb_report *rep)
{
	if (!v->live) {
		exec_cmd(v, c);
		return 0;
	}
	lock(v);
	if (v->ncmds == VB_CMDS) {
		unlock(v);
		return report_fail(rep, XB_STATUS_TRAFFIC_FAILED,
				   "the virtual bench has %u commands waiting; it is not keeping up",
				   VB_CMDS);
	}
	v->cmds[v->ncmds++] = *c;
	unlock(v);
	wake(v->board_wake);
	return 0;
}

/* The in-process probe of virtual time, behind a link that the DROP trick can cut. */
typedef struct cut_link {
	xb_transport base;
	xb_transport *inner;
	bench_virtual *v;
	unsigned gen;
} cut_link;

static int cut_check(cut_link *l, xb_err *err)
{
	if (l->v->probe_cut_gen >= l->gen)
		return xb_fail(err, "%s: the probe was unplugged", l->base.name);
	return 0;
}

static int cut_xfer(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		    size_t *rlen, xb_err *err)
{
	cut_link *l = (cut_link *)t;
	if (cut_check(l, err))
		return -1;
	return l->inner->ops->xfer(l->inner, req, len, resp, cap, rlen, err);
}

static int cut_submit(xb_transport *t, const uint8_t *req, size_t len, xb_err *err)
{
	cut_link *l = (cut_link *)t;
	if (cut_check(l, err))
		return -1;
	return l->inner->ops->submit(l->inner, req, len, err);
}

static int cut_collect(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err)
{
	cut_link *l = (cut_link *)t;
	if (cut_check(l, err))
		return -1;
	return l->inner->ops->collect(l->inner, resp, cap, rlen, err);
}

static int cut_ready(xb_transport *t, xb_err *err)
{
	cut_link *l = (cut_link *)t;
	if (cut_check(l, err))
		return -1;
	return 1;
}

static uint64_t cut_now(xb_transport *t)
{
	cut_link *l = (cut_link *)t;
	return transport_now_ns(l->inner);
}

static void cut_wait(xb_transport *t, uint64_t ns)
{
	cut_link *l = (cut_link *)t;
	transport_wait(l->inner, ns);
}

static void cut_close(xb_transport *t)
{
	cut_link *l = (cut_link *)t;
	dap_discard(l->v->dap);
	transport_close(l->inner);
	free(l);
}

static const xb_transport_ops cut_ops = {
	.kind = "virtual",
	.xfer = cut_xfer,
	.submit = cut_submit,
	.collect = cut_collect,
	.ready = cut_ready,
	.now_ns = cut_now,
	.wait = cut_wait,
	.close = cut_close,
};

static xb_transport *bv_connect_probe(xb_bench *b, xb_report *rep)
{
	bench_virtual *v = V(b);
	if (v->o.probe_socket) {
		report_fail(rep, XB_STATUS_UNSUPPORTED, "the virtual probe is served on %s",
			    v->o.probe_socket);
		return NULL;
	}
	if (v->unplugged_until && atomic_load(&v->cycles) < v->unplugged_until) {
		report_fail(rep, XB_STATUS_PROBE_GONE, "the virtual probe is unplugged for %.1f s more",
			    (double)(v->unplugged_until - atomic_load(&v->cycles)) / v->hz);
		return NULL;
	}
	if (!v->live) {
		cut_link *l = xcalloc(1, sizeof *l);
		l->inner = transport_virtual_new(v->dap, v->hz);
		l->v = v;
		l->gen = ++v->probe_gen;
		transport_init(&l->base, &cut_ops, "the virtual probe");
		l->base.packet_size = l->inner->packet_size;
		l->base.link_max = l->inner->link_max;
		l->base.virtual_time = 1;
		return &l->base;
	}
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		report_fail(rep, XB_STATUS_PROBE_GONE, "socketpair: %s", strerror(errno));
		return NULL;
	}
	vb_cmd c = {.kind = CMD_ADOPT, .fd = sv[1]};
	if (submit_cmd(v, &c, rep)) {
		close(sv[0]);
		close(sv[1]);
		return NULL;
	}
	return transport_socket_adopt(sv[0], "the virtual probe");
}

static int bv_read_records(xb_bench *b, void (*fn)(void *ctx, const xb_usbrec *r), void *ctx,
			   xb_report *rep)
{
	(void)rep;
	bench_virtual *v = V(b);
	lock(v);
	size_t n = v->records.len;
	if (n > v->scratch_cap) {
		v->scratch = xrealloc(v->scratch, n);
		v->scratch_cap = n;
	}
	ring_get(&v->records, v->scratch, n);
	unlock(v);
	int count = 0;
	for (size_t at = 0; at + 12 <= n;) {
		uint32_t len;
		uint64_t ns;
		memcpy(&len, v->scratch + at, 4);
		memcpy(&ns, v->scratch + at + 4, 8);
		at += 12;
		xb_usbrec r;
		if (usbrec_parse_bytes(&r, v->scratch + at, len, XB_USBMON_LINKTYPE, 0, NULL) == 0) {
			r.time_ns = ns;
			fn(ctx, &r);
			count++;
		}
		at += len;
	}
	return count;
}

static int bv_send(bench_virtual *v, int kind, uint64_t at_ns, uint16_t a, uint16_t b,
		   const uint8_t *data, size_t len, xb_report *rep)
{
	if (len > XB_NETPEER_MAX_PAYLOAD)
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "%zu payload bytes: at most %u fit",
				   len, XB_NETPEER_MAX_PAYLOAD);
	vb_cmd c = {.kind = (uint8_t)kind, .at = cycles_of(v, at_ns), .a = a, .b = b,
		    .len = (uint16_t)len, .data = xcalloc(1, len ? len : 1)};
	memcpy(c.data, data, len);
	if (submit_cmd(v, &c, rep) == 0)
		return 0;
	free(c.data);
	return -1;
}

static int bv_send_ping(xb_bench *b, uint64_t at_ns, uint16_t id, uint16_t seq,
			const uint8_t *data, size_t len, xb_report *rep)
{
	return bv_send(V(b), CMD_SEND_PING, at_ns, id, seq, data, len, rep);
}

static int bv_send_udp(xb_bench *b, uint64_t at_ns, uint16_t sport, uint16_t dport,
		       const uint8_t *data, size_t len, xb_report *rep)
{
	return bv_send(V(b), CMD_SEND_UDP, at_ns, sport, dport, data, len, rep);
}

static size_t bv_read_replies(xb_bench *b, xb_bench_reply *out, size_t max)
{
	bench_virtual *v = V(b);
	lock(v);
	size_t n = v->rlen < max ? v->rlen : max;
	for (size_t i = 0; i < n; i++) {
		size_t slot = (v->rhead + i) % VB_REPLIES;
		out[i] = v->replies[slot];
		if (v->o.reply_keep) {
			uint8_t *mine = v->taken[i].full;
			if (!mine)
				mine = v->taken[i].full = xmalloc(v->o.reply_keep);
			size_t k = out[i].len < v->o.reply_keep ? out[i].len : v->o.reply_keep;
			memcpy(mine, v->reply_data + slot * v->o.reply_keep, k);
			out[i].full = mine;
		}
	}
	v->rhead = (v->rhead + n) % VB_REPLIES;
	v->rlen -= n;
	unlock(v);
	return n;
}

static size_t bv_read_console(xb_bench *b, uint8_t *buf, size_t cap)
{
	bench_virtual *v = V(b);
	lock(v);
	size_t n = ring_get(&v->console, buf, cap);
	unlock(v);
	return n;
}

static int bv_pollfds(xb_bench *b, struct pollfd *fds, int max)
{
	bench_virtual *v = V(b);
	if (!v->live || max < 1)
		return 0;
	fds[0] = (struct pollfd){.fd = v->session_wake, .events = POLLIN};
	return 1;
}

static int bv_pump(xb_bench *b, uint64_t until_ns, xb_report *rep)
{
	(void)rep;
	bench_virtual *v = V(b);
	if (v->live) {
		lock(v);
		v->session_signalled = 0;
		unlock(v);
		drain_wake(v->session_wake);
		return 0;
	}
	/* the first cycle at or after until_ns, so that the bench clock reaches it */
	uint64_t until = (uint64_t)(((unsigned __int128)until_ns * v->hz + 999999999u) / 1000000000u);
	uint64_t now = board_cycles(v->b);
	if (until > now)
		run_cycles(v, until - now);
	publish(v, 0);
	return 0;
}

static uint64_t bv_now_ns(xb_bench *b)
{
	bench_virtual *v = V(b);
	return ns_of(v, v->live ? atomic_load(&v->cycles) : board_cycles(v->b));
}

static void bv_state(xb_bench *b, xb_bench_state *out)
{
	bench_virtual *v = V(b);
	lock(v);
	*out = v->st;
	unlock(v);
	out->now_ns = bv_now_ns(b);
}

static int bv_control(xb_bench *b, const char *what, double value, double value2, xb_report *rep)
{
	bench_virtual *v = V(b);
	static const char *const known[] = {"speed", "pause", "step", "probe", "trace-mark"};
	size_t i;
	for (i = 0; i < sizeof known / sizeof *known; i++)
		if (strcmp(what, known[i]) == 0)
			break;
	if (i == sizeof known / sizeof *known)
		return report_fail(rep, XB_STATUS_UNSUPPORTED, "the virtual bench has no control '%s'",
				   what);
	if (!v->live && (strcmp(what, "speed") == 0 || strcmp(what, "pause") == 0 ||
			 strcmp(what, "step") == 0))
		return report_fail(rep, XB_STATUS_UNSUPPORTED,
				   "the bench runs in virtual time: it has no speed to change");
	if (strcmp(what, "speed") == 0 && !(value >= 0.01 && value <= 1000))
		return report_fail(rep, XB_STATUS_BAD_ARGUMENT, "speed %g: 0.01 to 1000 times real time",
				   value);
	if (strcmp(what, "probe") == 0 && v->o.probe_socket && value != XB_PROBE_TRICK_FAULT &&
	    value != XB_PROBE_TRICK_WAIT && value != XB_PROBE_TRICK_NORMAL)
		return report_fail(rep, XB_STATUS_UNSUPPORTED,
				   "the probe is served on %s: close its client instead",
				   v->o.probe_socket);
	vb_cmd c = {.kind = CMD_CONTROL, .value = value, .value2 = value2};
	snprintf(c.what, sizeof c.what, "%s", what);
	return submit_cmd(v, &c, rep);
}

static int bv_cache_view(xb_bench *b, int64_t *tags, uint64_t *set_misses, uint32_t nsets,
			 uint32_t ways)
{
	bench_virtual *v = V(b);
	xb_cache *c = board_cache(v->b);
	if (nsets != cache_nsets(c) || ways != cache_config(c)->ways)
		return -1;
	if (!v->live) {
		v->view_wanted = 1;
		v->view_ns = 0;
		publish(v, VB_VIEW_EVERY_NS);
	}
	lock(v);
	v->view_wanted = 1;
	if (tags)
		memcpy(tags, v->view_tags, (size_t)nsets * ways * sizeof *tags);
	if (set_misses)
		memcpy(set_misses, v->view_misses, nsets * sizeof *set_misses);
	unlock(v);
	return 0;
}

static int bv_trace(xb_bench *b, const char *path, xb_report *rep)
{
	bench_virtual *v = V(b);
	vb_cmd c = {.kind = CMD_TRACE, .data = path ? (uint8_t *)xstrdup(path) : NULL};
	if (submit_cmd(v, &c, rep) == 0) {
		if (!v->live)
			publish(v, 0);
		return 0;
	}
	free(c.data);
	return -1;
}

static void bv_set_horizon(xb_bench *b, uint64_t ns)
{
	bench_virtual *v = V(b);
	if (!v->live)
		return;
	uint64_t c = ns == UINT64_MAX ? UINT64_MAX : cycles_of(v, ns);
	if (atomic_exchange(&v->horizon, c) < c)
		wake(v->board_wake);
}

static void bv_close(xb_bench *b)
{
	bench_virtual *v = V(b);
	if (!v)
		return;
	if (v->thread_started) {
		vb_cmd c = {.kind = CMD_STOP};
		lock(v);
		if (v->ncmds == VB_CMDS)
			v->ncmds--; /* the stop must get through */
		v->cmds[v->ncmds++] = c;
		unlock(v);
		wake(v->board_wake);
		pthread_join(v->thread, NULL);
	}
	while (v->sends) {
		board_cancel(v->b, v->sends->event);
		send_unlink(v->sends);
	}
	for (size_t i = 0; i < v->ncmds; i++) /* commands the board thread never took */
		free(v->cmds[i].data);
	if (v->srv)
		dap_socket_close(v->srv);
	vbench_free(v->vb);
	dap_free(v->dap);
	swd_free(v->swd);
	trace_end(v);
	pico_free(v->p);
	if (v->board_wake >= 0)
		close(v->board_wake);
	if (v->session_wake >= 0)
		close(v->session_wake);
	pthread_mutex_destroy(&v->mu);
	for (size_t i = 0; i < VB_REPLIES && v->taken; i++)
		free(v->taken[i].full);
	free(v->taken);
	free(v->cmds);
	free(v->records.buf);
	free(v->console.buf);
	free(v->replies);
	free(v->reply_data);
	free(v->view_tags);
	free(v->view_misses);
	free(v->scratch);
	free(v);
}

/* Reports of the blank board (no image yet) are expected and dropped. */
static void board_log(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

xb_bench *bench_virtual_open(const xb_virtual_options *o, xb_report *rep)
{
	bench_virtual *v = xcalloc(1, sizeof *v);
	v->base.ops = &bench_virtual_ops;
	v->o = *o;
	v->live = !o->virtual_time;
	atomic_store(&v->horizon, UINT64_MAX);
	v->board_wake = v->session_wake = -1;
	pthread_mutex_init(&v->mu, NULL);
	snprintf(v->base.name, sizeof v->base.name, "virtual Pico%s",
		 v->live ? "" : " (virtual time)");
	xb_err err;
	xb_pico_options po;
	pico_options_init(&po);
	po.strict = o->strict;
	po.uart_fn = on_uart;
	po.uart_ctx = v;
	po.log_fn = board_log;
	po.log_ctx = v;
	if (o->trace_path) {
		if (!(v->trace_f = fopen(o->trace_path, "wb"))) {
			report_fail(rep, XB_STATUS_IO, "%s: cannot create the trace: %s", o->trace_path,
				    strerror(errno));
			bv_close(&v->base);
			return NULL;
		}
		trace_stream_open(&v->ts, v->trace_f);
		v->tracing = 1;
		po.trace = &v->ts;
	}
	if (!(v->p = pico_new(o->tg, &po, &err))) {
		report_err(rep, XB_STATUS_IMAGE_INVALID, &err);
		bv_close(&v->base);
		return NULL;
	}
	v->b = pico_board(v->p);
	v->hz = board_cpu_hz(v->b);
	if (o->load && pico_load_file(v->p, o->load, (enum xb_image_format)o->load_format, o->load_at, NULL,
				    &err)) {
		report_err(rep, XB_STATUS_IMAGE_INVALID, &err);
		bv_close(&v->base);
		return NULL;
	}
	if (v->tracing)
		v->trace_check = board_schedule(v->b, board_cycles(v->b) + VB_TRACE_CHECK,
						trace_check, v);
	v->cmds = xcalloc(VB_CMDS, sizeof *v->cmds);
	v->records = (vb_ring){.buf = xmalloc(VB_RECORD_RING), .cap = VB_RECORD_RING};
	v->console = (vb_ring){.buf = xmalloc(VB_CONSOLE_RING), .cap = VB_CONSOLE_RING};
	v->replies = xcalloc(VB_REPLIES, sizeof *v->replies);
	v->taken = xcalloc(VB_REPLIES, sizeof *v->taken);
	if (o->reply_keep)
		v->reply_data = xcalloc(VB_REPLIES, o->reply_keep);
	xb_cache *cache = board_cache(v->b);
	size_t nsets = cache_nsets(cache), ways = cache_config(cache)->ways;
	v->view_tags = xcalloc(nsets * ways, sizeof *v->view_tags);
	for (size_t i = 0; i < nsets * ways; i++)
		v->view_tags[i] = -1;
	v->view_misses = xcalloc(nsets, sizeof *v->view_misses);

	xb_vbench_options vo;
	vbench_options_init(&vo);
	if (o->peer_ip)
		memcpy(vo.peer.ip, o->peer_ip, 4);
	if (o->device_ip)
		memcpy(vo.peer.device_ip, o->device_ip, 4);
	vo.peer.device_ip_set = o->device_ip != NULL;
	if (o->netmask)
		memcpy(vo.peer.netmask, o->netmask, 4);
	vo.peer.dhcp = o->dhcp;
	vo.peer.udp = on_udp;
	vo.peer.udp_ctx = v;
	vo.peer.icmp = on_icmp;
	vo.peer.icmp_ctx = v;
	vo.pcap = o->pcap;
	vo.record = on_record;
	vo.record_ctx = v;
	v->vb = vbench_new(v->p, &vo);
	v->swd = swd_new(v->b);
	v->dap = dap_new(v->swd, NULL);
	if (o->probe_socket) {
		if (!(v->srv = dap_socket_open(o->probe_socket, v->dap, &err))) {
			report_err(rep, XB_STATUS_PROBE_GONE, &err);
			bv_close(&v->base);
			return NULL;
		}
		dap_socket_set_paced(v->srv, v->live);
	}
	pacer_init(&v->pacer, v->hz, o->speed > 0 ? o->speed : 1.0, wall_ns(), board_cycles(v->b));
	publish(v, 0);
	if (v->live) {
		v->board_wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		v->session_wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (v->board_wake < 0 || v->session_wake < 0 ||
		    pthread_create(&v->thread, NULL, board_thread, v) != 0) {
			report_fail(rep, XB_STATUS_INTERNAL, "cannot start the virtual bench's thread: %s",
				    strerror(errno));
			bv_close(&v->base);
			return NULL;
		}
		v->thread_started = 1;
	}
	return &v->base;
}

static const xb_bench_ops bench_virtual_ops = {
	.kind = "virtual",
	.schedules = 1,
	.connect_probe = bv_connect_probe,
	.read_records = bv_read_records,
	.send_ping = bv_send_ping,
	.send_udp = bv_send_udp,
	.read_replies = bv_read_replies,
	.read_console = bv_read_console,
	.pollfds = bv_pollfds,
	.pump = bv_pump,
	.now_ns = bv_now_ns,
	.state = bv_state,
	.control = bv_control,
	.cache_view = bv_cache_view,
	.set_horizon = bv_set_horizon,
	.trace = bv_trace,
	.close = bv_close,
};
