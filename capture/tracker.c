/* tracker: follows echoes record by record with frames and echo, reports each once it is
 * settled and forgets what was reported, so that a live capture of any length stays small. */
#include "tracker.h"

#include <stdlib.h>
#include <string.h>

#include "held.h"
#include "usbrec.h"

#define TRACKER_TIMEOUT_NS 1000000000ull
#define TRACKER_MAX_PENDING 4096u
#define TRACKER_HELD_FACTOR 4u

/* What the tracker knows of an echo held: waiting, or the state it was settled with. */
enum { TRACKER_WAITING = 0, TRACKER_SETTLED = 1 /* + enum xb_echo_state */ };

typedef struct tracker_slot {
	uint64_t request_ns; /* once settled: when it is forgotten */
	uint8_t state;
} tracker_slot;

struct xb_tracker {
	xb_tracker_options opt;
	uint64_t retain_ns; /* 2 * loss_timeout_ns */
	size_t limit;       /* frames, echoes and settled echoes held at most */
	xb_frames *fs;
	xb_echoes *e;
	/* one slot per echo held: echoes base .. base + n at slot[off ..] */
	tracker_slot *slot;
	size_t off, n, cap, base;
	size_t cursor;  /* every echo below it is settled */
	size_t waiting; /* echoes not settled */
	xb_echo_event *ready; /* settled, not taken: a min-heap by echo index */
	size_t nready, capready;
	xb_tracker_stats st;
};

void tracker_options_init(xb_tracker_options *o)
{
	memset(o, 0, sizeof *o);
	echo_options_init(&o->echo);
	frames_options_init(&o->frames);
	o->loss_timeout_ns = TRACKER_TIMEOUT_NS;
	o->max_pending = TRACKER_MAX_PENDING;
}

xb_tracker *tracker_new(const xb_tracker_options *o, xb_err *err)
{
	xb_tracker_options d;
	tracker_options_init(&d);
	if (o)
		d = *o;
	if (!d.loss_timeout_ns)
		d.loss_timeout_ns = TRACKER_TIMEOUT_NS;
	if (!d.max_pending)
		d.max_pending = TRACKER_MAX_PENDING;
	xb_echoes *e = echo_new(&d.echo, err);
	if (!e)
		return NULL;
	xb_tracker *t = xcalloc(1, sizeof *t);
	t->opt = d;
	t->retain_ns = d.loss_timeout_ns > UINT64_MAX / 2 ? UINT64_MAX : 2 * d.loss_timeout_ns;
	t->limit = d.max_pending > SIZE_MAX / TRACKER_HELD_FACTOR
			   ? SIZE_MAX
			   : TRACKER_HELD_FACTOR * d.max_pending;
	t->e = e;
	t->fs = frames_new(&d.frames);
	return t;
}

void tracker_free(xb_tracker *t)
{
	if (!t)
		return;
	frames_free(t->fs);
	echo_free(t->e);
	free(t->slot);
	free(t->ready);
	free(t);
}

/* ---- Settled echoes waiting to be taken ---- */

static void ready_push(xb_tracker *t, const xb_echo_event *ev)
{
	xb_grow(&t->ready, &t->capready, t->nready + 1, sizeof *t->ready);
	size_t i = t->nready++;
	for (; i > 0 && t->ready[(i - 1) / 2].echo > ev->echo; i = (i - 1) / 2)
		t->ready[i] = t->ready[(i - 1) / 2];
	t->ready[i] = *ev;
}

static void ready_pop(xb_tracker *t, xb_echo_event *out)
{
	*out = t->ready[0];
	xb_echo_event last = t->ready[--t->nready];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= t->nready)
			break;
		if (c + 1 < t->nready && t->ready[c + 1].echo < t->ready[c].echo)
			c++;
		if (t->ready[c].echo >= last.echo)
			break;
		t->ready[i] = t->ready[c];
		i = c;
	}
	if (t->nready)
		t->ready[i] = last;
}

size_t tracker_take(xb_tracker *t, xb_echo_event *out, size_t max)
{
	size_t n = 0;
	for (; n < max && t->nready; n++)
		ready_pop(t, &out[n]);
	return n;
}

