/* help: the keys and ':' commands of the actions table (model->help), grouped, with what
 * each does; scrollable, searchable. */
#include <stdlib.h>
#include <string.h>

#include "panel.h"
#include "widgets.h"

#define HELP_KEYS_MAX 16    /* widest keys column */
#define HELP_COMMAND_MAX 34 /* widest command column */
#define HELP_WRAP_LINES 3   /* lines a help text may take before it is cut */

enum { HELP_NOTE, HELP_BLANK, HELP_GROUP, HELP_ENTRY, HELP_MORE };

typedef struct help_line {
	int kind;
	size_t entry;       /* HELP_GROUP: an entry of the group; HELP_ENTRY, HELP_MORE: its */
	size_t off, len;    /* the part of the help text on this line */
} help_line;

typedef struct help_state {
	size_t top;
	int page, width;    /* rows and columns at the last draw */
	char filter[128], search[128];
	long match;         /* the entry found by the last search, -1 none */
	help_line *lines;
	size_t nlines, cap;
	int keys_w, cmd_w;  /* the columns of the last layout */
} help_state;

static const char help_note[] =
	"Every key is also a ':' command: press ':' and type it, e.g. ':sort samples'.";

static void *help_create(void)
{
	help_state *s = xcalloc(1, sizeof *s);
	s->match = -1;
	s->width = 80;
	return s;
}

static void help_destroy(void *st)
{
	help_state *s = st;
	if (!s)
		return;
	free(s->lines);
	free(s);
}

static const char *help_str(const char *s)
{
	return s ? s : "";
}

static int help_entry_matches(const xb_help_entry *e, const char *text)
{
	return wg_match(help_str(e->keys), text) || wg_match(help_str(e->command), text) ||
	       wg_match(help_str(e->help), text) || wg_match(help_str(e->group), text);
}

static void help_push(help_state *s, int kind, size_t entry, size_t off, size_t len)
{
	xb_grow(&s->lines, &s->cap, s->nlines + 1, sizeof *s->lines);
	s->lines[s->nlines++] = (help_line){kind, entry, off, len};
}

/* The lines for width w: the note, then each group with its entries (the filter's only). */
static void help_layout(help_state *s, const xb_model *m, int w)
{
	s->nlines = 0;
	s->keys_w = 4;
	s->cmd_w = 7;
	for (size_t i = 0; i < m->nhelp; i++) {
		int k = canvas_width(help_str(m->help[i].keys));
		int c = canvas_width(help_str(m->help[i].command));
		s->keys_w = k > s->keys_w ? k : s->keys_w;
		s->cmd_w = c > s->cmd_w ? c : s->cmd_w;
	}
	s->keys_w = s->keys_w < HELP_KEYS_MAX ? s->keys_w : HELP_KEYS_MAX;
	s->cmd_w = s->cmd_w < HELP_COMMAND_MAX ? s->cmd_w : HELP_COMMAND_MAX;
	/* narrow: the command column gives way first, down to a third of the width */
	int room = w - 2 - s->keys_w - 2 - s->cmd_w - 2;
	if (room < 20 && s->cmd_w > w / 3)
		s->cmd_w = w / 3 > 7 ? w / 3 : 7;
	room = w - 2 - s->keys_w - 2 - s->cmd_w - 2;
	help_push(s, HELP_NOTE, 0, 0, 0);
	help_push(s, HELP_BLANK, 0, 0, 0);
	for (size_t i = 0; i < m->nhelp; i++) {
		const char *g = help_str(m->help[i].group);
		size_t j = 0;
		while (j < i && strcmp(help_str(m->help[j].group), g) != 0)
			j++;
		if (j < i)
			continue; /* the group was laid out at its first entry */
		int any = 0;
		for (size_t k = i; k < m->nhelp; k++) {
			const xb_help_entry *e = &m->help[k];
			if (strcmp(help_str(e->group), g) != 0 ||
			    (s->filter[0] && !help_entry_matches(e, s->filter)))
				continue;
			if (!any)
				help_push(s, HELP_GROUP, k, 0, 0);
			any = 1;
			const char *text = help_str(e->help);
			size_t off = 0;
			for (int part = 0; part < HELP_WRAP_LINES; part++) {
				int last = 1;
				size_t len = room > 0 ? wg_wrap(text + off, room, &last) : 0;
				help_push(s, part ? HELP_MORE : HELP_ENTRY, k, off, len);
				off += len;
				while (text[off] == ' ')
					off++;
				if (last || !text[off] || room <= 0)
					break;
			}
		}
		if (any)
			help_push(s, HELP_BLANK, 0, 0, 0);
	}
}

static void help_clamp(help_state *s)
{
	size_t page = s->page > 0 ? (size_t)s->page : 1;
	if (s->top + page > s->nlines)
		s->top = s->nlines > page ? s->nlines - page : 0;
}

