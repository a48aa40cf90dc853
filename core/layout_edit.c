/* layout_edit: the layout editor's edits: moves of functions, libraries and groups, the
 * hot block's order, pins, budgets, presets, layouts and name lists, and its files
 * (layout_edit_state.c keeps the states they make). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "layout_edit_internal.h"
#include "snippet.h"

/* ---- words for messages ---- */

static void place_words(xb_edit_place to, char *buf, size_t cap)
{
	switch (to.place) {
	case XB_PLACE_DEFAULT: snprintf(buf, cap, "to default flash"); return;
	case XB_PLACE_HOT: snprintf(buf, cap, "to the hot block"); return;
	case XB_PLACE_COLOUR:
		if (to.way_offset == XB_WAY_AUTO)
			snprintf(buf, cap, "to an automatic colour");
		else
			snprintf(buf, cap, "to colour 0x%04x", to.way_offset);
		return;
	case XB_PLACE_SRAM: snprintf(buf, cap, "to SRAM"); return;
	case XB_PLACE_NOALLOC: snprintf(buf, cap, "to the no-allocate alias"); return;
	}
	snprintf(buf, cap, "somewhere");
}

static void note_add(xb_edit_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note_add(xb_edit_result *res, const char *fmt, ...)
{
	size_t len = strlen(res->note);
	if (len + 3 >= sizeof res->note)
		return;
	if (len) {
		memcpy(res->note + len, "; ", 3);
		len += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->note + len, sizeof res->note - len, fmt, ap);
	va_end(ap);
}

static void result_clear(xb_edit_result *res)
{
	if (res)
		memset(res, 0, sizeof *res);
}

/* ---- moving functions ---- */

/* What a list of units is called in a label: its one function's name, or a count. */
static char *units_words(const xb_editor *ed, const int *units, size_t n)
{
	if (n == 1)
		return edit_func_name(ed, units[0]);
	size_t funcs = 0;
	for (size_t k = 0; k < n; k++)
		funcs += ed->unit_size[units[k]];
	return xasprintf("%zu functions", funcs);
}

/* The units of funcs, each once, in order; *n gets their count. */
static int *units_of(const xb_editor *ed, const int *funcs, size_t *n, xb_err *err)
{
	int *u = xmalloc((*n + 1) * sizeof *u);
	uint8_t *seen = xcalloc(ed->nfuncs + 1, 1);
	size_t m = 0;
	for (size_t k = 0; k < *n; k++) {
		if (funcs[k] < 0 || (size_t)funcs[k] >= ed->nfuncs) {
			free(seen);
			free(u);
			xb_fail(err, "function index %d is not in the image (%zu functions)", funcs[k],
				ed->nfuncs);
			return NULL;
		}
		int x = ed->unit[funcs[k]];
		if (!seen[x]) {
			seen[x] = 1;
			u[m++] = x;
		}
	}
	free(seen);
	*n = m;
	return u;
}

/* Sends units[0..n) to `to`. strict: any unit that cannot go refuses the edit; else it
 * stays and is counted. what names them in the label ("the IP stack"). */
static int place_units(xb_editor *ed, const int *units, size_t n, xb_edit_place to,
		       bool strict, const char *what, xb_edit_result *res, xb_err *err)
{
	if (to.place != XB_PLACE_DEFAULT && to.place != XB_PLACE_HOT &&
	    to.place != XB_PLACE_COLOUR && to.place != XB_PLACE_SRAM &&
	    to.place != XB_PLACE_NOALLOC)
		return xb_fail(err, "unknown placement %d", (int)to.place);
	xb_edit_result r = {0};
	edit_state *next = edit_state_copy(ed, ed->cur, true);
	xb_err first = {{0}};
	int first_pinned = -1;
	xb_strbuf stayed = {0};
	size_t nstayed = 0;
	for (size_t k = 0; k < n; k++) {
		int u = units[k];
		if (next->pinned[u]) {
			r.pinned_left += ed->unit_size[u];
			if (first_pinned < 0)
				first_pinned = u;
			continue;
		}
		xb_err why;
		if (edit_unit_can_go(ed, u, to.place, &why) != 0 ||
		    edit_colour_ok(ed, u, to, &why) != 0) {
			if (strict) {
				edit_state_free(next);
				sb_free(&stayed);
				if (err)
					*err = why;
				return -1;
			}
			if (!nstayed++)
				first = why;
			if (nstayed <= 3)
				sb_printf(&stayed, "%s%s", nstayed > 1 ? ", " : "",
					  ed->img->funcs[u].name);
			r.skipped += ed->unit_size[u];
			continue;
		}
		if (edit_state_set(next, u, to))
			r.changed += ed->unit_size[u];
	}
	char where[64];
	place_words(to, where, sizeof where);
	int rc = 0;
	if (!r.changed) {
		edit_state_free(next);
		if (first_pinned >= 0 && !nstayed) {
			char *q = edit_func_name(ed, first_pinned);
			rc = r.pinned_left == ed->unit_size[first_pinned]
				     ? xb_fail(err, "%s is pinned: unpin it to move it", q)
				     : xb_fail(err, "the %zu functions are pinned: unpin them to move "
						    "them", r.pinned_left);
			free(q);
		} else if (nstayed) {
			rc = xb_fail(err, "nothing of %s can go %s: %s", what, where, first.msg);
		}
		sb_free(&stayed);
		if (rc == 0 && res)
			*res = r;
		return rc;
	}
	snprintf(next->strategy, sizeof next->strategy, "edited");
	rc = edit_commit(ed, next, xasprintf("moving %s %s", what, where), false, err);
	if (rc == 0) {
		if (r.pinned_left)
			note_add(&r, "left %zu pinned function%s where %s", r.pinned_left,
				 r.pinned_left == 1 ? "" : "s",
				 r.pinned_left == 1 ? "it was" : "they were");
		if (nstayed)
			note_add(&r, "%zu function%s cannot go %s (%s%s): %s", r.skipped,
				 r.skipped == 1 ? "" : "s", where, stayed.buf,
				 nstayed > 3 ? ", ..." : "", first.msg);
		if (res)
			*res = r;
	}
	sb_free(&stayed);
	return rc;
}

int editor_place(xb_editor *ed, const int *funcs, size_t n, xb_edit_place to,
		 xb_edit_result *res, xb_err *err)
{
	result_clear(res);
	int *units = units_of(ed, funcs, &n, err);
	if (!units)
		return -1;
	if (!n) {
		free(units);
		return xb_fail(err, "no function to move");
	}
	char *what = units_words(ed, units, n);
	int rc = place_units(ed, units, n, to, true, what, res, err);
	free(what);
	free(units);
	return rc;
}

int editor_remove(xb_editor *ed, const int *funcs, size_t n, xb_edit_result *res,
		  xb_err *err)
{
	return editor_place(ed, funcs, n, (xb_edit_place){XB_PLACE_DEFAULT, 0}, res, err);
}

/* The units in flash of the libraries lib[0..nlibraries) marks, in address order. */
static int *library_units(const xb_editor *ed, const uint8_t *lib, size_t *n)
{
	const xb_image *img = ed->img;
	int *u = xmalloc((ed->nfuncs + 1) * sizeof *u);
	uint8_t *seen = xcalloc(ed->nfuncs + 1, 1);
	*n = 0;
	for (size_t i = 0; i < ed->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		int x = ed->unit[i];
		if (f->alias_of >= 0 || f->region != XB_REGION_FLASH || f->library < 0 ||
		    (size_t)f->library >= img->nlibraries || !lib[f->library] || seen[x])
			continue;
		seen[x] = 1;
		u[(*n)++] = x;
	}
	free(seen);
	return u;
}

static int place_libraries(xb_editor *ed, const uint8_t *lib, const char *what,
			   xb_edit_place to, xb_edit_result *res, xb_err *err)
{
	size_t n;
	int *units = library_units(ed, lib, &n);
	int rc = n ? place_units(ed, units, n, to, false, what, res, err)
		   : xb_fail(err, "%s has no function in flash", what);
	free(units);
	return rc;
}

int editor_place_library(xb_editor *ed, int library, xb_edit_place to, xb_edit_result *res,
			 xb_err *err)
{
	result_clear(res);
	const xb_image *img = ed->img;
	if (library < 0 || (size_t)library >= img->nlibraries)
		return xb_fail(err, "library index %d is not in the image (%zu libraries)", library,
			       img->nlibraries);
	uint8_t *lib = xcalloc(img->nlibraries + 1, 1);
	lib[library] = 1;
	char *what = xasprintf("library %s", img->libraries[library].name);
	int rc = place_libraries(ed, lib, what, to, res, err);
	free(what);
	free(lib);
	return rc;
}

int editor_place_group(xb_editor *ed, const char *group, xb_edit_place to,
		       xb_edit_result *res, xb_err *err)
{
	result_clear(res);
	const xb_image *img = ed->img;
	uint8_t *lib = xcalloc(img->nlibraries + 1, 1);
	size_t found = 0;
	for (size_t i = 0; i < img->nlibraries; i++) {
		const char *g = img->libraries[i].group ? img->libraries[i].group
							 : img->libraries[i].name;
		if (strcmp(g, group) == 0) {
			lib[i] = 1;
			found++;
		}
	}
	int rc;
	if (!found) {
		xb_strbuf names = {0};
		for (size_t i = 0; i < img->nlibraries; i++) {
			const char *g = img->libraries[i].group ? img->libraries[i].group
								 : img->libraries[i].name;
			bool dup = false;
			for (size_t j = 0; j < i && !dup; j++)
				dup = strcmp(g, img->libraries[j].group ? img->libraries[j].group
									: img->libraries[j].name) == 0;
			if (!dup)
				sb_printf(&names, "%s%s", names.len ? ", " : "", g);
		}
		rc = xb_fail(err, "no display group '%s' in %s (its groups: %s)", group,
			     img->path ? img->path : "the image", names.buf ? names.buf : "none");
		sb_free(&names);
	} else {
		char *what = xasprintf("the %s", group);
		rc = place_libraries(ed, lib, what, to, res, err);
		free(what);
	}
	free(lib);
	return rc;
}

/* ---- the hot block's order ---- */

static int hot_move(xb_editor *ed, int func, long to, long delta, xb_edit_result *res,
		    xb_err *err)
{
	result_clear(res);
	if (func < 0 || (size_t)func >= ed->nfuncs)
		return xb_fail(err, "function index %d is not in the image", func);
	int u = ed->unit[func];
	long h = edit_hot_index(ed->cur, u);
	long n = (long)ed->cur->nhot;
	char *q = edit_func_name(ed, u);
	int rc = 0;
	if (h < 0)
		rc = xb_fail(err, "%s is not in the hot block", q);
	else if (delta) {
		to = h + delta;
		if (to < 0 || to >= n)
			rc = xb_fail(err, "%s is already the %s function of the hot block", q,
				     delta < 0 ? "first" : "last");
	}
	if (rc != 0 || to == h) {
		free(q);
		return rc;
	}
	edit_state *next = edit_state_copy(ed, ed->cur, true);
	edit_slot slot = next->hot[h];
	edit_drop_hot(next, (size_t)h);
	memmove(&next->hot[to + 1], &next->hot[to], (size_t)(n - 1 - to) * sizeof *next->hot);
	next->hot[to] = slot;
	next->nhot++;
	snprintf(next->strategy, sizeof next->strategy, "edited");
	char *label = delta ? xasprintf("moving %s %s in the hot block", q, delta < 0 ? "up" : "down")
			    : xasprintf("moving %s to position %ld of the hot block", q, to);
	free(q);
	rc = edit_commit(ed, next, label, false, err);
	if (rc == 0 && res)
		res->changed = ed->unit_size[u];
	return rc;
}

int editor_hot_move(xb_editor *ed, int func, size_t position, xb_edit_result *res,
		    xb_err *err)
{
	if (position >= ed->cur->nhot && func >= 0 && (size_t)func < ed->nfuncs &&
	    edit_hot_index(ed->cur, ed->unit[func]) >= 0) {
		result_clear(res);
		return xb_fail(err, "position %zu is past the end of the hot block (%zu functions)",
			       position, ed->cur->nhot);
	}
	return hot_move(ed, func, position < ed->cur->nhot ? (long)position : 0, 0, res, err);
}

int editor_hot_step(xb_editor *ed, int func, int delta, xb_edit_result *res, xb_err *err)
{
	if (!delta) {
		result_clear(res);
		return 0;
	}
	return hot_move(ed, func, 0, delta, res, err);
}

/* ---- pins and budgets ---- */

int editor_pin(xb_editor *ed, const int *funcs, size_t n, bool pinned, xb_edit_result *res,
	       xb_err *err)
{
	result_clear(res);
	int *units = units_of(ed, funcs, &n, err);
	if (!units)
		return -1;
	edit_state *next = edit_state_copy(ed, ed->cur, true);
	size_t changed = 0;
	for (size_t k = 0; k < n; k++)
		if (next->pinned[units[k]] != pinned) {
			next->pinned[units[k]] = pinned;
			changed += ed->unit_size[units[k]];
		}
	char *what = n ? units_words(ed, units, n) : NULL;
	free(units);
	if (!changed) {
		free(what);
		edit_state_free(next);
		return 0;
	}
	char *label = xasprintf("%s %s", pinned ? "pinning" : "unpinning", what);
	int rc = edit_commit(ed, next, label, false, err);
	free(what);
	if (rc == 0 && res)
		res->changed = changed;
	return rc;
}

static int set_budget(xb_editor *ed, bool sram, uint32_t bytes, xb_err *err)
{
	if (bytes == (sram ? ed->cur->sram_budget : ed->cur->pad_budget))
		return 0;
	edit_state *next = edit_state_copy(ed, ed->cur, true);
	if (sram)
		next->sram_budget = bytes;
	else
		next->pad_budget = bytes;
	return edit_commit(ed, next,
		      xasprintf("setting the %s budget to %s bytes", sram ? "SRAM" : "padding",
				edit_grouped(bytes).s),
		      true, err);
}

int editor_set_sram_budget(xb_editor *ed, uint32_t bytes, xb_err *err)
{
	return set_budget(ed, true, bytes, err);
}

int editor_set_pad_budget(xb_editor *ed, uint32_t bytes, xb_err *err)
{
	return set_budget(ed, false, bytes, err);
}

/* ---- presets ---- */

/* The pending state after a planner's layout l: pinned SRAM units first in the RAM
 * section, then l's entries for units that are not pinned and can go there, then the
 * pinned units of the hot block after l's block. */
static edit_state *preset_state(xb_editor *ed, const xb_layout *l, const char *planner,
				size_t *skipped)
{
	const edit_state *cur = ed->cur;
	edit_state *next = edit_state_copy(ed, cur, false);
	for (size_t k = 0; k < cur->nsram; k++)
		if (cur->pinned[cur->sram[k]])
			edit_state_set(next, cur->sram[k], (xb_edit_place){XB_PLACE_SRAM, 0});
	for (size_t k = 0; k < cur->nnoalloc; k++)
		if (cur->pinned[cur->noalloc[k]])
			edit_state_set(next, cur->noalloc[k], (xb_edit_place){XB_PLACE_NOALLOC, 0});
	*skipped = 0;
	for (size_t k = 0; k < l->n; k++) {
		const xb_layout_entry *e = &l->e[k];
		if (e->place == XB_PLACE_DEFAULT || e->func < 0 || (size_t)e->func >= ed->nfuncs)
			continue;
		int u = ed->unit[e->func];
		if (cur->pinned[u] || edit_placed(next, u))
			continue;
		if (edit_unit_can_go(ed, u, e->place, NULL) != 0) {
			*skipped += ed->unit_size[u];
			continue;
		}
		edit_state_set(next, u, (xb_edit_place){e->place, e->way_offset});
	}
	for (size_t k = 0; k < cur->nhot; k++)
		if (cur->pinned[cur->hot[k].unit]) {
			xb_grow(&next->hot, &next->hot_cap, next->nhot + 1, sizeof *next->hot);
			next->hot[next->nhot++] = cur->hot[k];
		}
	snprintf(next->strategy, sizeof next->strategy, "%s", planner);
	return next;
}

/* What the pinned SRAM units use on their own. */
static int pinned_sram_bytes(const xb_editor *ed, uint32_t *bytes, xb_err *err)
{
	xb_layout l;
	layout_init(&l);
	for (size_t k = 0; k < ed->cur->nsram; k++)
		if (ed->cur->pinned[ed->cur->sram[k]])
			layout_add(&l, ed->cur->sram[k], XB_PLACE_SRAM, 0);
	*bytes = 0;
	int rc = 0;
	if (l.n) {
		xb_placement p;
		rc = layout_place_calls(ed->img, ed->in.tg, &l, ed->in.calls, &p, err);
		if (rc == 0) {
			*bytes = p.extra_ram;
			placement_free(&p);
		}
	}
	layout_free(&l);
	return rc;
}

/* Runs planner pl with SRAM and padding budgets sram and pad, and merges its layout with
 * the pinned functions into *next, resolved into *v. */
static int preset_try(xb_editor *ed, const xb_planner *pl, uint32_t sram, uint32_t pad,
		      edit_state **next, edit_view *v, size_t *skipped, xb_err *err)
{
	xb_plan_input in = ed->in;
	in.sram_budget = sram;
	in.pad_budget = pad;
	xb_layout l;
	layout_init(&l);
	int rc = pl->plan(&in, &l, err);
	if (rc == 0) {
		*next = preset_state(ed, &l, pl->name, skipped);
		rc = edit_view_build(ed, *next, v, err);
		if (rc != 0)
			edit_state_free(*next);
	}
	layout_free(&l);
	return rc;
}

/* Functions (first of aliases) that v places otherwise than the pending view. */
static size_t functions_changed(const xb_editor *ed, const edit_view *v)
{
	size_t changed = 0;
	for (size_t i = 0; i < ed->nfuncs; i++) {
		int u = ed->unit[i];
		changed += ed->img->funcs[i].alias_of < 0 &&
			   (v->where[u] != ed->view.where[u] || v->position[u] != ed->view.position[u] ||
			    v->offset[u] != ed->view.offset[u]);
	}
	return changed;
}

int editor_apply_preset(xb_editor *ed, const char *planner, uint32_t sram_bytes,
			xb_edit_result *res, xb_err *err)
{
	result_clear(res);
	const xb_planner *pl = plan_find(planner);
	if (!pl)
		return xb_fail(err, "no preset '%s' (hot, colour, sram, names, noalloc)", planner);
	if (!ed->in.prof && !ed->in.trace)
		return xb_fail(err, "presets need PC samples or a trace");
	const edit_state *cur = ed->cur;
	uint32_t pinned_ram;
	if (pinned_sram_bytes(ed, &pinned_ram, err) != 0)
		return -1;
	uint32_t room = cur->sram_budget > pinned_ram ? cur->sram_budget - pinned_ram : 0;
	uint32_t sram = sram_bytes == XB_EDIT_BUDGET ? cur->sram_budget : sram_bytes;
	sram = sram < room ? sram : room;
	uint32_t pad = cur->pad_budget;
	size_t npinned = 0;
	for (size_t i = 0; i < ed->nfuncs; i++)
		if (cur->pinned[i])
			npinned += ed->unit_size[i];
	/* merged with the pinned functions, the planner's layout may use more than it was
	 * given: give it less by the excess and plan again, a few times at most */
	edit_state *next;
	edit_view v;
	size_t skipped;
	for (int attempt = 0;; attempt++) {
		if (preset_try(ed, pl, sram, pad, &next, &v, &skipped, err) != 0)
			return -1;
		uint32_t over_ram = v.place.extra_ram > next->sram_budget
					    ? v.place.extra_ram - next->sram_budget : 0;
		uint32_t over_pad = v.place.pad_bytes > next->pad_budget
					    ? v.place.pad_bytes - next->pad_budget : 0;
		if ((!over_ram && !over_pad) || attempt == 3 || (over_ram && !sram) ||
		    (over_pad && !pad))
			break;
		edit_view_free(&v);
		edit_state_free(next);
		sram -= over_ram < sram ? over_ram : sram;
		pad -= over_pad < pad ? over_pad : pad;
	}
	bool with_sram = pl == &plan_sram || pl == &plan_names || pl == &plan_noalloc;
	char *label = with_sram && sram_bytes != XB_EDIT_BUDGET
			      ? xasprintf("applying the %s preset with %s bytes of SRAM", pl->name,
					  edit_grouped(sram_bytes).s)
			      : xasprintf("applying the %s preset", pl->name);
	if (edit_check_budgets(ed, next, &v, label, false, err) != 0) {
		edit_view_free(&v);
		edit_state_free(next);
		free(label);
		return -1;
	}
	size_t changed = functions_changed(ed, &v);
	edit_commit_view(ed, next, &v, label);
	if (res) {
		res->changed = changed;
		res->pinned_left = npinned;
		res->skipped = skipped;
		if (npinned)
			note_add(res, "the preset left %zu pinned function%s alone", npinned,
				 npinned == 1 ? "" : "s");
		if (skipped)
			note_add(res, "%zu function%s the planner chose cannot move", skipped,
				 skipped == 1 ? "" : "s");
	}
	return 0;
}

/* ---- layouts and name lists ---- */

int editor_load_layout(xb_editor *ed, const xb_layout *l, const char *what,
		       xb_edit_result *res, xb_err *err)
{
	result_clear(res);
	edit_state *next = edit_state_copy(ed, ed->cur, false);
	if (edit_state_from_layout(ed, l, false, next, err) != 0) {
		edit_state_free(next);
		return -1;
	}
	return edit_commit(ed, next, xasprintf("loading the %s", what ? what : "layout"), false, err);
}

int editor_load_layout_file(xb_editor *ed, const char *path, xb_edit_result *res,
			    xb_err *err)
{
	xb_layout l;
	layout_init(&l);
	int rc = layout_read_file(&l, ed->img, path, err);
	if (rc == 0) {
		char *what = xasprintf("layout %s", path);
		rc = editor_load_layout(ed, &l, what, res, err);
		free(what);
	}
	layout_free(&l);
	return rc;
}

/* "3 names of the list are not in this image: foo, bar, baz" */
static void names_note(char *buf, size_t cap, char *const *names, size_t n, const char *what)
{
	int len = snprintf(buf, cap, "%zu name%s of the list %s:", n, n == 1 ? "" : "s", what);
	for (size_t k = 0; k < n && len > 0 && (size_t)len < cap; k++)
		len += snprintf(buf + len, cap - (size_t)len, "%s %s", k ? "," : "", names[k]);
}

int editor_load_names(xb_editor *ed, const xb_name_list *names, const char *what,
		      xb_edit_result *res, xb_err *err)
{
	xb_edit_result r = {0};
	char unknown[256] = "", ambiguous[256] = "";
	if (names->nunknown)
		names_note(unknown, sizeof unknown, names->unknown, names->nunknown,
			   names->nunknown == 1 ? "is not in this image" : "are not in this image");
	if (names->nambiguous)
		names_note(ambiguous, sizeof ambiguous, names->ambiguous, names->nambiguous,
			   names->nambiguous == 1
				   ? "matches several functions (qualify it as archive:member(section))"
				   : "match several functions (qualify them as archive:member(section))");
	size_t n = names->n;
	int *units = units_of(ed, names->func, &n, err);
	if (!units)
		return -1;
	char *label = what ? xasprintf("the name list %s", what) : xstrdup("the name list");
	int rc = n ? place_units(ed, units, n, (xb_edit_place){XB_PLACE_SRAM, 0}, false, label, &r,
				 err)
		   : 0;
	free(label);
	free(units);
	if (rc != 0) {
		size_t len = err ? strlen(err->msg) : 0;
		if (err && unknown[0])
			snprintf(err->msg + len, sizeof err->msg - len, "; %s", unknown);
		return -1;
	}
	char moved[512];
	snprintf(moved, sizeof moved, "%s", r.note);
	r.note[0] = 0;
	if (unknown[0])
		note_add(&r, "%s", unknown);
	if (ambiguous[0])
		note_add(&r, "%s", ambiguous);
	if (moved[0])
		note_add(&r, "%s", moved);
	r.unknown = names->nunknown + names->nambiguous;
	if (res)
		*res = r;
	return 0;
}

int editor_load_names_file(xb_editor *ed, const char *path, xb_edit_result *res,
			   xb_err *err)
{
	result_clear(res);
	xb_name_list nl;
	if (layout_names_read_file(&nl, ed->img, path, err) != 0)
		return -1;
	int rc = editor_load_names(ed, &nl, path, res, err);
	layout_names_free(&nl);
	return rc;
}

/* ---- files ---- */

int editor_save_layout(const xb_editor *ed, const char *path, xb_err *err)
{
	return layout_write_file(&ed->view.layout, ed->img, path, err);
}

int editor_save_names(const xb_editor *ed, const char *path, xb_err *err)
{
	const xb_snippet_writer *w = snippet_writers;
	while (w->name && strcmp(w->name, "names") != 0)
		w++;
	if (!w->name)
		return xb_fail(err, "no name list writer");
	xb_strbuf sb = {0};
	int rc = w->write(ed->img, ed->in.tg, &ed->view.layout, &sb, err);
	if (rc == 0)
		rc = xb_write_file_atomic(path, sb.buf ? sb.buf : "", sb.len, err);
	sb_free(&sb);
	return rc;
}
