/* layout: the layout editor's panel: the pending layout (the editor's, m->ed) against the
 * flashed one: budgets and what the pending layout uses, its prediction beside the flashed
 * image's figures, the loop's state and what undo would undo; below, the base image's
 * functions with their pending and flashed placements, and the tags that choose what the
 * application's edits apply to (the panel itself never edits). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "panel.h"
#include "widgets.h"

#define LAYOUT_SORTS "samples,bytes,density,name,address,pending"
enum { SORT_SAMPLES, SORT_BYTES, SORT_DENSITY, SORT_NAME, SORT_ADDRESS, SORT_PENDING };

enum { COL_TAG, COL_NAME, COL_SAMPLES, COL_BYTES, COL_DENSITY, COL_PENDING, COL_PIN,
       COL_FLASHED, COL_CHANGE, COL_LIBRARY, NCOLS };

static const wg_column layout_columns[NCOLS] = {
	[COL_TAG] = {"", 1, 0, XB_ALIGN_LEFT, 0, NULL},
	[COL_NAME] = {"function", 0, 16, XB_ALIGN_LEFT, 0, "name"},
	[COL_SAMPLES] = {"samples", 8, 0, XB_ALIGN_RIGHT, 0, "samples"},
	[COL_BYTES] = {"bytes", 6, 0, XB_ALIGN_RIGHT, 7, "bytes"},
	[COL_DENSITY] = {"per byte", 8, 0, XB_ALIGN_RIGHT, 8, "density"},
	[COL_PENDING] = {"pending", 17, 0, XB_ALIGN_LEFT, 0, "pending"},
	[COL_PIN] = {"pin", 3, 0, XB_ALIGN_LEFT, 5, NULL},
	[COL_FLASHED] = {"flashed", 17, 0, XB_ALIGN_LEFT, 4, NULL},
	[COL_CHANGE] = {"change", 6, 0, XB_ALIGN_LEFT, 3, NULL},
	[COL_LIBRARY] = {"library", 18, 0, XB_ALIGN_LEFT, 9, NULL},
};

/* Where a layout puts one function. */
typedef struct place_of {
	uint8_t place;     /* enum xb_place */
	uint8_t is_auto;   /* an automatic colour */
	uint8_t packed;    /* an automatic colour the editor packed as a plain hot entry */
	uint8_t pinned;
	uint32_t offset;   /* XB_PLACE_COLOUR: way offset */
	long position;     /* in the hot block or the RAM function section; -1 */
} place_of;

typedef struct layout_state {
	wg_ftable t;          /* rows, selection, sort, filter, search */
	/* per base function, gathered at each look at the model */
	place_of *pend, *flashed;
	uint8_t *marks;       /* editor_compare's bits */
	size_t nper;          /* entries the three arrays hold */
	size_t ndiff;         /* functions placed otherwise than in the flashed layout */
	uint8_t *tag;         /* per base function: tagged */
	size_t ntag, ntagged; /* entries of tag; how many are set */
	const xb_model *m;    /* for the cells and the rows a search makes again */
} layout_state;

static void *layout_create(void)
{
	layout_state *s = xcalloc(1, sizeof *s);
	wg_ftable_init(&s->t);
	return s;
}

static void layout_destroy(void *st)
{
	layout_state *s = st;
	if (!s)
		return;
	wg_ftable_free(&s->t);
	free(s->pend);
	free(s->flashed);
	free(s->marks);
	free(s->tag);
	free(s);
}

/* The image the pending layout is over, or NULL when there is nothing to edit. */
static const xb_image *layout_base(const xb_model *m)
{
	return m->ed && m->base ? m->base : NULL;
}

/* A function's net samples in the planning profile; NaN without one. */
static double layout_net(const xb_model *m, size_t i)
{
	const xb_profile *p = m->plan_prof;
	if (!p || !p->func || !p->img || i >= p->img->nfuncs)
		return NAN;
	return p->func[i].net;
}

static int layout_tagged(const layout_state *s, size_t i)
{
	return i < s->ntag && s->tag[i];
}

/* ---- the two layouts, function by function ---- */

/* Where layout l puts each function (entries name the first of aliases; the rest follow
 * it), with the positions counted as the editor counts them. */
