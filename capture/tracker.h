/* tracker: echoes followed live from a stream of usbmon records, in bounded memory: each
 * echo is reported once when it is settled (replied, failed, or lost after a timeout),
 * with its turnaround, and then forgotten with its frames. What a live session of any
 * length needs from the capture code (frames.h, echo.h do the matching). */
#ifndef XB_CAPTURE_TRACKER_H
#define XB_CAPTURE_TRACKER_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "echo.h"
#include "frames.h"
#include "source.h"

/*
 * Time is the capture's: the records' timestamps (virtual time for the virtual host,
 * the wall clock of a live usbmon). "Now" is the newest record's time; an echo whose
 * request is older than now - loss_timeout_ns without a reply is lost. Echoes are judged
 * in request order: one waits at least as long as the requests before it.
 *
 * Settling follows echo.h (echo_state, echo_turnaround), so an echo gets the state and
 * turnaround the batch path (frames_read, echo_update) gives it when its reply comes
 * within the timeout: replied once its reply is in and its request's OUT completion too
 * (a reply may come first), failed once the completion says so, otherwise lost at the
 * timeout (replied without a turnaround when only the completion is missing).
 *
 * A reply that comes after its request was reported lost (or failed) is counted as late
 * (stats) and not reported again; later replies to a request are counted as duplicates.
 * Both are recognised for 2 * loss_timeout_ns after the request; after that the echo is
 * forgotten and a reply to it is unmatched (UDP: not echo traffic, once no echo of its
 * flow is held).
 *
 * Memory: frames and echoes already reported, and frames that carry no echo, are dropped
 * as the tracker goes (frames_discard, echo_discard); at most max_pending echoes wait for
 * a reply at once (more: the oldest are reported lost early, counted in stats.evicted).
 * The frames held (from the oldest waiting request on), the echoes held and the settled
 * echoes not yet taken are each at most 4 * max_pending: past that the oldest waiting
 * echo is evicted the same way, echoes are forgotten early, and settled echoes nobody
 * took are dropped (stats.dropped). Each record costs O(1) amortised (O(log) in the
 * settled echoes waiting to be taken).
 */

typedef struct xb_tracker_options {
	xb_echo_options echo; /* matching (nonce, UDP port) */
	xb_frames_options frames;
	uint64_t loss_timeout_ns; /* 0: 1 s */
	size_t max_pending;       /* 0: 4096 */
} xb_tracker_options;

/* The defaults (echo_options_init, frames_options_init, 1 s, 4096). */
void tracker_options_init(xb_tracker_options *o);

/* A settled echo. */
typedef struct xb_echo_event {
	uint8_t kind;          /* XB_ECHO_ICMP or XB_ECHO_UDP */
	uint8_t state;         /* XB_ECHO_REPLIED, XB_ECHO_LOST or XB_ECHO_FAILED */
	uint8_t mismatch;      /* the reply's payload differs from the request's */
	uint16_t id, seq;      /* ICMP */
	uint16_t sport, dport; /* UDP */
	uint8_t nonce[XB_ECHO_MAX_NONCE];
	uint32_t size;         /* request payload bytes */
	uint64_t request_ns;   /* the request's OUT transfer: its end ('C'), else its 'S' */
	uint64_t submit_ns;    /* the request's 'S' record (when it was sent) */
	uint64_t reply_ns;     /* the reply's IN completion (REPLIED), else 0 */
	int64_t turnaround_ns; /* reply_ns - request_ns (echo_turnaround), -1 when none */
	size_t echo;           /* its index (as echo_get's; increasing with the request) */
} xb_echo_event;

typedef struct xb_tracker_stats {
	uint64_t records, frames; /* every record fed, every frame found */
	uint64_t requests, replied, lost, failed, late, evicted;
	uint64_t duplicates;  /* replies after the first */
	uint64_t unmatched;   /* replies that matched no request */
	uint64_t dropped;     /* settled echoes dropped because nobody took them */
	size_t pending;       /* waiting now */
	size_t ready;         /* settled, not taken yet */
	size_t frames_held;   /* frames held now (bounded) */
	size_t echoes_held;   /* echoes held now (bounded) */
	uint64_t now_ns;      /* the newest record's time (or tracker_advance's) */
} xb_tracker_stats;

typedef struct xb_tracker xb_tracker;

/* o may be NULL (defaults). NULL with err for bad echo options. */
xb_tracker *tracker_new(const xb_tracker_options *o, xb_err *err);
void tracker_free(xb_tracker *t);

/* Reads what the source has now (until XB_CAPTURE_AGAIN or END, at most max records; 0:
 * no limit) and matches it. Returns the last capture_next result, as frames_read does
 * (XB_CAPTURE_ERROR with err: what was read before stays). */
int tracker_feed(xb_tracker *t, xb_capture_source *s, uint64_t max, xb_err *err);
/* Feeds one parsed record (for callers with their own source loop). */
void tracker_add(xb_tracker *t, const xb_usbrec *r);

/* Takes up to max settled echoes, oldest request first; returns how many. An echo is
 * settled when replied or failed, or lost once now passes its request + loss_timeout. */
size_t tracker_take(xb_tracker *t, xb_echo_event *out, size_t max);
/* Lets the tracker's clock advance without records (an idle link): pending echoes older
 * than now_ns - loss_timeout_ns become lost. Times before the newest record are ignored.
 * At the end of a capture, tracker_advance(t, UINT64_MAX) settles every echo left. */
void tracker_advance(xb_tracker *t, uint64_t now_ns);
void tracker_stats(const xb_tracker *t, xb_tracker_stats *out);

#endif
