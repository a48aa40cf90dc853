/* layout_edit_state: the layout editor's pending states: the units that move together, the
 * rules, the automatic colours a state resolves to, commits, undo and redo, and what the
 * pending layout is (layout_edit.c has the edits). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout_edit_internal.h"
#include "plan_internal.h"
#include "snippet.h"

/* ---- words for messages ---- */

edit_number edit_grouped(uint32_t v)
{
	edit_number out;
	xb_grouped(out.s, sizeof out.s, v);
	return out;
}

/* The name a message uses for a function: qualified when several objects define it. */
char *edit_func_name(const xb_editor *ed, int f)
{
	return image_qualified_name(ed->img, &ed->img->funcs[f]);
}

/* ---- states ---- */

static edit_state *state_new(const xb_editor *ed)
{
	edit_state *s = xcalloc(1, sizeof *s);
	s->pinned = xcalloc(ed->nfuncs + 1, 1);
	return s;
}

void edit_state_free(edit_state *s)
{
	if (!s)
		return;
	free(s->hot);
	free(s->sram);
	free(s->noalloc);
	free(s->pinned);
	free(s->label);
	free(s);
}

/* A copy of s without its label; with_places false leaves the hot block and SRAM empty. */
edit_state *edit_state_copy(const xb_editor *ed, const edit_state *s, bool with_places)
{
	edit_state *c = state_new(ed);
	memcpy(c->pinned, s->pinned, ed->nfuncs);
	c->sram_budget = s->sram_budget;
	c->pad_budget = s->pad_budget;
	memcpy(c->strategy, s->strategy, sizeof c->strategy);
	if (with_places) {
		xb_grow(&c->hot, &c->hot_cap, s->nhot + 1, sizeof *c->hot);
		if (s->nhot)
			memcpy(c->hot, s->hot, s->nhot * sizeof *c->hot);
		c->nhot = s->nhot;
		xb_grow(&c->sram, &c->sram_cap, s->nsram + 1, sizeof *c->sram);
		if (s->nsram)
			memcpy(c->sram, s->sram, s->nsram * sizeof *c->sram);
		c->nsram = s->nsram;
		xb_grow(&c->noalloc, &c->noalloc_cap, s->nnoalloc + 1, sizeof *c->noalloc);
		if (s->nnoalloc)
			memcpy(c->noalloc, s->noalloc, s->nnoalloc * sizeof *c->noalloc);
		c->nnoalloc = s->nnoalloc;
	}
	return c;
}

long edit_hot_index(const edit_state *s, int u)
{
	for (size_t k = 0; k < s->nhot; k++)
		if (s->hot[k].unit == u)
			return (long)k;
	return -1;
}

static long unit_index(const int *v, size_t n, int u)
{
	for (size_t k = 0; k < n; k++)
		if (v[k] == u)
			return (long)k;
	return -1;
}

long edit_sram_index(const edit_state *s, int u)
{
	return unit_index(s->sram, s->nsram, u);
}

long edit_noalloc_index(const edit_state *s, int u)
{
	return unit_index(s->noalloc, s->nnoalloc, u);
}

bool edit_placed(const edit_state *s, int u)
{
	return edit_hot_index(s, u) >= 0 || edit_sram_index(s, u) >= 0 ||
	       edit_noalloc_index(s, u) >= 0;
}

void edit_drop_hot(edit_state *s, size_t k)
{
	memmove(&s->hot[k], &s->hot[k + 1], (s->nhot - k - 1) * sizeof *s->hot);
	s->nhot--;
}

static void drop_unit(int *v, size_t *n, long k)
{
	if (k < 0)
		return;
	memmove(&v[k], &v[k + 1], (*n - (size_t)k - 1) * sizeof *v);
	(*n)--;
}

static void push_unit(int **v, size_t *n, size_t *cap, int u)
{
	xb_grow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = u;
}

/* Sends unit u to `to`: a unit already in the hot block keeps its position there, others
 * join the end of the hot block, the RAM section or the no-allocate section. Returns
 * whether anything changed. */
