/* term: the terminal through ncursesw: open and restore, keys and mouse, colours, and
 * blitting a canvas (see term.h). The only file that includes curses. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "term.h"

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

/* curses has a key_name of its own, which keys.h's would clash with here */
#define key_name curses_key_name
#include <curses.h>
#include <term.h> /* setupterm: checks TERM without newterm's leak when it is unknown */
#undef key_name

#include "keys.h"

#define TERM_ESCDELAY_MS 25
#define TERM_RESTORE_MAX 256

static SCREEN *screen;
static volatile sig_atomic_t is_open;
static int out_fd = 1, in_fd = 0;
static struct termios saved_tio;
static int saved_tio_valid;
/* What term_emergency_restore writes: captured at open so that a signal handler needs
 * no terminfo. */
static char restore_seq[TERM_RESTORE_MAX];
static size_t restore_len;

static int depth;         /* colours in use: 256, 16, 8 or 0 */
static int utf8;
static int default_colours; /* use_default_colors worked: -1 is the terminal's own */
static xb_theme theme;
static int have_theme;
static attr_t el_attr[XB_EL_COUNT];
static short el_pair[XB_EL_COUNT];

/* What the screen shows (the canvas cells last drawn), to draw only what changed. */
static xb_cell *shown;
static int shown_w, shown_h;
static int redraw_all;
static int cursor_on = -1;

static xb_mouse mouse_event;
static int mouse_pending;

/* ---- Emergency restore ---- */

/* Appends a terminfo string without its padding ("$<5>"), or the fallback when the
 * terminal has none (cap NULL: the fallback). */
static void restore_add(const char *cap, const char *fallback)
{
	const char *s = cap ? tigetstr(cap) : NULL;
	if (!s || s == (char *)-1)
		s = fallback;
	for (; *s && restore_len + 1 < sizeof restore_seq; s++) {
		if (s[0] == '$' && s[1] == '<') {
			const char *e = strchr(s, '>');
			if (e) {
				s = e;
				continue;
			}
		}
		restore_seq[restore_len++] = *s;
	}
}

static void restore_capture(void)
{
	restore_len = 0;
	restore_add("sgr0", "\033[0m");
	/* mouse reporting off: X10/normal, button-event and SGR modes */
	restore_add(NULL, "\033[?1000l\033[?1002l\033[?1006l");
	restore_add("rmkx", "");
	restore_add("cnorm", "\033[?25h");
	restore_add("rmcup", "\033[?1049l");
}

void term_emergency_restore(void)
{
	if (!is_open)
		return;
	is_open = 0;
	ssize_t n = write(out_fd, restore_seq, restore_len);
	(void)n;
	if (saved_tio_valid)
		tcsetattr(in_fd, TCSANOW, &saved_tio);
}

/* ---- Colours ---- */

static int colour_at(const xb_colour *c, int fg)
{
	int v = depth >= 256 ? c->c256 : depth >= 16 ? c->c16 : c->c8;
	if (v < 0 && !default_colours)
		v = fg ? COLOR_WHITE : COLOR_BLACK;
	return v;
}

static attr_t attrs_of(unsigned a)
{
	attr_t r = A_NORMAL;
	if (a & XB_ATTR_BOLD)
		r |= A_BOLD;
	if (a & XB_ATTR_DIM)
		r |= A_DIM;
	if (a & XB_ATTR_REVERSE)
		r |= A_REVERSE;
	if (a & XB_ATTR_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & XB_ATTR_ITALIC)
		r |= A_ITALIC;
	return r;
}

static void apply_theme(void)
{
	for (int el = 0; el < XB_EL_COUNT; el++) {
		const xb_style *s = &theme.el[el];
		el_pair[el] = 0;
		if (depth == 0) {
			el_attr[el] = attrs_of(s->mono_attrs);
			continue;
		}
		el_attr[el] = attrs_of(s->attrs);
		int pair = el + 1;
		if (pair >= COLOR_PAIRS)
			continue;
		int fg = colour_at(&s->fg, 1), bg = colour_at(&s->bg, 0);
		if (fg >= COLORS)
			fg = default_colours ? -1 : COLOR_WHITE;
		if (bg >= COLORS)
			bg = default_colours ? -1 : COLOR_BLACK;
		if (init_extended_pair(pair, fg, bg) == OK)
			el_pair[el] = (short)pair;
	}
	redraw_all = 1;
}

void term_set_theme(const xb_theme *t)
{
	theme = *t;
	have_theme = 1;
	if (is_open)
		apply_theme();
}

/* ---- Open and close ---- */