/* ---- Echoes held ---- */

static tracker_slot *slot_at(xb_tracker *t, size_t i)
{
	return &t->slot[t->off + (i - t->base)];
}

/* Slots for the echoes echo_update found. */
static void slots_track(xb_tracker *t)
{
	while (t->base + t->n < echo_count(t->e)) {
		held_reserve(&t->slot, sizeof *t->slot, &t->off, t->n, &t->cap);
		t->slot[t->off + t->n++] = (tracker_slot){.state = TRACKER_WAITING};
		t->waiting++;
		t->st.requests++;
	}
}

static void slots_forget(xb_tracker *t, size_t before)
{
	echo_discard(t->e, before);
	t->off += before - t->base;
	t->n -= before - t->base;
	t->base = before;
	held_trim(&t->slot, sizeof *t->slot, &t->off, t->n, &t->cap);
}

/* When the request was sent: the end of its OUT transfer, else its submission. */
static uint64_t request_time(const xb_frame *f)
{
	return f->flags & XB_FRAME_PENDING ? f->submit_ns : f->time_ns;
}

/* Settles waiting echo i with what echo.h says of it now. */
static void settle(xb_tracker *t, size_t i)
{
	const xb_echo *x = echo_get(t->e, i);
	const xb_frame *req = frames_get(t->fs, x->request); /* held while i waits */
	enum xb_echo_state state = echo_state(t->e, t->fs, i);
	xb_echo_event ev = {
		.kind = x->kind, .state = (uint8_t)state, .mismatch = x->mismatch,
		.id = x->id, .seq = x->seq,
		.sport = x->sport, .dport = x->dport, .size = x->size,
		.request_ns = request_time(req), .submit_ns = req->submit_ns, .echo = i,
	};
	memcpy(ev.nonce, x->nonce, sizeof ev.nonce);
	if (state == XB_ECHO_REPLIED)
		ev.reply_ns = frames_get(t->fs, x->reply)->time_ns;
	if (echo_turnaround(t->e, t->fs, i, &ev.turnaround_ns))
		ev.turnaround_ns = -1;
	if (state == XB_ECHO_REPLIED)
		t->st.replied++;
	else if (state == XB_ECHO_FAILED)
		t->st.failed++;
	else
		t->st.lost++;
	tracker_slot *s = slot_at(t, i);
	s->state = (uint8_t)(TRACKER_SETTLED + state);
	s->request_ns = ev.request_ns;
	t->waiting--;
	ready_push(t, &ev);
}

/* Settles echo i if its reply and its request's completion are in, or it failed. */
static void settle_if_done(xb_tracker *t, size_t i)
{
	if (slot_at(t, i)->state != TRACKER_WAITING)
		return;
	const xb_echo *x = echo_get(t->e, i);
	const xb_frame *req = frames_get(t->fs, x->request);
	if (req->flags & XB_FRAME_PENDING)
		return;
	if (x->reply != XB_ECHO_NONE || (req->flags & XB_FRAME_FAILED))
		settle(t, i);
}

/* The oldest waiting echo, or echo_count when none waits. */
static size_t oldest_waiting(xb_tracker *t)
{
	size_t n = echo_count(t->e);
	if (t->cursor < t->base)
		t->cursor = t->base;
	while (t->cursor < n && slot_at(t, t->cursor)->state != TRACKER_WAITING)
		t->cursor++;
	return t->cursor;
}

static void evict_oldest(xb_tracker *t)
{
	settle(t, oldest_waiting(t));
	t->st.evicted++;
}

/* A reply came for echo j in frame: its first (settles it, or it is late) or another. */
static void on_reply(xb_tracker *t, size_t j, size_t frame)
{
	if (echo_get(t->e, j)->reply != frame)
		t->st.duplicates++;
	else if (slot_at(t, j)->state == TRACKER_WAITING)
		settle_if_done(t, j);
	else
		t->st.late++;
}

