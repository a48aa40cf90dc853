/* edit_actions: the Layout and Loop actions of the workbench: edits of the pending layout
 * (on the layout panel's tagged or selected functions, a library, a display group),
 * presets, budgets, undo and redo, layout files and name lists; the planning profile,
 * relink, flash, measure, the whole loop, going back, cancel, and the export of the runs. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/export.h"
#include "app.h"
#include "edit.h"

#define EDIT_MAX_TARGETS 8192


static int failed(char *msg, size_t cap, const char *text)
{
	return act_done(msg, cap, XB_ACT_ERROR, "%s", text);
}

/* The editor, or why there is none. */
static xb_editor *editor(xb_app *a, char *msg, size_t cap)
{
	app_edit *e = a->edit;
	if (e && e->ed)
		return e->ed;
	snprintf(msg, cap, "no layout to edit: %s",
		 e && e->why_not[0] ? e->why_not : "the image was not loaded for planning");
	return NULL;
}

static xb_editloop *edit_loop(xb_app *a, char *msg, size_t cap)
{
	app_edit *e = a->edit;
	if (e && e->loop)
		return e->loop;
	snprintf(msg, cap, "no layout loop: %s",
		 e && e->why_not[0] ? e->why_not : "the image was not loaded for planning");
	return NULL;
}

/* "8192", "8K", "8k", "8KB", "1.5K": bytes. */
static int parse_bytes(const char *s, uint32_t *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v >= 0))
		return -1;
	if (*end == 'K' || *end == 'k') {
		v *= 1024;
		end++;
		if (*end == 'B' || *end == 'b')
			end++;
	}
	if (*end || v > 16.0 * 1024 * 1024)
		return -1;
	*out = (uint32_t)llround(v);
	return 0;
}

/* The functions an edit applies to: the focused panel's tagged ones, or its selected one. */
static size_t targets(xb_app *a, int *out, size_t max)
{
	const xb_panel_ops *ops = a->ops[a->focus];
	if (!ops->targets)
		return 0;
	return ops->targets(a->pst[a->focus], &a->model, out, max);
}