static int locale_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

int term_open(const xb_term_options *o, xb_err *err)
{
	static int locale_set;
	if (is_open)
		return 0;
	if (!locale_set) {
		setlocale(LC_ALL, "");
		/* numbers are written and read with '.' whatever the user's locale */
		setlocale(LC_NUMERIC, "C");
		locale_set = 1;
	}
	utf8 = locale_utf8();
	in_fd = fileno(stdin);
	out_fd = fileno(stdout);
	if (!isatty(in_fd) || !isatty(out_fd))
		return xb_fail(err, "the workbench needs a terminal: standard input and output are "
				    "not one (run it in a terminal, or use --headless)");
	const char *tname = getenv("TERM");
	if (!tname || !*tname)
		return xb_fail(err, "TERM is not set, so the terminal's type is unknown (set it, "
				    "e.g. TERM=xterm-256color, or use --headless)");
	int errret = 0;
	TERMINAL *probe = NULL;
	if (setupterm(NULL, out_fd, &errret) == OK) {
		probe = cur_term;
		del_curterm(probe);
	}
	saved_tio_valid = tcgetattr(in_fd, &saved_tio) == 0;
	fflush(stdout);
	screen = probe ? newterm(NULL, stdout, stdin) : NULL;
	if (!screen) {
		char shown_name[64];
		xb_quote(shown_name, sizeof shown_name, tname, strlen(tname));
		return xb_fail(err, "terminal type '%s' is not in the terminfo database (try "
				    "TERM=xterm-256color, or use --headless)",
			       shown_name);
	}
	set_term(screen);
	raw();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	intrflush(stdscr, FALSE);
	set_escdelay(TERM_ESCDELAY_MS);
	curs_set(0);
	cursor_on = 0;

	int detected = 0;
	if (has_colors() && start_color() == OK) {
		default_colours = use_default_colors() == OK;
		detected = COLORS >= 256 ? 256 : COLORS >= 16 ? 16 : COLORS >= 8 ? 8 : 0;
	}
	int want = o ? o->colours : -1;
	if (want < 0)
		depth = getenv("NO_COLOR") ? 0 : detected;
	else /* a depth the terminal does not have cannot be drawn: the lower one wins */
		depth = want >= 256 ? 256 : want >= 16 ? 16 : want >= 8 ? 8 : 0;
	if (depth > detected)
		depth = detected;

	mmask_t mask = 0;
	if (!o || o->mouse) {
		/* a press counts as a click too: a click held longer than curses waits is one */
		mask = BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
		mask |= BUTTON5_PRESSED;
#endif
	}
	mousemask(mask, NULL);
	mouse_pending = 0;

	restore_capture();
	redraw_all = 1;
	is_open = 1;
	if (!have_theme) {
		theme_mono(&theme);
		have_theme = 1;
	}
	apply_theme();
	return 0;
}

void term_close(void)
{
	if (!is_open)
		return;
	is_open = 0;
	mousemask(0, NULL);
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
	if (saved_tio_valid)
		tcsetattr(in_fd, TCSADRAIN, &saved_tio);
	free(shown);
	shown = NULL;
	shown_w = shown_h = 0;
	cursor_on = -1;
}

int term_fd(void)
{
	return is_open ? in_fd : -1;
}

void term_size(int *w, int *h)
{
	int x = 0, y = 0;
	if (is_open)
		getmaxyx(stdscr, y, x);
	*w = x;
	*h = y;
}

int term_colours(void)
{
	return is_open ? depth : 0;
}

int term_utf8(void)
{
	return is_open ? utf8 : locale_utf8();
}

/* ---- Input ---- */

static int map_function_key(wint_t k)
{
	switch (k) {
	case KEY_UP: return XB_KEY_UP;
	case KEY_DOWN: return XB_KEY_DOWN;
	case KEY_LEFT: case KEY_SLEFT: return XB_KEY_LEFT;
	case KEY_RIGHT: case KEY_SRIGHT: return XB_KEY_RIGHT;
	case KEY_PPAGE: return XB_KEY_PAGE_UP;
	case KEY_NPAGE: return XB_KEY_PAGE_DOWN;
	case KEY_HOME: case KEY_FIND: case KEY_A1: return XB_KEY_HOME;
	case KEY_END: case KEY_SELECT: case KEY_C1: return XB_KEY_END;
	case KEY_IC: return XB_KEY_INSERT;
	case KEY_DC: return XB_KEY_DELETE;
	case KEY_BTAB: return XB_KEY_BACKTAB;
	case KEY_BACKSPACE: return XB_KEY_BACKSPACE;
	case KEY_ENTER: return XB_KEY_ENTER;
	case KEY_RESIZE: return XB_KEY_RESIZE;
	}
	if (k >= (wint_t)KEY_F(1) && k <= (wint_t)KEY_F(12))
		return XB_KEY_F1 + (int)(k - (wint_t)KEY_F(1));
	return XB_KEY_NONE;
}

