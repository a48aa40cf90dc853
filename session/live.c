/* live: what the session shows as it runs: PC samples through a bounded ring into the live
 * profile, the cache-set map, the figures over time, the figures now, and predictions
 * from a replayed fetch trace. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/opt.h"
#include "../core/trace.h"
#include "session_int.h"

#define LIVE_SERIES_POINTS 600 /* ten minutes of one-second points */
#define LIVE_SETS_EVERY_NS (250 * SS_MS)

void live_init(xb_session *s)
{
	if (s->have_img)
		s->prof = liveprof_new(&s->img, s->tg.cache.line, &s->o.prof);
	s->ring_cap = s->o.sample_ring ? s->o.sample_ring : 262144;
	s->ring = xcalloc(s->ring_cap, sizeof *s->ring);
	setmap_init(&s->sets, &s->tg);
	s->sets_window = -1;
	uint32_t nsets = s->sets.nsets, ways = s->sets.ways;
	s->view_prev = xcalloc(nsets, sizeof *s->view_prev);
	s->view_now = xcalloc(nsets, sizeof *s->view_now);
	s->view_tags = xcalloc((size_t)nsets * ways, sizeof *s->view_tags);
	s->view_rate = xcalloc(nsets, sizeof *s->view_rate);
	static const struct {
		const char *name, *unit;
	} def[XB_SS_COUNT] = {
		[XB_SS_TURNAROUND] = {"turnaround", "ms"},
		[XB_SS_ECHO_RATE] = {"echo rate", "/s"},
		[XB_SS_MISSES_PER_ECHO] = {"misses per echo", ""},
		[XB_SS_HIT_RATE] = {"XIP hit rate", "%"},
		[XB_SS_MISSES_PER_S] = {"misses per second", "/s"},
	};
	for (int i = 0; i < XB_SS_COUNT; i++)
		series_init(&s->series[i], def[i].name, def[i].unit, SS_NS, LIVE_SERIES_POINTS, s->now);
	s->series_next = s->now + SS_NS;
	s->rate_t = s->now;
}

void live_new_image(xb_session *s)
{
	int subtract = s->prof && liveprof_subtract(s->prof);
	liveprof_free(s->prof);
	s->prof = liveprof_new(&s->img, s->tg.cache.line, &s->o.prof);
	liveprof_set_subtract(s->prof, subtract);
	s->ring_n = 0; /* samples of the old image's addresses */
	setmap_set_predicted(&s->sets, NULL, NULL);
	free(s->func_misses);
	s->func_misses = NULL;
	s->sets_window = -1;
}

void live_free(xb_session *s)
{
	liveprof_free(s->prof);
	free(s->ring);
	setmap_free(&s->sets);
	free(s->view_prev);
	free(s->view_now);
	free(s->view_tags);
	free(s->view_rate);
	free(s->func_misses);
	for (int i = 0; i < XB_SS_COUNT; i++)
		series_free(&s->series[i]);
}

/* The sampler's sink: samples wait in the ring until the pump hands them on; a full ring
 * loses the newest and counts them. */
void live_sample_sink(void *ctx, uint32_t pc, uint32_t flags, uint64_t t_ns)
{
	xb_session *s = ctx;
	if (s->ring_n == s->ring_cap) {
		s->samples_lost++;
		return;
	}
	int64_t t = (int64_t)t_ns + s->clock_offset;
	s->ring[s->ring_n++] = (xb_live_sample){pc, flags, t > 0 ? (uint64_t)t : 0};
}

void live_drain(xb_session *s)
{
	if (s->ring_n) {
		if (s->prof)
			liveprof_add(s->prof, s->ring, s->ring_n);
		jobs_samples(s, s->ring, s->ring_n);
		s->samples += s->ring_n;
		s->ring_n = 0;
	}
	if (s->prof)
		liveprof_advance(s->prof, s->now);
	if (s->now >= s->rate_t + SS_NS) {
		s->sample_rate = (double)(s->samples - s->rate_samples) * 1e9 / (double)(s->now - s->rate_t);
		s->rate_t = s->now;
		s->rate_samples = s->samples;
	}
}