bool edit_state_set(edit_state *s, int u, xb_edit_place to)
{
	long h = edit_hot_index(s, u), r = edit_sram_index(s, u), a = edit_noalloc_index(s, u);
	switch (to.place) {
	case XB_PLACE_DEFAULT:
		if (h >= 0)
			edit_drop_hot(s, (size_t)h);
		drop_unit(s->sram, &s->nsram, r);
		drop_unit(s->noalloc, &s->nnoalloc, a);
		return h >= 0 || r >= 0 || a >= 0;
	case XB_PLACE_HOT:
	case XB_PLACE_COLOUR: {
		edit_slot slot = {.unit = u, .place = to.place,
				  .way_offset = to.place == XB_PLACE_COLOUR ? to.way_offset : 0};
		if (h >= 0) {
			if (s->hot[h].place == slot.place && s->hot[h].way_offset == slot.way_offset)
				return false;
			s->hot[h] = slot;
			return true;
		}
		drop_unit(s->sram, &s->nsram, r);
		drop_unit(s->noalloc, &s->nnoalloc, a);
		xb_grow(&s->hot, &s->hot_cap, s->nhot + 1, sizeof *s->hot);
		s->hot[s->nhot++] = slot;
		return true;
	}
	case XB_PLACE_SRAM:
		if (r >= 0)
			return false;
		if (h >= 0)
			edit_drop_hot(s, (size_t)h);
		drop_unit(s->noalloc, &s->nnoalloc, a);
		push_unit(&s->sram, &s->nsram, &s->sram_cap, u);
		return true;
	case XB_PLACE_NOALLOC:
		if (a >= 0)
			return false;
		if (h >= 0)
			edit_drop_hot(s, (size_t)h);
		drop_unit(s->sram, &s->nsram, r);
		push_unit(&s->noalloc, &s->nnoalloc, &s->noalloc_cap, u);
		return true;
	}
	return false;
}

/* ---- what may move ---- */

int edit_unit_can_go(xb_editor *ed, int u, enum xb_place to, xb_err *err)
{
	if (to == XB_PLACE_DEFAULT)
		return 0;
	const xb_image *img = ed->img;
	const xb_function *f = &img->funcs[u];
	if (f->input < 0)
		return xb_fail(err, "%s has no input section in the map, and GNU ld moves input "
			       "sections: it stays in default flash", f->name);
	if (f->region != XB_REGION_FLASH)
		return xb_fail(err, "%s is not in flash: only functions in flash can move", f->name);
	if (ed->selector[u] <= 0) { /* not tried, or refused: the reason again */
		xb_strbuf sb = {0};
		ed->selector[u] = snippet_selector(img, f, &sb, err) == 0 ? 1 : -1;
		sb_free(&sb);
		if (ed->selector[u] < 0)
			return -1;
	}
	if (to == XB_PLACE_SRAM && ed->boot_why[u]) {
		int c = ed->boot_culprit[u];
		if (c == u || img->funcs[c].alias_of == u)
			return xb_fail(err, "%s cannot go to SRAM: %s", f->name, ed->boot_why[u]);
		return xb_fail(err, "%s cannot go to SRAM: it shares input section %s with %s, "
			       "which %s", f->name, img->map.inputs[f->input].section,
			       img->funcs[c].name, ed->boot_why[u]);
	}
	return 0;
}

/* A chosen colour must be inside the way and at the unit's alignment, or ld's alignment
 * after the padding would start the function elsewhere. */
int edit_colour_ok(const xb_editor *ed, int u, xb_edit_place to, xb_err *err)
{
	if (to.place != XB_PLACE_COLOUR)
		return 0;
	if (to.way_offset == XB_WAY_AUTO)
		return ed->have_heat ? 0
				     : xb_fail(err, "automatic colours need PC samples or a trace");
	if (to.way_offset >= ed->way)
		return xb_fail(err, "colour offset 0x%x is outside the cache way (0x%x bytes)",
			       to.way_offset, ed->way);
	const xb_function *f = &ed->img->funcs[u];
	uint32_t a = f->input >= 0 ? ed->img->input_align[f->input] : 1;
	if (a > 1 && to.way_offset % a)
		return xb_fail(err, "%s must start at a multiple of %u bytes (its alignment): colour "
			       "offset 0x%x is not one", f->name, a, to.way_offset);
	return 0;
}

