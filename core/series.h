/* series: a figure over time for strip charts (turnaround, echo rate, misses per echo, XIP
 * hit rate ...): a fixed ring of points, one per period, and markers (the image changed,
 * the traffic changed). Memory is fixed when the series is made. */
#ifndef XB_SERIES_H
#define XB_SERIES_H

#include <stddef.h>
#include <stdint.h>

#define XB_SERIES_MARKERS 32 /* markers kept (the oldest go first) */

typedef struct xb_series_marker {
	uint64_t t_ns;
	char label[24];
} xb_series_marker;

typedef struct xb_series {
	char name[32];       /* "turnaround" */
	char unit[16];       /* "ms", "/s", "%" */
	uint64_t period_ns;  /* one point per period */
	size_t cap;          /* points kept */
	double *v;           /* ring: NaN where no value was set */
	uint64_t first_ns;   /* start time of point index 0 (the period grid's origin) */
	uint64_t head;       /* index (since the origin) of the newest point + 1; 0: none */
	xb_series_marker markers[XB_SERIES_MARKERS];
	size_t nmarkers;
} xb_series;

/* A series of cap points (at least 2) of period_ns (> 0) whose grid starts at origin_ns. */
void series_init(xb_series *s, const char *name, const char *unit, uint64_t period_ns,
		 size_t cap, uint64_t origin_ns);
void series_free(xb_series *s);
/* Sets the value of the point whose period holds t_ns (later points that were skipped are
 * NaN; a time before the kept points is ignored; setting a point twice keeps the last
 * value; an infinite value is stored as NaN, no value). */
void series_set(xb_series *s, uint64_t t_ns, double value);
/* Moves the newest point to the one holding t_ns without a value (NaN), so that a chart
 * scrolls while nothing is measured. */
void series_advance(xb_series *s, uint64_t t_ns);
/* Adds a marker at t_ns (label cut to fit). Markers are kept in time order: one older than
 * the newest is inserted in its place; when XB_SERIES_MARKERS are kept the oldest goes (a
 * new marker older than all of them is then dropped). */
void series_mark(xb_series *s, uint64_t t_ns, const char *label);

/* Points available (at most cap), and point i counted back from the newest (0 = newest);
 * NaN when unset or out of range. */
size_t series_count(const xb_series *s);
double series_back(const xb_series *s, size_t i);
/* Start time of point i counted back from the newest (the origin when there is none). */
uint64_t series_time_back(const xb_series *s, size_t i);
/* The newest value that is set (NaN if none) and its age in points (NULL ok). */
double series_latest(const xb_series *s, size_t *age);
/* Minimum and maximum over the last n points that are set: 1, or 0 (lo and hi 0) when
 * none is. */
int series_range(const xb_series *s, size_t n, double *lo, double *hi);

#endif