/* Reads the mouse event behind KEY_MOUSE; 0 when it is one xipbench uses. */
static int read_mouse(void)
{
	MEVENT me;
	if (getmouse(&me) != OK)
		return -1;
	int kind = 0;
	if (me.bstate & BUTTON1_DOUBLE_CLICKED)
		kind = XB_MOUSE_DOUBLE;
	else if (me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED))
		kind = XB_MOUSE_CLICK;
	else if (me.bstate & BUTTON4_PRESSED)
		kind = XB_MOUSE_WHEEL_UP;
#ifdef BUTTON5_PRESSED
	else if (me.bstate & BUTTON5_PRESSED)
		kind = XB_MOUSE_WHEEL_DOWN;
#endif
	if (!kind)
		return -1;
	mouse_event = (xb_mouse){.kind = kind, .x = me.x, .y = me.y};
	mouse_pending = 1;
	return 0;
}

/* After ESC: nothing more waiting is the Esc key; '[' or 'O' start an escape sequence
 * curses did not know (swallowed); another key is Alt+key (not a key xipbench has:
 * dropped, so that Alt+q does not quit). Returns the key, or XB_KEY_NONE to read on. */
static int after_escape(void)
{
	wint_t c;
	int r = get_wch(&c);
	if (r == ERR)
		return XB_KEY_ESC;
	if (r == OK && c == 27) {
		unget_wch(c);
		return XB_KEY_ESC;
	}
	if (r == OK && (c == '[' || c == 'O')) {
		int csi = c == '[';
		for (int i = 0; i < 32; i++) {
			r = get_wch(&c);
			if (r != OK)
				break;
			/* CSI: parameters and intermediates 0x20..0x3F, then a final byte; SS3: one */
			if (!csi || (c >= 0x40 && c <= 0x7E))
				break;
			if (c < 0x20 || c > 0x3F)
				break;
		}
	}
	return XB_KEY_NONE;
}

int term_read(void)
{
	if (!is_open)
		return XB_KEY_NONE;
	mouse_pending = 0;
	for (;;) {
		wint_t c;
		int r = get_wch(&c);
		if (r == ERR)
			return XB_KEY_NONE;
		int key = XB_KEY_NONE;
		if (r == KEY_CODE_YES) {
			if (c == KEY_MOUSE) {
				if (read_mouse() == 0)
					return XB_KEY_MOUSE;
				continue;
			}
			key = map_function_key(c);
			if (key == XB_KEY_RESIZE)
				redraw_all = 1;
		} else if (c == 27) {
			key = after_escape();
		} else if (c == '\n' || c == '\r') {
			key = XB_KEY_ENTER;
		} else if (c == 127) {
			key = XB_KEY_BACKSPACE;
		} else if (c > 0 && c < 32) {
			key = (int)c;
		} else if (key_is_char((int)c)) {
			key = (int)c;
		}
		if (key != XB_KEY_NONE)
			return key;
	}
}

int term_mouse(xb_mouse *ev)
{
	if (!mouse_pending)
		return -1;
	*ev = mouse_event;
	return 0;
}

/* ---- Drawing ---- */

/* Box drawing (U+2500 family) as ASCII. */
static uint32_t ascii_box(uint32_t ch)
{
	static const uint16_t horizontal[] = {0x2500, 0x2501, 0x2504, 0x2505, 0x2508, 0x2509,
					      0x254C, 0x254D, 0x2550, 0x2574, 0x2576, 0x2578,
					      0x257A, 0x257C, 0x257E};
	static const uint16_t vertical[] = {0x2502, 0x2503, 0x2506, 0x2507, 0x250A, 0x250B,
					    0x254E, 0x254F, 0x2551, 0x2575, 0x2577, 0x2579,
					    0x257B, 0x257D, 0x257F};
	for (size_t i = 0; i < sizeof horizontal / sizeof horizontal[0]; i++)
		if (ch == horizontal[i])
			return '-';
	for (size_t i = 0; i < sizeof vertical / sizeof vertical[0]; i++)
		if (ch == vertical[i])
			return '|';
	if (ch == 0x2571)
		return '/';
	if (ch == 0x2572)
		return '\\';
	if (ch == 0x2573)
		return 'X';
	return '+'; /* corners, tees and crossings */
}