int editor_can_place(xb_editor *ed, int func, enum xb_place to, xb_err *err)
{
	if (func < 0 || (size_t)func >= ed->nfuncs)
		return xb_fail(err, "function index %d is not in the image", func);
	return edit_unit_can_go(ed, ed->unit[func], to, err);
}

/* ---- automatic colours and the view of a state ---- */

void edit_view_free(edit_view *v)
{
	layout_free(&v->layout);
	placement_free(&v->place);
	free(v->where);
	free(v->is_auto);
	free(v->offset);
	free(v->position);
	memset(v, 0, sizeof *v);
}

/* Adds to load the often-executed lines that p puts in flash below `end`: those in front
 * of the hot block and in it. */
static void load_lines_below(const xb_editor *ed, const xb_placement *p, uint32_t end,
			     set_load *load)
{
	long hint = -1; /* the lines come in address order */
	for (size_t k = 0; k < ed->heat.nlines; k++) {
		const xb_heat_line *hl = &ed->heat.lines[k];
		if (!set_load_is_hot(load, hl->heat))
			continue;
		uint32_t a = placement_move_near(ed->img, p, hl->line, &hint);
		const xb_region *r = target_region_of(ed->in.tg, a);
		if (r && r->kind == XB_REGION_FLASH && a < end)
			set_load_add(load, a >> load->line_shift, &hl->heat, 1);
	}
}

/* Appends unit u to work (the layout so far: SRAM entries and the hot block before u) at
 * the start that adds the least conflict to the lines before it, within the padding the
 * budget leaves. */
static int resolve_auto(const xb_editor *ed, const edit_state *s, xb_layout *work, int u,
			xb_err *err)
{
	const xb_image *img = ed->img;
	xb_placement p;
	if (layout_place_calls(img, ed->in.tg, work, ed->in.calls, &p, err) != 0)
		return -1;
	int input = img->funcs[u].input;
	const xb_map_input *mi = &img->map.inputs[input];
	uint32_t align = img->input_align[input] ? img->input_align[input] : 1;
	uint32_t size = (uint32_t)mi->size, cur = p.hot_end;
	uint32_t gap = plan_align_up(cur, align) - cur;
	uint32_t left = s->pad_budget > p.pad_bytes ? s->pad_budget - p.pad_bytes : 0;
	set_load load;
	set_load_init(&load, ed->in.tg, ed->heat.hot_threshold);
	load_lines_below(ed, &p, cur, &load);
	placement_free(&p);
	/* the heat vector depends on where in a line the function starts */
	uint32_t L = ed->heat.line_size;
	double **vec = xcalloc(L, sizeof *vec);
	size_t *nvec = xcalloc(L, sizeof *nvec);
	double best = INFINITY;
	uint32_t best_d = gap;
	for (uint32_t d = gap; d < ed->way && (d == gap || d <= left) && best > 0; d += align) {
		uint32_t start = cur + d, sub = start & (L - 1);
		if (!vec[sub]) {
			vec[sub] = xmalloc((size / L + 2) * sizeof **vec);
			nvec[sub] = heat_range_lines(&ed->heat, (uint32_t)mi->addr, size, start,
						     vec[sub]);
		}
		double c = set_load_cost(&load, start >> load.line_shift, vec[sub], nvec[sub], best);
		if (c < best) {
			best = c;
			best_d = d;
		}
	}
	for (uint32_t k = 0; k < L; k++)
		free(vec[k]);
	free(vec);
	free(nvec);
	set_load_free(&load);
	/* packed where it would go anyway: a plain hot entry, no padding counted */
	if (best_d == gap)
		layout_add(work, u, XB_PLACE_HOT, 0);
	else
		layout_add(work, u, XB_PLACE_COLOUR, (cur + best_d) & (ed->way - 1));
	return 0;
}

