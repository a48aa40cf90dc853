/* series: a figure over time in a fixed ring of points, with markers (see series.h). */
#include "series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void series_init(xb_series *s, const char *name, const char *unit, uint64_t period_ns,
		 size_t cap, uint64_t origin_ns)
{
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name ? name : "");
	snprintf(s->unit, sizeof s->unit, "%s", unit ? unit : "");
	s->period_ns = period_ns ? period_ns : 1;
	s->cap = cap < 2 ? 2 : cap;
	s->v = xmalloc(s->cap * sizeof *s->v);
	for (size_t i = 0; i < s->cap; i++)
		s->v[i] = NAN;
	s->first_ns = origin_ns;
}

void series_free(xb_series *s)
{
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* The index of the point holding t_ns (>= first_ns), kept below UINT64_MAX so that
 * head = index + 1 cannot wrap. */
static uint64_t series_index(const xb_series *s, uint64_t t_ns)
{
	uint64_t k = (t_ns - s->first_ns) / s->period_ns;
	return k < UINT64_MAX - 1 ? k : UINT64_MAX - 2;
}

/* Makes the point of index k the newest, the skipped ones NaN. */
static void series_extend(xb_series *s, uint64_t k)
{
	uint64_t from = s->head;
	if (k + 1 - from > s->cap)
		from = k + 1 - s->cap; /* everything kept is overwritten */
	for (uint64_t i = from; i <= k; i++)
		s->v[i % s->cap] = NAN;
	s->head = k + 1;
}

void series_set(xb_series *s, uint64_t t_ns, double value)
{
	if (!s->v || t_ns < s->first_ns)
		return;
	uint64_t k = series_index(s, t_ns);
	if (k >= s->head)
		series_extend(s, k);
	else if (s->head - k > s->cap)
		return; /* older than the kept points */
	s->v[k % s->cap] = isinf(value) ? NAN : value;
}

void series_advance(xb_series *s, uint64_t t_ns)
{
	if (!s->v || t_ns < s->first_ns)
		return;
	uint64_t k = series_index(s, t_ns);
	if (k >= s->head)
		series_extend(s, k);
}

void series_mark(xb_series *s, uint64_t t_ns, const char *label)
{
	size_t at = s->nmarkers;
	while (at > 0 && s->markers[at - 1].t_ns > t_ns)
		at--;
	if (s->nmarkers == XB_SERIES_MARKERS) {
		if (at == 0)
			return; /* older than every kept marker: it would be the first to go */
		memmove(s->markers, s->markers + 1, (XB_SERIES_MARKERS - 1) * sizeof *s->markers);
		s->nmarkers--;
		at--;
	}
	memmove(s->markers + at + 1, s->markers + at, (s->nmarkers - at) * sizeof *s->markers);
	s->markers[at].t_ns = t_ns;
	snprintf(s->markers[at].label, sizeof s->markers[at].label, "%s", label ? label : "");
	s->nmarkers++;
}

size_t series_count(const xb_series *s)
{
	return s->head < s->cap ? (size_t)s->head : s->cap;
}

double series_back(const xb_series *s, size_t i)
{
	if (i >= series_count(s))
		return NAN;
	return s->v[(s->head - 1 - i) % s->cap];
}

uint64_t series_time_back(const xb_series *s, size_t i)
{
	if (s->head == 0)
		return s->first_ns;
	uint64_t k = i < s->head ? s->head - 1 - i : 0;
	return s->first_ns + k * s->period_ns;
}

double series_latest(const xb_series *s, size_t *age)
{
	size_t n = series_count(s);
	for (size_t i = 0; i < n; i++) {
		double v = series_back(s, i);
		if (!isnan(v)) {
			if (age)
				*age = i;
			return v;
		}
	}
	if (age)
		*age = n;
	return NAN;
}

int series_range(const xb_series *s, size_t n, double *lo, double *hi)
{
	size_t count = series_count(s);
	if (n > count)
		n = count;
	int any = 0;
	double a = 0, b = 0;
	for (size_t i = 0; i < n; i++) {
		double v = series_back(s, i);
		if (isnan(v))
			continue;
		if (!any || v < a)
			a = v;
		if (!any || v > b)
			b = v;
		any = 1;
	}
	if (lo)
		*lo = a;
	if (hi)
		*hi = b;
	return any;
}
