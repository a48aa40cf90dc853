/* term: the terminal: the only file that includes curses (ncursesw). Opens and restores
 * the screen, reads keys and mouse events without blocking, sets colours from a theme at
 * the terminal's depth (256, 16, 8 or none) and blits a canvas, drawing only the cells
 * that changed. */
#ifndef XB_TUI_TERM_H
#define XB_TUI_TERM_H

#include "../core/util.h"
#include "../panels/canvas.h"
#include "../panels/panel.h"
#include "../panels/theme.h"

typedef struct xb_term_options {
	int mouse;      /* report clicks and the wheel (default 1) */
	int colours;    /* force a depth: 256, 16, 8 or 0 (never more than the terminal
			 * has); -1 (default): what the terminal says, and 0 when NO_COLOR
			 * is set (to anything) */
} xb_term_options;

/* Opens the terminal on the process's controlling tty (stdin and stdout must be a
 * terminal): UTF-8 locale from the environment (the first call sets LC_ALL from it, but
 * LC_NUMERIC stays "C" so that numbers are written and read with '.'), raw keys (Ctrl-C
 * is a key), no echo, keypad, no delay, hidden cursor, the alternate screen. o may be
 * NULL (the defaults). Fails (err) when there is no terminal or TERM is unset or unknown;
 * opening an open terminal does nothing. */
int term_open(const xb_term_options *o, xb_err *err);
/* Restores the terminal (idempotent). */
void term_close(void);
/* Async-signal-safe restore for crash handlers: leaves the alternate screen, shows the
 * cursor, turns mouse reporting off and puts back the saved termios, with write(2) and
 * tcsetattr only. Does nothing when the terminal is not open. */
void term_emergency_restore(void);

int term_fd(void);              /* the descriptor to poll for input */
void term_size(int *w, int *h); /* the screen's size now */
int term_colours(void);         /* the depth in use: 256, 16, 8, or 0 */
int term_utf8(void);            /* the locale is UTF-8 (else box and block characters are
				 * drawn as ASCII) */

/* The next input without blocking: a key (tui/keys.h), XB_KEY_RESIZE (the size changed;
 * term_size tells the new one), XB_KEY_MOUSE (term_mouse gives it), or XB_KEY_NONE when
 * nothing is waiting. A lone Esc is XB_KEY_ESC (after a short wait for the rest of a
 * sequence); Alt+key, escape sequences curses does not know and mouse events other than
 * clicks and the wheel are dropped (reading on), so NONE always means nothing is left. */
int term_read(void);
/* The last mouse event (after XB_KEY_MOUSE, until the next term_read): 0 and *ev filled,
 * -1 when none. A button press counts as a click (a click held long is still one). */
int term_mouse(xb_mouse *ev);

/* Colours for every element of t at the terminal's depth (0: t's monochrome attributes).
 * May come before term_open, which uses it (without one: the monochrome theme). */
void term_set_theme(const xb_theme *t);
/* Draws c (the screen's size; a smaller canvas is drawn at the top left and the rest
 * cleared) and refreshes; cursor_x >= 0 shows the cursor there (the prompt). Characters
 * that are not one column wide are drawn as '?', so that the grid never shifts. */
void term_blit(const xb_canvas *c, int cursor_x, int cursor_y);
/* Forgets what is on the screen so that the next blit draws every cell (Ctrl-L). */
void term_invalidate(void);

#endif