/* Resolves state s into v: its layout (automatic colours chosen) and placement. */
int edit_view_build(const xb_editor *ed, const edit_state *s, edit_view *v, xb_err *err)
{
	memset(v, 0, sizeof *v);
	size_t n = ed->nfuncs + 1;
	v->where = xcalloc(n, sizeof *v->where);
	v->is_auto = xcalloc(n, sizeof *v->is_auto);
	v->offset = xcalloc(n, sizeof *v->offset);
	v->position = xmalloc(n * sizeof *v->position);
	for (size_t i = 0; i < n; i++)
		v->position[i] = -1;
	/* SRAM first: the prefixes placed for automatic colours then hold the veneers */
	xb_layout work;
	layout_init(&work);
	for (size_t k = 0; k < s->nsram; k++) {
		layout_add(&work, s->sram[k], XB_PLACE_SRAM, 0);
		v->where[s->sram[k]] = XB_PLACE_SRAM;
		v->position[s->sram[k]] = (long)k;
	}
	for (size_t k = 0; k < s->nnoalloc; k++) {
		layout_add(&work, s->noalloc[k], XB_PLACE_NOALLOC, 0);
		v->where[s->noalloc[k]] = XB_PLACE_NOALLOC;
		v->position[s->noalloc[k]] = (long)k;
	}
	size_t nfar = s->nsram + s->nnoalloc;
	int rc = 0;
	for (size_t k = 0; k < s->nhot && rc == 0; k++) {
		const edit_slot *slot = &s->hot[k];
		v->where[slot->unit] = (int8_t)slot->place;
		v->position[slot->unit] = (long)k;
		if (slot->place == XB_PLACE_COLOUR && slot->way_offset == XB_WAY_AUTO) {
			v->is_auto[slot->unit] = 1;
			if (!ed->have_heat) {
				char *q = edit_func_name(ed, slot->unit);
				rc = xb_fail(err, "%s: automatic colours need PC samples or a trace", q);
				free(q);
			} else {
				rc = resolve_auto(ed, s, &work, slot->unit, err);
			}
		} else {
			layout_add(&work, slot->unit, slot->place, slot->way_offset);
		}
	}
	/* the hot block first, then the RAM and no-allocate sections, then the pins */
	layout_init(&v->layout);
	memcpy(v->layout.strategy, s->strategy, sizeof v->layout.strategy);
	for (size_t k = nfar; k < work.n; k++)
		layout_add(&v->layout, work.e[k].func, work.e[k].place, work.e[k].way_offset);
	for (size_t k = 0; k < nfar; k++)
		layout_add(&v->layout, work.e[k].func, work.e[k].place, work.e[k].way_offset);
	layout_free(&work);
	for (size_t i = 0; i < ed->nfuncs; i++)
		if (s->pinned[i])
			layout_add_pin(&v->layout, (int)i);
	if (rc == 0)
		rc = layout_place_calls(ed->img, ed->in.tg, &v->layout, ed->in.calls, &v->place, err);
	if (rc != 0) {
		edit_view_free(v);
		return -1;
	}
	for (size_t k = 0; k < s->nhot; k++) {
		int input = ed->img->funcs[s->hot[k].unit].input;
		v->offset[s->hot[k].unit] = v->place.input_addr[input] & (ed->way - 1);
	}
	return 0;
}

/* ---- committing an edit ---- */

/* Refuses a state whose view uses more than its budgets, unless it uses no more than the
 * pending layout (setting: a budget is being set, so say what the layout uses). */
int edit_check_budgets(const xb_editor *ed, const edit_state *s, const edit_view *v,
			 const char *what, bool setting, xb_err *err)
{
	uint32_t ram = v->place.extra_ram, pad = v->place.pad_bytes;
	uint32_t was_ram = ed->cur ? ed->view.place.extra_ram : 0;
	uint32_t was_pad = ed->cur ? ed->view.place.pad_bytes : 0;
	if (ram > s->sram_budget && (setting || ram > was_ram)) {
		if (setting)
			return xb_fail(err, "the pending layout uses %s bytes of SRAM, more than a "
				       "budget of %s (take functions out of SRAM first)",
				       edit_grouped(ram).s, edit_grouped(s->sram_budget).s);
		return xb_fail(err, "%s needs %s bytes of SRAM; the budget is %s (set it with "
			       ":budget sram %uK)", what, edit_grouped(ram).s,
			       edit_grouped(s->sram_budget).s, (ram + 4095) / 4096 * 4);
	}
	if (pad > s->pad_budget && (setting || pad > was_pad)) {
		if (setting)
			return xb_fail(err, "the pending layout needs %s bytes of padding, more than a "
				       "budget of %s (take colours out of the hot block first)",
				       edit_grouped(pad).s, edit_grouped(s->pad_budget).s);
		return xb_fail(err, "%s needs %s bytes of padding; the padding budget is %s (set "
			       "it with :budget pad %uK)", what, edit_grouped(pad).s,
			       edit_grouped(s->pad_budget).s, (pad + 1023) / 1024);
	}
	return 0;
}