static void help_draw_line(const help_state *s, const xb_model *m, xb_canvas *c, xb_rect in,
			   int row, const help_line *l)
{
	wg_pen p = wg_pen_at(c, in, row);
	if (l->kind == HELP_NOTE) {
		wg_put(&p, XB_EL_DIM, help_note);
		return;
	}
	if (l->kind == HELP_BLANK || l->entry >= m->nhelp)
		return;
	const xb_help_entry *e = &m->help[l->entry];
	switch (l->kind) {
	case HELP_GROUP:
		wg_put(&p, XB_EL_HEADER, help_str(e->group)[0] ? help_str(e->group) : "Other");
		return;
	}
	int x = in.x + 2;
	if (l->kind == HELP_ENTRY) {
		wg_clip_field(c, in, x, p.y, s->keys_w, XB_EL_KEY, XB_ALIGN_LEFT,
			      help_str(e->keys));
		wg_clip_field(c, in, x + s->keys_w + 2, p.y, s->cmd_w, XB_EL_NORMAL, XB_ALIGN_LEFT,
			      help_str(e->command));
	}
	int hx = x + s->keys_w + 2 + s->cmd_w + 2, room = in.x + in.w - hx;
	if (room > 0) {
		char part[512];
		size_t len = l->len < sizeof part - 1 ? l->len : sizeof part - 1;
		memcpy(part, help_str(e->help) + l->off, len);
		part[len] = 0;
		canvas_text(c, hx, p.y, room, XB_EL_DIM, part);
	}
	if (s->match == (long)l->entry)
		canvas_style(c, (xb_rect){in.x, p.y, in.w, 1}, XB_EL_MATCH);
}

static void help_draw(void *st, const xb_model *m, xb_canvas *c, xb_rect r, int focused)
{
	help_state *s = st;
	char title[160];
	snprintf(title, sizeof title, s->filter[0] ? "Help filter '%s'" : "Help%s",
		 s->filter[0] ? s->filter : "");
	xb_rect in = panel_frame(c, r, title, focused);
	if (in.w <= 0 || in.h <= 0)
		return;
	s->width = in.w;
	s->page = in.h;
	help_layout(s, m, in.w);
	help_clamp(s);
	if (m->nhelp == 0 || s->nlines <= 2) {
		help_draw_line(s, m, c, in, 0, &(help_line){HELP_NOTE, 0, 0, 0});
		wg_pen p = wg_pen_at(c, in, 2);
		wg_put(&p, XB_EL_DIM, m->nhelp ? "no command matches the filter" : "no commands");
		return;
	}
	for (int row = 0; row < in.h && s->top + (size_t)row < s->nlines; row++)
		help_draw_line(s, m, c, in, row, &s->lines[s->top + (size_t)row]);
}

/* The next entry (after the match, wrapping; dir -1 backwards) that matches the search,
 * scrolled into view. */
static int help_search(help_state *s, const xb_model *m, int dir, int skip, xb_panel_result *res)
{
	if (!s->search[0])
		return wg_message(res, 1, "no search yet: search TEXT");
	help_layout(s, m, s->width);
	size_t n = m->nhelp, from = s->match >= 0 ? (size_t)s->match : dir > 0 ? n - 1 : 0;
	if (s->match < 0)
		skip = 1;
	for (size_t k = skip ? 1 : 0; n && k <= n; k++) {
		size_t i = dir > 0 ? (from + k) % n : (from + n - k % n) % n;
		if (!help_entry_matches(&m->help[i], s->search))
			continue;
		for (size_t l = 0; l < s->nlines; l++)
			if (s->lines[l].kind == HELP_ENTRY && s->lines[l].entry == i) {
				s->match = (long)i;
				size_t page = s->page > 0 ? (size_t)s->page : 1;
				if (l < s->top || l >= s->top + page)
					s->top = l > 2 ? l - 2 : 0;
				help_clamp(s);
				return res->flags = XB_PANEL_REDRAW;
			}
	}
	s->match = -1;
	return wg_message(res, 1, "'%s' not found in the help", s->search);
}

static int help_command(void *st, const xb_model *m, const char *verb, const char *arg,
			xb_panel_result *res)
{
	help_state *s = st;
	res->flags = 0;
	size_t page = s->page > 1 ? (size_t)s->page - 1 : 1;
	if (strcmp(verb, "up") == 0)
		s->top = s->top ? s->top - 1 : 0;
	else if (strcmp(verb, "down") == 0)
		s->top++;
	else if (strcmp(verb, "page-up") == 0)
		s->top = s->top > page ? s->top - page : 0;
	else if (strcmp(verb, "page-down") == 0)
		s->top += page;
	else if (strcmp(verb, "home") == 0)
		s->top = 0;
	else if (strcmp(verb, "end") == 0)
		s->top = (size_t)-1 / 2;
	else if (strcmp(verb, "filter") == 0) {
		snprintf(s->filter, sizeof s->filter, "%s", arg ? arg : "");
		s->top = 0;
		s->match = -1;
	} else if (strcmp(verb, "search") == 0) {
		snprintf(s->search, sizeof s->search, "%s", arg ? arg : "");
		s->match = -1;
		return help_search(s, m, 1, 0, res);
	} else if (strcmp(verb, "next") == 0)
		return help_search(s, m, 1, 1, res);
	else if (strcmp(verb, "prev") == 0)
		return help_search(s, m, -1, 1, res);
	else
		return res->flags = XB_PANEL_UNHANDLED;
	help_layout(s, m, s->width);
	help_clamp(s);
	return res->flags = XB_PANEL_REDRAW;
}

static int help_mouse(void *st, const xb_model *m, xb_rect r, const xb_mouse *ev,
		      xb_panel_result *res)
{
	(void)r;
	res->flags = XB_PANEL_UNHANDLED;
	if (ev->kind == XB_MOUSE_WHEEL_UP || ev->kind == XB_MOUSE_WHEEL_DOWN) {
		for (int i = 0; i < 3; i++)
			help_command(st, m, ev->kind == XB_MOUSE_WHEEL_UP ? "up" : "down", NULL,
				     res);
	}
	return res->flags;
}

const xb_panel_ops panel_help = {
	.name = "help",
	.title = "Help",
	.sorts = NULL,
	.modes = NULL,
	.create = help_create,
	.destroy = help_destroy,
	.draw = help_draw,
	.command = help_command,
	.mouse = help_mouse,
};