/* ---- Figures ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double turnaround_median(const xb_session *s)
{
	const tr_state *t = &s->tr;
	double v[SS_TURNAROUNDS];
	size_t n = 0;
	for (size_t i = 0; i < t->nturn; i++)
		if (t->turn_t[i] + SS_WINDOW_NS >= s->now)
			v[n++] = t->turn[i];
	if (!n)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return m / 1e6;
}

/* Replies and settled requests over the last `ns`, from the 100 ms buckets (the current
 * one included); *covered gets the time they span. */
static void echo_window(const xb_session *s, uint64_t ns, double *replies, double *lost,
			double *covered)
{
	uint64_t k = s->now / (100 * SS_MS), nb = ns / (100 * SS_MS);
	*replies = *lost = 0;
	for (uint64_t i = 0; i < nb && i <= k; i++) {
		const tr_bucket *b = &s->tr.buckets[(k - i) % SS_BUCKETS];
		if (b->t != k - i)
			continue;
		*replies += b->replies;
		*lost += b->lost;
	}
	/* the current bucket is partly over */
	double part = (double)(s->now % (100 * SS_MS)) / 1e9;
	*covered = (double)(nb - 1) * 0.1 + part;
	if (*covered > (double)s->now / 1e9)
		*covered = (double)s->now / 1e9;
}

void session_figures(xb_session *s, xb_session_figures *f)
{
	memset(f, 0, sizeof *f);
	double r1, l1, c1, r10, l10, c10;
	echo_window(s, SS_NS, &r1, &l1, &c1);
	echo_window(s, SS_WINDOW_NS, &r10, &l10, &c10);
	f->echo_rate = c1 > 0 ? r1 / c1 : NAN;
	f->loss = r10 + l10 > 0 ? 100.0 * l10 / (r10 + l10) : NAN;
	f->turnaround_ms = turnaround_median(s);
	counters_figures(s, &f->misses_per_echo, &f->misses_per_s, &f->hit_rate, &f->window_s);
	f->idle_misses_per_s = s->ct.idle_rate;
	f->sample_rate = s->sample_rate;
	f->requests = s->tr.requests;
	f->replies = s->tr.replies;
	f->lost = s->tr.lost;
	f->samples = s->samples;
	f->samples_lost = s->samples_lost;
	f->ping_rate = s->tr.ping_rate;
	f->udp_rate = s->tr.udp_rate;
	f->ping_size = s->tr.ping_size;
	f->udp_size = s->tr.udp_size;
	size_t sent, replied;
	f->sweep = traffic_sweep_state(s, &f->sweep_peak, &sent, &replied);
	f->sweep_step = s->tr.pass * (unsigned)s->tr.nrates + s->tr.step;
	f->sweep_steps = s->tr.passes * (unsigned)s->tr.nrates;
}

void live_series(xb_session *s)
{
	if (s->now < s->series_next)
		return;
	xb_session_figures f;
	session_figures(s, &f);
	uint64_t t = s->series_next - SS_NS;
	series_set(&s->series[XB_SS_TURNAROUND], t, f.turnaround_ms);
	series_set(&s->series[XB_SS_ECHO_RATE], t, f.echo_rate);
	series_set(&s->series[XB_SS_MISSES_PER_ECHO], t, f.misses_per_echo);
	series_set(&s->series[XB_SS_HIT_RATE], t, f.hit_rate);
	series_set(&s->series[XB_SS_MISSES_PER_S], t, f.misses_per_s);
	s->series_next += SS_NS;
	if (s->series_next <= s->now)
		s->series_next = s->now - s->now % SS_NS + SS_NS;
}

const xb_series *session_series(const xb_session *s, int which)
{
	return which >= 0 && which < XB_SS_COUNT ? &s->series[which] : NULL;
}