/* Makes next (with its view v, both taken) the pending state: one undo step named label
 * (taken); drops what could be redone. */
void edit_commit_view(xb_editor *ed, edit_state *next, edit_view *v, char *label)
{
	next->label = label;
	if (ed->nundo == XB_EDIT_HISTORY) {
		edit_state_free(ed->undo[0]);
		memmove(&ed->undo[0], &ed->undo[1], (XB_EDIT_HISTORY - 1) * sizeof *ed->undo);
		ed->nundo--;
	}
	ed->undo[ed->nundo++] = ed->cur;
	while (ed->nredo)
		edit_state_free(ed->redo[--ed->nredo]);
	ed->cur = next;
	edit_view_free(&ed->view);
	ed->view = *v;
}

/* Resolves, checks and commits next (taken, with label) or refuses it. */
int edit_commit(xb_editor *ed, edit_state *next, char *label, bool setting, xb_err *err)
{
	edit_view v;
	if (edit_view_build(ed, next, &v, err) != 0) {
		edit_state_free(next);
		free(label);
		return -1;
	}
	if (edit_check_budgets(ed, next, &v, label, setting, err) != 0) {
		edit_view_free(&v);
		edit_state_free(next);
		free(label);
		return -1;
	}
	edit_commit_view(ed, next, &v, label);
	return 0;
}

/* ---- life ---- */

/* Which units run before the start-up code copies the RAM sections, from ed->in. */
static void editor_load_boot(xb_editor *ed)
{
	const char **why = plan_stay_in_flash(&ed->in);
	for (size_t i = 0; i < ed->nfuncs; i++) {
		ed->boot_why[i] = NULL;
		ed->boot_culprit[i] = -1;
	}
	for (size_t i = 0; i < ed->nfuncs; i++) {
		int u = ed->unit[i];
		if (why[i] && !ed->boot_why[u]) {
			ed->boot_why[u] = why[i];
			ed->boot_culprit[u] = (int)i;
		}
	}
	free(why);
}

/* The heat and the start-up rule from ed->in. */
static void editor_load_inputs(xb_editor *ed)
{
	ed->have_heat = (ed->in.prof || ed->in.trace) && heat_build(&ed->heat, &ed->in, NULL) == 0;
	editor_load_boot(ed);
}

/* Fills next from layout l: its entries and pins. flashed: l is what the board runs, so
 * the start-up rule (a judgement from the heat at hand) does not refuse it. */
