/* liveprof: the live profile of a session: PC samples accumulated as they arrive, per
 * function, per library and display group and per 8-byte line, in time buckets so that a
 * view can show the last second, the last ten seconds or everything; the study's
 * busy-minus-idle method as an option (a recorded idle window subtracted). Memory is
 * fixed when the profile is made: a session of any length uses the same. */
#ifndef XB_LIVEPROF_H
#define XB_LIVEPROF_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"

/*
 * A sample is a PC with flags (core/profile.h: XB_SAMPLE_IDLE, XB_SAMPLE_SLEEP) and the
 * host time it was taken (ns, any monotonic origin). Its kind:
 *
 *  - halted: pc 0xFFFFFFFF (the core in debug state or locked up);
 *  - sleep:  XB_SAMPLE_SLEEP (the core was in WFI/WFE);
 *  - idle:   XB_SAMPLE_IDLE (taken in a recorded idle window, see below), not sleeping;
 *  - busy:   everything else: the core ran that instruction while the bench worked.
 *
 * Busy samples are attributed to the function whose [addr, addr + size) holds the PC (the
 * first of aliases; where functions nest or overlap, the later one in the image's order,
 * as profile_build decides) through a table of address ranges made once from the image; a
 * busy sample in no function is "unattributed" (ROM code, a PC outside the image). Per
 * function the profile also counts samples per 8-byte line (the cache line: line_size),
 * each line of [addr, addr + size) rounded out to whole lines, so two functions that
 * share a line each count their own samples on it. (Lines beyond 2^21 in all, which only
 * a corrupt image's giant symbols reach, get no per-line counts.) A sample flagged both
 * idle and sleeping is a sleep sample; the halted marker is halted whatever its flags.
 *
 * Time: the clock starts at the first sample (or liveprof_reset); buckets of bucket_ns
 * (default 250 ms) follow one another from there. The profile keeps the last nbuckets
 * (default 40: 10 s) and running totals for three windows: XB_WINDOW_1S (the k buckets of
 * the last second, k = ceil(1 s / bucket_ns), the current one included; all kept buckets
 * when fewer are kept), XB_WINDOW_10S (all kept buckets) and XB_WINDOW_ALL (since the
 * start or the last liveprof_reset). A window's seconds are the time it covers: for the
 * bucket windows (k - 1) * bucket_ns plus the part of the current bucket that has passed,
 * but no more than has passed since the start; for ALL, from the start to now. Samples
 * older than the newest bucket's start (out of order) count in the newest bucket. Time
 * only moves forward: liveprof_advance(now) rotates the buckets when no sample comes
 * (before the first sample it does nothing).
 *
 * Per library there is also a history of samples per second (default 120 buckets of 1 s,
 * on the same clock) for the heat strips over time; the current bucket reads its samples
 * so far over the whole bucket length.
 *
 * Idle subtraction: idle samples (XB_SAMPLE_IDLE) never count as busy; they go into the
 * idle recording: per function and per line counts and the recording's length in seconds
 * (liveprof_idle_window adds the length of each idle window the session recorded). With
 * subtraction on (liveprof_set_subtract), a function's (or line's, library's) figure in a
 * window is max(0, busy - idle_rate * window seconds), idle_rate being its idle samples
 * per idle second: busy minus idle as the study computes it, scaled to the window. With
 * no idle recording (0 s), subtraction changes nothing. A library's figure is the sum of
 * its functions' figures, in the windows and in each bucket of the history alike (the
 * history keeps every function's count per bucket for that).
 */

enum xb_window { XB_WINDOW_1S = 0, XB_WINDOW_10S, XB_WINDOW_ALL, XB_WINDOW_COUNT };

/* "1s", "10s", "all", and back (-1 when unknown). */
const char *liveprof_window_name(int window);
int liveprof_window_find(const char *name);

typedef struct xb_live_sample {
	uint32_t pc;
	uint32_t flags; /* XB_SAMPLE_* */
	uint64_t t_ns;  /* host time */
} xb_live_sample;

typedef struct xb_liveprof_config {
	uint64_t bucket_ns;  /* 0: 250 ms */
	unsigned nbuckets;   /* 0: 40 (with 250 ms: 10 s); at least 1 s worth */
	uint64_t history_ns; /* library history bucket, 0: 1 s */
	unsigned history;    /* 0: 120 */
} xb_liveprof_config;

typedef struct xb_liveprof xb_liveprof;

/* A profile for img (kept by pointer: it must outlive the profile), with line_size-byte
 * lines (0: 8). cfg may be NULL (defaults). */