/* The OUT transfer of frame completed: the echo it is the request of may be settled. */
static void on_done(xb_tracker *t, size_t frame)
{
	size_t lo = oldest_waiting(t), hi = echo_count(t->e); /* requests grow with the index */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		size_t req = echo_get(t->e, mid)->request;
		if (req == frame) {
			settle_if_done(t, mid);
			return;
		}
		if (req < frame)
			lo = mid + 1;
		else
			hi = mid;
	}
}

/* Waiting echoes whose request is older than the timeout are lost; at the end of time
 * (UINT64_MAX, the end of a capture) every waiting echo is, whatever its timestamp says. */
static void expire(xb_tracker *t)
{
	int end = t->st.now_ns == UINT64_MAX;
	for (size_t i; (i = oldest_waiting(t)) < echo_count(t->e);) {
		uint64_t sent = request_time(frames_get(t->fs, echo_get(t->e, i)->request));
		if (!end && (t->st.now_ns <= sent || t->st.now_ns - sent <= t->opt.loss_timeout_ns))
			return;
		settle(t, i);
	}
}

/* Keeps every bound: waiting echoes, echoes held, frames held, settled echoes not taken. */
static void release(xb_tracker *t)
{
	while (t->waiting > t->opt.max_pending)
		evict_oldest(t);
	size_t before = t->base, count = echo_count(t->e);
	while (before < count) {
		const tracker_slot *s = slot_at(t, before);
		int over = count - before > t->limit;
		if (s->state == TRACKER_WAITING) {
			if (!over)
				break;
			evict_oldest(t); /* it is the oldest: all before it are settled */
			continue;
		}
		uint64_t now = t->st.now_ns;
		int old = now > s->request_ns && now - s->request_ns > t->retain_ns;
		if (!over && !old)
			break;
		before++;
	}
	if (before > t->base)
		slots_forget(t, before);
	for (;;) { /* frames from the oldest waiting request on */
		size_t i = oldest_waiting(t);
		frames_discard(t->fs, i < count ? echo_get(t->e, i)->request : frames_count(t->fs));
		if (frames_held(t->fs) <= t->limit || !t->waiting)
			break;
		evict_oldest(t);
	}
	while (t->nready > t->limit) {
		xb_echo_event ev;
		ready_pop(t, &ev);
		t->st.dropped++;
	}
}

/* ---- Records ---- */

void tracker_add(xb_tracker *t, const xb_usbrec *r)
{
	t->st.records++;
	if (r->time_ns > t->st.now_ns)
		t->st.now_ns = r->time_ns;
	size_t frame = frames_count(t->fs);
	frames_add(t->fs, r);
	/* a record ends one CDC-ECM frame, or every frame of an NCM or RNDIS transfer */
	for (size_t end = frames_count(t->fs); frame < end; frame++) {
		echo_update_until(t->e, t->fs, frame + 1);
		slots_track(t);
		size_t j = echo_last_reply(t->e);
		if (j != XB_ECHO_NONE)
			on_reply(t, j, frame);
	}
	size_t done = frames_last_done(t->fs), ndone = frames_last_done_count(t->fs);
	for (size_t i = 0; done != XB_FRAMES_NONE && i < ndone; i++)
		on_done(t, done + i);
	expire(t);
	release(t);
}

static void tracker_feed_one(void *ctx, const xb_usbrec *r)
{
	tracker_add(ctx, r);
}

int tracker_feed(xb_tracker *t, xb_capture_source *s, uint64_t max, xb_err *err)
{
	return usbrec_read(s, max, tracker_feed_one, t, err);
}

void tracker_advance(xb_tracker *t, uint64_t now_ns)
{
	if (now_ns < t->st.now_ns || (now_ns == t->st.now_ns && now_ns != UINT64_MAX))
		return;
	t->st.now_ns = now_ns;
	expire(t);
	release(t);
}

void tracker_stats(const xb_tracker *t, xb_tracker_stats *out)
{
	*out = t->st;
	out->frames = frames_count(t->fs);
	out->unmatched = echo_unmatched(t->e, 0);
	out->pending = t->waiting;
	out->ready = t->nready;
	out->frames_held = frames_held(t->fs);
	out->echoes_held = echo_held(t->e);
}