static void places_of_layout(const xb_image *img, const xb_layout *l, place_of *out)
{
	size_t n = img->nfuncs;
	for (size_t i = 0; i < n; i++)
		out[i] = (place_of){XB_PLACE_DEFAULT, 0, 0, 0, 0, -1};
	if (!l)
		return;
	long nhot = 0, nsram = 0;
	for (size_t k = 0; k < l->n; k++) {
		const xb_layout_entry *e = &l->e[k];
		if (e->func < 0 || (size_t)e->func >= n || e->place == XB_PLACE_DEFAULT ||
		    out[e->func].place != XB_PLACE_DEFAULT)
			continue;
		place_of *p = &out[e->func];
		p->place = (uint8_t)e->place;
		p->offset = e->place == XB_PLACE_COLOUR ? e->way_offset : 0;
		p->position = e->place == XB_PLACE_SRAM ? nsram++ : nhot++;
	}
	for (size_t k = 0; k < l->npins; k++)
		if (l->pins[k] >= 0 && (size_t)l->pins[k] < n)
			out[l->pins[k]].pinned = 1;
	for (size_t i = 0; i < n; i++) {
		int a = img->funcs[i].alias_of;
		if (a >= 0 && (size_t)a < n)
			out[i] = out[a];
	}
}

/* The pending and flashed placements and the difference marks of every base function. */
static void layout_gather(layout_state *s, const xb_model *m)
{
	const xb_image *base = layout_base(m);
	size_t n = base ? base->nfuncs : 0;
	/* editor_compare writes a mark for each of the editor's functions: its image is the
	 * base, but room for both counts costs nothing */
	size_t ne = base ? editor_placement(m->ed)->n : 0, need = (n > ne ? n : ne) + 1;
	if (s->nper < need) {
		free(s->pend);
		free(s->flashed);
		free(s->marks);
		s->pend = xmalloc(need * sizeof *s->pend);
		s->flashed = xmalloc(need * sizeof *s->flashed);
		s->marks = xmalloc(need);
		s->nper = need;
	}
	s->ndiff = 0;
	if (!base)
		return;
	/* the editor's own entries tell an automatic colour it packed as a plain hot entry */
	places_of_layout(base, editor_layout(m->ed), s->flashed);
	for (size_t i = 0; i < n; i++) {
		xb_edit_func f;
		editor_function(m->ed, (int)i, &f);
		s->pend[i] = (place_of){(uint8_t)f.place, f.auto_colour,
				       f.auto_colour && s->flashed[i].place == XB_PLACE_HOT,
				       f.pinned, f.way_offset, f.position};
	}
	/* without a flashed layout the board runs the base image: the stock layout */
	xb_layout stock;
	layout_init(&stock);
	const xb_layout *fl = m->flashed_layout ? m->flashed_layout : &stock;
	places_of_layout(base, fl, s->flashed);
	s->ndiff = editor_compare(m->ed, fl, s->marks);
}

/* "flash", "hot 12", "colour 0x1a0", "colour auto→0x1a0", "auto→hot 12", "SRAM". */
static const char *place_text(char *buf, size_t cap, const place_of *p)
{
	switch (p->place) {
	case XB_PLACE_HOT:
		snprintf(buf, cap, "hot %ld", p->position);
		break;
	case XB_PLACE_COLOUR:
		if (p->packed)
			snprintf(buf, cap, "auto\u2192hot %ld", p->position);
		else
			snprintf(buf, cap, "colour %s0x%x", p->is_auto ? "auto\u2192" : "",
				 p->offset);
		break;
	case XB_PLACE_SRAM:
		snprintf(buf, cap, "SRAM");
		break;
	case XB_PLACE_NOALLOC:
		snprintf(buf, cap, "no-alloc");
		break;
	default:
		snprintf(buf, cap, "flash");
	}
	return buf;
}

/* ---- rows ---- */

/* A row's sort key (wg_ftable_settle). */
static double layout_key_of(void *ctx, size_t i)
{
	const layout_state *s = ctx;
	const xb_model *m = s->m;
	const xb_function *f = &m->base->funcs[i];
	double net = layout_net(m, i);
	switch (s->t.sort) {
	case SORT_BYTES:
		return f->size;
	case SORT_DENSITY:
		return f->size && !isnan(net) ? net / f->size : NAN;
	case SORT_ADDRESS:
		return -(double)f->addr;
	case SORT_PENDING: {
		/* the hot block in its order, then the RAM function section, then the
		 * no-allocate section, then the rest */
		const place_of *p = &s->pend[i];
		double rank = p->place == XB_PLACE_DEFAULT   ? 3
			      : p->place == XB_PLACE_NOALLOC ? 2
			      : p->place == XB_PLACE_SRAM    ? 1
							     : 0;
		return -(rank * 1e9 + (p->position > 0 ? (double)p->position : 0));
	}
	}
	return net;
}

/* The rows: functions (first aliases) with planning samples, placed by either layout or
 * tagged, and those the search names; with a filter, any function it matches. Sorted; the
 * selection follows its function. */