static int edit_result(char *msg, size_t cap, int rc, const xb_err *err, const xb_edit_result *res,
		       const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int edit_result(char *msg, size_t cap, int rc, const xb_err *err, const xb_edit_result *res,
		       const char *fmt, ...)
{
	if (rc != 0)
		return act_done(msg, cap, XB_ACT_ERROR, "%s", err->msg);
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (res && res->note[0])
		return act_done(msg, cap, 0, "%s (%s)", what, res->note);
	return act_done(msg, cap, 0, "%s", what);
}

/* A placement by name: sram, hot, colour [SET|auto], noalloc, default. */
static int parse_place(const xb_app *a, const char *name, const char *arg, xb_edit_place *to,
		       char *msg, size_t cap)
{
	if (strcmp(name, "sram") == 0) {
		*to = (xb_edit_place){XB_PLACE_SRAM, 0};
	} else if (strcmp(name, "hot") == 0) {
		*to = (xb_edit_place){XB_PLACE_HOT, 0};
	} else if (strcmp(name, "noalloc") == 0) {
		*to = (xb_edit_place){XB_PLACE_NOALLOC, 0};
	} else if (strcmp(name, "default") == 0 || strcmp(name, "flash") == 0) {
		*to = (xb_edit_place){XB_PLACE_DEFAULT, 0};
	} else if (strcmp(name, "colour") == 0 || strcmp(name, "color") == 0) {
		*to = (xb_edit_place){XB_PLACE_COLOUR, XB_WAY_AUTO};
		if (arg && strcmp(arg, "auto") != 0) {
			char *end;
			unsigned long set = strtoul(arg, &end, 0);
			uint32_t nsets = target_sets(&a->tg);
			if (end == arg || *end || set >= nsets) {
				snprintf(msg, cap, "colour %s: a start set 0 to %u, or auto", arg, nsets - 1);
				return -1;
			}
			to->way_offset = (uint32_t)set * a->tg.cache.line;
		}
	} else {
		snprintf(msg, cap, "'%s': sram, hot, colour [SET|auto], noalloc or default", name);
		return -1;
	}
	return 0;
}

static const char *place_text(const xb_edit_place *to, char *buf, size_t cap)
{
	switch (to->place) {
	case XB_PLACE_SRAM: return "to SRAM";
	case XB_PLACE_NOALLOC: return "to the no-allocate alias";
	case XB_PLACE_HOT: return "into the hot block";
	case XB_PLACE_COLOUR:
		if (to->way_offset == XB_WAY_AUTO)
			return "coloured (start set chosen)";
		snprintf(buf, cap, "coloured from offset 0x%x", to->way_offset);
		return buf;
	default: return "back to default flash";
	}
}

/* Places the targets. */
static int place_targets(xb_app *a, const char *name, const char *arg, char *msg, size_t cap)
{
	xb_editor *ed = editor(a, msg, cap);
	if (!ed)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	xb_edit_place to;
	if (parse_place(a, name, arg, &to, msg, cap) != 0)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	int f[EDIT_MAX_TARGETS];
	size_t n = targets(a, f, EDIT_MAX_TARGETS);
	if (!n)
		return failed(msg, cap, "no function chosen: select one in the layout panel (6) or tag "
			      "several with x");
	xb_err err;
	xb_edit_result res = {0};
	char buf[64];
	int rc = to.place == XB_PLACE_DEFAULT ? editor_remove(ed, f, n, &res, &err)
					      : editor_place(ed, f, n, to, &res, &err);
	return edit_result(msg, cap, rc, &err, &res, "%zu function%s %s", res.changed,
			   res.changed == 1 ? "" : "s", place_text(&to, buf, sizeof buf));
}

int act_place(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	return place_targets(a, argv[0], argc > 1 ? argv[1] : NULL, msg, cap);
}

int act_pin(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	xb_editor *ed = editor(a, msg, cap);
	if (!ed)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	int f[EDIT_MAX_TARGETS];
	size_t n = targets(a, f, EDIT_MAX_TARGETS);
	if (!n)
		return failed(msg, cap, "no function chosen: select one in the layout panel (6)");
	int pin;
	if (argc > 1) {
		if (strcmp(argv[1], "on") != 0 && strcmp(argv[1], "off") != 0)
			return failed(msg, cap, "pin on|off");
		pin = strcmp(argv[1], "on") == 0;
	} else { /* a toggle: pin unless every one is pinned */
		pin = 0;
		for (size_t i = 0; i < n; i++) {
			xb_edit_func ef;
			editor_function(ed, f[i], &ef);
			if (!ef.pinned)
				pin = 1;
		}
	}
	xb_err err;
	xb_edit_result res = {0};
	int rc = editor_pin(ed, f, n, pin, &res, &err);
	return edit_result(msg, cap, rc, &err, &res, "%zu function%s %s", res.changed,
			   res.changed == 1 ? "" : "s", pin ? "pinned: presets leave them where they are"
						      : "unpinned");
}

int act_hot_step(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	xb_editor *ed = editor(a, msg, cap);
	if (!ed)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	int f[1];
	if (targets(a, f, 1) == 0)
		return failed(msg, cap, "no function chosen: select one of the hot block in the layout "
			      "panel (6)");
	xb_err err;
	int delta = strcmp(argv[0], "hot-up") == 0 ? -1 : 1;
	int rc = editor_hot_step(ed, f[0], delta, NULL, &err);
	return edit_result(msg, cap, rc, &err, NULL, "moved %s in the hot block",
			   delta < 0 ? "up" : "down");
}

/* :library NAME PLACE [SET] and :group NAME... PLACE [SET] */
int act_library(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	xb_editor *ed = editor(a, msg, cap);
	if (!ed)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	int group = strcmp(argv[0], "group") == 0;
	/* the placement is the last word (or the one before a colour's set) */
	int pi = argc - 1;
	const char *arg = NULL;
	if (pi >= 2 && (strcmp(argv[pi - 1], "colour") == 0 || strcmp(argv[pi - 1], "color") == 0)) {
		arg = argv[pi];
		pi--;
	}
	if (pi < 2)
		return failed(msg, cap, group ? "group NAME sram|hot|colour [SET]|default"
					      : "library NAME sram|hot|colour [SET]|default");
	xb_edit_place to;
	if (parse_place(a, argv[pi], arg, &to, msg, cap) != 0)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	char name[256] = "";
	for (int i = 1; i < pi; i++) {
		size_t k = strlen(name);
		snprintf(name + k, sizeof name - k, "%s%s", i > 1 ? " " : "", argv[i]);
	}
	const xb_image *img = a->model.base;
	xb_err err;
	xb_edit_result res = {0};
	char buf[64];
	int rc;
	if (group) {
		rc = editor_place_group(ed, name, to, &res, &err);
	} else {
		long lib = -1;
		for (size_t i = 0; img && i < img->nlibraries; i++)
			if (strcmp(img->libraries[i].name, name) == 0)
				lib = (long)i;
		if (lib < 0)
			return act_done(msg, cap, XB_ACT_ERROR, "no library '%s' (the libraries panel lists "
				    "them: 1, m)", name);
		rc = editor_place_library(ed, (int)lib, to, &res, &err);
	}
	return edit_result(msg, cap, rc, &err, &res, "%s %s: %zu function%s %s",
			   group ? "group" : "library", name, res.changed, res.changed == 1 ? "" : "s",
			   place_text(&to, buf, sizeof buf));
}

/* :preset hot | colour | sram SIZE | noalloc SIZE | names FILE */
int act_preset(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	xb_editor *ed = editor(a, msg, cap);
	if (!ed)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	const xb_plan_input *in = editloop_plan_input(a->edit->loop);
	const char *p = argv[1];
	xb_err err;
	xb_edit_result res = {0};
	int rc;
	if (strcmp(p, "names") == 0) {
		if (argc < 3)
			return failed(msg, cap, "preset names FILE");
		rc = editor_load_names_file(ed, argv[2], &res, &err);
		return edit_result(msg, cap, rc, &err, &res, "the names of %s to SRAM", argv[2]);
	}
	if (strcmp(p, "hot") != 0 && strcmp(p, "colour") != 0 && strcmp(p, "color") != 0 &&
	    strcmp(p, "sram") != 0 && strcmp(p, "noalloc") != 0)
		return failed(msg, cap, "preset hot | colour | sram SIZE (colouring + SIZE of SRAM) | "
			      "noalloc SIZE (SIZE of SRAM, the other sampled code through the "
			      "non-allocating alias) | names FILE");
	if (!in->prof && !in->trace)
		return failed(msg, cap, "the presets plan from a profile: record the planning profile "
			      "first (P, or :profile)");
	uint32_t sram = XB_EDIT_BUDGET;
	if ((strcmp(p, "sram") == 0 || strcmp(p, "noalloc") == 0) && argc > 2 &&
	    parse_bytes(argv[2], &sram) != 0)
		return act_done(msg, cap, XB_ACT_ERROR, "preset %s %s: a size such as 8K or 8192", p,
				argv[2]);
	const char *planner = strcmp(p, "color") == 0 ? "colour" : p;
	rc = editor_apply_preset(ed, planner, sram, &res, &err);
	return edit_result(msg, cap, rc, &err, &res, "the %s preset fills the pending layout (u "
			   "undoes it)", planner);
}

/* :budget sram|pad SIZE */
int act_budget(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	xb_editor *ed = editor(a, msg, cap);
	if (!ed)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	uint32_t bytes;
	if (parse_bytes(argv[2], &bytes) != 0)
		return act_done(msg, cap, XB_ACT_ERROR, "budget %s %s: a size such as 8K or 8192", argv[1],
			    argv[2]);
	xb_err err;
	int rc;
	if (strcmp(argv[1], "sram") == 0)
		rc = editor_set_sram_budget(ed, bytes, &err);
	else if (strcmp(argv[1], "pad") == 0 || strcmp(argv[1], "padding") == 0)
		rc = editor_set_pad_budget(ed, bytes, &err);
	else
		return failed(msg, cap, "budget sram SIZE | budget pad SIZE");
	return edit_result(msg, cap, rc, &err, NULL, "%s budget: %u bytes", argv[1], bytes);
}

int act_undo(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	xb_editor *ed = editor(a, msg, cap);
	if (!ed)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	int redo = strcmp(argv[0], "redo") == 0;
	if (redo ? !editor_can_redo(ed) : !editor_can_undo(ed))
		return act_done(msg, cap, XB_ACT_ERROR, "nothing to %s", argv[0]);
	char label[256];
	snprintf(label, sizeof label, "%s", redo ? editor_redo_label(ed) : editor_undo_label(ed));
	xb_err err;
	int rc = redo ? editor_redo(ed, &err) : editor_undo(ed, &err);
	return edit_result(msg, cap, rc, &err, NULL, "%s: %s", redo ? "redone" : "undone", label);
}

/* :save-layout FILE, :load-layout FILE, :save-names FILE, :load-names FILE */
int act_layout_file(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	xb_editor *ed = editor(a, msg, cap);
	if (!ed)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	const char *what = argv[0], *path = argv[1];
	xb_err err;
	xb_edit_result res = {0};
	int rc;
	if (strcmp(what, "save-layout") == 0)
		rc = editor_save_layout(ed, path, &err);
	else if (strcmp(what, "save-names") == 0)
		rc = editor_save_names(ed, path, &err);
	else if (strcmp(what, "load-layout") == 0)
		rc = editor_load_layout_file(ed, path, &res, &err);
	else
		rc = editor_load_names_file(ed, path, &res, &err);
	return edit_result(msg, cap, rc, &err, &res, "%s %s", strncmp(what, "save", 4) == 0
				   ? "wrote" : "loaded", path);
}

/* ---- The loop ---- */

static int started(char *msg, size_t cap, int rc, const xb_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int started(char *msg, size_t cap, int rc, const xb_report *rep, const char *fmt, ...)
{
	if (rc != 0)
		return act_done(msg, cap, XB_ACT_ERROR, "%s", rep->msg);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, cap, fmt, ap);
	va_end(ap);
	return XB_ACT_MESSAGE | XB_ACT_REDRAW;
}

int act_profile(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)argv;
	xb_editloop *l = edit_loop(a, msg, cap);
	if (!l)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	xb_report rep;
	int rc = editloop_start(l, NULL, NULL, XB_LOOP_PROFILE, &rep);
	return started(msg, cap, rc, &rep, "recording the planning profile: PC samples%s during "
		       "pings", a->model.tg && session_bench(a->s)->ops->trace ? " and a fetch trace" : "");
}