xb_liveprof *liveprof_new(const xb_image *img, uint32_t line_size, const xb_liveprof_config *cfg);
void liveprof_free(xb_liveprof *p);
const xb_image *liveprof_image(const xb_liveprof *p);
uint32_t liveprof_line_size(const xb_liveprof *p);

/* Adds n samples (see above). Never fails; O(log functions) per sample at worst (a block
 * table and the last hit make it about O(1)); a bucket rotation costs O(functions + lines
 * with samples in the bucket that leaves). */
void liveprof_add(xb_liveprof *p, const xb_live_sample *s, size_t n);
/* Moves the clock to now_ns (rotating buckets; earlier times are ignored). */
void liveprof_advance(xb_liveprof *p, uint64_t now_ns);
/* The profile's clock: the latest time seen. */
uint64_t liveprof_now(const xb_liveprof *p);
/* Forgets every sample and the idle recording; the clock starts again at now_ns. */
void liveprof_reset(xb_liveprof *p, uint64_t now_ns);

/* Idle recording: adds seconds of recorded idle window (the samples themselves come
 * flagged XB_SAMPLE_IDLE through liveprof_add); liveprof_idle_clear forgets it. */
void liveprof_idle_window(xb_liveprof *p, double seconds);
void liveprof_idle_clear(xb_liveprof *p);
double liveprof_idle_seconds(const xb_liveprof *p);
uint64_t liveprof_idle_samples(const xb_liveprof *p);
void liveprof_set_subtract(xb_liveprof *p, int on);
int liveprof_subtract(const xb_liveprof *p);

/* ---- Queries (window: XB_WINDOW_*) ---- */

typedef struct xb_liveprof_totals {
	double seconds;       /* the window's length (see above) */
	uint64_t samples;     /* every sample in the window (idle ones excluded) */
	uint64_t busy;        /* busy samples (attributed or not) */
	uint64_t sleep, halted;
	uint64_t unattributed; /* busy samples in no function */
	double net;           /* sum over functions of their figure (busy, or busy - idle) */
	double rate;          /* samples per second */
} xb_liveprof_totals;
void liveprof_totals(const xb_liveprof *p, int window, xb_liveprof_totals *out);

/* A function's figure in a window (busy samples, or busy - idle when subtracting), by its
 * index in the image; aliases other than the first give 0 (so do bad indices and windows,
 * here and below). */
double liveprof_func(const xb_liveprof *p, int window, size_t func);
/* Its busy samples (never subtracted) and recorded idle samples. */
uint64_t liveprof_func_busy(const xb_liveprof *p, int window, size_t func);
uint64_t liveprof_func_idle(const xb_liveprof *p, size_t func);
/* Distinct lines of the function with a busy sample in the window. */
uint32_t liveprof_func_lines_touched(const xb_liveprof *p, int window, size_t func);

/* The lines of a function: its first line address and the number of lines (0 for a
 * zero-size symbol; an alias reports its lines, whose figures are its first's). */
void liveprof_func_lines(const xb_liveprof *p, size_t func, uint32_t *first, uint32_t *count);
/* The figure of line k (0 .. count-1) of func in a window. */
double liveprof_line(const xb_liveprof *p, int window, size_t func, uint32_t k);

/* Per library (index into img->libraries) and per display group. Groups are the distinct
 * xb_library.group names, in order of first appearance among the libraries. */
double liveprof_library(const xb_liveprof *p, int window, size_t lib);
size_t liveprof_groups(const xb_liveprof *p);
const char *liveprof_group_name(const xb_liveprof *p, size_t group);
size_t liveprof_group_of(const xb_liveprof *p, size_t lib);
double liveprof_group(const xb_liveprof *p, int window, size_t group);

/* A library's history: samples per second of busy samples (subtracted when subtracting)
 * in each of the last n history buckets, oldest first, into out[0..n); buckets before the
 * start read 0. Returns how many of them are real (not before the start). */
size_t liveprof_library_history(const xb_liveprof *p, size_t lib, double *out, size_t n);
/* The same for a display group. */
size_t liveprof_group_history(const xb_liveprof *p, size_t group, double *out, size_t n);
uint64_t liveprof_history_ns(const xb_liveprof *p);

/* Lines with a busy sample in the window, over all functions: calls fn(ctx, line address,
 * function index, figure) in address order (a shared line once per function). */
typedef void (*xb_liveprof_line_fn)(void *ctx, uint32_t line, size_t func, double value);
void liveprof_each_line(const xb_liveprof *p, int window, xb_liveprof_line_fn fn, void *ctx);

/* The function holding addr (Thumb bit ignored), or -1: the profile's own table. */
long liveprof_function_at(const xb_liveprof *p, uint32_t addr);

#endif