static void layout_rows(layout_state *s, const xb_model *m)
{
	s->t.nrows = 0;
	s->m = m;
	layout_gather(s, m);
	const xb_image *base = layout_base(m);
	size_t n = base ? base->nfuncs : 0;
	xb_grow(&s->t.rows, &s->t.rows_cap, n + 1, sizeof *s->t.rows);
	for (size_t i = 0; i < n; i++) {
		const xb_function *f = &base->funcs[i];
		if (f->alias_of >= 0)
			continue;
		int keep;
		if (s->t.filter[0])
			keep = wg_match(f->name, s->t.filter);
		else
			keep = layout_net(m, i) > 0 || s->pend[i].place != XB_PLACE_DEFAULT ||
			       s->flashed[i].place != XB_PLACE_DEFAULT || layout_tagged(s, i) ||
			       (s->t.search[0] && wg_match(f->name, s->t.search));
		if (keep)
			s->t.rows[s->t.nrows++] = i;
	}
	if (base)
		wg_ftable_settle(&s->t, base, s->t.sort == SORT_NAME, layout_key_of, s);
}

static void layout_cell(void *ctx, size_t row, int col, char *buf, size_t cap, int *el)
{
	const layout_state *s = ctx;
	const xb_model *m = s->m;
	size_t i = s->t.rows[row];
	const xb_function *f = &m->base->funcs[i];
	double net = layout_net(m, i);
	int tagged = layout_tagged(s, i);
	char a[WG_NUM];
	switch (col) {
	case COL_TAG:
		snprintf(buf, cap, "%s", tagged ? "*" : "");
		*el = XB_EL_MATCH;
		break;
	case COL_NAME:
		snprintf(buf, cap, "%s", f->name);
		if (tagged)
			*el = XB_EL_MATCH;
		else if (!(net > 0))
			*el = XB_EL_DIM;
		break;
	case COL_SAMPLES: {
		double total = m->plan_prof ? m->plan_prof->net_total : 0;
		snprintf(buf, cap, "%s", wg_count(a, net));
		*el = wg_heat_el(total > 0 && net > 0 ? net / total : 0);
		break;
	}
	case COL_BYTES:
		snprintf(buf, cap, "%u", f->size);
		break;
	case COL_DENSITY:
		snprintf(buf, cap, "%s", f->size ? wg_fixed(a, net / f->size, 2) : "-");
		break;
	case COL_PENDING:
		place_text(buf, cap, &s->pend[i]);
		if (s->pend[i].place == XB_PLACE_DEFAULT)
			*el = XB_EL_DIM;
		break;
	case COL_PIN:
		snprintf(buf, cap, "%s", s->pend[i].pinned ? "pin" : "");
		*el = XB_EL_KEY;
		break;
	case COL_FLASHED:
		place_text(buf, cap, &s->flashed[i]);
		if (s->flashed[i].place == XB_PLACE_DEFAULT)
			*el = XB_EL_DIM;
		break;
	case COL_CHANGE: {
		uint8_t k = s->marks[i];
		snprintf(buf, cap, "%s", k & XB_EDIT_DIFF_PLACE    ? "moved"
					 : k & XB_EDIT_DIFF_OFFSET ? "offset"
					 : k & XB_EDIT_DIFF_ORDER  ? "order"
					 : k & XB_EDIT_DIFF_PIN    ? "pin"
								   : "");
		*el = XB_EL_WARNING;
		break;
	}
	case COL_LIBRARY:
		snprintf(buf, cap, "%s", f->library >= 0 && (size_t)f->library < m->base->nlibraries
						 ? m->base->libraries[f->library].group : "");
		*el = XB_EL_DIM;
		break;
	}
}

/* ---- the header ---- */

/* One item of a header line: " · " (not first in the row), label (dim), value (el), unit
 * (dim); written only when it fits whole. */
static int layout_item(wg_pen *p, const char *label, const char *value, int el,
		       const char *unit)
{
	const char *sep = p->x > p->start ? " \u00B7 " : "";
	int need = canvas_width(sep) + (label ? canvas_width(label) : 0) +
		   (value ? canvas_width(value) : 0) + (unit ? canvas_width(unit) : 0);
	if (need > wg_room(p))
		return 0;
	wg_put(p, XB_EL_DIM, sep);
	if (label)
		wg_put(p, XB_EL_DIM, label);
	if (value)
		wg_put(p, el, value);
	if (unit)
		wg_put(p, XB_EL_DIM, unit);
	return 1;
}