int edit_state_from_layout(xb_editor *ed, const xb_layout *l, bool flashed, edit_state *next,
			     xb_err *err)
{
	const xb_image *img = ed->img;
	next->nhot = next->nsram = next->nnoalloc = 0;
	memset(next->pinned, 0, ed->nfuncs);
	for (size_t k = 0; k < l->n; k++) {
		const xb_layout_entry *e = &l->e[k];
		if (e->place == XB_PLACE_DEFAULT)
			continue;
		if (e->func < 0 || (size_t)e->func >= ed->nfuncs)
			return xb_fail(err, "layout entry %zu: function index %d is not in the image",
				       k + 1, e->func);
		if (e->place != XB_PLACE_HOT && e->place != XB_PLACE_COLOUR &&
		    e->place != XB_PLACE_SRAM && e->place != XB_PLACE_NOALLOC)
			return xb_fail(err, "layout entry %zu: unknown placement %d", k + 1,
				       (int)e->place);
		int u = ed->unit[e->func];
		long h = edit_hot_index(next, u), r = edit_sram_index(next, u),
		     a = edit_noalloc_index(next, u);
		bool hot = e->place == XB_PLACE_HOT || e->place == XB_PLACE_COLOUR;
		if ((h >= 0 && !hot) || (r >= 0 && e->place != XB_PLACE_SRAM) ||
		    (a >= 0 && e->place != XB_PLACE_NOALLOC))
			return xb_fail(err, "%s and %s share input section %s, but the layout puts them "
				       "in different places", img->funcs[u].name,
				       img->funcs[e->func].name,
				       img->map.inputs[img->funcs[u].input].section);
		if (h >= 0 || r >= 0 || a >= 0)
			continue; /* another function of the unit: its first entry places it */
		if (edit_unit_can_go(ed, u, flashed ? XB_PLACE_HOT : e->place, err) != 0)
			return -1;
		if (e->place == XB_PLACE_COLOUR && e->way_offset >= ed->way)
			return xb_fail(err, "%s: colour offset 0x%x is outside the cache way (0x%x "
				       "bytes)", img->funcs[e->func].name, e->way_offset, ed->way);
		/* a layout to edit follows the rules of an edit (the unit's alignment too) */
		if (!flashed &&
		    edit_colour_ok(ed, u, (xb_edit_place){e->place, e->way_offset}, err) != 0)
			return -1;
		edit_state_set(next, u, (xb_edit_place){e->place, e->way_offset});
	}
	for (size_t k = 0; k < l->npins; k++) {
		if (l->pins[k] < 0 || (size_t)l->pins[k] >= ed->nfuncs)
			return xb_fail(err, "layout pin %zu: function index %d is not in the image",
				       k + 1, l->pins[k]);
		next->pinned[ed->unit[l->pins[k]]] = 1;
	}
	memcpy(next->strategy, l->strategy, sizeof next->strategy);
	next->strategy[sizeof next->strategy - 1] = 0;
	return 0;
}

xb_editor *editor_new(const xb_plan_input *in, const xb_layout *start, xb_err *err)
{
	const xb_image *img = in->img;
	xb_editor *ed = xcalloc(1, sizeof *ed);
	ed->in = *in;
	ed->in.sram_libraries = NULL;
	ed->img = img;
	ed->nfuncs = img->nfuncs;
	ed->way = target_way_bytes(in->tg);
	size_t n = img->nfuncs + 1;
	ed->unit = xmalloc(n * sizeof *ed->unit);
	ed->unit_size = xcalloc(n, sizeof *ed->unit_size);
	ed->boot_why = xcalloc(n, sizeof *ed->boot_why);
	ed->boot_culprit = xmalloc(n * sizeof *ed->boot_culprit);
	ed->selector = xcalloc(n, 1);
	int *first_of_input = xmalloc((img->map.ninputs + 1) * sizeof *first_of_input);
	for (size_t i = 0; i < img->map.ninputs; i++)
		first_of_input[i] = -1;
	for (size_t i = 0; i < img->nfuncs; i++) {
		int root = img->funcs[i].alias_of >= 0 ? img->funcs[i].alias_of : (int)i;
		int input = img->funcs[root].input;
		if (input >= 0 && (size_t)input < img->map.ninputs) {
			if (first_of_input[input] < 0)
				first_of_input[input] = root;
			ed->unit[i] = first_of_input[input];
		} else {
			ed->unit[i] = root;
		}
		if (img->funcs[i].alias_of < 0)
			ed->unit_size[ed->unit[i]]++;
	}
	free(first_of_input);
	editor_load_inputs(ed);
	ed->cur = state_new(ed);
	ed->cur->sram_budget = in->sram_budget;
	ed->cur->pad_budget = in->pad_budget;
	snprintf(ed->cur->strategy, sizeof ed->cur->strategy, "stock");
	if ((start && edit_state_from_layout(ed, start, true, ed->cur, err) != 0) ||
	    edit_view_build(ed, ed->cur, &ed->view, err) != 0) {
		editor_free(ed);
		return NULL;
	}
	/* a start layout made with larger budgets raises them */
	if (ed->view.place.extra_ram > ed->cur->sram_budget)
		ed->cur->sram_budget = ed->view.place.extra_ram;
	if (ed->view.place.pad_bytes > ed->cur->pad_budget)
		ed->cur->pad_budget = ed->view.place.pad_bytes;
	return ed;
}

