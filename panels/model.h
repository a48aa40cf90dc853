/* model: what the panels draw: the figures and data of one live session, gathered by the
 * application (tui/app.c) from the session once per frame. Plain data and pointers to
 * core models; no bench code. Every figure is NaN when it is not known (yet). */
#ifndef XB_PANELS_MODEL_H
#define XB_PANELS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/history.h"
#include "../core/image.h"
#include "../core/layout_edit.h"
#include "../core/liveprof.h"
#include "../core/plan.h"
#include "../core/logring.h"
#include "../core/series.h"
#include "../core/setmap.h"
#include "../core/srcline.h"
#include "../core/target.h"
#include "../core/triage.h"

/* The strip charts of the echoes panel, in the order it draws them. */
enum xb_model_series {
	XB_SERIES_TURNAROUND = 0, /* ms, median in the sliding window */
	XB_SERIES_ECHO_RATE,      /* replies per second */
	XB_SERIES_MISSES_PER_ECHO,/* XIP misses per echo, idle subtracted */
	XB_SERIES_HIT_RATE,       /* XIP hit rate, % */
	XB_SERIES_COUNT
};

/* An image of the layout loop as the layout panel shows it beside the pending layout:
 * what was predicted before its relink and what was measured on the board (NaN: not
 * known). */
typedef struct xb_model_image {
	const char *name;         /* "stock", "colour-2" */
	double measured;          /* misses per echo */
	double predicted, opt_bound;
	double turnaround_ms, peak_udp, footprint;
	double extra_ram;         /* bytes */
} xb_model_image;

/* One entry of the help screen (from the actions table): keys, the ':' command with its
 * arguments, what it does, and its group ("Panels", "Traffic" ...). */
typedef struct xb_help_entry {
	const char *keys;    /* "q", "1", "Tab", "" when it has no key */
	const char *command; /* "quit", "traffic udp RATE [SIZE]" */
	const char *help;
	const char *group;
} xb_help_entry;

typedef struct xb_model {
	/* ---- the status bar ---- */
	const char *bench;        /* "virtual Pico", "probe E6614103E7..." */
	const char *image;        /* the image's path */
	const char *layout;       /* "stock", a layout folder's name */
	const char *state;        /* "running", "bringing up the network", "probe lost" ... */
	int alert;                /* state is a problem (drawn as an alert) */
	double speed;             /* virtual bench: times real time; NaN on a real bench */
	int paused;
	double ratio;             /* virtual bench: virtual / wall time over the last second */
	double bench_seconds;     /* the board's time since the session started */
	uint64_t now_ns;          /* the session's clock */

	/* ---- figures now ---- */
	double echo_rate;         /* replies per second (last second) */
	double turnaround_ms;     /* median over the sliding window */
	double misses_per_echo;   /* idle subtracted, over the last ten seconds */
	double misses_per_s;      /* XIP misses per second (last second) */
	double idle_misses_per_s; /* the recorded idle window's, NaN before one */
	double hit_rate;          /* XIP hit rate (%), last second */
	double loss;              /* share of requests without a reply (%), last ten seconds */
	double sample_rate;       /* PC samples per second */
	uint64_t echoes;          /* replies since the start */
	uint64_t samples;         /* PC samples since the start */
	uint64_t samples_lost;    /* samples the ring could not hold (0 when none was lost) */

	/* ---- traffic settings ---- */
	double ping_rate;         /* per second, 0 off */
	unsigned ping_size;
	double udp_rate;          /* per second, 0 off */
	unsigned udp_size;
	int sweep;                /* a UDP step sweep is running */
	unsigned sweep_step, sweep_steps;
	double sweep_peak;        /* the highest reply rate of the sweep so far (NaN before) */

	/* ---- data ---- */
	const xb_target *tg;
	const xb_image *img;      /* NULL before an image is loaded */
	const xb_liveprof *prof;  /* NULL without a profile */
	const xb_srclines *src;   /* NULL without DWARF line tables */
	const xb_setmap *sets;    /* NULL before the first update */
	const double *func_misses; /* per image function: misses per echo attributed to it, NaN
				    * where unknown; NULL when nothing attributes misses */
	const char *func_misses_from; /* "trace replay", "virtual bench" */
	const xb_series *series[XB_SERIES_COUNT]; /* NULL entries are not drawn */
	const xb_logring *log;
	const xb_help_entry *help;
	size_t nhelp;

	/* ---- the layout loop (ed NULL: the image cannot be planned on: no map) ---- */
	xb_editor *ed;            /* the pending layout: the layout panel edits it */
	const char *ed_why;       /* without one: why (NULL: not known) */
	const xb_image *base;     /* the image layouts are planned on (ed's) */
	const xb_profile *plan_prof; /* the planning profile over base; NULL before one */
	const xb_layout *flashed_layout; /* the flashed image's layout over base */
	xb_model_image flashed;   /* the flashed image's figures */
	xb_prediction pending;    /* the pending layout's prediction (model NULL: none) */
	const xb_setmap *pending_sets; /* the planning profile's hot lines where the pending
				   * layout puts them (NULL without a planning profile) */
	int loop_running;         /* a step of the loop runs */
	int loop_failed;          /* the last run failed (loop_result says why) */
	double loop_fraction;     /* 0..1 where known, else -1 */
	const char *loop_progress; /* "relinking colour-2: 40 %" */
	const char *loop_result;  /* how the last run ended, "" before one */

	/* ---- the run history ---- */
	const char *history;      /* its path, NULL when runs are not recorded */
	const xb_run *const *runs; /* every run, oldest first, with profiles and set maps */
	size_t nruns;

	/* ---- the triage of the running image (core/triage.h): made again when the triage
	 * panel is shown and what it reads changed ---- */
	const xb_triage *triage;  /* the last good one; NULL before one */
	unsigned triage_version;  /* grows with each new triage */
	const char *triage_samples; /* where its samples came from ("live profile, last 10 s,
				   * idle subtracted"), NULL: none */
	const char *triage_trace; /* its fetch trace ("the planning profile's"), NULL: none */
	const char *triage_config; /* the build configuration's path, NULL: none */
	const char *triage_registers; /* the registers read over SWD ("XIP_CTRL 0x00000003"),
				       * NULL: none */
	const char *triage_error; /* why the last run failed (the last good one stays), NULL */

	/* ---- view settings the panels follow ---- */
	int window;               /* XB_WINDOW_* */
	int subtract;             /* busy minus idle */
} xb_model;

/* A model with every figure NaN, every pointer NULL, window 10 s. */
void model_init(xb_model *m);

#endif