/* Budgets and what the pending layout uses. */
static void header_usage(const xb_edit_usage *u, wg_pen *p)
{
	char a[48], b[48], v[112];
	wg_put(p, XB_EL_HEADER, "pending layout");
	snprintf(v, sizeof v, "%s / %s", xb_grouped(a, sizeof a, u->extra_ram),
		 xb_grouped(b, sizeof b, u->sram_budget));
	layout_item(p, "extra SRAM ", v, u->extra_ram > u->sram_budget ? XB_EL_ALERT : XB_EL_NORMAL,
		    " B");
	snprintf(v, sizeof v, "%s / %s", xb_grouped(a, sizeof a, u->pad_bytes),
		 xb_grouped(b, sizeof b, u->pad_budget));
	layout_item(p, "padding ", v, u->pad_bytes > u->pad_budget ? XB_EL_ALERT : XB_EL_NORMAL,
		    " B");
	layout_item(p, "hot block ", xb_grouped(a, sizeof a, u->hot_bytes), XB_EL_NORMAL, " B");
	if (u->veneer_bytes_flash || u->veneer_bytes_ram) {
		snprintf(v, sizeof v, "%s + %s", xb_grouped(a, sizeof a, u->veneer_bytes_flash),
			 xb_grouped(b, sizeof b, u->veneer_bytes_ram));
		layout_item(p, "veneers ", v, XB_EL_NORMAL, " B (flash + SRAM)");
	}
}

/* Functions per placement, pins, differences, tags. */
static void header_counts(const layout_state *s, const xb_edit_usage *u, wg_pen *p)
{
	char v[32], l[64];
	snprintf(v, sizeof v, "%zu", u->functions[XB_PLACE_HOT]);
	layout_item(p, NULL, v, XB_EL_NORMAL, " hot");
	snprintf(v, sizeof v, "%zu", u->functions[XB_PLACE_COLOUR]);
	snprintf(l, sizeof l, " coloured (%zu auto)", u->auto_colours);
	layout_item(p, NULL, v, XB_EL_NORMAL, l);
	snprintf(v, sizeof v, "%zu", u->functions[XB_PLACE_SRAM]);
	layout_item(p, NULL, v, XB_EL_NORMAL, " in SRAM");
	if (u->functions[XB_PLACE_NOALLOC]) {
		snprintf(v, sizeof v, "%zu", u->functions[XB_PLACE_NOALLOC]);
		layout_item(p, NULL, v, XB_EL_NORMAL, " no-allocate");
	}
	snprintf(v, sizeof v, "%zu", u->pinned);
	layout_item(p, NULL, v, XB_EL_NORMAL, " pinned");
	snprintf(v, sizeof v, "%zu", s->ndiff);
	layout_item(p, NULL, v, s->ndiff ? XB_EL_WARNING : XB_EL_NORMAL, " differ from flashed");
	if (s->ntagged) {
		snprintf(v, sizeof v, "%zu", s->ntagged);
		layout_item(p, NULL, v, XB_EL_MATCH, " tagged");
	}
	snprintf(v, sizeof v, "%zu", u->functions[XB_PLACE_DEFAULT]);
	layout_item(p, NULL, v, XB_EL_NORMAL, " where ld puts them");
}

/* Whether the pending layout has a prediction, and if not why, for the user. */
static const char *no_prediction(const xb_model *m)
{
	if (!m->plan_prof)
		return "no prediction: record a planning profile (P)";
	if (!m->pending.model)
		return "no prediction yet for the pending layout";
	return NULL;
}

/* The sample model's figures when there is no trace to replay: its score and the sets
 * holding more often-executed lines than ways. */
static void sample_model_items(const xb_model *m, wg_pen *p)
{
	char a[WG_NUM], v[32];
	layout_item(p, "conflict score ", wg_fixed(a, m->pending.conflict_score, 1), XB_EL_NORMAL,
		    NULL);
	snprintf(v, sizeof v, "%u", m->pending.sets_over_ways);
	layout_item(p, NULL, v, XB_EL_NORMAL, " sets over the ways");
}