/* :relink, :flash, :measure, :loop */
int act_loop(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	xb_editloop *l = edit_loop(a, msg, cap);
	if (!l)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	const char *what = argv[0];
	unsigned steps = strcmp(what, "relink") == 0    ? XB_LOOP_RELINK
			 : strcmp(what, "flash") == 0   ? XB_LOOP_FLASH
			 : strcmp(what, "measure") == 0 ? XB_LOOP_MEASURE
							: XB_LOOP_ALL;
	const xb_layout *layout = NULL;
	if (steps & XB_LOOP_RELINK) {
		xb_editor *ed = editor(a, msg, cap);
		if (!ed)
			return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
		layout = editor_layout(ed);
	}
	xb_report rep;
	int rc = editloop_start(l, layout, argc > 1 ? argv[1] : NULL, steps, &rep);
	return started(msg, cap, rc, &rep, "%s", steps == XB_LOOP_ALL ? "the loop: relink, verify, "
		       "flash, measure" : what);
}

int act_xip_cache(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	if (strcmp(argv[1], "on") != 0 && strcmp(argv[1], "off") != 0)
		return failed(msg, cap, "xip-cache on|off");
	xb_report rep;
	int on = strcmp(argv[1], "on") == 0;
	if (session_xip_cache(a->s, on, &rep) != 0)
		return act_done(msg, cap, XB_ACT_ERROR, "%s", rep.msg);
	app_triage_invalidate(a);
	return act_done(msg, cap, 0, "the XIP cache is %s%s", on ? "on" : "off",
		    on ? "" : " (a measurement now shows what a build that leaves it off costs)");
}