void session_mark(xb_session *s, const char *label)
{
	for (int i = 0; i < XB_SS_COUNT; i++)
		series_mark(&s->series[i], s->now, label);
	session_note(s, XB_LOG_INFO, "marker: %s", label);
}

const xb_liveprof *session_profile(const xb_session *s)
{
	return s->prof;
}

/* ---- Cache sets ---- */

const xb_setmap *session_sets(xb_session *s, int window)
{
	if (window == s->sets_window && s->now < s->sets_at + LIVE_SETS_EVERY_NS)
		return &s->sets;
	s->sets_window = window;
	s->sets_at = s->now;
	if (s->prof)
		setmap_update(&s->sets, &s->tg, s->prof, window);
	const xb_bench_ops *ops = s->bench->ops;
	if (ops->cache_view &&
	    ops->cache_view(s->bench, s->view_tags, s->view_now, s->sets.nsets, s->sets.ways) == 0) {
		if (s->view_ns && s->now > s->view_ns) {
			double dt = (double)(s->now - s->view_ns) / 1e9;
			for (uint32_t i = 0; i < s->sets.nsets; i++)
				s->view_rate[i] = (double)(s->view_now[i] - s->view_prev[i]) / dt;
			setmap_set_live(&s->sets, s->view_rate);
		}
		memcpy(s->view_prev, s->view_now, s->sets.nsets * sizeof *s->view_now);
		s->view_ns = s->now;
		setmap_set_contents(&s->sets, s->view_tags);
	}
	return &s->sets;
}

const double *session_func_misses(const xb_session *s, const char **from)
{
	if (from)
		*from = s->func_misses ? s->func_misses_from : NULL;
	return s->func_misses;
}

/* A miss of the replay, attributed to the function it is in. */
typedef struct miss_ctx {
	xb_session *s;
	double *per_func;
} miss_ctx;

static void on_miss(void *ctx, uint32_t addr)
{
	miss_ctx *m = ctx;
	long f = m->s->prof ? liveprof_function_at(m->s->prof, addr) : -1;
	if (f >= 0)
		m->per_func[f] += 1;
}

int session_load_trace(xb_session *s, const char *path, xb_report *rep)
{
	if (!s->have_img)
		return report_fail(rep, XB_STATUS_IMAGE_INVALID, "no image to replay the trace for");
	xb_trace t;
	xb_err err;
	if (trace_read_file(&t, path, &err) != 0)
		return report_err(rep, XB_STATUS_IO, &err);
	uint32_t nsets = s->sets.nsets;
	uint64_t *sm = xcalloc(nsets, sizeof *sm);
	double *pf = xcalloc(s->img.nfuncs, sizeof *pf);
	miss_ctx mc = {s, pf};
	xb_replay r;
	int rc = replay_trace_detail(&s->tg, &t, &r, sm, nsets, on_miss, &mc, &err);
	trace_free(&t);
	if (rc != 0) {
		free(sm);
		free(pf);
		return report_err(rep, XB_STATUS_IO, &err);
	}
	double echoes = r.echoes ? (double)r.echoes : 1;
	double *per_set = xcalloc(nsets, sizeof *per_set);
	for (uint32_t i = 0; i < nsets; i++)
		per_set[i] = (double)sm[i] / echoes;
	for (size_t i = 0; i < s->img.nfuncs; i++)
		pf[i] /= echoes;
	const char *base = strrchr(path, '/');
	char from[64];
	snprintf(from, sizeof from, "trace %s, %zu echoes", base ? base + 1 : path, r.echoes);
	setmap_set_predicted(&s->sets, per_set, from);
	free(s->func_misses);
	s->func_misses = pf;
	snprintf(s->func_misses_from, sizeof s->func_misses_from, "trace replay (%s)", from);
	session_note(s, XB_LOG_INFO, "replayed %s: %.1f misses per echo over %zu echoes", path,
		    r.misses_per_echo, r.echoes);
	free(per_set);
	free(sm);
	return 0;
}