/* The pending prediction against the flashed image's figures on one row. */
static void header_prediction_line(const xb_model *m, wg_pen *p)
{
	const xb_model_image *fl = &m->flashed;
	const char *flname = fl->name ? fl->name : "the flashed image";
	char a[WG_NUM], b[WG_NUM], c[WG_NUM], v[160];
	const char *why = no_prediction(m);
	if (why) {
		wg_put(p, XB_EL_WARNING, why);
		if (!isnan(fl->measured)) {
			snprintf(v, sizeof v, "%s: ", flname);
			layout_item(p, v, wg_fixed(a, fl->measured, 1), XB_EL_NORMAL,
				    " misses/echo measured");
		}
		return;
	}
	double pred = m->pending.misses_per_echo;
	if (isnan(pred)) {
		/* no trace: the sample model ranks layouts but gives no misses per echo */
		sample_model_items(m, p);
		layout_item(p, NULL, NULL, XB_EL_NORMAL, m->pending.model);
		return;
	}
	/* like with like: the flashed image's prediction, its measurement when it has none */
	int vs_measured = isnan(fl->predicted) && !isnan(fl->measured);
	double was = vs_measured ? fl->measured : fl->predicted;
	int el;
	layout_item(p, "predicted ", wg_fixed(a, pred, 1), XB_EL_NORMAL, " misses/echo");
	if (!isnan(was)) {
		snprintf(v, sizeof v, " vs %s's %s %s", flname, wg_fixed(b, was, 1),
			 vs_measured ? "measured" : "predicted");
		wg_change(c, pred, was, 1, &el);
		layout_item(p, NULL, c, el, v);
	} else {
		snprintf(v, sizeof v, "%s: not measured", flname);
		layout_item(p, NULL, NULL, XB_EL_NORMAL, v);
	}
	layout_item(p, "OPT ", wg_fixed(a, m->pending.opt_bound_per_echo, 1), XB_EL_NORMAL, NULL);
	if (!isnan(m->pending.footprint_lines))
		layout_item(p, "footprint ", wg_fixed(a, m->pending.footprint_lines, 0), XB_EL_NORMAL,
			    NULL);
	layout_item(p, NULL, NULL, XB_EL_NORMAL, m->pending.model);
}

/* The figures' columns of the side-by-side table. */
enum { FIG_MEASURED, FIG_PREDICTED, FIG_OPT, FIG_TURNAROUND, FIG_FOOTPRINT, FIG_EXTRA_RAM,
       FIG_PADDING, NFIGS };
#define FIG_LABEL_W 18
#define FIG_W 12

/* The pending layout beside the flashed image: a header row, the flashed image, the
 * pending layout and the change, in 4 rows from row `top` of r. */