void editor_free(xb_editor *ed)
{
	if (!ed)
		return;
	edit_view_free(&ed->view);
	edit_state_free(ed->cur);
	for (size_t i = 0; i < ed->nundo; i++)
		edit_state_free(ed->undo[i]);
	for (size_t i = 0; i < ed->nredo; i++)
		edit_state_free(ed->redo[i]);
	if (ed->have_heat)
		heat_free(&ed->heat);
	free(ed->unit);
	free(ed->unit_size);
	free(ed->boot_why);
	free(ed->boot_culprit);
	free(ed->selector);
	free(ed);
}

int editor_update_heat(xb_editor *ed, const xb_profile *prof, const xb_trace *trace,
		       xb_err *err)
{
	if (!prof && !trace)
		return xb_fail(err, "the layout editor needs PC samples or a trace for its heat");
	xb_heat old = ed->heat;
	bool had = ed->have_heat;
	const xb_profile *old_prof = ed->in.prof;
	const xb_trace *old_trace = ed->in.trace;
	ed->in.prof = prof;
	ed->in.trace = trace;
	memset(&ed->heat, 0, sizeof ed->heat);
	editor_load_inputs(ed);
	edit_view v;
	if (edit_view_build(ed, ed->cur, &v, err) != 0) {
		if (ed->have_heat)
			heat_free(&ed->heat);
		ed->heat = old;
		ed->have_heat = had;
		ed->in.prof = old_prof;
		ed->in.trace = old_trace;
		editor_load_boot(ed);
		return -1;
	}
	if (had)
		heat_free(&old);
	edit_view_free(&ed->view);
	ed->view = v;
	return 0;
}

/* ---- undo and redo ---- */

bool editor_can_undo(const xb_editor *ed)
{
	return ed->nundo > 0;
}

bool editor_can_redo(const xb_editor *ed)
{
	return ed->nredo > 0;
}

const char *editor_undo_label(const xb_editor *ed)
{
	return ed->nundo ? ed->cur->label : NULL;
}

const char *editor_redo_label(const xb_editor *ed)
{
	return ed->nredo ? ed->redo[ed->nredo - 1]->label : NULL;
}

/* Makes `to` the pending state, keeping the one it replaces on `keep`. */
static int step_to(xb_editor *ed, edit_state **from, size_t *nfrom, edit_state **keep,
		   size_t *nkeep, xb_err *err)
{
	edit_view v;
	if (edit_view_build(ed, from[*nfrom - 1], &v, err) != 0)
		return -1;
	keep[(*nkeep)++] = ed->cur;
	ed->cur = from[--*nfrom];
	edit_view_free(&ed->view);
	ed->view = v;
	return 0;
}

int editor_undo(xb_editor *ed, xb_err *err)
{
	if (!ed->nundo)
		return xb_fail(err, "nothing to undo");
	return step_to(ed, ed->undo, &ed->nundo, ed->redo, &ed->nredo, err);
}

int editor_redo(xb_editor *ed, xb_err *err)
{
	if (!ed->nredo)
		return xb_fail(err, "nothing to redo");
	return step_to(ed, ed->redo, &ed->nredo, ed->undo, &ed->nundo, err);
}

/* ---- reading ---- */

const xb_layout *editor_layout(const xb_editor *ed)
{
	return &ed->view.layout;
}

const xb_placement *editor_placement(const xb_editor *ed)
{
	return &ed->view.place;
}

void editor_function(const xb_editor *ed, int func, xb_edit_func *out)
{
	memset(out, 0, sizeof *out);
	out->position = -1;
	if (func < 0 || (size_t)func >= ed->nfuncs)
		return;
	int u = ed->unit[func];
	out->place = (enum xb_place)ed->view.where[u];
	out->auto_colour = ed->view.is_auto[u];
	out->way_offset = out->place == XB_PLACE_COLOUR ? ed->view.offset[u] : 0;
	out->pinned = ed->cur->pinned[u];
	out->position = ed->view.position[u];
}