/* Block elements (U+2580..U+259F): spark levels and bar eighths by how full they are. */
static uint32_t ascii_block(uint32_t ch)
{
	if (ch >= 0x2581 && ch <= 0x2582)
		return '.';
	if (ch >= 0x2583 && ch <= 0x2585)
		return ':';
	if (ch >= 0x2586 && ch <= 0x258B)
		return '#';
	if (ch >= 0x258C && ch <= 0x258D)
		return ':';
	if (ch >= 0x258E && ch <= 0x258F)
		return '.';
	switch (ch) {
	case 0x2591: return '.';
	case 0x2592: return ':';
	case 0x2594: return '-';
	case 0x2595: return '|';
	}
	return '#';
}

/* Other glyphs panels may draw, as ASCII. */
static uint32_t ascii_other(uint32_t ch)
{
	static const struct {
		uint16_t from;
		char to;
	} map[] = {
		{0x00B7, '.'}, {0x2022, '*'}, {0x25CF, '*'}, {0x25CB, 'o'}, {0x2026, '~'},
		{0x2013, '-'}, {0x2014, '-'}, {0x2212, '-'}, {0x2018, '\''}, {0x2019, '\''},
		{0x201C, '"'}, {0x201D, '"'}, {0x00D7, 'x'}, {0x2190, '<'}, {0x2191, '^'},
		{0x2192, '>'}, {0x2193, 'v'}, {0x25B2, '^'}, {0x25B4, '^'}, {0x25BC, 'v'},
		{0x25BE, 'v'}, {0x25B6, '>'}, {0x25B8, '>'}, {0x25BA, '>'}, {0x25C0, '<'},
		{0x25C2, '<'}, {0x25C4, '<'}, {0x2713, '+'}, {0x2714, '+'}, {0x2717, 'x'},
		{0x2718, 'x'}, {0x00B0, 'o'}, {0x00B5, 'u'}, {0x2264, '<'}, {0x2265, '>'},
		{0x2248, '~'}, {0x00A0, ' '}, {0x25A0, '#'}, {0x25A1, 'o'},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (map[i].from == ch)
			return (uint32_t)map[i].to;
	return '?';
}

/* The character the terminal is given for a canvas cell. */
static uint32_t glyph(uint32_t ch)
{
	if (ch < 0x20 || (ch >= 0x7F && ch < 0xA0))
		return '?';
	if (ch < 0x7F)
		return ch;
	if (utf8)
		return wcwidth((wchar_t)ch) == 1 ? ch : '?'; /* one cell each, or the grid shifts */
	if (ch >= 0x2500 && ch <= 0x257F)
		return ascii_box(ch);
	if (ch >= 0x2580 && ch <= 0x259F)
		return ascii_block(ch);
	return ascii_other(ch);
}

void term_invalidate(void)
{
	redraw_all = 1;
	if (is_open)
		clearok(curscr, TRUE);
}

void term_blit(const xb_canvas *c, int cursor_x, int cursor_y)
{
	if (!is_open)
		return;
	int w, h;
	getmaxyx(stdscr, h, w);
	if (w != shown_w || h != shown_h || !shown) {
		free(shown);
		shown = xcalloc((size_t)w * (size_t)h + 1, sizeof *shown);
		shown_w = w;
		shown_h = h;
		redraw_all = 1;
	}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			xb_cell cell = {' ', XB_EL_NORMAL};
			if (x < c->w && y < c->h)
				cell = c->cells[(size_t)y * (size_t)c->w + (size_t)x];
			if (cell.el >= XB_EL_COUNT)
				cell.el = XB_EL_NORMAL;
			xb_cell *s = &shown[(size_t)y * (size_t)w + (size_t)x];
			if (!redraw_all && s->ch == cell.ch && s->el == cell.el)
				continue;
			*s = cell;
			wchar_t wc[2] = {(wchar_t)glyph(cell.ch), 0};
			cchar_t cc;
			setcchar(&cc, wc, el_attr[cell.el], el_pair[cell.el], NULL);
			mvadd_wch(y, x, &cc); /* the bottom right cell reports ERR but is drawn */
		}
	redraw_all = 0;
	int want = cursor_x >= 0 && cursor_x < w && cursor_y >= 0 && cursor_y < h;
	if (want)
		move(cursor_y, cursor_x);
	if (want != cursor_on) {
		curs_set(want ? 1 : 0);
		cursor_on = want;
	}
	wnoutrefresh(stdscr);
	doupdate();
}