static void header_prediction_table(const xb_model *m, const xb_edit_usage *u, xb_canvas *c,
				    xb_rect r, int top)
{
	static const char *const heads[NFIGS] = {"misses/echo", "predicted", "OPT bound",
						 "turnaround", "footprint", "extra RAM", "padding"};
	const xb_model_image *fl = &m->flashed;
	int y = r.y + top;
	wg_clip_field(c, r, r.x, y, FIG_LABEL_W, XB_EL_HEADER, XB_ALIGN_LEFT, "");
	for (int k = 0; k < NFIGS; k++)
		wg_clip_field(c, r, r.x + FIG_LABEL_W + k * FIG_W, y, FIG_W, XB_EL_HEADER,
			      XB_ALIGN_RIGHT, heads[k]);
	char a[WG_NUM], t[64];
	/* the flashed image: measured on the board, predicted before its relink */
	snprintf(t, sizeof t, "flashed: %s", fl->name ? fl->name : "-");
	wg_clip_field(c, r, r.x, y + 1, FIG_LABEL_W, XB_EL_NORMAL, XB_ALIGN_LEFT, t);
	const char *fv[NFIGS];
	char fb[NFIGS][WG_NUM + 8];
	fv[FIG_MEASURED] = wg_fixed(fb[0], fl->measured, 1);
	fv[FIG_PREDICTED] = wg_fixed(fb[1], fl->predicted, 1);
	fv[FIG_OPT] = wg_fixed(fb[2], fl->opt_bound, 1);
	snprintf(fb[3], sizeof fb[3], "%s%s", wg_fixed(a, fl->turnaround_ms, 3),
		 isnan(fl->turnaround_ms) ? "" : " ms");
	fv[FIG_TURNAROUND] = fb[3];
	fv[FIG_FOOTPRINT] = wg_fixed(fb[4], fl->footprint, 0);
	snprintf(fb[5], sizeof fb[5], "%s%s", xb_grouped(a, sizeof a, fl->extra_ram),
		 isnan(fl->extra_ram) ? "" : " B");
	fv[FIG_EXTRA_RAM] = fb[5];
	fv[FIG_PADDING] = "-";
	for (int k = 0; k < NFIGS; k++)
		wg_clip_field(c, r, r.x + FIG_LABEL_W + k * FIG_W, y + 1, FIG_W,
			      strcmp(fv[k], "-") ? XB_EL_NORMAL : XB_EL_DIM, XB_ALIGN_RIGHT, fv[k]);
	/* the pending layout: predicted; its bytes are the editor's, known without a profile */
	wg_clip_field(c, r, r.x, y + 2, FIG_LABEL_W, XB_EL_NORMAL, XB_ALIGN_LEFT, "pending");
	const char *why = no_prediction(m);
	char pb[NFIGS][WG_NUM + 8];
	const char *pv[NFIGS] = {"-", "-", "-", "-", "-", NULL, NULL};
	if (!why) {
		pv[FIG_PREDICTED] = wg_fixed(pb[1], m->pending.misses_per_echo, 1);
		pv[FIG_OPT] = wg_fixed(pb[2], m->pending.opt_bound_per_echo, 1);
		pv[FIG_FOOTPRINT] = wg_fixed(pb[4], m->pending.footprint_lines, 0);
	}
	snprintf(pb[5], sizeof pb[5], "%s B", xb_grouped(a, sizeof a, u->extra_ram));
	pv[FIG_EXTRA_RAM] = pb[5];
	snprintf(pb[6], sizeof pb[6], "%s B", xb_grouped(a, sizeof a, u->pad_bytes));
	pv[FIG_PADDING] = pb[6];
	for (int k = 0; k < NFIGS; k++)
		if (!why || k >= FIG_EXTRA_RAM)
			wg_clip_field(c, r, r.x + FIG_LABEL_W + k * FIG_W, y + 2, FIG_W,
				      strcmp(pv[k], "-") ? XB_EL_NORMAL : XB_EL_DIM,
				      XB_ALIGN_RIGHT, pv[k]);
	int after = r.x + FIG_LABEL_W + NFIGS * FIG_W + 2;
	if (why) {
		/* the reason where the predicted figures would be */
		xb_rect why_r = {r.x + FIG_LABEL_W, y + 2, FIG_EXTRA_RAM * FIG_W, 1};
		wg_pen p = wg_pen_at(c, rect_clip(why_r, r), 0);
		wg_put(&p, XB_EL_WARNING, why);
	} else if (m->pending.model && after < r.x + r.w) {
		wg_pen p = wg_pen_at(c, (xb_rect){after, y + 2, r.x + r.w - after, 1}, 0);
		wg_put(&p, XB_EL_DIM, m->pending.model);
		if (isnan(m->pending.misses_per_echo))
			sample_model_items(m, &p);
	}
	/* the change, like with like: predicted with the flashed image's prediction (its
	 * measurement when it has none), the bound with the bound, the bytes */
	int vs_measured = isnan(fl->predicted) && !isnan(fl->measured);
	wg_clip_field(c, r, r.x, y + 3, FIG_LABEL_W, XB_EL_DIM, XB_ALIGN_LEFT,
		      vs_measured ? "change vs measured" : "change");
	char cb[WG_NUM];
	int el;
	if (!why) {
		double pred = m->pending.misses_per_echo;
		wg_change(cb, pred, vs_measured ? fl->measured : fl->predicted, 1, &el);
		wg_clip_field(c, r, r.x + FIG_LABEL_W + FIG_PREDICTED * FIG_W, y + 3, FIG_W, el,
			      XB_ALIGN_RIGHT, cb);
		wg_change(cb, m->pending.opt_bound_per_echo, fl->opt_bound, 1, &el);
		wg_clip_field(c, r, r.x + FIG_LABEL_W + FIG_OPT * FIG_W, y + 3, FIG_W, el,
			      XB_ALIGN_RIGHT, cb);
		wg_change(cb, m->pending.footprint_lines, fl->footprint, 1, &el);
		wg_clip_field(c, r, r.x + FIG_LABEL_W + FIG_FOOTPRINT * FIG_W, y + 3, FIG_W, el,
			      XB_ALIGN_RIGHT, cb);
	}
	if (!isnan(fl->extra_ram)) {
		double d = (double)u->extra_ram - fl->extra_ram;
		snprintf(t, sizeof t, "%s%s B", d > 0 ? "+" : "", xb_grouped(a, sizeof a, d));
		wg_clip_field(c, r, r.x + FIG_LABEL_W + FIG_EXTRA_RAM * FIG_W, y + 3, FIG_W,
			      d > 0 ? XB_EL_WARNING : d < 0 ? XB_EL_GOOD : XB_EL_NORMAL,
			      XB_ALIGN_RIGHT, t);
	}
}

/* The loop's state: its progress while a step runs, else how the last run ended. */
static void header_loop(const xb_model *m, wg_pen *p)
{
	const char *progress = m->loop_progress ? m->loop_progress : "";
	const char *result = m->loop_result ? m->loop_result : "";
	if (m->loop_running) {
		wg_put(p, XB_EL_WARNING, progress[0] ? progress : "the loop is running");
		if (m->loop_fraction >= 0 && m->loop_fraction <= 1 && wg_room(p) > 14) {
			wg_put(p, XB_EL_DIM, "  ");
			wg_bar(p->c, p->x, p->y, 10, m->loop_fraction, XB_EL_GOOD);
			p->x += 10;
		}
	} else if (m->loop_failed)
		wg_put(p, XB_EL_ALERT, result[0] ? result : "the last run failed");
	else if (result[0])
		wg_put(p, XB_EL_NORMAL, result);
	else
		wg_put(p, XB_EL_DIM, "the loop has not run yet");
}

