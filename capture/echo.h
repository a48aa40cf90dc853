/* echo: requests matched to replies among a capture's frames (ICMP echo by identifier and
 * sequence number, UDP by a payload nonce), the turnaround of each echo and its median,
 * and the UDP echo rate over fixed rate steps (the study's metrics). */
#ifndef XB_CAPTURE_ECHO_H
#define XB_CAPTURE_ECHO_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "frames.h"

/*
 * Requests are frames to the device (OUT), replies frames from it (IN):
 *
 *  - ICMP: an echo request (type 8) and the echo reply (type 0) with the same identifier
 *    and sequence number, between the same two IPv4 addresses (swapped).
 *  - UDP: a datagram to the device (to --udp-port only, when given) and a datagram back
 *    between the same addresses and ports (swapped) whose payload carries the same nonce:
 *    nonce_len bytes at nonce_offset of the UDP payload. The default, the first 8 bytes,
 *    fits the virtual network peer (sim/netpeer.h: "xbnp" and the echo's index, big
 *    endian) and any sender that starts each datagram with a unique 8-byte value (a
 *    counter, a timestamp).
 *
 * A request whose key (addresses, identifiers, nonce) was seen before replaces the older
 * one for later replies. The first reply to a request is its reply; later ones are
 * duplicates. A reply matching no request is unmatched (UDP: only datagrams of a flow
 * that carried requests count; other UDP traffic is not echo traffic). A reply whose
 * payload differs from the request's (in the bytes both captured) still matches and is
 * counted as mismatched.
 *
 * Turnaround (the study's definition): from the end of the OUT transfer carrying the
 * request (its 'C' record) to the end of the IN transfer carrying the reply (its 'C'
 * record). A request whose OUT transfer failed never reached the device (failed); one
 * whose completion is not in the capture has no turnaround.
 */

enum xb_echo_kind { XB_ECHO_ICMP = 1, XB_ECHO_UDP = 2 };
enum xb_echo_state { XB_ECHO_LOST = 0, XB_ECHO_REPLIED, XB_ECHO_FAILED };

#define XB_ECHO_MAX_NONCE 16u
#define XB_ECHO_NONE SIZE_MAX

typedef struct xb_echo_options {
	uint32_t nonce_offset; /* UDP payload offset of the nonce (default 0) */
	uint32_t nonce_len;    /* 1 .. XB_ECHO_MAX_NONCE (default 8) */
	int udp_port;          /* UDP requests go to this port; -1 (default): any */
} xb_echo_options;

typedef struct xb_echo {
	uint8_t kind;                     /* enum xb_echo_kind */
	uint8_t mismatch;                 /* the reply's payload differs from the request's */
	uint16_t id, seq;                 /* ICMP */
	uint16_t sport, dport;            /* UDP: the request's ports */
	uint8_t nonce[XB_ECHO_MAX_NONCE]; /* UDP: nonce_len bytes */
	uint32_t size;                    /* ICMP echo data or UDP payload bytes of the request */
	size_t request;                   /* frame index of the request */
	size_t reply;                     /* frame index of the first reply, or XB_ECHO_NONE */
	uint32_t duplicates;              /* replies after the first */
} xb_echo;

typedef struct xb_echoes xb_echoes;

void echo_options_init(xb_echo_options *o);
/* o may be NULL (defaults). Fails when nonce_len is 0 or above XB_ECHO_MAX_NONCE. */
xb_echoes *echo_new(const xb_echo_options *o, xb_err *err);
void echo_free(xb_echoes *e);

/* Matches the frames of fs it has not seen yet (call again as fs grows). Frames discarded
 * before it saw them are skipped. */
void echo_update(xb_echoes *e, const xb_frames *fs);
/* The same up to frame end (exclusive; at most frames_count): for callers that follow one
 * frame at a time when a record ends several (CDC-NCM, RNDIS). */
void echo_update_until(xb_echoes *e, const xb_frames *fs, size_t end);

/* Echoes ever found: indices are absolute (echo_discard does not renumber). */
size_t echo_count(const xb_echoes *e);
/* Echo i, or NULL when it is not held (discarded, or not found yet). The pointer is valid
 * until the next echo_update or echo_discard. */
const xb_echo *echo_get(const xb_echoes *e, size_t i);
/* The echo's state, from its frames (an echo not held: lost). */
enum xb_echo_state echo_state(const xb_echoes *e, const xb_frames *fs, size_t i);
const char *echo_state_name(enum xb_echo_state s); /* "lost", "replied", "failed" */
const char *echo_kind_name(uint8_t kind);          /* "icmp", "udp" */
/* Echo i's turnaround in nanoseconds: 0, or -1 when it has none (no reply, the request's
 * OUT completion missing or failed, the echo or one of its frames not held). */
int echo_turnaround(const xb_echoes *e, const xb_frames *fs, size_t i, int64_t *ns);
/* Replies of one kind (0: both) that matched no request, since echo_new. */
size_t echo_unmatched(const xb_echoes *e, int kind);