void editor_usage(const xb_editor *ed, xb_edit_usage *out)
{
	memset(out, 0, sizeof *out);
	const xb_placement *p = &ed->view.place;
	out->extra_ram = p->extra_ram;
	out->pad_bytes = p->pad_bytes;
	out->hot_bytes = p->hot_end - p->hot_start;
	out->veneer_bytes_flash = p->veneer_bytes_flash;
	out->veneer_bytes_ram = p->veneer_bytes_ram;
	out->sram_budget = ed->cur->sram_budget;
	out->pad_budget = ed->cur->pad_budget;
	for (size_t i = 0; i < ed->nfuncs; i++) {
		if (ed->img->funcs[i].alias_of >= 0)
			continue;
		int u = ed->unit[i];
		out->functions[ed->view.where[u]]++;
		out->auto_colours += ed->view.is_auto[u];
		out->pinned += ed->cur->pinned[u];
	}
}

/* Per unit: where layout l puts it, its way offset (colour), its position, pinned. */
static void layout_by_unit(const xb_editor *ed, const xb_layout *l, int8_t *where,
			   uint32_t *offset, long *position, uint8_t *pinned)
{
	long count[XB_PLACE_NOALLOC + 1] = {0};
	for (size_t i = 0; i < ed->nfuncs; i++)
		position[i] = -1;
	for (size_t k = 0; k < l->n; k++) {
		const xb_layout_entry *e = &l->e[k];
		if (e->place == XB_PLACE_DEFAULT || e->func < 0 || (size_t)e->func >= ed->nfuncs)
			continue;
		int u = ed->unit[e->func];
		if (where[u])
			continue;
		where[u] = (int8_t)e->place;
		offset[u] = e->place == XB_PLACE_COLOUR ? e->way_offset & (ed->way - 1) : 0;
		/* the hot block holds hot and coloured units */
		position[u] = count[e->place == XB_PLACE_COLOUR ? XB_PLACE_HOT : e->place]++;
	}
	for (size_t k = 0; k < l->npins; k++)
		if (l->pins[k] >= 0 && (size_t)l->pins[k] < ed->nfuncs)
			pinned[ed->unit[l->pins[k]]] = 1;
}

size_t editor_compare(const xb_editor *ed, const xb_layout *other, uint8_t *marks)
{
	size_t n = ed->nfuncs + 1;
	int8_t *wa = xcalloc(n, 1), *wb = xcalloc(n, 1);
	uint32_t *oa = xcalloc(n, sizeof *oa), *ob = xcalloc(n, sizeof *ob);
	long *pa = xmalloc(n * sizeof *pa), *pb = xmalloc(n * sizeof *pb);
	uint8_t *ka = xcalloc(n, 1), *kb = xcalloc(n, 1);
	layout_by_unit(ed, &ed->view.layout, wa, oa, pa, ka);
	layout_by_unit(ed, other, wb, ob, pb, kb);
	size_t count = 0;
	for (size_t i = 0; i < ed->nfuncs; i++) {
		int u = ed->unit[i];
		uint8_t m = 0;
		if (wa[u] != wb[u])
			m |= XB_EDIT_DIFF_PLACE;
		else if (wa[u] == XB_PLACE_COLOUR && oa[u] != ob[u])
			m |= XB_EDIT_DIFF_OFFSET;
		if (wa[u] == wb[u] && wa[u] != XB_PLACE_DEFAULT && pa[u] != pb[u])
			m |= XB_EDIT_DIFF_ORDER;
		if (ka[u] != kb[u])
			m |= XB_EDIT_DIFF_PIN;
		if (marks)
			marks[i] = m;
		if (ed->img->funcs[i].alias_of < 0 && (m & ~XB_EDIT_DIFF_PIN))
			count++;
	}
	free(wa);
	free(wb);
	free(oa);
	free(ob);
	free(pa);
	free(pb);
	free(ka);
	free(kb);
	return count;
}