/* What undo and redo would do. */
static void header_undo(const xb_model *m, wg_pen *p)
{
	const char *undo = editor_undo_label(m->ed), *redo = editor_redo_label(m->ed);
	layout_item(p, "undo: ", undo ? undo : "nothing", undo ? XB_EL_NORMAL : XB_EL_DIM, NULL);
	layout_item(p, "redo: ", redo ? redo : "nothing", redo ? XB_EL_NORMAL : XB_EL_DIM, NULL);
}

/* The header in as many rows as the height allows; returns the rows it took. */
static int layout_header(const layout_state *s, const xb_model *m, xb_canvas *c, xb_rect in)
{
	xb_edit_usage u;
	editor_usage(m->ed, &u);
	wg_pen p;
	if (in.h >= 30 && in.w >= FIG_LABEL_W + NFIGS * FIG_W) {
		/* the two layouts side by side, the loop and undo on rows of their own */
		p = wg_pen_at(c, in, 0);
		header_usage(&u, &p);
		p = wg_pen_at(c, in, 1);
		header_counts(s, &u, &p);
		header_prediction_table(m, &u, c, in, 3);
		p = wg_pen_at(c, in, 8);
		header_loop(m, &p);
		p = wg_pen_at(c, in, 9);
		header_undo(m, &p);
		return 11;
	}
	/* fewer rows as the height shrinks: the prediction stays longest, then the use */
	int rows = in.h >= 14 ? 5 : in.h >= 7 ? 2 : in.h >= 3 ? 1 : 0;
	int y = 0;
	if (rows >= 2) {
		p = wg_pen_at(c, in, y++);
		header_usage(&u, &p);
	}
	if (rows >= 5) {
		p = wg_pen_at(c, in, y++);
		header_counts(s, &u, &p);
	}
	if (rows >= 1) {
		p = wg_pen_at(c, in, y++);
		header_prediction_line(m, &p);
	}
	if (rows >= 5) {
		p = wg_pen_at(c, in, y++);
		header_loop(m, &p);
		p = wg_pen_at(c, in, y++);
		header_undo(m, &p);
	}
	return rows;
}

/* Nothing to edit: why, and what to do. */
static void layout_nothing(const xb_model *m, xb_canvas *c, xb_rect in)
{
	const xb_image *img = m->base ? m->base : m->img;
	wg_pen p = wg_pen_at(c, in, 0);
	if (!img)
		wg_put(&p, XB_EL_DIM, "no image loaded");
	else if (!img->has_map)
		wg_put(&p, XB_EL_WARNING, "the image has no map: layouts need one (--map)");
	else if (m->ed_why)
		wg_put(&p, XB_EL_WARNING, m->ed_why);
	else
		wg_put(&p, XB_EL_WARNING,
		       "no pending layout: this image cannot be planned on (the log says why)");
	p = wg_pen_at(c, in, 1);
	if (img && !img->has_map)
		wg_put(&p, XB_EL_DIM, "link with -Wl,-Map=FILE: the map names each function's "
				      "input section");
}

static void layout_draw(void *st, const xb_model *m, xb_canvas *c, xb_rect r, int focused)
{
	layout_state *s = st;
	char title[200];
	int k = snprintf(title, sizeof title, "Layout");
	if (s->ntagged)
		k += snprintf(title + k, sizeof title - (size_t)k, " \u00B7 %zu tagged",
			      s->ntagged);
	if (s->t.filter[0])
		snprintf(title + k, sizeof title - (size_t)k, " filter '%s'", s->t.filter);
	xb_rect in = panel_frame(c, r, title, focused);
	s->t.table = (xb_rect){0, 0, 0, 0};
	if (in.w <= 0 || in.h <= 0)
		return;
	layout_rows(s, m);
	if (!layout_base(m)) {
		layout_nothing(m, c, in);
		return;
	}
	int head = layout_header(s, m, c, in);
	xb_rect tr;
	rect_split_rows(in, head, NULL, &tr);
	s->t.table = tr;
	wg_column cols[NCOLS];
	memcpy(cols, layout_columns, sizeof cols);
	wg_ftable_name_width(&s->t, layout_base(m), &cols[COL_NAME]);
	char f[32];
	wg_table t = {
		.cols = cols,
		.ncols = NCOLS,
		.nrows = s->t.nrows,
		.sort = wg_field(LAYOUT_SORTS, s->t.sort, f, sizeof f),
		.ascending = s->t.ascending ^ (s->t.sort == SORT_NAME || s->t.sort == SORT_ADDRESS ||
					     s->t.sort == SORT_PENDING),
		.empty = s->t.filter[0] ? "no function matches the filter"
		       : m->plan_prof ? "no function with samples or a placement"
				      : "no planning profile yet (P records one); filter shows any "
					"function",
		.focused = focused,
		.ctx = s,
		.cell = layout_cell,
	};
	wg_table_draw(c, tr, &t, &s->t.list);
	s->t.sel_func = s->t.nrows ? (long)s->t.rows[s->t.list.sel] : -1;
}