int act_revert(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)argv;
	xb_editloop *l = edit_loop(a, msg, cap);
	if (!l)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	xb_report rep;
	if (editloop_revert(l, &rep) != 0)
		return act_done(msg, cap, XB_ACT_ERROR, "%s", rep.msg);
	/* the pending layout goes back too (one undo step) */
	const xb_loop_image *g = editloop_flashed(l);
	xb_err err;
	if (a->edit->ed)
		editor_load_layout(a->edit->ed, &g->layout, g->name, NULL, &err);
	return act_done(msg, cap, 0, "going back to %s", g->name);
}

int act_cancel(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	(void)argv;
	xb_editloop *l = edit_loop(a, msg, cap);
	if (!l)
		return XB_ACT_ERROR | XB_ACT_MESSAGE | XB_ACT_REDRAW;
	if (editloop_state(l) != XB_LOOP_RUNNING)
		return failed(msg, cap, "nothing runs");
	editloop_cancel(l);
	return act_done(msg, cap, 0, "cancelling");
}

/* :export DIR: the runs as xipbench report --out writes them, against the baseline the
 * compare panel shows */
int act_export(xb_app *a, int argc, char **argv, char *msg, size_t cap)
{
	(void)argc;
	const xb_model *m = &a->model;
	if (!m->nruns)
		return failed(msg, cap, "no runs to export yet: measure one (M) or run the loop (R)");
	const char *dir = argv[1];
	xb_err err;
	if (xb_mkdirs(dir, &err) != 0)
		return failed(msg, cap, err.msg);
	const xb_run *const *runs = (const xb_run *const *)m->runs;
	const xb_run *base = export_default_baseline(runs, m->nruns);
	if (!base)
		base = m->runs[0];
	xb_export_dir o = {.dir = dir, .formats = XB_EXPORT_ALL, .ways = a->tg.cache.ways,
			   .source = a->edit ? a->edit->history : NULL};
	if (export_write_dir(&o, runs, m->nruns, base, &err) != 0)
		return failed(msg, cap, err.msg);
	return act_done(msg, cap, 0, "%zu runs exported to %s: %zu files (report.md, runs.csv, "
			"runs.json, SVGs%s)", m->nruns, dir, o.files, o.no_png ? "; no PNG: "
			"no converter installed" : " and PNGs");
}

int edit_loop_running(const xb_app *a)
{
	return a->edit && a->edit->loop && editloop_state(a->edit->loop) == XB_LOOP_RUNNING;
}