typedef struct xb_echo_summary {
	size_t requests;
	size_t replied;
	size_t lost;               /* no reply in the capture */
	size_t failed;             /* the OUT transfer failed */
	size_t duplicates;         /* replies after the first */
	size_t mismatched;         /* replies whose payload differs */
	size_t unmatched;          /* replies that match no request */
	size_t turnarounds;        /* echoes with a turnaround */
	int64_t min_ns, max_ns;    /* 0 when there is none */
	double median_ns, mean_ns; /* median of an even count: mean of the middle two */
} xb_echo_summary;
/* Over the echoes held of one kind (0: both); unmatched and mismatched count every reply
 * since echo_new. */
void echo_summarize(const xb_echoes *e, const xb_frames *fs, int kind, xb_echo_summary *s);

/* ---- Bounded memory (a live capture of any length) ---- */

/* Forgets the echoes of index below before (at most echo_count): echo_get returns NULL
 * for them, echo_count still counts them, and their keys leave the matching tables, so a
 * reply that comes for one later is unmatched, or not echo traffic once no echo of its UDP
 * flow is held. An echo whose request frame was discarded (frames_discard) keeps matching
 * replies without its payload being compared; its state comes from the reply alone (it
 * cannot be seen to have failed) and it has no turnaround. */
void echo_discard(xb_echoes *e, size_t before);
/* Echoes held now: echo_count less those discarded. */
size_t echo_held(const xb_echoes *e);
/* The echo that the last frame echo_update looked at was a reply to (its first reply or
 * a duplicate), or XB_ECHO_NONE (no reply, or unmatched). For callers that call
 * echo_update after each new frame (tracker.h). */
size_t echo_last_reply(const xb_echoes *e);

/* ---- UDP echo rate over fixed rate steps (echo_rate.c) ---- */

/*
 * The host offers UDP echo requests at fixed rates, one step after another, in several
 * passes. A pass starts at start_ns (0: the first UDP request) for the first pass, then at
 * the first UDP request sent after the previous pass ended (a reflash between passes
 * takes as long as it takes); its steps follow each other every step_ns + gap_ns. A
 * request belongs to the step during which it was sent (its first 'S' record); the step's
 * reply rate is the number of those requests that got a reply, divided by step_ns. The
 * peak is the highest reply rate of any step of any pass.
 */
typedef struct xb_rate_plan {
	const uint32_t *rates; /* offered datagrams per second, in the order they were run */
	size_t nrates;
	uint64_t step_ns;  /* length of a step (> 0) */
	uint64_t gap_ns;   /* pause after each step */
	unsigned passes;   /* at least 1 */
	uint64_t start_ns; /* the first pass's start; 0: the first UDP request */
} xb_rate_plan;

typedef struct xb_rate_step {
	unsigned pass;     /* from 0 */
	size_t step;       /* index into rates */
	uint32_t rate;     /* offered */
	uint64_t start_ns; /* 0 when the pass found no request to start at */
	size_t sent, replied;
	double sent_rate, reply_rate; /* per second of step_ns */
} xb_rate_step;

typedef struct xb_rate_result {
	xb_rate_step *steps; /* passes * nrates, pass by pass */
	size_t n;
	unsigned passes_found; /* passes that had a request to start at */
	size_t outside;        /* UDP requests in no step */
	double peak;           /* the highest reply_rate */
	size_t peak_step;      /* its index into steps (0 when every step is empty) */
} xb_rate_result;

/* Fails for an empty or inconsistent plan. Over the UDP echoes held whose request frame
 * is held. The caller frees with echo_rate_free. */
int echo_rate_sweep(const xb_echoes *e, const xb_frames *fs, const xb_rate_plan *plan,
		    xb_rate_result *out, xb_err *err);
void echo_rate_free(xb_rate_result *r);

/* The same steps counted as the requests come (a live sweep; echo_rate_sweep runs on it):
 * give it the UDP requests in the order they were sent. One that comes out of order (a
 * lost request reported at its timeout) still counts in its step when its pass had
 * started; one with no time (0) is outside. */
typedef struct xb_rate_counter xb_rate_counter;
/* NULL with err for an empty or inconsistent plan (as echo_rate_sweep). The plan is
 * copied. */
xb_rate_counter *rate_counter_new(const xb_rate_plan *plan, xb_err *err);
/* One request, sent at request_ns: the first 'S' record of its transfer, else its 'C'
 * (what echo_rate_sweep uses; an xb_echo_event's submit_ns, else its request_ns). */
void rate_counter_add(xb_rate_counter *c, uint64_t request_ns, int replied);
/* The steps so far, as echo_rate_sweep gives them (steps of passes not reached are empty);
 * the caller frees with echo_rate_free. 0, or -1 with err when c is NULL. */
int rate_counter_result(const xb_rate_counter *c, xb_rate_result *out, xb_err *err);
void rate_counter_free(xb_rate_counter *c);

#endif