/* ---- commands ---- */

/* Toggles the selected function's tag. */
static int layout_tag(layout_state *s, const xb_model *m, int move, xb_panel_result *res)
{
	const xb_image *base = layout_base(m);
	if (!base || s->t.sel_func < 0 || (size_t)s->t.sel_func >= base->nfuncs)
		return wg_message(res, 1, "no function to tag%s",
				  base ? "" : ": there is no pending layout");
	if (s->ntag < base->nfuncs) {
		s->tag = xrealloc(s->tag, base->nfuncs);
		memset(s->tag + s->ntag, 0, base->nfuncs - s->ntag);
		s->ntag = base->nfuncs;
	}
	size_t f = (size_t)s->t.sel_func;
	s->tag[f] = !s->tag[f];
	s->ntagged = s->tag[f] ? s->ntagged + 1 : s->ntagged - 1;
	if (move && s->t.list.sel + 1 < s->t.nrows) {
		s->t.list.sel++;
		s->t.sel_func = (long)s->t.rows[s->t.list.sel];
	}
	return wg_message(res, 0, "%s %s (%zu tagged)", base->funcs[f].name,
			  s->tag[f] ? "tagged" : "untagged", s->ntagged);
}

static int layout_untag(layout_state *s, xb_panel_result *res)
{
	size_t n = s->ntagged;
	if (s->tag)
		memset(s->tag, 0, s->ntag);
	s->ntagged = 0;
	return n ? wg_message(res, 0, "%zu function%s untagged", n, n == 1 ? "" : "s")
		 : wg_message(res, 0, "no function was tagged");
}

static void layout_rows_again(void *st)
{
	layout_state *s = st;
	layout_rows(s, s->m);
}

static int layout_command(void *st, const xb_model *m, const char *verb, const char *arg,
			  xb_panel_result *res)
{
	layout_state *s = st;
	res->flags = 0;
	layout_rows(s, m);
	s->m = m;
	int flags = wg_ftable_command(&s->t, layout_base(m), LAYOUT_SORTS, "layout", layout_rows_again,
				      s, verb, arg, res);
	if (!(flags & XB_PANEL_UNHANDLED))
		return flags;
	res->flags = 0;
	if (strcmp(verb, "tag") == 0 || strcmp(verb, "enter") == 0)
		return layout_tag(s, m, verb[0] == 't', res);
	if (strcmp(verb, "tag-none") == 0)
		return layout_untag(s, res);
	if (strcmp(verb, "back") == 0 && s->ntagged)
		return layout_untag(s, res);
	return res->flags = XB_PANEL_UNHANDLED;
}

static int layout_mouse(void *st, const xb_model *m, xb_rect r, const xb_mouse *ev,
			xb_panel_result *res)
{
	layout_state *s = st;
	(void)r;
	res->flags = 0;
	if (ev->kind == XB_MOUSE_WHEEL_UP || ev->kind == XB_MOUSE_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			layout_command(st, m, ev->kind == XB_MOUSE_WHEEL_UP ? "up" : "down", NULL,
				       res);
		return res->flags;
	}
	layout_rows(s, m);
	if (wg_ftable_click(&s->t, ev) < 0)
		return res->flags = XB_PANEL_UNHANDLED;
	if (ev->kind == XB_MOUSE_DOUBLE)
		return layout_tag(s, m, 0, res);
	return res->flags = XB_PANEL_REDRAW;
}

static size_t layout_targets(void *st, const xb_model *m, int *out, size_t max)
{
	layout_state *s = st;
	const xb_image *base = layout_base(m);
	if (!base)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < s->ntag && i < base->nfuncs; i++)
		if (s->tag[i]) {
			if (n < max)
				out[n] = (int)i;
			n++;
		}
	if (n)
		return n;
	layout_rows(s, m);
	if (s->t.sel_func < 0 || (size_t)s->t.sel_func >= base->nfuncs)
		return 0;
	if (max)
		out[0] = (int)s->t.sel_func;
	return 1;
}

const xb_panel_ops panel_layout = {
	.name = "layout",
	.title = "Layout",
	.sorts = LAYOUT_SORTS,
	.modes = NULL,
	.create = layout_create,
	.destroy = layout_destroy,
	.draw = layout_draw,
	.command = layout_command,
	.mouse = layout_mouse,
	.targets = layout_targets,
};
